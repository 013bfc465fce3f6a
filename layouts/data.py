"""Data view (/data): bring your own results (upload, preview, mapping), and the tidy cells of
the current slice in a grid with a CSV download of exactly the visible rows.

An upload goes to the server once: it is staged in the upload store, previewed with the options
the user picks, and kept there as a figure whose link opens anywhere (:mod:`evalmaps.service.uploads`).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses

import dash
import dash_bootstrap_components as dbc
from dash import (
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
from flask import current_app, request

from components.controls import figure_row, labelled, rows_and_range
from components.dash_internals import PAGES_LOCATION
from components.datatable import (
    cells_grid,
    item_record_fields,
    kept_figures,
    preview_card,
    upload_box,
)
from components.provenance import provenance_badge
from evalmaps.catalog.shaping import FORMATS
from evalmaps.core import text as fmt
from evalmaps.core.errors import EvalmapsError
from evalmaps.readers.base import ImportOptions
from evalmaps.readers.items import FILE
from evalmaps.service import uploads
from evalmaps.service.bundle import site_zip
from evalmaps.service.uploads import Budget
from evalmaps.views.download import slice_csv
from evalmaps.views.models import BrowseView
from evalmaps.views.payloads import view_cells
from evalmaps.views.state import ViewState, first, parse_state
from layouts._served import served
from layouts._shared import (
    UPLOADS,
    Outputs,
    boundary,
    explain_problems,
    get_catalog,
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
    slicing_values,
    stored_ids,
)

dash.register_page(__name__, path="/data", name="Data", title="evalmaps · Data", order=3,
                   shows_grid=True)  # the cells table: AG Grid's code comes with the page

PAGE = "data"
READ_ONLY = ("This server is read-only (it runs without an upload store), so uploads are off. "
             "Serve your files with evalmaps serve --data DIR instead.")


def max_upload_bytes() -> int:
    return current_app.config["EVALMAPS_MAX_UPLOAD_BYTES"]


def layout(uploads=None, **query):
    catalog = get_catalog(uploads, *stored_ids(query.get("figure")))
    state = parse_state(query, catalog)
    figure = catalog.figure(state.figure)
    spec = figure.spec
    max_mb = max_upload_bytes() / 2**20
    read_only = _store() is None
    return dbc.Container([
        page_location(PAGE, figure.id),
        problems_alert(explain_problems(state.problems, first(query.get("figure")))),
        html.H4("Bring your own results", className="section-title"),
        dbc.Row([
            dbc.Col([upload_box("data-upload", max_mb, READ_ONLY if read_only else None),
                     item_record_fields("data", hidden=read_only)], md=5),
            dbc.Col(dbc.Row([
                labelled("Format", dcc.Dropdown(id="data-format", options=list(FORMATS),
                                                value="auto", clearable=False),
                         html_for="data-format", width=3),
                labelled("Rows (y)", dcc.Dropdown(id="data-y", options=[], clearable=False,
                                                  placeholder="after upload"),
                         html_for="data-y", width=3),
                labelled("Columns (x)", dcc.Dropdown(id="data-x", options=[], clearable=False,
                                                     placeholder="after upload"),
                         html_for="data-x", width=3),
                labelled("Replicates", dcc.Dropdown(id="data-replicate", options=[],
                                                    placeholder="none"),
                         html_for="data-replicate", width=3),
                # a table's metric; an evaluation tool's results name their own (hidden then,
                # with a note: metric_fields)
                dbc.Col(dbc.Row([
                    labelled("Metric", dbc.Input(id="data-metric", value="Accuracy",
                                                 maxLength=40, debounce=True),
                             html_for="data-metric", width=4),
                    labelled("Unit", dbc.Input(id="data-unit", value="%", maxLength=10,
                                               debounce=True), html_for="data-unit", width=2),
                    dbc.Col(dbc.Switch(id="data-range", label=RANGE_LABEL,
                                       value=True, className="small"), md=6, className="pt-4"),
                ], className="g-2"), id="data-metric-fields", md=12),
                dbc.Col(html.Div(id="data-metric-note", className="small text-muted"), md=12),
            ], className="g-2"), md=7),
        ], className="g-3"),
        html.Div(id="data-upload-client-error"),
        html.Div(id="data-upload-status", className="mt-2"),
        dbc.Button("Keep it on this server and open it", id="data-add", color="primary",
                   disabled=True, className="mb-3"),
        # "" (nothing yet), not None: a memory Store whose data is None sets it as it mounts,
        # a change each callback it feeds is asked to handle on every first paint
        dcc.Store(id="data-upload-raw", data=""),
        dcc.Store(id="data-staged", data=""),
        dcc.Store(id="data-pending"),
        # this tab's last upload that held several figures: listed with their links after the
        # page renders anew on the first of them
        dcc.Store(id="data-kept", storage_type="session"),
        html.Div(id="data-kept-list"),
        dcc.Store(id="data-max-bytes", data=max_upload_bytes()),
        html.Hr(),
        html.H4(["Cells of ", spec.title, provenance_badge(spec.provenance, with_id=True)], id="data-title",
                className="section-title"),
        figure_row(PAGE, catalog, figure, state),
        dbc.Row(rows_and_range(PAGE, figure, state, widths=(5, 4)), className="g-3 controls-row"),
        html.Div([
            html.Div([html.Div(id="data-summary", className="data-summary"),
                      html.Div(id="data-filtered", className="fw-semibold", role="status")],
                     className="small text-muted data-summary-text"),
            html.Div([
                dbc.Button("Download CSV of the rows shown", id="data-download-button",
                           color="secondary", outline=True, size="sm"),
                dbc.Button("Download as a static site (zip)", id="data-bundle-button",
                           color="secondary", outline=True, size="sm",
                           title="This figure as a static site that needs no server: open its "
                                 "index.html, or put it on any static host (docs/bundle.md)"),
            ], className="d-flex flex-wrap gap-2 data-summary-buttons"),
        ], className="d-flex flex-wrap justify-content-between align-items-center gap-2 mb-2"),
        html.Div(cells_grid("data-grid", spec, [], figure.decimals,
                            tuple(c for c in ("sd", "n", "se") if c in figure.cells.columns),
                            metric_decimals(figure)),
                 id="data-grid-wrap"),
        dcc.Download(id="data-download"),
        dcc.Download(id="data-bundle"),
    ], fluid=True, className="py-3")


register_figure_navigation(PAGE, "/data")
register_row_buttons(PAGE)


# ------------------------------------------------------------------ the cells of the slice

def metric_decimals(figure) -> dict[str, int] | None:
    """A figure of several metrics: each one's decimals, by its label (None otherwise)."""
    metrics = figure.spec.metrics
    if metrics is None:
        return None
    return {label: figure.decimals_for({metrics.dim: label})
            for label in figure.spec.dims[metrics.dim].labels}


def tidy_rows(figure, state) -> tuple[list[dict], int]:
    """Present cells of the slice, in display order, and how many grid cells are missing: the
    cells of Browse's view of the slice (:class:`~evalmaps.views.models.BrowseView`, as the
    source reports them: k = 1, no standard errors from items)."""
    view = BrowseView.of_slice(figure, state)
    cells = view_cells(list(view.views), present_only=True)
    return cells, sum(v.z.size for v in view.views) - len(cells)


OUT = Outputs(
    **slicing_outputs(PAGE),
    cells=Output("data-grid", "rowData"),
    summary=Output("data-summary", "children"),
)


@callback(
    output=OUT.spec,
    inputs=slicing_inputs(PAGE),
)
@boundary
def sync(slicing):
    figure, state, query = read_view(PAGE, slicing)
    cells, missing = tidy_rows(figure, state)
    if query is not None:  # the URL changed (or the figure has a new version): the controls
        menus = ({**slicing_menus(figure, slicing, ("Cells of ",)),
                  "live_drawn": live_drawn(figure.id)} if live_redraw() else {})
        return OUT(cells=cells, summary=_summary(cells, missing), **menus,
                   **slicing_values(state, figure, slicing["facet_ids"]))
    return OUT(search=state.to_query(y_labels=row_labels(figure)), cells=cells,
               summary=_summary(cells, missing))


def _summary(cells: list[dict], missing: int) -> str:
    text = f"{len(cells)} cells in this slice"
    if missing:
        text += f"; {missing} more are not reported by the source and not listed"
    return text + ". Sort and filter in the table; the download holds exactly the rows shown."


clientside_callback(
    ClientsideFunction(namespace="evalmaps_a11y", function_name="filteredCount"),
    Output("data-filtered", "children"),
    Input("data-grid", "virtualRowData"),
    State("data-grid", "rowData"),
)


@callback(
    Output("data-download", "data"),
    Input("data-download-button", "n_clicks"),
    State("data-grid", "virtualRowData"),
    State("data-rendered-figure", "data"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
@boundary
def download(_, shown, rendered, uploads):
    """The rows the grid shows (after its filters and sort), with values looked up in the data:
    coordinates come from the browser, numbers only from the figure."""
    catalog = get_catalog(uploads, rendered)
    if rendered not in catalog:
        raise PreventUpdate
    figure = catalog.figure(rendered)
    # a row that names no cell of the figure is left out: never write what the data does not hold
    return {"content": slice_csv(figure, shown if isinstance(shown, list) else []),
            "filename": f"{figure.id}-slice.csv", "type": "text/csv"}


@callback(
    Output("data-bundle", "data"),
    Input("data-bundle-button", "n_clicks"),
    State("data-rendered-figure", "data"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
@boundary
def download_bundle(_, rendered, uploads):
    """The figure shown as a static site, zipped (evalmaps.service.bundle): the same site as
    ``evalmaps bundle --figure <id>`` writes."""
    catalog = get_catalog(uploads, rendered)
    if rendered not in catalog:
        raise PreventUpdate
    data = site_zip(catalog, rendered)
    return {"content": base64.b64encode(data).decode(), "base64": True,
            "filename": f"{rendered}-site.zip", "type": "application/zip"}


# ------------------------------------------------------------------------------- uploads

clientside_callback(
    ClientsideFunction(namespace="evalmaps", function_name="checkUpload"),
    Output("data-upload-raw", "data"),
    Output("data-upload-client-error", "children"),
    Input("data-upload", "contents"),
    State("data-upload", "filename"),
    State("data-max-bytes", "data"),
    prevent_initial_call=True,
)


def _decode_upload(raw: dict) -> tuple[str, bytes]:
    if not isinstance(raw, dict):
        raise EvalmapsError("The upload arrived damaged. Upload the file again.")
    name = " ".join(str(raw.get("name") or "upload.csv").split())[:120] or "upload.csv"
    contents = str(raw.get("contents") or "")
    _, _, b64 = contents.partition(",")
    limit = max_upload_bytes()
    if len(b64) * 3 // 4 > limit + 3:
        raise EvalmapsError(f"{fmt.clip(name)}: the file is over the {limit / 2**20:g} MB limit. "
                            f"Split it, or serve the folder with evalmaps serve --data.")
    try:
        return name, base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise EvalmapsError(f"{fmt.clip(name)}: the upload arrived damaged. Upload the file "
                            f"again.") from None


def _alert(message: str):
    return dbc.Alert(message, color="danger", className="py-2", id="data-upload-error")


def _store():
    return served().store


def _budget() -> Budget:
    return served().limits


STAGE = Outputs(
    staged=Output("data-staged", "data"),
    raw=Output("data-upload-raw", "data", allow_duplicate=True),
    contents=Output("data-upload", "contents"),
    status=Output("data-upload-status", "children", allow_duplicate=True),
    add_disabled=Output("data-add", "disabled", allow_duplicate=True),
    kept=Output("data-kept", "data", allow_duplicate=True),
)


@callback(output=STAGE.spec, inputs=dict(raw=Input("data-upload-raw", "data")),
          prevent_initial_call=True)
@boundary
def stage(raw):
    """The file goes to the server once: its bytes are staged in the store, and the browser
    keeps only their key (the preview and the add send the key)."""
    if not raw:
        raise PreventUpdate
    store = _store()
    try:
        if store is None:
            raise EvalmapsError(READ_ONLY)
        name, data = _decode_upload(raw)
        key = store.stage(data, name)
    except EvalmapsError as exc:
        return STAGE(staged=None, raw=None, contents=None, status=_alert(str(exc)),
                     add_disabled=True, kept=None)
    return STAGE(staged=key, raw=None, contents=None, kept=None)


RANGE_LABEL = "Values must lie in 0-100"
PREVIEW = Outputs(
    status=Output("data-upload-status", "children"),
    metric_style=Output("data-metric-fields", "style"),
    metric_note=Output("data-metric-note", "children"),
    range_label=Output("data-range", "label"),
    pending=Output("data-pending", "data"),
    add_disabled=Output("data-add", "disabled"),
    x_options=Output("data-x", "options"),
    x=Output("data-x", "value"),
    y_options=Output("data-y", "options"),
    y=Output("data-y", "value"),
    replicate_options=Output("data-replicate", "options"),
    replicate=Output("data-replicate", "value"),
    items_open=Output("data-items", "open"),
)


def _text(value, limit: int, default: str = "") -> str:
    return value.strip()[:limit] if isinstance(value, str) else default


def _options(fmt_value, x, y, replicate, metric, unit, in_range, fresh: bool,
             records: dict | None = None) -> ImportOptions:
    """Import options from the controls, whatever the request holds (junk falls back).
    ``records``: the per-item options (:func:`_records`)."""
    def label(value):
        return value if isinstance(value, str) and value and not fresh else None

    return ImportOptions(
        format=fmt_value if fmt_value in FORMATS else "auto", x=label(x), y=label(y),
        replicate=None if fresh else (replicate if isinstance(replicate, str) else ""),
        metric=_text(metric, 40) or "value", unit=_text(unit, 10),
        metric_range=(0.0, 100.0) if in_range is True else None, **(records or {}))


def _records(item, pred, ref, model_file, drop=None, cluster=None) -> dict:
    """The per-item options of "Per-item records" (``--item``, ``--correct PRED=REF``, ``--set
    model={file}``, ``--drop COL`` for each of the columns ``drop`` names, between commas: a
    text, or a list as the pending options keep them; ``--cluster COL``), whatever the request
    holds; an error
    when only one of PRED and REF is given."""
    item, pred, ref = (_text(v, 200) or None for v in (item, pred, ref))
    if (pred is None) != (ref is None):
        raise EvalmapsError("Give both columns of \"Right when ... equals ...\" (the prediction "
                            "and the reference), or neither to use a 'score' column.")
    if isinstance(drop, list):
        drop = ",".join(d for d in drop if isinstance(d, str))
    columns = [c.strip() for c in _text(drop, 200).split(",") if c.strip()]
    return {"item": item, "correct": (pred, ref) if pred else None,
            "fixed": (("model", FILE),) if model_file is True else (),
            "drop": tuple(dict.fromkeys(columns)), "cluster": _text(cluster, 200) or None}


@callback(
    output=PREVIEW.spec,
    inputs=dict(
        staged=Input("data-staged", "data"),
        fmt_value=Input("data-format", "value"),
        x=Input("data-x", "value"),
        y=Input("data-y", "value"),
        replicate=Input("data-replicate", "value"),
        metric=Input("data-metric", "value"),
        unit=Input("data-unit", "value"),
        in_range=Input("data-range", "value"),
        item=Input("data-item", "value"),
        pred=Input("data-pred", "value"),
        ref=Input("data-ref", "value"),
        model_file=Input("data-model-file", "value"),
        drop=Input("data-drop", "value"),
        cluster=Input("data-cluster", "value"),
    ),
    prevent_initial_call=True,
)
@boundary
def preview(staged, fmt_value, x, y, replicate, metric, unit, in_range, item, pred, ref,
            model_file, drop, cluster):
    """Import the staged file with the chosen options (in a child process, within the upload
    budget) and show what was detected."""
    if not isinstance(staged, str) or not staged:
        raise PreventUpdate
    fresh = ctx.triggered_id in ("data-staged", "data-format", "data-item", "data-pred",
                                 "data-ref", "data-model-file", "data-drop", "data-cluster")

    def refused(message: str) -> dict:
        # records read without their options: the options open, to be filled in
        return PREVIEW(status=_alert(message), pending=None, add_disabled=True,
                       **metric_fields(""),
                       **({"items_open": True} if "Per-item records" in message else {}))

    try:
        options = _options(fmt_value, x, y, replicate, metric, unit, in_range, fresh,
                           _records(item, pred, ref, model_file, drop, cluster))
        seen = uploads.preview(_store(), staged, options, _budget())
    except EvalmapsError as exc:
        return refused(str(exc))
    except Exception:  # noqa: BLE001 - a file must never take the server down; say what to do
        current_app.logger.exception("upload preview failed")
        return refused("This file could not be read as a results table. Check that it is a CSV "
                       "with a header row, or choose the format by hand.")
    figures = seen.get("figures") or []
    if len(figures) > 1:  # several figures: each keeps the axes read from its own files
        seen = {**seen, "dims": [], "x": None, "y": None, "replicate": "", "columns": []}
    dims = seen["dims"]
    return PREVIEW(
        status=preview_card(seen["summary"], seen["name"], figures),
        **metric_fields(seen.get("tool", ""), seen.get("metric")),
        # what the preview resolved (detected axes and replicates): the kept figure is this one
        pending={"key": staged, "options": dataclasses.replace(
            options, x=seen["x"], y=seen["y"], replicate=seen["replicate"]).to_dict()},
        add_disabled=False,
        x_options=dims, x=seen["x"], y_options=dims, y=seen["y"],
        replicate_options=[{"label": "none", "value": ""}]
        + [{"label": c, "value": c} for c in seen["columns"]],
        replicate=seen["replicate"],
    )


def metric_fields(tool: str, metric: dict | None = None) -> dict:
    """The metric, unit and range fields: shown for a table, whose values they describe; hidden
    for an evaluation tool's results (``tool``), whose metrics come from the file, with a note
    saying so. ``metric``: as the table was read ({name, unit, range}); where that is not what
    the fields say (fractions under the default 0-100 %, read as 0-1 with no unit) the range is
    labelled by it and a note says how the values were read."""
    if not tool:
        lo, hi = (metric or {}).get("range") or (0.0, 100.0)
        label = f"Values must lie in {lo:g}-{hi:g}"
        note = ""
        if metric and metric.get("range") and (lo, hi) == (0.0, 1.0) and not metric.get("unit"):
            label += " (fractions)"
            note = (f"Every value lies in 0-1: read as fractions of 1 (0-1, no unit), not as "
                    f"percentages; {metric.get('name') or 'the metric'} is written as percent "
                    f"only where you ask (the Percent switch on Browse).")
        return {"metric_style": {}, "metric_note": note, "range_label": label}
    return {"metric_style": {"display": "none"}, "range_label": RANGE_LABEL,
            "metric_note": f"Metric, unit and range come from the file ({tool}): each metric "
                           f"keeps its own name and the scale the tool writes it on."}


@callback(
    Output(UPLOADS, "data"),
    Output(PAGES_LOCATION, "href", allow_duplicate=True),
    Output("data-upload-status", "children", allow_duplicate=True),
    Output("data-kept", "data"),
    Input("data-add", "n_clicks"),
    State("data-pending", "data"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
@boundary
def add_upload(_, pending, recent):
    """Keep the upload's figures in the server's store and list them among this browser's
    uploads. One figure opens in Browse; several (a zip of a folder of two tools' results, or
    of several tables) open the Data page on the first, which lists them all with their links
    (``data-kept``, kept for this tab: the page renders anew)."""
    if not isinstance(pending, dict) or not isinstance(pending.get("key"), str):
        raise PreventUpdate
    given = pending.get("options") if isinstance(pending.get("options"), dict) else {}
    correct = given.get("correct") if isinstance(given.get("correct"), list) else [None, None]
    try:
        options = _options(given.get("format"), given.get("x"), given.get("y"),
                           given.get("replicate"), given.get("metric"), given.get("unit"),
                           given.get("metric_range") is not None, fresh=False,
                           records=_records(given.get("item"), *(correct + [None, None])[:2],
                                            given.get("fixed") == {"model": FILE},
                                            given.get("drop"), given.get("cluster")))
        fids = uploads.store_upload(_store(), pending["key"], options, _budget())
    except EvalmapsError as exc:
        return no_update, no_update, _alert(str(exc)), no_update
    kept = [u for u in (recent if isinstance(recent, list) else [])
            if isinstance(u, str) and u not in fids]
    path = "/" if len(fids) == 1 else "/data"
    return ([*kept, *fids][-uploads.MAX_RECENT:],
            dash.get_relative_path(path) + ViewState(fids[0]).to_query(), no_update,
            fids if len(fids) > 1 else None)


# not at first paint, nearly always to list nothing: a session Store that holds an upload's
# figures sets them as it mounts, and that calls this as the page renders anew on the first
@callback(
    Output("data-kept-list", "children"),
    Input("data-kept", "data"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
@boundary
def kept_list(kept, recent):
    """The figures of this tab's last upload that held several: each one's name, its Browse
    link and its link to share (the absolute address, copied with one click)."""
    fids = [f for f in (kept if isinstance(kept, list) else []) if isinstance(f, str)]
    if not fids:
        return None
    catalog = get_catalog(recent, *fids)
    shown = [fid for fid in fids if fid in catalog]
    if not shown:
        return None
    root = request.host_url.rstrip("/")
    return kept_figures([(fid, catalog.figure(fid).spec.title) for fid in shown],
                        lambda fid: dash.get_relative_path("/") + ViewState(fid).to_query(),
                        root)


register_nav_sync(PAGE)
