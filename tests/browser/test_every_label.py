"""Issue 37, labels lost, in the real browser: a map of 60 models x 50 tasks. By default it is a
720 px overview with one row in two labelled, and the note says so and links to ``ticks=all``;
under ``ticks=all`` every row and every column carries its own tick label, at 1440 px and on a
390 px phone, no two labels overlap, and on the phone the map scrolls sideways inside its frame
(the page itself never wider than the screen)."""

from __future__ import annotations

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from tests.browser.helpers import graph_selector, screenshot
from tests.every_label_fixture import column_names, row_names, wide_figure

pytestmark = pytest.mark.browser

ROWS, COLS = 60, 50
DESKTOP, PHONE = (1440, 1000), (390, 844)

# Every tick label drawn, with its box: the y ticks top to bottom, the x ticks left to right;
# the map's frame (the scrolling wrapper, if any) and the page's widths.
READ = """
const graph = document.querySelector(arguments[0]);
const gd = graph && graph.querySelector('.js-plotly-plot');
if (!gd || !gd._fullLayout || !graph.querySelector('.ytick text')) { return null; }
const boxes = axis => Array.from(graph.querySelectorAll('.' + axis + 'tick text')).map(t => {
  const r = t.getBoundingClientRect();
  return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom};
}).sort((a, b) => axis === 'x' ? a.left - b.left : a.top - b.top);
const frame = graph.closest('.heatmap-scroll');
return {y: boxes('y'), x: boxes('x'), width: gd._fullLayout.width,
        scroller: frame ? {scroll: frame.scrollWidth, client: frame.clientWidth,
                           overflow: getComputedStyle(frame).overflowX} : null,
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        settled: !gd._evalmapsPending};
"""


def overlaps(boxes: list[dict], axis: str) -> list[tuple[str, str]]:
    """Neighbouring labels whose boxes overlap along the axis (a glyph box's 1 px of leading
    allowed: 12 px text in rows 15 px apart draws boxes about 14 px high)."""
    lo, hi = ("left", "right") if axis == "x" else ("top", "bottom")
    assert all(b[hi] - b[lo] >= 10 for b in boxes), axis  # real boxes: a line of 12 px text
    return [(a["text"], b["text"]) for a, b in zip(boxes, boxes[1:])
            if b[lo] < a[hi] - 1]


def whole_page(driver, name: str, tmp_path) -> None:
    """A screenshot of the whole page, below the window too (Chrome DevTools), beside the
    window's own (``screenshot``): a map a thousand pixels tall is read whole."""
    import base64

    path = screenshot(driver, name, tmp_path)
    shot = driver.execute_cdp_cmd("Page.captureScreenshot",
                                  {"format": "png", "captureBeyondViewport": True})
    path.with_name(f"{name}-whole.png").write_bytes(base64.b64decode(shot["data"]))


def open_wide(dash_duo, dash_app, monkeypatch, tmp_path, size, query=""):
    """Browse on the wide figure, served beside the app's own for this test only (the app is
    the session's: monkeypatch gives it its catalog back)."""
    figure = wide_figure(tmp_path, ROWS, COLS)
    state = dash_app.server.extensions["evalmaps"]
    monkeypatch.setitem(state, "catalog", state["catalog"].with_figures([figure]))
    dash_duo.driver.set_window_size(*size)
    dash_duo.start_server(dash_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?figure=wide{query}")
    css = graph_selector("browse", "all")  # the figure's one panel
    dash_duo.wait_for_element(f"{css} .main-svg", timeout=20)
    return css


def settled(dash_duo, script: str, *args, timeout: float = 10, poll: float = 0.3):
    """What ``script`` reads once it reads the same twice in a row: a map is read once the
    browser has fitted it (it may redraw once after the first paint: evalmapsLib.fit)."""
    got = {}

    def same():
        now = dash_duo.driver.execute_script(script, *args)
        was, got["last"] = got.get("last"), now
        return now is not None and now == was

    until(same, timeout=timeout, poll=poll)
    return got["last"]


def read_settled(dash_duo, css: str) -> dict:
    """The ticks of the map at ``css``, settled."""
    return settled(dash_duo, READ, css)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440", "390"])
def test_every_row_and_column_is_labelled_under_ticks_all(dash_duo, dash_app, monkeypatch,
                                                          tmp_path, size):
    css = open_wide(dash_duo, dash_app, monkeypatch, tmp_path, size, "&ticks=all")
    got = read_settled(dash_duo, css)
    assert [t["text"] for t in got["y"]] == row_names(ROWS)
    assert [t["text"] for t in got["x"]] == column_names(COLS)
    assert overlaps(got["y"], "y") == [] and overlaps(got["x"], "x") == []
    scroller = got["scroller"]
    assert scroller["overflow"] == "auto" and got["page"] == 0
    # the phone's map is wider than its frame, which scrolls; at 1440 px it fits the screen
    assert (scroller["scroll"] > scroller["client"]) == (size == PHONE)
    note = dash_duo.find_element("#browse-labels-note")
    assert note.text.startswith("Every row and column is labelled")
    back = dash_duo.find_element("#browse-ticks-link")
    assert back.text == "Back to the overview"
    assert "ticks" not in back.get_attribute("href") and "figure=wide" in back.get_attribute("href")
    whole_page(dash_duo.driver, f"browse-every-label-{size[0]}", tmp_path)
    # by keyboard: End steps to the row's last cell, which the frame scrolls into view
    frame = dash_duo.find_element(".heatmap-scroll .heatmap-keys")
    dash_duo.driver.execute_script("arguments[0].focus();", frame)
    ActionChains(dash_duo.driver).send_keys(Keys.END).perform()
    said = "return document.querySelector('.heatmap-live').textContent;"  # visually hidden
    until(lambda: column_names(COLS)[-1] in (dash_duo.driver.execute_script(said) or ""),
          timeout=5)
    left = dash_duo.driver.execute_script(
        "return document.querySelector(arguments[0]).closest('.heatmap-scroll').scrollLeft;", css)
    assert (left > 0) == (size == PHONE)
    if size == PHONE:  # the scrolling frame passes axe (a focusable, named region inside)
        from tests.browser.test_axe import axe_source, describe, run_axe

        bad = [v for v in run_axe(dash_duo.driver, axe_source())
               if v["impact"] in ("critical", "serious")]
        assert not bad, describe(bad)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440", "390"])
def test_the_overview_thins_on_purpose_and_links_to_every_label(dash_duo, dash_app, monkeypatch,
                                                                 tmp_path, size):
    """No key: today's 720 px overview, one row in two labelled, and the note says why and
    links to the same view with ticks=all, which then labels every row."""
    css = open_wide(dash_duo, dash_app, monkeypatch, tmp_path, size)
    got = read_settled(dash_duo, css)
    assert [t["text"] for t in got["y"]] == row_names(ROWS)[::2]
    assert got["scroller"] is None and got["page"] == 0
    assert overlaps(got["y"], "y") == [] and overlaps(got["x"], "x") == []
    note = dash_duo.find_element("#browse-labels-note").text
    assert note.startswith("One row in 2 is labelled (60 rows: a map of more than 40 columns is "
                           "kept to a 720 px overview)")
    whole_page(dash_duo.driver, f"browse-overview-{size[0]}", tmp_path)
    link = dash_duo.find_element("#browse-ticks-link")
    assert link.text == "Label every row and column (the page scrolls)"
    assert link.get_attribute("href").endswith("/?figure=wide&ticks=all")
    dash_duo.driver.execute_script("arguments[0].click();", link)
    until(lambda: "ticks=all" in dash_duo.driver.current_url, timeout=10)
    dash_duo.wait_for_element(f"{css} .main-svg", timeout=20)
    until(lambda: dash_duo.find_element("#browse-labels-note").text.startswith("Every row"),
          timeout=10)
    got = read_settled(dash_duo, css)
    assert [t["text"] for t in got["y"]] == row_names(ROWS)
