"""The built-in MMLU-Pro example (issue 27), in a real headless Chromium: Compare of Llama-2-13B
against 7B is paired per question, and a click on a cell of B − A opens the items behind it, with
the tabs' counts equal to /api/compare/items' and to a count made here from the API's list, and
a search lists what the API's q= gives (texts included). The click comes after the pointer has
hovered the cell: the readout that grows on hover must not move the maps under it."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, quote, urlsplit
from urllib.request import urlopen

import pytest
from dash.testing.wait import until
from selenium.common.exceptions import JavascriptException
from selenium.webdriver.common.by import By

from tests.browser.helpers import cell_center, graph_selector

pytestmark = pytest.mark.browser

A, B = "mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b"
QUERY = f"?a={quote(A)}&b={quote(B)}"
DELTA = graph_selector("compare", "delta")


def get(dash_duo, path: str) -> dict:
    with urlopen(f"{dash_duo.server_url}{path}") as response:
        return json.load(response)


def test_mmlu_pro_compare_is_paired_and_a_cell_opens_its_questions(dash_duo, dash_app):
    dash_duo.start_server(dash_app)
    compare = get(dash_duo, f"/api/compare{QUERY}")
    biology = next(c for c in compare["cells"] if c["category"] == "biology")
    paired = biology["paired"]
    assert paired["test"] == "mcnemar" and paired["n"] == 717  # biology's questions, both models

    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/compare{QUERY}")
    dash_duo.wait_for_element(f"{DELTA} .main-svg", timeout=20)
    driver = dash_duo.driver
    plot = driver.find_element(By.CSS_SELECTOR, f"{DELTA} .nsewdrag")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});", plot)
    x, y = cell_center(driver, DELTA, "accuracy", "biology")
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(round(x), round(y))
    actions.pointer_action.click()
    actions.perform()
    dash_duo.wait_for_text_to_equal("#compare-items-title",
                                    "Items at Category biology · Metric accuracy", timeout=15)

    items = get(dash_duo, f"/api/compare/items{QUERY}&limit=1000&category=biology&metric=accuracy"
                           "&which=all")
    rows = items["items"]
    by_hand = {"a_only": sum(r["a"] == 1 and r["b"] == 0 for r in rows),
               "b_only": sum(r["a"] == 0 and r["b"] == 1 for r in rows),
               "both": sum(r["a"] == 1 and r["b"] == 1 for r in rows),
               "neither": sum(r["a"] == 0 and r["b"] == 0 for r in rows), "all": len(rows)}
    assert items["counts"] == by_hand
    assert (by_hand["a_only"], by_hand["b_only"]) == (paired["a_only"], paired["b_only"])
    names = {"a_only": "Only A right", "b_only": "Only B right", "both": "Both right",
             "neither": "Neither right", "all": "All"}
    want = sorted(f"{names[w]} ({n})" for w, n in by_hand.items())

    def shown():
        labels = driver.find_elements(By.CSS_SELECTOR, "#compare-items-which label")
        return sorted(label.text for label in labels)
    until(lambda: shown() == want, timeout=15)

    # the search covers the texts: "c" is in no id or score, only in targets and responses (C)
    found = get(dash_duo, f"/api/compare/items{QUERY}&limit=1000&category=biology&metric=accuracy"
                           "&q=c")
    assert 0 < len(found["items"]) < len(rows)
    driver.find_element(By.ID, "compare-items-search").send_keys("c")
    count = "return dash_ag_grid.getApi('compare-items-grid').getDisplayedRowCount();"
    until(lambda: driver.execute_script(count) == len(found["items"]), timeout=15)
    assert "q=c" in driver.find_element(By.ID, "compare-items-csv").get_attribute("href")
    assert driver.find_element(By.ID, "compare-items-found").text == \
        f"{len(found['items'])} items found"
    # the search is state: the address bar holds it, and a tab keeps it
    until(lambda: parse_qs(urlsplit(driver.current_url).query).get("q") == ["c"], timeout=10)
    b_only = get(dash_duo, f"/api/compare/items{QUERY}&limit=1000&category=biology&metric=accuracy"
                           "&which=b_only&q=c")["items"]
    assert 0 < len(b_only) < len(found["items"])
    driver.find_element(By.CSS_SELECTOR,
                        "#compare-items-which input[value='b_only'] + label").click()
    until(lambda: driver.execute_script(count) == len(b_only), timeout=15)
    assert parse_qs(urlsplit(driver.current_url).query)["q"] == ["c"]
    assert driver.find_element(By.ID, "compare-items-search").get_attribute("value") == "c"
    # back to the unsearched list: history restores the search with the location
    driver.back()
    driver.back()
    until(lambda: driver.execute_script(count) == len(rows), timeout=15)
    assert driver.find_element(By.ID, "compare-items-search").get_attribute("value") == ""
    assert "q" not in parse_qs(urlsplit(driver.current_url).query)
    # the list's link keeps the search, and opens the same list searched
    driver.forward()
    until(lambda: driver.execute_script(count) == len(found["items"]), timeout=15)
    link = driver.find_element(By.ID, "compare-items-link").get_attribute("href")
    assert link.endswith(found["url"])
    driver.get(link)

    def listed():
        try:
            return driver.execute_script(count)
        except JavascriptException:  # the grid is not drawn yet
            return None
    until(lambda: listed() == len(found["items"]), timeout=15)
    assert driver.find_element(By.ID, "compare-items-search").get_attribute("value") == "c"
    assert driver.find_element(By.ID, "compare-items-found").text == \
        f"{len(found['items'])} items found"
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
