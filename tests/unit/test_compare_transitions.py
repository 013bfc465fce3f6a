"""Compare's page transitions (evalmaps.views.transitions) as pure functions of the catalog and
the state the page shows: no Dash, no app. Each event gives the next state (and whether the
menus must be written), or Unchanged; the page renders that state's CompareView."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from evalmaps.analysis.compare import default_pair, label_grid, label_ref, mean_ref
from evalmaps.views import CompareView, transitions
from evalmaps.views.state import CompareState
from evalmaps.views.transitions import (
    AVERAGED,
    BY_PANELS,
    Unchanged,
    axis_picked,
    by_picked,
    figure_picked,
    mean_used,
    menu_picked,
    panels_state,
    rest_choices,
    same_view,
    shown_state,
    swapped,
)

BENCH = "dynts-r1-llama-benchmarks"
QWEN = "dynts-llama-vs-qwen"
PYTHIA = "pythia-zero-shot"


def showing(state: CompareState, **controls) -> dict:
    """What the page's controls show for ``state`` (the sync callback's ``showing``)."""
    return {"a": state.a, "b": state.b, "color": state.color, "show_values": state.show_values,
            "scale": state.scale, "pct": state.pct, "k": state.k, "ydim": state.ydim,
            "xdim": state.xdim, "rest": None, "rest_ids": None, **controls}


def test_the_transitions_need_no_dash():
    tree = ast.parse(Path(transitions.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for a in node.names}
    assert all(name.split(".")[0] in ("__future__", "collections", "dataclasses", "evalmaps")
               for name in imported), imported


def test_swap_exchanges_a_and_b_and_writes_the_menus(catalog):
    state = CompareState(*default_pair(catalog))
    move = swapped(state)
    assert (move.state.a, move.state.b, move.controls) == (state.b, state.a, True)
    view = CompareView.from_query(catalog, {"a": [move.state.a], "b": [move.state.b]})
    assert view.state.a == state.b


def test_a_figure_picked_for_a_takes_its_first_fitting_panel(catalog):
    state = CompareState(*default_pair(catalog))
    move = figure_picked(catalog, state, "a", BENCH)
    assert move.controls and move.state.a.startswith(f"{BENCH}:")
    with pytest.raises(Unchanged):  # the figure A shows already
        figure_picked(catalog, state, "a", QWEN)
    with pytest.raises(Unchanged):  # no such figure
        figure_picked(catalog, state, "a", "nope")


def test_compare_by_a_dimension_and_back_to_panels(catalog):
    a, b = [p.key for p in list(catalog.figure(BENCH).panels.values())[:2]]
    state = CompareState(a, b)
    labels = by_picked(catalog, state, "benchmark").state
    assert labels.labels and labels.a == label_ref(BENCH, "benchmark", "AIME24")
    assert labels.b == label_ref(BENCH, "benchmark", "AIME25")
    back = by_picked(catalog, labels, BY_PANELS).state
    assert (back.a, back.b) == (a, b) and back.ydim is None and back.averaged == ()
    assert panels_state(catalog, labels) == back
    with pytest.raises(Unchanged):  # already panels
        by_picked(catalog, state, BY_PANELS)
    with pytest.raises(Unchanged):  # not a dimension of A's figure
        by_picked(catalog, state, "nope")


def test_picking_the_columns_dimension_as_rows_swaps_the_axes(catalog):
    state = CompareState(label_ref(PYTHIA, "model", "1.4b"), label_ref(PYTHIA, "model", "2.8b"))
    grid = label_grid(catalog.figure(PYTHIA).spec, "model")
    move = axis_picked(catalog, state, state, showing(state, ydim=grid.x, xdim=grid.x), "ydim")
    after = label_grid(catalog.figure(PYTHIA).spec, "model", **move.state.grid_args())
    assert (after.y, after.x) == (grid.x, grid.y)
    with pytest.raises(Unchanged):  # panels have no grid
        axis_picked(catalog, CompareState(*default_pair(catalog)), state, showing(state), "ydim")


def test_the_mean_menu_makes_a_side_or_says_why_not(catalog):
    state = CompareState(*default_pair(catalog))
    keys = [p.key for p in list(catalog.figure(BENCH).panels.values())[:2]]
    move = mean_used(catalog, state, "a", keys)
    assert move.state.a == mean_ref(keys) and move.controls and not move.problems
    move = mean_used(catalog, state, "b", keys[:1])
    assert move.state == state and not move.controls and "at least two" in move.problems[0]


def test_a_side_that_names_nothing_falls_back_and_says_so(catalog):
    default = default_pair(catalog)
    move = menu_picked(catalog, CompareState("nope:x", default[1]), default)
    assert (move.state.a, move.controls) == (default[0], True) and move.problems
    same = CompareState(*default)
    assert menu_picked(catalog, same, default) == type(move)(same)


def test_the_shown_state_reads_the_grids_menus(catalog):
    state = CompareState(label_ref(PYTHIA, "model", "1.4b"), label_ref(PYTHIA, "model", "2.8b"))
    rest = [{"type": "compare-rest", "dim": "task"}, {"type": "other"}]
    values = [AVERAGED, "=x"]
    assert rest_choices(rest, values) == ({}, ["task"])
    shown = shown_state(catalog, showing(state, ydim="metric", xdim="step", rest_ids=rest,
                                         rest=values), default_pair(catalog))
    assert (shown.ydim, shown.averaged) == ("metric", ("task",))
    assert same_view(shown, shown, showing(shown, color="fixed"))
    assert not same_view(state, shown, showing(shown))
