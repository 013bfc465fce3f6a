"""Watched data folders: a sweep that is still being written shows up while the server runs.

Each process that serves (each gunicorn worker, each host) watches the user's data folders
(``--data``, ``EVALMAPS_EXTRA_DATA``; never the built-in data) on a thread of its own, started
by its first request (:meth:`Live.ensure_running`), so that forked workers each have one.
``watchfiles`` wakes it when a file changes; a scan of the folders' file sizes and times every
:data:`RESCAN` seconds catches what events miss (network file systems, containers), and
``EVALMAPS_WATCH=poll`` makes ``watchfiles`` poll instead of waiting for events.

The work follows what changed: a file whose size, time and inode are those already read is not
read again, so one new file in a folder of 2,000 is one file read and validated; the folder's
figures are then put together again (a folder of tables: each table's figure, kept).

A folder of results (harness files, per-item tables) is read by ONE process of the host: the
one that holds its lock (:meth:`evalmaps.service.store.PieceStore.lock`, ``flock``, taken
without waiting; at start-up the server's first process reads, and lets go before its workers
fork). It reads each new or changed file alone into a piece of the store
(:func:`evalmaps.catalog.pieces.write_piece`: its cells and per-item records as Parquet, keyed
by the file's bytes, path and the import options), keeps only the piece's key, and then replaces
the folder's manifest whole (each file's signature and piece, the pieces served in order, the
problems). Every other process follows the manifest (a stat each tick, and its rename wakes the
watcher) and puts the same pieces together (:func:`evalmaps.catalog.pieces.piece_figures`),
never reading the folder; when the reader ends, the next process to find the lock free reads
on from the manifest. A restart finds each unchanged file in the manifest and parses nothing.

A file is read once two scans at least :data:`SETTLE` seconds apart (by this process's clock,
never the file's time, which a writer or a network file system may set as it likes) agree on its
size, time and inode, so that a file still being written, a row at a time, is never served in
part; one renamed into place is whole at every scan and read once. A table of lines (CSV, JSON
Lines) whose last byte is not a line end is a row being written: it waits :data:`UNENDED`
seconds. One that fails is tried again, and is a problem (banner, ``/healthz``) only once it has
held for :data:`REPORT_AFTER` seconds and still fails. Until a new version of a file is read, its
last good version stays served.

Each figure has a version (:func:`figure_version`, a hash of its content): the same in every
process that holds the same data, so that a page or a script can ask whether anything changed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISDIR

import pandas as pd

from evalmaps.catalog import columnar, folders
from evalmaps.catalog import pieces as folder_pieces
from evalmaps.catalog.load import load_catalog
from evalmaps.core.errors import DataError
from evalmaps.core.figure import Catalog, Figure
from evalmaps.core.problems import Problems
from evalmaps.readers.base import ImportFailed, ImportOptions
from evalmaps.service.store import PieceStore, piece_key

log = logging.getLogger("evalmaps.data")

SETTLE = 2.0  # seconds two scans that agree on a file must span before it is read
UNENDED = 10.0  # seconds a table of lines whose last byte is not a line end holds before it is read
REPORT_AFTER = 3.0  # seconds a failing file holds before it is a problem
LINES = (".csv", ".tsv", ".txt", ".jsonl", ".ndjson")  # tables of lines, written a row at a time
RESCAN = 2.0  # seconds between scans of the folders' sizes and times (events or not)
TICK_MS = 500  # the watcher thread wakes at least this often while files are pending
DROP_AFTER = 60.0  # seconds a piece no manifest names is kept (processes still serving it)


def figure_version(figure: Figure) -> str:
    """A hash of what the figure shows (its catalog entry, its cells): equal in every process
    that read the same files, different when a cell, a label or the entry changes."""
    h = hashlib.sha256(repr(figure.spec).encode("utf-8"))
    cells = figure.cells
    h.update(",".join(map(str, cells.columns)).encode("utf-8"))
    if len(cells):
        h.update(pd.util.hash_pandas_object(cells, index=False).to_numpy().tobytes())
    h.update(str(figure.decimals).encode())
    return h.hexdigest()[:16]


def _signature(stat: os.stat_result) -> tuple[int, int, int]:
    return stat.st_size, stat.st_mtime_ns, stat.st_ino


@dataclass
class _Kept:
    """What one file gave when it was read: its result, or the error it raised."""
    signature: tuple[int, int, int]
    result: object = None
    error: DataError | None = None
    final: bool = True  # an error that held long enough to be reported


class FolderReader:
    """One watched data folder: its figures, read again only where a file changed.

    :meth:`load` is :func:`evalmaps.catalog.folders.load_folder` with every file's result kept
    (by size, time and inode); :meth:`changed` says whether a :meth:`load` would read anything
    or leave anything out that the last one did not."""

    def __init__(self, folder: Path, cache_dir, options: ImportOptions = ImportOptions(),
                 settle: float = SETTLE) -> None:
        self.folder = Path(folder)
        self.cache_dir = cache_dir
        self.options = options  # how its tables are read (serve --data DIR --item ...)
        self.settle = settle  # seconds two agreeing scans span before a file is read
        self.kept: dict[Path, _Kept] = {}
        self.pending: set[Path] = set()  # files not read yet, or to be tried again
        self.reads = 0  # files read so far (the tests check that only changes are read)
        self._seen: dict[Path, tuple] = {}  # the signatures the last load saw
        # each file's signature and when (time.monotonic(), a scan's end) it was first seen
        self._since: dict[Path, tuple[tuple, float]] = {}
        self._tables = False  # a folder of tables (else of results)
        # what a folder of results' files gave, each read once, by one process of the host:
        # the pieces (the cache's ``live`` folder; without a cache, a folder of this server's)
        self.store = PieceStore(Path(cache_dir) / "live" if cache_dir is not None
                                else _private_store())
        self._options = json.loads(json.dumps(options.to_dict(), default=str))
        self._held: int | None = None  # the folder's reader lock, while this process holds it
        self._stamp = None  # the manifest this process serves (its size, time and inode)
        self._prior: dict[str, list] = {}  # the manifest's files: path -> [signature, key]
        self._pieces: list[str] = []  # the pieces the last put-together served, in order
        self.following = False  # served from the manifest another process writes
        self._combined: list[Path] = []  # per-item scores files this process wrote, in order
        self._manifest_due = False  # whether the last read is a manifest to write
        self._named: set[str] = set()  # the pieces the last manifest named
        self._dropped: dict[str, float] = {}  # pieces no longer named -> since when
        self._good: list[Figure] | None = None  # the last figures its pieces made
        self._bad: str | None = None  # why the last put-together served ``_good`` instead

    def _files(self) -> dict[Path, tuple]:
        found = {}
        try:
            walk = list(self.folder.rglob("*"))
        except OSError:
            return found
        for path in walk:
            try:
                stat = path.stat()
            except OSError:
                try:
                    stat = path.lstat()  # a link to nothing: seen, so that it is named
                except OSError:
                    continue  # removed while listed
            # every entry but folders: a pipe or a broken link is a problem to name (the load
            # skips it, :func:`folders._servable`), so its arrival is a change
            if not S_ISDIR(stat.st_mode):
                found[path] = _signature(stat)
        return found

    def written(self, combined: Path) -> None:
        """The per-item scores of a put-together figure were written at ``combined``: those
        this process wrote two versions before are removed (a process still serving an older
        version writes them again if a request asks for them)."""
        import shutil

        if combined in self._combined:
            return
        self._combined.append(combined)
        while len(self._combined) > 2:
            shutil.rmtree(self._combined.pop(0), ignore_errors=True)

    def _drop(self, now_kept: set[str]) -> None:
        """Remove the pieces the manifest no longer names (a file replaced or removed) once
        :data:`DROP_AFTER` seconds have passed since: a process still serving the older
        manifest has swapped to the new one by then."""
        import shutil

        now = time.monotonic()
        for key in self._named - now_kept:
            self._dropped.setdefault(key, now)
        self._named = set(now_kept)
        for key, since in list(self._dropped.items()):
            if key in now_kept:
                del self._dropped[key]  # named again (a file put back as it was)
            elif now - since >= DROP_AFTER:
                shutil.rmtree(self.store.piece(key), ignore_errors=True)
                del self._dropped[key]

    def _lead(self) -> bool:
        """Whether this process reads the folder's files: it holds the folder's lock (taken
        now if no other process holds it)."""
        if self._held is None:
            self._held = self.store.lock(self.folder, self._options)
            if self._held is not None:
                found = self.store.manifest(self.folder, self._options) or {}
                self._prior = found.get("files") or {}
                self._named = {v[1] for v in self._prior.values() if isinstance(v, list)
                               and len(v) == 2} | set(found.get("pieces") or [])
        return self._held is not None

    def _let_go(self) -> None:
        if self._held is not None:
            os.close(self._held)
            self._held = None

    def changed(self) -> bool:
        """Whether the folder's files differ from what the last :meth:`load` saw, or a file
        is still waiting to be read or tried again; for a process that does not read the
        folder (another holds its lock), whether its manifest changed."""
        if not self._lead() and self.store.stamp(self.folder, self._options) is not None:
            return self.store.stamp(self.folder, self._options) != self._stamp
        if self._files() != self._seen:
            return True
        now = time.monotonic()
        return any(self._due(path, now) for path in self.pending)

    def _due(self, path: Path, now: float) -> bool:
        """Whether the pending file ``path`` is to be read at ``now``: its signature has held
        :attr:`settle` seconds between two scans (:data:`UNENDED` when it ends in the middle
        of a row); one that failed with this signature is tried again once it has held
        :data:`REPORT_AFTER` seconds (and then reported if it fails again)."""
        signature, since = self._since.get(path, (None, now))
        held = now - since
        kept = self.kept.get(path)
        if kept is not None and kept.error is not None and kept.signature == signature:
            return held >= REPORT_AFTER
        return held >= self.settle and (held >= UNENDED or not _unended(path))

    def load(self, problems: Problems, initial: bool = False) -> list[Figure]:
        """The folder's figures now (problems added), read by the process that holds the
        folder's lock (:meth:`_read_folder`), the others put together from the store what its
        manifest names (:meth:`_follow`). At start-up (``initial``), the lock is let go once
        read: a server's workers, forked after it, choose their reader among themselves."""
        self._bad = None
        try:
            if not self._lead():
                manifest = self.store.manifest(self.folder, self._options)
                if manifest is not None:
                    self.following = True
                    figures = self._follow(manifest, problems)
                    if self._bad is not None:
                        problems.add(self._bad)
                    return figures
            self.following = False
            found = Problems()
            figures = self._read_folder(found, initial)
            for line in found:
                problems.add(line)
            if self._bad is not None:
                problems.add(self._bad)
            if self._held is not None and self._manifest_due:
                files = {str(p): [list(k.signature), k.result] for p, k in self.kept.items()
                         if isinstance(k.result, str)}
                self.store.write_manifest(self.folder, self._options, {
                    "folder": str(self.folder), "files": files, "pieces": self._pieces,
                    "problems": list(found)})
                self._stamp = self.store.stamp(self.folder, self._options)
                self._drop({key for _, key in files.values()} | set(self._pieces))
            return figures
        finally:
            if initial:
                self._let_go()

    def _follow(self, manifest: dict, problems: Problems) -> list[Figure]:
        """The folder's figures as the manifest another process wrote says: its pieces put
        together from the store, its problems; never a file of the folder read."""
        self._stamp = self.store.stamp(self.folder, self._options)
        pieces = [k for k in manifest.get("pieces") or [] if isinstance(k, str)]
        for line in manifest.get("problems") or []:
            problems.add(str(line))
        if not pieces:
            return []
        missing = [k for k in pieces if not self.store.has(k)]
        if missing:
            problems.add(f"Not served: {self.folder}: {len(missing)} of its files' readings are "
                         f"missing from {self.store.root}. Restart the server to read them again.")
            return []
        try:
            return self._combine(pieces)
        except DataError as exc:
            problems.not_served(exc)
            return []

    def _combine(self, pieces: list[str]) -> list[Figure]:
        """The pieces put together. A piece that is not what the server writes
        (:class:`evalmaps.catalog.pieces.BadPiece`: changed or cut short in the store, or of
        an older layout that a manifest still names) is read again from its file by the
        process that reads the folder; where it cannot be, the folder's last good figures stay
        served and the problem says why (none yet: raised)."""
        pieces = list(pieces)
        self._pieces = pieces
        read_again: set[str] = set()
        while True:
            try:
                figures = self._put_together(pieces)
                break
            except folder_pieces.BadPiece as exc:
                key = exc.piece.name
                new = None
                if not self.following and key not in read_again:
                    new = self._read_again(key)
                if new is None:
                    if self._good is None:
                        raise
                    log.warning("%s", exc.message)
                    self._bad = (f"{self.folder}: {exc.message} Until then, its figures as "
                                 f"last read stay served.")
                    return list(self._good)
                read_again.add(new)
                pieces = [new if k == key else k for k in pieces]
                self._pieces = pieces
        self._good = figures
        return figures

    def _put_together(self, pieces: list[str]) -> list[Figure]:
        return folder_pieces.piece_figures(self.folder, [self.store.piece(k) for k in pieces],
                                           self.store.root / "combined", self.options,
                                           self.cache_dir)

    def _read_again(self, key: str) -> str | None:
        """The piece ``key``'s file read again into the store: its piece's key now (the same,
        unless the file changed or the piece was of an older layout), or None when no file
        this process read gives it, or the file fails."""
        import shutil

        paths = [p for p, k in self.kept.items() if k.result == key]
        shutil.rmtree(self.store.piece(key), ignore_errors=True)
        folder_pieces.forget_piece(self.store.piece(key))
        if len(paths) != 1:
            return None
        path = paths[0]
        try:
            data = folders.read_file(path)
            new = piece_key(data, str(path), self._options)
            if not self.store.has(new):
                self.store.put(new, lambda out: folder_pieces.write_piece(
                    path, data, self.options, out), str(path))
        except DataError:
            return None
        self.kept[path] = _Kept(self.kept[path].signature, result=new)
        return new

    def _read_folder(self, problems: Problems, initial: bool = False) -> list[Figure]:
        """The folder's figures from its files (problems added). ``initial``: at start-up, files are
        read at once, but for one still being written as the server starts (a table of lines
        that ends in the middle of a row, or a file that changes within :attr:`settle` seconds
        of its last change, :meth:`_still_moving`): it waits for two scans that agree, as every
        file does later, so not even the first page serves part of a file."""
        now = time.monotonic()  # before the scan: a signature seen now held from its first scan
        self._manifest_due = False
        self._seen = self._files()
        moving: set[Path] = set()
        if initial:
            moving = self._still_moving()
        scanned = time.monotonic()
        self._since = {path: (self._since[path] if path in self._since
                              and self._since[path][0] == signature else (signature, scanned))
                       for path, signature in self._seen.items()}
        self.pending = set()
        for path in [p for p in self.kept if p not in self._seen]:
            del self.kept[path]  # removed: its cells go with it

        def read(path: Path):
            signature = self._seen.get(path)
            if signature is None:  # gone between the listing and now
                return None
            kept = self.kept.get(path)
            if kept is not None and kept.signature == signature and (kept.final or initial):
                if kept.error is not None:
                    # raised afresh: a traceback kept from scan to scan would keep each scan's
                    # frames, and in them every figure and file read then, deleted or not
                    raise kept.error.with_traceback(None)
                return kept.result
            prior = self._prior.get(str(path))
            if (kept is None and prior is not None and list(signature) == prior[0]
                    and self.store.has(prior[1])):  # read before (a restart): its piece
                self.kept[path] = _Kept(signature, result=prior[1])
                return prior[1]
            if initial and (path in moving or _unended(path)):  # being written as we start:
                self.pending.add(path)
                return None
            if not initial and not self._due(path, now):  # still being written, perhaps: later
                self.pending.add(path)
                return None if kept is None or kept.error is not None else kept.result
            try:
                self.reads += 1
                result = self._read(path)
            except DataError as exc:
                final = initial or now - self._since[path][1] >= REPORT_AFTER
                self.kept[path] = _Kept(signature, error=exc.with_traceback(None), final=final)
                if not final:
                    self.pending.add(path)  # tried again; not a problem yet
                    return None
                raise
            if _signature_now(path) != signature:  # it changed while read: read it again
                self.pending.add(path)
                return None if kept is None or kept.error is not None else kept.result
            self.kept[path] = _Kept(signature, result=result)
            return result

        if not self.folder.is_dir() or (self.folder / "catalog.json").exists() or not any(
                p.suffix.lower() in folders.SUFFIXES for p in self._seen):
            try:
                if (self.folder / "catalog.json").exists():  # its own catalog: read as a whole
                    return list(load_catalog(self.folder, cache_dir=self.cache_dir,
                                             problems=problems, manifest_check="flag"))
                if self.folder.is_dir():
                    # nothing in it (yet, or any more): a manifest of no pieces, so that the
                    # processes that follow it stop serving what its files gave at once
                    self._manifest_due, self._pieces = True, []
                    return []  # a sweep about to start, or every file removed
                return folders.load_folder(self.folder, self.cache_dir, problems, self.options)
            except DataError as exc:
                problems.not_served(exc)
                return []
        with columnar.lean_memory():
            try:
                # tables read one by one; per-item tables (their options say so) together
                self._tables = bool(folders._data_files(self.folder)) and not self.options.per_item
                self._manifest_due = not self._tables
                self._pieces = []
                return folders._load_files(self.folder, self.cache_dir, problems, read=read,
                                           options=self.options, combine=self._combine)
            except ImportFailed as exc:
                problems.not_served(exc)
                return []

    def _still_moving(self) -> set[Path]:
        """At start-up, the files that changed in the last :attr:`settle` seconds (by their
        time, the only clock a first scan has) are scanned again once that time has passed
        (one wait, at most :attr:`settle`, and only when such a file exists): those whose
        size, time or inode changed in between are being written, and wait for two scans that
        agree, as every file does later; the rest are read at once. A file still growing a
        whole row at a time is so never served in part, not even by the first page."""
        wall = time.time()
        ages = {path: wall - signature[1] / 1e9 for path, signature in self._seen.items()}
        recent = {path: age for path, age in ages.items() if age < self.settle}
        if not recent:
            return set()
        time.sleep(min(self.settle, max(self.settle - min(recent.values()), 0.0)))
        return {path for path in recent if _signature_now(path) != self._seen[path]}

    def _read(self, path: Path):
        """A table's figure (a folder of tables); a results file's piece (its key), put in the
        store when it is not there yet: its bytes, name and options are its key."""
        if self._tables:
            return folders._import_file(path, self.cache_dir, self.options)
        data = folders.read_file(path)
        key = piece_key(data, str(path), self._options)
        if not self.store.has(key):
            self.store.put(key, lambda out: folder_pieces.write_piece(
                path, data, self.options, out), str(path))
        return key


def _private_store() -> Path:
    """A store of this server's own (no cache): a temporary folder, removed when the process
    that made it ends."""
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="evalmaps-live-")
    pid = os.getpid()
    atexit.register(lambda: os.getpid() == pid and shutil.rmtree(folder, ignore_errors=True))
    return Path(folder)


def _unended(path: Path) -> bool:
    """Whether ``path`` is a table of lines (:data:`LINES`) that is empty or whose last byte is
    not a line end: a row (``6`` of ``6.5``) is being written. (A file that cannot be opened is
    not: its read says why.)"""
    if path.suffix.lower() not in LINES:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a named pipe: no wait
    except OSError:
        return False
    try:
        size = os.fstat(fd).st_size
        return size == 0 or os.pread(fd, 1, size - 1) not in (b"\n", b"\r")
    except OSError:
        return False
    finally:
        os.close(fd)


def _signature_now(path: Path):
    try:
        return _signature(path.stat())
    except OSError:
        return None


@dataclass
class Snapshot:
    """What a process serves: the catalog, the problems, each figure's version, and the ids of
    watched figures that have no file now (their links say so)."""
    catalog: Catalog
    problems: list[str]
    versions: dict[str, str] = field(default_factory=dict)
    gone: dict[str, str] = field(default_factory=dict)  # id -> the folder it came from


class Live:
    """The data a process serves, kept up to date with its folders (see the module's text).

    ``assemble(folder_figures, problems) -> (catalog, problems)`` puts the built-in figures and
    the folders' together as start-up does (:func:`evalmaps.service.startup.assemble`).
    ``publish(snapshot)`` is called with every new :class:`Snapshot` (as is every function
    added to ``listeners``)."""

    def __init__(self, readers: list[FolderReader], assemble, publish, mode: str = "auto") -> None:
        self.readers = readers
        self.assemble = assemble
        self.listeners = [publish]
        self.mode = mode
        self.snapshot: Snapshot | None = None
        self._versions: dict[int, tuple[Figure, str]] = {}
        self._ever: dict[str, str] = {}  # every watched figure id served so far -> its folder
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._stop = threading.Event()
        self._last_scan = 0.0

    def refresh(self, initial: bool = False) -> bool:
        """Load the folders again where they changed; publish a new snapshot if anything did.
        Returns whether it did."""
        with self._lock:
            if not initial and self.snapshot is not None and not any(
                    r.changed() for r in self.readers):
                return False
            problems = Problems()
            per_folder = [(r.folder, r.load(problems, initial=initial)) for r in self.readers]
            catalog, all_problems = self.assemble(per_folder, problems)
            all_problems = list(all_problems)
            watched = {f.id for _, figures in per_folder for f in figures}
            versions = {}
            kept = {}
            for figure in catalog:
                old = self._versions.get(id(figure))
                version = old[1] if old is not None and old[0] is figure else figure_version(figure)
                kept[id(figure)] = (figure, version)
                versions[figure.id] = version
            self._versions = kept
            for folder, figures in per_folder:
                for figure in figures:
                    self._ever[figure.id] = str(folder)
            gone = {fid: folder for fid, folder in self._ever.items()
                    if fid not in catalog and fid not in watched}
            snapshot = Snapshot(catalog, all_problems, versions, gone)
            if self.snapshot is not None and not initial and (
                    versions == self.snapshot.versions and all_problems == self.snapshot.problems):
                return False
            self.snapshot = snapshot
        for listener in self.listeners:
            listener(snapshot)
        del snapshot
        # the per-item records' file of a folder put together anew, written now by the process
        # that read it (the figure is served already): not by a request that asks for them
        for reader, (_, figures) in zip(self.readers, per_folder):
            for figure in figures if not reader.following else ():
                ready = getattr(figure.items, "ready", None)
                if ready is not None:
                    try:
                        ready()
                        reader.written(figure.items.folder)
                    except Exception:  # noqa: BLE001 - asked for again by the first request
                        log.warning("Writing the per-item records of %s failed.", figure.id,
                                    exc_info=True)
        columnar.release_memory()  # what the old snapshot alone held (a file replaced, deleted)
        return True

    # --- the watcher thread ------------------------------------------------------------------

    def ensure_running(self) -> None:
        """Start this process's watcher thread, once per process (a forked worker starts its
        own on its first request). Nothing to do when watching is off."""
        if self.mode == "off" or self._pid == os.getpid():
            return
        with self._lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self._stop = threading.Event()
            threading.Thread(target=self._run, name="evalmaps-live", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        paths = [str(r.folder) for r in self.readers if r.folder.is_dir()]
        if not paths:
            return
        for reader in self.readers:  # a manifest replaced wakes the processes that follow it
            manifests = reader.store.manifest_path(reader.folder, reader._options).parent
            manifests.mkdir(parents=True, exist_ok=True)
            paths.append(str(manifests))
        try:
            import watchfiles
            for changes in watchfiles.watch(
                    *paths, force_polling=self.mode == "poll", poll_delay_ms=500, debounce=200,
                    step=50, rust_timeout=TICK_MS, yield_on_timeout=True, stop_event=self._stop,
                    ignore_permission_denied=True, raise_interrupt=False):
                self._tick(bool(changes))
        except Exception:  # noqa: BLE001 - the events stop; the scans go on
            log.warning("Watching the data folders stopped (%s); they are scanned every %g s "
                        "instead.", paths, RESCAN, exc_info=True)
            while not self._stop.wait(TICK_MS / 1000):
                self._tick(False)

    def _tick(self, events: bool) -> None:
        now = time.monotonic()
        # pending files, or a manifest another process writes (a stat of one file): each tick
        pending = any(r.pending or r.following for r in self.readers)
        if not (events or pending or now - self._last_scan >= RESCAN):
            return
        self._last_scan = now
        try:
            self.refresh()
        except Exception:  # noqa: BLE001 - the server keeps serving what it had
            log.warning("Reading the data folders again failed; the last data stays served.",
                        exc_info=True)


STATIC_VERSION = "1"  # the version of a figure that is not watched (built-in, an upload)


def serve_into(state, snapshot: Snapshot) -> None:
    """Make ``snapshot`` what the app serves: ``state`` is the app's
    (:class:`evalmaps.service.snapshot.Served`); its snapshot is replaced by one assignment, so
    a request sees the old data or the new, whole."""
    catalog = snapshot.catalog
    catalog.gone = dict(snapshot.gone)
    state.swap(catalog=catalog, problems=tuple(snapshot.problems), versions=snapshot.versions,
               gone=snapshot.gone)


def version_of(state: dict, figure_id: str) -> str:
    """A figure's version as the app serves it (:func:`figure_version`; a figure that is not
    watched never changes: :data:`STATIC_VERSION`)."""
    return (state.get("versions") or {}).get(figure_id, STATIC_VERSION)
