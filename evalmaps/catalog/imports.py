"""Imports: files, folders and zips -> figures (:class:`~evalmaps.catalog.imported.Imported`),
through the readers, and an import's validated figure.

Above the readers (:mod:`evalmaps.readers`), once for every format: what each file is, the files
inside zips, folders searched recursively, many results files combined into one figure (the
same cell given twice with different values is refused, naming both files), and a single table
shaped by :mod:`evalmaps.catalog.shaping`. :func:`figure_of` validates an import as a data
folder's file is validated. Pure: no Dash, nothing run from a file.

The entry points are the callers' (docs/architecture.md, "Import, one pipeline"), each taking
one :class:`~evalmaps.readers.base.ImportOptions` as ``options`` and returning a list:
:func:`import_paths` (``evalmaps import``, ``evalmaps.read``), :func:`import_file` (the Data
page's uploads, from the staged file on disk), :func:`import_bytes` (a data folder's table),
and :func:`read_source` with :func:`finish_sources` (a watched folder, file by file).
:func:`items_import` shapes per-item records already read.
"""

from __future__ import annotations

import io
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from pathlib import Path, PurePosixPath

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from evalmaps import readers
from evalmaps.catalog import columnar, item_shaping, stream
from evalmaps.catalog.imported import Imported
from evalmaps.catalog.load import frame_columns, parse_spec, validate_cells, validate_columns
from evalmaps.catalog.shaping import import_table
from evalmaps.core.errors import DataError, EvalmapsError
from evalmaps.core.figure import Figure, short_slug
from evalmaps.readers import items as item_records
from evalmaps.readers import nearest, zipped
from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    SUFFIXES,
    ImportFailed,
    ImportOptions,
    Note,
    NotResults,
    Probe,
    Reading,
    hook,
    short,
)

# names of metrics where lower is better, for files that do not say (lm-eval v0.3): the
# perplexities and bits per byte of lm-eval's language-modelling tasks (lambada's "ppl" too)
LOWER_IS_BETTER = ("perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte", "ppl")


# what a record may give besides its value (texts, "" when not given): a standard error, or a
# standard deviation over n (sd alone: no standard error can be made from it)
ERRORS = ("se", "sd", "n")


# metrics that are fractions (0..1) in both tools: given the range [0, 1] when every value fits
FRACTIONS = ("acc", "acc_norm", "acc_mutual_info", "exact_match", "accuracy", "mc1", "mc2",
             "pct_stereotype", "f1", "em")


def figure_of(imported: Imported) -> Figure:
    """An import's figure: its catalog entry parsed and its cells validated, as a data folder's
    files are."""
    with columnar.lean_memory():
        spec = parse_spec(imported.spec,
                          where=f"import of {imported.spec.get('title', 'a file')}")
        file = imported.spec.get("title", "import")
        if imported.encodings is None:
            cells, decimals = validate_cells(imported.tidy, spec, file=file)
            return Figure(spec, cells, decimals)
        columns, arrays = frame_columns(imported.tidy)
        # the encodings come from an import that found no repeated cell in these rows
        positions: dict = {}
        cells, decimals = validate_columns(columns, arrays, spec, file,
                                           encodings=imported.encodings, unique=True,
                                           positions_out=positions,
                                           value_numbers=imported.value_numbers)
        return Figure(spec, cells, decimals, _positions=positions)


def import_bytes(data: bytes, name: str, options: ImportOptions | None = None,
                 max_bytes: int | None = DEFAULT_MAX_BYTES,
                 by_tool: bool = False) -> list[Imported]:
    """Bytes of a file -> its figures (or a clear ImportFailed): the Data page's uploads.

    What the file is comes from its content, not its name (:func:`evalmaps.readers.detect`): a
    zip of results, an evaluation tool's results, a table.
    ``max_bytes``: the browser upload's size limit, on the bytes sent; None for files on disk
    (no limit). What a zip may unzip to is a limit of its own
    (:func:`evalmaps.readers.zipped.unzipped_limit`), and so is each file in it.
    ``by_tool``: as :func:`import_paths`'s."""
    with columnar.lean_memory():  # an entry point (the policy: columnar.lean_memory)
        if max_bytes is not None and len(data) > max_bytes:
            return [_import_table_bytes(Probe(data), name, options, max_bytes, "csv")]  # its message
        return _import_sources([(name, data)], name, options, zipped.unzipped_limit(max_bytes),
                               by_tool=by_tool)


def import_file(path, name: str, options: ImportOptions | None = None,
                max_bytes: int | None = DEFAULT_MAX_BYTES, by_tool: bool = False,
                start: int = 0) -> list[Imported]:
    """:func:`import_bytes` of a file on disk (from byte ``start``: a staged upload's bytes
    follow its name), with what it gives: the Data page's uploads. A zip of per-item tables (a
    folder of one file per model) is read a member at a time, each member's records written
    as they come (:mod:`evalmaps.catalog.stream`), so that memory is bounded by its largest
    member, not by how many it holds; anything else is read whole, as :func:`import_bytes`
    reads it. The figures and the errors are import_bytes's."""
    with columnar.lean_memory(), open(path, "rb") as raw:
        opened = _Window(raw, start)
        size = opened.seek(0, 2)
        opened.seek(0)
        if max_bytes is None or size <= max_bytes:
            streamed = _streamed_zip(opened, name, options, max_bytes, by_tool)
            if streamed is not None:
                return streamed
        opened.seek(0)
        data = opened.read()
    return import_bytes(data, name, options, max_bytes, by_tool)


class _Window(io.RawIOBase):
    """A file from byte ``start`` on, as a file of its own (seekable): what a zip reader takes."""

    def __init__(self, raw, start: int) -> None:
        self.raw, self.start = raw, start
        raw.seek(start)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return self.raw.readinto(buffer)

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 0:
            offset += self.start
        return self.raw.seek(offset, whence) - self.start

    def tell(self) -> int:
        return self.raw.tell() - self.start


class _FileProbe(Probe):
    """A :class:`Probe` of a file on disk that reads the file whole only when a reader's
    ``sniff`` asks for all its bytes (``data``): a zip's names come from the file."""

    def __init__(self, opened) -> None:  # noqa: D107 - no Probe.__init__: no bytes read yet
        self.opened = opened
        opened.seek(0)
        first = opened.read(1 << 16)
        self.head = first.lstrip(b"\xef\xbb\xbf \t\r\n")[:64]
        self._first = first[:4]

    @cached_property
    def data(self) -> bytes:  # type: ignore[override]
        self.opened.seek(0)
        return self.opened.read()

    @property
    def is_zip(self) -> bool:
        return self._first in (b"PK\x03\x04", b"PK\x05\x06")

    @cached_property
    def zip_names(self) -> list[str] | None:
        if not self.is_zip:
            return None
        try:
            self.opened.seek(0)
            return zipfile.ZipFile(self.opened).namelist()
        except (zipfile.BadZipFile, OSError, ValueError):
            return None


def _streamed_zip(opened, name: str, options: ImportOptions | None, max_bytes: int | None,
                  by_tool: bool) -> list[Imported] | None:
    """A zip's per-item tables read one member at a time (:func:`import_file`); None where the
    file is not a zip of two or more per-item tables, or where reading them so meets something
    the whole import reads otherwise (harness results among them) or refuses (it is read
    whole then, and says so as it would)."""
    probe = _FileProbe(opened)
    if not probe.is_zip or readers.detect(probe) != "zip" or "data" in probe.__dict__:
        return None  # not a zip (or a reader read it whole to tell): read whole
    options = options or ImportOptions()
    limit = zipped.unzipped_limit(max_bytes)
    opened.seek(0)
    tables = _member_tables(zipped.each_member(opened, name, limit), options, limit)
    try:
        first = [t for t in (next(tables, None), next(tables, None)) if t is not None]
        if len(first) < 2:
            return None  # one table, or none: as import_bytes reads it
        return stream.item_tables(chain(first, tables), name, options, limit, by_tool, HOOKS)
    except (stream.NotStreamed, EvalmapsError):
        return None  # the whole import gives these files' figures, or its own refusal
    finally:
        tables.close()


def _member_tables(members, options: ImportOptions, max_bytes: int | None):
    """Each table of a zip's members (:func:`read_source` of each, as found by a search), a
    member read when the tables before it are done; harness results raise
    :class:`evalmaps.catalog.stream.NotStreamed`."""
    for file, data in members:
        found = read_source(file, data, True, options, max_bytes)
        del data
        if found.readings:
            raise stream.NotStreamed(file)
        while found.tables:
            yield found.tables.pop(0)


def import_paths(paths, options: ImportOptions | None = None,
                 by_tool: bool = False) -> list[Imported]:
    """Files, folders (searched recursively) and zips -> their figures: ``evalmaps import``
    and ``evalmaps.read``. Harness files (lm-eval results, Inspect logs) combine into one
    figure; a single table imports as :func:`import_bytes` would. No size limit: the files are
    the user's own.

    Always a list. Without ``by_tool``, a list of one figure: files of several tools, or
    several tables, are refused. With it, files of several tools (a folder holding the EvalPlus
    leaderboard and EvalPerf results) make one figure per tool, and a folder of tables one
    figure per table: what ``evalmaps import`` writes. Per-item tables are read one file at a
    time (:mod:`evalmaps.catalog.stream`)."""
    with columnar.lean_memory():  # an entry point (the policy: columnar.lean_memory)
        streamed = _streamed(paths, options, by_tool=by_tool)
        if streamed is not None:
            return streamed
        sources, name, searched = _sources(paths)
        return _import_sources(sources, name, options, max_bytes=None, searched=searched,
                               by_tool=by_tool)


def _streamed(paths, options: ImportOptions | None, by_tool: bool):
    """Per-item tables (``--item`` or ``--correct`` given) of two files or more, read one file
    at a time (:func:`evalmaps.catalog.stream.item_tables`); None for anything else."""
    if options is None or not (options.item or options.correct):
        return None
    listed, name = _sources_listed(paths)
    if len(listed) < 2:
        return None
    tables = _tables_of(listed, options)
    try:
        first = [t for t in (next(tables, None), next(tables, None)) if t is not None]
        if len(first) < 2:
            return None  # one table: imported as a table is
        return stream.item_tables(chain(first, tables), name, options, None, by_tool, HOOKS)
    except stream.NotStreamed:
        return None  # harness results among them: read as they are


def _tables_of(listed: list[tuple[Path, bool]], options: ImportOptions):
    """Each table of the files, a file read (a zip unzipped) only when the tables before it
    are done; a file of harness results raises :class:`evalmaps.catalog.stream.NotStreamed` (a
    file a search found that is not results is passed over, as :func:`finish_sources` passes
    over it)."""
    for path, searched in listed:
        found = read_source(path.as_posix(), _read(path), searched, options, None)
        if found.readings:
            raise stream.NotStreamed(path.as_posix())
        while found.tables:
            yield found.tables.pop(0)


def _sources_listed(paths) -> tuple[list[tuple[Path, bool]], str]:
    """The files ``paths`` name (folders searched recursively), each with whether a search found
    it, and a name for all of them; none is read."""
    paths = [Path(p) for p in paths]
    if not paths:
        raise ImportFailed("no file was given. Give one or more files, folders or zips.")
    listed: list[tuple[Path, bool]] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file()
                           and p.suffix.lower() in SUFFIXES and not p.name.startswith("."))
            if not found:
                raise ImportFailed("the folder holds no results files (.json, .eval, .csv, "
                                   ".parquet, .jsonl, .zip).", file=str(path))
            listed += [(p, True) for p in found]
        else:
            listed.append((path, False))
    name = paths[0].as_posix() if len(paths) == 1 else f"{len(paths)} paths"
    return listed, name


def _sources(paths) -> tuple[list[tuple[str, bytes]], str, bool]:
    """The files' names and bytes (folders searched recursively), a name for all of them, and
    whether any came from a search."""
    listed, name = _sources_listed(paths)
    sources = [(path.as_posix(), _read(path)) for path, _ in listed]
    return sources, name, any(searched for _, searched in listed)


def _import_sources(sources: list[tuple[str, bytes]], name: str,
                    options: ImportOptions | None = None,
                    max_bytes: int | None = DEFAULT_MAX_BYTES, searched: bool = False,
                    by_tool: bool = False) -> list[Imported]:
    """Named files' bytes -> their figures (one unless ``by_tool``). Harness files combine; a
    table file imports alone.

    ``searched``: the files come from a folder or zip search, where files that are neither
    harness results nor a table (a README, lm-eval's per-sample logs next to its results) are
    skipped with a warning instead of refused. ``by_tool``: a list of figures, one per tool
    whose results the files hold (files of several tools are otherwise refused)."""
    options = options or ImportOptions()
    readings: list[Reading] = []
    tables: list[tuple[str, bytes, str]] = []
    given: list[str] = []  # tables named on their own (not found by a search)
    skipped: list[str] = []
    for file, data in sources:
        found = read_source(file, data, searched, options, max_bytes)
        readings += found.readings
        tables += found.tables
        given += found.given
        skipped += found.skipped
    return finish_sources(Found(readings, tables, given, skipped), name, options, max_bytes,
                          by_tool)


@dataclass
class Found:
    """What one file (or several) holds: harness readings, tables (read once they are known to
    be the one table), the tables named on their own, and the files skipped as not results."""
    readings: list[Reading] = field(default_factory=list)
    tables: list[tuple[str, bytes, str]] = field(default_factory=list)
    given: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def read_source(file: str, data: bytes, from_search: bool, options: ImportOptions | None = None,
                max_bytes: int | None = None) -> Found:
    """One named file's bytes (a zip: its members) read as :func:`_import_sources` reads each of
    its sources; the results of many files, concatenated in their order, are those of
    :func:`_import_sources` on all of them (a watched folder reads only the files that changed)."""
    options = options or ImportOptions()
    found = Found()
    expanded: list[tuple[str, bytes, bool]] = [(file, data, from_search)]
    while expanded:
        file, data, from_search = expanded.pop(0)
        probe = Probe(data)
        kind = readers.detect(probe)
        if kind == readers.OTHER_JSON:
            if from_search:  # a JSON document that is not results: a config, a sample log
                found.skipped.append(short(file))
                continue
            raise ImportFailed(not_known(probe), file=file)
        module = readers.reader(kind)
        if hook(module, "TABLE"):  # read when it is known to be the one table
            found.tables.append((file, probe, kind))
            if not from_search:
                found.given.append(file)
            continue
        reading = module.read(probe, file, options, max_bytes)
        if reading.members is not None:
            expanded[:0] = [(n, d, True) for n, d in reading.members]
        else:
            found.readings.append(reading)
    return found


def finish_sources(found: Found, name: str, options: ImportOptions | None = None,
                   max_bytes: int | None = DEFAULT_MAX_BYTES,
                   by_tool: bool = False) -> list[Imported]:
    """The figures of every file read (:func:`read_source`), as :func:`import_paths` makes
    them: a watched folder's, whose files are read as they change."""
    options = options or ImportOptions()
    readings, tables, given, skipped = found.readings, found.tables, found.given, list(found.skipped)
    if readings:
        if given:
            raise ImportFailed(f"{short(given[0])} is a table, the other files are harness "
                               f"results. Import the table on its own.", file=name)
        skipped += [short(f) for f, _, _ in tables]
        # each name once, with how many files have it (a HELM run folder each has a run_spec.json)
        listed = [f"{n} ({k} files)" if k > 1 else n for n, k in Counter(skipped).items()]
        notes = ([f"Not results, skipped: {', '.join(listed[:10])}"
                  f"{' ...' if len(listed) > 10 else ''}."] if skipped else [])
        if not by_tool:
            return [_combine(readings, name, options, notes)]
        tools = [k for k in readers.names() if any(r.reader == k for r in readings)]
        return [_combine([r for r in readings if r.reader == k], name, options, notes)
                for k in tools]
    if not tables:
        raise ImportFailed(f"no results were found: none of {readers.described()}. Give the "
                           f"files themselves or the folder that holds them.", file=name)
    if len(tables) > 1:  # per-item tables: one at a time
        combined = stream.item_tables(tables, name, options, max_bytes, by_tool, HOOKS)
        if combined is not None:
            return combined
    if len(tables) > 1 and by_tool:  # a folder of tables: one figure each
        return _each_table(tables, given, options, max_bytes)
    if len(tables) > 1:
        names = ", ".join(short(f) for f, _, _ in tables[:5])
        raise ImportFailed(f"there are {len(tables)} tables ({names}); one import makes one "
                           f"figure from one table. Import them one at a time.", file=name)
    return [_table(*tables[0], options, max_bytes)]


def _each_table(tables: list[tuple[str, Probe, str]], given: list[str],
                options: ImportOptions, max_bytes: int | None) -> list[Imported]:
    """A folder's tables, one figure each; a file the search found that is no table of results
    (:class:`NotResults`: a JSON list of nested records) is skipped, and each figure's notes
    and warnings say so, unless no table is left."""
    figures, skipped, first = [], [], None
    for file, probe, kind in tables:
        try:
            figures.append(_table(file, probe, kind, options, max_bytes))
        except NotResults as exc:
            if file in given:
                raise
            first = first or exc
            skipped.append(short(file))
    if not figures:
        raise first
    if skipped:
        note = (f"Not results, skipped: {', '.join(skipped[:10])}"
                f"{' ...' if len(skipped) > 10 else ''}.")
        for imported in figures:
            imported.warnings.append(note)
            imported.spec["notes"].append(note)
    return figures


def text_chars(frame) -> int:
    """The characters of a table's text columns (what its records keep as texts and labels): a
    pandas DataFrame or an Arrow table."""
    total = 0
    if isinstance(frame, pa.Table):
        for column in frame.columns:
            if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
                total += int(pc.sum(pc.utf8_length(column)).as_py() or 0)
            elif pa.types.is_dictionary(column.type):
                total += int(pc.sum(pc.utf8_length(column.cast(pa.string()))).as_py() or 0)
        return total
    for column in frame.columns:
        values = frame[column]
        if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
            continue
        lengths = values.astype("string").str.len()
        total += int(lengths.sum(skipna=True))
    return total


def _table(file: str, probe: Probe, kind: str, options: ImportOptions | None,
           max_bytes: int | None) -> Imported:
    try:
        imported = _import_table_bytes(probe, file, options, max_bytes, kind)
    except DataError:
        if nearest.hint(probe) is None:  # a table's own problem
            raise
        raise ImportFailed(not_known(probe), file=file) from None  # not a table: say what it is
    if max_bytes is not None and imported.items is not None:
        _within(text_chars(imported.items), max_bytes, file)
    return imported


def _within(chars: int, max_bytes: int, name: str) -> None:
    """Refuse an upload whose records' texts come to more than it may expand to."""
    if chars > max_bytes:
        raise ImportFailed(f"the records' texts come to {chars / 2**20:,.1f} MB, over the "
                           f"{max_bytes / 2**20:g} MB an upload may expand to. Upload fewer "
                           "records, or serve them with evalmaps serve --data.", file=name)


def _import_table_bytes(probe: Probe, name: str, options: ImportOptions | None,
                       max_bytes: int | None, kind: str) -> Imported:
    """A table's bytes (CSV, Parquet, JSON Lines: the reader ``kind``) -> an :class:`Imported`."""
    if max_bytes is not None and len(probe.data) > max_bytes:
        kind = "csv"  # its size message
    if kind == "parquet":
        fast = _parquet_items(probe, name, options)
        if fast is not None:
            return fast
    reading = readers.reader(kind).read(probe, name, options, max_bytes)
    options = options or ImportOptions(format=reading.shape or "auto")
    frame, reading.table = reading.table, None
    if item_records.is_item_table(frame.columns, options):
        notes: list[str] = []
        records, dims, metric = item_shaping.import_items(frame, name, options, notes,
                                                          warnings=reading.warnings)
        del frame
        return items_import(records, dims, metric, name, notes, reading.warnings)
    records = item_records.not_cells(frame.columns, frame)
    if records is not None:
        raise ImportFailed(records, file=name)
    return import_table(frame, name, options, reading.warnings)


def _parquet_items(probe: Probe, name: str, options: ImportOptions | None) -> Imported | None:
    """A Parquet per-item table of native types, read and summed in Arrow
    (:func:`evalmaps.catalog.item_shaping.import_items_arrow`); None for any other file.

    Read with pyarrow's own memory pool, as pyarrow reads a file (:func:`columnar.own_pool`
    within the import's :func:`columnar.lean_memory`, where a million records read twice as
    slowly); what the read freed is handed back to the system at the end, so a worker keeps
    only the records."""
    with columnar.own_pool():
        pool = pa.default_memory_pool()
        try:
            return _parquet_items_read(probe, name, options or ImportOptions(format="tidy"))
        finally:
            pool.release_unused()


def _parquet_items_read(probe: Probe, name: str, options: ImportOptions) -> Imported | None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(io.BytesIO(probe.data))
        if not item_records.is_item_table(schema.names, options):
            return None
        texts = [f.name for f in schema if pa.types.is_string(f.type)
                 or pa.types.is_large_string(f.type)]
        # labels as Parquet keeps them, dictionary-encoded: codes without hashing a text
        table = pq.read_table(io.BytesIO(probe.data), read_dictionary=texts).unify_dictionaries()
    except (pa.ArrowException, OSError, ValueError):
        return None  # the Parquet reader says what is wrong
    notes: list[str] = []
    fast = item_shaping.import_items_arrow(table, name, options, notes)
    if fast is None:
        return None
    records, dims, metric, grouped = fast
    return items_import(records, dims, metric, name, notes, [], grouped)


ITEM_DECIMALS = 4  # a mean over items, a fraction: two decimals as a percent (18.34%)


def items_import(records, dims: list[str], metric: str, name: str,
                 notes: list[str], warnings: list[str], grouped=None,
                 summary: tuple[pd.DataFrame, bool] | None = None) -> Imported:
    """Per-item records (dims, item, sample, score, texts) -> an import whose cells are their
    means (:func:`evalmaps.catalog.item_shaping.summarise`), each with its item count ``n``, and which
    keeps the records (``Imported.items``). Scores within 0..1 make a fraction (shown as a
    percent). ``summary``: the cells, and whether every score is within 0..1, worked out already
    (records kept as Parquet: :mod:`evalmaps.catalog.stream`)."""
    if summary is not None:
        cells, fraction = summary
    elif grouped is not None:  # records in Arrow, grouped by item already, scores' range known
        cells = item_shaping.summarise_grouped(grouped, dims)
        low, high = grouped[3]
        fraction = 0 <= low and high <= 1
    else:
        cells = item_shaping.summarise(records, dims)
        fraction = bool(records[item_records.SCORE].between(0, 1).all())
    frame = pd.DataFrame({**{d: cells[d].astype(str) for d in dims},
                          "value": [repr(float(v)) for v in cells["value"]],
                          "n": cells["n_items"].astype(str)}, dtype="str")
    tidy = ImportOptions(format="tidy", x=dims[-1], y=dims[-2], replicate="", metric=metric,
                            unit="", metric_range=(0.0, 1.0) if fraction else None,
                            order="natural")
    imported = import_table(frame, name, tidy, list(warnings))
    spec = imported.spec
    spec["decimals"] = ITEM_DECIMALS
    titles = {"model": "Model", "metric": "Metric", "task": "Task"}
    for d in dims:
        spec["dims"][d]["title"] = titles.get(d, spec["dims"][d]["title"])
    several = len(cells) and int(cells["n_samples"].max()) > 1
    over = "of each item's mean over its samples " if several else ""
    spec["notes"] = [f"Imported from {name.rsplit('/', 1)[-1]}: {records.shape[0]:,} per-item "
                     f"records; each cell is the mean over its items {over}(n: its items)."] \
        + notes + list(warnings)
    imported.format = "items"
    imported.items = records
    return imported


# what the streamed import of per-item tables (below this module) uses of it
HOOKS = stream.Hooks(items_import=items_import, text_chars=text_chars,
                     within=lambda chars, max_bytes, name: _within(chars, max_bytes, name))


def map_axes(dims: list[str], records: list[tuple[str, dict]],
             options: ImportOptions) -> list[str]:
    """The reader's dimensions (facets, then y, then x), with y and x moved where the reader's
    would give a map of one row or one column per panel (one file of a sweep: a single step; one
    log per run): then x is the dimension with the most labels and y the next (ties go to the
    reader's own axes, then to its order), and the others are facets. Metrics of different
    scales stay a facet; axes the user chose are kept."""
    if options.x or options.y:
        return dims
    counts = {d: len({rec.get(d) for _, rec in records}) for d in dims}
    if len(dims) < 3 or min(counts[dims[-1]], counts[dims[-2]]) > 1:
        return dims
    axes = [i for i, d in enumerate(dims) if not (d == "metric" and counts[d] > 1)]
    if len(axes) < 2:
        return dims
    # ties: the reader's y, then its x, then its order
    ranked = sorted(axes, key=lambda i: (counts[dims[i]], i == len(dims) - 2,
                                         i == len(dims) - 1, i))
    y, x = ranked[-2:]
    if {x, y} == {len(dims) - 1, len(dims) - 2}:
        return dims  # the reader's axes are the best there are
    return [d for i, d in enumerate(dims) if i not in (x, y)] + [dims[y], dims[x]]


def _combine(readings: list[Reading], name: str, options: ImportOptions | None = None,
             extra_warnings: list[str] | None = None) -> Imported:
    """Many harness files' values -> ONE figure (a clear error when they cannot be one)."""
    options = options or ImportOptions()
    kinds = [k for k in readers.names() if any(r.reader == k for r in readings)]
    if len(kinds) > 1:
        tools = " and ".join(readers.reader(k).TOOL_FILES for k in kinds)
        raise ImportFailed(f"these files mix {tools}. Import each kind separately.", file=name)
    kind = kinds[0]
    if getattr(options, "cluster", None):
        raise ImportFailed(f"--cluster {options.cluster} groups the items of a per-item table by "
                           f"one of its columns, and these are "
                           f"{readers.reader(kind).TOOL_FILES}, which keep no such column. Leave "
                           f"--cluster out, or export the per-item records as a table with it.",
                           file=name)
    warnings = list(extra_warnings or [])
    for reading in readings:
        warnings.extend(reading.warnings)
    module = readers.reader(kind)
    join_items = hook(module, "join_items")
    if join_items is not None:  # per-sample files named by the results beside them
        join_items(readings, warnings)
    records = [(r.file, rec) for r in readings for rec in r.records]
    items = _items_of(readings)
    if items is not None:
        records = _with_item_cells(records, items, warnings)
    if not records:
        raise ImportFailed("these results hold no values (no metric with a number). Import "
                           "files that hold scores.", file=name)
    dims = module.layout(records, name, warnings)
    dims = map_axes(dims, records, options) if items is None else _model_facet(dims, options)
    # one value per cell: the same value twice is merged, two different ones are refused
    seen: dict[tuple, tuple[str, str, tuple]] = {}
    rows = []
    merged = 0
    for file, rec in records:
        key = tuple(rec[d] for d in dims)
        errors = tuple(rec.get(c, "") for c in ERRORS)  # a record may give se, sd and n
        if key in seen:
            first_file, value, given = seen[key]
            if (float(value), given) == (float(rec["value"]), errors):
                merged += 1
                continue
            coords = ", ".join(f"{d} {v}" for d, v in zip(dims, key))
            one, other = _told_apart(first_file, file)
            raise ImportFailed(f"{one} and {other} both give the cell "
                               f"({coords}), with different values ({value} and {rec['value']}). "
                               f"Import one of the two runs, not both.", file=name)
        seen[key] = (file, rec["value"], errors)
        rows.append(rec)
    if merged:
        warnings.append(f"{merged} value(s) given identically by more than one file were merged.")
    frame = pd.DataFrame({**{d: [r[d] for r in rows] for d in dims},
                          "value": [r["value"] for r in rows],
                          **{c: [r.get(c, "") for r in rows] for c in ERRORS}}, dtype="str")
    frame = frame.drop(columns=[c for c in ERRORS if not (frame[c] != "").any()])
    tidy = ImportOptions(format="tidy", x=options.x, y=options.y, replicate="",
                            metric="score", unit="", metric_range=None, order="natural")
    imported = import_table(frame, name, tidy, [])
    order = hook(readers.reader(kind), "order")
    if order is not None:  # the reader's natural order of a dimension's labels
        for d in dims:
            labels = imported.dims[d]
            ordered = order(d, list(labels), rows)
            if sorted(ordered) == sorted(labels):
                labels[:] = ordered
                imported.spec["dims"][d]["labels"] = labels
    _describe(imported, kind, readings, rows, warnings, name)
    if items is not None:
        imported.items = _items_on(items, dims, name)
        imported.spec["notes"].insert(1, f"{len(imported.items):,} per-item records are kept; "
                                         f"a cell without a value in the results is the mean "
                                         f"over its items (n: its items).")
    return imported


def _items_of(readings: list[Reading]) -> pd.DataFrame | None:
    frames = [r.items for r in readings if r.items is not None and len(r.items)]
    return pd.concat(frames, ignore_index=True) if frames else None


def _coords_of(items: pd.DataFrame) -> list[str]:
    rest = (item_records.ITEM, item_records.SAMPLE, item_records.SCORE, *item_records.TEXT_COLUMNS)
    return [c for c in items.columns if c not in rest]


def _with_item_cells(records: list[tuple[str, dict]], items: pd.DataFrame,
                     warnings: list[str]) -> list[tuple[str, dict]]:
    """The records, each cell that has items given its item count ``n``, and a record added for
    each cell that has items and no value in the results: the mean over its items. Where the
    results give a value its items do not (a --limit run's samples), the results' value stays
    and a warning says so."""
    coords = _coords_of(items)
    summary = item_shaping.summarise(items, coords)
    index = {tuple(rec.get(c) for c in coords): rec for _, rec in records}
    added, differ = [], []
    keys = summary[coords].astype(str).itertuples(index=False, name=None)
    for key, value, count in zip(keys, summary["value"].tolist(), summary["n_items"].tolist()):
        value, count = float(value), int(count)
        rec = index.get(key)
        if rec is None:
            added.append(("items", {**dict(zip(coords, key)), "value": repr(value), "se": "",
                                    "n": str(count)}))
            continue
        if abs(float(rec["value"]) - value) > 1e-9 * max(1.0, abs(value)):
            where = ", ".join(f"{c} {label}" for c, label in zip(coords, key))
            differ.append(f"{where}: {rec['value']} in the results, "
                          f"{value:.6g} over {count} items")
        if not rec.get("n"):
            rec["n"] = str(count)
    if differ:
        warnings.append(f"The per-item records do not give the results' value of "
                        f"{len(differ)} cell(s) (a run on part of the items?); the cells keep "
                        f"the results' values: {'; '.join(differ[:3])}"
                        f"{' ...' if len(differ) > 3 else ''}.")
    return records + added


def _model_facet(dims: list[str], options: ImportOptions) -> list[str]:
    """Per-item imports: the model a facet (the first), so that Compare can set two models side
    by side on one grid; axes the user chose are kept."""
    if options.x or options.y or "model" not in dims or len(dims) < 3:
        return dims
    return ["model", *[d for d in dims if d != "model"]]


def _items_on(items: pd.DataFrame, dims: list[str], name: str) -> pd.DataFrame:
    """The per-item records with the figure's dims as their columns (one record of an item's
    sample in a cell, the first when files repeat it)."""
    missing = [d for d in dims if d not in items.columns]
    if missing:
        raise ImportFailed(f"the per-item records do not say their {missing[0]}, which the "
                           f"results do. Import the per-item records with their results "
                           f"files.", file=name)
    kept = [c for c in (item_records.ITEM, item_records.SAMPLE, item_records.SCORE,
                        *item_records.TEXT_COLUMNS) if c in items.columns]
    out = items[[*dims, *kept]].copy()
    for d in dims:
        out[d] = out[d].astype(str)
    return out.drop_duplicates([*dims, item_records.ITEM, item_records.SAMPLE],
                               ignore_index=True)


def _told_apart(a: str, b: str) -> tuple[str, str]:
    """Two files' names as a message gives them: their own names, or, when those are one
    (HELM's stats.json in two run folders), their paths from where the two part."""
    if short(a) != short(b):
        return short(a), short(b)
    pa, pb = PurePosixPath(a).parts, PurePosixPath(b).parts
    same = next((i for i, (x, y) in enumerate(zip(pa, pb)) if x != y), min(len(pa), len(pb)))
    return "/".join(pa[same:]) or a, "/".join(pb[same:]) or b


def _describe(imported: Imported, kind: str, readings: list[Reading], rows: list[dict],
              warnings: list[str], name: str) -> None:
    """The catalog entry of a harness import: its metrics (direction and scale), title, notes."""
    spec = imported.spec
    lower: dict[str, bool] = {}
    said: dict[str, dict] = {}  # what the files say of their metrics
    notes: list[str] = []  # what the files say of themselves, once each
    for reading in readings:
        lower.update(reading.lower)
        said.update(reading.metrics)
        notes += [n for n in reading.notes if n not in notes]
    # a reader may say the range its metric's values take (None: none); kept when every value fits
    span_of = hook(readers.reader(kind), "metric_range")
    # records without a metric dimension are of one metric: the one they name, else "score"
    labels = imported.dims.get("metric") or [rows[0].get("metric", "score")]
    metrics = {}
    for label in labels:
        base = label.split(" (", 1)[0]
        entry: dict = {"name": label}
        values = [float(r["value"]) for r in rows if r.get("metric", "score") == label]
        span = span_of(label) or ((0, 1) if base in FRACTIONS else None)
        if span is not None and all(span[0] <= v <= span[1] for v in values):
            entry["range"] = list(span)
        if lower.get(label, base in LOWER_IS_BETTER):
            entry["higher_is_better"] = False
        entry.update(said.get(label, {}))
        metrics[label] = entry
    facets = spec["facets"]
    if len(labels) == 1:
        spec["metric"] = {"unit": "", **metrics[labels[0]]}
        spec["metric"].setdefault("range", None)
    else:
        spec["metric"] = {"name": "score", "unit": "", "range": None}
        if "metric" in facets:
            spec["metrics"] = {"dim": "metric", "labels": metrics}
    tool, tools = readers.reader(kind).TOOL, readers.reader(kind).TOOL_FILES
    files = len(readings)
    several = f"{files} {tools}"
    if files == 1:
        spec["title"] = short(readings[0].file)
        spec["id"] = "import-" + short_slug(spec["title"].rsplit(".", 1)[0])
    else:
        where = name.rstrip("/").rsplit("/", 1)[-1] if not name.endswith(" paths") else ""
        spec["title"] = f"{where} ({several})" if where else several[0].upper() + several[1:]
        spec["id"] = "import-" + short_slug(spec["title"])
    # the file, or the folder by its own name: never the server's path to it (a provenance card
    # is shown to anyone), and made anew as a watched folder's files change
    where = name.rstrip("/").rsplit("/", 1)[-1] if not name.endswith(" paths") else ""
    spec["source"] = {"file": spec["title"] if files == 1 else f"{where}/" if where else several,
                      "tool": tool}
    dims = {d: spec["dims"][d] for d in spec["dims"]}
    for d, title in (("step", "Step"), ("model", "Model"), ("task", "Task"),
                     ("metric", "Metric"), ("scorer", "Scorer")):
        if d in dims:
            dims[d]["title"] = title
    notes += [str(w) for w in warnings if isinstance(w, Note) and w not in notes]
    warnings = [w for w in warnings if not isinstance(w, Note)]  # what asks something of the user
    se_note = (["Each value keeps the standard error its file gives (se)."]
               if "se" in imported.tidy.columns else [])
    spec["notes"] = [f"Imported from {several if files > 1 else 'one ' + tool + ' file'}; "
                     f"values on the scale the tool writes them (fractions stay fractions)."] \
        + se_note + notes + warnings
    imported.format = kind
    imported.warnings[:] = warnings


def not_known(probe: Probe | None = None) -> str:
    """What to say of a file that no reader reads: the formats read, and what the file is
    nearest to when its bytes tell (a tool's per-sample file: import its results instead)."""
    near = nearest.hint(probe) if probe is not None else None
    if near is not None:
        what, instead = near
        return (f"this looks like {what}, not results: import {instead}; the formats read are "
                f"{readers.described()}.")
    return (f"this file is none of the formats evalmaps reads: {readers.described()}. Export one "
            f"of those and try again.")


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ImportFailed(f"cannot read the file ({exc.strerror}). Check the path.",
                           file=str(path)) from None
