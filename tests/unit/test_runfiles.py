"""The run-time files outside any package (data/, assets/, gunicorn.conf.py) are declared once,
in evalmaps/core/runfiles.py: setup.py copies what it lists into a wheel, MANIFEST.in names the
same for an sdist, and each layer asks only for its own (the catalog never for gunicorn's
settings). tests/integration/test_wheel.py checks the copies in an installed wheel."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
import setuptools

from evalmaps.catalog.resources import default_data_dir
from evalmaps.core.runfiles import CHECKOUT, SHARED, runfile
from evalmaps.service.server import gunicorn_conf

ROOT = Path(__file__).resolve().parents[2]


def test_setup_copies_what_runfiles_declares(monkeypatch):
    built = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: built.update(kwargs))
    setup = runpy.run_path(str(ROOT / "setup.py"), run_name="setup_under_test")
    assert "build_py" in built["cmdclass"]
    assert setup["shared"]() == SHARED == ("data", "assets", "gunicorn.conf.py")


def test_the_sdist_manifest_names_the_same_files():
    named = [line.split()[1] for line in (ROOT / "MANIFEST.in").read_text().splitlines()
             if line.split()[:1] in (["graft"], ["include"])]
    assert tuple(named) == SHARED


def test_each_run_time_file_is_found_in_the_checkout():
    assert CHECKOUT == ROOT
    assert [runfile(name) for name in SHARED] == [ROOT / name for name in SHARED]
    assert all(runfile(name).exists() for name in SHARED)
    assert default_data_dir() == ROOT / "data"
    assert gunicorn_conf() == ROOT / "gunicorn.conf.py"
    with pytest.raises(ValueError, match="not one of the app's run-time files"):
        runfile("setup.py")


def test_the_catalog_does_not_know_where_gunicorns_settings_are():
    mentions = [path.name for path in sorted((ROOT / "evalmaps" / "catalog").rglob("*.py"))
                if "gunicorn" in path.read_text(encoding="utf-8")]
    assert mentions == []
