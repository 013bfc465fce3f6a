"""The domain objects: figure specs (from the catalog), figures (validated cells) and panels.

A *figure* is one heatmap (or a row of heatmaps) from a paper: cells indexed by its dimensions.
Two dimensions are the axes (``x``, ``y``); the others are *facets* (model, benchmark) and each
combination of facet labels that has cells is a *panel* (one heatmap). Labels are strings, kept in
the order the source draws them (``y``: top to bottom, ``x``: left to right).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from evalmaps.core.errors import UnknownFigure, UnknownPanel

MAX_LISTED = 12  # names listed in an error message; the rest counted
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
        """Label -> position (built once; do not modify it)."""
        return self._index

    @cached_property
    def _index(self) -> dict[str, int]:
        return {label: i for i, label in enumerate(self.labels)}


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str = ""
    range: tuple[float, float] | None = None
    higher_is_better: bool = True  # False: lower is better (perplexity, bits per byte)
    # display only: 100 writes a fraction as a percent (unit '%', two decimals fewer); the data
    # keeps its values, they are multiplied when written (evalmaps.core.text) or by d3's '%'
    scale: int = 1
    # display decimals of this metric in a figure of several (catalog ``metrics``' "decimals");
    # None: Figure.decimals_for finds them from its values
    decimals: int | None = None

    @property
    def label(self) -> str:
        """Axis or colour-bar title: 'Accuracy (%)', 'Pass@1'."""
        return f"{self.name} ({self.unit})" if self.unit else self.name

    @property
    def percent(self) -> bool:
        """Whether values are written as percent of a fraction (see :meth:`as_percent`)."""
        return self.scale == 100

    @property
    def shift(self) -> int:
        """Decimals fewer than the data's when written: 2 for percent (0.2534 -> 25.34%)."""
        return 2 if self.percent else 0

    def as_percent(self) -> "Metric":
        """This metric written as percent: unit '%', values times 100 when shown."""
        return replace(self, unit="%", scale=100)

    @property
    def better(self) -> str:
        """'higher' or 'lower': which way is better."""
        return "higher" if self.higher_is_better else "lower"


@dataclass(frozen=True)
class MetricsByLabel:
    """A metric per label of one facet dimension (catalog ``metrics``): a figure whose panels
    hold different measures (acc and perplexity) says here what each panel's values are."""

    dim: str
    labels: dict[str, Metric]


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
    metrics: MetricsByLabel | None = None  # a metric per label of one facet (catalog "metrics")
    # the folder (beside the file) of its per-item records, when it has them (catalog "items")
    items: str = ""

    def metric_for(self, facets: dict) -> Metric:
        """The metric of the panel with these facet labels: the one the catalog's ``metrics``
        gives for its label, else the figure's ``metric``."""
        if self.metrics is not None:
            found = self.metrics.labels.get(str(facets.get(self.metrics.dim)))
            if found is not None:
                return found
        return self.metric

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


def short_slug(text: str, limit: int = 40) -> str:
    """:func:`slugify`, at most ``limit`` characters, cut between words (at a hyphen) rather than
    inside one when the text is longer: 'pythia-v1-216-lm-evaluation-harness', not '...-resu'."""
    slug = slugify(text)
    if len(slug) <= limit:
        return slug
    cut = slug[:limit + 1].rfind("-")
    return slug[:cut] if cut >= limit // 2 else slug[:limit].rstrip("-")


@dataclass(frozen=True, eq=False)
class Panel:
    """One heatmap: a full y-by-x grid for one combination of facet labels. NaN = not reported."""

    figure_id: str
    slug: str  # unique within the figure: figure.panels is keyed by it
    facets: dict[str, str]
    z: np.ndarray
    sd: np.ndarray | None = None
    n: np.ndarray | None = None
    se: np.ndarray | None = None  # a standard error the source gives (e.g. lm-eval's acc_stderr)

    @property
    def key(self) -> str:
        """The panel's key in the whole catalog: '<figure_id>:<slug>' (URLs and the API)."""
        return f"{self.figure_id}:{self.slug}"

    @property
    def title(self) -> str:
        return " | ".join(self.facets.values()) or "all"

    @property
    def n_cells(self) -> int:
        return int(np.isfinite(self.z).sum())


class Figure:
    """A validated figure: its spec, its present cells (tidy) and its panels as dense grids."""

    def __init__(self, spec: FigureSpec, cells: pd.DataFrame, decimals: int,
                 _positions: dict | None = None) -> None:
        """``_positions``: each cell's label per dim as its position among the spec's labels,
        when validation has them (else they are looked up here)."""
        self.spec = spec
        self.cells = cells  # present cells only: dim columns (str), value, optional sd, n, se
        self.decimals = decimals
        # the per-item records behind the cells (evalmaps.catalog.items.ItemRecords), when the
        # source has them; set by the catalog that loads the figure
        self.items = None
        self._index = {d: spec.dims[d].index() for d in spec.dim_names}
        self._by_facets: dict[tuple[str, ...], Panel] = {}
        self._given_positions = _positions or {}
        self.panels: dict[str, Panel] = self._build_panels()
        del self._given_positions

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def n_cells(self) -> int:
        return len(self.cells)

    def decimals_for(self, facets: dict) -> int:
        """Display decimals of the panel with these facet labels. In a figure of several metrics
        (the catalog's ``metrics``) each metric has its own: the ones its entry gives, else,
        when the catalog gives none for the figure, the fewest that write each of its values as
        the figure's decimals would (counts such as n_total 805: none); else the figure's."""
        metrics = self.spec.metrics
        if metrics is None:
            return self.decimals
        return self._metric_decimals.get(str(facets.get(metrics.dim)), self.decimals)

    @cached_property
    def _metric_decimals(self) -> dict[str, int]:
        metrics = self.spec.metrics
        found: dict[str, list[np.ndarray]] = {}
        for panel in self.panels.values():
            z = panel.z[np.isfinite(panel.z)]
            found.setdefault(str(panel.facets.get(metrics.dim)), []).append(z)
        out = {}
        for label, parts in found.items():
            given = metrics.labels.get(label)
            if given is not None and given.decimals is not None:
                out[label] = given.decimals
            elif self.spec.decimals is None:
                values = np.concatenate(parts)
                whole = np.round(values, self.decimals)
                out[label] = next(d for d in range(self.decimals + 1)
                                  if np.array_equal(np.round(values, d), whole))
        return out

    def value(self, **coords: str) -> float | None:
        """The value of one cell, or None when it is not reported. Give every dim by name."""
        key = tuple(str(coords[d]) for d in self.spec.dim_names)
        panel = self._by_facets.get(key[:-2])
        i = self._index[self.spec.y].get(key[-2])
        j = self._index[self.spec.x].get(key[-1])
        if panel is None or i is None or j is None:
            return None
        value = panel.z[i, j]
        return None if np.isnan(value) else float(value)

    def panel(self, slug: str) -> Panel:
        try:
            return self.panels[slug]
        except KeyError:
            names = list(self.panels)
            listed = ", ".join(names[:MAX_LISTED])
            if len(names) > MAX_LISTED:  # Pythia's 127 would fill the screen
                listed += f" and {len(names) - MAX_LISTED} more (/api/figures lists them all)"
            raise UnknownPanel(f"{self.id}:{slug}",
                               f"Figure '{self.id}' has panels: {listed}.") from None

    def _positions(self, dim: str) -> np.ndarray:
        """Each cell's label of ``dim`` as its position among the spec's labels."""
        if dim in self._given_positions:
            return self._given_positions[dim]
        labels = self.spec.dims[dim].labels
        column = self.cells[dim]
        try:
            text = pa.array(column, from_pandas=True)  # no copy of a pandas str column
            if not (pa.types.is_string(text.type) or pa.types.is_large_string(text.type)):
                raise pa.ArrowTypeError("not text")
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            text = pa.array([str(v) for v in column], type=pa.string())
        pos = pc.index_in(text, value_set=pa.array(labels, type=text.type))
        pos = pos.to_numpy(zero_copy_only=False) if len(pos) else np.zeros(0)
        if len(pos) and np.isnan(pos.astype(float)).any():
            raise ValueError(f"figure '{self.spec.id}': a cell has a {dim} label the catalog does "
                             f"not list")
        return pos.astype(np.int32)

    def _build_panels(self) -> dict[str, Panel]:
        spec = self.spec
        ydim, xdim = spec.dims[spec.y], spec.dims[spec.x]
        shape = (len(ydim.labels), len(xdim.labels))
        columns = {c: self.cells[c].to_numpy(dtype=float)
                   for c in ("value", "sd", "n", "se") if c in self.cells.columns}
        rows, cols = self._positions(spec.y), self._positions(spec.x)
        # one number per combination of facet labels, ordered as the catalog orders the labels
        combo = np.zeros(len(self.cells), dtype=np.int64)
        sizes = [len(spec.dims[f].labels) for f in spec.facets]
        positions = [self._positions(f) for f in spec.facets]
        for size, pos in zip(sizes, positions):
            combo = combo * size + pos
        if not spec.facets or (len(combo) and (combo == combo[0]).all()):  # one panel
            groups = [(0, slice(None))]
        else:
            present, start = np.unique(combo, return_index=True)
            order = np.argsort(combo, kind="stable")
            bounds = [*np.searchsorted(combo[order], present, side="left").tolist(), len(order)]
            groups = [(first, order[bounds[k]:bounds[k + 1]])
                      for k, first in enumerate(start.tolist())]
        panels: dict[str, Panel] = {}
        size = shape[0] * shape[1]
        for first, members in groups:
            labels = tuple(spec.dims[f].labels[pos[first]] for f, pos in zip(spec.facets, positions))
            # each cell's place in the grid, row by row; a panel whose cells come in exactly that
            # order (a sweep written row by row) is its values reshaped, with nothing to scatter
            flat = rows[members].astype(np.int64) * shape[1] + cols[members]
            in_order = len(flat) == size and np.array_equal(flat, np.arange(size))
            grids = {}
            for name, values in columns.items():
                if in_order:
                    grid = np.array(values[members], dtype=float).reshape(shape)
                else:
                    grid = np.full(size, np.nan)
                    grid[flat] = values[members]
                    grid = grid.reshape(shape)
                grids[name] = grid
            facets = dict(zip(spec.facets, labels))
            slug = slugify(".".join(labels)) if labels else "all"
            while slug in panels:  # labels that slugify alike still get distinct slugs
                slug += "_"
            panel = Panel(spec.id, slug, facets, grids["value"], grids.get("sd"), grids.get("n"),
                          grids.get("se"))
            panels[slug] = panel
            self._by_facets[labels] = panel
        return panels


class Catalog:
    """Figures by id, in catalog order, plus panel look-up by global key '<figure>:<panel>'."""

    def __init__(self, figures: list[Figure], compare_pair: tuple[str, str] | None = None) -> None:
        self.figures: dict[str, Figure] = {f.id: f for f in figures}
        self.compare_pair = compare_pair  # the panel keys Compare opens with (catalog "compare")
        self.gone: dict[str, str] = {}  # watched figures with no file now -> their folder

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
            raise UnknownFigure(figure_id, self.ids, self.gone.get(figure_id)) from None

    def panel(self, key: str) -> Panel:
        figure_id, sep, slug = key.partition(":")
        if not sep:
            raise UnknownPanel(key, "Panel keys look like '<figure>:<panel>', "
                                           "as /api/figures lists them.")
        return self.figure(figure_id).panel(slug)

    def with_figures(self, extra: list[Figure]) -> "Catalog":
        """A new catalog with ``extra`` figures added after these (e.g. a session's uploads)."""
        catalog = Catalog([*self.figures.values(), *extra], self.compare_pair)
        catalog.gone = {k: v for k, v in self.gone.items() if k not in catalog}
        return catalog
