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

Dash internals used: ``dash._pages._path_to_page`` and ``_parse_query_string`` (what the routing
callback calls) and the container's four ids (``dash.dash._ID_*``).
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import dash
from dash import dcc, html
from dash._pages import _parse_query_string, _path_to_page
from dash.dash import _ID_CONTENT, _ID_DUMMY, _ID_LOCATION, _ID_STORE
from flask import has_request_context, request

UPLOADS_COOKIE = "evalmaps-uploads"
log = logging.getLogger(__name__)


def page_container(app: dash.Dash):
    """Dash Pages' container, with the requested page in it when the request says exactly which
    (see the module's docstring), else Dash's own empty one."""
    url = requested_url(app)
    if url is None:
        return dash.page_container
    path, search = url
    page, variables = _path_to_page(app.strip_relative_path(path))
    if not page:
        return dash.page_container
    layout, title = page.get("layout", ""), page["title"]
    try:
        if callable(layout):  # as the routing callback calls it (the uploads: none, see above)
            layout = layout(**{**(variables or {}), **_parse_query_string(search),
                               "uploads": None})
        if callable(title):
            title = title(**(variables or {}))
    except Exception:  # noqa: BLE001 - the routing callback renders it instead (and says why)
        log.exception("the first page of %s%s was left to Dash Pages", path, search)
        return dash.page_container
    settle_locations(layout, path, search)
    return html.Div([
        dcc.Location(id=_ID_LOCATION, refresh="callback-nav", pathname=path, search=search),
        html.Div(layout, id=_ID_CONTENT, disable_n_clicks=True),
        dcc.Store(id=_ID_STORE, data={"title": title}),
        html.Div(id=_ID_DUMMY, disable_n_clicks=True),
    ])


def requested_url(app: dash.Dash) -> tuple[str, str] | None:
    """(path, search) of the page whose layout is being requested, exactly as the browser's
    ``location.pathname`` and ``location.search`` hold them; None when not known."""
    if not has_request_context() or request.cookies.get(UPLOADS_COOKIE):
        return None
    if request.path != app.config.routes_pathname_prefix + "_dash-layout":
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
    if not hasattr(layout, "_traverse"):
        return
    for component in layout._traverse():
        if isinstance(component, dcc.Location) and getattr(component, "pathname", None) is None \
                and getattr(component, "search", None) is None:
            component.pathname = path
            component.search = search
