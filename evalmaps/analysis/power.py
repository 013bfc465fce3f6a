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
  power, ``(z_0.975 + z_0.8) se_diff``;
- :func:`items_needed`: the items at which the observed difference would be detectable with 80%
  power, ``n (mde / |diff|)²`` rounded up; None where the difference is 0;
- :func:`variance_parts`: with k > 1 samples on item i (scores ``y_ij``), ``var_within``, the
  mean over items of the sample variance of ``y_ij`` over j, ``var_between``, the sample
  variance of the item means minus ``var_within / k`` (floored at 0), and ``within_share``, the
  share of the mean's variance that more samples per item would remove, ``(var_within / k) /
  s²`` (at most 1). Items of unequal k: ``var_within / k`` is the mean over items of each one's
  sample variance over its own k.

Pure numpy and the standard library.
"""

from __future__ import annotations

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
    if len(n) < 2 or (n < 2).any():
        return None
    means = total / n
    within = np.maximum((squares - n * means * means) / (n - 1), 0.0)  # each item's s²
    var_within = float(within.mean())
    spread = float(np.var(means, ddof=1))
    sampling = float((within / n).mean())  # var_within / k at equal k
    share = 1.0 if spread <= 0 else min(1.0, sampling / spread)
    return var_within, max(spread - sampling, 0.0), share


def mde(se_diff: float | None) -> float | None:
    """The smallest true difference a two-sided 5% test detects with 80% power."""
    return None if se_diff is None else POWER_FACTOR * se_diff


def items_needed(n: int, mde_value: float | None, diff: float) -> int | None:
    """The items at which ``diff`` would be detectable with 80% power: ``n (mde / |diff|)²``
    rounded up; None where ``diff`` is 0 or there is no mde."""
    if mde_value is None or diff == 0 or not np.isfinite(diff):
        return None
    return int(math.ceil(n * (mde_value / abs(diff)) ** 2 - 1e-9))
