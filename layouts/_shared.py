"""What every page uses: the loaded catalog and the URL sync. (Not a page: Dash Pages skips '_'.)"""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import ClientsideFunction, Input, Output, clientside_callback, dcc, html
from flask import current_app

from evalmaps.model import Catalog

NAV_PAGES = [("Browse", "/")]  # a page adds itself here when it lands


def get_catalog() -> Catalog:
    """The catalog loaded once at start-up (see app.create_app)."""
    return current_app.extensions["evalmaps"]["catalog"]


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
