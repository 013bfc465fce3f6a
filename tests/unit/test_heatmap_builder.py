"""components.heatmap.heatmap_figure: axes order, colour range and scale, hover/cell texts, escaping."""

from __future__ import annotations

from html import escape

import numpy as np
import pandas as pd
import pytest

from components.heatmap import heatmap_figure
from evalmaps.loading import parse_spec, validate_cells
from evalmaps.model import Figure
from evalmaps.slicing import select_panels, slice_panel

CORE = "core-generalization"
QWEN = "dynts-llama-vs-qwen"
ACE = "acemath-training-progress"
EVIL = "<script>alert(1)</script>"


def view_of(catalog, fid, facets=None, rows=None, x_range=None):
    fig = catalog.figure(fid)
    return slice_panel(fig, select_panels(fig, facets)[0], rows, x_range)


def trace_of(view, zrange=None, **kw):
    return heatmap_figure(view, zrange, **kw).data[0]


def cell(trace, view, y, x, attr="customdata"):
    return getattr(trace, attr)[view.y_labels.index(y)][view.x_labels.index(x)]


def test_axes_order_seed_004(catalog):
    view = view_of(catalog, QWEN, {"model": ["R1-Qwen"]})
    fig = heatmap_figure(view, None)
    assert tuple(fig.data[0].y) == ("3000", "2000", "1000", "500")  # first = top, with reversed
    assert fig.layout.yaxis.autorange == "reversed"
    assert tuple(fig.data[0].x) == ("0.1", "0.2", "0.3", "0.4", "0.5")
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "category"


def test_axes_follow_slice_and_escape(catalog):
    view = view_of(catalog, CORE, rows=[">", "h", "u"], x_range=(3, 5))
    trace = trace_of(view)
    assert tuple(trace.y) == ("h", "u", "&gt;")  # catalog order, HTML-escaped
    assert tuple(trace.x) == ("3", "4", "5")


@pytest.mark.parametrize("zrange", [(49.0, 57.0), (0.0, 100.0), (50.5, 51.5), None])
def test_zmin_zmax_equal_zrange(catalog, zrange):
    trace = trace_of(view_of(catalog, QWEN), zrange)
    assert (trace.zmin, trace.zmax) == (zrange or (None, None))


@pytest.mark.parametrize("fid", [CORE, "short-to-long", ACE, "dynts-r1-llama-benchmarks", QWEN])
def test_colorscale_is_the_catalogs(catalog, fid):
    trace = trace_of(view_of(catalog, fid))
    assert tuple(tuple(stop) for stop in trace.colorscale) == catalog.figure(fid).spec.colorscale


@pytest.mark.parametrize("fid, title", [(CORE, "Accuracy (%)"), (QWEN, "Pass@1"), (ACE, "Accuracy (%)")])
def test_colorbar_title_is_metric_label(catalog, fid, title):
    assert trace_of(view_of(catalog, fid)).colorbar.title.text == title


def test_hovertemplate(catalog):
    assert trace_of(view_of(catalog, CORE)).hovertemplate == "%{customdata}<extra></extra>"


def test_hover_and_text_seed_000(catalog):
    view = view_of(catalog, CORE)
    trace = trace_of(view, (0, 100))
    assert cell(trace, view, "u", "3").startswith("Type u · Length 3 · Accuracy 87.3%")
    assert "Model Qwen-2.5B" in cell(trace, view, "u", "3")
    assert cell(trace, view, "u", "3", "text") == "87.3"
    assert cell(trace, view, "~", "0", "text") == "100.0"  # the file's one decimal


def test_missing_cell_texts(catalog):
    view = view_of(catalog, CORE)
    trace = trace_of(view)
    assert "not reported" in cell(trace, view, "h", "19")
    assert cell(trace, view, "h", "19", "text") == ""
    assert np.isnan(cell(trace, view, "h", "19", "z"))


@pytest.mark.parametrize("show, template", [(False, ""), (True, "%{text}")])
def test_show_labels(catalog, show, template):
    assert trace_of(view_of(catalog, QWEN), show_labels=show).texttemplate == template


def test_z_is_float32_and_matches_view(catalog):
    view = view_of(catalog, CORE)
    z = np.asarray(trace_of(view).z)
    assert z.dtype == np.float32
    np.testing.assert_allclose(z, view.z, rtol=1e-6)  # NaN positions must agree too


def test_illustrative_is_flagged(catalog):
    view = view_of(catalog, ACE, {"benchmark": ["GSM8K"]})
    fig = heatmap_figure(view, (0, 100))
    assert any("ILLUSTRATIVE" in a.text for a in fig.layout.annotations)  # on the figure itself
    assert all("ILLUSTRATIVE" in text for row in fig.data[0].customdata for text in row)


def test_transcribed_is_not_flagged(catalog):
    fig = heatmap_figure(view_of(catalog, QWEN), None)
    assert not any("ILLUSTRATIVE" in a.text for a in fig.layout.annotations)
    assert not any("ILLUSTRATIVE" in text for row in fig.data[0].customdata for text in row)


@pytest.fixture()
def evil_view():
    spec = parse_spec({
        "id": "evil", "file": "evil.csv", "metric": {"name": "Score", "range": [0, 10]},
        "x": "x", "y": "y", "facets": ["f"], "provenance": "uploaded",
        "dims": {"f": {"title": "Facet", "labels": [EVIL]},
                 "y": {"title": "Row", "labels": [EVIL, "ok"]},
                 "x": {"title": "Col", "labels": ["1", EVIL]}},
    }, where="test")
    frame = pd.DataFrame({"f": [EVIL, EVIL], "y": [EVIL, "ok"], "x": [EVIL, "1"], "value": ["1.5", ""]},
                         dtype=str)
    cells, decimals = validate_cells(frame, spec, file="evil.csv")
    fig = Figure(spec, cells, decimals)
    return slice_panel(fig, next(iter(fig.panels.values())))


def test_labels_are_html_escaped(evil_view):
    fig = heatmap_figure(evil_view, None)
    trace = fig.data[0]
    safe = escape(EVIL)
    assert tuple(trace.y) == (safe, "ok")
    assert tuple(trace.x) == ("1", safe)
    texts = [t for row in trace.customdata for t in row]
    assert texts[1].startswith(f"Row {safe} · Col {safe} · Score 1.5<br>Facet {safe}")
    for text in [*trace.x, *trace.y, *texts, fig.layout.title.text]:
        assert "<script>" not in text
    assert safe in fig.layout.title.text


def test_no_chart_offers_to_send_itself_to_the_cloud():
    """Plotly's "Share chart" button uploads the chart: heatmaps and trend lines both drop it."""
    from components.heatmap import graph_config
    from components.trends import chart_config

    for config in (graph_config("f", "p"), chart_config("f", "p")):
        assert "sendChartToCloud" in config["modeBarButtonsToRemove"]
        assert config["showSendToCloud"] is False and config["displaylogo"] is False
    assert chart_config("f", "p")["toImageButtonOptions"]["filename"] == "f__p__trends"
    assert "zoom2d" not in chart_config("f", "p")["modeBarButtonsToRemove"]
    assert "zoom2d" in graph_config("f", "p")["modeBarButtonsToRemove"]
