"""Open pages follow a sweep written while a real gunicorn (two workers) serves its folder.
Browse: its page built again for the same URL when the second checkpoint changes the figure's
shape (no reload); then a cell that was a gap is painted with its value in place (the map's table, left open,
shows it as the API does), with no reload; the URL, the colour range, the keyboard focus and the
open table stay; the rows menu lists the new model; a polite note says once what changed. Data,
Trends and Compare: each draws the new version in place, its URL unchanged. The browser logs no
error and the server answers no 5xx."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from evalmaps.catalog.folders import load_folder
from evalmaps.core import text as fmt
from evalmaps.core.figure import short_slug
from tests.browser.helpers import fetch_text
from tests.conftest import pytest_setup_options
from tests.integration.test_live_gunicorn import PYTHIA, fetch, served, until  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.external]

FIRST = ["pythia-70m/zero-shot/70m_step0.json", "pythia-70m/zero-shot/70m_step1000.json",
         "pythia-160m/zero-shot/160m_step0.json"]
GAP = "pythia-160m/zero-shot/160m_step1000.json"  # the 160m row's gap at step 1000, filled
NEW = "pythia-410m/zero-shot/410m_step0.json"  # a new model: a new row, a new label in the menu
QUERY = "task=arc_easy&metric=acc&color=fixed"  # a panel and a colour range of the user's


@pytest.fixture()
def browser():
    if not (shutil.which("chromedriver") or Path("/usr/bin/chromedriver").exists()):
        pytest.skip("chromedriver is absent")
    from selenium import webdriver

    options = pytest_setup_options()
    options.add_argument("--headless=new")
    options.add_argument("--no-sandbox")
    options.add_argument("--window-size=1440,1000")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options)
    try:
        yield driver
    finally:
        driver.quit()


def copy(folder: Path, name: str) -> None:
    out = folder / name
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name("." + out.name + ".part")
    tmp.write_bytes((PYTHIA / name).read_bytes())
    tmp.replace(out)  # whole, at once


def table_of(driver) -> list[list[str]]:
    """The open map's table: its cells' texts, row by row."""
    return driver.execute_script(
        """
        const t = document.querySelector('.heatmap-table table');
        return t ? Array.from(t.querySelectorAll('tbody tr')).map(
          tr => Array.from(tr.querySelectorAll('td')).map(td => td.textContent)) : null;
        """)


def metric_of(folder: Path):
    (figure,) = load_folder(folder, None, [])
    return figure.spec.metric_for({"task": "arc_easy", "metric": "acc"})


def expected_table(base: str, folder: Path, fid: str) -> list[list[str]]:
    """The panel's cells as the API serves them, written as the table writes values (the
    figure's metric and decimals as a fresh read of the folder has them)."""
    (figure,) = load_folder(folder, None, [])
    metric = metric_of(folder)
    summary = json.loads(fetch_text(base, f"/api/figures/{fid}"))
    cells = json.loads(fetch_text(base, f"/api/figures/{fid}/cells?task=arc_easy&metric=acc"))
    labels = {d["name"]: d["labels"] for d in summary["dims"]}
    value = {(c["model"], c["step"]): c["value"] for c in cells["cells"]}
    return [[fmt.value(metric, value.get((m, s)), figure.decimals) for s in labels["step"]]
            for m in labels["model"]]


def served_by_every_worker(base: str, fid: str, times: int = 12) -> bool:
    """Whether ``times`` requests in a row, each on a new connection (so spread over gunicorn's
    two workers), find the figure: a page opened before a worker has read the first file would
    be drawn from another figure."""
    return all(fetch(base, f"/api/figures/{fid}")[0] == 200 for _ in range(times))


def test_an_open_page_draws_new_cells_in_place(served, browser):  # noqa: F811
    base, folder, log = served
    fid = "import-" + short_slug(folder.name)
    copy(folder, FIRST[0])  # one checkpoint: its tasks are the x axis
    until(lambda: served_by_every_worker(base, fid), 20, "the first file read by both workers")
    url = f"{base}/?figure={fid}&{QUERY}"
    browser.get(url)
    until(lambda: browser.find_elements(By.CSS_SELECTOR, ".heatmap-keys"), 20, "a map")
    assert drawn(browser)["shape"] == [["metric", "step"], "model", "task"]
    browser.execute_script("window.__same_page = true")
    # the keyboard on the cell of pythia-70m at arc_easy (tasks across, one panel: step 0)
    frame = browser.find_element(By.CSS_SELECTOR, ".heatmap-keys")
    browser.execute_script("arguments[0].focus()", frame)  # a keyboard visit: the top-left cell
    tasks = browser.execute_script("return window.evalmapsLib.keys.model("
                                   "arguments[0].querySelector('.js-plotly-plot')).x", frame)
    for _ in range(tasks.index("arc_easy")):
        frame.send_keys(Keys.ARROW_RIGHT)
    assert active_cell(browser) == {"y": "EleutherAI/pythia-v1.1-70m", "x": "arc_easy"}
    for name in FIRST[1:]:  # a second checkpoint: the steps become the x axis, the page is
        copy(folder, name)  # built again for its URL, without a reload
    until(lambda: (drawn(browser) or {}).get("shape") == [["task", "metric"], "model", "step"],
          15, "the page built again for the figure's new shape")
    assert browser.execute_script("return window.__same_page === true")
    assert browser.current_url == url
    # the user's place kept: the same cell (70m, arc_easy, acc at step 0), focused in the map
    # that holds it now, and the polite note said what changed
    until(lambda: active_cell(browser) == {"y": "EleutherAI/pythia-v1.1-70m", "x": "0"}, 10,
          "the keyboard back on the same cell")
    assert json.loads(browser.execute_script(
        "return document.activeElement.getAttribute('data-coords')"))["facets"] == {
        "task": "arc_easy", "metric": "acc"}
    assert re.match(r"\d+ new cells", note_text(browser)), note_text(browser)
    frame = until(lambda: browser.find_elements(By.CSS_SELECTOR, ".heatmap-keys"), 10, "a map")[0]
    browser.find_element(By.CSS_SELECTOR, ".heatmap-table-toggle").click()  # the table, open
    before = until(lambda: table_of(browser), 5, "the table")
    assert before == expected_table(base, folder, fid)
    assert before[1][1] == fmt.NOT_REPORTED  # the 160m row's step 1000: a gap
    frame.click()
    frame.send_keys(Keys.ARROW_DOWN)  # the keyboard's active cell: row 2
    cell = browser.execute_script("return document.activeElement._evalmapsCell")

    copy(folder, GAP)
    copy(folder, NEW)
    until(lambda: (table_of(browser) or [[]] * 3)[1][1:2] not in ([], [fmt.NOT_REPORTED])
          and len(table_of(browser)) == 3, 15, "the gap and the new row drawn")
    # what is painted is what the API serves, exactly, and the map's own z holds the new cell
    assert table_of(browser) == expected_table(base, folder, fid)
    z = browser.execute_script(
        "const gd = document.querySelector('.heatmap-keys .js-plotly-plot');"
        "return Array.from(window.evalmapsLib.plotly.fullData(gd)[0].z[1]);")
    assert z[1] is not None and fmt.value(metric_of(folder), z[1], 4) == table_of(browser)[1][1]
    assert browser.execute_script("return window.__same_page === true")  # no reload
    assert browser.current_url == url  # the URL's state, unchanged
    assert browser.find_element(By.CSS_SELECTOR, "#browse-color input[value=fixed]").is_selected()
    assert json.loads(browser.execute_script(  # focus and active cell kept, table still open
        "const f = document.activeElement; return f.classList.contains('heatmap-keys') && "
        "JSON.stringify(f._evalmapsCell)")) == cell
    assert browser.find_element(By.CSS_SELECTOR, ".heatmap-table-toggle").get_attribute(
        "aria-expanded") == "true"
    note = browser.find_element(By.ID, "evalmaps-live-note")
    assert note.get_attribute("aria-live") == "polite"
    assert re.fullmatch(r"\d+ new cells(: EleutherAI/pythia-v1\.1-410m)?\.",
                        note.get_attribute("textContent")), note.get_attribute("textContent")
    # the rows menu lists the new model, chosen as every row is (the URL names no rows)
    browser.find_element(By.CSS_SELECTOR, "#browse-rows").click()
    # read in one script: the menu may draw its options again while they are read
    options = until(lambda: browser.execute_script(
        "return Array.from(document.querySelectorAll('.dash-dropdown-option'),"
        " o => [o.innerText.trim(), o.getAttribute('aria-selected')])"), 5, "the rows menu open")
    assert options == [["70m", "true"], ["160m", "true"], ["410m", "true"]]
    assert browser.current_url == url
    time.sleep(2.5)  # another check or two: nothing new, no second note, no second redraw
    assert re.fullmatch(r"\d+ new cells(: EleutherAI/pythia-v1\.1-410m)?\.",
                        note.get_attribute("textContent")), note.get_attribute("textContent")

    # the other pages: each draws the figure's next version in place, from its unchanged URL
    # (Trends: a new step, so its slider's key list grows; focus in a chart stays; Compare:
    # the keyboard's cell, its outline on the other maps, its readout and the figure menus)
    for path, name, shows in (
            ("/data", "pythia-70m/zero-shot/70m_step1.json", data_cells),
            ("/trends", "pythia-70m/zero-shot/70m_step2.json", trends_points),
            ("/compare", "pythia-410m/zero-shot/410m_step1.json", compare_cells)):
        query = (f"?a={fid}:arc-easy-acc&b={fid}:arc-challenge-acc" if path == "/compare"
                 else f"?figure={fid}&task=arc_easy&metric=acc")
        browser.get(base + path + query)
        before = until(lambda: drawn_version(browser), 20, f"{path} drawn")
        count = until(lambda: shows(browser), 20, f"{path}'s data")
        browser.execute_script("window.__same_page = true")
        focus = FOCUS.get(path, lambda driver: None)(browser)
        copy(folder, name)
        until(lambda: drawn_version(browser) not in (None, before), 15, f"{path} drawn again")
        assert drawn_version(browser) == api_version(base, fid)
        assert shows(browser) > count  # the new cell is on the page
        assert browser.current_url == base + path + query
        assert browser.execute_script("return window.__same_page === true")
        if path == "/trends":
            until(lambda: browser.execute_script(  # a modebar button of the same chart, focused
                "const f = document.activeElement, g = f.closest('.dash-graph');"
                "return g && f.getAttribute('data-title') + ' ' + g.id") == focus, 5,
                  "focus on the same chart's button")
            steps = [d["labels"] for d in json.loads(fetch_text(base, f"/api/figures/{fid}"))[
                "dims"] if d["name"] == "step"][0]
            assert "2" in steps and json.loads(browser.find_element(
                By.ID, "trends-xrange-keys").get_attribute("data-numbers")) == [
                int(step) for step in steps]
        elif path == "/compare":
            until(lambda: compare_kept(browser, focus), 10, "Compare's cell, outline and readout")
            files = len(list(folder.rglob("*.json")))
            assert browser.find_element(By.ID, "compare-a-figure").text.endswith(
                f"({files} lm-evaluation-harness results files)")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors

    # every file removed: the page says so once, stops asking for the figure (one 404 in the
    # console), looks for it in the list of figures, and finds it back within 15 s
    saved = {p.relative_to(folder).as_posix() for p in folder.rglob("*.json")}
    for name in saved:
        (folder / name).unlink()
    until(lambda: "files are gone" in note_text(browser), 15, "the note that the files are gone")
    time.sleep(2 * 3)  # two checks more: the figure is not asked for again
    for name in [*sorted(saved), "pythia-160m/zero-shot/160m_step2.json"]:
        copy(folder, name)
    back = time.monotonic()
    until(lambda: note_text(browser).startswith("The figure is back"), 20, "the figure back")
    assert time.monotonic() - back < 15
    until(lambda: drawn_version(browser) == api_version(base, fid), 10, "drawn again")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert 1 <= len(errors) <= 2 and all(f"/api/figures/{fid} " in e["message"] and "404" in
                                         e["message"] for e in errors), errors
    assert not re.search(r'" 5\d\d ', log())  # no 5xx in the access log


def active_cell(driver) -> dict | None:
    """The labels of the keyboard's active cell in the focused map."""
    return driver.execute_script(
        "const c = document.activeElement._evalmapsCell; return c ? {y: c.y, x: c.x} : null")


def note_text(driver) -> str:
    return driver.execute_script(
        "const n = document.getElementById('evalmaps-live-note'); return n ? n.textContent : ''")


def focus_trends(driver) -> str:
    """Focus on the first chart's Zoom button: what it is, as the test reads it back."""
    return driver.execute_script(
        "const b = document.querySelector('#trends-graphs .modebar-btn[data-title=\"Zoom\"]');"
        "b.focus(); return b.getAttribute('data-title') + ' ' + b.closest('.dash-graph').id")


def focus_compare(driver) -> dict:
    """The keyboard on map A's second cell of row 1: its labels."""
    frame = driver.find_element(By.CSS_SELECTOR, ".compare-map .heatmap-keys")
    driver.execute_script("arguments[0].focus()", frame)
    frame.send_keys(Keys.ARROW_RIGHT)
    cell = until(lambda: active_cell(driver), 5, "a cell active")
    until(lambda: compare_kept(driver, cell), 5, "the outline and the readout")
    return cell


FOCUS = {"/trends": focus_trends, "/compare": focus_compare}


def compare_kept(driver, cell: dict) -> bool:
    """Map A focused on ``cell``, outlined on map B, the readout saying it with B's value as
    B's map draws it now."""
    if active_cell(driver) != cell:
        return False
    said = driver.execute_script(
        "const m = document.getElementById(JSON.stringify({panel: 'b', type: 'compare-mark'}));"
        "return [m.style.display, document.getElementById('compare-readout').textContent]")
    return said[0] == "block" and f"Step {cell['x']} " in said[1] and cell["y"][-4:] in said[1]


def drawn(driver) -> dict | None:
    """What the open page says it drew (its hidden .evalmaps-live-drawn)."""
    text = driver.execute_script(
        "const e = document.querySelector('.evalmaps-live-drawn'); return e && e.textContent")
    return json.loads(text) if text else None


def drawn_version(driver) -> str | None:
    """The version of the figure the open page says it drew."""
    said = drawn(driver)
    return next(iter(said["versions"].values()), None) if said else None


def api_version(base: str, fid: str) -> str:
    return json.loads(fetch_text(base, f"/api/figures/{fid}"))["version"]


def data_cells(driver) -> int:
    match = re.match(r"(\d+) cells in this slice", driver.find_element(By.ID, "data-summary").text)
    return int(match.group(1)) if match else 0


def trends_points(driver) -> int:
    """Points drawn on the Trends page's charts."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#trends-graphs .js-plotly-plot'))"
        ".reduce((n, gd) => n + (gd._fullData || []).reduce((m, t) => m + (t.y || [])"
        ".filter(v => v !== null && !Number.isNaN(v)).length, 0), 0)")


def compare_cells(driver) -> int:
    """Cells with a value in Compare's A map."""
    return driver.execute_script(
        "const gd = document.querySelector('[id*=\"compare-heatmap\"] .js-plotly-plot');"
        "const t = gd && gd._fullData && gd._fullData[0];"
        "return t ? Array.from(t.z).reduce((n, row) => n + Array.from(row)"
        ".filter(v => v !== null && !Number.isNaN(v)).length, 0) : 0")


def test_a_page_waits_for_a_watched_folders_first_file(served, browser):  # noqa: F811
    """Issue 37 (a new user, 5): served on an empty folder, `/?figure=import-sweep` fell back to
    another figure and never picked the sweep up. The page says it waits for the figure, then,
    when the first file is written, says so and draws it for the same URL."""
    base, folder, log = served
    fid = "import-" + short_slug(folder.name)
    assert fetch(base, f"/api/figures/{fid}")[0] == 404
    browser.get(f"{base}/?figure={fid}")
    (waiting,) = until(lambda: browser.find_elements(By.ID, "browse-waiting"), 20, "the note")
    assert waiting.text == (f"Waiting for {fid}: no file yet in {folder.name}/. This page draws "
                            "it when its first file arrives.")
    assert str(folder.parent) not in browser.page_source  # the folder by its name only
    assert not browser.find_elements(By.CSS_SELECTOR, ".heatmap-keys")  # no other figure drawn
    time.sleep(4)  # the page has asked (a 404) and follows the list of figures
    copy(folder, FIRST[0])
    arrived = time.monotonic()
    until(lambda: note_text(browser).startswith(f"The figure {fid} has arrived: "), 20, "the note")
    until(lambda: browser.find_elements(By.CSS_SELECTOR, ".heatmap-keys"), 30,
          "the figure drawn when its first file arrived")
    assert time.monotonic() - arrived < 20
    assert browser.current_url == f"{base}/?figure={fid}"
    until(lambda: drawn_version(browser) == api_version(base, fid), 10, "its version drawn")
    assert not browser.find_elements(By.ID, "browse-waiting")
    assert browser.find_element(By.ID, "browse-title").text.startswith(FIRST[0].split("/")[-1])
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert len(errors) <= 2 and all(f"/api/figures/{fid} " in e and "404" in e
                                    for e in errors), errors
    assert not re.search(r'" 5\d\d ', log())  # no 5xx in the access log
