"""axe-core on every page, in the real browser: no critical and no serious violation.

The axe-core script is the one bundled by the ``axe-selenium-python`` package (the ``test``
extra), injected from disk with ``execute_script``: nothing is fetched at run time."""

from __future__ import annotations

from pathlib import Path

import pytest
from dash.testing.wait import until

pytestmark = pytest.mark.browser

PAGES = {
    "/": ".heatmap-graph .main-svg",
    "/trends": ".trends-graph .main-svg",
    "/compare": ".heatmap-graph .main-svg",
    "/rank": ".heatmap-graph .main-svg",
    "/data": ".ag-root",
}


def axe_source() -> str:
    axe_selenium_python = pytest.importorskip("axe_selenium_python")
    path = (Path(axe_selenium_python.__file__).parent / "node_modules" / "axe-core"
            / "axe.min.js")
    return path.read_text(encoding="utf-8")


def run_axe(driver, source: str) -> list[dict]:
    """Inject axe and run it on the whole document; its violations (axe.run is async)."""
    driver.execute_script(source)
    driver.set_script_timeout(60)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then(r => done(r.violations)).catch(e => done({error: String(e)}));")
    assert not isinstance(result, dict), result
    return result


def describe(violations: list[dict]) -> str:
    return "\n".join(
        f"{v['impact']}: {v['id']} ({v['help']}): "
        + "; ".join(" ".join(node["target"]) if isinstance(node["target"], list)
                    else str(node["target"]) for node in v["nodes"][:6])
        for v in violations)


def test_axe_finds_nothing_critical_or_serious_on_any_page(dash_duo, dash_app):
    source = axe_source()
    dash_duo.start_server(dash_app)
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    found = {}
    for path, ready in PAGES.items():
        dash_duo.wait_for_page(url=f"{dash_duo.server_url}{path}")
        dash_duo.wait_for_element(ready, timeout=20)
        # wait for the callbacks to settle (Dash marks the layout while it is loading)
        until(lambda: not dash_duo.driver.find_elements("css selector",
                                                        "[data-dash-is-loading=true]"),
              timeout=20)
        violations = run_axe(dash_duo.driver, source)
        bad = [v for v in violations if v["impact"] in ("critical", "serious")]
        if bad:
            found[path] = describe(bad)
    assert found == {}, "\n\n".join(f"{page}\n{text}" for page, text in found.items())


def active(driver) -> str:
    """Where the keyboard focus is: 'grid-header', 'grid-cell', 'grid' (elsewhere in it) or the
    focused element's id."""
    return driver.execute_script(
        "const e = document.activeElement;"
        "if (e.closest('.ag-header-cell')) { return 'grid-header'; }"
        "if (e.closest('.ag-cell')) { return 'grid-cell'; }"
        "if (e.closest('.ag-root-wrapper')) { return 'grid'; }"
        "return e.id || e.tagName;")


def test_slider_keys_go_from_label_to_label_and_the_url_holds_labels(dash_duo, dash_app):
    from selenium.webdriver.common.keys import Keys

    dash_duo.start_server(dash_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?figure=dynts-r1-llama-benchmarks")
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    low = dash_duo.find_element("#browse-xrange .dash-slider-thumb-1")
    high = dash_duo.find_element("#browse-xrange .dash-slider-thumb-2")
    low.send_keys(Keys.ARROW_RIGHT)  # 0.1 -> 0.2, the next label (not 0.105)
    until(lambda: dash_duo.driver.current_url.endswith("xmin=0.2&xmax=0.5"), timeout=10)
    until(lambda: low.get_attribute("aria-valuenow") == "0.2", timeout=10)
    high.send_keys(Keys.ARROW_LEFT)
    high.send_keys(Keys.ARROW_LEFT)  # 0.5 -> 0.4 -> 0.3
    until(lambda: dash_duo.driver.current_url.endswith("xmin=0.2&xmax=0.3"), timeout=10)
    low.send_keys(Keys.END)  # stops at the other handle: no crossing
    until(lambda: dash_duo.driver.current_url.endswith("xmin=0.3&xmax=0.3"), timeout=10)
    low.send_keys(Keys.HOME)
    until(lambda: dash_duo.driver.current_url.endswith("xmin=0.1&xmax=0.3"), timeout=10)
    until(lambda: axis_labels(dash_duo.driver) == ["0.1", "0.2", "0.3"], timeout=10)
    assert dash_duo.get_logs() == []


def axis_labels(driver) -> list[str]:
    return driver.execute_script(
        "const g = document.querySelector('.heatmap-graph');"
        "return g ? Array.from(g.querySelectorAll('.xtick text')).map(t => t.textContent) : [];")


def test_grids_are_one_tab_stop_and_do_not_trap_tab(dash_duo, dash_app):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    def tab(shift=False):
        chain = ActionChains(dash_duo.driver)
        if shift:
            chain = chain.key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT)
        else:
            chain = chain.send_keys(Keys.TAB)
        chain.perform()

    dash_duo.start_server(dash_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/data?figure=dynts-r1-llama-benchmarks")
    dash_duo.wait_for_element(".ag-cell", timeout=20)
    # the last control before the grid: the static site's download (after the CSV's); focused
    # again until it holds (under load a late callback can redraw the page and drop the focus,
    # and Tab would then start from the top of the page)
    def focused():
        dash_duo.driver.execute_script("document.getElementById('data-bundle-button').focus()")
        return active(dash_duo.driver) == "data-bundle-button"

    until(focused, timeout=10)
    tab()
    until(lambda: active(dash_duo.driver) == "grid-header", timeout=5)
    tab()  # out of the grid, not to its next header or cell
    until(lambda: not active(dash_duo.driver).startswith("grid"), timeout=5)
    tab(shift=True)
    # back on a header or cell: not on one of AG Grid's tab guards, which it passes focus through
    # (a guard is only a moment's stop; a second Shift+Tab sent then would race the grid's own move)
    until(lambda: active(dash_duo.driver) in ("grid-header", "grid-cell"), timeout=5)
    tab(shift=True)
    until(lambda: active(dash_duo.driver) == "data-bundle-button", timeout=5)

    # Trends' statistics header: Tab leaves it (it used to cycle through the headers forever)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/trends?figure=short-to-long")
    dash_duo.wait_for_element(".trends-table .ag-header-cell", timeout=20)
    dash_duo.driver.execute_script(
        "document.querySelector('.trends-table .ag-header-cell').focus()")
    until(lambda: active(dash_duo.driver) == "grid-header", timeout=5)
    tab()
    until(lambda: not active(dash_duo.driver).startswith("grid"), timeout=5)
    assert dash_duo.get_logs() == []


def test_nav_links_carry_the_slice(dash_duo, dash_app):
    dash_duo.start_server(dash_app)
    query = "?figure=dynts-r1-llama-benchmarks&benchmark=AIME24&xmin=0.2&xmax=0.4&sort=mean"
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/{query}&color=fixed")
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)

    def href(link_id):
        return dash_duo.find_element(f"#{link_id}").get_attribute("href")

    base = dash_duo.server_url
    until(lambda: href("nav-trends") == f"{base}/trends{query}", timeout=10)
    assert href("nav-data") == f"{base}/data{query}"
    assert href("nav-browse") == f"{base}/{query}&color=fixed"  # the page's own key too
    assert href("nav-compare") == f"{base}/compare?color=fixed"
    dash_duo.find_element("#nav-trends").click()
    until(lambda: dash_duo.driver.current_url == f"{base}/trends{query}", timeout=10)
    dash_duo.wait_for_element(".trends-graph .main-svg", timeout=20)
    until(lambda: href("nav-data") == f"{base}/data{query}", timeout=10)
    assert dash_duo.get_logs() == []


def test_data_counts_the_filtered_cells(dash_duo, dash_app, catalog):
    figure = catalog.figure("dynts-r1-llama-benchmarks")
    cells = figure.cells
    present = cells[cells["value"].notna()]
    expected = int((present["benchmark"] == "AIME24").sum())
    dash_duo.start_server(dash_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/data?figure=dynts-r1-llama-benchmarks")
    dash_duo.wait_for_element(".ag-cell", timeout=20)
    until(lambda: dash_duo.find_element("#data-summary").text.startswith(
        f"{len(present)} cells in this slice"), timeout=10)
    assert dash_duo.find_element("#data-filtered").text == ""
    dash_duo.driver.execute_script(
        "dash_ag_grid.getApi('data-grid').setFilterModel("
        "{benchmark: {filterType: 'text', type: 'equals', filter: 'AIME24'}});")
    until(lambda: dash_duo.find_element("#data-filtered").text
          == f"{expected} of {len(present)} cells shown: the table is filtered.", timeout=10)
    assert dash_duo.get_logs() == []
