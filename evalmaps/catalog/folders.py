"""A user's data folder: its own catalog.json (like data/), or else every table in it imported
as one figure each, or else (no tables) the evaluation tools' results in it as one figure.
Through the cache when one is given; two files that would have one id are told apart."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from evalmaps.catalog import cache, columnar, items, manifest
from evalmaps.catalog.imports import (
    Found,
    figure_of,
    finish_sources,
    import_bytes,
    read_source,
)
from evalmaps.catalog.load import (
    catalog_figures,
    check_manifest,
    folder_manifest,
    load_catalog,
    load_figure,
    parse_spec,
    unique_id,
)
from evalmaps.core.errors import DataError
from evalmaps.core.figure import Figure, short_slug
from evalmaps.core.problems import STRICT, Problems
from evalmaps.readers.base import SUFFIXES, ImportFailed, ImportOptions, parse_json

SIDECAR = ".figure.json"  # <name>.figure.json beside <name>.csv: its catalog entry
ITEMS = ".items"  # <name>.items/ beside <name>.csv: its per-item records (scores.parquet, ...)


def sidecar(path: Path) -> Path:
    """Where the catalog entry of the table ``path`` is kept, when it has one (``evalmaps
    import -o`` writes it, so that what the import knew is served as it was)."""
    return path.with_name(path.stem + SIDECAR)


def write_import(imported, out: Path) -> Path:
    """An import as a data folder's file: the tidy cells at ``out`` and its catalog entry beside
    them (:func:`sidecar`), so that ``evalmaps serve --data <out's folder>`` serves the figure
    exactly as imported: its metrics' names, units, ranges and directions, dimension titles and
    label order. Returns the entry's path."""
    out = Path(out)
    spec = {**imported.spec, "file": out.name}
    if imported.items is not None:  # the per-item records beside the cells
        folder = out.with_name(out.stem + ITEMS)
        items.save(folder, figure_dims(spec), imported.items)
        spec["items"] = folder.name
    imported.write_csv(out)
    entry = sidecar(out)
    entry.write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return entry


def _import_file(path, cache_dir, options: ImportOptions = ImportOptions()) -> Figure:
    """One file of a data folder (CSV or Parquet) -> its figure, through the cache if given.
    A table with a catalog entry beside it (:func:`sidecar`) is loaded as that entry says;
    another is read with the folder's table ``options`` (``serve --data DIR --item ...``), which
    are part of the cache key."""
    entry = sidecar(path)
    if entry.is_file():
        return _load_with_entry(path, entry, cache_dir)
    data = read_file(path)
    parquet = path.suffix.lower() == ".parquet"
    if parquet and options.format == "auto":
        options = dataclasses.replace(options, format="tidy")
    key = None
    if cache_dir is not None:
        key = cache.key("import", path.suffix.lower(), path.name,
                        json.dumps(options.to_dict()), data)
        hit = cache.load(cache_dir, key)
        if hit is not None and isinstance(hit.meta.get("spec"), dict):
            spec = parse_spec(hit.meta["spec"], where=f"import of {path.name}")
            figure = Figure(spec, hit.cells, hit.decimals)
            if not hit.meta.get("items"):
                return figure
            if items.attach(figure, Path(cache_dir) / f"{key}{ITEMS}").items is not None:
                return figure  # else the records are gone from the cache: import again
    (imported,) = import_bytes(data, path.name, options, max_bytes=None)
    del data  # the import holds what it needs: free the file's bytes before building the figure
    figure = with_items(figure_of(imported), imported, cache_dir, key)
    if key is not None:
        cache.store(cache_dir, key, figure.cells, figure.decimals,
                    {"spec": imported.spec, "items": imported.items is not None})
    return figure


def figure_dims(spec: dict) -> list[str]:
    """An import's catalog entry's dims in the cells' order: facets, y, x."""
    return [*spec["facets"], spec["y"], spec["x"]]


def with_items(figure: Figure, imported, cache_dir, key: str | None = None) -> Figure:
    """``figure`` with the import's per-item records kept where a data folder's figure keeps
    them: in the cache (``<key>.items``, keyed by content: by the records' own when no key is
    given), or, without a cache, in a temporary folder of this process."""
    if imported.items is None:
        return figure
    dims = list(figure.spec.dim_names)
    if cache_dir is not None:
        key = key or cache.key("items", json.dumps(dims), items.digest(imported.items))
        folder = Path(cache_dir) / f"{key}{ITEMS}"
        if items.attach(figure, folder).items is not None:
            return figure
        try:
            figure.items = items.save(folder, dims, imported.items)
            return figure
        except OSError:
            pass  # a cache that cannot be written is no cache
    import os
    import tempfile
    import weakref

    folder = tempfile.mkdtemp(prefix="evalmaps-items-")
    figure.items = items.save(folder, dims, imported.items)
    # the folder lasts as long as the records that read it (no request is reading them then):
    # a watched file read again, or deleted, leaves no folder behind; nor does the process
    weakref.finalize(figure.items, _remove_own, folder, os.getpid())
    return figure


def _remove_own(folder: str, pid: int) -> None:
    """Remove the temporary folder of per-item records made by the process ``pid``, when this
    is it: a forked worker's copy of a figure read before the fork (at start-up) is not the
    only one, and the folder is left to the process that made it."""
    import os
    import shutil

    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)


def _load_with_entry(path: Path, entry: Path, cache_dir) -> Figure:
    try:
        raw = json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ImportFailed(f"the catalog entry {entry.name} beside it cannot be read ({exc}). "
                           f"Import the results again, or remove it to import the table as it "
                           f"is.", file=str(path)) from None
    if not isinstance(raw, dict):
        raise ImportFailed(f"the catalog entry {entry.name} beside it is not a JSON object. "
                           f"Import the results again, or remove it.", file=str(path))
    spec = parse_spec({**raw, "file": path.name}, where=str(entry))
    # the table beside its entry is evalmaps' own, written for spreadsheets: read back exactly
    return load_figure(spec, path, cache_dir, neutralised=True)


def load_folder(folder, cache_dir: str | Path | None = None,
                problems: Problems = STRICT,
                options: ImportOptions = ImportOptions()) -> list[Figure]:
    """A user's folder: its own catalog.json (like data/), or else every *.csv and *.parquet
    imported (auto-detected CSV format; Parquet: tidy). No size limit: files on disk are the
    user's own. ``cache_dir``: where validated cells are kept between start-ups (None: none).

    ``problems``: strict (the default), and a bad file raises its ImportFailed; a
    :class:`~evalmaps.core.problems.Problems` collector, and a bad file is skipped with one line
    added. Either way two files that would have one id get ``-2``, ``-3``, ... with a warning
    (in ``problems``, else logged). A folder's own ``manifest.json`` is checked:
    a file that does not match it is served with a warning (:mod:`evalmaps.catalog.manifest`).
    ``options``: how its tables are read, as ``evalmaps import`` reads them with the same options
    (a catalog.json folder's figures say it all themselves)."""
    folder = Path(folder)
    if folder.is_file():
        raise ImportFailed(f"--data takes a folder, and this is a file. To serve one file, put it "
                           f"in a folder of its own (mkdir my-data && mv {folder.name} my-data/) "
                           f"and give --data my-data.", file=str(folder))
    if not folder.is_dir():
        raise ImportFailed("the data folder does not exist. Give the path of a folder of CSV "
                           "files.", file=str(folder))
    if (folder / "catalog.json").exists():
        return list(load_catalog(folder, cache_dir=cache_dir, problems=problems,
                                 manifest_check="flag"))
    with columnar.lean_memory():
        return _load_files(folder, cache_dir, problems, options=options)


def inside(folder: Path, path: Path) -> bool:
    """Whether ``path``, its links followed, is in ``folder`` (itself resolved): a data folder
    serves only what is in it. A link that leads out of it (``leak.csv -> ../outside/x.csv``),
    or a loop of links, is not followed (as the bundle writer never writes outside its folder)."""
    try:
        root, target = Path(folder).resolve(), Path(path).resolve()
    except (OSError, RuntimeError):  # a loop of links
        return False
    return root in target.parents


def outside_error(path: Path) -> DataError:
    """The problem of a file found in a data folder that is a link leading out of it. (A
    catalog.json names its files itself, anywhere: its author chose them.)"""
    return DataError("it is a link that leads outside the data folder, and links out of a data "
                     "folder are not followed. Copy the file into the folder to serve it.",
                     file=str(path))


def _servable(folder: Path, paths, skipped: list[DataError] | None) -> list[Path]:
    """``paths`` without what cannot be served as a file of ``folder``: links that lead out
    of it (:func:`inside`), links to nothing, and what is not a regular file. Their problems
    are added to ``skipped`` (when given) for the problems list."""
    kept = []
    for path in paths:
        why = (outside_error(path) if not inside(folder, path)
               else _not_regular(path))
        if why is None:
            kept.append(path)
        elif skipped is not None:
            skipped.append(why)
    return kept


def _not_regular(path: Path) -> DataError | None:
    """The problem of a file of a data folder that cannot be read as one, or None: a link to
    nothing, or not a regular file (a named pipe would hang the read; a socket or device is no
    table)."""
    if path.is_file():
        return None
    if path.is_symlink() and not path.exists():
        return DataError("it is a link to a file that does not exist. Remove the link, or "
                         "restore the file it points to.", file=str(path))
    return DataError("it is not a regular file (a named pipe, socket or device), so it is not "
                     "read. Write the results to a regular file.", file=str(path))


def _data_files(folder: Path, skipped: list[DataError] | None = None) -> list[Path]:
    """The folder's tables; when it has none of its own and holds no results files, the tables
    in its subfolders (a download that keeps its data one folder down). What cannot be served
    as a file (:func:`_servable`) is left out (its problem added to ``skipped`` when given)."""
    files = _servable(folder, sorted([*folder.glob("*.csv"), *folder.glob("*.parquet")]),
                      skipped)
    if not files and not _harness_folder(folder):
        files = _servable(folder, sorted(
            p for p in [*folder.rglob("*.csv"), *folder.rglob("*.parquet")]
            if not any(part.startswith(".") for part in p.relative_to(folder).parts)), skipped)
    if not files and not _harness_folder(folder):
        raise ImportFailed("the data folder holds no .csv files and no catalog.json.",
                           file=str(folder))
    return files


def _harness_folder(folder: Path) -> bool:
    """A folder of evaluation tools' results (no tables): it loads as one figure."""
    return any(p.suffix.lower() in (".json", ".eval", ".zip") for p in folder.rglob("*"))


def harness_files(folder: Path, skipped: list[DataError] | None = None) -> list[Path]:
    """The files of a folder of evaluation tools' results, as an import of the folder reads
    them: every results file below it, in order of path, hidden ones left out, and what cannot
    be served as a file (:func:`_servable`: its problem added to ``skipped`` when given)."""
    return _servable(folder, sorted(p for p in folder.rglob("*") if not p.is_dir()
                                    and p.suffix.lower() in SUFFIXES
                                    and not p.name.startswith(".")), skipped)


def read_file(path: Path) -> bytes:
    """A data folder's file, whole; one that cannot be read (its permissions, removed
    meanwhile, an I/O error) is an ImportFailed naming it, so that it is skipped as a bad file
    is, never a traceback that stops start-up or a watched folder's updates."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ImportFailed(f"cannot read the file ({exc.strerror or exc}). Check its "
                           f"permissions, or remove it.", file=str(path)) from None


def read_harness_file(path: Path, options: ImportOptions = ImportOptions()) -> Found:
    """One file of a folder of results, read (:func:`evalmaps.catalog.imports.read_source`). A
    ``.json`` that does not parse (cut short, or still being written) is a DataError naming it,
    not a file skipped as "not results"."""
    return read_harness_bytes(path, read_file(path), options)


def read_harness_bytes(path: Path, data: bytes, options: ImportOptions = ImportOptions()) -> Found:
    """:func:`read_harness_file` of the file's bytes, read already."""
    found = read_source(path.as_posix(), data, True, options, None)
    if path.suffix.lower() == ".json" and not found.readings and parse_json(data) is None:
        raise ImportFailed("the file is not valid JSON: it was cut short or is still being "
                           "written. Write it again whole, or remove it.", file=str(path))
    return found


def harness_figures(folder: Path, founds: list[Found], cache_dir=None,
                    options: ImportOptions = ImportOptions()) -> list[Figure]:
    """A folder of results' figures, one per tool, from its files' :func:`read_harness_file`
    (in :func:`harness_files`' order). The id comes from the folder's name (one tool), or its
    name and the tool's: not from how many files it holds, so it stays as a sweep grows.
    ``options``: how the tables among them are read (per-item tables: one figure, as an import
    of the folder with the same options makes it)."""
    merged = Found()
    for found in founds:
        merged.readings += found.readings
        merged.tables += found.tables
        merged.given += found.given
        merged.skipped += found.skipped
    imports = finish_sources(merged, folder.as_posix(), options, None,
                             by_tool=True)
    base = "import-" + (short_slug(folder.resolve().name) or "results")
    figures = []
    for imported in imports:
        imported.spec["id"] = base if len(imports) == 1 else f"{base}-{short_slug(imported.format)}"
        figures.append(with_items(figure_of(imported), imported, cache_dir))
    return figures


def _load_files(folder: Path, cache_dir, problems: Problems = STRICT,
                read=None, options: ImportOptions = ImportOptions(),
                combine=None) -> list[Figure]:
    """``read``: how one file is read (None: as it is); a watched folder's keeps what it read
    (:mod:`evalmaps.service.live`). It returns None for a file not to be served yet; with
    ``combine``, what the results files' reads gave is put together by ``combine(gave)``. Tables
    that ``options`` name per-item records are read together, as ``evalmaps import DIR`` reads
    them (one file per model, ``--set model={file}``, is ONE figure), not a figure each."""
    skipped: list[DataError] = []  # links out, pipes, ...: named in the problems, never read
    try:
        files = _data_files(folder, skipped)
        together = not files or options.per_item  # read together (per-item tables too): one per tool
        if together:
            files = files or harness_files(folder, skipped)
    finally:
        _report_skipped(skipped, problems)
    if together:
        founds = []
        for path in files:
            try:
                found = read(path) if read is not None else read_harness_file(path, options)
            except DataError as exc:
                problems.not_served(exc)
                continue
            if found is not None:
                founds.append(found)
        if not founds and read is not None:
            return []  # a watched folder whose first results are still to come
        try:
            if combine is not None:  # a watched folder's: what ``read`` gave, put together
                return combine(founds)
            return harness_figures(folder, founds, cache_dir, options)
        except DataError as exc:
            problems.not_served(exc)
            return []
    expected = folder_manifest(folder, "flag", problems)
    figures, where = [], {}  # where: figure id -> the file it came from
    for path in files:
        try:
            figure = read(path) if read is not None else _import_file(path, cache_dir, options)
            if figure is None:
                continue
            if expected is not None:
                check_manifest(expected, folder, path, figure, "flag", problems)
        except DataError as exc:
            problems.not_served(exc)
            continue
        fid = unique_id(figure.id, where)
        if fid != figure.id:  # 'My Results.csv' and 'my-results.csv'; runs.csv and runs.parquet
            problems.warn(f"Renamed: the files {where[figure.id]} and {path.name} in {folder} "
                          f"would both be the figure '{figure.id}'; {path.name} is served as "
                          f"'{fid}'. Rename one of them to choose its id.")
            figure = renamed(figure, fid)
        where[fid] = path.name
        figures.append(figure)
    return figures


def _report_skipped(skipped: list[DataError], problems: Problems = STRICT) -> None:
    """The files of a data folder that cannot be served as files, each a problem (strict
    ``problems``: the first raises, as a bad file does)."""
    for exc in skipped:
        problems.not_served(exc)


def folder_files(folder: Path) -> list[tuple[Path, Figure]]:
    """Every file of a data folder with its figure, loaded strictly (the first bad file raises)
    and without a manifest check: what ``evalmaps manifest`` records."""
    folder = Path(folder)
    if (folder / "catalog.json").exists():
        return catalog_figures(folder)[0]
    with columnar.lean_memory():
        return [(path, _import_file(path, None)) for path in _data_files(folder)]


def write_manifest(folder: Path) -> Path:
    """Load the folder strictly (every file must validate) and write its manifest.json."""

    folder = Path(folder)
    counts = {manifest.key(folder, path): figure.n_cells for path, figure in folder_files(folder)}
    out = folder / manifest.MANIFEST
    out.write_text(json.dumps(manifest.build(folder, counts), indent=2, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    return out


def renamed(figure: Figure, figure_id: str) -> Figure:
    """The same figure under another id (with its per-item records)."""
    out = Figure(dataclasses.replace(figure.spec, id=figure_id), figure.cells, figure.decimals)
    out.items = figure.items
    return out


# ------------------------------------------------------- a watched folder's files, read once each

def write_piece(path: Path, data: bytes, options: ImportOptions, out: Path) -> None:
    """What one file of a folder of results gives, read alone, written into the folder ``out``
    (:class:`evalmaps.service.store.PieceStore`): a per-item table's cells and records as
    Parquet (``cells.parquet``, ``scores.parquet``, ``texts.parquet``), read as the streamed
    import reads each table (:mod:`evalmaps.catalog.stream`); any other file's readings as data
    only (:func:`_write_found`: ``found.json``, its frames as Parquet, bytes as raw files:
    nothing that runs code when read, so that whoever can write the store runs none).
    ``piece.json``, last, says which. Raises DataError as the file's read does."""
    found = read_harness_bytes(path, data, options)
    del data
    if not found.readings and len(found.tables) == 1 and _write_items_piece(found, options, out):
        return
    _write_found(found, out)
    _write_json(out / "piece.json", {"kind": "found", "file": path.as_posix(),
                                     "found": FOUND_JSON})


# --- a file's readings as data only: JSON for what is scalar, Parquet for frames, raw bytes ---

FOUND_JSON = "found.json"
_TAG = "$"  # a JSON object with this key is a value JSON has no form for (see _encode)


class BadPiece(DataError):
    """A piece of the store that is not what :func:`write_piece` writes (changed, cut short or
    written by something else): its file is read again, or it is the folder's problem."""

    def __init__(self, piece: Path, problem: str) -> None:
        self.piece = Path(piece)
        super().__init__(f"the stored reading {self.piece.name[:12]}... in {self.piece.parent} "
                         f"is not valid ({problem}). Remove it: the file is read again.")


_PLAIN = frozenset((str, int, bool, type(None)))  # what JSON holds exactly, as it is


def _encode(value):
    """``value`` as JSON holds it, exactly: str, int, bool, None, lists and dicts of text keys
    as they are, a float as its shortest repr (read back bit for bit), and tagged objects for
    what JSON has no form for (NaN and infinities, tuples, a reader's :class:`Note`, dicts with
    other keys). A value of another type is a DataError (a reader gave what cannot be kept)."""
    from evalmaps.readers.base import Note

    kind = type(value)
    if value is None or kind in (str, bool, int):
        return value
    if kind is float:
        return value if value == value and value not in (float("inf"), float("-inf")) else {
            _TAG: "float", "v": repr(value)}
    if kind is Note:
        return {_TAG: "note", "v": str(value)}
    if kind is list:
        return [_encode(v) for v in value]
    if kind is tuple:
        return {_TAG: "tuple", "v": [_encode(v) for v in value]}
    if kind is dict:
        if all(type(k) is str for k in value) and _TAG not in value:
            if _PLAIN.issuperset(map(type, value.values())):
                return value  # a record of texts: as it is (the most common, by far)
            return {k: _encode(v) for k, v in value.items()}
        return {_TAG: "dict", "v": [[_encode(k), _encode(v)] for k, v in value.items()]}
    raise DataError(f"a reading holds a value of type {kind.__name__}, which a watched folder's "
                    f"store cannot keep. Have the reader give text, numbers, lists or dicts.")


def _decode(value):
    """:func:`_encode`'s value back (ValueError: not one it writes)."""
    from evalmaps.readers.base import Note

    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if _TAG not in value:
        return {k: _decode(v) for k, v in value.items()}
    tag, body = value[_TAG], value.get("v")
    if tag == "float" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "note" and isinstance(body, str):
        return Note(body)
    if tag == "tuple" and isinstance(body, list):
        return tuple(_decode(v) for v in body)
    if tag == "dict" and isinstance(body, list) and all(
            isinstance(p, list) and len(p) == 2 for p in body):
        pairs = [(_decode(k), _decode(v)) for k, v in body]
        return dict(pairs)
    raise ValueError(f"an unknown tagged value {str(tag)[:40]!r}")


def _write_frame(frame, out: Path, name: str) -> dict:
    """A reading's DataFrame as Parquet in ``out`` (``name``), with what restores it exactly:
    its column names (any JSON value, written as c0, c1, ...), its dtypes, and the values of
    object columns as JSON texts (pyarrow reads text back as pandas' str, and None as NaN)."""
    import pandas as pd

    columns = [_encode(c) for c in frame.columns]
    dtypes = [str(t) for t in frame.dtypes]
    written = {}
    for k, dtype in enumerate(dtypes):
        values = frame.iloc[:, k]
        if dtype == "object":
            values = pd.Series([json.dumps(_encode(v), allow_nan=False) for v in values],
                               index=frame.index, dtype="str")
        written[f"c{k}"] = values
    body = pd.DataFrame(written, index=frame.index)
    default = isinstance(frame.index, pd.RangeIndex) and frame.index.equals(
        pd.RangeIndex(len(frame)))
    body.to_parquet(out / name, index=not default)
    return {"file": name, "columns": columns, "dtypes": dtypes, "rows": len(frame)}


def _read_frame(piece: Path, given):
    """:func:`_write_frame`'s frame back; ValueError when it is not what was written."""
    import pandas as pd

    if not (isinstance(given, dict) and _plain_name(given.get("file"))
            and isinstance(given.get("columns"), list) and isinstance(given.get("dtypes"), list)
            and len(given["columns"]) == len(given["dtypes"]) and type(given.get("rows")) is int):
        raise ValueError("a table's description is malformed")
    body = pd.read_parquet(piece / given["file"])
    if len(body) != given["rows"] or list(body.columns) != [f"c{k}" for k in
                                                             range(len(given["dtypes"]))]:
        raise ValueError(f"{given['file']} does not hold the table described")
    for k, dtype in enumerate(given["dtypes"]):
        name = f"c{k}"
        if dtype == "object":
            body[name] = pd.Series([_decode(json.loads(v)) for v in body[name]],
                                   index=body.index, dtype=object)
        elif str(body[name].dtype) != dtype:
            raise ValueError(f"{given['file']}'s column {k} is {body[name].dtype}, not {dtype}")
    body.columns = [_decode(c) for c in given["columns"]]
    return body


def _plain_name(name) -> bool:
    """A file name of the piece's own folder (no path: a description cannot point elsewhere)."""
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name \
        and "\\" not in name and "\0" not in name


def _write_found(found: Found, out: Path) -> None:
    """A file's :class:`Found` as data only into ``out``: ``found.json`` (its readings'
    records, metrics, notes and warnings, exactly: :func:`_encode`), each reading's frames as
    Parquet (:func:`_write_frame`), the tables' and an archive's files' bytes as raw files."""
    readings = []
    for i, r in enumerate(found.readings):
        records = _encode(r.records)
        entry = {"reader": r.reader, "file": r.file, "records": records,
                 # no value tagged (what readers give): read back without a walk through them
                 "plain": records == r.records,
                 "lower": _encode(r.lower), "metrics": _encode(r.metrics),
                 "warnings": _encode(r.warnings), "notes": _encode(r.notes), "shape": r.shape}
        for part in ("table", "items"):
            frame = getattr(r, part)
            if frame is not None:
                entry[part] = _write_frame(frame, out, f"reading-{i}-{part}.parquet")
        if r.members is not None:
            entry["members"] = []
            for j, (name, data) in enumerate(r.members):
                (out / f"reading-{i}-member-{j}.bin").write_bytes(data)
                entry["members"].append([name, f"reading-{i}-member-{j}.bin"])
        readings.append(entry)
    tables = []
    for i, (file, probe, kind) in enumerate(found.tables):
        (out / f"table-{i}.bin").write_bytes(probe.data)
        tables.append({"file": file, "kind": kind, "data": f"table-{i}.bin"})
    body = {"readings": readings, "tables": tables, "given": _encode(found.given),
            "skipped": _encode(found.skipped)}
    (out / FOUND_JSON).write_bytes(_json_bytes(body))


def _json_bytes(body) -> bytes:
    """:func:`_encode`'s ``body`` as JSON text: orjson's (a float as its shortest repr, as the
    json module writes it), or the json module's for what orjson refuses (integers past 64
    bits, lone surrogates), ASCII."""
    import orjson

    try:
        return orjson.dumps(body)
    except TypeError:
        return json.dumps(body, allow_nan=False).encode("ascii")


def _json_of(data: bytes):
    """:func:`_json_bytes`' body back (ValueError: not JSON)."""
    import orjson

    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data.decode("utf-8"))


def _read_found(piece: Path, described: dict) -> Found:
    """:func:`_write_found`'s :class:`Found` back, each part checked: a piece that is not what
    it writes is a :class:`BadPiece` naming what is wrong (never code run, never a crash)."""
    import pyarrow as pa

    from evalmaps import readers
    from evalmaps.catalog.imports import hook
    from evalmaps.readers.base import Probe, Reading

    def raw(name) -> bytes:
        if not _plain_name(name):
            raise ValueError("a file of it is not named")
        return (piece / name).read_bytes()

    def texts(value, what: str) -> list:
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ValueError(f"its {what} are not a list of texts")
        return value

    try:
        if described.get("found") != FOUND_JSON:
            raise ValueError(f"its description names no {FOUND_JSON}")
        body = _json_of((piece / FOUND_JSON).read_bytes())
        if not (isinstance(body, dict) and isinstance(body.get("readings"), list)
                and isinstance(body.get("tables"), list)):
            raise ValueError(f"{FOUND_JSON} is not an object with readings and tables")
        known = set(readers.names())
        found = Found(given=texts(_decode(body.get("given")), "given files"),
                      skipped=texts(_decode(body.get("skipped")), "skipped files"))
        for entry in body["readings"]:
            if not isinstance(entry, dict) or entry.get("reader") not in known:
                raise ValueError("a reading names no known reader")
            r = Reading(entry["reader"], entry.get("file"))
            plain = entry.get("plain") is True
            r.records = entry.get("records") if plain else _decode(entry.get("records"))
            r.lower, r.metrics = _decode(entry.get("lower")), _decode(entry.get("metrics"))
            r.warnings = texts(_decode(entry.get("warnings")), "warnings")
            r.notes = texts(_decode(entry.get("notes")), "notes")
            r.shape = entry.get("shape")
            if not (isinstance(r.file, str) and _records(r.records)
                    and isinstance(r.lower, dict) and isinstance(r.metrics, dict)
                    and all(isinstance(k, str) and isinstance(v, bool)
                            for k, v in r.lower.items())
                    and all(isinstance(k, str) and isinstance(v, dict)
                            for k, v in r.metrics.items())
                    and (r.shape is None or isinstance(r.shape, str))):
                raise ValueError("a reading's records, metrics or shape are malformed")
            for part in ("table", "items"):
                if part in entry:
                    setattr(r, part, _read_frame(piece, entry[part]))
            if "members" in entry:
                if not (isinstance(entry["members"], list) and all(
                        isinstance(m, list) and len(m) == 2 and isinstance(m[0], str)
                        for m in entry["members"])):
                    raise ValueError("an archive's files are malformed")
                r.members = [(name, raw(stored)) for name, stored in entry["members"]]
            found.readings.append(r)
        for entry in body["tables"]:
            kind = entry.get("kind") if isinstance(entry, dict) else None
            if kind not in known or not hook(readers.reader(kind), "TABLE") \
                    or not isinstance(entry.get("file"), str):
                raise ValueError("a table names no known table reader")
            found.tables.append((entry["file"], Probe(raw(entry.get("data"))), kind))
    except (OSError, ValueError, TypeError, RecursionError, pa.ArrowException) as exc:
        if isinstance(exc, BadPiece):
            raise
        raise BadPiece(piece, _why(exc)) from None
    return found


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _records(records) -> bool:
    """Whether ``records`` are a reading's: dicts of text keys with a value, each a scalar."""
    if not isinstance(records, list):
        return False
    for rec in records:
        if type(rec) is not dict or "value" not in rec or not _SCALARS.issuperset(
                map(type, rec.values())) or not all(type(k) is str for k in rec):
            return False
    return True


def _why(exc: Exception) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"{Path(exc.filename or '?').name} is missing"
    if isinstance(exc, json.JSONDecodeError):
        return f"its JSON does not parse: {exc.msg}"
    if isinstance(exc, UnicodeDecodeError):
        return "its JSON is not text"
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


def _write_json(path: Path, body: dict) -> None:
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")


def _write_items_piece(found: Found, options: ImportOptions, out: Path) -> bool:
    """A file that is one per-item table: its records and cells into ``out`` (True); False
    when the table is not per-item records (it is kept as read)."""
    import shutil

    from evalmaps import readers
    from evalmaps.catalog import stream
    from evalmaps.catalog.imports import text_chars
    from evalmaps.readers import items as item_records

    file, probe, kind = found.tables[0]
    try:
        reading = readers.reader(kind).read(probe, file, options, None)
    except DataError:
        if options.item or options.correct:
            raise
        return False
    frame, reading.table = reading.table, None
    probe.__dict__.pop("doc", None)
    if not item_records.is_item_table(frame.columns, options):
        return False
    columns = tuple(sorted(str(c).strip() for c in frame.columns))
    group = stream.Group(columns, file)
    try:
        group.add(file, frame, options, reading.warnings)
        chars = text_chars(frame)
        del frame
        group.close()
        for name in (items.SCORES, items.TEXTS):
            if (group.folder / name).is_file():
                shutil.move(group.folder / name, out / name)
        cells = group.cells[0]
        cells[list(group.dims)] = cells[list(group.dims)].astype(str)
        cells.to_parquet(out / "cells.parquet", index=False)
        _write_json(out / "piece.json", {
            "kind": "items", "file": file, "columns": list(columns), "dims": list(group.dims),
            "metric": group.metric, "notes": group.notes,
            "warnings": list(dict.fromkeys(reading.warnings)), "fraction": group.fraction,
            "rows": group.rows, "text_chars": chars,
            # the labels as the file gives them, and the renames that named one: --rename is
            # checked against the folder's files together (:func:`_check_renames`)
            "labels": {d: sorted(map(str, v)) for d, v in group.labels.items()},
            "renamed": sorted(map(list, group.renamed))})
    finally:
        shutil.rmtree(group.folder, ignore_errors=True)
    return True


class FolderRecords(items.ItemRecords):
    """A watched folder's per-item records, as its files' pieces hold them: the scores put
    together in one Parquet file (``folder``), the texts left in each piece's own file (read
    together by DuckDB), so that a new file writes its own texts only.

    The scores file is written when first asked for (:attr:`scores_path`, or :meth:`ready`,
    which the reading process calls once the figure is served): the figure's cells, its
    pieces', are served at once, and a question of its items waits for their file."""

    def __init__(self, folder: str | Path, dims, texts: list[Path], rows: int,
                 scores: list[Path] | None = None) -> None:
        import threading

        super().__init__(folder, dims)
        self.text_files = [str(p) for p in texts]
        self.rows = rows
        self.score_files = list(scores or [])
        self._writing = threading.Lock()

    @property
    def scores_path(self) -> Path:
        return self.ready()

    def ready(self) -> Path:
        """The scores file, written first when it is not yet (by this process or another:
        each writes it whole, under one name, and a second write gives the same bytes)."""
        path = self.folder / items.SCORES
        if not path.is_file():
            with self._writing:
                if not path.is_file():
                    _combine_scores(self.score_files, path)
        return path

    @property
    def shape(self) -> tuple[int, int]:
        import pyarrow.parquet as pq

        return self.rows, len(pq.read_schema(self.score_files[0]).names)

    def __len__(self) -> int:
        return self.rows

    @property
    def has_texts(self) -> bool:
        return bool(self.text_files)

    def texts(self, coords, items_) -> list[dict]:
        if not self.text_files or not len(items_):
            return []
        clause, params = self._where(coords)
        sql = (f"SELECT * EXCLUDE ({', '.join(items._quoted(d) for d in self.dims)}) "
               f"FROM read_parquet(?, union_by_name = true) WHERE {clause} "
               f"AND list_contains(?, item) ORDER BY ALL")
        with self._connect() as con:
            table = con.sql(sql, params=[self.text_files, *params, [str(i) for i in items_]]
                            ).to_arrow_table()
        return table.to_pylist()

    def items_with_text(self, coords, needle: str) -> set[str]:
        import pyarrow.parquet as pq

        if not self.text_files or not needle:
            return set()
        names = set()
        for path in self.text_files:
            names.update(pq.read_schema(path).names)
        kept = [c for c in items.TEXT_COLUMNS if c in names]
        if not kept:
            return set()
        clause, params = self._where(coords)
        held = " OR ".join(f"contains(lower({items._quoted(c)}), lower(?))" for c in kept)
        sql = (f"SELECT DISTINCT item FROM read_parquet(?, union_by_name = true) "
               f"WHERE {clause} AND ({held})")
        with self._connect() as con:
            rows = con.execute(sql, [self.text_files, *params, *[needle] * len(kept)]).fetchall()
        return {str(row[0]) for row in rows}


_CELLS: dict[str, object] = {}  # a piece's folder -> its cells (a few rows each: kept)
_CELLS_KEPT = 20_000  # pieces whose cells a process keeps


def _piece_cells(piece: Path):
    """A piece's cells (a model's dozen cells, say), read once per process: pieces never
    change, so a folder put together again reads only its new pieces'."""
    import pandas as pd

    key = str(piece)
    found = _CELLS.get(key)
    if found is None:
        if len(_CELLS) >= _CELLS_KEPT:
            _CELLS.clear()
        import pyarrow as pa

        try:
            found = pd.read_parquet(piece / "cells.parquet")
        except (OSError, pa.ArrowException) as exc:
            raise BadPiece(piece, _why(exc)) from None
        _CELLS[key] = found
    return found.copy()


def forget_piece(piece: Path) -> None:
    """Forget what this process kept of a piece (its cells, its description): it is written
    again."""
    for key in (str(piece), str(piece) + "/piece.json"):
        _CELLS.pop(key, None)


def _piece_description(piece: Path) -> dict:
    """A piece's ``piece.json``, checked (:class:`BadPiece` when it is not what
    :func:`write_piece` writes) and kept: pieces never change."""
    key = str(piece) + "/piece.json"
    found = _CELLS.get(key)
    if found is None:
        try:
            found = json.loads((piece / "piece.json").read_text(encoding="utf-8"))
            _check_description(found)
        except (OSError, ValueError, RecursionError) as exc:
            if isinstance(exc, BadPiece):
                raise
            raise BadPiece(piece, _why(exc)) from None
        except _Malformed as exc:
            raise BadPiece(piece, str(exc)) from None
        _CELLS[key] = found
    return found


class _Malformed(Exception):
    pass


_ITEMS_FIELDS = {"file": str, "columns": list, "dims": list, "metric": str, "notes": list,
                 "warnings": list, "fraction": bool, "rows": int, "text_chars": int,
                 "labels": dict, "renamed": list}


def _check_description(found) -> None:
    """Raise :class:`_Malformed` unless ``found`` is a piece's description as written."""
    if not isinstance(found, dict) or not isinstance(found.get("file"), str):
        raise _Malformed("piece.json is not an object naming its file")
    kind = found.get("kind")
    if kind == "found":
        if found.get("found") != FOUND_JSON:
            raise _Malformed(f"piece.json names no {FOUND_JSON}")
        return
    if kind != "items":
        raise _Malformed(f"piece.json names the unknown kind {str(kind)[:40]!r}")
    for name, kind_of in _ITEMS_FIELDS.items():
        value = found.get(name)
        if type(value) is not kind_of or (kind_of is int and value < 0):
            raise _Malformed(f"piece.json's {name!r} is not a {kind_of.__name__}")
    texts = [*found["columns"], *found["dims"], *found["notes"], *found["warnings"]]
    labels = found["labels"].values()
    if not (all(isinstance(t, str) for t in texts) and all(
            isinstance(v, list) and all(isinstance(x, str) for x in v) for v in labels)
            and all(isinstance(r, list) and all(isinstance(x, str) for x in r)
                    for r in found["renamed"])):
        raise _Malformed("piece.json's names, labels or notes are not texts")


def piece_figures(folder: Path, pieces: list[Path], combined_root: Path,
                  options: ImportOptions = ImportOptions(), cache_dir=None) -> list[Figure]:
    """A watched folder of results' figures, from its files' pieces (:func:`write_piece`), in
    :func:`harness_files`' order: what :func:`harness_figures` makes of the same files read
    together. Per-item tables' cells are their pieces' (the records' scores written once
    under ``combined_root``, keyed by the pieces); other files' readings are put together as
    a folder's are. A piece that is not what :func:`write_piece` writes is a
    :class:`BadPiece`."""
    described = [(piece, _piece_description(piece)) for piece in pieces]
    tables = [(p, d) for p, d in described if d["kind"] == "items"]
    others = [(p, d) for p, d in described if d["kind"] != "items"]
    founds = [_read_found(p, d) for p, d in others]
    if tables and not any(f.readings for f in founds) and not any(f.tables for f in founds):
        return [_items_figure(folder, tables, combined_root, options)]
    if tables:  # per-item tables among harness results: not results, as a folder's import says
        founds.append(Found(skipped=[d["file"].rsplit("/", 1)[-1] for _, d in tables]))
    return harness_figures(folder, founds, cache_dir, options)


def _items_figure(folder: Path, tables: list[tuple[Path, dict]], combined_root: Path,
                  options: ImportOptions) -> Figure:
    import hashlib

    import pandas as pd

    from evalmaps.catalog import stream
    from evalmaps.catalog.imports import items_import
    from evalmaps.readers.base import short

    first = tables[0][1]
    dims = first["dims"]
    for _, d in tables[1:]:
        if d["columns"] != first["columns"]:
            raise ImportFailed(f"the per-item tables {short(first['file'])} and "
                               f"{short(d['file'])} have different columns, so they are not one "
                               f"figure. Import them one at a time.", file=str(folder))
        if d["dims"] != dims:
            raise ImportFailed(f"the dimensions of {short(d['file'])} ({', '.join(d['dims'])}) "
                               f"are not those of {short(first['file'])} ({', '.join(dims)}). "
                               f"Import them one at a time.", file=d["file"])
    _check_renames(tables, options)
    key = hashlib.sha256(json.dumps([dims, [p.name for p, _ in tables]]).encode()).hexdigest()
    combined = Path(combined_root) / key
    rows = sum(d["rows"] for _, d in tables)
    records = FolderRecords(combined, dims, [p / items.TEXTS for p, _ in tables
                                             if (p / items.TEXTS).is_file()], rows,
                            [p / items.SCORES for p, _ in tables])
    cells = pd.concat([_piece_cells(p) for p, _ in tables], ignore_index=True)
    files = [d["file"] for _, d in tables]
    if cells.duplicated(dims).any():  # files that share a cell: checked and counted together
        records.ready()
        found = _twice(records, files, [d["rows"] for _, d in tables])
        if found is not None:
            raise ImportFailed(found, file=str(folder))
        cells = stream.cells_from_parquet(_Spool(combined, dims))
    several = [f"The per-item records of {len(files)} files: "
               f"{', '.join(short(f) for f in files[:5])}"
               f"{' ...' if len(files) > 5 else ''}."] if len(files) > 1 else []
    name = files[0] if len(files) == 1 else folder.as_posix()
    warnings = list(dict.fromkeys(w for _, d in tables for w in d["warnings"]))
    imported = items_import(records, dims, first["metric"], name, several + first["notes"],
                            warnings, summary=(cells, all(d["fraction"] for _, d in tables)))
    figure = figure_of(imported)
    figure.items = records
    base = "import-" + (short_slug(folder.resolve().name) or "results")
    return renamed(figure, base) if figure.id != base else figure


def _check_renames(tables: list[tuple[Path, dict]], options: ImportOptions) -> None:
    """``--rename`` checked as the import of the folder's files together checks it: each names
    a label of some file, and no two labels get one name (the streamed import's own check)."""
    from evalmaps.catalog import stream

    if not options.rename:
        return
    labels: dict[str, set[str]] = {}
    for _, d in tables:
        for dim, found in d["labels"].items():
            labels.setdefault(dim, set()).update(found)
    renamed = {tuple(r) for _, d in tables for r in d["renamed"]}
    stream.check_renames(labels, renamed, tables[0][1]["file"], options.rename)


class _Spool:
    """Records in a folder, as :func:`evalmaps.catalog.stream.cells_from_parquet` reads them."""

    def __init__(self, folder: Path, dims) -> None:
        self.folder, self.dims = Path(folder), tuple(dims)

    def records(self) -> items.ItemRecords:
        return items.ItemRecords(self.folder, self.dims)


def _twice(records: FolderRecords, files: list[str], rows: list[int]) -> str | None:
    """The refusal of an item given twice in one cell by two files, or None."""
    import bisect
    from itertools import accumulate

    from evalmaps.readers import items as item_records
    from evalmaps.readers.base import short

    dims = ", ".join(items._quoted(d) for d in records.dims)
    sql = (f"SELECT min(file_row_number), max(file_row_number), any_value(item) "
           f"FROM read_parquet(?, file_row_number = true) GROUP BY {dims}, item, sample "
           f"HAVING count(*) > 1 LIMIT 1")
    with records._connect() as con:
        found = con.execute(sql, [str(records.scores_path)]).fetchall()
    if not found:
        return None
    starts = [0, *accumulate(rows)][:-1]
    first, second, item = found[0]
    a = files[bisect.bisect_right(starts, int(first)) - 1]
    b = files[bisect.bisect_right(starts, int(second)) - 1]
    return (f"item {item!r} is in both {short(a)} and {short(b)}, in the same cell. Name each "
            f"file's model after the file with --set model={item_records.FILE} (on the Data "
            f"page: model from the file name), or import the files one at a time.")


def _combine_scores(paths: list[Path], out: Path) -> None:
    """The pieces' scores, in their order, as one Parquet file written whole at ``out``."""
    import os
    import tempfile

    import pyarrow.parquet as pq

    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".tmp-", suffix=".parquet")
    os.close(fd)
    try:
        writer = None
        for path in paths:
            table = pq.read_table(path)
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema, compression="zstd")
            else:
                table = table.select(writer.schema.names).cast(writer.schema)
            writer.write_table(table, row_group_size=items.ROW_GROUP)
            del table
        if writer is not None:
            writer.close()
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

