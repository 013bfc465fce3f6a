"""The Arrow path of a Parquet per-item table (evalmaps.catalog.item_shaping.import_items_arrow: codes,
one integer key per cell and item, bincounts) against a straightforward pandas computation of
the same cells (groupby, math.fsum) and against the general path of the same rows as CSV, on
random record sets: several row groups (chunks with dictionaries of their own), rows in any
order, items missing samples, non-binary scores, an item's sample twice, a NaN score."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalmaps.catalog import items as item_store
from evalmaps.catalog.imports import import_bytes
from evalmaps.readers.base import ImportFailed

DIMS = ["model", "config", "bench"]
LABELS = {"model": ["Llama-2-7B", "Llama-2-13B", "m3"], "config": ["w500", "w2000", "r0.4", "c10"],
          "bench": ["aime", "math", "gpqa"]}
# exact in any order of summing (eighths), any real number, or 0/1
SCORES = {"binary": st.sampled_from([0.0, 1.0]),
          "eighths": st.integers(0, 80).map(lambda k: k / 8),
          "reals": st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)}


@st.composite
def record_sets(draw):
    """(frame of records, what is wrong with it: None, 'twice' or 'nan', exact sums)."""
    labels = {d: draw(st.lists(st.sampled_from(LABELS[d]), min_size=1, max_size=len(LABELS[d]),
                               unique=True)) for d in DIMS}
    kind = draw(st.sampled_from(sorted(SCORES)))
    integer_ids = draw(st.booleans())
    rows = []
    for model in labels["model"]:
        for config in labels["config"]:
            for bench in labels["bench"]:
                if draw(st.integers(0, 5)) == 0:
                    continue  # a cell with no records: a gap
                for item in draw(st.lists(st.integers(0, 30), min_size=1, max_size=6,
                                          unique=True)):
                    # samples with gaps (a missing sample) in any order
                    for sample in draw(st.lists(st.integers(0, 6), min_size=1, max_size=4,
                                                unique=True)):
                        rows.append((model, config, bench, item if integer_ids else f"q{item}",
                                     sample, draw(SCORES[kind])))
    if not rows:
        rows.append((labels["model"][0], labels["config"][0], labels["bench"][0], 1 if
                     integer_ids else "q1", 0, 1.0))
    frame = pd.DataFrame(rows, columns=[*DIMS, "item", "sample", "score"])
    frame = frame.sample(frac=1, random_state=draw(st.integers(0, 2**16))) \
        if draw(st.booleans()) else frame
    wrong = draw(st.sampled_from([None, None, None, "twice", "nan"]))
    if wrong == "twice":
        frame = pd.concat([frame, frame.iloc[[draw(st.integers(0, len(frame) - 1))]]])
    elif wrong == "nan":
        frame.iloc[draw(st.integers(0, len(frame) - 1)), frame.columns.get_loc("score")] = np.nan
    return frame.reset_index(drop=True), wrong, kind != "reals"


def reference(frame: pd.DataFrame) -> pd.DataFrame:
    """Each cell by pandas and math.fsum: the mean over its items of each item's mean over its
    samples, its item count, its largest sample count; sorted by the dims."""
    frame = frame.assign(item=frame["item"].astype(str))
    per_item = frame.groupby([*DIMS, "item"])["score"].agg(
        mean=lambda v: math.fsum(v) / len(v), size="size").reset_index()
    cells = per_item.groupby(DIMS).agg(value=("mean", lambda v: math.fsum(v) / len(v)),
                                       n=("mean", "size"), samples=("size", "max"))
    return cells.reset_index().sort_values(DIMS, ignore_index=True)


def parquet(frame: pd.DataFrame, row_group: int) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buf,
                   row_group_size=row_group)
    return buf.getvalue()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record_sets(), st.integers(3, 400))
def test_the_arrow_path_gives_the_cells_pandas_gives(case, row_group):
    frame, wrong, exact = case
    data = parquet(frame, row_group)
    if wrong is not None:  # refused as the general path refuses it, naming the problem
        with pytest.raises(ImportFailed) as fast:
            import_bytes(data, "items.parquet")[0]
        with pytest.raises(ImportFailed) as slow:
            import_bytes(frame.to_csv(index=False).encode(), "items.csv")[0]
        assert str(fast.value).replace("items.parquet", "items.csv") == str(slow.value)
        assert ("appears twice" if wrong == "twice" else "is not a number") in str(fast.value)
        return
    fast = import_bytes(data, "items.parquet")[0]
    assert isinstance(fast.items, pa.Table)  # the Arrow path took it
    expected = reference(frame)
    got = fast.tidy.sort_values(DIMS, ignore_index=True)
    assert got[DIMS].equals(expected[DIMS].astype(got[DIMS].dtypes))
    assert got["n"].astype(int).tolist() == expected["n"].tolist()
    values = got["value"].astype(float).tolist()
    if exact:
        assert values == expected["value"].tolist()
    else:
        assert all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
                   for a, b in zip(values, expected["value"]))
    several = int(expected["samples"].max()) > 1
    assert ("of each item's mean over its samples" in fast.spec["notes"][0]) == several
    fraction = bool(frame["score"].between(0, 1).all())
    assert fast.spec["metric"]["range"] == ([0.0, 1.0] if fraction else None)
    # the same rows as CSV (the general path): the same figure, to the last digit
    slow = import_bytes(frame.to_csv(index=False).encode(), "items.csv")[0]
    assert fast.spec["dims"] == slow.spec["dims"]
    assert fast.spec["notes"] == [n.replace("items.csv", "items.parquet")
                                  for n in slow.spec["notes"]]
    named = ("notes", "title", "id", "file", "source")  # the file's name
    assert {k: v for k, v in fast.spec.items() if k not in named} == \
        {k: v for k, v in slow.spec.items() if k not in named}
    general = slow.tidy.sort_values(DIMS, ignore_index=True)
    if exact:
        assert got.equals(general)
    else:  # an item's samples summed in another order (pandas: compensated) may end an ulp apart
        assert got.drop(columns="value").equals(general.drop(columns="value"))
        assert all(math.isclose(a, b, rel_tol=1e-12) for a, b in
                   zip(values, general["value"].astype(float)))


@settings(max_examples=25, deadline=None)
@given(record_sets(), st.integers(3, 400))
def test_the_arrow_paths_records_are_the_general_paths(tmp_path_factory, case, row_group):
    """The records kept (sorted, as the store writes them) are the same either way."""
    frame, wrong, _ = case
    if wrong is not None:
        return
    fast = import_bytes(parquet(frame, row_group), "items.parquet")[0]
    slow = import_bytes(frame.to_csv(index=False).encode(), "items.csv")[0]
    folder = tmp_path_factory.mktemp("records")
    a = item_store.save(folder / "a", list(fast.spec["dims"]), fast.items)
    b = item_store.save(folder / "b", list(slow.spec["dims"]), slow.items)
    assert pd.read_parquet(a.scores_path).equals(pd.read_parquet(b.scores_path))
