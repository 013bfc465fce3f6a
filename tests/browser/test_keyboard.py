"""Heatmaps read without a mouse (issue 10), in a real headless Chromium (dash_duo) against the
real app and data: a map takes focus with its full accessible name, real key presses move an
outlined active cell, the live region says the cell as the hover does (values checked against
the API and the catalog's decimals, and against Plotly's own hover label), Compare says A, B and
B − A, and the "Table" toggle shows the map as an HTML table with the API's values."""

from __future__ import annotations

import json

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from evalmaps.analysis.compare import compare, default_pair
from evalmaps.core import text as fmt
from evalmaps.figures.compare import DELTA_TITLE
from tests.browser.helpers import cell_center, fetch_text, graph_selector, screenshot

pytestmark = pytest.mark.browser

GRAPHS = ".heatmap-graph .main-svg"
BENCH = "dynts-r1-llama-benchmarks"
AMC = graph_selector("browse", "r1-llama-amc23")


@pytest.fixture()
def served(dash_duo, dash_app):
    dash_duo.start_server(dash_app)
    dash_duo.wait_for_element(GRAPHS, timeout=15)
    return dash_duo


def open_page(dash_duo, path: str) -> None:
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{path}")
    dash_duo.wait_for_element(GRAPHS, timeout=15)


def frame_of(driver, graph_css: str):
    """The focusable frame around a map."""
    return driver.find_element(By.CSS_SELECTOR, graph_css).find_element(
        By.XPATH, "./ancestor::div[contains(concat(' ', @class, ' '), ' heatmap-keys ')][1]")


def live_text(driver, graph_css: str) -> str:
    return driver.execute_script(
        "const panel = document.querySelector(arguments[0]).closest('.heatmap-panel');"
        "return panel.querySelector('.heatmap-live').textContent;", graph_css)


def cursor_on(driver, graph_css: str, x_label: str, y_label: str) -> bool:
    """Whether the active-cell outline is shown, centred on that cell (Plotly's own axes)."""
    box = driver.execute_script(
        "const c = document.querySelector(arguments[0]).closest('.heatmap-keys')"
        "  .querySelector('.heatmap-cursor');"
        "if (c.hidden) { return null; }"
        "const r = c.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];",
        graph_css)
    if box is None:
        return False
    x, y = cell_center(driver, graph_css, x_label, y_label)
    return abs(box[0] - x) < 2 and abs(box[1] - y) < 2


def hover_label(driver, graph_css: str) -> str:
    """Plotly's hover label on the map, its lines joined as the readout joins them."""
    return driver.execute_script(
        "const t = document.querySelector(arguments[0]).querySelector('.hoverlayer .hovertext');"
        "return t ? Array.from(t.querySelectorAll('tspan.line')).map(l => l.textContent)"
        "  .join(' · ') : null;", graph_css)


def keys(driver, *pressed) -> None:
    """Real key presses to whatever has focus (a chord when several)."""
    chain = ActionChains(driver)
    for key in pressed[:-1]:
        chain.key_down(key)
    chain.send_keys(pressed[-1])
    for key in reversed(pressed[:-1]):
        chain.key_up(key)
    chain.perform()


def api_cells(base_url: str, figure_id: str, query: str = "") -> list[dict]:
    return json.loads(fetch_text(base_url, f"/api/figures/{figure_id}/cells{query}"))["cells"]


def test_browse_keys_move_an_outlined_cell_and_say_it(served, catalog, tmp_path):
    open_page(served, f"/?figure={BENCH}&benchmark=AMC23")
    figure = catalog.figure(BENCH)
    spec = figure.spec
    cells = api_cells(served.server_url, BENCH, "?benchmark=AMC23")
    rows, cols = spec.dims[spec.y].labels, spec.dims[spec.x].labels
    value = {(c[spec.y], c[spec.x]): c["value"] for c in cells}
    assert len(value) == len(rows) * len(cols)

    def said(i: int, j: int) -> str:
        v = value[(rows[i], cols[j])]
        return (f"Local Window Size {rows[i]} · Ratio {cols[j]} · Pass@1 "
                f"{fmt.value(spec.metric, v, figure.decimals)} · Model R1-Llama · "
                f"Benchmark AMC23")

    driver = served.driver
    frame = frame_of(driver, AMC)
    # the accessible name: title, axes, value range, cells missing (from the API's values)
    present = [v for v in value.values() if v is not None]
    missing = len(value) - len(present)
    assert frame.get_attribute("role") == "application"
    assert frame.get_attribute("aria-roledescription") is None  # axe 3 rejects it
    assert frame.get_attribute("tabindex") == "0"
    name = (
        f"Heatmap R1-Llama | AMC23. Rows: Local Window Size, {len(rows)} ({rows[0]} to {rows[-1]}); "
        f"columns: Ratio, {len(cols)} ({cols[0]} to {cols[-1]}). Values "
        f"{fmt.value(spec.metric, min(present), figure.decimals)} to "
        f"{fmt.value(spec.metric, max(present), figure.decimals)}; {missing} of {len(value)} "
        f"cells not reported. Arrow keys, Home, End, Page Up and Page Down move between cells.")
    # maps are named when the browser is idle, one by one after the first paint
    until(lambda: frame.get_attribute("aria-label") == name, timeout=5)
    assert missing > 0

    # Tab from the figure's title: focus lands on the frame, the top-left cell is active
    driver.find_element(By.CSS_SELECTOR, ".figure-title").click()
    assert not cursor_on(driver, AMC, cols[0], rows[0])
    for _ in range(6):
        keys(driver, Keys.TAB)
        if driver.switch_to.active_element == frame:
            break
    assert driver.switch_to.active_element == frame
    until(lambda: live_text(driver, AMC) == said(0, 0), timeout=3)
    assert cursor_on(driver, AMC, cols[0], rows[0])
    screenshot(driver, "keys-browse-focus", tmp_path)

    def press(key, i, j):
        keys(driver, key)
        until(lambda: live_text(driver, AMC) == said(i, j), timeout=3)
        assert cursor_on(driver, AMC, cols[j], rows[i])
        # the same words as Plotly's own hover label, drawn on the active cell
        until(lambda: hover_label(driver, AMC) == said(i, j), timeout=3)

    press(Keys.ARROW_RIGHT, 0, 1)
    assert value[(rows[0], cols[1])] is None  # a missing cell says so
    assert live_text(driver, AMC).endswith("Pass@1 not reported · Model R1-Llama · "
                                           "Benchmark AMC23")
    press(Keys.ARROW_DOWN, 1, 1)
    press(Keys.END, 1, len(cols) - 1)
    press(Keys.ARROW_RIGHT, 1, len(cols) - 1)  # the edge: stays
    press(Keys.HOME, 1, 0)
    press(Keys.ARROW_LEFT, 1, 0)
    press(Keys.PAGE_DOWN, len(rows) - 1, 0)  # 10 rows down: the last row of 4
    press(Keys.ARROW_UP, len(rows) - 2, 0)
    press(Keys.PAGE_UP, 0, 0)
    press(Keys.ARROW_RIGHT, 0, 1)
    # focus moves on (to the map's modebar buttons): the outline goes; back: the top-left
    keys(driver, Keys.TAB)
    until(lambda: not cursor_on(driver, AMC, cols[1], rows[0]), timeout=3)
    assert driver.switch_to.active_element != frame
    keys(driver, Keys.SHIFT, Keys.TAB)
    until(lambda: live_text(driver, AMC) == said(0, 0), timeout=3)
    assert cursor_on(driver, AMC, cols[0], rows[0])
    assert served.get_logs() == [], "browser console errors"


def test_browse_table_matches_the_api(served, catalog, tmp_path):
    figure_id = "core-generalization"
    open_page(served, f"/?figure={figure_id}")
    figure = catalog.figure(figure_id)
    spec = figure.spec
    driver = served.driver
    css = graph_selector("browse", "qwen-2-5b")
    panel = driver.find_element(By.CSS_SELECTOR, css).find_element(
        By.XPATH, "./ancestor::div[contains(concat(' ', @class, ' '), ' heatmap-panel ')][1]")
    toggle = panel.find_element(By.CSS_SELECTOR, ".heatmap-table-toggle")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert not panel.find_elements(By.CSS_SELECTOR, ".heatmap-table table")
    toggle.click()
    until(lambda: toggle.get_attribute("aria-expanded") == "true", timeout=3)
    table = panel.find_element(By.CSS_SELECTOR, ".heatmap-table table")
    assert table.is_displayed()
    read = driver.execute_script(
        """
        const t = arguments[0];
        const text = n => n.textContent;
        return {
          caption: t.querySelector('caption').textContent,
          group: Array.from(t.querySelectorAll('thead th[scope=colgroup]')).map(text),
          cols: Array.from(t.querySelectorAll('thead th[scope=col]')).map(text),
          rows: Array.from(t.querySelectorAll('tbody tr')).map(tr => [
            tr.querySelector('th[scope=row]').textContent,
            Array.from(tr.querySelectorAll('td')).map(text)]),
        };
        """, table)
    cells = [c for c in api_cells(served.server_url, figure_id, "?model=Qwen-2.5B")]
    rows = list(dict.fromkeys(c[spec.y] for c in cells))
    cols = list(dict.fromkeys(c[spec.x] for c in cells))
    value = {(c[spec.y], c[spec.x]): c["value"] for c in cells}
    y_title, x_title = spec.dims[spec.y].title, spec.dims[spec.x].title
    title = driver.execute_script(
        "return document.querySelector(arguments[0]).querySelector('.gtitle').textContent;", css)
    assert read["caption"] == f"{title}: rows {y_title}, columns {x_title}"
    assert read["group"] == [x_title]
    assert read["cols"] == [y_title, *cols]
    assert read["rows"] == [
        [y, [fmt.value(spec.metric, value[(y, x)], figure.decimals) for x in cols]]
        for y in rows]
    assert any("%" in v for _, vs in read["rows"] for v in vs)  # the hover's unit, as it writes it
    screenshot(driver, "keys-browse-table", tmp_path)
    toggle.click()
    until(lambda: not table.is_displayed(), timeout=3)
    assert toggle.get_attribute("aria-expanded") == "false"


def test_compare_keys_say_a_b_and_the_difference(served, catalog, tmp_path):
    open_page(served, "/compare")
    driver = served.driver
    a_ref, b_ref = default_pair(catalog)
    al = compare(catalog, a_ref, b_ref)
    data = json.loads(fetch_text(served.server_url, "/api/compare"))
    y_dim, x_dim = data["dims"]["y"], data["dims"]["x"]
    rows, cols = y_dim["labels"], x_dim["labels"]
    by_cell = {(c[y_dim["name"]], c[x_dim["name"]]): c for c in data["cells"]}
    A, B, DELTA = (graph_selector("compare", side) for side in ("a", "b", "delta"))

    def said(i: int, j: int) -> str:
        c = by_cell[(rows[i], cols[j])]
        return (f"{y_dim['title']} {rows[i]} · {x_dim['title']} {cols[j]} — "
                f"A {al.a.format(c['a'])} · B {al.b.format(c['b'])} · "
                f"{DELTA_TITLE} {al.format_delta(c['delta'])}")

    def readout() -> str:
        return driver.find_element(By.ID, "compare-readout").text

    def marked(css: str, i: int, j: int) -> bool:
        return driver.execute_script(
            "const m = document.querySelector(arguments[0]).closest('.heatmap-keys')"
            "  .querySelector('.compare-mark');"
            "if (getComputedStyle(m).display === 'none') { return null; }"
            "const r = m.getBoundingClientRect(); return [r.left + r.width / 2,"
            "  r.top + r.height / 2];", css) is not None and _near(
            driver.execute_script(
                "const m = document.querySelector(arguments[0]).closest('.heatmap-keys')"
                "  .querySelector('.compare-mark'); const r = m.getBoundingClientRect();"
                "return [r.left + r.width / 2, r.top + r.height / 2];", css),
            cell_center(driver, css, cols[j], rows[i]))

    frame = frame_of(driver, B)
    # maps are named when the browser is idle, one by one after the first paint
    until(lambda: frame.get_attribute("aria-label").startswith(
        f"Heatmap B · {al.b.short}. Rows: "), timeout=5)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})",
                          frame)
    driver.execute_script("arguments[0].focus()", frame)  # focus: the top-left cell
    until(lambda: readout() == said(0, 0), timeout=5)
    assert cursor_on(driver, B, cols[0], rows[0])
    for key, (i, j) in ((Keys.ARROW_DOWN, (1, 0)), (Keys.END, (1, len(cols) - 1)),
                        (Keys.ARROW_LEFT, (1, len(cols) - 2))):
        keys(driver, key)
        until(lambda: readout() == said(i, j), timeout=5)
        assert cursor_on(driver, B, cols[j], rows[i])
        # the linked outlines follow on the other two maps
        until(lambda: marked(A, i, j) and marked(DELTA, i, j), timeout=5)
    screenshot(driver, "keys-compare-focus", tmp_path)

    # B − A as a table: signed differences as the readout writes them
    panel = driver.find_element(By.CSS_SELECTOR, DELTA).find_element(
        By.XPATH, "./ancestor::div[contains(concat(' ', @class, ' '), ' heatmap-panel ')][1]")
    panel.find_element(By.CSS_SELECTOR, ".heatmap-table-toggle").click()
    body = driver.execute_script(
        "return Array.from(arguments[0].querySelectorAll('.heatmap-table tbody tr')).map(tr =>"
        "  [tr.querySelector('th').textContent,"
        "   Array.from(tr.querySelectorAll('td')).map(td => td.textContent)]);", panel)
    # the hover's template for B − A: '%{z:+.1f}' (a sign on 0.0 too, as the hover has it)
    assert al.min_decimals == al.decimals
    spec = f"+.{fmt.places(al.decimals)}f"
    assert body == [[y, [format(by_cell[(y, x)]["delta"], spec) for x in cols]] for y in rows]
    assert served.get_logs() == [], "browser console errors"


def _near(a, b) -> bool:
    return abs(a[0] - b[0]) < 3 and abs(a[1] - b[1]) < 3
