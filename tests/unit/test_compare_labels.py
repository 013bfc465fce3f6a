"""Compare two labels of any dimension (evalmaps.analysis.compare: label_grid, label_sides,
resolve_pair): whole grids against values worked out directly from the figure's cells with
pandas, averaging (missing stays missing, counts), defaults, refusals, the panel case, and the
significance sentence when there is no standard error. Property tests: swapping A and B negates
the difference; a cell that averages nothing is the figure's own value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalmaps.analysis.compare import (
    CompareError,
    compare,
    default_axes,
    is_label_ref,
    label_grid,
    label_ref,
    label_sides,
    parse_label_ref,
    sentences,
    summary,
)
from evalmaps.catalog.load import load_catalog, parse_spec, validate_cells
from evalmaps.core.figure import Catalog, Figure
from evalmaps.core.problems import Problems
from evalmaps.views.state import grid_query

PYTHIA = "pythia-zero-shot"
A14, B28 = label_ref(PYTHIA, "model", "1.4b"), label_ref(PYTHIA, "model", "2.8b")
CATALOG = load_catalog()


def direct(figure: Figure, dim: str, label: str, y: str, x: str, fixed: dict[str, str],
           column: str = "value", how: str = "mean") -> pd.DataFrame:
    """One side's grid straight from the figure's tidy cells: the cells of ``dim=label`` and
    the fixed labels, grouped by (y, x), averaged (or counted, or the only value)."""
    cells = figure.cells
    chosen = cells[cells[dim] == label]
    for d, fixed_label in fixed.items():
        chosen = chosen[chosen[d] == fixed_label]
    grouped = chosen.groupby([y, x])[column]
    table = getattr(grouped, how)()
    return table.unstack(x)


def on(table: pd.DataFrame, rows, cols) -> np.ndarray:
    return table.reindex(index=list(rows), columns=list(cols)).to_numpy(dtype=float)


def models_as_rows() -> Figure:
    """A small lm-eval-like figure with the models as rows: seed (facet) x model (y) x task (x).

    seed s1: m1 t1 0.50  m1 t2 0.60  m2 t1 0.70  (m2 t2 missing)  m3: nothing
    seed s2: m1 t1 0.52  (m1 t2 missing)  m2 t1 0.74  m2 t2 0.80  m3: nothing
    """
    rows = [("s1", "m1", "t1", "0.50", "0.01"), ("s1", "m1", "t2", "0.60", "0.02"),
            ("s1", "m2", "t1", "0.70", "0.03"), ("s2", "m1", "t1", "0.52", "0.01"),
            ("s2", "m2", "t1", "0.74", "0.02"), ("s2", "m2", "t2", "0.80", "0.04")]
    spec = parse_spec({
        "id": "own", "file": "own.csv", "title": "Own results",
        "metric": {"name": "acc", "range": [0, 1]},
        "x": "task", "y": "model", "facets": ["seed"], "provenance": "imported",
        "dims": {"seed": {"title": "Seed", "labels": ["s1", "s2"]},
                 "model": {"title": "Model", "labels": ["m1", "m2", "m3"]},
                 "task": {"title": "Task", "labels": ["t1", "t2"]}},
    }, where="test")
    frame = pd.DataFrame(rows, columns=["seed", "model", "task", "value", "se"])
    cells, decimals = validate_cells(frame, spec, file="own.csv")
    return Figure(spec, cells, decimals)


OWN = models_as_rows()
OWN_CATALOG = Catalog([OWN])


# --------------------------------------------------------------------------- references

def test_label_references_are_told_apart_from_panels_and_means():
    assert is_label_ref(A14) and A14 == "pythia-zero-shot:model=1.4b"
    assert not is_label_ref("pythia-zero-shot:arc-easy-acc")
    assert not is_label_ref("mean(a:b=c,d:e)") and not is_label_ref("no figure:model=x")
    figure, dim, label = parse_label_ref(OWN_CATALOG, "own:model=m1")
    assert (figure.id, dim, label) == ("own", "model", "m1")


@pytest.mark.parametrize("ref, says", [
    ("nope:model=1.4b", "There is no figure 'nope'"),
    ("pythia-zero-shot:size=1.4b", "'size' is not a dimension of figure 'pythia-zero-shot'"),
    ("pythia-zero-shot:model=13b", "'13b' is not a label of model"),
])
def test_a_label_that_names_nothing_is_refused_clearly(ref, says):
    with pytest.raises(CompareError, match=says):
        compare(CATALOG, ref, B28)


def test_labels_and_panels_are_not_mixed_nor_dimensions():
    with pytest.raises(CompareError, match="A names a label of a dimension and B a panel"):
        compare(CATALOG, A14, "dynts-llama-vs-qwen:r1-qwen")
    with pytest.raises(CompareError, match="labels of one dimension of one figure"):
        compare(CATALOG, A14, label_ref(PYTHIA, "step", "0"))


# --------------------------------------------------------------------------- whole grids

def test_two_pythia_models_over_task_by_step_are_the_figures_cells():
    """The issue's case: model is the figure's y, so the grid is task (the first facet with
    more than one label) by step (the figure's x), metric fixed at its first label (acc)."""
    al = compare(CATALOG, A14, B28)
    fig = CATALOG.figure(PYTHIA)
    assert al.a.grid.y == "task" and al.a.grid.x == "step"
    assert al.a.grid.fixed == (("metric", "acc"),) and al.a.grid.averaged == ()
    a = direct(fig, "model", "1.4b", "task", "step", {"metric": "acc"})
    b = direct(fig, "model", "2.8b", "task", "step", {"metric": "acc"})
    # every task has acc: the rows are all of them, in the figure's order
    assert al.y.labels == fig.spec.dims["task"].labels
    assert al.x.labels == fig.spec.dims["step"].labels
    np.testing.assert_array_equal(al.za, on(a, al.y.labels, al.x.labels))
    np.testing.assert_array_equal(al.zb, on(b, al.y.labels, al.x.labels))
    np.testing.assert_allclose(al.delta, on(b, al.y.labels, al.x.labels)
                               - on(a, al.y.labels, al.x.labels), atol=1e-9)
    # the sources' standard errors, exactly: significance can be judged
    se_a = direct(fig, "model", "1.4b", "task", "step", {"metric": "acc"}, "se")
    np.testing.assert_array_equal(al.a.se, on(se_a, al.y.labels, al.x.labels))
    # a standard error of 0 (lambada's acc of 0 at early steps) says nothing without an n
    se_b = on(direct(fig, "model", "2.8b", "task", "step", {"metric": "acc"}, "se"),
              al.y.labels, al.x.labels)
    se_a = on(se_a, al.y.labels, al.x.labels)
    zero = al.common & ((se_a == 0) | (se_b == 0))
    assert zero.sum() == 11
    assert summary(al)["n_with_se"] == al.n_common - 11 and summary(al)["no_significance"] is None
    distinct = al.common & np.isfinite(al.se) & ~al.indistinct
    assert not (distinct & (al.delta == 0)).any()  # equal values are never distinguishable
    assert al.a.metric.name == "acc" and al.a.provenance == "published"
    assert al.a.short == "1.4b" and al.a.label.endswith("— Model 1.4b (Metric acc)")


def test_a_cell_reads_as_the_figure_gives_it():
    al = compare(CATALOG, A14, B28)
    i, j = al.y.labels.index("arc_easy"), al.x.labels.index("143000")
    fig = CATALOG.figure(PYTHIA)
    a = fig.value(task="arc_easy", metric="acc", model="1.4b", step="143000")
    b = fig.value(task="arc_easy", metric="acc", model="2.8b", step="143000")
    assert (al.za[i, j], al.zb[i, j]) == (a, b)
    assert al.delta[i, j] == round(b - a, 9)


def test_rows_neither_side_reports_are_left_out():
    """acc_norm is not given for every task: with it fixed, those tasks' rows go."""
    al = compare(CATALOG, A14, B28, fixed={"metric": "acc_norm"})
    fig = CATALOG.figure(PYTHIA)
    a = direct(fig, "model", "1.4b", "task", "step", {"metric": "acc_norm"})
    b = direct(fig, "model", "2.8b", "task", "step", {"metric": "acc_norm"})
    reported = set(a.index) | set(b.index)
    assert al.y.labels == tuple(t for t in fig.spec.dims["task"].labels if t in reported)
    assert len(al.y.labels) < len(fig.spec.dims["task"].labels)
    np.testing.assert_array_equal(al.za, on(a, al.y.labels, al.x.labels))
    assert al.a.metric.name == "acc_norm"


def test_an_averaged_dimension_is_the_mean_of_the_cells_given():
    """Averaged over task, on a metric-by-step grid: each cell is the mean of the tasks the
    figure gives there, counted; no standard error."""
    al = compare(CATALOG, A14, B28, y="metric", averaged=["task"])
    fig = CATALOG.figure(PYTHIA)
    assert al.a.grid.averaged == ("task",) and al.a.grid.fixed == ()
    for side, label in ((al.a, "1.4b"), (al.b, "2.8b")):
        z = side.z
        mean = direct(fig, "model", label, "metric", "step", {})
        count = direct(fig, "model", label, "metric", "step", {}, how="size")
        np.testing.assert_allclose(z, on(mean, side.y.labels, side.x.labels), rtol=0,
                                   atol=1e-9)
        np.testing.assert_array_equal(side.n_averaged, on(count, side.y.labels, side.x.labels))
        assert side.of_averaged == 65 and side.se is None and side.derived
    s = summary(al)
    assert s["n_with_se"] == 0
    assert s["no_significance"] == "both sides are means, which carry no standard error"
    assert sentences(al)[-1] == ("Significance cannot be judged from this data: both sides "
                                 "are means, which carry no standard error.")


def test_missing_stays_missing_and_counts_say_how_many_were_averaged():
    with pytest.raises(CompareError, match="Seed is the rows: it cannot also be fixed or "
                                           "averaged"):  # model is the y: seed takes its place
        label_grid(OWN.spec, "model", averaged=["seed"])
    a_side, b_side = label_sides(OWN, label_grid(OWN.spec, "model", y="", averaged=["seed"]),
                                 "m1", "m2")
    # averaged over seed, nothing is left for the rows: one row
    assert a_side.grid.y == "" and a_side.y.labels == ("all",) and a_side.x.labels == ("t1", "t2")
    np.testing.assert_allclose(a_side.z, [[0.51, 0.60]])  # (0.50 + 0.52) / 2; t2 only in s1
    np.testing.assert_allclose(b_side.z, [[0.72, 0.80]])
    np.testing.assert_array_equal(a_side.n_averaged, [[2, 1]])
    np.testing.assert_array_equal(b_side.n_averaged, [[2, 1]])
    assert a_side.of_averaged == 2
    # m3 has no cell at all: against it, every cell is missing, so there is nothing to compare
    _, m3 = label_sides(OWN, label_grid(OWN.spec, "model", y="", averaged=["seed"]), "m1", "m3")
    assert not np.isfinite(m3.z).any()
    with pytest.raises(CompareError, match="share no reported cell"):
        compare(OWN_CATALOG, "own:model=m1", "own:model=m3", y="", averaged=["seed"])


def test_fixed_labels_keep_the_sources_values_and_their_gaps():
    al = compare(OWN_CATALOG, "own:model=m1", "own:model=m2")  # seed by task
    assert (al.a.grid.y, al.a.grid.x, al.a.grid.fixed) == ("seed", "task", ())
    np.testing.assert_array_equal(al.za, [[0.50, 0.60], [0.52, np.nan]])
    np.testing.assert_array_equal(al.zb, [[0.70, np.nan], [0.74, 0.80]])
    np.testing.assert_array_equal(al.a.se, [[0.01, 0.02], [0.01, np.nan]])
    assert al.n_common == 2 and summary(al)["n_with_se"] == 2
    al = compare(OWN_CATALOG, "own:model=m1", "own:model=m2", y="", fixed={"seed": "s2"})
    assert al.a.grid.fixed == (("seed", "s2"),) and al.y.labels == ("all",)
    np.testing.assert_array_equal(al.za, [[0.52, np.nan]])  # m1 t2 is missing in s2
    np.testing.assert_array_equal(al.zb, [[0.74, 0.80]])


def test_comparing_two_panels_is_the_case_of_a_facet():
    panels = compare(CATALOG, "dynts-llama-vs-qwen:r1-llama", "dynts-llama-vs-qwen:r1-qwen")
    labels = compare(CATALOG, "dynts-llama-vs-qwen:model=R1-Llama",
                     "dynts-llama-vs-qwen:model=R1-Qwen")
    assert (labels.y, labels.x) == (panels.y, panels.x)
    for name in ("za", "zb", "delta"):
        np.testing.assert_array_equal(getattr(labels, name), getattr(panels, name))
    assert summary(labels) == summary(panels)
    assert sentences(labels) == sentences(panels)


# --------------------------------------------------------------------------- defaults and choices

def test_default_grids():
    spec = CATALOG.figure(PYTHIA).spec
    assert default_axes(spec, "model") == ("task", "step")  # the compared y: first facet
    assert default_axes(spec, "task") == ("model", "step")  # a facet: the figure's own axes
    assert default_axes(spec, "step") == ("model", "task")  # the compared x: first facet
    dynts = CATALOG.figure("dynts-llama-vs-qwen").spec
    assert default_axes(dynts, "window") == ("model", "ratio")
    # one facet of one label: it is the one row
    assert default_axes(CATALOG.figure("core-generalization").spec, "type") == ("model", "length")
    assert default_axes(OWN.spec, "model") == ("seed", "task")


def test_choices_that_do_not_fit_are_refused_or_noted():
    spec = CATALOG.figure(PYTHIA).spec
    with pytest.raises(CompareError, match="Model is the dimension compared"):
        label_grid(spec, "model", y="model")
    with pytest.raises(CompareError, match="Metric cannot be averaged over: its labels are "
                                           r"different metrics \(acc, acc_norm\)\.$"):
        label_grid(spec, "model", averaged=["metric"])
    with pytest.raises(CompareError, match="'nope' is not a label of metric"):
        label_grid(spec, "model", fixed={"metric": "nope"})
    with pytest.raises(CompareError, match="The rows and the columns are both Training step.$"):
        label_grid(spec, "model", y="step", x="step", problems=Problems(strict=True))
    problems = Problems()
    grid = label_grid(spec, "model", y="step", x="step", fixed={"task": "arc_easy", "metric": "x"},
                      averaged=["metric"], problems=problems)
    assert (grid.y, grid.x) == ("task", "step")
    assert grid.fixed == (("metric", "acc"),)
    assert problems == [
        "The rows and the columns are both Training step; the rows are Task.",
        "Task is the rows: it cannot also be fixed or averaged (pick other rows to fix or "
        "average it); ignored.",
        "'x' is not a label of metric; using acc.",
        "Metric cannot be averaged over: its labels are different metrics (acc, acc_norm); "
        "it is fixed at one label.",
    ]


def test_a_query_of_two_labels_for_one_dimension_is_refused_or_noted():
    spec = CATALOG.figure(PYTHIA).spec
    query = {"metric": ["acc_norm", "acc"], "ydim": ["task"]}
    with pytest.raises(CompareError, match="Give one label of metric .* the query gives 2.$"):
        grid_query(query, spec)
    problems = Problems()
    asked = grid_query(query, spec, problems)
    assert asked["fixed"] == {"metric": "acc_norm"} and asked["y"] == "task"
    assert list(problems) == ["Give one label of metric (it is fixed at one); the query gives 2: "
                              "using acc_norm."]


def test_picking_the_default_y_as_x_swaps_the_axes():
    grid = label_grid(CATALOG.figure(PYTHIA).spec, "model", x="task")
    assert (grid.y, grid.x) == ("step", "task")


# --------------------------------------------------------------------------- significance, said

def test_without_standard_errors_the_summary_says_why():
    al = compare(CATALOG, "dynts-llama-vs-qwen:model=R1-Llama",
                 "dynts-llama-vs-qwen:model=R1-Qwen")
    assert summary(al)["no_significance"] == "neither side gives a standard error"
    assert sentences(al)[-1] == ("Significance cannot be judged from this data: neither side "
                                 "gives a standard error.")
    # one side a mean, the other without one
    mean = ("mean(dynts-r1-llama-benchmarks:r1-llama-aime24,"
            "dynts-r1-llama-benchmarks:r1-llama-aime25)")
    al = compare(CATALOG, mean, "dynts-llama-vs-qwen:r1-qwen")
    assert summary(al)["no_significance"] == ("A is a mean, which carries no standard error, "
                                              "and B gives no standard error")


# --------------------------------------------------------------------------- properties

def _choices(figure: Figure):
    """A strategy of (dim, a, b, y, x, averaged) for a figure."""
    spec = figure.spec

    @st.composite
    def pick(draw):
        dim = draw(st.sampled_from([d for d in spec.dims if len(spec.dims[d].labels) > 1]))
        labels = spec.dims[dim].labels
        a, b = draw(st.sampled_from(labels)), draw(st.sampled_from(labels))
        others = [d for d in spec.dims if d != dim]
        x = draw(st.sampled_from(others))
        y = draw(st.sampled_from(["", *[d for d in others if d != x]]))
        rest = [d for d in others if d not in (x, y)]
        averaged = draw(st.lists(st.sampled_from(rest), unique=True)) if rest else []
        return dim, a, b, y, x, averaged
    return pick()


FIGURES = [OWN, *(CATALOG.figure(f) for f in ("dynts-r1-llama-benchmarks", "dynts-llama-vs-qwen",
                                              "acemath-training-progress"))]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_swapping_a_and_b_negates_the_difference(data):
    figure = data.draw(st.sampled_from(FIGURES))
    dim, a, b, y, x, averaged = data.draw(_choices(figure))
    catalog = Catalog([figure])
    a_ref, b_ref = label_ref(figure.id, dim, a), label_ref(figure.id, dim, b)
    try:
        ab = compare(catalog, a_ref, b_ref, y=y, x=x, averaged=averaged)
    except CompareError as exc:  # nothing in common there: refused the other way round too
        with pytest.raises(CompareError) as other:
            compare(catalog, b_ref, a_ref, y=y, x=x, averaged=averaged)
        assert type(other.value) is type(exc)
        return
    ba = compare(catalog, b_ref, a_ref, y=y, x=x, averaged=averaged)
    assert (ab.y, ab.x) == (ba.y, ba.x)
    np.testing.assert_array_equal(ba.delta, -ab.delta)
    np.testing.assert_array_equal(ba.za, ab.zb)
    sa, sb = summary(ab), summary(ba)
    assert sb["mean_delta"] == -sa["mean_delta"]
    assert (sb["b_higher"], sb["b_lower"], sb["equal"]) == (sa["b_lower"], sa["b_higher"],
                                                            sa["equal"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_cell_that_averages_nothing_is_the_figures_own_value(data):
    figure = data.draw(st.sampled_from(FIGURES))
    dim, a, b, y, x, _ = data.draw(_choices(figure))
    grid = label_grid(figure.spec, dim, y, x)
    try:
        side, _ = label_sides(figure, grid, a, b)
    except CompareError:
        return
    fixed = dict(grid.fixed)
    for i, row in enumerate(side.y.labels):
        for j, col in enumerate(side.x.labels):
            coords = {**fixed, dim: a, x: col, **({y: row} if y else {})}
            expected = figure.value(**coords)
            got = side.z[i, j]
            assert (expected is None and np.isnan(got)) or got == expected


def test_swap_is_refused_alike_when_nothing_is_shared():
    with pytest.raises(CompareError):
        compare(OWN_CATALOG, "own:model=m3", "own:model=m1")


def test_a_grid_of_one_row_names_cells_by_their_column():
    al = compare(CATALOG, A14, B28, y="", averaged=["task"])
    assert al.y.labels == ("all",) and al.a.averaged_over == "Task"
    second = sentences(al)[1]
    assert second.startswith("The largest gain is ") and " at Training step " in second
    assert "all ·" not in second
    cell = al.cells()[0]
    assert (cell["a_count"], cell["b_count"]) == (65, 65)  # how many tasks each mean holds
