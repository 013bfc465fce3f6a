"""The first page of a visit comes in the app's first layout (layouts/_first_page.py), in a real
headless Chromium: its maps are drawn with no callback round trip at all, the nav links carry the
slice from the start, and a browser that keeps uploads of its own gets its page through Dash
Pages' routing callback, with those uploads in the Figure menu."""

from __future__ import annotations

import time

import pytest
from dash.testing.wait import until

from tests.browser.helpers import pick_option

pytestmark = pytest.mark.browser

CALLBACKS = ("return performance.getEntriesByType('resource')"
             ".filter(r => r.name.indexOf('_dash-update-component') >= 0).length;")
PAGES = [  # URL, what is drawn, the nav links' hrefs
    ("/?figure=dynts-r1-llama-benchmarks&labels=off&xmin=0.2",
     ".heatmap-graph .main-svg",
     {"nav-browse": "/?figure=dynts-r1-llama-benchmarks&labels=off&xmin=0.2",
      "nav-trends": "/trends?figure=dynts-r1-llama-benchmarks&xmin=0.2",
      "nav-compare": "/compare?labels=off",  # the values switch is shared with Compare
      "nav-rank": "/rank?figure=dynts-r1-llama-benchmarks",  # a figure Rank can rank
      "nav-data": "/data?figure=dynts-r1-llama-benchmarks&xmin=0.2"}),
    ("/trends?figure=short-to-long&overlay=1",
     ".trends-graph .main-svg",
     {"nav-browse": "/?figure=short-to-long", "nav-trends": "/trends?figure=short-to-long&overlay=1",
      "nav-compare": "/compare", "nav-rank": "/rank?figure=short-to-long",
      "nav-data": "/data?figure=short-to-long"}),
    ("/compare?color=fixed",
     ".compare-map .main-svg",
     {"nav-browse": "/?color=fixed", "nav-trends": "/trends",  # the colour range is shared
      "nav-compare": "/compare?color=fixed", "nav-rank": "/rank", "nav-data": "/data"}),
    ("/rank?figure=mmlu-pro&by=category",
     ".heatmap-graph .main-svg",
     {"nav-browse": "/?figure=mmlu-pro", "nav-trends": "/trends?figure=mmlu-pro",
      "nav-compare": "/compare", "nav-rank": "/rank?figure=mmlu-pro&by=category",
      "nav-data": "/data?figure=mmlu-pro"}),
]


# Counts the calls of the nav links' callbacks, and of every clientside callback with what
# triggered it (set before the page's scripts run; each namespace's functions wrapped once the
# page's scripts have defined them)
COUNT_NAV_CALLS = """
window.__navCalls = [];
window.__clientside = [];
document.addEventListener('DOMContentLoaded', function () {
  Object.keys(window.dash_clientside).forEach(function (space) {
    var ns = window.dash_clientside[space];
    if (!ns || typeof ns !== 'object') { return; }
    Object.keys(ns).forEach(function (name) {
      var f = ns[name];
      if (typeof f !== 'function') { return; }
      ns[name] = function () {
        var trig = (window.dash_clientside.callback_context || {}).triggered || [];
        if (space === 'evalmaps_nav') { window.__navCalls.push(name); }
        window.__clientside.push([name, trig.map(function (t) { return t.prop_id; })]);
        return f.apply(this, arguments);
      };
    });
  });
});
"""


def count_nav_calls(driver) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": COUNT_NAV_CALLS})


def nav_state(driver) -> dict:
    return driver.execute_script(
        "const out = {}; document.querySelectorAll('a.evalmaps-nav').forEach(a => {"
        " out[a.id] = [a.getAttribute('href'), a.className]; });"
        " return {links: out, title: document.title, calls: window.__navCalls};")


def nav_hrefs(driver) -> dict:
    return driver.execute_script(
        "const out = {}; document.querySelectorAll('a.evalmaps-nav').forEach(a => {"
        " out[a.id] = a.getAttribute('href'); }); return out;")


TITLES = {"/": "evalmaps · Browse", "/trends": "evalmaps · Trends",
          "/compare": "evalmaps · Compare", "/rank": "evalmaps · Rank", "/data": "evalmaps · Data"}


@pytest.mark.parametrize("url, drawn, links", PAGES)
def test_the_first_page_is_drawn_with_no_callback(dash_duo, dash_app, url, drawn, links):
    """Drawn with no round trip, and with no clientside callback either: the nav links come with
    the page's slice and its active mark, and the HTML has the page's title."""
    dash_duo.start_server(dash_app)
    count_nav_calls(dash_duo.driver)
    dash_duo.driver.get(dash_duo.server_url + url)  # a new document: its first layout
    dash_duo.wait_for_element(drawn, timeout=20)
    path = url.split("?")[0]
    assert nav_state(dash_duo.driver) == {
        "links": {k: [v, "evalmaps-nav active" if v.split("?")[0] == path else "evalmaps-nav"]
                  for k, v in links.items()},
        "title": TITLES[path], "calls": []}
    time.sleep(1)  # anything that would still fire after the first paint has by now
    assert nav_state(dash_duo.driver)["calls"] == []
    # nor any other clientside callback (a memory store that mounted with None data started one
    # on every Compare page: tests/integration/test_first_page.py), but Compare's linked hover
    # on its maps' relayouts as they are drawn (it re-places a hovered cell's outlines)
    calls = dash_duo.driver.execute_script("return window.__clientside;")
    assert [c for c in calls if not (c[0] == "compareHover" and all(
        t.endswith(".relayoutData") for t in c[1]))] == []
    # the layout and the callbacks were asked for once, early (assets/nav.js's preloads), and
    # Dash's own requests took those answers
    assert dash_duo.driver.execute_script(
        "return performance.getEntriesByType('resource').filter(r => /_dash-(layout|dependencies)"
        "$/.test(r.name)).map(r => [r.name.split('/').pop(), r.initiatorType]).sort();") == [
        ["_dash-dependencies", "link"], ["_dash-layout", "link"]]
    assert nav_hrefs(dash_duo.driver) == links
    assert dash_duo.driver.execute_script(CALLBACKS) == 0
    assert dash_duo.driver.current_url == dash_duo.server_url + url
    assert dash_duo.get_logs() == []


def test_a_browser_with_uploads_gets_them_in_the_figure_menu(dash_duo, dash_app):
    import dash

    store = dash.get_app().server.extensions["evalmaps"]["store"]
    fid = store.put({"file": "mine.csv", "title": "My sweep",
                     "metric": {"name": "Accuracy", "unit": "%", "range": [0, 100]},
                     "x": "ratio", "y": "window", "facets": [], "provenance": "uploaded",
                     "dims": {"window": {"title": "Window", "labels": ["1", "2"]},
                              "ratio": {"title": "Ratio", "labels": ["0.1", "0.2"]}}},
                    "window,ratio,value\n1,0.1,50.0\n1,0.2,51.0\n2,0.1,52.0\n2,0.2,53.0\n",
                    "mine.csv")
    dash_duo.start_server(dash_app)
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    dash_duo.driver.execute_script(
        "localStorage.setItem('uploads', JSON.stringify([arguments[0]]));", fid)
    dash_duo.driver.get(dash_duo.server_url + "/?figure=short-to-long")
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    assert "evalmaps-uploads=1" in dash_duo.driver.execute_script("return document.cookie;")
    # Dash Pages rendered it (the routing callback), with this browser's upload in the menu
    assert dash_duo.driver.execute_script(CALLBACKS) >= 1
    pick_option(dash_duo, "#browse-figure", "My sweep")
    until(lambda: f"figure={fid}" in dash_duo.driver.current_url, timeout=10)
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    # with no uploads kept, the flag is gone and the next page comes with the layout again
    dash_duo.driver.execute_script("localStorage.setItem('uploads', '[]');")
    dash_duo.driver.get(dash_duo.server_url + "/?figure=short-to-long")
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    assert "evalmaps-uploads" not in dash_duo.driver.execute_script("return document.cookie;")
    time.sleep(1)
    assert dash_duo.driver.execute_script(CALLBACKS) == 0
    assert dash_duo.get_logs() == []


def test_the_nav_follows_the_page_after_the_first(dash_duo, dash_app):
    """After the first page the nav callbacks write the links, the active mark and the title:
    on a slice change, on a page Dash Pages renders, and back in history."""
    dash_duo.start_server(dash_app)
    count_nav_calls(dash_duo.driver)
    base, query = dash_duo.server_url, "?figure=short-to-long&color=fixed"
    dash_duo.driver.get(base + "/" + query)
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    dash_duo.find_element("#nav-trends").click()
    dash_duo.wait_for_element(".trends-graph .main-svg", timeout=20)
    want = {"nav-browse": ["/?figure=short-to-long", "evalmaps-nav"],  # no Browse key on Trends
            "nav-trends": ["/trends?figure=short-to-long", "evalmaps-nav active"],
            "nav-compare": ["/compare", "evalmaps-nav"],
            "nav-rank": ["/rank?figure=short-to-long", "evalmaps-nav"],
            "nav-data": ["/data?figure=short-to-long", "evalmaps-nav"]}
    until(lambda: nav_state(dash_duo.driver)["links"] == want, timeout=10)
    assert nav_state(dash_duo.driver)["title"] == "evalmaps · Trends"
    assert sorted(set(nav_state(dash_duo.driver)["calls"])) == ["active", "navLinks"]
    dash_duo.driver.back()
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    until(lambda: nav_state(dash_duo.driver)["title"] == "evalmaps · Browse", timeout=10)
    assert nav_state(dash_duo.driver)["links"] == {
        "nav-browse": ["/" + query, "evalmaps-nav active"],
        "nav-trends": ["/trends?figure=short-to-long", "evalmaps-nav"],
        "nav-compare": ["/compare?color=fixed", "evalmaps-nav"],
        "nav-rank": ["/rank?figure=short-to-long", "evalmaps-nav"],
        "nav-data": ["/data?figure=short-to-long", "evalmaps-nav"]}
    assert dash_duo.get_logs() == []


SEARCHES = ["", "?", "figure=x", "?figure=short-to-long&model=R1+Llama&rows=a%26b&rows=&rows",
            "?figure=mmlu-pro&by=category&model=Llama-2-7B",
            "?k=%7E*-._%20%C3%A9%2F:&labels=off&a=x%3Ay&b=&color=fixed&overlay=1&format=csv",
            "?a=1&&transpose=1&threshold=80&%E2%9C%93=%F0%9F%99%82&sort=col:0.2"]


def test_the_browser_writes_nav_links_as_the_server_does(dash_duo, dash_app):
    """evalmaps_nav.navLinks (the browser, after the first page) and evalmaps.views.state.nav_href (the
    server, the first page) give the same links from the same rules."""
    from evalmaps.views.state import nav_href, rankable
    from layouts._shared import NAV_PAGES

    dash_duo.start_server(dash_app)
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    browser = dash_duo.driver.execute_script(
        "return arguments[0].map(s => window.dash_clientside.evalmaps_nav.navLinks(s));", SEARCHES)
    ids = rankable(dash_app.server.extensions["evalmaps"]["catalog"])
    assert browser == [[nav_href(path, search, ids) for _, path in NAV_PAGES]
                       for search in SEARCHES]
    assert "/rank?figure=mmlu-pro&by=category" in browser[SEARCHES.index(
        "?figure=mmlu-pro&by=category&model=Llama-2-7B")]


def test_ranks_nav_link_opens_rank_on_the_pages_figure(dash_duo, dash_app, tmp_path):
    """Rank's nav link carries the page's figure (when Rank can rank it) with the page's
    standard errors: from a clustered Browse page on a figure that is not Rank's default,
    Rank opens on that figure, clustered; from Compare, which names no figure, on its own
    default (the first figure with per-item records, MMLU-Pro)."""
    from tests.items_fixture import clustered_by_src, item_scores, items_figure, serving

    scores = clustered_by_src(item_scores(n_items=40, seed=11,
                                          chance={"small": 0.45, "large": 0.75}))
    with serving(dash_app, [items_figure(tmp_path / "items", "toy-items", scores)]):
        dash_duo.start_server(dash_app)
        dash_duo.driver.get(dash_duo.server_url + "/?figure=toy-items&cluster=src")
        dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
        dash_duo.find_element("#nav-rank").click()
        until(lambda: "/rank" in dash_duo.driver.current_url, timeout=10)
        until(lambda: "toy-items" in dash_duo.find_element("#rank-title").text, timeout=20)
        assert dash_duo.driver.current_url.endswith("/rank?figure=toy-items&cluster=src")
        dash_duo.driver.get(dash_duo.server_url + "/compare")
        dash_duo.wait_for_element(".compare-map .main-svg", timeout=20)
        dash_duo.find_element("#nav-rank").click()
        until(lambda: "/rank" in dash_duo.driver.current_url, timeout=10)
        until(lambda: "MMLU-Pro" in dash_duo.find_element("#rank-title").text, timeout=20)
        assert dash_duo.driver.current_url.endswith("/rank")
        assert dash_duo.get_logs() == []
    dash_duo.driver.get(dash_duo.server_url + "/compare")
    dash_duo.wait_for_element(".compare-map .main-svg", timeout=20)
    dash_duo.find_element("#nav-rank").click()
    until(lambda: "/rank" in dash_duo.driver.current_url, timeout=10)
    dash_duo.wait_for_element("#rank-title", timeout=20)



GRID_SCRIPTS = ("return performance.getEntriesByType('resource')"
                ".filter(r => r.name.indexOf('/_dash-component-suites/dash_ag_grid/') >= 0)"
                ".map(r => [r.name.split('/').pop().split('.')[0], r.initiatorType]);")
BUNDLED = ("return Array.from(document.scripts).filter(s => s.src.indexOf('/vendor/scripts/dash_renderer.')"
           " >= 0).length;")
GRID_ROWS = ("return Array.from(document.querySelectorAll('.cells-grid .ag-center-cols-container"
             " .ag-row')).sort((a, b) => a.getAttribute('row-index') - b.getAttribute('row-index'))"
             ".map(r => Array.from(r.querySelectorAll('.ag-cell')).map(c => c.innerText));")


def test_ag_grids_code_loads_when_a_grid_first_renders(dash_duo, dash_app):
    """Compare shows no grid: AG Grid's bundle is neither fetched nor run there. A link to Data
    renders one: the bundle loads then, once, and the grid shows exactly what the same page
    shows when it is the first page (AG Grid's code in the page's scripts), with no error."""
    dash_duo.start_server(dash_app)
    dash_duo.driver.get(dash_duo.server_url + "/compare")
    dash_duo.wait_for_element(".compare-map .main-svg", timeout=20)
    time.sleep(0.5)
    assert dash_duo.driver.execute_script(GRID_SCRIPTS) == []
    assert dash_duo.driver.execute_script(
        "return [Object.keys(window.dash_ag_grid), Object.keys(window.dash_ag_grid.AgGrid)];"
    ) == [["AgGrid"], ["dashRenderType"]]  # the stand-in, before the bundle
    dash_duo.find_element("#nav-data").click()
    until(lambda: len(dash_duo.driver.execute_script(GRID_ROWS)) >= 5, timeout=20)
    time.sleep(0.5)
    lazily = dash_duo.driver.execute_script(GRID_ROWS)
    loaded = dash_duo.driver.execute_script(GRID_SCRIPTS)
    assert loaded[0] == ["dash_ag_grid", "script"] and loaded.count(loaded[0]) == 1
    # the stand-in took the real grid's statics; the bundle's chunk added its hook
    assert dash_duo.driver.execute_script(
        "return [Object.keys(window.dash_ag_grid).sort(),"
        " Object.keys(window.dash_ag_grid.AgGrid).sort(),"
        " window.dash_ag_grid.AgGrid.dashPersistence.persisted_props];") == [
        ["AgGrid", "getApi", "getApiAsync", "useGridFilter"],
        ["dashPersistence", "dashRenderType", "propTypes"], ["selectedRows"]]
    url = dash_duo.driver.current_url
    assert "/data" in url
    dash_duo.driver.get(url)  # the same page, first: the bundle comes with it
    until(lambda: len(dash_duo.driver.execute_script(GRID_ROWS)) >= 5, timeout=20)
    time.sleep(0.5)
    # AG Grid's code comes in the page's one bundle (layouts._routes.bundle_scripts), and its lazy chunk
    # from AG Grid's own folder still, as when its file loads on its own
    assert dash_duo.driver.execute_script(GRID_SCRIPTS) == [["async-community", "script"]]
    assert dash_duo.driver.execute_script(BUNDLED) == 1
    assert dash_duo.driver.execute_script(GRID_ROWS) == lazily
    assert lazily[0][-1] != ""  # a value, formatted
    assert dash_duo.get_logs() == []
