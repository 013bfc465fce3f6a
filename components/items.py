"""Builders of Compare's items panel: the items behind one cell of B − A (evalmaps.views.items).

The list is a dash-ag-grid (virtualised: a cell of 12,032 items paints only the rows in view);
its cells render as text, never as HTML. The texts of the item picked in it (prompt, target, A's
and B's responses) are shown below it, each shortened with the whole text one click away
(``<details>``), as the text children of html components: never markup.
"""

from __future__ import annotations

import dash_ag_grid as dag
import dash_bootstrap_components as dbc
from dash import dcc, html

from evalmaps.analysis.items import WHICH, WHICH_TITLES

SHORT = 240  # characters of a text shown before "show all"
TEXT_TITLES = (("prompt", "Prompt"), ("target", "Target"), ("a_response", "A's response"),
               ("b_response", "B's response"))
GRID_OPTIONS = {"animateRows": False, "rowSelection": {"mode": "singleRow",
                                                       "enableClickSelection": True,
                                                       "checkboxes": False},
                "tabToNextCell": {"function": "false"},
                "tabToNextHeader": {"function": "false"}}
HIDDEN = {"display": "none"}
SEARCH_WAIT_MS = 300  # the search goes to the server once typing pauses this long


MOUNTED = "-"  # the open and request stores' data before any cell or location is passed on


def score_column(field: str, title: str) -> dict:
    return {"field": field, "headerName": title, "type": "numericColumn",
            "filter": "agNumberColumnFilter",
            "valueFormatter": {"function": "params.value == null ? '' : "
                                           "d3.format('.4~f')(params.value)"}}


def columns(samples: bool, a_name: str = "A", b_name: str = "B") -> list[dict]:
    """The grid's columns: the item's id, A's and B's scores (and samples where several)."""
    out = [{"field": "item", "headerName": "Item", "filter": "agTextColumnFilter", "flex": 2},
           score_column("a", f"A · {a_name}"), score_column("b", f"B · {b_name}")]
    if samples:
        out += [{"field": "a_samples", "headerName": "A samples", "type": "numericColumn"},
                {"field": "b_samples", "headerName": "B samples", "type": "numericColumn"}]
    return out


def which_options(counts: dict | None) -> list[dict]:
    """The tabs: 'Only A right (1)', ...; a list without a count (scores not right or wrong)
    is disabled."""
    counts = counts or {}
    out = []
    for which in WHICH:
        n = counts.get(which)
        label = WHICH_TITLES[which] + ("" if n is None else f" ({n:,})")
        out.append({"label": label, "value": which,
                    "disabled": n is None and which != "all" and bool(counts)})
    return out


SHOWN = 20_000  # the most characters of one text the page holds; the whole is a link away


def shortened(text: str, whole: str | None = None):
    """A text as text: whole when short, else its start with the rest behind "show all"; past
    :data:`SHOWN` characters the page holds that many and links to the whole (``whole``: the
    item's JSON, its texts whole), so one huge text cannot swell the page."""
    if len(text) <= SHORT:
        return html.Pre(text, className="items-text")
    more = len(text) > SHOWN
    label = (f" show the first {SHOWN:,} of {len(text):,} characters" if more
             else f" show all {len(text):,} characters")
    body = [html.Pre(text[:SHOWN] + ("…" if more else ""), className="items-text")]
    if more and whole:
        body.append(html.A(f"The whole text ({len(text):,} characters, JSON)", href=whole,
                           className="small", target="_blank", rel="noopener"))
    return html.Details([
        html.Summary([html.Span(text[:SHORT] + "…", className="items-text"),
                      html.Span(label, className="small text-primary-emphasis ms-1")]),
        *body,
    ], className="items-details")


def detail(row: dict | None, a_name: str = "A", b_name: str = "B", whole: str | None = None):
    """One item's scores and texts (those its records keep); ``whole``: the item's JSON (its
    texts whole), linked from a text too long to hold in the page."""
    if not row:
        return html.Div("Pick an item in the list to read its prompt, target and responses.",
                        className="small text-muted")
    titles = dict(TEXT_TITLES, a_response=f"A's response ({a_name})",
                  b_response=f"B's response ({b_name})")
    parts = [html.Div([html.Span("Item ", className="text-muted"),
                       html.Span(row["item"], className="fw-semibold items-id"),
                       html.Span(f" · A {row['a']:.4g} · B {row['b']:.4g}",
                                 className="text-muted")], className="mb-1")]
    texts = [(key, title) for key, title in TEXT_TITLES if row.get(key) is not None]
    if not texts:
        parts.append(html.Div("The source keeps no texts for this item.",
                              className="small text-muted"))
    for key, _ in texts:
        parts.append(html.Div([html.Div(titles[key], className="small fw-semibold"),
                               shortened(str(row[key]), whole)], className="mb-2"))
    return html.Div(parts, className="items-detail-body")


def items_panel(page: str, values: dict, shown: list | None) -> html.Div:
    """The panel, hidden until a cell is opened: heading, note, tabs, search, links, the list
    and the picked item's texts. ``values``: what it shows (layouts._compare_items.panel);
    ``shown``: the query it shows, as its callback keys it."""
    return html.Div([
        html.Div([
            html.H5(values["title"], id=f"{page}-items-title", className="mb-0 me-auto"),
            dbc.Button("Close", id=f"{page}-items-close", size="sm", color="secondary",
                       outline=True, title="Close the items"),
        ], className="d-flex align-items-center gap-2 mb-2"),
        html.Div(values["note"], id=f"{page}-items-note", className="small mb-2"),
        dbc.RadioItems(id=f"{page}-items-which", options=values["options"], value=values["which"],
                       inline=True, className="btn-group flex-wrap items-tabs mb-2",
                       inputClassName="btn-check",
                       labelClassName="btn btn-outline-primary btn-sm",
                       labelCheckedClassName="active"),
        html.Div([
            dbc.Label("Search", html_for=f"{page}-items-search", className="small mb-0"),
            dbc.Input(id=f"{page}-items-search", type="search", size="sm", debounce=SEARCH_WAIT_MS,
                      placeholder="Search ids, scores, texts", className="items-search",
                      maxLength=200, value=values["search"]),
            html.Span(values["found"], id=f"{page}-items-found", className="small text-muted",
                      role="status", **{"aria-live": "polite"}),
            html.A("Download CSV", id=f"{page}-items-csv", href=values["csv"], className="btn btn-sm "
                   "btn-outline-secondary", download=""),
            html.A("Link to this list", id=f"{page}-items-link", href=values["link"],
                   className="btn btn-sm btn-outline-secondary"),
        ], className="d-flex flex-wrap gap-2 mb-2 align-items-center"),
        # the list only while a cell is open: a grid in the page would load AG Grid's code on
        # every Compare page (it loads when a grid first renders: assets/lazy.js)
        html.Div(items_grid(page, values) if shown is not None else None,
                 id=f"{page}-items-grid-box"),
        html.Div(values["detail"], id=f"{page}-items-detail", className="items-detail mt-2"),
        # Enter on a cell of B − A (JS); not None at first, as the request store below
        dcc.Store(id=f"{page}-items-open", data=MOUNTED),
        dcc.Store(id=f"{page}-items-shown", data=shown),  # the query the open panel shows
        dcc.Store(id=f"{page}-items-searched", data=values["search"]),  # the search the list shows
        # the location, while the panel is open; not None at first: a memory Store whose data
        # is None sets it as it mounts, which would call show_items on every first paint
        dcc.Store(id=f"{page}-items-request", data=MOUNTED),
    ], id=f"{page}-items", className="items-panel mt-3", style=values["style"],
        role="region", **{"aria-label": "The items behind a cell"})


def items_grid(page: str, values: dict):
    """The list of a cell's items (``values``: layouts._compare_items.panel)."""
    return dag.AgGrid(id=f"{page}-items-grid", rowData=values["rows"], columnDefs=values["columns"],
                      defaultColDef={"sortable": True, "resizable": True, "flex": 1,
                                     "minWidth": 90},
                      dashGridOptions=values["grid_options"], style=values["grid_style"],
                      className="items-grid")


def k_options(most: int) -> list[dict]:
    """The k menu's options: 1 (the mean over samples) to ``most``."""
    return [{"label": "1 (mean over samples)" if n == 1 else f"pass@{n}", "value": n}
            for n in range(1, max(most, 1) + 1)]


def k_menu(page: str, most: int, k: int) -> dbc.Col:
    """The pass@k menu (1 to ``most``, the fewest samples any item has; URL ``k``), shown only
    where the figure's items have several samples with 0/1 scores."""
    options = k_options(most)
    return dbc.Col(html.Div([
        dbc.Label("k (pass@k)", html_for=f"{page}-k", className="small fw-semibold mb-1"),
        dcc.Dropdown(id=f"{page}-k", options=options, value=k if k <= most else 1,
                     clearable=False, searchable=False),
    ], title="The unbiased pass@k of each item's samples, 1 − C(n−c, k)/C(n, k), averaged "
             "over the items (Chen et al., 2021)"), md=2, className="mb-2", id=f"{page}-k-col",
        style=None if most > 1 else HIDDEN)
