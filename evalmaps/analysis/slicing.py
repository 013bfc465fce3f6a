"""Slicing: which panels, rows and x range a view shows, and the colour range it uses.

Costs are in proportion to the cells shown: panels are precomputed dense grids, slicing picks
index arrays out of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import product
from typing import Protocol

import numpy as np

from evalmaps.core.figure import Figure, FigureSpec, Metric, Panel
from evalmaps.core.text import natural_key


class SliceState(Protocol):
    """What :func:`views_for` reads of a view's state (:class:`evalmaps.views.state.ViewState`
    has it; ``pct``, ``zscale``, ``sort`` and ``top`` are read when present)."""

    rows: tuple[str, ...] | None
    x_range: tuple[float, float] | None

    def facet_selection(self, figure: Figure) -> dict[str, list[str]]: ...

COLOR_MODES = ("figure", "fixed", "shared", "panel")
FIXED_RANGE = (0.0, 100.0)  # "fixed" for a percent metric that declares no range
ZSCALES = ("linear", "log")
LOG_REFUSED = ("Log colours are off for {panel}: it shows a value of {value} or less, and only "
               "values above 0 have a logarithm. Narrow the rows or the range, or use linear "
               "colours.")


def is_fraction(metric: Metric, z: np.ndarray) -> bool:
    """Whether a panel's values are fractions that may be written as percent: its metric's range
    is [0, 1], or it declares no range and every value lies in [0, 1] (and it has one)."""
    if metric.unit == "%":
        return False
    if metric.range is not None:
        return tuple(float(v) for v in metric.range) == (0.0, 1.0)
    values = z[np.isfinite(z)]
    return bool(values.size) and bool((values >= 0).all() and (values <= 1).all())


def log_unavailable(metric: Metric, z: np.ndarray) -> str | None:
    """Why a panel cannot be coloured by log10 of its values (None when it can): only a metric
    without a range (perplexity), and only while every value shown is above 0."""
    if metric.range is not None:
        return (f"Log colours are for metrics without a range; {metric.name} runs from "
                f"{metric.range[0]:g} to {metric.range[1]:g}.")
    values = z[np.isfinite(z)]
    if values.size and not (values > 0).all():
        return "nonpositive"
    return None


@dataclass(frozen=True, eq=False)
class PanelView:
    """The part of one panel a view shows: its labels and the matching sub-grids."""

    spec: FigureSpec
    panel: Panel
    y_labels: tuple[str, ...]
    x_labels: tuple[str, ...]
    z: np.ndarray
    sd: np.ndarray | None
    n: np.ndarray | None
    decimals: int
    se: np.ndarray | None = None
    pct: bool = False  # fractions asked to be written as percent (URL pct=1)
    log: bool = False  # colours by log10 asked (URL zscale=log)

    @property
    def title(self) -> str:
        return self.panel.title

    @cached_property
    def metric(self) -> Metric:
        """The panel's own metric (the catalog's ``metrics`` for its label, else the figure's):
        its name, unit, range and direction. Everything a panel shows uses this one."""
        return self.spec.metric_for(self.panel.facets)

    @cached_property
    def fraction(self) -> bool:
        """Whether the panel's values are fractions (percent may be offered)."""
        return is_fraction(self.metric, self.panel.z)

    @property
    def percent(self) -> bool:
        """Whether values are written as percent: asked, and the panel holds fractions."""
        return self.pct and self.fraction

    @cached_property
    def shown(self) -> Metric:
        """The metric as values are written: the panel's, as percent when :attr:`percent`."""
        return self.metric.as_percent() if self.percent else self.metric

    @property
    def higher_is_better(self) -> bool:
        return self.metric.higher_is_better

    @cached_property
    def log_note(self) -> str | None:
        """Why log colours, asked for, are off for this panel (None: on, or not asked)."""
        if not self.log:
            return None
        why = log_unavailable(self.metric, self.z)
        if why == "nonpositive":
            return LOG_REFUSED.format(panel=self.title, value=0)
        return why

    @property
    def log_scale(self) -> bool:
        """Whether the panel is coloured by log10 of its values."""
        return self.log and self.log_note is None

    @cached_property
    def present(self) -> np.ndarray:
        """Where the view has a value (worked out once)."""
        return np.isfinite(self.z)

    @cached_property
    def n_cells(self) -> int:
        return int(np.count_nonzero(self.present))

    @cached_property
    def value_range(self) -> tuple[float, float] | None:
        """The lowest and highest value (None: no cell), as ``np.nanmin``/``np.nanmax`` give
        them (worked out once; ``fmin``/``fmax`` skip NaN without a copy of the grid)."""
        if not self.n_cells:
            return None
        return float(np.fmin.reduce(self.z, axis=None)), float(np.fmax.reduce(self.z, axis=None))


def select_panels(figure: Figure, facets: dict[str, list[str]] | None = None) -> list[Panel]:
    """Panels whose facet labels are all selected (a facet not in ``facets`` keeps all labels)."""
    facets = facets or {}
    spec = figure.spec
    chosen = [facets.get(f, spec.dims[f].labels) for f in spec.facets]
    wanted = set(product(*chosen))
    return [p for p in figure.panels.values() if tuple(p.facets.values()) in wanted]


def _kept(labels: tuple[str, ...], keep) -> np.ndarray:
    keep = set(keep)
    return np.array([i for i, label in enumerate(labels) if label in keep], dtype=int)


def x_indices(spec: FigureSpec, x_range: tuple[float, float] | None,
              columns: Iterable[str] | None = None) -> np.ndarray:
    """The columns shown: within ``x_range`` (a numeric axis), and among ``columns`` if given."""
    dim = spec.dims[spec.x]
    index = np.arange(len(dim.labels))
    if x_range is not None and dim.numeric:
        lo, hi = min(x_range), max(x_range)
        numbers = np.asarray(dim.numbers)
        index = np.nonzero((numbers >= lo) & (numbers <= hi))[0]
    if columns is not None:
        index = np.intersect1d(index, _kept(dim.labels, columns))
    return index


def y_indices(spec: FigureSpec, rows: Iterable[str] | None) -> np.ndarray:
    dim = spec.dims[spec.y]
    return np.arange(len(dim.labels)) if rows is None else _kept(dim.labels, rows)


def slice_panel(figure: Figure, panel: Panel, rows: Iterable[str] | None = None,
                x_range: tuple[float, float] | None = None,
                columns: Iterable[str] | None = None) -> PanelView:
    spec = figure.spec
    yi, xi = y_indices(spec, rows), x_indices(spec, x_range, columns)
    ys, xs = spec.dims[spec.y].labels, spec.dims[spec.x].labels
    if len(yi) == panel.z.shape[0] and len(xi) == panel.z.shape[1]:
        grid = (slice(None), slice(None))  # the whole panel: views of its arrays, no copy
        y_labels, x_labels = tuple(ys), tuple(xs)
    else:
        grid = np.ix_(yi, xi)
        y_labels, x_labels = tuple(ys[i] for i in yi), tuple(xs[i] for i in xi)
    return PanelView(
        spec=spec, panel=panel, y_labels=y_labels, x_labels=x_labels,
        z=panel.z[grid],
        sd=None if panel.sd is None else panel.sd[grid],
        n=None if panel.n is None else panel.n[grid],
        decimals=figure.decimals_for(panel.facets),
        se=None if panel.se is None else panel.se[grid],
    )


NO_PANEL = "No panel matches the selection: pick at least one label per facet."
NO_ROWS = "No rows selected: pick rows in the Rows menu."
NO_COLUMNS = "The x range holds no column: widen it."


def no_panel_message(figure: Figure, selection: dict[str, tuple[str, ...] | list[str]],
                     most: int = 6) -> str:
    """Why no panel shows: a facet with no label picked (:data:`NO_PANEL`), or labels that no
    panel has together; then, per facet, the labels that exist with the other facets' picks."""
    spec = figure.spec
    chosen = {f: tuple(selection.get(f, spec.dims[f].labels)) for f in spec.facets}
    if any(not labels for labels in chosen.values()):
        return NO_PANEL

    def named(f: str) -> str:
        labels = chosen[f]
        shown = ", ".join(labels[:most]) + (f" and {len(labels) - most} more"
                                            if len(labels) > most else "")
        return f"{spec.dims[f].title.lower()} {shown}"

    parts = []
    for f in spec.facets:
        others = [g for g in spec.facets if g != f]
        found = []
        for panel in figure.panels.values():
            if all(panel.facets[g] in chosen[g] for g in others) and panel.facets[f] not in found:
                found.append(panel.facets[f])
        title = spec.dims[f].title.lower()
        where = f"with {' and '.join(named(g) for g in others)}, " if others else ""
        if found:
            listed = ", ".join(found[:most]) + (f" and {len(found) - most} more"
                                                if len(found) > most else "")
            parts.append(f"{where}{title} can be {listed}")
        elif others:
            parts.append(f"{where}there is no panel")
    joined = "; ".join(parts)
    return (f"No panel has {' with '.join(named(f) for f in spec.facets)}. "
            f"{joined[:1].upper()}{joined[1:]}.")


def views_for(figure: Figure, state: SliceState,
              columns: Iterable[str] | None = None) -> tuple[list[PanelView], str | None]:
    """The panel views a view state shows, and why there are none when a slice is empty (a
    sentence to show the user; None when the views have cells to draw)."""
    panels = select_panels(figure, state.facet_selection(figure))
    rows = None if state.rows is None else list(state.rows)
    views = [slice_panel(figure, p, rows, state.x_range, columns) for p in panels]
    pct, log = bool(getattr(state, "pct", False)), getattr(state, "zscale", "linear") == "log"
    if pct or log:
        views = [replace(v, pct=pct, log=log) for v in views]
    if not views:
        return views, no_panel_message(figure, state.facet_selection(figure))
    if not views[0].y_labels:
        return views, NO_ROWS
    if not views[0].x_labels:
        return views, NO_COLUMNS
    sort, top = getattr(state, "sort", "source"), getattr(state, "top", None)
    if sort != "source" or top is not None:
        order = row_order(views, sort, top)
        views = [replace(v, y_labels=tuple(v.y_labels[i] for i in order), z=v.z[order],
                         sd=None if v.sd is None else v.sd[order],
                         n=None if v.n is None else v.n[order],
                         se=None if v.se is None else v.se[order]) for v in views]
    return views, None


def _oriented(views: list[PanelView]) -> list[np.ndarray]:
    """Each view's values, negated where lower is better, so that higher is better in all."""
    return [v.z if v.higher_is_better else -v.z for v in views]


def row_means(views: list[PanelView]) -> np.ndarray:
    """Each shown row's mean over the cells the views show (every panel); NaN: no cell."""
    return _means([v.z for v in views])


def _means(grids: list[np.ndarray]) -> np.ndarray:
    stack = np.stack(grids)
    present = np.isfinite(stack)
    counts = present.sum(axis=(0, 2))
    sums = np.where(present, stack, 0.0).sum(axis=(0, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def _descending(values: np.ndarray) -> np.ndarray:
    """Indices from the highest value down; missing (NaN) last; ties in the source's order."""
    return np.lexsort((np.arange(values.size), np.where(np.isfinite(values), -values, np.inf)))


def row_scores(views: list[PanelView]) -> np.ndarray:
    """How good each shown row is, higher is better: its mean over the shown cells where every
    panel's metric has the same direction (negated when lower is better: the lowest perplexity
    first); with panels of both directions, the mean of the row's rank in each panel (1 = best),
    negated, since a mean of accuracies and perplexities means nothing. NaN: no cell."""
    if len({v.higher_is_better for v in views}) == 1:
        means = row_means(views)
        return means if views[0].higher_is_better else -means
    ranks = []
    for grid in _oriented(views):
        means = _means([grid])
        order = _descending(means)
        rank = np.full(means.shape, np.nan)
        rank[order] = np.arange(1, means.size + 1)
        ranks.append(np.where(np.isfinite(means), rank, np.nan)[:, None])
    return -_means(ranks)


def row_order(views: list[PanelView], sort: str = "source", top: int | None = None) -> np.ndarray:
    """The shown rows' order (indices into ``views[0].y_labels``): the ``top`` best rows by
    :func:`row_scores` (the highest mean, or the lowest where lower is better), then sorted by
    ``sort``: 'source' (the source's order), 'name', 'mean' (best first) or 'col:<x label>' (the
    value in that column, best first, averaged over the shown panels). Rows without a value sort
    last."""
    labels = views[0].y_labels
    order = np.arange(len(labels))
    if top is not None:
        order = np.sort(_descending(row_scores(views))[:top])
    kind, _, column = sort.partition(":")
    if kind == "name":
        order = np.array(sorted(order, key=lambda i: natural_key(labels[i])), dtype=int)
    elif kind == "mean":
        order = order[_descending(row_scores(views)[order])]
    elif kind == "col":
        dim = views[0].spec.dims[views[0].spec.y]
        full = dim.index()
        rows = [full[labels[i]] for i in order]
        j = views[0].spec.dims[views[0].spec.x].index()[column]
        stack = np.stack([v.panel.z[rows, j] * (1 if v.higher_is_better else -1)
                          for v in views])
        present = np.isfinite(stack)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(present.any(axis=0),
                              np.where(present, stack, 0).sum(axis=0) / np.maximum(
                                  present.sum(axis=0), 1), np.nan)
        order = order[_descending(values)]
    return order


def fixed_range(metric: Metric) -> tuple[float, float] | None:
    """The "fixed" colour range of a metric: its declared range (0-1 for a fraction), else
    0-100 for a percent, else None (an unbounded metric such as perplexity scales itself)."""
    if metric.range is not None:
        return (float(metric.range[0]), float(metric.range[1]))
    return FIXED_RANGE if metric.unit == "%" else None


def same_scale(a: Metric, b: Metric) -> bool:
    """Metrics whose values may share one colour range: same name, unit and direction."""
    return (a.name, a.unit, a.higher_is_better) == (b.name, b.unit, b.higher_is_better)


def color_range(spec: FigureSpec, views: list[PanelView], mode: str,
                metric: Metric | None = None) -> tuple[float, float] | None:
    """(zmin, zmax) for a colour mode, for the panels of ``metric`` (default: the first view's;
    views of other metrics are left out of "shared"); None lets each panel scale itself.
    "fixed" is the metric's range (:func:`fixed_range`), "figure" (the default) the catalog's
    ``zrange`` for the figure's own metric, else the range "shared" by the panels: the panels
    of one figure share one scale unless "panel" (each panel its own) is asked for."""
    metric = metric or (views[0].metric if views else spec.metric)
    if mode == "fixed":
        return fixed_range(metric)
    if mode == "panel":
        return None
    if mode == "figure" and spec.zrange and metric == spec.metric:
        return tuple(spec.zrange)  # type: ignore[return-value]
    if mode in ("shared", "figure"):
        present = [v.value_range for v in views if v.n_cells and same_scale(v.metric, metric)]
        if not present:
            return None
        lo = min(r[0] for r in present)
        hi = max(r[1] for r in present)
        return (lo, hi) if lo < hi else flat_range(metric, lo)
    return None


def flat_range(metric: Metric, value: float) -> tuple[float, float]:
    """The colour range of panels that hold one value only (one uploaded result): the metric's
    range when it has one that holds the value (an accuracy of 0.4 is coloured on 0-1, as any
    other), else the value +- 0.5 (some range is needed to draw a colour)."""
    fixed = fixed_range(metric)
    if fixed is not None and fixed[0] <= value <= fixed[1] and fixed[0] < fixed[1]:
        return fixed
    return value - 0.5, value + 0.5


LOG_MIN_SPAN = 0.1  # decades: a narrower log colour range is widened to a decade around it


def log_range(view: PanelView, zrange: tuple[float, float] | None) -> tuple[float, float] | None:
    """A colour range in log10 units (None stays None: the panel scales itself); a range that
    reaches 0 or below starts at the panel's lowest value."""
    if zrange is None:
        return None
    lo, hi = zrange
    values = view.z[np.isfinite(view.z)]
    if lo <= 0:
        lo = float(values.min()) if values.size else hi
    if hi <= 0 or lo <= 0:
        return None
    lo, hi = float(np.log10(lo)), float(np.log10(hi))
    if hi - lo < LOG_MIN_SPAN:  # one value (+- 0.5), or nearly: half a decade either side,
        mid = (lo + hi) / 2     # so that the colour bar holds a tick
        return (mid - 0.5, mid + 0.5)
    return (lo, hi)


def view_ranges(spec: FigureSpec, views: list[PanelView]) -> list[dict]:
    """Each view's colour range per mode (:data:`COLOR_MODES`), on its own metric's scale (in
    log10 units where the view is coloured by log)."""
    out = []
    found: dict = {}  # each metric's ranges, worked out once for all its views
    for view in views:
        if view.metric not in found:
            found[view.metric] = {mode: color_range(spec, views, mode, view.metric)
                                  for mode in COLOR_MODES}
        ranges = dict(found[view.metric])
        own = view.value_range
        if own is not None:
            # a mode that lets the panel scale itself gets the panel's own extent, written out
            # (the browser switches modes without the server); a panel of one value: its
            # metric's range, when that holds the value (else the value +- 0.5)
            own = own if own[0] < own[1] else flat_range(view.metric, own[0])
            ranges = {mode: own if r is None else r for mode, r in ranges.items()}
        if view.log_scale:
            ranges = {mode: log_range(view, r) for mode, r in ranges.items()}
        out.append(ranges)
    return out


def scale_notes(views: list[PanelView]) -> list[str]:
    """What the view says of its scales: metrics where lower is better (their colours run the
    other way), percent asked of panels that do not hold fractions, log colours refused."""
    notes = []
    lower = sorted({v.metric.name for v in views if not v.higher_is_better})
    if lower:
        notes.append(f"Lower is better for {', '.join(lower)}: "
                     f"{'its' if len(lower) == 1 else 'their'} colour scale is reversed, so the "
                     "best cells have the same colour everywhere, and best means lowest.")
    if views and views[0].pct:
        raw = sorted({v.metric.name for v in views if not v.fraction})
        if raw:
            notes.append(f"Percent is for fractions (a metric from 0 to 1): {', '.join(raw)} "
                         f"{'is' if len(raw) == 1 else 'are'} shown as the data gives "
                         f"{'it' if len(raw) == 1 else 'them'}.")
    ranged = sorted({v.metric.name for v in views if v.log and v.metric.range is not None})
    if ranged:
        notes.append(f"Log colours are for metrics without a range: {', '.join(ranged)} "
                     f"{'keeps' if len(ranged) == 1 else 'keep'} linear colours.")
    refused = list(dict.fromkeys(v.log_note for v in views
                                 if v.log_note and v.metric.range is None))
    if refused:
        if len(refused) > 2:
            refused = refused[:2] + [f"(and {len(refused) - 2} more panels)"]
        notes.extend(refused)
    return notes
