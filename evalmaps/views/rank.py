"""The Rank view (``/rank``, ``/rank.json``, ``/api/rank``): which of many models is best in
each cell of a figure, which are tied with it, and the pairs tested
(:mod:`evalmaps.analysis.rank`).

Its query: ``figure`` (default: the first figure with per-item records and a dimension to rank,
else the first with a dimension to rank), ``by`` (the dimension ranked; default
:func:`evalmaps.analysis.rank.default_by`), ``k`` (pass@k where the items have several samples),
``<dimension>=<label>`` (repeatable: the labels kept; on ``by``, the models ranked),
``cluster`` (a column the items keep: errors, tests and rank resamples clustered by it), and
``format`` (``json``, ``csv``: one row per cell and model, ``csv-pairs``: one row per cell and
pair). Presentation keys the pages share (``pct``, ``labels``, ``scale``, ``color``) change
nothing. ``alpha`` is fixed at 0.05 (it is in the answer). The view is strict: anything else,
an unknown dimension or label, a ``by`` that cannot be ranked, is a :class:`BadQuery` (400) that
says what to give. ``by`` always names the ranked dimension (in a figure with a dimension named
``by``, that dimension is ranked or left whole); ``k`` is the label of a figure's own dimension
``k`` where it has one, as elsewhere.
"""

from __future__ import annotations

import csv
import io
import threading
import weakref
from dataclasses import dataclass
from urllib.parse import urlencode

from evalmaps.analysis import compare as comparing
from evalmaps.analysis import rank as ranking
from evalmaps.core import text as fmt
from evalmaps.core.errors import MAX_LISTED, MAX_QUOTED
from evalmaps.core.figure import Catalog, Figure
from evalmaps.core.kept import Kept
from evalmaps.core.labels import label_prefix
from evalmaps.views.items import figure_at_query
from evalmaps.views.models import BadQuery, parse_filters
from evalmaps.views.state import Query, as_list, first

RANK_KEYS = ("figure", "by", "k", "format", "cluster")
IGNORED_KEYS = ("pct", "labels", "scale", "color")  # presentation only: no number changes
FORMATS = ("json", "csv", "csv-pairs")


def _rankable(figure: Figure) -> bool:
    return ranking.default_by(figure) is not None


def default_figure(catalog: Catalog) -> Figure:
    """The first figure with per-item records and a dimension to rank, else the first with a
    dimension to rank."""
    figures = list(catalog)
    for figure in figures:
        if getattr(figure, "items", None) is not None and _rankable(figure):
            return figure
    for figure in figures:
        if _rankable(figure):
            return figure
    raise BadQuery("No figure has a dimension with two or more labels to rank. Add one with "
                   "several models.")


def _by(figure: Figure, query: Query) -> str:
    spec = figure.spec
    given = as_list(query.get("by")) or []
    if len(given) > 1:
        raise BadQuery("Give one dimension as by (the one ranked), e.g. by=model.")
    if not given or given[0] == "":
        by = ranking.default_by(figure)
        if by is None:
            raise BadQuery(f"Figure '{figure.id}' has no dimension with two or more labels to "
                           "rank. Pick another figure.")
        return by
    by = given[0]
    if by not in spec.dims:
        raise BadQuery(f"'{fmt.clip(by, MAX_QUOTED)}' is not a dimension of figure "
                       f"'{figure.id}'. Use by= one of: {fmt.listing(spec.dim_names, MAX_LISTED)}.")
    if len(spec.dims[by].labels) < 2:
        raise BadQuery(f"{spec.dims[by].title} has one label in figure '{figure.id}': nothing to "
                       f"rank. Use by= a dimension with several labels.")
    if spec.metrics is not None and spec.metrics.dim == by:
        metrics = {spec.metric_for({by: label}) for label in spec.dims[by].labels}
        if len(metrics) > 1:
            raise BadQuery(f"The labels of {spec.dims[by].title.lower()} are different metrics, "
                           "which cannot be ranked against each other. Rank another "
                           "dimension and fix this one at a label.")
    return by


def _check_keys(figure: Figure, query: Query) -> None:
    dims = set(figure.spec.dims)
    for key in query:
        if key in dims or key in RANK_KEYS or key in IGNORED_KEYS:
            continue
        if key == "alpha":
            raise BadQuery("alpha is fixed at 0.05 in the Rank answer. Leave alpha out.")
        raise BadQuery(f"Rank reads figure, by, k, cluster, format and <dimension>=<label>; "
                       f"'{fmt.clip(key, MAX_QUOTED)}' is none of these for figure "
                       f"'{figure.id}'. Leave it out.")


@dataclass(frozen=True, eq=False)
class RankView:
    """What Rank shows (``/rank?figure=<id>&by=<dim>&...``): per cell, the models' means,
    intervals, ranks, marginal rank intervals and simultaneous rank sets, every pair tested,
    best or tied, and per model where it is best (see :mod:`evalmaps.analysis.rank`)."""

    figure: Figure
    ranking: ranking.Ranking
    url: str  # the page that shows it

    @classmethod
    def from_query(cls, catalog: Catalog, query: Query) -> RankView:
        figure_id = first(query.get("figure"))
        figure = catalog.figure(figure_id) if figure_id else default_figure(catalog)
        _check_keys(figure, query)
        fmt_given = as_list(query.get("format")) or []
        if fmt_given and (len(fmt_given) > 1 or fmt_given[0] not in FORMATS):
            raise BadQuery(f"Unknown format '{fmt.clip(', '.join(fmt_given), MAX_QUOTED)}'. Use "
                           "format=json, csv (one row per cell and model) or csv-pairs.")
        own_k = "k" in figure.spec.dims  # a dimension k takes k= as its label
        k = 1 if own_k else int(first(query.get("k")) or 1)
        by = _by(figure, query)
        filters = parse_filters(figure, {key: v for key, v in query.items() if key != "by"})
        if by in filters and len(filters[by]) < 2:
            raise BadQuery(f"Give two or more labels of {by} to rank (by={by}), or none for all "
                           "of them.")
        clusters = as_list(query.get("cluster")) or []
        if len(clusters) > 1:
            raise BadQuery("Give one cluster column (cluster=COL), or leave cluster out.")
        cluster = clusters[0] if clusters and clusters[0] != "" else None
        try:
            result = kept_ranking(figure, by, filters, k, ranking.MAX_PAIRS, lambda: (
                figure if own_k else figure_at_query(figure, query)), cluster=cluster)
        except ranking.ClusterError as exc:
            raise BadQuery(str(exc)) from None
        except ranking.TooManyPairs as exc:
            narrow = [d for d in figure.spec.dim_names
                      if d != by and len(figure.spec.dims[d].labels) > 1]
            raise BadQuery(f"This answer would test {exc.pairs:,} pairs in {exc.cells:,} cells, "
                           f"over the {exc.limit:,} one answer holds. Narrow it with "
                           f"<dimension>=<label> ({fmt.listing(narrow, 4)}) or fewer labels of "
                           f"{by}.") from None
        keep = {key: as_list(value) for key, value in query.items()
                if key not in ("format",) and key not in IGNORED_KEYS}
        keep["figure"] = [figure.id]
        url = "/rank?" + urlencode(sorted(keep.items()), doseq=True)
        return cls(figure, result, url)

    def to_dict(self) -> dict:
        spec = self.figure.spec
        out = {**answer_of(self.ranking), "url": self.url,
               "titles": {d: spec.dims[d].title for d in spec.dim_names},
               "label_prefix": label_prefix(self.ranking.models)}
        out["cells"] = [{**cell, "compare": self.compare_query(cell["labels"])}
                        for cell in out["cells"]]
        return out

    def compare_query(self, labels: dict) -> str:
        """The query that opens a pair of this cell in Compare, after its ``a`` and ``b``
        (``<figure>:<by>=<label>``): the cell as Compare's grid names it (``cell=<row>|<column>``,
        its default rows and columns for two labels of ``by``), the other dimensions fixed at
        the cell's labels, ``k`` and ``cluster``. The same query after ``/compare/items.json?a=..&b=..&``
        gives the cell's items."""
        spec, r = self.figure.spec, self.ranking
        y, x = comparing.default_axes(spec, r.by)
        query = [("cell", f"{labels[y] if y else comparing.ONE_ROW}|{labels[x]}")]
        query += [(d, label) for d, label in labels.items() if d not in (y, x)]
        if r.k != 1:
            query.append(("k", str(r.k)))
        if r.cluster is not None:
            query.append(("cluster", r.cluster))
        return urlencode(query, safe="|:")

    def models_csv(self) -> str:
        """One row per cell and model: the other dimensions' labels, the model, n, mean, its
        standard error, its interval, rank, the marginal rank interval, the simultaneous rank
        set, best or tied and alone best."""
        r = self.ranking
        dims = _cell_dims(r)
        clustered = ["se_clustered", "n_clusters"] if r.cluster is not None else []
        rows = [[*dims, r.by, "n", "mean", "se", *clustered, "ci_low", "ci_high", "rank",
                 "rank_ci_low", "rank_ci_high", "rank_set_low", "rank_set_high", "best_or_tied",
                 "best"]]
        for cell in r.cells:
            for m in cell.models:
                ci, rci, rset = m.ci or (None, None), m.rank_ci or (None, None), \
                    m.rank_set or (None, None)
                more = [m.se_clustered, m.n_clusters] if clustered else []
                rows.append([*(cell.labels[d] for d in dims), m.model, m.n, m.mean, m.se,
                             *more, *ci, m.rank, *rci, *rset, m.best_or_tied, m.best])
        return _csv(rows)

    def pairs_csv(self) -> str:
        """One row per cell and pair, the JSON's pairs."""
        r = self.ranking
        dims = _cell_dims(r)
        names = ["a", "b", "n", "a_mean", "b_mean", "diff", "ci_low", "ci_high", "p",
                 "p_adjusted", "test", "a_only", "b_only", "only_in_a", "only_in_b",
                 *(["se_diff_clustered", "n_clusters"] if r.cluster is not None else []),
                 "distinguishable"]
        rows = [[*dims, *names]]
        for cell in r.cells:
            for p in cell.pairs:
                row = p.as_dict(clustered=r.cluster is not None)
                rows.append([*(cell.labels[d] for d in dims), *(row[n] for n in names)])
        return _csv(rows)

    def csv_name(self, pairs: bool = False) -> str:
        return f"{self.figure.id}__rank{'_pairs' if pairs else ''}.csv"


def _cell_dims(r: ranking.Ranking) -> list[str]:
    return list(r.cells[0].labels) if r.cells else []


def _cell(value) -> object:
    """A CSV field: empty for null, true/false as the JSON writes them, text neutralised
    (no spreadsheet formula), numbers as they are."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return fmt.neutralise(value) if isinstance(value, str) else value


def _csv(rows) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return buf.getvalue()


OVERVIEW_MAX_PAIRS = 5_000  # pairs one figure may test in the overview (else: open it alone)
OVERVIEW_KEYS = ("format",)


def model_dimension(figure: Figure) -> str | None:
    """The figure's dimension of models (named or titled Model) when it has two or more labels:
    what the overview ranks (a figure without one ranks no models)."""
    by = ranking.default_by(figure)
    if by is None:
        return None
    spec = figure.spec
    return by if "model" in (by.casefold(), spec.dims[by].title.casefold()) else None


@dataclass(frozen=True, eq=False)
class RankOverview:
    """Where each model is best, across every figure that ranks models (``/rank/overview.json``;
    the section of ``/rank`` that names no figure): per figure with a dimension of models
    (:func:`model_dimension`), its models ranked in each of its cells
    (:func:`evalmaps.analysis.rank.rank_figure`: paired tests on items where it has them, else
    unpaired on standard errors, else none), and per cell the models of the highest mean and
    those best or tied (``tested`` false: no pair could be tested, so every model is tied and
    only the highest mean says anything). Benjamini-Hochberg runs within each figure's pairs,
    as its own Rank answer does. A figure whose cells would test more than
    :data:`OVERVIEW_MAX_PAIRS` pairs is listed with the reason and its own Rank link, not
    ranked here."""

    entries: tuple[dict, ...]

    @classmethod
    def from_query(cls, catalog: Catalog, query: Query) -> RankOverview:
        for key in query:
            if key not in OVERVIEW_KEYS:
                raise BadQuery(f"The overview of every figure reads no '{fmt.clip(key, MAX_QUOTED)}'"
                               f"; open one figure's ranking with /rank.json?figure=<id>.")
        given = as_list(query.get("format")) or ["json"]
        if given != ["json"]:
            raise BadQuery("The overview answers JSON only. Leave format out.")
        entries = []
        for figure in catalog:
            by = model_dimension(figure)
            if by is None:
                continue
            link = "/rank?" + urlencode({"figure": figure.id})
            base = {"figure": figure.id, "title": figure.spec.title, "by": by,
                    "by_title": figure.spec.dims[by].title, "url": link,
                    "illustrative": figure.spec.provenance == "illustrative"}
            try:
                result = kept_ranking(figure, by, {}, 1, OVERVIEW_MAX_PAIRS)
            except ranking.TooManyPairs as exc:
                entries.append({**base, "ranked": False, "basis": None, "cells": [],
                                "summary": [],
                                "reason": f"{exc.pairs:,} pairs in {exc.cells:,} cells: open "
                                          f"it on its own and narrow it."})
                continue
            tests = sorted({p.test for c in result.cells for p in c.pairs})
            entries.append({
                **base, "ranked": True, "basis": result.basis, "tests": tests,
                "reason": None,
                "tested": any(p.p is not None for c in result.cells for p in c.pairs),
                "cells": [{"labels": dict(c.labels),
                           "highest": [m.model for m in c.models if m.rank == 1],
                           "best_or_tied": [m.model for m in c.models if m.best_or_tied],
                           "best": next((m.model for m in c.models if m.best), None)}
                          for c in result.cells],
                "summary": result.summary()})
        return cls(tuple(entries))

    def to_dict(self) -> dict:
        return {"alpha": ranking.ALPHA,
                "p_adjusted": f"{ranking.ADJUSTED}, within each figure",
                "figures": list(self.entries)}


# --------------------------------------------------------------------------- kept answers

KEPT_PAIRS = 40_000  # pairs of the rankings kept per process (50 models x 14 cells: 17,150)


def _records_version(figure: Figure):
    """The version of the figure's per-item records as :data:`evalmaps.catalog.items.KEPT`
    keys them (the file's path, size, time and inode: records are written once, by rename),
    () without records; None where the file cannot be read (nothing is kept then)."""
    records = getattr(figure, "items", None)
    if records is None:
        return ()
    try:
        stat = records.scores_path.stat()
    except (OSError, AttributeError):
        return None
    return (id(records), str(records.scores_path), stat.st_size, stat.st_mtime_ns, stat.st_ino)


class _KeptRankings:
    """The rankings answered lately (:func:`evalmaps.analysis.rank.rank_figure`), each with its
    JSON answer once asked for (:func:`answer_of`), so that a page loaded again, its CSV, the
    API and the overview of every figure do not rank again. Keyed by the figure as it is served
    (the object itself: a watched folder that changes is read into a new one, checked by a weak
    reference so that a new object at a freed address is never taken for the old) and its
    records' version, then the question (``by``, the labels kept, ``k``, the bound on pairs);
    least recently used dropped past :data:`KEPT_PAIRS` pairs. A figure no longer served is
    dropped with it. Shared by threads, under a lock."""

    def __init__(self, limit: int = KEPT_PAIRS) -> None:
        # key -> (weak reference to the figure, ranking), weighed by the ranking's pairs
        self._kept = Kept(limit, weigh=lambda found: max(
            sum(len(c.pairs) for c in found[1].cells), 1))

    limit = property(lambda self: self._kept.limit,
                     lambda self, value: setattr(self._kept, "limit", value))
    size = property(lambda self: self._kept.size)

    def get(self, figure: Figure, key) -> ranking.Ranking | None:
        found = self._kept.get(key)
        return None if found is None or found[0]() is not figure else found[1]

    def put(self, figure: Figure, key, result: ranking.Ranking) -> None:
        try:
            ref = weakref.ref(figure, lambda _ref, key=key: self._kept.drop(key))
        except TypeError:
            return
        self._kept.put(key, (ref, result))

    def clear(self) -> None:
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)


KEPT_RANKINGS = _KeptRankings()


def kept_ranking(figure: Figure, by: str, filters: dict, k: int, max_pairs: int | None,
                 at=None, cluster: str | None = None) -> ranking.Ranking:
    """:func:`evalmaps.analysis.rank.rank_figure` of ``figure`` (``at()``: the figure at
    pass@k, made only when the answer is not kept), answered from :data:`KEPT_RANKINGS` when
    the same figure, at the same version, was asked the same question."""
    version = _records_version(figure)
    key = None if version is None else (
        id(figure), version, by, k, max_pairs, cluster,
        tuple(sorted((d, tuple(sorted(labels))) for d, labels in filters.items())))
    found = None if key is None else KEPT_RANKINGS.get(figure, key)
    if found is not None:
        return found
    result = ranking.rank_figure(at() if at is not None else figure, by, filters, k,
                                 max_pairs=max_pairs, cluster=cluster)
    if key is not None:
        KEPT_RANKINGS.put(figure, key, result)
    return result


_answers_lock = threading.Lock()


def answer_of(result: ranking.Ranking) -> dict:
    """``result.to_dict()``, written once per ranking and kept on it (a kept ranking answers
    its JSON again without writing it anew); a new dict each call, its cells new dicts, so that
    callers may add to them. The pairs' and models' dicts are shared: read them, never change
    them."""
    found = getattr(result, "_answer", None)
    if found is None:
        found = result.to_dict()
        with _answers_lock:  # a frozen dataclass: its one cached attribute, set once
            if getattr(result, "_answer", None) is None:
                object.__setattr__(result, "_answer", found)
            found = result._answer
    return {**found, "cells": [dict(cell) for cell in found["cells"]]}
