"""Data folders on object storage (``--data s3://bucket/folder``): a prefix served as a folder.

An object store sends no file events, so the prefix is polled: each scan of a watched folder
(every :data:`evalmaps.service.live.RESCAN` seconds, in each serving process) lists it first,
and the objects that are new or changed since (by size and time) are copied into a local
folder on this host, each written whole and renamed into place, where the same reading as a
folder's serves them (:class:`evalmaps.service.live.FolderReader`: only what changed is read
again). An object appears whole when its upload ends, so a copied file needs no settling. An
object removed from the prefix is removed from the copy, and its cells go with it.

The copy is kept under the cache folder (``EVALMAPS_CACHE``: ``<cache>/s3/<hash of the
URL>/<folder's name>``, so that the figure's id comes from the folder's name as for a folder on
disk: ``s3://lab/runs`` serves ``import-runs``), else in a temporary folder. Each local file has
its object's size and time, so every process of a host shares one copy and a restart copies
only what changed meanwhile.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import time
from pathlib import Path

from evalmaps.core.errors import DataError, not_served
from evalmaps.core.problems import Problems
from evalmaps.readers.base import ImportOptions
from evalmaps.service import objects
from evalmaps.service.live import FolderReader

log = logging.getLogger("evalmaps.data")
POLL = 1.0  # seconds: a prefix is listed at most this often by one process
TMP_PREFIX = ".tmp-"


class PrefixMirror:
    """The objects under an ``s3://`` URL, copied into a local folder (:attr:`local`) that
    :meth:`sync` brings up to date."""

    def __init__(self, url: str, cache_dir: str | Path | None) -> None:
        self.url = objects.canonical(url, "--data")
        bucket, prefix = objects.parse_url(self.url)
        self.base = objects.join(bucket, prefix) if prefix else bucket
        name = prefix.rsplit("/", 1)[-1] if prefix else bucket
        digest = hashlib.sha256(self.url.encode()).hexdigest()[:16]
        root = (Path(cache_dir) / "s3" if cache_dir is not None
                else Path(tempfile.gettempdir()) / f"evalmaps-s3-{os.getuid()}")
        self.local = root / digest / name
        self._lock = threading.Lock()
        self._last = 0.0
        self._etags: dict[str, str] = {}  # each object's ETag when this process last looked

    def _remote(self) -> dict[str, tuple[int, int, str]]:
        """Each object under the prefix, by its path below it: (size, time in ns, ETag)."""
        try:
            infos = objects.filesystem().find(self.base, detail=True)
        except Exception as exc:  # noqa: BLE001 - botocore's errors are many; each is said
            raise DataError(str(objects.failure(exc, self.url, "Listing the data folder")),
                            file=self.url) from None
        found = {}
        for key, info in infos.items():
            if info.get("type") == "directory" or key.endswith("/"):
                continue
            rel = key[len(self.base) + 1:]
            if any(part in ("", ".", "..") for part in rel.split("/")) or rel.startswith(
                    TMP_PREFIX):
                continue  # no path out of the copy
            modified = info.get("LastModified")
            when = int(modified.timestamp()) * 10**9 if modified is not None else 0
            found[rel] = (int(info.get("size") or 0), when, str(info.get("ETag") or ""))
        return found

    def _local(self) -> dict[str, tuple[int, int]]:
        found = {}
        for path in self.local.rglob("*") if self.local.is_dir() else ():
            try:
                stat = path.stat()
            except OSError:
                continue
            if path.is_file():
                found[path.relative_to(self.local).as_posix()] = (stat.st_size, stat.st_mtime_ns)
        return found

    def sync(self, force: bool = False) -> bool:
        """Copy what changed under the prefix (at most once per :data:`POLL` seconds, unless
        ``force``); whether the copy changed. Raises DataError when the prefix cannot be
        listed (the copy stays as it was)."""
        with self._lock:
            now = time.monotonic()
            if not force and now - self._last < POLL:
                return False
            self._last = now
            remote = self._remote()
            self.local.mkdir(parents=True, exist_ok=True)
            here = self._local()
            changed = False
            fs = objects.filesystem()
            for rel, (size, when, etag) in sorted(remote.items()):
                # an object's time is in whole seconds: one rewritten within the second, at
                # the same size, differs by its ETag from what this process saw
                same = self._etags.setdefault(rel, etag) == etag
                if same and here.get(rel) == (size, when):
                    continue
                target = self.local / rel
                try:  # another process of this host may have copied it meanwhile
                    stat = target.stat()
                    if same and (stat.st_size, stat.st_mtime_ns) == (size, when):
                        continue
                except OSError:
                    pass
                target.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=self.local.parent)
                os.close(fd)
                try:
                    fs.get_file(f"{self.base}/{rel}", tmp)
                    os.utime(tmp, ns=(when, when))
                    os.replace(tmp, target)
                    self._etags[rel] = etag
                    changed = True
                except FileNotFoundError:
                    continue  # removed since the listing: the next one says so
                except Exception as exc:  # noqa: BLE001
                    log.warning("Copying %s/%s failed (%s); tried again at the next scan.",
                                self.url, rel, exc)
                finally:
                    if os.path.exists(tmp):
                        os.unlink(tmp)
            for rel in set(self._etags) - remote.keys():
                del self._etags[rel]
            for rel in here.keys() - remote.keys():
                try:
                    (self.local / rel).unlink()
                    changed = True
                except OSError:
                    continue
            return changed


class PrefixReader(FolderReader):
    """A watched data folder that is a prefix of an object store: :class:`FolderReader` on the
    local copy (:class:`PrefixMirror`), which each scan brings up to date first. Its files need
    no settling (each is copied whole, by rename); problems name the URL, not the copy."""

    def __init__(self, url: str, cache_dir, options: ImportOptions = ImportOptions()) -> None:
        self.mirror = PrefixMirror(url, cache_dir)
        self.mirror.local.mkdir(parents=True, exist_ok=True)  # the copy, empty until listed
        super().__init__(self.mirror.local, cache_dir, options, settle=0.0)
        self.url = self.mirror.url
        self._listing_problem: str | None = None

    def _sync(self, force: bool = False) -> None:
        try:
            self.mirror.sync(force)
            self._listing_problem = None
        except DataError as exc:
            self._listing_problem = not_served(exc)

    def changed(self) -> bool:
        problem = self._listing_problem
        self._sync()
        return self._listing_problem != problem or super().changed()

    def load(self, problems: Problems, initial: bool = False):
        self._sync(force=initial)  # at most once per POLL seconds: changed() has, mostly
        found = Problems()
        figures = super().load(found, initial=initial)
        if self._listing_problem is not None:
            problems.add(self._listing_problem)
        local = str(self.mirror.local)
        for line in found:
            problems.add(line.replace(local, self.url))
        return figures


def local_folder(url: str, cache_dir) -> Path:
    """An ``s3://`` data folder copied to this host once (a server that does not watch its
    folders, a command): the local folder, to be read as any other. Raises DataError when the
    prefix cannot be listed."""
    mirror = PrefixMirror(url, cache_dir)
    mirror.sync(force=True)
    return mirror.local
