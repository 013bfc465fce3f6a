"""One view model per page URL: what a page's query asks, answered once.

Each view is frozen, made by ``.from_query(catalog, query)`` from the query its page's URL holds
(the keys of :mod:`evalmaps.views.state`, one grammar for the page, its JSON twin and the API),
and gives its JSON with ``.to_dict()``: the shape the ``/api`` routes have always answered.

- :class:`BrowseView` (``/``, ``/browse.json``, ``/api/figures/<id>/cells``): the cells shown;
- :class:`TrendsView` (``/trends``, ``/trends.json``, ``/api/figures/<id>/trends``): the per-line
  statistics, the points with their intervals, and the observation sentences;
- :class:`CompareView` (``/compare``, ``/compare.json``, ``/api/compare``): A and B aligned, the
  summary and sentences;
- :class:`~evalmaps.views.items.ItemsView` (``/compare/items.json``, ``/api/compare/items``): one
  cell's items on A and B.

A view is strict where the page is forgiving: what the page would drop with a note (an unknown
label, a ``k`` the items do not allow) is an error that says what to give (HTTP 400). The slice
keys of Browse and Trends are the page's (``figure``, a facet's labels, ``rows``/``hide``,
``xmin``/``xmax``, ``sort``, ``top``, ``k``) plus, as in the API, ``<dimension>=<label>`` for the
rows' and columns' dimensions too; with no facet named, every panel is answered (the page opens a
figure of many panels on its first).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from evalmaps.analysis import compare as comparing
from evalmaps.analysis import trends as trending
from evalmaps.analysis import uncertainty
from evalmaps.analysis.slicing import PanelView, views_for
from evalmaps.catalog.items import figure_at, max_k
from evalmaps.core import text as fmt
from evalmaps.core.errors import MAX_LISTED, MAX_QUOTED, EvalmapsError
from evalmaps.core.figure import Catalog, Figure
from evalmaps.views.items import ItemsView, compare_catalog_at, figure_at_query
from evalmaps.views.state import (
    GRID_KEYS,
    CompareState,
    Query,
    TrendsOptions,
    ViewState,
    as_list,
    first,
    grid_query,
    grid_state,
    parse_options,
    parse_state,
    read_ticks,
)

__all__ = ["BadQuery", "BrowseView", "CompareView", "ItemsView", "TrendsView"]

# the page's keys that narrow a slice beyond ?<dimension>=<label> (evalmaps.views.state)
SLICE_KEYS = ("rows", "hide", "xmin", "xmax", "sort", "top")


class BadQuery(EvalmapsError, ValueError):
    """A query parameter that names something the figure does not have (HTTP 400)."""


def _number(value: float | None) -> float | None:
    if value is None or value != value or not math.isfinite(value):
        return None
    return float(value)


def _finite(value) -> float | None:
    return float(value) if value is not None and np.isfinite(value) else None


# --------------------------------------------------------------------------- a figure's slice

def parse_filters(figure: Figure, query: Mapping[str, str | list[str]]) -> dict[str, set[str]]:
    """``?<dim>=<label>`` filters (repeatable). Unknown labels are a :class:`BadQuery`."""
    spec = figure.spec
    filters = {}
    for dim in spec.dim_names:
        wanted = as_list(query.get(dim))
        if not wanted:
            continue
        unknown = [w for w in wanted if w not in spec.dims[dim].index()]
        if unknown:
            raise BadQuery(f"'{fmt.clip(unknown[0], MAX_QUOTED)}' is not a label of '{dim}' in "
                           f"figure '{spec.id}'. "
                           f"Use one of: {fmt.listing(spec.dims[dim].labels, MAX_LISTED)}.")
        filters[dim] = set(wanted)
    return filters


def filter_state(figure: Figure, filters: dict[str, set[str]]) -> ViewState:
    """The view state of ``?<dim>=<label>`` filters: facets pick panels, y rows (x columns are
    passed to :func:`views_for` as ``columns``)."""
    spec = figure.spec
    facets = {f: tuple(lab for lab in spec.dims[f].labels if lab in filters[f])
              for f in spec.facets if f in filters}
    rows = tuple(filters[spec.y]) if spec.y in filters else None
    return ViewState(figure.id, facets, rows)


def slice_state(figure: Figure, filters: dict[str, set[str]], query: Query) -> ViewState:
    """The state of a view's slice: the filters' (:func:`filter_state`), narrowed by the page's
    own keys (:data:`SLICE_KEYS`, read by :func:`~evalmaps.views.state.parse_state`). What the
    page would drop with a note is a :class:`BadQuery`."""
    state = filter_state(figure, filters)
    given = {key: query[key] for key in SLICE_KEYS if key in query}
    if not given:
        return state
    page = parse_state({"figure": [figure.id], **given}, Catalog([figure]))
    if page.problems:
        said = page.problems[0].split(";")[0].rstrip(".").removesuffix(" ignored")
        raise BadQuery(f"{said}. Give only what the figure has (the page drops the rest with a "
                       "note; its JSON refuses it).")
    rows = page.rows if ("rows" in given or "hide" in given) else state.rows
    return replace(state, rows=rows, x_range=page.x_range, sort=page.sort, top=page.top)


def view_cells(views: list[PanelView], present_only: bool = False,
               errors: Mapping[str, dict] | None = None) -> list[dict]:
    """The cells of panel views in display order (panels, rows top to bottom, columns left to
    right): ``{<dim>: label, ..., "value": number or None}``, plus ``sd``, ``n`` and ``se`` when
    the figure has them. ``present_only``: only the cells the source reports. ``errors``: each
    panel's standard errors from its items (keyed by panel key:
    :func:`evalmaps.analysis.uncertainty.item_errors`): ``se`` where the source gives none,
    ``se_clustered`` and ``n_clusters`` when clustered, and ``var_within``, ``var_between`` and
    ``within_share`` where items have several samples."""
    out = []
    if not views:
        return out
    spec = views[0].spec
    errors = errors or {}
    has_sd = any(v.panel.sd is not None for v in views)
    has_n = any(v.panel.n is not None for v in views)
    has_se = any(v.panel.se is not None for v in views) or bool(errors)
    clustered = any("se_clustered" in e for e in errors.values())
    sampled = any("var_within" in e for e in errors.values())  # items of several samples
    for view in views:
        keep = np.isfinite(view.z) if present_only else np.ones(view.z.shape, dtype=bool)
        rows, cols = np.nonzero(keep)
        values = view.z[rows, cols].tolist()
        sds = view.sd[rows, cols].tolist() if view.sd is not None else [None] * len(values)
        ns = view.n[rows, cols].tolist() if view.n is not None else [None] * len(values)
        se_grid = view.se
        mine = errors.get(view.panel.key, {})
        if "se" in mine:  # the source's where it gives one, else the items'
            se_grid = mine["se"] if se_grid is None else np.where(np.isfinite(se_grid), se_grid,
                                                                   mine["se"])
        ses = se_grid[rows, cols].tolist() if se_grid is not None else [None] * len(values)
        parts = [{name: _number(mine[name][i, j]) if name in mine else None
                  for name in uncertainty.VARIANCE_PARTS}
                 for i, j in zip(rows.tolist(), cols.tolist())] if sampled else [{}] * len(values)
        extra = [{"se_clustered": _number(mine["se_clustered"][i, j]),
                  "n_clusters": None if not np.isfinite(mine["n_clusters"][i, j])
                  else int(mine["n_clusters"][i, j])} if "se_clustered" in mine else
                 {"se_clustered": None, "n_clusters": None}
                 for i, j in zip(rows.tolist(), cols.tolist())] if clustered else \
            [{}] * len(values)
        for i, j, value, sd, n, se, more, variances in zip(rows.tolist(), cols.tolist(), values,
                                                           sds, ns, ses, extra, parts):
            cell = {**view.panel.facets, spec.y: view.y_labels[i], spec.x: view.x_labels[j],
                    "value": _number(value)}
            if has_sd:
                cell["sd"] = _number(sd)
            if has_n:
                cell["n"] = _number(n)
            if has_se:
                cell["se"] = _number(se)
            cell.update(more)
            cell.update(variances)
            out.append(cell)
    return out


def item_errors_of(figure: Figure, views: list[PanelView], query: Query) -> dict[str, dict]:
    """Each view's standard errors from the figure's items (keyed by panel key), at the
    query's ``k`` and clustered by its ``cluster``; {} for a figure without items. A
    ``cluster`` the items do not keep is a :class:`BadQuery` naming the ones they do."""
    cluster = checked_cluster(figure, query)
    k = 1 if "k" in figure.spec.dims else _k(query)
    return _item_errors(figure, views, k, cluster)


def checked_cluster(figure: Figure, query: Query) -> str | None:
    """The query's ``cluster`` (:func:`query_cluster`), which the figure's items must keep: a
    figure without items, or items without that column, is a :class:`BadQuery` naming the
    ones they do."""
    cluster = query_cluster(query)
    records = getattr(figure, "items", None)
    if records is None:
        if cluster is not None:
            raise BadQuery(f"cluster={fmt.clip(cluster, MAX_QUOTED)} clusters the standard "
                           f"errors of per-item records, and figure '{figure.id}' keeps none. "
                           "Leave cluster out.")
        return None
    if cluster is not None and cluster not in records.clusters:
        kept = records.clusters
        raise BadQuery(f"The items of figure '{figure.id}' have no cluster column "
                       f"'{fmt.clip(cluster, MAX_QUOTED)}' ("
                       + (f"they keep {', '.join(kept)}" if kept else "they keep none")
                       + f"). Import them with --cluster {fmt.clip(cluster, MAX_QUOTED)}, or "
                       "leave cluster out.")
    return cluster


def _item_errors(figure: Figure, views, k: int, cluster: str | None) -> dict[str, dict]:
    """Each view's standard errors from the figure's items at pass@``k``, clustered by
    ``cluster`` (:func:`evalmaps.analysis.uncertainty.item_errors`); {} without items."""
    records = getattr(figure, "items", None)
    if records is None:
        return {}
    spec = figure.spec
    return {view.panel.key: uncertainty.item_errors(records, dict(view.panel.facets),
                                               (spec.y, spec.x), view.y_labels, view.x_labels,
                                               k, cluster)
            for view in views}


def _figure_of(catalog: Catalog, query: Query) -> Figure:
    """The query's ``figure`` (default: the catalog's first) at its ``k``; an unknown figure is
    an :class:`~evalmaps.core.errors.UnknownFigure` (404), a ``k`` its items do not allow an
    :class:`~evalmaps.analysis.items.ItemsError` (400)."""
    figure = catalog.figure(first(query.get("figure")) or catalog.ids[0])
    return figure_at_query(figure, query)


# --------------------------------------------------------------------------- Browse

@dataclass(frozen=True, eq=False)
class BrowseView:
    """What Browse shows (``/?figure=<id>&...``): every cell of the slice's panels in display
    order, ``value`` None where the source reports nothing.

    The page draws its heatmaps from :attr:`views` (:meth:`hover_views`: with the items'
    standard errors its hover writes), and its JSON twin gives :attr:`cells`, made from the
    same views: the page and ``/browse.json`` agree by construction. ``empty``: why no panel
    shows (the page's note), None when some do."""

    figure: Figure  # at the view's k
    views: tuple[PanelView, ...] = ()
    empty: str | None = None
    k: int = 1
    cluster: str | None = None
    ticks: str = "auto"  # axis labels: auto, or all (every one; the page scrolls: issue 37)

    @classmethod
    def from_query(cls, catalog: Catalog, query: Query) -> BrowseView:
        return cls.of_figure(_figure_of(catalog, query), query)

    @classmethod
    def of_figure(cls, figure: Figure, query: Query) -> BrowseView:
        """The view of one figure (already at the query's ``k``); ``figure`` in the query is not
        read."""
        filters = parse_filters(figure, query)
        state = slice_state(figure, filters, query)
        cluster = checked_cluster(figure, query)
        k = 1 if "k" in figure.spec.dims else _k(query)
        return replace(cls.of_slice(figure, state, k, cluster, filters.get(figure.spec.x)),
                       ticks=_ticks(figure, query))

    @classmethod
    def of_state(cls, figure: Figure, state: ViewState) -> BrowseView:
        """The view of a page's state (:func:`~evalmaps.views.state.parse_state`, which read
        its URL leniently: what names nothing was dropped with a note), ``figure`` as the
        catalog holds it: its cells at the state's ``k``."""
        return replace(cls.of_slice(figure_at(figure, state.k), state, state.k, state.cluster),
                       ticks=state.ticks)

    @classmethod
    def of_slice(cls, figure: Figure, state: ViewState, k: int = 1, cluster: str | None = None,
                 columns=None) -> BrowseView:
        """The view of a slice of ``figure`` (already at pass@``k``): the one way Browse's
        page and its JSON cut a figure."""
        views, empty = views_for(figure, state, columns)
        return cls(figure, tuple(views), empty or None, k, cluster)

    @cached_property
    def errors(self) -> dict[str, dict]:
        """Each panel's standard errors from the figure's items (keyed by panel key); {}
        without items."""
        return _item_errors(self.figure, self.views, self.k, self.cluster)

    @cached_property
    def cells(self) -> tuple[dict, ...]:
        return tuple(view_cells(list(self.views), errors=self.errors))

    def hover_views(self) -> list[PanelView]:
        """The views with each cell's standard error from the figure's items where the source
        gives none (clustered when the view is): what Browse's hover writes as ``± se``
        (:func:`evalmaps.analysis.uncertainty.with_item_se`, from :attr:`errors`)."""
        return uncertainty.with_item_se(self.figure, list(self.views), self.k, self.cluster,
                                        made=self.errors)

    def to_dict(self) -> dict:
        spec = self.figure.spec
        out = {"figure": self.figure.id, "provenance": spec.provenance,
               "metric": spec.metric.name, "cells": list(self.cells)}
        if self.ticks != "auto":  # the page labels every row and column (ticks=all)
            out["ticks"] = self.ticks
        return out


# --------------------------------------------------------------------------- Trends

@dataclass(frozen=True, eq=False)
class TrendsView:
    """What Trends shows (``/trends?figure=<id>&...``): per-line statistics, per-panel best and
    worst and marginal means, each line's points with the 95% interval of the value drawn, and
    the observation sentences (:mod:`evalmaps.analysis.trends`). ``report`` is None for an empty
    slice (``empty`` says why).

    The page draws its charts from :attr:`views`, :attr:`report` and :attr:`item_intervals`,
    and its JSON twin gives the same report and the points made from the same views and
    intervals: the page and ``/trends.json`` agree by construction."""

    figure: Figure  # at the view's k
    k: int
    options: TrendsOptions
    report: trending.Trends | None
    views: tuple[PanelView, ...] = ()
    cluster: str | None = None  # the intervals from the items' SE clustered by this column
    empty: str | None = None

    @classmethod
    def from_query(cls, catalog: Catalog, query: Query) -> TrendsView:
        return cls.of_figure(_figure_of(catalog, query), query)

    @classmethod
    def of_figure(cls, figure: Figure, query: Query) -> TrendsView:
        """The view of one figure; ``figure`` in the query is not read. ``transpose=1``,
        ``threshold=<n>``, ``k=<n>`` (pass@k where the items have several samples)."""
        options = parse_options(query)
        if options.problems:  # the page ignores them with a note; a script gets a 400
            raise BadQuery(f"{options.problems[0].split(';')[0]}. "
                           f"Use transpose=1 or 0 and a number for threshold.")
        k = 1 if "k" in figure.spec.dims else _k(query)  # a dimension k takes k= as its label
        cluster = query_cluster(query)
        if cluster is not None:
            checked_cluster(figure, query)  # a column the items do not keep: a 400
        if k != 1:
            top = max_k(figure)
            if not 1 <= k <= top:
                raise BadQuery(f"k={k}: pass@k needs k from 1 to {top} for this figure (the "
                               "fewest samples of an item with 0/1 scores). Use a smaller k.")
            figure = figure_at(figure, k)
        filters = parse_filters(figure, query)
        return cls.of_slice(figure, slice_state(figure, filters, query), options, k, cluster,
                            filters.get(figure.spec.x))

    @classmethod
    def of_state(cls, figure: Figure, state: ViewState, options: TrendsOptions) -> TrendsView:
        """The view of a page's state and options (read leniently from its URL, or from its
        controls), ``figure`` as the catalog holds it: its cells at the state's ``k``."""
        return cls.of_slice(figure_at(figure, state.k), state, options, state.k, state.cluster)

    @classmethod
    def of_slice(cls, figure: Figure, state: ViewState, options: TrendsOptions, k: int = 1,
                 cluster: str | None = None, columns=None) -> TrendsView:
        """The view of a slice of ``figure`` (already at pass@``k``): the one way Trends' page
        and its JSON cut and analyse a figure."""
        views, empty = views_for(figure, state, columns)
        report = None if empty else trending.analyse(views, transpose=options.transpose,
                                                     threshold=options.threshold)
        return cls(figure, k, options, report, tuple(views), cluster, empty or None)

    @cached_property
    def item_intervals(self) -> dict | None:
        """Each view's per-cell 95% intervals of the statistic drawn (pass@``k``) from the
        figure's per-item records ({panel slug: (low, high)},
        :func:`evalmaps.analysis.uncertainty.item_intervals`; with ``cluster``, ± t
        (G − 1 df) clustered SE: :func:`~evalmaps.analysis.uncertainty.cluster_intervals`);
        None without records, or for an empty slice. What Trends' bands draw."""
        items = getattr(self.figure, "items", None)
        if items is None or self.report is None:
            return None
        spec = self.figure.spec
        if self.cluster is not None:
            return {v.panel.slug: uncertainty.cluster_intervals(v, items, self.k, self.cluster)
                    for v in self.views}
        return {v.panel.slug: uncertainty.item_intervals(items, dict(v.panel.facets),
                                                    (spec.y, spec.x), v.y_labels, v.x_labels,
                                                    self.k)
                for v in self.views}

    @cached_property
    def points(self) -> Mapping:
        """(panel key, line label) -> [{"at", "value", "lo", "hi"}]: each line's points with
        the 95% interval of the value drawn (:func:`_line_points`)."""
        if self.report is None:
            return {}
        return _line_points(self.views, self.options.transpose, self.item_intervals,
                            self.cluster is not None)

    def to_dict(self) -> dict:
        spec = self.figure.spec
        payload = {"figure": self.figure.id, "provenance": spec.provenance,
                   "metric": {"name": spec.metric.name, "unit": spec.metric.unit}, "k": self.k}
        if self.cluster is not None and self.report is not None:
            payload["cluster"] = self.cluster
        if self.report is None:
            return {**payload, "transpose": self.options.transpose,
                    "threshold": self.options.threshold, "lines": [], "panels": [],
                    "observations": []}
        out = {**payload, **self.report.to_dict()}
        for line in out["lines"]:
            line["points"] = self.points.get((line["panel"], line["line"]), [])
        return out


def _line_points(views, transpose: bool, item_intervals: dict | None = None,
                 clustered: bool = False) -> dict:
    """Each line's points with the 95% interval of the value drawn (``lo``, ``hi``: from the
    items' ``item_intervals`` where the figure keeps them (``clustered``: ± 1.96 of their
    clustered standard error), else from the standard error; None where there is neither:
    :func:`evalmaps.analysis.uncertainty.view_intervals`), keyed by (panel key, line label), as
    Trends' bands draw them."""
    out = {}
    for view in views:
        kept = None if item_intervals is None else item_intervals[view.panel.slug]
        lo, hi = uncertainty.view_intervals(view, item_interval=kept, clustered=clustered)
        for line in trending.lines_of(view, transpose):
            out[(view.panel.key, line.label)] = [
                {"at": at, "value": _finite(value), "lo": _finite(lo[i, j]), "hi": _finite(hi[i, j])}
                for at, value, (i, j) in zip(line.labels, line.values, line.cells)]
    return out


# --------------------------------------------------------------------------- Compare

def _k(query: Query) -> int:
    """The ``k`` of pass@k a query names (default 1); anything but a whole number of at least
    1 is a :class:`CompareError`."""
    given = as_list(query.get("k")) or []
    if not given:
        return 1
    text = given[0].strip()
    if len(given) > 1 or not (text.isascii() and text.isdigit() and len(text) <= 6) \
            or int(text) < 1:
        raise comparing.CompareError(f"k must be one whole number of at least 1 (pass@k), not "
                                     f"'{fmt.clip(', '.join(given))}'.")
    return int(text)


def _ticks(figure: Figure | None, query: Query) -> str:
    """The ``ticks`` a query names (default auto); anything but one ``all`` or ``auto`` is a
    :class:`BadQuery` (in a ``figure`` with a dimension ``ticks``, the key is its label: auto;
    Compare's ``figure``: the one whose labels A and B are, None for panels)."""
    if figure is not None and "ticks" in figure.spec.dims:
        return "auto"
    given = as_list(query.get("ticks")) or []
    problems: list[str] = []
    ticks = read_ticks(query, problems)
    if problems or len(given) > 1:
        raise BadQuery(f"ticks must be all (every row and column labelled) or auto, not "
                       f"'{fmt.clip(', '.join(given))}'.")
    return ticks


def query_cluster(query: Query) -> str | None:
    """The ``cluster`` a query names (the items' column their standard errors are clustered
    by; None: not clustered); two, or an empty one, is a :class:`BadQuery`."""
    given = as_list(query.get("cluster")) or []
    if not given:
        return None
    if len(given) > 1 or not given[0].strip():
        raise BadQuery(f"cluster takes one column of the per-item records (an import's "
                       f"--cluster COL, such as cluster=src), not "
                       f"'{fmt.clip(', '.join(given), MAX_QUOTED)}'.")
    return given[0].strip()


def compare_refs(catalog: Catalog, query: Query) -> tuple[str, str]:
    """A and B of a compare query: ``a`` and ``b``, or neither for the default pair (of the
    ``figure`` the query names, else the catalog's). Anything else is a ``CompareError``."""
    a_refs, b_refs = as_list(query.get("a")) or [], as_list(query.get("b")) or []
    if bool(a_refs) != bool(b_refs):
        raise comparing.CompareError("Give both a and b (panel keys as /api/figures lists them), "
                                     "or neither for the default pair.")
    if len(a_refs) > 1 or len(b_refs) > 1:
        raise comparing.CompareError("Give one panel as a and one as b.")
    if a_refs:
        return a_refs[0], b_refs[0]
    figure_id = first(query.get("figure"))
    if figure_id and figure_id not in catalog:
        raise comparing.CompareError(f"There is no figure '{fmt.clip(figure_id, MAX_QUOTED)}'. "
                                     "See /api/figures, or leave figure out for the default "
                                     "pair.")
    return comparing.default_pair(catalog, figure_id or None)


@dataclass(frozen=True, eq=False)
class CompareView:
    """What Compare shows (``/compare?a=<ref>&b=<ref>&...``): A and B aligned on their common
    cells with B - A, the paired tests, the summary numbers and sentences.

    A reference is a panel key (``<figure>:<panel>``) or ``mean(<key>,<key>,...)``, or a label
    of a dimension (``<figure>:<dim>=<label>``), laid out by ``ydim``, ``xdim``, ``<dim>=<label>``
    and ``avg=<dim>`` (then the JSON adds ``grid``); see :mod:`evalmaps.analysis.compare`. No a
    and b: the default pair (``figure=<id>``: that figure's first two panels). Unknown, malformed
    or disjoint panels are a ``CompareError`` (400)."""

    alignment: comparing.Alignment
    summary: dict
    state: CompareState  # the page's state of this view (its grid's choices as its URL holds)
    url: str  # the page that shows it

    @classmethod
    def from_query(cls, catalog: Catalog, query: Query) -> CompareView:
        """The view of ``query``, its cells at pass@``k`` (:func:`~evalmaps.views.items.
        compare_catalog_at`: a k that A's or B's items do not allow is a 400)."""
        a_ref, b_ref = compare_refs(catalog, query)
        return cls.of_catalog(compare_catalog_at(catalog, {**query, "a": [a_ref], "b": [b_ref]}),
                              query)

    @classmethod
    def of_catalog(cls, catalog: Catalog, query: Query) -> CompareView:
        """The view of a catalog whose cells are already at the query's ``k`` (only the paired
        tests follow ``k``)."""
        a_ref, b_ref = compare_refs(catalog, query)
        labelled = next((ref for ref in (a_ref, b_ref) if comparing.is_label_ref(ref)), None)
        grid = {}
        if labelled is not None:
            figure = comparing.parse_label_ref(catalog, labelled,
                                               "A" if labelled == a_ref else "B")[0]
            grid = grid_query(query, figure.spec)
        elif any(key in query for key in GRID_KEYS):
            raise comparing.CompareError("ydim, xdim and avg lay out two labels of a dimension: "
                                         "give a and b as <figure>:<dimension>=<label>.")
        # a figure's own dimension k (pass@k importers make one) takes k= as its label
        k = 1 if labelled is not None and "k" in figure.spec.dims else _k(query)
        # and its own dimension ticks takes ticks= (else every axis label: ticks=all)
        ticks = _ticks(figure if labelled is not None else None, query)
        return cls.of_sides(catalog, *comparing.resolve_pair(catalog, a_ref, b_ref, **grid), k,
                            query_cluster(query), ticks)

    @classmethod
    def of_sides(cls, catalog: Catalog, a: comparing.ComparePanel, b: comparing.ComparePanel,
                 k: int = 1, cluster: str | None = None, ticks: str = "auto") -> CompareView:
        """The view of two resolved sides (:func:`~evalmaps.analysis.compare.resolve_pair`, of
        ``catalog`` at pass@``k``): aligned, with the paired tests at ``k`` and their standard
        errors clustered by the items' column ``cluster`` (a side without it: a 400). The
        Compare page makes its sides from its state, and keeps them for its menus when they do
        not align. ``ticks``: the page's axis labels (``all``: every one; the JSON echoes it)."""
        al = comparing.with_paired(comparing.align(a, b), k, cluster)
        state = CompareState(al.a.ref, al.b.ref, k=k, cluster=cluster, ticks=ticks)
        if al.a.grid is not None:
            state = grid_state(state, al.a.grid, catalog.figure(al.a.figure_ids[0]).spec)
        url = "/compare" + replace(state, k=1).to_query(comparing.default_pair(catalog))
        return cls(al, comparing.summary(al), state, url)

    def to_dict(self) -> dict:
        al = self.alignment
        payload = {
            "a": _side(al.a),
            "b": _side(al.b),
            "url": self.url,
            "dims": {axis: {"name": dim.name, "title": dim.title, "labels": list(dim.labels)}
                     for axis, dim in (("y", al.y), ("x", al.x))},
            "n_common": al.n_common,
            "summary": self.summary,
            "sentences": comparing.sentences(al, self.summary),
            "warnings": list(al.warnings),
            "cells": al.cells(),
        }
        if al.a.grid is not None:
            payload["grid"] = _grid(al)
        if self.state.ticks != "auto":  # the page labels every row and column (ticks=all)
            payload["ticks"] = self.state.ticks
        return payload


def _side(side: comparing.ComparePanel) -> dict:
    return {"ref": side.ref, "label": side.label, "provenance": side.provenance,
            "derived": side.derived, "panels": list(side.sources),
            "metric": {"name": side.metric.name, "unit": side.metric.unit},
            "n_cells": side.n_cells}


def _grid(al: comparing.Alignment) -> dict:
    """How two labels of a dimension were laid out: the dimension, the grid's rows and columns,
    the other dimensions fixed (at a label) or averaged over."""
    grid = al.a.grid
    return {"dim": grid.dim, "y": grid.y, "x": grid.x, "fixed": dict(grid.fixed),
            "averaged": list(grid.averaged), "averaged_of": al.a.of_averaged or None}
