"""Compare view (/compare): two panels side by side, their difference B - A, linked hover, summary.

A and B are any panels of any figure (built-in or uploaded to this server) over the same axes,
a derived mean of several panels (``mean(<key>,...)``, built with the "Mean of panels" menu), or
two labels of any dimension of a figure (``<figure>:<dim>=<label>``, picked with the "Compare"
menu): their grid's rows and columns and, for every other dimension, a label or the mean over
all of them, in their own menus (the grid's row, shown only then).
State lives in the URL (``?a=<ref>&b=<ref>&color=...&labels=off``, defaults left out): the page's
own ``dcc.Location`` (``compare-loc``) and the controls are kept in step by one callback, as on the
browse page; a back/forward step writes the controls and maps. The maps travel through
``compare-incoming`` with the arrays the page already holds written as references
(components.reuse), and one clientside callback (``evalmaps.compareMaps``) draws them and
restyles them (colour range, scale, values in cells). The linked hover is client side
(``evalmaps.compareHover`` in assets/evalmaps-hover.js): it outlines the hovered cell in the other maps
(an overlay over each map: no map is redrawn, so no hover label is lost) and fills the readout,
with no round trip.
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
    ctx,
    dcc,
    html,
    no_update,
)
from dash.exceptions import PreventUpdate

from components.compare import (
    axis_options,
    by_options,
    compare_figures,
    label_options,
    panel_options,
    readouts,
    rest_menus,
    rest_value,
    sentences_block,
    sides_card,
    summary_card,
)
from components.controls import export_control, figure_options, labelled, values_switch
from components.filters import filters, register_filters, scale_control
from components.heatmap import (
    LABELS_LINK,
    OVERVIEW_LINK,
    apply_scale,
    every_label_width,
    gaps_note,
    labels_note,
)
from components.items import k_menu, k_options
from components.keyboard import keyboard_map
from components.reuse import annotate, elide
from components.theme import GRAPH_FRAME_PX, graph_config, reserved_height
from evalmaps.analysis import export as exporting
from evalmaps.analysis.compare import (
    CompareError,
    align,
    default_pair,
    figure_of,
    is_derived,
    is_label_ref,
    label_grid,
    parse_label_ref,
    resolve_pair,
)
from evalmaps.analysis.uncertainty import item_errors
from evalmaps.catalog.items import catalog_at
from evalmaps.core.figure import slugify
from evalmaps.core.text import NOT_REPORTED
from evalmaps.views import CompareView
from evalmaps.views.state import (
    DEFAULT_COMPARE_COLOR,
    CompareState,
    compare_clusters,
    compare_items_kept,
    compare_max_k,
    parse_compare_state,
)
from evalmaps.views.transitions import (
    BY_PANELS,
    Move,
    Unchanged,
    axis_picked,
    by_picked,
    figure_picked,
    mean_used,
    menu_picked,
    same_view,
    shown_state,
    swapped,
    ticks_kept,
)
from layouts._shared import (
    LIVE,
    UPLOADS,
    Outputs,
    boundary,
    get_catalog,
    group,
    live_drawn,
    live_drawn_id,
    page_location,
    problems_alert,
    register_nav_sync,
    stored_ids,
    waiting_for,
    waiting_page,
)

dash.register_page(__name__, path="/compare", name="Compare", title="evalmaps · Compare", order=2,
                   shows_grid="cell")  # a cell's items (AG Grid): its code comes with ?cell=

PAGE = "compare"
SIDES = ("a", "b", "delta")
COLOR_OPTIONS = [
    {"label": "Shared", "value": "shared"},  # the min..max of the cells A and B show
    {"label": "Figures' own", "value": "figure"},
    {"label": "Metric's range", "value": "fixed"},
]
EMPTY = {"data": [], "layout": {}}
HIDDEN = {"display": "none"}
SIDE_OPTIONS = [{"label": "A", "value": "a"}, {"label": "B", "value": "b"}]
READOUT_HINT = ("Hover a cell in any map, or Tab to a map and use the arrow keys: the same cell "
                "is outlined in the other two, and its A, B and B − A values show here.")


def graph_id(side: str) -> dict:
    """Pattern-style ids, like the browse page's heatmaps (tests find them the same way)."""
    return {"type": "compare-heatmap", "panel": side}


def mark_id(side: str) -> dict:
    return {"type": "compare-mark", "panel": side}


def _graph(side: str, figure, style):
    """A map and its linked-hover outline (an overlay placed by evalmaps.compareHover), in the
    keyboard frame (components.keyboard: Compare's readout is its live region). ``style``: the
    graph's (:func:`graph_style`; ``no_update``: no map to draw)."""
    return keyboard_map(
        dcc.Graph(id=graph_id(side), figure=figure if figure is not no_update else EMPTY,
                  config=graph_config("compare", side), className="heatmap-graph",
                  style=reserved_height(None) if style is no_update else style),
        html.Div(id=mark_id(side), className="compare-mark", style=HIDDEN),
        name="B − A" if side == "delta" else f"Map {side.upper()}", live=False,
        missing="not comparable" if side == "delta" else NOT_REPORTED, className="compare-map")


def cluster_options(kept) -> list[dict]:
    """The standard errors' menu: not clustered, or clustered by a column both sides' items
    keep (an import's --cluster COL)."""
    return [{"label": "Not clustered", "value": ""},
            *({"label": f"Clustered by {c}", "value": c} for c in kept)]


def cluster_menu(options: list[dict], value: str) -> dbc.Col:
    """Which standard error B − A's hover, readout and tests use (URL ``cluster``), shown only
    where both sides' items keep a cluster column."""
    return dbc.Col(html.Div([
        dbc.Label("Standard errors", html_for="compare-cluster",
                  className="small fw-semibold mb-1"),
        dcc.Dropdown(id="compare-cluster", options=options, value=value, clearable=False,
                     searchable=False),
    ], title="Items of one cluster (a passage, a source data set) are not independent: "
             "clustered standard errors count each cluster once (Miller, 2024)"),
        md=2, className="mb-2", id="compare-cluster-col",
        style=None if len(options) > 1 else HIDDEN)


def menu(component_id: str, options: list[dict], value: str, **props) -> dcc.Dropdown:
    """A figure or panel menu of one side."""
    return dcc.Dropdown(id=component_id, options=options, value=value, clearable=False,
                        searchable=True, optionHeight=50, **props)


def column(label, control, html_for: str, width: int, **col) -> dbc.Col:
    """A labelled control (as components.controls.labelled) whose column or label can change:
    ``col`` (the column's id and style), the label's id ``<html_for>-label``."""
    return dbc.Col([dbc.Label(label, html_for=html_for, id=f"{html_for}-label",
                              className="small fw-semibold mb-1"), control],
                   md=width, className="mb-2", **col)


MEAN_COLS = ("compare-mean-figure-col", "compare-mean-col", "compare-mean-use-col")
FIGURE_MENUS = ("compare-a-figure", "compare-b-figure", "compare-mean-figure")


def _waiting(query, catalog) -> tuple[str, str] | None:
    """The watched figure with no file yet that A or B names, and what its page says."""
    for key in ("a", "b"):
        ref = query.get(key)
        ref = ref[0] if isinstance(ref, list) and ref else ref
        if not isinstance(ref, str):
            continue
        figure_id = figure_of(ref)  # "" for a reference that names no panel: not waited for
        text = waiting_for(figure_id, catalog)
        if text:
            return figure_id, text
    return None


def layout(uploads=None, **query):
    catalog = get_catalog(uploads, *stored_ids(*query.values()))
    waiting = _waiting(query, catalog)
    if waiting:  # a watched folder's figure with no file yet: drawn when it arrives
        return waiting_page(PAGE, *waiting)
    state = parse_compare_state(query, catalog)
    values = render(catalog, state)
    figures = figure_options(catalog)  # the three figure menus' (render's callers need none)
    a_figure = figure_of(state.a) if not is_derived(state.a) else ""
    return dbc.Container([
        page_location(PAGE, a_figure, watched=(values["a_figure"], values["b_figure"])),
        dcc.Store(id="compare-cells", data=values["cells"]),
        dcc.Store(id="compare-default-color", data=DEFAULT_COMPARE_COLOR),
        dcc.Store(id="compare-hovered", data=None),  # the last hovered cell, to re-place outlines
        # the maps' axis labels (ticks=all: every one), which no control sets: kept in the URL
        dcc.Store(id="compare-ticks", data=state.ticks),
        # the maps' arrays the page holds (their digests), the server's next maps (arrays the
        # page holds written as references: components.reuse) and a request for them whole;
        # not None at first: a memory store reports a None as a change when it mounts
        dcc.Store(id="compare-held", data=values["held"]),
        dcc.Store(id="compare-incoming", data=[]),
        dcc.Store(id="compare-stale", data=0),
        html.Div(values["problems"], id="compare-problems"),
        filters(PAGE, [dbc.Row([
            labelled("Compare", menu("compare-by", values["by_options"], values["by"]),
                     html_for="compare-by", width=2),
            labelled("A: figure", menu("compare-a-figure", figures,
                                       values["a_figure"]), html_for="compare-a-figure", width=2),
            column(values["a_label"], menu("compare-a", values["a_options"], state.a),
                   html_for="compare-a", width=2),
            dbc.Col(dbc.Button("⇄ Swap", id="compare-swap", color="secondary", outline=True,
                               size="sm", title="Swap A and B"),
                    md=1, className="mb-2 pt-md-4 text-md-center"),
            labelled("B: figure", menu("compare-b-figure", figures, values["b_figure"],
                                       disabled=values["b_figure_disabled"]),
                     html_for="compare-b-figure", width=2),
            column(values["b_label"], menu("compare-b", values["b_options"], state.b),
                   html_for="compare-b", width=3),
        ], className="g-3 controls-row"),
        # two labels of a dimension: the grid's rows and columns, the other dimensions
        dbc.Row([
            labelled("Rows", menu("compare-ydim", values["ydim_options"], values["ydim"]),
                     html_for="compare-ydim", width=2),
            labelled("Columns", menu("compare-xdim", values["xdim_options"], values["xdim"]),
                     html_for="compare-xdim", width=2),
            dbc.Col(dbc.Row(values["rest"], id="compare-rest", className="g-3"), md=8),
        ], id="compare-grid", className="g-3 controls-row", style=values["grid_style"]),
        dbc.Row([
            column("Mean: figure", menu("compare-mean-figure", figures, values["mean_figure"]),
                   html_for="compare-mean-figure", width=3, id=MEAN_COLS[0],
                   style=values["mean_style"][0]),
            column("Mean of panels (derived: over the cells all report)",
                   dcc.Dropdown(id="compare-mean", options=values["mean_options"],
                                value=values["mean"], multi=True, searchable=True,
                                placeholder="Pick two or more panels, then use their mean as A "
                                            "or B"), html_for="compare-mean", width=4,
                   id=MEAN_COLS[1], style=values["mean_style"][1]),
            dbc.Col(dbc.ButtonGroup([
                dbc.Button("Use as A", id="compare-mean-as-a", color="primary", outline=True,
                           size="sm"),
                dbc.Button("Use as B", id="compare-mean-as-b", color="primary", outline=True,
                           size="sm"),
            ]), md=2, className="mb-2 pt-md-4", id=MEAN_COLS[2], style=values["mean_style"][2]),
            labelled("Colour range (A and B)",
                     dbc.RadioItems(id="compare-color", options=COLOR_OPTIONS, value=state.color,
                                    inline=True, className="small"), width=3),
            dbc.Col([values_switch("compare-labels", state.show_values),
                     dbc.Switch(id="compare-pct", value=state.pct, label="Percent",
                                className="small mb-0"),
                     html.Div(dbc.Switch(
                         id="compare-power", value=values["power"], className="small mb-0",
                         label="Power map (B − A)"), id="compare-power-col",
                         style=values["power_style"],
                         title="B − A coloured by the smallest difference each cell's items "
                               "detect (mde: 80% power at the 5% level): red where the "
                               "benchmark is too small to tell A and B apart")], md=2,
                    className="mb-2 pt-md-3"),
            labelled("Colour scale (A and B)", scale_control("compare-scale", state.scale),
                     width=3),
            k_menu(PAGE, values["k_most"], state.k),
            cluster_menu(values["cluster_options"], values["cluster"]),
        ], className="g-3 align-items-start controls-row")]),
        html.Div(values["error"], id="compare-error"),
        html.Div([
            html.H4(values["heading"], id="compare-heading", className="mt-2 figure-title"),
            html.Div(values["text"], id="compare-text"),
            html.Div(values["readout"], id="compare-readout", className=values["readout_class"],
                     role="status", **{"aria-live": "polite"}),
            html.Div([_graph(side, fig, style) for side, fig, style
                      in zip(SIDES, values["figures"], values["graph_styles"])],
                     id="compare-maps", className=values["maps_class"]
                     if values["maps_class"] is not no_update else "compare-maps"),
            html.Div(values["legend"], id="compare-legend", className="small text-muted mt-1"),
            compare_items.first_panel(catalog, query),  # the items behind a cell of B − A
            export_control(PAGE, SIDE_OPTIONS, "a", panel_label="Which panel"),
            html.Div(values["cards"], id="compare-cards", className="mt-3"),
        ], id="compare-body", style=values["body_style"]),
    ], fluid=True, className="py-3")


# --------------------------------------------------------------------------- rendering

def render(catalog, state: CompareState, problems: tuple[str, ...] = ()) -> dict:
    """Every output's value for a state (the layout's first paint and the sync callback)."""
    problems = (*state.problems, *problems)
    failed = None  # why two labels of a dimension cannot be compared (shown as the error)
    most = compare_max_k(catalog, state.a, state.b)
    k = state.k if state.k <= most else 1
    at_k = catalog_at(catalog, k)  # at k > 1 every side's cells are the pass@k of their items
    kept = () if state.averaged else compare_clusters(catalog, state.a, state.b)
    cluster = state.cluster if state.cluster in kept else None
    try:
        a_side, b_side = resolve_pair(at_k, state.a, state.b, **state.grid_args())
        if state.pct:  # fractions written as percent (each side that holds fractions)
            a_side, b_side = a_side.as_percent(), b_side.as_percent()
    except CompareError as exc:  # parse_compare_state checked them: only if the catalog changed
        a_side = b_side = None
        if state.labels:
            failed = str(exc)
        else:
            problems = (*problems, str(exc))
    derived = [s for s in (a_side, b_side) if s is not None and s.is_mean]
    mean = list(derived[0].sources) if derived else []  # the builder shows what it made
    a_figure, b_figure = figure_of(state.a), figure_of(state.b)
    mean_figure = figure_of(mean[0]) if mean else a_figure
    out = {
        "a": state.a, "b": state.b, "color": state.color, "show_values": state.show_values,
        "scale": state.scale,
        "pct": state.pct,
        "a_figure": a_figure, "b_figure": b_figure, "mean_figure": mean_figure,
        "mean_options": panel_options(catalog, mean_figure, keep=mean),
        "mean": mean,
        "problems": problems_alert(problems),
        "readout": READOUT_HINT,
        "readout_class": "compare-readout",
        "k": k, "k_most": most, "k_options": k_options(most),
        "k_style": None if most > 1 else HIDDEN,
        "ticks": state.ticks,
        "power": state.power, "power_style": None if compare_items_kept(catalog, state)
        else HIDDEN,
        "cluster": cluster or "", "cluster_options": cluster_options(kept),
        "cluster_style": None if kept else HIDDEN,
        "by_options": by_options(catalog.figure(a_figure) if a_figure in catalog else None),
        **_side_menus(catalog, state, a_side, derived),
    }
    try:
        if failed:
            raise CompareError(failed)
        if a_side is None or b_side is None:
            raise CompareError("Pick panels A and B.")
        view = CompareView.of_sides(at_k, a_side, b_side, k, cluster,  # as /compare.json's
                                    state.ticks)
    except CompareError as exc:
        return {**out, "error": dbc.Alert(str(exc), color="danger", className="py-2",
                                          id="compare-error-alert"),
                "body_style": {"display": "none"}, "heading": "", "text": "", "cells": None,
                "figures": [no_update] * 3, "held": no_update, "graph_styles": [no_update] * 3,
                "maps_class": no_update, "legend": "", "cards": ""}
    al, numbers = view.alignment, view.summary
    warnings = dbc.Alert(" ".join(al.warnings), color="warning", className="py-2 small",
                         id="compare-warnings") if al.warnings else None
    legend = []
    power = state.power and bool(al.paired)
    if power:
        legend.append("Power map: each cell of B − A is coloured by the smallest difference its "
                      "items detect (mde = 2.8 SE of the paired differences"
                      + (f", clustered by {al.cluster}" if al.cluster else "")
                      + ": 80% power at the 5% level), light where small differences are "
                      "detected, red where the items are too few to tell A and B apart; the "
                      "hover gives B − A itself. ")
    if al.paired:
        legend.append("Dotted outline on B − A: not distinguishable by the paired test on the "
                      "items both answered (Benjamini-Hochberg adjusted p ≥ 0.05 over the map's "
                      "tested cells). ")
    if al.se is not None and len(al.paired or {}) < al.n_common:
        if al.paired:
            legend.append("Cells without items in common: ")
        legend.append("Dotted outline on B − A: |B − A| < 1.96 standard errors of the "
                      "difference (sqrt(seA² + seB²), each side's se as the source gives it, else "
                      "sd/√n), so the two are not distinguishable there. ")
    if power:
        legend.append("Grey cells: not reported (on B − A: missing in A or B, or no items in "
                      "common)." + ("" if al.higher_is_better else
                                    f" Lower is better for {al.a.metric.name}: the colours of A "
                                    "and B are reversed."))
    elif al.higher_is_better:
        legend.append("Grey cells: not reported (on B − A: missing in A or B). "
                      "B − A is blue where B is higher, red where it is lower.")
    else:
        legend.append(f"Lower is better for {al.a.metric.name}: the colours of A and B are "
                      "reversed (the best cells look alike everywhere), and B − A is blue where "
                      "B is better (lower), red where it is worse. Grey cells: not reported "
                      "(on B − A: missing in A or B).")
    gaps = gaps_note(len(al.y.labels), len(al.x.labels))
    if gaps:
        legend.append(" " + gaps)
    every = view.state.ticks == "all"
    thinned = labels_note(len(al.y.labels), len(al.x.labels), every)
    if thinned:
        legend += [" ", html.Span([thinned, *ticks_link(catalog, state)],
                                  id="compare-labels-note")]
    wide = len(al.x.labels) > 8
    figures, held = annotate([apply_scale(fig, state.scale)
                              for fig in compare_figures(al, state.color, state.show_values,
                                                         power, every)])
    return {
        **out,
        "error": None,
        "body_style": {},
        "heading": ["A · ", al.a.short, " vs B · ", al.b.short],
        "text": [warnings, sentences_block(al, numbers)],
        "cells": readouts(al),
        # paired cells: the readout holds their error bar and power too (its height reserved)
        "readout_class": "compare-readout" + (" compare-readout-power" if al.paired else ""),
        "figures": figures,
        "held": held,
        "graph_styles": [graph_style(fig, len(al.x.labels), every) for fig in figures],
        "maps_class": "compare-maps" + (" compare-maps-stacked" if wide else "")
        + (" compare-maps-every" if every else ""),
        "legend": legend,
        "cards": dbc.Row([dbc.Col(summary_card(al, numbers), lg=7),
                          dbc.Col(sides_card(al), lg=5)], className="g-3"),
    }


def graph_style(fig: dict, n_cols: int, every: bool) -> dict:
    """A map's graph style: its height held from the first paint (``reserved_height``); under
    ``ticks=all``, at least the width that gives every column a line (``every_label_width``,
    the same for A, B and B − A, whose margins are the same: their squares line up); on a
    narrower screen its panel scrolls sideways (``.compare-maps-every``)."""
    style = reserved_height(fig)
    if every:
        style["minWidth"] = f"{every_label_width(fig['layout'], n_cols) + GRAPH_FRAME_PX}px"
    return style


def ticks_link(catalog, state: CompareState) -> list:
    """The labels note's link: this comparison with every row and column labelled
    (``ticks=all``), or, under it, back to the overview (the key left off); none where A and
    B are labels of a figure with a dimension named ``ticks`` (there, the key is its label). A
    real link, as Browse's (layouts/browse.py); the colour keys the browser writes later are
    kept in it (``evalmapsLib.paint.restyle``)."""
    every = state.ticks == "all"
    target = replace(state, ticks="auto" if every else "all", problems=())
    if ticks_kept(catalog, target) != target:
        return []
    return [" ", html.A(OVERVIEW_LINK if every else LABELS_LINK, id="compare-ticks-link",
                        className="ticks-link", **{"data-ticks": target.ticks},
                        href=dash.get_relative_path("/compare")
                        + target.to_query(default_pair(catalog)))]


def _side_menus(catalog, state: CompareState, a_side, derived) -> dict:
    """The menus that differ between panels and two labels of a dimension: what A and B are
    ('Compare'), their menus and labels, the grid's row (rows, columns, the other dimensions)
    and the mean builder (panels only). ``rest_key``: the other dimensions' menus as
    [[dim, value], ...], to tell whether the page shows them already."""
    panels = {
        "by": BY_PANELS, "a_label": "A: panel", "b_label": "B: panel",
        "a_options": panel_options(catalog, figure_of(state.a), extra=derived),
        "b_options": panel_options(catalog, figure_of(state.b), against=a_side, extra=derived),
        "b_figure_disabled": False, "grid_style": HIDDEN, "ydim": None, "ydim_options": [],
        "xdim": None, "xdim_options": [], "rest": [], "rest_key": [],
        "mean_style": [{}] * len(MEAN_COLS),
    }
    if not state.labels:
        return panels
    try:
        figure, dim, _ = parse_label_ref(catalog, state.a)
        grid = label_grid(figure.spec, dim, **state.grid_args())
    except CompareError:  # the catalog changed under the URL: the menus of panels
        return panels
    title = figure.spec.dims[dim].title
    options = label_options(figure, dim)
    return {
        "by": dim, "a_label": f"A: {title}", "b_label": f"B: {title}",
        "a_options": options, "b_options": options,
        "b_figure_disabled": True, "grid_style": {}, "ydim": grid.y,
        "ydim_options": axis_options(figure, dim, rows=True), "xdim": grid.x,
        "xdim_options": axis_options(figure, dim, rows=False),
        "rest": rest_menus(figure, grid),
        "rest_key": [[d, rest_value(grid, d)] for d in [*dict(grid.fixed), *grid.averaged]],
        "mean_style": [HIDDEN] * len(MEAN_COLS),
    }


# --------------------------------------------------------------------------- the sync callback

OUT = Outputs(
    search=Output("compare-loc", "search"),
    a_figure=Output("compare-a-figure", "value"),
    a=Output("compare-a", "value"),
    a_options=Output("compare-a", "options"),
    b_figure=Output("compare-b-figure", "value"),
    b=Output("compare-b", "value"),
    b_options=Output("compare-b", "options"),
    mean_figure=Output("compare-mean-figure", "value"),
    mean_options=Output("compare-mean", "options"),
    color=Output("compare-color", "value"),
    show_values=Output("compare-labels", "value"),
    scale=Output("compare-scale", "value"),
    pct=Output("compare-pct", "value"),
    k=Output("compare-k", "value"),
    k_options=Output("compare-k", "options"),
    k_style=Output("compare-k-col", "style"),
    cluster=Output("compare-cluster", "value"),
    cluster_options=Output("compare-cluster", "options"),
    cluster_style=Output("compare-cluster-col", "style"),
    power=Output("compare-power", "value"),
    power_style=Output("compare-power-col", "style"),
    ticks=Output("compare-ticks", "data"),
    mean=Output("compare-mean", "value"),
    problems=Output("compare-problems", "children"),
    error=Output("compare-error", "children"),
    body_style=Output("compare-body", "style"),
    heading=Output("compare-heading", "children"),
    text=Output("compare-text", "children"),
    cells=Output("compare-cells", "data"),
    readout=Output("compare-readout", "children"),
    readout_class=Output("compare-readout", "className"),
    incoming=Output("compare-incoming", "data"),  # the maps, drawn by evalmapsLib.compare.assemble
    held=Output("compare-held", "data"),
    graph_styles=[Output(graph_id(side), "style") for side in SIDES],
    marks=[Output(mark_id(side), "style") for side in SIDES],
    hovered=Output("compare-hovered", "data"),
    maps_class=Output("compare-maps", "className"),
    legend=Output("compare-legend", "children"),
    cards=Output("compare-cards", "children"),
    by=Output("compare-by", "value"),
    by_options=Output("compare-by", "options"),
    a_label=Output("compare-a-label", "children"),
    b_label=Output("compare-b-label", "children"),
    b_figure_disabled=Output("compare-b-figure", "disabled"),
    grid_style=Output("compare-grid", "style"),
    ydim=Output("compare-ydim", "value"),
    ydim_options=Output("compare-ydim", "options"),
    xdim=Output("compare-xdim", "value"),
    xdim_options=Output("compare-xdim", "options"),
    rest=Output("compare-rest", "children"),  # the other dimensions' menus, when they change
    mean_style=[Output(col, "style") for col in MEAN_COLS],
    live_drawn=Output(live_drawn_id(PAGE), "children"),  # what was drawn of watched figures
    # a watched figure's new version: the figure menus' titles (they count files) and options
    figure_options=[Output(menu_id, "options") for menu_id in FIGURE_MENUS],
)
CONTROLS = ("a", "b", "a_figure", "b_figure", "color", "show_values", "scale", "pct", "mean",
            "mean_figure", "mean_options", "by", "ydim", "xdim", "k",
            "cluster", "power", "ticks")  # written only if they change
SHOWN = ("a_options", "b_options", "problems", "error", "body_style", "heading", "text", "cells",
         "readout", "readout_class", "held", "graph_styles", "maps_class", "legend", "cards", "by_options",
         "a_label", "b_label", "b_figure_disabled", "grid_style", "ydim_options", "xdim_options",
         "mean_style", "k_options", "k_style", "cluster_options", "cluster_style",
         "power_style")
REST = {"type": "compare-rest", "dim": ALL}


@callback(
    output=OUT.spec,
    inputs=dict(
        search=Input("compare-loc", "search"),
        # what the page shows: a control already showing its value is not written again
        # (writing it would start the callbacks that listen to it: a restyle, the mean menu's
        # options)
        showing=group(
            a=Input("compare-a", "value"),
            b=Input("compare-b", "value"),
            a_figure=Input("compare-a-figure", "value"),
            b_figure=Input("compare-b-figure", "value"),
            color=State("compare-color", "value"),
            show_values=State("compare-labels", "value"),
            scale=State("compare-scale", "value"),
            pct=Input("compare-pct", "value"),
            k=Input("compare-k", "value"),
            cluster=Input("compare-cluster", "value"),
            power=Input("compare-power", "value"),
            ticks=State("compare-ticks", "data"),
            mean=State("compare-mean", "value"),
            mean_figure=State("compare-mean-figure", "value"),
            by=Input("compare-by", "value"),
            ydim=Input("compare-ydim", "value"),
            xdim=Input("compare-xdim", "value"),
            rest=Input(REST, "value"),
            rest_ids=State(REST, "id"),
        ),
        # buttons and the page's request for the maps whole: ctx.triggered_id says which
        pressed=group(
            _swap=Input("compare-swap", "n_clicks"),
            _mean_a=Input("compare-mean-as-a", "n_clicks"),
            _mean_b=Input("compare-mean-as-b", "n_clicks"),
            _stale=Input("compare-stale", "data"),
        ),
        held=State("compare-held", "data"),
        uploads=State(UPLOADS, "data"),
        live=Input(LIVE, "data"),  # a watched figure's new version: the URL's view drawn again
    ),
    prevent_initial_call=True,  # the layout renders the URL's state itself
)
@boundary
def sync(search, showing, pressed, held, uploads, live):
    """What changes the panels compared: the URL (back/forward), a menu, swap, a mean. The colour
    range and values in cells are restyled in the browser (``evalmaps.restyle``). The maps' arrays
    the page holds (``held``) are not sent again (components.reuse): a swap sends their labels,
    hovers and summary, not their values. ``compare-stale``: the page could not make the maps
    from what it holds; they are sent whole. ``showing``: what the page's controls show, by
    output name; ``pressed``: the buttons' clicks (``ctx.triggered_id`` says which was);
    ``live``: evalmaps-live.js's request to draw a watched figure's new version."""
    a, b = showing["a"], showing["b"]
    catalog = get_catalog(uploads, *stored_ids(search, a, b, showing["a_figure"],
                                               showing["b_figure"], showing["mean"]))
    triggered = ctx.triggered_id
    default = default_pair(catalog)
    shown = shown_state(catalog, showing, default)
    if triggered == LIVE:  # a figure shown has a new version: its maps and menus as they are now
        if search is None:
            raise PreventUpdate
        state = parse_compare_state(parse_qs(search.lstrip("?"), keep_blank_values=True), catalog)
        values = render(catalog, state)
        # the cell pointed at stays: its outlines and readout follow the maps as redrawn
        # (evalmapsLib.keys, evalmapsLib.hover: hovered again once they are drawn)
        return _outputs(values, held, controls=True, shown=showing, keep_hover=True,
                        figure_options=[figure_options(catalog)] * len(FIGURE_MENUS))
    if triggered == "compare-loc" or triggered is None:
        if search is None:
            raise PreventUpdate  # the location reports the URL as it mounts
        state = parse_compare_state(parse_qs(search.lstrip("?"), keep_blank_values=True), catalog)
        if same_view(state, shown, showing):  # only the style controls
            style = {k: v for k, v in (("color", state.color), ("show_values", state.show_values),
                                       ("scale", state.scale))
                     if v != showing[k]}
            if not style:
                raise PreventUpdate  # already shown: the location reporting the URL as it mounts
            return OUT(**style)
        return _outputs(render(catalog, state), held, controls=True, shown=showing)
    if triggered == "compare-stale":
        held = None
    try:
        move = _move(catalog, triggered, shown, showing, search, default)
    except Unchanged:
        raise PreventUpdate from None
    state = ticks_kept(catalog, move.state)
    values = render(catalog, state, move.problems)
    return _outputs(values, held, controls=move.controls, shown=showing,
                    search=state.to_query(default))


def _move(catalog, triggered, shown: CompareState, showing: dict, search: str | None,
          default: tuple[str, str]) -> Move:
    """The transition (evalmaps.views.transitions) of the control ``triggered`` names, from
    the state the page's controls show (``shown``); the URL (``search``) is the state the page
    showed before."""
    if triggered in ("compare-a-figure", "compare-b-figure"):  # a side's first fitting panel
        side = "a" if triggered == "compare-a-figure" else "b"
        return figure_picked(catalog, shown, side, showing[f"{side}_figure"])
    if triggered == "compare-by":  # panels, or two labels of a dimension of A's figure
        return by_picked(catalog, shown, showing["by"])
    if triggered in ("compare-ydim", "compare-xdim"):
        before = parse_compare_state(parse_qs((search or "").lstrip("?"),
                                              keep_blank_values=True), catalog)
        return axis_picked(catalog, shown, before, showing, triggered[8:])
    if triggered == "compare-swap":
        return swapped(shown)
    if triggered in ("compare-mean-as-a", "compare-mean-as-b"):
        return mean_used(catalog, shown, triggered[-1], showing["mean"])
    if isinstance(triggered, dict):  # another dimension's menu: fixed at a label, or averaged
        return Move(shown, controls=True)
    return menu_picked(catalog, shown, default)  # a side's menu (or the maps asked whole)


@callback(
    Output("compare-mean", "options", allow_duplicate=True),
    Input("compare-mean-figure", "value"),
    State("compare-mean", "value"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
@boundary
def mean_menu(figure_id, mean_keys, uploads):
    """The mean menu lists the picked figure's panels; its picks from other figures stay."""
    catalog = get_catalog(uploads, *stored_ids(figure_id, mean_keys))
    if figure_id not in catalog:
        raise PreventUpdate
    return panel_options(catalog, figure_id, keep=mean_keys or [])


def _outputs(values: dict, held: list[str] | None, controls: bool, shown: dict,
             keep_hover: bool = False, **extra) -> dict:
    """The callback's outputs: what is shown, and the menus only when they must change and
    show something else (``shown``: what the page shows); the maps with the arrays the page
    holds as references; the linked-hover outlines are hidden and the readout says how to use
    it (other maps), unless ``keep_hover`` (the same maps, a new version: the cell pointed at
    is hovered again in the browser); what was drawn of the watched figures (evalmaps-live.js)."""
    written = {key: values[key] for key in SHOWN if not (keep_hover and key == "readout")}
    if controls:
        written.update({key: values[key] for key in CONTROLS
                        if key not in shown or values[key] != shown[key]})
    ids = shown.get("rest_ids") if isinstance(shown.get("rest_ids"), list) else []
    showing_rest = [[i.get("dim") if isinstance(i, dict) else None, v]
                    for i, v in zip(ids, shown.get("rest") or [])]
    if values["rest_key"] != showing_rest:  # other dimensions' menus: only when they change
        written["rest"] = values["rest"]
    figures = values["figures"]
    incoming = no_update if all(f is no_update for f in figures) else elide(figures, held)
    hover = {} if keep_hover else {"marks": [HIDDEN] * len(SIDES), "hovered": None}
    return OUT(**written, incoming=incoming, **hover,
               live_drawn=live_drawn(values["a_figure"], values["b_figure"], shaped=False),
               **extra)


# One callback draws the maps: the server's (their arrays made from the ones the page holds,
# components.reuse; an array it no longer holds asks for the maps whole: it sets compare-stale
# with set_props, outside this chain of callbacks, which Dash would not let loop back), and the
# colour range, scale and values in cells, which change no data (the browser restyles the maps it
# holds). One, not two: a swap writes the menus and the style controls in the same response, and
# two callbacks would each start from the maps as they were and the last would win.
clientside_callback(
    ClientsideFunction(namespace="evalmaps", function_name="compareMaps"),
    *[Output(graph_id(side), "figure") for side in SIDES],
    Output("compare-loc", "search", allow_duplicate=True),
    Input("compare-incoming", "data"),
    Input("compare-color", "value"),
    Input("compare-labels", "value"),
    Input("compare-scale", "value"),
    State("compare-loc", "search"),
    State("compare-default-color", "data"),
    *[State(graph_id(side), "figure") for side in SIDES],
    prevent_initial_call=True,
)

# The linked hover: any map's hoverData outlines that cell in the other maps and fills the readout;
# a map's relayout (a resize) re-places the outlines.
clientside_callback(
    ClientsideFunction(namespace="evalmaps", function_name="compareHover"),
    *[Output(mark_id(side), "style", allow_duplicate=True) for side in SIDES],
    Output("compare-readout", "children", allow_duplicate=True),
    Output("compare-hovered", "data", allow_duplicate=True),
    *[Input(graph_id(side), "hoverData") for side in SIDES],
    *[Input(graph_id(side), "relayoutData") for side in SIDES],
    State("compare-cells", "data"),
    State("compare-hovered", "data"),
    prevent_initial_call=True,
)


register_filters(PAGE)


@callback(
    Output("compare-download", "data"),
    Output("compare-export-error", "children"),
    Input("compare-export", "n_clicks"),
    State("compare-export-format", "value"),
    State("compare-export-panel", "value"),
    State("compare-loc", "search"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
@boundary
def download_table(_clicks, table_format, which, search, uploads):
    """A or B, on the common labels its map shows, as a LaTeX or Markdown table."""
    catalog = get_catalog(uploads, *stored_ids(search))
    state = parse_compare_state(parse_qs((search or "").lstrip("?"), keep_blank_values=True),
                                catalog)
    try:
        al = align(*resolve_pair(catalog_at(catalog, state.k), state.a, state.b,
                                 **state.grid_args()))
        side = al.b if which == "b" else al.a
        table = exporting.table_of_side(al, "b" if which == "b" else "a")
        cluster = state.cluster if state.cluster in compare_clusters(catalog, state.a,
                                                                     state.b) else None
        if side.items is not None and not side.derived and side.n_averaged is None:
            table = exporting.with_item_errors(table, item_errors(
                side.items, dict(side.item_fixed), side.item_by, al.y.labels, al.x.labels,
                state.k, cluster), cluster)
        text = exporting.render(table, table_format or "latex")
    except (CompareError, exporting.ExportError) as exc:
        return no_update, str(exc)
    name = exporting.filename(table, table_format or "latex")
    if is_label_ref(state.a):  # '<figure>__model=EleutherAI/pythia-1.4b.tex': a file's name
        stem, dot, ext = name.rpartition(".")
        name = "__".join(slugify(part) for part in stem.split("__")) + dot + ext
    return dcc.send_string(text, name), ""


register_nav_sync(PAGE)

# The items behind a cell of B − A (its panel and callbacks): registered after the page's own,
# whose sync callback stays the first that writes the location.
from layouts import _compare_items as compare_items  # noqa: E402
