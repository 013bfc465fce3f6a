"""A cell's items read with pyarrow and grouped in numpy (``ItemRecords._cells_read``, what
:meth:`ItemRecords.cells` takes when it can) give the numbers an independent pandas groupby of
the records gives, and exactly the numbers of the DuckDB query it replaces
(``ItemRecords._cells_query``), on the shared MMLU-Pro outputs: the seven models' answers to a
question taken as that question's samples (so an item has up to 7 samples, and ``c`` right of
``n``: what pass@k needs), scored 0/1 and with partial credit (1/3 for a wrong answer given,
0 for none: scores that are neither 0 nor 1, and sums that are not whole)."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalmaps.analysis.paired import item_values
from evalmaps.catalog.items import SCORES, ItemRecords, record_tables

FOLDER = Path(__file__).resolve().parents[2].parent / "shared" / "external" / "mmlu-pro"
DIMS = ("scoring", "category")

pytestmark = pytest.mark.external


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    """The records: scoring (binary, partial), category, item (question_id), sample (the
    model's place), score."""
    if not FOLDER.is_dir():
        pytest.skip(f"{FOLDER} is absent: tests of real outputs skipped")
    rows = []
    for sample, path in enumerate(sorted((FOLDER / "eval_results").glob("*.zip"))):
        with zipfile.ZipFile(path) as archive:
            (name,) = archive.namelist()
            for r in json.loads(archive.read(name)):
                pred, answer = str(r.get("pred") or "").strip(), str(r["answer"]).strip()
                right = pred == answer and pred != ""
                item = str(r["question_id"])
                rows.append(("binary", r["category"], item, sample, float(right)))
                rows.append(("partial", r["category"], item, sample,
                             1.0 if right else (1 / 3 if pred else 0.0)))
    out = pd.DataFrame(rows, columns=[*DIMS, "item", "sample", "score"])
    assert out["sample"].nunique() >= 2 and out["category"].nunique() >= 10
    return out


def expected(frame: pd.DataFrame, scoring: str) -> pd.DataFrame:
    """Per (category, item): samples, sum and sum of squares, by pandas."""
    part = frame[frame["scoring"] == scoring].assign(square=lambda f: f["score"] ** 2)
    return (part.groupby(["category", "item"], sort=True)
            .agg(n=("score", "size"), total=("score", "sum"), squares=("square", "sum"))
            .reset_index())


def same_bits(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for key in a:
        x, y = a[key], b[key]
        assert x.items.tolist() == y.items.tolist(), key
        assert x.n.dtype == y.n.dtype and x.n.tolist() == y.n.tolist(), key
        assert x.total.tobytes() == y.total.tobytes(), key
        assert x.squares.tobytes() == y.squares.tobytes(), key
        assert x.binary == y.binary, key


@pytest.mark.parametrize("scoring", ["binary", "partial"])
def test_cells_read_give_the_pandas_groupby_and_the_query(frame, tmp_path, scoring):
    records = ItemRecords.write(tmp_path, DIMS, frame)
    read = records._cells_read({"scoring": scoring}, ("category",))
    assert read is not None  # this path, not the query's fallback
    want = expected(frame, scoring)
    assert list(read) == [(c,) for c in sorted(want["category"].unique())]
    for (category,), cell in read.items():
        rows = want[want["category"] == category]
        assert cell.items.tolist() == sorted(rows["item"])  # by code point, as the query
        assert cell.n.tolist() == rows["n"].tolist()
        assert cell.binary == (scoring == "binary")
        if scoring == "binary":  # sums of 0 and 1: whole numbers, exact in any order
            assert cell.total.tolist() == rows["total"].tolist()
            assert cell.squares.tolist() == rows["total"].tolist()
        else:  # pandas sums with compensation: the same to rounding
            np.testing.assert_allclose(cell.total, rows["total"], rtol=1e-13, atol=0)
            np.testing.assert_allclose(cell.squares, rows["squares"], rtol=1e-13, atol=0)
    assert sum(len(c) for c in read.values()) == len(want)
    same_bits(read, records._cells_query({"scoring": scoring}, ("category",)))
    same_bits(records.cells({"scoring": scoring}, ("category",)), read)


def test_pass_at_k_of_the_read_counts_is_the_enumerated_one(frame, tmp_path):
    """pass@k needs each item's c right of n samples: the read cells keep them, and the
    pass@k of each item is 1 - C(n - c, k) / C(n, k) (math.comb) at every k up to its n."""
    records = ItemRecords.write(tmp_path, DIMS, frame)
    read = records._cells_read({"scoring": "binary"}, ("category",))
    want = expected(frame, "binary").set_index(["category", "item"])
    checked = 0
    for (category,), cell in read.items():
        rows = want.loc[category].loc[cell.items.tolist()]
        counts = list(zip(rows["n"].astype(int).tolist(), rows["total"].astype(int).tolist()))
        for k in range(1, int(cell.n.min()) + 1):
            enumerated = [1 - math.comb(n - c, k) / math.comb(n, k) for n, c in counts]
            np.testing.assert_allclose(item_values(cell, k), enumerated, rtol=1e-12, atol=1e-15)
            checked += len(counts)
    assert checked > 10_000 and max(int(c.n.max()) for c in read.values()) >= 7


def test_records_in_any_order_and_row_groups_read_the_same(frame, tmp_path):
    """Records not sorted (as an import that streams writes them) in small row groups, and
    sorted ones in small row groups (some all of one label, skipped or kept by their
    statistics), give their own file's query bit for bit (sums added in the file's order),
    and the sorted file's numbers, for every way of asking."""
    table = record_tables(DIMS, frame)[0]
    sorted_folder, shuffled_folder = tmp_path / "sorted", tmp_path / "shuffled"
    for folder in (sorted_folder, shuffled_folder):
        folder.mkdir()
    order = np.random.default_rng(5).permutation(table.num_rows)
    pq.write_table(table, sorted_folder / SCORES, row_group_size=20_000)
    pq.write_table(table.take(pa.array(order)), shuffled_folder / SCORES, row_group_size=7_777)
    reference = ItemRecords.write(tmp_path / "reference", DIMS, frame)
    for fixed, by in [({"scoring": "partial"}, ("category",)), ({}, DIMS),
                      ({"category": "law"}, ("scoring",)),
                      ({"scoring": "binary", "category": "math"}, ()),
                      ({"scoring": "none such"}, ("category",))]:
        want = reference._cells_query(fixed, by)
        for folder in (sorted_folder, shuffled_folder):
            records = ItemRecords(folder, DIMS)
            got = records._cells_read(fixed, by)
            assert got is not None
            same_bits(got, records._cells_query(fixed, by))
            assert list(got) == list(want)
            for key, cell in got.items():
                assert cell.items.tolist() == want[key].items.tolist()
                assert cell.n.tolist() == want[key].n.tolist()
                np.testing.assert_allclose(cell.total, want[key].total, rtol=1e-13, atol=0)


def test_records_the_read_cannot_take_go_to_the_query(tmp_path):
    """A null score (the query counts its record but sums nothing) or a dimension that is not
    text: the read declines and cells gives the query's answer."""
    frame = pd.DataFrame({"model": ["a", "a", "a", "b"], "item": ["1", "1", "2", "1"],
                          "sample": [0, 1, 0, 0], "score": [1.0, None, 0.5, 0.0]})
    folder = tmp_path / "nulls"
    folder.mkdir()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), folder / SCORES)
    records = ItemRecords(folder, ("model",))
    assert records._cells_read({}, ("model",)) is None
    cells = records.cells({}, ("model",))
    assert cells[("a",)].n.tolist() == [2, 1] and cells[("a",)].total.tolist() == [1.0, 0.5]
    numbers = tmp_path / "numbers"
    numbers.mkdir()
    pq.write_table(pa.table({"model": [1, 1, 2], "item": ["1", "2", "1"], "sample": [0, 0, 0],
                             "score": [1.0, 0.0, 1.0]}), numbers / SCORES)
    records = ItemRecords(numbers, ("model",))
    assert records._cells_read({"model": "1"}, ()) is None
    assert records.cells({"model": "1"}, ())[()].items.tolist() == ["1", "2"]


def test_more_records_than_read_rows_go_to_the_query(tmp_path, monkeypatch):
    """Past READ_ROWS records to read, the read declines (DuckDB groups them as it streams)
    and cells gives the query's answer."""
    from evalmaps.catalog import items as item_store

    frame = pd.DataFrame({"model": ["a"] * 6 + ["b"] * 6, "item": [str(i % 3) for i in range(12)],
                          "sample": [i // 3 for i in range(12)], "score": [1.0, 0.0, 0.5] * 4})
    records = ItemRecords.write(tmp_path, ("model",), frame)
    assert records._cells_read({}, ("model",)) is not None
    monkeypatch.setattr(item_store, "READ_ROWS", 11)
    assert records._cells_read({}, ("model",)) is None
    cells = records.cells({}, ("model",))
    assert cells[("b",)].n.tolist() == [2, 2, 2] and cells[("b",)].total.tolist() == [2, 0, 1]
