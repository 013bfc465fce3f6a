"""evalmaps.figures.heatmap: a Browse panel as a figure dict: axes order, colour range and scale, typed
values, and the hover and cell texts the browser fills in from them (tests/plotly_render.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from plotly.colors import get_colorscale

from evalmaps.analysis.slicing import slice_panel, views_for
from evalmaps.catalog.load import parse_spec, validate_cells
from evalmaps.core.figure import Figure
from evalmaps.figures.heatmap import (
    MAX_TEXT_ROWS,
    heatmap_figure,
    heatmap_layout,
    left_margin,
    tick_label,
    values_note,
)
from evalmaps.figures.theme import exact_dtype, graph_config, label_px, text
from evalmaps.views.state import ViewState
from tests.plotly_render import decode, heatmap_cell

CORE = "core-generalization"
QWEN = "dynts-llama-vs-qwen"
ACE = "acemath-training-progress"
EVIL = "<script>alert(1)</script>"


def view_of(catalog, fid, facets=None, rows=None, x_range=None):
    """The first view a page shows for this slice (slicing.views_for)."""
    state = ViewState(fid, {f: tuple(v) for f, v in (facets or {}).items()},
                      None if rows is None else tuple(rows), x_range)
    views, _ = views_for(catalog.figure(fid), state)
    return views[0]


def main_trace(view, zrange=None, **kw):
    return heatmap_figure(view, zrange, **kw)["data"][0]


def test_axes_order_seed_004(catalog):
    view = view_of(catalog, QWEN, {"model": ["R1-Qwen"]})
    fig = heatmap_figure(view, None)
    assert fig["data"][0]["y"] == ["3000", "2000", "1000", "500"]  # first = top, with reversed
    assert fig["layout"]["yaxis"]["autorange"] == "reversed"
    assert fig["data"][0]["x"] == ["0.1", "0.2", "0.3", "0.4", "0.5"]
    assert fig["layout"]["xaxis"]["categoryarray"] == fig["data"][0]["x"]
    assert fig["layout"]["xaxis"]["type"] == fig["layout"]["yaxis"]["type"] == "category"


def test_axes_follow_slice_and_escape(catalog):
    view = view_of(catalog, CORE, rows=[">", "h", "u"], x_range=(3, 5))
    trace = main_trace(view)
    assert trace["y"] == ["h", "u", "&gt;"]  # catalog order, markup escaped
    assert trace["x"] == ["3", "4", "5"]


@pytest.mark.parametrize("zrange", [(49.0, 57.0), (0.0, 100.0), (50.5, 51.5), None])
def test_zmin_zmax_equal_zrange(catalog, zrange):
    view = view_of(catalog, QWEN)
    trace = main_trace(view, zrange)
    # no range given: the panel's own extent, made explicit (text colours follow the same one)
    own = (float(np.nanmin(view.z)), float(np.nanmax(view.z)))
    assert (trace["zmin"], trace["zmax"]) == (zrange or own)


@pytest.mark.parametrize("fid", [CORE, "short-to-long", ACE, "dynts-r1-llama-benchmarks", QWEN])
def test_colorscale_is_the_catalogs_as_in_the_paper(catalog, fid):
    trace = main_trace(view_of(catalog, fid), scale="paper")
    assert tuple(tuple(stop) for stop in trace["colorscale"]) == catalog.figure(fid).spec.colorscale


@pytest.mark.parametrize("fid", [CORE, "short-to-long", ACE, "dynts-r1-llama-benchmarks", QWEN])
def test_default_colorscale_is_viridis_and_carries_the_papers(catalog, fid):
    fig = heatmap_figure(view_of(catalog, fid), None, ranges={"figure": None})
    viridis = [list(stop) for stop in get_colorscale("Viridis")]
    assert fig["data"][0]["colorscale"] == viridis
    scales = fig["layout"]["meta"]["evalmaps"]["scales"]
    assert scales["uniform"] == viridis
    assert tuple(tuple(stop) for stop in scales["paper"]) == catalog.figure(fid).spec.colorscale


@pytest.mark.parametrize("fid, title", [(CORE, "Accuracy (%)"), (QWEN, "Pass@1"),
                                        (ACE, "Accuracy (%)")])
def test_colorbar_title_is_metric_label(catalog, fid, title):
    assert main_trace(view_of(catalog, fid))["colorbar"]["title"]["text"] == title


def test_templates_format_in_the_browser(catalog):
    """No per-cell strings: one hover template and one text template with the file's decimals."""
    trace = main_trace(view_of(catalog, CORE))
    assert trace["hovertemplate"] == ("Type %{y} · Length %{x} · Accuracy %{z:.1f}%"
                                      "<br>Model Qwen-2.5B<extra></extra>")
    assert "text" not in trace and "customdata" not in trace and "texttemplate" not in trace
    texts = [t for t in heatmap_figure(view_of(catalog, CORE), None)["data"]
             if t.get("meta", {}).get("role") == "text"]
    assert [(t["texttemplate"], t["textfont"]["color"], t["hoverinfo"]) for t in texts] == [
        ("%{z:.1f}", "#000000", "skip"), ("%{z:.1f}", "#ffffff", "skip")]


def test_hover_and_text_seed_000(catalog):
    fig = heatmap_figure(view_of(catalog, CORE), (0, 100))
    assert heatmap_cell(fig, "u", "3") == {
        "trace": 0, "z": pytest.approx(87.3), "text": "87.3",
        "hover": "Type u · Length 3 · Accuracy 87.3%<br>Model Qwen-2.5B"}
    assert heatmap_cell(fig, "~", "0")["text"] == "100.0"  # the file's one decimal


def test_missing_cells_are_gaps_that_say_so(catalog):
    view = view_of(catalog, CORE)
    fig = heatmap_figure(view, None)
    assert heatmap_cell(fig, "h", "19") == {
        "trace": 1, "z": None, "text": "",
        "hover": "Type h · Length 19 · Accuracy not reported<br>Model Qwen-2.5B"}
    z = decode(fig["data"][0]["z"])
    assert np.isnan(z[view.y_labels.index("h"), view.x_labels.index("19")])
    gaps = fig["data"][1]
    drawn = [v for v in gaps["z"] if v is not None]  # and a blank point at the first labels
    assert len(drawn) == int((~np.isfinite(view.z)).sum())  # one point per missing cell


@pytest.mark.parametrize("show, template", [(False, ""), (True, "%{z:.1f}")])
def test_show_values(catalog, show, template):
    fig = heatmap_figure(view_of(catalog, QWEN), None, show_values=show)
    assert [t["texttemplate"] for t in fig["data"] if "texttemplate" in t] == [template] * 2


def test_values_are_typed_float32_and_exact(catalog):
    view = view_of(catalog, CORE)
    trace = main_trace(view)
    assert trace["z"]["dtype"] == "f4" and trace["z"]["shape"] == "7, 20"
    z = decode(trace["z"])
    np.testing.assert_array_equal(np.isnan(z), np.isnan(view.z))
    present = np.isfinite(view.z)
    shown = [f"{v:.1f}" for v in z[present]]
    assert shown == [f"{v:.1f}" for v in view.z[present]]


def test_float64_when_float32_would_change_a_printed_value():
    assert exact_dtype(np.array([56.3, 99.1234, np.nan]), 4) == "f4"
    assert exact_dtype(np.array([12345.6789]), 4) == "f8"  # float32 reads 12345.6787
    assert exact_dtype(np.array([3.14159265]), 4) == "f4"


def test_customdata_is_float32_only_when_every_column_is_exact_at_its_decimals():
    from evalmaps.figures.theme import exact_columns_dtype

    data = np.stack([np.array([[56.3, np.nan]]), np.array([[12345.6789, 1.0]])], axis=-1)
    assert exact_columns_dtype(data, (1, 0)) == "f4"  # 12345.6787 is 12346 at no decimals
    assert exact_columns_dtype(data, (1, 4)) == "f8"
    assert exact_columns_dtype(data, (9, 0)) == "f8"  # 56.3 as float32 is 56.29999923…
    with pytest.raises(ValueError, match="2 columns, 1 decimals"):
        exact_columns_dtype(data, (1,))


def test_typed_is_base64_of_the_little_endian_values_and_blanks_a_copy():
    import base64

    from evalmaps.figures.theme import typed

    values = np.array([[56.3, np.nan, -1.25], [1e-3, 7.0, 99.9]])
    for dtype in ("f4", "f8"):
        spec = typed(values, dtype)
        assert spec == {"dtype": dtype, "shape": "2, 3", "bdata": base64.b64encode(
            values.astype(np.dtype(dtype).newbyteorder("<")).tobytes()).decode("ascii")}
        blank = np.array([[True, False, False], [False, False, True]])
        kept = values.copy()
        np.testing.assert_array_equal(decode(typed(values, dtype, blank=blank)),
                                      np.where(blank, np.nan, values).astype(dtype))
        np.testing.assert_array_equal(values, kept)  # the data's own grid is left alone
    assert typed(np.array([1.0, 2.0]), "f8") == {"dtype": "f8", "bdata": base64.b64encode(
        np.array([1.0, 2.0], dtype="<f8").tobytes()).decode("ascii")}  # 1-d: no shape


def test_finite_range_and_cells_agree_with_numpy():
    from evalmaps.figures.heatmap import cells_of, extent, finite_range, text_chars

    z = np.array([[np.nan, 2.5, -np.inf], [7.25, np.nan, np.inf], [0.0, 1.0, np.nan]])
    assert finite_range(z) == (0.0, 7.25)  # infinities are not values to show
    assert finite_range(np.full((2, 2), np.nan)) is None
    assert finite_range(np.zeros((0, 3))) is None
    assert finite_range(np.array([[3.0, np.nan]])) == (3.0, 3.0)
    assert extent(np.array([[3.0, np.nan]])) == (2.5, 3.5)
    assert extent(np.full((1, 2), np.nan)) == (None, None)
    assert text_chars(np.array([[-12.5, 3.0]]), 2, "%{z:.2f}") == len("-12.50")
    for mask in (np.isnan(z), np.isfinite(z), np.zeros((3, 3), bool), np.eye(4, 5, dtype=bool)):
        rows, cols = cells_of(mask)
        want_rows, want_cols = np.nonzero(mask)
        np.testing.assert_array_equal(rows, want_rows)
        np.testing.assert_array_equal(cols, want_cols)


@pytest.mark.parametrize("rows, gap_trace", [(100, True), (101, False)])
def test_a_panel_above_10k_cells_draws_its_gaps_as_the_background(rows, gap_trace):
    """Up to MAX_GAP_TRACE_CELLS, unreported cells are a sparse trace that says so on hover;
    above, they are the plot's background in the missing colour (the values trace is blank
    there either way), and a group drawn by value (cells lacking sd) keeps its trace."""
    from evalmaps.figures.heatmap import (
        MAX_GAP_TRACE_CELLS,
        Special,
        TraceSpec,
        gaps_note,
        heatmap_traces,
    )
    from evalmaps.figures.theme import MISSING_COLOR

    assert MAX_GAP_TRACE_CELLS == 10_000
    z = np.arange(rows * 100, dtype=float).reshape(rows, 100) % 97
    missing = np.zeros(z.shape, dtype=bool)
    missing[::37, ::41] = True
    z[missing] = np.nan
    odd = np.zeros(z.shape, dtype=bool)
    odd[1, 2] = True
    x, y = [f"c{j}" for j in range(100)], [f"r{i}" for i in range(rows)]
    spec = TraceSpec(decimals=1, hovertemplate="%{z:.1f}", colorscale="Viridis", zrange=(0, 100))
    traces = heatmap_traces(z, x, y, spec, special=(Special(missing, "not reported"),
                                                    Special(odd, "%{z:.1f} (no sd)", True)))
    hovers = [t["hovertemplate"] for t in traces]
    assert hovers == ["%{z:.1f}<extra></extra>",
                      *(["not reported<extra></extra>"] if gap_trace else []),
                      "%{z:.1f} (no sd)<extra></extra>"]
    main = decode(traces[0]["z"])
    assert np.isnan(main[missing]).all() and np.isnan(main[odd]).all()  # blank under both
    assert np.isfinite(main[~missing & ~odd]).all()
    layout = heatmap_layout(x, y, x_title="X", y_title="Y", heading="h", height=400)
    assert layout["plot_bgcolor"] == ("white" if gap_trace else MISSING_COLOR)
    assert traces[0]["xgap"] == 0  # no gaps between cells: the background shows only there
    assert (gaps_note(rows, 100) is None) == gap_trace


def test_large_panels_print_no_values_and_say_why(catalog):
    assert values_note(MAX_TEXT_ROWS, 10) is None
    assert values_note(MAX_TEXT_ROWS + 1, 10) == (
        "Values are not printed in cells above 40 rows or 36 columns (too small to read): "
        "hover a cell, or narrow the rows or the range.")


def test_illustrative_is_flagged(catalog):
    view = view_of(catalog, ACE, {"benchmark": ["GSM8K"]})
    fig = heatmap_figure(view, (0, 100))
    assert [(a.get("name"), a["text"]) for a in fig["layout"]["annotations"]] == [
        ("x-title", "Training Progress"), ("y-title", "Model Size"),
        (None, "ILLUSTRATIVE values, not results")]
    for trace in fig["data"]:  # every cell's hover, gaps included (text traces take none)
        if trace.get("hoverinfo") == "skip":
            continue
        assert trace["hovertemplate"].endswith(
            "<br><b>ILLUSTRATIVE value, not a result</b><extra></extra>")


def test_transcribed_is_not_flagged(catalog):
    fig = heatmap_figure(view_of(catalog, QWEN), None)
    assert [a["name"] for a in fig["layout"]["annotations"]] == ["x-title", "y-title"]
    assert not any("ILLUSTRATIVE" in a["text"] for a in fig["layout"]["annotations"])
    assert not any("ILLUSTRATIVE" in trace.get("hovertemplate", "") for trace in fig["data"])


def make_view(frame: pd.DataFrame, dims: dict, metric=None):
    spec = parse_spec({
        "id": "t", "file": "t.csv", "metric": metric or {"name": "Score", "range": [0, 10]},
        "x": "x", "y": "y", "facets": ["f"], "provenance": "uploaded", "dims": dims,
    }, where="test")
    cells, decimals = validate_cells(frame.astype(str), spec, file="t.csv")
    fig = Figure(spec, cells, decimals)
    return slice_panel(fig, next(iter(fig.panels.values())))


def test_sd_and_n_travel_as_typed_customdata():
    view = make_view(pd.DataFrame({"f": ["a"] * 3, "y": ["r", "r", "s"], "x": ["1", "2", "1"],
                                   "value": ["5.5", "6.25", "7.0"], "sd": ["0.5", "", "1.25"],
                                   "n": ["3", "1", "4"]}),
                     {"f": {"labels": ["a"]}, "y": {"title": "Row", "labels": ["r", "s"]},
                      "x": {"title": "Col", "labels": ["1", "2"]}})
    fig = heatmap_figure(view, None)
    assert fig["data"][0]["customdata"]["shape"] == "2, 2, 2"
    assert fig["data"][0]["customdata"]["dtype"] == "f4"  # 0.5, 1.25 and the counts are exact
    assert [heatmap_cell(fig, y, x)["hover"] for y, x in (("r", "1"), ("r", "2"), ("s", "1"))] == [
        "Row r · Col 1 · Score 5.50 ± 0.50 sd (n=3)<br>f a",
        "Row r · Col 2 · Score 6.25 (n=1)<br>f a",  # one replicate: no sd, and no 'NaN'
        "Row s · Col 1 · Score 7.00 ± 1.25 sd (n=4)<br>f a",
    ]
    assert heatmap_cell(fig, "s", "2")["hover"] == "Row s · Col 2 · Score not reported<br>f a"


def test_an_sd_float32_would_misprint_keeps_the_customdata_float64():
    view = make_view(pd.DataFrame({"f": ["a"] * 2, "y": ["r", "s"], "x": ["1", "1"],
                                   "value": ["5.1234", "6.5"], "sd": ["12345.6789", "0.5"],
                                   "n": ["3", "4"]}),
                     {"f": {"labels": ["a"]}, "y": {"title": "Row", "labels": ["r", "s"]},
                      "x": {"title": "Col", "labels": ["1"]}},
                     metric={"name": "Score", "range": [0, 10]})
    fig = heatmap_figure(view, None)
    assert fig["data"][0]["customdata"]["dtype"] == "f8"  # float32 reads 12345.6787
    assert heatmap_cell(fig, "r", "1")["hover"] == (
        "Row r · Col 1 · Score 5.1234 ± 12345.6789 sd (n=3)<br>f a")


@pytest.mark.parametrize("percent", [False, True])
def test_uncertainty_decimals_are_the_ones_the_hover_prints(percent):
    """evalmaps.figures.heatmap.uncertainty_decimals (which decides float32) and uncertainty_text
    (which writes the hover) agree for every number of decimals, in the values' own units."""
    import re
    from types import SimpleNamespace

    from evalmaps.figures.hover import uncertainty_decimals, uncertainty_text

    metric = SimpleNamespace(percent=percent)
    for decimals in range(0, 10):
        hover = uncertainty_text(decimals, {"sd": 0, "n": 1, "se": 2}, sd=True, n=True, se=True,
                                 metric=metric)
        printed = {int(k): int(p) + (2 if kind == "%" else 0)
                   for k, p, kind in re.findall(r"%\{customdata\[(\d)\]:\.(\d+)([f%])\}", hover)}
        assert tuple(printed[k] for k in range(3)) == uncertainty_decimals(
            decimals, ("sd", "n", "se"), metric), (decimals, hover)


@pytest.fixture()
def evil_view():
    return make_view(pd.DataFrame({"f": [EVIL, EVIL], "y": [EVIL, 'say "hi"'], "x": [EVIL, "1"],
                                   "value": ["1.5", ""]}),
                     {"f": {"title": "Facet", "labels": [EVIL]},
                      "y": {"title": "Row", "labels": [EVIL, 'say "hi"']},
                      "x": {"title": "Col %{x}", "labels": ["1", EVIL]}})


def test_labels_are_shown_as_typed_never_as_markup(evil_view):
    fig = heatmap_figure(evil_view, None)
    trace = fig["data"][0]
    safe = "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert text(EVIL) == safe
    assert trace["y"] == [safe, 'say "hi"']  # quotes stay quotes (no &quot;)
    assert trace["x"] == ["1", safe]
    assert heatmap_cell(fig, safe, safe)["hover"] == (
        f"Row {safe} · Col &#37;{{x}} {safe} · Score 1.5<br>Facet {safe}")
    for value in [*trace["x"], *trace["y"], trace["hovertemplate"], fig["layout"]["title"]["text"]]:
        assert "<script>" not in value
    assert fig["layout"]["title"]["text"] == safe


def test_no_chart_offers_to_send_itself_to_the_cloud():
    """Plotly's "Share chart" button uploads the chart: heatmaps and trend lines both drop it."""
    from evalmaps.figures.trends import chart_config

    for config in (graph_config("f", "p"), chart_config("f", "p")):
        assert "sendChartToCloud" in config["modeBarButtonsToRemove"]
        assert config["showSendToCloud"] is False and config["displaylogo"] is False
    assert chart_config("f", "p")["toImageButtonOptions"]["filename"] == "f__p__trends"
    assert "zoom2d" not in chart_config("f", "p")["modeBarButtonsToRemove"]
    assert "zoom2d" in graph_config("f", "p")["modeBarButtonsToRemove"]


def test_se_travels_as_typed_customdata_and_a_suspect_zero_is_flagged():
    """lm-eval's standard errors: '± se' where a cell has one; a 0 for a value strictly inside
    the metric's range (0-1) is flagged, a 0 at its end (1.0) is not; no 'NaN' anywhere."""
    view = make_view(pd.DataFrame({"f": ["a"] * 4, "y": ["r", "r", "s", "s"],
                                   "x": ["1", "2", "1", "2"],
                                   "value": ["0.2569", "0.5", "1.0", "0.75"],
                                   "se": ["0.0123", "0", "0", ""]}),
                     {"f": {"labels": ["a"]}, "y": {"title": "Row", "labels": ["r", "s"]},
                      "x": {"title": "Col", "labels": ["1", "2"]}},
                     metric={"name": "acc", "range": [0, 1]})
    fig = heatmap_figure(view, None)
    assert fig["data"][0]["customdata"]["shape"] == "2, 2, 1"
    assert fig["data"][0]["customdata"]["dtype"] == "f4"  # 0.0123 prints as 0.0123 from float32
    assert [heatmap_cell(fig, y, x)["hover"] for y, x in (
        ("r", "1"), ("r", "2"), ("s", "1"), ("s", "2"))] == [
        "Row r · Col 1 · acc 0.2569 ± 0.0123 se<br>f a",
        "Row r · Col 2 · acc 0.5000 ± 0.0000 se (a standard error of 0 inside the metric's "
        "range cannot be right)<br>f a",
        "Row s · Col 1 · acc 1.0000 ± 0.0000 se<br>f a",
        "Row s · Col 2 · acc 0.7500<br>f a",
    ]


def test_the_hovers_value_template_travels_for_the_keyboard_and_the_table(catalog):
    """layout.meta.evalmaps.value: the value as the hover writes it, unit included (the browser's
    keyboard readout and Table format values with it): Browse, Compare's A, B and B − A, a
    derived mean, and a unit with a space before it and ± sd after it."""
    from evalmaps.analysis.compare import compare, mean_ref
    from evalmaps.figures.compare import compare_figures

    core = heatmap_figure(view_of(catalog, CORE), None)
    assert core["layout"]["meta"]["evalmaps"]["value"] == "%{z:.1f}%"
    assert "Accuracy %{z:.1f}%<br>" in core["data"][0]["hovertemplate"]
    qwen = heatmap_figure(view_of(catalog, QWEN), None)
    assert qwen["layout"]["meta"]["evalmaps"]["value"] == "%{z:.1f}"
    al = compare(catalog, f"{QWEN}:r1-llama", f"{QWEN}:r1-qwen")
    a, b, delta = compare_figures(al, "shared", True)
    assert [f["layout"]["meta"]["evalmaps"]["value"] for f in (a, b, delta)] == [
        "%{z:.1f}", "%{z:.1f}", "%{z:+.1f}"]
    bench = [f"dynts-r1-llama-benchmarks:r1-llama-{b}" for b in ("aime24", "aime25")]
    al = compare(catalog, mean_ref(bench), f"{QWEN}:r1-qwen")
    mean = compare_figures(al, "shared", True)[0]
    value = mean["layout"]["meta"]["evalmaps"]["value"]
    assert value.startswith("%{z:.") and value.endswith("~f}")  # trimmed, as a mean's hover is
    assert f"Pass@1 {value} (mean of 2 panels, derived)<br>" in mean["data"][0]["hovertemplate"]
    view = make_view(pd.DataFrame({"f": ["a"] * 2, "y": ["r", "s"], "x": ["1", "1"],
                                   "value": ["5.5", "6.25"], "sd": ["0.5", "1"], "n": ["3", "4"]}),
                     {"f": {"labels": ["a"]}, "y": {"title": "Row", "labels": ["r", "s"]},
                      "x": {"title": "Col", "labels": ["1"]}},
                     metric={"name": "Score", "unit": "ms", "range": [0, 10]})
    fig = heatmap_figure(view, None)
    assert "Score %{z:.2f} ms ± %{customdata[0]:.2f} sd" in fig["data"][0]["hovertemplate"]
    assert fig["layout"]["meta"]["evalmaps"]["value"] == "%{z:.2f} ms"


def test_gap_trace_spans_the_whole_grid_so_plotly_draws_it_fast(catalog):
    """The gaps' sparse trace names every x and every y label (blank points first), so the grid
    plotly.js builds from it is the axes' own, evenly spaced (its one-pixel-per-cell image);
    the missing cells come after the blanks, so one on the first row keeps its hover."""
    view = view_of(catalog, CORE)
    gaps = heatmap_figure(view, None)["data"][1]
    xs, ys = [text(x) for x in view.x_labels], [text(y) for y in view.y_labels]
    assert sorted(set(gaps["x"])) == sorted(xs) and sorted(set(gaps["y"])) == sorted(ys)
    n = len(view.x_labels) + len(view.y_labels)
    assert gaps["z"][:n] == [None] * n
    missing = {(ys[i], xs[j]) for i, j in zip(*np.nonzero(~view.present))}
    assert set(zip(gaps["y"][n:], gaps["x"][n:])) == missing


def test_long_row_labels_are_shortened_on_the_axis_only():
    long = "/home/someone/lm-evaluation-harness/examples/dog_steer.csv"
    assert tick_label(long) == "/home/so\u2026mples/dog_steer.csv" and len(tick_label(long)) == 28
    assert tick_label("lme") == "lme"
    layout = heatmap_layout(["arc"], [long, "lme"], x_title="Task", y_title="Model",
                            heading="acc", height=300)
    assert (layout["yaxis"]["tickmode"], layout["yaxis"]["tickvals"],
            layout["yaxis"]["ticktext"]) == ("array", [long, "lme"], [tick_label(long), "lme"])
    assert layout["margin"]["l"] == left_margin([tick_label(long), "lme"])
    assert layout["yaxis"]["categoryarray"] == [long, "lme"]  # hover and keys: the whole label
    short = heatmap_layout(["arc"], ["lme"], x_title="Task", y_title="Model", heading="acc",
                           height=300)
    assert "tickmode" not in short["yaxis"] and short["margin"]["l"] == left_margin(["lme"])


def test_axis_titles_are_annotations_placed_beside_the_labels_as_estimated():
    """plotly.js measures every tick label of an axis with a title of its own (to keep the
    title clear of them): the titles are annotations instead, placed from the labels' estimated
    widths, as the margins are; the axes carry no title."""
    long = "/home/someone/lm-evaluation-harness/examples/dog_steer.csv"
    layout = heatmap_layout(["arc", "hella<swag>"], [long, "lme"], x_title="Task <b>",
                            y_title="Model", heading="acc", height=300)
    assert "title" not in layout["xaxis"] and "title" not in layout["yaxis"]
    gap = int(np.ceil(label_px([tick_label(long), "lme"]))) + 5  # the shortened label, as drawn
    assert layout["annotations"] == [
        {"name": "x-title", "text": "Task &lt;b&gt;", "xref": "paper", "yref": "paper", "x": 0.5,
         "y": 0, "yanchor": "top", "yshift": -33, "showarrow": False, "font": {"size": 14}},
        {"name": "y-title", "text": "Model", "xref": "paper", "yref": "paper", "x": 0, "y": 0.5,
         "xanchor": "right", "xshift": -gap, "textangle": -90, "showarrow": False,
         "font": {"size": 14}}]
    # the title (a 14 px line on its side, about 20 px wide) fits in the left margin, which
    # holds the widest label and 36 px more
    assert gap + 20 <= layout["margin"]["l"]
    short = heatmap_layout(["a"], ["b"], x_title="", y_title="Row", heading="", height=300)
    assert [(a["name"], a["xshift"]) for a in short["annotations"]] == [("y-title", -28)]
    assert 28 + 20 <= short["margin"]["l"]


def test_every_row_label_is_readable_or_the_rows_are_thinned_apart():
    """Issue 37, labels lost: 223 AlpacaEval names overprinted in a 720 px map. A map is a
    label's height a row (the page scrolls to read them) up to 3,600 px (229 rows); past that,
    every k-th row is labelled, never one over another (the hover, table and readout name every
    row)."""
    from evalmaps.figures.heatmap import (
        MAX_HEIGHT,
        PLOT_MARGINS,
        ROW_PX,
        heatmap_layout,
        panel_height,
    )

    assert [panel_height(n) for n in (1, 4, 14, 18)] == [260, 302, 682, 720]
    assert panel_height(100) == PLOT_MARGINS + 10 + ROW_PX * 100 == 1629
    assert panel_height(223) == PLOT_MARGINS + 10 + ROW_PX * 223 < MAX_HEIGHT == panel_height(300)
    # many rows and many columns: an overview at a glance, its rows labelled every k-th
    assert panel_height(1000, 1000) == panel_height(200, 100) == 720
    assert panel_height(223, 8) == panel_height(223) and panel_height(65, 27) == 1104
    for n in (14, 100, 223, 1000):
        labels = [f"model-with-a-rather-long-name-{k:04d}" for k in range(n)]
        layout = heatmap_layout(["acc"], labels, x_title="", y_title="Model", heading="h",
                                height=panel_height(n))
        shown = layout["yaxis"]["tickvals"]
        gap = (layout["height"] - PLOT_MARGINS) / n * (len(labels) / len(shown))
        assert gap >= ROW_PX - 1e-9, n  # labels at least a label's height apart
        assert (len(shown) == n) == (n <= 223), n


def test_the_labels_left_off_are_said_and_match_the_ticks_drawn():
    """A map of many rows and many columns labels one row in k (the y ticks drawn are exactly
    every k-th row, by row_step), and the note under it says which k and where each name is
    read; a leaderboard's shape (few columns) labels every row and says nothing of rows."""
    from evalmaps.figures.heatmap import heatmap_layout, labels_note, panel_height, row_step

    rows, cols = [f"model-{i}" for i in range(300)], [f"c{j}" for j in range(60)]
    height = panel_height(len(rows), len(cols))
    step = row_step(len(rows), height)
    assert step > 1
    layout = heatmap_layout(cols, rows, x_title="x", y_title="y", heading="h", height=height)
    assert layout["yaxis"]["tickvals"] == rows[::step] == layout["yaxis"]["ticktext"]
    note = labels_note(len(rows), len(cols))
    assert note.startswith(f"One row in {step} is labelled (300 rows")
    assert "columns narrower than a line" in note and "table" in note
    assert labels_note(200, 10) is None  # 200 rows, 10 columns: every row labelled, tall map
    assert labels_note(20, 30).startswith("Columns narrower")
