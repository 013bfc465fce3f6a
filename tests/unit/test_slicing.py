"""Slicing on the shipped catalog: panels by facet, rows, x range, and colour ranges."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from evalmaps.analysis.slicing import (
    FIXED_RANGE,
    color_range,
    select_panels,
    slice_panel,
    x_indices,
    y_indices,
)

QWEN = "dynts-llama-vs-qwen"
BENCH = "dynts-r1-llama-benchmarks"
CORE = "core-generalization"


def views(fig, facets=None, rows=None, x_range=None):
    return [slice_panel(fig, p, rows, x_range) for p in select_panels(fig, facets)]


@pytest.mark.parametrize("fid, facets, expected", [
    (QWEN, {"model": ["R1-Qwen"]}, [{"model": "R1-Qwen"}]),
    (QWEN, None, [{"model": "R1-Llama"}, {"model": "R1-Qwen"}]),
    (QWEN, {"model": ["R1-Qwen", "R1-Llama"]}, [{"model": "R1-Llama"}, {"model": "R1-Qwen"}]),
    (QWEN, {"model": []}, []),
    (BENCH, {"benchmark": ["AMC23", "AIME24"]},
     [{"model": "R1-Llama", "benchmark": "AIME24"}, {"model": "R1-Llama", "benchmark": "AMC23"}]),
    (BENCH, {"model": ["R1-Llama"], "benchmark": ["GPQA-Diamond"]},
     [{"model": "R1-Llama", "benchmark": "GPQA-Diamond"}]),
])
def test_select_panels(catalog, fid, facets, expected):
    assert [p.facets for p in select_panels(catalog.figure(fid), facets)] == expected


@pytest.mark.parametrize("rows, expected", [
    (None, [0, 1, 2, 3]),
    (["2000", "500"], [1, 3]),
    (["500", "2000"], [1, 3]),  # catalog order, not request order
    (["500", "nope"], [3]),
    ([], []),
])
def test_y_indices(catalog, rows, expected):
    assert y_indices(catalog.figure(QWEN).spec, rows).tolist() == expected


@pytest.mark.parametrize("fid, x_range, expected", [
    (QWEN, None, ["0.1", "0.2", "0.3", "0.4", "0.5"]),
    (QWEN, (0.2, 0.4), ["0.2", "0.3", "0.4"]),
    (QWEN, (0.4, 0.2), ["0.2", "0.3", "0.4"]),
    (QWEN, (0.45, 2.0), ["0.5"]),
    (QWEN, (0.6, 0.9), []),
    (CORE, (3, 5), ["3", "4", "5"]),
    (CORE, (18.5, 100), ["19"]),
])
def test_x_indices(catalog, fid, x_range, expected):
    spec = catalog.figure(fid).spec
    labels = spec.dims[spec.x].labels
    assert [labels[i] for i in x_indices(spec, x_range)] == expected


def test_slice_panel_labels_and_shape(catalog):
    fig = catalog.figure(QWEN)
    (view,) = views(fig, {"model": ["R1-Qwen"]}, rows=["500", "2000"], x_range=(0.2, 0.4))
    assert view.y_labels == ("2000", "500")
    assert view.x_labels == ("0.2", "0.3", "0.4")
    assert view.z.shape == (2, 3)
    assert view.title == "R1-Qwen"
    assert view.decimals == fig.decimals


@pytest.mark.parametrize("fid, facets, rows, x_range", [
    (QWEN, {"model": ["R1-Qwen"]}, ["2000", "500"], (0.2, 0.4)),
    (QWEN, None, None, None),
    (BENCH, None, ["3000", "1000"], (0.1, 0.3)),
    (CORE, None, ["u", ">"], (3, 12)),
])
def test_sliced_values_equal_figure_values(catalog, fid, facets, rows, x_range):
    fig = catalog.figure(fid)
    spec = fig.spec
    vs = views(fig, facets, rows, x_range)
    assert vs
    for view in vs:
        for i, y in enumerate(view.y_labels):
            for j, x in enumerate(view.x_labels):
                expected = fig.value(**view.panel.facets, **{spec.y: y, spec.x: x})
                got = view.z[i, j]
                assert (np.isnan(got) if expected is None else got == expected), (view.title, y, x)


def test_sliced_missing_cells_are_nan(catalog):
    (view,) = views(catalog.figure(BENCH), {"benchmark": ["AIME24"]}, x_range=(0.3, 0.3))
    assert view.x_labels == ("0.3",)
    assert np.isnan(view.z).all() and view.n_cells == 0


def test_color_range_figure_and_fixed(catalog):
    fig = catalog.figure(QWEN)
    vs = views(fig)
    assert color_range(fig.spec, vs, "figure") == (49, 57)
    assert color_range(fig.spec, vs, "fixed") == FIXED_RANGE == (0.0, 100.0)
    no_zrange = dataclasses.replace(fig.spec, zrange=None)
    # without a range of its own, the figure's panels share the range of the cells shown
    assert color_range(no_zrange, vs, "figure") == color_range(no_zrange, vs, "shared")
    assert color_range(fig.spec, vs, "panel") is None  # each panel its own, when asked


@pytest.mark.parametrize("fid, facets, rows, x_range", [
    (QWEN, {"model": ["R1-Qwen"]}, ["2000"], (0.2, 0.4)),
    (QWEN, None, None, None),
    (BENCH, {"benchmark": ["AIME25", "AMC23"]}, None, None),
    (CORE, None, ["h"], (0, 4)),
])
def test_color_range_shared_is_min_max_of_visible_values(catalog, fid, facets, rows, x_range):
    fig = catalog.figure(fid)
    vs = views(fig, facets, rows, x_range)
    values = [fig.value(**v.panel.facets, **{fig.spec.y: y, fig.spec.x: x})
              for v in vs for y in v.y_labels for x in v.x_labels]
    values = [v for v in values if v is not None]
    assert color_range(fig.spec, vs, "shared") == (min(values), max(values))
    for v in vs:  # each view's own range, worked out once
        cells = [c for c in v.z.ravel().tolist() if c == c]
        assert v.value_range == ((min(cells), max(cells)) if cells else None)


def test_color_range_shared_single_value_is_the_metrics_range_or_widened(catalog):
    """One value: the metric's range when it has one (Pass@1, a percent: 0-100), else the
    value +- 0.5."""
    from dataclasses import replace as replaced

    fig = catalog.figure(QWEN)
    vs = views(fig, {"model": ["R1-Qwen"]}, rows=["2000"], x_range=(0.4, 0.4))
    v = fig.value(model="R1-Qwen", window="2000", ratio="0.4")
    assert color_range(fig.spec, vs, "shared") == (0.0, 100.0)
    unbounded = replaced(fig.spec.metric, unit="", range=None)
    assert color_range(fig.spec, vs, "shared", unbounded) == (v - 0.5, v + 0.5)


@pytest.mark.parametrize("facets, rows, x_range", [
    (None, None, (0.2, 0.4)),   # only unreported ratios
    (None, [], None),           # no rows
    ({"model": []}, None, None),  # no panels
])
def test_color_range_shared_without_values_is_none(catalog, facets, rows, x_range):
    fig = catalog.figure(BENCH)
    assert color_range(fig.spec, views(fig, facets, rows, x_range), "shared") is None
