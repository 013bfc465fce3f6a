"""Trends' line charts, as plain dicts: value against the axis, one line per row (or column).

Line charts plot each line's reported cells only: a missing cell is a null point, and
``connectgaps=False`` breaks the line there (a hidden neighbour breaks it too), so nothing is
interpolated. Hovers read like the heatmap's (:func:`line_hover`): exact values with the figure's
decimals (formatted by the browser) and every coordinate. A line keeps its colour (keyed by its
label's place in the catalog) in every panel and every slice. Labels are shown as typed.
"""

from __future__ import annotations

import numpy as np

from evalmaps.analysis import uncertainty
from evalmaps.analysis.slicing import PanelView
from evalmaps.analysis.trends import (
    Line,
    axis_numbers,
    axis_scale,
    label_prefixes,
    lines_of,
    stable_band,
)
from evalmaps.core import text as fmt
from evalmaps.core.labels import without_prefix
from evalmaps.figures import theme
from evalmaps.figures.heatmap import PERCENT_TICKS
from evalmaps.figures.hover import hover_tail, value_template

# Twelve colours, so that up to twelve lines (Pythia's eight models, a dozen checkpoints) never
# share one: Okabe & Ito's seven (their yellow left out: too faint on white), then Paul Tol's
# wine and indigo, a dark brown, IBM's violet and a rust, chosen so that the two closest of all
# twelve stay apart under every common colour-vision deficiency (tests/unit/test_colour.py
# checks them simulated). Lines differ by more than colour: each line's key also picks a dash
# pattern and a marker, cycling at other lengths, so no two of the first 420 lines share all
# three.
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#000000",
           "#882255", "#332288", "#5a3d00", "#785ef0", "#b15928")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash")  # 12, 5 and 7: all three repeat
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "triangle-down")  # at 420
THRESHOLD_COLOR = "#6c757d"
NOT_APPLICABLE = "n/a"  # a slope, R² or drop along a categorical (unordered) axis
CHART_HEIGHT = 380
CLASS_COLORS = {"declining": "#b02a37", "rising": "#146c43", "stable": "#495057",
                "mixed": "#8a6d00"}
LEGEND_BELOW_PX = 560  # a chart narrower than this (a phone) has its legend below the plot
GRID = {"showgrid": True, "gridcolor": "#eef0f3", "linecolor": "#ced4da", "showline": True}


def chart_height(legend_entries: int) -> int:
    """Tall enough for the legend to show every line without scrolling (up to a limit)."""
    return int(min(max(CHART_HEIGHT, 130 + 20 * legend_entries), 720))


def line_color(key: int) -> str:
    return PALETTE[key % len(PALETTE)]


def by_panel(keys, n_panels: int, overlay: bool) -> bool:
    """Whether overlaid lines take their colour and marker from their panel, not their line:
    when every panel draws the same one line (MMLU-Pro's accuracy of each model along its
    categories), which would otherwise be one colour for every model."""
    return overlay and n_panels > 1 and len(set(keys)) == 1


def line_dash(key: int) -> str:
    return DASHES[key % len(DASHES)]


def line_symbol(key: int) -> str:
    return SYMBOLS[key % len(SYMBOLS)]


# --------------------------------------------------------------------------- charts

ZERO_DECADES = 1.0  # on a log x axis, a label of 0 is drawn this far left of the smallest
# positive one (in decades), with its own tick "0": symlog's linear part, as one point


def zero_position(numbers) -> float | None:
    """Where a label of 0 is drawn on a log axis: :data:`ZERO_DECADES` below the smallest
    positive label (step 0 of 0, 1, 2, ...: at 0.1); None without a positive label."""
    positive = [float(n) for n in numbers if n > 0]
    return min(positive) / 10 ** ZERO_DECADES if positive else None


def line_points(line: Line, zero: float | None = None,
                prefix: str = "") -> tuple[list, list, list]:
    """(x, y, axis label) of a line's points; a null point wherever the line must break.

    Missing cells are null; between two shown points that are not neighbours on the axis (a
    hidden label lies between them) a null point is inserted, so no segment spans a gap.
    ``zero``: where a label of 0 is drawn (a log axis: :func:`zero_position`); the label, and so
    the hover, stays '0'. ``prefix``: left out of a categorical axis's labels (the axis reads
    '70m', the hover the whole 'EleutherAI/pythia-v1.1-70m').
    """
    n = len(line.labels)
    breaks = np.nonzero(np.diff(line.steps) != 1)[0] + 1  # a null point goes before these
    at = np.arange(n) + np.searchsorted(breaks, np.arange(n), side="right")
    size = n + breaks.size
    ys = np.full(size, np.nan)
    ys[at] = line.values
    labels = [""] * size
    for k, label in zip(at.tolist(), theme.texts(line.labels)):
        labels[k] = label
    if line.numeric:
        xs = np.full(size, np.nan)
        xs[at] = line.positions if zero is None else np.where(line.positions == 0, zero,
                                                              line.positions)
        x_list = [None if v != v else v for v in xs.tolist()]
    else:
        x_list = [None] * size
        for k, label in zip(at.tolist(), theme.texts([without_prefix(label, prefix)
                                                      for label in line.labels])):
            x_list[k] = label
    return x_list, [None if v != v else v for v in ys.tolist()], labels


def _at_points(xs: list, values: np.ndarray) -> list:
    """A line's per-point numbers in the places of its drawn points (None at the breaks)."""
    out, k = [], 0
    for x in xs:
        if x is None:
            out.append(None)
        else:
            v = float(values[k])
            out.append(v if np.isfinite(v) else None)
            k += 1
    return out


GL_POINTS = 4000  # above this many points in a chart, lines are drawn with WebGL


def webgl(trace: dict, dtype: str) -> dict:
    """A line drawn with WebGL (scattergl), its numbers as typed arrays (values as ``dtype``);
    a break stays a break (NaN), and markers go (thousands of markers hide the lines)."""
    ys = np.array([np.nan if v is None else v for v in trace["y"]], dtype=float)
    out = {**trace, "type": "scattergl", "y": theme.typed(ys, dtype), "mode": "lines"}
    if all(x is None or isinstance(x, float) for x in trace["x"]):
        xs = np.array([np.nan if v is None else v for v in trace["x"]], dtype=float)
        out["x"] = theme.typed(xs, "f8")
    return out


def line_se(line: Line) -> np.ndarray:
    """The standard error at each point of a line (evalmaps.analysis.uncertainty: the source's ``se``, else
    ``sd / sqrt(n)``; NaN where there is none or it cannot be right)."""
    view = line.view
    grid = uncertainty.usable_se(view.z, view.se, view.sd, view.n, view.metric)
    return np.array([grid[i, j] for i, j in line.cells], dtype=float)


def line_interval(line: Line, se: np.ndarray, items: dict | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The 95% interval at each point of a line: from its items where the figure has per-item
    records (``items``: {panel slug: (low grid, high grid)}, from
    :func:`evalmaps.analysis.uncertainty.item_intervals`: Wilson or bootstrap), else from its
    standard error (:func:`evalmaps.analysis.uncertainty.se_interval`: never past the metric's
    range); NaN where there is neither."""
    view = line.view
    lo, hi = uncertainty.se_interval(line.values, se, view.metric)
    grids = (items or {}).get(view.panel.slug)
    if grids is not None:
        ilo = np.array([grids[0][i, j] for i, j in line.cells], dtype=float)
        ihi = np.array([grids[1][i, j] for i, j in line.cells], dtype=float)
        have = np.isfinite(ilo) & np.isfinite(ihi)
        lo, hi = np.where(have, ilo, lo), np.where(have, ihi, hi)
    return lo, hi


def band_trace(line: Line, interval: tuple[np.ndarray, np.ndarray], color: str, group: str,
               zero: float | None = None, prefix: str = "", name: str = "") -> dict | None:
    """The 95% band of one line (``interval``: :func:`line_interval`): a filled outline over
    each run of neighbouring points that all have a value and an interval (a gap, a hidden
    label or a point without one ends a run; a lone point has no band). None when no run has
    two points."""
    low, high = interval
    ok = np.isfinite(line.values) & np.isfinite(low) & np.isfinite(high)
    xs_all, _, _ = line_points(line, zero, prefix)
    at = [k for k, x in enumerate(xs_all) if x is not None]  # each point's place among them
    runs, run = [], []
    for k in range(len(line.labels)):
        if ok[k] and run and line.steps[k] == line.steps[run[-1]] + 1:
            run.append(k)
        else:
            if len(run) >= 2:
                runs.append(run)
            run = [k] if ok[k] else []
    if len(run) >= 2:
        runs.append(run)
    if not runs:
        return None
    xs, ys = [], []
    for run in runs:
        px = [xs_all[at[k]] for k in run]
        upper = [float(high[k]) for k in run]
        lower = [float(low[k]) for k in run]
        xs += px + px[::-1] + [None]
        ys += upper + lower[::-1] + [None]
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return {"type": "scatter", "x": xs[:-1], "y": ys[:-1], "mode": "lines", "fill": "toself",
            "fillcolor": f"rgba({r},{g},{b},0.15)", "line": {"width": 0},
            "hoverinfo": "skip", "showlegend": False, "legendgroup": group,
            "name": f"{theme.text(name or line.label)} 95% interval", "meta": [line.label, "band"]}


def line_hover(view: PanelView, line: Line, with_se: bool = False) -> str:
    """The heatmap's hover, for one line's points: 'Type u · Length %{text} · Accuracy
    %{y:.1f}%' (the browser formats the value with the figure's decimals)."""
    spec = view.spec
    line_dim, axis_dim = spec.dims[line.dim], spec.dims[line.axis]
    ytitle, xtitle = (axis_dim, line_dim) if line.axis == spec.y else (line_dim, axis_dim)
    point = "%{text}"
    y_part = point if line.axis == spec.y else theme.text(line.label)
    x_part = point if line.axis == spec.x else theme.text(line.label)
    metric = view.shown
    text = (f"{theme.text(ytitle.title)} {y_part} · {theme.text(xtitle.title)} {x_part} · "
            f"{theme.text(metric.name)} {value_template(metric, view.decimals, field='y')}")
    if with_se:
        if metric.percent:
            text += f" ± %{{customdata:.{max(fmt.se_places(view.decimals) - 2, 0)}%}} se"
        else:
            text += f" ± %{{customdata:.{fmt.se_places(view.decimals)}f}} se"
    if not metric.higher_is_better:
        text += " (lower is better)"
    return text + hover_tail(view) + "<extra></extra>"


def _axis_layout(views: list[PanelView], transpose: bool, log: bool = False,
                 zero: float | None = None, prefix: str = "") -> dict:
    """The lines' axis: categorical in the source's order (labels without ``prefix``), or
    numeric with a tick at every label (the browser keeps those that fit: evalmaps.fit), on a
    log scale when ``log`` (a label of 0 at ``zero``, its tick reading '0')."""
    spec = views[0].spec
    axis = spec.dims[spec.y if transpose else spec.x]
    lines = lines_of(views[0], transpose)
    title = {"text": theme.text(axis.title)}
    if not lines:
        return {"title": title, **GRID}
    line = lines[0]
    if axis.numeric:
        at = [zero if log and p == 0 else float(p) for p in line.positions]
        return {"title": title, "type": "log" if log else "linear", "tickmode": "array",
                "tickvals": at, "ticktext": theme.texts(line.labels), "zeroline": False,
                **GRID}
    return {"title": title, "type": "category", "categoryorder": "array",
            "categoryarray": theme.texts([without_prefix(label, prefix)
                                          for label in line.labels]), **GRID}


def line_figure(views: list[PanelView], *, transpose: bool = False,
                threshold: float | None = None, title: str | None = None,
                names: list[str] | None = None, log: bool | None = None,
                items: dict | None = None) -> dict:
    """Value against the axis, one line per row (or column); several views are overlaid.

    Overlaid panels keep each line's colour and tell panels apart by dash and marker, with the
    legend grouped by panel; where every panel draws the same one line, the panels take the
    colours and markers (:func:`by_panel`) (``names``: the panels' short names). ``log``: the lines' axis on a
    log scale (None: by the rule of :func:`evalmaps.analysis.trends.log_axis_default`; never
    where it cannot be). ``items``: the item-based intervals of panels whose figure keeps
    per-item records (:func:`line_interval`).
    """
    spec = views[0].spec
    log_x = axis_scale(views, transpose, log).log
    zero = zero_position(axis_numbers(views, transpose)) if log_x else None
    prefixes = label_prefixes(spec)  # left out of the legend and the axis; the hover has all
    line_prefix = prefixes[spec.x if transpose else spec.y]
    axis_prefix = prefixes[spec.y if transpose else spec.x]
    metric = views[0].shown
    overlay = len(views) > 1
    names = names or [v.title for v in views]
    data = []
    bands = []
    shown = []
    # no reported cell: nothing to draw (the table still lists it)
    drawn = [[line for line in lines_of(view, transpose) if np.isfinite(line.values).any()]
             for view in views]
    panel_colours = by_panel([line.key for lines in drawn for line in lines], len(views), overlay)
    for p, view in enumerate(views):
        first_in_group = True
        for line in drawn[p]:
            xs, ys, labels = line_points(line, zero, axis_prefix)
            name = without_prefix(line.label, line_prefix)
            shown.extend(v for v in ys if v is not None)
            key = p if panel_colours else line.key
            color = line_color(key)
            se = line_se(line)
            present = np.isfinite(line.values)
            with_se = bool(present.any() and np.isfinite(se[present]).all())
            group = view.panel.slug if overlay else f"line-{line.key}"
            band = band_trace(line, line_interval(line, se, items), color, group, zero,
                              axis_prefix, name)
            if band is not None:
                bands.append(band)
            trace = {
                "type": "scatter", "x": xs, "y": ys, "text": labels, "mode": "lines+markers",
                "connectgaps": False, "name": theme.text(name),
                "meta": [line.label, view.panel.slug],
                "hovertemplate": line_hover(view, line, with_se),
                "line": {"color": color, "width": 2,
                         "dash": DASHES[p % len(DASHES)] if overlay else line_dash(line.key)},
                # overlaid: the dash tells the panel, the marker the line
                "marker": {"color": color, "size": 7, "symbol": line_symbol(key)},
            }
            if with_se:  # the se of each point, in the points' places (None at breaks)
                trace["customdata"] = _at_points(xs, se)
            if band is not None and not overlay:
                trace["legendgroup"] = group  # hiding a line hides its band
            if overlay:
                trace["legendgroup"] = view.panel.slug
                if first_in_group:
                    trace["legendgrouptitle"] = {"text": theme.text(names[p])}
                first_in_group = False
            data.append(trace)
    if sum(len(t["y"]) for t in data) > GL_POINTS:
        dtype = max(theme.panel_dtype(v.panel, v.decimals) for v in views)  # f8 beats f4
        data = [webgl(t, dtype) for t in data]
        bands = []  # thousands of points: lines only, the bands would hide them
    data = bands + data  # bands under the lines
    line_title = spec.dims[spec.x if transpose else spec.y].title
    if title is not None:
        heading = title
    elif not overlay:
        heading = names[0]
    else:
        heading = (", ".join(names) if len(names) <= 4 else f"{len(names)} panels") + " (overlaid)"
    layout = {
        "template": theme.TEMPLATE,
        "title": theme.title(heading, y=0.97),
        "margin": {"l": 64, "r": 16, "t": 56, "b": 52},
        "height": chart_height(len(data) + (len(views) if overlay else 0)),
        "hovermode": "closest",
        "legend": {"title": {"text": theme.text(line_title)}, "tracegroupgap": 6,
                   "itemsizing": "constant", "groupclick": "toggleitem"},
        "xaxis": _axis_layout(views, transpose, log_x, zero, axis_prefix),
        "yaxis": {"title": {"text": theme.text(metric.label + (
                      "" if metric.higher_is_better else " · lower is better"))},
                  "zeroline": False, **GRID,
                  **({"tickformat": PERCENT_TICKS} if metric.percent else {})},
        "shapes": [], "annotations": [],
        # the browser moves the legend below the plot on a narrow chart (evalmaps.fit)
        "meta": {"legendBelow": LEGEND_BELOW_PX},
    }
    if threshold is not None and shown:
        band = stable_band(metric)
        if min(shown) - band <= threshold <= max(shown) + band:  # never stretch the axis for it
            layout["shapes"].append({
                "type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y",
                "y0": threshold, "y1": threshold,
                "line": {"color": THRESHOLD_COLOR, "width": 1, "dash": "dot"}})
            layout["annotations"].append({
                "text": f"threshold {theme.text(fmt.level(metric, threshold))}",
                "xref": "x domain", "x": 0, "xanchor": "left", "yref": "y", "y": threshold,
                "yanchor": "bottom", "showarrow": False,
                "font": {"size": 11, "color": THRESHOLD_COLOR}})
    if spec.illustrative:
        layout["annotations"].append(theme.illustrative_annotation())
    return {"data": data, "layout": layout}


def chart_config(figure_id: str, key: str) -> dict:
    """Modebar of a trend chart: the shared config, zoom kept, files named ``..__trends``."""
    return theme.graph_config(figure_id, f"{key}__trends", zoom=True)
