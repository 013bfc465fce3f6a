"""evalmaps.analysis.paired against independent computations: McNemar against the exact
binomial distribution (fractions, 'as or less likely' outcomes), the bootstrap against the
direct enumeration of every resample, Wilson against the roots of its quadratic, Benjamini-
Hochberg against a hand-worked example and a direct double loop; plus property tests."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmaps.analysis import paired
from evalmaps.analysis.paired import (
    RESAMPLES,
    bh_adjust,
    bootstrap_diff,
    bootstrap_mean_interval,
    mcnemar_p,
    paired_cell,
    paired_grid,
    paired_values,
    seed_of,
    wilson,
)
from evalmaps.catalog.items import ItemScores
from evalmaps.core.estimators import pass_at_k


def binomial_two_sided(x: int, m: int) -> float:
    """The exact two-sided binomial test of x of m at 1/2: the total probability of every
    outcome no more likely than x (exact fractions)."""
    if m == 0:
        return 1.0
    probs = [Fraction(math.comb(m, i), 2 ** m) for i in range(m + 1)]
    return float(min(Fraction(1), sum(q for q in probs if q <= probs[x])))


def scores(ids, totals, n=None, binary=True) -> ItemScores:
    ids = np.array(ids, dtype=object)
    totals = np.array(totals, dtype=np.float64)
    n = np.ones(len(ids), dtype=np.int64) if n is None else np.array(n, dtype=np.int64)
    return ItemScores(ids, n, totals, binary)


# --------------------------------------------------------------------------- McNemar

def test_mcnemar_hand_worked():
    # 2 and 8 discordant: 2 * (C(10,0) + C(10,1) + C(10,2)) / 2^10 = 2 * 56 / 1024
    assert mcnemar_p(2, 8) == 112 / 1024
    assert mcnemar_p(8, 2) == 112 / 1024
    assert mcnemar_p(0, 5) == 2 / 32  # 0.0625: five of five one way is not enough at 5%
    assert mcnemar_p(0, 6) == 2 / 64
    assert mcnemar_p(0, 0) == 1.0
    assert mcnemar_p(4, 4) == 1.0


@pytest.mark.parametrize("m", [1, 2, 3, 7, 10, 25, 60])
def test_mcnemar_equals_the_exact_binomial_test(m):
    for x in range(m + 1):
        assert mcnemar_p(x, m - x) == pytest.approx(binomial_two_sided(x, m), rel=1e-12), (x, m)


def test_mcnemar_in_log_space_equals_the_exact_sum(monkeypatch):
    cases = [(900, 1000), (40, 60), (3000, 3150), (10, 10)]
    exact = [mcnemar_p(a, b) for a, b in cases]
    monkeypatch.setattr(paired, "EXACT_LIMIT", 0)
    for (a, b), want in zip(cases, exact):
        assert mcnemar_p(a, b) == pytest.approx(want, rel=1e-9)


def test_mcnemar_refuses_negative_counts():
    with pytest.raises(ValueError):
        mcnemar_p(-1, 3)


# --------------------------------------------------------------------------- bootstrap

def enumerated_means(d) -> dict:
    """The exact bootstrap distribution of the mean: every one of the n^n resamples."""
    n = len(d)
    out: dict = {}
    for picks in itertools.product(range(n), repeat=n):
        m = round(sum(d[i] for i in picks) / n, 9)
        out[m] = out.get(m, 0) + 1 / n ** n
    return out


@pytest.mark.parametrize("few", [True, False])
def test_resampled_means_follow_the_enumerated_bootstrap(monkeypatch, few):
    if not few:  # the per-item path (used where the differences take many values)
        monkeypatch.setattr(paired, "FEW_VALUES", 0)
    d = np.array([0.0, 0.5, 1.0, 1.0, -0.25])
    exact = enumerated_means(list(d))
    means = np.round(paired._resampled_means(d, 7, 200_000), 9)
    values, counts = np.unique(means, return_counts=True)
    seen = dict(zip(values.tolist(), (counts / len(means)).tolist()))
    assert set(seen) <= set(exact)
    for value, prob in exact.items():
        # binomial sd of a share of 200,000 is at most 0.0012: 5 sd
        assert seen.get(value, 0.0) == pytest.approx(prob, abs=0.006), value


def test_bootstrap_hand_worked():
    # every item one better: every resample's mean is 1; P*(mean <= 0) = 1/2001
    assert bootstrap_diff([1, 1, 1, 1], seed=3) == (1.0, 1.0, 2 / (RESAMPLES + 1))
    # no difference anywhere: the interval is [0, 0] and p is 1
    assert bootstrap_diff([0, 0, 0], seed=3) == (0.0, 0.0, 1.0)
    # +1 and -1: a resample's mean is -1, 0 or 1 with chances 1/4, 1/2, 1/4 -> [-1, 1], p = 1
    assert bootstrap_diff([1, -1], seed=3) == (-1.0, 1.0, 1.0)


def test_bootstrap_interval_holds_the_difference_or_leaves_out_zero():
    clear = np.array([1.0] * 20 + [0.0] * 10)  # B better on 20 of 30 items, never worse
    lo, hi, p = bootstrap_diff(clear, seed_of("x"))
    assert 0 < lo < clear.mean() < hi <= 1 and p < 0.001
    even = np.array([1.0] * 5 + [-1.0] * 5 + [0.0] * 20)
    lo, hi, p = bootstrap_diff(even, seed_of("x"))
    assert lo < 0 < hi and p > 0.5


def test_bootstrap_seed_reproduces_and_differs_by_cell():
    d = np.random.default_rng(0).normal(size=50)
    assert bootstrap_diff(d, seed_of("2000", "0.4")) == bootstrap_diff(d, seed_of("2000", "0.4"))
    assert bootstrap_diff(d, seed_of("2000", "0.4")) != bootstrap_diff(d, seed_of("2000", "0.5"))
    # the same on every machine and run: sha256 of the labels joined by U+001F, first 8 bytes
    assert seed_of("a", "b") == 11359827136247254256
    assert seed_of("a", "b") != seed_of("ab")


def test_bootstrap_draws_at_least_2000_resamples(monkeypatch):
    seen = []
    real = paired._resampled_means

    def spy(d, seed, resamples):
        out = real(d, seed, resamples)
        seen.append(len(out))
        return out

    monkeypatch.setattr(paired, "_resampled_means", spy)
    paired_values(np.array([0.0, 1.0, 0.5]), np.array([1.0, 1.0, 0.25]), seed=1)
    assert RESAMPLES >= 2000 and seen == [RESAMPLES]


def test_mean_interval_stays_within_the_scores():
    values = np.array([0.0] * 29 + [1.0])
    lo, hi = bootstrap_mean_interval(values, seed=1)
    assert 0.0 <= lo <= values.mean() <= hi <= 1.0
    assert bootstrap_mean_interval(np.ones(10), seed=1) == (1.0, 1.0)


# --------------------------------------------------------------------------- Wilson

def wilson_by_hand(s: int, n: int, z: float = 1.96):
    """The roots of (p - pi)^2 = z^2 pi (1 - pi) / n in pi."""
    p = s / n
    a, b, c = 1 + z * z / n, -(2 * p + z * z / n), p * p
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


@pytest.mark.parametrize("s,n", [(8, 10), (0, 10), (10, 10), (1, 30), (15, 30), (450, 500)])
def test_wilson_equals_the_roots_of_its_quadratic(s, n):
    lo, hi = wilson(s, n, z=1.96)
    want = wilson_by_hand(s, n)
    assert float(lo) == pytest.approx(max(want[0], 0.0), abs=1e-12)
    assert float(hi) == pytest.approx(min(want[1], 1.0), abs=1e-12)


def test_wilson_hand_worked():
    # 8 of 10 at z = 1.96: (0.8 + 0.19208 -+ 1.96 sqrt(0.016 + 0.009604)) / 1.38416
    lo, hi = wilson(8, 10, z=1.96)
    assert float(lo) == pytest.approx(0.4901568, abs=1e-6)  # 0.678456 / 1.38416
    assert float(hi) == pytest.approx(0.9433190, abs=1e-6)  # 1.305704 / 1.38416
    lo, hi = wilson(np.array([0, 3]), np.array([0, 3]))
    assert np.isnan(lo[0]) and np.isnan(hi[0]) and float(hi[1]) == 1.0


@given(st.integers(1, 5000), st.data())
def test_wilson_stays_within_0_and_1_and_holds_the_share(n, data):
    s = data.draw(st.integers(0, n))
    lo, hi = wilson(s, n)
    assert 0.0 <= float(lo) <= s / n + 1e-12 and s / n - 1e-12 <= float(hi) <= 1.0


# --------------------------------------------------------------------------- Benjamini-Hochberg

def bh_direct(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    rank = {i: r + 1 for r, i in enumerate(order)}
    return [min(1.0, min(p[j] * m / rank[j] for j in range(m) if rank[j] >= rank[i]))
            for i in range(m)]


def test_bh_hand_worked():
    # sorted 0.01, 0.03, 0.04, 0.2 (m = 4): x4/1, x4/2, x4/3, x4/4 = 0.04, 0.06, 0.0533, 0.2;
    # running minimum from the top: 0.04, 0.0533, 0.0533, 0.2
    got = bh_adjust([0.01, 0.04, 0.03, np.nan, 0.2])
    np.testing.assert_allclose(got, [0.04, 0.16 / 3, 0.16 / 3, np.nan, 0.2])


@given(st.lists(st.floats(0, 1), min_size=1, max_size=40))
def test_bh_equals_a_direct_implementation(p):
    np.testing.assert_allclose(bh_adjust(p), bh_direct(p), rtol=1e-12, atol=1e-15)
    assert (bh_adjust(p) >= np.array(p) - 1e-15).all()


# --------------------------------------------------------------------------- one cell

def test_cell_uses_mcnemar_for_binary_single_samples():
    a = scores(["q1", "q2", "q3", "q4", "q5", "q9"], [1, 1, 0, 0, 1, 1])
    b = scores(["q1", "q2", "q3", "q4", "q5", "q7"], [1, 0, 1, 1, 1, 0])
    r = paired_cell(a, b, seed=1)
    assert (r.n, r.test, r.a_only, r.b_only) == (5, "mcnemar", 1, 2)
    assert (r.a_mean, r.b_mean, r.diff) == (0.6, 0.8, 0.2)
    assert r.p == mcnemar_p(1, 2) == 1.0 and r.p_adjusted == r.p


def test_cell_with_samples_uses_the_bootstrap_of_item_means():
    a = scores(["1", "2", "3"], [8, 4, 0], n=[8, 8, 8])
    b = scores(["1", "2", "3"], [8, 8, 2], n=[8, 8, 8])
    r = paired_cell(a, b, seed=seed_of("c"))
    lo, hi, p = bootstrap_diff(np.array([0.0, 0.5, 0.25]), seed_of("c"))
    assert r.as_dict() == {"n": 3, "a_mean": 0.5, "b_mean": 0.75, "diff": 0.25, "ci_low": lo,
                           "ci_high": hi, "p": p, "p_adjusted": p, "test": "bootstrap",
                           "a_only": 0, "b_only": 1}


def test_cell_at_k_uses_each_items_pass_at_k():
    a = scores(["1", "2", "3"], [1, 0, 4], n=[4, 4, 4])
    b = scores(["1", "2", "3"], [3, 2, 4], n=[4, 4, 4])
    r = paired_cell(a, b, seed=5, k=2)
    va, vb = pass_at_k([4, 4, 4], [1, 0, 4], 2), pass_at_k([4, 4, 4], [3, 2, 4], 2)
    assert r.a_mean == pytest.approx(va.mean(), abs=1e-12)
    assert r.b_mean == pytest.approx(vb.mean(), abs=1e-12)
    assert (r.test, r.a_only, r.b_only) == ("bootstrap", 0, 1)  # item 1: 0.5 vs 1; item 2: 0 vs 5/6
    with pytest.raises(ValueError):
        paired_cell(scores(["1"], [0.5], binary=False), scores(["1"], [1]), seed=1, k=2)


def test_cell_without_common_items_is_none():
    assert paired_cell(scores(["a"], [1]), scores(["b"], [1]), seed=1) is None


def test_grid_adjusts_over_the_cells_tested():
    same = scores([str(i) for i in range(30)], [1] * 15 + [0] * 15)
    better = scores([str(i) for i in range(30)], [1] * 30)
    a_cells = {("r", "1"): same, ("r", "2"): same, ("r", "3"): same}
    b_cells = {("r", "1"): better, ("r", "2"): same, ("r", "4"): better}
    got = paired_grid(a_cells, b_cells, [("r", "1"), ("r", "2"), ("r", "3"), ("r", "4")])
    assert list(got) == [("r", "1"), ("r", "2")]
    assert got[("r", "1")].p == mcnemar_p(0, 15) and got[("r", "2")].p == 1.0
    np.testing.assert_allclose([got[k].p_adjusted for k in got], bh_adjust([mcnemar_p(0, 15), 1.0]))


# --------------------------------------------------------------------------- properties

binary_pairs = st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)))
eighths = st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 8).map(lambda v: v / 8), min_size=n, max_size=n),
    st.lists(st.integers(0, 8).map(lambda v: v / 8), min_size=n, max_size=n)))
reals = st.integers(1, 90).flatmap(lambda n: st.tuples(
    st.lists(st.floats(0, 1), min_size=n, max_size=n),
    st.lists(st.floats(0, 1), min_size=n, max_size=n)))


@settings(max_examples=60, deadline=None)
@given(st.one_of(binary_pairs, eighths, reals), st.booleans(), st.integers(0, 2 ** 32))
def test_swapping_a_and_b_negates_the_difference_and_keeps_p(pair, mcnemar, seed):
    a, b = (np.array(v) for v in pair)
    mcnemar = mcnemar and set(a) | set(b) <= {0.0, 1.0}
    ab, ba = paired_values(a, b, seed, mcnemar), paired_values(b, a, seed, mcnemar)
    assert ba.diff == -ab.diff and (ba.a_mean, ba.b_mean) == (ab.b_mean, ab.a_mean)
    assert (ba.a_only, ba.b_only) == (ab.b_only, ab.a_only)
    assert ba.p == ab.p and ba.test == ab.test
    assert ba.ci_low == pytest.approx(-ab.ci_high, abs=1e-9)
    assert ba.ci_high == pytest.approx(-ab.ci_low, abs=1e-9)
    # within the metric's range (differences of 0-1 scores) and around the difference's range
    d = b - a
    assert -1 <= ab.ci_low <= ab.ci_high <= 1
    assert d.min() - 1e-9 <= ab.ci_low and ab.ci_high <= d.max() + 1e-9
    assert 0 < ab.p <= 1 and 0 <= ab.a_mean <= 1 and 0 <= ab.b_mean <= 1
