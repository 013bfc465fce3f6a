"""What every page uses: the loaded catalog and the URL sync. (Not a page: Dash Pages skips '_'.)"""

from __future__ import annotations

from urllib.parse import parse_qs

import dash
import dash_bootstrap_components as dbc
from dash import (ALL, ClientsideFunction, Input, Output, State, callback, clientside_callback,
                  ctx, dcc, html, no_update)
from dash.exceptions import PreventUpdate
from flask import current_app

from evalmaps.model import Catalog, Figure
from evalmaps.state import ViewState, parse_state, state_from_controls
from evalmaps.store import STORED_ID_IN
from evalmaps.uploads import catalog_with

NAV_PAGES = [("Browse", "/"), ("Trends", "/trends"), ("Compare", "/compare"), ("Data", "/data")]
UPLOADS = "uploads"  # the local store (in app.layout): ids of this browser's recent uploads


def get_catalog(uploads: list | None = None, *figure_ids) -> Catalog:
    """The catalog loaded once at start-up (see app.create_app), plus the stored uploads this
    browser lists (``uploads``: ids) and any other stored figure named in ``figure_ids`` (the
    URL's, or the one a page was rendered for).

    Pages get ``uploads`` as a layout keyword (Dash Pages routing input) and callbacks as
    ``State(UPLOADS, "data")``.
    """
    evalmaps = current_app.extensions["evalmaps"]
    return catalog_with(evalmaps["catalog"], evalmaps["store"],
                        [*(uploads if isinstance(uploads, list) else []), *figure_ids])


def stored_ids(*texts) -> list[str]:
    """The stored figures' ids named anywhere in ``texts`` (query values, panel references,
    a URL's query string, lists of those)."""
    found = []
    for text in texts:
        if isinstance(text, (list, tuple)):
            found += stored_ids(*text)
        elif isinstance(text, str) and "upload-" in text:
            found += STORED_ID_IN.findall(text[:2000])
    return found


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


def register_figure_navigation(page: str, path: str) -> None:
    """Choosing another figure navigates to ``path?figure=<id>``: Dash Pages renders the page
    anew with that figure's controls. (href, not search: the pages location's own search may be
    stale after in-page history entries.)"""

    @callback(
        Output("_pages_location", "href", allow_duplicate=True),
        Input(f"{page}-figure", "value"),
        State(f"{page}-rendered-figure", "data"),
        State(UPLOADS, "data"),
        prevent_initial_call=True,
    )
    def change_figure(figure_id, rendered, uploads):
        if figure_id == rendered or figure_id not in get_catalog(uploads, figure_id):
            raise PreventUpdate
        return dash.get_relative_path(path) + ViewState(figure_id).to_query()


def slicing_outputs(page: str) -> dict[str, Output]:
    """The URL and the slicing controls of a sliced page (Browse, Trends, Data), by name: what
    its sync callback writes besides its own outputs."""
    return {
        "search": Output(f"{page}-loc", "search"),
        "facets": Output({"type": f"{page}-facet", "dim": ALL}, "value"),
        "rows": Output(f"{page}-rows", "value"),
        "x_range": Output(f"{page}-xrange", "value"),
        "sort": Output(f"{page}-sort", "value"),
        "top": Output(f"{page}-top", "value"),
    }


def slicing_inputs(page: str) -> dict:
    """What a sliced page's sync callback reads: the URL, the slicing controls, the figure the
    page was rendered for and the session's uploads (names as :func:`read_view` takes them)."""
    return {
        "search": Input(f"{page}-loc", "search"),
        "facet_values": Input({"type": f"{page}-facet", "dim": ALL}, "value"),
        "rows": Input(f"{page}-rows", "value"),
        "x_range": Input(f"{page}-xrange", "value"),
        "sort": Input(f"{page}-sort", "value"),
        "top": Input(f"{page}-top", "value"),
        "facet_ids": State({"type": f"{page}-facet", "dim": ALL}, "id"),
        "rendered": State(f"{page}-rendered-figure", "data"),
        "uploads": State(UPLOADS, "data"),
    }


def read_view(page: str, catalog: Catalog, rendered: str, search: str | None, facet_ids: list,
              facet_values: list, rows, x_range, sort=None, top=None, color=None,
              show_values=None):
    """The view state a sliced page's sync callback works on: ``(figure, state, from_url)``.

    When the page's location changed (back/forward, or the first report as it mounts), the state
    is read from the URL and the controls must be written (``from_url``); when a control changed,
    from the controls, and the URL must be written. ``PreventUpdate`` when there is nothing to do
    (no URL yet, or another figure: Dash Pages renders the page anew)."""
    if rendered not in catalog:
        raise PreventUpdate
    figure = catalog.figure(rendered)
    if f"{page}-loc.search" in ctx.triggered_prop_ids or len(ctx.triggered_prop_ids) != 1:
        if search is None:
            raise PreventUpdate  # the location reports the URL as it mounts
        query = parse_qs(search.lstrip("?"), keep_blank_values=True)
        state = parse_state(query, catalog)
        if state.figure != rendered:
            raise PreventUpdate
        return figure, state, query
    facets = {fid["dim"]: value for fid, value in zip(facet_ids, facet_values)}
    return figure, state_from_controls(figure, facets, rows, x_range, color, show_values, sort,
                                       top), None


def slicing_values(state: ViewState, figure: Figure, facet_ids: list[dict]) -> dict:
    """Control values for a state, by output name: ``facets`` (per facet dropdown), ``rows``,
    ``x_range``, ``sort``, ``top``."""
    selection = state.facet_selection(figure)
    spec = figure.spec
    xdim = spec.dims[spec.x]
    x_range = list(state.x_range) if state.x_range else (
        [min(xdim.numbers), max(xdim.numbers)] if xdim.numeric else [0, 1])
    return {"facets": [selection[fid["dim"]] for fid in facet_ids],
            "rows": list(spec.dims[spec.y].labels if state.rows is None else state.rows),
            "x_range": x_range, "sort": state.sort, "top": state.top}


def row_labels(figure: Figure) -> tuple[str, ...]:
    return figure.spec.dims[figure.spec.y].labels


def register_row_buttons(page: str) -> None:
    """The rows menu's All and None buttons (the page's sync callback takes it from there)."""

    @callback(
        Output(f"{page}-rows", "value", allow_duplicate=True),
        Input(f"{page}-rows-all", "n_clicks"),
        Input(f"{page}-rows-none", "n_clicks"),
        State(f"{page}-rendered-figure", "data"),
        State(UPLOADS, "data"),
        prevent_initial_call=True,
    )
    def all_or_none(_all, _none, rendered, uploads):
        catalog = get_catalog(uploads, rendered)
        if rendered not in catalog or ctx.triggered_id not in (f"{page}-rows-all",
                                                               f"{page}-rows-none"):
            raise PreventUpdate
        if ctx.triggered_id.endswith("none"):
            return []
        spec = catalog.figure(rendered).spec
        return list(spec.dims[spec.y].labels)


def explain_problems(problems: tuple[str, ...], figure_id: str | None) -> tuple[str, ...]:
    """Add why an uploaded figure's URL may not open: it is not in this server's store."""
    if isinstance(figure_id, str) and figure_id.startswith("upload-") and problems:
        return (*problems, "This server's upload store does not hold that figure: it was "
                           "uploaded to another server, or the link is cut short. Upload the "
                           "file again on the Data page.")
    return problems


class Outputs:
    """A callback's outputs by name: ``OUT = Outputs(graphs=Output(...), ...)``, then
    ``@callback(output=OUT.spec, ...)`` and ``return OUT(graphs=...)``. What is not named stays
    as it is (``no_update``, a list of them for a pattern-matching output), so no callback
    pads its return by count."""

    def __init__(self, **outputs: Output) -> None:
        self.spec = outputs

    def __call__(self, **values) -> dict:
        unknown = set(values) - set(self.spec)
        if unknown:
            raise TypeError(f"not an output of this callback: {', '.join(sorted(unknown))}")
        grouping = ctx.outputs_grouping
        return {key: values[key] if key in values
                else [no_update] * len(grouping[key]) if isinstance(grouping[key], list)
                else no_update
                for key in self.spec}
