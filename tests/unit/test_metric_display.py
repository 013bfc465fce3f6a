"""Each panel shown with its own metric (issue 9): lower-is-better panels (best means lowest,
reversed colours), fractions as percent (pct=1), log colours (zscale=log). Whole results."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalmaps.analysis.compare import compare, sentences, summary
from evalmaps.analysis.slicing import scale_notes, view_ranges, views_for
from evalmaps.analysis.trends import analyse
from evalmaps.catalog.load import load_catalog
from evalmaps.figures.compare import DELTA_COLORSCALE, compare_figures, readouts
from evalmaps.figures.heatmap import heatmap_figure, log_ticks
from evalmaps.figures.theme import UNIFORM_SCALE, colorscale_of, reversed_stops
from evalmaps.views.state import ViewState, parse_state
from tests.plotly_render import decode

PPL = {"r1": {"m1": ["30", "20", "10"], "m2": ["50", "45", "40"], "m3": ["12", "11", "9"]},
       "r2": {"m1": ["28", "21", "10"], "m2": ["52", "40", "41"], "m3": ["12", "12", "8"]}}
ACC = {"r1": {"m1": ["0.20", "0.30", "0.40"], "m2": ["0.10", "0.20", "0.25"],
              "m3": ["0.50", "0.60", "0.70"]},
       "r2": {"m1": ["0.25", "0.30", "0.45"], "m2": ["0.10", "0.15", "0.30"],
              "m3": ["0.50", "0.65", "0.70"]}}
ENTRY = {
    "id": "mixed", "file": "figures/mixed.csv", "title": "Mixed measures",
    "metric": {"name": "score"}, "x": "step", "y": "model", "facets": ["metric", "run"],
    "dims": {"metric": {"title": "Metric", "labels": ["acc", "perplexity"]},
             "run": {"title": "Run", "labels": ["r1", "r2"]},
             "model": {"title": "Model", "labels": ["m1", "m2", "m3"]},
             "step": {"title": "Step", "labels": ["1", "2", "3"]}},
    "metrics": {"dim": "metric", "labels": {
        "acc": {"name": "acc", "range": [0, 1]},
        "perplexity": {"name": "perplexity", "higher_is_better": False}}},
    "provenance": "imported",
}


def write_mixed(root, **entry) -> None:
    """A data folder (catalog.json, figures/mixed.csv) with the made-up figure above."""
    (root / "figures").mkdir(parents=True)
    (root / "catalog.json").write_text(json.dumps({"figures": [{**ENTRY, **entry}]}),
                                       encoding="utf-8")
    lines = ["metric,run,model,step,value"]
    for metric, table in (("acc", ACC), ("perplexity", PPL)):
        for run, rows in table.items():
            for model, values in rows.items():
                lines += [f"{metric},{run},{model},{step},{v}" for step, v in
                          zip("123", values)]
    (root / "figures" / "mixed.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    root = tmp_path_factory.mktemp("mixed")
    write_mixed(root)
    return load_catalog(root)


def views(catalog, **query):
    state = parse_state({"figure": "mixed", **query}, catalog)
    found, empty = views_for(catalog.figure("mixed"), state)
    assert empty is None
    return found


def test_each_view_has_its_panels_metric(catalog):
    vs = views(catalog)
    assert [(v.title, v.metric.name, v.metric.higher_is_better, v.metric.range) for v in vs] == [
        ("acc | r1", "acc", True, (0, 1)), ("acc | r2", "acc", True, (0, 1)),
        ("perplexity | r1", "perplexity", False, None),
        ("perplexity | r2", "perplexity", False, None)]


def test_colour_ranges_per_metric(catalog):
    vs = views(catalog)
    # by default (figure, no range of its own) the panels of a metric share its range; a mode
    # that lets a panel scale itself (fixed for an unbounded metric, panel) gives its extent
    assert view_ranges(vs[0].spec, vs) == [
        {"figure": (0.1, 0.7), "fixed": (0.0, 1.0), "shared": (0.1, 0.7), "panel": (0.1, 0.7)},
        {"figure": (0.1, 0.7), "fixed": (0.0, 1.0), "shared": (0.1, 0.7), "panel": (0.1, 0.7)},
        {"figure": (8.0, 52.0), "fixed": (9.0, 50.0), "shared": (8.0, 52.0),
         "panel": (9.0, 50.0)},
        {"figure": (8.0, 52.0), "fixed": (8.0, 52.0), "shared": (8.0, 52.0),
         "panel": (8.0, 52.0)}]


def test_sort_by_mean_is_best_first_in_each_direction(catalog):
    ppl = views(catalog, metric="perplexity", run="r1", sort="mean")
    assert ppl[0].y_labels == ("m3", "m1", "m2")  # means 10.67, 20, 45: lowest first
    acc = views(catalog, metric="acc", run="r1", sort="mean")
    assert acc[0].y_labels == ("m3", "m1", "m2")  # means 0.6, 0.3, 0.183: highest first
    top = views(catalog, metric="perplexity", top="1")
    assert top[0].y_labels == ("m3",)
    # both directions: by mean rank (m3 is best in all four panels, m2 worst)
    both = views(catalog, sort="mean")
    assert both[0].y_labels == ("m3", "m1", "m2")
    col = views(catalog, metric="perplexity", sort="col:1")
    assert col[0].y_labels == ("m3", "m1", "m2")  # 12, 29, 51


def test_lower_is_better_panel_figure_is_reversed(catalog):
    v = views(catalog, metric="perplexity", run="r1")[0]
    ranges = view_ranges(v.spec, [v])[0]
    fig = heatmap_figure(v, ranges["figure"], ranges=ranges)
    main = fig["data"][0]
    drawn = main["meta"]["scales"][main["meta"]["scale"]]
    assert main["colorscale"] == drawn == reversed_stops(colorscale_of(UNIFORM_SCALE))
    assert main["colorscale"][0][1] == colorscale_of(UNIFORM_SCALE)[-1][1]  # best (low) = top
    assert main["colorbar"]["title"]["text"] == "perplexity"
    assert fig["layout"]["title"]["text"] == "perplexity | r1 · lower is better"
    assert main["hovertemplate"] == ("Model %{y} · Step %{x} · perplexity %{z:.0f} "
                                     "(lower is better)<br>Metric perplexity · Run r1"
                                     "<extra></extra>")
    acc = views(catalog, metric="acc", run="r1")[0]
    fig = heatmap_figure(acc, (0.0, 1.0), ranges=view_ranges(acc.spec, [acc])[0])
    assert fig["data"][0]["colorscale"] == colorscale_of(UNIFORM_SCALE)
    assert (fig["data"][0]["zmin"], fig["data"][0]["zmax"]) == (0.0, 1.0)
    assert scale_notes(views(catalog)) == [
        "Lower is better for perplexity: its colour scale is reversed, so the best cells have "
        "the same colour everywhere, and best means lowest."]


def test_percent_templates(catalog):
    acc = views(catalog, metric="acc", run="r1", pct="1")[0]
    assert acc.percent and acc.shown.unit == "%"
    fig = heatmap_figure(acc, (0.0, 1.0), ranges=view_ranges(acc.spec, [acc])[0])
    main = fig["data"][0]
    assert main["hovertemplate"] == ("Model %{y} · Step %{x} · acc %{z:.0%}<br>Metric acc · "
                                     "Run r1<extra></extra>")
    assert main["meta"]["texttemplate"] == "%{z:.0%}"
    assert main["colorbar"] == {"title": {"text": "acc (%)", "side": "right"}, "thickness": 14,
                                "x": 1, "xanchor": "left", "xpad": 10, "tickformat": ".4~%"}
    np.testing.assert_array_equal(decode(main["z"]), np.float32(  # data stays raw (exact f4)
        [[0.2, 0.3, 0.4], [0.1, 0.2, 0.25], [0.5, 0.6, 0.7]]))
    ppl = views(catalog, metric="perplexity", run="r1", pct="1")[0]
    assert not ppl.percent  # not a fraction: as the data gives it
    assert scale_notes(views(catalog, pct="1"))[-1] == (
        "Percent is for fractions (a metric from 0 to 1): perplexity is shown as the data "
        "gives it.")
    assert ViewState("mixed", pct=True, zscale="log").to_query() == (
        "?figure=mixed&pct=1&zscale=log")


def test_log_colours(catalog):
    v = views(catalog, metric="perplexity", run="r1", zscale="log")[0]
    assert v.log_scale
    ranges = view_ranges(v.spec, [v])[0]
    own = (float(np.log10(9)), float(np.log10(50)))
    assert ranges == {"figure": own, "fixed": own, "shared": own, "panel": own}
    fig = heatmap_figure(v, ranges["shared"], ranges=ranges)
    main = fig["data"][0]
    np.testing.assert_allclose(decode(main["z"]), np.log10([[30, 20, 10], [50, 45, 40],
                                                            [12, 11, 9]]))
    assert main["text"] == [[30.0, 20.0, 10.0], [50.0, 45.0, 40.0], [12.0, 11.0, 9.0]]
    # perplexity: whole numbers in the file, written with no decimals (acc keeps its two)
    assert main["meta"]["texttemplate"] == "%{text:.0f}"
    assert main["hovertemplate"].startswith("Model %{y} · Step %{x} · perplexity %{text:.0f}")
    assert main["colorbar"]["ticktext"] == ["10", "20", "50"]
    assert log_ticks(0, 4) == ([0.0, 1.0, 2.0, 3.0, 4.0], ["1", "10", "100", "1000", "10000"])
    acc = views(catalog, metric="acc", run="r1", zscale="log")[0]
    assert not acc.log_scale
    assert scale_notes(views(catalog, zscale="log")) == [
        "Lower is better for perplexity: its colour scale is reversed, so the best cells have "
        "the same colour everywhere, and best means lowest.",
        "Log colours are for metrics without a range: acc keeps linear colours."]


def test_log_refused_for_values_at_or_below_zero():
    from evalmaps.analysis.slicing import log_unavailable
    from evalmaps.core.figure import Metric
    assert log_unavailable(Metric("loss"), np.array([[1.0, 0.0]])) == "nonpositive"
    assert log_unavailable(Metric("loss"), np.array([[1.0, np.nan]])) is None


def test_trends_on_a_lower_is_better_panel(catalog):
    t = analyse(views(catalog, metric="perplexity", run="r1"), threshold=15)
    p = t.panels[0]
    assert (p.best.value, p.best.cells, p.worst.value, p.worst.cells) == (
        9.0, (("m3", "3"),), 50.0, (("m2", "1"),))
    assert [(s.line, s.side, s.below_at, s.below) for s in t.lines] == [
        ("m1", "above", "1", 30.0), ("m2", "above", "1", 50.0), ("m3", "above", None, None)]
    assert p.marginals is None  # model is categorical
    assert t.observations == [
        "Declining with step: models m1 and m2; model m1 falls most, from 30 at step 1 to "
        "10 at step 3 (−20; lower is better).",  # perplexity: no 'points', no decimals
        "Largest drops between neighbouring steps: model m1 by 10, from 30 at step "
        "1 to 20 at 2 (lower is better: an improvement); model m2 by 5, from 50 "
        "at step 1 to 45 at 2 (lower is better: an improvement).",
        "Above 15 (lower is better): models m1 and m2 are above it from the first step shown; "
        "model m3 never goes above it.",
        "Lowest perplexity (best: lower is better): 9 at model m3, step 3; highest (worst): "
        "50 at model m2, step 1.",
        "Stable (max − min ≤ 5): model m3."]


def test_compare_lower_is_better_counts_and_sentences(catalog):
    al = compare(catalog, "mixed:perplexity-r1", "mixed:perplexity-r2")
    s = summary(al)
    # B - A: m1 [-2, +1, 0], m2 [+2, -5, +1], m3 [0, +1, -1]
    assert {k: s[k] for k in ("higher_is_better", "b_higher", "b_lower", "equal", "b_better",
                              "b_worse")} == {"higher_is_better": False, "b_higher": 4,
                                              "b_lower": 3, "equal": 2, "b_better": 3,
                                              "b_worse": 4}
    assert s["largest_gain"]["delta"] == -5.0 and s["largest_loss"]["delta"] == 2.0
    assert s["best_a"] == {"model": "m3", "step": "3", "value": 9.0}
    assert s["best_b"] == {"model": "m3", "step": "3", "value": 8.0}
    assert sentences(al) == [
        "perplexity | r2 is better (lower) than perplexity | r1 in 3 of 9 cells (2 equal), and "
        "lower by 0.33 on average over cells (better).",
        "The largest gain (lower is better) is -5 at Model m2 · Step 2; the largest loss is "
        "+2 at Model m2 · Step 1.",
        "Significance cannot be judged from this data: neither side gives a standard error."]
    fa, fb, fd = compare_figures(al, "shared", True)
    assert fa["data"][0]["colorscale"] == reversed_stops(colorscale_of(UNIFORM_SCALE))
    assert fd["data"][0]["colorscale"] == reversed_stops(colorscale_of(DELTA_COLORSCALE))
    assert fd["data"][0]["colorbar"]["title"]["text"] == "B − A (blue: B better)"
    # whole-number differences over -5..+5: the colour bar is ticked at whole numbers, as A's
    assert (fd["data"][0]["zmin"], fd["data"][0]["zmax"]) == (-5.0, 5.0)
    assert {k: fd["data"][0]["colorbar"].get(k) for k in ("dtick", "tick0")} == {
        "dtick": 1, "tick0": 0}
    assert readouts(al)["lower_better"] is True


def test_compare_percent(catalog):
    a = compare(catalog, "mixed:acc-r1", "mixed:acc-r2")
    pa, pb = a.a.as_percent(), a.b.as_percent()
    from evalmaps.analysis.compare import align
    al = align(pa, pb)
    assert sentences(al)[0] == ("acc | r2 is higher than acc | r1 in 4 of 9 cells (4 equal), "
                                "by 1.67 percentage points on average over cells.")
    assert al.format_delta(0.05) == "+5"
    fa, _, fd = compare_figures(al, "fixed", True)
    assert fa["data"][0]["hovertemplate"].split("<br>")[1] == "acc %{z:.0%}"
    assert (fa["data"][0]["zmin"], fa["data"][0]["zmax"]) == (0.0, 1.0)
    # B − A of percentages: percentage points (values times 100, no '%'; issue 37)
    assert fd["data"][0]["meta"]["texttemplate"] == "%{z:+.0f}"
    assert "tickformat" not in fd["data"][0]["colorbar"]
    assert fd["data"][0]["colorbar"]["title"]["text"] == "B − A (points)"
    assert " points" in fd["data"][0]["hovertemplate"].split("<br>")[1]
    assert readouts(al)["a"] == [0, None, 100, "%"] and readouts(al)["unit"] == " points"
