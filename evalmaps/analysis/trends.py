"""Trends: what researchers read off a heatmap by hand, computed for the slice on screen.

A *line* is one row of a panel, its values along the x dimension (accuracy against length, per
type), or, transposed, one column, its values along y. Along a numeric axis a line's points are in
increasing order of their numbers; along a categorical axis, in the source's label order. Only the
cells the source reports count: a missing cell is a gap, never filled in or interpolated.

Per line (:func:`line_stats`): cells present, mean, min and max (and where), the least-squares
slope per unit of the axis with R², the largest drop between neighbouring axis values, the first
axis value below a threshold, and a class (:data:`CLASS_RULE`). Per panel: the best and worst cell
(:func:`best_worst`) and, for grids whose two axes are numeric, the marginal means along each axis
(:func:`marginal_means`). From all of it, a few sentences (:func:`observations`): every number in
them comes from the data, and a sentence that does not apply to the slice is left out.

Pure numpy: no Dash or Plotly here, so notebooks, the API and the page all use the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from evalmaps.analysis.slicing import PanelView
from evalmaps.core import text as fmt
from evalmaps.core.figure import Dim, FigureSpec, Metric
from evalmaps.core.labels import label_prefix, without_prefix

DEFAULT_THRESHOLD = 80.0  # a line's threshold when nothing says otherwise (no value at all)
THRESHOLD_FRACTION = 0.8  # the default threshold: 80% of the way from the worst end to the best
STABLE_FRACTION = 0.05  # stable: max - min within 5% of the metric's range (5 points on 0-100)
HIGH_FRACTION = 0.95  # "stable above 95%": the line's minimum at or above 95% of the range
UNRANGED_BAND = 5.0  # the stable band of a metric that declares no range
MIN_POINTS = 2  # a slope, an R² and a class need at least two cells
MAX_SENTENCES = 6
LOG_SPAN = 100.0  # log x by default: the positive labels span two orders of magnitude or more
LOG_CROWD = 0.05  # ... and a linear axis would squash at least LOG_SHARE of the labels into
LOG_SHARE = 1 / 3  # its first 5% (Pythia: 13 of 27 checkpoints within 3000 of 143000 steps)
MAX_NAMED = 6  # lines named in one sentence before "and N more"
MAX_LISTED = 3  # drops, tied cells or panels listed in one sentence
CLASSES = ("stable", "declining", "rising", "mixed")


# --------------------------------------------------------------------------- rules, in words

def stable_band(metric: Metric) -> float:
    """How far a line may move (max - min) and still be 'stable': 5% of the metric's range."""
    if metric.range is None:
        return UNRANGED_BAND
    lo, hi = metric.range
    return STABLE_FRACTION * (hi - lo) if hi > lo else UNRANGED_BAND


def high_level(metric: Metric) -> float | None:
    """The level a stable line must stay at or above to be 'stable above': 95% of the range
    (None without a range, and where lower is better)."""
    if metric.range is None or not metric.higher_is_better:
        return None
    lo, hi = metric.range
    return lo + HIGH_FRACTION * (hi - lo)


def band_text(metric: Metric) -> str:
    """The stable band as written, in the metric's terms of a difference: '5 points' (percent;
    a fraction shown as percent: 0.05 -> '5 points'), '0.05' (a fraction), '5 ms'."""
    return fmt.with_difference_unit(fmt.plain(fmt.shown(metric, stable_band(metric), 0)[0]),
                                    metric)


def default_threshold(metric: Metric, values: np.ndarray | None = None) -> float:
    """The threshold of 'first below' when the URL gives none: 80% of the way from the worst end
    of the metric's range to its best, 0.8 of [0, 1] and 80 of [0, 100] (where lower is better,
    20%: 'first above 20' of an error rate is 'first below 80' of an accuracy).

    A metric without a range (perplexity, a likelihood difference) takes the same share of the
    range of the reported ``values`` (the whole panel's, so that hiding rows or narrowing x does
    not move it), rounded to two significant digits of that range: 80% of 12.3..57.9 is 49.
    Without a reported value: :data:`DEFAULT_THRESHOLD`.
    """
    share = THRESHOLD_FRACTION if metric.higher_is_better else 1 - THRESHOLD_FRACTION
    if metric.range is not None and metric.range[1] > metric.range[0]:
        lo, hi = metric.range
        return float(f"{lo + share * (hi - lo):.12g}")  # 0.8, not 0.8000000000000002
    finite = np.asarray(values, dtype=float) if values is not None else np.array([])
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return DEFAULT_THRESHOLD
    lo, hi = float(finite.min()), float(finite.max())
    if hi == lo:
        return lo
    level = lo + share * (hi - lo)
    step = 10.0 ** (math.floor(math.log10(hi - lo)) - 1)
    return float(f"{round(level / step) * step:.12g}")


def threshold_rule(metric: Metric) -> str:
    """How the default threshold comes about, in words (the page's note)."""
    share = THRESHOLD_FRACTION if metric.higher_is_better else 1 - THRESHOLD_FRACTION
    whose = "the metric's range" if metric.range is not None else "the range of its values"
    return f"{share:.0%} of {whose}"


def class_rule(metric: Metric) -> str:
    """The classification rule as the UI states it."""
    band = band_text(metric)
    return (f"Class: stable if max − min ≤ {band}; otherwise declining if the slope is "
            f"negative and the last value is below the first; rising if the slope is positive and "
            f"the last value is above the first; otherwise mixed. A line with fewer than "
            f"{MIN_POINTS} cells is not classified.")


def rule_notes(spec: FigureSpec, transpose: bool = False,
               metrics: Sequence[Metric] = ()) -> list[str]:
    """How each statistic is computed, for the slice's axis (shown under the table);
    ``metrics``: the shown panels' (default: the figure's)."""
    metrics = list(dict.fromkeys(metrics)) or [spec.metric]
    metric = metrics[0]
    axis = spec.dims[spec.y if transpose else spec.x]
    name = axis.title.lower()
    lower = sorted({m.name for m in metrics if not m.higher_is_better})
    first_below = (f"First below: the first {name}, in axis order, whose value is below the "
                   f"threshold (the one set, else {threshold_rule(metric)}).")
    if lower:
        first_below += (f" For {', '.join(lower)} lower is better, so it is the first {name} "
                        "whose value is ABOVE the threshold (worse than it), and best means "
                        "lowest (best and worst cells, marginal means, ranks).")
    if axis.numeric:
        slope = (f"Slope: least squares of {metric.name} on {name} over the reported cells, "
                 f"per unit of {name}, with R² (none for a constant line).")
    else:
        return [
            (f"{axis.title} is categorical: its labels have no order, so a line along it has no "
             f"slope, no R², no drop between neighbours and no direction (rising, declining "
             f"or mixed); the table leaves them empty (n/a)."),
            first_below.replace("in axis order", "in the labels' order"),
            (f"Class: stable if max − min ≤ {band_text(metric)}; otherwise not classified "
             f"(along unordered labels there is no direction). A line with fewer than "
             f"{MIN_POINTS} cells is not classified."),
            "Missing cells are never interpolated: lines break where the source reports nothing.",
        ]
    return [
        slope,
        (f"Largest drop: between neighbouring {name} values that both have a cell. A missing "
         f"(or hidden) cell breaks the line, so no drop is measured across a gap."),
        first_below,
        class_rule(metric),
        "Missing cells are never interpolated: lines break where the source reports nothing.",
    ]


# --------------------------------------------------------------------------- labels

def label_prefixes(spec: FigureSpec) -> dict[str, str]:
    """The start shared by every label of the y and of the x dimension (a categorical one;
    :func:`evalmaps.core.labels.label_prefix`), which Trends leaves out of its legend, table, axes
    and sentences and states once: {'model': 'EleutherAI/pythia-v1.1-', 'step': ''}."""
    return {name: "" if spec.dims[name].numeric else label_prefix(spec.dims[name].labels)
            for name in dict.fromkeys((spec.y, spec.x))}


def prefix_note(spec: FigureSpec, prefixes: dict[str, str]) -> str:
    """The whole names, once: 'Models: EleutherAI/pythia-v1.1-…' ('' without a prefix)."""
    return " · ".join(f"{plural(spec.dims[name].title).capitalize()}: {prefix}…"
                      for name, prefix in prefixes.items() if prefix)


# --------------------------------------------------------------------------- the x axis

def log_axis_unavailable(dim: Dim, numbers: Sequence[float] = ()) -> str | None:
    """Why the lines' axis cannot be drawn on a log scale (None: it can): a categorical axis, a
    negative label, or fewer than two positive ones. A label of 0 can: it is drawn apart, left
    of the smallest positive one (see evalmaps.figures.trends)."""
    if not dim.numeric:
        return f"{dim.title} is categorical."
    values = [float(n) for n in numbers]
    if any(n < 0 for n in values):
        return f"{dim.title} has negative values."
    if sum(1 for n in values if n > 0) < 2:
        return f"{dim.title} has fewer than two values above 0."
    return None


def log_axis_default(numbers: Sequence[float]) -> bool:
    """Whether the lines' axis reads better on a log scale, given its labels' numbers: they start
    at 0 or above, the positive ones span at least :data:`LOG_SPAN` (two orders of magnitude),
    and a linear axis would squash at least a third of them (:data:`LOG_SHARE`) into its first
    5% (:data:`LOG_CROWD`). Training checkpoints 0, 1, 2, 4, ..., 512, 1000, 3000, 13000, ...,
    143000 (13 of 27 within 3000 of 0) or doubling sizes are drawn on log x; evenly spaced
    lengths 0..19, ratios 0.1..0.5 or steps 0, 10, ..., 1000 stay linear, and so do the
    checkpoints from 13000 up.
    """
    values = sorted(float(n) for n in numbers)
    positive = [n for n in values if n > 0]
    if len(positive) < 3 or values[0] < 0 or positive[-1] / positive[0] < LOG_SPAN:
        return False
    lo, hi = values[0], values[-1]
    squashed = sum(1 for n in values if n <= lo + LOG_CROWD * (hi - lo))
    return squashed >= LOG_SHARE * len(values)


def axis_numbers(views: Sequence[PanelView], transpose: bool = False) -> list[float]:
    """The numbers of the lines' axis labels the views show, in axis order ([] on a
    categorical axis)."""
    if not views:
        return []
    spec = views[0].spec
    dim = spec.dims[spec.y if transpose else spec.x]
    if not dim.numeric:
        return []
    index = dim.index()
    shown = {index[label] for v in views for label in (v.y_labels if transpose else v.x_labels)}
    return [dim.numbers[i] for i in axis_order(dim) if i in shown]


@dataclass(frozen=True)
class AxisScale:
    """How the lines' axis is drawn: on a log scale or not, what the rule would pick for its
    labels, and why a log scale cannot be (None: it can)."""

    log: bool
    default: bool
    unavailable: str | None = None


def axis_scale(views: Sequence[PanelView], transpose: bool = False,
               asked: bool | None = None) -> AxisScale:
    """The lines' axis scale: ``asked`` (the URL's ``logx``: True, False, None for the rule of
    :func:`log_axis_default`), never log where :func:`log_axis_unavailable` says it cannot be."""
    if not views:
        return AxisScale(False, False, None)
    spec = views[0].spec
    dim = spec.dims[spec.y if transpose else spec.x]
    numbers = axis_numbers(views, transpose)
    why = log_axis_unavailable(dim, numbers)
    default = why is None and log_axis_default(numbers)
    log = default if asked is None else bool(asked) and why is None
    return AxisScale(log, default, why)


# --------------------------------------------------------------------------- lines

def axis_order(dim: Dim) -> list[int]:
    """Label indices in plotting order: by number on a numeric axis, else the source's order."""
    if dim.numeric:
        return sorted(range(len(dim.labels)), key=lambda i: (dim.numbers[i], i))
    return list(range(len(dim.labels)))


@dataclass(frozen=True, eq=False)
class Line:
    """One row (or, transposed, one column) of a panel view, in axis order."""

    view: PanelView
    label: str  # the row (or column) label
    key: int  # the label's index in its dimension: a stable colour key across panels and slices
    dim: str  # the dimension the lines are labelled by
    axis: str  # the dimension along the line
    labels: tuple[str, ...]  # axis labels of the points, in order
    positions: np.ndarray  # numbers on a numeric axis, label indices on a categorical one
    steps: np.ndarray  # rank in the full axis order: neighbours on the axis differ by 1
    numeric: bool
    values: np.ndarray  # NaN = not reported
    cells: tuple[tuple[int, int], ...]  # (row, column) of each point in view.z


def lines_of(view: PanelView, transpose: bool = False) -> list[Line]:
    """A view's lines: its rows along x, or (transposed) its columns along y."""
    spec = view.spec
    line_name, axis_name = (spec.x, spec.y) if transpose else (spec.y, spec.x)
    line_dim, axis_dim = spec.dims[line_name], spec.dims[axis_name]
    line_labels = view.x_labels if transpose else view.y_labels
    axis_labels = view.y_labels if transpose else view.x_labels
    rank = {label_index: r for r, label_index in enumerate(axis_order(axis_dim))}
    index = axis_dim.index()
    order = sorted(range(len(axis_labels)), key=lambda k: rank[index[axis_labels[k]]])
    steps = np.array([rank[index[axis_labels[k]]] for k in order], dtype=int)
    if axis_dim.numeric:
        positions = np.array([axis_dim.numbers[index[axis_labels[k]]] for k in order], dtype=float)
    else:
        positions = np.array([index[axis_labels[k]] for k in order], dtype=float)
    labels = tuple(axis_labels[k] for k in order)
    line_index = line_dim.index()
    out = []
    for li, label in enumerate(line_labels):
        if transpose:
            values = view.z[order, li] if order else np.array([], dtype=float)
            cells = tuple((k, li) for k in order)
        else:
            values = view.z[li, order] if order else np.array([], dtype=float)
            cells = tuple((li, k) for k in order)
        out.append(Line(view, label, line_index[label], line_name, axis_name, labels, positions,
                        steps, axis_dim.numeric, np.asarray(values, dtype=float), cells))
    return out


# --------------------------------------------------------------------------- line statistics

@dataclass(frozen=True)
class LineStats:
    """Statistics of one line over its reported cells. None where a statistic does not apply."""

    line: str
    key: int = 0
    panel_title: str = ""
    panel_key: str = ""
    n_present: int = 0
    n_total: int = 0
    mean: float | None = None
    min: float | None = None
    min_at: str | None = None
    max: float | None = None
    max_at: str | None = None
    first: float | None = None
    first_at: str | None = None
    last: float | None = None
    last_at: str | None = None
    slope: float | None = None
    r2: float | None = None
    # "numeric": per unit of the axis; "none": a categorical axis, whose labels have no order
    # (no slope, R², drop or direction along it)
    slope_basis: str = "numeric"
    drop: float | None = None  # the largest fall between neighbouring cells, > 0
    drop_from: str | None = None
    drop_to: str | None = None
    drop_from_value: float | None = None
    drop_to_value: float | None = None
    threshold: float = DEFAULT_THRESHOLD
    below_at: str | None = None  # the first axis label whose value is below the threshold
    below: float | None = None
    below_step: int | None = None  # its rank on the axis (for sorting)
    cls: str | None = None  # one of CLASSES, None when not classified
    higher_is_better: bool = True  # False: "below" is the first value ABOVE the threshold

    @property
    def side(self) -> str:
        """Which side of the threshold is worse: 'below' (higher is better) or 'above'."""
        return "below" if self.higher_is_better else "above"

    @property
    def change(self) -> float | None:
        """Last minus first reported value."""
        if self.first is None or self.last is None:
            return None
        return self.last - self.first

    @property
    def spread(self) -> float | None:
        return None if self.min is None else self.max - self.min

    def to_dict(self) -> dict:
        return {
            "panel": self.panel_key, "panel_title": self.panel_title, "line": self.line,
            "n_present": self.n_present, "n_total": self.n_total,
            "mean": self.mean, "min": self.min, "min_at": self.min_at,
            "max": self.max, "max_at": self.max_at,
            "first": self.first, "first_at": self.first_at, "last": self.last,
            "last_at": self.last_at, "change": self.change,
            "slope": self.slope, "slope_basis": self.slope_basis, "r2": self.r2,
            "drop": self.drop, "drop_from": self.drop_from, "drop_to": self.drop_to,
            "drop_from_value": self.drop_from_value, "drop_to_value": self.drop_to_value,
            "threshold": self.threshold, "below_at": self.below_at, "below": self.below,
            "threshold_side": self.side, "class": self.cls,
        }


def _difference(a: float, b: float, decimals: int | None) -> float:
    """a - b, rounded to the data's decimals (exact for values written with that many)."""
    diff = float(a) - float(b)
    return round(diff, decimals) if decimals is not None else diff


def least_squares(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None]:
    """(slope, R²) of y on x; None when there are fewer than 2 points or x does not vary.

    R² is None for a constant y (nothing to explain), and is clipped to [0, 1] against rounding.
    """
    if len(x) < MIN_POINTS:
        return None, None
    xm, ym = x.mean(), y.mean()
    dx, dy = x - xm, y - ym
    sxx = float(np.dot(dx, dx))
    if not sxx > 0 or not math.isfinite(sxx):
        return None, None
    slope = float(np.dot(dx, dy)) / sxx
    if not math.isfinite(slope):
        return None, None
    syy = float(np.dot(dy, dy))
    if np.ptp(y) == 0 or not syy > 0 or not math.isfinite(syy):
        return 0.0 if np.ptp(y) == 0 else slope, None  # constant: no noise in slope, no R²
    residual = y - (ym + slope * dx)
    r2 = 1.0 - float(np.dot(residual, residual)) / syy
    return slope, min(1.0, max(0.0, r2)) if math.isfinite(r2) else None


def classify(spread: float | None, slope: float | None, first: float | None,
             last: float | None, n_present: int, band: float) -> str | None:
    """The class rule (see :func:`class_rule`)."""
    if n_present < MIN_POINTS or spread is None:
        return None
    if spread <= band + 1e-9:  # 5.0 points is stable; float noise must not decide
        return "stable"
    if slope is not None and slope < 0 and last < first:
        return "declining"
    if slope is not None and slope > 0 and last > first:
        return "rising"
    return "mixed"


def line_stats(values: Sequence[float] | np.ndarray, labels: Sequence[str],
               positions: Sequence[float] | np.ndarray | None = None, *,
               steps: Sequence[int] | np.ndarray | None = None, numeric: bool = True,
               threshold: float = DEFAULT_THRESHOLD, band: float = UNRANGED_BAND,
               decimals: int | None = None, line: str = "", key: int = 0, panel_title: str = "",
               panel_key: str = "", higher_is_better: bool = True) -> LineStats:
    """Statistics of one line: ``values`` (NaN = missing) at ``labels``, in axis order.

    ``positions`` are the x of the slope (default: 0, 1, 2 ...); ``steps`` the points' ranks on
    the full axis (default: consecutive), so a drop is only measured between true neighbours.
    ``numeric=False``: the axis is categorical, its labels unordered: no slope, R², drop or
    direction (the class is "stable" or None).
    ``decimals``: the data's, to round differences of two values exactly.
    ``higher_is_better=False`` (perplexity): the threshold statistic is the first value worse
    than it, i.e. ABOVE it (kept in the ``below*`` fields, ``side`` says 'above').
    """
    y = np.asarray(values, dtype=float).reshape(-1)
    n = len(y)
    if len(labels) != n:
        raise ValueError("values and labels differ in length")
    x = np.arange(n, dtype=float) if positions is None else np.asarray(positions, dtype=float)
    rank = np.arange(n) if steps is None else np.asarray(steps, dtype=int)
    present = np.isfinite(y)
    base = dict(line=line, key=key, panel_title=panel_title, panel_key=panel_key, n_total=n,
                threshold=float(threshold), slope_basis="numeric" if numeric else "none",
                higher_is_better=higher_is_better)
    idx = np.nonzero(present)[0]
    if idx.size == 0:
        return LineStats(**base)
    yp = y[idx]
    i_min, i_max = idx[int(np.argmin(yp))], idx[int(np.argmax(yp))]  # first occurrence
    slope, r2 = least_squares(x[idx], yp) if numeric else (None, None)

    drop = drop_from = drop_to = drop_from_value = drop_to_value = None
    a, b = (idx[:-1], idx[1:]) if numeric else (idx[:0], idx[:0])
    neighbours = (b == a + 1) & (rank[b] == rank[a] + 1)  # no drop across a gap (missing or
    a, b = a[neighbours], b[neighbours]  # hidden cell)
    if a.size:
        falls = y[a] - y[b]
        if decimals is not None:
            falls = np.round(falls, decimals)
        k = int(np.argmax(falls))  # the first of the largest
        if falls[k] > 0:
            drop = _difference(y[a[k]], y[b[k]], decimals)
            drop_from, drop_to = labels[a[k]], labels[b[k]]
            drop_from_value, drop_to_value = float(y[a[k]]), float(y[b[k]])

    below_at = below = below_step = None
    under = idx[yp < threshold] if higher_is_better else idx[yp > threshold]
    if under.size:
        below_at, below, below_step = labels[under[0]], float(y[under[0]]), int(rank[under[0]])

    first, last = float(y[idx[0]]), float(y[idx[-1]])
    lo, hi = float(y[i_min]), float(y[i_max])
    spread = _difference(hi, lo, decimals)
    cls = classify(spread, slope, first, last, int(idx.size), band)
    if not numeric and cls != "stable":
        cls = None  # unordered labels: a line along them has no direction
    return LineStats(
        **base, n_present=int(idx.size), mean=float(np.mean(yp)),
        min=lo, min_at=labels[i_min], max=hi, max_at=labels[i_max],
        first=first, first_at=labels[idx[0]], last=last, last_at=labels[idx[-1]],
        slope=slope, r2=r2, drop=drop, drop_from=drop_from, drop_to=drop_to,
        drop_from_value=drop_from_value, drop_to_value=drop_to_value,
        below_at=below_at, below=below, below_step=below_step,
        cls=cls,
    )


def stats_of(line: Line, threshold: float | None = None,
             band: float | None = None) -> LineStats:
    """A line's statistics; ``threshold`` None: its panel's default (:func:`default_threshold`)."""
    view = line.view
    if threshold is None:
        threshold = default_threshold(view.metric, view.panel.z)
    return line_stats(line.values, line.labels, line.positions, steps=line.steps,
                      numeric=line.numeric, threshold=threshold,
                      band=stable_band(view.metric) if band is None else band,
                      decimals=view.decimals, line=line.label, key=line.key,
                      panel_title=view.title, panel_key=view.panel.key,
                      higher_is_better=view.higher_is_better)


def panel_stats(view: PanelView, transpose: bool = False,
                threshold: float | None = None) -> list[LineStats]:
    """Statistics of every line of one panel view; ``threshold`` None: the panel's default."""
    if threshold is None:
        threshold = default_threshold(view.metric, view.panel.z)
    return [stats_of(line, threshold) for line in lines_of(view, transpose)]


# --------------------------------------------------------------------------- best, worst, means

@dataclass(frozen=True)
class Extreme:
    """The highest (or lowest) value of a panel and every cell that holds it (ties)."""

    value: float
    cells: tuple[tuple[str, str], ...]  # (y label, x label), in display order
    panel: str = ""
    panel_key: str = ""

    def to_dict(self, spec: FigureSpec) -> dict:
        return {"value": self.value,
                "cells": [{spec.y: y, spec.x: x} for y, x in self.cells]}


def best_worst(view: PanelView) -> tuple[Extreme | None, Extreme | None]:
    """(best, worst) reported cell of a view: (highest, lowest), or (lowest, highest) where the
    panel's metric is lower-is-better; None for a view with no cell."""
    z = view.z
    present = np.isfinite(z)
    if not present.any():
        return None, None
    out = []
    extremes = (z[present].max(), z[present].min())
    for value in (extremes if view.higher_is_better else extremes[::-1]):
        rows, cols = np.nonzero(present & (z == value))
        cells = tuple((view.y_labels[i], view.x_labels[j]) for i, j in zip(rows, cols))
        out.append(Extreme(float(value), cells, view.title, view.panel.key))
    return out[0], out[1]


@dataclass(frozen=True)
class AxisMeans:
    """Mean value at each label of ``dim``, averaged over the other axis ``over``."""

    dim: str
    over: str
    labels: tuple[str, ...]
    means: tuple[float, ...]
    counts: tuple[int, ...]
    higher_is_better: bool = True

    @property
    def best(self) -> tuple[str, float]:
        """The label with the best mean (highest; lowest where lower is better)."""
        i = int(np.argmax(self.means) if self.higher_is_better else np.argmin(self.means))
        return self.labels[i], self.means[i]

    @property
    def worst(self) -> tuple[str, float]:
        i = int(np.argmin(self.means) if self.higher_is_better else np.argmax(self.means))
        return self.labels[i], self.means[i]

    def to_dict(self) -> dict:
        return {"dim": self.dim, "over": self.over,
                "means": [{"label": lab, "mean": m, "n": c}
                          for lab, m, c in zip(self.labels, self.means, self.counts)]}


@dataclass(frozen=True)
class Marginals:
    """The effect of each axis of a two-dimensional numeric grid: means along x and along y."""

    panel: str
    panel_key: str
    by_x: AxisMeans  # e.g. the effect of ratio (mean over windows)
    by_y: AxisMeans  # e.g. the effect of window (mean over ratios)

    def to_dict(self) -> dict:
        return {"by_x": self.by_x.to_dict(), "by_y": self.by_y.to_dict()}


def marginals_unavailable(view: PanelView) -> str | None:
    """Why a view has no marginal means (None when it has them)."""
    spec = view.spec
    xdim, ydim = spec.dims[spec.x], spec.dims[spec.y]
    if not (xdim.numeric and ydim.numeric):
        categorical = [d.title for d in (ydim, xdim) if not d.numeric]
        return (f"Marginal means need two numeric axes; {' and '.join(categorical)} "
                f"{'is' if len(categorical) == 1 else 'are'} categorical.")
    present = np.isfinite(view.z)
    rows, cols = present.any(axis=1), present.any(axis=0)
    if rows.sum() < 2 or cols.sum() < 2:
        return (f"Marginal means need at least two {ydim.title.lower()} and two "
                f"{xdim.title.lower()} values with cells.")
    if not present[np.ix_(rows, cols)].all():
        return ("Marginal means are shown only for complete grids: here the rows report "
                "different columns, so a mean would mix different cells.")
    return None


def _axis_means(view: PanelView, along_x: bool) -> AxisMeans:
    spec = view.spec
    dim_name, over = (spec.x, spec.y) if along_x else (spec.y, spec.x)
    dim = spec.dims[dim_name]
    labels = view.x_labels if along_x else view.y_labels
    z = view.z if along_x else view.z.T
    rank = {i: r for r, i in enumerate(axis_order(dim))}
    index = dim.index()
    out_labels, means, counts = [], [], []
    for k in sorted(range(len(labels)), key=lambda k: rank[index[labels[k]]]):
        column = z[:, k]
        column = column[np.isfinite(column)]
        if column.size:
            out_labels.append(labels[k])
            means.append(float(np.mean(column)))
            counts.append(int(column.size))
    return AxisMeans(dim_name, over, tuple(out_labels), tuple(means), tuple(counts),
                     view.higher_is_better)


def marginal_means(view: PanelView) -> Marginals | None:
    """Means along each axis of a complete numeric grid (e.g. effect of ratio, of window).

    Only for grids whose rows and columns with cells form a full rectangle: otherwise a mean at
    one label would average other rows than the mean at the next, and differ for that reason.
    """
    if marginals_unavailable(view) is not None:
        return None
    return Marginals(view.title, view.panel.key, _axis_means(view, True),
                     _axis_means(view, False))


# --------------------------------------------------------------------------- words

def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def plural(title: str) -> str:
    """'lengths', 'categories' (not 'categorys'), 'local window sizes', 'boxes'; a word that
    already ends in s gets 'values' ('status values')."""
    word = title.lower()
    if word.endswith("s"):
        return f"{word} values"
    if word.endswith("y") and word[-2:-1] not in ("", "a", "e", "i", "o", "u"):
        return f"{word[:-1]}ies"
    if word.endswith(("x", "z", "ch", "sh")):
        return f"{word}es"
    return f"{word}s"


# --------------------------------------------------------------------------- the report

@dataclass(frozen=True)
class PanelSummary:
    key: str
    title: str
    best: Extreme | None
    worst: Extreme | None
    marginals: Marginals | None
    marginals_note: str | None
    mean: float | None
    n_present: int
    mask: bytes = b""  # where the panel has cells: comparable panels share it
    short: str = ""  # the facet labels that tell it from the other visible panels
    metric: Metric | None = None  # the panel's metric as written (percent when asked)
    threshold: float = DEFAULT_THRESHOLD  # of 'first below': the URL's, else the panel's default
    decimals: int | None = None  # its values' (its metric's, in a figure of several)

    def to_dict(self, spec: FigureSpec) -> dict:
        return {"key": self.key, "title": self.title, "n_present": self.n_present,
                "mean": self.mean, "threshold": self.threshold,
                "metric": None if self.metric is None else self.metric.name,
                "higher_is_better": True if self.metric is None else
                self.metric.higher_is_better,
                "best": self.best.to_dict(spec) if self.best else None,
                "worst": self.worst.to_dict(spec) if self.worst else None,
                "marginal_means": self.marginals.to_dict() if self.marginals else None,
                "marginal_means_note": self.marginals_note}


@dataclass(frozen=True)
class Trends:
    """Everything the Trends view shows for one slice."""

    spec: FigureSpec
    decimals: int
    transpose: bool
    threshold: float  # the first panel's (each panel's: PanelSummary.threshold)
    lines: list[LineStats]
    panels: list[PanelSummary]
    observations: list[str] = field(default_factory=list)
    threshold_default: bool = False  # no threshold was given: each panel took its default
    prefixes: dict[str, str] = field(default_factory=dict)  # left out of labels: label_prefixes

    def short(self, dim: str, label: str) -> str:
        """A label of ``dim`` as the table and the sentences write it (its prefix left out)."""
        return without_prefix(label, self.prefixes.get(dim, ""))

    @property
    def thresholds(self) -> list[float]:
        """The panels' thresholds, each once, in panel order."""
        return list(dict.fromkeys(p.threshold for p in self.panels)) or [self.threshold]

    @property
    def line_dim(self) -> str:
        return self.spec.x if self.transpose else self.spec.y

    @property
    def metric(self) -> Metric:
        """The first panel's metric as written (the figure's when there is no panel)."""
        return next((p.metric for p in self.panels if p.metric), self.spec.metric)

    def metric_of(self, key: str) -> Metric:
        return next((p.metric for p in self.panels if p.key == key and p.metric), self.metric)

    def decimals_of(self, key: str | None) -> int:
        """The decimals of a panel's values (its metric's, in a figure of several metrics)."""
        return next((p.decimals for p in self.panels if p.key == key and p.decimals is not None),
                    self.decimals)

    @property
    def axis_dim(self) -> str:
        return self.spec.y if self.transpose else self.spec.x

    def to_dict(self) -> dict:
        spec = self.spec
        axis = spec.dims[self.axis_dim]
        return {
            "transpose": self.transpose,
            "threshold": self.threshold,
            "threshold_default": self.threshold_default,
            "label_prefixes": {k: v for k, v in self.prefixes.items() if v},
            "line_dim": self.line_dim,
            "axis_dim": self.axis_dim,
            "slope_basis": "numeric" if axis.numeric else "none",
            "rules": {"stable_band": stable_band(self.metric),
                      "high_level": high_level(self.metric),
                      "notes": rule_notes(spec, self.transpose,
                                          [p.metric for p in self.panels if p.metric])},
            "lines": [s.to_dict() for s in self.lines],
            "panels": [p.to_dict(spec) for p in self.panels],
            "observations": list(self.observations),
        }


def short_titles(views: Sequence[PanelView]) -> list[str]:
    """Panel names from the facets whose labels differ among the views ('AIME24', not
    'R1-Llama | AIME24' when every panel is R1-Llama)."""
    if not views:
        return []
    facets = list(views[0].panel.facets)
    varying = [f for f in facets if len({v.panel.facets.get(f) for v in views}) > 1]
    return [" | ".join(v.panel.facets[f] for f in varying) or v.title for v in views]


def panel_summary(view: PanelView, short: str | None = None,
                  threshold: float = DEFAULT_THRESHOLD) -> PanelSummary:
    best, worst = best_worst(view)
    present = np.isfinite(view.z)
    values = view.z[present]
    return PanelSummary(view.panel.key, view.title, best, worst, marginal_means(view),
                        marginals_unavailable(view),
                        float(values.mean()) if values.size else None, int(values.size),
                        np.packbits(present).tobytes() + repr(present.shape).encode(),
                        short or view.title, view.shown, float(threshold), view.decimals)


def analyse(views: Sequence[PanelView], *, transpose: bool = False,
            threshold: float | None = None) -> Trends | None:
    """Line statistics, panel summaries and observations of a slice; None with no panel.
    ``threshold`` None: each panel's default (:func:`default_threshold`)."""
    if not views:
        return None
    spec = views[0].spec
    levels = [float(threshold) if threshold is not None
              else default_threshold(view.metric, view.panel.z) for view in views]
    lines = [s for view, level in zip(views, levels)
             for s in panel_stats(view, transpose, level)]
    panels = [panel_summary(view, short, level)
              for view, short, level in zip(views, short_titles(views), levels)]
    trends = Trends(spec, max(v.decimals for v in views), transpose, levels[0], lines,
                    panels, threshold_default=threshold is None,
                    prefixes=label_prefixes(spec))
    return replace(trends, observations=observations(trends))


# --------------------------------------------------------------------------- observations

class _Words:
    """Names and numbers for sentences about one report."""

    def __init__(self, trends: Trends) -> None:
        self.t = trends
        spec = trends.spec
        self.metric = trends.metric
        self.d = trends.decimals
        self.line_dim = spec.dims[trends.line_dim]
        self.axis_dim = spec.dims[trends.axis_dim]
        self.multi = len(trends.panels) > 1
        self.short = {p.key: p.short for p in trends.panels}
        self.n_lines = sum(1 for s in trends.lines if s.n_present)

    def m(self, key: str | None) -> Metric:
        return self.metric if key is None else self.t.metric_of(key)

    def places(self, key: str | None) -> int:
        return self.d if key is None else self.t.decimals_of(key)

    def value(self, v: float, key: str | None = None) -> str:
        return fmt.value(self.m(key), v, self.places(key))

    def mean(self, v: float, key: str | None = None) -> str:
        return fmt.mean(self.m(key), v, self.places(key))

    def change(self, v: float, key: str | None = None) -> str:
        """A signed difference in the metric's terms: '−4.5 points', '+0.4444', '+3.2 ms'."""
        return fmt.change(self.m(key), v, self.places(key))

    def by(self, v: float, key: str | None = None) -> str:
        """The size of a difference: '15.4 points', '0.0296'."""
        return fmt.with_difference_unit(fmt.difference(self.m(key), abs(v), self.places(key)),
                                        self.m(key))

    def groups(self) -> list[list[PanelSummary]]:
        """The panels by metric (name, unit, direction): only these compare with each other."""
        out: dict[tuple, list[PanelSummary]] = {}
        for p in self.t.panels:
            m = p.metric or self.metric
            out.setdefault((m.name, m.unit, m.higher_is_better), []).append(p)
        return list(out.values())

    def panel(self, key: str) -> str:
        return self.short.get(key, key)

    def label(self, s: LineStats) -> str:
        """A line's label as written (its dimension's shared prefix left out)."""
        return self.t.short(self.t.line_dim, s.line)

    def point(self, label: str) -> str:
        """An axis label as written."""
        return self.t.short(self.t.axis_dim, label)

    def line(self, s: LineStats) -> str:
        name = f"{self.line_dim.title.lower()} {self.label(s)}"
        return f"{name} in {self.panel(s.panel_key)}" if self.multi else name

    def at(self, label: str) -> str:
        return f"{self.axis_dim.title.lower()} {self.point(label)}"

    def lines(self, stats: Sequence[LineStats]) -> str:
        """'types 2 and 6'; by panel: 'local window sizes 3000 and 2000 in R1-Llama'; many:
        '30 of the 32 lines'."""
        if len(stats) > MAX_NAMED:
            return (f"all {len(stats)} lines" if len(stats) == self.n_lines
                    else f"{len(stats)} of the {self.n_lines} lines")
        title = self.line_dim.title.lower() if len(stats) == 1 else plural(self.line_dim.title)
        if not self.multi:
            return f"{title} {_join([self.label(s) for s in stats])}"
        groups: dict[str, list[str]] = {}
        for s in stats:
            groups.setdefault(self.panel(s.panel_key), []).append(self.label(s))
        return title + " " + ", ".join(f"{_join(labels)} in {panel}"
                                       for panel, labels in groups.items())

    def cells(self, extremes: Sequence[Extreme]) -> str:
        """'local window size 2000, ratio 0.4'; ties: 'type ~ at length 0 and type o at lengths
        0 and 4'."""
        spec = self.t.spec
        ytitle, xtitle = spec.dims[spec.y].title.lower(), spec.dims[spec.x].title.lower()
        cells = [(e.panel_key, self.t.short(spec.y, y), self.t.short(spec.x, x))
                 for e in extremes for y, x in e.cells]
        suffix = (lambda key: f" ({self.panel(key)})") if self.multi else (lambda key: "")
        if len(cells) == 1:
            key, y, x = cells[0]
            return f"{ytitle} {y}, {xtitle} {x}{suffix(key)}"
        groups: dict[tuple[str, str], list[str]] = {}
        for key, y, x in cells:
            groups.setdefault((key, y), []).append(x)
        parts = [f"{ytitle} {y} at {xtitle if len(xs) == 1 else plural(xtitle)} {_join(xs)}"
                 f"{suffix(key)}" for (key, y), xs in groups.items()]
        more = len(parts) - MAX_LISTED
        return _join(parts[:MAX_LISTED] + ([f"{more} more"] if more > 0 else []))


def _stable_high(w: _Words) -> str | None:
    level = high_level(w.metric)
    if level is None:
        return None
    found = [s for s in w.t.lines if s.cls == "stable" and s.min >= level
             and w.m(s.panel_key) == w.metric]
    if not found:
        return None
    low = min(found, key=lambda s: s.min)
    return (f"Stable above {fmt.level(w.metric, level)}: {w.lines(found)} "
            f"(lowest value {w.value(low.min, low.panel_key)}).")


def _trend(w: _Words, cls: str) -> str | None:
    found = [s for s in w.t.lines if s.cls == cls]
    if not found:
        return None
    verb, most = ("falls", min) if cls == "declining" else ("rises", max)
    top = most(found, key=lambda s: s.change)
    k = top.panel_key
    what = (f"from {w.value(top.first, k)} at {w.at(top.first_at)} to {w.value(top.last, k)} at "
            f"{w.at(top.last_at)} ({w.change(top.change, k)}"
            f"{'' if top.higher_is_better else '; lower is better'})")
    head = f"{cls.capitalize()} with {w.axis_dim.title.lower()}: {w.lines(found)}"
    if len(found) == 1:
        return f"{head}, {what}."
    return f"{head}; {w.line(top)} {verb} most, {what}."


def _drops(w: _Words) -> str | None:
    found = sorted((s for s in w.t.lines if s.drop is not None
                    and w.m(s.panel_key) == w.metric
                    and s.drop >= stable_band(w.m(s.panel_key)) - 1e-9),
                   key=lambda s: -s.drop)[:MAX_LISTED]
    if not found:
        return None
    parts = [f"{w.line(s)} by {w.by(s.drop, s.panel_key)}, from "
             f"{w.value(s.drop_from_value, s.panel_key)} at {w.at(s.drop_from)} to "
             f"{w.value(s.drop_to_value, s.panel_key)} at {w.point(s.drop_to)}"
             + ("" if s.higher_is_better else " (lower is better: an improvement)")
             for s in found]
    noun = "drop" if len(found) == 1 else "drops"
    return (f"Largest {noun} between neighbouring {plural(w.axis_dim.title)}: "
            f"{'; '.join(parts)}.")


def _threshold(w: _Words) -> str | None:
    """'First length below 80%: ...'; where lower is better, the first value ABOVE the
    threshold (worse than it), said so: 'First length above 50 (lower is better): ...'."""
    out = []
    for better in (True, False):
        for t in dict.fromkeys(s.threshold for s in w.t.lines):  # one per panel's threshold
            text = _threshold_side(w, [s for s in w.t.lines if s.higher_is_better == better
                                       and s.threshold == t], better, t)
            if text:
                out.append(text)
    return " ".join(out) or None


def _threshold_side(w: _Words, lines: list[LineStats], better: bool, t: float) -> str | None:
    present = [s for s in lines if s.n_present]
    if not present:
        return None
    if better and not any(s.max >= t for s in present):
        return None  # every value is below it: the threshold says nothing about this slice
    if not better and not any(s.min <= t for s in present):
        return None  # every value is above it (worse)
    side = "below" if better else "above"
    metric = w.m(present[0].panel_key)
    level = fmt.level(metric, t) + ("" if better else " (lower is better)")
    crossing = [s for s in present if s.below_at is not None and s.below_at != s.first_at]
    from_start = [s for s in present if s.below_at is not None and s.below_at == s.first_at]
    never = [s for s in present if s.below_at is None]
    if not crossing and not from_start:
        return f"No {w.line_dim.title.lower()} {'falls below' if better else 'rises above'} {level}."
    parts = []
    if crossing:
        shown = sorted(crossing, key=lambda s: s.below_step)[:MAX_NAMED]
        listed = [f"{w.line(s)} at {w.point(s.below_at)} ({w.value(s.below, s.panel_key)})"
                  for s in shown]
        more = len(crossing) - len(shown)
        parts.append(_join(listed + ([f"{more} more"] if more > 0 else [])))
    if from_start:
        verb = "is" if len(from_start) == 1 else "are"
        parts.append(f"{w.lines(from_start)} {verb} {side} it from the first "
                     f"{w.axis_dim.title.lower()} shown")
    if never:
        verb = "goes" if len(never) == 1 and not w.lines(never).startswith("all") else "go"
        parts.append(f"{w.lines(never)} never {verb} {side} it")
    head = (f"First {w.axis_dim.title.lower()} {side} {level}: " if crossing
            else f"{side.capitalize()} {level}: ")
    text = head + "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def _extremes(w: _Words) -> str | None:
    """The best and worst cells, per metric: 'Highest Accuracy: ...; lowest: ...', or where
    lower is better 'Lowest perplexity (best: lower is better): ...; highest (worst): ...'."""
    out = []
    for group in w.groups():
        summaries = [p for p in group if p.best is not None]
        if not summaries:
            continue
        metric = summaries[0].metric or w.metric
        key = summaries[0].key
        if metric.higher_is_better:
            top = max(p.best.value for p in summaries)
            low = min(p.worst.value for p in summaries)
        else:
            top = min(p.best.value for p in summaries)
            low = max(p.worst.value for p in summaries)
        if top == low:
            out.append(f"Every reported {metric.name} cell is {w.value(top, key)}."
                       if len(w.groups()) > 1 else f"Every reported cell is {w.value(top, key)}.")
            continue
        best = [p.best for p in summaries if p.best.value == top]
        worst = [p.worst for p in summaries if p.worst.value == low]
        if metric.higher_is_better:
            out.append(f"Highest {metric.name}: {w.value(top, key)} at {w.cells(best)}; lowest: "
                       f"{w.value(low, key)} at {w.cells(worst)}.")
        else:
            out.append(f"Lowest {metric.name} (best: lower is better): {w.value(top, key)} at "
                       f"{w.cells(best)}; highest (worst): {w.value(low, key)} at "
                       f"{w.cells(worst)}.")
    return " ".join(out) or None


def _panel_means(w: _Words) -> str | None:
    """Panels of one metric over the same cells, best mean first."""
    panels = [p for p in w.groups()[0] if p.n_present] if w.t.panels else []
    if len(panels) < 2 or len({p.mask for p in panels}) != 1:
        return None  # panels that report different cells: their means are not comparable
    metric = panels[0].metric or w.metric
    ranked = sorted(panels, key=lambda p: -p.mean if metric.higher_is_better else p.mean)
    shown = [f"{w.panel(p.key)} {w.mean(p.mean, p.key)}" for p in ranked[:MAX_NAMED]]
    more = len(ranked) - len(shown)
    order = "" if metric.higher_is_better else " (lower is better, best first)"
    return (f"Mean {metric.name} per panel{order}, over the same {panels[0].n_present} cells: "
            f"{_join(shown + ([f'{more} more'] if more > 0 else []))}.")


def _marginal(w: _Words, along_x: bool) -> str | None:
    found = [p for p in w.t.panels if p.marginals is not None]
    if not found:
        return None
    spec = w.t.spec
    means = [(p, p.marginals.by_x if along_x else p.marginals.by_y) for p in found]
    dim, over = spec.dims[means[0][1].dim], spec.dims[means[0][1].over]
    head = f"Effect of {dim.title.lower()} (mean over {plural(over.title)})"
    up = means[0][1].higher_is_better
    best, worst = ("highest", "lowest") if up else ("best (lowest: lower is better)",
                                                   "worst (highest)")
    if len(means) == 1:
        p, am = means[0]
        (hi_label, hi), (lo_label, lo) = am.best, am.worst
        if hi == lo:
            return f"{head}: the same at every {dim.title.lower()} ({w.mean(hi, p.key)})."
        return (f"{head}: {best} at {hi_label} ({w.mean(hi, p.key)}), {worst} at {lo_label} "
                f"({w.mean(lo, p.key)}).")
    means = [(p, am) for p, am in means if am.higher_is_better == up]
    parts = [f"{am.best[0]} in {w.panel(p.key)} ({w.mean(am.best[1], p.key)})"
             for p, am in means[:4]]
    more = f" and {len(means) - 4} more panels" if len(means) > 4 else ""
    return f"{head}: {best} at {'; '.join(parts)}{more}."


def _stable_rest(w: _Words) -> str | None:
    level = high_level(w.metric)
    classified = [s for s in w.t.lines if s.cls is not None]
    stable = [s for s in classified if s.cls == "stable"]
    if not stable:
        return None
    rest = [s for s in stable if level is None or s.min < level]
    if not rest:
        return None  # all said by "stable above"
    band = band_text(w.metric)
    widest = max(stable, key=lambda s: s.spread)
    if len(stable) == len(classified) and len(stable) > 1:
        k = widest.panel_key
        return (f"Every line is stable (max − min ≤ {band}); the widest, "
                f"{w.line(widest)}, spans {w.value(widest.min, k)} to {w.value(widest.max, k)}.")
    return f"Stable (max − min ≤ {band}): {w.lines(rest)}."


def _mixed(w: _Words) -> str | None:
    found = [s for s in w.t.lines if s.cls == "mixed"]
    if not found:
        return None
    return f"No single direction (mixed): {w.lines(found)}."


SENTENCES = (_stable_high, lambda w: _trend(w, "declining"), _drops, lambda w: _trend(w, "rising"),
             _threshold, _extremes, _panel_means, lambda w: _marginal(w, True),
             lambda w: _marginal(w, False), _stable_rest, _mixed)


def observations(trends: Trends) -> list[str]:
    """Up to :data:`MAX_SENTENCES` sentences about the slice, most telling first.

    Each is computed from the statistics; one that does not apply (no stable line, no drop larger
    than the stable band, no value above the threshold ...) is left out.
    """
    if not any(s.n_present for s in trends.lines):
        return []
    words = _Words(trends)
    out = []
    for make in SENTENCES:
        sentence = make(words)
        if sentence:
            out.append(sentence)
        if len(out) == MAX_SENTENCES:
            break
    if trends.spec.illustrative:
        out.insert(0, "These values are ILLUSTRATIVE, not results: the observations below "
                      "describe made-up numbers.")
    return out
