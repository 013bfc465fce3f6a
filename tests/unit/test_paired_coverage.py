"""The paired interval covers the true difference at least 93% of the time at n = 15, 30 and
100 items (issue 37, statistics 10): simulated with a fixed seed, items drawn afresh each time
from a population whose mean difference is known.

- several samples per item: each item's difficulty from Beta(2, 2), 5 samples a side, B's chance
  0.1 higher (capped at 1), or no difference (the sign-flip test's interval);
- rare discordance, one 0/1 sample a side: A alone right 3%, B alone right 9% (McNemar's
  interval), and 2% against 15%;
- rarely differing samples: difficulties from Beta(0.3, 0.3) (most items always right or always
  wrong), B 0.05 higher, at 30 and 100 items (at 15, about one run in seven has no item that
  differs, and an interval from items that never differ is the point 0: about 0.91).

600 runs a case: the binomial standard error of a coverage of 0.95 is 0.009, so 0.93 is more
than two below it."""

from __future__ import annotations

import numpy as np
import pytest

from evalmaps.analysis.paired import paired_values

RUNS = 600
K = 5


def coverage(draw, truth: float, n: int, mcnemar: bool = False, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(RUNS):
        a, b = draw(rng, n)
        r = paired_values(a, b, mcnemar)
        hits += r.ci_low <= truth <= r.ci_high
    return hits / RUNS


def samples(shift: float, alpha: float = 2.0):
    def draw(rng, n):
        q = rng.beta(alpha, alpha, size=n)
        return rng.binomial(K, q) / K, rng.binomial(K, np.clip(q + shift, 0, 1)) / K
    return draw


def samples_truth(shift: float, alpha: float = 2.0) -> float:
    q = np.random.default_rng(99).beta(alpha, alpha, size=4_000_000)
    return float(np.mean(np.clip(q + shift, 0, 1) - q))


def discordant(a_alone: float, b_alone: float):
    def draw(rng, n):
        u = rng.random(n)
        a = (u < a_alone) | (u >= 0.6)
        b = ((u >= a_alone) & (u < a_alone + b_alone)) | (u >= 0.6)
        return a.astype(float), b.astype(float)
    return draw


@pytest.mark.parametrize("n", [15, 30, 100])
@pytest.mark.parametrize("shift", [0.0, 0.1])
def test_several_samples_per_item(n, shift):
    assert coverage(samples(shift), samples_truth(shift), n, seed=n) >= 0.93


@pytest.mark.parametrize("n", [15, 30, 100])
@pytest.mark.parametrize("a_alone,b_alone", [(0.03, 0.09), (0.02, 0.15)])
def test_rare_discordance(n, a_alone, b_alone):
    got = coverage(discordant(a_alone, b_alone), b_alone - a_alone, n, mcnemar=True, seed=n)
    assert got >= 0.93


@pytest.mark.parametrize("n", [30, 100])
def test_rarely_differing_samples(n):
    assert coverage(samples(0.05, 0.3), samples_truth(0.05, 0.3), n, seed=n) >= 0.93
