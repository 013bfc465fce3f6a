"""Headless Chromium (selenium 4.2.0, the system chromium + chromedriver): paint time and
transfer sizes.

"Painted": a script injected before any of the page's own scripts (CDP
Page.addScriptToEvaluateOnNewDocument) polls every 5 ms until the expected number of Plotly graphs
hold a drawn heatmap (``_fullData[0].type == 'heatmap'``, no pending Plotly promise, and a
``.heatmaplayer image`` with its pixels set). It then waits for the next frame
(requestAnimationFrame, then a task) and records ``performance.now()``: milliseconds since the
navigation started (``performance.timeOrigin``). The same script measures the app and the static
floor page.
"""

from __future__ import annotations

import shutil
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
         "--disable-default-apps", "--window-size=1400,1000")

PAINT_PROBE = """
(function () {
  if (window.top !== window) { return; }
  try { performance.setResourceTimingBufferSize(100000); } catch (e) {}
  var expected = %d;
  window.__bench = {painted: null, drawn: 0, graphs: 0};
  function drawn(gd) {
    var fd = gd._fullData;
    if (!fd || !fd.length || fd[0].type !== 'heatmap') { return false; }
    if (gd._promises && gd._promises.length) { return false; }
    var img = gd.querySelector('.heatmaplayer image');
    if (!img) { return false; }
    var href = img.getAttribute('href') || img.getAttribute('xlink:href');
    return !!href && href.length > 0;
  }
  function poll() {
    var graphs = document.querySelectorAll('.js-plotly-plot');
    var n = 0;
    for (var i = 0; i < graphs.length; i++) { if (drawn(graphs[i])) { n++; } }
    window.__bench.drawn = n;
    window.__bench.graphs = graphs.length;
    if (n >= expected) {
      requestAnimationFrame(function () {
        setTimeout(function () { window.__bench.painted = performance.now(); }, 0);
      });
      return;
    }
    setTimeout(poll, 5);
  }
  poll();
})();
"""


class Browser:
    """One Chromium with a fresh profile (a temporary user-data-dir, removed on close)."""

    def __init__(self, page_load_timeout: float = 240.0):
        self.profile = tempfile.mkdtemp(prefix="evalmaps-bench-chromium-")
        options = Options()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={self.profile}")
        service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(page_load_timeout)
        self.driver.set_script_timeout(60)
        self._probe: str | None = None

    def version(self) -> str:
        caps = self.driver.capabilities
        return f"{caps.get('browserName', 'chromium')} {caps.get('browserVersion', '?')}"

    def arm(self, expected: int) -> None:
        """Inject the paint probe (expecting ``expected`` heatmaps) into the next documents."""
        if self._probe is not None:
            self.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                                        {"identifier": self._probe})
        self._probe = self.driver.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument", {"source": PAINT_PROBE % expected})["identifier"]

    def wait_painted(self, timeout: float) -> float:
        """Milliseconds from navigation start to painted; raises TimeoutError with what it saw."""
        deadline = time.monotonic() + timeout
        state = None
        while time.monotonic() < deadline:
            try:
                state = self.driver.execute_script("return window.__bench || null;")
            except TimeoutException:
                continue  # the page's main thread is busy (drawing): the probe's time stands
            if state and state.get("painted") is not None:
                return float(state["painted"])
            time.sleep(0.05)
        raise TimeoutError(f"not painted within {timeout:.0f} s (saw {state})")

    def paint(self, url: str, expected: int, timeout: float = 240.0) -> float:
        """Navigate to ``url`` (a new document) and return its paint time in ms."""
        self.arm(expected)
        self.driver.get("about:blank")
        self.driver.get(url)
        return self.wait_painted(timeout)

    def reload_painted(self, timeout: float) -> None:
        """``location.reload()`` (same session, HTTP cache honoured) and wait until the new
        document is painted."""
        origin = self.driver.execute_script("return performance.timeOrigin;")
        self.driver.execute_script("location.reload();")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                now, state = self.driver.execute_script(
                    "return [performance.timeOrigin, window.__bench || null];")
            except TimeoutException:
                continue
            if now != origin and state and state.get("painted") is not None:
                return
            time.sleep(0.05)
        raise TimeoutError(f"the reloaded page was not painted within {timeout:.0f} s")

    def graph_boxes(self) -> list[dict]:
        """Each painted graph's layout size and grid shape, in document order."""
        return self.driver.execute_script("""
            return Array.from(document.querySelectorAll('.js-plotly-plot')).map(function (gd) {
              var t = (gd._fullData || [])[0] || {};
              var z = t._z || t.z || [];
              return {width: gd._fullLayout.width, height: gd._fullLayout.height,
                      rows: z.length, cols: z.length ? z[0].length : 0};
            });""")

    def graph_figures(self) -> list[dict]:
        """Each painted graph's figure as drawn (its traces and layout, typed arrays as plain
        lists), in document order: what a static page hands ``Plotly.newPlot`` to draw the
        same maps."""
        return self.driver.execute_script("""
            function plain(key, value) {
              return ArrayBuffer.isView(value) ? Array.from(value) : value;
            }
            return Array.from(document.querySelectorAll('.js-plotly-plot')).map(function (gd) {
              return JSON.parse(JSON.stringify({data: gd.data, layout: gd.layout}, plain));
            });""")

    def transferred(self, idle_ms: float = 750, timeout: float = 60.0) -> dict:
        """Bytes over the wire of this document so far (navigation + every resource entry),
        once no new resource has appeared for ``idle_ms``."""
        deadline = time.monotonic() + timeout
        last_count, stable_since = -1, time.monotonic()
        while time.monotonic() < deadline:
            count = self.driver.execute_script(
                "return performance.getEntriesByType('resource').length;")
            if count != last_count:
                last_count, stable_since = count, time.monotonic()
            elif (time.monotonic() - stable_since) * 1000 >= idle_ms:
                break
            time.sleep(0.1)
        return self.driver.execute_script("""
            var nav = performance.getEntriesByType('navigation')[0];
            var res = performance.getEntriesByType('resource');
            var total = nav ? nav.transferSize : 0, cached = 0, revalidated = 0;
            res.forEach(function (r) {
              total += r.transferSize;
              if (r.transferSize === 0) { cached++; }
              else if (r.encodedBodySize > 0 && r.transferSize < r.encodedBodySize) { revalidated++; }
            });
            return {bytes: total, navigation: nav ? nav.transferSize : 0, resources: res.length,
                    from_cache: cached, revalidated: revalidated};""")

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)
