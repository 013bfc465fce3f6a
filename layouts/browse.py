"""Browse view (/): every panel of a figure as a heatmap, sliced by facet, rows and x range.

State lives in the URL. The page's own ``dcc.Location`` (``browse-loc``) and the controls are kept
in step by one callback: a control change writes the query (a history entry, no reload), and a
back/forward step writes the controls. Choosing another figure navigates, and Dash Pages renders
the page anew with that figure's controls.
"""

from __future__ import annotations

import dash
import dash_bootstrap_components as dbc
from dash import ALL, Input, Output, State, callback, dcc, html

from components.controls import (color_mode_control, figure_row, labelled, rows_and_range,
                                 values_switch)
from components.heatmap import heatmap_figure
from components.theme import graph_config
from components.provenance import provenance_badge, source_card
from evalmaps.slicing import color_range, views_for
from evalmaps.state import first, parse_state
from layouts._shared import (UPLOADS, Outputs, empty_note, explain_problems, get_catalog,
                             page_location, problems_alert, read_view, register_figure_navigation,
                             register_nav_sync, slicing_values)

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
            dbc.Col(values_switch("browse-labels", state.show_values), md=2,
                    className="mb-2 pt-4"),
        ], className="g-3 align-items-start controls-row"),
        html.H4([spec.title, provenance_badge(spec.provenance, with_id=True)],
                className="mt-2 figure-title"),
        html.Div(id="browse-summary", className="small text-muted mb-2"),
        html.Div(id="browse-graphs"),
        source_card(spec),
    ], fluid=True, className="py-3")


register_figure_navigation(PAGE, "/")


OUT = Outputs(
    search=Output("browse-loc", "search"),
    graphs=Output("browse-graphs", "children"),
    summary=Output("browse-summary", "children"),
    facets=Output({"type": "browse-facet", "dim": ALL}, "value"),
    rows=Output("browse-rows", "value"),
    x_range=Output("browse-xrange", "value"),
    color=Output("browse-color", "value"),
    show_values=Output("browse-labels", "value"),
)


@callback(
    output=OUT.spec,
    inputs=dict(
        search=Input("browse-loc", "search"),
        facet_values=Input({"type": "browse-facet", "dim": ALL}, "value"),
        rows=Input("browse-rows", "value"),
        x_range=Input("browse-xrange", "value"),
        color=Input("browse-color", "value"),
        show_values=Input("browse-labels", "value"),
        facet_ids=State({"type": "browse-facet", "dim": ALL}, "id"),
        rendered=State("browse-rendered-figure", "data"),
        uploads=State(UPLOADS, "data"),
    ),
)
def sync(search, facet_values, rows, x_range, color, show_values, facet_ids, rendered, uploads):
    figure, state, query = read_view(PAGE, get_catalog(uploads), rendered, search, facet_ids,
                                     facet_values, rows, x_range, color, show_values)
    if query is not None:  # the URL changed: write the controls
        return OUT(**graphs(figure, state), **slicing_values(state, figure, facet_ids),
                   color=state.color, show_values=state.show_values)
    return OUT(search=state.to_query(), **graphs(figure, state))


def graphs(figure, state) -> dict:
    """The heatmaps of a view and the line above them: ``graphs`` and ``summary``."""
    views, empty = views_for(figure, state)
    if empty:
        return {"graphs": empty_note(empty), "summary": ""}
    zrange = color_range(figure.spec, views, state.color)
    per_row = 1 if len(views[0].x_labels) > 12 else (2 if len(views[0].x_labels) > 6 else 4)
    per_row = min(per_row, len(views))
    cols = []
    for view in views:
        fig = heatmap_figure(view, zrange, show_values=state.show_values)
        cols.append(dbc.Col(dcc.Graph(
            id={"type": "browse-heatmap", "panel": view.panel.slug}, figure=fig,
            config=graph_config(figure.id, view.panel.slug), className="heatmap-graph"),
            md=12 // per_row))
    shown = sum(v.n_cells for v in views)
    total = sum(v.z.size for v in views)
    summary = (f"{len(views)} panel{'s' * (len(views) != 1)} · {shown} of {total} cells reported"
               f" · grey cells are not reported by the source")
    return {"graphs": dbc.Row(cols, className="g-2"), "summary": summary}


register_nav_sync(PAGE)
