"""The "Filters" toggle around a page's controls, and the colour-scale choice.

On a phone the controls would fill the first screen: they fold behind a "Filters" button, closed
at first, so the first chart is in view. On wider screens (Bootstrap's md, 768 px, and up) the
button is hidden and the controls always show (assets/evalmaps.css, a media query: no user-agent
sniffing). The button is toggled in the browser (``evalmaps.toggleFilters``), with no round trip.
"""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import ClientsideFunction, Input, Output, State, clientside_callback, html

SCALE_OPTIONS = [
    {"label": "Uniform (viridis)", "value": "uniform"},
    {"label": "As in the paper", "value": "paper"},
]


def scale_control(component_id: str, value: str) -> dbc.RadioItems:
    """The heatmaps' colour scale: perceptually uniform and colour-vision-safe (the default), or
    the source's own (query key ``scale``)."""
    return dbc.RadioItems(id=component_id, options=SCALE_OPTIONS, value=value, inline=True,
                          className="small")


def filters(page: str, children: list, summary=None) -> html.Div:
    """``children`` (the page's control rows) behind a "Filters" toggle. ``summary``: a short
    line shown beside the button (what the folded controls hold, e.g. Compare's A and B).
    Ids: ``<page>-filters-toggle``, ``<page>-filters``."""
    toggle = html.Div([
        html.Button("Filters", id=f"{page}-filters-toggle", n_clicks=0, type="button",
                    className="btn btn-outline-secondary btn-sm filters-toggle",
                    **{"aria-controls": f"{page}-filters", "aria-expanded": "false"}),
        html.Div(summary, id=f"{page}-filters-summary", className="filters-summary small"),
    ], className="filters-bar")
    return html.Div([
        toggle,
        dbc.Collapse(children, id=f"{page}-filters", is_open=False,
                     className="filters-collapse"),
    ], className="filters")


def register_filters(page: str) -> None:
    clientside_callback(
        ClientsideFunction(namespace="evalmaps", function_name="toggleFilters"),
        Output(f"{page}-filters", "is_open"),
        Output(f"{page}-filters-toggle", "aria-expanded"),
        Input(f"{page}-filters-toggle", "n_clicks"),
        State(f"{page}-filters", "is_open"),
        prevent_initial_call=True,
    )
