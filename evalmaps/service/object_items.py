"""Per-item records kept in an object store, queried by DuckDB where they lie (through the fsspec
file system of :mod:`evalmaps.service.objects`, registered on the connection)."""

from __future__ import annotations

import threading
from pathlib import Path

from evalmaps.catalog.items import SCORES, TEXTS, ItemRecords
from evalmaps.service.objects import filesystem


class _RemoteStat:
    """What :class:`ItemRecords`' cache of answers keys a records file by. An object of a
    content-addressed store is never rewritten (a new version is a new key), so its key alone
    names its bytes."""

    st_size = 0
    st_mtime_ns = 0
    st_ino = 0


class RemotePath:
    """An object's URL with the few path methods :class:`ItemRecords` calls (``stat``,
    ``exists``, ``is_file``, ``str``)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __str__(self) -> str:
        return self.url

    def __fspath__(self) -> str:  # pragma: no cover - a URL is no local path
        raise TypeError(f"{self.url} is an object, not a file on this host")

    def exists(self) -> bool:
        try:
            return filesystem().exists(self.url)
        except Exception:  # noqa: BLE001 - unreachable: not there, for now
            return False

    is_file = exists

    def stat(self) -> _RemoteStat:
        return _RemoteStat()


_local = threading.local()
_IMMUTABLE: dict = {}  # "fs": the file system of immutable objects, made from "shared"
KEPT_INFOS = 4096  # objects whose size and time one process keeps


def immutable_filesystem():
    """This process's S3 file system for reading a store's content (:func:`filesystem`'s
    settings), where each object's size and time, once asked, are kept: a content object is
    never rewritten (a new content is a new key), and DuckDB asks them several times a query,
    each a request."""
    shared = filesystem()  # one per process and settings: anew after a fork, or new settings
    if _IMMUTABLE.get("shared") is shared:
        return _IMMUTABLE["fs"]
    base = type(shared)

    class Immutable(base):
        _infos: dict = {}

        async def _info(self, path, *args, **kwargs):
            kept = self._infos.get(path)
            if kept is not None:
                return dict(kept)
            info = await super()._info(path, *args, **kwargs)
            if len(self._infos) < KEPT_INFOS and info.get("type") == "file":
                self._infos[path] = dict(info)
            return info

    fs = Immutable(use_listings_cache=False, skip_instance_cache=True,
                   client_kwargs=dict(shared.client_kwargs))
    _IMMUTABLE.update(shared=shared, fs=fs)
    return fs


def _connection():
    """This thread's DuckDB connection with the S3 file system registered (anew after a fork)."""
    fs = immutable_filesystem()
    con = getattr(_local, "con", None)
    if con is None or getattr(_local, "fs", None) is not fs:
        import duckdb

        con = duckdb.connect(config={"threads": 1})
        con.register_filesystem(fs)
        _local.con, _local.fs = con, fs
    return con


class RemoteItemRecords(ItemRecords):
    """Per-item records kept in an object store, at ``url`` (``s3://bucket/.../items``): the
    same queries, through DuckDB with the fsspec file system registered on its connection."""

    def __init__(self, url: str, dims) -> None:
        super().__init__(Path("."), dims)
        self.url = url.rstrip("/")

    @property
    def scores_path(self) -> RemotePath:  # type: ignore[override]
        return RemotePath(f"{self.url}/{SCORES}")

    @property
    def texts_path(self) -> RemotePath:  # type: ignore[override]
        return RemotePath(f"{self.url}/{TEXTS}")

    def _opened(self, path):
        return filesystem().open(str(path).removeprefix("s3://"), "rb")

    def _connect(self):
        return _connection().cursor()
