"""Data view (/data): bring your own results (upload, preview, mapping), and the tidy cells of
the current slice in a grid with a CSV download of exactly the visible rows.

Uploaded data stays in the browser session (the ``uploads`` store): the server writes nothing.
"""

from __future__ import annotations

import base64
import binascii

import dash
import dash_bootstrap_components as dbc
from dash import (ClientsideFunction, Input, Output, State, callback, clientside_callback,
                  ctx, dcc, html)
from dash.exceptions import PreventUpdate
from flask import current_app

from components.controls import figure_row, labelled, rows_and_range
from components.datatable import cells_grid, preview_card, upload_box
from components.provenance import provenance_badge
from evalmaps.api import cells_csv, view_cells
from evalmaps.errors import EvalmapsError
from evalmaps.importers import FORMATS, ImportOptions, import_bytes
from evalmaps.slicing import views_for
from evalmaps.state import first, parse_state
from evalmaps.uploads import upload_entry, upload_spec
from layouts._shared import (UPLOADS, Outputs, explain_problems, get_catalog, page_location,
                             problems_alert, read_view, register_figure_navigation,
                             register_nav_sync, register_row_buttons, row_labels,
                             slicing_inputs, slicing_outputs, slicing_values)

dash.register_page(__name__, path="/data", name="Data", title="evalmaps · Data", order=3)

PAGE = "data"
MAX_SESSION_BYTES = 4 * 2**20  # what one browser tab's session storage can reliably hold


def max_upload_bytes() -> int:
    return current_app.config["EVALMAPS_MAX_UPLOAD_BYTES"]


def layout(uploads=None, **query):
    catalog = get_catalog(uploads)
    state = parse_state(query, catalog)
    figure = catalog.figure(state.figure)
    spec = figure.spec
    max_mb = max_upload_bytes() / 2**20
    return dbc.Container([
        page_location(PAGE, figure.id),
        problems_alert(explain_problems(state.problems, first(query.get("figure")))),
        html.H4("Bring your own results", className="section-title"),
        dbc.Row([
            dbc.Col(upload_box("data-upload", max_mb), md=5),
            dbc.Col(dbc.Row([
                labelled("Format", dcc.Dropdown(id="data-format", options=list(FORMATS),
                                                value="auto", clearable=False), width=3),
                labelled("Rows (y)", dcc.Dropdown(id="data-y", options=[], clearable=False),
                         width=3),
                labelled("Columns (x)", dcc.Dropdown(id="data-x", options=[], clearable=False),
                         width=3),
                labelled("Replicates", dcc.Dropdown(id="data-replicate", options=[],
                                                    placeholder="none"), width=3),
                labelled("Metric", dbc.Input(id="data-metric", value="Accuracy", maxLength=40,
                                             debounce=True), width=4),
                labelled("Unit", dbc.Input(id="data-unit", value="%", maxLength=10,
                                           debounce=True), width=2),
                dbc.Col(dbc.Switch(id="data-range", label="Values must lie in 0-100", value=True,
                                   className="small"), md=6, className="pt-4"),
            ], className="g-2"), md=7),
        ], className="g-3"),
        html.Div(id="data-upload-client-error"),
        html.Div(id="data-upload-status", className="mt-2"),
        dbc.Button("Add to this session and open it", id="data-add", color="primary",
                   disabled=True, className="mb-3"),
        dcc.Store(id="data-upload-raw"),
        dcc.Store(id="data-pending"),
        dcc.Store(id="data-max-bytes", data=max_upload_bytes()),
        html.Hr(),
        html.H4(["Cells of ", spec.title, provenance_badge(spec.provenance, with_id=True)],
                className="section-title"),
        figure_row(PAGE, catalog, figure, state),
        dbc.Row(rows_and_range(PAGE, figure, state, widths=(5, 4)), className="g-3 controls-row"),
        html.Div([
            html.Div(id="data-summary", className="small text-muted"),
            dbc.Button("Download CSV of the rows shown", id="data-download-button",
                       color="secondary", outline=True, size="sm"),
        ], className="d-flex justify-content-between align-items-center gap-2 mb-2"),
        html.Div(cells_grid("data-grid", spec, []), id="data-grid-wrap"),
        dcc.Download(id="data-download"),
    ], fluid=True, className="py-3")


register_figure_navigation(PAGE, "/data")
register_row_buttons(PAGE)


# ------------------------------------------------------------------ the cells of the slice

def tidy_rows(figure, state) -> tuple[list[dict], int]:
    """Present cells of the slice, in display order, and how many grid cells are missing."""
    views, _ = views_for(figure, state)
    cells = view_cells(views, present_only=True)
    return cells, sum(v.z.size for v in views) - len(cells)


OUT = Outputs(
    **slicing_outputs(PAGE),
    cells=Output("data-grid", "rowData"),
    summary=Output("data-summary", "children"),
)


@callback(
    output=OUT.spec,
    inputs=slicing_inputs(PAGE),
)
def sync(search, facet_values, rows, x_range, sort, top, facet_ids, rendered, uploads):
    figure, state, query = read_view(PAGE, get_catalog(uploads), rendered, search, facet_ids,
                                     facet_values, rows, x_range, sort, top)
    cells, missing = tidy_rows(figure, state)
    if query is not None:  # the URL changed: write the controls
        return OUT(cells=cells, summary=_summary(cells, missing),
                   **slicing_values(state, figure, facet_ids))
    return OUT(search=state.to_query(y_labels=row_labels(figure)), cells=cells,
               summary=_summary(cells, missing))


def _summary(cells: list[dict], missing: int) -> str:
    text = f"{len(cells)} cells in this slice"
    if missing:
        text += f"; {missing} more are not reported by the source and not listed"
    return text + ". Sort and filter in the table; the download holds exactly the rows shown."


@callback(
    Output("data-download", "data"),
    Input("data-download-button", "n_clicks"),
    State("data-grid", "virtualRowData"),
    State("data-rendered-figure", "data"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
def download(_, shown, rendered, uploads):
    """The rows the grid shows (after its filters and sort), with values looked up in the data:
    coordinates come from the browser, numbers only from the figure."""
    catalog = get_catalog(uploads)
    if rendered not in catalog:
        raise PreventUpdate
    figure = catalog.figure(rendered)
    spec = figure.spec
    cells = []
    for row in shown or []:
        if not isinstance(row, dict):
            continue
        coords = {d: str(row.get(d, "")) for d in spec.dim_names}
        value = figure.value(**coords)
        if value is None:
            continue  # not a cell of this figure: never write what the data does not hold
        cell = {**coords, "value": value}
        cells.append(cell)
    if "sd" in figure.cells.columns or "n" in figure.cells.columns:
        extra = figure.cells.set_index(list(spec.dim_names))
        for cell in cells:
            key = tuple(cell[d] for d in spec.dim_names)
            for col in ("sd", "n"):
                if col in extra.columns:
                    v = extra.at[key, col] if len(spec.dim_names) > 1 else extra.at[key[0], col]
                    cell[col] = None if v != v else float(v)
    return {"content": cells_csv(figure, cells), "filename": f"{figure.id}-slice.csv",
            "type": "text/csv"}


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
    name = str(raw.get("name") or "upload.csv")[:120]
    contents = str(raw.get("contents") or "")
    _, _, b64 = contents.partition(",")
    limit = max_upload_bytes()
    if len(b64) * 3 // 4 > limit + 3:
        raise EvalmapsError(f"{name}: the file is over the {limit / 2**20:g} MB limit. Split it, "
                            f"or serve the folder with evalmaps serve --data.")
    try:
        return name, base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise EvalmapsError(f"{name}: the upload arrived damaged. Upload the file again.") from None


def _alert(message: str):
    return dbc.Alert(message, color="danger", className="py-2", id="data-upload-error")


PREVIEW = Outputs(
    status=Output("data-upload-status", "children"),
    pending=Output("data-pending", "data"),
    add_disabled=Output("data-add", "disabled"),
    x_options=Output("data-x", "options"),
    x=Output("data-x", "value"),
    y_options=Output("data-y", "options"),
    y=Output("data-y", "value"),
    replicate_options=Output("data-replicate", "options"),
    replicate=Output("data-replicate", "value"),
)


@callback(
    output=PREVIEW.spec,
    inputs=dict(
        raw=Input("data-upload-raw", "data"),
        fmt=Input("data-format", "value"),
        x=Input("data-x", "value"),
        y=Input("data-y", "value"),
        replicate=Input("data-replicate", "value"),
        metric=Input("data-metric", "value"),
        unit=Input("data-unit", "value"),
        in_range=Input("data-range", "value"),
    ),
    prevent_initial_call=True,
)
def preview(raw, fmt, x, y, replicate, metric, unit, in_range):
    """Import the uploaded file with the chosen mapping and show what was detected."""
    if not raw:
        raise PreventUpdate
    fresh = ctx.triggered_id in ("data-upload-raw", "data-format")
    mapping = ImportOptions(format=fmt or "auto", x=None if fresh else x, y=None if fresh else y,
                      replicate=None if fresh else (replicate or ""),
                      metric=(metric or "value").strip()[:40] or "value",
                      unit=(unit or "").strip()[:10],
                      metric_range=(0.0, 100.0) if in_range else None)

    def refused(message: str) -> dict:
        return PREVIEW(status=_alert(message), pending=None, add_disabled=True)

    try:
        name, data = _decode_upload(raw)
        imported = import_bytes(data, name, mapping, max_bytes=max_upload_bytes())
        figure = imported.figure()
    except EvalmapsError as exc:
        return refused(str(exc))
    except Exception:  # noqa: BLE001 - a file must never take the server down; say what to do
        current_app.logger.exception("upload preview failed")
        return refused("This file could not be read as a results table. Check that it is a CSV "
                       "with a header row, or choose the format by hand.")
    tidy = imported.to_csv(for_spreadsheets=False)
    if len(tidy.encode()) > MAX_SESSION_BYTES:
        return refused(f"{name}: its {imported.n_cells} cells are too many to keep in a browser "
                       f"session (over {MAX_SESSION_BYTES // 2**20} MB). Serve the file with "
                       f"evalmaps serve --data instead.")
    spec = upload_spec(imported.spec, name, data)
    dims = list(spec["dims"])
    columns = imported.columns[:200]
    return PREVIEW(
        status=preview_card(imported.summary(), name),
        pending=upload_entry(spec, tidy),
        add_disabled=False,
        x_options=dims, x=figure.spec.x, y_options=dims, y=figure.spec.y,
        replicate_options=[{"label": "none", "value": ""}]
        + [{"label": c, "value": c} for c in columns],
        replicate=imported.replicate or "",
    )


@callback(
    Output(UPLOADS, "data"),
    Output("_pages_location", "href", allow_duplicate=True),
    Input("data-add", "n_clicks"),
    State("data-pending", "data"),
    State(UPLOADS, "data"),
    prevent_initial_call=True,
)
def add_upload(_, pending, uploads):
    """Keep the figure in this browser session and open it in the browse view."""
    if not pending:
        raise PreventUpdate
    fid = pending["spec"]["id"]
    kept = [u for u in (uploads or []) if u.get("spec", {}).get("id") != fid]
    return kept + [pending], dash.get_relative_path("/") + f"?figure={fid}"


register_nav_sync(PAGE)
