"""The per-item records behind a figure's cells, kept as Parquet and queried with DuckDB where
they lie.

A figure made from per-item records (lm-eval's ``samples_*.jsonl``, Inspect's samples, a lab's
own per-question outputs) keeps them in a folder of its own:

- ``scores.parquet``: one row per item and sample, with the figure's dimension columns (text),
  ``item`` (text), ``sample`` (int) and ``score`` (float), and for an import's ``--cluster COL``
  the column ``cluster:COL`` (text: each item's cluster, the same in all its samples). This is
  all a comparison reads.
- ``texts.parquet`` (optional): ``item`` and the dimension columns with ``prompt``, ``target`` and
  ``response`` (text, may be null); read only when a person asks to see an item.

A cell's value is the mean over its items of each item's mean over samples (Pass@1 averaged over
n samples, as the harnesses report it): :meth:`ItemRecords.cell_values`.

Queries open a DuckDB connection of their own (DuckDB connections are not shared between
threads), read only the columns and rows they need (Parquet's row-group statistics skip the
rest) and hand back numpy arrays. Labels are compared as text, never spliced into SQL. The
cells a comparison asks for (:meth:`ItemRecords.cells`) are read without DuckDB where the
records allow it: pyarrow reads the columns as Parquet's dictionaries and numpy counts and sums
each item's samples, the query's numbers bit for bit at about half its time.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from evalmaps.core.estimators import pass_at_k
from evalmaps.core.kept import Kept
from evalmaps.readers.items import CLUSTER_PREFIX

SCORES = "scores.parquet"
TEXTS = "texts.parquet"
TEXT_COLUMNS = ("prompt", "target", "response")
ROW_GROUP = 128 * 1024
# records up to which ItemRecords.cells reads and groups them in memory (about 70 bytes each
# while it works, so about 70 MB); past it, DuckDB's query groups them as it streams
READ_ROWS = 1 << 20


@dataclass(frozen=True, eq=False)
class ItemScores:
    """One cell's items: ids (sorted), samples per item, and the sum of the scores per item."""

    items: np.ndarray  # text ids, sorted, unique
    n: np.ndarray  # int64: samples per item
    total: np.ndarray  # float64: the sum of the item's scores over its samples
    binary: bool  # every score is 0 or 1
    clusters: np.ndarray | None = None  # text: each item's cluster, when asked for
    # each item's sum of squared scores over its samples (the variance within an item)
    squares: np.ndarray | None = None

    @property
    def mean(self) -> np.ndarray:
        """Each item's mean over its samples."""
        return self.total / self.n

    def __len__(self) -> int:
        return len(self.items)

    def on(self, items: np.ndarray) -> ItemScores:
        """These scores on ``items`` (sorted, each one of this cell's)."""
        at = np.searchsorted(self.items, items)
        return ItemScores(items, self.n[at], self.total[at], self.binary,
                          None if self.clusters is None else self.clusters[at],
                          None if self.squares is None else self.squares[at])


@dataclass(frozen=True, eq=False)
class CellMatrix:
    """One cell's items for several labels of one dimension (the rows: ``rows`` maps a label to
    its row) on the union of their item ids (``items``, sorted as :class:`ItemScores`' are):
    each item's ``total`` (its score; 0 where a row lacks it) and ``n`` (1, or 0 where the row
    lacks it). Made by :meth:`ItemRecords.matrices` from records of one sample per item."""

    items: np.ndarray  # text ids, sorted, unique: the union of the rows' items
    rows: dict  # label -> row
    total: np.ndarray  # float64, rows x items
    n: np.ndarray  # int64, rows x items: 1 where the row has the item, else 0
    binary: np.ndarray  # bool per row: every score of the row is 0 or 1

    def scores(self, label: str) -> ItemScores:
        """The row of ``label`` as :meth:`ItemRecords.cells` gives its cell."""
        row = self.rows[label]
        has = self.n[row] > 0
        return ItemScores(self.items[has], self.n[row, has], self.total[row, has],
                          bool(self.binary[row]))


_local = threading.local()

KEPT_ITEMS = 600_000  # items of cells' answers kept per process (about 60 MB), newest first


def _items_in(answer: dict) -> int:
    return sum(len(scores) for scores in answer.values())


# What :meth:`ItemRecords.cells` answered lately, keyed by the records' file as it is (its path,
# size, time and inode: records are written once, by rename, so a new version is a new key) and
# the question, the least recently used dropped past :data:`KEPT_ITEMS` items. A page that asks
# for the same cells again (a colour mode, ``k``, the items list, the next request of the same
# map) then reads no Parquet. The arrays handed out are read-only (:func:`_read_only`).
KEPT = Kept(KEPT_ITEMS, weigh=_items_in)


def _read_only(answer: dict) -> dict:
    for scores in answer.values():
        for array in (scores.items, scores.n, scores.total, scores.clusters, scores.squares):
            if array is not None:
                array.setflags(write=False)
    return answer


def records_version(records) -> tuple | None:
    """The version of per-item records as their file is now (its path, size, time and inode,
    and the records' dimensions: records are written once, by rename, so a new version is a new
    key); None when there is no file. What :data:`KEPT` and the paired grids kept by
    :mod:`evalmaps.analysis.compare` are keyed by."""
    try:
        stat = records.scores_path.stat()
    except OSError:
        return None
    return (str(records.scores_path), stat.st_size, stat.st_mtime_ns, stat.st_ino, records.dims)


def _kept_cells(query):
    """:meth:`ItemRecords.cells`, answered from :data:`KEPT` when the same records were asked
    the same question (see :data:`KEPT`)."""

    @functools.wraps(query)
    def cells(self, *args, **kwargs):
        version = records_version(self)
        if version is None:
            return query(self, *args, **kwargs)  # no file: the query says so
        key = (*version, repr(args), repr(sorted(kwargs.items())))
        found = KEPT.get(key)
        if found is None:
            found = query(self, *args, **kwargs)
            if _items_in(found) <= KEPT.limit:  # kept: read-only from now on
                KEPT.put(key, _read_only(found))
        return dict(found)

    return cells


def _thread_connection():
    """This thread's in-memory DuckDB connection (one thread each), opened on first use, and
    anew in a forked process (a server's workers, an upload's child): a connection is never
    used across a fork."""
    con, pid = getattr(_local, "con", None), getattr(_local, "pid", None)
    if con is None or pid != os.getpid():
        import duckdb  # imported when items are first asked for: start-up does not pay for it

        con = _local.con = duckdb.connect(config={"threads": 1})
        _local.pid = os.getpid()
    return con


def common(a: ItemScores, b: ItemScores) -> tuple[ItemScores, ItemScores]:
    """A and B on the items both have, in one order."""
    shared = np.intersect1d(a.items, b.items, assume_unique=True)
    return a.on(shared), b.on(shared)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _write(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` atomically (a temporary file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".parquet")
    os.close(fd)
    try:
        pq.write_table(table, tmp, row_group_size=ROW_GROUP, compression="zstd")
        os.chmod(tmp, 0o644)  # as a file written by hand (mkstemp's are private)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ItemRecords:
    """A figure's per-item records in ``folder`` (see the module's docstring)."""

    def __init__(self, folder: str | Path, dims: Sequence[str]) -> None:
        self.folder = Path(folder)
        self.dims = tuple(dims)

    @property
    def scores_path(self) -> Path:
        return self.folder / SCORES

    @property
    def texts_path(self) -> Path:
        return self.folder / TEXTS

    @property
    def has_texts(self) -> bool:
        return self.texts_path.exists()

    @classmethod
    def write(cls, folder: str | Path, dims: Sequence[str], scores: pd.DataFrame,
              texts: pd.DataFrame | None = None) -> ItemRecords:
        """Keep ``scores`` (dims, ``item``, optional ``sample``, ``score``) and ``texts`` (dims,
        ``item``, any of prompt/target/response) in ``folder``, sorted by dims and item."""
        scores_table, texts_table = record_tables(dims, scores, texts)
        _write(scores_table, Path(folder) / SCORES)
        if texts_table is not None:
            _write(texts_table, Path(folder) / TEXTS)
        return cls(folder, dims)

    @property
    def clusters(self) -> tuple[str, ...]:
        """The columns the items can be clustered by (``--cluster COL``'s ``COL``), as kept."""
        if getattr(self, "_clusters", None) is None:
            names = pq.read_schema(self._opened(self.scores_path)).names
            self._clusters = tuple(c[len(CLUSTER_PREFIX):] for c in cluster_columns(names))
        return self._clusters

    def _opened(self, path):
        """What pyarrow reads ``path`` from: the path (records in an object store: an open
        file, :mod:`evalmaps.service.object_items`)."""
        return path

    def _connect(self):
        """A cursor on this thread's DuckDB connection (closed by the ``with`` that uses it):
        a connection costs about 15 ms to open, a cursor on one well under 1 ms, and a
        connection is not to be shared by threads at once."""
        return _thread_connection().cursor()

    def _where(self, coords: Mapping[str, str]) -> tuple[str, list[str]]:
        unknown = [d for d in coords if d not in self.dims]
        if unknown:
            raise KeyError(f"the items have no dimension {unknown[0]!r}")
        names = [d for d in self.dims if d in coords]
        clause = " AND ".join(f"{_quoted(d)} = ?" for d in names) or "TRUE"
        return clause, [str(coords[d]) for d in names]

    def cell(self, coords: Mapping[str, str]) -> ItemScores:
        """The items of the cell at ``coords`` (every dimension given); empty when it has none."""
        grid = self.cells(coords, ())
        return grid.get((), _empty())

    @_kept_cells
    def cells(self, fixed: Mapping[str, str], by: Sequence[str],
              cluster: str | None = None) -> dict[tuple[str, ...], ItemScores]:
        """Every cell's items where ``fixed`` holds, keyed by its labels of the dimensions ``by``
        (for a panel: the facets fixed, ``by=(y, x)``); with ``cluster`` (one of
        :attr:`clusters`), each item's cluster too."""
        self._where(fixed)  # an unknown dimension: KeyError
        by = tuple(by)
        if cluster is None:
            found = self._cells_read(fixed, by)
            if found is not None:
                return found
        return self._cells_query(fixed, by, cluster)

    def _cells_query(self, fixed: Mapping[str, str], by: tuple[str, ...],
                     cluster: str | None = None) -> dict[tuple[str, ...], ItemScores]:
        """:meth:`cells` as one DuckDB query (grouped and ordered in SQL): what clusters, and
        records :meth:`_cells_read` cannot read, take."""
        clause, params = self._where(fixed)
        keys = ", ".join(_quoted(d) for d in by)
        head = keys + ", " if keys else ""
        if cluster is not None and cluster not in self.clusters:
            raise KeyError(f"the items have no cluster column {cluster!r}")
        grouped = ("" if cluster is None else
                   f', min({_quoted(CLUSTER_PREFIX + cluster)}) AS "__cluster"')
        sql = (f'SELECT {head}item AS "__item", count(*) AS "__n", sum(score) AS "__total", '
               f'bool_and(score = 0 OR score = 1) AS "__binary", '
               f'sum(score * score) AS "__squares"{grouped} '
               f"FROM read_parquet(?) WHERE {clause} "
               f"GROUP BY ALL ORDER BY ALL")
        with self._connect() as con:
            table = con.sql(sql, params=[str(self.scores_path), *params]).to_arrow_table()
        if table.num_rows == 0:
            return {}
        column = {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}
        items = column["__item"].astype(object)
        n, total = column["__n"].astype(np.int64), column["__total"].astype(np.float64)
        binary = column["__binary"].astype(bool)
        squares = column["__squares"].astype(np.float64)
        clusters = column["__cluster"].astype(object) if cluster is not None else None
        # the rows come ordered by the keys: a cell starts where any key changes
        change = np.zeros(table.num_rows, dtype=bool)
        change[0] = True
        for d in by:
            labels = column[d].astype(object)
            change[1:] |= labels[1:] != labels[:-1]
        starts = np.flatnonzero(change)
        stops = np.append(starts[1:], table.num_rows)
        return {tuple(str(column[d][s]) for d in by): ItemScores(
                    items[s:e], n[s:e], total[s:e], bool(binary[s:e].all()),
                    None if clusters is None else clusters[s:e], squares[s:e])
                for s, e in zip(starts, stops)}

    def _cells_read(self, fixed: Mapping[str, str], by: tuple[str, ...]
                    ) -> dict[tuple[str, ...], ItemScores] | None:
        """:meth:`cells` (without clusters) read with pyarrow and grouped in numpy: the same
        numbers the query gives, about twice as fast. Only the columns asked for are read, as
        Parquet's dictionaries (integer codes, no text per record), from the row groups whose
        statistics may hold ``fixed``; each record's (cell, item) is one integer, the records of
        one are counted and summed in the order they lie in the file (``np.bincount``: the
        query's sums, added in the same order), and the cells and their items come in the
        query's order (by code point). None where the records do not allow it (a dimension or
        ``item`` not text, a score not a float64, a null, a dimension named twice), are more
        than :data:`READ_ROWS` to read, or are not in a local file (an object store's: DuckDB
        reads them through its file system): the query is then the way."""
        fixed = {str(d): str(v) for d, v in fixed.items()}
        names = (*fixed, *by, "item")
        if len(set(names)) != len(names) or not isinstance(self.scores_path, Path):
            return None
        try:
            with pq.ParquetFile(self.scores_path, read_dictionary=names) as parquet:
                return _grouped(parquet, fixed, by)
        except (OSError, TypeError, pa.ArrowException):  # TypeError: a null among the texts
            return None

    def matrices(self, by: str, others: Sequence[str]) -> dict[tuple[str, ...], CellMatrix] | None:
        """Every cell's items as one matrix of the labels of ``by`` (:class:`CellMatrix`), keyed
        by its labels of ``others``, where the records hold one sample of each item; None where
        they may not (several samples, a null, labels that are not text), and
        :meth:`cells` is then the way. The same numbers :meth:`cells` gives, read without
        grouping: the columns as Parquet's dictionaries (integer codes, no text per record), a
        cell's rows and items placed by their codes. What the Rank answer reads (issue 38)."""
        by, others = str(by), tuple(others)
        dims = (by, *others)
        try:
            parquet = pq.ParquetFile(self._opened(self.scores_path),
                                     read_dictionary=[*dims, "item"])
        except (OSError, pa.ArrowException):
            return None
        schema = parquet.schema_arrow
        text = (pa.string(), pa.large_string())

        def is_text(column: str) -> bool:
            kind = schema.field(column).type
            return (kind.value_type if pa.types.is_dictionary(kind) else kind) in text

        if (len(set(dims)) != len(dims) or not set(dims) <= set(self.dims)
                or any(c not in schema.names for c in (*dims, "item", "sample", "score"))
                or not all(is_text(c) for c in (*dims, "item"))
                or schema.field("score").type != pa.float64()):
            return None
        at = schema.names.index("sample")
        meta = parquet.metadata
        seen = set()  # the samples' numbers, from the row groups' statistics (no reading)
        for g in range(meta.num_row_groups):
            stats = meta.row_group(g).column(at).statistics
            if stats is not None and stats.has_min_max:
                seen |= {stats.min, stats.max}
            if len(seen) > 1:
                return None  # two numbers of samples: several samples of some item
        table = parquet.read(columns=[*dims, "item", "score"], use_threads=False)
        if any(table.column(c).null_count for c in table.column_names):
            return None
        if table.num_rows == 0:
            return {}
        codes, words = {}, {}
        for c in (*dims, "item"):  # each column's codes into one dictionary of its texts
            column = table.column(c)
            if not pa.types.is_dictionary(column.type):
                column = pc.dictionary_encode(column)
            column = column.unify_dictionaries()
            codes[c] = np.concatenate([chunk.indices.to_numpy() for chunk in column.chunks])
            words[c] = np.asarray(column.chunk(0).dictionary.to_pylist(), dtype=object)
            if len(words[c]) != len(set(words[c].tolist())):
                return None  # a dictionary that repeats a text (never pyarrow's)
        score = table.column("score").to_numpy()
        del table
        # items in the order of their ids (as the query's ORDER BY gives them: by code point)
        order = np.argsort(words["item"], kind="stable")
        ids = words["item"][order]
        place = np.empty(len(order), dtype=np.int64)
        place[order] = np.arange(len(order))
        item = place[codes.pop("item")]
        # each record's cell: its labels of the other dimensions as one code
        cell = np.zeros(len(score), dtype=np.int64)
        for d in others:
            cell = cell * len(words[d]) + codes[d].astype(np.int64)
        keys, cell = _dense(cell, int(np.prod([len(words[d]) for d in others])))
        cell = cell.astype(np.uint16 if len(keys) < 2 ** 16 else np.int64)  # uint16: radix sort
        sort = np.argsort(cell, kind="stable")
        bounds = np.searchsorted(cell[sort], np.arange(len(keys) + 1))
        row_of = codes[by]
        out = {}
        for c, key in enumerate(keys.tolist()):
            at = sort[bounds[c]:bounds[c + 1]]
            labels = []
            for d in reversed(others):
                key, code = divmod(key, len(words[d]))
                labels.append(str(words[d][code]))
            labels.reverse()
            rows, row = _dense(row_of[at], len(words[by]))
            columns, column = _dense(item[at], len(ids))
            flat = row * len(columns) + column
            n = np.bincount(flat, minlength=len(rows) * len(columns))
            if n.max() > 1:
                return None  # an item twice in a cell: several samples
            total = np.zeros(len(rows) * len(columns))
            total[flat] = score[at]
            s = score[at]
            other = np.bincount(row, weights=~((s == 0) | (s == 1)), minlength=len(rows))
            out[tuple(labels)] = CellMatrix(
                ids[columns], {str(words[by][r]): j for j, r in enumerate(rows.tolist())},
                total.reshape(len(rows), len(columns)), n.reshape(len(rows), len(columns)),
                other == 0)
        return out

    def cell_values(self, k: int = 1) -> pd.DataFrame:
        """Each cell's value, its item count ``n_items`` and its largest sample count
        ``n_samples``: dims, value, n_items, n_samples (a dimension may be named 'samples': a
        lighteval pass@k figure's). At k = 1 the value is the mean over items of each item's mean
        over samples (Pass@1 averaged over n samples, as the harnesses report it); at k > 1 the
        mean over items of the unbiased pass@k (:func:`evalmaps.core.estimators.pass_at_k`),
        which needs 0/1 scores and at least k samples of every item."""
        dims = ", ".join(_quoted(d) for d in self.dims)
        if k == 1:
            sql = (f'SELECT {dims}, avg("__m") AS value, count(*) AS n_items, max("__k") AS n_samples '
                   f'FROM (SELECT {dims}, item, avg(score) AS "__m", count(*) AS "__k" '
                   f"FROM read_parquet(?) GROUP BY ALL) GROUP BY ALL ORDER BY ALL")
            with self._connect() as con:
                return con.sql(sql, params=[str(self.scores_path)]).df()
        sql = (f'SELECT {dims}, count(*) AS "__n", sum(score) AS "__c", '
               f'bool_and(score = 0 OR score = 1) AS "__binary" '
               f"FROM read_parquet(?) GROUP BY {dims}, item ORDER BY ALL")
        with self._connect() as con:
            per_item = con.sql(sql, params=[str(self.scores_path)]).df()
        if not per_item["__binary"].all():
            raise ValueError(f"pass@{k} needs scores of 0 or 1; these items have other scores")
        per_item["__value"] = pass_at_k(per_item["__n"].to_numpy(), per_item["__c"].to_numpy(), k)
        return (per_item.groupby(list(self.dims), sort=True, observed=True)
                .agg(value=("__value", "mean"), n_items=("__value", "size"),
                     n_samples=("__n", "max"))
                .reset_index())

    def texts(self, coords: Mapping[str, str], items: Sequence[str]) -> list[dict]:
        """The texts of ``items`` in the cell at ``coords``, one dict per row: item, sample (when
        kept) and the text columns the source has (None where it has none); [] when no texts
        were kept."""
        if not self.has_texts or not len(items):
            return []
        clause, params = self._where(coords)
        sql = (f"SELECT * EXCLUDE ({', '.join(_quoted(d) for d in self.dims)}) "
               f"FROM read_parquet(?) WHERE {clause} AND list_contains(?, item) ORDER BY ALL")
        with self._connect() as con:
            table = con.sql(sql, params=[str(self.texts_path), *params, [str(i) for i in items]]
                            ).to_arrow_table()
        return table.to_pylist()

    def items_with_text(self, coords: Mapping[str, str], needle: str) -> set[str]:
        """The ids of the items of the cell at ``coords`` whose prompt, target or response holds
        ``needle`` (plain text, any case: DuckDB's ``contains`` of both lower-cased, the needle
        passed as a parameter, never as SQL or a pattern); empty when no texts were kept."""
        if not self.has_texts or not needle:
            return set()
        kept = [c for c in TEXT_COLUMNS
                if c in pq.read_schema(self._opened(self.texts_path)).names]
        if not kept:
            return set()
        clause, params = self._where(coords)
        held = " OR ".join(f"contains(lower({_quoted(c)}), lower(?))" for c in kept)
        sql = f"SELECT DISTINCT item FROM read_parquet(?) WHERE {clause} AND ({held})"
        with self._connect() as con:
            rows = con.execute(sql, [str(self.texts_path), *params, *[needle] * len(kept)]
                               ).fetchall()
        return {str(row[0]) for row in rows}


def record_tables(dims: Sequence[str], scores: pd.DataFrame, texts: pd.DataFrame | None = None
                  ) -> tuple[pa.Table, pa.Table | None]:
    """What :meth:`ItemRecords.write` keeps, as Arrow tables: the scores (dims and ``item`` as
    text, ``sample``, ``score``, clusters) sorted by dims, item and sample, and the texts (None
    when there are none) sorted by dims and item."""
    dims = tuple(dims)
    frame = pd.DataFrame({d: scores[d].astype(str) for d in dims})
    frame["item"] = scores["item"].astype(str)
    frame["sample"] = (scores["sample"].astype("int64") if "sample" in scores
                       else np.zeros(len(scores), dtype="int64"))
    frame["score"] = scores["score"].astype("float64")
    for column in cluster_columns(scores.columns):
        frame[column] = scores[column].astype(str)
    frame = frame.sort_values([*dims, "item", "sample"], kind="stable", ignore_index=True)
    scores_table = pa.Table.from_pandas(frame, preserve_index=False)
    if texts is None or not len(texts):
        return scores_table, None
    kept = [c for c in TEXT_COLUMNS if c in texts]
    tframe = pd.DataFrame({d: texts[d].astype(str) for d in dims})
    tframe["item"] = texts["item"].astype(str)
    if "sample" in texts:
        tframe["sample"] = texts["sample"].astype("int64")
    for column in kept:
        tframe[column] = texts[column].astype(object).where(texts[column].notna(), None)
        tframe[column] = tframe[column].map(lambda v: v if v is None else str(v))
    tframe = tframe.sort_values([*dims, "item"], kind="stable", ignore_index=True)
    schema = pa.schema([*(pa.field(c, pa.string()) for c in (*dims, "item")),
                        *([pa.field("sample", pa.int64())] if "sample" in tframe else []),
                        *(pa.field(c, pa.string()) for c in kept)])
    return scores_table, pa.Table.from_pandas(tframe, schema=schema, preserve_index=False)


class SpooledRecords:
    """Per-item records written already, as they came, to Parquet in a temporary folder of this
    process (``scores.parquet``, and ``texts.parquet`` where they have texts), as an import
    that streams them file by file makes them (:mod:`evalmaps.catalog.stream`): what an
    import's ``items`` is then, in place of the records in memory. :func:`save` puts them
    where a figure keeps its records; the folder goes with the object (or with the process)."""

    def __init__(self, folder: str | Path, dims: Sequence[str], rows: int,
                 text_chars: int = 0) -> None:
        import weakref

        self.folder = Path(folder)
        self.dims = tuple(dims)
        self.rows = rows
        self.text_chars = text_chars  # the characters of the records' texts and labels
        self._finalizer = weakref.finalize(self, _remove_spool, str(self.folder), os.getpid())

    def __len__(self) -> int:
        return self.rows

    @property
    def shape(self) -> tuple[int, int]:
        return self.rows, len(pq.read_schema(self.folder / SCORES).names)

    def records(self) -> ItemRecords:
        """The records where they are, to query."""
        return ItemRecords(self.folder, self.dims)

    def to_pandas(self) -> pd.DataFrame:
        """The records in memory, as an import that does not stream gives them (dims, item,
        sample, score, clusters, texts): for a small import only."""
        frame = pq.read_table(self.folder / SCORES).to_pandas()
        if (self.folder / TEXTS).is_file():
            texts = pq.read_table(self.folder / TEXTS).to_pandas()
            key = [*self.dims, "item", *(["sample"] if "sample" in texts else [])]
            frame = frame.merge(texts, on=key, how="left")
        return frame

    def save(self, folder: str | Path) -> ItemRecords:
        """Copy the records into ``folder`` (each file whole: written aside, then renamed)."""
        import shutil

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        for name in (SCORES, TEXTS):
            source = self.folder / name
            if not source.is_file():
                continue
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".parquet")
            os.close(fd)
            try:
                shutil.copyfile(source, tmp)
                os.chmod(tmp, 0o644)
                os.replace(tmp, folder / name)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return ItemRecords(folder, self.dims)

    def digest(self) -> str:
        """A hash of the records' content: of their Parquet files' bytes, read a block at a
        time."""
        import hashlib

        h = hashlib.sha256(",".join(self.dims).encode())
        for name in (SCORES, TEXTS):
            path = self.folder / name
            if path.is_file():
                h.update(b"\0" + name.encode() + b"\0")
                with open(path, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        h.update(block)
        return h.hexdigest()

    def remove(self) -> None:
        """Remove the folder now (else when the object goes)."""
        self._finalizer()


def _remove_spool(folder: str, pid: int) -> None:
    """Remove a spool folder of the process ``pid``, when this is it (a forked child's copy of
    the object leaves the folder to the process that made it)."""
    import shutil

    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)


def cluster_columns(columns) -> list[str]:
    """The columns of records that keep clusters (``cluster:COL``), in their order."""
    return [str(c) for c in columns if str(c).startswith(CLUSTER_PREFIX)]


def _text_codes(column: pa.ChunkedArray, rows) -> tuple[np.ndarray, np.ndarray] | None:
    """A text column read as Parquet's dictionaries: (its texts sorted by code point, the place
    among them of each record of ``rows``: a slice or indices; integers of 32 or 64 bits); None
    where a dictionary repeats a text."""
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    column = column.unify_dictionaries()
    # interned: the same id read for A and for B is one object, which compares at once when
    # paired_grid matches their items (an item's text compared only with other items')
    words = np.asarray([sys.intern(w) for w in column.chunk(0).dictionary.to_pylist()],
                       dtype=object)
    if len(words) != len(set(words.tolist())):
        return None
    order = np.argsort(words, kind="stable")
    codes = np.concatenate([chunk.indices.to_numpy() for chunk in column.chunks])[rows]
    if (order == np.arange(len(order))).all():  # in order already (records sorted by it)
        return words, codes
    place = np.empty(len(order), dtype=np.int64)
    place[order] = np.arange(len(order))
    return words[order], place[codes]


def _grouped(parquet: pq.ParquetFile, fixed: dict[str, str], by: tuple[str, ...]
             ) -> dict[tuple[str, ...], ItemScores] | None:
    """:meth:`ItemRecords._cells_read` of the Parquet records ``parquet`` (opened with the
    text columns read as dictionaries)."""
    texts = [*fixed, *by, "item"]
    schema = parquet.schema_arrow
    if any(c not in schema.names for c in (*texts, "score")):
        return None
    for c in texts:
        kind = schema.field(c).type
        if (kind.value_type if pa.types.is_dictionary(kind) else kind) not in (
                pa.string(), pa.large_string()):
            return None
    if schema.field("score").type != pa.float64():
        return None
    meta = parquet.metadata
    groups, mixed = [], {d: [] for d in fixed}  # the row groups whose statistics may hold the
    for g in range(meta.num_row_groups):         # fixed labels; of those, per dimension, the
        group = meta.row_group(g)                # ones not all of the label (to be read)
        if group.num_rows == 0:
            continue
        partly = []
        for d, label in fixed.items():
            stats = group.column(schema.names.index(d)).statistics
            known = (stats is not None and stats.has_min_max and isinstance(stats.min, str)
                     and isinstance(stats.max, str))
            if known and not stats.min <= label <= stats.max:
                break
            if not (known and stats.min == stats.max == label and stats.has_null_count
                    and stats.null_count == 0):
                partly.append(d)
        else:
            groups.append(g)
            for d in partly:
                mixed[d].append(g)
    if not groups:
        return {}
    if sum(meta.row_group(g).num_rows for g in groups) > READ_ROWS:
        return None
    table = parquet.read_row_groups(groups, columns=[*by, "item", "score"], use_threads=False)
    if any(table.column(c).null_count for c in table.column_names):
        return None
    sizes = np.array([meta.row_group(g).num_rows for g in groups], dtype=np.int64)
    offsets = dict(zip(groups, np.cumsum(sizes) - sizes))
    keep = None  # the records where the fixed labels hold (None: all of them)
    for d, label in fixed.items():
        if not mixed[d]:
            continue
        column = parquet.read_row_groups(mixed[d], columns=[d], use_threads=False).column(d)
        if column.null_count:
            return None
        coded = _text_codes(column, slice(None))
        if coded is None:
            return None
        words, codes = coded
        at = int(np.searchsorted(words, label))
        held = codes == at if at < len(words) and words[at] == label else \
            np.zeros(len(codes), dtype=bool)
        if keep is None:
            keep = np.ones(table.num_rows, dtype=bool)
        start = 0
        for g in mixed[d]:  # the read groups' records in their places among all the groups'
            size = meta.row_group(g).num_rows
            keep[offsets[g]:offsets[g] + size] &= held[start:start + size]
            start += size
    rows = slice(None)  # the records kept: a slice where they lie together (records sorted
    if keep is not None:  # by their dimensions), else their indices
        rows = np.flatnonzero(keep)
        if not len(rows):
            return {}
        if rows[-1] - rows[0] + 1 == len(rows):
            rows = slice(int(rows[0]), int(rows[-1]) + 1)
    labels, key = {}, None  # each record's (cell, item) as one integer: the query's order
    for c in (*by, "item"):
        coded = _text_codes(table.column(c), rows)
        if coded is None:
            return None
        labels[c], codes = coded
        if math.prod(len(words) for words in labels.values()) >= 1 << 62:
            return None  # more (cell, item) pairs than one int64 numbers
        key = codes.astype(np.int64) if key is None else key * len(labels[c]) + codes
    score = table.column("score").to_numpy()[rows]
    del table
    if len(key) > 1 and not (key[1:] >= key[:-1]).all():
        order = np.argsort(key, kind="stable")  # stable: each group's records in file order
        key, score = key[order], score[order]
    change = np.empty(len(key), dtype=bool)
    change[0] = True
    np.not_equal(key[1:], key[:-1], out=change[1:])
    heads = np.flatnonzero(change)  # each (cell, item)'s first record
    firsts = key[heads]
    size = len(firsts)
    n = np.diff(heads, append=len(key))
    items = labels["item"][firsts % len(labels["item"])]
    cell = firsts // len(labels["item"])
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    stops = np.append(starts[1:], size)
    other = (score != 0) & (score != 1)  # the records whose score is not 0 or 1
    if other.any():  # sums added in the records' order, as the query adds them
        group = np.cumsum(change) - 1
        total = np.bincount(group, weights=score, minlength=size)
        squares = np.bincount(group, weights=score * score, minlength=size)
        # per cell (the query's bool_and of each item, all of a cell's)
        other = np.bincount(np.cumsum(np.r_[True, cell[1:] != cell[:-1]])[group] - 1,
                            weights=other, minlength=len(starts))
    else:  # 0s and 1s: whole sums, the same in any order; a 0 or 1 is its own square
        total = np.add.reduceat(score, heads) + 0.0  # + 0.0: a sum of -0.0s is 0.0
        squares = total.copy()
        other = np.zeros(len(starts))
    out = {}
    for c, (s, e) in enumerate(zip(starts, stops)):
        code, names = int(cell[s]), []
        for d in reversed(by):
            code, at = divmod(code, len(labels[d]))
            names.append(str(labels[d][at]))
        out[tuple(reversed(names))] = ItemScores(items[s:e], n[s:e], total[s:e],
                                                 bool(other[c] == 0), None, squares[s:e])
    return out


def _dense(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` of codes from 0 to ``size`` - 1, by counting
    where the codes are few (no sort)."""
    if size > max(4 * len(codes), 1 << 16):
        return np.unique(codes, return_inverse=True)
    seen = np.bincount(codes, minlength=size) > 0
    values = np.flatnonzero(seen)
    position = np.cumsum(seen) - 1
    return values, position[codes]


def _empty() -> ItemScores:
    return ItemScores(np.array([], dtype=object), np.array([], dtype=np.int64),
                      np.array([], dtype=np.float64), True)


def save(folder: str | Path, dims: Sequence[str], records: pd.DataFrame) -> ItemRecords:
    """Keep an import's per-item records (dims, item, sample, score, any texts) in ``folder``:
    the scores apart from the texts (:meth:`ItemRecords.write`); records spooled to Parquet
    already (:class:`SpooledRecords`) are copied as they are."""
    if isinstance(records, SpooledRecords):
        if tuple(dims) != records.dims:
            raise ValueError(f"the records' dimensions are {records.dims}, not {tuple(dims)}")
        return records.save(folder)
    if isinstance(records, pa.Table):  # the Arrow path's records: dims as text, no texts
        order = [(d, "ascending") for d in (*dims, "item", "sample")]
        text = {c: records.column(c).cast(pa.string()) for c in (*dims, "item")}
        table = pa.table([*text.values(), records.column("sample").cast(pa.int64()),
                          records.column("score").cast(pa.float64())],
                         names=[*dims, "item", "sample", "score"]).sort_by(order)
        _write(table, Path(folder) / SCORES)
        return ItemRecords(folder, dims)
    present = [c for c in TEXT_COLUMNS if c in records and records[c].notna().any()]
    texts = records[[*dims, "item", *(["sample"] if "sample" in records else []), *present]] \
        if present else None
    return ItemRecords.write(folder, dims, records, texts)


def digest(records: pd.DataFrame) -> str:
    """A hash of per-item records' content (what a cache or a store keys them by)."""
    import hashlib

    if isinstance(records, SpooledRecords):
        return records.digest()
    if isinstance(records, pa.Table):
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, records.schema) as writer:
            writer.write_table(records)
        return hashlib.sha256(sink.getvalue()).hexdigest()
    h = hashlib.sha256(",".join(map(str, records.columns)).encode())
    h.update(pd.util.hash_pandas_object(records.astype(str), index=False).to_numpy().tobytes())
    return h.hexdigest()


def attach(figure, folder: str | Path):
    """Set ``figure.items`` to the records in ``folder`` when it holds them; the figure."""
    records = ItemRecords(folder, figure.spec.dim_names)
    if records.scores_path.is_file():
        figure.items = records
    return figure


# ---------------------------------------------------------------------------- pass@k figures

_AT_K: dict[tuple[int, int], tuple[object, object]] = {}  # (id(figure), k) -> (figure, at k)
MAX_AT_K = 32  # figures at k kept per process


def max_k(figure) -> int:
    """The largest k every cell with items can give pass@k at: the smallest, over cells, of the
    cell's fewest samples of an item (1 when the figure has no items, or scores other than 0/1,
    whose pass@k is not defined)."""
    records = getattr(figure, "items", None)
    if records is None or "k" in figure.spec.dims:  # ?k= names the figure's own dimension k
        return 1
    cached = getattr(figure, "_evalmaps_max_k", None)
    if cached is not None:
        return cached
    dims = ", ".join(_quoted(d) for d in records.dims)
    sql = (f"SELECT min(n) AS k, bool_and(zero_one) AS zero_one FROM (SELECT {dims}, item, "
           f"count(*) AS n, bool_and(score = 0 OR score = 1) AS zero_one FROM read_parquet(?) "
           f"GROUP BY ALL)")
    with records._connect() as con:
        k, binary = con.sql(sql, params=[str(records.scores_path)]).fetchall()[0]
    figure._evalmaps_max_k = int(k) if k is not None and binary else 1
    return figure._evalmaps_max_k


def figure_at(figure, k: int):
    """``figure`` with each cell that has items valued at pass@k (the mean over its items of the
    unbiased pass@k, :meth:`ItemRecords.cell_values`); cells without items are left out, since
    their pass@k is unknown. k = 1, or a figure without items, is the figure itself. Kept per
    figure and k."""
    from evalmaps.core.figure import Figure

    records = getattr(figure, "items", None)
    if k == 1 or records is None:
        return figure
    top = max_k(figure)
    if not 1 <= k <= top:
        raise ValueError(f"k must be from 1 to {top} (the fewest samples of an item), not {k}")
    hit = _AT_K.get((id(figure), k))
    if hit is not None and hit[0] is figure:
        return hit[1]
    values = records.cell_values(k)
    cells = pd.DataFrame({d: values[d].astype(str) for d in records.dims})
    cells["value"] = values["value"].to_numpy(dtype=np.float64)
    cells["n"] = values["n_items"].to_numpy(dtype=np.float64)
    spec = replace(figure.spec, metric=replace(figure.spec.metric, name=f"pass@{k}"))
    at = Figure(spec, cells, figure.decimals)
    at.items = records
    if len(_AT_K) >= MAX_AT_K:
        _AT_K.pop(next(iter(_AT_K)))
    _AT_K[(id(figure), k)] = (figure, at)
    return at


def catalog_at(catalog, k: int):
    """The catalog with every figure whose items allow it at pass@k (:func:`figure_at`); the
    others as they are. ``k = 1``: the catalog itself."""
    if k == 1:
        return catalog
    return catalog.with_figures([figure_at(f, k) for f in catalog
                                 if getattr(f, "items", None) is not None and max_k(f) >= k])
