"""A watched folder's files, each read once, alone, by the one process that holds the folder's lock
(:mod:`evalmaps.service.live`), as pieces of the content-addressed store
(:class:`evalmaps.service.store.PieceStore`): :func:`write_piece` writes what one file gives (a
per-item table's cells and records as Parquet; any other file's readings as data only: JSON,
Parquet and raw bytes, nothing that runs code when read), :func:`piece_figures` puts the pieces
together into the folder's figures in every process, and :class:`FolderRecords` reads the
per-item records of many pieces as one figure's. A piece that is not what :func:`write_piece`
writes is :class:`BadPiece`: one clear sentence, the file read again."""

from __future__ import annotations

import json
from pathlib import Path

from evalmaps.catalog import items
from evalmaps.catalog.folders import harness_figures, read_harness_bytes, renamed
from evalmaps.catalog.imports import Found, figure_of
from evalmaps.core.errors import DataError
from evalmaps.core.figure import Figure, short_slug
from evalmaps.readers.base import ImportFailed, ImportOptions


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
    :func:`evalmaps.catalog.folders.harness_files`' order: what :func:`harness_figures` makes
    of the same files read together. Per-item tables' cells are their pieces' (the records'
    scores written once under ``combined_root``, keyed by the pieces); other files' readings
    are put together as a folder's are. A piece that is not what :func:`write_piece` writes is a
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
