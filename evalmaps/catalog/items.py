"""The per-item records behind a figure's cells, kept as Parquet and queried with DuckDB where
they lie.

A figure made from per-item records (lm-eval's ``samples_*.jsonl``, Inspect's samples, a lab's
own per-question outputs) keeps them in a folder of its own:

- ``scores.parquet``: one row per item and sample, with the figure's dimension columns (text),
  ``item`` (text), ``sample`` (int) and ``score`` (float). This is all a comparison reads.
- ``texts.parquet`` (optional): ``item`` and the dimension columns with ``prompt``, ``target`` and
  ``response`` (text, may be null); read only when a person asks to see an item.

A cell's value is the mean over its items of each item's mean over samples (Pass@1 averaged over
n samples, as the harnesses report it): :meth:`ItemRecords.cell_values`.

Queries open a DuckDB connection of their own (DuckDB connections are not shared between
threads), read only the columns and rows they need (Parquet's row-group statistics skip the
rest) and hand back numpy arrays. Labels are compared as text, never spliced into SQL.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from evalmaps.core.estimators import pass_at_k

SCORES = "scores.parquet"
TEXTS = "texts.parquet"
TEXT_COLUMNS = ("prompt", "target", "response")
ROW_GROUP = 128 * 1024


@dataclass(frozen=True, eq=False)
class ItemScores:
    """One cell's items: ids (sorted), samples per item, and the sum of the scores per item."""

    items: np.ndarray  # text ids, sorted, unique
    n: np.ndarray  # int64: samples per item
    total: np.ndarray  # float64: the sum of the item's scores over its samples
    binary: bool  # every score is 0 or 1

    @property
    def mean(self) -> np.ndarray:
        """Each item's mean over its samples."""
        return self.total / self.n

    def __len__(self) -> int:
        return len(self.items)

    def on(self, items: np.ndarray) -> ItemScores:
        """These scores on ``items`` (sorted, each one of this cell's)."""
        at = np.searchsorted(self.items, items)
        return ItemScores(items, self.n[at], self.total[at], self.binary)


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
        dims = tuple(dims)
        frame = pd.DataFrame({d: scores[d].astype(str) for d in dims})
        frame["item"] = scores["item"].astype(str)
        frame["sample"] = (scores["sample"].astype("int64") if "sample" in scores
                           else np.zeros(len(scores), dtype="int64"))
        frame["score"] = scores["score"].astype("float64")
        frame = frame.sort_values([*dims, "item", "sample"], kind="stable", ignore_index=True)
        _write(pa.Table.from_pandas(frame, preserve_index=False), Path(folder) / SCORES)
        if texts is not None and len(texts):
            kept = [c for c in TEXT_COLUMNS if c in texts]
            tframe = pd.DataFrame({d: texts[d].astype(str) for d in dims})
            tframe["item"] = texts["item"].astype(str)
            if "sample" in texts:
                tframe["sample"] = texts["sample"].astype("int64")
            for column in kept:
                tframe[column] = texts[column].astype(object).where(texts[column].notna(), None)
                tframe[column] = tframe[column].map(lambda v: v if v is None else str(v))
            tframe = tframe.sort_values([*dims, "item"], kind="stable", ignore_index=True)
            _write(pa.Table.from_pandas(tframe, preserve_index=False), Path(folder) / TEXTS)
        return cls(folder, dims)

    def _connect(self):
        import duckdb  # imported when items are first asked for: start-up does not pay for it

        return duckdb.connect(config={"threads": 1})

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

    def cells(self, fixed: Mapping[str, str], by: Sequence[str]) -> dict[tuple[str, ...], ItemScores]:
        """Every cell's items where ``fixed`` holds, keyed by its labels of the dimensions ``by``
        (for a panel: the facets fixed, ``by=(y, x)``)."""
        clause, params = self._where(fixed)
        by = tuple(by)
        keys = ", ".join(_quoted(d) for d in by)
        sql = (f"SELECT {keys + ', ' if keys else ''}item, count(*) AS n, sum(score) AS total, "
               f"bool_and(score = 0 OR score = 1) AS binary "
               f"FROM read_parquet(?) WHERE {clause} "
               f"GROUP BY ALL ORDER BY ALL")
        with self._connect() as con:
            table = con.sql(sql, params=[str(self.scores_path), *params]).to_arrow_table()
        if table.num_rows == 0:
            return {}
        column = {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}
        items = column["item"].astype(object)
        n, total = column["n"].astype(np.int64), column["total"].astype(np.float64)
        binary = column["binary"].astype(bool)
        # the rows come ordered by the keys: a cell starts where any key changes
        change = np.zeros(table.num_rows, dtype=bool)
        change[0] = True
        for d in by:
            labels = column[d].astype(object)
            change[1:] |= labels[1:] != labels[:-1]
        starts = np.flatnonzero(change)
        stops = np.append(starts[1:], table.num_rows)
        return {tuple(str(column[d][s]) for d in by): ItemScores(items[s:e], n[s:e], total[s:e],
                                                                  bool(binary[s:e].all()))
                for s, e in zip(starts, stops)}

    def cell_values(self, k: int = 1) -> pd.DataFrame:
        """Each cell's value, its item count ``items`` and its largest sample count ``samples``:
        dims, value, items, samples. At k = 1 the value is the mean over items of each item's mean
        over samples (Pass@1 averaged over n samples, as the harnesses report it); at k > 1 the
        mean over items of the unbiased pass@k (:func:`evalmaps.core.estimators.pass_at_k`),
        which needs 0/1 scores and at least k samples of every item."""
        dims = ", ".join(_quoted(d) for d in self.dims)
        if k == 1:
            sql = (f"SELECT {dims}, avg(m) AS value, count(*) AS items, max(k) AS samples FROM "
                   f"(SELECT {dims}, item, avg(score) AS m, count(*) AS k FROM read_parquet(?) "
                   f"GROUP BY ALL) GROUP BY ALL ORDER BY ALL")
            with self._connect() as con:
                return con.sql(sql, params=[str(self.scores_path)]).df()
        sql = (f"SELECT {dims}, count(*) AS n, sum(score) AS c, "
               f"bool_and(score = 0 OR score = 1) AS binary "
               f"FROM read_parquet(?) GROUP BY {dims}, item ORDER BY ALL")
        with self._connect() as con:
            per_item = con.sql(sql, params=[str(self.scores_path)]).df()
        if not per_item["binary"].all():
            raise ValueError(f"pass@{k} needs scores of 0 or 1; these items have other scores")
        per_item["value"] = pass_at_k(per_item["n"].to_numpy(), per_item["c"].to_numpy(), k)
        return (per_item.groupby(list(self.dims), sort=True, observed=True)
                .agg(value=("value", "mean"), items=("value", "size"), samples=("n", "max"))
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


def _empty() -> ItemScores:
    return ItemScores(np.array([], dtype=object), np.array([], dtype=np.int64),
                      np.array([], dtype=np.float64), True)


# --------------------------------------------------------------------------- pass@k figures
# A minimal figure_at for the itemsui branch (the items helper writes the full one; the lead
# reconciles the two).

def max_k(figure) -> int:
    """The largest k the figure's items allow pass@k at: the fewest samples any item has where
    every score is 0 or 1; 1 when the figure has no items, or non-binary scores."""
    records = getattr(figure, "items", None)
    if records is None or "k" in figure.spec.dims:  # ?k= names the figure's own dimension k
        return 1
    cached = getattr(figure, "_evalmaps_max_k", None)
    if cached is not None:
        return cached
    dims = ", ".join(_quoted(d) for d in records.dims)
    sql = (f"SELECT min(n) AS k, bool_and(b01) AS b01 FROM (SELECT {dims}, item, "
           f"count(*) AS n, bool_and(score = 0 OR score = 1) AS b01 FROM read_parquet(?) "
           f"GROUP BY ALL)")
    with records._connect() as con:
        k, binary = con.sql(sql, params=[str(records.scores_path)]).fetchall()[0]
    out = int(k) if k is not None and binary else 1
    figure._evalmaps_max_k = out
    return out


def figure_at(figure, k: int):
    """The figure with every cell's value the mean over its items of the unbiased pass@k
    (:meth:`ItemRecords.cell_values`); ``k = 1`` or a figure without items: the figure itself.
    Standard errors and replicate columns are left out (they belong to the values at k = 1).
    Kept on the figure, one per k."""
    if k == 1 or getattr(figure, "items", None) is None:
        return figure
    from evalmaps.core.figure import Figure

    made = getattr(figure, "_evalmaps_at", None)
    if made is None:
        made = figure._evalmaps_at = {}
    if k not in made:
        values = figure.items.cell_values(k)
        dims = list(figure.spec.dim_names)
        cells = values[dims].astype(str)
        cells["value"] = values["value"].astype("float64")
        at = Figure(figure.spec, cells.reset_index(drop=True), figure.decimals)
        at.items = figure.items
        made[k] = at
    return made[k]


def catalog_at(catalog, k: int):
    """The catalog with every figure whose items allow it at pass@k (:func:`figure_at`); the
    others as they are. ``k = 1``: the catalog itself."""
    if k == 1:
        return catalog
    return catalog.with_figures([figure_at(f, k) for f in catalog
                                 if getattr(f, "items", None) is not None and max_k(f) >= k])
