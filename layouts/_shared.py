"""What every page uses: the loaded catalog and the URL sync. (Not a page: Dash Pages skips '_'.)"""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import ClientsideFunction, Input, Output, clientside_callback, dcc, html
from flask import current_app

from evalmaps.model import Catalog
from evalmaps.uploads import session_catalog

NAV_PAGES = [("Browse", "/"), ("Trends", "/trends"), ("Compare", "/compare"), ("Data", "/data")]
UPLOADS = "uploads"  # the session store (in app.layout) holding this browser's uploaded figures


def get_catalog(uploads: list[dict] | None = None) -> Catalog:
    """The catalog loaded once at start-up (see app.create_app), plus this session's uploads.

    Pages get ``uploads`` as a layout keyword (Dash Pages routing input) and callbacks as
    ``State(UPLOADS, "data")``.
    """
    return session_catalog(current_app.extensions["evalmaps"]["catalog"], uploads)


def nav_id(path: str) -> str:
    return "nav-" + (path.strip("/") or "browse")


def page_location(page: str, figure_id: str) -> html.Div:
    """A page's own location (its query is the page's state) and the figure it was rendered for.

    ``refresh=False``: writing ``search`` adds a history entry without a reload and without
    re-rendering the page through Dash Pages.
    """
    return html.Div([dcc.Location(id=f"{page}-loc", refresh=False),
                     dcc.Store(id=f"{page}-rendered-figure", data=figure_id)])


def register_nav_sync(page: str) -> None:
    """Nav links carry the page's current figure (client side, no round trip)."""
    clientside_callback(
        ClientsideFunction(namespace="evalmaps", function_name="navLinks"),
        [Output(nav_id(path), "href", allow_duplicate=True) for _, path in NAV_PAGES],
        Input(f"{page}-loc", "search"),
        prevent_initial_call=True,
    )


def problems_alert(problems: tuple[str, ...] | list[str]):
    if not problems:
        return None
    return dbc.Alert(" ".join(problems), color="warning", className="py-2 small", dismissable=True)


def empty_note(text: str):
    return html.Div(text, className="text-muted fst-italic p-4 border rounded bg-light")
