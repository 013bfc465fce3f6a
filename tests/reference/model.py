"""The domain objects: figure specs (from the catalog), figures (validated cells) and panels.

A *figure* is one heatmap (or a row of heatmaps) from a paper: cells indexed by its dimensions.
Two dimensions are the axes (``x``, ``y``); the others are *facets* (model, benchmark) and each
combination of facet labels that has cells is a *panel* (one heatmap). Labels are strings, kept in
the order the source draws them (``y``: top to bottom, ``x``: left to right).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from evalmaps.core.errors import UnknownFigure, UnknownPanel

PROVENANCES = ("transcribed", "published", "illustrative", "imported", "uploaded", "derived")


def _as_number(label: str) -> float | None:
    try:
        value = float(label)
    except ValueError:
        return None
    return value if np.isfinite(value) else None


@dataclass(frozen=True)
class Dim:
    name: str
    title: str
    labels: tuple[str, ...]

    @cached_property
    def numbers(self) -> tuple[float, ...] | None:
        """The labels as numbers when every label is numeric, else None (a categorical axis)."""
        values = [_as_number(label) for label in self.labels]
        return None if any(v is None for v in values) else tuple(values)  # type: ignore[arg-type]

    @property
    def numeric(self) -> bool:
        return self.numbers is not None

    def index(self) -> dict[str, int]:
        return {label: i for i, label in enumerate(self.labels)}


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str = ""
    range: tuple[float, float] | None = None

    def format(self, value: float | None, decimals: int) -> str:
        """'87.3%' / '56.3'; missing cells read 'not reported'."""
        if value is None or not np.isfinite(value):
            return "not reported"
        text = f"{value:.{decimals}f}"
        if not self.unit:
            return text
        return f"{text}{self.unit}" if self.unit == "%" else f"{text} {self.unit}"

    @property
    def label(self) -> str:
        """Axis or colour-bar title: 'Accuracy (%)', 'Pass@1'."""
        return f"{self.name} ({self.unit})" if self.unit else self.name


@dataclass(frozen=True)
class FigureSpec:
    id: str
    title: str
    metric: Metric
    x: str
    y: str
    facets: tuple[str, ...]
    dims: dict[str, Dim]
    colorscale: tuple[tuple[float, str], ...] | str
    zrange: tuple[float, float] | None
    provenance: str
    source: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    file: str = ""
    decimals: int | None = None  # display decimals; None: as many as the data file writes

    @property
    def dim_names(self) -> tuple[str, ...]:
        """Facets first, then y, then x: the column order of tidy cells."""
        return (*self.facets, self.y, self.x)

    @property
    def illustrative(self) -> bool:
        return self.provenance == "illustrative"


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "panel"


@dataclass(frozen=True, eq=False)
class Panel:
    """One heatmap: a full y-by-x grid for one combination of facet labels. NaN = not reported."""

    figure_id: str
    key: str  # unique within the figure; the global key is "<figure_id>:<key>"
    facets: dict[str, str]
    z: np.ndarray
    sd: np.ndarray | None = None
    n: np.ndarray | None = None

    @property
    def global_key(self) -> str:
        return f"{self.figure_id}:{self.key}"

    @property
    def title(self) -> str:
        return " | ".join(self.facets.values()) or "all"

    @property
    def n_cells(self) -> int:
        return int(np.isfinite(self.z).sum())


class Figure:
    """A validated figure: its spec, its present cells (tidy) and its panels as dense grids."""

    def __init__(self, spec: FigureSpec, cells: pd.DataFrame, decimals: int) -> None:
        self.spec = spec
        self.cells = cells  # present cells only: dim columns (str), value, optional sd, n
        self.decimals = decimals
        self._lookup = {
            tuple(row[:-1]): row[-1]
            for row in cells[[*spec.dim_names, "value"]].itertuples(index=False, name=None)
        }
        self.panels: dict[str, Panel] = self._build_panels()

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def n_cells(self) -> int:
        return len(self.cells)

    def value(self, **coords: str) -> float | None:
        """The value of one cell, or None when it is not reported. Give every dim by name."""
        key = tuple(str(coords[d]) for d in self.spec.dim_names)
        value = self._lookup.get(key)
        return None if value is None else float(value)

    def panel(self, key: str) -> Panel:
        try:
            return self.panels[key]
        except KeyError:
            raise UnknownPanel(f"{self.id}:{key}",
                               f"Figure '{self.id}' has panels: {', '.join(self.panels)}.") from None

    def _build_panels(self) -> dict[str, Panel]:
        spec = self.spec
        ydim, xdim = spec.dims[spec.y], spec.dims[spec.x]
        yi = ydim.index()
        xi = xdim.index()
        shape = (len(ydim.labels), len(xdim.labels))
        has_sd = "sd" in self.cells.columns
        has_n = "n" in self.cells.columns
        panels: dict[str, Panel] = {}
        groups = self.cells.groupby(list(spec.facets), sort=False) if spec.facets else [((), self.cells)]
        by_facets = {}
        for labels, group in groups:
            labels = labels if isinstance(labels, tuple) else (labels,)
            by_facets[tuple(labels)] = group
        # panels in catalog label order, not in file order
        order = [tuple(spec.dims[f].index()[lab] for f, lab in zip(spec.facets, labels))
                 for labels in by_facets]
        for _, labels in sorted(zip(order, by_facets)):
            group = by_facets[labels]
            rows = group[spec.y].map(yi).to_numpy()
            cols = group[spec.x].map(xi).to_numpy()
            z = np.full(shape, np.nan)
            z[rows, cols] = group["value"].to_numpy(dtype=float)
            sd = n = None
            if has_sd:
                sd = np.full(shape, np.nan)
                sd[rows, cols] = group["sd"].to_numpy(dtype=float)
            if has_n:
                n = np.full(shape, np.nan)
                n[rows, cols] = group["n"].to_numpy(dtype=float)
            facets = dict(zip(spec.facets, labels))
            key = slugify(".".join(labels)) if labels else "all"
            while key in panels:  # labels that slugify alike still get distinct keys
                key += "_"
            panels[key] = Panel(spec.id, key, facets, z, sd, n)
        return panels


class Catalog:
    """Figures by id, in catalog order, plus panel look-up by global key '<figure>:<panel>'."""

    def __init__(self, figures: list[Figure]) -> None:
        self.figures: dict[str, Figure] = {f.id: f for f in figures}

    def __iter__(self):
        return iter(self.figures.values())

    def __len__(self) -> int:
        return len(self.figures)

    def __contains__(self, figure_id: object) -> bool:
        return figure_id in self.figures

    @property
    def ids(self) -> list[str]:
        return list(self.figures)

    def figure(self, figure_id: str) -> Figure:
        try:
            return self.figures[figure_id]
        except KeyError:
            raise UnknownFigure(figure_id, self.ids) from None

    def panel(self, global_key: str) -> Panel:
        figure_id, sep, key = global_key.partition(":")
        if not sep:
            raise UnknownPanel(global_key, "Panel keys look like '<figure>:<panel>', "
                                           "as /api/figures lists them.")
        return self.figure(figure_id).panel(key)

    def with_figures(self, extra: list[Figure]) -> "Catalog":
        """A new catalog with ``extra`` figures added after these (e.g. a session's uploads)."""
        return Catalog([*self.figures.values(), *extra])
