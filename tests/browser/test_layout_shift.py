"""No layout shift (issue 10): every page keeps its shape while it loads, at desktop and phone
widths. Cumulative layout shift (CLS: the sum of the browser's layout-shift entries not caused
by input, read with a buffered PerformanceObserver from the page's load until it has settled) is
under 0.1, the bound web vitals call good, on each page loaded afresh in a real headless
Chromium against a real gunicorn.

What used to move: menus, sliders, graphs and the file drop appearing (dcc renders them through
React.lazy) and pushing the page down; graphs growing from nothing to their figure's height;
Trends' cards filled after the first paint; a scrollbar appearing mid-load.
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest
from dash.testing.wait import until

from tests.browser.helpers import screenshot, widened_margins
from tests.servers import start_app_gunicorn, stop_gunicorn, wait_until_serving

pytestmark = [pytest.mark.browser, pytest.mark.server]

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
PAGES = ["/", "/trends", "/compare", "/data", "/?figure=pythia-zero-shot"]
GOOD = 0.1  # web vitals: a CLS up to 0.1 is good
SIZES = {"desktop": (1400, 1000), "phone": (390, 844)}

# The shifts since the page's load (buffered), as the browser reports them; each with its first
# sources (element, rect before and after: y, height, width) for the failure message.
SHIFTS = """
const done = arguments[arguments.length - 1];
const shifts = [];
new PerformanceObserver(list => {
  for (const e of list.getEntries()) {
    if (e.hadRecentInput) { continue; }
    shifts.push({value: e.value, at: Math.round(e.startTime), sources: (e.sources || []).slice(0, 3)
      .map(s => [s.node ? (s.node.id || String(s.node.className).slice(0, 40) || s.node.nodeName)
                        : '?',
                 [s.previousRect.y, s.previousRect.height, s.previousRect.width].map(Math.round),
                 [s.currentRect.y, s.currentRect.height, s.currentRect.width].map(Math.round)])});
  }
}).observe({type: 'layout-shift', buffered: true});
setTimeout(() => done(shifts), 200);
"""

# What has to be on screen before a page counts as loaded: its graphs drawn, its grid filled.
DRAWN = {"/data": "#data-grid .ag-row"}
SHAPE = """
const ready = document.querySelector(arguments[0]);
const boxes = Array.from(document.querySelectorAll('#_pages_content *')).slice(0, 400)
  .map(e => { const r = e.getBoundingClientRect(); return [r.top, r.height, r.width].map(Math.round); });
return ready ? JSON.stringify([document.documentElement.scrollHeight, boxes]) : null;
"""


def get_json(base: str, path: str) -> dict:
    with OPENER.open(base + path, timeout=5) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """gunicorn (one worker) serving the built-in figures, with an upload store."""
    tmp = tmp_path_factory.mktemp("layout-shift")
    log = tmp / "gunicorn.log"
    proc, base = start_app_gunicorn({"EVALMAPS_CACHE": "off",
                                     "EVALMAPS_STORE": str(tmp / "store")}, log)
    workers: list[int] = []
    try:
        workers = wait_until_serving(proc, lambda: get_json(base, "/healthz")["status"] == "ok",
                                     lambda: log.read_text(errors="replace")[-4000:], 30, 1)
        yield base
    finally:
        assert stop_gunicorn(proc, workers, 10) == []


def settle(driver, path: str) -> None:
    """Wait until the page is drawn and its boxes stopped moving (two equal looks in a row)."""
    ready = DRAWN.get(path.split("?")[0], "#_pages_content .main-svg")
    last = [None]

    def steady():
        now = driver.execute_script(SHAPE, ready)
        same = now is not None and now == last[0]
        last[0] = now
        return same

    until(steady, timeout=30, poll=0.6)


@pytest.mark.parametrize("size", list(SIZES))
def test_no_layout_shift_on_any_page(server, dash_duo, size, tmp_path):
    driver = dash_duo.driver
    driver.set_window_size(*SIZES[size])
    cls, details, widened = {}, {}, {}
    for path in PAGES:
        driver.get(server + path)
        settle(driver, path)
        # and every map drawn once: no colour bar widened its margin (a second drawing)
        widened[path] = widened_margins(driver)
        shifts = driver.execute_async_script(SHIFTS)
        cls[path] = round(sum(s["value"] for s in shifts), 3)
        details[path] = shifts
        page, _, figure = path.partition("?figure=")
        name = "-".join(filter(None, [page.strip("/") or "browse", figure]))
        screenshot(driver, f"cls-{size}-{name}", Path(os.environ.get("EVALMAPS_SCREENSHOTS")
                                                      or tmp_path))
    over = {path: value for path, value in cls.items() if value >= GOOD}
    assert over == {}, json.dumps({"cls": cls, "shifts": {p: details[p] for p in over}}, indent=1)
    assert {path: found for path, found in widened.items() if found} == {}
    assert dash_duo.get_logs() == []
