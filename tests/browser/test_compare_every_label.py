"""Issue 37, labels lost, on Compare, in the real browser: two panels (runs) of 60 models x 50
tasks compared. By default A, B and B − A are 720 px overviews with one row in two labelled,
and the legend says so and links to ``ticks=all``; under ``ticks=all`` every row and column of
all three maps carries its own tick label, at 1440 px and on a 390 px phone, no two labels
overlap, the three maps' cells are the same size and their columns line up, the linked outline
still lands on its cell, and on the phone each map scrolls sideways inside its panel (the page
itself never wider than the screen)."""

from __future__ import annotations

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from tests.browser.helpers import cell_center, graph_selector, screenshot
from tests.browser.test_every_label import overlaps, settled, whole_page
from tests.every_label_fixture import column_names, row_names, wide_pair_figure

pytestmark = pytest.mark.browser

ROWS, COLS = 60, 50
DESKTOP, PHONE = (1440, 1000), (390, 844)
SIDES = ("a", "b", "delta")
MAPS = [graph_selector("compare", side) for side in SIDES]

# Each map's tick labels with their boxes (y top to bottom, x left to right), its plot area and
# cells (viewport px), and its panel (the frame that scrolls under ticks=all); the page's width.
READ = """
const out = [];
for (const css of arguments[0]) {
  const graph = document.querySelector(css);
  const gd = graph && graph.querySelector('.js-plotly-plot');
  if (!gd || !gd._fullLayout || !graph.querySelector('.ytick text') || gd._evalmapsPending) {
    return null;
  }
  const boxes = axis => Array.from(graph.querySelectorAll('.' + axis + 'tick text')).map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  }).sort((a, b) => axis === 'x' ? a.left - b.left : a.top - b.top);
  const fl = gd._fullLayout, xa = fl.xaxis, ya = fl.yaxis, box = gd.getBoundingClientRect();
  const panel = graph.closest('.compare-map');
  out.push({y: boxes('y'), x: boxes('x'),
            left: box.left + xa._offset, top: box.top + ya._offset,
            column: xa._length / xa._categories.length, row: ya._length / ya._categories.length,
            panel: {scroll: panel.scrollWidth, client: panel.clientWidth,
                    left: panel.getBoundingClientRect().left,
                    overflow: getComputedStyle(panel).overflowX}});
}
return {maps: out,
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        every: document.getElementById('compare-maps').classList.contains('compare-maps-every')};
"""

MARK = """
const mark = document.querySelector(arguments[0]).parentElement.querySelector('.compare-mark');
if (!mark || getComputedStyle(mark).display === 'none') { return null; }
const r = mark.getBoundingClientRect();
return [r.left + r.width / 2, r.top + r.height / 2, r.width, r.height];
"""


@pytest.fixture()
def opened(dash_duo, dash_app, tmp_path, monkeypatch):
    """Open Compare on the two runs at a window size with a query's extra keys."""
    figure = wide_pair_figure(tmp_path, ROWS, COLS)
    served = dash_app.server.extensions["evalmaps"]
    monkeypatch.setitem(served, "catalog", served["catalog"].with_figures([figure]))
    dash_duo.start_server(dash_app)

    def open_at(size, query=""):
        dash_duo.driver.set_window_size(*size)
        dash_duo.wait_for_page(url=f"{dash_duo.server_url}/compare?figure=widepair{query}")
        dash_duo.wait_for_element(f"{MAPS[2]} .main-svg", timeout=20)
        return read_settled(dash_duo)

    return open_at


def read_settled(dash_duo) -> dict:
    """The three maps, settled (:func:`tests.browser.test_every_label.settled`)."""
    return settled(dash_duo, READ, MAPS, timeout=15, poll=0.4)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440", "390"])
def test_every_row_and_column_of_the_three_maps_is_labelled(dash_duo, opened, tmp_path, size):
    got = opened(size, "&ticks=all")
    assert got["every"] and got["page"] == 0  # the page is never wider than the screen
    for drawn in got["maps"]:
        assert [t["text"] for t in drawn["y"]] == row_names(ROWS)
        assert [t["text"] for t in drawn["x"]] == column_names(COLS)
        assert overlaps(drawn["y"], "y") == [] and overlaps(drawn["x"], "x") == []
        panel = drawn["panel"]
        assert panel["overflow"] == "auto"
        # the phone's maps are wider than their panels, which scroll; at 1440 px they fit
        assert (panel["scroll"] > panel["client"]) == (size == PHONE)
        assert drawn["column"] >= 13  # an upright line a column (evalmapsLib.fit's)
    # the squares line up: cells of one size on all three maps, and (stacked: more than 8
    # columns) each column at the same place across the screen, each row at the same place in
    # its map
    a, b, delta = got["maps"]
    for other in (b, delta):
        assert abs(other["column"] - a["column"]) < 0.01
        assert abs(other["row"] - a["row"]) < 0.01
        assert abs(other["left"] - a["left"]) < 0.5
    note = dash_duo.find_element("#compare-labels-note")
    assert note.text.startswith("Every row and column is labelled")
    back = dash_duo.find_element("#compare-ticks-link")
    assert back.text == "Back to the overview"
    href = back.get_attribute("href")
    assert "ticks" not in href and "a=widepair:base&b=widepair:tuned" in href
    # by keyboard on A: End steps to the row's last cell, which A's panel scrolls into view
    # (on the phone); B and B − A outline that cell, where it is drawn on each
    frame = dash_duo.find_element(f".compare-map {MAPS[0]}").find_element(
        "xpath", "./ancestor::div[contains(@class, 'heatmap-keys')]")
    dash_duo.driver.execute_script("arguments[0].focus();", frame)
    ActionChains(dash_duo.driver).send_keys(Keys.END).perform()
    last = column_names(COLS)[-1]
    until(lambda: last in dash_duo.find_element("#compare-readout").text, timeout=5)
    left = dash_duo.driver.execute_script(
        "return document.querySelector(arguments[0]).closest('.compare-map').scrollLeft;",
        MAPS[0])
    assert (left > 0) == (size == PHONE)
    for css in MAPS[1:]:
        def marked(css=css):
            mark = dash_duo.driver.execute_script(MARK, css)
            x, y = cell_center(dash_duo.driver, css, last, row_names(ROWS)[0])
            return mark is not None and abs(mark[0] - x) < 2 and abs(mark[1] - y) < 2 \
                and abs(mark[2] - a["column"]) < 2
        until(marked, timeout=5)
    screenshot(dash_duo.driver, f"compare-every-label-{size[0]}-end", tmp_path)
    # last: the whole page's screenshot lays the page out at its full height for a moment (no
    # scroll bar), and the maps are drawn at that width and back
    whole_page(dash_duo.driver, f"compare-every-label-{size[0]}", tmp_path)
    if size == PHONE:  # the scrolling panels pass axe (a focusable, named region inside each)
        from tests.browser.test_axe import axe_source, describe, run_axe

        bad = [v for v in run_axe(dash_duo.driver, axe_source())
               if v["impact"] in ("critical", "serious")]
        assert not bad, describe(bad)
    assert dash_duo.get_logs() == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440", "390"])
def test_the_overview_thins_on_purpose_and_links_to_every_label(dash_duo, opened, tmp_path,
                                                                 size):
    """No key: today's 720 px overviews, one row in two labelled, no panel scrolls; the legend
    says why and links to the same comparison with ticks=all, which labels every row."""
    got = opened(size)
    assert not got["every"] and got["page"] == 0
    for drawn in got["maps"]:
        assert [t["text"] for t in drawn["y"]] == row_names(ROWS)[::2]
        assert overlaps(drawn["y"], "y") == [] and overlaps(drawn["x"], "x") == []
        assert drawn["panel"]["overflow"] == "visible"
    note = dash_duo.find_element("#compare-labels-note").text
    assert note.startswith("One row in 2 is labelled (60 rows: a map of more than 40 columns is "
                           "kept to a 720 px overview)")
    whole_page(dash_duo.driver, f"compare-overview-{size[0]}", tmp_path)
    link = dash_duo.find_element("#compare-ticks-link")
    assert link.text == "Label every row and column (the page scrolls)"
    assert link.get_attribute("href").endswith(
        "/compare?a=widepair:base&b=widepair:tuned&ticks=all")
    # a colour range picked in the browser (restyled there, written to the URL): the link
    # keeps it beside its own key
    dash_duo.driver.execute_script(
        "arguments[0].click();", dash_duo.find_element("#compare-color input[value='fixed']"))
    until(lambda: "color=fixed" in dash_duo.driver.current_url, timeout=10)
    until(lambda: "color=fixed" in link.get_attribute("href"), timeout=5)
    assert "ticks=all" in link.get_attribute("href")
    dash_duo.driver.execute_script("arguments[0].click();", link)
    until(lambda: "ticks=all" in dash_duo.driver.current_url, timeout=10)
    until(lambda: dash_duo.find_element("#compare-labels-note").text.startswith("Every row"),
          timeout=15)
    assert "color=fixed" in dash_duo.driver.current_url
    got = read_settled(dash_duo)
    assert got["every"]
    assert all([t["text"] for t in drawn["y"]] == row_names(ROWS) for drawn in got["maps"])
    # a control changed now keeps the key in the URL (no control sets it)
    dash_duo.driver.execute_script("arguments[0].click();",
                                   dash_duo.find_element("#compare-swap"))
    until(lambda: "a=widepair:tuned" in dash_duo.driver.current_url, timeout=10)
    assert "ticks=all" in dash_duo.driver.current_url and "color=fixed" in \
        dash_duo.driver.current_url
    got = read_settled(dash_duo)
    assert got["every"] and all([t["text"] for t in drawn["y"]] == row_names(ROWS)
                                for drawn in got["maps"])
    assert dash_duo.get_logs() == []
