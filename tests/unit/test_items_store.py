"""evalmaps.catalog.items: per-item records written as Parquet and read back with DuckDB, checked
against the same sums done by hand in pandas."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmaps.catalog.items import ItemRecords, common


def frame():
    return pd.DataFrame({
        "model": ["A"] * 4 + ["B"] * 4,
        "task": ["t"] * 8,
        "item": ["1", "1", "2", "2", "1", "1", "3", "3"],
        "sample": [0, 1, 0, 1, 0, 1, 0, 1],
        "score": [1, 0, 1, 1, 0, 0, 1, 0.5],
    })


def test_cell_sums_each_items_samples(tmp_path):
    records = ItemRecords.write(tmp_path, ["model", "task"], frame())
    a = records.cell({"model": "A", "task": "t"})
    assert (list(a.items), list(a.n), list(a.total), a.binary) == (["1", "2"], [2, 2], [1.0, 2.0], True)
    b = records.cell({"model": "B", "task": "t"})
    assert (list(b.items), list(b.total), b.binary) == (["1", "3"], [0.0, 1.5], False)
    assert len(records.cell({"model": "C", "task": "t"})) == 0


def test_cells_keyed_by_the_dimensions_asked(tmp_path):
    records = ItemRecords.write(tmp_path, ["model", "task"], frame())
    grid = records.cells({"task": "t"}, ["model"])
    assert sorted(grid) == [("A",), ("B",)]
    assert list(grid[("B",)].mean) == [0.0, 0.75]


def test_common_items_in_one_order(tmp_path):
    records = ItemRecords.write(tmp_path, ["model", "task"], frame())
    a, b = common(records.cell({"model": "A", "task": "t"}), records.cell({"model": "B", "task": "t"}))
    assert (list(a.items), list(b.items), list(a.total), list(b.total)) == (["1"], ["1"], [1.0], [0.0])


def test_an_unknown_dimension_is_refused(tmp_path):
    records = ItemRecords.write(tmp_path, ["model", "task"], frame())
    with pytest.raises(KeyError, match="no dimension 'size'"):
        records.cell({"size": "7b"})


def test_labels_are_parameters_not_sql(tmp_path):
    df = frame()
    df.loc[0:3, "model"] = "A' OR '1'='1"
    records = ItemRecords.write(tmp_path, ["model", "task"], df)
    assert list(records.cell({"model": "A' OR '1'='1", "task": "t"}).items) == ["1", "2"]
    assert len(records.cell({"model": "x' OR '1'='1", "task": "t"})) == 0


def test_texts_are_kept_apart_and_read_for_the_items_asked(tmp_path):
    texts = pd.DataFrame({"model": ["A", "A"], "task": ["t", "t"], "item": ["1", "2"],
                          "prompt": ["<b>bold?</b>", "y"], "target": ["a", None]})
    records = ItemRecords.write(tmp_path, ["model", "task"], frame(), texts)
    got = records.texts({"model": "A", "task": "t"}, ["2", "1"])
    assert got == [{"item": "1", "prompt": "<b>bold?</b>", "target": "a"},
                                      {"item": "2", "prompt": "y", "target": None}]
    assert ItemRecords.write(tmp_path / "none", ["model", "task"], frame()).texts(
        {"model": "A", "task": "t"}, ["1"]) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["m1", "m2"]), st.sampled_from(["x", "y"]),
                          st.integers(0, 5), st.integers(0, 3), st.sampled_from([0.0, 1.0, 0.25])),
                min_size=1, max_size=60, unique_by=lambda r: r[:4]))
def test_cell_values_equal_pandas_mean_of_item_means(tmp_path_factory, rows):
    df = pd.DataFrame(rows, columns=["model", "task", "item", "sample", "score"])
    records = ItemRecords.write(tmp_path_factory.mktemp("items"), ["model", "task"], df)
    got = records.cell_values()
    item_means = df.groupby(["model", "task", "item"])["score"].mean()
    want = item_means.groupby(["model", "task"]).agg(["mean", "count"]).reset_index()
    assert got[["model", "task"]].values.tolist() == want[["model", "task"]].values.tolist()
    np.testing.assert_allclose(got["value"], want["mean"], rtol=1e-12)
    assert got["n_items"].tolist() == want["count"].tolist()


def test_cell_values_at_k_average_each_items_pass_at_k(tmp_path):
    df = pd.DataFrame({"model": ["A"] * 8, "item": ["1"] * 4 + ["2"] * 4, "sample": [0, 1, 2, 3] * 2,
                       "score": [1, 0, 0, 0, 0, 0, 0, 0.0]})
    records = ItemRecords.write(tmp_path, ["model"], df)
    got = records.cell_values(k=2)
    # item 1: 1 right of 4, pass@2 = 1 - C(3,2)/C(4,2) = 1 - 3/6; item 2: none right
    assert got.to_dict("records") == [{"model": "A", "value": 0.25, "n_items": 2, "n_samples": 4}]
    assert records.cell_values(k=1)["value"].tolist() == [0.125]


def test_pass_at_k_of_partial_scores_is_refused(tmp_path):
    records = ItemRecords.write(tmp_path, ["model", "task"], frame())
    with pytest.raises(ValueError, match="pass@2 needs scores of 0 or 1"):
        records.cell_values(k=2)


def test_dimensions_named_like_the_query_columns_keep_their_labels(tmp_path):
    """A lighteval pass@k figure has a dimension 'samples'; others may be 'n', 'total', 'c'."""
    dims = ["samples", "n", "total", "c", "binary"]
    df = pd.DataFrame({d: ["4", "4"] for d in dims} | {"item": ["1", "2"], "score": [1.0, 0.0]})
    records = ItemRecords.write(tmp_path, dims, df)
    got = records.cell_values()
    assert got.to_dict("records") == [{**{d: "4" for d in dims}, "value": 0.5, "n_items": 2, "n_samples": 1}]
    assert got.equals(records.cell_values(k=1))
    cell = records.cells({}, dims)[("4",) * 5]
    assert (list(cell.items), list(cell.n), list(cell.total), cell.binary) == (["1", "2"], [1, 1], [1.0, 0.0], True)
    assert records.cell_values(k=1).columns.tolist() == [*dims, "value", "n_items", "n_samples"]


def test_cells_asked_again_are_the_kept_answer_until_the_records_change(tmp_path, monkeypatch):
    """The same question on the same records reads no Parquet again (the kept answer, whose
    arrays cannot be written to); records written anew (a new version of the file) are read
    again; answers past the limit push out the least recently used."""
    from evalmaps.catalog import items as item_store
    from evalmaps.core.kept import Kept

    kept = Kept(10, weigh=item_store._items_in)
    monkeypatch.setattr(item_store, "KEPT", kept)
    records = ItemRecords.write(tmp_path, ["model", "task"], frame())
    first = records.cells({"model": "A"}, ("task",))
    queries = []
    monkeypatch.setattr(item_store, "_thread_connection",
                        lambda real=item_store._thread_connection: queries.append(1) or real())
    # the records read without DuckDB (ItemRecords._cells_read) count as a read too
    monkeypatch.setattr(item_store, "_grouped",
                        lambda *a, real=item_store._grouped: queries.append(1) or real(*a))
    again = records.cells({"model": "A"}, ("task",))
    assert queries == [] and again.keys() == first.keys()
    assert all(again[k] is first[k] for k in first)
    with pytest.raises(ValueError):
        next(iter(again.values())).total[0] = 99.0
    changed = frame()
    changed["score"] = 1.0 - changed["score"]
    records = ItemRecords.write(tmp_path, ["model", "task"], changed)
    fresh = records.cells({"model": "A"}, ("task",))
    assert queries == [1]
    assert [fresh[k].total.tolist() for k in fresh] != [first[k].total.tolist() for k in first]
    assert kept.size <= kept.limit
    records.cells({"model": "B"}, ("task",))
    assert kept.size <= kept.limit and len(kept._kept) >= 1
