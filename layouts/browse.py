"""Browse view (/): every panel of a figure as a heatmap, sliced by facet, rows and x range.

State lives in the URL. The page's own ``dcc.Location`` (``browse-loc``) and the controls are kept
in step by one callback: a control change writes the query (a history entry, no reload), and a
back/forward step writes the controls. Choosing another figure navigates, and Dash Pages renders
the page anew with that figure's controls and heatmaps. Heatmaps are sent only when the slice
changes; the colour range and values in cells are restyled in the browser.
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import parse_qs

import dash
import dash_bootstrap_components as dbc
from dash import (
    ALL,
    ClientsideFunction,
    Input,
    Output,
    State,
    callback,
    clientside_callback,
    dcc,
    html,
    no_update,
)
from dash.exceptions import PreventUpdate

from components import controls as errors_menu  # the Standard errors menu
from components.controls import (
    color_mode_control,
    export_control,
    figure_row,
    labelled,
    panel_style,
    rows_and_range,
    scale_switches,
    values_switch,
)
from components.filters import filters, register_filters, scale_control
from components.heatmap import (
    LABELS_LINK,
    OVERVIEW_LINK,
    every_label_width,
    gaps_note,
    heatmap_figure,
    labels_note,
    prefix_note,
    values_note,
)
from components.items import k_menu
from components.keyboard import keyboard_map, map_coords
from components.provenance import provenance_badge, source_card
from components.theme import GRAPH_FRAME_PX, graph_config, reserved_height
from evalmaps.analysis import uncertainty
from evalmaps.analysis.export import (
    ExportError,
    filename,
    render,
    table_of_view,
    with_item_errors,
)
from evalmaps.analysis.items import count_grid
from evalmaps.analysis.slicing import scale_notes, view_ranges
from evalmaps.catalog.items import max_k
from evalmaps.views.models import BrowseView
from evalmaps.views.state import DEFAULT_SCALE, SCALES, ViewState, first, parse_state
from layouts._shared import (
    UPLOADS,
    Outputs,
    boundary,
    empty_note,
    explain_problems,
    get_catalog,
    group,
    in_place,
    in_place_outputs,
    live_drawn,
    live_redraw,
    page_location,
    problems_alert,
    read_view,
    register_figure_navigation,
    register_nav_sync,
    register_row_buttons,
    row_labels,
    slicing_inputs,
    slicing_menus,
    slicing_outputs,
    slicing_shown,
    slicing_values,
    stored_ids,
    waiting_for,
    waiting_page,
)

dash.register_page(__name__, path="/", name="Browse", title="evalmaps · Browse", order=0)

PAGE = "browse"


def layout(uploads=None, **query):
    catalog = get_catalog(uploads, *stored_ids(query.get("figure")))
    waiting = waiting_for(first(query.get("figure")), catalog)
    if waiting:  # a watched folder's figure with no file yet: drawn when it arrives
        return waiting_page(PAGE, first(query.get("figure")), waiting)
    state = parse_state(query, catalog)
    figure = catalog.figure(state.figure)
    spec = figure.spec
    drawn = graphs(figure, state)  # drawn with the page: no second round trip on first paint
    return dbc.Container([
        page_location(PAGE, figure.id),
        dcc.Store(id="browse-drawn", data=drawn["drawn"]),
        dcc.Store(id="browse-default-color", data="figure"),
        problems_alert(explain_problems(state.problems, first(query.get("figure")))),
        filters(PAGE, [
            figure_row(PAGE, catalog, figure, state),
            dbc.Row([
                *rows_and_range(PAGE, figure, state),
                labelled("Colour range", color_mode_control("browse-color", state.color),
                         width=3),
                dbc.Col(values_switch("browse-labels", state.show_values), md=2,
                        className="mb-2 pt-4"),
                labelled("Colour scale", scale_control("browse-scale", state.scale), width=3),
                dbc.Col(scale_switches(PAGE, figure, state), md=2, className="mb-2 pt-3"),
                k_menu(PAGE, max_k(figure), state.k),
                errors_menu.cluster_control(PAGE, figure, state.cluster),  # URL cluster (issue 39)
            ], className="g-3 align-items-start controls-row"),
        ]),
        html.H4([spec.title, provenance_badge(spec.provenance, with_id=True)], id="browse-title",
                className="mt-2 figure-title"),
        html.Div(drawn["summary"], id="browse-summary", className="small text-muted mb-2"),
        html.Div(drawn["graphs"], id="browse-graphs"),
        export_control(PAGE, drawn["export_options"], drawn["export_value"]),
        source_card(spec, uncertainty.figure_notes(figure)),
    ], fluid=True, className="py-3")


register_figure_navigation(PAGE, "/")
register_row_buttons(PAGE)
register_filters(PAGE)


OUT = Outputs(
    **slicing_outputs(PAGE),
    graphs=Output("browse-graphs", "children"),
    summary=Output("browse-summary", "children"),
    drawn=Output("browse-drawn", "data"),
    color=Output("browse-color", "value"),
    show_values=Output("browse-labels", "value"),
    scale=Output("browse-scale", "value"),
    pct=Output("browse-pct", "value"),
    zlog=Output("browse-log", "value"),
    k=Output("browse-k", "value"),
    export_options=Output("browse-export-panel", "options"),
    export_value=Output("browse-export-panel", "value"),
    export_style=Output("browse-export-panel", "style"),
    # a watched figure's new version, the same panels: their maps redrawn in place (the frames,
    # focus and open tables around them stay)
    **in_place_outputs("browse-heatmap"),
)


@callback(
    output=OUT.spec,
    inputs=dict(
        **slicing_inputs(PAGE),
        display=group(
            pct=Input("browse-pct", "value"),
            zlog=Input("browse-log", "value"),
            color=State("browse-color", "value"),
            show_values=State("browse-labels", "value"),
            scale=State("browse-scale", "value"),
            k=Input("browse-k", "value"),
        ),
        drawn=State("browse-drawn", "data"),
        map_ids=State({"type": "browse-heatmap", "panel": ALL}, "id"),
    ),
    prevent_initial_call=True,  # the layout draws the URL's view; its location reports changes
)
@boundary
def sync(slicing, display, drawn, map_ids):
    """What changes the data shown: the URL (back/forward) or a slicing control. The colour
    range and values in cells are restyled in the browser (``evalmaps.restyle``), and the
    heatmaps are only sent again when the slice changed (``browse-drawn``). ``slicing``: the
    URL and the slicing controls (``slicing_inputs``); ``display``: the other controls."""
    figure, state, query = read_view(PAGE, slicing, display)
    scale = display["scale"]
    if query is None:  # a slicing control: draw the slice, write the URL
        k = display["k"] if isinstance(display["k"], int) and 1 <= display["k"] <= max_k(figure) \
            else 1
        state = replace(state, scale=scale if scale in SCALES else DEFAULT_SCALE, k=k)
        drawing = graphs(figure, state)
        drawing.pop("redraw", None)
        return OUT(search=state.to_query(y_labels=row_labels(figure)), **drawing)
    # the URL changed: write the controls that differ; draw only if the slice differs (or the
    # figure has a new version: drawn again in place, its menus list its new labels)
    out = {} if slice_key(state) == drawn and not live_redraw() else graphs(figure, state)
    maps = out.pop("redraw", None)
    if live_redraw():
        out.update(slicing_menus(figure, slicing), live_drawn=live_drawn(figure.id))
        in_place(out, maps, map_ids)  # the same panels: only their figures are sent
    controls = {**slicing_values(state, figure, slicing["facet_ids"]), "color": state.color,
                "show_values": state.show_values, "scale": state.scale, "pct": state.pct,
                "zlog": state.zscale == "log", "k": state.k}
    now = {**slicing_shown(slicing), "color": display["color"],
           "show_values": display["show_values"], "scale": scale, "pct": bool(display["pct"]),
           "zlog": bool(display["zlog"]), "k": display["k"]}
    out.update({k: v for k, v in controls.items() if v != now[k]})
    if not out:
        raise PreventUpdate
    return OUT(**out)


def slice_key(state: ViewState) -> str:
    """What the heatmaps depend on: the state's query without the colour, values and scale
    keys."""
    return replace(state, color="figure", show_values=True, problems=(),
                   scale=DEFAULT_SCALE).to_query()


def graphs(figure, state: ViewState) -> dict:
    """The heatmaps of a view and the line above them: ``graphs``, ``summary``, ``drawn``, and
    ``redraw`` ({panel: {"figure", "style"}}: what a live redraw in place sends, not an output:
    :func:`layouts._shared.in_place`). At ``state.k`` > 1, every cell is the pass@k of its
    items (``figure_at``)."""
    view = BrowseView.of_state(figure, state)  # what /browse.json gives for this state
    figure, empty = view.figure, view.empty
    # the hover's ± se of a figure's items (clustered when asked)
    views = [] if empty else view.hover_views()
    if empty:
        return {"graphs": empty_note(empty), "summary": "", "drawn": slice_key(state),
                "export_options": [], "export_value": None, "export_style": {"display": "none"}}
    all_ranges = view_ranges(figure.spec, views)
    per_row = 1 if len(views[0].x_labels) > 12 else (2 if len(views[0].x_labels) > 6 else 4)
    if any(len(str(y)) > 12 for y in views[0].y_labels):
        per_row = min(per_row, 2)  # long row labels take room from the cells
    per_row = min(per_row, len(views))
    every = state.ticks == "all"
    cols = []
    maps = {}  # panel slug -> its figure and style
    for view, ranges in zip(views, all_ranges):
        fig = heatmap_figure(view, ranges[state.color], show_values=state.show_values,
                             ranges=ranges, scale=state.scale, color=state.color,
                             counts=count_grid(figure, view.panel.facets, view.y_labels,
                                               view.x_labels), every=every)
        style = graph_style(fig, len(view.x_labels), every)
        maps[view.panel.slug] = {"figure": fig, "style": style}
        drawn_map = keyboard_map(dcc.Graph(
            id={"type": "browse-heatmap", "panel": view.panel.slug}, figure=fig,
            config=graph_config(figure.id, view.panel.slug), className="heatmap-graph",
            style=style),
            name=view.title, coords=map_coords(view.panel.facets, figure.spec.y,
                                               figure.spec.x))
        if every:  # at least a line a column: wider than a phone, it scrolls sideways
            drawn_map = html.Div(drawn_map, className="heatmap-scroll")
        cols.append(dbc.Col(drawn_map, md=12 // per_row))
    shown = sum(v.n_cells for v in views)
    total = sum(v.z.size for v in views)
    summary = (f"{len(views)} panel{'s' * (len(views) != 1)} · {shown} of {total} cells reported"
               f" · grey cells are not reported by the source"
               + (f" · each cell: the unbiased pass@{state.k} of its items' samples, averaged "
                  "over its items" if state.k != 1 else "")
               + (" · ± se in the hover: the standard error of each cell's mean over its items"
                  + (f", clustered by {state.cluster}" if state.cluster else "")
                  if getattr(figure, "items", None) is not None else ""))
    note = values_note(len(views[0].y_labels), len(views[0].x_labels))
    thinned = labels_note(len(views[0].y_labels), len(views[0].x_labels), every)
    gaps = gaps_note(len(views[0].y_labels), len(views[0].x_labels)) if shown < total else None
    notes = scale_notes(views)
    cut = prefix_note(figure.spec)
    panels = [{"label": v.title, "value": v.panel.slug} for v in views]
    return {"graphs": dbc.Row(cols, className="g-2"),
            "summary": [summary,
                        *([html.Div(cut, id="browse-prefix-note")] if cut else []),
                        *([html.Div(note, id="browse-values-note")] if note else []),
                        *([html.Div([thinned, *ticks_link(figure, state)],
                                    id="browse-labels-note")] if thinned else []),
                        *([html.Div(gaps, id="browse-gaps-note")] if gaps else []),
                        *([html.Div(" ".join(notes), id="browse-scale-note")] if notes else [])],
            "drawn": slice_key(state), "export_options": panels,
            "export_value": panels[0]["value"], "export_style": panel_style(panels), "redraw": maps}


def graph_style(fig: dict, n_cols: int, every: bool) -> dict:
    """A map's graph style: its height held from the first paint (``reserved_height``); under
    ``ticks=all``, at least the width that gives every column a line (``every_label_width``):
    plotly.js sizes the chart to the graph, and on a narrower screen its frame scrolls
    sideways (``.heatmap-scroll``)."""
    style = reserved_height(fig)
    if every:
        style["minWidth"] = f"{every_label_width(fig['layout'], n_cols) + GRAPH_FRAME_PX}px"
    return style


def ticks_link(figure, state: ViewState) -> list:
    """The labels note's link: this view with every row and column labelled (``ticks=all``),
    or, under it, back to the overview (the key left off); none in a figure with a dimension
    named ``ticks`` (there, the key is its label). A real link, so that it opens in a new tab
    and is shared; the colour keys the browser writes later are kept up to date in it
    (``evalmapsLib.paint.restyle``)."""
    if "ticks" in figure.spec.dims:
        return []
    every = state.ticks == "all"
    target = replace(state, ticks="auto" if every else "all", problems=())
    return [" ", html.A(OVERVIEW_LINK if every else LABELS_LINK, id="browse-ticks-link",
                  className="ticks-link", **{"data-ticks": target.ticks},
                  href=dash.get_relative_path("/") + target.to_query(y_labels=row_labels(figure)))]


@callback(
    Output("browse-download", "data"),
    Output("browse-export-error", "children"),
    Input("browse-export", "n_clicks"),
    State("browse-export-format", "value"),
    State("browse-export-panel", "value"),
    State("browse-loc", "search"),
    State("browse-rendered-figure", "data"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
@boundary
def download_table(_clicks, table_format, slug, search, figure_id, uploads):
    """The view's panel (the one picked when it shows several) as a LaTeX or Markdown table:
    the rows, columns and order on screen (evalmaps.analysis.export)."""
    catalog = get_catalog(uploads, figure_id)
    if figure_id not in catalog:
        raise PreventUpdate
    query = parse_qs((search or "").lstrip("?"), keep_blank_values=True)
    query.setdefault("figure", [figure_id])
    state = parse_state(query, catalog)
    shown = BrowseView.of_state(catalog.figure(state.figure), state)
    if shown.empty:
        return no_update, shown.empty
    view = next((v for v in shown.views if v.panel.slug == slug), shown.views[0])
    table = table_of_view(view)
    figure = catalog.figure(state.figure)
    if getattr(figure, "items", None) is not None:  # its cells' SE from their items
        spec = figure.spec
        table = with_item_errors(table, uncertainty.item_errors(figure.items, dict(view.panel.facets),
                                                    (spec.y, spec.x), view.y_labels,
                                                    view.x_labels, state.k, state.cluster),
                                 state.cluster)  # clustered as the menu says
    try:
        text = render(table, table_format or "latex")
    except ExportError as exc:
        return no_update, str(exc)
    return dcc.send_string(text, filename(table, table_format or "latex")), ""


# The colour range, scale and values in cells change no data: the browser restyles the heatmaps
# it holds (each figure carries its three colour ranges, its two scales and its cell-text
# template) and writes the URL; nothing is sent.
clientside_callback(
    ClientsideFunction(namespace="evalmaps", function_name="restyle"),
    Output({"type": "browse-heatmap", "panel": ALL}, "figure"),
    Output("browse-loc", "search", allow_duplicate=True),
    Input("browse-color", "value"),
    Input("browse-labels", "value"),
    Input("browse-scale", "value"),
    State({"type": "browse-heatmap", "panel": ALL}, "figure"),
    State("browse-loc", "search"),
    State("browse-default-color", "data"),
    prevent_initial_call=True,
)


register_nav_sync(PAGE)
errors_menu.register_cluster_control(PAGE)
