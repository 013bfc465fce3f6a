"""Phones (issue 10): at 390 x 844 the first chart is in the first screen (the controls fold
behind "Filters"), nothing scrolls sideways, cell text is never under 9 px, x tick labels do not
overlap; and the browser's choice of black or white cell text (evalmapsLib.paint) is the one
evalmaps.figures.heatmap makes, after switching scale and colour range."""

from __future__ import annotations

import json

import numpy as np
import pytest
from dash.testing.wait import until

from evalmaps.analysis.slicing import COLOR_MODES, color_range, views_for
from evalmaps.figures.heatmap import dark_text, heatmap_figure
from evalmaps.views.state import ViewState
from tests.browser.helpers import screenshot

pytestmark = pytest.mark.browser

PHONE = (390, 844)
CHART = ".heatmap-graph .js-plotly-plot, .trends-graph .js-plotly-plot"

MEASURE = """
// clientWidth: the viewport less a vertical scrollbar (innerWidth counts it)
const out = {scrollWidth: document.documentElement.scrollWidth, innerWidth: innerWidth,
             clientWidth: document.documentElement.clientWidth, innerHeight: innerHeight};
const g = document.querySelector(arguments[0]);
const r = g.getBoundingClientRect();
out.chart = [r.top, r.bottom];
out.text = Array.from(document.querySelectorAll('.heatmap-label text')).map(
  t => parseFloat(getComputedStyle(t).fontSize));
out.overlaps = [];
document.querySelectorAll('.js-plotly-plot').forEach(gd => {
  const boxes = Array.from(gd.querySelectorAll('.xtick text')).map(t => t.getBoundingClientRect())
    .filter(b => b.width > 0);
  for (let i = 1; i < boxes.length; i++) {
    if (boxes[i].left < boxes[i - 1].right && boxes[i - 1].left < boxes[i].right &&
        boxes[i].top < boxes[i - 1].bottom && boxes[i - 1].top < boxes[i].bottom) {
      out.overlaps.push(gd.parentElement.id);
    }
  }
});
out.filtersShown = getComputedStyle(document.querySelector('.filters-collapse')).display;
return out;
"""


def measure(dash_duo) -> dict:
    return dash_duo.driver.execute_script(MEASURE, CHART)


def settle(dash_duo, path: str) -> dict:
    """Open ``path`` and wait until the first chart has been fitted (its size stops changing)."""
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{path}")
    dash_duo.wait_for_element(CHART, timeout=20)
    last = {}

    def steady():
        nonlocal last
        now = measure(dash_duo)
        same = now == last
        last = now
        return same and not now["overlaps"]

    until(steady, timeout=20, poll=0.7)
    return last


@pytest.mark.parametrize("path", ["/", "/trends", "/compare", "/rank"])
def test_phone_first_chart_in_first_screen_no_sideways_scroll(dash_duo, dash_app, path,
                                                               tmp_path):
    dash_duo.driver.set_window_size(*PHONE)
    dash_duo.start_server(dash_app)
    got = settle(dash_duo, path)
    assert got["filtersShown"] == "none"  # folded behind the toggle
    assert got["scrollWidth"] == got["clientWidth"] and got["innerWidth"] == PHONE[0]
    top, bottom = got["chart"]
    assert 0 < top and bottom <= got["innerHeight"], got
    assert all(size >= 9 for size in got["text"]), got["text"]
    assert got["overlaps"] == []
    screenshot(dash_duo.driver, f"phone{path.replace('/', '-') or '-browse'}", tmp_path)
    # the toggle opens the controls
    dash_duo.find_element(".filters-toggle").click()
    until(lambda: measure(dash_duo)["filtersShown"] == "block", timeout=5)
    assert dash_duo.find_element(".filters-toggle").get_attribute("aria-expanded") == "true"
    opened = measure(dash_duo)
    assert opened["scrollWidth"] == opened["clientWidth"]
    assert dash_duo.get_logs() == []


def text_split(dash_duo, graph_id: dict) -> list[np.ndarray]:
    """The z of the black and the white text traces as the browser holds them."""
    grids = dash_duo.driver.execute_script("""
        const gd = document.getElementById(arguments[0]).querySelector('.js-plotly-plot');
        return gd.data.filter(t => t.meta && t.meta.role === 'text').map(t =>
          Array.from(window.evalmapsLib.typed.decode(t.z)).map(r => Array.from(r)));
    """, json.dumps(graph_id, separators=(",", ":"), sort_keys=True))
    return [np.array([[np.nan if v is None else v for v in row] for row in g]) for g in grids]


def test_text_colours_in_the_browser_follow_the_python_rule(dash_duo, dash_app, catalog):
    """Desktop width: values printed at 9 px or more; after picking 'as in the paper' and
    'Fixed 0-100' the browser's black/white split is evalmaps.figures.heatmap's for that state, and
    the URL keeps the scale. At phone width the same map prints no values (cells too narrow)."""
    fid = "core-generalization"
    dash_duo.driver.set_window_size(1400, 1000)
    dash_duo.start_server(dash_app)
    got = settle(dash_duo, f"/?figure={fid}")
    assert len(got["text"]) == 81 and min(got["text"]) >= 9  # every reported cell
    for css in ("#browse-scale input[value='paper']", "#browse-color input[value='fixed']"):
        dash_duo.driver.execute_script("document.querySelector(arguments[0]).click()", css)
    until(lambda: "scale=paper" in dash_duo.driver.current_url
          and "color=fixed" in dash_duo.driver.current_url, timeout=10)
    figure = catalog.figure(fid)
    views, _ = views_for(figure, ViewState(fid))
    view = views[0]
    graph = {"panel": view.panel.slug, "type": "browse-heatmap"}
    dark, light = text_split(dash_duo, graph)
    expected = dark_text(view.z, [list(s) for s in figure.spec.colorscale],
                         color_range(figure.spec, views, "fixed"))
    np.testing.assert_array_equal(np.isfinite(dark), expected)
    np.testing.assert_array_equal(np.isfinite(light), np.isfinite(view.z) & ~expected)
    np.testing.assert_array_equal(np.fmax(dark, light)[np.isfinite(view.z)],
                                  view.z[np.isfinite(view.z)].astype(np.float32))
    # the server draws the same state the same way
    ranges = {m: color_range(figure.spec, views, m) for m in COLOR_MODES}
    served = heatmap_figure(view, ranges["fixed"], ranges=ranges, scale="paper", color="fixed")
    assert served["data"][0]["colorscale"] == [list(s) for s in figure.spec.colorscale]
    dash_duo.driver.set_window_size(*PHONE)
    until(lambda: measure(dash_duo)["text"] == [], timeout=10)
    assert dash_duo.get_logs() == []
