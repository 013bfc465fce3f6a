"""Paired significance of B against A on the items both answered, with an interval that inverts
the same test, and intervals of one side's mean that stay in the metric's range.

When A and B both keep per-item records for a cell (:class:`evalmaps.catalog.items.ItemScores`)
the cell is compared on its *common* items (the ids both have), item by item. Which test:

- **None, below** :data:`MIN_ITEMS` **items** (``test="none"``): with n items no paired test of
  "no difference" can give a two-sided p below ``2 / 2^n`` (every item one way is the most
  extreme outcome, and its mirror image is as extreme), which is 0.0625 at n = 5. Such a cell is
  not tested: ``p``, ``p_adjusted`` and the interval are None and the page says why.
- **Exact McNemar** (``test="mcnemar"``): every score on both sides 0 or 1, one sample per item,
  k = 1. Only the discordant items tell A and B apart: ``a_only`` (A right, B wrong) and
  ``b_only``. Under "no difference" each discordant item is B's with chance 1/2, so ``p = min(1,
  2 * sum_{i <= min(a_only, b_only)} C(m, i) / 2^m)`` with ``m = a_only + b_only`` (exact
  integers up to :data:`EXACT_LIMIT` discordant items, log space beyond). Its interval inverts
  the same exact conditional test: the Clopper-Pearson interval ``[pi_lo, pi_hi]`` of B's share
  ``pi`` of the discordant items (each tail 2.5%, found by bisection on the exact binomial
  tails), as a difference ``(m / n) (2 pi - 1)``. It leaves out 0 exactly when p < 0.05.
- **Sign-flip permutation test** otherwise (several samples per item, scores other than 0/1,
  pass@k at k > 1): the per-item differences ``d = b - a`` (each side's item score: its mean
  over samples at k = 1, the unbiased pass@k at k > 1) are symmetric about 0 under "no
  difference", so every pattern of signs is as likely; ``p`` is the share of the ``2^n`` sign
  patterns whose sum is at least as far from 0 as the observed one. It is valid at every n.

  - ``test="sign-flip"`` (**exact**): when at most :data:`EXACT_FLIPS` differences are not 0,
    every pattern is enumerated (items whose difference is 0 add nothing at 0; shifted, their
    signs add a binomial term, summed exactly). The interval is the set of shifts ``delta`` the
    same exact test does not reject for ``d - delta`` (bisection on each side).
  - ``test="sign-flip-normal"``: beyond that, the sign-flip distribution's normal
    approximation: ``Z = (|sum d| - c) / sqrt(sum d^2)`` (its variance is ``sum d^2``), with the
    continuity correction ``c`` = half the lattice step of the sum where every difference is a
    whole multiple of a common step (means of k samples: 1 / k), else 0; ``p = 2 (1 - Phi(Z))``,
    at least the exact test's floor ``2 / 2^m``. The interval inverts the same test in closed
    form: ``d_bar ± u`` where ``(n u - c)^2 = z^2 (SS + n u^2)`` (``SS`` the differences' sum of
    squares about their mean), so it leaves out 0 exactly when p < 0.05.

  The p-value has no resampling floor: it is as small as the data supports (the exact test's
  smallest, ``2 / 2^n``, or the normal tail). Nothing is random, so a page, the API and a rerun
  give the same numbers, and swapping A and B negates the difference and its interval and keeps
  p.
- **Clustered** (``test="clustered"``): where the items come in clusters (an import's
  ``--cluster COL``, asked for with ``cluster=COL``), items of a cluster are not independent,
  which the tests above assume. A cell of at least :data:`MIN_ITEMS` items is then tested on the
  differences' clustered standard error (:func:`evalmaps.analysis.power.clustered_se`) over
  its ``G`` clusters: the Wald test ``p = 2 P(T > |d_bar| / se_diff_clustered)`` and the
  interval it inverts, ``d_bar ± t_0.975 se_diff_clustered``, with Student's t at ``G - 1``
  degrees of freedom (few clusters give a wide interval: :func:`clustered_test`). A cell of one
  cluster has no clustered test and keeps the test above.
- **Right and wrong** (``a_only``, ``b_only``; :func:`graded`, :func:`right`: the one definition
  the API, the items list and the pages use): an item is *right* for a side when its score is 1,
  full credit at the top of a 0-1 scale (every sample right at k = 1, pass@k = 1 at k > 1).
  That means something only where every score of both sides lies within 0..1 and higher is
  better; elsewhere (a BLEU of 0-100, a loss) there are no counts (None). ``a_only`` counts the
  common items A has right and B has not, ``b_only`` the other way round. With 0/1 scores and one
  sample these are McNemar's discordant counts.
- **Many cells** (:func:`bh_adjust`): a map tests many cells at once, so each cell's p-value is
  also given adjusted by Benjamini-Hochberg (false discovery rate) over the cells tested; a cell
  is called distinguishable when its adjusted p is below :data:`ALPHA`.

Means, differences and intervals are in the items' own units (those of the figure's values;
Compare writes a fraction as percent only when it writes it). Intervals for one side:
:func:`wilson` for a proportion (never past 0 or 1) and :func:`bootstrap_mean_interval` for a
mean of item scores (never past the smallest or largest item score; seeded from the items' ids,
so the same items give the same interval under any labels, and rounded to what its resamples
resolve).

Pure numpy and the standard library: no Dash, Plotly or scipy.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from functools import lru_cache

import numpy as np

from evalmaps.analysis import power
from evalmaps.core.estimators import pass_at_k

RESAMPLES = 2000  # bootstrap resamples of one side's mean interval
ALPHA = 0.05  # the false discovery rate of a map's calls, and a cell's level
LEVEL = 0.95  # intervals' coverage
MIN_ITEMS = 6  # fewer common items: no paired test can reach p < ALPHA (2 / 2^5 = 0.0625)
EXACT_LIMIT = 4000  # discordant items up to which McNemar sums exact integers (log space beyond)
EXACT_FLIPS = 12  # differences not 0 up to which the sign-flip test enumerates every pattern
LATTICE_DENOMINATOR = 720  # the largest common denominator of differences given a lattice step
FEW_VALUES = 64  # distinct values up to which the bootstrap draws counts of values
DECIMALS = 12  # exact results are rounded to this many decimals (floating-point noise only)
Z_95 = 1.959963984540054  # the standard normal's 97.5th percentile
# the tests, in the codes' order ("clustered": the Wald test on the clustered standard error)
TESTS = ("mcnemar", "sign-flip", "sign-flip-normal", "none", "clustered")


@dataclass(frozen=True)
class Paired:
    """One cell's paired comparison of B against A on its common items (see the module).
    ``p``, ``p_adjusted``, ``ci_low`` and ``ci_high`` are None where no test can be made."""

    n: int  # common items
    a_mean: float
    b_mean: float
    diff: float  # b_mean - a_mean
    ci_low: float | None  # the difference's 95% interval, inverting the test
    ci_high: float | None
    p: float | None
    p_adjusted: float | None  # Benjamini-Hochberg over the map's tested cells (p until adjusted)
    test: str  # one of TESTS
    a_only: int | None  # items A has right and B has not (None: scores are not right or wrong)
    b_only: int | None
    only_in_a: int = 0  # the cell's items A has and B has not (not in the test)
    only_in_b: int = 0
    # error bars as Miller asks for them (evalmaps.analysis.power): each side's standard error
    # over the common items, the difference's own, the smallest difference these items detect
    # with 80% power (mde) and the items the observed one would need; None where n < 2
    a_se: float | None = None
    b_se: float | None = None
    se_diff: float | None = None
    se_diff_clustered: float | None = None  # with clusters of items (n_clusters of them)
    n_clusters: int | None = None
    a_se_clustered: float | None = None  # each side's, clustered the same way
    b_se_clustered: float | None = None
    # with k > 1 samples on every item (at k = 1): each side's variance within items (of an
    # item's samples), between items, and the share of its mean's variance that more samples
    # per item would remove (evalmaps.analysis.power.variance_parts)
    a_var_within: float | None = None
    a_var_between: float | None = None
    a_within_share: float | None = None
    b_var_within: float | None = None
    b_var_between: float | None = None
    b_within_share: float | None = None
    mde: float | None = None  # from the clustered se_diff where there are clusters
    items_needed: int | None = None

    @property
    def tested(self) -> bool:
        return self.p is not None

    @property
    def distinguishable(self) -> bool:
        """Whether the map calls this cell: its adjusted p below :data:`ALPHA`."""
        return self.p_adjusted is not None and self.p_adjusted < ALPHA

    def as_dict(self) -> dict:
        """JSON-ready: the API's ``paired``."""
        return asdict(self)


# --------------------------------------------------------------------------- McNemar

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
        tail = math.exp(_log_tail(low, m, 0.5))
    return min(1.0, 2.0 * tail)


def mcnemar_ps(a_only, b_only) -> list[float]:
    """:func:`mcnemar_p` of many pairs (whole numbers each), the same floats, faster: where a
    pair's sum ``m`` is up to :data:`EXACT_LIMIT`, the same exact integer ``S(m, x)`` (the sum
    of ``C(m, i)`` for ``i <= x``, ``x`` the smaller count) divided by ``2^m``, but each reached
    from the previous pair's by steps on ``(m, x)`` instead of summed from ``i = 0``:
    ``S(m, x +- 1) = S(m, x) +- C(m, x or x + 1)``, ``S(m + 1, x) = 2 S(m, x) - C(m, x)`` and
    back ``S(m - 1, x) = (S(m, x) + C(m - 1, x)) / 2``, every step exact, the pairs visited in
    strips of ``m`` (by ``x``, up and down in turn) so that the steps are few."""
    a = [int(v) for v in np.ravel(a_only)]
    b = [int(v) for v in np.ravel(b_only)]
    if len(a) != len(b):
        raise ValueError("as many a_only as b_only counts")
    out: list = [None] * len(a)
    exact = []
    for at, (x, y) in enumerate(zip(a, b)):
        if x < 0 or y < 0:
            raise ValueError("discordant counts cannot be negative")
        if 0 < x + y <= EXACT_LIMIT:
            exact.append((x + y, min(x, y), at))
        else:
            out[at] = mcnemar_p(x, y)
    if exact:
        ms = [e[0] for e in exact]
        xs = [e[1] for e in exact]
        width = max(1, int(math.sqrt(3 * (max(ms) - min(ms) + 1) * (max(xs) - min(xs) + 1)
                                     / len(exact))))
        low_m = min(ms)
        exact.sort(key=lambda e: ((e[0] - low_m) // width,
                                  e[1] if (e[0] - low_m) // width % 2 == 0 else -e[1], e[0]))
        m, x, term, total = 0, 0, 1, 1  # C(0, 0) and S(0, 0)
        for tm, tx, at in exact:
            if tm >= m:
                while m < tm:  # x <= m throughout
                    total, term, m = 2 * total - term, term * (m + 1) // (m + 1 - x), m + 1
            while x < tx:
                term = term * (m - x) // (x + 1)
                total += term
                x += 1
            while x > tx:
                total -= term
                term = term * x // (m - x + 1)
                x -= 1
            while m > tm:  # x = tx <= tm / 2 throughout
                term = term * (m - x) // m
                total, m = (total + term) // 2, m - 1
            out[at] = min(1.0, 2.0 * (total / (1 << m)))
    return out


@lru_cache(maxsize=64)
def _log_binomials(m: int) -> np.ndarray:
    """log C(m, i), i = 0..m (a running sum of log((m - i + 1) / i))."""
    i = np.arange(1, m + 1, dtype=np.float64)
    return np.concatenate([[0.0], np.cumsum(np.log((m - i + 1) / i))])


def _log_pmf(m: int, pi: float) -> np.ndarray:
    """log P(X = i), i = 0..m, of a binomial(m, pi) with 0 < pi < 1."""
    i = np.arange(m + 1, dtype=np.float64)
    return _log_binomials(m) + i * math.log(pi) + (m - i) * math.log1p(-pi)


def _log_tail(x: int, m: int, pi: float) -> float:
    """log P(X <= x) of a binomial(m, pi), summed in log space."""
    logs = _log_pmf(m, pi)[: x + 1]
    top = float(logs.max())
    return top + math.log(float(np.exp(logs - top).sum()))


def _bisect(past, lo: float, hi: float, steps: int = 48) -> float:
    """The point in [lo, hi] where ``past`` turns from False to True (it is False at lo)."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        if past(mid):
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def _tango_z(a_only: int, b_only: int, n: int, delta: float) -> float:
    """Tango's score statistic of "B - A = delta" for paired 0/1 scores: ``(b_only - a_only -
    n delta) / sqrt(n (2 q + delta - delta^2))`` with ``q`` the maximum-likelihood share of the
    A-only items under that difference (the root in range of ``-2n q^2 + (a (1 - 3 delta) +
    b (1 - delta) - 2 delta (n - a - b)) q + a delta (1 - delta) = 0``)."""
    a, b = a_only, b_only
    rest = n - a - b
    lin = a * (1 - 3 * delta) + b * (1 - delta) - 2 * delta * rest
    root = math.sqrt(max(lin * lin + 8 * n * a * delta * (1 - delta), 0.0))
    q = (lin + root) / (4 * n)
    q = min(max(q, max(0.0, -delta)), (1 - delta) / 2)
    var = n * (2 * q + delta - delta * delta)
    gap = b - a - n * delta
    if var <= 0:
        return 0.0 if abs(gap) < 1e-9 else math.copysign(math.inf, gap)
    return gap / math.sqrt(var)


def mcnemar_interval(a_only: int, b_only: int, n: int) -> tuple[float, float]:
    """The 95% interval of B - A for paired 0/1 scores: Tango's score interval (the differences
    ``delta`` whose score statistic :func:`_tango_z` is within ±1.96; bisection on each side),
    made to agree with the exact McNemar test at 0 (it holds 0 exactly when p >= 0.05: the
    exact test is the more cautious near the edge, so the interval is widened to 0 there)."""
    a, b = int(a_only), int(b_only)
    diff = (b - a) / n
    # the statistic falls from +inf at -1 through 0 at the difference to -inf at 1
    lo = _bisect(lambda d: _tango_z(a, b, n, d) <= Z_95, -1.0, diff) if diff > -1 else -1.0
    hi = _bisect(lambda d: _tango_z(a, b, n, d) < -Z_95, diff, 1.0) if diff < 1 else 1.0
    return _agree(mcnemar_p(a, b), lo, hi, diff)


def _tango_z_many(a: np.ndarray, b: np.ndarray, n: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """:func:`_tango_z` of many (a_only, b_only, n, delta) at once, operation for operation
    (the same floating-point results)."""
    rest = n - a - b
    lin = a * (1 - 3 * delta) + b * (1 - delta) - 2 * delta * rest
    root = np.sqrt(np.maximum(lin * lin + 8 * n * a * delta * (1 - delta), 0.0))
    q = (lin + root) / (4 * n)
    q = np.minimum(np.maximum(q, np.maximum(0.0, -delta)), (1 - delta) / 2)
    var = n * (2 * q + delta - delta * delta)
    gap = b - a - n * delta
    positive = var > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = gap / np.sqrt(np.where(positive, var, 1.0))
    flat = np.where(np.abs(gap) < 1e-9, 0.0, np.copysign(np.inf, gap))
    return np.where(positive, z, flat)


def _bisect_many(past, lo: np.ndarray, hi: np.ndarray, steps: int = 48) -> np.ndarray:
    """:func:`_bisect` of many intervals at once (``past`` maps an array of points to where
    each is past its turn)."""
    lo, hi = lo.copy(), hi.copy()
    for _ in range(steps):
        mid = (lo + hi) / 2
        over = past(mid)
        hi = np.where(over, mid, hi)
        lo = np.where(over, lo, mid)
    return (lo + hi) / 2


def mcnemar_intervals(a_only, b_only, n, p=None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mcnemar_interval` of many pairs at once (arrays of whole numbers): the same
    bisections on Tango's statistic, step for step, so each end is the one
    :func:`mcnemar_interval` gives; made to agree with each pair's exact McNemar p (``p``,
    else one :func:`mcnemar_p` each)."""
    a = np.asarray(a_only, dtype=np.int64)
    b = np.asarray(b_only, dtype=np.int64)
    n = np.asarray(n, dtype=np.int64)
    diff = (b - a) / n
    low_end = _bisect_many(lambda d: _tango_z_many(a, b, n, d) <= Z_95, np.full(diff.shape, -1.0),
                           diff)
    high_end = _bisect_many(lambda d: _tango_z_many(a, b, n, d) < -Z_95, diff,
                            np.full(diff.shape, 1.0))
    low_end = np.where(diff > -1, low_end, -1.0)
    high_end = np.where(diff < 1, high_end, 1.0)
    if p is None:
        p = mcnemar_ps(a, b)
    ends = [_agree(float(p_i), lo_i, hi_i, d_i) for p_i, lo_i, hi_i, d_i in
            zip(np.ravel(p), low_end.ravel().tolist(), high_end.ravel().tolist(),
                diff.ravel().tolist())]
    lo = np.array([e[0] for e in ends], dtype=np.float64).reshape(diff.shape)
    hi = np.array([e[1] for e in ends], dtype=np.float64).reshape(diff.shape)
    return lo, hi


# --------------------------------------------------------------------------- sign flips

def lattice_half_step(d) -> float:
    """Half the step of the lattice every sign-flipped sum of ``d`` lies on: the largest ``h``
    of which every difference not 0 is a whole multiple (a flip moves the sum by ``2 |d_i|``,
    so the sums lie ``2 h`` apart and ``h`` is the continuity correction); 0 when the
    differences share no step with a denominator up to :data:`LATTICE_DENOMINATOR`."""
    values = np.unique(np.abs(np.asarray(d, dtype=np.float64)))
    values = values[values > 0]
    if not len(values):
        return 0.0
    denominator = 1
    for v in values:
        f = Fraction(float(v)).limit_denominator(LATTICE_DENOMINATOR)
        if abs(float(f) - v) > 1e-9 * max(1.0, v):
            return 0.0
        denominator = math.lcm(denominator, f.denominator)
        if denominator > LATTICE_DENOMINATOR:
            return 0.0
    whole = np.rint(values * denominator)
    if np.abs(whole - values * denominator).max() > 1e-6:
        return 0.0
    return math.gcd(*(int(w) for w in whole)) / denominator


class _Flips:
    """The exact sign-flip distribution of ``d - delta`` for any shift ``delta``: every pattern
    of the differences that are not 0 (enumerated) with the binomial sum of the zeros' signs."""

    def __init__(self, d: np.ndarray):
        self.n = len(d)
        self.total = float(d.sum())
        values = d[d != 0]
        m = len(values)
        signs = 1 - 2 * ((np.arange(1 << m)[:, None] >> np.arange(m)) & 1)  # 2^m x m of ±1
        self.sums = signs @ values  # A: each pattern's sum
        self.count = signs.sum(axis=1).astype(np.float64)  # B: its sum of signs
        zeros = self.n - m
        self.zeros = zeros
        if zeros:
            pmf = np.exp(_log_pmf(zeros, 0.5))
            self.cdf = np.minimum(np.cumsum(pmf), 1.0)  # P(X <= x), X the zeros' plus signs
            self.sf = np.minimum(np.cumsum(pmf[::-1])[::-1], 1.0)  # P(X >= x)
        self.scale = float(np.abs(d).sum()) + 1.0

    def p(self, delta: float = 0.0) -> float:
        """The two-sided p of "the differences are symmetric about ``delta``"."""
        observed = abs(self.total - self.n * delta)
        tol = 1e-9 * (self.scale + self.n * abs(delta))
        t = observed - tol
        if t <= 0:
            return 1.0
        a = self.sums - delta * self.count
        if delta == 0 or not self.zeros:
            return float(np.count_nonzero(np.abs(a) >= t)) / len(a)
        # |a - delta C| >= t with C = 2X - zeros symmetric about 0, so |delta| will do
        e = abs(delta)
        x_low = np.floor(((a - t) / e + self.zeros) / 2)  # X at most this: a - eC >= t
        x_high = np.ceil(((a + t) / e + self.zeros) / 2)  # X at least this: a - eC <= -t
        below = np.where(x_low < 0, 0.0, self.cdf[np.clip(x_low, 0, self.zeros).astype(np.int64)])
        above = np.where(x_high > self.zeros, 0.0,
                         self.sf[np.clip(x_high, 0, self.zeros).astype(np.int64)])
        return float(min(1.0, (below + above).mean()))


def sign_flip_normal(d: np.ndarray, c: float, delta: float = 0.0) -> float:
    """The normal approximation's two-sided p of the sign-flip test of ``d - delta`` with the
    continuity correction ``c``."""
    x = d - delta
    spread = math.sqrt(float(np.dot(x, x)))
    if spread == 0:
        return 1.0
    z = max(abs(float(x.sum())) - c, 0.0) / spread
    return min(1.0, math.erfc(z / math.sqrt(2.0)))


def sign_flip(d) -> tuple[float, float, float, str]:
    """(p, ci_low, ci_high, test) of the paired differences ``d`` (at least :data:`MIN_ITEMS`):
    the exact sign-flip test where at most :data:`EXACT_FLIPS` are not 0, else its normal
    approximation (see the module); the interval inverts the test used."""
    d = np.asarray(d, dtype=np.float64)
    n = len(d)
    m = int(np.count_nonzero(d))
    mean = float(d.mean())
    if m == 0:
        return 1.0, 0.0, 0.0, "sign-flip"
    if m <= EXACT_FLIPS:
        flips = _Flips(d)
        p = flips.p(0.0)
        top, bottom = float(d.max()), float(d.min())
        width = max(top - bottom, 1e-12)
        # the test rejects past the differences' range (n >= MIN_ITEMS): bisect to it
        hi = _bisect(lambda s: flips.p(s) < ALPHA, mean, top + width)
        lo = -_bisect(lambda s: flips.p(-s) < ALPHA, -mean, -bottom + width)
        lo, hi = _agree(p, lo, hi, mean)
        return p, lo, hi, "sign-flip"
    c = lattice_half_step(d)
    p = max(sign_flip_normal(d, c), 2.0 ** (1 - m), math.ulp(0.0))
    ss = float(((d - mean) ** 2).sum())
    z2 = Z_95 * Z_95
    quad = n * n - z2 * n  # (n u - c)^2 = z^2 (SS + n u^2), for u >= c / n
    u = (n * c + math.sqrt(max(n * n * c * c - quad * (c * c - z2 * ss), 0.0))) / quad
    lo, hi = _agree(p, mean - u, mean + u, mean)
    return p, lo, hi, "sign-flip-normal"


def _agree(p: float, lo: float, hi: float, mean: float) -> tuple[float, float]:
    """The interval made to say what the test says at 0 where the last bit of a bisection or a
    rounding would not: it holds 0 exactly when p >= ALPHA."""
    if p >= ALPHA:
        return min(lo, 0.0), max(hi, 0.0)
    if lo <= 0 <= hi:  # rejected at 0: the interval is on the mean's side of it
        return (math.ulp(0.0), hi) if mean > 0 else (lo, -math.ulp(0.0))
    return lo, hi


# --------------------------------------------------------------------------- one side

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
    """A resampling seed from texts (the same on every machine and run)."""
    text = "\x1f".join(str(label) for label in labels)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def seed_of_items(items: Iterable[object]) -> int:
    """A resampling seed from a cell's item ids: the same items give the same seed (and so the
    same interval) whatever the cell's labels are called."""
    return seed_of("items", *items)


def _resampled_means(d: np.ndarray, seed: int, resamples: int) -> np.ndarray:
    """The means of ``resamples`` bootstrap resamples of ``d`` (with replacement, same size).

    Each resample is a count per item (a uniform multinomial); where ``d`` takes few distinct
    values, a count per value (a multinomial weighted by how many items have it), which gives
    the same distribution."""
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


def resolution(means: np.ndarray, resamples: int) -> float:
    """What a bootstrap's percentile resolves: the Monte Carlo standard error of a 2.5th
    percentile, about ``sqrt(0.025 * 0.975 / R) / f`` with ``f`` the resampled means' density
    there; estimated as the spread of the neighbouring order statistics (``±sqrt(R q(1 - q))``
    ranks), at least 1e-12."""
    ordered = np.sort(means)
    q = (1 - LEVEL) / 2
    spread = math.sqrt(resamples * q * (1 - q))
    at = q * (resamples - 1)
    lo = ordered[max(int(at - spread), 0)]
    hi = ordered[min(int(math.ceil(at + spread)), resamples - 1)]
    return max(float(hi - lo) / 2, 1e-12)


def round_to(value: float, step: float) -> float:
    """``value`` to the significant decimal of ``step`` (0.00123 -> 3 decimals)."""
    places = max(0, min(DECIMALS, -int(math.floor(math.log10(step)))))
    return float(round(value, places)) + 0.0


def bootstrap_mean_interval(values, seed: int, resamples: int = RESAMPLES) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of the mean of ``values`` (item scores): never
    outside their smallest and largest value, rounded to the decimal its resamples resolve
    (:func:`resolution`)."""
    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        raise ValueError("an interval needs at least one item")
    means = _resampled_means(values, seed, resamples)
    tail = (1 - LEVEL) / 2
    lo, hi = (float(v) for v in np.quantile(means, [tail, 1 - tail]))
    step = resolution(means, resamples)
    lo, hi = round_to(lo, step), round_to(hi, step)
    return (max(lo, float(values.min())), min(hi, float(values.max())))


def bh_adjust(p) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (NaN and None stay NaN and are not counted): for the
    i-th smallest of m, ``min over j >= i of p_(j) * m / j``, at most 1."""
    p = np.array([np.nan if v is None else v for v in np.ravel(np.asarray(p, dtype=object))],
                 dtype=np.float64).reshape(np.shape(p))
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


def graded(a: np.ndarray, b: np.ndarray, higher_is_better: bool = True) -> bool:
    """Whether items are right or wrong: every score of both sides within 0..1 (0/1 scores, or
    partial credit such as F1) and higher is better."""
    if not higher_is_better:
        return False
    both = np.concatenate([np.ravel(a), np.ravel(b)])
    return bool(both.size == 0 or ((both >= 0) & (both <= 1)).all())


def right(scores: np.ndarray) -> np.ndarray:
    """Which items are right: full credit, a score of 1 (see :func:`graded` for where that
    means anything)."""
    return np.asarray(scores) == 1


def _r(value: float) -> float:
    return float(round(float(value), DECIMALS)) + 0.0  # + 0.0: no -0.0


def paired_values(a: np.ndarray, b: np.ndarray, mcnemar: bool = False,
                  higher_is_better: bool = True) -> Paired:
    """The paired comparison of item scores ``a`` and ``b`` (same items, same order): the exact
    McNemar test when ``mcnemar`` (0/1 scores, one sample each), else the sign-flip test; no
    test below :data:`MIN_ITEMS` items. ``a_only`` and ``b_only`` are None where items are not
    right or wrong (:func:`graded`)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or not len(a):
        raise ValueError("paired scores need the same items on both sides, at least one")
    n = len(a)
    a_only = b_only = None
    if graded(a, b, higher_is_better):
        a_right, b_right = right(a), right(b)
        a_only = int(np.count_nonzero(a_right & ~b_right))
        b_only = int(np.count_nonzero(b_right & ~a_right))
    a_mean, b_mean = a.mean(), b.mean()
    if n < MIN_ITEMS:
        p = lo = hi = None
        test = "none"
    elif mcnemar:
        a_wins, b_wins = int(np.count_nonzero(a > b)), int(np.count_nonzero(b > a))
        p, test = mcnemar_p(a_wins, b_wins), "mcnemar"
        lo, hi = mcnemar_interval(a_wins, b_wins, n)
    else:
        p, lo, hi, test = sign_flip(b - a)
    return with_error_bars(
        Paired(n=n, a_mean=_r(a_mean), b_mean=_r(b_mean), diff=_r(b_mean - a_mean),
               ci_low=None if lo is None else interval_end(lo),
               ci_high=None if hi is None else interval_end(hi),
               p=p, p_adjusted=p, test=test, a_only=a_only, b_only=b_only), a, b)


def with_error_bars(result: Paired, a: np.ndarray, b: np.ndarray, clusters=None) -> Paired:
    """``result`` with its standard errors, mde and items needed (:mod:`evalmaps.analysis.power`;
    ``clusters``: each common item's cluster, or None)."""
    d = b - a
    se_diff = power.se(d)
    clustered, groups = (None, None) if clusters is None else power.clustered_se(d, clusters)
    a_clustered = b_clustered = None
    if clusters is not None:
        a_clustered, b_clustered = (power.clustered_se(a, clusters)[0],
                                    power.clustered_se(b, clusters)[0])
    mde = (power.mde(se_diff) if clustered is None else power.mde(clustered, groups))
    return replace(result, a_se=_maybe(power.se(a)), b_se=_maybe(power.se(b)),
                   se_diff=_maybe(se_diff), se_diff_clustered=_maybe(clustered),
                   n_clusters=groups, mde=_maybe(mde),
                   items_needed=power.items_needed(result.n, mde, float(d.mean())),
                   a_se_clustered=_maybe(a_clustered), b_se_clustered=_maybe(b_clustered))


def clustered_test(result: Paired) -> Paired:
    """``result`` tested on its clustered standard error (items of a cluster are not
    independent, which McNemar's and the sign-flip test assume): the two-sided Wald test
    ``p = 2 P(T > |diff| / se_diff_clustered)`` with the interval it inverts, ``diff ±
    t_0.975 se_diff_clustered`` (so it leaves out 0 exactly when p < 0.05), T Student's t with
    ``n_clusters - 1`` degrees of freedom (:func:`evalmaps.analysis.power.two_sided_p`);
    ``test="clustered"``. Unchanged where no test is made (below :data:`MIN_ITEMS` items) or the
    clustered standard error is not there or 0 (one cluster; every cluster's mean difference
    the same)."""
    se_c, g = result.se_diff_clustered, result.n_clusters
    if not result.tested or se_c is None or se_c <= 0 or g is None or g < 2:
        return result
    p = power.two_sided_p(result.diff / se_c, g)
    half = power.critical(g) * se_c
    return replace(result, p=p, p_adjusted=p,
                   ci_low=interval_end(result.diff - half),
                   ci_high=interval_end(result.diff + half), test="clustered")


def side_variances(side: str, scores, at: np.ndarray) -> dict:
    """A side's ``var_within``, ``var_between`` and ``within_share`` on its items ``at``, as
    :class:`Paired`'s fields (``a_var_within``, ...); {} where they are not defined (an item of
    one sample)."""
    if scores.squares is None:
        return {}
    parts = power.variance_parts(scores.n[at], scores.total[at], scores.squares[at])
    if parts is None:
        return {}
    return {f"{side}_{name}": _r(v) for name, v in
            zip(("var_within", "var_between", "within_share"), parts)}


def common_clusters(a, b) -> np.ndarray:
    """One cluster per common item from A's labels ``a`` and B's ``b`` (the same items, in one
    order): A's where the two sides agree (the usual case: one column of one benchmark); where
    they do not, items are in one cluster when either side puts them together (the connected
    groups of both labellings: never finer than either, so never a smaller standard error)."""
    a = np.asarray(a, dtype=object).astype(str)
    b = np.asarray(b, dtype=object).astype(str)
    if np.array_equal(a, b):
        return a
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for left, right in set(zip(a.tolist(), b.tolist())):
        ra, rb = root("a" + left), root("b" + right)
        if ra != rb:
            parent[rb] = ra
    return np.array([root("a" + x) for x in a.tolist()], dtype=object)


def _maybe(value: float | None) -> float | None:
    return None if value is None else _r(value)


def interval_end(value: float) -> float:
    """An interval's end, rounded as values are, but never rounded onto 0 from either side (so
    it still says what the test says)."""
    out = _r(value)
    if out == 0 and value != 0:
        return float(value)
    return out


def paired_cell(a, b, k: int = 1, higher_is_better: bool = True) -> Paired | None:
    """B against A (:class:`~evalmaps.catalog.items.ItemScores`) on their common items; None
    when they share none."""
    shared, ia, ib = np.intersect1d(a.items, b.items, assume_unique=True, return_indices=True)
    if not len(shared):
        return None
    va, vb = item_values(a, k)[ia], item_values(b, k)[ib]
    mcnemar = (k == 1 and a.binary and b.binary and bool((a.n[ia] == 1).all())
               and bool((b.n[ib] == 1).all()))
    result = paired_values(va, vb, mcnemar, higher_is_better)
    if a.clusters is not None and b.clusters is not None:
        result = clustered_test(
            with_error_bars(result, va, vb, common_clusters(a.clusters[ia], b.clusters[ib])))
    if k == 1:
        result = replace(result, **side_variances("a", a, ia), **side_variances("b", b, ib))
    return replace(result, only_in_a=len(a.items) - len(shared),
                   only_in_b=len(b.items) - len(shared))


def paired_grid(a_cells: Mapping[tuple, object], b_cells: Mapping[tuple, object],
                keys: Sequence[tuple], k: int = 1,
                higher_is_better: bool = True) -> dict[tuple, Paired]:
    """Every cell of ``keys`` that both sides have items for, compared on its common items,
    with p-values adjusted (Benjamini-Hochberg) over the cells tested."""
    out = {}
    for key in keys:
        a, b = a_cells.get(key), b_cells.get(key)
        if a is None or b is None:
            continue
        result = paired_cell(a, b, k, higher_is_better)
        if result is not None:
            out[key] = result
    if out:
        adjusted = bh_adjust([r.p for r in out.values()])
        out = {key: _with_adjusted(r, q) for (key, r), q in zip(out.items(), adjusted)}
    return out


def _with_adjusted(result: Paired, q: float) -> Paired:
    return replace(result, p_adjusted=None if not np.isfinite(q) else float(q))
