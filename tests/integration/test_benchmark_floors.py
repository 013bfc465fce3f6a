"""The benchmark's floors draw what the app draws: the static page's figures and the bare Dash
app's are the same grids, labels, sizes and colour ranges (speed is never asserted here)."""

from __future__ import annotations

import base64
import json
import urllib.request

import numpy as np

from benchmarks import floors


def grids():
    a = np.array([[1.5, np.nan, 3.25], [4.0, 5.5, 6.0]])
    return [a, a * 2, a - 1]


def figures():
    return floors.floor_figures(grids(), ["x0", "x1", "x2"], ["y0", "y1"],
                                [(600, 400), (610, 410), (620, 420)],
                                [(0, 100), (0, 100), (-100, 100)])


def values(spec: dict) -> np.ndarray:
    rows, cols = (int(n) for n in spec["shape"].split(","))
    return np.frombuffer(base64.b64decode(spec["bdata"]), dtype="<f4").reshape(rows, cols)


def test_the_floor_figures_hold_the_grids_as_float32_at_the_given_sizes():
    out = figures()
    assert [f["layout"]["width"] for f in out] == [600, 610, 620]
    assert [f["layout"]["height"] for f in out] == [400, 410, 420]
    assert [(f["data"][0]["zmin"], f["data"][0]["zmax"]) for f in out] == [
        (0, 100), (0, 100), (-100, 100)]
    for figure, grid in zip(out, grids()):
        trace = figure["data"][0]
        assert trace["x"] == ["x0", "x1", "x2"] and trace["y"] == ["y0", "y1"]
        np.testing.assert_array_equal(values(trace["z"]), grid.astype(np.float32))
        assert trace["hovertemplate"] == floors.HOVER
        assert figure["layout"]["yaxis"] == {"type": "category", "autorange": "reversed"}


def test_the_static_page_draws_the_same_figures():
    html = floors.static_page(grids(), ["x0", "x1", "x2"], ["y0", "y1"],
                              [(600, 400), (610, 410), (620, 420)],
                              [(0, 100), (0, 100), (-100, 100)])
    start = html.index("var FIGS = ") + len("var FIGS = ")
    page = json.loads(html[start:html.index(";\n", start)])
    for compact, figure in zip(page, figures()):
        trace = figure["data"][0]
        assert compact["z"] == trace["z"]
        assert (compact["x"], compact["y"]) == (trace["x"], trace["y"])
        assert (compact["zmin"], compact["zmax"]) == (trace["zmin"], trace["zmax"])
        assert (compact["width"], compact["height"]) == (
            figure["layout"]["width"], figure["layout"]["height"])


def test_the_bare_dash_app_serves_one_graph_per_figure_and_nothing_else():
    server = floors.DashFloor(figures())
    try:
        page = urllib.request.urlopen(server.url, timeout=10).read().decode()
        assert "dash_core_components" in page and "_dash-renderer" in page
        assert "https://" not in page.replace("https://plotly.com", "")  # served locally
        layout = json.loads(urllib.request.urlopen(server.url + "_dash-layout",
                                                   timeout=10).read())
        children = layout["props"]["children"]
        assert [c["type"] for c in children] == ["Graph"] * 3
        assert [c["props"]["id"] for c in children] == ["g0", "g1", "g2"]
        assert [c["props"]["figure"] for c in children] == figures()
        deps = json.loads(urllib.request.urlopen(server.url + "_dash-dependencies",
                                                 timeout=10).read())
        assert deps == []  # no callbacks
    finally:
        server.close()
