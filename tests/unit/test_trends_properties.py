"""Property tests (hypothesis): the trends statistics never fail on any grid, and keep their
invariants: all-missing rows, single cells, constant rows, unsorted numeric labels, categorical
axes, hidden rows, any threshold."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from components.trends import panel_summaries, stats_columns, stats_rows
from evalmaps.analysis.slicing import slice_panel
from evalmaps.analysis.trends import (
    CLASSES,
    MAX_SENTENCES,
    analyse,
    best_worst,
    line_stats,
    lines_of,
    marginal_means,
    stable_band,
)
from evalmaps.core.figure import Dim, Figure, FigureSpec, Metric
from evalmaps.figures.trends import line_figure

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

values = st.one_of(st.none(), st.integers(0, 1000).map(lambda i: i / 10))  # 0.0-100.0, 1 decimal


@st.composite
def lines(draw):
    n = draw(st.integers(0, 12))
    kind = draw(st.sampled_from(["random", "constant", "missing"]))
    if kind == "constant":
        v = draw(values.filter(lambda x: x is not None))
        ys = [v if draw(st.booleans()) else None for _ in range(n)]
    elif kind == "missing":
        ys = [None] * n
    else:
        ys = draw(st.lists(values, min_size=n, max_size=n))
    return np.array([np.nan if y is None else y for y in ys], dtype=float)


@given(lines(), st.floats(-50, 150, allow_nan=False), st.booleans())
@SETTINGS
def test_line_stats_invariants(ys, threshold, numeric):
    labels = [f"l{i}" for i in range(len(ys))]
    s = line_stats(ys, labels, threshold=threshold, numeric=numeric, decimals=1, band=5.0)
    present = ys[np.isfinite(ys)]
    assert s.n_present == present.size and s.n_total == len(ys)
    if present.size == 0:
        assert s.mean is None and s.min is None and s.cls is None and s.drop is None
        return
    assert s.min <= s.mean + 1e-9 and s.mean <= s.max + 1e-9
    assert s.min == present.min() and s.max == present.max()
    assert s.first == present[0] and s.last == present[-1]
    assert s.cls in CLASSES or (s.cls is None and (present.size < 2 or not numeric))
    if present.size < 2 or not numeric:  # unordered labels: no slope, drop or direction
        assert s.slope is None and s.r2 is None
    if not numeric:
        assert s.drop is None and s.cls in ("stable", None)
    if s.r2 is not None:
        assert 0.0 <= s.r2 <= 1.0
    if s.drop is not None:
        assert s.drop > 0
        a, b = labels.index(s.drop_from), labels.index(s.drop_to)
        assert b == a + 1 and np.isfinite(ys[a]) and np.isfinite(ys[b])  # neighbours, no gap
        assert s.drop == round(ys[a] - ys[b], 1)
    if s.below_at is not None:
        assert s.below < threshold
        before = ys[:labels.index(s.below_at)]
        assert not (before[np.isfinite(before)] < threshold).any()  # the first, in order
    else:
        assert not (present < threshold).any()
    if s.max - s.min <= 5.0 and present.size >= 2:
        assert s.cls == "stable"
    if np.ptp(present) == 0 and present.size >= 2:
        assert s.r2 is None and s.cls == "stable"  # constant rows
    json.dumps(s.to_dict(), allow_nan=False)


LABEL_SETS = {
    "numeric": ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7"],
    "descending": ["3000", "2000", "1000", "500", "250", "100", "50"],  # like the window axis
    "categorical": ["h", "~", "m", "4", "u", "o", ">"],
    "uneven": ["1", "2", "4", "8", "16", "32", "64"],
}


@st.composite
def figures(draw):
    ny, nx = draw(st.integers(1, 5)), draw(st.integers(1, 7))
    kinds = st.sampled_from(sorted(LABEL_SETS))
    ykind, xkind = draw(kinds), draw(kinds)
    ylabels, xlabels = LABEL_SETS[ykind][:ny], LABEL_SETS[xkind][:nx]
    npanels = draw(st.integers(1, 3))
    panels = [f"P{i}" for i in range(npanels)]
    records = []
    for p in panels:
        shape = draw(st.sampled_from(["random", "full", "empty-row", "constant", "single"]))
        for i, y in enumerate(ylabels):
            for j, x in enumerate(xlabels):
                v = draw(values)
                if shape == "full" and v is None:
                    v = 50.0
                if shape == "empty-row" and i == 0:
                    v = None
                if shape == "constant":
                    v = 42.0
                if shape == "single":
                    v = 7.5 if (i, j) == (0, 0) else None
                if v is not None:
                    records.append({"facet": p, "y": y, "x": x, "value": v})
    metric = Metric("Score", draw(st.sampled_from(["%", ""])), draw(st.sampled_from(
        [(0.0, 100.0), (0.0, 1.0), None])))
    if metric.range == (0.0, 1.0):
        records = [{**r, "value": r["value"] / 100} for r in records]
    spec = FigureSpec(
        id="prop", title="Property", metric=metric, x="x", y="y", facets=("facet",),
        dims={"facet": Dim("facet", "Facet", tuple(panels)),
              "y": Dim("y", "Row", tuple(ylabels)), "x": Dim("x", "Step", tuple(xlabels))},
        colorscale="Viridis", zrange=None, provenance=draw(st.sampled_from(
            ["uploaded", "illustrative"])))
    cells = pd.DataFrame(records, columns=["facet", "y", "x", "value"])
    for col in ("facet", "y", "x"):
        cells[col] = cells[col].astype(str)
    cells["value"] = cells["value"].astype(float)
    figure = Figure(spec, cells, decimals=1 if metric.range != (0.0, 1.0) else 3)
    rows = draw(st.one_of(st.none(), st.lists(st.sampled_from(ylabels), unique=True)))
    return figure, rows


@given(figures(), st.booleans(), st.floats(-10, 110, allow_nan=False))
@SETTINGS
def test_analyse_never_fails_on_any_grid(data, transpose, threshold):
    figure, rows = data
    views = [slice_panel(figure, p, rows) for p in figure.panels.values()]
    trends = analyse(views, transpose=transpose, threshold=threshold)
    if not views:
        assert trends is None
        return
    n_lines = sum(len(v.x_labels if transpose else v.y_labels) for v in views)
    assert len(trends.lines) == n_lines
    assert all(isinstance(s, str) and s.endswith(".") for s in trends.observations)
    assert len(trends.observations) <= MAX_SENTENCES + figure.spec.illustrative
    assert all("nan" not in s.lower() for s in trends.observations)
    if not any(v.n_cells for v in views):
        assert trends.observations == []
    json.dumps(trends.to_dict(), allow_nan=False)
    band = stable_band(figure.spec.metric)
    for s in trends.lines:
        if s.spread is not None and s.n_present >= 2 and s.spread <= band:
            assert s.cls == "stable"
    # builders take any report too
    stats_rows(trends)
    stats_columns(figure.spec, transpose, threshold, len(views) > 1)
    panel_summaries(trends)
    if views and views[0].y_labels:
        fig = line_figure(views, transpose=transpose, threshold=threshold)
        for trace in fig["data"]:
            assert trace["connectgaps"] is False
            assert len(trace["x"]) == len(trace["y"]) == len(trace["text"])


@given(figures(), st.booleans())
@SETTINGS
def test_lines_follow_the_axis_order_and_break_at_gaps(data, transpose):
    figure, rows = data
    for panel in figure.panels.values():
        view = slice_panel(figure, panel, rows)
        for line in lines_of(view, transpose):
            if line.numeric:
                assert list(line.positions) == sorted(line.positions)  # left to right by number
            assert list(line.steps) == sorted(line.steps)
        if not (view.x_labels and view.y_labels):
            continue
        for trace in line_figure([view], transpose=transpose)["data"]:
            xs, ys = trace["x"], trace["y"]
            assert any(y is not None for y in ys)  # lines without a cell are not drawn
            for k, (x, y) in enumerate(zip(xs, ys)):
                if x is None:  # a break: between two shown labels that are not neighbours
                    assert y is None and 0 < k < len(xs) - 1


@given(figures())
@SETTINGS
def test_best_worst_and_marginals(data):
    figure, rows = data
    for panel in figure.panels.values():
        view = slice_panel(figure, panel, rows)
        best, worst = best_worst(view)
        present = view.z[np.isfinite(view.z)]
        if present.size == 0:
            assert best is None and worst is None
            continue
        assert best.value == present.max() and worst.value == present.min()
        assert len(best.cells) == int((present == present.max()).sum())
        m = marginal_means(view)
        if m is not None:
            for means in (m.by_x, m.by_y):
                assert all(math.isfinite(x) for x in means.means)
                assert present.min() - 1e-9 <= min(means.means)
                assert max(means.means) <= present.max() + 1e-9
                assert sum(means.counts) == present.size
