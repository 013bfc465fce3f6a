"""evalmaps.analysis.trends and components.trends: statistics against numbers computed by hand from the
seeds, the class rule, gaps, observations, URL options, and the line-chart and table builders."""

from __future__ import annotations

import json
import re
from html import escape

import numpy as np
import pandas as pd
import pytest

from components.trends import stats_columns, stats_rows
from evalmaps.analysis.slicing import slice_panel, views_for
from evalmaps.analysis.trends import (
    DEFAULT_THRESHOLD,
    analyse,
    best_worst,
    classify,
    least_squares,
    line_stats,
    lines_of,
    marginal_means,
    marginals_unavailable,
    panel_stats,
    stable_band,
)
from evalmaps.catalog.load import parse_spec, validate_cells
from evalmaps.core.figure import Figure
from evalmaps.core.text import mean_number
from evalmaps.core.text import slope as fmt_slope
from evalmaps.figures.trends import PALETTE, line_color, line_figure
from evalmaps.views.state import TrendsOptions, ViewState, parse_options
from tests.plotly_render import point_hover

S2L = "short-to-long"
CORE = "core-generalization"
QWEN = "dynts-llama-vs-qwen"
BENCH = "dynts-r1-llama-benchmarks"
ACE = "acemath-training-progress"
EVIL = "<b>x</b>"


def views_of(catalog, fid, facets=None, rows=None, x_range=None):
    """The views a page shows for this slice (slicing.views_for, as every page uses it)."""
    state = ViewState(fid, {f: tuple(v) for f, v in (facets or {}).items()},
                      None if rows is None else tuple(rows), x_range)
    views, _ = views_for(catalog.figure(fid), state)
    return views


def stats_by_line(catalog, fid, transpose=False, threshold=DEFAULT_THRESHOLD, **slicing):
    views = views_of(catalog, fid, **slicing)
    return {(v.title, s.line): s for v in views for s in panel_stats(v, transpose, threshold)}


def one(stats, line):
    (found,) = [s for (panel, label), s in stats.items() if label == line]
    return found


# --------------------------------------------------------------------------- seed 001, by hand

def test_short_to_long_type_4_by_hand(catalog):
    s = one(stats_by_line(catalog, S2L), "4")
    # cells 7..11: 85.3, 83.3, 82.3, 78.7, 63.3
    assert (s.n_present, s.n_total) == (5, 15)
    assert s.mean == pytest.approx(78.58)
    assert (s.min, s.min_at, s.max, s.max_at) == (63.3, "11", 85.3, "7")
    assert (s.drop, s.drop_from, s.drop_to) == (15.4, "10", "11")  # the seed's "sharp drop"
    assert (s.drop_from_value, s.drop_to_value) == (78.7, 63.3)
    assert s.slope == pytest.approx(-4.86)  # sum(dx*dy) = -48.6 over sum(dx^2) = 10
    assert s.r2 == pytest.approx(1 - (314.768 - 236.196) / 314.768)
    assert (s.below_at, s.below) == ("10", 78.7)
    assert s.cls == "declining"


def test_short_to_long_type_1_falls_from_77_3_to_46_3(catalog):
    s = one(stats_by_line(catalog, S2L), "1")
    assert (s.first, s.first_at, s.last, s.last_at) == (77.3, "5", 46.3, "9")
    assert s.change == pytest.approx(-31.0)
    assert s.mean == pytest.approx(63.0)
    assert (s.drop, s.drop_from, s.drop_to) == (12.3, "7", "8")
    assert s.slope == pytest.approx(-7.7)
    assert (s.below_at, s.below) == ("5", 77.3)  # already below 80 at its first length
    assert s.cls == "declining"


@pytest.mark.parametrize("line, lo, lo_at, hi, hi_at", [("2", 97.7, "10", 99.0, "7"),
                                                       ("6", 96.3, "17", 99.0, "13")])
def test_short_to_long_stable_rows(catalog, line, lo, lo_at, hi, hi_at):
    s = one(stats_by_line(catalog, S2L), line)
    assert (s.min, s.min_at, s.max, s.max_at) == (lo, lo_at, hi, hi_at)
    assert s.cls == "stable" and s.below_at is None


def test_short_to_long_type_3_dips_at_17(catalog):
    s = one(stats_by_line(catalog, S2L), "3")
    assert (s.drop, s.drop_from, s.drop_to) == (11.7, "16", "17")
    assert s.slope == pytest.approx(-2.46)
    assert (s.below_at, s.below) == ("17", 75.3)


def test_threshold_is_the_users(catalog):
    s = one(stats_by_line(catalog, S2L, threshold=70), "4")
    assert (s.below_at, s.below, s.threshold) == ("11", 63.3, 70.0)
    assert one(stats_by_line(catalog, S2L, threshold=40), "1").below_at is None


def test_x_range_recomputes(catalog):
    s = one(stats_by_line(catalog, S2L, x_range=(7, 9)), "1")
    assert (s.n_present, s.n_total, s.first, s.first_at) == (3, 3, 67.0, "7")
    assert s.mean == pytest.approx((67.0 + 54.7 + 46.3) / 3)
    s4 = one(stats_by_line(catalog, S2L, x_range=(7, 10)), "4")
    assert (s4.drop, s4.drop_from) == (3.6, "9")  # the 15.4 drop at 11 is out of range


# --------------------------------------------------------------------------- seeds 000, 003, 004

def test_core_generalization_classes(catalog):
    stats = stats_by_line(catalog, CORE)
    classes = {label: s.cls for (_, label), s in stats.items()}
    assert classes == {"h": "declining", "~": "stable", "m": "declining", "4": "declining",
                       "u": "rising", "o": "stable", ">": "declining"}
    u = one(stats, "u")
    assert (u.first, u.last, u.n_present, u.n_total) == (80.3, 89.7, 11, 20)


def test_qwen_best_cell_is_window_2000_ratio_0_4(catalog):
    (view,) = views_of(catalog, QWEN, {"model": ["R1-Qwen"]})
    best, worst = best_worst(view)
    assert (best.value, best.cells) == (56.3, (("2000", "0.4"),))
    assert (worst.value, worst.cells) == (51.5, (("500", "0.1"),))


def test_llama_best_and_worst(catalog):
    (view,) = views_of(catalog, QWEN, {"model": ["R1-Llama"]})
    best, worst = best_worst(view)
    assert (best.value, best.cells) == (52.8, (("2000", "0.3"),))
    assert (worst.value, worst.cells) == (49.1, (("3000", "0.1"),))


def test_ties_are_all_listed(catalog):
    (view,) = views_of(catalog, CORE)
    best, _ = best_worst(view)
    assert best.value == 100.0
    assert best.cells == (("~", "0"), ("o", "0"), ("o", "4"))


def test_qwen_marginal_means_by_hand(catalog):
    (view,) = views_of(catalog, QWEN, {"model": ["R1-Qwen"]})
    m = marginal_means(view)
    assert m.by_x.labels == ("0.1", "0.2", "0.3", "0.4", "0.5")
    assert m.by_x.means == pytest.approx((52.5, 53.0, 53.4, 54.575, 53.775))
    assert m.by_x.best == ("0.4", pytest.approx(54.575))
    assert m.by_y.labels == ("500", "1000", "2000", "3000")  # by number, not the source's order
    assert m.by_y.means == pytest.approx((52.84, 53.34, 53.78, 53.84))
    assert m.by_x.counts == (4,) * 5 and m.by_y.counts == (5,) * 4


def test_marginals_skip_missing_columns(catalog):
    (view,) = views_of(catalog, BENCH, {"benchmark": ["AIME24"]})
    m = marginal_means(view)
    assert m.by_x.labels == ("0.1", "0.5")  # 0.2-0.4 are not reported: no mean, not zero
    assert m.by_x.means == pytest.approx((46.4, 44.675))


@pytest.mark.parametrize("fid, reason", [(CORE, "categorical"), (ACE, "categorical"),
                                         (S2L, "complete grids")])
def test_no_marginals_where_they_would_mislead(catalog, fid, reason):
    view = views_of(catalog, fid)[0]
    assert marginal_means(view) is None
    assert reason in marginals_unavailable(view)


# --------------------------------------------------------------------------- gaps

def test_no_drop_across_a_missing_cell(catalog):
    # AIME24, window 500: 43.7 at 0.1, then nothing until 42.7 at 0.5
    s = one(stats_by_line(catalog, BENCH, facets={"benchmark": ["AIME24"]}), "500")
    assert s.n_present == 2 and s.drop is None
    assert s.slope == pytest.approx(-2.5)  # least squares still uses both present cells


def test_no_drop_across_a_hidden_neighbour(catalog):
    full = stats_by_line(catalog, QWEN, transpose=True, facets={"model": ["R1-Llama"]})
    assert (one(full, "0.1").drop, one(full, "0.1").drop_from) == (0.4, "1000")
    hidden = stats_by_line(catalog, QWEN, transpose=True, facets={"model": ["R1-Llama"]},
                           rows=["3000", "1000", "500"])
    assert one(hidden, "0.1").drop is None  # 1000 -> 3000 skips the hidden 2000


def test_transposed_lines_run_along_y_in_number_order(catalog):
    (view,) = views_of(catalog, QWEN, {"model": ["R1-Qwen"]})
    lines = lines_of(view, transpose=True)
    assert [line.label for line in lines] == ["0.1", "0.2", "0.3", "0.4", "0.5"]
    assert lines[3].labels == ("500", "1000", "2000", "3000")
    assert list(lines[3].values) == [54.3, 53.3, 56.3, 54.4]


def test_transposed_short_to_long(catalog):
    s = one(stats_by_line(catalog, S2L, transpose=True), "13")
    assert (s.n_present, s.drop, s.drop_from, s.drop_to) == (2, 33.0, "6", "7")


def test_categorical_axis_has_no_slope_drop_or_direction(catalog):
    """Issue 37 (a new user, 8): a categorical axis's labels have no order, so a line along it
    has no slope, R², drop between neighbours or direction (only "stable" is said of it)."""
    s = one(stats_by_line(catalog, CORE, transpose=True), "0")
    assert s.slope_basis == "none"
    assert (s.slope, s.r2, s.drop) == (None, None, None)
    assert s.cls in ("stable", None)
    assert one(stats_by_line(catalog, CORE), "u").slope_basis == "numeric"


# --------------------------------------------------------------------------- rules

@pytest.mark.parametrize("spread, slope, first, last, n, expected", [
    (5.0, -3.0, 90.0, 85.0, 5, "stable"),       # exactly the band: stable
    (5.1, -3.0, 90.0, 84.9, 5, "declining"),
    (5.1, 3.0, 84.9, 90.0, 5, "rising"),
    (20.0, -1.0, 80.0, 85.0, 5, "mixed"),       # slope down, ends higher
    (20.0, 1.0, 85.0, 80.0, 5, "mixed"),
    (20.0, 0.0, 85.0, 85.0, 5, "mixed"),
    (20.0, None, 85.0, 65.0, 2, "mixed"),       # no slope (x does not vary)
    (0.0, None, 85.0, 85.0, 1, None),           # one cell: not classified
    (None, None, None, None, 0, None),
])
def test_class_rule(spread, slope, first, last, n, expected):
    assert classify(spread, slope, first, last, n, band=5.0) == expected


def test_stable_band_scales_with_the_metric_range(catalog):
    assert stable_band(catalog.figure(S2L).spec.metric) == 5.0
    assert stable_band(catalog.figure(QWEN).spec.metric) == 5.0


def test_least_squares_edge_cases():
    assert least_squares(np.array([1.0]), np.array([3.0])) == (None, None)
    assert least_squares(np.array([1.0, 1.0]), np.array([3.0, 4.0])) == (None, None)
    slope, r2 = least_squares(np.array([1.0, 2.0, 3.0]), np.array([5.0, 5.0, 5.0]))
    assert slope == 0 and r2 is None  # a constant line: nothing for R² to explain
    slope, r2 = least_squares(np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 5.0]))
    assert (slope, r2) == (pytest.approx(2.0), pytest.approx(1.0))


def test_line_stats_on_arrays():
    s = line_stats([np.nan, 90.0, 80.0, np.nan, 60.0], ["a", "b", "c", "d", "e"], decimals=1,
                   band=5.0)
    assert (s.n_present, s.first_at, s.last_at) == (3, "b", "e")
    assert (s.drop, s.drop_from, s.drop_to) == (10.0, "b", "c")  # c -> e crosses the gap at d
    assert s.slope_basis == "numeric" and s.cls == "declining"
    empty = line_stats([np.nan, np.nan], ["a", "b"])
    assert empty.n_present == 0 and empty.mean is None and empty.cls is None


def test_slope_text():
    assert [fmt_slope(v) for v in (-4.86, 7.0, -0.000308, None)] == ["−4.86", "7.00",
                                                                      "−0.000308", "—"]


# --------------------------------------------------------------------------- observations

def sentences_of(catalog, fid, **kw):
    options = {k: kw.pop(k) for k in ("transpose", "threshold") if k in kw}
    return analyse(views_of(catalog, fid, **kw), **options).observations


def test_short_to_long_observations(catalog):
    text = sentences_of(catalog, S2L)
    assert 3 <= len(text) <= 6
    joined = " ".join(text)
    assert "Stable above 95%: types 2 and 6 (lowest value 96.3%)." in text
    assert ("type 1 falls most, from 77.3% at length 5 to 46.3% at length 9 (−31.0 points)"
            in joined)
    assert "type 4 by 15.4 points, from 78.7% at length 10 to 63.3% at 11" in joined
    assert "Highest Accuracy: 99.0% at type 2 at length 7 and type 6 at length 13" in joined


def test_qwen_observations_name_the_best_setting(catalog):
    joined = " ".join(sentences_of(catalog, QWEN))
    assert "56.3 at local window size 2000, ratio 0.4 (R1-Qwen)" in joined
    assert "Effect of ratio (mean over local window sizes)" in joined
    assert "0.4 in R1-Qwen (54.575)" in joined  # a mean: up to two more decimals


def test_sentences_that_do_not_apply_are_left_out(catalog):
    text = sentences_of(catalog, S2L, rows=["2", "6"])
    joined = " ".join(text)
    assert "Stable above 95%: types 2 and 6" in joined
    assert "No type falls below 80%." in text
    for absent in ("Declining", "Rising", "Largest drop", "First length below", "Every line"):
        assert absent not in joined  # no declining row, no drop over 5 points, nothing under 80
    assert not any("stable above" in s.lower() for s in sentences_of(catalog, QWEN))


def test_rows_and_x_range_change_the_sentences(catalog):
    full = sentences_of(catalog, S2L)
    no4 = sentences_of(catalog, S2L, rows=["1", "2", "3", "5", "6", "7"])
    assert any("type 4 by 15.4" in s for s in full)
    assert not any("type 4" in s for s in no4)
    short = sentences_of(catalog, S2L, x_range=(5, 9))
    assert not any("15.4" in s for s in short) and short != full


def test_empty_slice_has_no_observations(catalog):
    assert sentences_of(catalog, S2L, x_range=(19, 19)) == []
    assert analyse([]) is None


def test_illustrative_figure_is_flagged_first(catalog):
    assert "ILLUSTRATIVE" in sentences_of(catalog, ACE)[0]
    assert not any("ILLUSTRATIVE" in s for s in sentences_of(catalog, QWEN))


NUMBER = re.compile(r"[−+-]?\d+(?:\.\d+)?")


def numbers_in(sentence: str) -> list[str]:
    """Whole numeric tokens ('15.4', '−31.0', '78.7%'); names such as 'Pass@1' or '0.5b' are
    not numbers."""
    tokens = (t.rstrip(".%") for t in re.split(r"[\s,;:()]+", sentence))
    return [t for t in tokens if NUMBER.fullmatch(t)]


@pytest.mark.parametrize("fid", [S2L, CORE, QWEN, BENCH, ACE])
@pytest.mark.parametrize("transpose", [False, True])
def test_every_number_in_a_sentence_comes_from_the_slice(catalog, fid, transpose):
    """Each number is a label, a cell value, a statistic of the slice, or a rule constant."""
    views = views_of(catalog, fid)
    trends = analyse(views, transpose=transpose)
    d = trends.decimals
    allowed = {"80", "95", "5", "2"}  # threshold, "stable above", the band, MIN_POINTS
    for v in views:
        allowed |= set(v.y_labels) | set(v.x_labels) | {f"{x:.{d}f}" for x in v.z[np.isfinite(v.z)]}
        allowed |= set(re.findall(r"\d+(?:\.\d+)?", v.title))
    for s in trends.lines:
        allowed |= {f"{abs(x):.{d}f}" for x in (s.change, s.drop) if x is not None}
        allowed |= {mean_number(x, d) for x in (s.mean,) if x is not None}
        allowed |= {str(s.n_present), str(s.n_total)}
    for p in trends.panels:
        allowed |= {mean_number(p.mean, d), str(p.n_present)} if p.mean is not None else set()
        for am in ((p.marginals.by_x, p.marginals.by_y) if p.marginals else ()):
            allowed |= {mean_number(m, d) for m in am.means}
    allowed |= {str(n) for n in range(len(trends.lines) + 1)}  # "12 of the 16 lines"
    for sentence in trends.observations:
        for number in numbers_in(sentence):
            assert number.lstrip("−+-") in allowed, (number, sentence)


def make_figure(labels_y, labels_x, rows, metric=None, facet=("f", ["p"])):
    """A small synthetic figure: rows = {y label: [values or None per x label]}."""
    spec = parse_spec({
        "id": "synthetic", "file": "s.csv",
        "metric": metric or {"name": "Score", "unit": "%", "range": [0, 100]},
        "x": "x", "y": "y", "facets": [facet[0]], "provenance": "uploaded",
        "dims": {facet[0]: {"title": "Facet", "labels": facet[1]},
                 "y": {"title": "Row", "labels": labels_y},
                 "x": {"title": "Step", "labels": labels_x}},
    }, where="test")
    records = [{facet[0]: facet[1][0], "y": y, "x": x, "value": "" if v is None else str(v)}
               for y, values in rows.items() for x, v in zip(labels_x, values)]
    cells, decimals = validate_cells(pd.DataFrame(records, dtype=str), spec, file="s.csv")
    return Figure(spec, cells, decimals)


def test_sentences_are_not_written_for_one_figure():
    fig = make_figure(["a", "b"], ["1", "2", "3", "4"],
                      {"a": [40.5, 30.5, 20.5, 10.5], "b": [99.5, 99.0, 98.5, 99.0]})
    views = [slice_panel(fig, p) for p in fig.panels.values()]
    text = analyse(views).observations
    assert "Stable above 95%: row b (lowest value 98.5%)." in text
    assert ("Declining with step: row a, from 40.5% at step 1 to 10.5% at step 4 "
            "(−30.0 points).") in text
    assert any("row a by 10.0 points, from 40.5% at step 1 to 30.5% at 2" in s for s in text)


# --------------------------------------------------------------------------- options and JSON

@pytest.mark.parametrize("query, expected", [
    ({}, TrendsOptions()),
    ({"transpose": "1", "overlay": ["1"], "threshold": "75"}, TrendsOptions(True, True, 75.0)),
    ({"threshold": ["62.5"]}, TrendsOptions(threshold=62.5)),
    ({"transpose": "0", "threshold": ""}, TrendsOptions()),
])
def test_parse_options(query, expected):
    assert parse_options(query) == expected


@pytest.mark.parametrize("query", [{"threshold": "abc"}, {"threshold": "inf"},
                                   {"threshold": "nan"}, {"transpose": "maybe"}])
def test_bad_options_are_ignored_with_a_problem(query):
    options = parse_options(query)
    assert options.threshold is None and not options.transpose  # None: the default
    assert len(options.problems) == 1


def test_options_in_the_url_leave_defaults_out():
    state = ViewState("short-to-long", rows=("1", "4"))
    assert state.to_query(extra=TrendsOptions().extra()) == "?figure=short-to-long&rows=1&rows=4"
    query = state.to_query(extra=TrendsOptions(True, True, 75.0).extra())
    assert query == "?figure=short-to-long&rows=1&rows=4&transpose=1&overlay=1&threshold=75"


@pytest.mark.parametrize("fid", [S2L, CORE, QWEN, BENCH, ACE])
def test_report_is_strict_json(catalog, fid):
    trends = analyse(views_of(catalog, fid), transpose=True)
    text = json.dumps(trends.to_dict(), allow_nan=False)  # no NaN, no numpy types
    assert json.loads(text)["lines"]


# --------------------------------------------------------------------------- builders

def traces_by_name(fig):
    return {t["name"]: t for t in fig["data"]}


def test_line_chart_breaks_at_missing_cells_and_hovers_exact_values(catalog):
    (view,) = views_of(catalog, S2L)
    fig = line_figure([view])
    traces = traces_by_name(fig)
    assert set(traces) == {"1", "2", "3", "4", "5", "6", "7"}
    t4 = traces["4"]
    assert t4["connectgaps"] is False and t4["mode"] == "lines+markers"
    assert t4["x"] == [float(x) for x in range(5, 20)]
    assert t4["y"] == [None, None, 85.3, 83.3, 82.3, 78.7, 63.3] + [None] * 8
    assert point_hover(t4, 6) == "Type 4 · Length 11 · Accuracy 63.3%<br>Model Qwen-2.5 7B"
    assert t4["hovertemplate"] == ("Type 4 · Length %{text} · Accuracy %{y:.1f}%"
                                   "<br>Model Qwen-2.5 7B<extra></extra>")
    assert fig["layout"]["xaxis"]["type"] == "linear"


def test_hidden_neighbour_breaks_the_line(catalog):
    (view,) = views_of(catalog, QWEN, {"model": ["R1-Llama"]}, rows=["3000", "1000", "500"])
    trace = traces_by_name(line_figure([view], transpose=True))["0.1"]
    assert trace["x"] == [500.0, 1000.0, None, 3000.0]
    assert trace["y"] == [49.8, 49.9, None, 49.1]


def test_colours_are_consistent_across_panels_and_slices(catalog):
    llama, qwen = views_of(catalog, QWEN)
    a = traces_by_name(line_figure([llama]))
    b = traces_by_name(line_figure([qwen], names=["R1-Qwen"]))
    c = traces_by_name(line_figure([slice_panel(catalog.figure(QWEN), qwen.panel, ["2000"])]))
    assert (a["2000"]["line"]["color"] == b["2000"]["line"]["color"]
            == c["2000"]["line"]["color"] == line_color(1))
    assert a["3000"]["line"]["color"] != a["2000"]["line"]["color"]


def test_overlay_groups_panels(catalog):
    views = views_of(catalog, QWEN)
    fig = line_figure(views, names=["R1-Llama", "R1-Qwen"])
    assert len(fig["data"]) == 8
    assert {t["legendgroup"] for t in fig["data"]} == {"r1-llama", "r1-qwen"}
    assert {t["line"]["dash"] for t in fig["data"]} == {"solid", "dash"}
    titles = [t["legendgrouptitle"]["text"] for t in fig["data"] if "legendgrouptitle" in t]
    assert titles == ["R1-Llama", "R1-Qwen"]


def test_categorical_axis_keeps_the_source_order(catalog):
    (view,) = views_of(catalog, CORE)
    fig = line_figure([view], transpose=True)
    assert fig["layout"]["xaxis"]["type"] == "category"
    assert fig["layout"]["xaxis"]["categoryarray"] == ["h", "~", "m", "4", "u", "o", "&gt;"]


def test_threshold_line_only_near_the_data(catalog):
    (s2l,) = views_of(catalog, S2L)
    layout = line_figure([s2l], threshold=80)["layout"]
    assert [(s["y0"], s["y1"], s["line"]["dash"]) for s in layout["shapes"]] == [(80, 80, "dot")]
    assert [a["text"] for a in layout["annotations"]] == ["threshold 80%"]
    (qwen,) = views_of(catalog, QWEN, {"model": ["R1-Qwen"]})
    assert line_figure([qwen], threshold=80)["layout"]["shapes"] == []  # would squash 51-57


def test_empty_lines_are_not_drawn(catalog):
    (view,) = views_of(catalog, S2L, x_range=(5, 6))
    assert set(traces_by_name(line_figure([view]))) == {"1", "2"}


def test_table_rows_and_columns(catalog):
    trends = analyse(views_of(catalog, S2L))
    rows = {r["line_text"]: r for r in stats_rows(trends)}
    r4 = rows["4"]
    assert (r4["drop"], r4["drop_text"]) == (15.4, "15.4 (10 → 11)")
    assert r4["min_text"] == "63.3% at 11" and r4["max_text"] == "85.3% at 7"
    assert r4["mean_text"] == "78.58%" and r4["n_text"] == "5 of 15"
    assert r4["below_text"] == "10 (78.7%)" and rows["2"]["below_text"] == "never"
    assert r4["cls"] == "declining" and r4["slope_text"] == "−4.86"
    columns = stats_columns(trends.spec, False, 80.0, multi=False)
    headers = [c["headerName"] for c in columns]
    assert headers[:2] == ["Type", "Cells"] and "Slope per length" in headers
    assert "First < 80%" in headers and "Panel" not in headers
    json.dumps(stats_rows(trends), allow_nan=False)


def test_table_gives_no_slope_along_a_categorical_axis(catalog):
    spec = catalog.figure(CORE).spec
    columns = stats_columns(spec, True, 80.0, multi=False)
    headers = [c["headerName"] for c in columns]
    assert "Slope" in headers and "Slope per step" not in headers
    trends = analyse(views_of(catalog, CORE), transpose=True)
    rows = stats_rows(trends)
    assert {(r["slope_text"], r["r2_text"], r["drop_text"]) for r in rows} == {("n/a",) * 3}
    assert {r["cls"] for r in rows} <= {"stable", "not classified"}


MMLU = "mmlu-pro"


def test_no_trend_along_unordered_categories_and_overlaid_models_differ(catalog):
    """Issue 37 (a new user, 8): MMLU-Pro, transposed (one line per model, along its 14
    categories), said "Declining with category: ... from biology to psychology", and drew every
    overlaid model in one colour. The categories have no order: no slope, drop or direction is
    said; overlaid panels that each draw the same one line take a colour each."""
    views = views_of(catalog, MMLU)
    assert len(views) == 2 and not catalog.figure(MMLU).spec.dims["category"].numeric
    trends = analyse(views, transpose=True)
    assert all(s.slope is None and s.drop is None and s.cls in ("stable", None)
               for s in trends.lines)
    text = " ".join(trends.observations)
    for word in ("Declining", "Rising", "declining", "rising", "mixed", "Largest drop", "slope",
                 "categorys"):
        assert word not in text, (word, text)
    assert trends.to_dict()["slope_basis"] == "none"
    assert all("no slope" in n or "Slope" not in n for n in trends.to_dict()["rules"]["notes"])
    fig = line_figure(views, transpose=True)
    lines = [t for t in fig["data"] if t.get("mode") == "lines+markers"]
    colours = [t["line"]["color"] for t in lines]
    assert len(lines) == len(views) and len(set(colours)) == min(len(views), len(PALETTE))
    rows = stats_rows(trends, overlay=True)
    assert [r["color"] for r in rows] == colours  # the table's colour is the chart's
    assert len({r["color"] for r in stats_rows(trends)}) == 1  # one chart per panel: one line


def test_plurals():
    from evalmaps.analysis.trends import plural
    assert [plural(w) for w in ("Category", "Length", "Local Window Size", "Ratios", "Day",
                                "Box")] == ["categories", "lengths", "local window sizes",
                                            "ratios values", "days", "boxes"]


def test_labels_are_escaped_in_charts():
    fig = make_figure([EVIL, "ok"], ["1", "2"], {EVIL: [50.0, 40.0], "ok": [60.0, None]},
                      facet=("f", [EVIL]))
    view = slice_panel(fig, next(iter(fig.panels.values())))
    chart = line_figure([view], transpose=True)
    assert chart["layout"]["xaxis"]["categoryarray"] == [escape(EVIL), "ok"]
    texts = [point_hover(trace, k) for trace in chart["data"] for k, y in enumerate(trace["y"])
             if y is not None]
    assert texts and all("<b>x</b>" not in t for t in texts)
    assert texts[0] == f"Row {escape(EVIL)} · Step 1 · Score 50.0%<br>Facet {escape(EVIL)}"
    assert escape(EVIL) in chart["layout"]["title"]["text"]


def test_many_points_are_drawn_with_webgl_and_stay_exact():
    """Above GL_POINTS a chart's lines are scattergl with typed values; gaps stay gaps."""
    from evalmaps.figures.trends import GL_POINTS
    from tests.plotly_render import decode

    xs = [str(j) for j in range(100)]
    rows = {f"r{i}": [None if (i + j) % 37 == 0 else round((i * 7 + j * 3) % 1000 / 10, 1)
                      for j in range(100)] for i in range(GL_POINTS // 100 + 1)}
    fig = make_figure(list(rows), xs, rows)
    chart = line_figure([slice_panel(fig, next(iter(fig.panels.values())))])
    assert {t["type"] for t in chart["data"]} == {"scattergl"}
    for trace in chart["data"]:
        ys = decode(trace["y"])
        expected = rows[trace["meta"][0]]
        assert [None if v != v else f"{v:.1f}" for v in ys] == \
            [None if v is None else f"{v:.1f}" for v in expected]
        np.testing.assert_array_equal(decode(trace["x"]), np.arange(100.0))


def test_few_points_stay_svg_lines_with_markers(catalog):
    (view,) = views_of(catalog, S2L)
    assert {t["type"] for t in line_figure([view])["data"]} == {"scatter"}


def test_band_of_1_96_se_where_cells_have_one():
    """A line's band is value ± 1.96 se over runs of neighbouring points with an se; a missing
    cell or a point without se (or with an se of 0 that cannot be right) ends a run, and a lone
    point has none. The hover gives ± se when every point of the line has one."""
    import pandas as pd

    from evalmaps.analysis.slicing import slice_panel
    from evalmaps.catalog.load import parse_spec, validate_cells
    from evalmaps.core.figure import Figure
    from evalmaps.figures.trends import line_figure

    rows = [("m", "arc", "1", "0.40", "0.01"), ("m", "arc", "2", "0.50", "0.02"),
            ("m", "arc", "3", "0.60", "0.01"), ("m", "arc", "5", "0.70", "0.03"),
            ("m", "arc", "6", "0.80", "0.02"),
            ("m", "piqa", "1", "0.30", "0.01"), ("m", "piqa", "2", "0.35", "0"),
            ("m", "piqa", "3", "0.45", "0.02")]
    frame = pd.DataFrame(rows, columns=["model", "task", "step", "value", "se"])
    spec = parse_spec({"id": "b", "file": "b.csv", "metric": {"name": "acc", "range": [0, 1]},
                       "x": "step", "y": "task", "facets": ["model"], "provenance": "imported",
                       "dims": {"model": {"labels": ["m"]},
                                "task": {"title": "Task", "labels": ["arc", "piqa"]},
                                "step": {"title": "Step",
                                         "labels": ["1", "2", "3", "4", "5", "6"]}}},
                      where="test")
    cells, decimals = validate_cells(frame, spec, file="b.csv")
    fig = Figure(spec, cells, decimals)
    data = line_figure([slice_panel(fig, fig.panels["m"])])["data"]
    bands = [t for t in data if t.get("fill") == "toself"]
    assert [t["meta"][0] for t in bands] == ["arc"]  # piqa: its 0 at step 2 cuts every run
    band = bands[0]
    # arc: steps 1-3 and 5-6 (4 is missing); upper edge left to right, lower edge back
    assert band["x"] == [1.0, 2.0, 3.0, 3.0, 2.0, 1.0, None, 5.0, 6.0, 6.0, 5.0]
    assert band["y"] == pytest.approx([0.4196, 0.5392, 0.6196, 0.5804, 0.4608, 0.3804, None,
                                       0.7588, 0.8392, 0.7608, 0.6412])
    assert band["hoverinfo"] == "skip" and band["legendgroup"] == data[1]["legendgroup"]
    arc, piqa = (t for t in data if t.get("mode") == "lines+markers")
    assert arc["customdata"] == [0.01, 0.02, 0.01, None, 0.03, 0.02]
    assert arc["hovertemplate"].startswith("Task arc · Step %{text} · acc %{y:.2f} ± "
                                           "%{customdata:.3f} se")
    assert "customdata" not in piqa and " se" not in piqa["hovertemplate"]
