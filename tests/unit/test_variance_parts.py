"""Variance within and between items (issue 39): with k > 1 samples per item, ``var_within``
(the mean over items of the sample variance of an item's samples), ``var_between`` (the sample
variance of the item means minus ``var_within / k``, floored at 0) and ``within_share`` (the
share of the mean's variance more samples would remove), against a hand-worked case and a
computation from the raw samples, through the items store, the paired block and /api/cells."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmaps.analysis import power
from evalmaps.analysis.paired import paired_cell
from evalmaps.catalog.items import ItemScores


def from_samples(samples: list[list[float]]) -> tuple[float, float, float]:
    """The three parts from the raw samples, with numpy's sample variance (ddof=1)."""
    within = [np.var(s, ddof=1) for s in samples]
    means = [np.mean(s) for s in samples]
    k = np.array([len(s) for s in samples], dtype=float)
    spread = np.var(means, ddof=1)
    sampling = float(np.mean(np.array(within) / k))
    return float(np.mean(within)), max(spread - sampling, 0.0), (
        1.0 if spread == 0 else min(1.0, sampling / spread))


def parts_of(samples: list[list[float]]):
    n = [len(s) for s in samples]
    return power.variance_parts(n, [sum(s) for s in samples], [sum(v * v for v in s)
                                                              for s in samples])


def test_a_hand_worked_case():
    # items [1, 0, 1], [0, 0, 1], [1, 1, 1]: s² 1/3, 1/3, 0 -> var_within 2/9; item means
    # 2/3, 1/3, 1 have s² 1/9 -> var_between 1/9 - (2/9) / 3 = 1/27; share (2/27) / (1/9) = 2/3
    within, between, share = parts_of([[1, 0, 1], [0, 0, 1], [1, 1, 1]])
    assert (within, between, share) == pytest.approx((2 / 9, 1 / 27, 2 / 3))


def test_floored_at_0_and_undefined_at_one_sample():
    # the item means vary less than their samples would make them: var_between 0, share 1
    assert parts_of([[1, 0], [0, 1], [1, 0]]) == pytest.approx((0.5, 0.0, 1.0))
    assert parts_of([[1, 0], [1]]) is None and parts_of([[1, 0]]) is None


samples_st = st.lists(st.lists(st.sampled_from([0.0, 1.0, 0.5, 0.25]), min_size=2, max_size=6),
                      min_size=2, max_size=20)


@settings(max_examples=80, deadline=None)
@given(samples_st)
def test_the_parts_are_the_raw_samples(samples):
    assert parts_of(samples) == pytest.approx(from_samples(samples), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 1.0]), min_size=3, max_size=3), min_size=2,
                max_size=20))
def test_between_plus_within_over_k_is_the_item_means_variance(samples):
    within, between, _ = parts_of(samples)
    spread = float(np.var([np.mean(s) for s in samples], ddof=1))
    if between > 0:
        assert between + within / 3 == pytest.approx(spread, abs=1e-12)


def test_the_paired_block_and_the_cells_api_carry_them(tmp_path):
    from evalmaps.core.figure import Catalog
    from evalmaps.views import BrowseView, CompareView
    from tests.items_fixture import item_scores, items_figure

    frame = item_scores(n_items=12, samples=4, seed=2)
    catalog = Catalog([items_figure(tmp_path, "toy", frame)])

    def raw(model: str) -> tuple[float, float, float]:
        mine = frame[(frame["model"] == model) & (frame["level"] == "easy")
                     & (frame["task"] == "t1")]
        return from_samples([g["score"].tolist() for _, g in mine.groupby("item")])

    paired = CompareView.from_query(catalog, {"a": ["toy:small"], "b": ["toy:large"]}
                                    ).to_dict()["cells"][0]["paired"]
    for side, model in (("a", "small"), ("b", "large")):
        got = tuple(paired[f"{side}_{name}"] for name in ("var_within", "var_between",
                                                          "within_share"))
        assert got == pytest.approx(raw(model), abs=1e-11)
    cells = BrowseView.from_query(catalog, {"figure": ["toy"], "model": ["small"]}).to_dict()
    first = cells["cells"][0]
    assert (first["level"], first["task"]) == ("easy", "t1")
    assert (first["var_within"], first["var_between"], first["within_share"]) == pytest.approx(
        raw("small"), abs=1e-12)
    at_2 = CompareView.from_query(catalog, {"a": ["toy:small"], "b": ["toy:large"], "k": ["2"]})
    assert at_2.to_dict()["cells"][0]["paired"]["a_var_within"] is None  # pass@k: not a mean


def test_one_sample_per_item_has_none():
    ids = np.array([f"q{i}" for i in range(8)], dtype=object)
    ones = np.ones(8, dtype=np.int64)
    a = ItemScores(ids, ones, np.array([0, 1, 0, 1, 1, 0, 1, 0.0]), True, None,
                   np.array([0, 1, 0, 1, 1, 0, 1, 0.0]))
    r = paired_cell(a, a)
    assert r.a_var_within is None and r.b_within_share is None
    assert pd.isna(pd.Series([r.a_var_between])).all()
