"""Compare's items panel in a real headless Chromium, on the real app with the items fixture's
figure (tests/cell_items_fixture.py) in its catalog: a click on a cell of B − A and Enter on it open
the cell's items; the tabs' counts and the list equal /api/compare/items'; responses stay text;
the link reopens the same list."""

from __future__ import annotations

import json
from urllib.parse import quote
from urllib.request import urlopen

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.browser.helpers import cell_center, graph_selector, screenshot
from tests.cell_items_fixture import FIGURE_ID, items_figure

pytestmark = pytest.mark.browser

A, B = f"{FIGURE_ID}:m7", f"{FIGURE_ID}:m13"
DELTA = graph_selector("compare", "delta")
QUERY = f"?a={quote(A)}&b={quote(B)}"


@pytest.fixture()
def items_app(dash_app, tmp_path):
    catalog = dash_app.server.extensions["evalmaps"]["catalog"]
    catalog.figures[FIGURE_ID] = items_figure(tmp_path / "items")
    yield dash_app
    del catalog.figures[FIGURE_ID]


def api(dash_duo, **cell) -> dict:
    rest = "".join(f"&{k}={quote(v)}" for k, v in cell.items())
    with urlopen(f"{dash_duo.server_url}/api/compare/items{QUERY}{rest}") as response:
        return json.load(response)


def tabs(driver) -> dict[str, str]:
    labels = driver.find_elements(By.CSS_SELECTOR, "#compare-items-which label")
    return {lab.get_attribute("for"): lab.text for lab in labels}


def grid_items(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#compare-items-grid .ag-center-cols-container"
        " .ag-row')).sort((a, b) => (+a.getAttribute('row-index')) - (+b.getAttribute('row-index')))"
        ".map(r => r.querySelector('[col-id=item]').textContent);")


def expected_tabs(body: dict) -> list[str]:
    names = {"a_only": "Only A right", "b_only": "Only B right", "both": "Both right",
             "neither": "Neither right", "all": "All"}
    return sorted(f"{names[w]} ({n})" for w, n in body["counts"].items())


def open_page(dash_duo, query=QUERY):
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/compare{query}")
    dash_duo.wait_for_element(f"{DELTA} .main-svg", timeout=15)


def test_a_click_on_b_minus_a_opens_its_items(dash_duo, items_app, tmp_path):
    dash_duo.start_server(items_app)
    open_page(dash_duo)
    driver = dash_duo.driver
    plot = driver.find_element(By.CSS_SELECTOR, f"{DELTA} .nsewdrag")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});", plot)
    x, y = cell_center(driver, DELTA, "test", "math")
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(round(x), round(y))
    actions.pointer_action.click()
    actions.perform()
    dash_duo.wait_for_text_to_equal("#compare-items-title", "Items at Category math · Split test",
                                    timeout=10)
    body = api(dash_duo, category="math", split="test")
    until(lambda: len(grid_items(driver)) == body["counts"]["all"], timeout=10)
    assert sorted(tabs(driver).values()) == expected_tabs(body)
    assert grid_items(driver) == [r["item"] for r in body["items"]]
    assert "cell=math%7Ctest" in driver.current_url
    # only B right: the list and the URL follow the tab
    driver.find_element(By.XPATH, "//*[@id='compare-items-which']//label[starts-with(., "
                                  "'Only B right')]").click()
    b_only = api(dash_duo, category="math", split="test", which="b_only")
    until(lambda: grid_items(driver) == [r["item"] for r in b_only["items"]], timeout=10)
    assert "which=b_only" in driver.current_url
    # q2's response holds markup: shown as text, never run
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});",
                          driver.find_element(By.ID, "compare-items-detail"))
    until(lambda: "q2" in driver.find_element(By.ID, "compare-items-detail").text, timeout=10)
    detail = driver.find_element(By.ID, "compare-items-detail")
    assert "<script>window.__pwned = 1</script><b>bold</b> the answer is (B)" in detail.text
    assert detail.find_elements(By.TAG_NAME, "b") == [] and detail.find_elements(By.TAG_NAME, "script") == []
    assert driver.execute_script("return window.__pwned === undefined")
    # the long prompt is shortened, and whole behind "show all"
    summary = detail.find_element(By.CSS_SELECTOR, ".items-details summary")
    assert "show all" in summary.text and len(summary.text) < 320
    screenshot(driver, "compare-items", tmp_path)
    # the link opens the same list
    link = driver.find_element(By.ID, "compare-items-link").get_attribute("href")
    assert link.endswith("cell=math|test&which=b_only")
    open_page(dash_duo, link[len(dash_duo.server_url) + len("/compare"):])
    until(lambda: grid_items(driver) == ["q2", "q3"], timeout=10)
    csv_href = driver.find_element(By.ID, "compare-items-csv").get_attribute("href")
    with urlopen(csv_href) as response:
        assert response.read().decode().splitlines()[0] == (
            "item,a,b,prompt,target,a_response,b_response")
    # Close: the panel hides and the URL forgets the cell
    close = driver.find_element(By.ID, "compare-items-close")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});", close)
    close.click()
    until(lambda: not driver.find_element(By.ID, "compare-items").is_displayed(), timeout=10)
    assert "cell=" not in driver.current_url


def test_enter_on_a_cell_of_b_minus_a_opens_its_items(dash_duo, items_app):
    dash_duo.start_server(items_app)
    open_page(dash_duo)
    driver = dash_duo.driver
    frame = driver.find_element(By.CSS_SELECTOR, f".heatmap-keys:has({DELTA})")
    driver.execute_script("arguments[0].focus();", frame)  # the top-left cell: math
    frame.send_keys(Keys.ARROW_DOWN)  # law
    frame.send_keys(Keys.ENTER)
    dash_duo.wait_for_text_to_equal("#compare-items-title", "Items at Category law · Split test",
                                    timeout=10)
    body = api(dash_duo, category="law", split="test")
    until(lambda: grid_items(driver) == [r["item"] for r in body["items"]], timeout=10)
    assert sorted(tabs(driver).values()) == expected_tabs(body)


def test_axe_finds_nothing_serious_in_the_open_items(dash_duo, items_app):
    from tests.browser.test_axe import axe_source, describe, run_axe

    source = axe_source()
    dash_duo.start_server(items_app)
    open_page(dash_duo, QUERY + "&cell=math%7Ctest&which=b_only")
    until(lambda: grid_items(dash_duo.driver) == ["q2", "q3"], timeout=10)
    bad = [v for v in run_axe(dash_duo.driver, source) if v["impact"] in ("critical", "serious")]
    assert bad == [], describe(bad)
