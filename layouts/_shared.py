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


def url_store(page: str) -> dcc.Store:
    """Holds the canonical query string of a page; the browser's URL follows it (no reload)."""
    return dcc.Store(id=f"{page}-url-state")


def register_url_sync(page: str, nav_paths: list[str]) -> None:
    """Push a page's state into the address bar and the nav links (client side, no round trip)."""
    clientside_callback(
        ClientsideFunction(namespace="evalmaps", function_name="syncUrl"),
        [Output(nav_id(p), "href", allow_duplicate=True) for p in nav_paths],
        Input(f"{page}-url-state", "data"),
        prevent_initial_call=True,
    )


def sync_data(search: str, figure_id: str, replace: bool) -> dict:
    """What a page's url store holds: the query, the figure (for nav links), push or replace."""
    return {"search": search, "figure": figure_id, "replace": replace,
            "nav": [path for _, path in NAV_PAGES]}


def problems_alert(problems: tuple[str, ...] | list[str]):
    if not problems:
        return None
    return dbc.Alert(" ".join(problems), color="warning", className="py-2 small", dismissable=True)


def empty_note(text: str):
    return html.Div(text, className="text-muted fst-italic p-4 border rounded bg-light")
