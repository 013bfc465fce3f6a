"""Trends on one's own results (issue "Own results, end to end"): Pythia's lm-eval sweep, built
in and imported (model labels 'EleutherAI/pythia-v1.1-<size>', steps 0..143000, fractions).
The axis over training steps (log x, its rule and its ticks), the threshold on the metric's own
scale, differences in the metric's terms, labels without their shared prefix, one colour per
line, one number of decimals per table column."""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import parse_qs

import numpy as np
import pytest

from components.trends import (
    CELL_CHAR_PX,
    CELL_PADDING_PX,
    MAX_FITTED_PX,
    _cells_text,
    fit_widths,
    panel_summaries,
    stats_columns,
    stats_rows,
)
from evalmaps.analysis.slicing import slice_panel, views_for
from evalmaps.analysis.trends import (
    DEFAULT_THRESHOLD,
    AxisScale,
    Extreme,
    analyse,
    axis_scale,
    class_rule,
    default_threshold,
    log_axis_default,
    log_axis_unavailable,
    prefix_note,
)
from evalmaps.core.figure import Figure, Metric
from evalmaps.core.text import change, mean_column, slope_column
from evalmaps.figures.trends import LEGEND_BELOW_PX, PALETTE, line_figure
from evalmaps.views.state import TrendsOptions, parse_options, parse_state
from tests.plotly_render import fill

PYTHIA = "pythia-zero-shot"
SIZES = ("70m", "160m", "410m", "1b-bf16", "1.4b", "2.8b", "6.9b", "12b")
STEPS = ("0", "1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1000", "3000",
         "13000", "23000", "33000", "43000", "53000", "63000", "73000", "83000", "93000",
         "103000", "113000", "123000", "133000", "143000")
PREFIX = "EleutherAI/pythia-v1.1-"


def pythia_views(catalog, query: str = "", figure: Figure | None = None):
    """The views /trends?figure=pythia-zero-shot&<query> shows (one panel: arc_challenge, acc)."""
    figure = figure or catalog.figure(PYTHIA)
    views, empty = views_for(figure, parse_state({"figure": figure.id, **parse_qs(query)},
                                                 catalog))
    assert empty is None
    return views


def imported(catalog) -> Figure:
    """The built-in Pythia figure as an import names its models: 'EleutherAI/pythia-v1.1-70m'."""
    figure = catalog.figure(PYTHIA)
    spec = figure.spec
    model = spec.dims["model"]
    renamed = replace(model, labels=tuple(PREFIX + label for label in model.labels))
    cells = figure.cells.assign(model=PREFIX + figure.cells["model"].astype(str))
    return Figure(replace(spec, dims={**spec.dims, "model": renamed}), cells, figure.decimals)


# --------------------------------------------------------------------------- colours

def test_pythia_draws_eight_lines_in_eight_colours(catalog):
    (view,) = pythia_views(catalog)
    lines = [t for t in line_figure([view])["data"] if t.get("mode") == "lines+markers"]
    colours = {t["name"]: t["line"]["color"] for t in lines}
    assert list(colours) == list(SIZES)
    assert list(colours.values()) == list(PALETTE[:8])  # 70m and 12b shared one blue


# --------------------------------------------------------------------------- threshold

@pytest.mark.parametrize("metric, values, expected", [
    (Metric("acc", "", (0, 1)), None, 0.8),
    (Metric("Accuracy", "%", (0, 100)), None, 80.0),
    (Metric("acc", "", (0, 1)).as_percent(), None, 0.8),  # pct=1 writes it 80%: same level
    (Metric("score", "", (-1, 1)), None, 0.6),
    (Metric("error", "%", (0, 100), higher_is_better=False), None, 20.0),  # from the worst end
    # no range: 80% of the values' range, to two significant digits of that range
    (Metric("likelihood_difference"), [1.0, 2.0, 6.0, np.nan], 5.0),
    (Metric("score"), [12.3, 57.9, 30.0], 49.0),  # 12.3 + 0.8 * 45.6 = 48.78
    (Metric("score"), [0.2132, 0.7024], 0.6),  # 0.2132 + 0.8 * 0.4892 = 0.6046
    (Metric("ppl", higher_is_better=False), [10.0, 110.0], 30.0),
    (Metric("score"), [3.0, 3.0], 3.0),  # one value: the level is that value
    (Metric("score"), [np.nan], DEFAULT_THRESHOLD),  # nothing reported
    (Metric("score"), None, DEFAULT_THRESHOLD),
])
def test_the_default_threshold_is_80_percent_of_the_range(metric, values, expected):
    values = None if values is None else np.array(values)
    assert default_threshold(metric, values) == expected


def test_pythia_takes_0_8_and_a_given_threshold_still_rules(catalog):
    (view,) = pythia_views(catalog)
    trends = analyse([view])
    assert (trends.threshold, trends.thresholds, trends.threshold_default) == (0.8, [0.8], True)
    assert {s.threshold for s in trends.lines} == {0.8}
    given = analyse([view], threshold=0.25)
    assert (given.threshold, given.threshold_default) == (0.25, False)
    rows = {r["line_text"]: r["below_text"] for r in stats_rows(given)}
    assert rows["70m"] == "every cell"  # never reaches 0.25
    assert rows["12b"] == "0 (0.2176)" and rows["1.4b"] == "0 (0.2312)"
    # the URL's key: given, it is kept; absent, None (each panel's default)
    assert parse_options({"threshold": "0.25"}).threshold == 0.25
    assert parse_options({}).threshold is None
    assert TrendsOptions(threshold=0.8).extra() == {"threshold": "0.8"}
    assert TrendsOptions().extra() == {}


def test_the_table_says_every_cell_rather_than_the_first_step(catalog):
    """At 0.8 every Pythia value is below from step 0: '0 (0.2142)' read as if something
    happened at step 0."""
    (view,) = pythia_views(catalog)
    trends = analyse([view])
    columns = stats_columns(trends.spec, False, trends.thresholds, False, [view.shown])
    assert [c["headerName"] for c in columns if c["field"] == "below"] == ["First < 0.8"]
    rows = {r["line_text"]: r["below_text"] for r in stats_rows(trends)}
    assert rows["70m"] == rows["12b"] == "every cell"
    (pct,) = pythia_views(catalog, "pct=1")
    trends = analyse([pct])
    columns = stats_columns(trends.spec, False, trends.thresholds, False, [pct.shown])
    assert [c["headerName"] for c in columns if c["field"] == "below"] == ["First < 80%"]
    assert {r["line_text"]: r["below_text"] for r in stats_rows(trends)}["12b"] == "every cell"


def test_panels_of_different_metrics_each_take_their_own_default(catalog):
    """The import's lambada_openai panels: acc (a fraction: 0.8) and perplexity (lower is better,
    no range: 20% of its values' range)."""
    figure = catalog.figure(PYTHIA)
    spec = figure.spec
    ppl = Metric("ppl", higher_is_better=False)
    metrics = replace(spec.metrics, labels={**spec.metrics.labels, "acc_norm": ppl})
    figure = Figure(replace(spec, metrics=metrics), figure.cells, figure.decimals)
    views = pythia_views(catalog, "task=arc_challenge&metric=acc&metric=acc_norm", figure=figure)
    trends = analyse(views)
    acc_norm = views[1].panel.z[np.isfinite(views[1].panel.z)]
    lo, hi = acc_norm.min(), acc_norm.max()
    assert trends.thresholds == [0.8, default_threshold(ppl, views[1].panel.z)]
    assert trends.thresholds[1] == pytest.approx(lo + 0.2 * (hi - lo), abs=0.01)
    columns = stats_columns(trends.spec, False, trends.thresholds, True,
                            [v.shown for v in views])
    assert [c["headerName"] for c in columns if c["field"] == "below"] == \
        ["First worse than threshold"]
    rows = stats_rows(trends)
    level = f"{trends.thresholds[1]:.2f}".rstrip("0")
    assert rows[0]["below_text"] == "every cell"  # acc: every value below 0.8
    assert any(f"> {level})" in r["below_text"] for r in rows[8:])  # ppl rows say their own


# --------------------------------------------------------------------------- differences

def test_differences_are_points_only_for_percent(catalog):
    (view,) = pythia_views(catalog)
    text = analyse([view]).observations
    assert ("Declining with training step: model 160m, from 0.2329 at training step 0 to 0.1877 "
            "at training step 143000 (−0.0452).") in text
    assert ("Rising with training step: models 1b-bf16, 1.4b, 2.8b, 6.9b and 12b; model 12b "
            "rises most, from 0.2176 at training step 0 to 0.3183 at training step 143000 "
            "(+0.1007).") in text
    assert "Stable (max − min ≤ 0.05): models 70m and 410m." in text
    assert not any("points" in sentence for sentence in text)
    (pct,) = pythia_views(catalog, "pct=1")
    text = analyse([pct]).observations
    assert ("Declining with training step: model 160m, from 23.29% at training step 0 to "
            "18.77% at training step 143000 (−4.52 points).") in text
    assert "Stable (max − min ≤ 5 points): models 70m and 410m." in text
    assert class_rule(pct.shown).startswith("Class: stable if max − min ≤ 5 points;")
    assert class_rule(view.shown).startswith("Class: stable if max − min ≤ 0.05;")


@pytest.mark.parametrize("metric, value, expected", [
    (Metric("acc", "", (0, 1)), 0.4444, "+0.4444"),
    (Metric("acc", "", (0, 1)), -0.0452, "−0.0452"),
    (Metric("acc", "", (0, 1)).as_percent(), 0.4444, "+44.44 points"),
    (Metric("Accuracy", "%", (0, 100)), -3.8, "−3.80 points"),
    (Metric("latency", "ms"), 3.2, "+3.20 ms"),
    (Metric("Pass@1", "", (0, 100)), -2.5, "−2.50 points"),  # a score out of 100
    (Metric("score", "", (0, 10)), -2.5, "−2.50"),
    (Metric("acc", "", (0, 1)), -0.00001, "+0.0000"),  # rounds to 0: no minus
])
def test_a_change_is_written_in_the_metrics_terms(metric, value, expected):
    assert change(metric, value, 4 if metric.range == (0, 1) else 2) == expected


# --------------------------------------------------------------------------- decimals

def test_one_column_one_number_of_decimals(catalog):
    """Short-to-Long's means read 63.0% and 98.26% in one column; slopes 0.00000136 under
    −1.93e−07 (Pythia)."""
    from tests.unit.test_trends import views_of

    rows = stats_rows(analyse(views_of(catalog, "short-to-long")))
    assert [r["mean_text"] for r in rows] == ["63.00%", "98.26%", "82.00%", "78.58%", "68.94%",
                                              "97.46%", "77.06%"]
    assert [r["slope_text"] for r in rows] == ["−7.70", "−0.22", "−2.46", "−4.86", "−4.83",
                                               "−0.51", "−6.77"]
    views = pythia_views(catalog, "task=arc_easy")
    slopes = [r["slope_text"] for r in stats_rows(analyse(views))]
    assert slopes[:3] == ["7.54e−07", "1.36e−06", "2.08e−06"]
    assert all(re.fullmatch(r"−?\d\.\d\de[−+]\d\d", s) for s in slopes)


@pytest.mark.parametrize("values, expected", [
    ([-7.7, -0.22, -0.0003, 0.0, None], ["−7.70", "−0.22", "0.00", "0.00", "—"]),
    ([19.04, 9.39], ["19.0", "9.4"]),
    ([-1.93e-7, 1.36e-6, 0.0], ["−1.93e−07", "1.36e−06", "0.00e+00"]),
    ([2.5e6, 1.0], ["2.50e+06", "1.00e+00"]),
    ([None], ["—"]),
    ([0.0, 0.0], ["0", "0"]),
])
def test_slope_column(values, expected):
    assert slope_column(values) == expected


def test_mean_column():
    percent = Metric("Accuracy", "%", (0, 100))
    assert mean_column(percent, [63.0, 98.26, None, 82.0], 1) == \
        ["63.00%", "98.26%", "—", "82.00%"]
    assert mean_column(percent, [63.0, 82.0], 1) == ["63.0%", "82.0%"]  # the data's own
    fraction = Metric("acc", "", (0, 1))
    assert mean_column(fraction.as_percent(), [0.1897, 0.20007], 4) == ["18.970%", "20.007%"]
    assert mean_column([fraction, percent], [0.25, 63.125], 2) == ["0.250", "63.125%"]
    assert mean_column(percent, [None], 1) == ["—"]


# --------------------------------------------------------------------------- the x axis

NUMBERS = [float(s) for s in STEPS]


@pytest.mark.parametrize("numbers, expected", [
    (NUMBERS, True),  # Pythia: 13 of 27 checkpoints within 3000 of 143000
    (NUMBERS[:13], True),  # xmax=3000: 0, 1, 2, 4, ..., 1000, 3000
    (NUMBERS[13:], False),  # xmin=13000: evenly spaced, 11x: linear reads them
    ([0.0] + [2.0 ** k for k in range(11)], True),  # 0, 1, 2, 4, ..., 1024
    ([2.0 ** k for k in range(11)], True),
    ([1.0, 10.0, 100.0], True),
    (list(map(float, range(20))), False),  # Core Generalization's lengths
    (list(map(float, range(5, 20))), False),  # Short-to-Long's
    ([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], False),  # AceMath's training progress
    ([0.1, 0.2, 0.3, 0.4, 0.5], False),  # DynTS's ratios
    ([500.0, 1000.0, 2000.0, 3000.0], False),  # DynTS's windows
    (list(map(float, range(0, 1001, 10))), False),  # spans 100x, but evenly
    ([-1.0, 0.0, 1.0, 10.0, 100.0, 1000.0], False),  # negative: no log axis
    ([0.0, 1.0, 1000.0], False),  # fewer than three positive labels
    ([], False),
])
def test_log_x_by_default_where_labels_span_orders_of_magnitude_from_near_0(numbers, expected):
    assert log_axis_default(numbers) is expected


def test_log_x_is_not_possible_on_every_axis(catalog):
    spec = catalog.figure(PYTHIA).spec
    step, model = spec.dims["step"], spec.dims["model"]
    assert log_axis_unavailable(step, NUMBERS) is None  # 0 is drawn apart
    assert log_axis_unavailable(model) == "Model is categorical."
    assert log_axis_unavailable(step, [-1.0, 1.0, 2.0]) == "Training step has negative values."
    assert log_axis_unavailable(step, [0.0, 5.0]) == \
        "Training step has fewer than two values above 0."


def test_the_url_asks_for_log_x_or_linear_and_the_labels_decide_otherwise(catalog):
    (view,) = pythia_views(catalog)
    assert axis_scale([view]) == AxisScale(log=True, default=True)
    assert axis_scale([view], asked=False) == AxisScale(log=False, default=True)
    (short,) = pythia_views(catalog, "xmin=13000")
    assert axis_scale([short]) == AxisScale(log=False, default=False)
    assert axis_scale([short], asked=True) == AxisScale(log=True, default=False)
    # transposed, the lines run along the models: categorical, log asked for or not
    assert axis_scale([view], transpose=True, asked=True) == \
        AxisScale(log=False, default=False, unavailable="Model is categorical.")
    assert [parse_options({"logx": v}).logx for v in ("1", "on", "0", "off", "")] == \
        [True, True, False, False, None]
    assert parse_options({}).logx is None
    bad = parse_options({"logx": "maybe"})
    assert bad.logx is None and bad.problems == (
        "logx=maybe is not on/off; the axis follows its labels.",)
    assert TrendsOptions(logx=True).extra() == {"logx": "1"}
    assert TrendsOptions(logx=False).extra() == {"logx": "0"}
    assert TrendsOptions().extra() == {}


def text_of(component) -> str:
    """The text a Dash component tree shows, its pieces joined as the browser runs them."""
    if isinstance(component, (list, tuple)):
        return "".join(text_of(c) for c in component)
    if isinstance(component, str):
        return component
    return text_of(getattr(component, "children", None) or "")


def drawn_lines(fig):
    return {t["name"]: t for t in fig["data"] if t.get("mode") == "lines+markers"}


def hover(trace, k):
    """Point k's hover as the browser fills it (with its standard error)."""
    return fill(trace["hovertemplate"], {"x": trace["x"][k], "y": trace["y"][k],
                                         "text": trace["text"][k],
                                         "customdata": trace["customdata"][k]})


def test_pythia_over_training_steps_is_drawn_on_log_x_with_step_0_apart(catalog):
    (view,) = pythia_views(catalog)
    fig = line_figure([view])
    xaxis = fig["layout"]["xaxis"]
    # one tick per checkpoint, labelled with its step (the browser keeps those that fit);
    # step 0 a decade left of step 1, its tick reading "0"
    assert (xaxis["type"], xaxis["tickmode"]) == ("log", "array")
    assert xaxis["ticktext"] == list(STEPS)
    assert xaxis["tickvals"] == [0.1] + NUMBERS[1:]
    line = drawn_lines(fig)["12b"]
    assert line["x"] == [0.1] + NUMBERS[1:] and line["text"] == list(STEPS)
    for band in (t for t in fig["data"] if t.get("fill") == "toself"):
        assert 0.0 not in band["x"] and 0.1 in band["x"]  # the bands drawn at the same places
    # the hover reads the exact step and value
    assert hover(line, 0) == ("Model 12b · Training step 0 · acc 0.2176 ± 0.0121 se"
                              "<br>Task arc_challenge · Metric acc")
    assert hover(line, 26).startswith("Model 12b · Training step 143000 · acc 0.3183 ± ")
    # asked for linear (logx=0): the steps where they are, every tick still labelled
    linear = line_figure([view], log=False)
    assert linear["layout"]["xaxis"]["type"] == "linear"
    assert linear["layout"]["xaxis"]["tickvals"] == NUMBERS
    assert drawn_lines(linear)["12b"]["x"] == NUMBERS
    # on a narrow chart (a phone) the browser puts the legend below the plot (evalmaps.fit)
    assert fig["layout"]["meta"] == {"legendBelow": LEGEND_BELOW_PX}
    # the imported folder: the same axis
    (imported_view,) = pythia_views(catalog, figure=imported(catalog))
    assert line_figure([imported_view])["layout"]["xaxis"] == xaxis


def test_the_built_in_figures_stay_linear_or_categorical(catalog):
    from tests.unit.test_trends import views_of

    for fid, kind in (("short-to-long", "linear"), ("core-generalization", "linear"),
                      ("acemath-training-progress", "linear"),
                      ("dynts-r1-llama-benchmarks", "linear"), ("dynts-llama-vs-qwen", "linear")):
        views = views_of(catalog, fid)
        assert line_figure(views[:1])["layout"]["xaxis"]["type"] == kind, fid
        assert line_figure(views[:1], transpose=True)["layout"]["xaxis"]["type"] in (
            "linear", "category"), fid
    (view,) = pythia_views(catalog)
    assert line_figure([view], transpose=True, log=True)["layout"]["xaxis"]["type"] == "category"


# --------------------------------------------------------------------------- labels

def test_the_table_legend_axis_and_sentences_leave_the_shared_prefix_out(catalog):
    """The import's models 'EleutherAI/pythia-v1.1-<size>' were all cut to 'EleutherAI/p...'
    in the table: shown without the start they share, which is said once; the hover (and the
    table cell's tooltip) gives the whole name."""
    figure = imported(catalog)
    (view,) = pythia_views(catalog, figure=figure)
    trends = analyse([view])
    assert trends.prefixes == {"model": PREFIX, "step": ""}
    assert trends.to_dict()["label_prefixes"] == {"model": PREFIX}
    assert prefix_note(figure.spec, trends.prefixes) == "Models: EleutherAI/pythia-v1.1-…"
    rows = stats_rows(trends)
    assert [r["line_text"] for r in rows] == list(SIZES)
    assert [r["line_name"] for r in rows] == [PREFIX + size for size in SIZES]
    (line_column,) = [c for c in stats_columns(figure.spec, False, 0.8, False)
                      if c["field"] == "line"]
    assert line_column["tooltipField"] == "line_name"
    # the sentences: as the built-in figure (whose models are named '70m', ...) writes them
    (built_in,) = pythia_views(catalog)
    assert trends.observations == analyse([built_in]).observations
    assert "model 12b rises most" in " ".join(trends.observations)
    assert "Best 0.3259 at Model 12b, Training step 133000" in text_of(panel_summaries(trends))
    # the legend, and the hover with the whole name
    fig = line_figure([view])
    lines = drawn_lines(fig)
    assert list(lines) == list(SIZES)
    assert hover(lines["12b"], 26).startswith(
        "Model EleutherAI/pythia-v1.1-12b · Training step 143000 · acc 0.3183 ± ")
    bands = [t["name"] for t in fig["data"] if t.get("fill") == "toself"]
    assert bands == [f"{size} 95% interval" for size in SIZES]
    # transposed, the models are the axis: its labels cut, the hover whole
    fig = line_figure([view], transpose=True)
    assert fig["layout"]["xaxis"]["categoryarray"] == list(SIZES)
    step0 = drawn_lines(fig)["0"]
    assert step0["x"] == list(SIZES) and step0["text"] == [PREFIX + s for s in SIZES]
    assert hover(step0, 7).startswith("Model EleutherAI/pythia-v1.1-12b · Training step 0 · acc ")
    rows = stats_rows(analyse([view], transpose=True))
    assert {r["line_text"]: r["max_text"] for r in rows}["143000"] == "0.3183 at 12b"


def test_labels_without_a_shared_prefix_stay_whole(catalog):
    from tests.unit.test_trends import views_of

    (view,) = pythia_views(catalog)
    assert analyse([view]).prefixes == {"model": "", "step": ""}
    assert prefix_note(view.spec, analyse([view]).prefixes) == ""
    views = views_of(catalog, "dynts-llama-vs-qwen")  # panels R1-Llama, R1-Qwen: facets, kept
    trends = analyse(views)
    assert [p.short for p in trends.panels] == ["R1-Llama", "R1-Qwen"]
    assert {r["line_text"] for r in stats_rows(trends)} == {"3000", "2000", "1000", "500"}


def test_table_columns_are_as_wide_as_their_texts(catalog):
    """'0.1817 at 13000' read '0.1817 at 130...' and 'every cell' 'every cell (m...'."""
    (view,) = pythia_views(catalog)
    trends = analyse([view])
    rows = stats_rows(trends)
    columns = {c["field"]: c for c in stats_columns(trends.spec, False, trends.thresholds,
                                                   False, [view.shown], rows)}
    assert [r["min_text"] for r in rows][2] == "0.1817 at 13000"
    for field in ("min", "max", "drop", "below", "n"):
        widest = max(len(r[f"{field}_text"]) for r in rows)
        assert columns[field]["minWidth"] >= widest * CELL_CHAR_PX + CELL_PADDING_PX - 1
    assert columns["line"]["minWidth"] == int(len("1b-bf16") * CELL_CHAR_PX + CELL_PADDING_PX)
    assert columns["drop"]["minWidth"] == int(len("0.0222 (512 → 1000)") * CELL_CHAR_PX
                                              + CELL_PADDING_PX)
    long = [{"line_text": "x" * 200}]
    assert fit_widths([{"field": "line"}], long)[0]["minWidth"] == MAX_FITTED_PX


def test_panels_of_two_metrics_each_write_their_slopes_and_ties_are_counted():
    """An accuracy's slope per step (about 1e-06) stays readable next to a perplexity's
    (-0.44), rather than reading 0.000; 100 tied worst cells are listed to six, then counted."""
    import pandas as pd

    from evalmaps.catalog.load import parse_spec, validate_cells

    steps = ["0", "1000", "2000"]
    rows = [("acc", "m", s, v) for s, v in zip(steps, ["0.250", "0.251", "0.253"])]
    rows += [("ppl", "m", s, v) for s, v in zip(steps, ["900.0", "400.0", "20.0"])]
    spec = parse_spec({"id": "two", "file": "two.csv", "metric": {"name": "score"},
                       "metrics": {"dim": "metric", "labels": {
                           "acc": {"name": "acc", "range": [0, 1]},
                           "ppl": {"name": "ppl", "higher_is_better": False}}},
                       "x": "step", "y": "model", "facets": ["metric"],
                       "provenance": "imported",
                       "dims": {"metric": {"labels": ["acc", "ppl"]},
                                "model": {"title": "Model", "labels": ["m"]},
                                "step": {"title": "Step", "labels": steps}}}, where="test")
    frame = pd.DataFrame(rows, columns=["metric", "model", "step", "value"])
    cells, decimals = validate_cells(frame, spec, file="two.csv")
    figure = Figure(spec, cells, decimals)
    views = [slice_panel(figure, p) for p in figure.panels.values()]
    trends = analyse(views)
    assert [r["slope_text"] for r in stats_rows(trends)] == ["1.50e−06", "−0.440"]  # not 0.000
    worst = Extreme(0.0, tuple(("m", str(k)) for k in range(100)))
    assert _cells_text(trends, worst) == ("Model m, Step 0; Model m, Step 1; Model m, Step 2; "
                                          "Model m, Step 3; Model m, Step 4; Model m, Step 5 "
                                          "and 94 more cells")
