"""evalmaps.analysis.compare and components.compare: alignment, B - A, the summary against a hand
transcription of seed 004, derived means over seed 003, uncertainty, references, view state, and
the three heatmaps (shared colour range, diverging difference, escaping, outlines)."""

from __future__ import annotations

import math
import re
from html import escape
from urllib.parse import parse_qs

import numpy as np
import pandas as pd
import pytest

from components.compare import panel_options
from evalmaps.analysis.compare import (
    CompareError,
    align,
    color_range,
    compare,
    default_pair,
    delta_range,
    derived_mean,
    figure_of,
    first_panel,
    from_panel,
    mean_ref,
    parse_ref,
    resolve,
    sentences,
    summary,
)
from evalmaps.catalog.load import parse_spec, validate_cells
from evalmaps.core.errors import EvalmapsError, UnknownPanel
from evalmaps.core.figure import Catalog, Figure
from evalmaps.core.text import number as format_number
from evalmaps.core.text import signed as format_signed
from evalmaps.figures.compare import compare_figures, readouts
from evalmaps.views.state import CompareState, parse_compare_state
from tests.plotly_render import decode, heatmap_cell

DEFAULT_A = "dynts-llama-vs-qwen:r1-llama"  # the catalog's "compare" pair
DEFAULT_B = "dynts-llama-vs-qwen:r1-qwen"
BENCH = "dynts-r1-llama-benchmarks"
BENCH_KEYS = [f"{BENCH}:r1-llama-{b}" for b in ("aime24", "aime25", "amc23", "gpqa-diamond")]
EVIL = "<b>x</b>"

# Seed 004, typed again by hand from the description (rows 3000, 2000, 1000, 500; ratios 0.1-0.5)
LLAMA = [[49.1, 50.1, 50.6, 50.7, 51.4],
         [49.5, 51.7, 52.8, 52.5, 50.9],
         [49.9, 52.7, 51.0, 51.9, 51.7],
         [49.8, 52.1, 50.7, 50.8, 51.7]]
QWEN = [[53.9, 53.9, 53.2, 54.4, 53.8],
        [52.4, 51.9, 54.6, 56.3, 53.7],
        [52.2, 54.4, 53.8, 53.3, 53.0],
        [51.5, 51.8, 52.0, 54.3, 54.6]]
# Qwen - Llama, worked out by hand cell by cell
DELTA = [[4.8, 3.8, 2.6, 3.7, 2.4],
         [2.9, 0.2, 1.8, 3.8, 2.8],
         [2.3, 1.7, 2.8, 1.4, 1.3],
         [1.7, -0.3, 1.3, 3.5, 2.9]]
# Seed 003's ratio 0.1 and 0.5 columns (rows 3000, 2000, 1000, 500), per benchmark
SEED_003 = {
    "aime24": {"0.1": [45.3, 47.3, 49.3, 43.7], "0.5": [46.7, 43.3, 46.0, 42.7]},
    "aime25": {"0.1": [27.3, 24.0, 26.7, 25.3], "0.5": [28.7, 26.7, 30.7, 26.7]},
    "amc23": {"0.1": [87.5, 84.0, 87.0, 85.5], "0.5": [86.5, 86.0, 86.0, 86.0]},
    "gpqa-diamond": {"0.1": [44.2, 45.1, 45.8, 44.1], "0.5": [46.5, 47.4, 45.4, 44.9]},
}


def make_figure(fid: str, panels: dict[str, dict[tuple[str, str], float | tuple | dict]], *,
                y=("3000", "2000", "1000", "500"), x=("0.1", "0.2", "0.3", "0.4", "0.5"),
                y_name="window", x_name="ratio", metric=("Pass@1", ""), provenance="uploaded",
                y_title="Local Window Size", x_title="Ratio", value_range=(-1000, 1000)) -> Figure:
    """A figure with one facet ('model'); cells {(y, x): value, (value, sd, n) or
    {"value": v, "se": s, ...}}."""
    rows = []
    for model, cells in panels.items():
        for (yl, xl), v in cells.items():
            if isinstance(v, dict):
                rows.append({"model": model, y_name: yl, x_name: xl,
                             **{k: str(w) for k, w in v.items()}})
                continue
            value, sd, n = v if isinstance(v, tuple) else (v, None, None)
            rows.append({"model": model, y_name: yl, x_name: xl, "value": str(value),
                         **({"sd": str(sd), "n": str(n)} if sd is not None else {})})
    spec = parse_spec({
        "id": fid, "file": f"{fid}.csv", "title": f"Figure {fid}",
        "metric": {"name": metric[0], "unit": metric[1], "range": list(value_range)},
        "x": x_name, "y": y_name, "facets": ["model"], "provenance": provenance,
        "dims": {"model": {"title": "Model", "labels": list(panels)},
                 y_name: {"title": y_title, "labels": list(y)},
                 x_name: {"title": x_title, "labels": list(x)}},
    }, where="test")
    frame = pd.DataFrame(rows).fillna("").astype(str)
    cells, decimals = validate_cells(frame, spec, file=f"{fid}.csv")
    return Figure(spec, cells, decimals)


def side(fig: Figure, key: str | None = None):
    panel = fig.panels[key] if key else next(iter(fig.panels.values()))
    return from_panel(fig, panel)


def n_sentences(text: str) -> int:
    return len([s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s])


# --------------------------------------------------------------------------- default pair (seed 004)

@pytest.fixture(scope="module")
def default(catalog):
    return compare(catalog, DEFAULT_A, DEFAULT_B)


def test_default_pair_is_llama_vs_qwen(catalog):
    assert default_pair(catalog) == ("dynts-llama-vs-qwen:r1-llama", "dynts-llama-vs-qwen:r1-qwen")


def test_alignment_of_the_default_pair_is_the_seed(default):
    assert default.y.labels == ("3000", "2000", "1000", "500")
    assert default.x.labels == ("0.1", "0.2", "0.3", "0.4", "0.5")
    np.testing.assert_array_equal(default.za, LLAMA)
    np.testing.assert_array_equal(default.zb, QWEN)
    np.testing.assert_array_equal(default.delta, DELTA)  # exact: float noise is rounded off
    assert default.n_common == 20 and default.se is None and not default.indistinct.any()
    assert default.warnings == ()


def test_summary_of_the_default_pair_by_hand(default):
    s = summary(default)
    # by hand: Llama rows sum to 251.9 + 257.4 + 257.2 + 255.1 = 1021.6, / 20 = 51.08;
    # Qwen rows to 269.2 + 268.9 + 266.7 + 264.2 = 1069.0, / 20 = 53.45; differences sum to 47.4
    assert s["n_common"] == 20
    assert s["mean_a"] == pytest.approx(51.08, abs=1e-9)
    assert s["mean_b"] == pytest.approx(53.45, abs=1e-9)
    assert s["mean_delta"] == pytest.approx(2.37, abs=1e-9)
    assert (s["b_higher"], s["b_lower"], s["equal"]) == (19, 1, 0)
    assert s["largest_gain"] == {"window": "3000", "ratio": "0.1", "a": 49.1, "b": 53.9, "delta": 4.8}
    assert s["largest_loss"] == {"window": "500", "ratio": "0.2", "a": 52.1, "b": 51.8, "delta": -0.3}
    assert s["best_a"] == {"window": "2000", "ratio": "0.3", "value": 52.8}
    assert s["best_b"] == {"window": "2000", "ratio": "0.4", "value": 56.3}
    assert s["n_with_se"] == 0 and s["n_indistinct"] == 0


def test_sentences_of_the_default_pair(default):
    assert sentences(default) == [
        "R1-Qwen is higher than R1-Llama in 19 of 20 cells, by 2.37 points on average over cells.",
        "The largest gain is +4.8 at Local Window Size 3000 · Ratio 0.1; "
        "the only loss is -0.3 at Local Window Size 500 · Ratio 0.2.",
        # DynTS gives no standard errors: said, not left unsaid
        "Significance cannot be judged from this data: neither side gives a standard error.",
    ]


def test_swapped_pair_mirrors_the_numbers(catalog):
    s = summary(compare(catalog, DEFAULT_B, DEFAULT_A))
    assert s["mean_delta"] == pytest.approx(-2.37, abs=1e-9)
    assert (s["b_higher"], s["b_lower"]) == (1, 19)
    assert s["largest_gain"]["delta"] == 0.3 and s["largest_loss"]["delta"] == -4.8
    text = sentences(compare(catalog, DEFAULT_B, DEFAULT_A))[0]
    assert text == ("R1-Llama is higher than R1-Qwen in 1 of 20 cells, "
                    "and lower by 2.37 points on average over cells.")


def test_same_panel_twice_is_all_equal(catalog):
    al = compare(catalog, DEFAULT_A, DEFAULT_A)
    s = summary(al)
    assert (s["equal"], s["b_higher"], s["largest_gain"], s["largest_loss"]) == (20, 0, None, None)
    assert sentences(al, s) == ["B is higher than A in 0 of 20 cells (20 equal), and the same on "
                                "average over cells.", "Significance cannot be judged from this data: "
                                "neither side gives a standard error."]


# --------------------------------------------------------------------------- cross-figure, partial

def test_cross_figure_compares_only_the_common_cells(catalog):
    al = compare(catalog, f"{BENCH}:r1-llama-aime24", DEFAULT_B)
    assert al.n_common == 8  # the benchmarks figure reports ratios 0.1 and 0.5 only
    assert np.isnan(al.delta[:, 1:4]).all()  # missing in A: missing in the difference
    cells = al.cells()
    assert len(cells) == 8 and {c["ratio"] for c in cells} == {"0.1", "0.5"}
    first = cells[0]
    assert first == {"window": "3000", "ratio": "0.1", "a": 45.3, "b": 53.9, "delta": 8.6,
                     "paired": None}  # no items: no paired test
    s = summary(al)
    assert s["n_a"] == 8 and s["n_b"] == 20 and s["n_grid"] == 20


def test_common_labels_follow_a_and_missing_stays_missing():
    a = make_figure("fa", {"A": {("3000", "0.1"): 1.0, ("500", "0.5"): 2.0, ("1000", "0.3"): 5.0}})
    b = make_figure("fb", {"B": {("500", "0.5"): 2.5, ("3000", "0.1"): 0.5, ("2000", "0.2"): 9.0}},
                    y=("500", "3000", "2000"), x=("0.5", "0.1", "0.2"))
    al = align(side(a), side(b))
    assert al.y.labels == ("3000", "2000", "500")  # A's order, B's labels
    assert al.x.labels == ("0.1", "0.2", "0.5")
    assert al.n_common == 2
    assert np.isnan(al.delta[1, 1])  # (2000, 0.2): B only
    assert al.delta[0, 0] == -0.5 and al.delta[2, 2] == 0.5


def test_metric_and_illustrative_warnings(catalog):
    a = make_figure("fa", {"A": {("3000", "0.1"): 1.0}}, metric=("Accuracy", "%"))
    b = make_figure("fb", {"B": {("3000", "0.1"): 2.0}}, provenance="illustrative")
    al = align(side(a), side(b))
    assert any("Accuracy (%)" in w and "Pass@1" in w for w in al.warnings)
    assert any(w.startswith("B holds ILLUSTRATIVE") for w in al.warnings)
    assert sentences(al)[0].endswith("by 1.0 percentage points on average.")


def test_axes_match_by_name_or_title():
    a = make_figure("fa", {"A": {("3000", "0.1"): 1.0}})
    b = make_figure("fb", {"B": {("3000", "0.1"): 2.0}}, y_name="win", x_name="r")  # same titles
    assert align(side(a), side(b)).n_common == 1


# --------------------------------------------------------------------------- refusals

def test_different_axes_are_refused_clearly(catalog):
    with pytest.raises(CompareError) as err:
        compare(catalog, "core-generalization:qwen-2-5b", DEFAULT_B)
    assert isinstance(err.value, EvalmapsError)
    assert str(err.value) == ("Panels A and B have different axes: A's are Type × Length and B's "
                              "are Local Window Size × Ratio. Pick panels over the same axes.")


def test_disjoint_rows_are_refused_clearly(catalog):
    other = make_figure("far", {"X": {("4000", "0.1"): 1.0}}, y=("4000", "5000"))
    with pytest.raises(CompareError) as err:
        align(resolve(catalog, DEFAULT_A), side(other))
    message = str(err.value)
    assert message == ("Panels A and B share no cells: A's rows (Local Window Size) are 3000, "
                       "2000, 1000, 500 and B's are 4000, 5000. Pick panels with common labels.")
    assert n_sentences(message) == 2


def test_disjoint_columns_and_unreported_overlap_are_refused(catalog):
    cols = make_figure("fc", {"X": {("3000", "0.9"): 1.0}}, x=("0.9",))
    with pytest.raises(CompareError, match="A's columns \\(Ratio\\) are 0.1, 0.2, 0.3, 0.4, 0.5"):
        align(resolve(catalog, DEFAULT_A), side(cols))
    middle = make_figure("fm", {"X": {("3000", "0.3"): 1.0, ("500", "0.2"): 2.0}})
    with pytest.raises(CompareError) as err:  # labels overlap, but AIME24 has only 0.1 and 0.5
        align(resolve(catalog, f"{BENCH}:r1-llama-aime24"), side(middle))
    assert str(err.value).startswith("Panels A and B share no reported cell")
    assert n_sentences(str(err.value)) == 2


# --------------------------------------------------------------------------- derived means (seed 003)

def test_derived_mean_over_seed_003(catalog):
    mean = resolve(catalog, mean_ref(BENCH_KEYS))
    assert mean.derived and mean.provenance == "derived"
    assert mean.label == ("mean of R1-Llama | AIME24, R1-Llama | AIME25, R1-Llama | AMC23, "
                          "R1-Llama | GPQA-Diamond (derived)")
    assert mean.sources == tuple(BENCH_KEYS)
    # cells only where all four report: the ratio 0.1 and 0.5 columns, nothing in 0.2-0.4
    assert np.isfinite(mean.z).sum() == 8
    assert np.isnan(mean.z[:, 1:4]).all()
    for col, j in (("0.1", 0), ("0.5", 4)):
        for i in range(4):
            by_hand = sum(SEED_003[b][col][i] for b in SEED_003) / 4
            assert mean.z[i, j] == pytest.approx(by_hand, abs=1e-9)
    assert mean.z[0, 0] == 51.075  # (45.3 + 27.3 + 87.5 + 44.2) / 4, exactly
    assert (mean.n_panels[:, [0, 4]] == 4).all() and (mean.n_panels[:, 1:4] == 0).all()
    assert mean.format(mean.z[3, 0]) == "49.65" and mean.format(mean.z[0, 4]) == "52.1"


def test_derived_mean_has_cells_only_where_all_panels_have_values():
    fig = make_figure("fd", {
        "P": {("3000", "0.1"): 1.0, ("2000", "0.1"): 2.0, ("1000", "0.1"): 3.0},
        "Q": {("3000", "0.1"): 3.0, ("2000", "0.1"): 4.0},
        "R": {("3000", "0.1"): 5.0, ("1000", "0.1"): 7.0},
    })
    mean = derived_mean([side(fig, k) for k in fig.panels])
    assert mean.z[0, 0] == 3.0
    assert np.isfinite(mean.z).sum() == 1  # (2000, 0.1) lacks R, (1000, 0.1) lacks Q
    assert mean.n_panels[1, 0] == 2 and mean.n_panels[2, 0] == 2 and mean.n_panels[3, 0] == 0


def test_derived_mean_is_usable_as_a_side(catalog):
    al = compare(catalog, mean_ref(BENCH_KEYS), DEFAULT_A)
    assert al.n_common == 8
    assert al.delta[0, 0] == pytest.approx(49.1 - 51.075, abs=1e-9)
    assert sentences(al)[0].startswith("R1-Llama is higher than the mean of 4 panels in 3 of 8")
    fa = compare_figures(al, "shared", True)[0]
    assert heatmap_cell(fa, "3000", "0.1")["hover"].split("<br>") == [
        "Local Window Size 3000 · Ratio 0.1", "Pass@1 51.075 (mean of 4 panels, derived)",
        "A: mean of 4 panels"]
    assert heatmap_cell(fa, "3000", "0.2")["hover"].split("<br>")[1:3] == [
        "Pass@1 not reported", "0 of 4 panels report it; a mean needs all"]


def test_derived_mean_refusals(catalog):
    with pytest.raises(CompareError, match="must share their axes"):
        resolve(catalog, mean_ref([DEFAULT_A, "core-generalization:qwen-2-5b"]))
    with pytest.raises(CompareError, match="no cell that all of them report"):
        derived_mean([side(make_figure("f1", {"P": {("3000", "0.1"): 1.0}})),
                      side(make_figure("f2", {"Q": {("3000", "0.2"): 1.0}}))])
    with pytest.raises(CompareError, match="one metric"):
        derived_mean([side(make_figure("f1", {"P": {("3000", "0.1"): 1.0}})),
                      side(make_figure("f2", {"Q": {("3000", "0.1"): 1.0}},
                                       metric=("Accuracy", "%")))])
    with pytest.raises(CompareError, match="at least two"):
        derived_mean([resolve(catalog, DEFAULT_A)])


# --------------------------------------------------------------------------- references

@pytest.mark.parametrize("ref, keys", [
    (DEFAULT_A, (DEFAULT_A,)),
    (" mean(a:b, c:d) ", ("a:b", "c:d")),
    (mean_ref(BENCH_KEYS), tuple(BENCH_KEYS)),
])
def test_parse_ref(ref, keys):
    assert parse_ref(ref) == keys


@pytest.mark.parametrize("ref, says", [
    ("", "empty"),
    ("mean(a:b)", "at least two"),
    ("mean(a:b,,c:d)", "at least two"),
    ("mean(a:b,a:b)", "twice"),
    ("mean(mean(a:b,c:d),e:f)", "neither a panel key"),
    ("__import__('os').system('id')", "neither a panel key"),
    ("mean(a:b,c)", "is not a panel key"),
    ("mean(" + ",".join(f"f:p{i}" for i in range(17)) + ")", "at most 16"),
    ("x" * 3000, "over the limit"),
    ("figure-only", "neither a panel key"),
])
def test_bad_refs_are_refused_with_a_message(ref, says):
    with pytest.raises(CompareError, match=says) as err:
        parse_ref(ref)
    assert 1 <= n_sentences(str(err.value)) <= 2


def test_unknown_figure_or_panel_is_a_compare_error(catalog):
    with pytest.raises(CompareError, match="^Panel B: There is no figure 'nofig'"):
        resolve(catalog, "nofig:x", "B")
    with pytest.raises(CompareError, match="^Panel A: There is no panel 'dynts-llama-vs-qwen:zz'"):
        resolve(catalog, "dynts-llama-vs-qwen:zz", "A")
    with pytest.raises(CompareError, match="Panel A: There is no figure 'nofig'"):
        resolve(catalog, mean_ref([DEFAULT_A, "nofig:x"]), "A")


# --------------------------------------------------------------------------- uncertainty

@pytest.fixture()
def replicates():
    a = make_figure("ra", {"A": {("3000", "0.1"): (50.0, 2.0, 4), ("3000", "0.2"): (50.0, 1.0, 4),
                                 ("2000", "0.1"): (40.0, 3.0, 9)}})
    b = make_figure("rb", {"B": {("3000", "0.1"): (52.0, 2.0, 4), ("3000", "0.2"): (55.0, 1.0, 4),
                                 ("2000", "0.1"): (40.5, 3.0, 9)}})
    return align(side(a), side(b))


def test_standard_error_and_indistinct_cells(replicates):
    al = replicates
    # SE = sqrt(sdA^2/nA + sdB^2/nB): sqrt(1 + 1) = 1.414 (|2.0| < 2.77: not distinguishable);
    # sqrt(0.25 + 0.25) = 0.707 (|5.0| >= 1.39: distinguishable); sqrt(1 + 1) = 1.414 (0.5)
    assert al.se[0, 0] == pytest.approx(math.sqrt(2))
    assert al.se[0, 1] == pytest.approx(math.sqrt(0.5))
    assert al.indistinct[0, 0] and not al.indistinct[0, 1] and al.indistinct[1, 0]
    assert np.isnan(al.se[3, 4]) and not al.indistinct[3, 4]
    s = summary(al)
    assert (s["n_with_se"], s["n_indistinct"], s["b_sig_higher"], s["b_sig_lower"]) == (3, 2, 1, 0)
    assert sentences(al, s)[-1] == ("With standard errors in 3 of the 3 cells: B is significantly "
                                    "higher than A in 1 and significantly lower in 0 "
                                    "(|B − A| ≥ 1.96 SE); 2 are not distinguishable.")
    cell = al.cell(0, 0)
    assert cell["se"] == pytest.approx(1.414213562) and cell["distinguishable"] is False
    assert al.cell(0, 1)["distinguishable"] is True


def test_indistinct_cells_are_outlined_and_explained(replicates):
    _, _, delta = compare_figures(replicates, "shared", True)
    outlines = [s for s in delta["layout"]["shapes"] if s["name"] == "not-distinguishable"]
    assert len(outlines) == 2
    assert outlines[0]["xref"] == "x domain" and outlines[0]["line"]["dash"] == "dot"
    # (3000, 0.1): row 0 of 4, column 0 of 5, inset a little
    assert outlines[0]["x0"] == pytest.approx(0.08 / 5)
    assert outlines[0]["y1"] == pytest.approx(1 - 0.08 / 4)
    assert heatmap_cell(delta, "3000", "0.1")["hover"] == (
        "Local Window Size 3000 · Ratio 0.1<br>B − A +2.0<br>A 50.0 · B 52.0"
        "<br>SE 1.41, within 1.96 SE: not distinguishable")
    assert heatmap_cell(delta, "3000", "0.2")["hover"].endswith(
        ", beyond 1.96 SE: distinguishable")
    custom = decode(delta["data"][0]["customdata"])
    assert custom.shape == (4, 5, 4)  # A, B, SE, within 1.96 SE
    np.testing.assert_allclose(custom[0, 0], [50.0, 52.0, 1.414213562, 1.0])  # within 1.96 SE
    np.testing.assert_allclose(custom[0, 1][3], 0.0)  # beyond


def lm_eval_pair():
    """Two models' accuracies (0-1) with lm-eval's standard errors, worked out by hand:

    cell          A (se)          B (se)          B - A   SE = sqrt(seA² + seB²)  1.96 SE
    3000, 0.1     0.50 (0.03)     0.60 (0.04)     +0.10   0.05                    0.098: higher
    3000, 0.2     0.50 (0.03)     0.45 (0.04)     -0.05   0.05                    0.098: within
    2000, 0.1     0.70 (0.006)    0.68 (0.008)    -0.02   0.01                    0.0196: lower
    2000, 0.2     0.70 (0.0)      0.80 (0.01)     +0.10   A's 0 is suspect: no SE
    1000, 0.1     0.30 (sd 0.06, n 4: se 0.03)  0.25 (0.04)  -0.05  0.05          0.098: within
    1000, 0.2     1.00 (0.0)      0.90 (0.03)     -0.10   none: a 0 from a finite sample with no n
                                                          is not certainty (no Wilson without n)
    500, 0.1      0.40 (no se)    0.45 (0.02)     +0.05   none
    """
    a = make_figure("la", {"A": {
        ("3000", "0.1"): {"value": 0.50, "se": 0.03}, ("3000", "0.2"): {"value": 0.50, "se": 0.03},
        ("2000", "0.1"): {"value": 0.70, "se": 0.006}, ("2000", "0.2"): {"value": 0.70, "se": 0.0},
        ("1000", "0.1"): {"value": 0.30, "sd": 0.06, "n": 4},
        ("1000", "0.2"): {"value": 1.00, "se": 0.0}, ("500", "0.1"): {"value": 0.40}}},
        metric=("acc", ""), value_range=(0, 1))
    b = make_figure("lb", {"B": {
        ("3000", "0.1"): {"value": 0.60, "se": 0.04}, ("3000", "0.2"): {"value": 0.45, "se": 0.04},
        ("2000", "0.1"): {"value": 0.68, "se": 0.008}, ("2000", "0.2"): {"value": 0.80, "se": 0.01},
        ("1000", "0.1"): {"value": 0.25, "se": 0.04},
        ("1000", "0.2"): {"value": 0.90, "se": 0.03}, ("500", "0.1"): {"value": 0.45, "se": 0.02}}},
        metric=("acc", ""), value_range=(0, 1))
    return align(side(a), side(b))


def test_significance_from_the_sources_standard_errors():
    al = lm_eval_pair()
    expected_se = np.full((4, 5), np.nan)
    expected_se[0, :2] = 0.05
    expected_se[1, 0] = 0.01
    expected_se[2, 0] = 0.05
    np.testing.assert_allclose(al.se, expected_se, equal_nan=True)
    indistinct = np.zeros((4, 5), dtype=bool)
    indistinct[0, 1] = indistinct[2, 0] = True
    np.testing.assert_array_equal(al.indistinct, indistinct)
    s = summary(al)
    assert {k: s[k] for k in ("n_common", "n_with_se", "n_indistinct", "b_sig_higher",
                              "b_sig_lower")} == {
        "n_common": 7, "n_with_se": 4, "n_indistinct": 2, "b_sig_higher": 1, "b_sig_lower": 1}
    assert sentences(al, s)[-1] == (
        "With standard errors in 4 of the 7 cells: B is significantly higher than A in 1 and "
        "significantly lower in 1 (|B − A| ≥ 1.96 SE); 2 are not distinguishable.")
    assert al.warnings == (
        "1 cell of A gives a standard error of 0 for a value strictly between 0 and 1: that "
        "cannot be right (only a value at an end of the range has no sampling error), so those "
        "standard errors are flagged and not used for significance or bands.",)
    assert [al.cell(1, 1)["se"], al.cell(1, 1)["distinguishable"]] == [None, None]
    assert al.cell(1, 0) == {"window": "2000", "ratio": "0.1", "a": 0.7, "b": 0.68,
                             "delta": -0.02, "se": 0.01, "distinguishable": True}


def test_significance_is_strictly_below_1_96_se():
    """|B - A| = 1.96 SE exactly is distinguishable; just below is not."""
    a = make_figure("ea", {"A": {("3000", "0.1"): {"value": 0.5, "se": 0.03},
                                 ("3000", "0.2"): {"value": 0.5, "se": 0.03}}},
                    value_range=(0, 1))
    b = make_figure("eb", {"B": {("3000", "0.1"): {"value": 0.5784, "se": 0.04},
                                 ("3000", "0.2"): {"value": 0.4021, "se": 0.04}}},
                    value_range=(0, 1))
    al = align(side(a), side(b))  # SE 0.05, 1.96 SE = 0.098: 0.0784 and 0.0979 are within
    assert al.indistinct[0, :2].tolist() == [True, True]
    b = make_figure("eb", {"B": {("3000", "0.1"): {"value": 0.598, "se": 0.04},
                                 ("3000", "0.2"): {"value": 0.402, "se": 0.04}}},
                    value_range=(0, 1))
    al = align(side(a), side(b))  # exactly 1.96 SE up and down
    assert al.indistinct[0, :2].tolist() == [False, False]
    assert (summary(al)["b_sig_higher"], summary(al)["b_sig_lower"]) == (1, 1)


def test_se_hovers_of_the_lm_eval_pair():
    al = lm_eval_pair()
    a_map, _, delta = compare_figures(al, "shared", True)
    assert heatmap_cell(delta, "2000", "0.1")["hover"] == (
        "Local Window Size 2000 · Ratio 0.1<br>B − A -0.02<br>A 0.7 · B 0.68"
        "<br>SE 0.010, beyond 1.96 SE: distinguishable")
    assert heatmap_cell(delta, "2000", "0.2")["hover"] == (  # A's suspect 0: no SE
        "Local Window Size 2000 · Ratio 0.2<br>B − A +0.10<br>A 0.7 · B 0.80")
    assert len(delta["layout"]["shapes"]) == 2
    assert [heatmap_cell(a_map, y, x)["hover"] for y, x in (
        ("3000", "0.1"), ("2000", "0.2"), ("1000", "0.1"), ("500", "0.1"))] == [
        "Local Window Size 3000 · Ratio 0.1<br>acc 0.5 ± 0.03 se<br>A: A",  # A writes 1 decimal
        "Local Window Size 2000 · Ratio 0.2<br>acc 0.7 ± 0.00 se (a standard error of 0 "
        "inside the metric's range cannot be right)<br>A: A",
        "Local Window Size 1000 · Ratio 0.1<br>acc 0.3 ± 0.1 sd (n=4)<br>A: A",
        "Local Window Size 500 · Ratio 0.1<br>acc 0.4<br>A: A"]
    # sd, n and se print exactly from float32 at their decimals, as do B − A's A, B and SE
    assert a_map["data"][0]["customdata"]["dtype"] == "f4"
    assert delta["data"][0]["customdata"]["dtype"] == "f4"


# --------------------------------------------------------------------------- figures

def test_a_and_b_share_one_colour_range_and_one_bar(default):
    fa, fb, fd = compare_figures(default, "shared", True)
    ta, tb = fa["data"][0], fb["data"][0]
    assert (ta["zmin"], ta["zmax"]) == (tb["zmin"], tb["zmax"]) == (49.1, 56.3)
    assert ta["colorscale"] == tb["colorscale"]
    assert ta["showscale"] is False and tb["showscale"] is True
    assert heatmap_cell(fa, "2000", "0.4")["hover"].split("<br>") == [
        "Local Window Size 2000 · Ratio 0.4", "Pass@1 52.5", "A: R1-Llama"]
    assert heatmap_cell(fb, "2000", "0.4")["text"] == "56.3"


def test_colour_modes(default):
    assert color_range(default, "figure") == (49, 57)
    assert color_range(default, "fixed") == (0.0, 100.0)
    fa, fb, _ = compare_figures(default, "fixed", True)
    assert ((fa["data"][0]["zmin"], fa["data"][0]["zmax"])
            == (fb["data"][0]["zmin"], fb["data"][0]["zmax"]) == (0, 100))


def test_difference_map_is_diverging_and_centred(default):
    _, _, fd = compare_figures(default, "shared", True)
    trace = fd["data"][0]
    assert delta_range(default) == (-4.8, 4.8)
    assert (trace["zmin"], trace["zmax"], trace["zmid"]) == (-4.8, 4.8, 0)
    # plotly.py's RdBu, resolved to stops (plotly.js's own 'RdBu' would run blue to red):
    # red where B is lower, blue where it is higher
    assert (trace["colorscale"][0], trace["colorscale"][-1]) == ([0.0, "rgb(103,0,31)"],
                                                                 [1.0, "rgb(5,48,97)"])
    assert heatmap_cell(fd, "500", "0.2")["text"] == "-0.3"
    assert heatmap_cell(fd, "3000", "0.1")["text"] == "+4.8"
    assert heatmap_cell(fd, "2000", "0.4")["hover"] == (
        "Local Window Size 2000 · Ratio 0.4<br>B − A +3.8<br>A 52.5 · B 56.3")


def test_missing_cells_are_gaps_everywhere(catalog):
    al = compare(catalog, f"{BENCH}:r1-llama-aime24", DEFAULT_B)
    fa, _, fd = compare_figures(al, "shared", True)
    assert np.isnan(decode(fa["data"][0]["z"])[0, 1])
    assert np.isnan(decode(fd["data"][0]["z"])[0, 1])
    assert heatmap_cell(fd, "3000", "0.2") == {
        "trace": 1, "z": None, "text": "",
        "hover": "Local Window Size 3000 · Ratio 0.2<br>B − A not comparable<br>A not reported"}


def test_axis_ranges_are_fixed_so_cells_have_known_places(default):
    # the linked hover's outline and the dotted outlines rely on it: cell j spans j/nx..(j+1)/nx
    for fig in compare_figures(default, "shared", True):
        xaxis, yaxis = fig["layout"]["xaxis"], fig["layout"]["yaxis"]
        assert xaxis["range"] == [-0.5, 4.5] and yaxis["range"] == [3.5, -0.5]
        assert xaxis["autorange"] is False and yaxis["autorange"] is False
        assert fig["layout"].get("shapes", []) == []  # no standard errors: nothing outlined


def test_readouts(default):
    """What the browser writes the readout from (the values are the B − A map's customdata)."""
    assert readouts(default) == {
        "x": ["0.1", "0.2", "0.3", "0.4", "0.5"], "y": ["3000", "2000", "1000", "500"],
        "x_text": ["0.1", "0.2", "0.3", "0.4", "0.5"], "y_text": ["3000", "2000", "1000", "500"],
        "x_title": "Ratio", "y_title": "Local Window Size", "a": [1, None, 1, ""],
        "b": [1, None, 1, ""], "delta": [1, None, 1], "se": 2, "minus": "B − A", "unit": "",
        "lower_better": False, "paired": None,  # no items: no paired test
        "within": "within 1.96 SE: not distinguishable",
        "beyond": "beyond 1.96 SE: distinguishable"}
    _, _, delta = compare_figures(default, "shared", True)
    spec = delta["data"][0]["customdata"]
    assert spec["dtype"] == "f4"  # every value is exact at its decimals in float32
    custom = decode(spec)
    assert custom.shape == (4, 5, 2)  # A and B: no cell has a standard error (no SE, within)
    assert [f"{v:.1f}" for v in custom[1, 3]] == ["52.5", "56.3"]  # A, B as printed
    shown = np.isfinite(default.za)
    assert [f"{v:.1f}" for v in custom[..., 0][shown]] == [f"{v:.1f}" for v in default.za[shown]]


def test_the_delta_maps_data_is_float64_where_float32_would_change_a_printed_value():
    # 12345.6789 reads 12345.6787 in float32: A's column keeps float64, and so the whole array
    a = make_figure("wa", {"A": {("3000", "0.1"): 12345.6789, ("2000", "0.1"): 1.0}},
                    value_range=(0, 1e5))
    b = make_figure("wb", {"B": {("3000", "0.1"): 12345.6788, ("2000", "0.1"): 2.0}},
                    value_range=(0, 1e5))
    al = align(side(a), side(b))
    assert al.a.decimals == 4
    _, _, delta = compare_figures(al, "shared", True)
    spec = delta["data"][0]["customdata"]
    assert spec["dtype"] == "f8"
    np.testing.assert_array_equal(decode(spec)[0, 0, :2], [12345.6789, 12345.6788])


def test_labels_are_escaped_in_maps_and_sentences():
    a = make_figure("ea", {EVIL: {(EVIL, "0.1"): 1.0}}, y=(EVIL, "2"))
    b = make_figure("eb", {"B": {(EVIL, "0.1"): 2.0}}, y=(EVIL, "2"))
    al = align(side(a), side(b))
    fa, _, fd = compare_figures(al, "shared", True)
    safe = escape(EVIL, quote=False)
    assert fa["data"][0]["y"] == [safe, "2"]
    assert heatmap_cell(fa, safe, "0.1")["hover"] == (
        f"Local Window Size {safe} · Ratio 0.1<br>Pass@1 1.0<br>A: {safe}")
    assert EVIL not in fa["layout"]["title"]["text"]
    assert EVIL not in heatmap_cell(fd, safe, "0.1")["hover"]
    assert readouts(al)["y"][0] == safe  # as the axis holds it
    assert readouts(al)["y_text"][0] == EVIL  # plain text: Dash renders it as text


# --------------------------------------------------------------------------- menus and state

def test_panel_options_list_one_figure_and_disable_incompatible(catalog):
    against = resolve(catalog, DEFAULT_A)
    assert panel_options(catalog, "dynts-llama-vs-qwen", against=against) == [
        {"label": "R1-Llama", "value": DEFAULT_A}, {"label": "R1-Qwen", "value": DEFAULT_B}]
    assert panel_options(catalog, "core-generalization", against=against) == [
        {"label": "Qwen-2.5B (no common cells with A)", "value": "core-generalization:qwen-2-5b",
         "disabled": True}]
    bench = panel_options(catalog, BENCH, against=against)
    assert [o["value"] for o in bench] == list(f"{BENCH}:{slug}"
                                               for slug in catalog.figure(BENCH).panels)
    assert not any(o.get("disabled") for o in bench)
    assert panel_options(catalog, "no-such-figure") == []


def test_panel_options_add_derived_sides_and_keep_picks_of_other_figures(catalog):
    mean = resolve(catalog, mean_ref(BENCH_KEYS))
    assert panel_options(catalog, "dynts-llama-vs-qwen", extra=[mean])[-1] == {
        "label": mean.label, "value": mean.ref}
    kept = panel_options(catalog, "dynts-llama-vs-qwen", keep=[BENCH_KEYS[0], DEFAULT_A, "x:y"])
    assert kept == [
        {"label": "R1-Llama", "value": DEFAULT_A}, {"label": "R1-Qwen", "value": DEFAULT_B},
        {"label": f"{catalog.panel(BENCH_KEYS[0]).title} — "
                  f"{catalog.figure(BENCH).spec.title}", "value": BENCH_KEYS[0]}]
    # the panel first: two panels of one figure read apart where a phone cuts the label short
    other = panel_options(catalog, "core-generalization", keep=[DEFAULT_A, DEFAULT_B])
    assert [o["label"][:20] for o in other[-2:]] == ["R1-Llama — R1-Llama ", "R1-Qwen — R1-Llama v"]


def test_first_panel_of_a_figure_shares_cells_with_the_other_side(catalog):
    qwen = resolve(catalog, DEFAULT_B)
    assert first_panel(catalog, "dynts-llama-vs-qwen") == DEFAULT_A
    assert first_panel(catalog, "dynts-llama-vs-qwen", against=qwen) == DEFAULT_A
    assert first_panel(catalog, "core-generalization", against=qwen) == \
        "core-generalization:qwen-2-5b"  # none shares a cell: the first
    assert (figure_of(DEFAULT_A), figure_of(mean_ref(BENCH_KEYS)), figure_of("nonsense")) == (
        "dynts-llama-vs-qwen", BENCH, "")


def test_uploaded_panels_are_selectable(catalog):
    upload = make_figure("upload-mine", {"Baseline": {("3000", "0.1"): 50.0}})
    session = catalog.with_figures([upload])
    assert panel_options(session, "upload-mine") == [
        {"label": "Baseline", "value": "upload-mine:baseline"}]
    assert compare(session, DEFAULT_A, "upload-mine:baseline").n_common == 1


def test_state_round_trip_and_defaults(catalog):
    assert CompareState(DEFAULT_A, DEFAULT_B).to_query((DEFAULT_A, DEFAULT_B)) == ""
    state = CompareState(mean_ref(BENCH_KEYS[:2]), DEFAULT_B, color="fixed", show_values=False)
    query = state.to_query(default_pair(catalog))
    assert query == (f"?a=mean({BENCH_KEYS[0]},{BENCH_KEYS[1]})&color=fixed&labels=off")
    back = parse_compare_state(parse_qs(query.lstrip("?")), catalog)
    assert back == state


def test_state_from_figure_and_bad_values(catalog):
    state = parse_compare_state({"figure": BENCH}, catalog)
    assert (state.a, state.b) == (BENCH_KEYS[0], BENCH_KEYS[1])
    state = parse_compare_state({"a": "nope:x", "b": "mean(a:b", "color": "weird"}, catalog)
    assert (state.a, state.b, state.color) == (DEFAULT_A, DEFAULT_B, "shared")
    assert len(state.problems) == 3
    assert state.problems[0].startswith("Panel A: There is no figure 'nope'")


def test_default_pair_falls_back_without_the_seed_figure(catalog):
    only = Catalog([catalog.figure(BENCH)])
    assert default_pair(only) == (BENCH_KEYS[0], BENCH_KEYS[1])


# --------------------------------------------------------------------------- formatting

@pytest.mark.parametrize("value, decimals, low, text", [
    (51.08, 3, 1, "51.08"), (51.0, 3, 1, "51.0"), (51.0, 2, 0, "51"), (-0.0001, 1, None, "0.0"),
    (2.125, 3, 1, "2.125"),
])
def test_format_number(value, decimals, low, text):
    assert format_number(value, decimals, low) == text


def test_format_signed():
    assert [format_signed(v, 1) for v in (3.8, -0.3, 0.0)] == ["+3.8", "-0.3", "0.0"]


def test_an_unknown_panel_names_a_few_of_many_and_counts_the_rest():
    few = make_figure("upload-few", {"A": {("3000", "0.1"): 1.0}, "B": {("3000", "0.1"): 2.0}})
    with pytest.raises(UnknownPanel) as caught:
        few.panel("zz")
    assert str(caught.value) == ("There is no panel 'upload-few:zz'. Figure 'upload-few' has "
                                 "panels: a, b.")
    many = make_figure("upload-many", {f"M{k:02d}": {("3000", "0.1"): 1.0} for k in range(20)})
    with pytest.raises(UnknownPanel) as caught:
        many.panel("zz")
    assert str(caught.value) == (
        "There is no panel 'upload-many:zz'. Figure 'upload-many' has panels: "
        + ", ".join(f"m{k:02d}" for k in range(12))
        + " and 8 more (/api/figures lists them all).")


@pytest.mark.parametrize(("metric", "value_range", "values", "ending"), [
    (("acc", ""), (0, 1), (0.25, 0.5), "by 0.25 on average."),  # a fraction: a plain difference
    (("Pass@1", ""), (0, 100), (25.0, 50.0), "by 25.0 points on average."),  # out of 100
    (("latency", "ms"), (0, 1000), (25.0, 50.0), "by 25.0 ms on average."),
    (("Accuracy", "%"), (0, 100), (25.0, 50.0), "by 25.0 percentage points on average."),
])
def test_a_difference_is_written_in_the_metrics_own_terms(metric, value_range, values, ending):
    a = make_figure("fa", {"A": {("3000", "0.1"): values[0]}}, metric=metric, value_range=value_range)
    b = make_figure("fb", {"B": {("3000", "0.1"): values[1]}}, metric=metric, value_range=value_range)
    assert sentences(align(side(a), side(b)))[0] == f"B is higher than A in 1 of 1 cell, {ending}"


def test_equal_values_are_never_distinguishable_and_a_zero_se_is_not_certainty():
    """Issue 37, statistics 5: lm-eval's a = b = 0 with se = 0 (Pythia's lambada) is not a
    difference; 5 of 5 with sd 0 over n = 5 is not exactly 1 (its Wilson interval stands in)."""
    a = make_figure("za", {"A": {("3000", "0.1"): {"value": 0, "se": 0},
                                 ("3000", "0.2"): (1.0, 0.0, 5),
                                 ("3000", "0.3"): {"value": 0.4, "se": 0.02}}},
                    value_range=(0, 1))
    b = make_figure("zb", {"B": {("3000", "0.1"): {"value": 0, "se": 0},
                                 ("3000", "0.2"): {"value": 1 / 3, "se": 0.1},
                                 ("3000", "0.3"): {"value": 0.4, "se": 0.0001}}},
                    value_range=(0, 1))
    al = align(side(a), side(b))
    # se 0 without an n: no usable standard error, so no call either way
    assert al.cell(0, 0)["distinguishable"] is None and summary(al)["b_sig_worse"] == 1
    # 5 of 5: the Wilson interval [0.566, 1] over 1.96 * 2 gives A's se 0.1108
    se_a = (1 - 0.5655) / (2 * 1.96)
    assert al.se[0, 1] == pytest.approx(math.hypot(se_a, 0.1), abs=2e-4)
    assert al.cell(0, 1)["distinguishable"] is True  # 2/3 apart is still far past 1.96 SE
    assert al.cell(0, 2)["delta"] == 0 and al.cell(0, 2)["distinguishable"] is False


def test_percent_differences_are_percentage_points_everywhere(catalog):
    """Issue 37 (a new user, 10): with pct=1, Compare's hover read 'B − A +3.8%' and 'SE 1.2%'
    beside 'paired ... +3.3 points'. Values of fractions written as percent stay '%'; their
    differences and the SE of those are percentage points, in the hover, the cells, the colour
    bar and the readout, and the map's numbers are those points."""
    from dataclasses import replace

    from evalmaps.analysis.compare import compare
    from evalmaps.figures.compare import delta_figure

    al = compare(catalog, "pythia-zero-shot:arc-challenge-acc", "pythia-zero-shot:arc-easy-acc")
    al = replace(al, a=al.a.as_percent(), b=al.b.as_percent())  # pct=1, as the page writes it
    assert al.se is not None and np.isfinite(al.se).any()
    fig = delta_figure(al)
    hovers = [t["hovertemplate"] for t in fig["data"] if t.get("hovertemplate")]
    assert hovers
    for hover in hovers:
        delta = re.search(r"B − A (%\{[^}]*\}[^<]*)", hover)
        assert delta and delta.group(1).endswith(" points") and "%}" not in delta.group(1), hover
        assert re.search(r"A %\{customdata\[0\]:\.\d+%\}", hover)  # values stay percent
        se = re.search(r"SE (%\{[^}]*\}[^,<]*)", hover)
        assert se is None or (se.group(1).endswith(" points") and "%}" not in se.group(1))
    main = fig["data"][0]
    assert main["meta"]["texttemplate"] == "%{z:+.2f}"  # points, no unit in a cell
    assert "points" in main["colorbar"]["title"]["text"]
    assert "tickformat" not in main["colorbar"]  # no '%' ticks on a difference
    got = decode(main["z"])  # (cells drawn by a trace of their own are blank here)
    present = np.isfinite(got)
    assert present.sum() > 10
    np.testing.assert_allclose(got[present], al.delta[present] * 100, atol=1e-4)
    assert readouts(al)["unit"] == " points"
