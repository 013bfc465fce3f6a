"""Trends view (/trends): line charts, per-line statistics and key observations of a slice.

Same slicing state as the browse view (figure, facets, rows, x range), plus the page's own keys:
``transpose=1`` (one line per column, against y), ``overlay=1`` (all panels in one chart),
``logx=1`` or ``0`` (the lines' axis on a log scale or not; absent: by its labels, see
:func:`evalmaps.analysis.trends.log_axis_default`) and ``threshold=<number>`` (default: each
panel's, 80% of its metric's range, see :func:`evalmaps.analysis.trends.default_threshold`;
the box is empty then, its placeholder the default). As on the browse view, the page's own ``dcc.Location``
(``trends-loc``) and the controls are kept in step by one callback; choosing another figure
navigates and the page renders anew. Callbacks only slice and call :mod:`evalmaps.analysis.trends`.
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import parse_qs

import dash
import dash_bootstrap_components as dbc
from dash import ALL, Input, Output, State, callback, ctx, dcc, html
from dash.exceptions import PreventUpdate

from components import controls as errors_menu  # the Standard errors menu
from components.controls import figure_row, labelled, rows_and_range, scale_switches
from components.filters import filters, register_filters
from components.items import k_menu
from components.provenance import provenance_badge, source_card
from components.theme import reserved_height
from components.trends import (
    chart_config,
    line_figure,
    observation_list,
    panel_summaries,
    rules_list,
    stats_columns,
    stats_grid,
    stats_rows,
)
from evalmaps.analysis import uncertainty
from evalmaps.analysis.slicing import views_for
from evalmaps.analysis.trends import (
    axis_numbers,
    axis_scale,
    default_threshold,
    prefix_note,
    rule_notes,
    short_titles,
)
from evalmaps.catalog.items import max_k
from evalmaps.views.models import TrendsView
from evalmaps.views.state import (
    TrendsOptions,
    ViewState,
    finite_number,
    first,
    parse_options,
    parse_state,
)
from layouts._shared import (
    Outputs,
    boundary,
    empty_note,
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

dash.register_page(__name__, path="/trends", name="Trends", title="evalmaps · Trends", order=1,
                   shows_grid=True)  # the statistics table: AG Grid's code comes with the page

PAGE = "trends"


def layout(uploads=None, **query):
    catalog = get_catalog(uploads, *stored_ids(query.get("figure")))
    waiting = waiting_for(first(query.get("figure")), catalog)
    if waiting:  # a watched folder's figure with no file yet: drawn when it arrives
        return waiting_page(PAGE, first(query.get("figure")), waiting)
    state = parse_state(query, catalog)
    options = parse_options(query)
    figure = catalog.figure(state.figure)
    spec = figure.spec
    xdim, ydim = spec.dims[spec.x], spec.dims[spec.y]
    drawn = render(figure, state, options)  # drawn with the page: no second round trip
    return dbc.Container([
        page_location(PAGE, figure.id),
        dcc.Store(id="trends-drawn", data=drawn_key(state, options)),
        html.Div(problems_alert((*state.problems, *options.problems)), id="trends-problems"),
        filters(PAGE, [figure_row(PAGE, catalog, figure, state), dbc.Row([
            *rows_and_range(PAGE, figure, state),
            labelled(f"Threshold ({spec.metric.name}, in the data's units)"
                     if spec.metrics is not None else
                     f"Threshold ({spec.metric.unit or spec.metric.name})",
                     dbc.Input(id="trends-threshold", type="number", value=options.threshold,
                               debounce=True, step="any", size="sm",
                               placeholder=drawn["threshold_placeholder"]),
                     html_for="trends-threshold", width=2),
            dbc.Col([
                dbc.Switch(id="trends-transpose", value=options.transpose, className="small mb-1",
                           label=f"Transpose: {spec.metric.name} against {ydim.title.lower()}, "
                                 f"one line per {xdim.title.lower()}"),
                dbc.Switch(id="trends-overlay", value=options.overlay, className="small mb-1",
                           label="Overlay panels in one chart"),
                dbc.Switch(id="trends-logx", value=drawn["logx"], className="small mb-0",
                           disabled=drawn["logx_disabled"],
                           label="Log x axis (0 drawn apart, at the left)"),
                *scale_switches(PAGE, figure, state, log=False),
            ], md=3, className="mb-2 pt-1"),
            k_menu(PAGE, max_k(figure), state.k),
            errors_menu.cluster_control(PAGE, figure, state.cluster),  # URL cluster (issue 39)
        ], className="g-3 align-items-start controls-row")]),
        html.H4([spec.title, provenance_badge(spec.provenance, with_id=True)], id="trends-title",
                className="mt-2 figure-title"),
        html.Div(drawn["summary"], id="trends-summary", className="small text-muted mb-2"),
        dbc.Card([
            dbc.CardHeader("Key observations", className="fw-semibold py-2"),
            dbc.CardBody(drawn["observations"], id="trends-observations", className="py-2"),
        ], className="mb-3 trends-card", id="trends-observations-card"),
        html.Div(drawn["graphs"], id="trends-graphs"),
        dbc.Card([
            dbc.CardHeader([html.Span("Statistics per line", className="fw-semibold"),
                            html.Span(" · click a column header to sort",
                                      className="small text-muted")], className="py-2"),
            dbc.CardBody([stats_grid("trends-table", drawn["table_rows"],
                                     drawn.get("table_columns", [])),
                          html.Div(drawn["rules"], id="trends-rules", className="mt-2")],
                         className="py-2"),
        ], className="mt-3 trends-card"),
        dbc.Card([
            dbc.CardHeader("Per panel: best and worst cell, effect of each axis",
                           className="fw-semibold py-2"),
            dbc.CardBody(drawn["panels"], id="trends-panels", className="py-2"),
        ], className="mt-3 trends-card"),
        source_card(spec, uncertainty.figure_notes(figure)),
    ], fluid=True, className="py-3 trends-page")


register_figure_navigation(PAGE, "/trends")
register_row_buttons(PAGE)
register_filters(PAGE)


OUT = Outputs(
    **slicing_outputs(PAGE),
    problems=Output("trends-problems", "children"),
    graphs=Output("trends-graphs", "children"),
    summary=Output("trends-summary", "children"),
    observations=Output("trends-observations", "children"),
    table_rows=Output("trends-table", "rowData"),
    table_columns=Output("trends-table", "columnDefs"),
    rules=Output("trends-rules", "children"),
    panels=Output("trends-panels", "children"),
    transpose=Output("trends-transpose", "value"),
    overlay=Output("trends-overlay", "value"),
    logx=Output("trends-logx", "value"),
    logx_disabled=Output("trends-logx", "disabled"),
    pct=Output("trends-pct", "value"),
    k=Output("trends-k", "value"),
    threshold=Output("trends-threshold", "value"),
    threshold_placeholder=Output("trends-threshold", "placeholder"),
    drawn=Output("trends-drawn", "data"),
    # a watched figure's new version, the same charts: redrawn in place (focus in them stays)
    **in_place_outputs("trends-chart"),
)


@callback(
    output=OUT.spec,
    inputs=dict(
        **slicing_inputs(PAGE),
        chart=group(
            transpose=Input("trends-transpose", "value"),
            overlay=Input("trends-overlay", "value"),
            threshold=Input("trends-threshold", "value"),
            logx=Input("trends-logx", "value"),
            k=Input("trends-k", "value"),  # pass@k (where the figure's items allow it)
        ),
        pct=Input("trends-pct", "value"),
        drawn=State("trends-drawn", "data"),
        map_ids=State({"type": "trends-chart", "panel": ALL}, "id"),
    ),
    prevent_initial_call=True,  # the layout draws the URL's view; its location reports changes
)
@boundary
def sync(slicing, chart, pct, drawn, map_ids):
    """What changes the page: the URL (back/forward), a slicing control (``slicing``:
    ``slicing_inputs``) or the chart's own controls (``chart``: the page's options)."""
    figure, state, query = read_view(PAGE, slicing, {"pct": pct})
    k = chart["k"]
    if query is None:  # a control: pass@k as the k menu shows it
        state = replace(state, k=k if isinstance(k, int) and 1 <= k <= max_k(figure) else 1)
    if query is not None:  # the URL changed: write the controls that differ; draw if it differs
        options = parse_options(query)
        key = drawn_key(state, options)
        out = {} if key == drawn and not live_redraw() else {
            "problems": problems_alert((*state.problems, *options.problems)),
            **render(figure, state, options), "drawn": key}
        maps = out.pop("redraw", None)
        if live_redraw():  # a new version: drawn again in place, the menus list new labels
            out.update(slicing_menus(figure, slicing),
                       live_drawn=live_drawn(figure.id))
            in_place(out, maps, map_ids)  # the same charts: only their figures are sent
        controls = {**slicing_values(state, figure, slicing["facet_ids"]),
                    "transpose": options.transpose, "overlay": options.overlay,
                    "threshold": options.threshold, "pct": state.pct, "k": state.k}
        now = {**slicing_shown(slicing), "transpose": bool(chart["transpose"]),
               "overlay": bool(chart["overlay"]), "threshold": chart["threshold"],
               "pct": bool(pct), "k": k}  # the log x switch: written with the drawing (render)
        out.update({k: v for k, v in controls.items() if v != now[k]})
        if not out:
            raise PreventUpdate  # the page was drawn for this URL (its first report as it mounts)
        return OUT(**out)
    # an empty box (or one a browser could not read as a number): each panel's default
    options = TrendsOptions(bool(chart["transpose"]), bool(chart["overlay"]),
                            finite_number(chart["threshold"]),
                            asked_logx(figure, state, chart, slicing["search"]))
    drawing = render(figure, state, options)
    drawing.pop("redraw", None)
    return OUT(search=state.to_query(extra=options.extra(), y_labels=row_labels(figure)),
               problems=None, drawn=drawn_key(state, options), **drawing)


def asked_logx(figure, state: ViewState, chart: dict, search: str | None) -> bool | None:
    """The URL's ``logx`` after a control changed: the switch's value when the switch changed
    (None when that is what the labels would pick anyway, so the URL leaves it out), else what
    the URL said (another control changes the slice; the axis keeps following its rule)."""
    if "trends-logx.value" not in ctx.triggered_prop_ids:
        return parse_options(parse_qs((search or "").lstrip("?"))).logx
    views, _ = views_for(figure, state)
    default = axis_scale(views, bool(chart["transpose"])).default
    return None if bool(chart["logx"]) == default else bool(chart["logx"])


def drawn_key(state: ViewState, options: TrendsOptions) -> str:
    """What the page shows depends on: the state's query with the page's keys, and the
    problems reported about the URL."""
    return "|".join([state.to_query(extra=options.extra()), *state.problems, *options.problems])


def render(figure, state: ViewState, options: TrendsOptions) -> dict:
    """Charts (``graphs``; ``redraw``: each chart's figure and style, to redraw them in place:
    not an output), summary, observations, table rows and columns, rule notes, panel summaries, the
    threshold box's placeholder and the log x switch (on where the axis is drawn on a log scale,
    disabled where it cannot be: a categorical axis, negative labels). At ``state.k`` > 1,
    every cell is the pass@k of its items (``figure_at``)."""
    view = TrendsView.of_state(figure, state, options)  # what /trends.json gives for it
    figure, views, empty = view.figure, list(view.views), view.empty
    spec = figure.spec
    rules = rules_list(rule_notes(spec, options.transpose, [v.shown for v in views]))
    scale = axis_scale(views, options.transpose, options.logx)
    switch = {"logx": scale.log, "logx_disabled": scale.unavailable is not None}
    if empty:
        return {"graphs": empty_note(empty), "summary": "", "observations": observation_list([]),
                "table_rows": [], "rules": rules, "panels": "",
                "threshold_placeholder": threshold_placeholder(views), **switch}
    trends = view.report
    names = short_titles(views)
    intervals = view.item_intervals
    levels = [p.threshold for p in trends.panels]  # each panel's (the URL's, or its default)
    if options.overlay and len(views) > 1:
        charts = [(line_figure(views, transpose=options.transpose,
                               threshold=levels[0] if len(set(levels)) == 1 else None,
                               names=names, log=scale.log, items=intervals), "overlay", 12)]
    else:
        width = 12 if len(views) == 1 else 6
        charts = [(line_figure([v], transpose=options.transpose, threshold=level,
                               names=[name], log=scale.log, items=intervals), v.panel.slug,
                   width)
                  for v, name, level in zip(views, names, levels)]
    graphs = dbc.Row([
        dbc.Col(dcc.Graph(id={"type": "trends-chart", "panel": key}, figure=fig,
                          config=chart_config(figure.id, key), className="trends-graph",
                          style=reserved_height(fig)), md=width)
        for fig, key, width in charts], className="g-2")
    maps = {key: {"figure": fig, "style": reserved_height(fig)} for fig, key, _ in charts}
    line_dim = spec.dims[spec.x if options.transpose else spec.y]
    axis_dim = spec.dims[spec.y if options.transpose else spec.x]
    shown = sum(v.n_cells for v in views)
    total = sum(v.z.size for v in views)
    summary = (f"{len(trends.lines)} line{'s' * (len(trends.lines) != 1)} "
               f"(one per {line_dim.title.lower()}) against {axis_dim.title.lower()} · "
               f"{len(views)} panel{'s' * (len(views) != 1)} · {shown} of {total} cells reported"
               f" · missing cells break the lines, nothing is interpolated")
    note = prefix_note(spec, trends.prefixes)
    if note:  # the whole names, once: legend, axes, table and sentences leave the start out
        summary = f"{note} (below without this start; the hover gives the whole name) · " \
                  f"{summary}"
    if scale.log:
        summary += (f" · {axis_dim.title.lower()} on a log scale"
                    + (", 0 drawn apart at the left" if 0 in axis_numbers(views, options.transpose)
                       else ""))
    elif options.logx and scale.unavailable:
        summary += f" · no log scale: {scale.unavailable[0].lower()}{scale.unavailable[1:-1]}"
    if intervals and state.cluster:
        summary += (" · shaded bands: 95% intervals, ± t standard errors of each cell's "
                    f"mean over its items clustered by {state.cluster} (the cluster-robust SE, "
                    "Student's t at clusters − 1 df; a Wilson interval where that would leave "
                    "the metric's range); means (per "
                    "line, per panel, marginal) get none")
    elif intervals:
        summary += (" · shaded bands: 95% intervals from each cell's items ("
                    + (f"a bootstrap over items of each item's pass@{state.k}" if state.k > 1
                       else "Wilson for a share right, else a bootstrap over items")
                    + "), within the metric's range; means (per line, per panel, marginal) "
                    "get none")
    elif any(v.se is not None or (v.sd is not None and v.n is not None) for v in views):
        summary += (" · shaded bands: ±1.96 standard errors where neighbouring cells have one "
                    "(a Wilson interval where that would leave the metric's range); "
                    "means (per line, per panel, marginal) get none: their cells share models "
                    "and items, so their errors are not independent")
    rows = stats_rows(trends, overlay=options.overlay and len(views) > 1)
    return {"graphs": graphs, "redraw": maps, "summary": summary,
            "observations": observation_list(trends.observations, spec.illustrative),
            "table_rows": rows,
            "table_columns": stats_columns(spec, options.transpose, trends.thresholds,
                                           len(views) > 1, [v.shown for v in views], rows),
            "rules": rules, "panels": panel_summaries(trends),
            "threshold_placeholder": threshold_placeholder(views), **switch}


def threshold_placeholder(views) -> str:
    """The threshold box's placeholder: what an empty box means, the panels' default in the
    data's units ('0.8'), or "each panel's" where they differ."""
    levels = list(dict.fromkeys(default_threshold(v.metric, v.panel.z) for v in views))
    return "" if not levels else f"{levels[0]:g}" if len(levels) == 1 else "each panel's"


register_nav_sync(PAGE)
errors_menu.register_cluster_control(PAGE)
