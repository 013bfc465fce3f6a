"""Compare's items panel (issue 27): clicking a cell of B − A, or pressing Enter on it, opens
the items behind it (components.items). Its state is in the URL, next to the comparison's:
``cell=<row label>|<column label>``, ``which`` (the list) and ``k``; so a link opens the same
list, and back and forward step through them.

- a clientside callback writes ``cell``/``which`` into the page's location from a click on
  B − A, Enter on it (assets/evalmaps-items.js sets ``compare-items-open``), a tab or Close;
- :func:`show_items` draws the panel from the location (only when what it shows changes);
- :func:`pick_item` shows the texts of the item picked in the list (read for that item only);
- :func:`search_items` lists the items that hold the search box's text (ids, scores and texts:
  the texts are searched on the server, where they are kept).
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import parse_qs, urlencode

import dash_bootstrap_components as dbc
from dash import Input, Output, State, callback, clientside_callback, no_update
from dash.exceptions import PreventUpdate

from components.items import (
    GRID_OPTIONS,
    HIDDEN,
    MOUNTED,
    columns,
    detail,
    items_grid,
    items_panel,
    which_options,
)
from evalmaps.analysis import compare as comparing
from evalmaps.core.errors import EvalmapsError
from evalmaps.views import items as items_view
from evalmaps.views.state import as_list, first, parse_compare_state
from layouts._shared import UPLOADS, boundary, get_catalog, stored_ids

PAGE = "compare"
FIT_ROWS = 8  # lists of up to this many rows are as tall as their rows
DELTA = {"type": "compare-heatmap", "panel": "delta"}


def _query(search: str | None) -> dict[str, list[str]]:
    return parse_qs((search or "").lstrip("?"), keep_blank_values=True)


def items_request(catalog, query: dict) -> items_view.ItemsQuery | None:
    """The items the page's query opens (None when no ``cell`` is given): the comparison the
    page shows, its cell ``cell=<row>|<column>``, ``which``, ``k`` and the search ``q``. A cell,
    list, k or search that does not fit is an error (shown in the panel)."""
    cell = items_view.parse_cell(first(query.get("cell")))
    if cell is None:
        return None
    state = parse_compare_state(query, catalog)
    a, b = comparing.resolve_pair(catalog, state.a, state.b, **state.grid_args())
    which = first(query.get("which")) or "all"
    return items_view.ItemsQuery(a, b, a.y.name, a.x.name, cell[0], cell[1],
                                 items_view.parse_k(query), which,
                                 search=items_view.parse_search(query))


def api_href(catalog, q: items_view.ItemsQuery) -> str:
    """/api/compare/items for the same list, as CSV."""
    pairs = [("a", q.a.ref), ("b", q.b.ref)]
    if q.a.grid is not None:
        grid = q.a.grid
        if grid.y != comparing.default_axes(catalog.figure(q.a.figure_ids[0]).spec, grid.dim)[0]:
            pairs.append(("ydim", grid.y))
        pairs.append(("xdim", grid.x))
        pairs += list(grid.fixed) + [("avg", d) for d in grid.averaged]
    if q.y_name != comparing.ONE_ROW:
        pairs.append((q.y_name, q.y_label))
    pairs += [(q.x_name, q.x_label), ("which", q.which)]
    if q.k != 1:
        pairs.append(("k", str(q.k)))
    if q.search:
        pairs.append(("q", q.search))
    return "/api/compare/items?" + urlencode(pairs + [("format", "csv")])


def panel(catalog, query: dict) -> dict:
    """Every output of the panel for a page query (the layout's first paint and
    :func:`show_items`)."""
    closed = {"style": HIDDEN, "title": "", "note": None, "options": which_options(None),
              "which": "all", "rows": [], "columns": columns(False), "csv": "", "link": "",
              "detail": detail(None), "search": "", "found": "", **grid_size(0)}
    try:
        q = items_request(catalog, query)
        if q is None:
            return closed
        cell = items_view.listed(catalog, q)
        rows = cell.rows(q.which, search=q.search, texts=False)
    except EvalmapsError as exc:
        return {**closed, "style": {}, "title": "Items",
                "note": dbc.Alert(str(exc), color="warning", className="py-2 small mb-2")}
    where = (f"{q.a.x.title} {q.x_label}" if q.y_name == comparing.ONE_ROW
             else f"{q.a.y.title} {q.y_label} · {q.a.x.title} {q.x_label}")
    title = f"Items at {where}" + (f" (pass@{q.k})" if q.k != 1 else "")
    notes = []
    if cell.why:
        notes.append(f"No items to list: {cell.why}.")
    else:
        notes.append(f"{cell.counts['all']:,} items both A ({q.a.short}) and B ({q.b.short}) "
                     "answered; a score is " +
                     ("the item's pass@{}".format(q.k) if q.k != 1 else
                      "the item's mean over its samples") +
                     ("; right means a score of 1" if cell.graded and _binary(cell)
                      else "; right means full credit, a score of 1" if cell.graded
                      else "; these scores are not right or wrong (not all within 0..1 with "
                           "higher better), so only All is listed") + ".")
        lacking = [f"{n:,} item{'s' * (n != 1)} only {side} has" for n, side in
                   ((cell.only_in_a, "A"), (cell.only_in_b, "B")) if n]
        if lacking:
            notes.append(" Not listed: " + " and ".join(lacking) + ".")
    first_row = cell.row(rows[0]["item"]) if rows else None  # its texts: that item's alone
    samples = bool(rows) and "a_samples" in rows[0]
    return {
        "style": {}, "title": title, "note": " ".join(notes),
        "options": which_options(cell.counts), "which": q.which, "rows": rows,
        "columns": columns(samples, q.a.short, q.b.short),
        "csv": api_href(catalog, q),
        "link": items_view.page_url(catalog, q, comparing.default_pair(catalog)),
        "detail": detail(first_row, q.a.short, q.b.short, item_json(catalog, q, first_row)),
        "search": q.search, "found": found_text(len(rows), q.search),
        **grid_size(len(rows)),
    }


def found_text(n: int, search: str) -> str:
    """'147 items found' under a search ('' for none)."""
    return f"{n:,} item{'s' * (n != 1)} found" if search else ""


def item_json(catalog, q, row: dict | None) -> str | None:
    """The item's JSON with its texts whole (``/compare/items.json?...&item=<id>``)."""
    if not row:
        return None
    page = items_view.page_url(catalog, q, comparing.default_pair(catalog))
    return ("/compare/items.json" + page[len("/compare"):] + "&"
            + urlencode({"item": row["item"]}))


def grid_size(n: int) -> dict:
    """The list's height: a few rows fit it (AG Grid's autoHeight), more scroll in 340 px."""
    if n <= FIT_ROWS:
        return {"grid_style": {}, "grid_options": {**GRID_OPTIONS, "domLayout": "autoHeight"}}
    return {"grid_style": {"height": "340px"}, "grid_options": dict(GRID_OPTIONS)}


def _binary(cell) -> bool:
    a, b = cell.a, cell.b
    return bool(((a == 0) | (a == 1)).all() and ((b == 0) | (b == 1)).all()) or cell.k > 1


def shown_key(query: dict) -> list:
    """What the panel shows, from a query: the comparison and the cell's keys (a style change
    leaves it as it is)."""
    ignored = {"color", "labels", "scale", "q"}  # the search: the list redraws its rows alone
    return sorted([k, v] for k, values in query.items() if k not in ignored
                  for v in as_list(values) or [])


def first_panel(catalog, query: dict):
    """The panel as the page's first paint shows it (``query``: the page's, as Dash Pages
    passes it to the layout)."""
    values = panel(catalog, query)
    return items_panel(PAGE, values, shown_key(query) if "cell" in query else None)


OUTPUTS = [Output(f"{PAGE}-items", "style"), Output(f"{PAGE}-items-title", "children"),
           Output(f"{PAGE}-items-note", "children"), Output(f"{PAGE}-items-which", "options"),
           Output(f"{PAGE}-items-which", "value"), Output(f"{PAGE}-items-csv", "href"),
           Output(f"{PAGE}-items-link", "href"), Output(f"{PAGE}-items-detail", "children"),
           Output(f"{PAGE}-items-shown", "data"), Output(f"{PAGE}-items-grid-box", "children"),
           Output(f"{PAGE}-items-search", "value"), Output(f"{PAGE}-items-searched", "data"),
           Output(f"{PAGE}-items-found", "children")]
KEYS = ("style", "title", "note", "options", "which", "csv", "link", "detail")


# the location, passed on to show_items only when the panel is open or opens: a change of the
# comparison with the panel closed costs no round trip
clientside_callback(
    """
    function (search, shown) {
        const opens = new URLSearchParams(search || "").has("cell");
        return (opens || shown) ? (search || "") : dash_clientside.no_update;
    }
    """,
    Output(f"{PAGE}-items-request", "data"),
    Input(f"{PAGE}-loc", "search"),
    State(f"{PAGE}-items-shown", "data"),
    prevent_initial_call=True,
)


@callback(*OUTPUTS, Input(f"{PAGE}-items-request", "data"),
          State(f"{PAGE}-items-shown", "data"), State(f"{PAGE}-items-search", "value"),
          State(UPLOADS, "data"), prevent_initial_call=True)
@boundary
def show_items(search, shown, typed, uploads):
    """The panel for the page's location (``compare-items-request``); nothing is redrawn when
    only a style key or the search changed (the search box wrote it: :func:`search_items`
    lists the rows; history, back and forward, renders the page anew). ``compare-items-shown``:
    the query the open panel shows, None when it is closed; ``typed``: the search box's text."""
    if search is None or search == MOUNTED:  # the layout drew the URL's panel
        raise PreventUpdate
    query = _query(search)
    key = shown_key(query) if "cell" in query else None
    if key == shown:
        raise PreventUpdate
    values = panel(get_catalog(uploads, *stored_ids(search)), query)
    # the box only when its text changes: a value set calls search_items, for nothing here
    box = no_update if values["search"] == (typed or "") else values["search"]
    return (*[values[k] for k in KEYS], key, items_grid(PAGE, values) if key is not None else None,
            box, values["search"], values["found"])


def open_request(search: str | None, uploads) -> tuple:
    """The catalog and the open list's query for the page's location (``search``); no update
    when no cell is open. A query that does not fit raises its EvalmapsError."""
    catalog = get_catalog(uploads, *stored_ids(search))
    q = items_request(catalog, _query(search))
    if q is None:
        raise PreventUpdate
    return catalog, q


@callback(Output(f"{PAGE}-items-detail", "children", allow_duplicate=True),
          Input(f"{PAGE}-items-grid", "selectedRows"), State(f"{PAGE}-loc", "search"),
          State(UPLOADS, "data"), prevent_initial_call=True)
@boundary
def pick_item(selected, search, uploads):
    """The texts of the item picked in the list, read for that item only."""
    if not selected or not isinstance(selected, list) or not isinstance(selected[0], dict):
        raise PreventUpdate
    try:
        catalog, q = open_request(search, uploads)
        cell = items_view.listed(catalog, q)
        row = cell.row(str(selected[0].get("item")))
    except EvalmapsError:
        return no_update
    return detail(row, q.a.short, q.b.short, item_json(catalog, q, row))


# cell, which and q in the location: a click on B − A, Enter on it, a tab, Close, and the
# search once the list shows it (compare-items-searched: a link copied from the address bar
# opens the list searched; one history entry per search, as typing waits SEARCH_WAIT_MS)
clientside_callback(
    """
    function (click, opened, which, close, searched, search) {
        const trig = (dash_clientside.callback_context.triggered || [])[0];
        const id = trig ? trig.prop_id : "";
        const p = new URLSearchParams(search || "");
        if (id.indexOf("compare-items-searched") === 0) {
            const text = searched || "";
            if (!p.has("cell")) { return dash_clientside.no_update; }
            if (text) { p.set("q", text); } else { p.delete("q"); }
        } else if (id.indexOf("compare-items-close") === 0) {
            p.delete("cell"); p.delete("which"); p.delete("q");
        } else if (id.indexOf("compare-items-open") === 0 && opened && opened.x !== undefined) {
            p.set("cell", opened.y + "|" + opened.x); p.delete("which"); p.delete("q");
        } else if (id.indexOf("compare-items-which") === 0) {
            if (!p.has("cell")) { return dash_clientside.no_update; }
            if (which && which !== "all") { p.set("which", which); } else { p.delete("which"); }
        } else if (click && click.points && click.points.length) {
            const pt = click.points[0];
            p.set("cell", String(pt.y) + "|" + String(pt.x)); p.delete("which"); p.delete("q");
        } else {
            return dash_clientside.no_update;
        }
        const out = p.toString() ? "?" + p.toString() : "";
        return out === (search || "") ? dash_clientside.no_update : out;
    }
    """,
    Output(f"{PAGE}-loc", "search", allow_duplicate=True),
    Input(DELTA, "clickData"),
    Input(f"{PAGE}-items-open", "data"),
    Input(f"{PAGE}-items-which", "value"),
    Input(f"{PAGE}-items-close", "n_clicks"),
    Input(f"{PAGE}-items-searched", "data"),
    State(f"{PAGE}-loc", "search"),
    prevent_initial_call=True,
)


@callback(Output(f"{PAGE}-items-grid", "rowData"),
          Output(f"{PAGE}-items-csv", "href", allow_duplicate=True),
          Output(f"{PAGE}-items-link", "href", allow_duplicate=True),
          Output(f"{PAGE}-items-searched", "data", allow_duplicate=True),
          Output(f"{PAGE}-items-found", "children", allow_duplicate=True),
          Input(f"{PAGE}-items-search", "value"), State(f"{PAGE}-items-searched", "data"),
          State(f"{PAGE}-loc", "search"), State(UPLOADS, "data"), prevent_initial_call=True)
@boundary
def search_items(typed, searched, search, uploads):
    """The open list's items that hold the search box's text (ids, scores as shown, texts:
    :meth:`evalmaps.analysis.items.CellItems.matches`), its CSV link and its link with ``q``,
    and how many were found. Nothing is redrawn when the list shows that search already (the
    panel, as it opens, shows its location's ``q``)."""
    text = typed or ""
    if text == (searched or ""):
        raise PreventUpdate
    try:
        catalog, q = open_request(search, uploads)
        q = replace(q, search=text[:items_view.MAX_SEARCH])
        rows = items_view.listed(catalog, q).rows(q.which, search=q.search, texts=False)
    except EvalmapsError:
        return no_update, no_update, no_update, no_update, no_update
    link = items_view.page_url(catalog, q, comparing.default_pair(catalog))
    return rows, api_href(catalog, q), link, text, found_text(len(rows), text)
