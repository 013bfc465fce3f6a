"""pass@k against direct enumeration of every draw of k samples out of n."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmaps.core.estimators import pass_at_k


def enumerated(n: int, c: int, k: int) -> float:
    """The share of the C(n, k) draws of k samples (c right, n - c wrong) that hold a right one."""
    samples = [1] * c + [0] * (n - c)
    draws = list(itertools.combinations(range(n), k))
    return sum(any(samples[i] for i in draw) for draw in draws) / len(draws)


@pytest.mark.parametrize("n", range(1, 9))
def test_equals_enumeration_for_small_n(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(enumerated(n, c, k), abs=1e-12), (n, c, k)


def test_pass_at_1_is_the_share_right_and_pass_at_n_any_right():
    n = np.array([8, 8, 8, 5])
    c = np.array([0, 3, 8, 1])
    np.testing.assert_allclose(pass_at_k(n, c, 1), c / n)
    np.testing.assert_array_equal(pass_at_k(n[:3], c[:3], 8), [0.0, 1.0, 1.0])


@given(st.integers(1, 200), st.data())
def test_equals_the_binomial_formula(n, data):
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    want = 1 - math.comb(n - c, k) / math.comb(n, k)
    assert float(pass_at_k(n, c, k)) == pytest.approx(want, abs=1e-9)


def test_vectorised_over_items_with_different_n():
    n, c = np.array([4, 10, 3]), np.array([2, 1, 3])
    assert pass_at_k(n, c, 2).tolist() == pytest.approx([enumerated(4, 2, 2), enumerated(10, 1, 2), 1.0])


@pytest.mark.parametrize(("n", "c", "k", "message"), [
    (4, 2, 0, "k must be at least 1"),
    (np.array([4, 2]), np.array([1, 1]), 3, "needs at least 3 samples"),
    (4, 5, 1, "above the item's samples"),
])
def test_bad_arguments_are_refused(n, c, k, message):
    with pytest.raises(ValueError, match=message):
        pass_at_k(n, c, k)
