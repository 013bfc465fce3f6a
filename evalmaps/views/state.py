"""View state <-> query string: the one home of every page's URL state.

Every control's state lives in the URL, so a copied URL reopens the same view and back and
forward step through views. Defaults are left out of the query, so URLs stay short. What a query
names that does not exist is dropped with a note (``problems``), never an error: an old or
hand-edited URL still opens a view.

- :class:`ViewState`: the slice of a figure (Browse, Trends, Data): figure, facets, rows, x range,
  colour range, values in cells;
- :class:`TrendsOptions`: Trends' own keys (transpose, overlay, threshold, logx);
- :class:`CompareState`: the compare view (A, B, the grid of two labels of a dimension,
  colour range, values in cells);
- :func:`nav_href`: where a nav link goes from a page's query (its slice carried over).

:data:`evalmaps.core.names.QUERY_KEYS` lists every key any page or API route reads; dimension
names may not take them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from urllib.parse import parse_qsl, quote_plus, urlencode

from evalmaps.analysis.compare import (
    CompareError,
    LabelGrid,
    default_pair,
    figure_of,
    is_derived,
    is_label_ref,
    label_grid,
    label_ref,
    parse_label_ref,
    parse_ref,
    resolve,
)
from evalmaps.analysis.rank import default_by
from evalmaps.analysis.slicing import COLOR_MODES, ZSCALES
from evalmaps.catalog.items import max_k
from evalmaps.core import text as fmt
from evalmaps.core.figure import Catalog, Figure
from evalmaps.core.problems import STRICT, Problems

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off", "")
DEFAULT_COMPARE_COLOR = "shared"  # A and B on the min..max of the cells they show
# Compare draws A and B on one range: Browse's "panel" (each map its own) is not one of its modes
COMPARE_COLOR_MODES = tuple(mode for mode in COLOR_MODES if mode != "panel")
SORT_SOURCE = "source"
SCALES = ("uniform", "paper")  # the heatmaps' colour scale: viridis, or the source's own
DEFAULT_SCALE = "uniform"

Query = Mapping[str, "str | list[str]"]

# A figure with more panels than this opens on its first panel (first label of every facet):
# a published table can have fifty; nobody reads fifty heatmaps at once.
MAX_DEFAULT_PANELS = 8


def many_panels(figure: Figure) -> bool:
    return len(figure.panels) > MAX_DEFAULT_PANELS


def as_list(value: str | list[str] | tuple[str, ...] | None) -> list[str] | None:
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def first(value: str | list[str] | None) -> str | None:
    values = as_list(value)
    return values[0] if values else None


def finite_number(text: str | float | int | None) -> float | None:
    """A finite number, or None (empty, not a number, infinite, a bool)."""
    if text is None or isinstance(text, bool) or text == "":
        return None
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _show_values(query: Query) -> bool:
    return (first(query.get("labels")) or "on") != "off"


def _color(query: Query, default: str, fallback: str, problems: list[str],
           modes: tuple[str, ...] = COLOR_MODES) -> str:
    color = first(query.get("color")) or default
    if color not in modes:
        problems.append(f"Colour mode '{fmt.clip(color)}' is not one of this page's "
                        f"({', '.join(modes)}); using {fallback}.")
        color = default
    return color


def _scale(query: Query, problems: list[str]) -> str:
    scale = first(query.get("scale")) or DEFAULT_SCALE
    if scale not in SCALES:
        problems.append(f"Colour scale '{fmt.clip(scale)}' is unknown (uniform or paper); "
                        f"using the uniform scale.")
        scale = DEFAULT_SCALE
    return scale


def _pairs(show_values: bool, color: str, default_color: str,
           scale: str = DEFAULT_SCALE) -> list[tuple[str, str]]:
    pairs = [] if color == default_color else [("color", color)]
    pairs += [] if show_values else [("labels", "off")]
    return pairs + ([] if scale == DEFAULT_SCALE else [("scale", scale)])


@dataclass(frozen=True)
class ViewState:
    figure: str
    facets: dict[str, tuple[str, ...]] = field(default_factory=dict)  # only narrowed; () = none
    rows: tuple[str, ...] | None = None  # None = all rows
    x_range: tuple[float, float] | None = None  # None = the whole x axis
    color: str = "figure"
    show_values: bool = True
    sort: str = SORT_SOURCE  # row order: source, name, mean, or "col:<x label>"
    top: int | None = None  # only the best rows (highest mean; lowest where lower is better)
    problems: tuple[str, ...] = ()  # what was dropped from the query, to tell the user
    scale: str = DEFAULT_SCALE  # the heatmaps' colour scale: uniform or paper
    pct: bool = False  # fractions written as percent
    zscale: str = "linear"  # colours by value, or by log10 of it ("log")
    k: int = 1  # pass@k where the figure's items have several samples (1: the mean over them)
    cluster: str | None = None  # the items' column the standard errors are clustered by
    ticks: str = "auto"  # axis labels: auto (thinned where they do not fit) or all (issue 37)

    def facet_selection(self, figure: Figure) -> dict[str, list[str]]:
        spec = figure.spec
        return {f: list(self.facets.get(f, spec.dims[f].labels)) for f in spec.facets}

    def to_query(self, extra: Mapping[str, str | list[str]] | None = None, *,
                 y_labels: tuple[str, ...] | None = None) -> str:
        """The query of this state (defaults left out). With the figure's ``y_labels``, a
        selection of most rows is written as the rows hidden (``hide=``)."""
        pairs: list[tuple[str, str]] = [("figure", self.figure)]
        for dim, labels in self.facets.items():
            pairs += [(dim, label) for label in labels] if labels else [(dim, "")]
        if self.rows is not None:
            kept = set(self.rows)
            if y_labels is not None and len(self.rows) > len(y_labels) / 2:
                # most rows shown: name the hidden ones (URLs stay short at thousands of rows)
                pairs += [("hide", r) for r in y_labels if r not in kept]
            else:
                pairs += [("rows", r) for r in self.rows] if self.rows else [("rows", "")]
        if self.x_range is not None:
            pairs += [("xmin", f"{self.x_range[0]:g}"), ("xmax", f"{self.x_range[1]:g}")]
        if self.sort != SORT_SOURCE:
            pairs.append(("sort", self.sort))
        if self.top is not None:
            pairs.append(("top", str(self.top)))
        pairs += _pairs(self.show_values, self.color, "figure", self.scale)
        if self.pct:
            pairs.append(("pct", "1"))
        if self.zscale != "linear":
            pairs.append(("zscale", self.zscale))
        if self.k != 1:
            pairs.append(("k", str(self.k)))
        if self.cluster:
            pairs.append(("cluster", self.cluster))
        if self.ticks != "auto":
            pairs.append(("ticks", self.ticks))
        for key, value in (extra or {}).items():
            pairs += [(key, v) for v in as_list(value) or []]
        return "?" + urlencode(pairs)


def parse_state(query: Mapping[str, str | list[str]], catalog: Catalog,
                default_figure: str | None = None) -> ViewState:
    """Read a view state from query parameters, keeping only what fits the figure.

    Unknown figures, labels and values are dropped (and listed in ``problems``), never an error:
    an old or hand-edited URL still opens a view.
    """
    problems: list[str] = []
    fid = first(query.get("figure")) or default_figure or catalog.ids[0]
    if fid not in catalog:
        problems.append(f"There is no figure '{fid}'; showing '{catalog.ids[0]}' instead.")
        fid = catalog.ids[0]
    figure = catalog.figure(fid)
    spec = figure.spec

    facets: dict[str, tuple[str, ...]] = {}
    big = many_panels(figure)
    if big and not any(dim in query for dim in spec.facets):
        facets = _first_panel(figure)
    for dim in spec.facets:
        wanted = as_list(query.get(dim))
        if wanted is None:
            continue
        wanted_set = set(wanted)
        known = [label for label in spec.dims[dim].labels if label in wanted_set]
        unknown = [w for w in wanted if w not in spec.dims[dim].index() and w != ""]
        if unknown:
            problems.append(f"Unknown {spec.dims[dim].title.lower()} {', '.join(unknown)} ignored.")
        if known and (big or len(known) < len(spec.dims[dim].labels)):
            facets[dim] = tuple(known)
        elif not known and not unknown:  # an explicit empty selection ("model=")
            facets[dim] = ()

    rows = None
    wanted_rows = as_list(query.get("rows"))
    hidden = as_list(query.get("hide"))
    if wanted_rows is None and hidden is not None:
        unknown = [w for w in hidden if w not in spec.dims[spec.y].index() and w != ""]
        if unknown:
            problems.append(f"Unknown {spec.dims[spec.y].title.lower()} row(s) "
                            f"{', '.join(unknown)} ignored.")
        hidden_set = set(hidden)
        wanted_rows = [label for label in spec.dims[spec.y].labels if label not in hidden_set]
    if wanted_rows is not None:
        ylabels = spec.dims[spec.y].labels
        unknown = [w for w in wanted_rows if w not in spec.dims[spec.y].index() and w != ""]
        if unknown:
            problems.append(f"Unknown {spec.dims[spec.y].title.lower()} row(s) "
                            f"{', '.join(unknown)} ignored.")
        wanted_set = set(wanted_rows)
        rows = tuple(label for label in ylabels if label in wanted_set)
        if len(rows) == len(ylabels):
            rows = None

    x_range = None
    xdim = spec.dims[spec.x]
    bounds = {}
    for key in ("xmin", "xmax"):
        text = first(query.get(key))
        bounds[key] = finite_number(text)
        if text not in (None, "") and bounds[key] is None:
            problems.append(f"{key}={text} is not a number; ignored.")
    lo, hi = bounds["xmin"], bounds["xmax"]
    if xdim.numeric and (lo is not None or hi is not None):
        full = (min(xdim.numbers), max(xdim.numbers))
        if lo is not None and hi is not None and lo > hi:
            lo, hi = hi, lo
        lo = full[0] if lo is None else max(lo, full[0])
        hi = full[1] if hi is None else min(hi, full[1])
        snapped = snap_range(xdim.numbers, lo, hi) if lo <= hi else None
        if lo > hi:
            problems.append(f"The {xdim.title.lower()} range lies outside the axis "
                            f"({full[0]:g} to {full[1]:g}); showing all of it.")
        elif snapped is None:
            problems.append(f"The {xdim.title.lower()} range {lo:g} to {hi:g} holds no "
                            f"{xdim.title.lower()}; showing all of it.")
        elif snapped != full:
            x_range = snapped

    color = _color(query, "figure", "the figure's own range", problems)
    sort = first(query.get("sort")) or SORT_SOURCE
    if parse_sort(sort, spec.dims[spec.x].labels) is None:
        problems.append(f"Row order '{fmt.clip(sort)}' is unknown; keeping the source's order.")
        sort = SORT_SOURCE
    top = _read(query, "top", _count, None, "is not a whole number above 0; showing every row.",
                problems)
    scale = _scale(query, problems)
    pct = _flag(query, "pct", problems)
    zscale = first(query.get("zscale")) or "linear"
    if zscale not in ZSCALES:
        problems.append(f"zscale={fmt.clip(zscale)} is not linear or log; using linear.")
        zscale = "linear"
    k = read_k(query, figure, problems)
    cluster = read_cluster(query, figure, problems)
    ticks = read_ticks(query, problems, figure)
    return ViewState(fid, facets, rows, x_range, color, _show_values(query), sort, top,
                     tuple(problems), scale=scale, pct=pct,
                     zscale=zscale, k=k, cluster=cluster, ticks=ticks)


TICKS = ("auto", "all")  # ticks=: axis labels thinned where they do not fit, or every one


def read_ticks(query: Query, problems: list[str], figure: Figure | None = None) -> str:
    """The ``ticks`` a query names: ``all`` (every row and column labelled; the page scrolls)
    or ``auto`` (the default); anything else is the default, and said. In a ``figure`` with a
    dimension named ``ticks`` (not reserved: evalmaps.core.names), the key is its label: auto."""
    if figure is not None and "ticks" in figure.spec.dims:
        return "auto"
    text = first(query.get("ticks"))
    if text in (None, "") or text in TICKS:
        return text or "auto"
    problems.append(f"ticks={fmt.clip(text)} is not all or auto; labels are thinned where "
                    f"they do not fit.")
    return "auto"


def read_cluster(query: Query, figure: Figure, problems: list[str]) -> str | None:
    """``cluster``: a column the figure's per-item records keep (an import's ``--cluster``);
    else None, with a note in ``problems``."""
    text = first(query.get("cluster"))
    if not text:
        return None
    records = getattr(figure, "items", None)
    kept = records.clusters if records is not None else ()
    if text in kept:
        return text
    problems.append(f"cluster={fmt.clip(text)}: the standard errors can be clustered only by a "
                    "column the figure's per-item records keep (an import's --cluster COL)"
                    + (f": here {', '.join(kept)}" if kept else ", and this figure keeps none")
                    + "; not clustered.")
    return None


def read_k(query: Query, figure: Figure, problems: list[str]) -> int:
    """``k`` for pass@k: a whole number from 1 to the fewest samples any of the figure's items
    has (:func:`evalmaps.catalog.items.max_k`); else 1, with a note in ``problems``."""
    text = first(query.get("k"))
    if text in (None, "", "1") or "k" in figure.spec.dims:  # the figure's own dimension k
        return 1
    k = _count(text)
    if k is None:
        problems.append(f"k={fmt.clip(text)} is not a whole number above 0; using k=1.")
        return 1
    most = max_k(figure)
    if k > most:
        problems.append(f"pass@{k} needs {k} samples of every item with 0/1 scores, and "
                        + (f"this figure's items have {most} at the fewest"
                           if getattr(figure, "items", None) is not None and most > 1
                           else "this figure has no such items") + "; using k=1.")
        return 1
    return k


def _flag(query: Query, key: str, problems: list[str]) -> bool:
    """An on/off key ('1', 'on', 'true' ... or '0', 'off' ...); anything else is off, and said."""
    text = first(query.get(key))
    word = (text or "").strip().lower()
    if word not in TRUE_WORDS and word not in FALSE_WORDS:
        problems.append(f"{key}={fmt.clip(text)} is not on/off; ignored.")
    return word in TRUE_WORDS


def _read(query: Query, key: str, parse, default, problem: str, problems: list[str]):
    """The value of a one-value key, parsed; a value that does not parse is the default, and
    ``problem`` says so ('top=abc is not a whole number above 0; showing every row.')."""
    text = first(query.get(key))
    if text in (None, ""):
        return default
    value = parse(text)
    if value is None:
        problems.append(f"{key}={fmt.clip(text)} {problem}")
        return default
    return value


def _count(text) -> int | None:
    """A whole number of at least 1, or None."""
    value = finite_number(text)
    return int(value) if value is not None and value >= 1 and value == int(value) else None


def parse_sort(sort: str, x_labels: tuple[str, ...]) -> tuple[str, str | None] | None:
    """('source'|'name'|'mean', None) or ('col', <x label>); None when it names nothing."""
    if sort in (SORT_SOURCE, "name", "mean"):
        return sort, None
    kind, _, label = sort.partition(":")
    if kind == "col" and label in x_labels:
        return "col", label
    return None


def _first_panel(figure: Figure) -> dict[str, tuple[str, ...]]:
    """The facet labels of a figure's first panel (the default view of a many-panel figure)."""
    first_panel = next(iter(figure.panels.values()))
    return {dim: (label,) for dim, label in first_panel.facets.items()}


def state_from_controls(figure: Figure, facet_values: dict[str, list[str] | None],
                        rows: list[str] | None, x_range: list[float] | None, color: str | None,
                        show_values: bool | None, sort: str | None = None,
                        top: object = None, pct: bool | None = None,
                        zlog: bool | None = None) -> ViewState:
    """Normalise control values into a state (full selections collapse to the default; a sort
    or top that names nothing is the default)."""
    spec = figure.spec
    sort = sort if isinstance(sort, str) and parse_sort(sort, spec.dims[spec.x].labels) \
        else SORT_SOURCE
    facets = {}
    big = many_panels(figure)  # its full selections are explicit: the default is one panel
    for dim in spec.facets:
        chosen = facet_values.get(dim)
        if chosen is not None and (big or set(chosen) != set(spec.dims[dim].labels)):
            chosen_set = set(chosen)
            facets[dim] = tuple(label for label in spec.dims[dim].labels if label in chosen_set)
    state = ViewState(figure.id, facets, color=color if color in COLOR_MODES else "figure",
                      show_values=True if show_values is None else bool(show_values),
                      sort=sort, top=_count(top), pct=bool(pct),
                      zscale="log" if zlog else "linear")
    if rows is not None:
        ylabels = spec.dims[spec.y].labels
        rows_set = set(rows)
        kept = tuple(label for label in ylabels if label in rows_set)
        state = replace(state, rows=None if len(kept) == len(ylabels) else kept)
    xdim = spec.dims[spec.x]
    if x_range and xdim.numeric:
        full = (min(xdim.numbers), max(xdim.numbers))
        lo, hi = float(min(x_range)), float(max(x_range))
        # a handle between two labels: the range keeps the labels inside it; none inside, the
        # label nearest its middle
        snapped = snap_range(xdim.numbers, lo, hi) or (nearest(xdim.numbers, (lo + hi) / 2),) * 2
        if snapped != full:
            state = replace(state, x_range=snapped)
    return state


def snap_range(numbers, lo: float, hi: float) -> tuple[float, float] | None:
    """The range ``lo..hi`` narrowed to the axis labels inside it (the same columns show), so a
    URL only ever holds numbers that are labels; None when no label lies inside."""
    inside = [x for x in numbers if lo <= x <= hi]
    return (min(inside), max(inside)) if inside else None


def nearest(numbers, value: float) -> float:
    return min(numbers, key=lambda x: (abs(x - value), x))


# --------------------------------------------------------------------------- Trends' own keys

@dataclass(frozen=True)
class TrendsOptions:
    """Trends' own state: transposed lines, overlaid panels, the threshold, the log x axis."""

    transpose: bool = False
    overlay: bool = False
    threshold: float | None = None  # None: each panel's default (80% of its metric's range)
    logx: bool | None = None  # None: by the labels (evalmaps.analysis.trends.log_axis_default)
    problems: tuple[str, ...] = ()

    def extra(self) -> dict[str, str]:
        """Query keys for :meth:`ViewState.to_query` (defaults left out)."""
        out = {}
        if self.transpose:
            out["transpose"] = "1"
        if self.overlay:
            out["overlay"] = "1"
        if self.threshold is not None:
            out["threshold"] = f"{self.threshold:g}"
        if self.logx is not None:
            out["logx"] = "1" if self.logx else "0"
        return out


def parse_options(query: Query) -> TrendsOptions:
    """``transpose``, ``overlay``, ``threshold`` and ``logx`` from a query; bad values become
    problems."""
    problems = []
    flags = {}
    for key in ("transpose", "overlay"):
        text = first(query.get(key))
        word = (text or "").strip().lower()
        flags[key] = word in TRUE_WORDS
        if word not in TRUE_WORDS and word not in FALSE_WORDS:
            problems.append(f"{key}={fmt.clip(text)} is not on/off; ignored.")
    threshold = _read(query, "threshold", finite_number, None,
                      "is not a number; using the default (80% of the metric's range).",
                      problems)
    text = first(query.get("logx"))
    word = (text or "").strip().lower()
    logx = True if word in TRUE_WORDS else False if word in FALSE_WORDS and word else None
    if word and logx is None:
        problems.append(f"logx={fmt.clip(text)} is not on/off; the axis follows its labels.")
    return TrendsOptions(flags["transpose"], flags["overlay"], threshold, logx,
                         tuple(problems))


# --------------------------------------------------------------------------- Compare

GRID_KEYS = ("ydim", "xdim", "avg")  # Compare's keys of a grid of two labels of a dimension


@dataclass(frozen=True)
class CompareState:
    """The compare view's state, as its URL holds it: ``?a=<ref>&b=<ref>&color=...&labels=off``.

    Defaults are left out of the query (``default``: the catalog's default pair).
    ``figure=<id>`` (what the nav links carry) picks that figure's first two panels when
    ``a``/``b`` are not given.

    When A and B are two labels of a dimension (``a=<figure>:<dim>=<label>``), the grid's
    choices that differ from the defaults (:func:`evalmaps.analysis.compare.label_grid`):
    ``ydim`` (the rows; "" for one row) and ``xdim`` (the columns), ``fixed`` (``<dim>=<label>``,
    a dimension fixed at a label other than its first) and ``averaged`` (``avg=<dim>``).
    """

    a: str
    b: str
    color: str = DEFAULT_COMPARE_COLOR
    show_values: bool = True
    problems: tuple[str, ...] = ()
    scale: str = DEFAULT_SCALE
    pct: bool = False  # fractions written as percent
    ydim: str | None = None  # None: the default rows
    xdim: str | None = None
    fixed: tuple[tuple[str, str], ...] = ()
    averaged: tuple[str, ...] = ()
    k: int = 1  # pass@k where both sides' items have several samples
    cluster: str | None = None  # the items' column the standard errors are clustered by
    power: bool = False  # B − A coloured by each cell's mde (the power map)
    ticks: str = "auto"  # axis labels: auto (thinned where they do not fit) or all (issue 37)

    @property
    def labels(self) -> bool:
        """Whether A and B are labels of a dimension (else panels or means)."""
        return is_label_ref(self.a)

    def grid_args(self) -> dict:
        """The grid's choices as :func:`evalmaps.analysis.compare.resolve_pair` takes them."""
        return {"y": self.ydim, "x": self.xdim, "fixed": dict(self.fixed),
                "averaged": self.averaged}

    def to_query(self, default: tuple[str, str] | None = None) -> str:
        pairs = [(key, ref) for key, ref, dflt in (("a", self.a, default and default[0]),
                                                   ("b", self.b, default and default[1]))
                 if ref != dflt]
        pairs += [(key, value) for key, value in (("ydim", self.ydim), ("xdim", self.xdim))
                  if value is not None]
        pairs += [*self.fixed, *(("avg", dim) for dim in self.averaged)]
        pairs += _pairs(self.show_values, self.color, DEFAULT_COMPARE_COLOR, self.scale)
        if self.pct:
            pairs.append(("pct", "1"))
        if self.k != 1:
            pairs.append(("k", str(self.k)))
        if self.cluster:
            pairs.append(("cluster", self.cluster))
        if self.power:
            pairs.append(("power", "1"))
        if self.ticks != "auto":
            pairs.append(("ticks", self.ticks))
        return "?" + urlencode(pairs, safe=":(),=/") if pairs else ""


def grid_state(state: CompareState, grid: LabelGrid, spec) -> CompareState:
    """``state`` with the grid's choices that differ from the defaults (what its URL holds)."""
    x_default = label_grid(spec, grid.dim).x
    y_default = label_grid(spec, grid.dim, x=grid.x).y
    return replace(state, ydim=None if grid.y == y_default else grid.y,
                   xdim=None if grid.x == x_default else grid.x,
                   fixed=tuple((d, label) for d, label in grid.fixed
                               if label != spec.dims[d].labels[0]),
                   averaged=grid.averaged)


def grid_query(query: Query, spec, problems: Problems = STRICT) -> dict:
    """The grid's choices a query names (:func:`evalmaps.analysis.compare.label_grid`'s
    keywords): ``ydim``, ``xdim``, ``avg`` (repeated) and a label for any dimension of the
    figure (``<dim>=<label>``). Two labels for one dimension: the first (noted in a
    ``problems`` collector), or a :class:`CompareError` (strict ``problems``, the default)."""
    fixed = {}
    for dim in spec.dims:
        labels = as_list(query.get(dim))
        if not labels:
            continue
        if len(labels) > 1:
            message = (f"Give one label of {spec.dims[dim].title.lower()} (it is fixed at one); "
                       f"the query gives {len(labels)}")
            problems.add(f"{message}: using {fmt.clip(labels[0])}.", CompareError(message + "."))
        fixed[dim] = labels[0]
    return {"y": first(query.get("ydim")), "x": first(query.get("xdim")) or None,
            "fixed": fixed, "averaged": tuple(as_list(query.get("avg")) or ())}


def _fill(catalog: Catalog, ref: str, other: str, problems: list[str], side: str,
          given: bool) -> str:
    """A side when the other (``other``) names a label of a dimension and this one does not
    name a label of the same dimension: the first other label of it (with a problem when the
    query gave something else)."""
    figure, dim, label = parse_label_ref(catalog, other)
    if is_label_ref(ref):
        try:
            mine = parse_label_ref(catalog, ref, side)
        except CompareError:
            mine = None
        if mine is not None and (mine[0].id, mine[1]) == (figure.id, dim):
            return ref
    labels = figure.spec.dims[dim].labels
    at = labels.index(label)  # the next label for B, the one before for A
    fill = label_ref(figure.id, dim, labels[(at + (1 if side == "B" else -1)) % len(labels)])
    if given:
        problems.append(f"A and B must both be labels of {figure.spec.dims[dim].title.lower()} "
                        f"in figure '{figure.id}' (or both panels); showing {fill} as {side} "
                        "instead.")
    return fill


def parse_compare_state(query: Query, catalog: Catalog) -> CompareState:
    """Read the compare state from a query; what names nothing falls back (listed in problems)."""
    problems: list[str] = []
    figure_id = first(query.get("figure"))
    if figure_id and figure_id not in catalog:
        problems.append(f"There is no figure '{fmt.clip(figure_id)}'; comparing the default pair.")
        figure_id = None
    default = default_pair(catalog, figure_id or None)
    refs, given, wrong = [], [], {}
    for side, key, fallback in (("A", "a", default[0]), ("B", "b", default[1])):
        ref = first(query.get(key))
        if ref:
            try:
                if is_label_ref(ref):
                    parse_label_ref(catalog, ref, side)
                else:
                    resolve(catalog, ref, side)
            except CompareError as exc:
                wrong[side] = str(exc)
                ref = None
        given.append(bool(ref))
        refs.append(ref or fallback)
    mismatched: list[str] = []
    if is_label_ref(refs[0]):  # A names a label: B a label of the same dimension
        refs[1] = _fill(catalog, refs[1], refs[0], mismatched, "B", given[1])
    elif is_label_ref(refs[1]):
        refs[0] = _fill(catalog, refs[0], refs[1], mismatched, "A", given[0])
    problems += [f"{message} Showing {refs['AB'.index(side)]} as {side} instead."
                 for side, message in wrong.items()] + mismatched
    color = _color(query, DEFAULT_COMPARE_COLOR, "a range shared by A and B", problems,
                   COMPARE_COLOR_MODES)
    scale = _scale(query, problems)
    pct = _flag(query, "pct", problems)
    state = CompareState(refs[0], refs[1], color, _show_values(query), (), scale=scale, pct=pct)
    if state.labels:
        figure, dim, _ = parse_label_ref(catalog, state.a)
        noted = Problems()
        asked = grid_query(query, figure.spec, noted)
        try:
            grid = label_grid(figure.spec, dim, problems=noted, **asked)
        except CompareError as exc:  # a dimension no grid can show: the default grid
            noted.add(str(exc))
            grid = label_grid(figure.spec, dim)
        problems += noted
        state = grid_state(state, grid, figure.spec)
    elif any(key in query for key in GRID_KEYS):
        problems.append("ydim, xdim and avg lay out two labels of a dimension "
                        "(a=<figure>:<dimension>=<label>); A and B are panels, so they are "
                        "ignored.")
    k = first(query.get("k"))
    if k not in (None, "", "1") and not _has_dim_k(catalog, state.a):
        most = compare_max_k(catalog, state.a, state.b)
        asked = _count(k)
        if asked is None or asked > most:
            problems.append(f"k={fmt.clip(k)}: pass@k needs a whole number k of 1 or more, and "
                            f"at least k samples of every item with 0/1 scores on both sides"
                            + (f" (here at most {most})" if most > 1 else
                               " (these sides have no such items)") + "; using k=1.")
        else:
            state = replace(state, k=asked)
    if _flag(query, "power", problems):
        if compare_items_kept(catalog, state):
            state = replace(state, power=True)
        else:
            problems.append("power=1 colours B − A by the smallest difference each cell's items "
                            "detect, and needs per-item records on both sides (not a mean or an "
                            "average); showing B − A.")
    cluster = first(query.get("cluster"))
    if cluster:
        kept = () if state.averaged else compare_clusters(catalog, state.a, state.b)
        if cluster in kept:
            state = replace(state, cluster=cluster)
        else:
            problems.append(f"cluster={fmt.clip(cluster)}: the standard errors can be clustered "
                            "only by a column both sides' per-item records keep (an import's "
                            "--cluster COL)" + (f": here {', '.join(kept)}" if kept else
                                                 ", and these sides keep none")
                            + "; not clustered.")
    # two labels of a dimension of a figure with a dimension named ticks: the key is its label
    ticks = read_ticks(query, problems, label_figure(catalog, state))
    return replace(state, ticks=ticks, problems=tuple(problems))


def label_figure(catalog: Catalog, state: CompareState) -> Figure | None:
    """The figure whose labels A and B are (None: they are panels or means), whose dimensions'
    names are keys of the page's query (``<dim>=<label>``: :func:`grid_query`)."""
    if not state.labels:
        return None
    try:
        return parse_label_ref(catalog, state.a)[0]
    except CompareError:
        return None


def compare_items_kept(catalog: Catalog, state: CompareState) -> bool:
    """Whether both sides of ``state`` keep per-item records (no mean, no average)."""
    if state.averaged:
        return False
    for ref in (state.a, state.b):
        figure_id = figure_of(ref)
        if is_derived(ref) or figure_id not in catalog \
                or getattr(catalog.figure(figure_id), "items", None) is None:
            return False
    return True


def compare_clusters(catalog: Catalog, a: str, b: str) -> tuple[str, ...]:
    """The cluster columns both sides' per-item records keep (a mean of panels keeps none)."""
    kept = None
    for ref in (a, b):
        if is_derived(ref):
            return ()
        figure_id = figure_of(ref)
        if figure_id not in catalog:
            return ()
        records = getattr(catalog.figure(figure_id), "items", None)
        if records is None:
            return ()
        mine = records.clusters
        kept = mine if kept is None else tuple(c for c in kept if c in mine)
    return kept or ()


def _has_dim_k(catalog: Catalog, ref: str) -> bool:
    """Whether A's figure has a dimension ``k`` of its own (then ?k= is its label)."""
    figure_id = ref.partition(":")[0] if is_label_ref(ref) else figure_of(ref)
    return figure_id in catalog and "k" in catalog.figure(figure_id).spec.dims


def compare_max_k(catalog: Catalog, a: str, b: str) -> int:
    """The largest k both sides allow pass@k at (:func:`evalmaps.catalog.items.max_k` of every
    figure they name); 1 when one has no items with several samples."""
    ids = set()
    for ref in (a, b):
        if is_label_ref(ref):
            ids.add(ref.partition(":")[0])
            continue
        try:
            ids.update(key.partition(":")[0] for key in parse_ref(ref))
        except CompareError:
            return 1
    figures = [catalog.figure(i) for i in ids if i in catalog]
    return min((max_k(f) for f in figures), default=1) if len(figures) == len(ids) else 1


# --------------------------------------------------------------------------- nav links

# Nav links carry the page's slice: Browse, Trends and Data share the figure, its facets, rows
# (rows/hide), the x range, the row order and top N; each page's own keys go only to the pages
# that read them. Any key not named here is a facet (a dimension's name). The server writes the
# first page's links with :func:`nav_href`; later, ``evalmaps_nav.navLinks`` (assets/nav.js)
# writes them in the browser from the same rules, which the nav element carries (:data:`NAV_RULES`).
# Rank takes one figure of those it can rank (``rank``): its link carries the page's figure (the
# first ``figure=``) when that is one of them, as the nav element lists them (``data-rankable``,
# :func:`rankable`), else none (Rank's default figure).
NAV_RULES: dict = {
    "own": {"/": ["color", "labels", "k", "cluster", "ticks"],
            "/trends": ["transpose", "overlay", "threshold", "logx", "k", "cluster"],
            "/compare": ["a", "b", "ydim", "xdim", "avg", "color", "labels", "cluster", "power",
                         "ticks"],
            "/data": [], "/rank": ["by", "cluster"]},
    "sliced": ["/", "/trends", "/data"],
    "named": ["color", "labels", "ticks", "transpose", "overlay", "threshold", "logx", "a", "b", "ydim",
              "xdim", "avg", "format", "cell", "which", "q", "cluster", "power", "by"],
    "rank": "/rank",
}


def nav_href(path: str, search: str | None, rankable_ids: Iterable[str] = ()) -> str:
    """The nav link to ``path`` from a page whose query is ``search`` (``location.search``), as
    the browser's ``URLSearchParams`` reads and writes it: '+' for a space, every byte but
    letters, digits and ``*-._`` percent-encoded. ``rankable_ids``: the figures Rank offers
    (:func:`rankable`); Rank's link carries the page's figure when it is one of them."""
    own = NAV_RULES["own"].get(path, [])
    sliced = path in NAV_RULES["sliced"]
    text = (search or "")[1:] if (search or "").startswith("?") else (search or "")
    pairs = parse_qsl(text, keep_blank_values=True)
    kept = [(key, value) for key, value in pairs
            if key in own or (sliced and key not in NAV_RULES["named"])]
    if path == NAV_RULES["rank"]:  # the page's figure, first, if Rank can rank it
        figure = next((value for key, value in pairs if key == "figure"), None)
        if figure is not None and figure in set(rankable_ids):
            kept.insert(0, ("figure", figure))
    query = "&".join(f"{_form(key)}={_form(value)}" for key, value in kept)
    return f"{path}?{query}" if query else path


def _form(text: str) -> str:
    return quote_plus(text, safe="*").replace("~", "%7E")


# --------------------------------------------------------------------------- Rank

RANK_MIN_LABELS = 3  # the Rank page offers the figures with a dimension of this many labels
MAX_RANK_CELLS = 30  # a page opened without a slice fixes dimensions until it shows this many


def rank_dims(figure: Figure) -> list[str]:
    """The dimensions of a figure that can be ranked over (``by``): those with two labels or
    more, facets first, then y, then x; not one whose labels are different metrics (acc and
    perplexity cannot be ranked against each other)."""
    spec = figure.spec
    out = []
    for d in spec.dim_names:
        if len(spec.dims[d].labels) < 2:
            continue
        if spec.metrics is not None and spec.metrics.dim == d and len(
                {spec.metric_for({d: label}) for label in spec.dims[d].labels}) > 1:
            continue
        out.append(d)
    return out


def rankable(catalog: Catalog) -> list[str]:
    """The ids of the figures the Rank page offers: those with a dimension of
    :data:`RANK_MIN_LABELS` labels or more and one to rank over."""
    return [figure.id for figure in catalog
            if rank_dims(figure) and any(len(dim.labels) >= RANK_MIN_LABELS
                                         for dim in figure.spec.dims.values())]


@dataclass(frozen=True)
class RankState:
    """The Rank page's state, as its URL holds it: ``?figure=ID&by=DIM&k=K&<dim>=<label>...``
    (the keys of ``/api/rank``; defaults left out). ``slice``: the labels kept of each other
    dimension (only those narrowed); ``problems``: what the page dropped from its URL."""

    figure: str
    by: str
    k: int = 1
    slice: tuple[tuple[str, tuple[str, ...]], ...] = ()
    problems: tuple[str, ...] = ()
    cluster: str | None = None  # the items' column the ranking is clustered by

    def query(self) -> dict[str, str | list[str]]:
        """The query as ``/api/rank`` and ``RankView.from_query`` read it (a dict of lists)."""
        out: dict[str, str | list[str]] = {"figure": [self.figure], "by": [self.by]}
        if self.k != 1:
            out["k"] = [str(self.k)]
        if self.cluster:
            out["cluster"] = [self.cluster]
        for dim, labels in self.slice:
            out[dim] = list(labels)
        return out

    def to_query(self, default_by: str | None = None) -> str:
        pairs = [("figure", self.figure)]
        if self.by != default_by:
            pairs.append(("by", self.by))
        if self.k != 1:
            pairs.append(("k", str(self.k)))
        pairs += [(dim, label) for dim, labels in self.slice for label in labels]
        if self.cluster:
            pairs.append(("cluster", self.cluster))
        return "?" + urlencode(pairs)


def default_rank_by(figure: Figure) -> str | None:
    """The dimension ``/api/rank`` ranks when none is named
    (:func:`evalmaps.analysis.rank.default_by`), where the page can rank it; else the first
    it can."""
    dims = rank_dims(figure)
    by = default_by(figure)
    return by if by in dims else (dims[0] if dims else None)


def default_rank_slice(figure: Figure, by: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What a Rank page opened without a slice shows: every cell, unless that is more than
    :data:`MAX_RANK_CELLS`; then the dimensions with the most labels are fixed, one at a time,
    until it is not: at their first label, or the last of numbers (a sweep's final step).
    Pythia's 65 tasks x 2 metrics x 27 steps: the first task at step 143000, both metrics."""
    spec = figure.spec
    others = [d for d in spec.dim_names if d != by]
    count = math.prod(len(spec.dims[d].labels) for d in others)
    fixed: dict[str, tuple[str, ...]] = {}
    for dim in sorted(others, key=lambda d: -len(spec.dims[d].labels)):
        if count <= MAX_RANK_CELLS:
            break
        count //= len(spec.dims[dim].labels)
        labels = spec.dims[dim].labels
        fixed[dim] = (labels[-1] if spec.dims[dim].numeric else labels[0],)
    return tuple((d, fixed[d]) for d in others if d in fixed)


def parse_rank_state(query: Query, catalog: Catalog) -> RankState | None:
    """Read the Rank page's state from a query, forgiving: a figure with nothing to rank, a
    ``by`` that is not a dimension of 3 labels or more, a ``k`` the items do not allow or a
    label that names nothing is dropped and said in ``problems``. None: no figure of the
    catalog can be ranked."""
    ids = rankable(catalog)
    if not ids:
        return None
    problems: list[str] = []
    default = next((fid for fid in ids if getattr(catalog.figure(fid), "items", None) is not None),
                   ids[0])  # as /api/rank's: the first with per-item records
    fid = first(query.get("figure")) or default
    if fid not in catalog:
        problems.append(f"There is no figure '{fmt.clip(fid)}'; ranking '{default}' instead.")
        fid = default
    elif fid not in ids:
        problems.append(f"Figure '{fmt.clip(fid)}' has no dimension of {RANK_MIN_LABELS} labels "
                        f"or more to rank over; ranking '{default}' instead.")
        fid = default
    figure = catalog.figure(fid)
    spec = figure.spec
    dims = rank_dims(figure)
    by = first(query.get("by")) or default_rank_by(figure)
    if by not in dims:
        why = ("cannot be ranked (one label, or labels that are different metrics)"
               if by in spec.dims else "is not a dimension of this figure")
        problems.append(f"by={fmt.clip(by)} {why}; ranking over "
                        f"{spec.dims[default_rank_by(figure)].title.lower()} instead.")
        by = default_rank_by(figure)
    k = read_k(query, figure, problems)
    given = False
    sliced: list[tuple[str, tuple[str, ...]]] = []
    for dim in spec.dim_names:
        wanted = [w for w in as_list(query.get(dim)) or [] if w != ""]  # empty: all of them
        if not wanted:
            continue
        given = given or dim != by
        index = spec.dims[dim].index()
        unknown = [w for w in wanted if w not in index]
        if unknown:
            problems.append(f"Unknown {spec.dims[dim].title.lower()} "
                            f"{fmt.clip(', '.join(unknown))} ignored.")
        kept_set = set(wanted)
        kept = tuple(label for label in spec.dims[dim].labels if label in kept_set)
        if dim == by and len(kept) < 2 and (kept or not unknown):
            problems.append(f"Ranking needs two or more {spec.dims[dim].title.lower()} labels; "
                            f"ranking all of them.")
            continue
        if kept and len(kept) < len(spec.dims[dim].labels):
            sliced.append((dim, kept))
    state = RankState(fid, by, k, tuple(sliced), cluster=read_cluster(query, figure, problems))
    if not given:  # the models kept (by's labels) stay
        state = replace(state, slice=(*state.slice, *default_rank_slice(figure, by)))
    return replace(state, problems=tuple(problems))
