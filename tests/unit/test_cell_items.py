"""evalmaps.analysis.items: one cell's items on A and B, checked whole against the fixture's
scores worked out by hand (tests/cell_items_fixture.py), pass@k against math.comb, and the lists
against a direct enumeration (hypothesis)."""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmaps.analysis.compare import resolve_pair
from evalmaps.analysis.items import WHICH, ItemsError, cell_items
from evalmaps.catalog.items import ItemRecords
from evalmaps.core.figure import Catalog
from tests.cell_items_fixture import EVIL_RESPONSE, items_figure

A, B = "itemdemo:m7", "itemdemo:m13"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    return Catalog([items_figure(tmp_path_factory.mktemp("items"))])


def listing(catalog, y, k=1, a=A, b=B, **grid):
    sa, sb = resolve_pair(catalog, a, b, **grid)
    return cell_items(catalog, sa, sb, y, "test", k)


def ids(cell, which):
    return [r["item"] for r in cell.rows(which, texts=False)]


def test_math_lists_by_hand(catalog):
    cell = listing(catalog, "math")
    assert {w: ids(cell, w) for w in WHICH} == {
        "a_only": ["q4"], "b_only": ["q2", "q3"], "both": ["q1"], "neither": ["q5", "q6"],
        "all": ["q1", "q2", "q3", "q4", "q5", "q6"]}
    assert cell.counts == {"a_only": 1, "b_only": 2, "both": 1, "neither": 2, "all": 6}
    assert (cell.only_in_a, cell.only_in_b, cell.why) == (1, 0, "")


def test_rows_carry_scores_and_texts_as_given(catalog):
    rows = listing(catalog, "math").rows("b_only")
    question = "x" * 400
    assert rows == [
        {"item": "q2", "a": 0.0, "b": 1.0, "prompt": f"Question q2? {question}",
         "target": "target q2", "a_response": "m7 says q2", "b_response": EVIL_RESPONSE},
        {"item": "q3", "a": 0.0, "b": 1.0, "prompt": f"Question q3? {question}",
         "target": "target q3", "a_response": "m7 says q3", "b_response": "m13 says q3"}]


def test_labels_of_a_dimension_give_the_same_items(catalog):
    cell = listing(catalog, "math", a="itemdemo:model=m7", b="itemdemo:model=m13")
    assert cell.counts == {"a_only": 1, "b_only": 2, "both": 1, "neither": 2, "all": 6}
    swapped = listing(catalog, "math", a=B, b=A)
    assert (ids(swapped, "a_only"), ids(swapped, "b_only")) == (["q2", "q3"], ["q4"])


def test_several_samples_mean_then_pass_at_k(catalog):
    one = listing(catalog, "law").rows("all", texts=False)
    assert one == [
        {"item": "l1", "a": 0.25, "b": 0.5, "a_samples": 4, "b_samples": 4},
        {"item": "l2", "a": 0.0, "b": 1.0, "a_samples": 4, "b_samples": 4},
        {"item": "l3", "a": 1.0, "b": 0.25, "a_samples": 4, "b_samples": 4}]
    two = listing(catalog, "law", k=2)

    def p2(c):
        return 1 - comb(4 - c, 2) / comb(4, 2)
    got = [v for r in two.rows("all", texts=False) for v in (r["a"], r["b"])]
    assert got == pytest.approx([p2(1), p2(2), p2(0), p2(4), p2(4), p2(1)], abs=1e-12)
    # right = a score of 1: every sample right (k = 1), a certain pass (k = 2)
    assert (ids(two, "a_only"), ids(two, "b_only"), ids(two, "neither")) == (["l3"], ["l2"], ["l1"])


def test_partial_credit_is_right_only_at_full_credit_as_the_paired_test_counts(catalog):
    # chem: A 0.25, 0.75; B 0.5, 1: only B's c2 has full credit (issue 37, statistics 7: right
    # was a score of 0.5 or more here and a score of 1 in /api/compare)
    cell = listing(catalog, "chem")
    assert cell.counts == {"a_only": 0, "b_only": 1, "both": 0, "neither": 1, "all": 2}
    from evalmaps.analysis.paired import paired_values
    r = paired_values(cell.a, cell.b)
    assert (r.a_only, r.b_only) == (cell.counts["a_only"], cell.counts["b_only"])


def test_a_loss_has_no_right_or_wrong():
    from evalmaps.analysis.paired import graded, paired_values
    a, b = np.array([1.0, 0.0, 0.5]), np.array([0.0, 1.0, 1.0])
    assert graded(a, b) and not graded(a, b, higher_is_better=False)
    r = paired_values(a, b, higher_is_better=False)
    assert (r.a_only, r.b_only) == (None, None)


def test_refusals_say_what_to_do(catalog):
    with pytest.raises(ItemsError, match=r"at least 5 samples .* has 4\. Use k=4 or less"):
        listing(catalog, "law", k=5)
    with pytest.raises(ItemsError, match="scores of 0 or 1"):
        listing(catalog, "chem", k=2)
    with pytest.raises(ItemsError, match="'physics' is not a row"):
        listing(catalog, "physics")
    with pytest.raises(ItemsError, match="Use which=a_only, b_only"):
        listing(catalog, "math").rows("some")


def test_search_and_pages(catalog):
    cell = listing(catalog, "math")
    assert [r["item"] for r in cell.rows("all", search="Q5", texts=False)] == ["q5"]
    assert [r["item"] for r in cell.rows("all", offset=2, limit=3, texts=False)] == ["q3", "q4", "q5"]


def test_a_mean_has_no_items_and_says_why(catalog):
    cell = listing(catalog, "math", a="mean(itemdemo:m7,itemdemo:m13)")
    assert (cell.counts["all"], cell.why) == (
        0, "A: it is a mean of panels, which has no items of its own")


def test_a_figure_without_records_says_so(tmp_path):
    figure = items_figure(tmp_path)
    figure.items = None
    cell = listing(Catalog([figure]), "math")
    assert cell.why == ("A: figure 'itemdemo' has no per-item records; B: figure 'itemdemo' has "
                        "no per-item records")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=30))
def test_lists_partition_the_items_as_direct_enumeration(tmp_path_factory, pairs):
    rows = [(m, "math", "test", f"i{n:02d}", 0, s) for n, (a, b) in enumerate(pairs)
            for m, s in (("m7", a), ("m13", b))]
    base = items_figure(tmp_path_factory.mktemp("base"))
    base.items = ItemRecords.write(tmp_path_factory.mktemp("p"), base.spec.dim_names,
                                   pd.DataFrame(rows, columns=["model", "category", "split",
                                                               "item", "sample", "score"]))
    cell = listing(Catalog([base]), "math")
    want = {"a_only": [], "b_only": [], "both": [], "neither": []}
    for n, (a, b) in enumerate(pairs):
        key = "both" if a and b else "a_only" if a else "b_only" if b else "neither"
        want[key].append(f"i{n:02d}")
    assert {w: ids(cell, w) for w in want} == want
    assert np.array_equal(cell.a, [a for a, _ in pairs]) and np.array_equal(cell.b, [b for _, b in pairs])
    swapped = listing(Catalog([base]), "math", a=B, b=A)  # B as A: the one-sided lists trade
    assert {w: ids(swapped, w) for w in want} == {**want, "a_only": want["b_only"],
                                                  "b_only": want["a_only"]}


# --------------------------------------------------------------------------- pass@k figures


def test_figure_at_k_is_the_mean_of_each_items_pass_at_k(tmp_path):
    from evalmaps.catalog.items import figure_at, max_k

    figure = items_figure(tmp_path, sampled=True)
    assert max_k(figure) == 4 and figure_at(figure, 1) is figure

    def p(c, k):
        return 1 - comb(4 - c, k) / comb(4, k)
    at = figure_at(figure, 3)
    got = {(r.model, r.category): r.value for r in at.cells.itertuples()}
    m7, m13 = (p(1, 3) + 0 + 1) / 3, (p(2, 3) + 1 + p(1, 3)) / 3
    assert got == pytest.approx({(m, c): v for m, v in (("m7", m7), ("m13", m13))
                                 for c in ("math", "law", "chem")}, abs=1e-12)
    assert at.panels["m7"].se is None and at.items is figure.items
    assert max_k(items_figure(tmp_path / "partial")) == 1  # partial credit: no pass@k


def test_k_in_the_url_is_read_against_the_items(tmp_path):
    from evalmaps.views.state import parse_state

    catalog = Catalog([items_figure(tmp_path, sampled=True)])
    state = parse_state({"figure": "itemdemo", "k": "3"}, catalog)
    assert (state.k, state.problems, state.to_query()) == (3, (), "?figure=itemdemo&k=3")
    state = parse_state({"figure": "itemdemo", "k": "5"}, catalog)
    assert (state.k, state.problems) == (1, (
        "pass@5 needs 5 samples of every item with 0/1 scores, and this figure's items have 4 "
        "at the fewest; using k=1.",))
    assert parse_state({"figure": "itemdemo", "k": "x"}, catalog).problems == (
        "k=x is not a whole number above 0; using k=1.",)


def test_count_grid_gives_items_and_samples_per_cell(tmp_path):
    from evalmaps.analysis.items import count_grid

    figure = items_figure(tmp_path)
    grid = count_grid(figure, {"model": "m7"}, ("math", "law", "chem", "none"), ("test",))
    assert np.array_equal(grid[:3, 0], [[7, 1], [3, 4], [2, 1]]) and np.isnan(grid[3]).all()
