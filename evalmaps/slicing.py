"""Slicing: which panels, rows and x range a view shows, and the colour range it uses.

Costs are in proportion to the cells shown: panels are precomputed dense grids, slicing picks
index arrays out of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from evalmaps.model import Figure, FigureSpec, Panel

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

    @property
    def title(self) -> str:
        return self.panel.title

    @property
    def n_cells(self) -> int:
        return int(np.isfinite(self.z).sum())

    @property
    def x_numbers(self) -> np.ndarray | None:
        dim = self.spec.dims[self.spec.x]
        if not dim.numeric:
            return None
        index = dim.index()
        return np.array([dim.numbers[index[label]] for label in self.x_labels])


def select_panels(figure: Figure, facets: dict[str, list[str]] | None = None) -> list[Panel]:
    """Panels whose facet labels are all selected (a facet not in ``facets`` keeps all labels)."""
    facets = facets or {}
    spec = figure.spec
    chosen = [facets.get(f, spec.dims[f].labels) for f in spec.facets]
    wanted = set(product(*chosen))
    return [p for p in figure.panels.values() if tuple(p.facets.values()) in wanted]


def x_indices(spec: FigureSpec, x_range: tuple[float, float] | None) -> np.ndarray:
    dim = spec.dims[spec.x]
    if x_range is None or not dim.numeric:
        return np.arange(len(dim.labels))
    lo, hi = min(x_range), max(x_range)
    numbers = np.asarray(dim.numbers)
    return np.nonzero((numbers >= lo) & (numbers <= hi))[0]


def y_indices(spec: FigureSpec, rows: list[str] | None) -> np.ndarray:
    dim = spec.dims[spec.y]
    if rows is None:
        return np.arange(len(dim.labels))
    keep = set(rows)
    return np.array([i for i, label in enumerate(dim.labels) if label in keep], dtype=int)


def slice_panel(figure: Figure, panel: Panel, rows: list[str] | None = None,
                x_range: tuple[float, float] | None = None) -> PanelView:
    spec = figure.spec
    yi, xi = y_indices(spec, rows), x_indices(spec, x_range)
    grid = np.ix_(yi, xi)
    return PanelView(
        spec=spec, panel=panel,
        y_labels=tuple(spec.dims[spec.y].labels[i] for i in yi),
        x_labels=tuple(spec.dims[spec.x].labels[i] for i in xi),
        z=panel.z[grid],
        sd=None if panel.sd is None else panel.sd[grid],
        n=None if panel.n is None else panel.n[grid],
        decimals=figure.decimals,
    )


def color_range(spec: FigureSpec, views: list[PanelView], mode: str) -> tuple[float, float] | None:
    """(zmin, zmax) for a colour mode; None lets each panel scale itself."""
    if mode == "fixed":
        return FIXED_RANGE
    if mode == "shared":
        values = np.concatenate([v.z[np.isfinite(v.z)] for v in views]) if views else np.array([])
        if values.size == 0:
            return None
        lo, hi = float(values.min()), float(values.max())
        return (lo, hi) if lo < hi else (lo - 0.5, hi + 0.5)
    return tuple(spec.zrange) if spec.zrange else None  # type: ignore[return-value]
