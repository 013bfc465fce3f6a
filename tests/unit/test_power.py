"""evalmaps.analysis.power against independent computations: statsmodels' cluster-robust
covariance of an OLS on a constant, a hand-worked three-cluster example, the paper's formulas,
and a simulation of the power at the mde; plus the properties the issue names."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmaps.analysis import power


def test_se_is_the_sample_standard_deviation_over_root_n():
    x = [1.0, 0.0, 1.0, 1.0, 0.0]
    assert power.se(x) == pytest.approx(math.sqrt(0.3 / 5))  # s² = 0.3
    assert power.se([1.0]) is None


def test_clustered_se_hand_worked():
    # clusters {1, 2}, {3}, {4, 5, 6} of x = 0, 1, 1, 0, 0, 1; mean 0.5
    # sums of (x - 0.5): 0, 0.5, -0.5 -> sqrt(0.5) / 6
    got, g = power.clustered_se([0, 1, 1, 0, 0, 1], ["a", "a", "b", "c", "c", "c"])
    assert g == 3 and got == pytest.approx(math.sqrt(0.5) / 6)
    assert power.clustered_se([1, 0], ["a", "a"]) == (None, 1)


def test_clustered_se_equals_statsmodels_without_its_correction():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    clusters = np.repeat(np.arange(40), rng.integers(1, 12, size=40))
    effect = rng.normal(0, 0.2, size=40)[clusters]
    x = (rng.random(len(clusters)) < 0.5 + effect).astype(float)
    fit = sm.OLS(x, np.ones(len(x))).fit(cov_type="cluster", cov_kwds={
        "groups": clusters, "use_correction": False})
    got, g = power.clustered_se(x, clusters)
    assert g == 40 and got == pytest.approx(float(fit.bse[0]), rel=1e-10)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=2, max_size=60))
def test_one_item_clusters_give_se_times_root_of_n_minus_1_over_n(x):
    n = len(x)
    got, g = power.clustered_se(x, [str(i) for i in range(n)])
    assert g == n and got == pytest.approx(power.se(x) * math.sqrt((n - 1) / n), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=2, max_size=30), st.integers(2, 4))
def test_duplicating_every_item_leaves_the_clustered_se_unchanged(x, times):
    clusters = [str(i // 3) for i in range(len(x))]
    once = power.clustered_se(x, clusters)[0]
    again = power.clustered_se(np.repeat(x, times), np.repeat(clusters, times))[0]
    if once is None:
        assert again is None
    else:
        assert again == pytest.approx(once, abs=1e-12)


def test_mde_and_items_needed_are_the_papers_formulas():
    assert power.POWER_FACTOR == pytest.approx(2.8016, abs=1e-4)
    assert power.mde(0.019) == pytest.approx(0.019 * 2.8015852)
    # 717 items, mde 0.053, an observed difference of 0.041: 717 (0.053 / 0.041)^2 = 1198.2
    assert power.items_needed(717, 0.053, 0.041) == 1199
    assert power.items_needed(717, 0.053, -0.041) == 1199
    assert power.items_needed(717, 0.053, 0.0) is None and power.mde(None) is None


def test_a_true_difference_at_the_mde_is_detected_80_percent_of_the_time():
    """10,000 draws of a normal mean with the mde as its true value: the two-sided 5% test
    rejects 80% ± 2% of the time."""
    rng = np.random.default_rng(11)
    se = 0.02
    truth = power.mde(se)
    estimates = rng.normal(truth, se, size=10_000)
    detected = np.mean(np.abs(estimates / se) > power.Z_975)
    assert detected == pytest.approx(0.80, abs=0.02)


# --------------------------------------------------------------------------- few clusters

@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 29, 47, 200, 5000])
def test_student_t_against_scipy(df):
    stats = pytest.importorskip("scipy.stats")
    for t in (0.0, 0.3, 1.0, 1.96, 2.5, 4.0, 12.7, 60.0, -1.5):
        assert power.t_sf(t, df) == pytest.approx(float(stats.t.sf(t, df)), rel=1e-9, abs=1e-300)
    for q in (0.025, 0.5, 0.8, 0.975, 0.995):
        assert power.t_ppf(q, df) == pytest.approx(float(stats.t.ppf(q, df)), rel=1e-9, abs=1e-12)


def test_the_clustered_critical_value_p_and_mde_use_t_with_clusters_minus_1_df():
    stats = pytest.importorskip("scipy.stats")
    # 4 clusters (MMLU-Pro's biology by src): t with 3 df
    assert power.critical(4) == pytest.approx(float(stats.t.ppf(0.975, 3)), rel=1e-9)
    assert power.critical(4) == pytest.approx(3.182446, abs=1e-6)
    assert power.critical() == power.Z_975
    assert power.two_sided_p(2.5, 4) == pytest.approx(2 * float(stats.t.sf(2.5, 3)), rel=1e-9)
    assert power.two_sided_p(-2.5, 4) == power.two_sided_p(2.5, 4)
    assert power.two_sided_p(1.959963984540054) == pytest.approx(0.05, rel=1e-9)
    want = float(stats.t.ppf(0.975, 3) + stats.t.ppf(0.8, 3))
    assert power.mde(0.02, 4) == pytest.approx(want * 0.02, rel=1e-9)
    assert power.mde(0.02, 10_000) == pytest.approx(power.mde(0.02), rel=1e-3)  # t -> normal


def test_few_clusters_are_said_with_their_df():
    assert power.few_clusters(4) == "only 4 clusters: t with 3 df"
    assert power.few_clusters(29) == "only 29 clusters: t with 28 df"
    assert power.few_clusters(30) is None and power.few_clusters(1) is None
    assert power.few_clusters(None) is None


def test_a_true_difference_at_the_t_mde_is_detected_80_percent_of_the_time():
    """At 5 clusters the estimate over its standard error is t with 4 df (the standard error
    itself estimated): 10,000 draws of T + mde / se, the t-test rejects 80% ± 2% of the time
    where the noncentral t is near the shifted t (as the mde's formula assumes)."""
    stats = pytest.importorskip("scipy.stats")
    se, g = 0.02, 5
    truth = power.mde(se, g)
    # the noncentral t's power at the mde: the formula's approximation, checked by scipy
    exact = float(stats.nct.sf(power.critical(g), g - 1, truth / se)
                  + stats.nct.cdf(-power.critical(g), g - 1, truth / se))
    rng = np.random.default_rng(12)
    draws = stats.nct.rvs(g - 1, truth / se, size=10_000, random_state=rng)
    detected = float(np.mean(np.abs(draws) > power.critical(g)))
    assert detected == pytest.approx(exact, abs=0.02)
    assert exact == pytest.approx(0.80, abs=0.06)
