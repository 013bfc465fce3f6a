"""Builders for the data view: the cells grid (dash-ag-grid) and the upload preview card."""

from __future__ import annotations

import json

import dash_ag_grid as dag
import dash_bootstrap_components as dbc
from dash import dcc, html

from evalmaps.core import text as fmt
from evalmaps.core.figure import FigureSpec
from evalmaps.core.labels import label_prefix
from evalmaps.readers.zipped import UNZIPPED_FACTOR


def shown_with(decimals: int, by: tuple[str, dict[str, int]] | None = None) -> dict:
    """An AG Grid value formatter: the number with ``decimals`` places (d3-format, in the
    browser; the row data and the download keep the exact value), empty when missing.
    ``by``: a dimension and the places of rows with some of its labels (a figure of several
    metrics: each metric's decimals, :meth:`Figure.decimals_for`)."""
    text = f"d3.format('.{fmt.places(decimals)}f')(params.value)"
    if by is not None:
        dim, places = by
        groups: dict[int, list[str]] = {}
        for label, d in places.items():
            if fmt.places(d) != fmt.places(decimals):
                groups.setdefault(fmt.places(d), []).append(label)
        for d, labels in sorted(groups.items(), reverse=True):
            row = f"(params.data[{json.dumps(dim)}] + '')"
            test = " || ".join(f"{row} === {json.dumps(label)}" for label in labels)
            text = f"({test}) ? d3.format('.{d}f')(params.value) : {text}"
    return {"function": f"params.value == null ? '' : {text}"}


def without_start(prefix: str) -> dict:
    """An AG Grid value formatter: the label without ``prefix`` (in the browser; the row data,
    the filters and the download keep the whole label)."""
    # (dash-ag-grid evaluates it with static-eval: no globals such as String; methods work)
    text = "(params.value + '')"
    return {"function": f"params.value == null ? '' : {text}.startsWith({json.dumps(prefix)}) "
                        f"&& {text}.length > {len(prefix)} ? {text}.slice({len(prefix)}) : {text}"}


def bidi_written_out(formatter: dict | None, labels) -> dict | None:
    """``formatter`` (None: the label as it is) with the bidirectional controls the labels hold
    written out as :func:`evalmaps.core.text.bidi_marked` writes them ('[U+202E]'), in the
    browser: the row data, the filters and the download keep the whole label. None when no
    label holds one (the common case: no formatter)."""
    found = sorted({c for label in labels for c in fmt.BIDI_CONTROLS.findall(str(label))})
    if not found:
        return formatter
    text = (f"({formatter['function']})" if formatter else
            "(params.value == null ? '' : params.value + '')")
    for c in found:  # static-eval: string methods, no regular expressions
        text += f".split({json.dumps(c)}).join({json.dumps(fmt.bidi_marked(c))})"
    return {"function": text}


def label_column(field: str, title: str, labels) -> dict:
    """A dimension's column: its labels shown without the start they all share
    (evalmaps.core.labels), which the header says once, and with their bidirectional controls
    written out (:func:`bidi_written_out`)."""
    column = {"field": field, "headerName": fmt.bidi_marked(title), "filter": "agTextColumnFilter"}
    marked = bidi_written_out(None, labels)
    if marked is not None:
        column["valueFormatter"] = marked
    prefix = label_prefix(labels)
    if prefix:
        header = fmt.bidi_marked(f"{title} ({prefix}…)")
        column.update(headerName=header,
                      valueFormatter=bidi_written_out(without_start(prefix), labels),
                      headerTooltip=f"{title}: each label starts with {prefix}, left off below",
                      # room for the header where there is room (flex), less on a phone
                      flex=2, minWidth=min(8 * len(header) + 40, 240))
    return column


def cells_grid(component_id: str, spec: FigureSpec, rows: list[dict], decimals: int,
               extras: tuple[str, ...] = (), metric_decimals: dict[str, int] | None = None
               ) -> dag.AgGrid:
    """Tidy cells, sortable and filterable. Cells render as text, never as HTML; values with the
    figure's decimals (as every view writes them). ``extras``: the figure's sd, n, se columns.
    ``metric_decimals``: a figure of several metrics (``spec.metrics``): each one's decimals,
    by its label."""
    def by(more: int):
        if not metric_decimals or spec.metrics is None:
            return None
        return spec.metrics.dim, {label: d + more for label, d in metric_decimals.items()}

    columns = [label_column(d, spec.dims[d].title, spec.dims[d].labels) for d in spec.dim_names]
    columns.append({"field": "value", "headerName": spec.metric.label, "type": "numericColumn",
                    "filter": "agNumberColumnFilter", "valueFormatter": shown_with(decimals, by(0))})
    for extra in extras:
        column = {"field": extra, "headerName": extra, "type": "numericColumn",
                  "filter": "agNumberColumnFilter"}
        if extra != "n":
            more = 1 if extra == "se" else 0
            column["valueFormatter"] = shown_with(decimals + more, by(more))
        columns.append(column)
    return dag.AgGrid(
        id=component_id,
        rowData=rows,
        columnDefs=columns,
        defaultColDef={"sortable": True, "resizable": True, "floatingFilter": True, "flex": 1,
                       "minWidth": 100},
        # the scroll track is kept: rows arriving would narrow every column (a layout shift)
        dashGridOptions={"animateRows": False, "pagination": len(rows) > 200,
                         "alwaysShowVerticalScroll": True,
                         "paginationPageSize": 100,
                         # one tab stop: Tab leaves the grid, arrow keys move between cells
                         # and headers (AG Grid's keyboard model)
                         "tabToNextCell": {"function": "false"},
                         "tabToNextHeader": {"function": "false"}},
        style={"height": "460px"},
        className="cells-grid",
    )


def upload_box(component_id: str, max_mb: float, disabled_note: str | None = None):
    """The file drop. ``disabled_note``: why uploads are off (a read-only server)."""
    if disabled_note:
        return html.Div([dcc.Upload(id=component_id, disabled=True, style={"display": "none"}),
                         html.Div(disabled_note, className="small text-muted")],
                        className="upload-box upload-box-disabled", id=f"{component_id}-off")
    return dcc.Upload(
        id=component_id,
        children=html.Div([
            html.Strong("Drop a results file here"), " or ", html.A("choose a file", href="#"),
            html.Div(f"A table (tidy, wide such as type_3_len_15 columns, or matrix; CSV, Parquet "
                     f"or JSON Lines), lm-evaluation-harness results, an Inspect log, or a zip of "
                     f"a results folder; up to {max_mb:g} MB sent (a zip may unzip to "
                     f"{UNZIPPED_FACTOR * max_mb:g} MB). It is kept on this server, and its "
                     f"link opens the same figure for anyone who can reach the server.",
                     className="small text-muted"),
        ]),
        multiple=False,
        className="upload-box",
    )


def item_record_fields(prefix: str, hidden: bool = False):
    """The upload's per-item options, in a disclosure ("Per-item records", closed until opened):
    the item column, "right when PRED equals REF" (both empty: a 'score' column), and the model
    from the file name, and columns to leave out of the dimensions (``--item``, ``--correct``,
    ``--set model={file}``, ``--drop``, ``--cluster`` of ``evalmaps import``). Ids:
    ``{prefix}-items`` (the disclosure), ``-item``, ``-pred``, ``-ref``, ``-model-file``,
    ``-drop`` and ``-cluster``. ``hidden``:
    there for the callbacks, not shown (uploads are off)."""
    def field(suffix: str, label: str, placeholder: str, width: int = 4):
        return dbc.Col([dbc.Label(label, html_for=f"{prefix}-{suffix}",
                                  className="small fw-semibold mb-1"),
                        dbc.Input(id=f"{prefix}-{suffix}", placeholder=placeholder, maxLength=200,
                                  debounce=True, size="sm")], xs=width, className="mb-2")

    return html.Details([
        html.Summary("Per-item records", className="small fw-semibold"),
        html.Div("One row per item (a lab's own outputs, such as MMLU-Pro's): each cell becomes "
                 "the mean over its items, and Compare pairs two models per item.",
                 className="small text-muted mb-1"),
        dbc.Row([field("item", "Item column", "e.g. question_id"),
                 field("pred", "Right when", "e.g. pred"),
                 field("ref", "equals", "e.g. answer")], className="g-2"),
        html.Div("Leave the last two empty to use a 'score' column (1 right, 0 wrong).",
                 className="small text-muted mb-1"),
        dbc.Switch(id=f"{prefix}-model-file", value=False, className="small",
                   label="Model from the file name (one file per model, in a zip)"),
        dbc.Row([field("drop", "Leave out columns", "e.g. answer_index (commas between)", 8),
                 field("cluster", "Cluster column", "e.g. src")], className="g-2 mt-1"),
        html.Div("Cluster column: what groups the items (a passage, a source data set); kept "
                 "with the items so that standard errors can be clustered by it.",
                 className="small text-muted mb-1"),
    ], id=f"{prefix}-items", className="item-records mt-1",
        style={"display": "none"} if hidden else None)


def labels(n: int) -> str:
    """'1 label', '3 labels'."""
    return f"{n} label{'s' * (n != 1)}"


def _detected(summary: dict) -> list:
    """What the importer detected of one figure: a table of format, axes, facets, replicates
    and cells, and its warnings."""
    dims = summary["dims"]
    rows = [
        ("Format", summary["format"]),
        ("Rows (y)", f"{summary['y']} ({labels(dims[summary['y']])})"),
        ("Columns (x)", f"{summary['x']} ({labels(dims[summary['x']])})"),
        ("Facets (panels)", ", ".join(f"{f} ({dims[f]})" for f in summary["facets"]) or "none"),
        ("Replicates", f"'{summary['replicate']}' averaged, up to {summary['replicates']} per cell"
         if summary["replicate"] else "none"),
        ("Cells", str(summary["cells"])),
    ]
    return [
        html.Table(html.Tbody([html.Tr([html.Th(k, className="pe-3"), html.Td(v)])
                               for k, v in rows]),
                   className="table table-sm mb-2 preview-table"),
        html.Ul([html.Li(w) for w in summary["warnings"]], className="small text-warning-emphasis")
        if summary["warnings"] else None,
    ]


def preview_card(summary: dict, title: str, figures: list[dict] | None = None) -> dbc.Card:
    """What the importer detected: format, dimensions, facets, replicates, cells, warnings.
    ``figures`` (title and summary each): an upload that holds several figures (a zip of a
    folder with two tools' results, or several tables) shows each of them."""
    if not figures or len(figures) < 2:
        return dbc.Card([
            dbc.CardHeader(["Preview: ", html.Span(title, className="fw-semibold")]),
            dbc.CardBody(_detected(summary)),
        ], id="data-preview-card", className="mb-2")
    return dbc.Card([
        dbc.CardHeader(["Preview: ", html.Span(title, className="fw-semibold"),
                        f" holds {len(figures)} figures, one per tool or table; each keeps the "
                        f"axes read from its files."]),
        dbc.CardBody([html.Div([html.H6(f["title"], className="preview-figure-title fw-semibold mt-2"),
                                *_detected(f["summary"])], className="preview-figure")
                      for f in figures]),
    ], id="data-preview-card", className="mb-2")


def kept_figures(figures: list[tuple[str, str]], href, root: str) -> dbc.Card:
    """The figures one upload kept (id and title each): each one's name, its Browse link and
    its link to share (``root`` + its Browse path, copied with one click). ``href(fid)``: a
    figure's Browse path."""
    items = []
    for fid, title in figures:
        link = root + href(fid)
        items.append(html.Li([
            html.Span(title, className="fw-semibold kept-title"),
            html.Div([
                html.A("Browse", href=href(fid), className="kept-browse me-3"),
                html.Span("Link to share: ", className="text-muted"),
                html.Code(link, className="kept-link text-break"),
                dcc.Clipboard(content=link, title="Copy this figure's link",
                              className="d-inline-block ms-1 kept-copy"),
            ], className="small"),
        ], className="mb-2"))
    return dbc.Card([
        dbc.CardHeader(f"Your upload is kept on this server as {len(figures)} figures, one per "
                       f"tool or table:"),
        dbc.CardBody(html.Ul(items, className="list-unstyled mb-0")),
    ], id="data-kept-card", className="mb-3")
