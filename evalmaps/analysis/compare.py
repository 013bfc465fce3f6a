"""Compare two panels: align them on their common cells, the difference B - A, its summary.

Pure numpy/pandas, no Dash or Plotly: usable from a notebook::

    from evalmaps.catalog.load import load_catalog
    from evalmaps.analysis.compare import compare, summary, sentences
    al = compare(load_catalog(), "dynts-llama-vs-qwen:r1-llama", "dynts-llama-vs-qwen:r1-qwen")
    summary(al)["mean_delta"]     # 2.37
    sentences(al)[0]              # 'R1-Qwen is higher than R1-Llama in 19 of 20 cells, ...'

**Panel references.** A side of a comparison is named by a *reference* (URL ``?a=``/``?b=``, the
API's ``a``/``b``):

- a global panel key ``<figure>:<panel>``, as ``/api/figures`` lists them;
- ``mean(<key>,<key>,...)``: a *derived* panel, the cell-wise mean of 2 to 16 panels, defined only
  where **all** of them report a value (nothing is filled in). Keys are separated by commas; no
  nesting. It is parsed with a regular expression and every key is looked up in the catalog:
  nothing in a reference is ever evaluated.

**Labels of a dimension.** A side can also be one label of any dimension of a figure,
``<figure>:<dimension>=<label>`` (``pythia-zero-shot:model=1.4b``): A and B are then two labels
of the same dimension of one figure, laid out on a grid of two of the remaining dimensions
(:class:`LabelGrid`: rows ``y``, columns ``x``; defaults: the figure's own axes, and where the
compared dimension is one of them, the first facet with more than one label takes its place),
with every other dimension *fixed* at one label (default: its first) or *averaged* over. Values
are the cells' own; an averaged cell is the mean of the cells the figure gives there (missing
stays missing: a cell with none is missing) and its hover says how many were averaged; a mean
carries no standard error. Rows and columns that neither side reports are left out. Comparing
two panels of one figure is the case where the compared dimension is a facet, the grid is the
figure's y by x and every other facet is fixed.

**Which panels compare.** A and B must have the same axes (the same x and y dimension, matched by
name or by title) and share at least one cell both report. Only those common cells are compared.
Panels of different figures compare too; when their metrics differ (name or unit) the comparison
is made but carries a warning, as it does when either side holds illustrative values.

**Uncertainty.** A side's standard error at a cell is the ``se`` its source gives (e.g.
lm-evaluation-harness's ``acc_stderr``), else ``sd / sqrt(n)`` when it gives a standard deviation
over ``n`` replicates (see :mod:`evalmaps.analysis.uncertainty`). Where both sides have one, the
standard error of the difference is ``SE = sqrt(seA^2 + seB^2)`` and a cell whose
``|B - A| < 1.96 SE`` is *not distinguishable* (at the 5% level, two-sided); beyond it, B is
*significantly* higher or lower.
A standard error of 0 for a value strictly inside the metric's range cannot be right: it is not
used, and the comparison says so. Derived means carry no standard error: the panels behind them
share models and items, so their errors are not independent, and combining them would assume
what the data does not say.

Differences and means are rounded to 9 decimals, which only drops binary floating-point noise
(``56.3 - 52.5`` is ``3.8``, not ``3.7999999999999972``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from evalmaps.analysis import paired as paired_stats
from evalmaps.analysis import power, uncertainty
from evalmaps.analysis.slicing import fixed_range, is_fraction
from evalmaps.catalog.items import records_version
from evalmaps.core import text as fmt
from evalmaps.core.errors import EvalmapsError, UnknownFigure, UnknownPanel
from evalmaps.core.figure import Catalog, Dim, Figure, Metric, Panel
from evalmaps.core.kept import Kept
from evalmaps.core.problems import STRICT, Problems

MAX_MEAN_PANELS = 16
MAX_REF_LENGTH = 2000
NOISE_DECIMALS = 9
_MEAN = re.compile(r"mean\((?P<body>[^()]*)\)")
_KEY = re.compile(r"[A-Za-z0-9._-]+:[A-Za-z0-9._-]+")
_FIGURE_ID = re.compile(r"[A-Za-z0-9._-]+")
ONE_ROW = "rows"  # the name of a grid's y when it has none (one row): a reserved word, no dim's


class CompareError(EvalmapsError, ValueError):
    """Two panels that cannot be compared, or a reference that names no panel (HTTP 400)."""


# --------------------------------------------------------------------------- references

def is_derived(ref: str) -> bool:
    return ref.strip().startswith("mean(")


def is_label_ref(ref: object) -> bool:
    """Whether a reference names a label of a dimension, ``<figure>:<dimension>=<label>`` (a
    panel key holds no '=')."""
    return (isinstance(ref, str) and not is_derived(ref)
            and bool(_FIGURE_ID.fullmatch(ref.partition(":")[0]))
            and "=" in ref.partition(":")[2])


def label_ref(figure_id: str, dim: str, label: str) -> str:
    """The reference of one label of a dimension: ``<figure>:<dimension>=<label>``."""
    return f"{figure_id}:{dim}={label}"


def mean_ref(keys: Sequence[str]) -> str:
    """The reference of the mean of these panels: ``mean(k1,k2,...)``."""
    return "mean(" + ",".join(keys) + ")"


def parse_ref(ref: str) -> tuple[str, ...]:
    """The panel keys a reference names: one for a panel key, several for ``mean(...)``.

    Only the syntax is checked here; :func:`resolve` looks the keys up.
    """
    if not isinstance(ref, str) or not ref.strip():
        raise CompareError("A panel reference is empty. Give a panel key such as "
                           "'<figure>:<panel>', as /api/figures lists them.")
    ref = ref.strip()
    if len(ref) > MAX_REF_LENGTH:
        raise CompareError(f"A panel reference is {len(ref)} characters long, over the limit of "
                           f"{MAX_REF_LENGTH}. Use fewer panels.")
    match = _MEAN.fullmatch(ref)
    if match:
        keys = tuple(k.strip() for k in match.group("body").split(","))
        if len(keys) < 2 or not all(keys):
            raise CompareError("A mean needs at least two panel keys separated by commas, "
                               "e.g. mean(<figure>:<panel>,<figure>:<panel>).")
        if len(keys) > MAX_MEAN_PANELS:
            raise CompareError(f"A mean may combine at most {MAX_MEAN_PANELS} panels; "
                               f"this one lists {len(keys)}.")
        twice = [k for i, k in enumerate(keys) if k in keys[:i]]
        if twice:
            raise CompareError(f"The mean lists the panel '{twice[0]}' twice. "
                               "List each panel once.")
        bad = [k for k in keys if not _KEY.fullmatch(k)]
        if bad:
            raise CompareError(f"'{fmt.clip(bad[0])}' is not a panel key. Keys look like "
                               "'<figure>:<panel>', as /api/figures lists them.")
        return keys
    if not _KEY.fullmatch(ref):
        raise CompareError(f"'{fmt.clip(ref)}' is neither a panel key ('<figure>:<panel>', as "
                           "/api/figures lists them) nor a mean(<key>,<key>,...).")
    return (ref,)


def figure_of(ref: str) -> str:
    """The figure whose panels a side's menus list: a panel's own figure, a mean's first
    panel's, a label's figure; "" for a reference that names no panel."""
    if is_label_ref(ref):
        return ref.partition(":")[0]
    try:
        return parse_ref(ref)[0].partition(":")[0]
    except CompareError:
        return ""


# --------------------------------------------------------------------------- panel-likes

@dataclass(frozen=True, eq=False)
class ComparePanel:
    """What a comparison side is: a panel of a figure, or a derived mean of several.

    ``z`` (and optional ``sd``, ``n``) are grids over ``y.labels`` x ``x.labels``; NaN = missing.
    ``n_panels`` (derived only) counts, per cell, the panels that report a value.
    """

    ref: str
    label: str  # menus and headings: 'Figure title — panel title'
    short: str  # sentences and map titles: 'R1-Llama'
    y: Dim
    x: Dim
    z: np.ndarray
    metric: Metric
    decimals: int  # most decimals shown
    provenance: str
    colorscale: tuple | str
    zrange: tuple[float, float] | None
    sources: tuple[str, ...]  # global keys of the panels behind it
    sd: np.ndarray | None = None
    n: np.ndarray | None = None
    n_panels: np.ndarray | None = None
    se: np.ndarray | None = None  # the standard error the source gives (not sd / sqrt(n))
    min_decimals: int | None = None  # derived: trailing zeros are trimmed down to this
    facets: tuple[tuple[str, str], ...] = ()  # (dimension title, label): 'Model', 'R1-Llama'
    illustrative: bool = False
    figure_ids: tuple[str, ...] = ()
    grid: LabelGrid | None = None  # a label of a dimension: how its grid was made
    n_averaged: np.ndarray | None = None  # averaged: the cells behind each one (0: missing)
    of_averaged: int = 0  # averaged: the cells each one could have (the labels averaged over)
    note: str = ""  # a label: what the other dimensions are ('Metric acc; mean over Task')
    averaged_over: str = ""  # averaged: the dimensions' titles ('Task')
    # the per-item records behind the cells (evalmaps.catalog.items.ItemRecords; None: none, as
    # for means), the labels they are fixed at, and the dimensions of the grid's rows, columns
    items: object | None = None
    item_fixed: tuple[tuple[str, str], ...] = ()
    item_by: tuple[str, ...] = ()

    @property
    def derived(self) -> bool:
        return self.provenance == "derived"

    @property
    def is_mean(self) -> bool:
        """A mean of panels (``mean(...)``; the mean menu shows its panels)."""
        return self.n_panels is not None

    @property
    def n_cells(self) -> int:
        return int(np.isfinite(self.z).sum())

    @property
    def base_decimals(self) -> int:
        """The decimals of the data behind it (a derived mean may show more)."""
        return self.decimals if self.min_decimals is None else self.min_decimals

    def format(self, value: float | None) -> str:
        """A value with this side's decimals ('52.5'); derived means trim trailing zeros; a
        fraction written as percent: 0.2534 -> '25.34'."""
        if value is None or not np.isfinite(value):
            return "not reported"
        v, places = fmt.shown(self.metric, value, self.decimals)
        least = None if self.min_decimals is None else max(
            self.min_decimals - (self.decimals - places), 0)
        return fmt.number(v, places, least)

    def as_percent(self) -> "ComparePanel":
        """This side written as percent when it holds fractions (else as it is)."""
        if self.metric.percent or not is_fraction(self.metric, self.z):
            return self
        return replace(self, metric=self.metric.as_percent())


def from_panel(figure: Figure, panel: Panel) -> ComparePanel:
    """A panel as a side of a comparison, with its own metric (the catalog's ``metrics``)."""
    spec = figure.spec
    metric = spec.metric_for(panel.facets)
    return ComparePanel(
        ref=panel.key, label=f"{spec.title} — {panel.title}", short=panel.title,
        y=spec.dims[spec.y], x=spec.dims[spec.x], z=panel.z, sd=panel.sd, n=panel.n, se=panel.se,
        metric=metric, decimals=figure.decimals_for(panel.facets), provenance=spec.provenance,
        colorscale=spec.colorscale, zrange=spec.zrange if metric == spec.metric else None,
        sources=(panel.key,),
        facets=tuple((spec.dims[f].title, label) for f, label in panel.facets.items()),
        illustrative=spec.illustrative, figure_ids=(figure.id,),
        items=figure.items, item_fixed=tuple(panel.facets.items()), item_by=(spec.y, spec.x),
    )


def resolve(catalog: Catalog, ref: str, side: str = "A") -> ComparePanel:
    """The panel-like a reference names. Unknown figures or panels are a :class:`CompareError`."""
    keys = parse_ref(ref)
    sides = []
    for key in keys:
        try:
            panel = catalog.panel(key)
        except (UnknownFigure, UnknownPanel) as exc:
            raise CompareError(f"Panel {side}: {exc}") from None
        sides.append(from_panel(catalog.figure(panel.figure_id), panel))
    if len(sides) == 1:
        return sides[0]
    try:
        return derived_mean(sides)
    except CompareError as exc:
        raise CompareError(f"Panel {side}: {exc}") from None


def _same_dim(a: Dim, b: Dim) -> bool:
    return a.name == b.name or a.title.casefold() == b.title.casefold()


def _same_metric(a: Metric, b: Metric) -> bool:
    if a.higher_is_better != b.higher_is_better:
        return False
    return a.name.casefold() == b.name.casefold() and a.unit == b.unit


def _axes(p: ComparePanel) -> str:
    return f"{p.y.title} × {p.x.title}"


def _labels(labels: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(labels[:limit])
    return shown + (f" and {len(labels) - limit} more" if len(labels) > limit else "")


def _common(a: Sequence[str], b: Sequence[str]) -> tuple[str, ...]:
    keep = set(b)
    return tuple(label for label in a if label in keep)


def _take(grid: np.ndarray | None, dim: Dim, labels: Sequence[str], axis: int) -> np.ndarray | None:
    if grid is None:
        return None
    index = dim.index()
    return np.take(grid, [index[label] for label in labels], axis=axis)


def _on(p: ComparePanel, grid: np.ndarray | None, ys: Sequence[str], xs: Sequence[str]):
    return _take(_take(grid, p.y, ys, 0), p.x, xs, 1)


def _denoise(values: np.ndarray) -> np.ndarray:
    return np.round(values, NOISE_DECIMALS)


def derived_mean(panels: Sequence[ComparePanel]) -> ComparePanel:
    """The cell-wise mean of several panels over their common labels.

    A cell has a mean only where **all** panels report a value; ``n_panels`` counts the panels
    that do (so a hover can say 'reported by 2 of 4 panels'). Provenance ``derived``.
    """
    if len(panels) < 2:
        raise CompareError("A mean needs at least two panels. Pick more panels.")
    first_panel = panels[0]
    for p in panels[1:]:
        if not (_same_dim(p.y, first_panel.y) and _same_dim(p.x, first_panel.x)):
            raise CompareError(f"The panels of a mean must share their axes: '{first_panel.short}' "
                               f"has {_axes(first_panel)} and '{p.short}' has {_axes(p)}.")
        if not _same_metric(p.metric, first_panel.metric):
            raise CompareError(f"The panels of a mean must share one metric: '{first_panel.short}' "
                               f"gives {first_panel.metric.label} and '{p.short}' gives "
                               f"{p.metric.label}.")
        if p.derived:
            raise CompareError("A mean cannot include another mean. List the panels themselves.")
    ys, xs = first_panel.y.labels, first_panel.x.labels
    for p in panels[1:]:
        ys, xs = _common(ys, p.y.labels), _common(xs, p.x.labels)
    if not ys or not xs:
        raise CompareError("The panels of this mean share no cells: their "
                           f"{first_panel.y.title.lower()} or {first_panel.x.title.lower()} "
                           "labels do not overlap. Pick panels with common labels.")
    stack = np.stack([_on(p, p.z, ys, xs) for p in panels])
    count = np.isfinite(stack).sum(axis=0)
    complete = count == len(panels)
    if not complete.any():
        raise CompareError("The panels of this mean have no cell that all of them report. "
                           "Pick panels whose reported cells overlap.")
    z = np.full(count.shape, np.nan)
    z[complete] = _denoise(stack[:, complete].mean(axis=0))
    decimals = max(p.decimals for p in panels)
    lows = [p.zrange[0] for p in panels if p.zrange]
    highs = [p.zrange[1] for p in panels if p.zrange]
    keys = tuple(k for p in panels for k in p.sources)
    return ComparePanel(
        ref=mean_ref(keys),
        label="mean of " + ", ".join(p.short for p in panels) + " (derived)",
        short=f"mean of {len(panels)} panels",
        y=Dim(first_panel.y.name, first_panel.y.title, ys),
        x=Dim(first_panel.x.name, first_panel.x.title, xs),
        z=z, metric=first_panel.metric, decimals=fmt.mean_places(decimals)[0], min_decimals=decimals,
        provenance="derived", colorscale=first_panel.colorscale,
        zrange=(min(lows), max(highs)) if len(lows) == len(panels) else None,
        sources=keys, n_panels=count, illustrative=any(p.illustrative for p in panels),
        figure_ids=tuple(dict.fromkeys(f for p in panels for f in p.figure_ids)),
    )


# --------------------------------------------------------------------------- labels of a dimension

@dataclass(frozen=True)
class LabelGrid:
    """How two labels of one dimension (``dim``) are compared: the grid's rows (``y``; "" for
    one row) and columns (``x``), every other dimension fixed at a label (``fixed``, in the
    figure's order) or averaged over (``averaged``)."""

    dim: str
    y: str
    x: str
    fixed: tuple[tuple[str, str], ...] = ()
    averaged: tuple[str, ...] = ()

    def describe(self, spec) -> str:
        """'Metric acc; mean over Seed' (what the other dimensions are), "" when none."""
        parts = [f"{spec.dims[d].title} {label}" for d, label in self.fixed]
        if self.averaged:
            parts.append("mean over " + ", ".join(spec.dims[d].title for d in self.averaged))
        return "; ".join(parts)


def parse_label_ref(catalog: Catalog, ref: str, side: str = "A") -> tuple[Figure, str, str]:
    """(figure, dimension, label) of ``<figure>:<dimension>=<label>``. A figure, dimension or
    label that does not exist is a :class:`CompareError` that lists what does."""
    if len(ref) > MAX_REF_LENGTH:
        raise CompareError(f"{side}: a reference is {len(ref)} characters long, over the limit "
                           f"of {MAX_REF_LENGTH}.")
    figure_id, _, rest = ref.partition(":")
    try:
        figure = catalog.figure(figure_id)
    except UnknownFigure as exc:
        raise CompareError(f"{side}: {exc}") from None
    spec = figure.spec
    dim = next((name for name in sorted(spec.dims, key=len, reverse=True)
                if rest.startswith(name + "=")), None)
    if dim is None:
        raise CompareError(f"{side}: '{fmt.clip(rest.partition('=')[0])}' is not a dimension of "
                           f"figure '{figure.id}'; its dimensions are "
                           f"{fmt.listing(spec.dims)}.")
    label = rest[len(dim) + 1:]
    if label not in spec.dims[dim].index():
        raise CompareError(f"{side}: '{fmt.clip(label)}' is not a label of "
                           f"{spec.dims[dim].title.lower()} in figure '{figure.id}'. Use one of: "
                           f"{fmt.listing(spec.dims[dim].labels, 12)}.")
    return figure, dim, label


def _label_metrics(spec, dim: str, labels: Sequence[str] | None = None) -> list[Metric]:
    """The metrics of the labels of ``dim`` (one each; the figure's own where the catalog's
    ``metrics`` does not name the label)."""
    return [spec.metric_for({dim: label}) for label in labels or spec.dims[dim].labels]


def _mixes_metrics(spec, dim: str) -> bool:
    """Whether ``dim``'s labels are different metrics (the catalog's ``metrics`` by label)."""
    if spec.metrics is None or spec.metrics.dim != dim:
        return False
    metrics = _label_metrics(spec, dim)
    return not all(_same_metric(m, metrics[0]) for m in metrics[1:])


def averageable(spec, dim: str) -> bool:
    """Whether a dimension can be averaged over: its labels are not different metrics."""
    return not _mixes_metrics(spec, dim)


def _mixes_directions(spec, dim: str) -> bool:
    """Whether ``dim``'s labels are metrics of different directions or units (which no one grid
    can show: colours, means and 'better' would mix them)."""
    if not _mixes_metrics(spec, dim):
        return False
    metrics = _label_metrics(spec, dim)
    return len({(m.higher_is_better, m.unit) for m in metrics}) > 1


def default_axes(spec, dim: str) -> tuple[str, str]:
    """The grid's (y, x) when ``dim``'s labels are compared: the figure's own axes; the
    compared one's place goes to the first facet with more than one label (else to one with
    one label; never to one whose labels are metrics of different directions), and y is ""
    (one row) when no dimension is left for it."""
    def candidates(taken):
        fits = [f for f in spec.facets if f not in taken and f != dim
                and not _mixes_directions(spec, f)]
        return sorted(fits, key=lambda f: len(spec.dims[f].labels) == 1)  # stable: many first

    y = spec.y if spec.y != dim else None
    x = spec.x if spec.x != dim else None
    if x is None:
        found = candidates({y})
        x, y = (found[0], y) if found else (y, None)
    if y is None:
        found = candidates({x})
        y = found[0] if found else ""
    return y, x


def label_grid(spec, dim: str, y: str | None = None, x: str | None = None,
               fixed: dict[str, str] | None = None, averaged: Sequence[str] = (),
               problems: Problems = STRICT) -> LabelGrid:
    """The grid on which two labels of ``dim`` are compared: rows ``y`` ("" for one row) and
    columns ``x`` (None: :func:`default_axes`), each other dimension fixed at its label in
    ``fixed`` (default: its first label) or, if named in ``averaged``, averaged over.

    A choice that does not fit (an unknown dimension or label, the compared dimension on an
    axis, a dimension fixed or averaged that is on an axis, an average over different metrics)
    is a :class:`CompareError` (``problems`` strict, the default); given a
    :class:`~evalmaps.core.problems.Problems` collector, it is noted there instead and the
    default is used."""
    if dim not in spec.dims:
        raise CompareError(f"'{fmt.clip(dim)}' is not a dimension of figure '{spec.id}'.")

    def refuse(message: str, instead: str) -> None:
        """Refuse a choice; with a collector, note it and what is done ``instead``."""
        problems.add(f"{message}; {instead}.", CompareError(message + "."))

    title = {d: spec.dims[d].title for d in spec.dims}
    default_y, default_x = default_axes(spec, dim)

    def unfit(name: str) -> str | None:
        """Why ``name`` cannot be the rows or columns (None: it can)."""
        if name not in spec.dims:
            return f"figure '{spec.id}' has no dimension '{fmt.clip(name)}'"
        if name == dim:
            return f"{title[name]} is the dimension compared"
        if _mixes_directions(spec, name):
            metrics = ", ".join(f"{m.name} ({m.better} is better)"
                                for m in dict.fromkeys(_label_metrics(spec, name)))
            return (f"{title[name]}'s labels are metrics that differ in direction or unit "
                    f"({metrics}): fix it at one label")
        return None

    if x is not None and unfit(x):
        refuse(f"The columns cannot be chosen so: {unfit(x)}", f"using {title[default_x]}")
        x = None
    if y not in (None, "") and unfit(y):
        refuse(f"The rows cannot be chosen so: {unfit(y)}", "using the default")
        y = None
    if x is None:  # the default; where y took it, the default y (swapped)
        x = default_x if y != default_x else default_y or None
        if x is None:
            refuse(f"{title[default_x]} cannot be the rows: no other dimension is left for the "
                   "columns", f"the columns are {title[default_x]}")
            y, x = "", default_x
    if y is None:  # the default; where x took it, the default x (swapped)
        y = default_y if default_y != x else (default_x if default_x != x else "")
    if y == x:
        other = default_y if default_y != x else ""
        refuse(f"The rows and the columns are both {title[x]}",
               f"the rows are {title[other] if other else 'one row'}")
        y = other
    rest = [d for d in spec.dim_names if d not in (dim, y, x)]
    fixed = dict(fixed or {})
    wanted_avg = list(dict.fromkeys(averaged))
    for d in [*fixed, *wanted_avg]:
        if d not in spec.dims:
            refuse(f"Figure '{spec.id}' has no dimension '{fmt.clip(d)}' to fix or average",
                   "ignored")
        elif d not in rest:
            where = ("the dimension compared" if d == dim else "the rows" if d == y
                     else "the columns")
            refuse(f"{title[d]} is {where}: it cannot also be fixed or averaged (pick other "
                   f"{'columns' if d == x else 'rows'} to fix or average it)", "ignored")
    for d in rest:
        if d in fixed and fixed[d] not in spec.dims[d].index():
            refuse(f"'{fmt.clip(fixed[d])}' is not a label of {title[d].lower()}",
                   f"using {spec.dims[d].labels[0]}")
            del fixed[d]
        if d in fixed and d in wanted_avg:
            refuse(f"{title[d]} is both fixed and averaged", "it is averaged")
        if d in wanted_avg and _mixes_metrics(spec, d):
            names = ", ".join(dict.fromkeys(m.name for m in _label_metrics(spec, d)))
            refuse(f"{title[d]} cannot be averaged over: its labels are different metrics "
                   f"({names})", "it is fixed at one label")
            wanted_avg.remove(d)
    return LabelGrid(dim, y, x,
                     tuple((d, fixed.get(d, spec.dims[d].labels[0]))
                           for d in rest if d not in wanted_avg),
                     tuple(d for d in rest if d in wanted_avg))


def _codes(column, labels: Sequence[str]) -> np.ndarray:
    """Each cell's label of a dimension as its position among ``labels`` (-1: none of them)."""
    return np.asarray(pd.Categorical(column, categories=list(labels)).codes, dtype=np.int64)


def _side_metric(spec, grid: LabelGrid, label: str) -> Metric:
    """A side's metric: the catalog's ``metrics`` for the label it fixes (the compared label,
    or a fixed one), else the figure's, in the direction and unit its labels share."""
    if spec.metrics is None:
        return spec.metric
    md = spec.metrics.dim
    if md == grid.dim:
        return spec.metric_for({md: label})
    fixed = dict(grid.fixed)
    if md in fixed:
        return spec.metric_for({md: fixed[md]})
    metrics = _label_metrics(spec, md)
    if all(_same_metric(m, metrics[0]) for m in metrics[1:]):
        return metrics[0]
    return replace(spec.metric, higher_is_better=metrics[0].higher_is_better,
                   unit=metrics[0].unit)


def label_sides(figure: Figure, grid: LabelGrid, a_label: str,
                b_label: str) -> tuple[ComparePanel, ComparePanel]:
    """Labels ``a_label`` and ``b_label`` of ``grid.dim`` as two sides over the grid's y by x,
    from the figure's cells: each other dimension at its fixed label, or averaged over.

    A cell is the figure's value where nothing is averaged (with its ``se``, ``sd`` and ``n``);
    an averaged cell is the mean of the cells the figure gives there (``n_averaged`` counts
    them, of ``of_averaged`` possible), NaN where it gives none, and carries no standard error.
    Rows and columns that neither side reports are left out (an error when that is all)."""
    spec = figure.spec
    dims = spec.dims
    cells = figure.cells
    keep = np.ones(len(cells), dtype=bool)
    for d, label in grid.fixed:
        keep &= cells[d].to_numpy(dtype=object) == label
    chosen = cells[keep]
    ydim = dims[grid.y] if grid.y else Dim(ONE_ROW, "", ("all",))
    xdim = dims[grid.x]
    rows = (_codes(chosen[grid.y], ydim.labels) if grid.y
            else np.zeros(len(chosen), dtype=np.int64))
    cols = _codes(chosen[grid.x], xdim.labels)
    compared = chosen[grid.dim].to_numpy(dtype=object)
    shape = (len(ydim.labels), len(xdim.labels))
    averaged = bool(grid.averaged)
    of = int(np.prod([len(dims[d].labels) for d in grid.averaged])) if averaged else 0
    grids = []
    for label in (a_label, b_label):
        mine = compared == label
        flat = rows[mine] * shape[1] + cols[mine]
        values = chosen["value"].to_numpy(dtype=float)[mine]
        count = np.bincount(flat, minlength=shape[0] * shape[1]).reshape(shape)
        total = np.bincount(flat, weights=values, minlength=shape[0] * shape[1]).reshape(shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)
        extra = {}
        if averaged:
            z = _denoise(z)
        else:  # one cell each: its own value, exactly, and its uncertainty
            z = np.full(shape, np.nan)
            z.flat[flat] = values
            for name in ("se", "sd", "n"):
                if name in chosen.columns:
                    g = np.full(shape, np.nan)
                    g.flat[flat] = chosen[name].to_numpy(dtype=float)[mine]
                    extra[name] = g
        grids.append((z, count, extra))
    present = np.isfinite(grids[0][0]) | np.isfinite(grids[1][0])
    if not present.any():
        what = grid.describe(spec)
        raise CompareError(f"Neither {dims[grid.dim].title.lower()} {a_label} nor {b_label} "
                           "has a value" + (f" with {what}" if what else "") +
                           ". Pick other labels, or fix the other dimensions at other labels.")
    ys = np.nonzero(present.any(axis=1))[0]
    xs = np.nonzero(present.any(axis=0))[0]
    y_kept = Dim(ydim.name, ydim.title, tuple(ydim.labels[i] for i in ys))
    x_kept = Dim(xdim.name, xdim.title, tuple(xdim.labels[j] for j in xs))
    what = grid.describe(spec)
    title = dims[grid.dim].title

    def cut(g):
        return None if g is None else g[np.ix_(ys, xs)]

    sides = []
    for label, (z, count, extra) in zip((a_label, b_label), grids):
        metric = _side_metric(spec, grid, label)
        facets = {**dict(grid.fixed), grid.dim: label}
        decimals = figure.decimals_for(facets)  # its metric's, in a figure of several
        sources = tuple(p.key for p in figure.panels.values()
                        if all(p.facets[f] == facets[f] for f in spec.facets if f in facets))
        short = label if dims[grid.dim].numbers is None else f"{title} {label}"
        sides.append(ComparePanel(
            ref=label_ref(figure.id, grid.dim, label),
            label=f"{spec.title} — {title} {label}" + (f" ({what})" if what else ""),
            short=short, y=y_kept, x=x_kept, z=cut(z), metric=metric,
            decimals=fmt.mean_places(decimals)[0] if averaged else decimals,
            min_decimals=decimals if averaged else None,
            provenance="derived" if averaged else spec.provenance,
            colorscale=spec.colorscale, zrange=spec.zrange if metric == spec.metric else None,
            sources=sources, se=cut(extra.get("se")), sd=cut(extra.get("sd")),
            n=cut(extra.get("n")),
            facets=((title, label), *((dims[d].title, lab) for d, lab in grid.fixed)),
            illustrative=spec.illustrative, figure_ids=(figure.id,), grid=grid,
            n_averaged=cut(count) if averaged else None, of_averaged=of, note=what,
            averaged_over=", ".join(dims[d].title for d in grid.averaged),
            items=None if averaged else figure.items,  # an averaged cell has no items of its own
            item_fixed=(*grid.fixed, (grid.dim, label)),
            item_by=(grid.y, grid.x) if grid.y else (grid.x,)))
    return sides[0], sides[1]


def resolve_pair(catalog: Catalog, a_ref: str, b_ref: str, *, y: str | None = None,
                 x: str | None = None, fixed: dict[str, str] | None = None,
                 averaged: Sequence[str] = ()) -> tuple[ComparePanel, ComparePanel]:
    """A and B from their references: panels or means (:func:`resolve`), or two labels of one
    dimension of one figure (:func:`label_sides` on :func:`label_grid`'s grid: ``y``, ``x``,
    ``fixed``, ``averaged``, which panels do not use)."""
    a_is, b_is = is_label_ref(a_ref), is_label_ref(b_ref)
    if not (a_is or b_is):
        return resolve(catalog, a_ref, "A"), resolve(catalog, b_ref, "B")
    if a_is != b_is:
        raise CompareError("A names " + ("a label of a dimension and B a panel" if a_is else
                                         "a panel and B a label of a dimension") +
                           ". Name both the same way: two labels of one dimension "
                           "('<figure>:<dimension>=<label>'), or two panels.")
    fa, da, la = parse_label_ref(catalog, a_ref, "A")
    fb, db, lb = parse_label_ref(catalog, b_ref, "B")
    if fa.id != fb.id or da != db:
        raise CompareError(f"A and B must be labels of one dimension of one figure: A is a "
                           f"label of {da} in '{fa.id}' and B of {db} in '{fb.id}'.")
    return label_sides(fa, label_grid(fa.spec, da, y, x, fixed, averaged), la, lb)


# --------------------------------------------------------------------------- alignment

@dataclass(frozen=True, eq=False)
class Alignment:
    """A and B on their common labels (A's order); ``delta`` = B - A, NaN where either is missing.

    ``se``: the standard error of the difference where both sides have one, else NaN (None when
    a side has none anywhere). ``indistinct``: cells with ``|delta| < 1.96 se``.
    """

    a: ComparePanel
    b: ComparePanel
    y: Dim  # A's dimension, restricted to the common labels
    x: Dim
    za: np.ndarray
    zb: np.ndarray
    delta: np.ndarray
    se: np.ndarray | None
    indistinct: np.ndarray
    warnings: tuple[str, ...] = field(default=())
    counts: tuple[np.ndarray | None, np.ndarray | None] = (None, None)  # cells averaged, A, B
    # the paired test on common items (:func:`with_paired`): {(i, j): Paired}; None: not asked
    paired: dict | None = None
    k: int = 1  # the pass@k the paired test follows
    cluster: str | None = None  # the items' cluster column the standard errors are clustered by

    @property
    def paired_indistinct(self) -> np.ndarray:
        """Cells the paired test cannot tell apart (adjusted p >= 5%)."""
        out = np.zeros(self.delta.shape, dtype=bool)
        for (i, j), result in (self.paired or {}).items():
            out[i, j] = not result.distinguishable
        return out

    @property
    def outlined(self) -> np.ndarray:
        """The cells outlined as not distinguishable: by the paired test where it was made,
        else by the standard errors."""
        tested = np.zeros(self.delta.shape, dtype=bool)
        for i, j in self.paired or {}:
            tested[i, j] = True
        return np.where(tested, self.paired_indistinct, self.indistinct)

    @property
    def common(self) -> np.ndarray:
        """Cells both sides report."""
        return np.isfinite(self.delta)

    @property
    def n_common(self) -> int:
        return int(self.common.sum())

    @property
    def decimals(self) -> int:
        return max(self.a.decimals, self.b.decimals)

    @property
    def min_decimals(self) -> int:
        return max(self.a.base_decimals, self.b.base_decimals)

    @property
    def higher_is_better(self) -> bool:
        """Which way is better, as A's metric says (B's, when it differs, is warned about)."""
        return self.a.metric.higher_is_better

    @property
    def better(self) -> np.ndarray:
        """Where B is better than A: B - A > 0, or < 0 where lower is better."""
        with np.errstate(invalid="ignore"):
            return self.delta > 0 if self.higher_is_better else self.delta < 0

    @property
    def worse(self) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return self.delta < 0 if self.higher_is_better else self.delta > 0

    def format_delta(self, value: float | None) -> str:
        """'+3.8', '-0.3', '0.0'; 'not comparable' where a side is missing."""
        if value is None or not np.isfinite(value):
            return "not comparable"
        v, places = fmt.shown(self.a.metric, value, self.decimals)
        shift = self.decimals - places
        return fmt.signed(v, places, max(self.min_decimals - shift, 0))

    def cell(self, i: int, j: int) -> dict:
        """One cell as a dict keyed by A's dimension names, with a, b and delta (None = missing);
        ``a_count``/``b_count``: an averaged side's number of cells behind the value."""
        out = {self.y.name: self.y.labels[i], self.x.name: self.x.labels[j],
               "a": _num(self.za[i, j]), "b": _num(self.zb[i, j]), "delta": _num(self.delta[i, j])}
        for name, count in zip(("a_count", "b_count"), self.counts):
            if count is not None:  # an averaged side: how many cells its value is the mean of
                out[name] = int(count[i, j])
        if self.se is not None:
            out["se"] = _num(self.se[i, j])
            out["distinguishable"] = (None if not np.isfinite(self.se[i, j])
                                      else not bool(self.indistinct[i, j]))
        return out

    def cells(self) -> list[dict]:
        """The common cells (both sides report), in display order: rows top to bottom; with
        ``paired`` (:func:`with_paired`: the paired test's numbers, or None) once it was made."""
        out = []
        for i, j in zip(*np.nonzero(self.common)):
            cell = self.cell(i, j)
            if self.paired is not None:
                result = self.paired.get((int(i), int(j)))
                cell["paired"] = None if result is None else result.as_dict()
            out.append(cell)
        return out


def _num(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def has_se(p: ComparePanel) -> bool:
    """Whether a side can have a standard error: a given ``se``, or ``sd`` with ``n``."""
    return p.se is not None or (p.sd is not None and p.n is not None)


def side_se(p: ComparePanel, ys, xs) -> np.ndarray:
    """A side's usable standard error on these labels (NaN: none, or a suspect 0)."""
    grids = [_on(p, g, ys, xs) for g in (p.z, p.se, p.sd, p.n)]
    return uncertainty.usable_se(*grids, p.metric)


def suspect_count(p: ComparePanel, ys, xs) -> int:
    return int(uncertainty.suspect(_on(p, p.z, ys, xs), _on(p, p.se, ys, xs), p.metric).sum())


def _se(a: ComparePanel, b: ComparePanel, ys, xs) -> np.ndarray | None:
    if not (has_se(a) and has_se(b)):
        return None
    return _denoise(np.sqrt(side_se(a, ys, xs) ** 2 + side_se(b, ys, xs) ** 2))


def align(a: ComparePanel, b: ComparePanel) -> Alignment:
    """A and B on their common cells. Refused (:class:`CompareError`) when they share none."""
    if not (_same_dim(a.y, b.y) and _same_dim(a.x, b.x)):
        raise CompareError(f"Panels A and B have different axes: A's are {_axes(a)} and B's are "
                           f"{_axes(b)}. Pick panels over the same axes.")
    ys, xs = _common(a.y.labels, b.y.labels), _common(a.x.labels, b.x.labels)
    if not ys:
        raise CompareError(f"Panels A and B share no cells: A's rows ({a.y.title}) are "
                           f"{_labels(a.y.labels)} and B's are {_labels(b.y.labels)}. "
                           "Pick panels with common labels.")
    if not xs:
        raise CompareError(f"Panels A and B share no cells: A's columns ({a.x.title}) are "
                           f"{_labels(a.x.labels)} and B's are {_labels(b.x.labels)}. "
                           "Pick panels with common labels.")
    za, zb = _on(a, a.z, ys, xs), _on(b, b.z, ys, xs)
    delta = _denoise(zb - za)  # NaN where either is missing
    if not np.isfinite(delta).any():
        raise CompareError(f"Panels A and B share no reported cell: where their labels overlap "
                           f"({len(ys) * len(xs)} cells) one of the two is always missing. "
                           "Pick panels with common cells.")
    se = _se(a, b, ys, xs)
    with np.errstate(invalid="ignore"):
        # equal values are never distinguishable, whatever the standard errors
        indistinct = (np.isfinite(delta) & np.isfinite(se)
                      & ((np.abs(delta) < uncertainty.Z_95 * se) | (delta == 0))
                      if se is not None else np.zeros(delta.shape, dtype=bool))
    warnings = []
    for name, side in (("A", a), ("B", b)):
        count = suspect_count(side, ys, xs) if side.se is not None else 0
        if count:
            warnings.append(uncertainty.suspect_note(side.metric, count, f" of {name}"))
    if not _same_metric(a.metric, b.metric):
        warnings.append(f"A gives {a.metric.label} and B gives {b.metric.label}: the difference "
                        "mixes two metrics, so read it with care.")
    ca, cb = _on(a, a.n_averaged, ys, xs), _on(b, b.n_averaged, ys, xs)
    if ca is not None and cb is not None:
        uneven = int((np.isfinite(delta) & (ca != cb)).sum())
        if uneven:
            warnings.append(f"In {uneven} of the compared cells A and B are means of different "
                            "numbers of cells (the figure lacks some on one side): read those "
                            "with care.")
    made_up = [name for name, side in (("A", a), ("B", b)) if side.illustrative]
    if made_up:
        who = " and ".join(made_up) + (" hold" if len(made_up) == 2 else " holds")
        warnings.append(f"{who} ILLUSTRATIVE values (made up, not results), and so does the "
                        "difference.")
    return Alignment(a, b, Dim(a.y.name, a.y.title, ys), Dim(a.x.name, a.x.title, xs),
                     za, zb, delta, se, indistinct, tuple(warnings), (ca, cb))


def compatible(a: ComparePanel, b: ComparePanel) -> bool:
    """Whether A and B share a cell both report (what :func:`align` needs)."""
    try:
        align(a, b)
    except CompareError:
        return False
    return True


def compare(catalog: Catalog, a_ref: str, b_ref: str, k: int = 1, cluster: str | None = None,
            **grid) -> Alignment:
    """A and B aligned: panels, means, or two labels of a dimension (``grid``: the keywords of
    :func:`resolve_pair`), with the paired test where both have items (:func:`with_paired`),
    its standard errors clustered by the items' column ``cluster`` when given."""
    return with_paired(align(*resolve_pair(catalog, a_ref, b_ref, **grid)), k, cluster)


def _item_cells(side: ComparePanel, cluster: str | None = None) -> dict:
    """A side's items per cell of its grid, keyed by its (row, column) labels (one query)."""
    return side.items.cells(dict(side.item_fixed), side.item_by, cluster)


def cluster_problem(al: Alignment, cluster: str) -> str | None:
    """Why A and B's items cannot be clustered by ``cluster`` (one or two sentences naming the
    fix), None when both sides keep that column."""
    for name, side in (("A", al.a), ("B", al.b)):
        if side.items is None:
            what = ("a mean of panels" if side.is_mean else "averaged over "
                    + side.averaged_over if side.n_averaged is not None else
                    "a figure without per-item records")
            return (f"cluster={fmt.clip(cluster)} clusters the standard errors of per-item "
                    f"records, and {name} ({what}) has none. Leave cluster out, or compare "
                    "sides with per-item records.")
        kept = side.items.clusters
        if cluster not in kept:
            have = (f"its items keep the cluster column{'s' * (len(kept) > 1)} "
                    f"{', '.join(kept)}" if kept else "its items keep no cluster column")
            return (f"{name}'s items have no cluster column '{fmt.clip(cluster)}' ({have}). "
                    f"Import them with --cluster {fmt.clip(cluster)}, or leave cluster out.")
    return None


# The paired grids (:func:`evalmaps.analysis.paired.paired_grid`) made lately, keyed by the
# version of A's and B's per-item records (:func:`evalmaps.catalog.items.records_version`: a
# new file is a new key) and the question (their cells, ``k``, ``cluster``, the metric's
# direction); the 32 most recently used. Compare's page, its JSON and its items panel ask the
# same grid again as a colour mode or a cell changes; a grid's results are frozen dataclasses.
PAIRED_KEPT = Kept(32)


def _paired_key(al: Alignment, keys: list, k: int, cluster: str | None) -> tuple | None:
    """What :data:`PAIRED_KEPT` keeps a grid by; None when a side's records have no file."""
    versions = [records_version(side.items) for side in (al.a, al.b)]
    if None in versions:
        return None
    sides = tuple((repr(sorted(dict(side.item_fixed).items())), repr(side.item_by))
                  for side in (al.a, al.b))
    return (*versions, sides, tuple(keys), k, cluster, al.higher_is_better)


def with_paired(al: Alignment, k: int = 1, cluster: str | None = None) -> Alignment:
    """``al`` with the paired test of every common cell both sides have items for, on the items
    both have (:func:`evalmaps.analysis.paired.paired_grid`: exact McNemar or the sign-flip
    test, none below its smallest n; Benjamini-Hochberg over the cells tested), at
    pass@``k``. A side without items (a mean, an averaged label, a figure without per-item
    records) leaves every cell untested:
    ``paired`` is then {} (and stays None on the alignment only before this is called).
    ``cluster``: the items' column their standard errors are clustered by (both sides must keep
    it: :func:`cluster_problem`, else a :class:`CompareError`)."""
    if not isinstance(k, int) or k < 1:
        raise CompareError(f"k must be a whole number of at least 1, not {fmt.clip(str(k))}.")
    if cluster is not None:
        problem = cluster_problem(al, cluster)
        if problem is not None:
            raise CompareError(problem)
    if al.a.items is None or al.b.items is None:
        return replace(al, paired={}, k=k)
    al = replace(al, cluster=cluster)
    one_row = al.y.name == ONE_ROW
    at = {}
    for i, j in zip(*np.nonzero(al.common)):
        key = (al.x.labels[j],) if one_row else (al.y.labels[i], al.x.labels[j])
        at[key] = (int(i), int(j))
    kept_as = _paired_key(al, list(at), k, cluster)
    results = PAIRED_KEPT.get(kept_as) if kept_as is not None else None
    if results is None:
        a_cells, b_cells = _item_cells(al.a, cluster), _item_cells(al.b, cluster)
        try:
            results = paired_stats.paired_grid(a_cells, b_cells, list(at), k,
                                               al.higher_is_better)
        except ValueError as exc:  # pass@k of scores that are not 0/1, or k above the samples
            raise CompareError(f"The paired test cannot be made at k = {k}: {exc}. "
                               "Pick a smaller k.") from None
        if kept_as is not None:
            PAIRED_KEPT.put(kept_as, dict(results))
    paired = {at[key]: result for key, result in results.items()}
    # where A and B answered different items, the map's B - A is the paired one on the items
    # both answered (each side's own mean stays on its map), and a warning names the cells
    uneven = [(i, j) for (i, j), r in paired.items() if r.only_in_a or r.only_in_b]
    if not uneven:
        return replace(al, paired=paired, k=k)
    delta = al.delta.copy()
    for i, j in uneven:
        delta[i, j] = paired[i, j].diff
    where = [where_of(al, al.cell(i, j)) for i, j in uneven]
    shown = ", ".join(where[:6]) + (f" and {len(where) - 6} more" if len(where) > 6 else "")
    cells = "cell" if len(uneven) == 1 else "cells"
    note = (f"A and B answered different items in {len(uneven)} {cells} ({shown}): there "
            f"B {fmt.MINUS} A is the paired difference on the items both answered, not the difference of the "
            "two maps' values; the items only one side has are counted in the hover.")
    return replace(al, paired=paired, k=k, delta=delta, warnings=(*al.warnings, note))


# --------------------------------------------------------------------------- summary

def _round(value: float) -> float:
    return float(round(value, NOISE_DECIMALS))


def summary(al: Alignment) -> dict:
    """The numbers of a comparison, over the common cells only (JSON-ready, None = none).

    ``mean_a``, ``mean_b``, ``mean_delta``; ``b_higher``/``b_lower``/``equal`` cell counts;
    ``higher_is_better`` (A's metric) and ``b_better``/``b_worse``: the cells where B is better
    or worse (higher or lower; the other way round where lower is better);
    ``largest_gain``/``largest_loss``: the cell where B is most better/worse than A (first in
    display order on ties; None when B is never better/worse); ``best_a``/``best_b``: each
    side's best common cell (highest; lowest where lower is better); ``n_with_se``/
    ``n_indistinct``: cells with a standard error (of the difference) and those within 1.96 of
    it; ``b_sig_higher``/``b_sig_lower`` and ``b_sig_better``/``b_sig_worse``: cells with a
    standard error where B is higher/lower (better/worse) by more than 1.96 of it;
    ``no_significance``: why no cell can be judged ("neither side gives a standard error");
    None when some cell has a standard error or a paired test on its items.
    """
    common = al.common
    d = al.delta[common]
    up = al.higher_is_better
    out = {
        "n_common": al.n_common,
        "n_grid": int(al.delta.size),
        "n_a": al.a.n_cells,
        "n_b": al.b.n_cells,
        "mean_a": _round(al.za[common].mean()),
        "mean_b": _round(al.zb[common].mean()),
        "mean_delta": _round(d.mean()),
        "higher_is_better": up,
        "b_higher": int((d > 0).sum()),
        "b_lower": int((d < 0).sum()),
        "equal": int((d == 0).sum()),
        "b_better": int((d > 0).sum() if up else (d < 0).sum()),
        "b_worse": int((d < 0).sum() if up else (d > 0).sum()),
        "largest_gain": None,
        "largest_loss": None,
        "best_a": _best(al, al.za),
        "best_b": _best(al, al.zb),
        "n_with_se": 0 if al.se is None else int((common & np.isfinite(al.se)).sum()),
        "n_indistinct": int((al.indistinct & common).sum()),
        "b_sig_higher": 0,
        "b_sig_lower": 0,
        "b_sig_better": 0,
        "b_sig_worse": 0,
        "no_significance": None,
    }
    out.update(paired_summary(al))
    if not out["n_with_se"] and not out["paired_cells"]:  # paired cells are judged on items
        out["no_significance"] = no_significance(al)
    out.update(item_means(al))
    if al.se is not None:
        distinct = common & np.isfinite(al.se) & ~al.indistinct
        out["b_sig_higher"] = int((distinct & (al.delta > 0)).sum())
        out["b_sig_lower"] = int((distinct & (al.delta < 0)).sum())
        out["b_sig_better"] = out["b_sig_higher"] if up else out["b_sig_lower"]
        out["b_sig_worse"] = out["b_sig_lower"] if up else out["b_sig_higher"]
    gains = np.where(common, al.delta if up else -al.delta, np.nan)
    if out["b_better"]:
        out["largest_gain"] = al.cell(*np.unravel_index(np.nanargmax(gains), gains.shape))
    if out["b_worse"]:
        out["largest_loss"] = al.cell(*np.unravel_index(np.nanargmin(gains), gains.shape))
    return out


TEST_NAMES = {"mcnemar": "exact McNemar test",
              "sign-flip": "exact sign-flip permutation test",
              "sign-flip-normal": "sign-flip permutation test (normal approximation)",
              "none": "no test",
              "clustered": "Wald test on the clustered standard error"}


def paired_summary(al: Alignment) -> dict:
    """The paired test's counts: ``paired_cells`` (cells tested on common items),
    ``b_sig_better_paired``/``b_sig_worse_paired`` (B better/worse there with a
    Benjamini-Hochberg adjusted p below 5%: a false discovery rate of 5% over the map), and
    ``paired_tests`` (the tests used, of :data:`evalmaps.analysis.paired.TESTS`),
    ``paired_untested``: cells with common items but fewer than
    :data:`~evalmaps.analysis.paired.MIN_ITEMS` (no test can reach 5% there), ``k``."""
    results = al.paired or {}
    up = al.higher_is_better
    sig = [r for r in results.values() if r.distinguishable]
    better = sum(1 for r in sig if (r.diff > 0 if up else r.diff < 0))
    worse = sum(1 for r in sig if (r.diff < 0 if up else r.diff > 0))
    return {"paired_cells": len(results), "b_sig_better_paired": better,
            "b_sig_worse_paired": worse,
            "paired_tests": sorted({r.test for r in results.values() if r.tested}),
            "paired_untested": sum(1 for r in results.values() if not r.tested), "k": al.k}


def item_means(al: Alignment) -> dict:
    """Where every common cell was paired on its items: the means over those items rather than
    over cells (a 3-item cell weighs as much as its 3 items, not as a 185-item one):
    ``items_mean_a``, ``items_mean_b``, ``items_mean_delta`` (each cell's paired means weighted
    by its common items) and ``items_n``; all None otherwise."""
    results = al.paired or {}
    out = {"items_mean_a": None, "items_mean_b": None, "items_mean_delta": None, "items_n": None}
    if not results or len(results) < al.n_common:
        return out
    n = np.array([r.n for r in results.values()], dtype=np.float64)
    total = float(n.sum())
    a = float(np.dot(n, [r.a_mean for r in results.values()])) / total
    b = float(np.dot(n, [r.b_mean for r in results.values()])) / total
    return {"items_mean_a": _round(a), "items_mean_b": _round(b), "items_mean_delta": _round(b - a),
            "items_n": int(total)}


def paired_sentence(al: Alignment, s: dict) -> str:
    """'Paired on the items both answered (exact McNemar test, 30 items a cell): R1-Qwen is
    better than R1-Llama in 2 of 20 cells and worse in 0 (paired, FDR 5%); 18 are not
    distinguishable.'"""
    name_a, name_b = names(al)
    m, n = s["paired_cells"], s["n_common"]
    sizes = sorted({r.n for r in al.paired.values()})
    items = (f"{sizes[0]} items a cell" if len(sizes) == 1
             else f"{sizes[0]} to {sizes[-1]} items a cell")
    tests = " and ".join(TEST_NAMES[t] + (f" (clustered by {al.cluster}; Student's t with "
                                          f"clusters {fmt.MINUS} 1 df)" if t == "clustered"
                                          else "") for t in s["paired_tests"]) or "no test"
    at_k = f", pass@{al.k}" if al.k > 1 else ""
    untested = (f"; {n - m} of the {n} cells have no items in common and are not tested"
                if m < n else "")
    few = s.get("paired_untested", 0)
    if few:
        cells = "cell has" if few == 1 else "cells have"
        untested += (f"; {few} {cells} fewer than {paired_stats.MIN_ITEMS} items in common, "
                     "too few for any paired test to reach p < 0.05, and "
                     f"{'is' if few == 1 else 'are'} not tested")
    tested = m - few
    unclear = tested - s["b_sig_better_paired"] - s["b_sig_worse_paired"]
    return (f"Paired on the items both answered ({tests}, {items}{at_k}): {name_b} is better "
            f"than {name_a} in {s['b_sig_better_paired']} of {tested} cells and worse in "
            f"{s['b_sig_worse_paired']} (paired, FDR 5%); {unclear} "
            f"{'is' if unclear == 1 else 'are'} not distinguishable{untested}.")


PAIRED_NAMES = ("exact McNemar", "exact sign-flip", "sign-flip, normal approx.", "no test",
                "Wald on the clustered SE")
"""The paired tests' short names, in the order of :data:`evalmaps.analysis.paired.TESTS`."""


def paired_places(al: Alignment) -> int:
    """The decimals a paired difference and its interval are written with, in shown units
    (percentage points of a fraction shown as percent): the difference's, at most 1 for
    percent and 3 otherwise (a statistic, not a data value)."""
    shown = fmt.shown(al.a.metric, 0.0, al.decimals)[1]
    percent = al.a.metric.percent or al.a.metric.unit == "%"
    return min(fmt.places(shown), 1 if percent else 3)


def paired_unit(al: Alignment) -> str:
    """What a paired difference is counted in, after a space, as every difference is
    (:func:`evalmaps.core.text.difference_unit`): ' points' (percentage points) where values
    are written as percent or are a score out of 100, the metric's unit (' ms'), or nothing for
    a plain number such as a fraction not shown as percent (-0.021, not '-0.021 points')."""
    metric = al.a.metric
    unit = "points" if metric.percent else fmt.difference_unit(metric)
    return f" {unit}" if unit else ""


def paired_text(al: Alignment, result) -> str:
    """'paired, 30 items: +3.3 points [-6.7, +13.3], p = 0.55': as the hover and the readout
    write a cell's paired test (:class:`evalmaps.analysis.paired.Paired`)."""
    places, unit = paired_places(al), paired_unit(al)
    scale = al.a.metric.scale if al.a.metric.percent else 1

    def signed(v):
        return fmt.signed(v * scale, places)

    if not result.tested:
        return (f"paired, {result.n} items: {signed(result.diff)}{unit}, too few items for a "
                f"test (it needs {paired_stats.MIN_ITEMS})")
    return (f"paired, {result.n} items: {signed(result.diff)}{unit} "
            f"[{signed(result.ci_low)}, {signed(result.ci_high)}], p = {result.p:.2g}")


def detect_floor(al: Alignment) -> tuple[float, str] | None:
    """The difference a benchmark should be able to detect, in the values' own units, with its
    words: 1 point of a percent or a score out of 100 (0.01 of a fraction written as percent),
    0.01 of a fraction on 0-1; None for other metrics (no scale to say it on)."""
    metric = al.a.metric
    if metric.percent:
        return 1 / metric.scale, "a difference of 1 point"
    if metric.unit == "%" or metric.range == (0.0, 100.0):
        return 1.0, "a difference of 1 point"
    if metric.range == (0.0, 1.0):
        return 0.01, "a difference of 0.01"
    return None


def power_kind(al: Alignment, result) -> tuple[bool, bool, bool, int] | None:
    """How a cell's power is said (:func:`power_lines`): (its SE clustered, its items too few
    to detect :func:`detect_floor`'s difference, its difference 0, its clusters where they are
    few (below :data:`evalmaps.analysis.power.FEW_CLUSTERS`: the words name t's df), else 0);
    None where it has no mde (fewer than 2 items)."""
    if result.mde is None:
        return None
    floor = detect_floor(al)
    blind = floor is not None and result.mde > floor[0] + 1e-12
    clustered = result.se_diff_clustered is not None
    few = result.n_clusters if clustered and power.few_clusters(result.n_clusters) else 0
    return clustered, blind, result.items_needed is None, few


def power_lines(al: Alignment, kind: tuple[bool, bool, bool]) -> list[str]:
    """The lines of a cell's error bar and power, with fields ``{diff}``, ``{se}``, ``{g}``,
    ``{n}``, ``{mde}``, ``{needed}`` (Compare's hover puts each on a line of its own; joined by
    spaces they are :func:`power_text`'s sentence; short, for a phone's map): 'B − A = +4.1 ±
    1.9 points', '(SE, clustered by src, 48 clusters);', 'the smallest difference these 717
    items', 'detect is 5.3 points;', 'this one needs 1,210 items'."""
    clustered, blind, zero, few = kind
    unit = paired_unit(al)
    cluster = (al.cluster or "").replace("{", "{{").replace("}", "}}")
    which = (f"(SE, clustered by {cluster}, {power.few_clusters(few)});" if clustered and few
             else f"(SE, clustered by {cluster}, {{g}} clusters);" if clustered else
             "(SE, not clustered: one cluster, no clustered test);" if al.cluster
             else "(SE, not clustered);")
    lines = [f"B {fmt.MINUS} A = {{diff}} ± {{se}}{unit}", which,
             "the smallest difference these {n} items", f"detect is {{mde}}{unit}"
             + ("," if blind else ";")]
    if blind:
        lines.append(f"too few to detect {detect_floor(al)[1]};")
    lines.append("B and A do not differ on these items" if zero
                 else "this one needs {needed} items")
    return lines


def power_text(al: Alignment, result) -> str | None:
    """'B − A = +4.1 ± 1.9 points (SE, clustered by src, 48 clusters); the smallest difference
    these 717 items detect is 5.3 points; this one needs 1,210 items': a cell's paired
    difference with its standard error (the clustered one where the map is clustered), the
    smallest difference its items detect with 80% power at the 5% level (mde) and the items the
    observed difference would need; where that mde is over 1 point (0.01 of a fraction) it says
    the items are too few to detect that. None below 2 items."""
    kind = power_kind(al, result)
    if kind is None:
        return None
    places = paired_places(al)
    scale = al.a.metric.scale if al.a.metric.percent else 1
    se = result.se_diff_clustered if kind[0] else result.se_diff
    values = {"diff": fmt.signed(result.diff * scale, places),
              "se": fmt.number(se * scale, places), "mde": fmt.number(result.mde * scale, places),
              "g": f"{result.n_clusters:,}" if kind[0] else "", "n": f"{result.n:,}",
              "needed": "" if result.items_needed is None else f"{result.items_needed:,}"}
    return " ".join(power_lines(al, kind)).format(**values)


def _best(al: Alignment, grid: np.ndarray) -> dict:
    """A side's best common cell: the highest, or the lowest where lower is better."""
    masked = np.where(al.common, grid if al.higher_is_better else -grid, np.nan)
    i, j = np.unravel_index(np.nanargmax(masked), masked.shape)
    return {al.y.name: al.y.labels[i], al.x.name: al.x.labels[j], "value": float(grid[i, j])}


def points(metric: Metric) -> str:
    """What a difference is counted in, after a space: ' percentage points' (percent),
    ' points' (a score out of 100 with no unit: Pass@1), ' ms' (the unit), or nothing for a plain
    number such as a fraction not shown as percent (0.0444, not '0.0444 points')."""
    if metric.unit == "%":
        return " percentage points"
    unit = fmt.difference_unit(metric)
    return f" {unit}" if unit else ""


def names(al: Alignment) -> tuple[str, str]:
    """How sentences call A and B: their short labels, or 'A'/'B' when those read alike."""
    if al.a.short == al.b.short:
        return "A", "B"
    return tuple(("the " if side.is_mean else "") + side.short for side in (al.a, al.b))


def no_significance(al: Alignment) -> str:
    """Why no compared cell has a standard error of the difference: 'neither side gives a
    standard error', 'A is a mean, which carries no standard error', ..."""
    def lacks(p: ComparePanel) -> bool:
        return not has_se(p) or not np.isfinite(side_se(p, al.y.labels, al.x.labels)[
            al.common]).any()

    def why(name: str, p: ComparePanel) -> str:
        if p.derived:
            return f"{name} is a mean, which carries no standard error"
        return (f"{name} gives no usable standard error on these cells" if has_se(p)
                else f"{name} gives no standard error")

    a, b = lacks(al.a), lacks(al.b)
    if a and b:
        if al.a.derived and al.b.derived:
            return "both sides are means, which carry no standard error"
        if not (al.a.derived or al.b.derived):
            return "neither side gives a standard error"
        return f"{why('A', al.a)}, and {why('B', al.b)}"
    if a or b:
        return why("A", al.a) if a else why("B", al.b)
    return "no compared cell has a usable standard error on both sides"


def where_of(al: Alignment, cell: dict) -> str:
    """'Local Window Size 2000 · Ratio 0.4' ('Training step 1000' on a grid of one row)."""
    column = f"{al.x.title} {cell[al.x.name]}"
    return column if al.y.name == ONE_ROW else f"{al.y.title} {cell[al.y.name]} · {column}"


def sentences(al: Alignment, numbers: dict | None = None) -> list[str]:
    """Two or three sentences: 'B is higher in k of n cells, by d points on average.', then the
    largest gain and loss, then where B is significantly higher or lower (with standard errors)
    or why significance cannot be judged ('neither side gives a standard error').
    Where lower is better (perplexity) they say better and worse: 'B is better (lower) than A
    in k of n cells, ...'."""
    s = numbers or summary(al)
    name_a, name_b = names(al)
    n = s["n_common"]
    unit = points(al.a.metric)
    cells = "cell" if n == 1 else "cells"
    ties = f" ({s['equal']} equal)" if s["equal"] else ""
    by_items = s.get("items_mean_delta") is not None and n > 1
    mean = s["items_mean_delta"] if by_items else s["mean_delta"]
    over = (f" over the {s['items_n']:,} items both answered" if by_items else
            " over cells" if n > 1 else "")
    size = fmt.mean_number(*fmt.shown(al.a.metric, abs(mean), al.min_decimals))
    if al.higher_is_better:
        k, head = s["b_higher"], f"{name_b} is higher than {name_a}"
        on_average = (f"by {size}{unit} on average{over}" if mean > 0 else
                      f"and lower by {size}{unit} on average{over}" if mean < 0 else
                      f"and the same on average{over}")
    else:
        k, head = s["b_better"], f"{name_b} is better (lower) than {name_a}"
        on_average = (f"and lower by {size}{unit} on average{over} (better)" if mean < 0 else
                      f"and higher by {size}{unit} on average{over} (worse)" if mean > 0 else
                      f"and the same on average{over}")
    if by_items and s["mean_delta"] != mean:
        cell_mean = fmt.mean_number(*fmt.shown(al.a.metric, s["mean_delta"], al.min_decimals))
        on_average += f" (the mean over cells is {cell_mean}{unit})"
    first_sentence = f"{head} in {k} of {n} {cells}{ties}, {on_average}."
    parts = []
    gain, loss = s["largest_gain"], s["largest_loss"]
    tag = "" if al.higher_is_better else " (lower is better)"
    if gain:
        parts.append(f"the largest gain{tag} is {al.format_delta(gain['delta'])} "
                     f"at {where_of(al, gain)}")
    if loss:
        word = "only loss" if s["b_worse"] == 1 else "largest loss"
        parts.append(f"the {word} is {al.format_delta(loss['delta'])} at {where_of(al, loss)}")
    elif gain:
        parts.append(f"{name_b} is never {'lower' if al.higher_is_better else 'worse'}")
    out = [first_sentence]
    if parts:
        second = "; ".join(parts)
        out.append(second[0].upper() + second[1:] + ".")
    if s.get("paired_cells"):
        out.append(paired_sentence(al, s))
        if s["n_with_se"] and s["paired_cells"] < n:
            out.append(significance_sentence(al, s))
    elif s["n_with_se"]:
        out.append(significance_sentence(al, s))
    else:
        out.append(f"Significance cannot be judged from this data: "
                   f"{s['no_significance'] or no_significance(al)}.")
    return out


def significance_sentence(al: Alignment, s: dict) -> str:
    """'With standard errors in 20 of the 20 cells: R1-Qwen is significantly higher in 12
    and significantly lower in 1 (|B − A| ≥ 1.96 SE); 7 are not distinguishable.' Where lower
    is better: 'significantly better (lower) in ... and significantly worse (higher) in ...'."""
    name_a, name_b = names(al)
    m, n = s["n_with_se"], s["n_common"]
    cells = "cell" if n == 1 else "cells"
    if al.higher_is_better:
        counts = (f"significantly higher than {name_a} in {s['b_sig_higher']} and "
                  f"significantly lower in {s['b_sig_lower']}")
    else:
        counts = (f"significantly better (lower) than {name_a} in {s['b_sig_better']} and "
                  f"significantly worse (higher) in {s['b_sig_worse']}")
    return (f"With standard errors in {m} of the {n} {cells}: {name_b} is {counts} "
            f"(|B − A| ≥ 1.96 SE); {s['n_indistinct']} "
            f"{'is' if s['n_indistinct'] == 1 else 'are'} not distinguishable.")


# --------------------------------------------------------------------------- defaults

def default_pair(catalog: Catalog, figure_id: str | None = None) -> tuple[str, str]:
    """The pair a view opens with: the catalog's own (``"compare"`` in catalog.json: R1-Llama
    vs R1-Qwen), else the first figure's first two panels; for a figure, its first two panels."""
    if figure_id is None:
        try:
            a, b = catalog.compare_pair or ("", "")
            catalog.panel(a), catalog.panel(b)
            return a, b
        except (UnknownFigure, UnknownPanel):
            figure_id = next((f.id for f in catalog if len(f.panels) >= 2), catalog.ids[0])
    panels = list(catalog.figure(figure_id).panels.values())
    if len(panels) >= 2:
        return panels[0].key, panels[1].key
    only = from_panel(catalog.figure(figure_id), panels[0])
    for fig in catalog:
        for panel in fig.panels.values():
            if fig.id != figure_id and compatible(only, from_panel(fig, panel)):
                return only.ref, panel.key
    return only.ref, only.ref


def first_panel(catalog: Catalog, figure_id: str, against: ComparePanel | None = None) -> str:
    """A side's panel when its figure is picked: the figure's first panel that shares cells
    with ``against`` (the other side), else its first panel."""
    figure = catalog.figure(figure_id)
    panels = list(figure.panels.values())
    if against is not None:
        for panel in panels:
            if compatible(against, from_panel(figure, panel)):
                return panel.key
    return panels[0].key


def color_range(al: Alignment, mode: str) -> tuple[float, float]:
    """One (zmin, zmax) for A and B: shared = the cells they show, figure = their figures' own
    ranges (joined), fixed = A's metric's range (0-100, 0-1; shared when it has none)."""
    if mode == "fixed" and fixed_range(al.a.metric) is not None:
        return fixed_range(al.a.metric)
    if mode == "figure" and al.a.zrange and al.b.zrange:
        return (min(al.a.zrange[0], al.b.zrange[0]), max(al.a.zrange[1], al.b.zrange[1]))
    values = np.concatenate([al.za[np.isfinite(al.za)], al.zb[np.isfinite(al.zb)]])
    lo, hi = float(values.min()), float(values.max())
    return (lo, hi) if lo < hi else (lo - 0.5, hi + 0.5)


def delta_range(al: Alignment) -> tuple[float, float]:
    """Symmetric about 0: (-m, m) with m the largest |B - A|."""
    finite = np.abs(al.delta[np.isfinite(al.delta)])
    m = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    return -m, m
