"""The Trends page's pieces around its line charts (:mod:`evalmaps.figures.trends`, re-exported
here): the statistics table, observations, panel summaries.
"""

from __future__ import annotations

from collections.abc import Sequence

import dash_ag_grid as dag
import dash_bootstrap_components as dbc
from dash import html

from evalmaps.analysis.trends import LineStats, PanelSummary, Trends, plural
from evalmaps.core import text as fmt
from evalmaps.core.figure import FigureSpec
from evalmaps.figures.trends import *  # noqa: F403 - the charts, for the page
from evalmaps.figures.trends import CLASS_COLORS, NOT_APPLICABLE, PALETTE, by_panel, line_color

# --------------------------------------------------------------------------- statistics table

def _text_col(field: str, header: str, **extra) -> dict:
    """A numeric column (sorts by number) that shows a preformatted text (``<field>_text``)."""
    return {"field": field, "headerName": header,
            "valueFormatter": {"function": f"params.data.{field}_text"},
            "type": "rightAligned", **extra}


WORDS = {"<": "below", ">": "above"}


CELL_CHAR_PX = 7.6  # a character of the table's 14 px text, about
CELL_PADDING_PX = 40  # a cell's padding on both sides, and the line column's colour bar
MAX_FITTED_PX = 280  # wider texts are cut ('...'), whole in the cell's tooltip or the hover


def fit_widths(columns: list[dict], rows: list[dict]) -> list[dict]:
    """Columns at least as wide as their widest text in ``rows`` (up to :data:`MAX_FITTED_PX`),
    so that '0.1817 at 13000' is not cut to '0.1817 at 130...'; the grid scrolls sideways where
    the page is narrower than the columns."""
    out = []
    for column in columns:
        field = column["field"]  # the text shown: '<field>_text', the line's, or the value
        key = {"line": "line_text", "panel": "panel", "cls": "cls"}.get(field, f"{field}_text")
        chars = max((len(str(row.get(key, ""))) for row in rows), default=0)
        width = min(int(chars * CELL_CHAR_PX + CELL_PADDING_PX), MAX_FITTED_PX)
        out.append({**column, "minWidth": max(column.get("minWidth", 0), width)})
    return out


def stats_columns(spec: FigureSpec, transpose: bool, threshold: float | Sequence[float],
                  multi: bool, metrics: list | None = None,
                  rows: list[dict] | None = None) -> list[dict]:
    """The table's columns; ``metrics``: the shown panels' as written (default: the figure's).
    The threshold column is 'First < t' where higher is better, 'First > t' where lower is,
    'First worse than t' for both; panels of different thresholds (each its metric's default):
    'First below threshold', each row giving its own. ``rows`` (:func:`stats_rows`): each
    column at least as wide as its widest text (:func:`fit_widths`)."""
    metrics = metrics or [spec.metric]
    levels = list(dict.fromkeys([threshold] if isinstance(threshold, (int, float))
                                else threshold))
    line_dim = spec.dims[spec.x if transpose else spec.y]
    axis = spec.dims[spec.y if transpose else spec.x]
    slope = f"Slope per {axis.title.lower()}" if axis.numeric else "Slope"
    directions = {m.higher_is_better for m in metrics}
    sign = "<" if directions == {True} else ">" if directions == {False} else "worse than"
    colours = [{"condition": f"params.data.color == '{c}'",
                "style": {"borderLeft": f"6px solid {c}"}} for c in PALETTE]
    classes = [{"condition": f"params.value == '{cls}'",
                "style": {"color": color, "fontWeight": "600"}}
               for cls, color in CLASS_COLORS.items()]
    columns = []
    if multi:
        columns.append({"field": "panel", "headerName": "Panel", "minWidth": 130,
                        "tooltipField": "panel"})
    columns += [
        {"field": "line", "headerName": line_dim.title, "minWidth": 90,
         "valueFormatter": {"function": "params.data.line_text"},
         "tooltipField": "line_name",  # the whole name, prefix and all
         "cellStyle": {"styleConditions": colours}},
        _text_col("n", "Cells", headerTooltip="Reported cells of the line in this slice"),
        _text_col("mean", "Mean"),
        _text_col("min", "Min (at)", minWidth=110),
        _text_col("max", "Max (at)", minWidth=110),
        _text_col("slope", slope,
                  headerTooltip="Least squares over the reported cells" if axis.numeric
                  else f"None: {axis.title} is categorical, its labels have no order"),
        _text_col("r2", "R²"),
        _text_col("drop", "Largest drop (where)", minWidth=150,
                  headerTooltip="Between neighbouring cells that are both reported"
                  if axis.numeric else f"None: {axis.title} is categorical, its labels have "
                                       "no order, so no cells are neighbours"),
        _text_col("below", f"First {sign} {fmt.level(metrics[0], levels[0])}"
                  if len(levels) == 1 else f"First {WORDS.get(sign, sign)} threshold",
                  minWidth=110,
                  headerTooltip=f"The first {axis.title.lower()} whose value is worse than the "
                                f"threshold: below it, or above it where lower is better"),
        {"field": "cls", "headerName": "Class", "minWidth": 90,
         "cellStyle": {"styleConditions": classes}},
    ]
    return columns if rows is None else fit_widths(columns, rows)


def stats_rows(trends: Trends, overlay: bool = False) -> list[dict]:
    """One table row per line: numbers to sort by, and the texts shown; ``overlay``: the panels
    are drawn in one chart (each row's colour is then its line's there, :func:`by_panel`)."""
    short = {p.key: p.short for p in trends.panels}
    order = {p.key: i for i, p in enumerate(trends.panels)}
    panel_colours = by_panel([s.key for s in trends.lines if s.n_present], len(trends.panels),
                             overlay)
    several = len(trends.thresholds) > 1  # each row says its own: '1000 (0.2142 < 0.8)'
    rows = []

    def below(s: LineStats, metric) -> str:
        if s.n_present == 0:
            return fmt.DASH
        if s.below_at is None:
            return "never"
        if (s.max < s.threshold) if s.higher_is_better else (s.min > s.threshold):
            return "every cell"  # all on the worse side: not 'at step 0', as if it fell there
        than = f" {'<' if s.higher_is_better else '>'} {fmt.level(metric, s.threshold)}"
        return f"{point(s.below_at)} ({fmt.value(metric, s.below, d)}{than if several else ''})"

    def at(value, label):
        return fmt.DASH if value is None else f"{fmt.value(metric, value, d)} at {point(label)}"

    def point(label: str) -> str:
        return trends.short(trends.axis_dim, label)

    metrics = [trends.metric_of(s.panel_key) for s in trends.lines]
    # one column, one number of decimals: the column's, not each row's; slopes per metric (a
    # perplexity's slope of -513 would write an accuracy's 0.0000021 as 0)
    places = [trends.decimals_of(s.panel_key) for s in trends.lines]  # each metric's own
    means = fmt.mean_column(metrics, [s.mean for s in trends.lines], places)
    slopes = [""] * len(trends.lines)
    for one in dict.fromkeys(metrics):
        rows_of = [k for k, m in enumerate(metrics) if m == one]
        for k, text in zip(rows_of, fmt.slope_column([trends.lines[k].slope for k in rows_of])):
            slopes[k] = text
    unordered = not trends.spec.dims[trends.axis_dim].numeric  # no slope, R², drop, direction
    for s, metric, d, mean_text, slope_text in zip(trends.lines, metrics, places, means, slopes):
        s: LineStats  # (at and below write with this row's metric and decimals)
        rows.append({
            "id": f"{s.panel_key}|{s.line}",
            "panel": short.get(s.panel_key, s.panel_title),
            "line": order[s.panel_key] * 100000 + s.key,
            "line_text": trends.short(trends.line_dim, s.line), "line_name": s.line,
            "color": line_color(order[s.panel_key] if panel_colours else s.key),
            "n": s.n_present, "n_text": f"{s.n_present} of {s.n_total}",
            "mean": s.mean, "mean_text": mean_text,
            "min": s.min, "min_text": at(s.min, s.min_at),
            "max": s.max, "max_text": at(s.max, s.max_at),
            "slope": s.slope, "slope_text": NOT_APPLICABLE if unordered else slope_text,
            "r2": s.r2, "r2_text": NOT_APPLICABLE if unordered else fmt.r2(s.r2),
            "drop": s.drop,
            "drop_text": (NOT_APPLICABLE if unordered else fmt.DASH if s.drop is None
                          else f"{fmt.difference(metric, s.drop, d)} ({point(s.drop_from)} → "
                               f"{point(s.drop_to)})"),
            "below": s.below_step,
            "below_text": below(s, metric),
            "cls": s.cls or "not classified",
        })
    return rows


def stats_grid(component_id: str, rows: list[dict] | None = None,
               columns: list[dict] | None = None) -> dag.AgGrid:
    """The sortable statistics table (``rows`` and ``columns`` as the page's callback sets
    them). AG Grid's own Quartz theme (Theming API, no CSS file, nothing from a CDN); fits its
    width, grows with its rows."""
    return dag.AgGrid(
        id=component_id,
        rowData=rows or [],
        columnDefs=columns or [],
        defaultColDef={"sortable": True, "resizable": True, "suppressMovable": True,
                       "wrapHeaderText": True, "autoHeaderHeight": True, "minWidth": 80},
        columnSize="responsiveSizeToFit",
        dashGridOptions={"domLayout": "autoHeight", "suppressColumnVirtualisation": True,
                         "animateRows": False, "suppressCellFocus": True,
                         # Tab leaves the grid (arrows move between headers): no Tab trap
                         "tabToNextHeader": {"function": "false"}},
        getRowId="params.data.id",
        style={"width": "100%"},
        className="trends-table",
    )


# --------------------------------------------------------------------------- text blocks

def observation_list(sentences: list[str], illustrative: bool = False):
    if not sentences:
        return html.P("No observation applies to this slice: it has no reported cell.",
                      className="text-muted fst-italic mb-0", id="trends-observations-empty")
    items = []
    for k, sentence in enumerate(sentences):
        warn = illustrative and k == 0 and "ILLUSTRATIVE" in sentence
        items.append(html.Li(sentence, className="text-warning-emphasis fw-semibold" if warn
                             else None))
    return html.Ul(items, className="mb-0 trends-observations", id="trends-observations-list")


MAX_TIED = 6  # tied best or worst cells listed in a panel's card, then 'and N more'


def _cells_text(trends: Trends, extreme) -> str:
    spec = trends.spec
    ytitle, xtitle = spec.dims[spec.y].title, spec.dims[spec.x].title
    text = "; ".join(f"{ytitle} {trends.short(spec.y, y)}, {xtitle} {trends.short(spec.x, x)}"
                     for y, x in extreme.cells[:MAX_TIED])
    more = len(extreme.cells) - MAX_TIED
    return f"{text} and {more} more cell{'s' * (more != 1)}" if more > 0 else text


def _means_table(spec: FigureSpec, means, decimals: int, metric=None):
    metric = metric or spec.metric
    best = means.best[1]
    head = [html.Th(spec.dims[means.dim].title, className="fw-semibold")]
    head += [html.Th(label) for label in means.labels]
    cells = [html.Td("mean", className="text-muted")]
    cells += [html.Td(text, className="fw-bold" if m == best else None,
                      title=f"mean of {n} cells")
              for m, n, text in zip(means.means, means.counts,
                                    fmt.mean_column(metric, list(means.means), decimals))]
    return html.Table([html.Thead(html.Tr(head)), html.Tbody(html.Tr(cells))],
                      className="table table-sm mb-2 trends-means")


def panel_summaries(trends: Trends) -> list:
    """Per panel: best and worst cell and, for complete numeric grids, marginal means."""
    spec = trends.spec
    notes = {p.marginals_note for p in trends.panels if p.marginals_note}
    width = 12 if len(trends.panels) == 1 else 6
    cols = []
    for p in trends.panels:
        p: PanelSummary
        metric = p.metric or spec.metric
        d = trends.decimals_of(p.key)
        body = []
        if p.best is None:
            body.append(html.P("No reported cell in this slice.", className="text-muted mb-0"))
        else:
            lower = "" if metric.higher_is_better else " (lowest: lower is better)"
            body.append(html.P([html.Span(f"Best{lower} ", className="fw-semibold"),
                                fmt.value(metric, p.best.value, d), " at ",
                                _cells_text(trends, p.best)], className="mb-1 trends-best"))
            body.append(html.P([html.Span("Worst ", className="fw-semibold"),
                                fmt.value(metric, p.worst.value, d), " at ",
                                _cells_text(trends, p.worst)], className="mb-2 trends-worst"))
        if p.marginals is not None:
            for means in (p.marginals.by_x, p.marginals.by_y):
                body.append(html.Div(
                    f"Effect of {spec.dims[means.dim].title.lower()} "
                    f"(mean over {plural(spec.dims[means.over].title)})",
                    className="small fw-semibold"))
                body.append(_means_table(spec, means, d, metric))
        cols.append(dbc.Col(dbc.Card([
            dbc.CardHeader(p.short, className="py-1 fw-semibold"),
            dbc.CardBody(body, className="py-2"),
        ], className="h-100 trends-panel-card"), md=width, className="mb-2"))
    out = [dbc.Row(cols, className="g-2")]
    if len(notes) == 1:
        out.append(html.Div(notes.pop(), className="small text-muted"))
    elif notes:
        out.append(html.Div("Marginal means are shown only for panels with a complete grid "
                            "of two numeric axes.", className="small text-muted"))
    return out


def rules_list(notes: list[str]):
    return html.Ul([html.Li(n) for n in notes], className="small text-muted mb-0 trends-rules")
