"""The upload store: figures people upload, kept on the server, content-addressed and immutable.

Layout of a store folder (``EVALMAPS_STORE``)::

    figures/<id>/spec.json     the catalog entry (parse_spec validates it again on read)
    figures/<id>/cells.csv     the tidy cells, as the importer normalised them
    staging/<sha256>           an uploaded file's bytes while its import options are chosen

A figure's id is ``upload-<name>-<hash>``: ``<name>`` is the file's name made URL-safe and
``<hash>`` the first 16 hex digits of the SHA-256 of the normalised entry (the catalog entry
without its id, and the tidy cells). The same upload gives the same id on any server; a different
one never overwrites it. Writes go to a temporary folder renamed into place, which is atomic on one
file system, so any number of processes (on one host, or on several sharing the folder) can write
and read at once: the first rename of an id wins, and every later one holds the same bytes.

Bounds: the total size of the store (``max_bytes``) and the number of figures (``max_figures``).
A figure that would pass either is refused with :class:`StoreFull`; nothing is evicted, since a
link someone shared must keep working. Staged files are removed after a day; the temporary
folders of writes killed midway are removed when a process opens the store (an hour after their
last change: :meth:`Store.sweep_temporary`), so they do not count against the size for ever.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections import OrderedDict
from pathlib import Path
from threading import Lock

from evalmaps.core.errors import DataError, EvalmapsError
from evalmaps.core.figure import Figure, short_slug

UPLOAD_PREFIX = "upload-"
ID_RE = re.compile(r"^upload-[a-z0-9-]{1,40}-[0-9a-f]{16}$")
STORED_ID_IN = re.compile(r"upload-[a-z0-9-]{1,40}-[0-9a-f]{16}(?![0-9a-f])")  # in a longer text
ITEMS = "items"  # a stored figure's per-item records: <id>/items/scores.parquet, texts.parquet
STAGED_RE = re.compile(r"^[0-9a-f]{64}$")
STAGING_MAX_AGE = 24 * 3600  # seconds a staged file is kept
TMP_PREFIX = ".tmp-"  # a write in progress: renamed into place when whole
# seconds a temporary folder or file is left untouched before start-up removes it as the
# remains of a write that was killed (kill -9, a crash, a power cut): see Store.sweep_temporary
TMP_MAX_AGE = 3600
CACHED_FIGURES = 12  # built figures kept per process (a cache: any process can rebuild them)
CACHED_CELLS = 2_000_000  # ... and at most this many cells in all


def _newest_change(path: Path) -> float:
    """The latest time ``path`` or anything below it was changed (now, when it cannot be told:
    such a path is left alone)."""
    try:
        newest = path.lstat().st_mtime
        if path.is_dir() and not path.is_symlink():
            for below in path.rglob("*"):
                newest = max(newest, below.lstat().st_mtime)
    except OSError:
        return time.time()
    return newest


class StoreFull(EvalmapsError):
    """The store has no room for another figure (size or count)."""


def is_stored_id(figure_id: object) -> bool:
    return isinstance(figure_id, str) and bool(ID_RE.match(figure_id))


def figure_id(spec: dict, tidy_csv: str, name: str, items_digest: str = "") -> str:
    """The id of an upload: its name and the hash of the normalised entry (spec without id,
    cells, and the per-item records' digest when it has them)."""
    body = {k: v for k, v in spec.items() if k != "id"}
    h = hashlib.sha256()
    h.update(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    h.update(b"\0")
    h.update(tidy_csv.encode())
    if items_digest:
        h.update(b"\0" + items_digest.encode())
    stem = short_slug(name.rsplit(".", 1)[0], 32) or "file"
    return f"{UPLOAD_PREFIX}{stem}-{h.hexdigest()[:16]}"


class Store:
    def __init__(self, root: str | Path, max_bytes: int | None = None,
                 max_figures: int | None = None) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes
        self.max_figures = max_figures
        self._cache: OrderedDict[str, Figure] = OrderedDict()
        self._titles: dict[str, str] = {}
        self._lock = Lock()

    # ------------------------------------------------------------------------- layout

    @property
    def figures_dir(self) -> Path:
        return self.root / "figures"

    @property
    def staging_dir(self) -> Path:
        return self.root / "staging"

    def ensure(self) -> None:
        """Create the folders; a store that cannot be written stops start-up with one sentence."""
        try:
            self.figures_dir.mkdir(parents=True, exist_ok=True)
            self.staging_dir.mkdir(parents=True, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=self.root, prefix=".probe-", delete=True)
            probe.close()
        except OSError as exc:
            raise EvalmapsError(f"the upload store {self.root} cannot be written "
                                f"({exc.strerror}). Give a writable folder with --store DIR, or "
                                f"run read-only with --no-store.") from None
        self.sweep_temporary()

    def sweep_temporary(self, max_age: float = TMP_MAX_AGE) -> list[Path]:
        """Remove the temporary folders and files (``.tmp-*``) that writes killed midway left
        behind, which :meth:`size` would count against the quota for ever; the paths removed.

        Other processes (gunicorn's workers, other hosts sharing the folder) may be writing
        into their own ``.tmp-*`` at this moment: a worker that starts while another keeps an
        upload must not pull the folder from under it. A lock would not do (a killed writer
        holds none, and locks are unreliable on network file systems), so a temporary path
        is removed only when nothing in it has changed for ``max_age`` seconds: a write takes
        seconds, and each file it writes touches the folder, so only abandoned ones are that
        old."""
        now = time.time()
        removed = []
        for folder in (self.figures_dir, self.staging_dir):
            try:
                paths = [p for p in folder.iterdir() if p.name.startswith(TMP_PREFIX)]
            except OSError:
                continue
            for path in paths:
                if now - _newest_change(path) <= max_age:
                    continue  # being written, perhaps: left alone
                try:
                    if path.is_dir() and not path.is_symlink():
                        shutil.rmtree(path)
                    else:
                        path.unlink()
                except OSError:
                    continue  # removed by another process meanwhile, or not ours to remove
                removed.append(path)
        return removed

    # ------------------------------------------------------------------------- figures

    def __contains__(self, fid: object) -> bool:
        return is_stored_id(fid) and (self.figures_dir / fid / "spec.json").is_file()

    def put(self, spec: dict, tidy_csv: str, name: str, records=None) -> str:
        """Store an upload (its catalog entry and tidy cells, validated by the caller, and its
        per-item records when it has them: ``items/`` in its folder, as Parquet); its id.
        Storing what is there already is a no-op. Raises :class:`StoreFull`."""
        from evalmaps.catalog import items

        fid = figure_id(spec, tidy_csv, name, items.digest(records) if records is not None else "")
        if fid in self:
            return fid
        entry = dict(spec, id=fid)
        if records is not None:
            entry["items"] = ITEMS
        spec_bytes = json.dumps(entry, indent=1, ensure_ascii=False).encode()
        cells_bytes = tidy_csv.encode()
        self._check_room(len(spec_bytes) + len(cells_bytes))
        tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=self.figures_dir))
        try:
            (tmp / "cells.csv").write_bytes(cells_bytes)
            if records is not None:
                dims = [*spec["facets"], spec["y"], spec["x"]]
                items.save(tmp / ITEMS, dims, records)
                self._check_room(len(spec_bytes))  # the records count, being in the store
            (tmp / "spec.json").write_bytes(spec_bytes)  # last: its presence marks a whole entry
            try:
                os.rename(tmp, self.figures_dir / fid)
            except OSError:
                if fid not in self:  # not a concurrent writer of the same id: a real failure
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return fid

    def _check_room(self, size: int) -> None:
        if self.max_figures is not None and self.count() >= self.max_figures:
            raise StoreFull(f"the upload store is full ({self.max_figures} figures). Ask the "
                            f"server's admin to raise EVALMAPS_STORE_MAX_FIGURES or to make room.")
        if self.max_bytes is not None and self.size() + size > self.max_bytes:
            raise StoreFull(f"the upload store is full ({self.max_bytes / 2**20:g} MB). Ask the "
                            f"server's admin to raise EVALMAPS_STORE_MAX_MB or to make room.")

    def count(self) -> int:
        try:
            return sum(1 for p in self.figures_dir.iterdir() if is_stored_id(p.name))
        except OSError:
            return 0

    def size(self) -> int:
        total = 0
        for folder in (self.figures_dir, self.staging_dir):
            for path in folder.rglob("*") if folder.is_dir() else ():
                try:
                    total += path.stat().st_size if path.is_file() else 0
                except OSError:
                    continue
        return total

    def figure(self, fid: str) -> Figure | None:
        """The stored figure ``fid``, validated (cached per process); None when there is none."""
        if not is_stored_id(fid):
            return None
        with self._lock:
            if fid in self._cache:
                self._cache.move_to_end(fid)
                return self._cache[fid]
        figure = self._read(fid)
        if figure is None:
            return None
        with self._lock:
            self._cache[fid] = figure
            while len(self._cache) > CACHED_FIGURES or (
                    len(self._cache) > 1
                    and sum(f.n_cells for f in self._cache.values()) > CACHED_CELLS):
                self._cache.popitem(last=False)
        return figure

    def _read(self, fid: str) -> Figure | None:
        import io

        import pandas as pd

        from evalmaps.catalog.load import parse_spec, validate_cells

        folder = self.figures_dir / fid
        try:
            entry = json.loads((folder / "spec.json").read_text(encoding="utf-8"))
            text = (folder / "cells.csv").read_text(encoding="utf-8")
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("id") != fid:
            return None
        try:
            spec = parse_spec(entry, where=f"stored upload '{fid}'")
            frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
            cells, decimals = validate_cells(frame, spec, file=f"stored upload '{fid}'")
        except (DataError, ValueError, TypeError, KeyError, AttributeError):
            return None  # a damaged or tampered entry names no figure
        figure = Figure(spec, cells, decimals)
        if spec.items:
            from evalmaps.catalog.items import attach

            attach(figure, folder / ITEMS)
        return figure

    def title(self, fid: str) -> str | None:
        """A stored figure's title from its catalog entry alone (for menus; cached)."""
        if not is_stored_id(fid):
            return None
        if fid in self._titles:
            return self._titles[fid]
        try:
            entry = json.loads((self.figures_dir / fid / "spec.json").read_text(encoding="utf-8"))
            title = str(entry["title"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if len(self._titles) < 10_000:  # bounded: titles of what the store holds
            self._titles[fid] = title
        return title

    # ------------------------------------------------------------------------- staging

    def stage(self, data: bytes, name: str) -> str:
        """Keep an uploaded file's bytes while its import is previewed; its key."""
        self._sweep_staging()
        name = " ".join(name.split())[:120] or "upload"
        key = hashlib.sha256(name.encode() + b"\0" + data).hexdigest()
        path = self.staging_dir / key
        if path.is_file():
            os.utime(path)
            return key
        self._check_room(len(data) + len(name) + 1)
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=self.staging_dir)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(name.encode() + b"\n" + data)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return key

    def staged(self, key: object) -> tuple[str, bytes] | None:
        """A staged file's name and bytes; None when the key is not one (or has expired)."""
        if not isinstance(key, str) or not STAGED_RE.match(key):
            return None
        try:
            blob = (self.staging_dir / key).read_bytes()
        except OSError:
            return None
        name, _, data = blob.partition(b"\n")
        return name.decode("utf-8", "replace"), data

    def _sweep_staging(self) -> None:
        now = time.time()
        try:
            paths = list(self.staging_dir.iterdir())
        except OSError:
            return
        for path in paths:
            try:
                if now - path.stat().st_mtime > STAGING_MAX_AGE:
                    path.unlink()
            except OSError:
                continue
