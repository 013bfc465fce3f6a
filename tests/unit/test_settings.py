"""evalmaps.service.settings: read once from the environment, validated, with one-sentence errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmaps.service.settings import (
    Settings,
    SettingsError,
    default_cache_dir,
    default_data_dir,
    default_store_dir,
)


def test_defaults():
    assert Settings.from_env({}) == Settings(
        data_dir=default_data_dir(), extra_data=(), max_upload_mb=20.0,
        cache_dir=default_cache_dir(), store_dir=default_store_dir(), store_max_mb=1024.0,
        store_max_figures=1000, upload_seconds=30.0, upload_memory_mb=1024.0, debug=False)
    assert (default_data_dir() / "catalog.json").is_file()


def test_every_variable_is_read():
    env = {"EVALMAPS_DATA": "/d", "EVALMAPS_EXTRA_DATA": "/a:/b", "EVALMAPS_MAX_UPLOAD_MB": "2.5",
           "EVALMAPS_CACHE": "/c", "EVALMAPS_DEBUG": "1", "EVALMAPS_STORE": "/s",
           "EVALMAPS_STORE_MAX_MB": "64", "EVALMAPS_STORE_MAX_FIGURES": "7",
           "EVALMAPS_UPLOAD_SECONDS": "2.5", "EVALMAPS_UPLOAD_MEMORY_MB": "300"}
    assert Settings.from_env(env) == Settings(
        data_dir=Path("/d"), extra_data=(Path("/a"), Path("/b")), max_upload_mb=2.5,
        cache_dir=Path("/c"), store_dir=Path("/s"), store_max_mb=64.0, store_max_figures=7,
        upload_seconds=2.5, upload_memory_mb=300.0, debug=True)
    assert Settings.from_env({"EVALMAPS_CACHE": "off"}).cache_dir is None
    assert Settings.from_env({"EVALMAPS_STORE": "off"}).store_dir is None
    assert Settings.from_env(env).max_upload_bytes == int(2.5 * 2**20)


def test_overrides_win_over_the_environment():
    settings = Settings.from_env({"EVALMAPS_DEBUG": "0"}, debug=True, extra_data=(Path("/x"),))
    assert (settings.debug, settings.extra_data) == (True, (Path("/x"),))


@pytest.mark.parametrize("var, value, message", [
    ("EVALMAPS_MAX_UPLOAD_MB", "-1",
     "EVALMAPS_MAX_UPLOAD_MB=-1 is not valid: give a number of megabytes above 0, such as 20."),
    ("EVALMAPS_MAX_UPLOAD_MB", "abc",
     "EVALMAPS_MAX_UPLOAD_MB=abc is not valid: give a number of megabytes above 0, such as 20."),
    ("EVALMAPS_MAX_UPLOAD_MB", "inf",
     "EVALMAPS_MAX_UPLOAD_MB=inf is not valid: give a number of megabytes above 0, such as 20."),
    ("EVALMAPS_DEBUG", "yes", "EVALMAPS_DEBUG=yes is not valid: give 1 or 0."),
    ("EVALMAPS_STORE_MAX_FIGURES", "2.5", "EVALMAPS_STORE_MAX_FIGURES=2.5 is not valid: give a "
     "whole number above 0, such as 1000."),
    ("EVALMAPS_UPLOAD_SECONDS", "0", "EVALMAPS_UPLOAD_SECONDS=0 is not valid: give a number of "
     "seconds above 0, such as 30."),
])
def test_a_bad_value_is_one_sentence_naming_the_setting(var, value, message):
    with pytest.raises(SettingsError) as err:
        Settings.from_env({var: value})
    assert str(err.value) == message


def test_empty_variables_keep_the_default():
    assert Settings.from_env({"EVALMAPS_MAX_UPLOAD_MB": " ", "EVALMAPS_DEBUG": ""}) == \
        Settings.from_env({})


def test_serve_with_gives_the_app_loaded_by_name_its_settings(monkeypatch, tmp_path):
    """evalmaps serve names the web app (app:server) instead of importing it: the settings of its
    options reach the app through serve_with; without them the app reads the environment."""
    from evalmaps.service import settings as module

    monkeypatch.setattr(module, "_SERVED", [])
    monkeypatch.setenv("EVALMAPS_MAX_UPLOAD_MB", "3")
    assert module.served_settings() == Settings.from_env()
    assert module.served_settings().max_upload_mb == 3
    chosen = Settings(extra_data=(tmp_path,), store_dir=None, max_upload_mb=7)
    module.serve_with(chosen)
    assert module.served_settings() is chosen
