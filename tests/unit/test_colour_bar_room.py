"""The colour bar's room in the right margin (evalmaps.figures.heatmap.place_bar): plotly.js
draws a chart a second time when its colour bar needs more room than the figure's margin, so
every map gives it that room at once. Hand-worked labels and widths here; the browser tests
(test_layout_shift, test_rank) check that no drawn map's bar widened its margin."""

from __future__ import annotations

import math

import pytest

from components.rank import pair_width, rank_ticks, where_width
from evalmaps.analysis.compare import align, resolve
from evalmaps.figures.compare import compare_figures
from evalmaps.figures.heatmap import (
    BAR_FIXED_PX,
    BAR_SLACK_PX,
    BAR_TITLE_PX,
    bar_labels,
    bar_room,
    nice_step,
    place_bar,
)
from evalmaps.figures.theme import label_px


@pytest.mark.parametrize("span, step", [(0.134, 0.2), (0.1, 0.1), (0.25, 0.5), (7, 10),
                                        (0.0021, 0.005), (1e-7, 1e-7), (0, 1.0),
                                        (float("nan"), 1.0)])
def test_nice_step_is_the_least_round_step_at_or_above(span, step):
    assert math.isclose(nice_step(span), step)


def test_labels_are_the_ends_written_at_the_finest_step():
    # B − A from −0.67 to 0.67: plotly.js's finest step 0.2 (a tenth of 1.34, rounded up)
    assert bar_labels({}, [(-0.67, 0.67)]) == ["\u22120.7", "0.7"]
    # a count's whole numbers, as its dtick says
    assert bar_labels({"dtick": 1, "tick0": 0}, [(800, 805)]) == ["800", "805"]
    # a fraction written as percent: a step of 10 points, no decimals
    assert bar_labels({"tickformat": ".4~%"}, [(0.0, 1.0)]) == ["0%", "100%"]
    # a narrow percent range: 0.5-point steps, one decimal
    assert bar_labels({"tickformat": ".4~%"}, [(0.41, 0.45)]) == ["41.0%", "45.0%"]
    # the bar's own texts, whatever the range
    assert bar_labels({"tickvals": [0, 1], "ticktext": ["1", "1000"]}, [(0, 1)]) == ["1", "1000"]
    # every colour range the page may switch to is counted
    assert bar_labels({}, [(0, 1), (0, 100)]) == ["0.0", "1.0", "0", "100"]
    # nothing finite to write: a label as wide as a small number
    assert bar_labels({}, [(float("nan"), 1.0)]) == ["0.00"]


def test_the_room_is_pads_bar_widest_label_title_and_slack():
    trace = {"zmin": -0.67, "zmax": 0.67, "colorbar": {"title": {"text": "B − A"}}}
    assert bar_room(trace) == math.ceil(BAR_FIXED_PX + label_px(["\u22120.7", "0.7"])
                                        + BAR_TITLE_PX + BAR_SLACK_PX)
    untitled = {"zmin": 0, "zmax": 100, "colorbar": {}}
    assert bar_room(untitled) == math.ceil(BAR_FIXED_PX + label_px(["100"]) + BAR_SLACK_PX)
    # another mode's wider range widens it; a range of None is left out
    assert bar_room(untitled, [(0, 10000), None]) > bar_room(untitled)


def test_place_bar_gives_the_margin_the_room_once():
    shown = {"showscale": True, "zmin": 0, "zmax": 1, "colorbar": {"title": {"text": "acc"}}}
    layout = {"margin": {"l": 50, "r": 20}, "meta": {"evalmaps": {}}}
    place_bar(layout, [shown])
    assert layout["margin"] == {"l": 50, "r": bar_room(shown)}
    assert layout["meta"]["evalmaps"]["bar"] is True
    wide = {"margin": {"r": 500}}
    place_bar(wide, [shown])
    assert wide["margin"]["r"] == 500  # never narrower than the figure asked
    # a map without a bar is left alone, unless it keeps room for its neighbour's bar
    hidden = {**shown, "showscale": False}
    alone = {"margin": {"r": 20}}
    place_bar(alone, [hidden])
    assert alone == {"margin": {"r": 20}}
    place_bar(alone, [hidden], reserve=True)
    assert alone["margin"]["r"] == bar_room(hidden)
    # the bar shown by a later trace (the power map's first group) is the one measured
    later = {"margin": {"r": 20}}
    place_bar(later, [{"showscale": False, "zmin": 0, "zmax": 1e6}, shown])
    assert later["margin"]["r"] == bar_room(shown)


def test_a_bar_is_drawn_at_the_plot_area_edge_in_that_room(catalog):
    default = align(resolve(catalog, "dynts-llama-vs-qwen:r1-llama"),
                    resolve(catalog, "dynts-llama-vs-qwen:r1-qwen"))
    fa, fb, fd = compare_figures(default, "shared", True)
    for fig in (fb, fd):
        bar = next(t for t in fig["data"] if t.get("showscale"))["colorbar"]
        assert (bar["x"], bar["xanchor"], bar["xpad"]) == (1, "left", 10)
        assert fig["layout"]["meta"]["evalmaps"]["bar"] is True
    # A, drawn without a bar beside B with one, keeps the same room: their squares line up
    assert fa["layout"]["margin"]["r"] == fb["layout"]["margin"]["r"] > 20


@pytest.mark.parametrize("n", [2, 3, 10, 20, 21, 24, 26, 49, 50, 51, 99, 100, 101, 200, 1000,
                               1234])
def test_rank_ticks_label_each_rank_or_round_ones(n):
    ticks = rank_ticks(n)
    if n <= 20:
        assert ticks == {"dtick": 1, "tick0": 1}
        return
    vals = ticks["tickvals"]
    assert ticks["ticktext"] == [str(v) for v in vals]
    assert vals[0] == 1 and vals[-1] == n and vals == sorted(set(vals))
    assert 3 <= len(vals) <= 11
    inner = vals[1:-1]
    step = inner[0]
    assert all(v % step == 0 for v in inner) and step in {5, 10, 20, 50, 100, 200, 500, 1000}
    assert n - inner[-1] > step / 2  # the last rank is not crowded


def test_rank_map_widths_hold_the_figure_margin():
    labels = [f"m{k}" for k in range(30)]
    assert pair_width(30, labels, 90) - pair_width(30, labels, 110) == -20
    assert where_width(14, labels, right=90) - where_width(14, labels, right=110) == -20
