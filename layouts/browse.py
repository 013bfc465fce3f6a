"""Browse view (/): every panel of a figure as a heatmap, sliced by facet, rows and x range."""

from __future__ import annotations

import dash
import dash_bootstrap_components as dbc
from dash import ALL, Input, Output, callback, ctx, dcc, html
from dash.exceptions import PreventUpdate

from components.controls import (color_mode_control, facet_dropdowns, figure_dropdown, labelled,
                                 labels_switch, rows_dropdown, x_range_control)
from components.heatmap import graph_config, heatmap_figure
from components.provenance import provenance_badge, source_card
from evalmaps.slicing import color_range, select_panels, slice_panel
from evalmaps.state import ViewState, parse_state, state_from_controls
from layouts._shared import (NAV_PAGES, empty_note, get_catalog, problems_alert,
                             register_url_sync, sync_data, url_store)

dash.register_page(__name__, path="/", name="Browse", title="evalmaps · Browse", order=0)

PAGE = "browse"


def layout(**query):
    catalog = get_catalog()
    state = parse_state(query, catalog)
    figure = catalog.figure(state.figure)
    spec = figure.spec
    return dbc.Container([
        url_store(PAGE),
        problems_alert(state.problems),
        dbc.Row([
            labelled("Figure", figure_dropdown("browse-figure", catalog, figure.id),
                     html_for="browse-figure", width=6),
            *facet_dropdowns("browse-facet", figure, state, width=3),
        ], className="g-3"),
        dbc.Row([
            labelled(f"Rows ({spec.dims[spec.y].title})",
                     rows_dropdown("browse-rows", spec.dims[spec.y], state.rows), width=4),
            labelled(f"{spec.dims[spec.x].title} range",
                     x_range_control("browse-xrange", spec.dims[spec.x], state.x_range), width=4),
            labelled("Colour range", color_mode_control("browse-color", state.color), width=3),
            dbc.Col(labels_switch("browse-labels", state.labels), md=1, className="mb-2 pt-4"),
        ], className="g-3 align-items-start controls-row"),
        html.H4([spec.title, provenance_badge(spec)], className="mt-2 figure-title"),
        html.Div(id="browse-summary", className="small text-muted mb-2"),
        dcc.Loading(html.Div(id="browse-graphs"), delay_show=300),
        source_card(spec),
    ], fluid=True, className="py-3")


@callback(
    Output("_pages_location", "search", allow_duplicate=True),
    Input("browse-figure", "value"),
    prevent_initial_call=True,
)
def change_figure(figure_id):
    """A new figure means new controls: navigate, and the page re-renders from the URL."""
    catalog = get_catalog()
    return ViewState(figure_id if figure_id in catalog else catalog.ids[0]).to_query()


@callback(
    Output("browse-graphs", "children"),
    Output("browse-summary", "children"),
    Output("browse-url-state", "data"),
    Input("browse-figure", "value"),
    Input({"type": "browse-facet", "dim": ALL}, "value"),
    Input({"type": "browse-facet", "dim": ALL}, "id"),
    Input("browse-rows", "value"),
    Input("browse-xrange", "value"),
    Input("browse-color", "value"),
    Input("browse-labels", "value"),
)
def render(figure_id, facet_values, facet_ids, rows, x_range, color, labels):
    if ctx.triggered_id == "browse-figure":
        raise PreventUpdate  # change_figure navigates; the new page renders itself
    catalog = get_catalog()
    figure = catalog.figure(figure_id if figure_id in catalog else catalog.ids[0])
    facets = {fid["dim"]: value for fid, value in zip(facet_ids, facet_values)}
    state = state_from_controls(figure, facets, rows, x_range, color, labels)
    sync = sync_data(state.to_query(), figure.id, replace=ctx.triggered_id is None)
    return (*graphs(figure, state), sync)


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


register_url_sync(PAGE, [path for _, path in NAV_PAGES])
