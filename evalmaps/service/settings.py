"""The app's settings: read once, validated, passed to the web app (``app.create_app``).

Every setting comes from one ``EVALMAPS_*`` environment variable (or the ``evalmaps serve``
option that sets it). :data:`SETTINGS` is the table of them, and the README documents each
(``tests/unit/test_docs.py`` checks it). A bad value stops start-up with one sentence naming the
setting and the values it accepts.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from evalmaps.catalog.resources import default_data_dir
from evalmaps.core.errors import EvalmapsError
from evalmaps.readers.base import ImportOptions, OptionError

DEFAULT_MAX_UPLOAD_MB = 20.0
WATCH_MODES = ("auto", "poll", "off")  # EVALMAPS_WATCH (evalmaps.service.live)


class SettingsError(EvalmapsError, ValueError):
    """A setting with a value it does not accept (start-up stops)."""



def default_store_dir() -> Path:
    """``$XDG_DATA_HOME/evalmaps/store`` (``~/.local/share/evalmaps/store``)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "evalmaps" / "store"


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/evalmaps`` (``~/.cache/evalmaps``)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "evalmaps"


# name -> (environment variable, what it accepts, meaning); the README lists each
SETTINGS: dict[str, tuple[str, str, str]] = {
    "data_dir": ("EVALMAPS_DATA", "a folder with a catalog.json",
                 "the built-in figures (default: the package's data/)"),
    "extra_data": ("EVALMAPS_EXTRA_DATA", "folders or s3://bucket/prefix URLs separated by the "
                   "path separator (':')",
                   "your folders of results, served next to the built-in figures"),
    "data_options": ("EVALMAPS_DATA_OPTIONS", "table options as evalmaps import takes them, "
                     "such as --item question_id --correct pred=answer --set model={file}",
                     "how the tables of your folders are read: as per-item records (the "
                     "built-in figures and evaluation tools' results are read as they are)"),
    "max_upload_mb": ("EVALMAPS_MAX_UPLOAD_MB", "a number of megabytes above 0, such as 20",
                      "the largest file the Data page accepts (default 20)"),
    "cache_dir": ("EVALMAPS_CACHE", "a folder, or 'off'",
                  "where validated cells are kept between start-ups, keyed by content "
                  "(default: the user's cache folder)"),
    "store_dir": ("EVALMAPS_STORE", "a folder, an s3://bucket/prefix URL, or 'off'",
                  "where uploads are kept, shared by every process that names the same folder "
                  "(default: the user's data folder; 'off': read-only, uploads disabled)"),
    "store_max_mb": ("EVALMAPS_STORE_MAX_MB", "a number of megabytes above 0, such as 1024",
                     "the most the upload store may hold (default 1024)"),
    "store_max_figures": ("EVALMAPS_STORE_MAX_FIGURES", "a whole number above 0, such as 1000",
                          "the most figures the upload store may hold (default 1000)"),
    "upload_seconds": ("EVALMAPS_UPLOAD_SECONDS", "a number of seconds above 0, such as 30",
                       "the time one upload's import may take (default 30)"),
    "upload_memory_mb": ("EVALMAPS_UPLOAD_MEMORY_MB", "a number of megabytes above 0, such as "
                         "1024", "the memory one upload's import may take (default 1024)"),
    "watch": ("EVALMAPS_WATCH", "auto, poll or off",
              "whether the data folders are watched while the server runs: 'auto' (file system "
              "events, and a scan every 2 s), 'poll' (scans only: network file systems), 'off' "
              "(read once at start-up) (default auto)"),
    "debug": ("EVALMAPS_DEBUG", "1 or 0", "Dash's debug mode and dev tools (default 0)"),
}


@dataclass(frozen=True)
class Settings:
    data_dir: Path = field(default_factory=default_data_dir)
    extra_data: tuple[Path | str, ...] = ()  # a str: an s3:// URL (evalmaps.service.objects)
    data_options: ImportOptions = ImportOptions()  # for extra_data's tables (evalmaps import's)
    max_upload_mb: float = DEFAULT_MAX_UPLOAD_MB
    cache_dir: Path | None = field(default_factory=default_cache_dir)  # None: no cache
    # None: read-only; a str: an s3:// URL (evalmaps.service.objects)
    store_dir: Path | str | None = field(default_factory=default_store_dir)
    store_max_mb: float = 1024.0
    store_max_figures: int = 1000
    upload_seconds: float = 30.0
    upload_memory_mb: float = 1024.0
    debug: bool = False
    watch: str = "auto"  # auto | poll | off (evalmaps.service.live)

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 2**20)

    @property
    def store_max_bytes(self) -> int:
        return int(self.store_max_mb * 2**20)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> "Settings":
        """The settings the environment gives (unset variables keep their defaults), then
        ``overrides`` (what ``evalmaps serve`` options say). Raises :class:`SettingsError`."""
        env = os.environ if environ is None else environ
        values: dict = {}
        for name, (var, accepts, _) in SETTINGS.items():
            text = env.get(var)
            if text is None or text.strip() == "":
                continue
            values[name] = _parse(name, text.strip(), var, accepts)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def _parse(name: str, text: str, var: str, accepts: str):
    def bad() -> SettingsError:
        shown = text if len(text) <= 60 else text[:60] + "…"
        return SettingsError(f"{var}={shown} is not valid: give {accepts}.")

    if name == "data_dir":
        return Path(text)
    if name == "extra_data":
        # ':' separates folders, but not the one of a URL's scheme (s3://bucket/folder)
        parts = re.split(r":(?!//)", text) if os.pathsep == ":" else text.split(os.pathsep)
        return tuple(location(d, var) for d in parts if d)
    if name == "data_options":
        try:
            return ImportOptions.from_words(shlex.split(text))
        except OptionError as exc:
            raise SettingsError(f"{bad().args[0].removesuffix(f'give {accepts}.')}{exc}") from None
        except ValueError:  # shlex: a quote left open
            raise SettingsError(f"{bad().args[0].removesuffix(f'give {accepts}.')}a quote is not "
                                f"closed. Close it, or give {accepts}.") from None
    if name in ("max_upload_mb", "store_max_mb", "upload_seconds", "upload_memory_mb"):
        try:
            value = float(text)
        except ValueError:
            raise bad() from None
        if not (0 < value < float("inf")):
            raise bad()
        return value
    if name == "store_max_figures":
        if not text.isdigit() or int(text) < 1:
            raise bad()
        return int(text)
    if name == "cache_dir":
        if objects_url(text):
            raise SettingsError(f"{var}={text[:60]}: the cache is a folder on this host, not "
                                f"an object store. Give a folder, or off.")
        return None if text.lower() == "off" else Path(text)
    if name == "store_dir":
        return None if text.lower() == "off" else location(text, var)
    if name == "watch":
        if text.lower() not in WATCH_MODES:
            raise bad()
        return text.lower()
    if name == "debug":
        if text not in ("0", "1"):
            raise bad()
        return text == "1"
    raise AssertionError(name)  # every name in SETTINGS is parsed above


def objects_url(text: str) -> bool:
    """Whether ``text`` is a URL (``s3://...``, or one a path made ``s3:/...``), not a folder."""
    from evalmaps.service import objects

    return objects.is_url(text) or bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]+:/[^/]", text))


def location(text: str, var: str = "the location") -> Path | str:
    """A folder (a Path), or an object store's URL (``s3://bucket/prefix``, kept as text: a
    Path would make it ``s3:/bucket/prefix``, a folder that does not exist). Another URL, or
    one mangled into a path already, is a :class:`SettingsError` saying what is accepted."""
    from evalmaps.service import objects

    text = str(text).strip()
    if objects_url(text):
        try:
            return objects.canonical(text.replace(":/", "://", 1) if "://" not in text else text,
                                     var)
        except objects.ObjectStoreError as exc:
            raise SettingsError(f"{var}: {exc}") from None
    return Path(text)


def resolved(text: str, var: str) -> Path | str:
    """:func:`location`, a folder made absolute (``evalmaps serve --data DIR``, ``--store``)."""
    found = location(text, var)
    return found.resolve() if isinstance(found, Path) else found


_SERVED: list[Settings] = []  # what evalmaps serve chose, in this process


def serve_with(settings: Settings) -> None:
    """The settings the web app is built with when it is next loaded by name in this process
    (``evalmaps serve``: its options, before gunicorn loads ``app:server``)."""
    _SERVED[:] = [settings]


def served_settings() -> Settings:
    """What :func:`serve_with` gave, else the environment's (``gunicorn app:server``)."""
    return _SERVED[0] if _SERVED else Settings.from_env()
