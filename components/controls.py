"""Dash control builders for the slicing state: figure, facets, rows, x range, colour, labels."""

from __future__ import annotations

import json

import dash_bootstrap_components as dbc
from dash import dcc, html

from evalmaps.core.figure import Catalog, Dim, Figure
from evalmaps.core.labels import shortened
from evalmaps.core.text import bidi_marked
from evalmaps.views.state import ViewState

COLOR_MODE_OPTIONS = [
    {"label": "Figure's own", "value": "figure"},
    {"label": "Metric's range", "value": "fixed"},
    {"label": "Shared across panels", "value": "shared"},
    {"label": "Each panel its own", "value": "panel"},
]


def labelled(label: str, control, html_for: str | None = None, width: int | None = None):
    return dbc.Col([dbc.Label(label, html_for=html_for, className="small fw-semibold mb-1"), control],
                   md=width, className="mb-2")


def dom_id(component_id: str | dict) -> str:
    """The id a component gets in the DOM: a dict id is JSON with sorted keys (Dash's own
    stringifyId), so a label's ``html_for`` can point at a pattern-matching control."""
    if isinstance(component_id, str):
        return component_id
    return json.dumps(component_id, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def figure_label(fig) -> str:
    """A figure as menus name it: its title, tagged when its values are illustrative."""
    if fig.spec.illustrative and "ILLUSTRATIVE" not in fig.spec.title:
        return f"{fig.spec.title} (illustrative)"
    return fig.spec.title


def panel_label(fig, panel) -> str:
    """A panel of another figure as a menu names it: the panel first, then its figure ('R1-Qwen —
    R1-Llama vs R1-Qwen: Pass@1 ...'): where a menu is cut short (a phone), what tells two
    panels of one figure apart still shows."""
    return f"{panel.title} — {figure_label(fig)}"


def figure_options(catalog: Catalog) -> list[dict]:
    return [{"label": figure_label(fig), "value": fig.id} for fig in catalog]


def figure_dropdown(component_id: str, catalog: Catalog, value: str) -> dcc.Dropdown:
    """The Figure menu ("type to search"): Dash focuses the selected option when it opens, and
    assets/evalmaps-menus.js sends what is typed there to the search box."""
    return dcc.Dropdown(id=component_id, options=figure_options(catalog), value=value,
                        clearable=False, searchable=True)


def facet_dropdowns(id_type: str, figure: Figure, state: ViewState, width: int = 3) -> list:
    """One multi-select per facet dimension (model, benchmark...): which panels show."""
    spec = figure.spec
    selection = state.facet_selection(figure)
    cols = []
    for name in spec.facets:
        dim = spec.dims[name]
        control_id = {"type": id_type, "dim": name}
        cols.append(labelled(
            dim.title,
            dcc.Dropdown(id=control_id, options=label_options(dim.labels),
                         value=selection[name], multi=True, clearable=False,
                         placeholder=f"Pick {dim.title.lower()}s"),
            html_for=dom_id(control_id), width=width))
    return cols


def label_options(labels) -> list[dict]:
    """A menu's options for a dimension's labels: each shown without the start every label
    shares (evalmaps.core.labels: 'EleutherAI/pythia-v1.1-70m' reads '70m'), its value whole;
    typing the whole name still finds it (the menu searches values too). Bidirectional controls
    are written out in what is shown (evalmaps.core.text.bidi_marked)."""
    _, shown = shortened(labels)
    return [{"label": bidi_marked(short), "value": label} for short, label in zip(shown, labels)]


def rows_dropdown(component_id: str, dim: Dim, rows: tuple[str, ...] | None) -> dcc.Dropdown:
    return dcc.Dropdown(id=component_id, options=label_options(dim.labels),
                        value=list(dim.labels if rows is None else rows), multi=True,
                        placeholder="No rows selected")


SLIDER_PX = 320  # about the narrowest a range slider is drawn (desktop column, phone width)
MARK_CHAR_PX = 7  # a mark label's character at the slider's font size, and a gap between two
MARK_GAP_PX = 6


def labelled_marks(numbers, labels) -> set[int]:
    """Which of an axis's marks carry their label: the first, the last, and between them each
    one far enough from the last labelled for two labels not to touch on a slider
    :data:`SLIDER_PX` wide. Training steps 0, 1, 2, 4, ... 143000 get 0, 33000, 63000, 93000
    and 143000, not a pile of labels at the left end. Numbers out of order: every k-th."""
    n = len(numbers)
    if n <= 2:
        return set(range(n))
    if any(b < a for a, b in zip(numbers, numbers[1:])):
        every = max(1, n // 10)
        return {i for i in range(n) if i % every == 0} | {n - 1}
    span = numbers[-1] - numbers[0]
    chars = max(len(str(label)) for label in labels)
    gap = span * min(1.0, (chars * MARK_CHAR_PX + MARK_GAP_PX) / SLIDER_PX)
    keep = [0]
    for i in range(1, n - 1):
        if numbers[i] - numbers[keep[-1]] >= gap:
            keep.append(i)
    while len(keep) > 1 and numbers[-1] - numbers[keep[-1]] < gap:
        keep.pop()  # the last label has the right of way
    return {*keep, n - 1}


# Every label of an axis is a stop of the slider (a mark, most without text) up to this many;
# a longer axis gets marks at its labelled labels only: Dash's slider refuses more than 500
# marks with a console error, and at a few px apart they would be a solid line anyway.
MAX_STOPS = 50
MAX_MARKS = 20  # labelled marks, at most


def even_step(numbers) -> float | None:
    """The spacing of numbers evenly spaced in increasing order (0, 1, 2, ... 999), else None."""
    if len(numbers) < 2:
        return None
    gap = numbers[1] - numbers[0]
    if gap <= 0:
        return None
    tolerance = abs(gap) * 1e-9
    return gap if all(abs((b - a) - gap) <= tolerance
                      for a, b in zip(numbers, numbers[1:])) else None


def slider_marks(numbers, labels) -> tuple[dict, float | None]:
    """A range slider's marks and step. Up to :data:`MAX_STOPS` labels: a mark (a stop) at
    each, labelled as :func:`labelled_marks` says, and no step (the handles snap to labels).
    More: marks at the labelled labels only (at most :data:`MAX_MARKS`), and the axis's step
    when its numbers are evenly spaced (every label reachable), else no step (the handles snap
    to the marks; the keys, assets/a11y.js, still go from label to label)."""
    shown = labelled_marks(numbers, labels)
    if len(numbers) <= MAX_STOPS:
        return {number: label if i in shown else ""
                for i, (number, label) in enumerate(zip(numbers, labels))}, None
    keep = sorted(shown)
    if len(keep) > MAX_MARKS:
        every = -(-len(keep) // MAX_MARKS)
        keep = sorted({*keep[::every], keep[-1]})
        while len(keep) > MAX_MARKS:  # the last one's neighbour gives way
            keep.pop(-2)
    return {numbers[i]: labels[i] for i in keep}, even_step(numbers)


def x_range_control(component_id: str, dim: Dim, x_range: tuple[float, float] | None):
    """A range slider snapping to the labels of a numeric x axis; for a categorical one a note
    saying why there is none, the slider kept (the callbacks read it) but hidden: a disabled
    slider would look like a control that is broken."""
    if not dim.numeric:
        return html.Div([
            html.Div(dcc.RangeSlider(id=component_id, min=0, max=1, value=[0, 1], disabled=True),
                     hidden=True),
            html.Small(f"{dim.title} is categorical (names, not numbers): there is no range to "
                       f"narrow; choose panels and rows above instead.",
                       className="text-muted")],
            id=f"{component_id}-keys", **{"data-numbers": "[]"})
    numbers = dim.numbers
    lo, hi = x_range if x_range else (min(numbers), max(numbers))
    marks, step = slider_marks(numbers, dim.labels)
    # the wrapper's data-numbers (id ``<component_id>-keys``): the labels' numbers, for the
    # keys (assets/a11y.js moves a handle from label to label; the slider's own keys step by a
    # fraction of the axis); written again when a watched figure gains labels
    # (no number boxes beside it: Dash shows them with a step, and they would narrow the
    # slider below the width its labels are spaced for)
    return html.Div(dcc.RangeSlider(
        id=component_id, min=min(numbers), max=max(numbers), step=step, marks=marks,
        allow_direct_input=False,
        value=[lo, hi], allowCross=False, tooltip={"placement": "bottom", "always_visible": False}),
        id=f"{component_id}-keys", className="xrange-slider",
        **{"data-slider": component_id, "data-numbers": slider_keys(numbers)})


def slider_keys(numbers) -> str:
    """A range slider's key list: the labels' numbers, in order, as its wrapper's
    data-numbers holds them."""
    return json.dumps(list(numbers))


def color_mode_control(component_id: str, value: str) -> dbc.RadioItems:
    return dbc.RadioItems(id=component_id, options=COLOR_MODE_OPTIONS, value=value, inline=True,
                          className="small")


def values_switch(component_id: str, value: bool) -> dbc.Switch:
    return dbc.Switch(id=component_id, label="Values in cells", value=value, className="small")


def figure_row(page: str, catalog: Catalog, figure: Figure, state: ViewState):
    """The first controls row of a sliced view: the figure, then one menu per facet.

    Ids: ``<page>-figure`` and ``{"type": "<page>-facet", "dim": name}``.
    """
    return dbc.Row([
        labelled(["Figure ", html.Span(f"· {len(catalog)} available, type to search",
                                       className="text-muted fw-normal small")],
                 figure_dropdown(f"{page}-figure", catalog, figure.id),
                 html_for=f"{page}-figure", width=6),
        *facet_dropdowns(f"{page}-facet", figure, state, width=3),
    ], className="g-3")


def rows_and_range(page: str, figure: Figure, state: ViewState,
                   widths: tuple[int, int] = (4, 3)) -> list:
    """The row multi-select (with All and None), the x-range slider, and the row order (sort,
    top N by mean). Ids ``<page>-rows``, ``<page>-rows-all``, ``<page>-rows-none``,
    ``<page>-xrange``, ``<page>-sort``, ``<page>-top``."""
    spec = figure.spec
    ydim, xdim = spec.dims[spec.y], spec.dims[spec.x]
    rows = html.Div([
        rows_dropdown(f"{page}-rows", ydim, state.rows),
        html.Div([
            dbc.Button("All", id=f"{page}-rows-all", color="link", size="sm",
                       className="p-0 me-2", title=f"Show every {ydim.title.lower()}"),
            dbc.Button("None", id=f"{page}-rows-none", color="link", size="sm",
                       className="p-0", title="Clear the rows, then pick some"),
        ], className="small"),
    ])
    return [
        labelled(f"Rows ({ydim.title})", rows, html_for=f"{page}-rows", width=widths[0]),
        labelled(f"{xdim.title} range", x_range_control(f"{page}-xrange", xdim, state.x_range),
                 width=widths[1]),
        labelled("Row order", sort_dropdown(f"{page}-sort", ydim, xdim, state.sort),
                 html_for=f"{page}-sort", width=2),
        labelled("Top rows", dbc.Input(
            id=f"{page}-top", type="number", min=1, step=1, value=state.top, debounce=True,
            size="sm", placeholder="all"),
            html_for=f"{page}-top", width=1),
    ]


def sort_options(ydim: Dim, xdim: Dim) -> list[dict]:
    return ([{"label": "As in the source", "value": "source"},
             {"label": f"By {ydim.title.lower()} name", "value": "name"},
             {"label": "By mean, highest first", "value": "mean"}]
            + [{"label": f"By value at {xdim.title} {label}", "value": f"col:{label}"}
               for label in xdim.labels])


def sort_dropdown(component_id: str, ydim: Dim, xdim: Dim, value: str) -> dcc.Dropdown:
    return dcc.Dropdown(id=component_id, options=sort_options(ydim, xdim), value=value,
                        clearable=False, searchable=True)


EXPORT_FORMATS = [{"label": "LaTeX", "value": "latex"}, {"label": "Markdown", "value": "markdown"}]


def export_control(page: str, panels: list[dict], value: str | None,
                   panel_label: str = "Panel") -> html.Div:
    """'Table: [panel] [LaTeX] [Download]': one panel of the view as a table for a paper
    (evalmaps.analysis.export), downloaded by ``<page>-download``. The panel menu shows only when the
    view has more than one panel. Ids: ``<page>-export-panel``, ``-export-format``, ``-export``."""
    return html.Div([
        html.Span("Table for a paper:", className="small text-muted me-1"),
        # the menus sit inside their labels (a hidden label[for] reads as no label to axe)
        html.Label([html.Span(panel_label, className="visually-hidden"),
                    dbc.Select(id=f"{page}-export-panel", options=panels, value=value, size="sm",
                               className="export-select", style=panel_style(panels))],
                   className="mb-0"),
        html.Label([html.Span("Table format", className="visually-hidden"),
                    dbc.Select(id=f"{page}-export-format", options=EXPORT_FORMATS,
                               value="latex", size="sm", className="export-select")],
                   className="mb-0"),
        dbc.Button("Download table", id=f"{page}-export", size="sm", color="secondary",
                   outline=True, title="One panel as a table: best per column in bold, ± se"),
        dcc.Download(id=f"{page}-download"),
        html.Span(id=f"{page}-export-error", className="small text-danger"),
    ], className="d-flex flex-wrap align-items-center gap-2 export-row", id=f"{page}-export-row")


def panel_style(panels: list[dict]) -> dict:
    return {} if len(panels) > 1 else {"display": "none"}


def scale_switches(page: str, figure: Figure, state, *, log: bool = True) -> list:
    """'Percent' (fractions as percent, URL pct=1) and, with ``log``, 'Log colours' (URL
    zscale=log): each offered only when a panel of the figure can use it (a metric from 0 to 1;
    a metric without a range), else disabled with a title saying why."""
    from evalmaps.analysis.slicing import is_fraction, log_unavailable

    metrics = [(figure.spec.metric_for(p.facets), p.z) for p in figure.panels.values()]
    fractions = any(is_fraction(m, z) for m, z in metrics)
    unbounded = any(m.range is None for m, _ in metrics)
    switches = [html.Div(dbc.Switch(
        id=f"{page}-pct", value=bool(state.pct) and fractions, label="Percent",
        disabled=not fractions, className="small mb-1"),
        title=("Write fractions (a metric from 0 to 1) as percent" if fractions else
               "No panel of this figure holds fractions (a metric from 0 to 1)"))]
    if log:
        positive = any(m.range is None and log_unavailable(m, z) is None for m, z in metrics)
        switches.append(html.Div(dbc.Switch(
            id=f"{page}-log", value=getattr(state, "zscale", "linear") == "log" and unbounded,
            label="Log colours", disabled=not unbounded, className="small mb-0"),
            title=("Colour by log10 of the value (metrics without a range, values above 0)"
                   if positive else "Only for metrics without a range (perplexity) whose "
                   "values are all above 0")))
    return switches


# --------------------------------------------------------------------------- standard errors

CLUSTER_TITLE = ("Items of one cluster (a passage, a source data set) are not independent: "
                 "clustered standard errors count each cluster once (Miller, 2024)")


def cluster_control(page: str, figure: Figure, cluster: str | None) -> dbc.Col:
    """The **Standard errors** menu of a page (``{page}-cluster``, URL ``cluster``): not
    clustered, or clustered by a column the figure's per-item records keep (an import's
    ``--cluster COL``), as Compare's; hidden where the figure keeps none.
    :func:`register_cluster_control` writes its choice to the URL."""
    records = getattr(figure, "items", None)
    kept = records.clusters if records is not None else ()
    options = [{"label": "Not clustered", "value": ""},
               *({"label": f"Clustered by {c}", "value": c} for c in kept)]
    return dbc.Col(html.Div([
        dbc.Label("Standard errors", html_for=f"{page}-cluster",
                  className="small fw-semibold mb-1"),
        dcc.Dropdown(id=f"{page}-cluster", options=options,
                     value=cluster if cluster in kept else "", clearable=False,
                     searchable=False),
    ], title=CLUSTER_TITLE), md=2, className="mb-2", id=f"{page}-cluster-col",
        style=None if kept else {"display": "none"})


def cluster_search(search: str | None, cluster: str | None) -> str:
    """``search`` (a page's query, '?a=1&b=2') with ``cluster`` set (last), or without it for
    "" or None; every other key as it was."""
    from urllib.parse import parse_qsl, urlencode

    pairs = [(k, v) for k, v in parse_qsl((search or "").lstrip("?"), keep_blank_values=True)
             if k != "cluster"]
    if cluster:
        pairs.append(("cluster", cluster))
    return "?" + urlencode(pairs) if pairs else ""


def menu_cluster(search: str | None, options) -> str:
    """The menu's value for a page's query: its ``cluster`` where the menu offers it, else ""."""
    from urllib.parse import parse_qs

    if not isinstance(search, str):
        search = ""
    asked = (parse_qs(search.lstrip("?"), keep_blank_values=True).get("cluster") or [""])[0]
    offered = {o.get("value") for o in options if isinstance(o, dict)} \
        if isinstance(options, list) else set()
    return asked if asked in offered else ""


def register_cluster_control(page: str) -> None:
    """One callback keeps :func:`cluster_control`'s menu and the page's URL in step: a choice
    writes ``cluster=`` to the URL (a history entry; the page's own sync then draws the
    clustered errors), and back or forward sets the menu to the URL's."""
    from dash import Input, Output, State, callback, ctx, no_update
    from dash.exceptions import PreventUpdate

    @callback(
        Output(f"{page}-loc", "search", allow_duplicate=True),
        Output(f"{page}-cluster", "value"),
        Input(f"{page}-cluster", "value"),
        Input(f"{page}-loc", "search"),
        State(f"{page}-cluster", "options"),
        prevent_initial_call=True,
    )
    def follow_cluster(value, search, options):
        if not isinstance(search, str | None) or not isinstance(value, str | None):
            raise PreventUpdate  # not what the page sends: nothing to follow
        shown = menu_cluster(search, options)
        if ctx.triggered_id == f"{page}-loc":  # the URL moved: the menu follows it
            if shown == (value or ""):
                raise PreventUpdate
            return no_update, shown
        if (value or "") == shown:
            raise PreventUpdate
        return cluster_search(search, value), no_update
