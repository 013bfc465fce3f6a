"""Slicing: which panels, rows and x range a view shows, and the colour range it uses.

Costs are in proportion to the cells shown: panels are precomputed dense grids, slicing picks
index arrays out of them.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import product
from typing import TYPE_CHECKING

import numpy as np

from evalmaps.model import Figure, FigureSpec, Panel

if TYPE_CHECKING:  # state imports this module
    from evalmaps.state import ViewState

COLOR_MODES = ("figure", "fixed", "shared")
FIXED_RANGE = (0.0, 100.0)


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

    @property
    def title(self) -> str:
        return self.panel.title

    @cached_property
    def present(self) -> np.ndarray:
        """Where the view has a value (worked out once)."""
        return np.isfinite(self.z)

    @cached_property
    def n_cells(self) -> int:
        return int(self.present.sum())


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
    if len(yi) == panel.z.shape[0] and len(xi) == panel.z.shape[1]:
        grid = (slice(None), slice(None))  # the whole panel: views of its arrays, no copy
    else:
        grid = np.ix_(yi, xi)
    return PanelView(
        spec=spec, panel=panel,
        y_labels=tuple(spec.dims[spec.y].labels[i] for i in yi),
        x_labels=tuple(spec.dims[spec.x].labels[i] for i in xi),
        z=panel.z[grid],
        sd=None if panel.sd is None else panel.sd[grid],
        n=None if panel.n is None else panel.n[grid],
        decimals=figure.decimals,
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


def views_for(figure: Figure, state: "ViewState",
              columns: Iterable[str] | None = None) -> tuple[list[PanelView], str | None]:
    """The panel views a view state shows, and why there are none when a slice is empty (a
    sentence to show the user; None when the views have cells to draw)."""
    panels = select_panels(figure, state.facet_selection(figure))
    rows = None if state.rows is None else list(state.rows)
    views = [slice_panel(figure, p, rows, state.x_range, columns) for p in panels]
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


def row_means(views: list[PanelView]) -> np.ndarray:
    """Each shown row's mean over the cells the views show (every panel); NaN: no cell."""
    stack = np.stack([v.z for v in views])
    present = np.isfinite(stack)
    counts = present.sum(axis=(0, 2))
    sums = np.where(present, stack, 0.0).sum(axis=(0, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def _descending(values: np.ndarray) -> np.ndarray:
    """Indices from the highest value down; missing (NaN) last; ties in the source's order."""
    return np.lexsort((np.arange(values.size), np.where(np.isfinite(values), -values, np.inf)))


def row_order(views: list[PanelView], sort: str = "source", top: int | None = None) -> np.ndarray:
    """The shown rows' order (indices into ``views[0].y_labels``): the ``top`` rows by mean over
    the shown cells (highest first), then sorted by ``sort``: 'source' (the source's order),
    'name', 'mean' (highest first) or 'col:<x label>' (the value in that column, highest first,
    averaged over the shown panels). Rows without a value sort last."""
    labels = views[0].y_labels
    order = np.arange(len(labels))
    if top is not None:
        order = np.sort(_descending(row_means(views))[:top])
    kind, _, column = sort.partition(":")
    if kind == "name":
        order = np.array(sorted(order, key=lambda i: (labels[i].casefold(), i)), dtype=int)
    elif kind == "mean":
        order = order[_descending(row_means(views)[order])]
    elif kind == "col":
        dim = views[0].spec.dims[views[0].spec.y]
        full = dim.index()
        rows = [full[labels[i]] for i in order]
        j = views[0].spec.dims[views[0].spec.x].index()[column]
        stack = np.stack([v.panel.z[rows, j] for v in views])
        present = np.isfinite(stack)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(present.any(axis=0),
                              np.where(present, stack, 0).sum(axis=0) / np.maximum(
                                  present.sum(axis=0), 1), np.nan)
        order = order[_descending(values)]
    return order


def color_range(spec: FigureSpec, views: list[PanelView], mode: str) -> tuple[float, float] | None:
    """(zmin, zmax) for a colour mode; None lets each panel scale itself."""
    if mode == "fixed":
        return FIXED_RANGE
    if mode == "shared":
        present = [v.z for v in views if v.n_cells]
        if not present:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows
            lo = float(min(np.nanmin(z) for z in present))
            hi = float(max(np.nanmax(z) for z in present))
        return (lo, hi) if lo < hi else (lo - 0.5, hi + 0.5)
    return tuple(spec.zrange) if spec.zrange else None  # type: ignore[return-value]
