"""The first page of a visit comes in the app's first layout (layouts/_first_page.py): exactly the
page Dash Pages' routing callback renders for the same URL, with the URL already in every
location; and Dash's empty container whenever the server cannot know the page exactly."""

from __future__ import annotations

import json
import re

import pytest

from layouts._first_page import ON_DEMAND
from tests.integration.dash_calls import callback_body, find
from tests.integration.test_script_bundle import parts

HOST = "http://localhost"  # the test client's host
URLS = [
    ("/", ""),
    ("/", "?figure=dynts-r1-llama-benchmarks&labels=off&color=fixed"),
    ("/trends", "?figure=short-to-long"),
    ("/compare", ""),
    ("/compare", "?a=dynts-r1-llama-benchmarks:r1-llama-aime24&b=nope:x"),
    ("/data", "?figure=acemath-training-progress&rows=1%2C2"),
]


def nodes(node, found=None) -> list[dict]:
    """Every dict of a serialised layout tree (its components and their props), in order."""
    found = [] if found is None else found
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            nodes(value, found)
    elif isinstance(node, list):
        for value in node:
            nodes(value, found)
    return found


def locations(node) -> list[dict]:
    """Every serialised dcc.Location in a tree."""
    return [n for n in nodes(node) if n.get("type") == "Location"]


def first_layout(client, referrer: str | None, cookie: str | None = None) -> dict:
    headers = {"Referer": referrer} if referrer else {}
    if cookie:
        client.set_cookie("evalmaps-uploads", cookie)
    response = client.get("/_dash-layout", headers=headers)
    assert response.status_code == 200
    # it depends on the page that asks: never reused for another
    assert response.headers["Cache-Control"] == "no-store"
    assert {"Referer", "Cookie"} <= set(response.vary)
    return response.get_json()


def routed(client, path: str, search: str) -> dict:
    """What the routing callback sends for this URL: the page's layout."""
    # Dash Pages' router (the page and its store), not the redraw of a watched figure's new
    # shape (layouts/_shared.py reshape), which writes the page alone
    body = callback_body(client, "_pages_content.children..._pages_store.data",
                         {"_pages_location.pathname": path, "_pages_location.search": search},
                         {"uploads.data": None},
                         changed=["_pages_location.pathname", "_pages_location.search"])
    response = client.post("/_dash-update-component", data=body, content_type="application/json")
    assert response.status_code == 200, response.get_data(True)[:300]
    return response.get_json()["response"]


@pytest.mark.parametrize("path, search", URLS)
def test_the_first_layout_holds_the_page_the_routing_callback_renders(client, path, search):
    layout = first_layout(client, HOST + path + search)
    router = routed(client, path, search)
    page = router["_pages_content"]["children"]
    for location in locations(page):  # the page's own locations hold the URL from the start
        assert location["props"]["refresh"] is False
        location["props"].update(pathname=path, search=search)
    assert locations(page), "each page keeps its URL in a location"
    assert find(layout, "_pages_content")["props"]["children"] == page
    assert find(layout, "_pages_location")["props"] == {
        "id": "_pages_location", "refresh": "callback-nav", "pathname": path, "search": search}
    assert find(layout, "_pages_store")["props"]["data"] == router["_pages_store"]["data"]


@pytest.mark.parametrize("referrer, cookie", [
    (None, None),  # no Referer: the page is not known
    ("http://elsewhere.example/?figure=short-to-long", None),  # another site's page
    (HOST + "/no-such-page", None),  # the 404 page comes from the routing callback
    (HOST + "/?figure=short-to-long", "1"),  # this browser keeps uploads: the menus list them
])
def test_otherwise_dash_pages_renders_the_page(client, referrer, cookie):
    layout = first_layout(client, referrer, cookie)
    assert find(layout, "_pages_content")["props"] == {
        "id": "_pages_content", "children": None, "disable_n_clicks": True}
    assert find(layout, "_pages_location")["props"] == {
        "id": "_pages_location", "refresh": "callback-nav"}


def test_the_layout_outside_a_layout_request_is_the_empty_container(dash_app):
    from app import callback_json

    with dash_app.server.test_request_context("/", headers={"Referer": HOST + "/trends"}):
        layout = json.loads(callback_json(dash_app.get_layout()))
    assert find(layout, "_pages_content")["props"]["children"] is None


NAV = ("nav-browse", "nav-trends", "nav-compare", "nav-data")


def navbar_links(layout) -> dict:
    return {link_id: (find(layout, link_id)["props"]["href"],
                      find(layout, link_id)["props"]["className"]) for link_id in NAV}


@pytest.mark.parametrize("referrer, cookie, expected", [
    (HOST + "/trends?figure=short-to-long&overlay=1&labels=off", None,
     {"nav-browse": ("/?figure=short-to-long&labels=off", "evalmaps-nav"),
      "nav-trends": ("/trends?figure=short-to-long&overlay=1", "evalmaps-nav active"),
      "nav-compare": ("/compare?labels=off", "evalmaps-nav"),
      "nav-data": ("/data?figure=short-to-long", "evalmaps-nav")}),
    # Dash Pages renders this browser's page; the navbar is the page's all the same
    (HOST + "/compare?a=x&color=fixed", "1",
     {"nav-browse": ("/?color=fixed", "evalmaps-nav"), "nav-trends": ("/trends", "evalmaps-nav"),
      "nav-compare": ("/compare?a=x&color=fixed", "evalmaps-nav active"),
      "nav-data": ("/data", "evalmaps-nav")}),
    (HOST + "/no-such-page?figure=x", None,  # no page of the nav: plain links
     {"nav-browse": ("/", "evalmaps-nav"), "nav-trends": ("/trends", "evalmaps-nav"),
      "nav-compare": ("/compare", "evalmaps-nav"), "nav-data": ("/data", "evalmaps-nav")}),
    (None, None,
     {"nav-browse": ("/", "evalmaps-nav"), "nav-trends": ("/trends", "evalmaps-nav"),
      "nav-compare": ("/compare", "evalmaps-nav"), "nav-data": ("/data", "evalmaps-nav")}),
])
def test_the_navbar_comes_with_the_pages_links(client, referrer, cookie, expected):
    from evalmaps.views.state import NAV_RULES

    layout = first_layout(client, referrer, cookie)
    assert navbar_links(layout) == expected
    navs = [n for n in _nodes(layout) if n.get("type") == "Nav"]  # the browser's navLinks
    assert [json.loads(n["props"]["data-nav"]) for n in navs] == [NAV_RULES]  # reads them


def _nodes(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)


def test_no_callback_of_the_navbar_or_title_fires_at_load(client):
    """The first page comes finished: the nav links' and Dash Pages' title callbacks wait for a
    change (a page Dash Pages renders still fires the nav links': its location is an input)."""
    client.get("/")  # Dash Pages registers its callbacks on the first request
    deps = client.get("/_dash-dependencies").get_json()
    title = [d for d in deps if d["output"] == "_pages_dummy.children"]
    assert len(title) == 1 and title[0]["prevent_initial_call"] is True
    assert title[0]["clientside_function"]["namespace"] == "_dashprivate_clientside_funcs"
    nav = [d for d in deps if "nav-browse.href" in d["output"] or "nav-browse.className" in d["output"]]
    assert len(nav) == 6  # the active mark, and the links of each of the five pages
    assert all(d["prevent_initial_call"] is True for d in nav)
    assert sorted(d["inputs"][0]["id"] for d in nav) == [
        "_pages_location", "browse-loc", "compare-loc", "data-loc", "rank-loc", "trends-loc"]


@pytest.mark.parametrize("path, title", [
    ("/", "evalmaps · Browse"), ("/trends?figure=short-to-long", "evalmaps · Trends"),
    ("/compare", "evalmaps · Compare"), ("/data", "evalmaps · Data"),
    ("/no-such-page", "evalmaps"),  # not a page: the app's
])
def test_the_html_has_the_pages_title(client, path, title):
    html = client.get(path).get_data(as_text=True)
    assert html.count("<title>") == 1
    assert f"<title>{title}</title>" in html


GRID_TAG = re.compile(r'<script( type="([^"]*)" data-namespace="dash_ag_grid")? '
                      r'src="(/_dash-component-suites/dash_ag_grid/[^"]*)"></script>')


@pytest.mark.parametrize("path, runs", [
    ("/", False), ("/?figure=short-to-long", False), ("/compare", False),
    ("/trends", True), ("/trends?figure=short-to-long", True), ("/data", True), ("/data/", True),
    ("/no-such-page", False),
])
def test_ag_grids_code_comes_with_the_pages_that_show_a_grid(client, path, runs):
    """AG Grid's bundle runs with Trends and Data, in the page's one file of scripts
    (layouts._routes.bundle_scripts); elsewhere its tag is inert, with Dash's fingerprinted URL, for
    assets/lazy.js to load when a grid renders (a link to Data)."""
    html = client.get(path).get_data(as_text=True)
    tags = GRID_TAG.findall(html)
    bundle = re.findall(r'src="(/vendor/scripts/[^"]+)"', html)
    assert len(bundle) == 1
    bundled = [src for src, _ in parts(client.get(bundle[0]).data)
               if "/_dash-component-suites/dash_ag_grid/" in src]
    if runs:
        assert tags == [] and len(bundled) == 1
        src = bundled[0]
    else:
        assert len(tags) == 1 and bundled == [], (tags, bundled)
        typed, kind, src = tags[0]
        assert kind == ON_DEMAND
    assert src.endswith(".min.js") and ".v" in src  # Dash's fingerprinted URL
    assert client.get(src).status_code == 200


def test_the_pages_that_show_a_grid_say_so(client, dash_app):
    """Each page whose layout holds an AG Grid is registered with ``shows_grid``, and no other:
    a page that showed one unregistered would wait for the bundle before drawing it (Compare's,
    its items panel, comes with the page when its URL opens a cell: ``shows_grid="cell"``). No page
    shows a DataTable."""
    import dash
    import dash_ag_grid as dag
    from dash import dash_table

    from components.dash_internals import components_in

    client.get("/")
    with_grid, flagged = set(), set()
    for page in dash.page_registry.values():
        if page.get("shows_grid"):
            flagged.add(page["path"])
        layout = page["layout"]
        flag = page.get("shows_grid")
        # a page whose grid comes with a query key (Compare's ``cell``) is drawn with it
        query = {flag: "500|0.1"} if isinstance(flag, str) else {}
        with dash_app.server.test_request_context(page["path"]):
            tree = layout(uploads=None, **query) if callable(layout) else layout
        nodes = [tree, *components_in(tree)]
        if any(isinstance(node, dag.AgGrid) for node in nodes):
            with_grid.add(page["path"])
        assert not any(isinstance(node, dash_table.DataTable) for node in nodes), page["path"]
    assert with_grid == flagged == {"/trends", "/data", "/compare", "/rank"}


def _watched(deps: list[dict]) -> set[str]:
    """'id.prop' of every callback input, a pattern id by its type ('live-drawn.children')."""
    def name(cid: str) -> str:
        return json.loads(cid)["type"] if cid.startswith("{") else cid

    return {f"{name(i['id'])}.{i['property']}" for d in deps for i in d["inputs"]}


@pytest.mark.parametrize("path, search", [
    *URLS, ("/compare", "?a=bench:x&cell=a%7Cb"), ("/trends", ""), ("/data", "")])
def test_no_store_of_the_first_page_starts_a_callback_as_it_mounts(client, path, search):
    """A memory dcc.Store whose data is None sets its data as it mounts (dcc's Store: the empty
    memory store's value, undefined, is not None), and Dash then runs every callback that takes
    that data as an input, prevent_initial_call or not: on every first paint, before the maps
    are drawn. So a store that feeds a callback starts with data (Compare's items panel and
    the live-version store did not: one clientside callback ran on every Compare page)."""
    layout = first_layout(client, HOST + path + search)
    watched = _watched(client.get("/_dash-dependencies").get_json())
    stores = [n["props"] for n in _nodes(layout) if n.get("type") == "Store"
              and n.get("namespace") == "dash_core_components"]
    assert {"live-version", "uploads"} <= {s["id"] for s in stores}  # the app's, with the page's
    if path == "/compare":
        assert {"compare-items-open", "compare-items-request"} <= {s["id"] for s in stores}
    starts = [s["id"] for s in stores if s.get("storage_type", "memory") == "memory"
              and s.get("data") is None and f"{s['id']}.data" in watched]
    assert starts == []


def test_the_nav_element_lists_the_figures_rank_can_rank(client, dash_app):
    """The browser's nav links read the figures Rank can rank from the nav element (its
    ``data-rankable``), and the first page's Rank link, written by the server, carries the
    page's figure when it is one of them."""
    from evalmaps.views.state import rankable

    layout = first_layout(client, HOST + "/?figure=mmlu-pro&cluster=src")
    (nav,) = [n for n in _nodes(layout) if n.get("type") == "Nav"]
    ids = rankable(dash_app.server.extensions["evalmaps"]["catalog"])
    assert len(ids) > 1 and json.loads(nav["props"]["data-rankable"]) == ids
    assert find(layout, "nav-rank")["props"]["href"] == "/rank?figure=mmlu-pro&cluster=src"
