"""The paired test on Compare in a real headless Chromium: two panels of a figure with per-item
records; the B − A hover, the keyboard/hover readout and the summary give the paired numbers,
which equal /api/compare's; screenshots at 1440 and 390 px."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from dash.testing.wait import until

from components.compare import paired_text
from evalmaps.analysis.compare import compare
from tests.browser.helpers import fetch_text, graph_selector, hover_cell, screenshot
from tests.items_fixture import item_scores, items_figure, serving

pytestmark = pytest.mark.browser

DELTA = graph_selector("compare", "delta")
QUERY = "?a=toy-items:small&b=toy-items:large&pct=1"


@pytest.fixture()
def served(dash_duo, dash_app, tmp_path):
    """The real app with one more figure: per-item records behind every cell."""
    figure = items_figure(tmp_path / "items", "toy-items",
                          item_scores(n_items=40, seed=11, chance={"small": 0.45, "large": 0.75}))
    with serving(dash_app, [figure]) as catalog:
        dash_duo.start_server(dash_app)
        dash_duo.items_catalog = catalog
        yield dash_duo


def api(served, query: str) -> dict:
    return json.loads(fetch_text(served.server_url, f"/api/compare{query}"))


def test_paired_hover_readout_and_summary_equal_the_api(served, tmp_path):
    payload = api(served, QUERY)
    served.wait_for_page(url=f"{served.server_url}/compare{QUERY}")
    served.wait_for_element(f"{DELTA} .main-svg", timeout=15)
    al = compare(served.items_catalog, "toy-items:small", "toy-items:large")
    al = replace(al, a=al.a.as_percent(), b=al.b.as_percent())  # pct=1: as the page writes it
    cell = next(c for c in payload["cells"] if (c["level"], c["task"]) == ("hard", "t2"))
    paired = cell["paired"]
    result = al.paired[(1, 1)]
    assert result.as_dict() == paired  # the page's numbers are the API's
    want = paired_text(al, result)  # 'paired, 40 items: +20.0 points [+2.5, +37.5], p = 0.04'
    assert want.startswith("paired, 40 items: ")
    hover_cell(served, DELTA, "t2", "hard")
    hovered = " ".join(served.driver.execute_script(  # the hover label's lines, one a tspan
        "return Array.from(document.querySelector(arguments[0])"
        ".querySelectorAll('.hoverlayer .hovertext tspan.line')).map(t => t.textContent);", DELTA))
    assert want in hovered
    adjusted = f"{paired['p_adjusted']:.2g}"  # d3's .2~g writes it alike
    assert f"adjusted p = {adjusted} (FDR)" in hovered
    until(lambda: want in served.find_element("#compare-readout").text, timeout=5)
    readout = served.find_element("#compare-readout").text
    assert "(adjusted " in readout and "exact McNemar" in readout
    s = payload["summary"]
    summary = served.find_element("#compare-paired").text
    assert summary.startswith(f"B better in {s['b_sig_better_paired']} of {s['paired_cells']} "
                              "cells (paired, FDR 5%)")
    assert "exact McNemar" in summary
    sentences = served.find_element("#compare-sentences").text
    assert payload["sentences"][-1] in sentences
    # the outlines: one per cell the paired test cannot tell apart
    shapes = served.driver.execute_script(
        "return document.querySelector(arguments[0]).querySelector('.js-plotly-plot')"
        ".layout.shapes.length;", DELTA)
    assert shapes == sum(c["paired"]["p_adjusted"] >= 0.05 for c in payload["cells"])
    folder = Path(os.environ.get("EVALMAPS_SHOTS_PAIRED") or tmp_path)
    for width in (1440, 390):
        served.driver.set_window_size(width, 1000)
        served.wait_for_page(url=f"{served.server_url}/compare{QUERY}")
        served.wait_for_element(f"{DELTA} .main-svg", timeout=15)
        hover_cell(served, DELTA, "t2", "hard")
        screenshot(served.driver, f"compare-paired-{width}", folder)
        served.driver.execute_script("document.getElementById('compare-paired')"
                                     ".scrollIntoView({block: 'center', behavior: 'instant'});")
        screenshot(served.driver, f"compare-paired-summary-{width}", folder)
    assert served.get_logs() == []
