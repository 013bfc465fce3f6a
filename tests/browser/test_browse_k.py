"""Browse of a figure with per-item records in a real headless Chromium: the hover gives a
cell's item and sample counts, and the k menu switches every cell to the unbiased pass@k
(worked by hand with math.comb), with k in the URL."""

from __future__ import annotations

from math import comb

import pytest
from dash.testing.wait import until

from tests.browser.helpers import graph_selector, hover_cell, pick_option, screenshot
from tests.cell_items_fixture import FIGURE_ID, items_figure

pytestmark = pytest.mark.browser

M7 = graph_selector("browse", "m7")


@pytest.fixture()
def sampled_app(dash_app, tmp_path):
    catalog = dash_app.server.extensions["evalmaps"]["catalog"]
    catalog.figures[FIGURE_ID] = items_figure(tmp_path / "items", sampled=True)
    yield dash_app
    del catalog.figures[FIGURE_ID]


def test_hover_counts_and_the_k_menu(dash_duo, sampled_app, tmp_path):
    dash_duo.start_server(sampled_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?figure={FIGURE_ID}")
    dash_duo.wait_for_element(f"{M7} .main-svg", timeout=15)
    text = hover_cell(dash_duo, M7, "test", "law")
    # m7's law items: 1, 0 and 4 right of 4 samples: (0.25 + 0 + 1) / 3
    assert "0.4167" in text.replace("\n", " ") or "0.42" in text
    assert "Items 3 · samples per item: up to 4" in text
    pick_option(dash_duo, "#browse-k", "pass@2")
    until(lambda: "k=2" in dash_duo.driver.current_url, timeout=10)
    want = ((1 - comb(3, 2) / comb(4, 2)) + 0 + 1) / 3  # 0.5
    until(lambda: f"{want:.2f}" in hover_cell(dash_duo, M7, "test", "law"), timeout=10)
    assert "pass@2" in dash_duo.find_element("#browse-summary").text
    screenshot(dash_duo.driver, "browse-k", tmp_path)


def test_compare_takes_k_from_its_menu(dash_duo, sampled_app):
    from selenium.webdriver.common.by import By

    from tests.browser.test_compare_items import open_page

    dash_duo.start_server(sampled_app)
    open_page(dash_duo)
    css = graph_selector("compare", "a")
    text = hover_cell(dash_duo, css, "test", "law")
    assert "0.4167" in text
    pick_option(dash_duo, "#compare-k", "pass@2")
    until(lambda: "k=2" in dash_duo.driver.current_url, timeout=10)
    until(lambda: "0.5" in hover_cell(dash_duo, css, "test", "law"), timeout=10)
    # the items follow k: law's l1 on A is pass@2 of 1 right in 4 = 0.5
    dash_duo.driver.get(dash_duo.driver.current_url + "&cell=law%7Ctest")
    dash_duo.wait_for_text_to_equal("#compare-items-title",
                                    "Items at Category law · Split test (pass@2)", timeout=15)
    until(lambda: dash_duo.driver.find_elements(
        By.CSS_SELECTOR, "#compare-items-grid .ag-row[row-index='0'] [col-id=a]"), timeout=10)
    cell = dash_duo.driver.find_element(
        By.CSS_SELECTOR, "#compare-items-grid .ag-center-cols-container .ag-row[row-index='0'] "
                         "[col-id=a]")
    assert cell.text == "0.5"
