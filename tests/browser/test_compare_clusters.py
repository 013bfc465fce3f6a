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
from selenium.webdriver.support.select import Select

from evalmaps.analysis.compare import compare, power_text
from tests.browser.helpers import (
    download_to,
    downloaded,
    fetch_text,
    graph_selector,
    hover_cell,
    screenshot,
)
from tests.items_fixture import clustered_by_src, item_scores, items_figure, serving

pytestmark = pytest.mark.browser

DELTA = graph_selector("compare", "delta")
QUERY = "?a=toy-items:small&b=toy-items:large&pct=1&cluster=src"


@pytest.fixture()
def served(dash_duo, dash_app, tmp_path):
    """The real app with one more figure: per-item records in 8 clusters of 5 items a cell."""
    scores = clustered_by_src(item_scores(n_items=40, seed=11,
                                          chance={"small": 0.45, "large": 0.75}))
    with serving(dash_app, [items_figure(tmp_path / "items", "toy-items", scores)]) as catalog:
        dash_duo.start_server(dash_app)
        dash_duo.items_catalog = catalog
        yield dash_duo


VALUES = """
const gd = document.querySelector(arguments[0]).querySelector('.js-plotly-plot');
const k = 0;
return {title: gd.data[k].colorbar.title.text};
"""  # B − A's value trace's colour bar title


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
    # 8 clusters are few: the words name Student's t and its df
    assert "(SE, clustered by src, only 8 clusters: t with 7 df)" in want and "too few to " \
        "detect a difference of 1 point" in want
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


def test_the_power_map_colours_b_minus_a_by_each_cells_mde(served, tmp_path):
    query = QUERY + "&power=1"
    payload = json.loads(fetch_text(served.server_url, f"/api/compare{query}"))
    served.wait_for_page(url=f"{served.server_url}/compare{query}")
    served.wait_for_element(f"{DELTA} .main-svg", timeout=15)
    assert served.find_element("#compare-power").is_selected()
    drawn = served.driver.execute_script(VALUES, DELTA)
    assert drawn["title"] == "mde (points)"
    # each cell's colour is its mde in points (pct=1): the colour range runs to the largest
    top = served.driver.execute_script(
        "const gd = document.querySelector(arguments[0]).querySelector('.js-plotly-plot');"
        "const k = 0;"
        "return [gd.data[k].zmin, gd.data[k].zmax];", DELTA)
    assert top == pytest.approx([0, 100 * max(c["paired"]["mde"] for c in payload["cells"])])
    al = compare(served.items_catalog, "toy-items:small", "toy-items:large", cluster="src")
    al = replace(al, a=al.a.as_percent(), b=al.b.as_percent())
    hover_cell(served, DELTA, "t2", "hard")
    hovered = hover_lines(served)
    assert power_text(al, al.paired[(1, 1)]) in hovered
    assert "B − A +42.5 points" in hovered  # the difference itself, not its mde
    assert "Power map" in served.find_element("#compare-legend").text
    for width in (1440, 390):
        served.driver.set_window_size(width, 1000)
        served.wait_for_page(url=f"{served.server_url}/compare{query}")
        served.wait_for_element(f"{DELTA} .main-svg", timeout=15)
        served.driver.execute_script("document.querySelector(arguments[0]).scrollIntoView("
                                     "{block: 'center', behavior: 'instant'});", DELTA)
        screenshot(served.driver, f"compare-power-{width}", tmp_path)
    served.driver.set_window_size(1440, 1000)
    served.wait_for_page(url=f"{served.server_url}/compare{query}")
    served.wait_for_element(f"{DELTA} .main-svg", timeout=15)
    switch = served.find_element("#compare-power")
    served.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", switch)
    switch.click()  # off again: B − A, and the URL says so
    until(lambda: "power=1" not in served.driver.current_url, timeout=10)
    until(lambda: served.driver.execute_script(VALUES, DELTA)["title"].startswith("B − A"),
          timeout=10)
    assert served.get_logs() == []


def test_the_table_of_b_gives_its_clustered_se_with_n_and_clusters(served, tmp_path):
    folder = tmp_path / "downloads"
    download_to(served.driver, folder)
    served.wait_for_page(url=f"{served.server_url}/compare{QUERY}")
    served.wait_for_element(f"{DELTA} .main-svg", timeout=15)
    Select(served.find_element("#compare-export-panel")).select_by_value("b")
    Select(served.find_element("#compare-export-format")).select_by_value("markdown")
    served.find_element("#compare-export").click()
    text = downloaded(folder, "toy-items__large.md")
    cells = {(c["level"], c["task"]): c for c in json.loads(fetch_text(
        served.server_url, "/api/figures/toy-items/cells?model=large&cluster=src"))["cells"]}
    assert f"± {cells[('hard', 't2')]['se_clustered']:.4f}" in text  # 77.5% ± 0.0xxx
    assert "clustered by src (without a small-sample correction)" in text
    assert "n = 40 items a cell, in 8 clusters of src." in text
    assert served.get_logs() == []


def test_browse_and_trends_name_their_clustered_standard_errors(served, tmp_path):
    query = "?figure=toy-items&model=large&cluster=src"
    cells = {(c["level"], c["task"]): c for c in json.loads(fetch_text(
        served.server_url, "/api/figures/toy-items/cells?model=large&cluster=src"))["cells"]}
    served.wait_for_page(url=f"{served.server_url}/{query}")
    css = graph_selector("browse", "large")
    served.wait_for_element(f"{css} .main-svg", timeout=15)
    until(lambda: "clustered by src" in served.find_element("#browse-summary").text, timeout=10)
    text = hover_cell(served, css, "t2", "hard")
    se = cells[("hard", "t2")]["se_clustered"]
    assert f"± {100 * se:.1f}% se" in text or f"± {se:.3f} se" in text or f"{se:.4f}" in text, text
    screenshot(served.driver, "browse-clusters-1440", tmp_path)
    served.wait_for_page(url=f"{served.server_url}/trends{query}")
    until(lambda: "clustered by src" in served.find_element("#trends-summary").text, timeout=15)
    screenshot(served.driver, "trends-clusters-1440", tmp_path)
    assert served.get_logs() == []


def test_browse_and_trends_have_a_standard_errors_menu_that_writes_cluster(served, tmp_path):
    """The menu of the figure's cluster columns (hidden where it keeps none) writes cluster= to
    the URL, the page draws the clustered errors, and back sets the menu again."""
    cells = {(c["level"], c["task"]): c for c in json.loads(fetch_text(
        served.server_url, "/api/figures/toy-items/cells?model=large&cluster=src"))["cells"]}
    for page, path in (("browse", "/"), ("trends", "/trends")):
        served.driver.set_window_size(1440, 1000)
        served.wait_for_page(url=f"{served.server_url}{path}?figure=toy-items&model=large")
        served.wait_for_element(f"#{page}-cluster", timeout=15)
        assert served.find_element(f"#{page}-cluster-col").is_displayed()
        assert "clustered by" not in served.find_element(f"#{page}-summary").text
        served.select_dcc_dropdown(f"#{page}-cluster", "Clustered by src")
        until(lambda: "cluster=src" in served.driver.current_url, timeout=10)
        until(lambda: "clustered by src" in served.find_element(f"#{page}-summary").text,
              timeout=15)
        if page == "browse":
            css = graph_selector("browse", "large")
            text = hover_cell(served, css, "t2", "hard")
            se = cells[("hard", "t2")]["se_clustered"]
            assert f"{se:.3f}" in text or f"{100 * se:.1f}" in text, text
        for width in (1440, 390):
            served.driver.set_window_size(width, 1000)
            menu = served.find_element(f"#{page}-cluster")
            if not menu.is_displayed():  # a phone folds the controls behind "Filters"
                served.find_element(f"#{page}-filters-toggle").click()
                until(menu.is_displayed, timeout=5)
            served.driver.execute_script(
                "document.querySelector(arguments[0]).scrollIntoView({block: 'center'});",
                f"#{page}-cluster")
            screenshot(served.driver, f"{page}-cluster-menu-{width}", tmp_path)
        served.driver.set_window_size(1440, 1000)
        served.driver.back()  # the URL without cluster: the menu follows it
        until(lambda: "cluster=src" not in served.driver.current_url, timeout=10)
        until(lambda: "Not clustered" in served.find_element(f"#{page}-cluster").text,
              timeout=10)
        until(lambda: "clustered by" not in served.find_element(f"#{page}-summary").text,
              timeout=15)
    # a figure whose items keep no cluster column: no menu
    served.wait_for_page(url=f"{served.server_url}/?figure=mmlu-pro")
    served.wait_for_element("#browse-cluster-col", timeout=15)
    assert not served.find_element("#browse-cluster-col").is_displayed()
    assert served.get_logs() == []


@pytest.fixture()
def ranked(dash_duo, dash_app, tmp_path):
    """The real app with a figure of three models whose items keep a cluster column."""
    models = ("m1", "m2", "m3")
    scores = clustered_by_src(item_scores(models=models, n_items=40, seed=5,
                                          chance={"m1": 0.45, "m2": 0.6, "m3": 0.8}))
    with serving(dash_app, [items_figure(tmp_path / "ranked", "toy-ranked", scores,
                                         models=models)]):
        dash_duo.start_server(dash_app)
        yield dash_duo


def test_the_rank_page_names_its_clustered_test_and_resampling(ranked, tmp_path):
    query = "?figure=toy-ranked&by=model&cluster=src"
    payload = json.loads(fetch_text(ranked.server_url, f"/api/rank{query}"))
    assert payload["cluster"] == "src"
    ranked.wait_for_page(url=f"{ranked.server_url}/rank{query}")
    ranked.wait_for_element("#rank-clustered", timeout=20)
    said = ranked.find_element("#rank-clustered").text
    assert said.startswith("Clustered: by src (8 clusters a pair)")
    assert "cluster bootstrap" in said and "only 8 clusters: t with 7 df" in said
    assert "Wald test on the clustered standard error (Student's t, clusters − 1 df)" in \
        ranked.find_element("#rank-test").text
    for width in (1440, 390):
        ranked.driver.set_window_size(width, 1000)
        ranked.wait_for_page(url=f"{ranked.server_url}/rank{query}")
        ranked.wait_for_element("#rank-clustered", timeout=20)
        ranked.driver.execute_script("document.querySelector('#rank-notes').scrollIntoView("
                                     "{block: 'start'});")
        screenshot(ranked.driver, f"rank-clusters-{width}", tmp_path)
    assert ranked.get_logs() == []


GRID_ROWS = """
return Array.from(document.querySelectorAll('#rank-table .ag-center-cols-container .ag-row'))
  .map(r => [Number(r.getAttribute('row-index')),
             r.querySelector('[col-id="ci_low"]').textContent])
  .sort((a, b) => a[0] - b[0]).map(r => r[1]);
"""  # the ranking table's 95% intervals as drawn, in its rows' order


def test_the_rank_page_has_a_standard_errors_menu_that_writes_cluster(ranked, tmp_path):
    """Rank's Standard errors menu (issue 39) writes cluster= to the URL; the page says its
    clustering and draws /rank.json's clustered intervals; the nav links carry cluster= on."""
    query = "?figure=toy-ranked&by=model"
    want = json.loads(fetch_text(ranked.server_url, f"/rank.json{query}&cluster=src"))
    plain = json.loads(fetch_text(ranked.server_url, f"/rank.json{query}"))
    ranked.driver.set_window_size(1440, 1000)
    ranked.wait_for_page(url=f"{ranked.server_url}/rank{query}")
    ranked.wait_for_element("#rank-cluster", timeout=20)
    assert ranked.find_element("#rank-cluster-col").is_displayed()
    assert not ranked.find_elements("#rank-clustered")
    before = ranked.driver.execute_script(GRID_ROWS)
    ranked.select_dcc_dropdown("#rank-cluster", "Clustered by src")
    until(lambda: "cluster=src" in ranked.driver.current_url, timeout=10)
    until(lambda: ranked.find_elements("#rank-clustered"), timeout=20)
    said = ranked.find_element("#rank-clustered").text
    assert said.startswith("Clustered: by src (8 clusters a pair)"), said
    until(lambda: ranked.driver.execute_script(GRID_ROWS) != before, timeout=20)
    shown = ranked.driver.execute_script(GRID_ROWS)
    rows = [m for c in want["cells"] for m in c["models"]]  # the table's order
    others = [m for c in plain["cells"] for m in c["models"]]
    assert len(shown) == len(rows) == len(others) > 3
    for text, row, other in zip(shown, rows, others):
        scale = 100 if "%" in text else 1
        low, high = (t.strip().rstrip("%") for t in text.split("\u2013"))
        places = len(low.partition(".")[2])
        for drawn, exact in zip((low, high), row["ci"]):
            assert abs(float(drawn) - scale * exact) <= 0.5 * 10 ** -places + 1e-9, (row, text)
        assert row["model"] == other["model"]
        assert row["ci"] != other["ci"]  # the clustered interval, not the plain one
    # the nav links carry cluster= to the pages that read it
    hrefs = {a.get_attribute("pathname"): a.get_attribute("href")
             for a in ranked.find_elements("a.evalmaps-nav")}
    for path in ("/", "/trends", "/compare"):
        assert "cluster=src" in hrefs[path], hrefs
    ranked.find_element("a.evalmaps-nav[href*='/trends']").click()
    until(lambda: "/trends" in ranked.driver.current_url, timeout=10)
    assert "cluster=src" in ranked.driver.current_url
    ranked.wait_for_element("#trends-cluster", timeout=20)
    until(lambda: "Clustered by src" in ranked.find_element("#trends-cluster").text, timeout=10)
    rank_link = ranked.find_element("a.evalmaps-nav[href*='/rank']")
    until(lambda: "cluster=src" in rank_link.get_attribute("href"), timeout=10)
    ranked.driver.back()  # Rank again, clustered: the menu as its URL says
    until(lambda: ranked.find_elements("#rank-clustered"), timeout=20)
    assert "Clustered by src" in ranked.find_element("#rank-cluster").text
    for width in (1440, 390):
        ranked.driver.set_window_size(width, 1000)
        menu = ranked.find_element("#rank-cluster")
        if not menu.is_displayed():  # a phone folds the controls behind "Filters"
            ranked.find_element("#rank-filters-toggle").click()
            until(menu.is_displayed, timeout=5)
        ranked.driver.execute_script(
            "document.querySelector('#rank-cluster').scrollIntoView({block: 'center'});")
        screenshot(ranked.driver, f"rank-cluster-menu-{width}", tmp_path)
    assert ranked.get_logs() == []
