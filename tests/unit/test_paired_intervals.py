"""Intervals that stay in the metric's range: the standard-error interval (Wilson where ±1.96 se
would leave the range), the per-item intervals (Wilson for 0/1 single samples, bootstrap
otherwise) and Trends' bands built from them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmaps.analysis.paired import bootstrap_mean_interval, seed_of_items, wilson
from evalmaps.analysis.slicing import views_for
from evalmaps.analysis.uncertainty import Z_95, item_intervals, se_interval
from evalmaps.core.estimators import pass_at_k
from evalmaps.core.figure import Metric
from evalmaps.figures.trends import line_figure
from evalmaps.views.state import ViewState
from tests.items_fixture import XS, YS, item_scores, items_figure

SHARE = Metric(name="Accuracy", unit="", range=(0.0, 1.0))
PERCENT = Metric(name="Accuracy", unit="%", range=(0.0, 100.0))


def test_inside_the_range_it_is_plus_minus_1_96_se():
    lo, hi = se_interval(np.array([0.5, 60.0]), np.array([0.05, 2.0]), SHARE)
    assert lo[0] == 0.5 - Z_95 * 0.05 and hi[0] == 0.5 + Z_95 * 0.05


def test_near_an_end_it_is_wilson_with_the_items_the_se_implies():
    # 0.02 with se 0.014: ±1.96 se reaches -0.0074; the se implies n = 0.02 * 0.98 / 0.014²
    lo, hi = se_interval(np.array([0.02]), np.array([0.014]), SHARE)
    n = 0.02 * 0.98 / 0.014 ** 2
    want = wilson(0.02 * n, n)
    assert (lo[0], hi[0]) == pytest.approx((float(want[0]), float(want[1])), abs=1e-12)
    assert 0 <= lo[0] < 0.02 < hi[0]
    # on a 0-100 scale, the same in its units
    lo, hi = se_interval(np.array([2.0]), np.array([1.4]), PERCENT)
    assert (lo[0], hi[0]) == pytest.approx((100 * float(want[0]), 100 * float(want[1])), abs=1e-9)
    # every item right (se 0 at the end of the range): the value itself
    lo, hi = se_interval(np.array([1.0]), np.array([0.0]), SHARE)
    assert (lo[0], hi[0]) == (1.0, 1.0)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # no overflow on the way, either
@given(st.floats(0, 1), st.floats(0, 0.5))
def test_never_past_the_range(z, se):
    lo, hi = se_interval(np.array([z]), np.array([se]), SHARE)
    assert 0.0 <= lo[0] <= hi[0] <= 1.0
    assert lo[0] <= z + 1e-12 and z - 1e-12 <= hi[0]


def test_item_intervals_wilson_for_single_samples_and_bootstrap_otherwise(tmp_path):
    single = item_scores(n_items=40, seed=2)
    fig = items_figure(tmp_path / "one", "one", single)
    lo, hi = item_intervals(fig.items, {"model": "small"}, ("level", "task"), YS, XS)
    for i, y in enumerate(YS):
        for j, x in enumerate(XS):
            cell = single[(single.model == "small") & (single.level == y) & (single.task == x)]
            want = wilson(cell.score.sum(), len(cell))
            assert (lo[i, j], hi[i, j]) == (float(want[0]), float(want[1]))
    many = item_scores(n_items=30, samples=4, seed=2)
    fig = items_figure(tmp_path / "many", "many", many)
    lo, hi = item_intervals(fig.items, {"model": "large"}, ("level", "task"), YS, XS)
    cell = many[(many.model == "large") & (many.level == "hard") & (many.task == "t3")]
    by_item = cell.groupby("item").score.mean()  # sorted by id, as the store keeps them
    assert (lo[1, 2], hi[1, 2]) == bootstrap_mean_interval(by_item.to_numpy(),
                                                           seed_of_items(by_item.index.astype(str)))
    assert 0 <= lo.min() and hi.max() <= 1


def test_trends_bands_use_the_item_intervals(tmp_path):
    scores = item_scores(n_items=40, seed=4)
    fig = items_figure(tmp_path, "toy", scores)
    views, _ = views_for(fig, ViewState(figure="toy"))
    view = views[0]
    lo, hi = item_intervals(fig.items, dict(view.panel.facets), ("level", "task"),
                            view.y_labels, view.x_labels)
    chart = line_figure([view], items={view.panel.slug: (lo, hi)})
    bands = [t for t in chart["data"] if t.get("meta", [None, None])[1] == "band"]
    assert len(bands) == len(YS)
    first = bands[0]["y"]  # upper along the line, then lower back
    n = len(XS)
    assert first[:n] == [float(v) for v in hi[0]] and first[n:2 * n] == [float(v) for v in lo[0][::-1]]
    assert all(0 <= v <= 1 for b in bands for v in b["y"] if v is not None)
    assert not math.isnan(first[0])


def test_trends_points_carry_the_interval_of_the_statistic_drawn(tmp_path):
    """Issue 37, statistics 6: at k > 1 the line is pass@k, so its band and the JSON's lo and
    hi are pass@k's interval (the items' pass@k bootstrapped), not the mean's: every point lies
    inside its own interval, and at k = 1 the interval is the mean's."""
    from evalmaps.views.payloads import trends_payload

    scores = item_scores(n_items=30, samples=5, seed=6)
    fig = items_figure(tmp_path, "toy", scores)
    for k in (1, 2, 5):
        payload = trends_payload(fig, {"k": str(k)})
        assert payload["k"] == k
        points = [p for line in payload["lines"] for p in line["points"]]
        assert len(points) == 2 * len(YS) * len(XS)
        for p in points:
            assert p["lo"] <= p["value"] <= p["hi"], (k, p)
    # by hand: one cell's pass@5 interval is the bootstrap of its items' pass@5 (0 or 1 each)
    cell = scores[(scores.model == "large") & (scores.level == "hard") & (scores.task == "t3")]
    per_item = cell.groupby("item").score.agg(["sum", "count"])
    at5 = pass_at_k(per_item["count"].to_numpy(), per_item["sum"].to_numpy().astype(int), 5)
    want = bootstrap_mean_interval(at5, seed_of_items(per_item.index.astype(str)))
    payload = trends_payload(fig, {"k": "5"})
    [line] = [ln for ln in payload["lines"] if ln["panel"] == "toy:large" and ln["line"] == "hard"]
    [point] = [p for p in line["points"] if p["at"] == "t3"]
    assert (point["lo"], point["hi"]) == want and point["value"] == pytest.approx(at5.mean())
