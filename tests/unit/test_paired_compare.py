"""The paired test in Compare and /api/compare: each common cell's ``paired`` equals the paired
statistics computed directly on the cell's items (read back from the Parquet records), BH over
the map's tested cells, panels and labels of a dimension agree, swapping A and B negates the
difference and keeps p, and sides without items (means, figures without records) say so."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from evalmaps.analysis.compare import (
    CompareError,
    align,
    compare,
    mean_ref,
    resolve_pair,
    sentences,
    summary,
    with_paired,
)
from evalmaps.analysis.paired import bh_adjust, mcnemar_p, paired_values
from evalmaps.core import text as fmt
from evalmaps.core.estimators import pass_at_k
from evalmaps.core.figure import Catalog, Metric
from evalmaps.views.payloads import compare_payload
from tests.items_fixture import XS, YS, item_scores, items_figure


@pytest.fixture()
def scores():
    return item_scores(n_items=40, samples=1, seed=3)


@pytest.fixture()
def catalog(tmp_path, scores):
    with_items = items_figure(tmp_path / "toy", "toy", scores)
    without = items_figure(tmp_path / "bare", "bare", scores, with_items=False)
    return Catalog([with_items, without])


def direct(scores: pd.DataFrame, y: str, x: str, k: int = 1):
    """The paired comparison of one cell from the scores table itself (pandas, not DuckDB)."""
    cell = scores[(scores.level == y) & (scores.task == x)]
    per = cell.groupby(["model", "item"])["score"].agg(["sum", "count", "mean"])
    a, b = per.loc["small"], per.loc["large"]
    shared = a.index.intersection(b.index)
    a, b = a.loc[shared], b.loc[shared]
    if k == 1:
        va, vb = a["mean"].to_numpy(), b["mean"].to_numpy()
    else:
        va = pass_at_k(a["count"].to_numpy(), a["sum"].to_numpy().astype(int), k)
        vb = pass_at_k(b["count"].to_numpy(), b["sum"].to_numpy().astype(int), k)
    one = k == 1 and (a["count"] == 1).all() and (b["count"] == 1).all()
    return paired_values(va, vb, mcnemar=bool(one))


def test_each_cell_equals_the_paired_test_on_its_items(catalog, scores):
    payload = compare_payload(catalog, {"a": "toy:small", "b": "toy:large"})
    cells = payload["cells"]
    assert [(c["level"], c["task"]) for c in cells] == [(y, x) for y in YS for x in XS]
    want = [direct(scores, c["level"], c["task"]) for c in cells]
    adjusted = bh_adjust([w.p for w in want])
    for cell, w, q in zip(cells, want, adjusted):
        assert cell["paired"] == {**w.as_dict(), "p_adjusted": pytest.approx(q, rel=1e-12)}
        assert cell["paired"]["test"] == "mcnemar"
        assert cell["paired"]["p"] == mcnemar_p(w.a_only, w.b_only)
        # the cell's own values are the items' means: the paired means equal them
        assert cell["paired"]["a_mean"] == pytest.approx(cell["a"], abs=1e-9)
        assert cell["paired"]["b_mean"] == pytest.approx(cell["b"], abs=1e-9)
    s = payload["summary"]
    sig = [c["paired"] for c in cells if c["paired"]["p_adjusted"] < 0.05]
    assert s["paired_cells"] == 6 and s["paired_tests"] == ["mcnemar"]
    # issue 37 (a new user, 10): no reason why significance cannot be judged beside a test
    assert s["n_with_se"] == 0 and s["no_significance"] is None
    assert s["b_sig_better_paired"] == sum(p["diff"] > 0 for p in sig)
    assert s["b_sig_worse_paired"] == sum(p["diff"] < 0 for p in sig)
    assert any("(paired, FDR 5%)" in line and "exact McNemar" in line
               for line in payload["sentences"])


def test_swapping_a_and_b_negates_and_keeps_p(catalog):
    ab = compare_payload(catalog, {"a": "toy:small", "b": "toy:large"})["cells"]
    ba = compare_payload(catalog, {"a": "toy:large", "b": "toy:small"})["cells"]
    for x, y in zip(ab, ba):
        p, q = x["paired"], y["paired"]
        assert q["diff"] == -p["diff"] and (q["a_only"], q["b_only"]) == (p["b_only"], p["a_only"])
        assert (q["p"], q["p_adjusted"], q["n"]) == (p["p"], p["p_adjusted"], p["n"])
        assert (q["ci_low"], q["ci_high"]) == pytest.approx((-p["ci_high"], -p["ci_low"]))


def test_labels_of_a_dimension_give_the_same_numbers_as_panels(catalog):
    panels = compare_payload(catalog, {"a": "toy:small", "b": "toy:large"})
    labels = compare_payload(catalog, {"a": "toy:model=small", "b": "toy:model=large"})
    assert labels["cells"] == panels["cells"]
    # one row: the grid keyed by the column alone, one task fixed
    one = compare_payload(catalog, {"a": "toy:model=small", "b": "toy:model=large",
                                    "ydim": "", "level": "hard"})
    hard = [c["paired"] for c in panels["cells"] if c["level"] == "hard"]
    got = [c["paired"] for c in one["cells"]]
    assert [g["diff"] for g in got] == [h["diff"] for h in hard]
    assert [g["p"] for g in got] == [h["p"] for h in hard]


def test_no_items_means_no_paired_test_and_the_se_sentence(catalog):
    for query in ({"a": "bare:small", "b": "bare:large"},
                  {"a": mean_ref(["toy:small", "toy:large"]), "b": "toy:large"},
                  {"a": "toy:small", "b": "bare:large"},
                  {"a": "toy:model=small", "b": "toy:model=large", "ydim": "", "avg": "level"}):
        payload = compare_payload(catalog, query)
        assert all(c["paired"] is None for c in payload["cells"]), query
        assert payload["summary"]["paired_cells"] == 0
        assert payload["summary"]["no_significance"], query
        assert payload["sentences"][-1].startswith("Significance cannot be judged"), query


def test_k_follows_each_items_pass_at_k(tmp_path):
    scores = item_scores(n_items=30, samples=4, seed=5)
    catalog = Catalog([items_figure(tmp_path, "toy", scores)])
    for k in (1, 2, 4):
        payload = compare_payload(catalog, {"a": "toy:small", "b": "toy:large", "k": str(k)})
        assert payload["summary"]["k"] == k and set(payload["summary"]["paired_tests"]) <= {"sign-flip", "sign-flip-normal"}
        for cell in payload["cells"]:
            want = direct(scores, cell["level"], cell["task"], k)
            # the variance within and between items: tests/unit/test_variance_parts.py
            mine = [key for key in cell["paired"] if key != "p_adjusted"
                    and "var_" not in key and "within_share" not in key]
            assert {key: cell["paired"][key] for key in mine} == {
                key: want.as_dict()[key] for key in mine}
    with pytest.raises(CompareError, match="at least 5 samples"):
        compare_payload(catalog, {"a": "toy:small", "b": "toy:large", "k": "5"})
    for bad in ("0", "two", "1.5", "-1"):
        with pytest.raises(CompareError, match="k must be"):
            compare_payload(catalog, {"a": "toy:small", "b": "toy:large", "k": bad})


def test_only_common_items_are_compared(tmp_path):
    scores = item_scores(n_items=20, seed=9)
    drop = (scores.model == "large") & scores.item.isin(["q000", "q001", "q002"])
    catalog = Catalog([items_figure(tmp_path, "toy", scores[~drop])])
    al = compare(catalog, "toy:small", "toy:large")
    assert {r.n for r in al.paired.values()} == {17}
    numbers = summary(al)
    assert "17 items a cell" in sentences(al, numbers)[-1]


def test_outline_follows_the_paired_test(catalog):
    al = compare(catalog, "toy:small", "toy:large")
    want = np.zeros(al.delta.shape, dtype=bool)
    for (i, j), r in al.paired.items():
        want[i, j] = r.p_adjusted >= 0.05
    np.testing.assert_array_equal(al.outlined, want)


def test_the_difference_map_outlines_hovers_and_summary_follow_the_paired_test(catalog):
    from components.compare import summary_card
    from evalmaps.figures.compare import PAIRED_COLUMNS, compare_figures, readouts

    al = compare(catalog, "toy:small", "toy:large")
    _, _, delta = compare_figures(al, "shared", True)
    assert len(delta["layout"]["shapes"]) == int(al.paired_indistinct.sum())
    templates = [t.get("hovertemplate", "") for t in delta["data"]]
    paired = [t for t in templates if "paired, %{customdata[4]:.0f} items:" in t]
    assert paired and all("exact McNemar" in t and "adjusted p = %{customdata[9]:.2~g}" in t
                          for t in paired)
    assert all("SE %{customdata[2]" not in t for t in paired)  # not the sources' unpaired SE
    assert all("(SE, not clustered);" in t for t in paired)  # the paired differences' own
    custom = np.asarray(delta["data"][0]["customdata"]["shape"].split(","), dtype=int) \
        if isinstance(delta["data"][0]["customdata"], dict) else None
    assert custom is None or custom[-1] == 4 + PAIRED_COLUMNS
    assert readouts(al)["paired"]["tests"] == ["exact McNemar", "exact sign-flip",
                                               "sign-flip, normal approx.", "no test",
                                               "Wald on the clustered SE"]
    card = str(summary_card(al, summary(al)))
    s = summary(al)
    assert (f"B better in {s['b_sig_better_paired']} of 6 cells (paired, FDR 5%), worse in "
            f"{s['b_sig_worse_paired']}: exact McNemar") in card


def test_different_item_sets_draw_the_paired_difference_and_warn(tmp_path):
    """Issue 37, statistics 3: where A and B answered different items, B - A on the map is the
    paired one on the common items (not the difference of the two maps' values), the items
    only one side has are counted, and a warning names the cells."""
    scores = item_scores(n_items=40, seed=3)
    # B did not answer q000..q009 in (hard, t2); A answered them all
    drop = (scores.model == "large") & (scores.level == "hard") & (scores.task == "t2") \
        & scores["item"].isin([f"q{i:03d}" for i in range(10)])
    catalog = Catalog([items_figure(tmp_path, "toy", scores[~drop])])
    al = compare(catalog, "toy:small", "toy:large")
    i, j = al.y.labels.index("hard"), al.x.labels.index("t2")
    r = al.paired[i, j]
    cell = scores[(scores.level == "hard") & (scores.task == "t2") & ~scores["item"].isin(
        [f"q{i:03d}" for i in range(10)])]
    a = cell[cell.model == "small"].score.mean()
    b = cell[cell.model == "large"].score.mean()
    assert (r.n, r.only_in_a, r.only_in_b) == (30, 10, 0)
    assert al.delta[i, j] == r.diff == pytest.approx(b - a, abs=1e-12)
    assert al.zb[i, j] - al.za[i, j] != pytest.approx(r.diff)  # the maps' own values differ
    assert any("different items in 1 cell (Level hard · Task t2)" in w for w in al.warnings), \
        al.warnings
    # every other cell has the same items on both sides: its B - A is the maps' difference
    others = [(r_, c_) for (r_, c_) in al.paired if (r_, c_) != (i, j)]
    assert all(al.delta[r_, c_] == pytest.approx(al.zb[r_, c_] - al.za[r_, c_]) for r_, c_ in others)


def test_the_headline_average_is_over_items_where_cells_hold_items(tmp_path):
    """Issue 37, statistics 8: a 6-item cell weighs as much as its 6 items, not as a 60-item
    one; the mean over cells is named as such."""
    big = item_scores(ys=("easy",), xs=("t1",), n_items=60, seed=1)
    small = item_scores(ys=("easy",), xs=("t2",), n_items=6, chance={"small": 0.1, "large": 0.9},
                        seed=2)
    catalog = Catalog([items_figure(tmp_path, "toy", pd.concat([big, small]), ys=("easy",),
                                    xs=("t1", "t2"))])
    al = compare(catalog, "toy:small", "toy:large")
    s = summary(al)
    both = pd.concat([big, small])
    a = both[both.model == "small"].score.mean()
    b = both[both.model == "large"].score.mean()
    assert s["items_n"] == 66 and s["items_mean_delta"] == pytest.approx(b - a, abs=1e-9)
    assert s["mean_delta"] != pytest.approx(s["items_mean_delta"])
    first = sentences(al, s)[0]
    assert "on average over the 66 items both answered (the mean over cells is" in first, first



def test_a_fractions_paired_difference_is_a_fraction_or_percentage_points(catalog):
    """A fraction's paired difference reads as a fraction (-0.021, never '-0.021 points'); in
    percentage points when the sides are written as percent; a score out of 100 in points."""
    from components.compare import paired_text, paired_unit
    from evalmaps.figures.compare import readouts

    al = compare(catalog, "toy:small", "toy:large")
    assert (al.a.metric.unit, al.a.metric.range) == ("", (0.0, 1.0))
    (i, j), result = next(iter(al.paired.items()))
    assert paired_unit(al) == "" and readouts(al)["paired"]["unit"] == ""
    text = paired_text(al, result)
    assert "points" not in text
    assert text.startswith(f"paired, {result.n} items: {fmt.signed(result.diff, 3)} [")

    a, b = resolve_pair(catalog, "toy:small", "toy:large")
    pct = with_paired(align(a.as_percent(), b.as_percent()))
    assert paired_unit(pct) == " points"
    assert paired_text(pct, pct.paired[i, j]).startswith(
        f"paired, {result.n} items: {fmt.signed(100 * result.diff, 1)} points [")
    out_of_100 = replace(al, a=replace(al.a, metric=Metric("Pass@1", "", (0.0, 100.0))))
    assert paired_unit(out_of_100) == " points"
    timed = replace(al, a=replace(al.a, metric=Metric("latency", "ms")))
    assert paired_unit(timed) == " ms"
