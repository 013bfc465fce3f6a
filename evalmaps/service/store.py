"""The upload store: figures people upload, kept on the server, immutable, each at a link.

Layout of a store folder (``EVALMAPS_STORE``)::

    links/<id>                 a kept upload's link: the SHA-256 of its content (one line)
    content/<sha256>/spec.json the catalog entry, without its id (parse_spec validates it on read)
    content/<sha256>/cells.csv the tidy cells, as the importer normalised them
    figures/<old id>/...       uploads kept before links were random: spec.json (with its id),
                               cells.csv; still served at their links
    staging/<sha256>           an uploaded file's bytes while its import options are chosen

A figure's id, its shareable link, is ``upload-<32 hex digits>``: 128 random bits
(:func:`new_id`), a capability unrelated to the file's content or name, so that neither holding
the same file nor guessing reveals it. Content addressing stays inside the store: the content is
kept once under the SHA-256 of the normalised entry (the catalog entry without its id, the tidy
cells, the per-item records' digest), however many times it is kept, each time at a new link; a
different upload never overwrites it. Writes go to a temporary folder or file renamed into place,
which is atomic on one file system, so any number of processes (on one host, or on several sharing
the folder) can write and read at once: the first rename of a content folder wins, and every later
one holds the same bytes. Ids of the older form (``upload-<name>-<16 hex>``, derived from the
content) keep naming the uploads kept under them, and no new upload is kept under one.
The same layout may live in an S3-compatible object store (``EVALMAPS_STORE=s3://bucket/prefix``,
:class:`S3Store`, :func:`open_store`), where the link is written last instead of a rename.

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
import secrets
import shutil
import tempfile
import time
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path
from threading import Lock

from evalmaps.core.errors import DataError, EvalmapsError
from evalmaps.core.figure import Figure

UPLOAD_PREFIX = "upload-"
ID_RE = re.compile(r"^upload-[0-9a-f]{32}$")  # a link: 128 random bits
OLD_ID_RE = re.compile(r"^upload-[a-z0-9-]{1,40}-[0-9a-f]{16}$")  # kept before links were random
STORED_ID_IN = re.compile(r"upload-(?:[0-9a-f]{32}|[a-z0-9-]{1,40}-[0-9a-f]{16})(?![0-9a-f])")
CONTENT_RE = re.compile(r"^[0-9a-f]{64}$")
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


def content_bytes(spec: dict, tidy_csv: str, records) -> tuple[bytes, bytes]:
    """An upload's content as every store writes it: its entry (the spec without its id, naming
    its records folder when it has records) and its cells."""
    entry = {k: v for k, v in spec.items() if k != "id"}
    if records is not None:
        entry["items"] = ITEMS
    return json.dumps(entry, indent=1, ensure_ascii=False).encode(), tidy_csv.encode()


def item_dims(spec: dict) -> list[str]:
    """The dimensions an upload's per-item records are saved by."""
    return [*spec["facets"], spec["y"], spec["x"]]


class StoreFull(EvalmapsError):
    """The store has no room for another figure (size or count)."""


def is_stored_id(figure_id: object) -> bool:
    """Whether ``figure_id`` has the shape of a kept upload's id: a link (:data:`ID_RE`), or an
    id of the older form (:data:`OLD_ID_RE`)."""
    return isinstance(figure_id, str) and bool(ID_RE.match(figure_id)
                                               or OLD_ID_RE.match(figure_id))


def new_id() -> str:
    """A new link: ``upload-`` and 128 random bits in lower-case hex (one case: the id is also a
    file name, and some file systems do not tell cases apart)."""
    return UPLOAD_PREFIX + secrets.token_hex(16)


def content_key(spec: dict, tidy_csv: str, items_digest: str = "") -> str:
    """Where an upload's content is kept: the SHA-256 of the normalised entry (spec without id,
    cells, and the per-item records' digest when it has them). Never shown: not a link."""
    body = {k: v for k, v in spec.items() if k != "id"}
    h = hashlib.sha256()
    h.update(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    h.update(b"\0")
    h.update(tidy_csv.encode())
    if items_digest:
        h.update(b"\0" + items_digest.encode())
    return h.hexdigest()


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

    @property
    def links_dir(self) -> Path:
        return self.root / "links"

    @property
    def content_dir(self) -> Path:
        return self.root / "content"

    def folder(self, fid: object) -> Path | None:
        """The folder of the kept upload ``fid`` (its content's, for a link; its own, for an id
        of the older form); None when ``fid`` is not an id or names nothing kept."""
        if not isinstance(fid, str):
            return None
        if OLD_ID_RE.match(fid):
            return self.figures_dir / fid
        if not ID_RE.match(fid):
            return None
        try:
            key = (self.links_dir / fid).read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return self.content_dir / key if CONTENT_RE.match(key) else None

    def ensure(self) -> None:
        """Create the folders; a store that cannot be written stops start-up with one sentence."""
        try:
            for folder in (self.figures_dir, self.content_dir, self.links_dir,
                           self.staging_dir):
                folder.mkdir(parents=True, exist_ok=True)
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
        for folder in (self.figures_dir, self.content_dir, self.links_dir, self.staging_dir):
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
        folder = self.folder(fid)
        return folder is not None and self._has(folder, "spec.json")

    # what :class:`S3Store` does its own way: a content folder's files
    def _has(self, folder, name: str) -> bool:
        return (folder / name).is_file()

    def _get(self, folder, name: str) -> bytes:
        """A file of a content folder (OSError when it cannot be read)."""
        return (folder / name).read_bytes()

    def _attach_items(self, figure: Figure, folder) -> None:
        from evalmaps.catalog.items import attach

        attach(figure, folder / ITEMS)

    @contextmanager
    def staged_file(self, key: str):
        """The staged file ``key`` as a path on this host (an upload's child process reads
        it): the staging file itself."""
        yield self.staging_dir / key

    def put(self, spec: dict, tidy_csv: str, name: str, records=None) -> str:
        """Keep an upload (its catalog entry and tidy cells, validated by the caller, and its
        per-item records when it has them: ``items/`` in its folder, as Parquet) at a new link;
        the link (:func:`new_id`). Content kept already is not written again: the new link
        leads to it. ``name``, the file's, is not part of the link. Raises
        :class:`StoreFull`."""
        from evalmaps.catalog import items

        del name  # the link says nothing of the file (its title, in the entry, may)
        key = content_key(spec, tidy_csv, items.digest(records) if records is not None else "")
        self._check_room(len(key))
        content = self.content_dir / key
        if not (content / "spec.json").is_file():
            self._put_content(content, spec, tidy_csv, records)
        fid = new_id()
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=self.links_dir)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(key + "\n")
            os.replace(tmp, self.links_dir / fid)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return fid

    def _put_content(self, content: Path, spec: dict, tidy_csv: str, records) -> None:
        """Write an upload's content (its entry without an id, cells, records) at ``content``,
        whole or not at all."""
        from evalmaps.catalog import items

        spec_bytes, cells_bytes = content_bytes(spec, tidy_csv, records)
        self._check_room(len(spec_bytes) + len(cells_bytes))
        tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=self.content_dir))
        try:
            (tmp / "cells.csv").write_bytes(cells_bytes)
            if records is not None:
                items.save(tmp / ITEMS, item_dims(spec), records)
                self._check_room(len(spec_bytes))  # the records count, being in the store
            (tmp / "spec.json").write_bytes(spec_bytes)  # last: its presence marks a whole entry
            try:
                os.rename(tmp, content)
            except OSError:
                if not (content / "spec.json").is_file():  # not a concurrent writer of the
                    raise  # same content: a real failure
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _check_room(self, size: int) -> None:
        if self.max_figures is not None and self.count() >= self.max_figures:
            raise StoreFull(f"the upload store is full ({self.max_figures} figures). Ask the "
                            f"server's admin to raise EVALMAPS_STORE_MAX_FIGURES or to make room.")
        if self.max_bytes is not None and self.size() + size > self.max_bytes:
            raise StoreFull(f"the upload store is full ({self.max_bytes / 2**20:g} MB). Ask the "
                            f"server's admin to raise EVALMAPS_STORE_MAX_MB or to make room.")

    def count(self) -> int:
        """How many uploads are kept: links, and folders of ids of the older form."""
        total = 0
        for folder, shape in ((self.links_dir, ID_RE), (self.figures_dir, OLD_ID_RE)):
            try:
                total += sum(1 for p in folder.iterdir() if shape.match(p.name))
            except OSError:
                continue
        return total

    def size(self) -> int:
        total = 0
        for folder in (self.figures_dir, self.content_dir, self.links_dir, self.staging_dir):
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

        folder = self.folder(fid)
        if folder is None:
            return None
        try:
            entry = json.loads(self._get(folder, "spec.json").decode("utf-8"))
            text = self._get(folder, "cells.csv").decode("utf-8")
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("id", fid if ID_RE.match(fid) else None) != fid:
            return None  # an entry of the older form names its own id; content names none
        entry = dict(entry, id=fid)
        try:
            spec = parse_spec(entry, where=f"stored upload '{fid}'")
            frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
            cells, decimals = validate_cells(frame, spec, file=f"stored upload '{fid}'")
        except (DataError, ValueError, TypeError, KeyError, AttributeError):
            return None  # a damaged or tampered entry names no figure
        figure = Figure(spec, cells, decimals)
        if spec.items:
            self._attach_items(figure, folder)
        return figure

    def title(self, fid: str) -> str | None:
        """A stored figure's title from its catalog entry alone (for menus; cached)."""
        if not is_stored_id(fid):
            return None
        if fid in self._titles:
            return self._titles[fid]
        folder = self.folder(fid)
        if folder is None:
            return None
        try:
            entry = json.loads(self._get(folder, "spec.json").decode("utf-8"))
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


# ----------------------------------------------------------------------------- object storage

class S3Store(Store):
    """The upload store in an object store (``EVALMAPS_STORE=s3://bucket/prefix``): the same
    layout as a folder's, as objects under the prefix, read and written through
    :mod:`evalmaps.service.objects`.

    An object store has no rename, and needs none: an object appears whole when its write
    ends, or not at all. A content folder's objects are written first (``cells.csv``, the
    records' Parquet in ``items/``), its ``spec.json`` (the manifest, whose presence marks the
    content whole) after them, and the link (``links/<id>``) last, so a server that finds a
    link finds whole content, and one that finds no link serves nothing: no half figure, with
    no lock, from any number of servers sharing the prefix. Two servers keeping the same
    content write the same bytes under the same keys. The per-item records are read where they
    lie, by DuckDB (:class:`evalmaps.service.objects.RemoteItemRecords`)."""

    def __init__(self, url: str, max_bytes: int | None = None,
                 max_figures: int | None = None) -> None:
        from evalmaps.service import objects

        self.url = objects.canonical(url, "the upload store")
        bucket, prefix = objects.parse_url(self.url)
        super().__init__(Path("."), max_bytes, max_figures)
        self.root = self.url  # what a child process is given to open the same store
        self.base = objects.join(bucket, prefix) if prefix else bucket

    @property
    def fs(self):
        from evalmaps.service import objects

        return objects.filesystem()

    def _key(self, *parts: str) -> str:
        from evalmaps.service import objects

        return objects.join(self.base, *parts)

    def _failure(self, exc: BaseException, doing: str) -> EvalmapsError:
        from evalmaps.service import objects

        return objects.failure(exc, self.url, doing)

    def folder(self, fid: object) -> str | None:  # type: ignore[override]
        if not isinstance(fid, str):
            return None
        if OLD_ID_RE.match(fid):
            return self._key("figures", fid)
        if not ID_RE.match(fid):
            return None
        try:
            key = self.fs.cat_file(self._key("links", fid)).decode("ascii").strip()
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        return self._key("content", key) if CONTENT_RE.match(key) else None

    def ensure(self) -> None:
        """Check that the store can be written (a probe object, written and removed); one that
        cannot stops start-up with one sentence."""
        probe = self._key(f".probe-{secrets.token_hex(8)}")
        try:
            self.fs.pipe_file(probe, b"")
            self.fs.rm_file(probe)
        except Exception as exc:  # noqa: BLE001 - botocore's errors are many; each is said
            raise EvalmapsError(f"{self._failure(exc, 'Writing to the upload store')} Or run "
                                f"read-only with --no-store.") from None

    def sweep_temporary(self, max_age: float = TMP_MAX_AGE) -> list:
        return []  # an object store has no temporary objects: each write is whole or nothing

    def _has(self, folder, name: str) -> bool:
        try:
            return self.fs.isfile(f"{folder}/{name}")
        except OSError:
            return False

    def _get(self, folder, name: str) -> bytes:
        return self.fs.cat_file(f"{folder}/{name}")

    def _attach_items(self, figure: Figure, folder) -> None:
        from evalmaps.catalog.items import SCORES
        from evalmaps.service.object_items import RemoteItemRecords

        if self._has(f"{folder}/{ITEMS}", SCORES):
            figure.items = RemoteItemRecords(f"s3://{folder}/{ITEMS}", figure.spec.dim_names)

    def put(self, spec: dict, tidy_csv: str, name: str, records=None) -> str:
        from evalmaps.catalog import items

        del name
        key = content_key(spec, tidy_csv, items.digest(records) if records is not None else "")
        self._check_room(len(key))
        content = self._key("content", key)
        fid = new_id()
        try:
            if not self._has(content, "spec.json"):
                self._put_content(content, spec, tidy_csv, records)
            self.fs.pipe_file(self._key("links", fid), (key + "\n").encode("ascii"))  # last
        except EvalmapsError:
            raise
        except Exception as exc:  # noqa: BLE001 - the upload is refused with a sentence
            raise self._failure(exc, "Keeping the upload in the store") from None
        return fid

    def _put_content(self, content, spec: dict, tidy_csv: str, records) -> None:
        from evalmaps.catalog import items

        spec_bytes, cells_bytes = content_bytes(spec, tidy_csv, records)
        self._check_room(len(spec_bytes) + len(cells_bytes))
        self.fs.pipe_file(f"{content}/cells.csv", cells_bytes)
        if records is not None:
            with tempfile.TemporaryDirectory(prefix="evalmaps-items-") as tmp:
                items.save(Path(tmp), item_dims(spec), records)
                for path in sorted(Path(tmp).iterdir()):
                    if not path.name.startswith("."):
                        self.fs.put_file(str(path), f"{content}/{ITEMS}/{path.name}")
            self._check_room(len(spec_bytes))
        self.fs.pipe_file(f"{content}/spec.json", spec_bytes)  # the manifest: after its content

    def _names(self, *parts: str) -> list[str]:
        try:
            return [p.rsplit("/", 1)[-1] for p in self.fs.ls(self._key(*parts), detail=False)]
        except (FileNotFoundError, NotADirectoryError):
            return []

    def count(self) -> int:
        return (sum(1 for n in self._names("links") if ID_RE.match(n))
                + sum(1 for n in self._names("figures") if OLD_ID_RE.match(n)))

    def size(self) -> int:
        try:
            return int(sum(info.get("size") or 0 for info in
                           self.fs.find(self.base, detail=True).values()))
        except FileNotFoundError:
            return 0

    def stage(self, data: bytes, name: str) -> str:
        self._sweep_staging()
        name = " ".join(name.split())[:120] or "upload"
        key = hashlib.sha256(name.encode() + b"\0" + data).hexdigest()
        path = self._key("staging", key)
        try:
            if not self.fs.isfile(path):
                self._check_room(len(data) + len(name) + 1)
                self.fs.pipe_file(path, name.encode() + b"\n" + data)
        except EvalmapsError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise self._failure(exc, "Keeping the uploaded file in the store") from None
        return key

    def staged(self, key: object) -> tuple[str, bytes] | None:
        if not isinstance(key, str) or not STAGED_RE.match(key):
            return None
        try:
            blob = self.fs.cat_file(self._key("staging", key))
        except (OSError, ValueError):
            return None
        name, _, data = blob.partition(b"\n")
        return name.decode("utf-8", "replace"), data

    @contextmanager
    def staged_file(self, key: str):
        """The staged object ``key`` copied to a temporary file on this host, removed after."""
        fd, tmp = tempfile.mkstemp(prefix="evalmaps-staged-")
        os.close(fd)
        try:
            try:
                self.fs.get_file(self._key("staging", key), tmp)
            except OSError:
                pass  # gone: the child's read says so
            yield Path(tmp)
        finally:
            os.unlink(tmp)

    def _sweep_staging(self) -> None:
        try:
            infos = self.fs.ls(self._key("staging"), detail=True)
        except (OSError, ValueError):
            return
        now = time.time()
        for info in infos:
            modified = info.get("LastModified")
            if modified is not None and now - modified.timestamp() > STAGING_MAX_AGE:
                try:
                    self.fs.rm_file(info["name"])
                except OSError:
                    continue


def open_store(root, max_bytes: int | None = None, max_figures: int | None = None) -> Store:
    """The store at ``root``: a folder (:class:`Store`) or an ``s3://`` URL (:class:`S3Store`);
    another URL is an error that says what is accepted."""
    from evalmaps.service import objects

    if objects.is_url(str(root)):
        return S3Store(str(root), max_bytes, max_figures)
    return Store(root, max_bytes, max_figures)


# --------------------------------------------------------------------------- watched folders

PIECE = "piece.json"  # a piece's description, written last: its presence marks a whole piece
# part of every piece's key: a new layout reads every file again once (2: no pickle in a piece)
PIECE_VERSION = "2"


class PieceStore:
    """What watched data folders' files gave, each file read once (issue 41, part 3).

    Layout of its folder (``<cache>/live``: the host's cache, on a local file system, where
    ``fcntl.flock`` works)::

        pieces/<sha256>/piece.json   what one file gave: its kind, dimensions, notes (last)
        pieces/<sha256>/...          its cells and per-item records as Parquet, or its readings
                                     as data only (found.json, Parquet, raw bytes: no pickle)
        combined/<sha256>/scores.parquet   a folder's per-item scores, its pieces' put together
        folders/<sha256>.json        a folder's manifest: each file's signature and piece, the
                                     pieces it serves in order, its problems (replaced whole)
        folders/<sha256>.lock        the lock its reader holds (``flock``, non-blocking)
        puts.log                     one line per piece written: pid, key, file

    A piece's key is the SHA-256 of its file's bytes, its name in the folder and the import
    options (:func:`piece_key`): the same file read with the same options is the same piece,
    whoever reads it. Everything is written to a temporary name and renamed into place, so a
    reader never sees half of one; two processes writing the same key write the same bytes."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def piece(self, key: str) -> Path:
        return self.root / "pieces" / key

    def has(self, key: object) -> bool:
        return (isinstance(key, str) and CONTENT_RE.match(key) is not None
                and (self.piece(key) / PIECE).is_file())

    def put(self, key: str, write, file: str) -> None:
        """Write the piece ``key``: ``write(folder)`` fills a temporary folder (its
        :data:`PIECE` last), renamed into place; the put is logged (:attr:`log`)."""
        target = self.piece(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=target.parent))
        try:
            write(tmp)
            try:
                os.rename(tmp, target)
            except OSError:
                if not (target / PIECE).is_file():  # not a concurrent writer of the same key
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        line = f"{os.getpid()} {key} {file.replace(chr(10), ' ')}\n".encode()
        fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one write, appended whole (O_APPEND)
        finally:
            os.close(fd)

    @property
    def log(self) -> Path:
        return self.root / "puts.log"

    def combined(self, key: str) -> Path:
        return self.root / "combined" / key

    def _folder_key(self, folder: Path, options: dict) -> str:
        body = json.dumps([str(Path(folder).absolute()), options], sort_keys=True)
        return hashlib.sha256(body.encode()).hexdigest()

    def manifest_path(self, folder: Path, options: dict) -> Path:
        return self.root / "folders" / f"{self._folder_key(folder, options)}.json"

    def manifest(self, folder: Path, options: dict) -> dict | None:
        """The folder's manifest (None: none yet, or unreadable)."""
        try:
            found = json.loads(self.manifest_path(folder, options).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return found if isinstance(found, dict) else None

    def stamp(self, folder: Path, options: dict):
        """The manifest's size, time and inode now (None: there is none): a new manifest is a
        new file (renamed into place), so a new inode."""
        try:
            stat = self.manifest_path(folder, options).stat()
        except OSError:
            return None
        return stat.st_size, stat.st_mtime_ns, stat.st_ino

    def write_manifest(self, folder: Path, options: dict, manifest: dict) -> None:
        """Replace the folder's manifest whole (written aside, then renamed)."""
        path = self.manifest_path(folder, options)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(manifest, out, ensure_ascii=False)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def lock(self, folder: Path, options: dict):
        """The folder's reader lock, taken without waiting: an open file descriptor that holds
        it (closing it lets it go), or None when another process holds it."""
        import fcntl

        path = self.manifest_path(folder, options).with_suffix(".lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        return fd


def piece_key(data: bytes, name: str, options: dict) -> str:
    """The key of the piece a file gives: its bytes, its name in its folder (``--set
    model={file}`` takes labels from it) and the import options."""
    h = hashlib.sha256(f"piece {PIECE_VERSION}\0{name}\0".encode())
    h.update(json.dumps(options, sort_keys=True).encode() + b"\0")
    h.update(data)
    return h.hexdigest()
