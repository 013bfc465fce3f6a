"""The compare view in a real headless Chromium (dash_duo), against the real app and data:
shared colour range, real mouse hovers with the linked outline and readout, menus that update all
three maps and the summary, derived means built in the UI, URL state, clear errors."""

from __future__ import annotations

import re

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser.helpers import (
    cell_center,
    download_to,
    downloaded,
    graph_selector,
    hover_cell,
    non_local_requests,
    pick_option,
    screenshot,
    texts,
)

pytestmark = pytest.mark.browser

A, B, DELTA = (graph_selector("compare", side) for side in ("a", "b", "delta"))
MAPS = f"{DELTA} .main-svg"
BENCH_TITLE = "R1-Llama Pass@1 by local window size and ratio, four benchmarks"
QWEN_TITLE = "R1-Llama vs R1-Qwen: Pass@1 by local window size and ratio"
DEFAULT_READOUT = "Local Window Size 2000 · Ratio 0.4 — A 52.5 · B 56.3 · B − A +3.8"


def open_compare(dash_duo, query: str = "") -> None:
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/compare{query}")
    dash_duo.wait_for_element(MAPS, timeout=15)


def trace(driver, css: str) -> dict:
    """What Plotly drew: colour range and bar, axes, title, cell texts of the map's heatmap."""
    return driver.execute_script(
        """
        const gd = document.querySelector(arguments[0]).querySelector('.js-plotly-plot');
        const t = gd._fullData[0];
        const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
        // the cell texts as drawn (each label placed back on its cell), '' where none is
        const text = ya._categories.map(() => xa._categories.map(() => ''));
        gd.querySelectorAll('.heatmap-label text').forEach(label => {
          const j = Math.round(xa.p2c(+label.getAttribute('x')));
          const i = Math.round(ya.p2c(+label.getAttribute('y')));
          text[i][j] = label.textContent;
        });
        return {zmin: t.zmin, zmax: t.zmax, zmid: gd.data[0].zmid === undefined ? null : gd.data[0].zmid,
                showscale: t.showscale, x: xa._categories, y: ya._categories, text: text,
                title: gd._fullLayout.title.text};
        """, css)


def outline(driver, css: str):
    """Centre (viewport px) of the linked-hover outline over a map, or None when hidden."""
    return driver.execute_script(
        """
        const mark = document.querySelector(arguments[0]).parentElement
            .querySelector('.compare-mark');
        if (!mark || getComputedStyle(mark).display === 'none') { return null; }
        const r = mark.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2];
        """, css)


def marks_cell(driver, css: str, x_label: str, y_label: str) -> bool:
    centre = outline(driver, css)
    if centre is None:
        return False
    x, y = cell_center(driver, css, x_label, y_label)
    return abs(centre[0] - x) < 3 and abs(centre[1] - y) < 3


def hover_lines(driver, css: str) -> list[str]:
    """The lines of a map's hover label (Plotly draws each as a tspan)."""
    return driver.execute_script(
        "return Array.from(document.querySelector(arguments[0])"
        ".querySelectorAll('.hoverlayer .hovertext tspan.line')).map(t => t.textContent);", css)


def text(dash_duo, css: str) -> str:
    return dash_duo.find_element(css).text


@pytest.fixture()
def served(dash_duo, dash_app):
    dash_duo.start_server(dash_app)
    return dash_duo


def test_default_view_shares_one_colour_range(served, tmp_path):
    open_compare(served)
    a, b, d = (trace(served.driver, css) for css in (A, B, DELTA))
    assert (a["zmin"], a["zmax"]) == (b["zmin"], b["zmax"]) == (49.1, 56.3)
    assert a["showscale"] is False and b["showscale"] is True  # one colour bar for A and B
    assert d["showscale"] is True and d["zmid"] == 0 and d["zmin"] == -d["zmax"] == -4.8
    assert a["title"] == "A · R1-Llama" and b["title"] == "B · R1-Qwen" and d["title"] == "B − A"
    assert a["y"] == b["y"] == d["y"] == ["3000", "2000", "1000", "500"]
    assert d["text"][0][0] == "+4.8" and d["text"][3][1] == "-0.3"
    assert text(served, "#compare-sentences").startswith(
        "R1-Qwen is higher than R1-Llama in 19 of 20 cells, by 2.37 points on average over cells.")
    assert (text(served, "#compare-mean-a"), text(served, "#compare-mean-b"),
            text(served, "#compare-mean-delta")) == ("51.08", "53.45", "+2.37")
    assert "20 common cells compared" in text(served, "#compare-counts")
    screenshot(served.driver, "compare-default", tmp_path)
    assert served.get_logs() == [], "browser console errors"
    assert non_local_requests(served.driver) == []


def test_hover_on_a_shows_a_b_and_the_difference(served, tmp_path):
    open_compare(served)
    assert not marks_cell(served.driver, B, "0.4", "2000")
    hover_cell(served, A, "0.4", "2000")
    assert hover_lines(served.driver, A) == ["Local Window Size 2000 · Ratio 0.4", "Pass@1 52.5",
                                             "A: R1-Llama"]
    served.wait_for_text_to_equal("#compare-readout", DEFAULT_READOUT, timeout=5)
    until(lambda: marks_cell(served.driver, B, "0.4", "2000"), timeout=5)
    until(lambda: marks_cell(served.driver, DELTA, "0.4", "2000"), timeout=5)
    screenshot(served.driver, "compare-hover", tmp_path)
    # and from the difference map: A and B are outlined at that cell
    hover_cell(served, DELTA, "0.2", "500")
    assert hover_lines(served.driver, DELTA) == ["Local Window Size 500 · Ratio 0.2", "B − A -0.3",
                                                 "A 52.1 · B 51.8"]
    served.wait_for_text_to_equal(
        "#compare-readout", "Local Window Size 500 · Ratio 0.2 — A 52.1 · B 51.8 · B − A -0.3")
    until(lambda: marks_cell(served.driver, A, "0.2", "500"), timeout=5)
    until(lambda: marks_cell(served.driver, B, "0.2", "500"), timeout=5)
    assert outline(served.driver, DELTA) is None  # the hovered map shows its own hover label
    assert hover_lines(served.driver, DELTA)[0] == "Local Window Size 500 · Ratio 0.2"
    assert served.get_logs() == []


def test_a_cell_left_is_not_hovered_again_after_a_menu_redraws_the_maps(served):
    """The pointer hovers a cell of A, then leaves the maps for the colour range menu: the maps
    are redrawn on the metric's range (not a live redraw), and no hover label comes back on A
    where no pointer is (the readout and outlines keep the last cell, as they do)."""
    import time

    from selenium.webdriver.common.action_chains import ActionChains

    open_compare(served)
    hover_cell(served, A, "0.4", "2000")
    until(lambda: marks_cell(served.driver, B, "0.4", "2000"), timeout=5)
    fixed = served.driver.find_element(
        By.XPATH, "//*[@id='compare-color']//label[contains(., 'Metric')]")
    shared = (trace(served.driver, A)["zmin"], trace(served.driver, A)["zmax"])
    ActionChains(served.driver).move_to_element(fixed).click().perform()
    until(lambda: (trace(served.driver, A)["zmin"], trace(served.driver, A)["zmax"]) != shared,
          timeout=10)  # redrawn on the metric's range, 0 to 100
    time.sleep(1)  # time for a hover that would come back after the redraw
    assert hover_lines(served.driver, A) == []
    assert served.get_logs() == []


def test_the_readout_writes_a_and_b_with_their_unit_as_the_hover_does(served):
    """A metric in % (AceMath, illustrative): the hover says 'A 71.2% · B 64.0%', and so does
    the readout line (screen readers and the keyboard get it from there)."""
    open_compare(served, "?a=acemath-training-progress:gsm8k"
                         "&b=acemath-training-progress:math-500")
    hover_cell(served, DELTA, "0.2", "7b")
    values = hover_lines(served.driver, DELTA)[2]
    assert re.fullmatch(r"A \d+\.\d% · B \d+\.\d%", values), values
    until(lambda: f"— {values} · B − A " in text(served, "#compare-readout"), timeout=5)
    assert text(served, "#compare-readout").startswith("Model Size 7b · Training Progress 0.2 — ")
    assert served.get_logs() == []


def cells_json(served) -> str:
    """The page's compare-cells store as compareHover gets it (from Dash's redux state, which
    dash.testing's own redux_state_* helpers read too)."""
    return served.driver.execute_script(
        "const st = window.store.getState(); let node = st.layout;"
        "for (const k of st.paths.strs['compare-cells']) { node = node[k]; }"
        "return JSON.stringify(node.props.data);")


def test_a_hover_batched_with_a_relayout_still_fills_the_readout(served):
    """Dash can deliver a map's relayout and a hover in one call of compareHover (inputs that
    changed together): the hover is the one that counts, whatever their order."""
    open_compare(served)
    got = served.driver.execute_script("""
        const dc = window.dash_clientside, f = dc.evalmaps.compareHover;
        const cells = JSON.parse(arguments[0]), context = dc.callback_context;
        const hover = {prop_id: '{"panel":"a","type":"compare-heatmap"}.hoverData',
                       value: {points: [{x: cells.x[3], y: cells.y[2]}]}};
        const relayout = {prop_id: '{"panel":"b","type":"compare-heatmap"}.relayoutData',
                          value: {autosize: true}};
        return [[relayout, hover], [hover, relayout], [relayout]].map(function (triggered) {
          dc.callback_context = {triggered: triggered};
          const out = f(null, null, null, null, null, null, cells, null);
          dc.callback_context = context;
          return [out[3] === dc.no_update ? null : out[3], out[4] === dc.no_update ? null : out[4]];
        });""", cells_json(served))
    line = served.driver.execute_script(
        "return window.evalmapsLib.hover.compareReadout(JSON.parse(arguments[0]), 2, 3);",
        cells_json(served))
    assert line.startswith("Local Window Size ") and " — A " in line
    assert got == [[line, {"i": 2, "j": 3, "source": "a"}]] * 2 + [[None, None]]


def test_changing_b_updates_all_three_maps_and_the_summary(served, tmp_path):
    open_compare(served)
    before = trace(served.driver, A)
    # another figure for B: its first panel that shares cells with A, then one of its panels
    pick_option(served, "#compare-b-figure", BENCH_TITLE)
    until(lambda: trace(served.driver, B)["title"] == "B · R1-Llama | AIME24", timeout=10)
    pick_option(served, "#compare-b", "R1-Llama | AMC23")
    until(lambda: trace(served.driver, B)["title"] == "B · R1-Llama | AMC23", timeout=10)
    pick_option(served, "#compare-b", "R1-Llama | AIME24")
    served.wait_for_text_to_equal("#compare-mean-b", "45.538", timeout=10)
    b, d = trace(served.driver, B), trace(served.driver, DELTA)
    a = trace(served.driver, A)
    assert b["title"] == "B · R1-Llama | AIME24"
    assert (a["zmin"], a["zmax"]) == (b["zmin"], b["zmax"]) == (42.7, 52.8)  # new shared range
    assert (a["zmin"], a["zmax"]) != (before["zmin"], before["zmax"])
    assert d["text"][0][0] == "-3.8" and d["text"][0][1] == ""  # 45.3 - 49.1; ratio 0.2: a gap
    assert text(served, "#compare-mean-a") == "50.5"  # R1-Llama over the 8 common cells
    assert "8 common cells compared" in text(served, "#compare-counts")
    assert text(served, "#compare-sentences").startswith(
        "R1-Llama | AIME24 is higher than R1-Llama in 0 of 8 cells")
    until(lambda: "b=dynts-r1-llama-benchmarks:r1-llama-aime24" in served.driver.current_url, 5)
    label = hover_cell(served, A, "0.5", "1000")
    served.wait_for_text_to_equal(
        "#compare-readout", "Local Window Size 1000 · Ratio 0.5 — A 51.7 · B 46.0 · B − A -5.7")
    assert "Pass@1 51.7" in label
    screenshot(served.driver, "compare-cross-figure", tmp_path)
    assert served.get_logs() == []


def test_derived_mean_built_in_the_ui(served, tmp_path):
    open_compare(served)
    pick_option(served, "#compare-mean-figure", BENCH_TITLE)
    for bench in ("AIME24", "AIME25", "AMC23", "GPQA-Diamond"):
        pick_option(served, "#compare-mean", f"R1-Llama | {bench}")
    served.find_element("#compare-mean-as-a").click()
    until(lambda: trace(served.driver, A)["title"] == "A · mean of 4 panels (derived)", timeout=10)
    until(lambda: "a=mean(dynts-r1-llama-benchmarks:r1-llama-aime24," in served.driver.current_url,
          timeout=5)
    label = hover_cell(served, A, "0.1", "3000")
    assert "Pass@1 51.075 (mean of 4 panels, derived)" in label
    served.wait_for_text_to_equal(
        "#compare-readout", "Local Window Size 3000 · Ratio 0.1 — A 51.075 · B 53.9 · B − A +2.825")
    hover_cell(served, A, "0.3", "3000")
    assert hover_lines(served.driver, A) == [
        "Local Window Size 3000 · Ratio 0.3", "Pass@1 not reported",
        "0 of 4 panels report it; a mean needs all", "A: mean of 4 panels"]
    assert "8 common cells compared" in text(served, "#compare-counts")
    screenshot(served.driver, "compare-derived-mean", tmp_path)
    # the URL reopens it
    served.driver.refresh()
    served.wait_for_element(MAPS, timeout=15)
    assert trace(served.driver, A)["title"] == "A · mean of 4 panels (derived)"
    assert served.get_logs() == []


def test_incompatible_choice_explains_instead_of_crashing(served):
    open_compare(served)
    pick_option(served, "#compare-a-figure", "Baseline - Core Generalization - Qwen-2.5B")
    # B shares no cell with it: B becomes a panel that does (here of another figure)
    until(lambda: trace(served.driver, A)["title"] == "A · Qwen-2.5B", timeout=10)
    assert trace(served.driver, B)["title"] == "B · Qwen-2.5 7B"
    # B picked back to a panel over other axes
    pick_option(served, "#compare-b-figure", QWEN_TITLE)
    served.wait_for_text_to_equal(
        "#compare-error-alert", "Panels A and B have different axes: A's are Type × Length and "
        "B's are Local Window Size × Ratio. Pick panels over the same axes.", timeout=10)
    assert not served.find_element("#compare-body").is_displayed()
    # B's menu now marks the panels that share no cell with A
    served.find_element("#compare-b").click()
    served.wait_for_element(".dash-dropdown-option")
    options = texts(served.driver, ".dash-dropdown-option")
    assert options == ["R1-Llama (no common cells with A)", "R1-Qwen (no common cells with A)"]
    assert served.get_logs() == []


def test_url_state_swap_and_back_forward(served):
    open_compare(served, "?b=dynts-r1-llama-benchmarks:r1-llama-amc23&labels=off&color=fixed")
    b = trace(served.driver, B)
    assert b["title"] == "B · R1-Llama | AMC23" and (b["zmin"], b["zmax"]) == (0, 100)
    assert served.find_element("#compare-labels").is_selected() is False
    served.driver.execute_script("window.__same_document = true;")
    served.find_element("#compare-swap").click()
    until(lambda: trace(served.driver, A)["title"] == "A · R1-Llama | AMC23", timeout=10)
    until(lambda: served.driver.current_url.endswith(
        "/compare?a=dynts-r1-llama-benchmarks:r1-llama-amc23&b=dynts-llama-vs-qwen:r1-llama"
        "&color=fixed&labels=off"), timeout=5)
    served.driver.back()
    until(lambda: trace(served.driver, A)["title"] == "A · R1-Llama", timeout=10)
    assert trace(served.driver, B)["title"] == "B · R1-Llama | AMC23"
    served.driver.forward()
    until(lambda: trace(served.driver, A)["title"] == "A · R1-Llama | AMC23", timeout=10)
    assert served.driver.execute_script("return window.__same_document === true;")
    assert served.get_logs() == []


DRAWN = """
    // each map's traces as drawn: values and hover data decoded (NaN as null), the rest as is
    const plain = v => v === undefined ? null : JSON.parse(JSON.stringify(v, (k, x) =>
        typeof x === 'number' && !isFinite(x) ? null : x));
    const decode = window.evalmapsLib.typed.decode;
    return Array.from(document.querySelectorAll('#compare-maps .js-plotly-plot')).map(gd => ({
      title: gd.layout.title.text,
      traces: gd.data.map(t => ({z: plain(decode(t.z)), customdata: plain(decode(t.customdata)),
                                 hovertemplate: t.hovertemplate || null,
                                 x: plain(t.x), y: plain(t.y)}))}));
"""
SYNC_POSTS = """return performance.getEntriesByType('resource')
    .filter(e => e.name.indexOf('_dash-update-component') >= 0).length;"""
SWAPPED = "?a=dynts-llama-vs-qwen:r1-qwen&b=dynts-llama-vs-qwen:r1-llama"


@pytest.mark.parametrize("stale", [False, True])
def test_swap_draws_what_the_server_draws_for_the_swapped_pair(served, stale):
    """Swap sends the maps' labels and hovers; the browser makes their values from the maps it
    holds (A and B trade places, B − A is negated, its A and B hover columns trade places).
    What it draws is exactly what a fresh load of the swapped pair draws. A page that no longer
    holds an array it needs (stale) asks again and gets the maps whole."""
    open_compare(served, SWAPPED)
    expected = served.driver.execute_script(DRAWN)
    open_compare(served)
    if stale:  # A's map loses its digests: its values cannot be found by the next answer
        served.driver.execute_script("""
            const gd = document.querySelector(arguments[0]).querySelector('.js-plotly-plot');
            const fig = {data: gd.data.map(t => Object.assign({}, t, {meta: Object.assign({},
                t.meta, {arrays: {}})})), layout: gd.layout};
            window.dash_clientside.set_props({type: 'compare-heatmap', panel: 'a'},
                                             {figure: fig});""", A)
    before = served.driver.execute_script(SYNC_POSTS)
    served.find_element("#compare-swap").click()
    until(lambda: served.driver.execute_script(DRAWN) == expected, timeout=10)
    until(lambda: served.driver.execute_script(SYNC_POSTS) - before == (2 if stale else 1), 5)
    assert served.driver.current_url.endswith("/compare" + SWAPPED)
    label = hover_cell(served, DELTA, "0.4", "2000")
    assert "B − A -3.8" in label and "A 56.3 · B 52.5" in label
    assert served.get_logs() == []


def test_unknown_panel_in_url_is_explained(served):
    open_compare(served, "?a=nope:x")
    assert "Panel A: There is no figure 'nope'" in served.find_element(".alert").text
    assert trace(served.driver, A)["title"] == "A · R1-Llama"
    assert served.get_logs() == []


def keep_upload(served, entry: dict) -> str:
    """Keep an upload in the server's store, as the Data page does; its id (links name it)."""
    import dash

    store = dash.get_app().server.extensions["evalmaps"]["store"]
    spec = {k: v for k, v in entry["spec"].items() if k != "id"}
    return store.put(spec, entry["csv"], entry["spec"]["file"])


def upload_with_replicates() -> dict:
    """An upload (its catalog entry and tidy cells, as the store keeps them): two models over 3 seeds, with sd and n."""
    rows = ["model,window,ratio,value,sd,n"]
    cells = {("3000", "0.1"): (50.0, 52.0, 2.0), ("3000", "0.2"): (50.0, 55.0, 1.0),
             ("2000", "0.1"): (40.0, 40.5, 3.0)}  # (baseline, new method, sd of each)
    for (window, ratio), (base, new, sd) in cells.items():
        rows += [f"Baseline,{window},{ratio},{base},{sd},4", f"New method,{window},{ratio},{new},{sd},4"]
    spec = {"id": "upload-seeds", "file": "seeds.csv", "title": "seeds.csv",
            "metric": {"name": "Pass@1", "unit": "", "range": [0, 100]},
            "x": "ratio", "y": "window", "facets": ["model"], "provenance": "uploaded",
            "dims": {"model": {"title": "Model", "labels": ["Baseline", "New method"]},
                     "window": {"title": "Local Window Size", "labels": ["3000", "2000"]},
                     "ratio": {"title": "Ratio", "labels": ["0.1", "0.2"]}}}
    return {"spec": spec, "csv": "\n".join(rows) + "\n"}


def test_uploaded_panels_compare_with_standard_errors(served, tmp_path):
    fid = keep_upload(served, upload_with_replicates())
    open_compare(served, f"?a={fid}:baseline&b={fid}:new-method")
    until(lambda: trace(served.driver, A)["title"] == "A · Baseline", timeout=10)
    assert trace(served.driver, B)["title"] == "B · New method"
    # SE = sqrt(2^2/4 + 2^2/4) = 1.41 at (3000, 0.1): |+2.0| <= 2.83, not distinguishable
    hover_cell(served, DELTA, "0.1", "3000")
    assert hover_lines(served.driver, DELTA) == [
        "Local Window Size 3000 · Ratio 0.1", "B − A +2.0", "A 50.0 · B 52.0",
        "SE 1.41, within 1.96 SE: not distinguishable"]
    served.wait_for_text_to_equal(
        "#compare-readout", "Local Window Size 3000 · Ratio 0.1 — A 50.0 · B 52.0 · B − A +2.0 · "
        "SE 1.41, within 1.96 SE: not distinguishable")
    dotted = served.driver.execute_script(
        "return document.querySelector(arguments[0]).querySelectorAll('.shapelayer path').length;",
        DELTA)
    assert dotted == 2  # (3000, 0.1) and (2000, 0.1); (3000, 0.2) differs by 5.0 > 1.96 x 0.71
    assert "With standard errors in 3 of the 3 cells: New method is significantly higher than " \
        "Baseline in 1 and significantly lower in 0" in text(served, "#compare-sentences")
    screenshot(served.driver, "compare-uncertainty", tmp_path)
    # the upload's panels are in the menus, next to the built-in ones
    pick_option(served, "#compare-b-figure", QWEN_TITLE)
    pick_option(served, "#compare-b", "R1-Qwen")
    until(lambda: trace(served.driver, B)["title"] == "B · R1-Qwen", timeout=10)
    assert "3 common cells compared" in text(served, "#compare-counts")
    assert served.get_logs() == []


def upload_with_standard_errors() -> dict:
    """A session upload like lm-eval's: accuracies (0-1) with their standard errors ``se``; one
    se of 0 for 0.62, which cannot be right."""
    rows = ["model,task,shots,value,se",
            "pythia-70m,arc_easy,0,0.4364,0.0102", "pythia-160m,arc_easy,0,0.4400,0.0101",
            "pythia-70m,lambada,0,0.2500,0.0060", "pythia-160m,lambada,0,0.3000,0.0065",
            "pythia-70m,piqa,0,0.6200,0", "pythia-160m,piqa,0,0.6400,0.0110"]
    spec = {"id": "upload-lm-eval", "file": "lm-eval.csv", "title": "lm-eval.csv",
            "metric": {"name": "acc", "unit": "", "range": [0, 1]},
            "x": "shots", "y": "task", "facets": ["model"], "provenance": "uploaded",
            "dims": {"model": {"title": "Model", "labels": ["pythia-70m", "pythia-160m"]},
                     "task": {"title": "Task", "labels": ["arc_easy", "lambada", "piqa"]},
                     "shots": {"title": "Shots", "labels": ["0"]}}}
    return {"spec": spec, "csv": "\n".join(rows) + "\n"}


def test_significance_from_se_and_the_table_of_b(served, tmp_path):
    """The source's standard errors decide significance (hover, readout, summary), a suspect 0
    is not used and is said so, and the table button downloads B as shown."""
    folder = tmp_path / "downloads"
    download_to(served.driver, folder)
    fid = keep_upload(served, upload_with_standard_errors())
    open_compare(served, f"?a={fid}:pythia-70m&b={fid}:pythia-160m")
    until(lambda: trace(served.driver, A)["title"] == "A · pythia-70m", timeout=10)
    # lambada: +0.05, SE sqrt(0.006² + 0.0065²) = 0.00885: beyond 1.96 SE
    hover_cell(served, DELTA, "0", "lambada")
    assert hover_lines(served.driver, DELTA) == [
        "Task lambada · Shots 0", "B − A +0.0500", "A 0.2500 · B 0.3000",
        "SE 0.00885, beyond 1.96 SE: distinguishable"]
    served.wait_for_text_to_equal(
        "#compare-readout", "Task lambada · Shots 0 — A 0.2500 · B 0.3000 · B − A +0.0500 · "
        "SE 0.00885, beyond 1.96 SE: distinguishable")
    hover_cell(served, A, "0", "piqa")
    assert hover_lines(served.driver, A) == [
        "Task piqa · Shots 0", "acc 0.6200 ± 0.0000 se (a standard error of 0 inside the "
        "metric's range cannot be right)", "A: pythia-70m"]
    assert text(served, "#compare-significance") == (
        "B significantly higher in 1 of 2 cells, lower in 0; 1 not distinguishable (within "
        "1.96 SE, dotted outline on B − A); 1 without a standard error")
    assert "1 cell of A gives a standard error of 0" in text(served, "#compare-warnings")
    Select(served.find_element("#compare-export-panel")).select_by_value("b")
    Select(served.find_element("#compare-export-format")).select_by_value("markdown")
    served.find_element("#compare-export").click()
    assert downloaded(folder, f"{fid}__pythia-160m.md") == """**lm-eval.csv — pythia-160m. acc.**

| Task \\\\ Shots | 0 |
| :-- | --: |
| arc\\_easy | 0.4400 ± 0.0101 |
| lambada | 0.3000 ± 0.0065 |
| piqa | **0.6400** ± 0.0110 |

Bold: the best value of each column (highest). ± one standard error (as the source gives it, else sd/√n). Provenance: uploaded.
"""
    assert served.get_logs() == []
