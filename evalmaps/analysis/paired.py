"""Paired significance of B against A on the items both answered, and intervals that stay in
the metric's range.

When A and B both keep per-item records for a cell (:class:`evalmaps.catalog.items.ItemScores`)
the cell is compared on its *common* items (the ids both have), item by item:

- **Exact McNemar** (``test="mcnemar"``): when every score on both sides is 0 or 1 and every item
  has one sample (and k = 1). Only the discordant items tell A and B apart: ``a_only`` (A right,
  B wrong) and ``b_only``. Under "no difference" each discordant item is B's with chance 1/2, so
  ``p = min(1, 2 * sum_{i <= min(a_only, b_only)} C(m, i) / 2^m)`` with ``m = a_only + b_only``
  (two-sided exact binomial test; computed exactly with integers up to
  :data:`EXACT_LIMIT` discordant items, in log space beyond).
- **Paired bootstrap over items** (``test="bootstrap"``): otherwise (several samples per item,
  scores other than 0/1, or pass@k at k > 1). The per-item differences ``d = b - a`` (each side's
  item score: its mean over samples at k = 1, the unbiased pass@k at k > 1) are resampled with
  replacement :data:`RESAMPLES` times; the difference's 95% interval is the 2.5th and 97.5th
  percentiles of the resampled means, and ``p = min(1, 2 * min(P*(mean <= 0), P*(mean >= 0)))``
  with ``P*(.) = (count + 1) / (R + 1)`` (the smallest level at which a percentile interval
  leaves out 0). McNemar cells get the same bootstrap interval next to their exact p.
- The resampling is **seeded from the cell** (its labels: :func:`seed_of`), not from the order of
  A and B, so a page and the API give the same numbers and swapping A and B negates the
  difference and its interval and keeps p exactly. Resamples draw, per resample, how many times
  each item is taken (a multinomial over the items, or over the distinct differences when they
  are few: the same bootstrap distribution, computed faster).
- **Right and wrong** (``a_only``, ``b_only``): an item is *right* for a side when its score is 1
  (the top of a 0-1 scale): every sample right at k = 1, pass@k = 1 at k > 1. ``a_only`` counts
  the common items A has right and B has not, ``b_only`` the other way round. With 0/1 scores
  and one sample these are McNemar's discordant counts.
- **Many cells** (:func:`bh_adjust`): a map tests many cells at once, so each cell's p-value is
  also given adjusted by Benjamini-Hochberg (false discovery rate); a cell is called
  distinguishable when its adjusted p is below :data:`ALPHA`.

Means, differences and intervals are in the items' own units (those of the figure's values;
Compare writes a fraction as percent only when it writes it). Intervals for one side:
:func:`wilson` for a proportion (never past 0 or 1) and :func:`bootstrap_mean_interval` for a
mean of item scores (never past the smallest or largest item score).

Pure numpy and the standard library: no Dash, Plotly or scipy.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from evalmaps.core.estimators import pass_at_k

RESAMPLES = 2000  # bootstrap resamples per cell
ALPHA = 0.05  # the false discovery rate of a map's calls, and a cell's level
LEVEL = 0.95  # intervals' coverage
EXACT_LIMIT = 4000  # discordant items up to which McNemar sums exact integers (log space beyond)
FEW_VALUES = 64  # distinct differences up to which the bootstrap draws counts of values
DECIMALS = 12  # results are rounded to this many decimals (drops floating-point noise only)
Z_95 = 1.959963984540054  # the standard normal's 97.5th percentile (Wilson)


@dataclass(frozen=True)
class Paired:
    """One cell's paired comparison of B against A on its common items (see the module)."""

    n: int  # common items
    a_mean: float
    b_mean: float
    diff: float  # b_mean - a_mean
    ci_low: float  # the difference's 95% interval
    ci_high: float
    p: float
    p_adjusted: float  # Benjamini-Hochberg over the map's tested cells (p until adjusted)
    test: str  # "mcnemar" or "bootstrap"
    a_only: int  # items A has right and B has not
    b_only: int

    def as_dict(self) -> dict:
        """JSON-ready: the API's ``paired``."""
        return asdict(self)


# --------------------------------------------------------------------------- single tests

def mcnemar_p(a_only: int, b_only: int) -> float:
    """The exact two-sided McNemar p-value of ``a_only`` and ``b_only`` discordant items: the
    binomial test of min(a_only, b_only) out of their sum at 1/2 (1.0 when there are none)."""
    a_only, b_only = int(a_only), int(b_only)
    if a_only < 0 or b_only < 0:
        raise ValueError("discordant counts cannot be negative")
    m, low = a_only + b_only, min(a_only, b_only)
    if m == 0:
        return 1.0
    if m <= EXACT_LIMIT:
        term, total = 1, 1  # C(m, 0)
        for i in range(low):
            term = term * (m - i) // (i + 1)
            total += term
        tail = total / (1 << m)  # exact integers; one correctly rounded division
    else:
        i = np.arange(low + 1, dtype=np.float64)
        logs = (math.lgamma(m + 1) - _lgamma(i + 1) - _lgamma(m - i + 1)) - m * math.log(2.0)
        top = float(logs.max())
        tail = math.exp(top + math.log(float(np.exp(logs - top).sum())))
    return min(1.0, 2.0 * tail)


def _lgamma(values: np.ndarray) -> np.ndarray:
    return np.array([math.lgamma(v) for v in values], dtype=np.float64)


def wilson(successes, n, z: float = Z_95) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of a proportion ``successes / n`` (arrays or numbers; NaN where
    n is 0): ``(p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``, always within [0, 1]."""
    s = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    # n far past any count (from a tiny standard error) overflows to inf: the interval is then
    # the value itself, or NaN and left out by the caller
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        p = s / n
        z2 = z * z
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = z * np.sqrt(np.maximum(p * (1 - p) / n + z2 / (4 * n * n), 0.0)) / (1 + z2 / n)
        lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return lo, hi


def seed_of(*labels: object) -> int:
    """A resampling seed from a cell's labels (the same on every machine and run)."""
    text = "\x1f".join(str(label) for label in labels)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def _resampled_means(d: np.ndarray, seed: int, resamples: int) -> np.ndarray:
    """The means of ``resamples`` bootstrap resamples of ``d`` (with replacement, same size).

    Each resample is a count per item (a uniform multinomial); where ``d`` takes few distinct
    values, a count per value (a multinomial weighted by how many items have it), which gives
    the same distribution. Values are taken in the order they first occur, so ``-d`` draws the
    same counts and gives exactly the negated means."""
    n = len(d)
    rng = np.random.default_rng(seed)
    values, first, inverse = np.unique(d, return_index=True, return_inverse=True)
    if len(values) <= FEW_VALUES:
        order = np.argsort(first, kind="stable")
        counts = np.bincount(inverse.ravel(), minlength=len(values))[order]
        draws = rng.multinomial(n, counts / n, size=resamples)
        return draws @ values[order] / n
    picks = rng.integers(0, n, size=(resamples, n))
    return d[picks].mean(axis=1)


def _percentiles(means: np.ndarray) -> tuple[float, float]:
    tail = (1 - LEVEL) / 2
    lo, hi = np.quantile(means, [tail, 1 - tail])
    return float(lo), float(hi)


def bootstrap_diff(d, seed: int, resamples: int = RESAMPLES) -> tuple[float, float, float]:
    """(ci_low, ci_high, p) of the mean of paired differences ``d`` by the percentile bootstrap
    (see the module); (0, 0, 1) when every difference is 0."""
    d = np.asarray(d, dtype=np.float64)
    if not len(d):
        raise ValueError("a bootstrap needs at least one item")
    means = _resampled_means(d, seed, resamples)
    below = (np.count_nonzero(means <= 0) + 1) / (resamples + 1)
    above = (np.count_nonzero(means >= 0) + 1) / (resamples + 1)
    lo, hi = _percentiles(means)
    return lo, hi, float(min(1.0, 2.0 * min(below, above)))


def bootstrap_mean_interval(values, seed: int, resamples: int = RESAMPLES) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of the mean of ``values`` (item scores): never
    outside their smallest and largest value."""
    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        raise ValueError("an interval needs at least one item")
    lo, hi = _percentiles(_resampled_means(values, seed, resamples))
    return (max(lo, float(values.min())), min(hi, float(values.max())))


def bh_adjust(p) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (NaN stays NaN and is not counted): for the i-th
    smallest of m, ``min over j >= i of p_(j) * m / j``, at most 1."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    flat = p.ravel()
    tested = np.flatnonzero(np.isfinite(flat))
    m = len(tested)
    if not m:
        return out
    order = tested[np.argsort(flat[tested], kind="stable")]
    scaled = flat[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    result = out.ravel()
    result[order] = adjusted
    return result.reshape(p.shape)


# --------------------------------------------------------------------------- one cell

def item_values(scores, k: int = 1) -> np.ndarray:
    """Each item's score: its mean over samples (k = 1), or its unbiased pass@k (k > 1, 0/1
    scores only)."""
    if k == 1:
        return scores.mean
    if not scores.binary:
        raise ValueError(f"pass@{k} needs scores of 0 or 1; these items have other scores")
    return pass_at_k(scores.n, np.rint(scores.total).astype(np.int64), k)


def _r(value: float) -> float:
    return float(round(float(value), DECIMALS)) + 0.0  # + 0.0: no -0.0


def paired_values(a: np.ndarray, b: np.ndarray, seed: int, mcnemar: bool = False,
                  resamples: int = RESAMPLES) -> Paired:
    """The paired comparison of item scores ``a`` and ``b`` (same items, same order): the exact
    McNemar p when ``mcnemar`` (0/1 scores, one sample each), else the bootstrap's."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or not len(a):
        raise ValueError("paired scores need the same items on both sides, at least one")
    a_right, b_right = a == 1, b == 1
    a_only = int(np.count_nonzero(a_right & ~b_right))
    b_only = int(np.count_nonzero(b_right & ~a_right))
    lo, hi, p = bootstrap_diff(b - a, seed, resamples)
    if mcnemar:
        p = mcnemar_p(a_only, b_only)
    a_mean, b_mean = a.mean(), b.mean()
    return Paired(n=len(a), a_mean=_r(a_mean), b_mean=_r(b_mean), diff=_r(b_mean - a_mean),
                  ci_low=_r(lo), ci_high=_r(hi), p=p, p_adjusted=p,
                  test="mcnemar" if mcnemar else "bootstrap", a_only=a_only, b_only=b_only)


def paired_cell(a, b, seed: int, k: int = 1, resamples: int = RESAMPLES) -> Paired | None:
    """B against A (:class:`~evalmaps.catalog.items.ItemScores`) on their common items; None
    when they share none."""
    shared, ia, ib = np.intersect1d(a.items, b.items, assume_unique=True, return_indices=True)
    if not len(shared):
        return None
    va, vb = item_values(a, k)[ia], item_values(b, k)[ib]
    mcnemar = (k == 1 and a.binary and b.binary and bool((a.n[ia] == 1).all())
               and bool((b.n[ib] == 1).all()))
    return paired_values(va, vb, seed, mcnemar, resamples)


def paired_grid(a_cells: Mapping[tuple, object], b_cells: Mapping[tuple, object],
                keys: Sequence[tuple], k: int = 1, salt: Sequence[str] = ()) -> dict[tuple, Paired]:
    """Every cell of ``keys`` that both sides have items for, compared on its common items,
    with p-values adjusted (Benjamini-Hochberg) over the cells tested. A cell's seed is
    :func:`seed_of` its key (after ``salt``: what the grid fixes, e.g. the k)."""
    out = {}
    for key in keys:
        a, b = a_cells.get(key), b_cells.get(key)
        if a is None or b is None:
            continue
        result = paired_cell(a, b, seed_of(*salt, *key), k)
        if result is not None:
            out[key] = result
    if out:
        adjusted = bh_adjust([r.p for r in out.values()])
        out = {key: _with_adjusted(r, q) for (key, r), q in zip(out.items(), adjusted)}
    return out


def _with_adjusted(result: Paired, q: float) -> Paired:
    return replace(result, p_adjusted=float(q))
