"""Rank many models at once: per cell, each model's mean and rank with their intervals, every
pair tested as Compare tests a cell, and which models are best or tied (issue 38).

Pure numpy and pandas, no Dash or Flask::

    from evalmaps.catalog.load import load_catalog
    from evalmaps.analysis.rank import rank_figure
    ranking = rank_figure(load_catalog().figure("mmlu-pro"))
    ranking.to_dict()["summary"]

**What is ranked.** A figure's dimension ``by`` (:func:`default_by`: the dimension named
``model``, else the first facet with three or more labels, else the first dimension with three
or more, else with two) is ranked within each *cell*: each combination of the labels of the
other dimensions. A cell is ranked where at least two of its labels of ``by`` (the "models")
have a value; the others are left out and named in a note. Models are in natural order
(:func:`evalmaps.core.text.natural_key`: numbers and sizes by value, ``7b < 13b < 70b``).

**Means.** A model's ``mean`` is the figure's own value of the cell (at pass@k its items'
mean pass@k), as ``/api/compare`` gives it: the figure's own units. ``n`` is its items in the
cell (else the cell's own ``n`` where the source gives one). ``ci``, its 95% interval, is the
one Trends draws (:func:`evalmaps.analysis.uncertainty.item_intervals`): the Wilson interval
for 0/1 scores with one sample per item at k = 1, else the percentile bootstrap of the mean of
the item scores; without items, the interval of the source's standard error.

**Rank.** 1 is the best: the highest mean, the lowest where the metric is lower-is-better.
Ties share the smallest rank ("competition" ranking, 1, 2, 2, 4): a model's rank is one plus
the number of models strictly better than it. The same rule ranks every bootstrap resample.

**Two rank intervals, named apart.**

- ``rank_ci``, the *marginal* 95% rank interval: a paired bootstrap over the cell's items
  (:data:`RESAMPLES` resamples, each one draw of the items with replacement used for every
  model, seeded from the figure, ``by``, the cell's labels and k: :func:`cell_seed`). Each
  resample ranks the models by their means over the drawn items; ``rank_ci`` is the 2.5th and
  97.5th percentiles of a model's resampled ranks (``inverted_cdf``: the smallest rank whose
  share of resamples at or below it reaches 2.5%, resp. 97.5%). It covers one model's rank;
  read together, the intervals of many models do not cover all their ranks at once.
- ``rank_set``, the *simultaneous* 95% confidence set of all ranks at once (Mogstad, Romano,
  Shaikh and Wilhelm, "Inference for Ranks", Review of Economic Studies 2024; as their
  ``csranks`` package computes it with ``simul=TRUE``, ``stepdown=TRUE``, two-sided):
  :func:`rank_sets`. From the same resamples, every ordered pair's difference of means is
  studentised by its standard error; the critical value is the 95th percentile of the largest
  studentised deviation over the pairs still in play, every difference whose lower bound
  ``theta_j - theta_k - se_jk c`` is above 0 is decided (j surely better than k), and the
  critical value is found again over the pairs left until no more are decided (the stepdown).
  Then model j's rank set is ``[1 + #{k surely better than j}, N - #{k j is surely better
  than}]``, and all N sets hold the true ranks together with probability about 95%, so "the top
  three" read from them holds for the whole table. ``csranks`` draws the differences from a
  normal with the estimated covariance; with per-item records the paired bootstrap gives them
  (the paper's nonparametric bootstrap); without items, from the standard errors, the normal
  draw is made as ``csranks`` makes it.

Both need the items every ranked model of the cell answered (the cell's *common* items, at
least :data:`evalmaps.analysis.paired.MIN_ITEMS`): they are None otherwise, with a note. Where
the models answered different items, both are computed on the common items and a warning says
so.

**Pairs.** Every unordered pair (A before B in the models' order) is tested on the items both
answered exactly as Compare tests a cell (:func:`evalmaps.analysis.paired.paired_cell`: exact
McNemar for 0/1 scores with one sample per item at k = 1, else the sign-flip test, untested
below ``MIN_ITEMS`` common items), so its ``p`` is ``/api/compare``'s for the same two labels
and cell. ``diff`` is B - A; ``a_only`` and ``b_only`` are Compare's: the common items A has
right and B has not, and the other way round; ``only_in_a``, ``only_in_b``: the items only one
side answered. ``p_adjusted`` is Benjamini-Hochberg over every tested pair of every cell of the
answer (not per cell). Without items but with standard errors on both sides, the pair has the
unpaired z-test, ``|B - A| / sqrt(seA^2 + seB^2)`` (``test`` ``"unpaired-z"``); with neither,
``test`` is ``"none"``: no test is made on data that cannot support it.

**Clustered** (``cluster=COL``, a column the records keep: an import's ``--cluster COL``):
items of a cluster (a passage, a source data set) are not independent, so with ``cluster``
each model also gets ``se_clustered`` and ``n_clusters``
(:func:`evalmaps.analysis.power.clustered_se` over its items) and its ``ci`` is ``mean ±
t_0.975 se_clustered`` with Student's t at ``n_clusters - 1`` degrees of freedom (within the
metric's range; the unclustered interval where its items are in one cluster); every pair is
tested as Compare's clustered cells are (:func:`evalmaps.analysis.paired.clustered_test`: the
Wald test on the differences' clustered standard error, t at ``n_clusters - 1`` df; a pair
whose common items are in one cluster keeps its unclustered test), with ``se_diff_clustered``
and ``n_clusters``, and Benjamini-Hochberg over them as before; and the rank intervals and rank
sets come from a *cluster bootstrap* (:func:`cluster_counts`): each resample draws the common
items' clusters with replacement (every item of a drawn cluster with it, the same clusters for
every model), and the rank sets' standard errors are the clustered ones
(:func:`clustered_cov`). Below 2 clusters of common items there is no cluster bootstrap: no
rank intervals or sets, with a note.

**Best or tied.** The best model is the one with the best mean (the first in order among equal
means); a model is *best or tied* when it is the best, or its pair with the best is not
distinguishable: ``p_adjusted`` at least :data:`ALPHA`, or untested (an untested pair is not
distinguishable). ``best`` marks the best model of a cell where it alone is best or tied.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from evalmaps.analysis import paired as paired_stats
from evalmaps.analysis import power, uncertainty
from evalmaps.catalog.items import CellMatrix
from evalmaps.core import text as fmt
from evalmaps.core.figure import Figure, Metric

RESAMPLES = 1000  # paired bootstrap resamples of a cell's items (rank intervals, rank sets)
ALPHA = paired_stats.ALPHA  # best or tied: adjusted p at least this
LEVEL = paired_stats.LEVEL  # intervals' and rank sets' coverage
RANK_INTERVAL = ("marginal 95% rank interval: the 2.5th and 97.5th percentiles of the model's "
                 "rank over 1,000 paired bootstrap resamples of the cell's common items (the "
                 "same items for every model in a resample)")
RANK_INTERVAL_SE = ("marginal 95% rank interval: the 2.5th and 97.5th percentiles of the "
                    "model's rank over 1,000 normal draws from the means' standard errors")
RANK_SET = ("simultaneous 95% confidence set of all ranks at once (Mogstad, Romano, Shaikh and "
            "Wilhelm, Inference for Ranks, 2024; stepdown, two-sided, as csranks): from the "
            "max-t bootstrap of every pair's difference")
CI = ("95% interval of the mean: Wilson for 0/1 scores with one sample per item, else the "
      "percentile bootstrap over items; without items, from the source's standard error")
ADJUSTED = "Benjamini-Hochberg over every tested pair of every cell of the answer"
RANK_INTERVAL_CLUSTERED = ("marginal 95% rank interval: the 2.5th and 97.5th percentiles of "
                           "the model's rank over 1,000 cluster bootstrap resamples of the "
                           "cell's common items (their clusters of {cluster} drawn with "
                           "replacement, every item of a drawn cluster with it, the same "
                           "clusters for every model)")
RANK_SET_CLUSTERED = RANK_SET.replace("max-t bootstrap", "max-t cluster bootstrap (clusters "
                                      "of {cluster}) and the clustered standard error")
CI_CLUSTERED = ("95% interval of the mean from its standard error clustered by {cluster}: mean "
                "± t_0.975 se_clustered, Student's t with n_clusters − 1 df, within the "
                "metric's range (the unclustered interval where a model's items are in one "
                "cluster)")
MAX_PAIRS = 20_000  # pairs one answer holds at most (50 models x 14 cells: 17,150)


class TooManyPairs(ValueError):
    """An answer that would hold more than its bound of pairs: ``pairs`` of ``cells``."""

    def __init__(self, pairs: int, cells: int, limit: int) -> None:
        super().__init__(f"{pairs} pairs in {cells} cells, over {limit}")
        self.pairs, self.cells, self.limit = pairs, cells, limit


# --------------------------------------------------------------------------- ranks

def competition_ranks(values, higher_is_better: bool = True) -> np.ndarray:
    """Ranks along the last axis, 1 the best (the highest, or the lowest where lower is
    better); ties share the smallest rank: one plus the number of strictly better values."""
    v = np.asarray(values, dtype=np.float64)
    v = v if higher_is_better else -v
    better = v[..., None, :] > v[..., :, None]  # [..., j, k]: k better than j
    return 1 + better.sum(axis=-1)


def cell_seed(figure_id: str, by: str, labels: Mapping[str, str], k: int) -> int:
    """A cell's resampling seed: from the figure, the ranked dimension, the cell's labels and
    k (the same query gives the same numbers)."""
    return paired_stats.seed_of("rank", figure_id, by,
                                *(f"{d}={label}" for d, label in labels.items()), f"k={k}")


def resample_counts(n: int, seed: int, resamples: int = RESAMPLES,
                    indices: np.ndarray | None = None) -> np.ndarray:
    """How many times each of ``n`` items is drawn in each bootstrap resample (resamples x n):
    ``n`` uniform draws with replacement per resample (seeded), or the counts of explicit
    resamples ``indices`` (resamples x n item positions; an exact enumeration passes every
    one)."""
    if indices is not None:
        indices = np.asarray(indices, dtype=np.int64)
        rows = indices.shape[0]
    else:
        rows = resamples
        indices = np.random.default_rng(seed).integers(0, n, size=(rows, n))
    flat = (indices + (np.arange(rows)[:, None] * n)).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)


def bootstrap_means(scores: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each model's mean in each resample (resamples x models) of ``scores`` (models x items,
    one row per model on the same items) under ``counts`` (resamples x items)."""
    return counts @ np.asarray(scores, dtype=np.float64).T / counts.shape[1]


def cluster_counts(codes: np.ndarray, clusters: int, seed: int, resamples: int = RESAMPLES
                   ) -> np.ndarray:
    """How many times each item is drawn in each *cluster* bootstrap resample (resamples x
    items): ``clusters`` uniform draws of the clusters with replacement per resample (seeded),
    each item counted as often as its cluster (``codes``: each item's cluster, 0 ..
    clusters - 1) is drawn."""
    codes = np.asarray(codes, dtype=np.int64)
    draws = np.random.default_rng(seed).integers(0, clusters, size=(resamples, clusters))
    flat = (draws + np.arange(resamples)[:, None] * clusters).ravel()
    per_cluster = np.bincount(flat, minlength=resamples * clusters).reshape(resamples, clusters)
    return per_cluster[:, codes].astype(np.float64)


def weighted_means(scores: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each model's mean in each resample (resamples x models) of ``scores`` (models x items)
    under ``counts`` (resamples x items) whose rows need not sum to the items (a cluster
    bootstrap draws clusters, not items): the counts' weighted mean."""
    return counts @ np.asarray(scores, dtype=np.float64).T / counts.sum(axis=1)[:, None]


def clustered_cov(scores: np.ndarray, codes: np.ndarray, clusters: int) -> np.ndarray:
    """The cluster-robust covariance of the models' means (models x models) over items
    clustered by ``codes``: ``S S^T / n²`` with ``S[j, c]`` the sum over cluster c of model j's
    deviations from its mean (its diagonal is each model's ``se_clustered²``,
    :func:`evalmaps.analysis.power.clustered_se`)."""
    scores = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    dev = scores - scores.mean(axis=1, keepdims=True)
    sums = np.stack([np.bincount(codes, weights=row, minlength=clusters) for row in dev])
    return sums @ sums.T / scores.shape[1] ** 2


def shared_clusters(labels: Sequence[np.ndarray]) -> np.ndarray:
    """One cluster per item from several models' labels of the same items: the first's where
    all agree, else items are together where any model puts them together
    (:func:`evalmaps.analysis.paired.common_clusters`, folded over the models)."""
    out = np.asarray(labels[0], dtype=object).astype(str)
    for more in labels[1:]:
        out = np.asarray(paired_stats.common_clusters(out, more), dtype=object).astype(str)
    return out


def rank_intervals(draws: np.ndarray, higher_is_better: bool = True,
                   level: float = LEVEL) -> np.ndarray:
    """The marginal rank interval of each model (models x 2, ints) from resampled means
    ``draws`` (resamples x models): the (1 - level)/2 and (1 + level)/2 percentiles of its
    resampled competition ranks, ``inverted_cdf`` (ranks are whole numbers)."""
    ranks = competition_ranks(draws, higher_is_better)
    tail = (1 - level) / 2
    lo = np.quantile(ranks, tail, axis=0, method="inverted_cdf")
    hi = np.quantile(ranks, 1 - tail, axis=0, method="inverted_cdf")
    return np.stack([lo, hi], axis=1).astype(np.int64)


def difference_sds(cov: np.ndarray) -> np.ndarray:
    """The standard error of each difference ``theta_j - theta_k`` from the estimates'
    covariance: ``sqrt(S_jj + S_kk - 2 S_jk)`` (0 on the diagonal and where it is noise)."""
    cov = np.asarray(cov, dtype=np.float64)
    d = np.diag(cov)
    var = d[:, None] + d[None, :] - 2 * cov
    scale = max(float(np.abs(d).max()) if d.size else 0.0, 1e-300)
    return np.sqrt(np.where(var > 1e-12 * scale, var, 0.0))


def rank_sets(theta, deviations, sds, higher_is_better: bool = True, level: float = LEVEL
              ) -> np.ndarray:
    """Simultaneous confidence sets for the ranks of all models (models x 2, ints), as
    ``csranks(x, Sigma, simul=TRUE, stepdown=TRUE, cstype="two-sided")`` builds them.

    ``theta``: the estimates (models); ``deviations``: draws of the estimates' error
    (resamples x models; bootstrap means minus ``theta``, or normal draws); ``sds``: each
    difference's standard error (models x models, :func:`difference_sds`). The difference
    ``theta_j - theta_k`` (j better than k for a higher-is-better metric) has the lower bound
    ``L_jk = theta_j - theta_k - sds_jk c`` with ``c`` the ``level`` quantile (numpy's
    linear, R's default) of ``max over the pairs in play of (Z_j - Z_k) / sds_jk``; pairs whose
    bound is above 0 are decided and leave play, and ``c`` is found again until none is
    decided. Rank set of j: ``[1 + #{k: L_kj > 0}, N - #{k: L_jk > 0}]``. A pair whose
    difference never varies (``sds`` 0) counts as 0 in the maximum."""
    x = np.asarray(theta, dtype=np.float64)
    z = np.asarray(deviations, dtype=np.float64)
    if not higher_is_better:
        x, z = -x, -z
    m = len(x)
    diff = x[:, None] - x[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sds > 0, (z[:, :, None] - z[:, None, :]) / np.where(sds > 0, sds, 1), 0.0)
    in_play = ~np.eye(m, dtype=bool)
    lower = np.zeros((m, m))
    while in_play.any():
        c = float(np.quantile(t[:, in_play].max(axis=1), level))
        lower[in_play] = (diff - sds * c)[in_play]
        decided = in_play & (lower > 0)
        if not decided.any():
            break
        in_play &= ~decided
    surely = lower > 0  # [j, k]: j surely better than k
    return np.stack([1 + surely.sum(axis=0), m - surely.sum(axis=1)], axis=1).astype(np.int64)


# --------------------------------------------------------------------------- unpaired

def unpaired_z(a: float, se_a: float, b: float, se_b: float) -> tuple[float, float, float]:
    """The unpaired z-test of B - A from two standard errors: (ci_low, ci_high, p) with
    ``z = |b - a| / sqrt(se_a^2 + se_b^2)`` and ``p = 2 (1 - Phi(z))``."""
    se = math.hypot(se_a, se_b)
    d = b - a
    if se == 0:
        return d, d, 1.0 if d == 0 else 0.0
    p = math.erfc(abs(d) / se / math.sqrt(2.0))
    return d - paired_stats.Z_95 * se, d + paired_stats.Z_95 * se, p


# --------------------------------------------------------------------------- one cell

@dataclass(frozen=True)
class ModelRank:
    """One model in one cell."""

    model: str
    n: int | None
    mean: float
    ci: tuple[float, float] | None
    rank: int
    rank_ci: tuple[int, int] | None  # marginal
    rank_set: tuple[int, int] | None  # simultaneous
    best_or_tied: bool = False
    best: bool = False  # alone best: the best, and no other model tied with it
    se: float | None = None  # the mean's standard error: sqrt(s² / n) over items, or the source's
    se_clustered: float | None = None  # clustered (cluster=COL) over its n_clusters clusters
    n_clusters: int | None = None

    def as_dict(self, clustered: bool = False) -> dict:
        return {"model": self.model, "n": self.n, "mean": self.mean, "se": self.se,
                **({"se_clustered": self.se_clustered, "n_clusters": self.n_clusters}
                   if clustered else {}),
                "ci": None if self.ci is None else list(self.ci), "rank": self.rank,
                "rank_ci": None if self.rank_ci is None else list(self.rank_ci),
                "rank_set": None if self.rank_set is None else list(self.rank_set),
                "best_or_tied": self.best_or_tied, "best": self.best}


@dataclass(frozen=True)
class PairTest:
    """One unordered pair in one cell: B against A (A first in the models' order)."""

    a: str
    b: str
    n: int | None  # common items (None: no items)
    a_mean: float
    b_mean: float
    diff: float  # b_mean - a_mean (on the common items where there are items)
    ci_low: float | None
    ci_high: float | None
    p: float | None
    p_adjusted: float | None
    test: str  # mcnemar, sign-flip, sign-flip-normal, unpaired-z or none
    a_only: int | None  # common items A has right and B has not (Compare's a_only)
    b_only: int | None
    only_in_a: int | None = None  # items only A answered (not in the test)
    only_in_b: int | None = None
    se_diff_clustered: float | None = None  # clustered (cluster=COL): the test's SE
    n_clusters: int | None = None  # the common items' clusters

    @property
    def distinguishable(self) -> bool:
        return self.p_adjusted is not None and self.p_adjusted < ALPHA

    def as_dict(self, clustered: bool = False) -> dict:
        return {"a": self.a, "b": self.b, "n": self.n, "a_mean": self.a_mean,
                "b_mean": self.b_mean, "diff": self.diff, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "p": self.p, "p_adjusted": self.p_adjusted,
                "test": self.test, "a_only": self.a_only, "b_only": self.b_only,
                "only_in_a": self.only_in_a, "only_in_b": self.only_in_b,
                **({"se_diff_clustered": self.se_diff_clustered, "n_clusters": self.n_clusters}
                   if clustered else {}),
                "distinguishable": self.distinguishable}


@dataclass(frozen=True)
class CellRanking:
    labels: dict  # the other dimensions' labels
    models: tuple[ModelRank, ...]
    pairs: tuple[PairTest, ...]
    n_common: int | None  # items every ranked model answered (None: no items)
    higher_is_better: bool = True
    missing: tuple[str, ...] = ()  # models without a value here

    def as_dict(self, clustered: bool = False) -> dict:
        return {"labels": dict(self.labels),
                "models": [m.as_dict(clustered) for m in self.models],
                "pairs": [p.as_dict(clustered) for p in self.pairs], "n_common": self.n_common,
                "higher_is_better": self.higher_is_better, "missing": list(self.missing)}


def _r(value) -> float | None:
    if value is None or not np.isfinite(value):
        return None
    return float(round(float(value), paired_stats.DECIMALS)) + 0.0


def _paired_test(a: str, b: str, a_mean: float, b_mean: float, result) -> PairTest:
    if result is None:  # no items in common
        return PairTest(a, b, 0, a_mean, b_mean, _r(b_mean - a_mean), None, None, None, None,
                        "none", None, None)
    return PairTest(a, b, result.n, result.a_mean, result.b_mean, result.diff, result.ci_low,
                    result.ci_high, result.p, result.p, result.test, result.a_only,
                    result.b_only, result.only_in_a, result.only_in_b,
                    result.se_diff_clustered, result.n_clusters)


def cell_ranking(labels: Mapping[str, str], models: Sequence[str], means, extras: Sequence[dict],
                 pairs: Sequence[PairTest], n_common: int | None, higher_is_better: bool = True,
                 missing: Sequence[str] = ()) -> CellRanking:
    """A cell's ranking from its models' means (competition ranks) and what
    :func:`rank_items_cell` or :func:`rank_se_cell` found (``extras``: n, ci, rank_ci,
    rank_set per model); best or tied comes with :func:`with_adjusted`."""
    means = np.asarray(means, dtype=np.float64)
    ranks = competition_ranks(means, higher_is_better)
    rows = tuple(ModelRank(m, e["n"], float(means[j]), e["ci"], int(ranks[j]), e["rank_ci"],
                           e["rank_set"], se=e.get("se"), se_clustered=e.get("se_clustered"),
                           n_clusters=e.get("n_clusters"))
                 for j, (m, e) in enumerate(zip(models, extras)))
    return CellRanking(dict(labels), rows, tuple(pairs), n_common, higher_is_better,
                       tuple(missing))


def item_matrix(cells: Sequence[object], k: int = 1
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Several models' items of one cell (ItemScores each) on the union of their item ids in
    id order: (the ids; each item's score at pass@``k``, models x items, NaN where a model
    lacks the item; its samples, 0 where it lacks it). One sort of the ids for the cell
    instead of one per pair."""
    first = np.asarray(cells[0].items, dtype=object)
    if all(len(c.items) == len(first) and np.array_equal(c.items, first) for c in cells[1:]):
        union = first  # the same items (the usual case): ids already sorted and unique
    else:
        union = np.unique(np.concatenate([np.asarray(c.items, dtype=object) for c in cells]))
    values = np.full((len(cells), len(union)), np.nan)
    samples = np.zeros((len(cells), len(union)), dtype=np.int64)
    for row, cell in enumerate(cells):
        at = np.searchsorted(union, cell.items)
        values[row, at] = paired_stats.item_values(cell, k)
        samples[row, at] = cell.n
    return union, values, samples


def matrix_rows(matrix: CellMatrix, models: Sequence[str]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[bool]]:
    """What :func:`item_matrix` gives at k = 1 for ``models`` (each a row of ``matrix``,
    :meth:`evalmaps.catalog.items.ItemRecords.matrices`), and each one's ``binary``: the same
    numbers on the union of these models' items, with no id compared."""
    rows = np.array([matrix.rows[m] for m in models], dtype=np.int64)
    samples = matrix.n[rows]
    has = samples > 0
    kept = has.any(axis=0)
    if not kept.all():  # items only models left out of the ranking have
        samples, has = samples[:, kept], has[:, kept]
        total = matrix.total[np.ix_(rows, np.flatnonzero(kept))]
        union = matrix.items[kept]
    else:
        total, union = matrix.total[rows], matrix.items
    values = np.full(total.shape, np.nan)
    np.divide(total, samples, out=values, where=has)  # each item's mean, as ItemScores.mean
    return union, values, samples, [bool(matrix.binary[r]) for r in rows]


def paired_on_matrix(values: np.ndarray, samples: np.ndarray, i: int, j: int, k: int,
                     binary: tuple[bool, bool], higher_is_better: bool = True):
    """Model j against model i on the items both have, exactly as
    :func:`evalmaps.analysis.paired.paired_cell` compares two cells' items (the same common
    items in the same id order, the same test: exact McNemar for 0/1 scores with one sample
    per item at k = 1, else the sign-flip test), from :func:`item_matrix`'s rows; None when
    they share no item."""
    both = (samples[i] > 0) & (samples[j] > 0)
    n = int(both.sum())
    if not n:
        return None
    mcnemar = (k == 1 and binary[0] and binary[1] and bool((samples[i, both] == 1).all())
               and bool((samples[j, both] == 1).all()))
    result = paired_stats.paired_values(values[i, both], values[j, both], mcnemar,
                                        higher_is_better)
    return replace(result, only_in_a=int((samples[i] > 0).sum()) - n,
                   only_in_b=int((samples[j] > 0).sum()) - n)


def mcnemar_pairs(models: Sequence[str], scores: np.ndarray, higher_is_better: bool = True
                  ) -> list[PairTest]:
    """Every pair of models that answered the same items with one 0/1 score each (``scores``:
    models x items, at least :data:`~evalmaps.analysis.paired.MIN_ITEMS`), tested at once: the
    discordant counts of all pairs from one matrix product, exact McNemar p per pair, and the
    intervals of :func:`~evalmaps.analysis.paired.mcnemar_intervals`; every field as
    :func:`~evalmaps.analysis.paired.paired_values` gives it for the pair (the tests check it
    field for field)."""
    r = np.asarray(scores, dtype=np.float64)
    n = r.shape[1]
    right_wrong = r @ (1.0 - r).T  # [i, j]: items i has right and j has wrong (whole numbers)
    means = r.sum(axis=1) / n
    first, second = np.triu_indices(len(models), 1)
    a_wins = np.rint(right_wrong[first, second]).astype(np.int64)
    b_wins = np.rint(right_wrong[second, first]).astype(np.int64)
    p = paired_stats.mcnemar_ps(a_wins, b_wins)  # each pair's mcnemar_p, the same floats
    lo, hi = paired_stats.mcnemar_intervals(a_wins, b_wins, np.full(len(p), n), p)
    out = []
    for at, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
        counted = (int(a_wins[at]), int(b_wins[at])) if higher_is_better else (None, None)
        out.append(PairTest(models[i], models[j], n, _r(means[i]), _r(means[j]),
                            _r(means[j] - means[i]), paired_stats.interval_end(float(lo[at])),
                            paired_stats.interval_end(float(hi[at])), p[at], p[at], "mcnemar",
                            *counted, 0, 0))
    return out


def rank_items_cell(models: Sequence[str], means: np.ndarray,
                    items: Mapping[str, object] | CellMatrix, k: int, higher_is_better: bool,
                    seed: int, resamples: int = RESAMPLES, metric: Metric | None = None
                    ) -> tuple[list[dict], list[PairTest], int, list[str]]:
    """One cell with per-item records (``items``: model -> ItemScores, or at k = 1 a
    :class:`~evalmaps.catalog.items.CellMatrix` with a row of each model): each model's n and
    interval, rank interval and rank set (on the items all of them answered), and every pair
    tested as Compare tests a cell; where the items carry clusters (``cluster=COL``), clustered
    as the module says (``metric``: the range a clustered interval stays within). Returns
    (per-model extras, pairs, n_common, notes)."""
    notes = []
    extras = []
    groups = None  # models x items: each item's cluster, where clustered
    if isinstance(items, CellMatrix):
        if k != 1:
            raise ValueError("a cell's matrix of items holds one sample of each: k is 1")
        union, values, samples, binary = matrix_rows(items, models)
    else:
        cells = [items[m] for m in models]
        union, values, samples = item_matrix(cells, k)
        binary = [c.binary for c in cells]
        if all(c.clusters is not None for c in cells):
            groups = np.full(values.shape, "", dtype=object)
            for row, cell in enumerate(cells):
                groups[row, np.searchsorted(union, cell.items)] = cell.clusters
    present = samples > 0
    for j in range(len(models)):
        has = present[j]
        if has.all():
            row, n_row, ids = values[j], samples[j], union
        else:
            row, n_row, ids = values[j, has], samples[j, has], union[has]
        # as ItemScores: the sum of its totals (its scores where there is one sample each), or
        # its items' values and ids (the same arrays, in the same order)
        if k == 1 and binary[j] and bool((n_row == 1).all()):
            lo, hi = paired_stats.wilson(row.sum(), len(row))
            ci = (float(lo), float(hi))
        else:
            ci = paired_stats.bootstrap_mean_interval(row, paired_stats.seed_of_items(ids))
        extra = {"n": len(row), "ci": ci, "se": _r(power.se(row))}
        if groups is not None:
            se_c, g = power.clustered_se(row, groups[j] if has.all() else groups[j, has])
            extra.update(se_clustered=None if se_c is None else _r(se_c), n_clusters=g)
            if se_c is not None:
                extra["ci"] = clustered_interval(float(row.mean()), se_c, g, metric)
        extras.append(extra)
    if groups is None and (k == 1 and present.all() and values.shape[1] >= paired_stats.MIN_ITEMS
                           and all(binary) and (samples == 1).all()):
        pairs = mcnemar_pairs(models, values, higher_is_better)  # every pair at once
    else:
        pairs = []
        for i, a in enumerate(models):
            for j in range(i + 1, len(models)):
                result = paired_on_matrix(values, samples, i, j, k, (binary[i], binary[j]),
                                          higher_is_better)
                if result is not None and groups is not None:
                    both = present[i] & present[j]
                    result = paired_stats.clustered_test(paired_stats.with_error_bars(
                        result, values[i, both], values[j, both],
                        paired_stats.common_clusters(groups[i, both], groups[j, both])))
                pairs.append(_paired_test(a, models[j], float(means[i]), float(means[j]),
                                          result))
    every = present.all(axis=0)
    n_common = int(every.sum())
    if n_common < paired_stats.MIN_ITEMS:
        notes.append(f"only {n_common} items are common to every model: no rank intervals")
        for e in extras:
            e["rank_ci"] = e["rank_set"] = None
        return extras, pairs, n_common, notes
    if not present.all():
        notes.append(f"the models answered different items: rank intervals and rank sets are "
                     f"on the {n_common} items all of them answered")
    scores = values[:, every]
    theta = scores.mean(axis=1)
    if groups is not None:
        labels, codes = np.unique(shared_clusters(list(groups[:, every])), return_inverse=True)
        if len(labels) < 2:
            notes.append("the items common to every model are in one cluster: no cluster "
                         "bootstrap, no rank intervals")
            for e in extras:
                e["rank_ci"] = e["rank_set"] = None
            return extras, pairs, n_common, notes
        codes = codes.ravel()
        draws = weighted_means(scores, cluster_counts(codes, len(labels), seed, resamples))
        sds = difference_sds(clustered_cov(scores, codes, len(labels)))
    else:
        counts = resample_counts(n_common, seed, resamples)
        draws = bootstrap_means(scores, counts)
        sds = difference_sds(np.atleast_2d(np.cov(scores, ddof=0)) / n_common)
    marginal = rank_intervals(draws, higher_is_better)
    sets = rank_sets(theta, draws - theta, sds, higher_is_better)
    for e, ci, cs in zip(extras, marginal, sets):
        e["rank_ci"], e["rank_set"] = (int(ci[0]), int(ci[1])), (int(cs[0]), int(cs[1]))
    return extras, pairs, n_common, notes


def clustered_interval(mean: float, se_c: float, clusters: int, metric: Metric | None
                       ) -> tuple[float, float]:
    """A mean's 95% interval from its clustered standard error: ``mean ± t_0.975 se_c``,
    Student's t at ``clusters - 1`` df, within the metric's range
    (:func:`evalmaps.analysis.uncertainty.se_interval`)."""
    critical = power.critical(clusters)
    if metric is None:
        return float(mean - critical * se_c), float(mean + critical * se_c)
    lo, hi = uncertainty.se_interval(np.array([mean]), np.array([se_c]), metric, critical)
    return float(lo[0]), float(hi[0])


def rank_se_cell(models: Sequence[str], means: np.ndarray, se: np.ndarray, ns, metric: Metric,
                 seed: int, resamples: int = RESAMPLES
                 ) -> tuple[list[dict], list[PairTest]]:
    """One cell without items: the unpaired z-test where both sides give a standard error
    (else no test); rank intervals and rank sets from normal draws of the standard errors when
    every model has one (as csranks draws them, with a diagonal covariance)."""
    lo, hi = uncertainty.se_interval(means, se, metric)
    extras = []
    for j in range(len(models)):
        ci = (float(lo[j]), float(hi[j])) if np.isfinite(lo[j]) and np.isfinite(hi[j]) else None
        extras.append({"n": ns[j], "ci": ci, "rank_ci": None, "rank_set": None,
                       "se": float(se[j]) if np.isfinite(se[j]) else None})
    pairs = []
    for i, a in enumerate(models):
        for j in range(i + 1, len(models)):
            b = models[j]
            ma, mb = float(means[i]), float(means[j])
            if np.isfinite(se[i]) and np.isfinite(se[j]):
                c_lo, c_hi, p = unpaired_z(ma, float(se[i]), mb, float(se[j]))
                pairs.append(PairTest(a, b, None, ma, mb, _r(mb - ma), _r(c_lo), _r(c_hi), p, p,
                                      "unpaired-z", None, None))
            else:
                pairs.append(PairTest(a, b, None, ma, mb, _r(mb - ma), None, None, None, None,
                                      "none", None, None))
    if np.isfinite(se).all():
        rng = np.random.default_rng(seed)
        z = rng.standard_normal((resamples, len(models))) * se
        higher = metric.higher_is_better
        marginal = rank_intervals(means + z, higher)
        sets = rank_sets(means, z, difference_sds(np.diag(se ** 2)), higher)
        for e, ci, cs in zip(extras, marginal, sets):
            e["rank_ci"], e["rank_set"] = (int(ci[0]), int(ci[1])), (int(cs[0]), int(cs[1]))
    return extras, pairs


# --------------------------------------------------------------------------- a figure

def default_by(figure: Figure) -> str | None:
    """The dimension ranked when none is named: the one named ``model`` (or titled Model),
    else the first facet with three or more labels, else the first dimension (facets, y, x)
    with three or more, else with two; None when no dimension has two labels."""
    spec = figure.spec
    for d in spec.dim_names:
        if d.casefold() == "model" or spec.dims[d].title.casefold() == "model":
            if len(spec.dims[d].labels) >= 2:
                return d
    for d in spec.facets:
        if len(spec.dims[d].labels) >= 3:
            return d
    for least in (3, 2):
        for d in spec.dim_names:
            if len(spec.dims[d].labels) >= least:
                return d
    return None


def plural(word: str, count: int) -> str:
    """'category' -> 'categories' (count != 1); plain English endings only."""
    if count == 1:
        return word
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


@dataclass(frozen=True)
class Ranking:
    """A figure's ranking of ``by`` over its cells (see the module)."""

    figure_id: str
    by: str
    k: int
    basis: str  # "items", "standard errors" or "means"
    models: tuple[str, ...]
    cells: tuple[CellRanking, ...]
    cell_word: str  # how a sentence names a cell: 'category', 'cell'
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    metric: Metric | None = None
    left_out: tuple[dict, ...] = field(default=())  # cells with fewer than two models
    cluster: str | None = None  # the items' column the errors, tests and resamples cluster by

    def summary(self) -> list[dict]:
        """Per model: the cells it is ranked in, best or tied in, alone best in, and the
        sentence that says so."""
        out = []
        for model in self.models:
            ranked = [m for c in self.cells for m in c.models if m.model == model]
            tied = sum(m.best_or_tied for m in ranked)
            alone = sum(m.best for m in ranked)
            n = len(ranked)
            out.append({"model": model, "cells": n, "best_or_tied": tied, "best": alone,
                        "sentence": f"{model} is best or tied in {tied} of {n} "
                                    f"{plural(self.cell_word, n)}, alone best in {alone}."})
        return out

    def to_dict(self) -> dict:
        n_pairs = sum(p.p is not None for c in self.cells for p in c.pairs)
        clustered = self.cluster is not None
        words = {"cluster": self.cluster}
        return {
            "figure": self.figure_id, "by": self.by, "alpha": ALPHA, "k": self.k,
            "basis": self.basis,
            "metric": None if self.metric is None else {
                "name": self.metric.name, "unit": self.metric.unit,
                "higher_is_better": self.metric.higher_is_better},
            "models": list(self.models),
            "cells": [c.as_dict(clustered) for c in self.cells],
            "summary": self.summary(),
            "cluster": self.cluster,
            "ci": (CI_CLUSTERED.format(**words) if clustered else
                   CI if self.basis != "means" else None),
            "rank_interval": (RANK_INTERVAL_CLUSTERED.format(**words) if clustered else
                              RANK_INTERVAL if self.basis == "items" else
                              RANK_INTERVAL_SE if self.basis == "standard errors" else None),
            "rank_set": (RANK_SET_CLUSTERED.format(**words) if clustered else
                         RANK_SET if self.basis != "means" else None),
            "p_adjusted": f"{ADJUSTED} ({n_pairs} pairs)",
            "notes": list(self.notes), "warnings": list(self.warnings),
            "left_out": list(self.left_out),
        }


def _cells_table(figure: Figure, filters: Mapping[str, set[str]]) -> pd.DataFrame:
    """The figure's cells that ``filters`` keep and that have a value."""
    cells = figure.cells
    keep = np.ones(len(cells), dtype=bool)
    for d, wanted in filters.items():
        keep &= cells[d].isin(wanted).to_numpy()
    return cells[keep & np.isfinite(cells["value"].to_numpy(dtype=np.float64))]


class ClusterError(ValueError):
    """A ``cluster`` the figure's items cannot be clustered by (one or two sentences)."""


def cluster_problem(figure: Figure, cluster: str) -> str | None:
    """Why ``figure``'s items cannot be clustered by ``cluster``; None where they can."""
    records = getattr(figure, "items", None)
    name = fmt.clip(cluster)
    if records is None:
        return (f"cluster={name} clusters the standard errors of per-item records, and figure "
                f"'{figure.id}' has none. Leave cluster out, or rank a figure with items.")
    kept = records.clusters
    if cluster not in kept:
        have = (f"they keep the cluster column{'s' * (len(kept) > 1)} {', '.join(kept)}"
                if kept else "they keep no cluster column")
        return (f"Figure '{figure.id}''s items have no cluster column '{name}' ({have}). "
                f"Import them with --cluster {name}, or leave cluster out.")
    return None


def rank_figure(figure: Figure, by: str | None = None,
                filters: Mapping[str, set[str]] | None = None, k: int = 1,
                resamples: int = RESAMPLES, max_pairs: int | None = MAX_PAIRS,
                cluster: str | None = None) -> Ranking:
    """Rank ``by`` (default :func:`default_by`) in every cell of ``figure`` (already at pass@k
    where ``k`` > 1) that ``filters`` (dimension -> labels kept) leave; see the module. An
    answer of more than ``max_pairs`` pairs is a :class:`TooManyPairs` (None: no bound).
    ``cluster``: the items' column to cluster by (a :class:`ClusterError` where they keep
    none such)."""
    if cluster is not None:
        problem = cluster_problem(figure, cluster)
        if problem:
            raise ClusterError(problem)
    spec = figure.spec
    by = by or default_by(figure)
    if by is None or by not in spec.dims:
        raise ValueError(f"figure {figure.id!r} has no dimension {by!r} to rank")
    filters = dict(filters or {})
    others = [d for d in spec.dim_names if d != by]
    order = sorted(spec.dims[by].labels, key=fmt.natural_key)
    if by in filters:
        order = [m for m in order if m in filters[by]]
    table = _cells_table(figure, filters)
    records = getattr(figure, "items", None)
    # one sample of each item at k = 1 (the usual case): each cell's models x items matrix
    # read from the records' codes; else (several samples, pass@k) each cell's items
    matrices = records.matrices(by, others) \
        if records is not None and k == 1 and cluster is None else None
    item_cells = records.cells({}, (by, *others), cluster) \
        if records is not None and matrices is None else {}
    has_se = any(c in table.columns for c in ("se", "sd"))
    basis = "items" if records is not None else "standard errors" if has_se else "means"
    values = table["value"].to_numpy(dtype=np.float64)
    labels_of = {d: table[d].to_numpy(dtype=object) for d in (by, *others)}
    # each cell's rows, in the figure's order of the other dimensions' labels
    groups: dict[tuple, dict[str, int]] = {}
    for row in range(len(table)):
        key = tuple(labels_of[d][row] for d in others)
        groups.setdefault(key, {})[labels_of[by][row]] = row
    positions = {d: spec.dims[d].index() for d in others}
    keys = sorted(groups, key=lambda key: tuple(positions[d][lab] for d, lab in zip(others, key)))
    n_pairs = sum(len(groups[key]) * (len(groups[key]) - 1) // 2 for key in keys)
    if max_pairs is not None and n_pairs > max_pairs:
        raise TooManyPairs(n_pairs, len(keys), max_pairs)
    se_all = None
    if basis == "standard errors":
        metric_all = spec.metric
        se_all = uncertainty.usable_se(values, table["se"].to_numpy(dtype=np.float64)
                                  if "se" in table else None,
                                  table["sd"].to_numpy(dtype=np.float64) if "sd" in table else None,
                                  table["n"].to_numpy(dtype=np.float64) if "n" in table else None,
                                  metric_all)
    ns_all = table["n"].to_numpy(dtype=np.float64) if "n" in table else None
    cells, left_out, notes, warnings = [], [], [], []
    uneven = untested_small = one_cluster = 0
    for key in keys:
        rows = groups[key]
        labels = dict(zip(others, key))
        present = [m for m in order if m in rows]
        missing = tuple(m for m in order if m not in rows)
        if len(present) < 2:
            left_out.append({"labels": labels, "models": present})
            continue
        metric = spec.metric_for({**labels, by: present[0]})
        higher = metric.higher_is_better
        means = np.array([values[rows[m]] for m in present])
        seed = cell_seed(figure.id, by, labels, k)
        n_common = None
        if basis == "items":
            if matrices is not None:
                full = matrices.get(key)
                lacking = [m for m in present if full is None or m not in full.rows]
            else:
                full = {m: item_cells.get((m, *key)) for m in present}
                lacking = [m for m, v in full.items() if v is None or not len(v)]
            if lacking:
                warnings.append(f"{_where(labels)}: {fmt.listing(lacking, 5)} "
                                f"{'has' if len(lacking) == 1 else 'have'} no items; that cell "
                                f"is ranked by its means without tests")
                extras = [{"n": None, "ci": None, "rank_ci": None, "rank_set": None}
                          for _ in present]
                pairs = [PairTest(a, b, None, float(means[i]), float(means[j]),
                                  _r(means[j] - means[i]), None, None, None, None, "none",
                                  None, None)
                         for i, a in enumerate(present) for j, b in enumerate(present) if j > i]
            else:
                extras, pairs, n_common, cell_notes = rank_items_cell(
                    present, means, full, k, higher, seed, resamples, metric)
                uneven += any("different items" in n for n in cell_notes)
                untested_small += any("only" in n and "no rank intervals" in n
                                      for n in cell_notes)
                one_cluster += any("one cluster" in n for n in cell_notes)
        elif basis == "standard errors":
            se = np.array([se_all[rows[m]] for m in present])
            ns = [None if ns_all is None or not np.isfinite(ns_all[rows[m]])
                  else int(ns_all[rows[m]]) for m in present]
            extras, pairs = rank_se_cell(present, means, se, ns, metric, seed, resamples)
        else:
            extras = [{"n": None if ns_all is None or not np.isfinite(ns_all[rows[m]])
                       else int(ns_all[rows[m]]), "ci": None, "rank_ci": None,
                       "rank_set": None} for m in present]
            pairs = [PairTest(a, b, None, float(means[i]), float(means[j]),
                              _r(means[j] - means[i]), None, None, None, None, "none", None,
                              None)
                     for i, a in enumerate(present) for j, b in enumerate(present) if j > i]
        cells.append(cell_ranking(labels, present, means, extras, pairs, n_common, higher,
                                  missing))
    cells = with_adjusted(cells)
    if basis == "items":
        if uneven:
            warnings.append(f"In {uneven} {plural('cell', uneven)} the models answered "
                            "different items: each pair is tested on the items both answered, "
                            "and the rank intervals and rank sets are on the items all of them "
                            "answered.")
        if untested_small:
            notes.append(f"{untested_small} {plural('cell', untested_small)} have fewer than "
                         f"{paired_stats.MIN_ITEMS} items common to every model: no rank "
                         "intervals or rank sets there.")
        notes.append("Pairs are tested on the items both models answered, as Compare tests a "
                     "cell; p_adjusted is Benjamini-Hochberg over every tested pair of every "
                     "cell of this answer.")
        if cluster is not None:
            notes.append(clustered_note(cells, cluster, one_cluster))
    elif basis == "standard errors":
        notes.append("The figure has no per-item records: pairs are compared by the unpaired "
                     "z-test of the source's standard errors (test 'unpaired-z'), which "
                     "ignores that the models answered the same items; pairs without a "
                     "standard error on both sides are not tested.")
    else:
        notes.append("The figure has neither per-item records nor standard errors: the models "
                     "are ranked by their means and no test can be made (test 'none'); every "
                     "model counts as tied with the best, since none can be told apart.")
    notes.append("Best or tied: the best mean, and every model whose pair with it has "
                 f"p_adjusted >= {ALPHA} or is untested (not distinguishable).")
    if left_out:
        notes.append(f"{len(left_out)} {plural('cell', len(left_out))} with fewer than two "
                     "models are not ranked (left_out).")
    varying = [d for d in others if len({c.labels[d] for c in cells}) > 1]
    word = spec.dims[varying[0]].title.casefold() if len(varying) == 1 else "cell"
    return Ranking(figure.id, by, k, basis, tuple(order), tuple(cells), word, tuple(notes),
                   tuple(dict.fromkeys(warnings)), spec.metric, tuple(left_out), cluster)


def clustered_note(cells: Sequence[CellRanking], cluster: str, one_cluster: int = 0) -> str:
    """The sentence that says how a ranking is clustered by ``cluster``: the test, the
    resampling, and how few clusters the cells have (Student's t's df)."""
    counts = sorted({p.n_clusters for c in cells for p in c.pairs
                     if p.test == "clustered" and p.n_clusters})
    few = [g for g in counts if power.few_clusters(g)]
    span = (f"{counts[0]:,} clusters" if len(counts) == 1 else
            f"{counts[0]:,} to {counts[-1]:,} clusters" if counts else "no cluster test")
    out = (f"Clustered by {cluster} ({span} a pair): each model's interval is from its "
           f"clustered standard error, pairs are tested by the Wald test on the clustered "
           f"standard error with Student's t at clusters {fmt.MINUS} 1 df, and the rank "
           f"intervals and rank sets resample clusters (a cluster bootstrap), not items.")
    if few:
        out += (" Few clusters widen the tests and intervals: "
                + "; ".join(power.few_clusters(g) for g in few[:3])
                + ("; ..." if len(few) > 3 else "") + ".")
    if one_cluster:
        out += (f" {one_cluster} {plural('cell', one_cluster)} have their common items in one "
                "cluster: no clustered test or cluster bootstrap there.")
    return out


def _where(labels: Mapping[str, str]) -> str:
    return ", ".join(f"{d}={label}" for d, label in labels.items()) or "the cell"


def with_adjusted(cells: Sequence[CellRanking]) -> list[CellRanking]:
    """The cells with every pair's p adjusted by Benjamini-Hochberg over every tested pair of
    every cell given (untested pairs stay None), and each cell's best or tied models."""
    flat = [p.p for c in cells for p in c.pairs]
    adjusted = paired_stats.bh_adjust(flat) if flat else np.array([])
    out, at = [], 0
    for c in cells:
        pairs = []
        for p in c.pairs:
            q = adjusted[at]
            at += 1
            pairs.append(PairTest(**{**p.__dict__,
                                     "p_adjusted": None if not np.isfinite(q) else float(q)}))
        out.append(_with_best(CellRanking(c.labels, c.models, tuple(pairs), c.n_common,
                                          c.higher_is_better, c.missing)))
    return out


def _with_best(cell: CellRanking) -> CellRanking:
    means = np.array([m.mean for m in cell.models])
    top = int(np.argmax(means) if cell.higher_is_better else np.argmin(means))
    best = cell.models[top].model
    tied = {best}
    for p in cell.pairs:
        if best in (p.a, p.b) and not p.distinguishable:
            tied.add(p.b if p.a == best else p.a)
    alone = len(tied) == 1
    models = tuple(ModelRank(**{**m.__dict__, "best_or_tied": m.model in tied,
                                "best": alone and m.model == best}) for m in cell.models)
    return CellRanking(cell.labels, models, cell.pairs, cell.n_common, cell.higher_is_better,
                       cell.missing)
