"""The first page of a visit comes in the app's first layout, not through Dash Pages' routing
callback.

Dash Pages serves an empty page container: the browser renders it, its location reports the URL,
and a callback round trip returns the page's layout, which is then rendered. The pages' own
locations then report the URL as they mount, which fires their sync callbacks again (each a round
trip that changes nothing). Measured on 8 maps of 200x100, that was about 0.1-0.2 s before the
first map was drawn, and a busy main thread after it.

Here the layout request (``/_dash-layout``, whose ``Referer`` is the page's own URL; the app's
Referrer-Policy is ``same-origin``) gets the container with the page in it, built by the same
page layout function the routing callback calls, and every location holding the URL already, so
none reports a change and the routing callback does not fire (it is ``prevent_initial_call``).

When it cannot know the page exactly it serves Dash's empty container, and Dash Pages renders the
page as before:
- no layout request, no ``Referer`` or one from another host, a path that is not a page (the 404
  page comes from the routing callback);
- this browser keeps uploads of its own (``assets/nav.js`` sets the ``evalmaps-uploads`` cookie,
  a flag only): their ids live in the browser's local storage, and the menus list them.

The first page also needs no callback to finish it (each one fired at load costs Dash's
bookkeeping, about 30-50 ms before the first frame on Compare):
- the nav links come with the page's slice and the active mark (``app.navbar``, from
  :func:`referred_url` and ``evalmaps.views.state.nav_href``); their callbacks fire on later changes
  only (``prevent_initial_call``; a page that Dash Pages renders still fires them, its location
  being an input that arrives with it);
- the document's title is the page's in the HTML itself (:func:`titled_index`), and Dash Pages'
  title callback fires only when its store changes
  (``components.dash_internals.title_callback_on_change``).

Dash internals used, through ``components.dash_internals``: Dash Pages' page lookup and query
parsing (what the routing callback calls: ``page_at``, ``query_arguments``), the container's four
ids (``PAGES_*``), the components of a layout tree (``components_in``), and Dash Pages'
registration of its title callback (``title_callback_on_change``); ``test_dash_internals`` and
``test_first_page`` check them.
"""

from __future__ import annotations

import logging
import re
from html import escape
from urllib.parse import urlsplit

import dash
from dash import dcc, html
from flask import has_request_context, request

from components.dash_internals import (
    LAYOUT_ROUTE,
    PAGES_CONTENT,
    PAGES_DUMMY,
    PAGES_LOCATION,
    PAGES_STORE,
    components_in,
    page_at,
    query_arguments,
)

UPLOADS_COOKIE = "evalmaps-uploads"
log = logging.getLogger(__name__)


def page_container(app: dash.Dash):
    """Dash Pages' container, with the requested page in it when the request says exactly which
    (see the module's docstring), else Dash's own empty one."""
    url = requested_url(app)
    if url is None:
        return dash.page_container
    path, search = url
    page, variables = page_at(app, path)
    if not page:
        return dash.page_container
    layout = page.get("layout", "")
    try:
        if callable(layout):  # as the routing callback calls it (the uploads: none, see above)
            layout = layout(**{**(variables or {}), **query_arguments(search),
                               "uploads": None})
        title = page_title(app, path)
    except Exception:  # noqa: BLE001 - the routing callback renders it instead (and says why)
        log.exception("the first page of %s%s was left to Dash Pages", path, search)
        return dash.page_container
    settle_locations(layout, path, search)
    return html.Div([
        dcc.Location(id=PAGES_LOCATION, refresh="callback-nav", pathname=path, search=search),
        html.Div(layout, id=PAGES_CONTENT, disable_n_clicks=True),
        dcc.Store(id=PAGES_STORE, data={"title": title}),
        html.Div(id=PAGES_DUMMY, disable_n_clicks=True),
    ])


def requested_url(app: dash.Dash) -> tuple[str, str] | None:
    """(path, search) of the page whose layout is being requested, exactly as the browser's
    ``location.pathname`` and ``location.search`` hold them, when the server may render it (not
    for a browser with uploads of its own); None when not known."""
    if not has_request_context() or request.cookies.get(UPLOADS_COOKIE):
        return None
    return referred_url(app)


def referred_url(app: dash.Dash) -> tuple[str, str] | None:
    """(path, search) of the page a layout request comes from (its ``Referer``), or None."""
    if not has_request_context():
        return None
    if request.path != app.config.routes_pathname_prefix + LAYOUT_ROUTE:
        return None
    referrer = request.referrer
    if not referrer:
        return None
    parts = urlsplit(referrer)
    if parts.netloc != request.host or parts.scheme not in ("http", "https"):
        return None
    return parts.path or "/", "?" + parts.query if parts.query else ""


def settle_locations(layout, path: str, search: str) -> None:
    """The page's own locations (``refresh=False``) hold the URL from the start: a location
    without it reports it as it mounts, and each report fires that page's sync callback."""
    for component in components_in(layout):
        if isinstance(component, dcc.Location) and getattr(component, "pathname", None) is None \
                and getattr(component, "search", None) is None:
            component.pathname = path
            component.search = search


def page_title(app: dash.Dash, path: str) -> str | None:
    """The title Dash Pages gives the page at ``path``, or None (not a page)."""
    page, variables = page_at(app, path)
    if not page:
        return None
    title = page["title"]
    return title(**(variables or {})) if callable(title) else title


def titled_index(app: dash.Dash) -> None:
    """The HTML of a page holds that page's title (Dash writes the app's, and Dash Pages' title
    callback then sets the page's: a callback at load, see
    ``components.dash_internals.title_callback_on_change``)."""
    interpolate = app.interpolate_index

    def interpolate_index(**kwargs):
        if has_request_context():
            title = page_title(app, request.path)
            if title:
                kwargs["title"] = escape(title)
        return interpolate(**kwargs)

    app.interpolate_index = interpolate_index


ON_DEMAND = "text/x-evalmaps-on-demand"  # a script type browsers neither fetch nor run
GRID_SCRIPT = re.compile(r'<script src="([^"]*/_dash-component-suites/dash_ag_grid/[^"]*)"></script>')


def grid_on_demand(app: dash.Dash) -> None:
    """AG Grid's bundle (1.3 MB of JavaScript, 0.3 MB sent) comes with the pages that show a
    grid, registered with ``shows_grid=True`` (Trends, Data). On the others its script tag is
    left inert (type :data:`ON_DEMAND`, the same fingerprinted URL), which saves each load of
    Browse and Compare about 0.1 s of main-thread work here (Chrome's TaskDuration, A/B medians).
    A grid that renders later, after a link to Data, loads it then: ``assets/lazy.js`` stands in
    for ``dash_ag_grid.AgGrid`` until it has. Dash writes each script as
    ``<script src="..."></script>`` (:data:`GRID_SCRIPT`; ``test_first_page`` checks the tags)."""
    interpolate = app.interpolate_index

    def interpolate_index(**kwargs):
        if has_request_context() and not shows_grid(app, request.path, request.args):
            kwargs["scripts"] = inert_grid(kwargs.get("scripts", ""))
        return interpolate(**kwargs)

    app.interpolate_index = interpolate_index


def inert_grid(scripts: str) -> str:
    """The page's script tags with AG Grid's left inert (:func:`grid_on_demand`)."""
    return GRID_SCRIPT.sub(
        rf'<script type="{ON_DEMAND}" data-namespace="dash_ag_grid" src="\1"></script>', scripts)


def shows_grid(app: dash.Dash, path: str, args=None) -> bool:
    """Whether the page at ``path`` shows an AG Grid on its own (its ``shows_grid``: True, or a
    query key whose presence opens one, as Compare's ``cell`` opens a cell's items; ``args``:
    the request's query)."""
    page, _ = page_at(app, path)
    flag = page.get("shows_grid") if page else None
    if isinstance(flag, str):
        return bool(args) and flag in args
    return bool(flag)
