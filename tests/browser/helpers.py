"""Browser test helpers: real mouse hovers over heatmap cells, dropdown picks, screenshots."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import urlparse

from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}


def graph_selector(page: str, panel_key: str) -> str:
    """CSS selector of a heatmap graph: pattern-matching ids are JSON in the DOM."""
    dom_id = json.dumps({"panel": panel_key, "type": f"{page}-heatmap"}, separators=(",", ":"))
    return f'[id={json.dumps(dom_id)}]'


def cell_center(driver, graph_css: str, x_label: str, y_label: str) -> tuple[float, float]:
    """Viewport pixel of a heatmap cell's centre, from Plotly's own axis maps."""
    return tuple(driver.execute_script(
        """
        const gd = document.querySelector(arguments[0]).querySelector('.js-plotly-plot');
        const fl = gd._fullLayout, xa = fl.xaxis, ya = fl.yaxis;
        const box = gd.getBoundingClientRect();
        // category index, then pixel: d2p would read numeric labels ('2000') as positions
        const i = xa._categories.indexOf(arguments[1]), j = ya._categories.indexOf(arguments[2]);
        if (i < 0 || j < 0) { throw new Error('no such cell: ' + arguments[1] + ', ' + arguments[2]); }
        return [box.left + xa._offset + xa.l2p(i), box.top + ya._offset + ya.l2p(j)];
        """, graph_css, x_label, y_label))


def hover_cell(dash_duo, graph_css: str, x_label: str, y_label: str, timeout: float = 5) -> str:
    """Move the real mouse over a cell and return the hover label's text. The map may be redrawn
    just after it appears (its cell text is fitted to the drawn size), which clears a hover
    label: the pointer then leaves and comes back, until ``timeout``."""
    import time

    driver = dash_duo.driver
    deadline = time.monotonic() + timeout
    label = f"{graph_css} .hoverlayer .hovertext"
    while True:
        try:
            plot = driver.find_element(By.CSS_SELECTOR, f"{graph_css} .nsewdrag")
            # 'instant': Bootstrap turns on smooth scrolling, which would move the cell under
            # the pointer
            driver.execute_script(
                "arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});", plot)
            x, y = cell_center(driver, graph_css, x_label, y_label)
            height = driver.execute_script("return window.innerHeight;")
            if not 0 <= y < height:  # a map taller than the window: the cell itself to the middle
                driver.execute_script("window.scrollBy({top: arguments[0], behavior: 'instant'});",
                                      y - height / 2)
                x, y = cell_center(driver, graph_css, x_label, y_label)
            actions = ActionBuilder(driver)
            actions.pointer_action.move_to_location(1, 1)  # away, then onto the cell
            actions.pointer_action.move_to_location(round(x), round(y))
            actions.perform()
            dash_duo.wait_for_element(label, timeout=min(1.5, max(0.1, deadline - time.monotonic())))
            return driver.find_element(By.CSS_SELECTOR, label).text
        except Exception:  # noqa: BLE001 - redrawn under us, or no label yet: again, in time
            if time.monotonic() > deadline:
                raise


def axis_ticks(driver, graph_css: str, axis: str) -> list[str]:
    """Tick labels of an axis ('x' or 'y') in screen order: left to right, top to bottom."""
    return driver.execute_script(
        """
        const graph = document.querySelector(arguments[0]);
        if (!graph) { return null; }  // not rendered (yet)
        const ticks = Array.from(graph.querySelectorAll('.' + arguments[1] + 'tick text'));
        const pos = t => { const r = t.getBoundingClientRect();
                           return arguments[1] === 'x' ? r.left : r.top; };
        return ticks.sort((a, b) => pos(a) - pos(b)).map(t => t.textContent);
        """, graph_css, axis)


def texts(driver, css: str) -> list[str]:
    """The visible text of every element matching `css`, read in one script.

    Reading `.text` element by element races React: a menu that re-renders between the lookup
    and the read leaves a stale element (a CI failure on the Figure menu's search)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]))"
        ".map(e => e.innerText.trim());", css)


def pick_option(dash_duo, dropdown_css: str, option_text: str) -> None:
    """Open a Dash 4 dropdown and click the option with this exact text."""
    close_dropdowns(dash_duo)
    menu = dash_duo.find_element(dropdown_css)
    # the menu in the middle of the window, so that its list opens in view
    dash_duo.driver.execute_script(
        "arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});", menu)
    menu.click()
    dash_duo.wait_for_element(".dash-dropdown-option")
    if _click_option(dash_duo, option_text):
        return
    # a long menu renders only the options in view: search for it, as a user would
    search = dash_duo.driver.find_elements(By.CSS_SELECTOR, ".dash-dropdown-search")
    if search:
        search[0].send_keys(option_text)
        until(lambda: _click_option(dash_duo, option_text), timeout=5)
        return
    raise AssertionError(f"no option {option_text!r} in {dropdown_css}")


def _click_option(dash_duo, option_text: str) -> bool:
    for option in dash_duo.driver.find_elements(By.CSS_SELECTOR, ".dash-dropdown-option"):
        if option.text.strip() == option_text:
            # the menu scrolls (the search box stays on top of it): bring the option into view
            dash_duo.driver.execute_script(
                "arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});", option)
            option.click()
            return True
    return False


def close_dropdowns(dash_duo) -> None:
    """Close any open dropdown (Escape), so the next click opens the intended one."""
    if dash_duo.driver.find_elements(By.CSS_SELECTOR, ".dash-dropdown-option"):
        ActionChains(dash_duo.driver).send_keys(Keys.ESCAPE).perform()
        until(lambda: not dash_duo.driver.find_elements(By.CSS_SELECTOR, ".dash-dropdown-option"),
              timeout=3)


def non_local_requests(driver) -> list[str]:
    """Every resource the page loaded from a host that is not this machine."""
    urls = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
        ".concat([location.href]);")
    return [u for u in urls if urlparse(u).scheme in ("http", "https", "ws", "wss")
            and urlparse(u).hostname not in LOCAL_HOSTS]


def screenshot(driver, name: str, tmp_path: Path) -> Path:
    """Save a screenshot; EVALMAPS_SCREENSHOTS=dir keeps them (the README's and docs/using.md's
    come from here)."""
    folder = Path(os.environ.get("EVALMAPS_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def download_to(driver, folder: Path) -> None:
    """Let the headless browser save downloads into ``folder`` (Chrome DevTools)."""
    folder.mkdir(parents=True, exist_ok=True)
    driver.execute_cdp_cmd("Page.setDownloadBehavior",
                           {"behavior": "allow", "downloadPath": str(folder)})


def downloaded(folder: Path, name: str, timeout: float = 10) -> str:
    """The text of a finished download ``name`` in ``folder`` (waits, bounded)."""
    path = folder / name
    until(lambda: path.is_file() and not (folder / f"{name}.crdownload").exists(), timeout=timeout)
    return path.read_text(encoding="utf-8")


def fetch_text(base_url: str, path: str) -> str:
    """GET a path of the test server (127.0.0.1 only) and return its body as text."""
    import urllib.request

    assert urlparse(base_url).hostname in LOCAL_HOSTS
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(base_url + path, timeout=10) as response:
        return response.read().decode("utf-8")


# Each drawn chart whose colour bar needs more room than the figure's right margin gives:
# plotly.js then widens the margin and draws the whole chart a second time
# (evalmaps.figures.heatmap.place_bar). [graph id, margin given, margin drawn, the bar's need]
# (a colour bar's push is plotly.js's ``_pushmargin`` entry "cb<uid>"; a legend's is not one).
WIDENED = """
return Array.from(document.querySelectorAll('.js-plotly-plot')).map(function (gd) {
  var fl = gd._fullLayout;
  if (!fl || !fl._size || !fl.margin) { return null; }
  var need = 0, pushed = fl._pushmargin || {};
  Object.keys(pushed).forEach(function (k) {
    var r = pushed[k].r;
    if (k.slice(0, 2) === 'cb' && r) { need = Math.max(need, r.size + (r.val - 1) * fl._size.w); }
  });
  return [gd.id || (gd.parentNode && gd.parentNode.id) || '?', fl.margin.r, fl._size.r,
          Math.round(need * 10) / 10];
}).filter(function (g) { return g && g[3] > g[1] + 0.01; });
"""


def widened_margins(driver) -> list:
    """The page's charts drawn twice because a colour bar widened their margin (none, when every
    figure gives its bar its room)."""
    return driver.execute_script(WIDENED)
