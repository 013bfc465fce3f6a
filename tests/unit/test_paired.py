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
    ALPHA,
    MIN_ITEMS,
    Z_95,
    bh_adjust,
    bootstrap_mean_interval,
    mcnemar_p,
    paired_cell,
    paired_grid,
    paired_values,
    seed_of,
    seed_of_items,
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
    with pytest.raises(ValueError):
        paired.mcnemar_ps([2, -1], [3, 3])


def test_many_mcnemar_ps_are_each_pairs_mcnemar_p():
    """mcnemar_ps walks from one pair's exact sum to the next: every p is mcnemar_p's, the same
    float, for every pair of counts up to 40 in a shuffled order, for pairs spread to the exact
    sum's limit and past it (log space), one pair, none."""
    rng = np.random.default_rng(37)
    small = [(a, b) for a in range(41) for b in range(41)]
    rng.shuffle(small)
    a = rng.integers(0, paired.EXACT_LIMIT // 2 + 1, 3000)
    b = rng.integers(0, paired.EXACT_LIMIT // 2 + 1, 3000)
    spread = [*zip(a.tolist(), b.tolist()), (paired.EXACT_LIMIT, 0), (2001, 2000),
              (3000, 1500), (5, 5), (0, 0)]
    for cases in (small, spread, spread[::-1], [(30, 70)]):
        x, y = [c[0] for c in cases], [c[1] for c in cases]
        assert paired.mcnemar_ps(np.array(x), y) == [mcnemar_p(i, j) for i, j in cases]
    assert paired.mcnemar_ps([], []) == []


# --------------------------------------------------------------------------- bootstrap (one side)

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
    if not few:  # the per-item path (used where the values take many values)
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


def test_seeds_are_fixed_and_come_from_the_items():
    # the same on every machine and run: sha256 of the texts joined by U+001F, first 8 bytes
    assert seed_of("a", "b") == 11359827136247254256
    assert seed_of("a", "b") != seed_of("ab")
    assert seed_of_items(["q1", "q2"]) == seed_of("items", "q1", "q2")
    assert seed_of_items(["q1", "q2"]) != seed_of_items(["q1", "q3"])


def test_mean_interval_is_rounded_to_what_its_resamples_resolve():
    values = np.random.default_rng(4).random(300)
    seeds = [seed_of_items([str(i)]) for i in range(12)]
    ends = np.array([bootstrap_mean_interval(values, s) for s in seeds])
    # the endpoints vary between seeds by about the Monte Carlo error; printed to that decimal
    spread = float(np.ptp(ends[:, 0]))
    decimals = {len(repr(float(v)).split(".")[1]) for v in ends.ravel()}
    assert spread > 0 and max(decimals) <= -math.floor(math.log10(spread)) + 1


# --------------------------------------------------------------------------- sign flips

def enumerated_sign_flip(d, delta=0.0) -> float:
    """The exact two-sided sign-flip p of d - delta: every one of the 2^n sign patterns."""
    x = [Fraction(str(v)) - Fraction(str(delta)) for v in d]  # decimal ties are ties
    observed = abs(sum(x))
    hits = sum(1 for signs in itertools.product((1, -1), repeat=len(x))
               if abs(sum(s * v for s, v in zip(signs, x))) >= observed)
    return hits / 2 ** len(x)


def test_no_test_below_six_items_and_six_of_six_is_significant():
    for n in range(1, MIN_ITEMS):
        r = paired_values(np.zeros(n), np.ones(n))
        assert (r.test, r.p, r.p_adjusted, r.ci_low, r.ci_high) == ("none", None, None, None, None)
        assert r.diff == 1.0 and not r.distinguishable and r.b_only == n
        assert enumerated_sign_flip([1.0] * n) >= 0.0625  # why: no test could reach 5%
    r = paired_values(np.zeros(6), np.ones(6), mcnemar=True)
    assert r.p == 2 / 64 and r.test == "mcnemar" and 0 < r.ci_low <= r.ci_high <= 1
    r = paired_values(np.zeros(6), np.full(6, 0.5))
    assert r.p == 2 / 64 and r.test == "sign-flip" and 0 < r.ci_low


@pytest.mark.parametrize("d", [[0.5, -0.25, 1.0, 0.75, 0.0, 0.25, 0.5],
                               [1.0, 1.0, 1.0, -1.0, 0.0, 0.0, 0.0, 1.0, 1.0],
                               [0.125, 0.3, -0.7, 0.9, 0.45, 0.2, 0.0, 0.05]])
def test_exact_sign_flip_equals_the_enumeration_at_every_shift(d):
    flips = paired._Flips(np.array(d))
    for delta in [0.0, 0.1, -0.3, 0.25, 0.5, -0.125, 0.9]:
        assert flips.p(delta) == pytest.approx(enumerated_sign_flip(d, delta), abs=1e-12), delta
    p, lo, hi, test = paired.sign_flip(np.array(d))
    assert test == "sign-flip" and p == pytest.approx(enumerated_sign_flip(d), abs=1e-12)
    # the interval is where the enumerated test does not reject: just inside kept, just past not
    for end, step in ((lo, -1e-6), (hi, 1e-6)):
        if end != 0:
            assert enumerated_sign_flip(d, end - step) >= ALPHA
            assert enumerated_sign_flip(d, end + step) < ALPHA


def test_normal_sign_flip_is_the_corrected_z_and_its_interval_inverts_it():
    rng = np.random.default_rng(5)
    d = rng.integers(-2, 5, size=80) / 4  # quarters: the sums lie 2 * 0.25 apart
    p, lo, hi, test = paired.sign_flip(d)
    assert test == "sign-flip-normal" and paired.lattice_half_step(d) == 0.25
    z = (abs(d.sum()) - 0.25) / math.sqrt((d * d).sum())
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-12)
    for end in (lo, hi):  # the test at each end is at exactly 5%
        assert paired.sign_flip_normal(d, 0.25, end) == pytest.approx(ALPHA, rel=1e-9)
    assert lo < d.mean() < hi


def test_normal_sign_flip_is_close_to_the_exact_one_at_its_smallest_size():
    # 13 differences not 0, the first size past the enumeration: near 5% it is never more than
    # 10% below the exact p (it may be more cautious)
    rng = np.random.default_rng(11)
    for _ in range(200):
        d = rng.choice([-1.0, -0.5, 0.5, 1.0], size=13, p=[0.15, 0.15, 0.3, 0.4])
        exact = paired._Flips(d).p(0.0)
        if 0.01 < exact < 0.2:
            approx = paired.sign_flip_normal(d, paired.lattice_half_step(d))
            assert 0.9 * exact <= approx <= 1.5 * exact, d


def test_a_big_map_can_call_a_cell():
    # 100 cells; one cell's 60 items all favour B (several samples each): the sign-flip p is
    # tiny, so it survives Benjamini-Hochberg over 100 cells (a bootstrap's floor could not)
    ids = [str(i) for i in range(60)]
    even = scores(ids, [2] * 60, n=[4] * 60)
    a_cells = {("r", str(c)): even for c in range(100)}
    b_cells = dict(a_cells)
    b_cells[("r", "0")] = scores(ids, [3] * 60, n=[4] * 60)
    got = paired_grid(a_cells, b_cells, list(a_cells))
    r = got[("r", "0")]
    assert r.test == "sign-flip-normal" and r.p < 1e-10 and r.p_adjusted < 1e-8
    assert r.distinguishable and sum(x.distinguishable for x in got.values()) == 1


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
    a = scores(["q1", "q2", "q3", "q4", "q5", "q6", "q9"], [1, 1, 0, 0, 1, 0, 1])
    b = scores(["q1", "q2", "q3", "q4", "q5", "q6", "q7"], [1, 0, 1, 1, 1, 0, 0])
    r = paired_cell(a, b)
    assert (r.n, r.test, r.a_only, r.b_only) == (6, "mcnemar", 1, 2)
    assert r.a_mean == 0.5 and r.b_mean == pytest.approx(4 / 6) and r.diff == pytest.approx(1 / 6)
    assert r.p == mcnemar_p(1, 2) == 1.0 and r.p_adjusted == r.p
    assert r.ci_low < 0 < r.ci_high


def test_cell_with_samples_uses_the_sign_flip_test_of_item_means():
    a = scores(["1", "2", "3", "4", "5", "6"], [8, 4, 0, 2, 8, 1], n=[8] * 6)
    b = scores(["1", "2", "3", "4", "5", "6"], [8, 8, 2, 6, 8, 5], n=[8] * 6)
    r = paired_cell(a, b)
    d = [0.0, 0.5, 0.25, 0.5, 0.0, 0.5]
    assert (r.test, r.n, r.a_only, r.b_only) == ("sign-flip", 6, 0, 1)
    assert r.p == enumerated_sign_flip(d) == 2 / 16  # 4 differences not 0, all one way
    assert r.diff == pytest.approx(np.mean(d)) and r.ci_low < 0 < r.ci_high


def test_cell_at_k_uses_each_items_pass_at_k():
    a = scores(["1", "2", "3", "4", "5", "6"], [1, 0, 4, 0, 1, 2], n=[4] * 6)
    b = scores(["1", "2", "3", "4", "5", "6"], [3, 2, 4, 1, 1, 3], n=[4] * 6)
    r = paired_cell(a, b, k=2)
    va, vb = pass_at_k([4] * 6, [1, 0, 4, 0, 1, 2], 2), pass_at_k([4] * 6, [3, 2, 4, 1, 1, 3], 2)
    assert r.a_mean == pytest.approx(va.mean(), abs=1e-12)
    assert r.b_mean == pytest.approx(vb.mean(), abs=1e-12)
    assert r.test == "sign-flip" and r.p == pytest.approx(enumerated_sign_flip(list(vb - va)))
    assert (r.a_only, r.b_only) == (0, 2)  # item 1: 0.5 vs 1; item 6: 5/6 vs 1
    with pytest.raises(ValueError):
        paired_cell(scores(["1"], [0.5], binary=False), scores(["1"], [1]), k=2)


def test_cell_without_common_items_is_none():
    assert paired_cell(scores(["a"], [1]), scores(["b"], [1])) is None


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


@settings(max_examples=80, deadline=None)
@given(st.one_of(binary_pairs, eighths, reals), st.booleans())
def test_swapping_a_and_b_negates_the_difference_and_keeps_p(pair, mcnemar):
    a, b = (np.array(v) for v in pair)
    mcnemar = mcnemar and set(a) | set(b) <= {0.0, 1.0}
    ab, ba = paired_values(a, b, mcnemar), paired_values(b, a, mcnemar)
    assert ba.diff == -ab.diff and (ba.a_mean, ba.b_mean) == (ab.b_mean, ab.a_mean)
    assert (ba.a_only, ba.b_only) == (ab.b_only, ab.a_only)
    assert ba.p == ab.p and ba.test == ab.test
    # swapping keeps the difference's standard error, the mde and the items it needs
    assert (ba.se_diff, ba.mde, ba.items_needed) == (ab.se_diff, ab.mde, ab.items_needed)
    assert (ba.a_se, ba.b_se) == (ab.b_se, ab.a_se)
    if ab.p is None:
        assert len(a) < MIN_ITEMS and ab.ci_low is None and ba.ci_high is None
        return
    assert ba.ci_low == pytest.approx(-ab.ci_high, abs=1e-9)
    assert ba.ci_high == pytest.approx(-ab.ci_low, abs=1e-9)
    assert 0 < ab.p <= 1 and 0 <= ab.a_mean <= 1 and 0 <= ab.b_mean <= 1
    assert ab.ci_low <= ab.diff + 1e-12 and ab.diff - 1e-12 <= ab.ci_high


@settings(max_examples=120, deadline=None)
@given(st.one_of(binary_pairs, eighths, reals), st.booleans())
def test_the_interval_leaves_out_zero_exactly_when_p_is_below_5_percent(pair, mcnemar):
    a, b = (np.array(v) for v in pair)
    mcnemar = mcnemar and set(a) | set(b) <= {0.0, 1.0}
    r = paired_values(a, b, mcnemar)
    if r.p is not None:
        assert (r.p < ALPHA) == (not r.ci_low <= 0 <= r.ci_high), r


@settings(max_examples=40, deadline=None)
@given(st.one_of(binary_pairs, eighths), st.booleans())
def test_mcnemar_is_the_exact_sign_flip_test_of_0_1_scores(pair, _):
    a, b = (np.array(v) for v in pair)
    if set(a) | set(b) <= {0.0, 1.0} and len(a) >= MIN_ITEMS and np.count_nonzero(b - a) <= 12:
        assert paired_values(a, b, True).p == pytest.approx(paired._Flips(b - a).p(0.0), abs=1e-12)


# --------------------------------------------------------------------------- McNemar's interval

def tango_by_likelihood(a: int, b: int, n: int, delta: float) -> float:
    """Tango's score statistic with the restricted maximum-likelihood share found numerically
    (scipy's bounded scalar minimiser on the multinomial log-likelihood), not from the root."""
    optimize = pytest.importorskip("scipy.optimize")
    low, high = max(0.0, -delta) + 1e-12, (1 - delta) / 2 - 1e-12

    def nll(q):
        cells = [(a, q), (b, q + delta), (n - a - b, 1 - 2 * q - delta)]
        return -sum(k * math.log(p) for k, p in cells if k)

    q = optimize.minimize_scalar(nll, bounds=(low, high), method="bounded",
                                 options={"xatol": 1e-13}).x
    return (b - a - n * delta) / math.sqrt(n * (2 * q + delta - delta * delta))


@pytest.mark.parametrize("a,b,n", [(2, 8, 30), (67, 122, 717), (10, 3, 50), (1, 9, 12), (0, 7, 40)])
def test_mcnemar_interval_ends_are_where_tangos_score_is_1_96(a, b, n):
    lo, hi = paired.mcnemar_interval(a, b, n)
    p = mcnemar_p(a, b)
    for end, want in ((lo, Z_95), (hi, -Z_95)):
        if end in (0.0, -1.0, 1.0):  # widened to 0 to agree with the exact test, or at a bound
            assert end != 0.0 or p >= ALPHA
            continue
        assert tango_by_likelihood(a, b, n, end) == pytest.approx(want, abs=1e-5)
    assert (p < ALPHA) == (not lo <= 0 <= hi)


def test_mcnemar_interval_of_a_clean_sweep_is_not_a_point():
    lo, hi = paired.mcnemar_interval(0, 6, 6)  # six of six for B
    assert 0 < lo < 0.5 and hi == 1.0


def test_a_paired_cell_carries_its_error_bars():
    from evalmaps.analysis import power

    a = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0])
    b = np.array([1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0])
    r = paired_values(a, b, mcnemar=True)
    d = b - a
    assert r.se_diff == pytest.approx(power.se(d)) and r.a_se == pytest.approx(power.se(a))
    assert r.mde == pytest.approx(power.POWER_FACTOR * power.se(d))
    assert r.items_needed == math.ceil(8 * (r.mde / d.mean()) ** 2 - 1e-9)
    assert (r.se_diff_clustered, r.n_clusters) == (None, None)
    same = paired_values(a, a.copy(), mcnemar=True)
    assert same.items_needed is None and same.se_diff == 0.0
