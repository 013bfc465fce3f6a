"""Per-item tables imported one file at a time: memory bounded by the largest file, not the folder.

A lab's folder holds a per-item table per model (MMLU-Pro's ``model_outputs_<model>.json``,
imported with ``--item question_id --correct pred=answer --set model={file}``): hundreds of
files, millions of records. :func:`item_tables` reads them one at a time, each with
:func:`evalmaps.catalog.item_shaping.import_items` (the first table decides the dimensions; the
others, of the same columns, take them), and writes each file's records to Parquet at once
(:class:`evalmaps.catalog.items.SpooledRecords`: the import's ``items``), keeping in memory only
its cells (:func:`evalmaps.catalog.item_shaping.summarise`, the same numbers as an import of them
all together), and giving what the file's tables freed back to the system (``malloc_trim``:
without it, the resident set grew by a third of a MB a file, the freed blocks not reused in
place: 345 MB at 200 models and 620 MB at 1,000, against 278 MB at 200 with it, for 4% more
CPU). Where two files share a cell (files split by category, say), the cells, and the check
that no item is twice in one cell, come from the Parquet instead (DuckDB, within a memory limit).

:func:`evalmaps.catalog.imports.import_paths` hands it the tables of files on disk as it asks
for them, each file read only when its turn comes (a zip: its members one zip at a time).
"""

from __future__ import annotations

import bisect
import math
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from evalmaps import readers
from evalmaps.catalog import columnar, item_shaping
from evalmaps.catalog import items as item_store
from evalmaps.core.errors import DataError
from evalmaps.readers import items as item_records
from evalmaps.readers.base import ImportFailed, ImportOptions, Probe, short

DUCKDB_MEMORY = "256MB"  # what DuckDB may hold for cells that span files (it spills past it)


class NotStreamed(Exception):
    """The files are not per-item tables only (harness results among them): the import that
    holds every file at once reads them."""


class Hooks(NamedTuple):
    """What the import above this module lends it (it imports this module, so this one does
    not import it): ``items_import(records, dims, metric, name, notes, warnings, summary=)``,
    the import of records; ``text_chars(frame)``, a table's characters of text; ``within(chars,
    max_bytes, name)``, the refusal of an upload whose texts come to more than it may."""

    items_import: Callable
    text_chars: Callable
    within: Callable


class Group:
    """The per-item tables of one set of columns, as they are written."""

    def __init__(self, columns: tuple[str, ...], first: str) -> None:
        self.columns = columns
        self.first = first  # the first file's name (a figure's name where groups are several)
        self.folder = Path(tempfile.mkdtemp(prefix="evalmaps-spool-"))
        self.files: list[str] = []
        self.starts: list[int] = []  # each file's first row among the records
        self.rows = 0
        self.dims: list[str] | None = None
        self.metric = ""
        self.notes: list[str] = []
        self.warnings: list[str] = []
        self.cells: list[pd.DataFrame] = []
        self.owners: dict[tuple, int] = {}  # a cell's labels -> the file that gave it
        self.shared = False  # a cell given by two files
        self.fraction = True
        self.text_chars = 0
        self.labels: dict[str, set[str]] = {}  # each dimension's labels, for --rename
        self.renamed: set[tuple[str, str, str]] = set()
        self._scores: pq.ParquetWriter | None = None
        self._texts: pq.ParquetWriter | None = None

    def add(self, file: str, frame: pd.DataFrame, options: ImportOptions,
            warnings: list[str]) -> None:
        """One file's table: its records imported, written, and its cells kept."""
        notes: list[str] = []
        files = pd.Series(pd.Categorical.from_codes(np.zeros(len(frame), dtype=np.int8), [file]))
        records, dims, metric = item_shaping.import_items(
            frame, file, replace(options, rename=()), notes, files, warnings, dims_of=self.dims)
        if self.dims is None:
            self.dims, self.metric, self.notes = list(dims), metric, notes
        elif list(dims) != self.dims:  # never: the same columns take the same dimensions
            raise ImportFailed(f"the dimensions of {short(file)} ({', '.join(dims)}) are not those "
                               f"of {short(self.first)} ({', '.join(self.dims)}). Import them "
                               f"one at a time.", file=file)
        for d in self.dims:  # as the files give them: --rename is checked against these
            self.labels.setdefault(d, set()).update(records[d].unique().tolist())
        self._rename(records, options.rename)
        cells = item_shaping.summarise(records, self.dims)
        index = len(self.files)
        for key in cells[self.dims].itertuples(index=False, name=None):
            if self.owners.setdefault(key, index) != index:
                self.shared = True
        self.cells.append(cells)
        self.fraction = self.fraction and bool(records[item_records.SCORE].between(0, 1).all())
        present = [c for c in item_records.TEXT_COLUMNS if c in records]
        texts = records[[*self.dims, item_records.ITEM, item_records.SAMPLE, *present]] \
            if present else None
        scores, texts = _record_tables(self.dims, records, texts)
        self._write(scores, texts)
        self.files.append(file)
        self.starts.append(self.rows)
        self.rows += len(records)

    def _rename(self, records: pd.DataFrame, rename) -> None:
        for dim, old, new in rename:
            if dim not in records:
                raise ImportFailed(f"--rename names the dimension {dim!r}, which this import does "
                                   f"not have (its dimensions are {', '.join(self.dims)}). Give "
                                   f"--rename DIM:OLD=NEW with one of them.", file=self.first)
            hit = records[dim] == old
            if hit.any():
                self.renamed.add((dim, old, new))
                records.loc[hit, dim] = new

    def _write(self, scores: pa.Table, texts: pa.Table | None) -> None:
        if self._scores is None:
            self._scores = pq.ParquetWriter(self.folder / item_store.SCORES, scores.schema,
                                            compression="zstd")
        self._scores.write_table(scores.cast(self._scores.schema),
                                 row_group_size=item_store.ROW_GROUP)
        if texts is not None:
            if self._texts is None:
                self._texts = pq.ParquetWriter(self.folder / item_store.TEXTS, texts.schema,
                                               compression="zstd")
            self._texts.write_table(texts.cast(self._texts.schema),
                                    row_group_size=item_store.ROW_GROUP)

    def close(self) -> None:
        for writer in (self._scores, self._texts):
            if writer is not None:
                writer.close()
        self._scores = self._texts = None

    def finish(self, name: str, options: ImportOptions, items_import: Callable):
        """The import of the group's records (their cells from the Parquet where files share
        cells), made by ``items_import`` (:class:`Hooks`)."""
        self.close()
        self._check_renames(options.rename)
        records = item_store.SpooledRecords(self.folder, self.dims, self.rows, self.text_chars)
        if self.shared:
            self._check_twice(records, name)
            cells = cells_from_parquet(records)
        else:
            cells = pd.concat(self.cells, ignore_index=True)
        self.cells = []
        several = [f"The per-item records of {len(self.files)} files: "
                   f"{', '.join(short(f) for f in self.files[:5])}"
                   f"{' ...' if len(self.files) > 5 else ''}."] if len(self.files) > 1 else []
        if len(self.files) == 1:
            name = self.files[0]
        warnings = list(dict.fromkeys(self.warnings))
        return items_import(records, self.dims, self.metric, name, several + self.notes,
                            warnings, summary=(cells, self.fraction))

    def _check_renames(self, rename) -> None:
        check_renames(self.labels, self.renamed, self.first, rename)

    def _check_twice(self, records: item_store.SpooledRecords, name: str) -> None:
        """Refuse an item given twice in one cell by two files (cells shared by files)."""
        dims = ", ".join(item_store._quoted(d) for d in self.dims)
        sql = (f"SELECT min(file_row_number), max(file_row_number), any_value(item) "
               f"FROM read_parquet(?, file_row_number = true) GROUP BY {dims}, item, sample "
               f"HAVING count(*) > 1 LIMIT 1")
        with _connection(records.folder) as con:
            found = con.execute(sql, [str(records.records().scores_path)]).fetchall()
        if not found:
            return
        first, second, item = found[0]
        a = self.files[bisect.bisect_right(self.starts, int(first)) - 1]
        b = self.files[bisect.bisect_right(self.starts, int(second)) - 1]
        raise ImportFailed(f"item {item!r} is in both {short(a)} and {short(b)}, in the same "
                           f"cell. Name each file's model after the file with --set "
                           f"model={item_records.FILE} (on the Data page: model from the file "
                           f"name), or import the files one at a time.", file=name)


def _record_tables(dims: list[str], records: pd.DataFrame, texts: pd.DataFrame | None
                   ) -> tuple[pa.Table, pa.Table | None]:
    """:func:`evalmaps.catalog.items.record_tables` of one file's records, in Arrow: the same
    columns, of the same types, in the same order (Arrow's sort is stable, as pandas' is, and
    orders texts by their code points, as Python does), without a copy of the texts through
    Python objects; that function itself where a column is not text kept in Arrow."""
    clusters = item_store.cluster_columns(records.columns)
    textual = [*dims, item_records.ITEM, *clusters]
    if texts is not None and len(texts):
        textual += [c for c in item_records.TEXT_COLUMNS if c in texts]
    if not all(_in_arrow(records[c]) for c in textual):
        return item_store.record_tables(dims, records, texts)
    columns = {c: columnar.as_text(records[c]).cast(pa.large_string())
               for c in (*dims, item_records.ITEM)}
    sample = records[item_records.SAMPLE].to_numpy(dtype=np.int64) \
        if item_records.SAMPLE in records else np.zeros(len(records), dtype=np.int64)
    scores = pa.table({**columns, "sample": sample,
                       "score": records[item_records.SCORE].to_numpy(dtype=np.float64),
                       **{c: columnar.as_text(records[c]).cast(pa.large_string())
                          for c in clusters}})
    keys = [*dims, "item", "sample"]
    scores = scores.take(pc.sort_indices(scores, [(k, "ascending") for k in keys]))
    if texts is None or not len(texts):
        return scores, None
    kept = [c for c in item_records.TEXT_COLUMNS if c in texts]
    table = {c: columns[c].cast(pa.string()) for c in (*dims, item_records.ITEM)}
    if item_records.SAMPLE in texts:
        table["sample"] = pa.array(sample)
    table.update({c: columnar.as_text(texts[c]).cast(pa.string()) for c in kept})
    texts_table = pa.table(table)
    order = pc.sort_indices(texts_table, [(k, "ascending") for k in (*dims, "item")])
    return scores, texts_table.take(order)


def _in_arrow(values: pd.Series) -> bool:
    """Whether a column holds texts kept by pyarrow (pandas' ``str``), nulls where missing."""
    return isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow"


def check_renames(labels: dict[str, set[str]], renamed: set, first: str, rename) -> None:
    """Refuse a ``--rename`` that names no label of the tables read (``labels``: dimension ->
    the labels they hold; ``renamed``: the renames that met a label), or that gives two labels
    one name. ``first``: the first file's name, which the refusal names."""
    for dim, old, new in rename:
        if (dim, old, new) not in renamed:
            found = sorted(labels.get(dim, ()))
            shown = ", ".join(found[:8]) + (" ..." if len(found) > 8 else "")
            raise ImportFailed(f"--rename {dim}:{old}={new}: no {dim} is labelled {old!r} (the "
                               f"labels are {shown}). Give one of them.", file=first)
    for dim, old, new in rename:
        others = [o for d, o, n in rename if d == dim and n == new and o != old]
        if new != old and (others or _kept_label(labels[dim], new, dim, rename)):
            raise ImportFailed(f"--rename {dim}:{old}={new} would give two {dim} labels the "
                               f"one name {new!r}. Give each its own name.", file=first)


def _kept_label(labels: set[str], new: str, dim: str, rename) -> bool:
    """Whether ``new`` is a label of its own after the renames (one not renamed away)."""
    away = {o for d, o, _ in rename if d == dim}
    return new in labels and new not in away


class _connection:
    """A DuckDB connection of its own, within :data:`DUCKDB_MEMORY` (spilling to ``folder``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __enter__(self):
        import duckdb

        self.con = duckdb.connect(config={"threads": 1, "memory_limit": DUCKDB_MEMORY,
                                          "temp_directory": str(self.folder / ".duckdb")})
        return self.con

    def __exit__(self, *exc) -> None:
        self.con.close()


def cells_from_parquet(records: item_store.SpooledRecords) -> pd.DataFrame:
    """:func:`evalmaps.catalog.item_shaping.summarise` of records kept as Parquet: each item's mean
    over its samples from DuckDB, a cell's items in one run, each cell's mean summed exactly
    (:func:`evalmaps.catalog.item_shaping.exact_mean`) a batch of rows at a time."""
    dims = list(records.dims)
    quoted = ", ".join(item_store._quoted(d) for d in dims)
    sql = (f'SELECT {quoted}, sum(score) / count(*) AS "__m", count(*) AS "__k" '
           f"FROM read_parquet(?) GROUP BY {quoted}, item ORDER BY {quoted}")
    out: dict[str, list] = {**{d: [] for d in dims}, "value": [], "n_items": [], "n_samples": []}
    key, means, most = None, [], 0

    def close() -> None:
        for d, label in zip(dims, key):
            out[d].append(label)
        out["value"].append(math.fsum(means) / len(means))
        out["n_items"].append(len(means))
        out["n_samples"].append(most)

    with _connection(records.folder) as con:
        batches = con.sql(sql, params=[str(records.records().scores_path)]).to_arrow_reader(
            1 << 16)
        for batch in batches:
            columns = [batch.column(i).to_pylist() for i in range(len(dims))]
            m, k = batch.column(len(dims)).to_pylist(), batch.column(len(dims) + 1).to_pylist()
            for row, (mean, count) in enumerate(zip(m, k)):
                here = tuple(c[row] for c in columns)
                if here != key:
                    if key is not None:
                        close()
                    key, means, most = here, [], 0
                means.append(mean)
                most = max(most, count)
    if key is not None:
        close()
    return pd.DataFrame(out)


def item_tables(tables: Iterable[tuple[str, Probe, str]], name: str, options: ImportOptions,
                max_bytes: int | None, by_tool: bool, hooks: Hooks):
    """Per-item tables (``--item``/``--correct`` given, or each with ``item`` and ``score``
    columns) -> ONE figure of all their records, the tables of the same columns together (a
    folder of one file per model, named by ``--set model={file}``), read and written one table
    at a time (the module's docstring); tables of other columns make a figure each with
    ``by_tool``, else are refused. None when the tables are not all per-item records (they
    import as tables do). ``tables`` may be read as they are asked for (a folder's files, one at
    a time: :func:`evalmaps.catalog.imports.import_paths`); a file of other results among them
    raises :class:`NotStreamed` there."""
    groups: dict[tuple[str, ...], Group] = {}
    expanded = 0  # the texts' characters, as read: a Parquet file of 2 KB may hold 100 MB
    try:
        for file, probe, kind in tables:
            try:
                reading = readers.reader(kind).read(probe, file, options, max_bytes)
            except DataError:
                if options.item or options.correct:
                    raise
                return None  # not records the user named: the tables' own import says what
            frame, reading.table = reading.table, None
            probe.__dict__.pop("doc", None)  # its parsed document, kept by the probe: let go
            del probe
            if not item_records.is_item_table(frame.columns, options):
                return None
            chars = hooks.text_chars(frame)
            if max_bytes is not None:  # an upload: its texts count against what it may unzip to
                expanded += chars
                hooks.within(expanded, max_bytes, name)
            columns = tuple(sorted(str(c).strip() for c in frame.columns))
            group = groups.get(columns)
            if group is None:
                if groups and not by_tool:
                    other = next(iter(groups.values())).first
                    raise ImportFailed(f"the per-item tables {short(other)} and {short(file)} "
                                       f"have different columns, so they are not one figure. "
                                       f"Import them one at a time.", file=name)
                group = groups[columns] = Group(columns, file)
            group.add(file, frame, options, reading.warnings)
            group.warnings += reading.warnings
            group.text_chars += chars
            del frame, reading
            columnar.release_memory()  # what the file's tables freed, given back (the module's
            # docstring: memory bounded by the largest file)
        figures = [group.finish(name if len(groups) == 1 else group.first, options,
                                hooks.items_import)
                   for group in groups.values()]
    except BaseException:
        for group in groups.values():
            group.close()
            item_store._remove_spool(str(group.folder), os.getpid())
        raise
    return figures
