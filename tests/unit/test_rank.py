"""evalmaps.analysis.rank and the Rank view against independent computations: McNemar pairs
against scipy's exact binomial test, Benjamini-Hochberg against a hand-worked table and a direct
double loop over every pair of every cell, the marginal rank interval against the direct
enumeration of every resample of a tiny cell (3 models x 4 items: 4^4 resamples) and a large
bootstrap, the simultaneous rank sets against a plain loop of the csranks procedure; and the
properties: permuting the models permutes the answer, swapping a pair negates its difference
and keeps p, adding a model changes no pair's raw p, a duplicated model is tied with itself at
p = 1."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmaps.analysis import rank
from evalmaps.analysis.paired import MIN_ITEMS, bh_adjust
from evalmaps.catalog.items import ItemRecords, ItemScores
from evalmaps.catalog.load import parse_spec, validate_cells
from evalmaps.core.figure import Catalog, Figure
from evalmaps.core.text import natural_key
from evalmaps.views import RankView
from evalmaps.views.models import BadQuery
from tests.items_fixture import item_scores, items_figure

stats = pytest.importorskip("scipy.stats")


def scores_of(values, ids=None) -> ItemScores:
    values = np.asarray(values, dtype=np.float64)
    ids = np.array(ids if ids is not None else [f"i{j:03d}" for j in range(len(values))],
                   dtype=object)
    return ItemScores(ids, np.ones(len(values), dtype=np.int64), values,
                      bool(np.isin(values, (0, 1)).all()))


def one_cell(models, matrix, higher=True, seed=7, resamples=rank.RESAMPLES, k=1):
    """A cell of ``models`` (one row of ``matrix``, 0/1 item scores, each), ranked and
    adjusted on its own."""
    items = {m: scores_of(row) for m, row in zip(models, matrix)}
    means = np.array([np.mean(row) for row in matrix], dtype=np.float64)
    extras, pairs, n_common, _ = rank.rank_items_cell(list(models), means, items, k, higher, seed,
                                                      resamples)
    cell = rank.cell_ranking({"task": "t"}, list(models), means, extras, pairs, n_common, higher)
    return rank.with_adjusted([cell])[0]


# --------------------------------------------------------------------------- ranks

def test_competition_ranks_share_the_smallest_rank_and_follow_the_direction():
    assert rank.competition_ranks([0.5, 0.7, 0.7, 0.1]).tolist() == [3, 1, 1, 4]
    assert rank.competition_ranks([0.5, 0.7, 0.7, 0.1], False).tolist() == [2, 3, 3, 1]
    draws = np.array([[1.0, 2.0, 3.0], [3.0, 3.0, 1.0]])
    assert rank.competition_ranks(draws).tolist() == [[3, 2, 1], [1, 1, 3]]


def _percentile_rank(ranks, q):
    """The smallest rank whose share of resamples at or below it reaches q."""
    ranks = sorted(ranks)
    for r in ranks:
        if sum(x <= r for x in ranks) / len(ranks) >= q - 1e-12:
            return r
    return ranks[-1]


TINY = np.array([[1, 0, 1, 1],    # mean 0.75
                 [1, 1, 0, 0],    # mean 0.5
                 [0, 1, 1, 0]])   # mean 0.5


def test_rank_intervals_by_direct_enumeration_of_every_resample():
    n = TINY.shape[1]
    every = np.array(list(itertools.product(range(n), repeat=n)))  # 4^4 resamples, equally likely
    counts = rank.resample_counts(n, 0, indices=every)
    got = rank.rank_intervals(rank.bootstrap_means(TINY, counts))
    # independently: each resample's means and competition ranks by a plain loop
    per_model = [[] for _ in TINY]
    for pick in every:
        means = [sum(row[i] for i in pick) / n for row in TINY]
        for j, m in enumerate(means):
            per_model[j].append(1 + sum(other > m for other in means))
    expected = [[_percentile_rank(r, 0.025), _percentile_rank(r, 0.975)] for r in per_model]
    assert got.tolist() == expected
    # a large bootstrap's rank distribution is within Monte Carlo error of the exact one
    draws = rank.bootstrap_means(TINY, rank.resample_counts(n, 123, resamples=40_000))
    boot = rank.competition_ranks(draws)
    for j in range(3):
        for r in (1, 2, 3):
            exact = np.mean(np.array(per_model[j]) == r)
            assert abs(np.mean(boot[:, j] == r) - exact) < 0.015


def csranks_loop(theta, z, sds, level=0.95, stepdown=True):
    """The csranks procedure (simul, two-sided; stepdown or one step) written as loops over
    pairs."""
    m = len(theta)
    pairs = [(j, k) for j in range(m) for k in range(m) if j != k]
    active = set(pairs)
    lower = {}
    while active:
        stat = []
        for b in range(z.shape[0]):
            stat.append(max(((z[b, j] - z[b, k]) / sds[j, k]) if sds[j, k] > 0 else 0.0
                            for j, k in active))
        c = float(np.quantile(stat, level))
        for j, k in active:
            lower[j, k] = theta[j] - theta[k] - sds[j, k] * c
        decided = {p for p in active if lower[p] > 0}
        if not decided or not stepdown:
            break
        active -= decided
    surely = {p for p, v in lower.items() if v > 0}
    return [[1 + sum((k, j) in surely for k in range(m)),
             m - sum((j, k) in surely for k in range(m))] for j in range(m)]


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 6), st.integers(0, 2**32 - 1))
def test_rank_sets_follow_the_csranks_procedure(m, seed):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, m)
    se = rng.uniform(0.1, 1.0, m)
    z = rng.standard_normal((300, m)) * se
    sds = rank.difference_sds(np.diag(se ** 2))
    got = rank.rank_sets(theta, z, sds)
    assert got.tolist() == csranks_loop(theta, z, sds)
    # the estimated rank is always in its set; lower is better mirrors higher is better
    ranks = rank.competition_ranks(theta)
    assert ((got[:, 0] <= ranks) & (ranks <= got[:, 1])).all()
    assert rank.rank_sets(-theta, -z, sds, higher_is_better=False).tolist() == got.tolist()


def test_the_stepdown_decides_pairs_the_first_step_leaves_open():
    # 0 and 3.4 apart by 2.40 standard errors: under the first step's critical value (about
    # 2.53, over all 12 ordered pairs) but over the one left when the far pairs are decided
    theta = np.array([0.0, 3.4, 30.0, 60.0])
    z = np.random.default_rng(1).standard_normal((2000, 4))
    sds = rank.difference_sds(np.eye(4))
    assert csranks_loop(theta, z, sds, stepdown=False) == [[3, 4], [3, 4], [2, 2], [1, 1]]
    assert rank.rank_sets(theta, z, sds).tolist() == csranks_loop(theta, z, sds) == [
        [4, 4], [3, 3], [2, 2], [1, 1]]


def test_rank_sets_are_single_ranks_when_the_gaps_are_huge_and_everything_when_none():
    theta = np.array([3.0, 2.0, 1.0])
    z = np.random.default_rng(0).standard_normal((500, 3)) * 0.01
    sds = rank.difference_sds(np.diag(np.full(3, 0.01 ** 2)))
    assert rank.rank_sets(theta, z, sds).tolist() == [[1, 1], [2, 2], [3, 3]]
    assert rank.rank_sets(np.zeros(3), z, sds).tolist() == [[1, 3]] * 3


def test_a_simultaneous_set_is_no_narrower_than_the_marginal_interval_in_a_real_cell():
    rng = np.random.default_rng(3)
    matrix = (rng.random((5, 300)) < np.array([[0.5], [0.52], [0.6], [0.62], [0.7]])).astype(float)
    cell = one_cell([f"m{j}" for j in range(5)], matrix)
    for m in cell.models:
        assert m.rank_set[0] <= m.rank <= m.rank_set[1]
        assert m.rank_set[1] - m.rank_set[0] >= 0


# --------------------------------------------------------------------------- pairs and BH

def test_each_mcnemar_pair_is_scipys_exact_binomial_test():
    rng = np.random.default_rng(11)
    matrix = (rng.random((4, 80)) < np.array([[0.4], [0.5], [0.55], [0.7]])).astype(float)
    cell = one_cell(["a", "b", "c", "d"], matrix)
    index = {"a": 0, "b": 1, "c": 2, "d": 3}
    assert len(cell.pairs) == 6
    for p in cell.pairs:
        x, y = matrix[index[p.a]], matrix[index[p.b]]
        a_only, b_only = int(((x == 1) & (y == 0)).sum()), int(((y == 1) & (x == 0)).sum())
        expected = stats.binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue \
            if a_only + b_only else 1.0
        assert p.test == "mcnemar" and (p.a_only, p.b_only) == (a_only, b_only)
        assert p.p == pytest.approx(expected, rel=1e-9)
        assert p.diff == pytest.approx(y.mean() - x.mean(), abs=1e-12)
        assert p.ci_low <= p.diff <= p.ci_high


def test_benjamini_hochberg_hand_worked_table():
    # p 0.01, 0.04, 0.03, 0.20 of four pairs in two cells: sorted 0.01, 0.03, 0.04, 0.20;
    # p * 4 / rank: 0.04, 0.06, 0.0533, 0.20; the running minimum from the top:
    # 0.04, 0.0533, 0.0533, 0.20
    def pair(a, b, p):
        return rank.PairTest(a, b, 10, 0.5, 0.5, 0.0, None, None, p, p, "mcnemar", 0, 0)

    def model(name, mean):
        return rank.ModelRank(name, 10, mean, None, 1, None, None)

    cells = [rank.CellRanking({"t": "1"}, (model("x", 0.6), model("y", 0.5)),
                              (pair("x", "y", 0.01), ), 10),
             rank.CellRanking({"t": "2"}, (model("x", 0.6), model("y", 0.5), model("z", 0.4)),
                              (pair("x", "y", 0.04), pair("x", "z", 0.03),
                               pair("y", "z", 0.20)), 10)]
    out = rank.with_adjusted(cells)
    got = [p.p_adjusted for c in out for p in c.pairs]
    assert got == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.20])
    # best or tied: x is best in both; y is distinguishable in cell 1 (0.04 < 0.05) but not in 2
    assert [m.best_or_tied for m in out[0].models] == [True, False]
    assert [m.best for m in out[0].models] == [True, False]
    assert [m.best_or_tied for m in out[1].models] == [True, True, True]
    assert not any(m.best for m in out[1].models)


# --------------------------------------------------------------------------- properties

matrices = st.integers(3, 5).flatmap(lambda m: st.lists(
    st.lists(st.sampled_from([0.0, 1.0]), min_size=12, max_size=12), min_size=m, max_size=m))


def _by_model(cell):
    return {m.model: m for m in cell.models}


def _pairs(cell):
    return {(p.a, p.b): p for p in cell.pairs}


@settings(max_examples=30, deadline=None)
@given(matrices, st.randoms(use_true_random=False))
def test_permuting_the_models_permutes_the_answer(matrix, rnd):
    names = [f"m{j}" for j in range(len(matrix))]
    perm = names[:]
    rnd.shuffle(perm)
    rename = dict(zip(names, perm))  # the same data under names in another natural order
    first = one_cell(names, matrix)
    order = sorted(names, key=lambda n: natural_key(rename[n]))  # as the figure orders them
    second = one_cell([rename[n] for n in order], [matrix[names.index(n)] for n in order])
    a, b = _by_model(first), _by_model(second)
    for n in names:
        x, y = a[n], b[rename[n]]
        assert (x.mean, x.ci, x.rank, x.rank_ci, x.rank_set, x.best_or_tied, x.best) == \
            (y.mean, y.ci, y.rank, y.rank_ci, y.rank_set, y.best_or_tied, y.best)
    swapped = _pairs(second)
    for (u, v), p in _pairs(first).items():
        q = swapped.get((rename[u], rename[v]))
        if q is None:  # the pair's order flipped: B - A negated, the same p
            q = swapped[rename[v], rename[u]]
            assert (q.diff, q.ci_low, q.ci_high) == (-p.diff + 0.0, -p.ci_high + 0.0,
                                                     -p.ci_low + 0.0)
            assert (q.a_only, q.b_only) == (p.b_only, p.a_only)
        else:
            assert (q.diff, q.ci_low, q.ci_high, q.a_only, q.b_only) == \
                (p.diff, p.ci_low, p.ci_high, p.a_only, p.b_only)
        assert (q.p, q.p_adjusted, q.test, q.n) == (p.p, p.p_adjusted, p.test, p.n)


@settings(max_examples=30, deadline=None)
@given(matrices, st.lists(st.sampled_from([0.0, 1.0]), min_size=12, max_size=12))
def test_adding_a_model_changes_no_pairs_raw_p(matrix, extra):
    names = [f"m{j}" for j in range(len(matrix))]
    before = _pairs(one_cell(names, matrix))
    after = _pairs(one_cell([*names, "zz"], [*matrix, extra]))
    for key, p in before.items():
        q = after[key]
        assert (q.p, q.diff, q.ci_low, q.ci_high, q.test) == (p.p, p.diff, p.ci_low, p.ci_high,
                                                             p.test)


@settings(max_examples=30, deadline=None)
@given(matrices)
def test_a_duplicated_model_is_tied_with_itself_at_p_1(matrix):
    names = [f"m{j}" for j in range(len(matrix))]
    cell = one_cell([*names, "m0-copy"], [*matrix, matrix[0]])
    p = _pairs(cell)["m0", "m0-copy"]
    assert (p.p, p.diff, p.a_only, p.b_only) == (1.0, 0.0, 0, 0)
    models = _by_model(cell)
    assert models["m0"].rank == models["m0-copy"].rank
    assert models["m0"].rank_set == models["m0-copy"].rank_set
    assert models["m0"].best_or_tied == models["m0-copy"].best_or_tied
    assert not models["m0"].best and not models["m0-copy"].best


def test_fewer_common_items_than_a_test_needs_gives_no_rank_intervals():
    cell = one_cell(["a", "b", "c"], [[1, 0, 1], [0, 0, 1], [1, 1, 1]])
    assert all(m.rank_ci is None and m.rank_set is None for m in cell.models)
    assert all(p.test == "none" and p.p is None for p in cell.pairs)
    assert all(m.best_or_tied for m in cell.models)  # untested: not distinguishable
    assert MIN_ITEMS > 3


# --------------------------------------------------------------------------- a figure and the view

MODELS = ("m-70m", "m-1b", "m-160m", "m-12b")


@pytest.fixture(scope="module")
def figure(tmp_path_factory):
    chance = {"m-70m": 0.4, "m-160m": 0.45, "m-1b": 0.6, "m-12b": 0.8}
    scores = item_scores(models=MODELS, n_items=60, chance=chance, seed=5)
    return items_figure(tmp_path_factory.mktemp("rank"), "rankdemo", scores, models=MODELS)


def test_models_are_in_natural_order_and_each_cell_is_every_other_label(figure):
    r = rank.rank_figure(figure)
    assert r.by == "model" and r.models == ("m-70m", "m-160m", "m-1b", "m-12b")
    assert [c.labels for c in r.cells] == [{"level": y, "task": x} for y in ("easy", "hard")
                                           for x in ("t1", "t2", "t3")]
    for cell in r.cells:
        assert [m.model for m in cell.models] == list(r.models)
        values = {m.model: m.mean for m in cell.models}
        for model, v in values.items():  # the figure's own value, exactly
            assert v == figure.value(model=model, **cell.labels)


def test_p_adjusted_is_bh_over_every_pair_of_every_cell(figure):
    r = rank.rank_figure(figure)
    raw = [p.p for c in r.cells for p in c.pairs]
    assert len(raw) == 6 * 6
    # a direct double loop: for the i-th smallest, min over j >= i of p_(j) * m / j
    m = len(raw)
    order = sorted(range(m), key=lambda i: raw[i])
    expected = [0.0] * m
    for pos, i in enumerate(order):
        expected[i] = min(1.0, min(raw[order[j]] * m / (j + 1) for j in range(pos, m)))
    got = [p.p_adjusted for c in r.cells for p in c.pairs]
    assert got == pytest.approx(expected, rel=1e-12)
    assert got == pytest.approx(bh_adjust(raw).tolist(), rel=1e-12)


def test_best_or_tied_and_the_summary_sentences(figure):
    r = rank.rank_figure(figure)
    for cell in r.cells:
        best = max(cell.models, key=lambda m: m.mean)
        for m in cell.models:
            pair = next((p for p in cell.pairs if {p.a, p.b} == {m.model, best.model}), None)
            tied = m is best or pair.p_adjusted is None or pair.p_adjusted >= 0.05
            assert m.best_or_tied == tied
    summary = {s["model"]: s for s in r.to_dict()["summary"]}
    for model in MODELS:
        s = summary[model]
        tied = sum(m.best_or_tied for c in r.cells for m in c.models if m.model == model)
        alone = sum(m.best for c in r.cells for m in c.models if m.model == model)
        assert (s["best_or_tied"], s["best"], s["cells"]) == (tied, alone, 6)
        assert s["sentence"] == (f"{model} is best or tied in {tied} of 6 cells, alone best in "
                                 f"{alone}.")


def test_the_same_query_gives_the_same_numbers(figure):
    assert rank.rank_figure(figure).to_dict() == rank.rank_figure(figure).to_dict()


def _figure_without_items(fid, with_se: bool, higher=True):
    rows = []
    for m, base in (("a-7b", 0.50), ("b-13b", 0.55), ("c-70b", 0.70)):
        for t, shift in (("t1", 0.0), ("t2", 0.05)):
            rows.append({"model": m, "task": t, "metric": "acc", "value": str(base + shift),
                         **({"se": "0.01"} if with_se else {})})
    frame = pd.DataFrame(rows)
    spec = parse_spec({
        "id": fid, "file": f"{fid}.csv", "title": fid,
        "metric": {"name": "acc", "unit": "", "range": [0, 1], "higher_is_better": higher},
        "x": "metric", "y": "task", "facets": ["model"], "provenance": "uploaded",
        "dims": {"model": {"title": "Model", "labels": ["c-70b", "a-7b", "b-13b"]},
                 "task": {"title": "Task", "labels": ["t1", "t2"]},
                 "metric": {"title": "Metric", "labels": ["acc"]}},
    }, where="test")
    tidy, decimals = validate_cells(frame.astype(str), spec, file=f"{fid}.csv")
    return Figure(spec, tidy, decimals)


def test_without_items_standard_errors_give_unpaired_z_tests():
    r = rank.rank_figure(_figure_without_items("sefig", True))
    d = r.to_dict()
    assert d["basis"] == "standard errors" and r.models == ("a-7b", "b-13b", "c-70b")
    for cell in r.cells:
        for p in cell.pairs:
            z = abs(p.b_mean - p.a_mean) / math.hypot(0.01, 0.01)
            assert p.test == "unpaired-z" and p.n is None
            assert p.p == pytest.approx(2 * stats.norm.sf(z), rel=1e-9)
        assert [m.rank for m in cell.models] == [3, 2, 1]
        assert all(m.rank_set is not None for m in cell.models)
    assert any("unpaired" in n for n in d["notes"])


def test_without_items_or_standard_errors_no_test_is_made():
    r = rank.rank_figure(_figure_without_items("plain", False, higher=False))
    d = r.to_dict()
    assert d["basis"] == "means" and d["rank_interval"] is None
    for cell in d["cells"]:
        assert all(p["test"] == "none" and p["p"] is None for p in cell["pairs"])
        assert [m["rank"] for m in cell["models"]] == [1, 2, 3]  # lower is better
        assert all(m["best_or_tied"] and m["rank_ci"] is None for m in cell["models"])
    assert any("no test can be made" in n for n in d["notes"])


@pytest.mark.parametrize("query, words", [
    ({"by": ["nope"]}, "'nope' is not a dimension"),
    ({"by": ["model", "task"]}, "Give one dimension"),
    ({"model": ["nope"]}, "'nope' is not a label"),
    ({"model": ["m-1b"]}, "two or more labels"),
    ({"alpha": ["0.1"]}, "alpha is fixed"),
    ({"rows": ["easy"]}, "'rows' is none of these"),
    ({"k": ["0"]}, "k='0'"),
    ({"k": ["3"]}, "pass@3"),
    ({"format": ["xml"]}, "Unknown format"),
])
def test_bad_queries_say_what_to_give(figure, query, words):
    with pytest.raises(BadQuery if "k" not in query else Exception) as info:
        RankView.from_query(Catalog([figure]), {"figure": [figure.id], **query})
    assert words in str(info.value)
    assert len(str(info.value)) < 300


def test_the_view_answers_the_issues_shape_and_its_csvs_the_same_numbers(figure):
    view = RankView.from_query(Catalog([figure]), {"figure": [figure.id], "level": ["hard"]})
    d = view.to_dict()
    assert {"figure", "by", "alpha", "cells", "summary", "rank_interval", "rank_set", "notes",
            "warnings", "url"} <= set(d)
    assert (d["figure"], d["by"], d["alpha"]) == (figure.id, "model", 0.05)
    cell = d["cells"][0]
    assert set(cell["labels"]) == {"level", "task"} and cell["labels"]["level"] == "hard"
    assert {"model", "n", "mean", "ci", "rank", "rank_ci", "rank_set", "best_or_tied"} \
        <= set(cell["models"][0])
    assert {"a", "b", "n", "diff", "ci_low", "ci_high", "p", "p_adjusted", "test", "a_only",
            "b_only"} <= set(cell["pairs"][0])
    assert {"model", "best_or_tied", "best"} <= set(d["summary"][0])
    rows = view.models_csv().splitlines()
    assert len(rows) == 1 + 3 * 4
    first = rows[1].split(",")
    m0 = cell["models"][0]
    assert first[:4] == ["hard", "t1", m0["model"], str(m0["n"])]
    assert float(first[4]) == m0["mean"] and float(first[5]) == m0["se"]
    assert int(first[8]) == m0["rank"]
    pairs = view.pairs_csv().splitlines()
    assert len(pairs) == 1 + 3 * 6
    p0 = cell["pairs"][0]
    row = dict(zip(pairs[0].split(","), pairs[1].split(",")))
    assert float(row["p"]) == p0["p"] and float(row["p_adjusted"]) == p0["p_adjusted"]
    assert view.url.startswith("/rank?") and "level=hard" in view.url


def test_an_answer_over_its_bound_of_pairs_says_how_to_narrow_it(figure):
    with pytest.raises(rank.TooManyPairs) as info:
        rank.rank_figure(figure, max_pairs=35)
    assert (info.value.pairs, info.value.cells) == (36, 6)
    assert len(rank.rank_figure(figure, max_pairs=36).cells) == 6


def test_pass_at_k_ranks_each_items_unbiased_pass_at_k_and_tests_pairs_as_compare(tmp_path):
    from evalmaps.analysis.paired import paired_cell
    from evalmaps.catalog.items import figure_at

    scores = item_scores(models=("a-1b", "b-7b", "c-13b"), n_items=12, samples=4,
                         chance={"a-1b": 0.3, "b-7b": 0.5, "c-13b": 0.7}, seed=9)
    fig = items_figure(tmp_path, "passk", scores, models=("a-1b", "b-7b", "c-13b"))
    view = RankView.from_query(Catalog([fig]), {"figure": ["passk"], "k": ["2"]})
    at = figure_at(fig, 2)
    cells = fig.items.cells({}, ("model", "level", "task"))
    d = view.to_dict()
    assert d["k"] == 2
    for cell in d["cells"]:
        labels = cell["labels"]
        for m in cell["models"]:
            assert m["mean"] == at.value(model=m["model"], **labels)
        for p in cell["pairs"]:
            want = paired_cell(cells[p["a"], labels["level"], labels["task"]],
                               cells[p["b"], labels["level"], labels["task"]], 2)
            assert (p["p"], p["diff"], p["test"]) == (want.p, want.diff, want.test)
            assert p["test"].startswith("sign-flip")


def test_every_builtin_figure_and_dimension_answers_or_says_why_not(catalog):
    import json

    from evalmaps.core.errors import EvalmapsError

    answered = 0
    for fig in catalog:
        for by in [None, *fig.spec.dim_names]:
            query = {"figure": [fig.id], **({"by": [by]} if by else {})}
            try:
                body = RankView.from_query(catalog, query).to_dict()
            except EvalmapsError as exc:  # a 400 with a sentence, never anything else
                assert str(exc).endswith(".") and len(str(exc)) < 400
                continue
            json.dumps(body, allow_nan=False)  # no NaN or infinity in the JSON
            answered += 1
            for cell in body["cells"]:
                assert all(m["best_or_tied"] for m in cell["models"] if m["rank"] == 1)
    assert answered > 10


@settings(max_examples=200, deadline=None)
@given(st.integers(6, 4000).flatmap(lambda n: st.tuples(
    st.integers(0, n).flatmap(lambda a: st.tuples(st.just(a), st.integers(0, n - a))),
    st.just(n))))
def test_the_vectorised_mcnemar_intervals_are_the_scalar_ones(case):
    from evalmaps.analysis.paired import mcnemar_interval, mcnemar_intervals

    (a, b), n = case
    lo, hi = mcnemar_intervals(np.array([a, b, 0]), np.array([b, a, 0]), np.array([n, n, n]))
    assert (lo[0], hi[0]) == mcnemar_interval(a, b, n)
    assert (lo[1], hi[1]) == mcnemar_interval(b, a, n)
    assert (lo[2], hi[2]) == mcnemar_interval(0, 0, n)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(6, 60), st.booleans(), st.integers(0, 2**32 - 1))
def test_all_pairs_at_once_are_each_pair_as_paired_values_tests_it(m, n, higher, seed):
    from dataclasses import asdict

    rng = np.random.default_rng(seed)
    matrix = (rng.random((m, n)) < rng.uniform(0.1, 0.9, (m, 1))).astype(float)
    names = [f"m{j}" for j in range(m)]
    items = {name: scores_of(row) for name, row in zip(names, matrix)}
    _, values, samples = rank.item_matrix([items[name] for name in names])
    fast = rank.mcnemar_pairs(names, matrix, higher)
    at = 0
    for i in range(m):
        for j in range(i + 1, m):
            one = rank.paired_on_matrix(values, samples, i, j, 1, (True, True), higher)
            slow = rank._paired_test(names[i], names[j], 0.0, 0.0, one)
            assert asdict(fast[at]) == asdict(slow)
            at += 1


# --------------------------------------------------------------------------- the matrix read

def _ranked_json(fig, general: bool, monkeypatch, **kwargs) -> str:
    """The figure's whole ranking as JSON, read by ItemRecords.matrices (one sample of each
    item) or, ``general``, by ItemRecords.cells (the path for several samples)."""
    import json

    from evalmaps.catalog.items import KEPT, ItemRecords

    KEPT.clear()
    with monkeypatch.context() as patch:
        if general:
            patch.setattr(ItemRecords, "matrices", lambda self, by, others: None)
        return json.dumps(rank.rank_figure(fig, **kwargs).to_dict())


def _lower_is_better(fig):
    from dataclasses import replace

    spec = replace(fig.spec, metric=replace(fig.spec.metric, name="Error",
                                            higher_is_better=False))
    out = Figure(spec, fig.cells, fig.decimals)
    out.items = fig.items
    return out


FIVE = ("m-7b", "m-13b", "m-1b", "m-70b", "m-3b")


def _fast_cases(tmp_path) -> dict:
    """Figures of one sample per item: the plain case, models that lack items (some of a cell,
    all of one model's cell), scores that are not 0/1, a lower-is-better metric."""
    chance = {m: 0.3 + 0.1 * j for j, m in enumerate(FIVE)}
    plain = item_scores(models=FIVE, n_items=30, chance=chance, seed=11)
    rng = np.random.default_rng(3)
    lacking = plain[~((plain["model"] == "m-13b") & (plain["item"] < "q008"))
                    & ~((plain["model"] == "m-1b") & (rng.random(len(plain)) < 0.15))
                    & ~((plain["model"] == "m-3b") & (plain["level"] == "hard")
                        & (plain["task"] == "t2"))]
    graded = plain.copy()
    graded["score"] = np.round(rng.random(len(plain)) * graded["score"].to_numpy() * 4) / 4
    few = item_scores(models=FIVE, n_items=5, chance=chance, seed=4)  # below MIN_ITEMS
    out = {name: items_figure(tmp_path / name, name, frame, models=FIVE)
           for name, frame in (("plain", plain), ("lacking", lacking), ("graded", graded),
                               ("few", few))}
    # m-3b keeps its value at hard/t2 but has no items there
    out["lacking"] = items_figure(tmp_path / "lacking", "lacking", plain, models=FIVE,
                                  with_items=False)
    out["lacking"].items = ItemRecords.write(tmp_path / "lacking",
                                             out["lacking"].spec.dim_names, lacking)
    return out


def test_the_matrix_read_ranks_exactly_as_the_items_read(tmp_path, monkeypatch):
    """Every field of the answer, as JSON, is the same whether the cells' items are read as
    code matrices (one sample of each item) or grouped by DuckDB; with items some models lack,
    a model without items in a cell, scores that are not 0/1, fewer items than a test needs,
    a lower-is-better metric, by another dimension and with models filtered out."""
    figures = _fast_cases(tmp_path)
    for name, fig in figures.items():
        others = [d for d in fig.spec.dim_names if d != "model"]
        assert fig.items.matrices("model", others) is not None, name  # the fast path is taken
        for one in (fig, _lower_is_better(fig)):
            for kwargs in ({}, {"by": "task"}, {"filters": {"model": {"m-1b", "m-13b", "m-7b"}}},
                           {"filters": {"model": {"m-1b", "m-13b"}}}):  # items only others have
                fast = _ranked_json(one, False, monkeypatch, **kwargs)
                assert fast == _ranked_json(one, True, monkeypatch, **kwargs), (name, kwargs)
    lacking = json.loads(_ranked_json(figures["lacking"], False, monkeypatch))
    pairs = [p for c in lacking["cells"] for p in c["pairs"]]
    assert any(p["only_in_a"] for p in pairs) and any(p["only_in_b"] for p in pairs)
    assert any("no items" in w for w in lacking["warnings"])
    assert any("different items" in w for w in lacking["warnings"])
    graded = json.loads(_ranked_json(figures["graded"], False, monkeypatch))
    assert {p["test"] for c in graded["cells"] for p in c["pairs"]} <= {"sign-flip",
                                                                         "sign-flip-normal"}


def test_the_matrix_is_each_cells_items(tmp_path):
    """ItemRecords.matrices holds what ItemRecords.cells gives, row by row; it declines
    records of several samples, and the items read is then the way."""
    fig = _fast_cases(tmp_path)["lacking"]
    dims = fig.spec.dim_names
    grid = fig.items.cells({}, dims)
    matrices = fig.items.matrices("model", dims[1:])
    assert sum(len(m.rows) for m in matrices.values()) == len(grid)
    for key, matrix in matrices.items():
        for model in matrix.rows:
            want, got = grid[(model, *key)], matrix.scores(model)
            assert list(got.items) == list(want.items) and got.binary == want.binary
            assert np.array_equal(got.n, want.n) and np.array_equal(got.total, want.total)
    several = item_scores(models=FIVE, n_items=8, samples=3, seed=2)
    fig3 = items_figure(tmp_path / "several", "several", several, models=FIVE)
    assert fig3.items.matrices("model", dims[1:]) is None
    one = several[several["sample"] == 0].assign(sample=1)  # one sample, numbered 1
    dup = pd.concat([one, one.iloc[:1]])  # an item twice in one cell
    assert items_figure(tmp_path / "one", "one", one, models=FIVE).items.matrices(
        "model", dims[1:]) is not None
    assert items_figure(tmp_path / "dup", "dup", dup, models=FIVE).items.matrices(
        "model", dims[1:]) is None


def test_each_models_standard_error_is_that_of_its_item_scores(figure):
    """Issue 39: the ranking carries each mean's standard error, sqrt(s² / n) over the items
    (numpy's sample variance here), as /api/compare gives a side's."""
    answer = RankView.from_query(Catalog([figure]), {"figure": [figure.id]}).to_dict()
    checked = 0
    for cell in answer["cells"]:
        for m in cell["models"]:
            items = figure.items.cell({**cell["labels"], answer["by"]: m["model"]})
            x = items.total / items.n
            expected = float(np.std(x, ddof=1) / np.sqrt(len(x))) if len(x) > 1 else None
            if expected is None:
                assert m["se"] is None
            else:
                assert m["se"] == pytest.approx(expected, rel=1e-8)
                checked += 1
    assert checked > 0
