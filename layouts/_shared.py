"""What every page uses: the loaded catalog and the URL sync. (Not a page: Dash Pages skips '_'.)"""

from __future__ import annotations

import functools
import inspect
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Callable
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

from components.controls import (
    figure_options,
    label_options,
    slider_keys,
    slider_marks,
    sort_options,
)
from components.dash_internals import PAGES_CONTENT, PAGES_LOCATION
from components.provenance import provenance_badge
from evalmaps.core.figure import Catalog, Figure, short_slug
from evalmaps.service.store import STORED_ID_IN
from evalmaps.views.state import (
    ViewState,
    parse_state,
    read_cluster,
    read_ticks,
    state_from_controls,
)
from layouts._served import catalog_for, served

NAV_PAGES = [("Browse", "/"), ("Trends", "/trends"), ("Compare", "/compare"), ("Rank", "/rank"),
             ("Data", "/data")]
LIVE = "live-version"  # the store evalmaps-live.js sets when a shown figure has a new version
UPLOADS = "uploads"  # the local store (in app.layout): ids of this browser's recent uploads


def get_catalog(uploads: list | None = None, *figure_ids) -> Catalog:
    """The catalog loaded once at start-up (see app.create_app), plus the stored uploads this
    browser lists (``uploads``: ids) and any other stored figure named in ``figure_ids`` (the
    URL's, or the one a page was rendered for).

    Pages get ``uploads`` as a layout keyword (Dash Pages routing input) and callbacks as
    ``State(UPLOADS, "data")``. From the request's snapshot, resolved once per request
    (:func:`layouts._served.catalog_for`).
    """
    return catalog_for([*(uploads if isinstance(uploads, list) else []), *figure_ids])


def stored_ids(*texts) -> list[str]:
    """The stored figures' ids named anywhere in ``texts`` (query values, panel references,
    a URL's query string, lists of those)."""
    found = []
    for text in texts:
        if isinstance(text, (list, tuple)):
            found += stored_ids(*text)
        elif isinstance(text, str) and "upload-" in text:
            found += STORED_ID_IN.findall(text[:2000])
    return found


def nav_id(path: str) -> str:
    return "nav-" + (path.strip("/") or "browse")


def page_location(page: str, figure_id: str, watched: tuple[str, ...] | None = None) -> html.Div:
    """A page's own location (its query is the page's state), the figure it was rendered for,
    and what it drew of the watched figures (:func:`live_drawn`; ``watched``: the figures it
    shows, ``(figure_id,)`` unless given).

    ``refresh=False``: writing ``search`` adds a history entry without a reload and without
    re-rendering the page through Dash Pages.
    """
    return html.Div([dcc.Location(id=f"{page}-loc", refresh=False),
                     dcc.Store(id=f"{page}-rendered-figure", data=figure_id),
                     html.Div(live_drawn(*(watched if watched is not None else (figure_id,)),
                                         shaped=watched is None),
                              id=live_drawn_id(page), className="evalmaps-live-drawn",
                              hidden=True)])


# ------------------------------------------------------------------ open pages follow (issue 28)

def live_drawn_id(page: str) -> dict:
    """The hidden element whose text says what a page drew (:func:`live_drawn`): read by
    assets/evalmaps-live.js, which asks for a redraw while it differs from the server's."""
    return {"type": "live-drawn", "page": page}


WAITING = "waiting"  # the version a page waiting for a watched figure drew (evalmaps-live.js)


def waiting_for(figure_id, catalog: Catalog) -> str | None:
    """Why a watched folder's figure that a URL names has nothing to show yet, as the page says
    it (None: the figure is there, or is no watched folder's): a folder watched before its first
    file ('Waiting for import-sweep: no file yet in sweep/.'), or one whose files were removed.
    The folder by its name only: the server's paths are not the reader's business."""
    if not isinstance(figure_id, str) or not figure_id or figure_id in catalog:
        return None
    snapshot = served()
    settings = snapshot.settings
    if settings is None or settings.watch == "off":
        return None  # read once at start-up: nothing will come
    gone = snapshot.gone.get(figure_id)
    if gone:
        return (f"Waiting for {figure_id}: its files in {Path(gone).name}/ were removed. This "
                f"page draws it when they are written again.")
    for folder in settings.extra_data:
        if "import-" + (short_slug(Path(folder).resolve().name) or "results") == figure_id:
            return (f"Waiting for {figure_id}: no file yet in {Path(folder).name}/. This page "
                    f"draws it when its first file arrives.")
    return None


def waiting_page(page: str, figure_id: str, text: str):
    """A page for a watched figure with no file yet (:func:`waiting_for`): it says so, and its
    hidden drawn element names the figure at version :data:`WAITING` with no cells, so that
    assets/evalmaps-live.js follows it (a 404, then the list of figures) and, when it arrives,
    says so and loads the page again for its URL (this page has none of the controls a redraw
    in place would write)."""
    drawn = json.dumps({"versions": {figure_id: WAITING}, "cells": {figure_id: 0}, "shape": []},
                       separators=(",", ":"))
    return dbc.Container([
        html.Div(drawn, id=live_drawn_id(page), className="evalmaps-live-drawn", hidden=True),
        html.H4(f"Waiting for {figure_id}", id=f"{page}-waiting-title",
                className="mt-2 figure-title"),
        html.Div(text, id=f"{page}-waiting", className="alert alert-info small",
                 role="status"),
    ], fluid=True, className="py-3")


def figure_shape(figure: Figure) -> list:
    """What a sliced page's controls are built for: the facets, the y and the x dimension. A
    watched figure whose shape changes (a sweep's second checkpoint makes the step the x axis)
    gets its page built again (:func:`reshape`), not redrawn in place."""
    spec = figure.spec
    return [list(spec.facets), spec.y, spec.x]


def live_drawn(*figure_ids: str, shaped: bool = True) -> str:
    """What a page draws of ``figure_ids``, as this process serves them: JSON of their versions
    (evalmaps.service.live), their cells' counts (the page's note says what changed since) and,
    for a sliced page (``shaped``), the first one's shape."""
    snapshot = served()
    catalog = snapshot.catalog
    ids = [fid for fid in dict.fromkeys(figure_ids) if fid]
    versions = {fid: snapshot.version_of(fid) for fid in ids}
    cells = {fid: catalog.figure(fid).n_cells for fid in ids if fid in catalog}
    shape = (figure_shape(catalog.figure(figure_ids[0]))
             if shaped and figure_ids and figure_ids[0] in catalog else None)
    return json.dumps({"versions": versions, "cells": cells, "shape": shape},
                      separators=(",", ":"))


def in_place_outputs(graph_type: str) -> dict[str, Output]:
    """The outputs of a page's graphs redrawn in place (:func:`in_place`), by name: ``maps``
    (their figures) and ``map_styles``, for the graphs of id ``{"type": graph_type, "panel":
    ...}``."""
    graphs = {"type": graph_type, "panel": ALL}
    return {"maps": Output(graphs, "figure", allow_duplicate=True),
            "map_styles": Output(graphs, "style")}


def in_place(out: dict, maps: dict | None, map_ids) -> dict:
    """A live redraw's outputs (``out``, with the page's ``graphs``) when the page shows the same
    graphs as it would draw now (``maps``: {panel: {"figure", "style"}} in the page's order, the
    ``redraw`` its render gave,
    ``map_ids``: the ids of the graphs it shows): only their figures and styles are sent
    (:func:`in_place_outputs`), so the elements around them stay, and with them the keyboard
    focus, the active cell and open tables. Other graphs: ``out`` as it is (built anew)."""
    shown = [i.get("panel") if isinstance(i, dict) else None
             for i in (map_ids if isinstance(map_ids, list) else [])]
    if maps is not None and "graphs" in out and list(maps) == shown:
        del out["graphs"]
        out.update(maps=[m["figure"] for m in maps.values()],
                   map_styles=[m["style"] for m in maps.values()])
    return out


def live_redraw() -> bool:
    """Whether the callback runs because a figure the page shows has a new version."""
    return f"{LIVE}.data" in ctx.triggered_prop_ids


def drawn_shape(text) -> list | None:
    try:
        return json.loads(text).get("shape") if isinstance(text, str) else None
    except (ValueError, AttributeError):
        return None


def slicing_menus(figure: Figure, slicing: dict, title_prefix: tuple = ()) -> dict:
    """The slicing controls' menus for the figure as it is now, by output name (a watched
    figure gains labels: its menus list them; their values are the page's state's), the
    figure's title (which counts its files, after ``title_prefix``) and the figure menu.
    ``slicing``: what :func:`slicing_inputs` reads."""
    spec = figure.spec
    xdim = spec.dims[spec.x]
    facet_ids = slicing["facet_ids"]
    out = {"title_text": [*title_prefix, spec.title, provenance_badge(spec.provenance, with_id=True)],
           "figure_options": figure_options(get_catalog(slicing["uploads"], figure.id)),
           "facet_options": [label_options(spec.dims[fid["dim"]].labels)
                             if fid["dim"] in spec.dims else no_update for fid in facet_ids],
           "rows_options": label_options(spec.dims[spec.y].labels),
           "sort_options": sort_options(spec.dims[spec.y], xdim)}
    if xdim.numeric:
        marks, step = slider_marks(xdim.numbers, xdim.labels)
        out.update(x_min=min(xdim.numbers), x_max=max(xdim.numbers), x_marks=marks, x_step=step,
                   x_keys=slider_keys(xdim.numbers))
    return out


def register_nav_sync(page: str) -> None:
    """Nav links carry the page's current figure (client side, no round trip). Not at load: the
    first page's navbar comes with them (``app.navbar``); a page that Dash Pages renders brings
    its location, an input, so this fires with it."""
    clientside_callback(
        ClientsideFunction(namespace="evalmaps_nav", function_name="navLinks"),
        [Output(nav_id(path), "href", allow_duplicate=True) for _, path in NAV_PAGES],
        Input(f"{page}-loc", "search"),
        prevent_initial_call=True,
    )


def problems_alert(problems: tuple[str, ...] | list[str]):
    if not problems:
        return None
    return dbc.Alert(" ".join(problems), color="warning", className="py-2 small", dismissable=True)


def empty_note(text: str):
    return html.Div(text, className="text-muted fst-italic p-4 border rounded bg-light")


def register_figure_navigation(page: str, path: str) -> None:
    """Choosing another figure navigates to ``path?figure=<id>``: Dash Pages renders the page
    anew with that figure's controls. (href, not search: the pages location's own search may be
    stale after in-page history entries.)"""

    @callback(
        Output(PAGES_LOCATION, "href", allow_duplicate=True),
        Input(f"{page}-figure", "value"),
        State(f"{page}-rendered-figure", "data"),
        State(UPLOADS, "data"),
        prevent_initial_call=True,
    )
    @boundary
    def change_figure(figure_id, rendered, uploads):
        if figure_id == rendered or figure_id not in get_catalog(uploads, figure_id):
            raise PreventUpdate
        return dash.get_relative_path(path) + ViewState(figure_id).to_query()


def slicing_outputs(page: str) -> dict[str, Output]:
    """The URL and the slicing controls of a sliced page (Browse, Trends, Data), by name: what
    its sync callback writes besides its own outputs."""
    return {
        "search": Output(f"{page}-loc", "search"),
        "facets": Output({"type": f"{page}-facet", "dim": ALL}, "value"),
        "rows": Output(f"{page}-rows", "value"),
        "x_range": Output(f"{page}-xrange", "value"),
        "sort": Output(f"{page}-sort", "value"),
        "top": Output(f"{page}-top", "value"),
        # what changes when a watched figure gains labels (slicing_menus) and what was drawn
        "facet_options": Output({"type": f"{page}-facet", "dim": ALL}, "options"),
        "rows_options": Output(f"{page}-rows", "options"),
        "sort_options": Output(f"{page}-sort", "options"),
        "x_min": Output(f"{page}-xrange", "min"),
        "x_max": Output(f"{page}-xrange", "max"),
        "x_marks": Output(f"{page}-xrange", "marks"),
        "x_step": Output(f"{page}-xrange", "step"),
        "x_keys": Output(f"{page}-xrange-keys", "data-numbers"),  # the slider's key list
        "live_drawn": Output(live_drawn_id(page), "children"),
        "title_text": Output(f"{page}-title", "children"),
        "figure_options": Output(f"{page}-figure", "options"),
    }


def slicing_inputs(page: str) -> dict:
    """What a sliced page's sync callback reads as its argument ``slicing`` (a dict by these
    names, as :func:`read_view` takes it): the URL, the slicing controls, the figure the page was
    rendered for and the session's uploads."""
    return {"slicing": group(
        search=Input(f"{page}-loc", "search"),
        facet_values=Input({"type": f"{page}-facet", "dim": ALL}, "value"),
        rows=Input(f"{page}-rows", "value"),
        x_range=Input(f"{page}-xrange", "value"),
        sort=Input(f"{page}-sort", "value"),
        top=Input(f"{page}-top", "value"),
        facet_ids=State({"type": f"{page}-facet", "dim": ALL}, "id"),
        rendered=State(f"{page}-rendered-figure", "data"),
        uploads=State(UPLOADS, "data"),
        live=Input(LIVE, "data"),  # a watched figure's new version: drawn again from the URL
        drawn_live=State(live_drawn_id(page), "children"),
    )}


def slicing_shown(slicing: dict) -> dict:
    """What the slicing controls show, by output name (as :func:`slicing_values` writes them)."""
    return {"facets": slicing["facet_values"], "rows": slicing["rows"],
            "x_range": slicing["x_range"], "sort": slicing["sort"], "top": slicing["top"]}


def read_view(page: str, slicing: dict, display: dict | None = None):
    """The view state a sliced page's sync callback works on: ``(figure, state, from_url)``.

    ``slicing``: what :func:`slicing_inputs` reads, by name; ``display``: the page's other
    controls that are part of its state, by name (``color``, ``show_values``, ``pct``,
    ``zlog``; those it lacks are None).

    When the page's location changed (back/forward, or the first report as it mounts) or a
    figure it shows has a new version (:func:`live_redraw`), the state is read from the URL and
    the controls must be written (``from_url``); when a control changed,
    from the controls, and the URL must be written. ``PreventUpdate`` when there is nothing to do
    (no URL yet, or another figure: Dash Pages renders the page anew)."""
    rendered, search = slicing["rendered"], slicing["search"]
    catalog = get_catalog(slicing["uploads"], rendered)
    if rendered not in catalog:
        raise PreventUpdate
    figure = catalog.figure(rendered)
    if live_redraw():  # a new version: the URL's view drawn again, where its shape still fits
        if drawn_shape(slicing["drawn_live"]) not in (None, figure_shape(figure)):
            raise PreventUpdate  # built again instead (reshape)
    if (live_redraw() or f"{page}-loc.search" in ctx.triggered_prop_ids
            or len(ctx.triggered_prop_ids) != 1):
        if search is None:
            raise PreventUpdate  # the location reports the URL as it mounts
        query = parse_qs(search.lstrip("?"), keep_blank_values=True)
        state = parse_state(query, catalog)
        if state.figure != rendered:
            raise PreventUpdate
        return figure, state, query
    display = display or {}
    facets = {fid["dim"]: value for fid, value in zip(slicing["facet_ids"],
                                                       slicing["facet_values"])}
    state = state_from_controls(
        figure, facets, slicing["rows"], slicing["x_range"], display.get("color"),
        display.get("show_values"), slicing["sort"], slicing["top"], display.get("pct"),
        display.get("zlog"))
    # no control sets the items' cluster column, nor ticks: the URL's stay while the controls
    # change
    query = parse_qs((search or "").lstrip("?"), keep_blank_values=True)
    return figure, replace(state, cluster=read_cluster(query, figure, []),
                           ticks=read_ticks(query, [], figure)), None


def slicing_values(state: ViewState, figure: Figure, facet_ids: list[dict]) -> dict:
    """Control values for a state, by output name: ``facets`` (per facet dropdown), ``rows``,
    ``x_range``, ``sort``, ``top``."""
    selection = state.facet_selection(figure)
    spec = figure.spec
    xdim = spec.dims[spec.x]
    x_range = list(state.x_range) if state.x_range else (
        [min(xdim.numbers), max(xdim.numbers)] if xdim.numeric else [0, 1])
    return {"facets": [selection[fid["dim"]] for fid in facet_ids],
            "rows": list(spec.dims[spec.y].labels if state.rows is None else state.rows),
            "x_range": x_range, "sort": state.sort, "top": state.top}


def row_labels(figure: Figure) -> tuple[str, ...]:
    return figure.spec.dims[figure.spec.y].labels


def register_row_buttons(page: str) -> None:
    """The rows menu's All and None buttons (the page's sync callback takes it from there)."""

    @callback(
        Output(f"{page}-rows", "value", allow_duplicate=True),
        Input(f"{page}-rows-all", "n_clicks"),
        Input(f"{page}-rows-none", "n_clicks"),
        State(f"{page}-rendered-figure", "data"),
        State(UPLOADS, "data"),
        prevent_initial_call=True,
    )
    @boundary
    def all_or_none(_all, _none, rendered, uploads):
        catalog = get_catalog(uploads, rendered)
        if rendered not in catalog or ctx.triggered_id not in (f"{page}-rows-all",
                                                               f"{page}-rows-none"):
            raise PreventUpdate
        if ctx.triggered_id.endswith("none"):
            return []
        spec = catalog.figure(rendered).spec
        return list(spec.dims[spec.y].labels)


def explain_problems(problems: tuple[str, ...], figure_id: str | None) -> tuple[str, ...]:
    """Add why an uploaded figure's URL may not open: it is not in this server's store."""
    if isinstance(figure_id, str) and figure_id.startswith("upload-") and problems:
        return (*problems, "This server's upload store does not hold that figure: it was "
                           "uploaded to another server, or the link is cut short. Upload the "
                           "file again on the Data page.")
    return problems


# ------------------------------------------------------------------ the callbacks' boundary

def _text(v) -> bool:
    return v is None or (isinstance(v, str) and len(v) <= 20_000)


def _texts(v) -> bool:
    return v is None or (isinstance(v, list) and len(v) <= 100_000
                         and all(isinstance(x, str) for x in v))


def _number(v) -> bool:
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)
                         and math.isfinite(v))


def _facet_id(v) -> bool:
    return isinstance(v, dict) and isinstance(v.get("dim"), str)


# What each named callback input may hold. A request whose value does not fit is not from one
# of our pages (or is from a stale one): the callback does nothing (PreventUpdate). Values that
# fit are still checked for meaning by the domain code (unknown figures, labels, panels...).
INPUT_KINDS: dict[str, Callable[[object], bool]] = {
    "text": _text,
    "texts": _texts,
    "text_lists": lambda v: isinstance(v, list) and all(_texts(x) for x in v),
    "facet_ids": lambda v: isinstance(v, list) and all(_facet_id(x) for x in v),
    "range": lambda v: v is None or (isinstance(v, list) and len(v) == 2
                                     and all(_number(x) and x is not None for x in v)),
    "number": _number,
    "flag": lambda v: v is None or isinstance(v, bool),
    "clicks": lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)),
    # a grid's rows (AG Grid's virtualRowData): a list; rows that are no dict are skipped
    "records": lambda v: v is None or (isinstance(v, list) and len(v) <= 1_000_000),
    "any": lambda v: True,  # checked where it is used (uploads, pending, raw, rows shown)
}
INPUTS: dict[str, str] = {
    "search": "text", "facet_values": "text_lists", "rows": "texts", "x_range": "range",
    "sort": "text", "top": "number", "color": "text", "show_values": "flag",
    "facet_ids": "facet_ids", "rendered": "text", "drawn": "any", "uploads": "any",
    "transpose": "flag", "overlay": "flag", "threshold": "number", "logx": "flag", "a": "text", "b": "text",
    "mean_keys": "texts", "figure_id": "text", "staged": "text", "fmt_value": "text", "x": "text",
    "y": "text", "replicate": "text", "metric": "text", "unit": "text", "in_range": "flag",
    "item": "text", "pred": "text", "ref": "text", "model_file": "flag",
    "pending": "any", "raw": "any", "recent": "any", "shown": "records", "clicks": "clicks",
    "table_format": "text", "slug": "text", "which": "text", "scale": "text", "pct": "flag",
    "zlog": "flag", "a_figure": "text", "b_figure": "text", "held": "texts",
    "mean_figure": "text", "mean": "texts",
}

# Compare's grid of two labels of a dimension: what A and B are, its rows and columns, the
# other dimensions' menus (ids and values)
INPUTS.update(by="text", ydim="text", xdim="text", rest="texts", rest_ids="any")
# Compare's items panel: the item picked in its list (AG Grid's selectedRows), its search box's
# text and the search its list shows
INPUTS.update(selected="records", k="number", typed="text", searched="text")
# evalmaps-live.js's request; what a page drew (live_drawn); the pages location's path
INPUTS.update(live="any", drawn_live="text", pathname="text", map_ids="any")
# the Data page's list of the figures one upload kept (their ids); its columns to leave out
INPUTS.update(kept="texts", drop="text")
# the items' column standard errors are clustered by (Compare's menu, the Data page's field)
INPUTS.update(cluster="text", power="flag")
# the axis labels Compare's maps were drawn with (ticks=all: every one; its compare-ticks store)
INPUTS.update(ticks="text")


def _fits(name: str, value) -> bool:
    """Whether a callback input's value is of its name's kind (:data:`INPUTS`; names starting
    with '_' are click counts)."""
    return INPUT_KINDS["clicks" if name.startswith("_") else INPUTS[name]](value)


def _group(v) -> bool:
    return isinstance(v, dict) and all(_fits(name, value) for name, value in v.items())


INPUT_KINDS["group"] = _group
# callback arguments that are dicts of inputs, each checked by its name (see group)
GROUPS = ("slicing", "display", "chart", "showing", "pressed")
if set(GROUPS) & set(INPUTS):
    raise TypeError(f"a group's name is an input's: {sorted(set(GROUPS) & set(INPUTS))}")
INPUTS.update(dict.fromkeys(GROUPS, "group"))


def group(**dependencies):
    """Inputs and states that a callback takes as one argument: a dict by the same names (Dash's
    flexible callback signatures, ``inputs=dict(name=group(...))``). Each name needs a kind in
    :data:`INPUTS`, as a callback's own arguments do (:func:`boundary`)."""
    for name in dependencies:
        if not name.startswith("_") and (name not in INPUTS or INPUTS[name] == "group"):
            raise TypeError(f"group: no boundary kind for input '{name}'")
    return dependencies


def boundary(fn):
    """Check a callback's inputs against :data:`INPUTS` (by parameter name; names starting with
    '_' are click counts; an argument made by :func:`group`, each of its values by its name)
    before it runs: a value of the wrong kind ends the call with PreventUpdate, never an
    exception (a 500)."""
    names = list(inspect.signature(fn).parameters)
    for name in names:
        if not name.startswith("_") and name not in INPUTS:
            raise TypeError(f"{fn.__name__}: no boundary kind for input '{name}'")

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        values = {**dict(zip(names, args)), **kwargs}
        for name, value in values.items():
            if not _fits(name, value):
                raise PreventUpdate
        return fn(*args, **kwargs)

    return checked


class Outputs:
    """A callback's outputs by name: ``OUT = Outputs(graphs=Output(...), ...)``, then
    ``@callback(output=OUT.spec, ...)`` and ``return OUT(graphs=...)``. What is not named stays
    as it is (``no_update``, a list of them for a pattern-matching output), so no callback
    pads its return by count."""

    def __init__(self, **outputs: Output) -> None:
        self.spec = outputs

    def __call__(self, **values) -> dict:
        unknown = set(values) - set(self.spec)
        if unknown:
            raise TypeError(f"not an output of this callback: {', '.join(sorted(unknown))}")
        grouping = ctx.outputs_grouping
        return {key: values[key] if key in values
                else [no_update] * len(grouping[key]) if isinstance(grouping[key], list)
                else no_update
                for key in self.spec}


# ------------------------------------------------------------------ a watched figure's new shape

@callback(
    Output(PAGES_CONTENT, "children", allow_duplicate=True),
    Input(LIVE, "data"),
    State({"type": "live-drawn", "page": ALL}, "children"),
    State(PAGES_LOCATION, "pathname"),
    State(PAGES_LOCATION, "search"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
@boundary
def reshape(live, drawn, pathname, search, uploads):
    """A watched figure whose shape changed (:func:`figure_shape`): the open page is built again
    for its URL (Dash Pages' content, no reload); its controls could not hold the new shape."""
    if not (live and isinstance(drawn, list) and len(drawn) == 1 and isinstance(search, str)
            and isinstance(pathname, str)):
        raise PreventUpdate
    try:
        said = json.loads(drawn[0])
        figure_id = next(iter(said["versions"]))
    except (ValueError, TypeError, KeyError, StopIteration):
        raise PreventUpdate from None
    catalog = get_catalog(uploads if isinstance(uploads, list) else [], figure_id)
    if said.get("shape") is None or figure_id not in catalog or (
            figure_shape(catalog.figure(figure_id)) == said["shape"]):
        raise PreventUpdate
    page = next((p for p in dash.page_registry.values()
                 if p.get("relative_path") == pathname or p.get("path") == pathname), None)
    if page is None or not callable(page.get("layout")):
        raise PreventUpdate
    query = {k: v[0] if len(v) == 1 else v
             for k, v in parse_qs(search.lstrip("?"), keep_blank_values=True).items()}
    return page["layout"](uploads=uploads if isinstance(uploads, list) else None, **query)
