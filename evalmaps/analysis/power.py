"""Error bars as evaluation statistics asks for them (Miller, "Adding Error Bars to Evals",
arXiv 2411.00640): the standard error of a mean, clustered where items come in groups, the
paired difference's own standard error, and power: how small a difference a cell's items can
detect, and how many items a difference needs.

For a cell's item scores ``x_i`` (each item's mean over its samples), ``n`` items, mean ``x̄``:

- :func:`se`: ``sqrt(s² / n)`` with ``s²`` the sample variance (``n - 1``);
- :func:`clustered_se`: with clusters ``c`` of items (passages, source data sets),
  ``sqrt(Σ_c (Σ_{i∈c} (x_i - x̄))²) / n``: the cluster-robust standard error of a mean without
  a small-sample correction (statsmodels' ``cov_type="cluster"`` with ``use_correction=False``);
- for a paired cell, the same two on the differences ``d_i = b_i - a_i`` (``se_diff``);
- :func:`mde`: the smallest true difference a two-sided test at α = 0.05 detects with 80%
  power, ``(z_0.975 + z_0.8) se_diff``; clustered, over ``G`` clusters, ``(t_0.975 + t_0.8)
  se_diff_clustered`` with the quantiles of Student's t with ``G - 1`` degrees of freedom;
- **few clusters**: a cluster-robust standard error over ``G`` clusters is an average of ``G``
  cluster sums, so a test or interval on it uses Student's t with ``G - 1`` degrees of freedom
  (:func:`t_sf`, :func:`t_ppf`; Cameron and Miller, "A Practitioner's Guide to
  Cluster-Robust Inference", 2015; Stata's and statsmodels' ``use_t`` default), not the
  normal: at 4 clusters the 95% interval is ``± 3.18 se``, not ``± 1.96 se``. At every ``G``
  (no switch at a threshold: t with many degrees of freedom is the normal; 48 clusters give
  ``± 2.01 se``). Below 2 clusters there is no clustered standard error and no clustered
  test;
- :func:`items_needed`: the items at which the observed difference would be detectable with 80%
  power, ``n (mde / |diff|)²`` rounded up; None where the difference is 0;
- :func:`variance_parts`: with k > 1 samples on item i (scores ``y_ij``), ``var_within``, the
  mean over items of the sample variance of ``y_ij`` over j, ``var_between``, the sample
  variance of the item means minus ``var_within / k`` (floored at 0), and ``within_share``, the
  share of the mean's variance that more samples per item would remove, ``(var_within / k) /
  s²`` (at most 1). Items of unequal k: ``var_within / k`` is the mean over items of each one's
  sample variance over its own k.

Pure numpy and the standard library (Student's t from the regularised incomplete beta
function by its continued fraction; the tests check it against scipy).
"""

from __future__ import annotations

import functools
import math

import numpy as np

Z_975 = 1.959963984540054  # the standard normal's 97.5th percentile
Z_80 = 0.8416212335729143  # its 80th percentile
POWER_FACTOR = Z_975 + Z_80  # mde = 2.8016 se


def se(x) -> float | None:
    """``sqrt(s² / n)``; None below 2 values."""
    x = np.asarray(x, dtype=np.float64)
    if len(x) < 2:
        return None
    return float(math.sqrt(float(np.var(x, ddof=1)) / len(x)))


def clustered_se(x, clusters) -> tuple[float | None, int]:
    """(the cluster-robust standard error of the mean of ``x`` with items grouped by
    ``clusters``, the number of clusters); (None, clusters) below 2 clusters."""
    x = np.asarray(x, dtype=np.float64)
    labels, codes = np.unique(np.asarray(clusters, dtype=object).astype(str), return_inverse=True)
    g = len(labels)
    if g < 2:
        return None, g
    sums = np.bincount(codes.ravel(), weights=x - x.mean(), minlength=g)
    return float(math.sqrt(float(np.dot(sums, sums))) / len(x)), g


def variance_parts(n, total, squares) -> tuple[float, float, float] | None:
    """(``var_within``, ``var_between``, ``within_share``) of items with ``n`` samples each,
    the sum ``total`` and the sum of squares ``squares`` of their scores (see the module); None
    below 2 items or where an item has fewer than 2 samples."""
    n = np.asarray(n, dtype=np.float64)
    total = np.asarray(total, dtype=np.float64)
    squares = np.asarray(squares, dtype=np.float64)
    count = len(n)
    if count < 2 or n.min() < 2:
        return None
    # the sums np.mean and np.var make (the same additions, without their Python around them:
    # a paired map asks this of every cell, twice)
    means = total / n
    within = np.maximum((squares - n * means * means) / (n - 1), 0.0)  # each item's s²
    var_within = float(within.sum() / count)
    apart = means - means.sum() / count
    spread = float(np.multiply(apart, apart, out=apart).sum() / (count - 1))
    sampling = float(np.divide(within, n, out=within).sum() / count)  # var_within / k, equal k
    share = 1.0 if spread <= 0 else min(1.0, sampling / spread)
    return var_within, max(spread - sampling, 0.0), share


def mde(se_diff: float | None, clusters: int | None = None) -> float | None:
    """The smallest true difference a two-sided 5% test detects with 80% power: ``(z_0.975 +
    z_0.8) se_diff``, or over ``clusters`` clusters (``se_diff`` their clustered standard
    error) ``(t_0.975 + t_0.8) se_diff`` with ``clusters - 1`` degrees of freedom."""
    if se_diff is None:
        return None
    return power_factor(clusters) * se_diff


def power_factor(clusters: int | None = None) -> float:
    """``mde / se``: :data:`POWER_FACTOR`, or with ``clusters`` (at least 2) Student's t's
    ``t_0.975 + t_0.8`` at ``clusters - 1`` degrees of freedom."""
    if clusters is None:
        return POWER_FACTOR
    return t_ppf(0.975, clusters - 1) + t_ppf(0.8, clusters - 1)


def critical(clusters: int | None = None) -> float:
    """The half-width of a two-sided 95% interval in standard errors: 1.96, or with
    ``clusters`` (at least 2) Student's t's 97.5th percentile at ``clusters - 1`` degrees of
    freedom (12.71 at 2 clusters, 3.18 at 4, 2.01 at 48)."""
    return Z_975 if clusters is None else t_ppf(0.975, clusters - 1)


def two_sided_p(stat: float, clusters: int | None = None) -> float:
    """The two-sided p of a Wald statistic ``stat`` (an estimate over its standard error): the
    normal's ``2 (1 - Phi(|stat|))``, or with ``clusters`` (at least 2) Student's t's ``2 P(T >
    |stat|)`` at ``clusters - 1`` degrees of freedom."""
    stat = abs(float(stat))
    if clusters is None:
        return min(1.0, math.erfc(stat / math.sqrt(2.0)))
    return min(1.0, 2.0 * t_sf(stat, clusters - 1))


FEW_CLUSTERS = 30  # fewer clusters: the pages say the t distribution is used, and its df


def few_clusters(clusters: int | None) -> str | None:
    """'only 4 clusters: t with 3 df' below :data:`FEW_CLUSTERS` clusters (at least 2), where
    the t distribution's wider tails matter; None otherwise."""
    if clusters is None or clusters < 2 or clusters >= FEW_CLUSTERS:
        return None
    return f"only {clusters} clusters: t with {clusters - 1} df"


# --------------------------------------------------------------------------- Student's t

_EPS = 1e-16
_TINY = 1e-300


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h


def beta_inc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_sf(t: float, df: float) -> float:
    """``P(T > t)`` for Student's t with ``df`` degrees of freedom (``df`` > 0)."""
    if not np.isfinite(t):
        return 0.0 if t > 0 else 1.0
    tail = 0.5 * beta_inc(df / 2.0, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


def t_ppf(q: float, df: float) -> float:
    """Student's t's ``q`` quantile at ``df`` degrees of freedom (0 < q < 1): bisection on
    :func:`t_sf` to the float's resolution (kept: a page asks for few distinct df)."""
    return _t_ppf(float(q), float(df))


@functools.lru_cache(maxsize=4096)
def _t_ppf(q: float, df: float) -> float:
    if not 0.0 < q < 1.0 or not df > 0:
        raise ValueError(f"t_ppf needs 0 < q < 1 and df > 0, not q={q}, df={df}")
    if q < 0.5:
        return -_t_ppf(1.0 - q, df)
    if q == 0.5:
        return 0.0
    tail = 1.0 - q
    lo, hi = 0.0, 1.0
    while t_sf(hi, df) > tail:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if t_sf(mid, df) > tail:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def items_needed(n: int, mde_value: float | None, diff: float) -> int | None:
    """The items at which ``diff`` would be detectable with 80% power: ``n (mde / |diff|)²``
    rounded up; None where ``diff`` is 0 or there is no mde."""
    if mde_value is None or diff == 0 or not np.isfinite(diff):
        return None
    return int(math.ceil(n * (mde_value / abs(diff)) ** 2 - 1e-9))
