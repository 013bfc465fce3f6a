"""Clustered standard errors and power on Compare in a real headless Chromium: a figure whose
items carry a cluster column, opened with ``cluster=src``; the Standard errors menu, B − A's
hover and the readout say the error bar, which SE it is, the smallest difference the items
detect and the items the difference needs, as :func:`power_text` writes them from the API's
numbers; screenshots at 1440 and 390 px (EVALMAPS_SCREENSHOTS keeps them)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from dash.testing.wait import until

from evalmaps.analysis.compare import compare, power_text
from tests.browser.helpers import fetch_text, graph_selector, hover_cell, screenshot
from tests.items_fixture import item_scores, items_figure

pytestmark = pytest.mark.browser

DELTA = graph_selector("compare", "delta")
QUERY = "?a=toy-items:small&b=toy-items:large&pct=1&cluster=src"


@pytest.fixture()
def served(dash_duo, dash_app, tmp_path):
    """The real app with one more figure: per-item records in 8 clusters of 5 items a cell."""
    state = dash_app.server.extensions["evalmaps"]
    before = state["catalog"]
    scores = item_scores(n_items=40, seed=11, chance={"small": 0.45, "large": 0.75})
    scores["cluster:src"] = "source-" + (scores["item"].str[1:].astype(int) // 5).astype(str)
    figure = items_figure(tmp_path / "items", "toy-items", scores)
    state["catalog"] = before.with_figures([figure])
    try:
        dash_duo.start_server(dash_app)
        dash_duo.items_catalog = state["catalog"]
        yield dash_duo
    finally:
        state["catalog"] = before


def hover_lines(served) -> str:
    return " ".join(served.driver.execute_script(
        "return Array.from(document.querySelector(arguments[0])"
        ".querySelectorAll('.hoverlayer .hovertext tspan.line')).map(t => t.textContent);", DELTA))


def test_clustered_error_bars_and_power_in_the_hover_and_readout(served, tmp_path):
    payload = json.loads(fetch_text(served.server_url, f"/api/compare{QUERY}"))
    served.wait_for_page(url=f"{served.server_url}/compare{QUERY}")
    served.wait_for_element(f"{DELTA} .main-svg", timeout=15)
    assert "Clustered by src" in served.find_element("#compare-cluster").text
    al = compare(served.items_catalog, "toy-items:small", "toy-items:large", cluster="src")
    al = replace(al, a=al.a.as_percent(), b=al.b.as_percent())  # pct=1: as the page writes it
    cell = next(c for c in payload["cells"] if (c["level"], c["task"]) == ("hard", "t2"))
    result = al.paired[(1, 1)]
    assert result.as_dict() == cell["paired"]  # the page's numbers are the API's
    assert result.test == "clustered" and result.n_clusters == 8
    want = power_text(al, result)
    assert "(SE, clustered by src, 8 clusters)" in want and "too few to detect a difference " \
        "of 1 point" in want
    hover_cell(served, DELTA, "t2", "hard")
    assert want in hover_lines(served)
    until(lambda: want in served.find_element("#compare-readout").text, timeout=5)
    readout = served.find_element("#compare-readout").text
    assert "Wald on the clustered SE" in readout
    for width in (1440, 390):
        served.driver.set_window_size(width, 1000)
        served.wait_for_page(url=f"{served.server_url}/compare{QUERY}")
        served.wait_for_element(f"{DELTA} .main-svg", timeout=15)
        hover_cell(served, DELTA, "t2", "hard")
        screenshot(served.driver, f"compare-clusters-{width}", tmp_path)
    assert served.get_logs() == []
