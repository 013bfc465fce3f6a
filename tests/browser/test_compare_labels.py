"""Compare two labels of any dimension in a real headless Chromium (dash_duo), against the real
app and data: the built-in Pythia figure has its models as rows; two of them are picked in the
menus, and a cell of B − A is read by hover and by the keyboard readout, its values worked out
here from the figure's own cells."""

from __future__ import annotations

import math

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.by import By

from evalmaps.analysis.compare import compare
from tests.browser.helpers import graph_selector, hover_cell, pick_option, screenshot

pytestmark = pytest.mark.browser

A, B, DELTA = (graph_selector("compare", side) for side in ("a", "b", "delta"))
MAPS = f"{DELTA} .main-svg"
PYTHIA = "pythia-zero-shot"


@pytest.fixture()
def served(dash_duo, dash_app):
    dash_duo.start_server(dash_app)
    return dash_duo


def open_compare(dash_duo, query: str = "") -> None:
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/compare{query}")
    dash_duo.wait_for_element(MAPS, timeout=15)


def text(dash_duo, css: str) -> str:
    return dash_duo.find_element(css).text


def readout(dash_duo) -> str:
    return dash_duo.driver.find_element(By.ID, "compare-readout").text


def cell(catalog, model: str, task: str, step: str, column: str = "value") -> float:
    cells = catalog.figure(PYTHIA).cells
    row = cells[(cells.model == model) & (cells.task == task) & (cells.step == step)
                & (cells.metric == "acc")]
    assert len(row) == 1
    return float(row[column].iloc[0])


def test_two_pythia_models_picked_in_the_menus_and_a_cell_of_b_minus_a(served, catalog,
                                                                       tmp_path):
    open_compare(served, f"?figure={PYTHIA}")
    assert text(served, "#compare-by") == "Panels"
    pick_option(served, "#compare-by", "Model (8 labels)")
    until(lambda: "model=" in served.driver.current_url, timeout=10)
    pick_option(served, "#compare-a", "1.4b")
    until(lambda: "model=1.4b" in served.driver.current_url, timeout=10)
    pick_option(served, "#compare-b", "2.8b")
    until(lambda: served.driver.current_url.endswith(
        f"/compare?a={PYTHIA}:model=1.4b&b={PYTHIA}:model=2.8b"), timeout=10)
    until(lambda: text(served, "#compare-heading") == "A · 1.4b vs B · 2.8b", timeout=10)
    # the grid: task by step (model was the rows), metric fixed at acc
    assert text(served, "#compare-ydim") == "Task"
    assert text(served, "#compare-xdim") == "Training step"
    assert text(served, '[id=\'{"dim":"metric","type":"compare-rest"}\']') == "acc"
    assert text(served, "#compare-a-label") == "A: Model"

    # B − A at arc_easy, step 143000, from the figure's cells: values and standard errors
    a, b = cell(catalog, "1.4b", "arc_easy", "143000"), cell(catalog, "2.8b", "arc_easy", "143000")
    se = math.sqrt(cell(catalog, "1.4b", "arc_easy", "143000", "se") ** 2
                   + cell(catalog, "2.8b", "arc_easy", "143000", "se") ** 2)
    delta = round(b - a, 9)
    noise = ("within 1.96 SE: not distinguishable" if abs(delta) < 1.96 * se
             else "beyond 1.96 SE: distinguishable")
    hover_cell(served, DELTA, "143000", "arc_easy")
    expected = (f"Task arc_easy · Training step 143000 — A {a:.4f} · B {b:.4f} · "
                f"B − A {delta:+.4f} · SE {se:.5f}, {noise}")
    until(lambda: readout(served) == expected, timeout=5)
    screenshot(served.driver, "compare-two-models", tmp_path)
    assert served.get_logs() == [], "browser console errors"


def test_an_averaged_grid_of_one_row_read_with_the_keyboard(served, catalog, tmp_path):
    """Averaged over task, one row: each cell is the mean of the 65 tasks' acc at a step; the
    keyboard readout names the column alone, and A's hover says how many were averaged."""
    query = f"?a={PYTHIA}:model=1.4b&b={PYTHIA}:model=2.8b&ydim=&avg=task"
    open_compare(served, query)
    assert text(served, "#compare-ydim") == "One row"
    assert text(served, '[id=\'{"dim":"task","type":"compare-rest"}\']') == "Mean over all 65"
    cells = catalog.figure(PYTHIA).cells
    acc = cells[(cells.metric == "acc") & (cells.step == "0")]
    a = acc[acc.model == "1.4b"].value.mean()
    b = acc[acc.model == "2.8b"].value.mean()
    al = compare(catalog, f"{PYTHIA}:model=1.4b", f"{PYTHIA}:model=2.8b", y="",
                 averaged=["task"])  # for the sides' decimals only
    expected = (f"Training step 0 — A {al.a.format(a)} · B {al.b.format(b)} · "
                f"B − A {al.format_delta(round(b - a, 9))}")
    driver = served.driver
    frame = driver.find_element(By.CSS_SELECTOR, DELTA).find_element(
        By.XPATH, "./ancestor::div[contains(concat(' ', @class, ' '), ' heatmap-keys ')][1]")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})",
                          frame)
    driver.execute_script("arguments[0].focus()", frame)  # focus: the first cell
    until(lambda: readout(served) == expected, timeout=5)
    hover = hover_cell(served, A, "0", "all")
    assert "mean of 65 of 65 cells (over Task), derived" in hover
    assert text(served, "#compare-significance") == (
        "Cannot be judged from this data: both sides are means, which carry no standard "
        "error.")
    screenshot(driver, "compare-two-models-averaged", tmp_path)
    assert served.get_logs() == [], "browser console errors"


def test_the_default_pair_says_why_significance_cannot_be_judged(served):
    open_compare(served)
    assert text(served, "#compare-significance") == (
        "Cannot be judged from this data: neither side gives a standard error.")
    assert text(served, "#compare-sentences").endswith(
        "Significance cannot be judged from this data: neither side gives a standard error.")
    # and the grid's menus only show for labels
    assert not served.driver.find_element(By.ID, "compare-grid").is_displayed()


def test_axe_finds_nothing_serious_with_the_grids_menus(served):
    from tests.browser.test_axe import axe_source, describe, run_axe

    source = axe_source()
    open_compare(served, f"?a={PYTHIA}:model=1.4b&b={PYTHIA}:model=2.8b&ydim=metric")
    until(lambda: not served.driver.find_elements("css selector", "[data-dash-is-loading=true]"),
          timeout=20)
    bad = [v for v in run_axe(served.driver, source) if v["impact"] in ("critical", "serious")]
    assert bad == [], describe(bad)
