"""The Trends view in a real headless Chromium (dash_duo), against the real app and data:
every figure loads clean, a real mouse hover reads exact values off the lines, and changing the
rows, the x range, the threshold or the transpose switch changes the chart, the table and the
sentences, in the URL too (reload and back/forward restore the view)."""

from __future__ import annotations

import json

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from evalmaps.analysis.slicing import views_for
from evalmaps.analysis.trends import analyse
from evalmaps.views.state import parse_state
from tests.browser.helpers import close_dropdowns, non_local_requests, pick_option, screenshot

pytestmark = pytest.mark.browser

CHARTS = ".trends-graph .main-svg"
ROWS = ".trends-table .ag-center-cols-container .ag-row"


def chart_selector(panel_key: str) -> str:
    dom_id = json.dumps({"panel": panel_key, "type": "trends-chart"}, separators=(",", ":"))
    return f"[id={json.dumps(dom_id)}]"


def open_view(dash_duo, query: str) -> None:
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/trends{query}")
    dash_duo.wait_for_element(CHARTS, timeout=15)
    dash_duo.wait_for_element(ROWS, timeout=15)


def line_names(driver, css: str) -> list[str] | None:
    """The lines drawn in a chart (their labels), in trace order."""
    return driver.execute_script(
        """
        const el = document.querySelector(arguments[0]);
        const gd = el && el.querySelector('.js-plotly-plot');
        return gd && gd.data ? gd.data.map(t => t.meta[0]) : null;
        """, css)


def table(driver) -> list[dict]:
    """The statistics table as shown: one dict per row (column id -> text), in row order."""
    return driver.execute_script(
        """
        const rows = Array.from(document.querySelectorAll(arguments[0]));
        rows.sort((a, b) => +a.getAttribute('aria-rowindex') - +b.getAttribute('aria-rowindex'));
        return rows.map(r => Object.fromEntries(Array.from(r.querySelectorAll('.ag-cell'))
            .map(c => [c.getAttribute('col-id'), c.textContent.trim()])));
        """, ROWS)


def header(driver, col_id: str) -> str | None:
    """A column header's text, read in one go (the grid may be re-rendering: None then)."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : null;",
        f'.trends-table .ag-header-cell[col-id="{col_id}"] .ag-header-cell-text')


def sentences(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#trends-observations li'))"
        ".map(li => li.innerText.trim());")


def hover_point(dash_duo, css: str, line_label: str, x_label: str, timeout: float = 5) -> str:
    """Move the real mouse onto one point of a line and return the hover label's text."""
    driver = dash_duo.driver
    plot = driver.find_element(By.CSS_SELECTOR, f"{css} .nsewdrag")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});",
                          plot)
    x, y = driver.execute_script(
        """
        const gd = document.querySelector(arguments[0]).querySelector('.js-plotly-plot');
        const fl = gd._fullLayout, xa = fl.xaxis, ya = fl.yaxis;
        const t = gd._fullData.find(d => d.meta && d.meta[0] === arguments[1]
                                         && d.meta[1] !== 'band');
        if (!t) { throw new Error('no line ' + arguments[1]); }
        // each point's text is its axis label (the ticks may show only some labels)
        const k = t.text.indexOf(arguments[2]);
        if (k < 0 || t.y[k] === null) { throw new Error('no point at ' + arguments[2]); }
        // category: the category's index; numeric (linear or log): the point's x
        const px = xa.type === 'category' ? xa.l2p(xa._categories.indexOf(t.x[k])) : xa.c2p(t.x[k]);
        const box = gd.getBoundingClientRect();
        return [box.left + xa._offset + px, box.top + ya._offset + ya.c2p(t.y[k])];
        """, css, line_label, x_label)
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(round(x), round(y))
    actions.perform()
    dash_duo.wait_for_element(f"{css} .hoverlayer .hovertext", timeout=timeout)
    return driver.find_element(By.CSS_SELECTOR, f"{css} .hoverlayer .hovertext").text


@pytest.fixture()
def served(dash_duo, dash_app):
    dash_duo.start_server(dash_app)
    return dash_duo


@pytest.mark.parametrize("figure_id", ["core-generalization", "short-to-long",
                                       "acemath-training-progress", "dynts-r1-llama-benchmarks",
                                       "dynts-llama-vs-qwen"])
def test_each_figure_loads_clean(served, catalog, figure_id, tmp_path):
    open_view(served, f"?figure={figure_id}")
    figure = catalog.figure(figure_id)
    spec = figure.spec
    until(lambda: len(table(served.driver)) == len(figure.panels) * len(spec.dims[spec.y].labels),
          timeout=10)
    charts = served.driver.find_elements(By.CSS_SELECTOR, ".trends-graph")
    assert len(charts) == len(figure.panels)
    views, _ = views_for(figure, parse_state({"figure": figure_id}, catalog))
    assert sentences(served.driver) == analyse(views).observations
    assert figure.spec.title in served.find_element(".figure-title").text
    assert "trends" in served.find_element("#nav-trends").get_attribute("href")
    served.driver.set_window_size(1400, served.driver.execute_script(
        "return document.body.scrollHeight") + 40)
    screenshot(served.driver, f"trends-{figure_id}", tmp_path)
    served.driver.set_window_size(1400, 1000)
    assert served.get_logs() == [], "browser console errors"
    assert non_local_requests(served.driver) == []


def test_hover_on_a_line_gives_the_exact_value(served):
    open_view(served, "?figure=short-to-long")
    text = hover_point(served, chart_selector("qwen-2-5-7b"), "4", "11")
    assert "Type 4 · Length 11 · Accuracy 63.3%" in text


def x_axis(driver, css: str) -> dict | None:
    """The drawn x axis: its type, the tick labels shown (left to right) and whether any two of
    them overlap on screen."""
    return driver.execute_script(
        """
        const el = document.querySelector(arguments[0]);
        const gd = el && el.querySelector('.js-plotly-plot');
        if (!gd || !gd._fullLayout) { return null; }
        const boxes = Array.from(el.querySelectorAll('.xtick text'))
            .map(t => [t.textContent, t.getBoundingClientRect()])
            .filter(b => b[1].width > 0).sort((a, b) => a[1].left - b[1].left);
        let overlap = false;
        for (let i = 1; i < boxes.length; i++) {
            overlap = overlap || boxes[i][1].left < boxes[i - 1][1].right;
        }
        return {type: gd._fullLayout.xaxis.type, ticks: boxes.map(b => b[0]), overlap: overlap};
        """, css)


PYTHIA = chart_selector("arc-challenge-acc")


def test_training_steps_on_log_x_with_real_ticks_and_exact_hovers(served, tmp_path):
    """Pythia's 27 checkpoints (0..143000) showed one tick, '0', on a linear axis that put 13
    of them against its left edge: now log x, step 0 apart, ticks reading the steps."""
    open_view(served, "?figure=pythia-zero-shot")
    driver = served.driver
    until(lambda: (x_axis(driver, PYTHIA) or {}).get("type") == "log", timeout=10)
    axis = x_axis(driver, PYTHIA)
    assert axis["ticks"][:6] == ["0", "1", "2", "4", "8", "16"] and axis["ticks"][-1] == "143000"
    assert len(axis["ticks"]) >= 12 and not axis["overlap"]
    assert served.find_element("#trends-logx").is_selected()
    text = hover_point(served, PYTHIA, "12b", "0")
    assert "Model 12b · Training step 0 · acc 0.2176 ± 0.0121 se" in text
    text = hover_point(served, PYTHIA, "70m", "143000")
    assert "Model 70m · Training step 143000 · acc 0.1809 ± " in text
    screenshot(driver, "trends-pythia-log-x", tmp_path)

    driver.execute_script("window.scrollTo({top: 0, behavior: 'instant'});")
    served.find_element("label[for='trends-logx']").click()  # linear, in the URL
    until(lambda: "logx=0" in driver.current_url, timeout=10)
    until(lambda: (x_axis(driver, PYTHIA) or {}).get("type") == "linear", timeout=10)
    axis = x_axis(driver, PYTHIA)
    assert axis["ticks"][0] == "0" and axis["ticks"][-1] == "143000" and len(axis["ticks"]) > 2
    assert not axis["overlap"]
    text = hover_point(served, PYTHIA, "12b", "143000")
    assert "Model 12b · Training step 143000 · acc 0.3183 ± " in text

    driver.back()  # the rule's log axis again, no logx in the URL
    until(lambda: (x_axis(driver, PYTHIA) or {}).get("type") == "log", timeout=10)
    assert "logx" not in driver.current_url
    assert served.find_element("#trends-logx").is_selected()

    driver.execute_script("window.scrollTo({top: 0, behavior: 'instant'});")
    served.find_element("#trends-transpose").click()  # the models' axis: categorical
    until(lambda: (x_axis(driver, PYTHIA) or {}).get("type") == "category", timeout=10)
    assert served.find_element("#trends-logx").get_attribute("disabled") is not None
    assert "logx" not in driver.current_url
    assert served.get_logs() == []


def test_pythia_table_colours_threshold_and_decimals(served):
    open_view(served, "?figure=pythia-zero-shot")
    driver = served.driver
    until(lambda: len(table(driver)) == 8, timeout=10)
    assert header(driver, "below") == "First < 0.8"  # 80% of the metric's 0-1, not 80
    rows = {r["line"]: r for r in table(driver)}
    assert rows["12b"]["below"] == "every cell"
    assert rows["410m"]["min"] == "0.1817 at 13000"  # whole, not '0.1817 at 130...'
    assert any(s.endswith("(+0.1007).") for s in sentences(driver))  # not '+0.1007 points'
    colours = driver.execute_script(
        """
        const gd = document.querySelector(arguments[0]).querySelector('.js-plotly-plot');
        return gd._fullData.filter(d => d.meta[1] !== 'band').map(d => d.line.color);
        """, PYTHIA)
    assert len(colours) == 8 and len(set(colours)) == 8  # 70m and 12b shared one blue
    box = served.find_element("#trends-threshold")
    assert (box.get_attribute("value"), box.get_attribute("placeholder")) == ("", "0.8")
    assert served.get_logs() == []


def test_flagship_hover_and_stats(served):
    open_view(served, "?figure=dynts-llama-vs-qwen")
    text = hover_point(served, chart_selector("r1-qwen"), "2000", "0.4")
    assert "Local Window Size 2000 · Ratio 0.4 · Pass@1 56.3" in text and "R1-Qwen" in text
    assert any("56.3 at local window size 2000, ratio 0.4 (R1-Qwen)" in s
               for s in sentences(served.driver))
    assert "Best 56.3 at Local Window Size 2000, Ratio 0.4" in served.find_element(
        "#trends-panels").text


def test_row_selection_changes_chart_table_and_sentences(served):
    open_view(served, "?figure=short-to-long")
    css = chart_selector("qwen-2-5-7b")
    assert "4" in line_names(served.driver, css)
    before = {r["line"]: r for r in table(served.driver)}
    assert before["4"]["drop"] == "15.4 (10 → 11)"
    # one column, one number of decimals (63.0% read next to 98.26%)
    assert [before[k]["mean"] for k in "1234567"] == ["63.00%", "98.26%", "82.00%", "78.58%",
                                                       "68.94%", "97.46%", "77.06%"]
    assert any("type 4 by 15.4 points" in s for s in sentences(served.driver))

    pick_option(served, "#trends-rows", "4")  # deselect type 4
    close_dropdowns(served)
    until(lambda: line_names(served.driver, css) == ["1", "2", "3", "5", "6", "7"], timeout=10)
    until(lambda: [r["line"] for r in table(served.driver)] == ["1", "2", "3", "5", "6", "7"],
          timeout=10)
    until(lambda: not any("type 4" in s for s in sentences(served.driver)), timeout=10)
    assert any("type 1 by 12.3 points" in s for s in sentences(served.driver))
    assert served.driver.current_url.endswith("?figure=short-to-long&hide=4")  # 6 of 7 shown
    assert served.get_logs() == []


def test_x_range_changes_chart_table_and_sentences(served):
    open_view(served, "?figure=short-to-long")
    assert any("15.4" in s for s in sentences(served.driver))
    thumb = served.find_element("#trends-xrange .dash-slider-thumb-2")  # the upper end, at 19
    (mark,) = [m for m in served.driver.find_elements(By.CSS_SELECTOR, "#trends-xrange "
               ".dash-slider-mark") if m.text == "10"]
    # a real drag of the handle onto the mark (arrow keys step by 0.1, not by mark)
    ActionChains(served.driver).click_and_hold(thumb).pause(0.2).move_to_element(mark) \
        .pause(0.2).release().perform()
    until(lambda: "xmax=10" in served.driver.current_url, timeout=10)
    until(lambda: {r["line"]: r for r in table(served.driver)}["4"]["drop"] == "3.6 (9 → 10)",
          timeout=10)
    rows = {r["line"]: r for r in table(served.driver)}
    assert rows["4"]["n"] == "4 of 6" and rows["3"]["n"] == "0 of 6"
    css = chart_selector("qwen-2-5-7b")
    assert "3" not in line_names(served.driver, css)  # no cell left in range: not drawn
    until(lambda: not any("15.4" in s for s in sentences(served.driver)), timeout=10)
    assert served.get_logs() == []


def test_threshold_and_transpose_live_in_the_url(served):
    open_view(served, "?figure=short-to-long")
    served.driver.execute_script("window.__same_document = true;")
    assert header(served.driver, "below") == "First < 80%"

    served.find_element("#trends-transpose").click()
    until(lambda: "transpose=1" in served.driver.current_url, timeout=10)
    until(lambda: header(served.driver, "line") == "Length", timeout=10)
    css = chart_selector("qwen-2-5-7b")
    until(lambda: (line_names(served.driver, css) or [])[:2] == ["5", "6"], timeout=10)

    box = served.find_element("#trends-threshold")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys("70", Keys.ENTER)
    until(lambda: "threshold=70" in served.driver.current_url, timeout=10)
    until(lambda: header(served.driver, "below") == "First < 70%", timeout=10)

    served.driver.refresh()
    served.wait_for_element(ROWS, timeout=15)
    until(lambda: header(served.driver, "below") == "First < 70%", timeout=10)
    assert header(served.driver, "line") == "Length"
    assert served.find_element("#trends-transpose").is_selected()
    assert served.find_element("#trends-threshold").get_attribute("value") == "70"

    served.driver.execute_script("window.__same_document = true;")
    served.driver.back()  # to the default threshold (80% of 0-100), still transposed
    until(lambda: header(served.driver, "below") == "First < 80%", timeout=10)
    box = served.find_element("#trends-threshold")
    assert (box.get_attribute("value"), box.get_attribute("placeholder")) == ("", "80")
    served.driver.back()  # to the untransposed view
    until(lambda: header(served.driver, "line") == "Type", timeout=10)
    assert not served.find_element("#trends-transpose").is_selected()
    served.driver.forward()
    until(lambda: header(served.driver, "line") == "Length", timeout=10)
    assert served.driver.execute_script("return window.__same_document === true;")
    assert served.get_logs() == []


def test_sorting_the_table(served):
    open_view(served, "?figure=short-to-long")
    label = served.find_element(
        '.trends-table .ag-header-cell[col-id="drop"] .ag-header-cell-label')
    served.driver.execute_script(
        "arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});", label)
    label.click()  # ascending
    label.click()  # descending: the largest drop first
    until(lambda: [r["line"] for r in table(served.driver)][:3] == ["4", "1", "7"], timeout=10)


def test_overlay_draws_every_panel_in_one_chart(served):
    open_view(served, "?figure=dynts-llama-vs-qwen&overlay=1")
    assert len(served.driver.find_elements(By.CSS_SELECTOR, ".trends-graph")) == 1
    names = line_names(served.driver, chart_selector("overlay"))
    assert len(names) == 8 and names.count("2000") == 2
    assert served.get_logs() == []


def test_bad_threshold_in_the_url_is_explained(served):
    open_view(served, "?figure=short-to-long&threshold=abc")
    assert "threshold=abc is not a number" in served.find_element(".alert").text
    assert header(served.driver, "below") == "First < 80%"
    assert served.get_logs() == []


def test_figure_dropdown_navigates_within_trends(served):
    open_view(served, "?figure=short-to-long")
    pick_option(served, "#trends-figure",
                "R1-Llama vs R1-Qwen: Pass@1 by local window size and ratio")
    until(lambda: "/trends?figure=dynts-llama-vs-qwen" in served.driver.current_url, timeout=10)
    served.wait_for_element(chart_selector("r1-qwen"), timeout=10)
    until(lambda: len(table(served.driver)) == 8, timeout=10)
    assert served.get_logs() == []
