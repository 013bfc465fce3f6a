"""Rank view (/rank, issue 38): many models of one figure ranked per cell, with paired tests.

For a figure, the dimension ranked over (``by``, default ``model``), ``k`` where its items allow
pass@k and a slice of the other dimensions (``<dim>=<label>``, repeated), the page draws what
``/api/rank`` answers for the same query (``RankView.from_query(catalog, query).to_dict()``):
per cell a model x model map of B − A (row A, column B; a click, or Enter on a square, opens
that pair in Compare on that cell with its items), the "where" map (cells x models, coloured by
rank, outlined where best or tied) with a sentence per model, and the ranking table (sortable,
with its CSV). Which test was used, which intervals are drawn and what ``p_adjusted`` adjusts
over are said on the page.

The state is the URL (``evalmaps.views.state.RankState``): a control's change navigates to the
new address and Dash Pages draws the page anew for it, so a copied link, back and forward all
reopen a view. A page open on a watched folder's figure draws the figure's new version in place
(``redraw``, from assets/evalmaps-live.js's request), its address unchanged. The page reads
its URL forgivingly (what names nothing is dropped with a note);
``/api/rank`` refuses it instead.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import replace
from urllib.parse import parse_qs, quote

import dash
import dash_ag_grid as dag
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
)
from dash.exceptions import PreventUpdate

from components.controls import cluster_control, dom_id, figure_label, label_options, labelled
from components.dash_internals import PAGES_LOCATION
from components.filters import filters, register_filters
from components.items import k_menu
from components.keyboard import keyboard_map
from components.provenance import provenance_badge
from components.rank import (
    COLORBAR_PX,
    SQUARE_PX,
    WIDEST_COLUMN_PX,
    cell_name,
    model_order,
    pair_figure,
    pair_width,
    plural,
    sentences,
    span_text,
    table_rows,
    test_name,
    varying,
    where_figure,
    where_width,
    x_label_room,
)
from components.theme import GRAPH_FRAME_PX, graph_config, reserved_height
from evalmaps.catalog.items import max_k
from evalmaps.core import text as fmt
from evalmaps.core.errors import EvalmapsError
from evalmaps.views.rank import RankOverview, RankView
from evalmaps.views.state import (
    MAX_RANK_CELLS,
    RankState,
    default_rank_by,
    default_rank_slice,
    first,
    parse_rank_state,
    rank_dims,
    rankable,
)
from layouts._shared import (
    LIVE,
    UPLOADS,
    boundary,
    empty_note,
    get_catalog,
    live_drawn,
    live_drawn_id,
    page_location,
    problems_alert,
    register_nav_sync,
    stored_ids,
    waiting_for,
    waiting_page,
)

dash.register_page(__name__, path="/rank", name="Rank", title="evalmaps · Rank", order=3,
                   shows_grid=True)  # the ranking table: AG Grid's code comes with the page

PAGE = "rank"
MAX_PAIR_MAPS = 30  # cells whose pair map is drawn (the where map and the table hold them all)
SQUEEZE_MODELS = 12  # above this many models the pair maps are one a row (each scrolls sideways)


def pairs_id(index: int) -> dict:
    return {"type": "rank-pairs", "panel": str(index)}


WHERE_ID = {"type": "rank-where", "panel": "where"}


def layout(uploads=None, **query):
    catalog = get_catalog(uploads, *stored_ids(*query.values()))
    waiting = waiting_for(first(query.get("figure")), catalog)
    if waiting:  # a watched folder's figure with no file yet: drawn when it arrives
        return waiting_page(PAGE, first(query.get("figure")), waiting)
    state = parse_rank_state(query, catalog)
    if state is None:
        return dbc.Container([
            page_location(PAGE, ""),
            html.H4("Rank", className="mt-2 figure-title"),
            empty_note("No figure has a dimension of 3 labels or more to rank over."),
        ], fluid=True, className="py-3")
    figure = catalog.figure(state.figure)
    return dbc.Container([
        # what was drawn of the figure: no shape (layouts._shared.reshape leaves the page be;
        # a new version is drawn again by redraw, controls and all)
        page_location(PAGE, figure.id, watched=(figure.id,)),
        html.Div(content(catalog, figure, state, bool(query.get("figure"))), id="rank-content"),
    ], fluid=True, className="py-3")


def content(catalog, figure, state: RankState, named: bool) -> list:
    """What the page shows of ``state`` (all but its location): the notes on its address, the
    controls, the title and the ranking, or why there is none; ``named``: the address names
    the figure (else the across-figures section comes too)."""
    answer, failed = rank_answer(catalog, state)
    return [
        html.Div(problems_alert(state.problems), id="rank-problems"),
        filters(PAGE, [controls(catalog, figure, state)]),
        html.H4([f"Rank: {figure.spec.title}", provenance_badge(figure.spec.provenance,
                                                               with_id=True)],
                id="rank-title", className="mt-2 figure-title"),
        failed if failed is not None else body(figure, state, answer,
                                                overview=None if named
                                                else across_figures(catalog)),
    ]


@callback(
    Output("rank-content", "children"),
    Output(live_drawn_id(PAGE), "children"),
    Input(LIVE, "data"),
    State(PAGES_LOCATION, "search"),
    State("rank-rendered-figure", "data"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
@boundary
def redraw(live, search, rendered, uploads):
    """A watched figure the page shows has a new version (assets/evalmaps-live.js sets
    ``live-version``): the page's address drawn again in place, from the figure as it is now
    (its new models and cells in the maps, the table, the sentences and the menus), the URL
    and the page itself unchanged; what was drawn is said again, so that the page stops
    asking. Nothing when the figure is no longer served (evalmaps-live.js says it is gone) or
    the address names another."""
    if not live or not isinstance(search, str) or not isinstance(rendered, str):
        raise PreventUpdate
    query = {key: values[0] if len(values) == 1 else values
             for key, values in parse_qs(search.lstrip("?"), keep_blank_values=True).items()}
    catalog = get_catalog(uploads, rendered, *stored_ids(*query.values()))
    if rendered not in catalog:
        raise PreventUpdate
    state = parse_rank_state(query, catalog)
    if state is None or state.figure != rendered:
        raise PreventUpdate
    figure = catalog.figure(rendered)
    return (content(catalog, figure, state, bool(query.get("figure"))),
            live_drawn(figure.id, shaped=False))


def across_figures(catalog) -> html.Details:
    """The section of ``/rank`` that names no figure: where each model is best across every
    figure that ranks models (``/rank/overview.json``, :class:`RankOverview`), one row per
    figure and cell: the models best or tied there (the one alone best in bold), or, where no
    pair could be tested, the highest mean, said as such; a figure too big to rank here says
    why. Each figure's name opens its own ranking."""
    answer = RankOverview.from_query(catalog, {}).to_dict()
    rows = []
    for entry in answer["figures"]:
        link = html.A(entry["title"], href=entry["url"])
        if not entry["ranked"]:
            rows.append(html.Tr([html.Td(link), html.Td("—"),
                                 html.Td(f"Not ranked here: {entry['reason']}",
                                         className="text-muted")]))
            continue
        for k, cell in enumerate(entry["cells"]):
            where = " · ".join(cell["labels"].values()) or "all"
            if entry["tested"]:
                shown = [html.B(m) if m == cell["best"] else m for m in cell["best_or_tied"]]
                said = [x for m in shown for x in (m, ", ")][:-1]
            else:
                said = [", ".join(cell["highest"]), html.Span(" (highest mean, no test)",
                                                             className="text-muted")]
            rows.append(html.Tr([html.Td(link if k == 0 else ""), html.Td(where),
                                 html.Td(said)]))
    ranked = sum(entry["ranked"] for entry in answer["figures"])
    return html.Details([
        html.Summary(f"Across figures: where each model is best ({ranked} "
                     f"figure{'s' * (ranked != 1)} ranked)", className="h6 mb-2"),
        html.P(f"Every figure with a dimension of models, each ranked on its own (its "
               f"p-values adjusted by Benjamini-Hochberg within it, alpha "
               f"{answer['alpha']:g}). Best or tied: the model of the highest mean and every "
               "model not distinguishable from it; in bold the one alone best. Where no pair "
               "could be tested (means without standard errors), the highest mean, marked no "
               "test. The same numbers: /rank/overview.json.", className="small text-muted mb-1"),
        html.Div(dbc.Table([html.Thead(html.Tr([html.Th("Figure"), html.Th("Cell"),
                                                 html.Th("Best or tied")])),
                            html.Tbody(rows)], size="sm", bordered=True, className="small mb-0"),
                 className="table-responsive", style={"maxHeight": "420px"}),
    ], open=True, id="rank-overview", className="mb-3")


def rank_answer(catalog, state: RankState):
    """(``/api/rank``'s answer for the page's state, None) or (None, why there is none). The
    answer carries the ranking it was written from under :data:`RANKING` (the key of the maps
    drawn from it, :func:`drawn_maps`; the page sends none of it)."""
    try:
        view = RankView.from_query(catalog, state.query())
    except EvalmapsError as exc:
        return None, dbc.Alert(str(exc), color="danger", className="py-2", id="rank-error")
    return {**view.to_dict(), RANKING: view.ranking}, None


RANKING = "_ranking"  # the answer's Ranking, in the page's copy of the answer only
KEPT_PAGES = 2  # the maps of this many answers kept per process (50 models: about 7 MB each)
_drawn: OrderedDict = OrderedDict()  # id(ranking) -> (weak reference to it, maps)
_drawn_lock = threading.Lock()


def drawn_maps(figure, state: RankState, answer: dict, models: list[str], dims: list[str]):
    """The pair maps (of the first :data:`MAX_PAIR_MAPS` cells) and the where map of an answer,
    as Plotly figure dicts, kept for the last :data:`KEPT_PAGES` rankings (an answer kept by
    :data:`evalmaps.views.rank.KEPT_RANKINGS` is the same object again: its maps are the same),
    so that a page loaded again does not build its 2,450 squares a map again. The dicts are
    shared: read them, never change them."""
    ranking = answer.get(RANKING)
    with _drawn_lock:
        found = _drawn.get(id(ranking)) if ranking is not None else None
        if found is not None and found[0]() is ranking:
            _drawn.move_to_end(id(ranking))
            return found[1]
    maps = ([pair_figure(figure, answer, cell, models, state.k,
                         heading=f"B {fmt.MINUS} A · {cell_name(cell, dims)}")
             for cell in answer["cells"][:MAX_PAIR_MAPS]],
            where_figure(figure, answer, models))
    if ranking is not None:
        with _drawn_lock:
            _drawn[id(ranking)] = (weakref.ref(ranking), maps)
            while len(_drawn) > KEPT_PAGES:
                _drawn.popitem(last=False)
    return maps


# --------------------------------------------------------------------------- controls

def controls(catalog, figure, state: RankState) -> dbc.Row:
    spec = figure.spec
    figures = [{"label": figure_label(catalog.figure(fid)), "value": fid}
               for fid in rankable(catalog)]
    by_options = [{"label": f"{spec.dims[d].title} ({len(spec.dims[d].labels)} labels)",
                   "value": d} for d in rank_dims(figure)]
    chosen = dict(state.slice)
    menus = [labelled(f"{plural(spec.dims[d].title, 2)} ranked" if d == state.by
                      else spec.dims[d].title,
                      dcc.Dropdown(id={"type": "rank-slice", "dim": d},
                                   options=label_options(spec.dims[d].labels),
                                   value=list(chosen.get(d, spec.dims[d].labels)), multi=True,
                                   placeholder="All", maxHeight=240,
                                   className="rank-slice-menu"),
                      html_for=dom_id({"type": "rank-slice", "dim": d}), width=3)
             for d in [state.by, *(d for d in spec.dim_names if d != state.by)]
             if len(spec.dims[d].labels) > 1]  # one label: nothing to pick
    most = max_k(figure)
    return dbc.Row([
        labelled("Figure", dcc.Dropdown(id="rank-figure", options=figures, value=figure.id,
                                        clearable=False, searchable=True),
                 html_for="rank-figure", width=4),
        labelled("Rank", dcc.Dropdown(id="rank-by", options=by_options, value=state.by,
                                      clearable=False, searchable=False),
                 html_for="rank-by", width=2),
        k_menu(PAGE, most, state.k),
        cluster_control(PAGE, figure, state.cluster),  # Standard errors (issue 39)
        *menus,
    ], className="g-3 align-items-start controls-row")


@callback(
    Output(PAGES_LOCATION, "href", allow_duplicate=True),
    Input("rank-figure", "value"),
    Input("rank-by", "value"),
    Input("rank-k", "value"),
    Input("rank-cluster", "value"),
    Input({"type": "rank-slice", "dim": ALL}, "value"),
    State({"type": "rank-slice", "dim": ALL}, "id"),
    State("rank-rendered-figure", "data"),
    State(PAGES_LOCATION, "search"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
@boundary
def navigate(figure_id, by, k, cluster, facet_values, facet_ids, rendered, search, uploads):
    """A control's change: the page's new address (Dash Pages draws it anew). Another figure
    opens with its defaults; a menu emptied, or holding every label, keeps them all. Controls
    that show the address's own view change nothing: a page drawn anew for back or forward
    replaces controls of the same ids, which Dash reports as changed."""
    catalog = get_catalog(uploads, figure_id, rendered)
    if figure_id not in catalog or rendered not in catalog:
        raise PreventUpdate
    if figure_id != rendered:
        target = f"?figure={quote(figure_id)}"
    else:
        figure = catalog.figure(rendered)
        spec = figure.spec
        by = by if by in rank_dims(figure) else default_rank_by(figure)
        sliced = []
        for fid, values in zip(facet_ids or [], facet_values or []):
            dim = fid.get("dim") if isinstance(fid, dict) else None
            if dim not in spec.dims or not values:
                continue
            kept = tuple(label for label in spec.dims[dim].labels if label in set(values))
            if (dim != by or len(kept) >= 2) and kept and len(kept) < len(spec.dims[dim].labels):
                sliced.append((dim, kept))
        sliced.sort(key=lambda item: spec.dim_names.index(item[0]))  # as the URL has them
        k = int(k) if isinstance(k, (int, float)) and k >= 1 else 1
        shown = parse_rank_state(parse_qs((search or "").lstrip("?"), keep_blank_values=True),
                                 catalog)
        kept = figure.items.clusters if getattr(figure, "items", None) is not None else ()
        state = RankState(figure.id, by, k if k <= max_k(figure) else 1, tuple(sliced),
                          cluster=cluster if cluster in kept else None)  # the menu's
        if shown is not None and replace(shown, problems=()) == state:
            raise PreventUpdate  # the address's own view
        target = state.to_query()
    if target == (search or ""):
        raise PreventUpdate
    return dash.get_relative_path("/rank") + target


# --------------------------------------------------------------------------- the answer

def body(figure, state: RankState, answer: dict, overview=None) -> html.Div:
    """The ranking of one figure; ``overview``: the across-figures section (/rank with no
    figure), after the where map, so that the map stays in a phone's first screen."""
    by = answer["by"]
    by_title = figure.spec.dims[by].title
    cells = answer["cells"]
    if not cells:
        return html.Div(empty_note("Nothing to rank in this slice: no cell holds two or more "
                                   f"{by_title.lower()} labels with a value."), id="rank-body")
    models = list(answer.get("models") or model_order(
        {m["model"] for c in cells for m in c["models"]}))
    dims = varying(cells)
    shown = cells[:MAX_PAIR_MAPS]
    many = len(models) > SQUEEZE_MODELS
    maps = []
    figures, where = drawn_maps(figure, state, answer, models, dims)
    for j, (cell, fig) in enumerate(zip(shown, figures)):
        width = pair_width(len(models), models, right_margin(fig))
        graph = dcc.Graph(id=pairs_id(j), figure=fig,
                          config=graph_config(f"rank-{figure.id}", f"pairs-{j}"),
                          className="heatmap-graph rank-pairs-graph",
                          style=pair_style(fig, models, width, many))
        maps.append(html.Div(keyboard_map(graph, name=f"B − A, {cell_name(cell, dims)}",
                                          missing="no pair"), className="rank-map-scroll"))
    right = right_margin(where)
    where_style = {**reserved_height(where),
                   "minWidth": f"{where_width(len(cells), models, right=right)}px",
                   "maxWidth": f"{where_width(len(cells), models, WIDEST_COLUMN_PX, right)}px"}
    return html.Div([
        notes(answer, figure, state),
        html.Div([
            html.H5(f"Where each {by_title.lower()} is best", className="mt-3"),
            html.Div(keyboard_map(
                dcc.Graph(id=WHERE_ID, figure=where, className="heatmap-graph",
                          config=graph_config(f"rank-{figure.id}", "where"), style=where_style),
                name=f"where each {by_title.lower()} ranks"), className="rank-map-scroll"),
            html.Ul([html.Li(text) for text in sentences(answer, figure)], id="rank-sentences",
                    className="small mb-3"),
        ], id="rank-where"),
        overview,
        html.H5("Ranking", className="mt-3"),
        html.Div([html.A("Download CSV", id="rank-csv", href=csv_href(state),
                         download=f"{figure.id}__rank.csv",
                         className="btn btn-sm btn-outline-secondary"),
                  html.Span(" the table's numbers, unrounded (/api/rank?format=csv)",
                            className="small text-muted")], className="mb-2"),
        rank_table(answer, dims, figure),
        html.H5(f"Pairs: B {fmt.MINUS} A in each cell", className="mt-4"),
        html.P(f"Row A, column B: blue where B is better. Outlined: distinguishable "
               f"(Benjamini-Hochberg adjusted p < {answer.get('alpha', 0.05):g}). Click a "
               "square, or Tab to a map, move with the arrow keys and press Enter, to open that "
               "pair in Compare on that cell with its items.", className="small text-muted mb-1"),
        html.P(f"Pair maps of the first {MAX_PAIR_MAPS} of {len(cells)} cells; narrow the "
               f"slice to see the others.", className="small text-warning-emphasis")
        if len(cells) > MAX_PAIR_MAPS else None,
        html.Div(maps, id="rank-maps", className="rank-maps" + (" rank-maps-wide" if many else "")),
    ], id="rank-body", className="rank-body")


def csv_href(state: RankState) -> str:
    """The ranking table as CSV (``/api/rank?...&format=csv``): the same query, so the same
    numbers."""
    return dash.get_relative_path("/api/rank") + state.to_query() + "&format=csv"


BASIS = {
    "items": "per-item records: every pair is tested on the items both models answered",
    "standard errors": "no per-item records, so the test is unpaired",
}


NO_TEST = {
    "items": ": no pair has enough items both answered (a paired test needs at least 6).",
    "standard errors": ": no pair has a standard error on both sides.",
    "means": " (neither per-item records nor standard errors): the ranking is of the means "
             "alone.",
}


def notes(answer: dict, figure, state: RankState) -> html.Div:
    """What the page used, as the answer says it: the test (or that none can be made) and the
    data it rests on, what p_adjusted adjusts over, which intervals the table draws, warnings,
    and the slice the page opened on; the intervals' definitions and the answer's notes under
    "How these numbers are made"."""
    pairs = [p for c in answer["cells"] for p in c["pairs"]]
    tests = sorted({p.get("test") for p in pairs if p.get("test") not in (None, "none")}, key=str)
    basis = answer.get("basis")
    if tests:
        said = "; ".join(test_name(t) for t in tests) + "." + (
            f" The data has {BASIS[basis]}." if basis in BASIS else "")
    else:
        said = "none: no test can be made on this data" + NO_TEST.get(basis, ".")
    lines = [html.Li([html.Strong("Test: "), said], id="rank-test")]
    if answer.get("cluster"):  # the clustering, said where the test is (issue 39)
        lines.append(html.Li([html.Strong("Clustered: "), clustered_words(answer)],
                             id="rank-clustered"))
    if answer.get("p_adjusted"):
        lines.append(html.Li([html.Strong("p_adjusted: "), f"{answer['p_adjusted']}."],
                             id="rank-bh"))
    if answer.get("rank_interval"):
        lines.append(html.Li(["The table draws two rank intervals: the ",
                              html.Strong("marginal 95% rank interval"), " of each model alone "
                              "and the ", html.Strong("simultaneous 95% rank set"),
                              " of all models at once (a 'top 3' read from it holds for the "
                              "whole table)."], id="rank-intervals"))
    else:
        lines.append(html.Li("No rank intervals: the data gives no way to say how sure a rank "
                             "is.", id="rank-intervals"))
    lines += [html.Li(str(w), className="text-warning-emphasis")
              for w in answer.get("warnings") or []]
    spec = figure.spec
    opened = [d for d, _ in default_rank_slice(figure, state.by)]  # what the page fixes itself
    if opened and all(dict(state.slice).get(d) == default for d, default in
                      default_rank_slice(figure, state.by)):
        lines.append(html.Li(
            "The page opened on one " + " and one ".join(spec.dims[d].title.lower()
                                                          for d in opened)
            + f" (every cell would be more than {MAX_RANK_CELLS}): pick others in the menus.",
            id="rank-opened"))
    more = [html.Li([html.Strong(f"{name}: "), f"{text}."]) for name, text in (
        ("Mean's interval", answer.get("ci")), ("Rank interval", answer.get("rank_interval")),
        ("Rank set", answer.get("rank_set"))) if text]
    more += [html.Li(str(note)) for note in answer.get("notes") or []]
    return html.Div([
        html.Ul(lines, className="small mb-1"),
        html.Details([html.Summary("How these numbers are made", className="small"),
                      html.Ul(more, className="small mb-0 mt-1")], id="rank-how"),
    ], id="rank-notes", className="alert alert-light border py-2")


def clustered_words(answer: dict) -> str:
    """The answer's sentence on its clustering (:func:`evalmaps.analysis.rank.clustered_note`)."""
    said = next((n for n in answer.get("notes") or [] if n.startswith("Clustered by ")),
                f"Clustered by {answer['cluster']}.")
    return said[len("Clustered "):]  # after the line's own "Clustered: "


def right_margin(fig: dict) -> int:
    """A map's right margin as its figure gives it: the room of its colour bar
    (evalmaps.figures.heatmap.place_bar), or :data:`evalmaps.figures.rank.COLORBAR_PX` without
    one."""
    margin = (fig.get("layout") or {}).get("margin") or {}
    return int(margin["r"]) if "r" in margin else COLORBAR_PX


def pair_style(fig: dict, models: list[str], width: int, many: bool) -> dict:
    """A pair map's graph's style: its least width (:func:`evalmaps.figures.rank.pair_width`) and
    the height it is drawn at, reserved from the first paint (:func:`drawn_height`), and skipped
    by the browser while far from the screen (:func:`offscreen_style`). A map of many models
    (``many``: one a row) is exactly that wide, its squares
    :data:`evalmaps.figures.rank.SQUARE_PX` on every screen (a wider screen would widen them and
    could lay its x labels out level, which would change its height), and scrolls sideways in
    its frame where the screen is narrower."""
    height = drawn_height(fig, models, many)
    style = {"minWidth": f"{width}px", **({"maxWidth": f"{width}px"} if many else {})}
    if height is None:
        return style
    return {**style, "minHeight": f"{height}px", **offscreen_style(height, width)}


def drawn_height(fig: dict, models: list[str], many: bool) -> int | None:
    """The px a pair map's graph takes as drawn: its figure's height and frame
    (:func:`components.theme.reserved_height`) and, for a map of many models (its columns
    :data:`evalmaps.figures.rank.SQUARE_PX` wide), the room the browser's fit gives its x labels
    when they are upright (:func:`evalmaps.figures.rank.x_label_room`); None for a figure
    without a height. A map of few models shares the row with others, its width the screen's:
    its labels' room is known only in the browser."""
    reserved = reserved_height(fig).get("minHeight")
    if not reserved:
        return None
    return int(reserved[:-2]) + (x_label_room(models, SQUARE_PX) if many else 0)


def offscreen_style(height: int, width: int) -> dict:
    """A pair map's graph skipped by the browser's style, layout and paint while it is far from
    the screen (CSS ``content-visibility: auto``, its size the graph's reserved one, so that the
    page scrolls as before): plotly.js still draws every map (the paint benchmark waits for
    each), but the browser lays out and paints a map only near the screen, not all 14 maps of
    1,600 px each time plotly.js measures a label while it draws the next. ``height`` and
    ``width``: the graph's, its frame included."""
    inner = GRAPH_FRAME_PX  # the intrinsic size is the content's, inside border and padding
    return {"contentVisibility": "auto",
            "containIntrinsicSize": f"auto {width - inner}px auto {height - inner}px"}


def rank_table(answer: dict, dims: list[str], figure) -> dag.AgGrid:
    """The ranking table: sortable (AG Grid), every number the answer's, written as the page
    writes it (the CSV keeps them whole)."""
    spec = figure.spec
    by = answer["by"]
    rows = table_rows(answer, dims)
    facets_of = [c["labels"] for c in answer["cells"] for _ in c["models"]]  # rows' order
    for row, facets in zip(rows, facets_of):
        metric, decimals = spec.metric_for(facets), figure.decimals_for(facets)
        row["mean_text"] = fmt.mean(metric, row["mean"], decimals)
        row["ci_text"] = (f"{fmt.mean(metric, row['ci_low'], decimals)} – "
                          f"{fmt.mean(metric, row['ci_high'], decimals)}"
                          if fmt.finite(row["ci_low"]) and fmt.finite(row["ci_high"])
                          else fmt.DASH)
        row["rank_ci_text"] = span_text([row["rank_ci_low"], row["rank_ci_high"]])
        row["rank_set_text"] = span_text([row["rank_set_low"], row["rank_set_high"]])
        row["best_text"] = "★ best or tied" if row["best_or_tied"] else ""

    def text_of(field):
        return {"function": f"params.data.{field}"}

    columns = [{"field": d, "headerName": spec.dims[d].title if d in spec.dims else d,
                "filter": "agTextColumnFilter"} for d in dims]
    columns += [
        {"field": by, "headerName": spec.dims[by].title, "filter": "agTextColumnFilter",
         "minWidth": 160},
        {"field": "n", "headerName": "n", "type": "numericColumn", "maxWidth": 100},
        {"field": "mean", "headerName": "Mean", "type": "numericColumn",
         "valueFormatter": text_of("mean_text")},
        {"field": "ci_low", "headerName": "95% interval", "valueFormatter": text_of("ci_text"),
         "minWidth": 170},
        {"field": "rank", "headerName": "Rank", "type": "numericColumn", "maxWidth": 100},
        {"field": "rank_ci_low", "headerName": "Rank interval", "minWidth": 130,
         "headerTooltip": "The marginal 95% interval of this model's rank",
         "valueFormatter": text_of("rank_ci_text")},
        {"field": "rank_set_low", "headerName": "Rank set", "minWidth": 110,
         "headerTooltip": "The simultaneous 95% confidence set of every model's rank at once",
         "valueFormatter": text_of("rank_set_text")},
        {"field": "best_or_tied", "headerName": "Best or tied", "cellDataType": "text",
         "valueFormatter": text_of("best_text")},
    ]
    return dag.AgGrid(
        id="rank-table", rowData=rows, columnDefs=columns,
        defaultColDef={"sortable": True, "resizable": True, "flex": 1, "minWidth": 110},
        dashGridOptions={"animateRows": False, "pagination": len(rows) > 200,
                         "paginationPageSize": 100, "alwaysShowVerticalScroll": True,
                         "tabToNextCell": {"function": "false"},
                         "tabToNextHeader": {"function": "false"}},
        style={"height": f"{min(60 + 42 * len(rows), 520)}px"}, className="cells-grid")


# --------------------------------------------------------------------------- a pair to Compare

# A click on a square of a pair map opens that pair in Compare on that cell (its address is the
# square's customdata[1], written by evalmaps.figures.rank.pair_figure); Enter on a square does
# the same (assets/evalmaps-rank.js).
clientside_callback(
    ClientsideFunction(namespace="evalmaps", function_name="rankPairClick"),
    Output(PAGES_LOCATION, "href", allow_duplicate=True),
    Input({"type": "rank-pairs", "panel": ALL}, "clickData"),
    prevent_initial_call=True,
)

register_filters(PAGE)
register_nav_sync(PAGE)
