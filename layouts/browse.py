"""Browse view (/): every panel of a figure as a heatmap, sliced by facet, rows and x range.

State lives in the URL. The page's own ``dcc.Location`` (``browse-loc``) and the controls are kept
in step by one callback: a control change writes the query (a history entry, no reload), and a
back/forward step writes the controls. Choosing another figure navigates, and Dash Pages renders
the page anew with that figure's controls.
"""

from __future__ import annotations

from urllib.parse import parse_qs

import dash
import dash_bootstrap_components as dbc
from dash import ALL, Input, Output, State, callback, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from components.controls import (color_mode_control, figure_row, labelled, labels_switch,
                                 rows_and_range)
from components.heatmap import graph_config, heatmap_figure
from components.provenance import provenance_badge, source_card
from evalmaps.slicing import color_range, select_panels, slice_panel
from evalmaps.state import first, parse_state, state_from_controls
from layouts._shared import (UPLOADS, empty_note, explain_problems, get_catalog, page_location,
                             problems_alert, register_figure_navigation, register_nav_sync,
                             slicing_values)

dash.register_page(__name__, path="/", name="Browse", title="evalmaps · Browse", order=0)

PAGE = "browse"


def layout(uploads=None, **query):
    catalog = get_catalog(uploads)
    state = parse_state(query, catalog)
    figure = catalog.figure(state.figure)
    spec = figure.spec
    return dbc.Container([
        page_location(PAGE, figure.id),
        problems_alert(explain_problems(state.problems, first(query.get("figure")))),
        figure_row(PAGE, catalog, figure, state),
        dbc.Row([
            *rows_and_range(PAGE, figure, state),
            labelled("Colour range", color_mode_control("browse-color", state.color), width=3),
            dbc.Col(labels_switch("browse-labels", state.labels), md=2, className="mb-2 pt-4"),
        ], className="g-3 align-items-start controls-row"),
        html.H4([spec.title, provenance_badge(spec)], className="mt-2 figure-title"),
        html.Div(id="browse-summary", className="small text-muted mb-2"),
        html.Div(id="browse-graphs"),
        source_card(spec),
    ], fluid=True, className="py-3")


register_figure_navigation(PAGE, "/")


@callback(
    Output("browse-loc", "search"),
    Output("browse-graphs", "children"),
    Output("browse-summary", "children"),
    Output({"type": "browse-facet", "dim": ALL}, "value"),
    Output("browse-rows", "value"),
    Output("browse-xrange", "value"),
    Output("browse-color", "value"),
    Output("browse-labels", "value"),
    Input("browse-loc", "search"),
    Input({"type": "browse-facet", "dim": ALL}, "value"),
    Input("browse-rows", "value"),
    Input("browse-xrange", "value"),
    Input("browse-color", "value"),
    Input("browse-labels", "value"),
    State({"type": "browse-facet", "dim": ALL}, "id"),
    State("browse-rendered-figure", "data"),
    State(UPLOADS, "data"),
)
def sync(search, facet_values, rows, x_range, color, labels, facet_ids, rendered, uploads):
    catalog = get_catalog(uploads)
    from_url = "browse-loc.search" in ctx.triggered_prop_ids or len(ctx.triggered_prop_ids) != 1
    if from_url:
        if search is None:
            raise PreventUpdate  # the location reports the URL as it mounts
        state = parse_state(parse_qs(search.lstrip("?"), keep_blank_values=True), catalog)
        if state.figure != rendered:
            raise PreventUpdate  # another figure: Dash Pages renders the page anew
        figure = catalog.figure(rendered)
        return (no_update, *graphs(figure, state), *slicing_values(state, figure, facet_ids),
                state.color, state.labels)
    figure = catalog.figure(rendered)
    facets = {fid["dim"]: value for fid, value in zip(facet_ids, facet_values)}
    state = state_from_controls(figure, facets, rows, x_range, color, labels)
    return (state.to_query(), *graphs(figure, state), [no_update] * len(facet_ids),
            *[no_update] * 4)


def graphs(figure, state):
    panels = select_panels(figure, state.facet_selection(figure))
    views = [slice_panel(figure, p, list(state.rows) if state.rows is not None else None,
                         state.x_range) for p in panels]
    if not views:
        return empty_note("No panel matches the selection: pick at least one label per facet."), ""
    if not views[0].y_labels:
        return empty_note("No rows selected: pick rows in the Rows menu."), ""
    if not views[0].x_labels:
        return empty_note("The x range holds no column: widen it."), ""
    zrange = color_range(figure.spec, views, state.color)
    per_row = 1 if len(views[0].x_labels) > 12 else (2 if len(views[0].x_labels) > 6 else 4)
    per_row = min(per_row, len(views))
    cols = []
    for view in views:
        fig = heatmap_figure(view, zrange, show_labels=state.labels)
        cols.append(dbc.Col(dcc.Graph(
            id={"type": "browse-heatmap", "panel": view.panel.key}, figure=fig,
            config=graph_config(figure.id, view.panel.key), className="heatmap-graph"),
            md=12 // per_row))
    shown = sum(v.n_cells for v in views)
    total = sum(v.z.size for v in views)
    summary = (f"{len(views)} panel{'s' * (len(views) != 1)} · {shown} of {total} cells reported"
               f" · grey cells are not reported by the source")
    return dbc.Row(cols, className="g-2"), summary


register_nav_sync(PAGE)
