"""The Rank page's URL state (evalmaps.views.state.RankState) and its builders
(evalmaps/figures/rank.py, as components.rank hands them to the page), on a hand-written answer in /api/rank's shape and on the real answers
of the built-in figures; the page's layout for good and bad addresses (never an exception)."""

from __future__ import annotations

import json
import math
import re
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from components import rank as builders
from components.theme import decoded
from evalmaps.core import text as fmt
from evalmaps.views.rank import RankView
from evalmaps.views.state import (
    MAX_RANK_CELLS,
    RankState,
    parse_rank_state,
    rank_dims,
    rankable,
)


def parse(query: str, catalog) -> RankState:
    return parse_rank_state(parse_qs(query.lstrip("?"), keep_blank_values=True), catalog)


# --------------------------------------------------------------------------- the URL

def test_the_page_offers_figures_with_a_dimension_of_three_labels(catalog):
    ids = rankable(catalog)
    assert "mmlu-pro" in ids and "pythia-zero-shot" in ids
    for figure in catalog:
        big = any(len(d.labels) >= 3 for d in figure.spec.dims.values())
        assert (figure.id in ids) == (big and bool(rank_dims(figure)))


def test_defaults_are_the_apis(catalog):
    state = parse("", catalog)
    assert (state.figure, state.by, state.k, state.slice, state.problems) == (
        "mmlu-pro", "model", 1, (), ())
    # the page's query is the one /api/rank answers
    assert RankView.from_query(catalog, state.query()).to_dict()["by"] == "model"


@pytest.mark.parametrize("query", [
    "?figure=mmlu-pro&by=category&metric=accuracy",
    "?figure=mmlu-pro&category=law&category=math",
    "?figure=pythia-zero-shot&task=arc_easy&step=1000&model=70m&model=12b&model=1.4b",
    "?figure=pythia-zero-shot&by=step&task=piqa&metric=acc",
])
def test_round_trip(catalog, query):
    state = parse(query, catalog)
    assert state.problems == ()
    assert parse(state.to_query(), catalog) == state


def test_a_bad_address_is_forgiven_with_notes(catalog):
    state = parse("?figure=nope&by=zz&k=x&category=nothing&category=law&model=Llama-2-7B",
                  catalog)
    assert (state.figure, state.by, state.k) == ("mmlu-pro", "model", 1)
    assert state.slice == (("category", ("law",)),)  # one model is no ranking: all of them
    said = " ".join(state.problems)
    for part in ("There is no figure 'nope'", "by=zz is not a dimension", "k=x",
                 "Unknown category nothing", "two or more model labels"):
        assert part in said
    assert RankView.from_query(catalog, state.query()).to_dict()["cells"]


def test_a_figure_with_nothing_to_rank_and_a_dimension_of_metrics(catalog):
    state = parse("?figure=core-generalization&by=model", catalog)
    assert state.by != "model" and "cannot be ranked" in " ".join(state.problems)
    pythia = catalog.figure("pythia-zero-shot")
    assert "metric" not in rank_dims(pythia)  # acc and acc_norm: not ranked against each other
    state = parse("?figure=pythia-zero-shot&by=metric", catalog)
    assert state.by == "model" and "different metrics" in " ".join(state.problems)


def test_a_page_without_a_slice_opens_on_at_most_the_limit(catalog):
    state = parse("?figure=pythia-zero-shot", catalog)
    spec = catalog.figure("pythia-zero-shot").spec
    fixed = dict(state.slice)
    assert fixed == {"task": (spec.dims["task"].labels[0],),
                     "step": (spec.dims["step"].labels[-1],)}  # the final step
    cells = math.prod(len(fixed.get(d, spec.dims[d].labels)) for d in spec.dim_names
                      if d != state.by)
    assert cells <= MAX_RANK_CELLS
    answer = RankView.from_query(catalog, state.query()).to_dict()
    assert len(answer["cells"]) == cells


# --------------------------------------------------------------------------- the builders

def answer_fixture() -> dict:
    """A hand-written answer in /api/rank's shape: three models, one cell of 0/1 items."""
    models = ["7b", "13b", "70b"]
    pair = {"n": 717, "ci_low": 0.0123, "ci_high": 0.0678, "p": 0.00012, "p_adjusted": 0.00036,
            "test": "mcnemar", "only_in_a": 0, "only_in_b": 0}
    return {
        "figure": "mmlu-pro", "by": "model", "alpha": 0.05, "basis": "items",
        "models": models,
        "cells": [{"labels": {"category": "biology", "metric": "accuracy"},
                   "models": [
                       {"model": "7b", "n": 717, "mean": 0.2957, "ci": [0.2631, 0.3306],
                        "rank": 3, "rank_ci": [2, 3], "rank_set": [2, 3], "best_or_tied": False},
                       {"model": "13b", "n": 717, "mean": 0.3724, "ci": [0.3374, 0.4087],
                        "rank": 2, "rank_ci": [2, 3], "rank_set": [1, 3], "best_or_tied": True},
                       {"model": "70b", "n": 717, "mean": 0.41, "ci": [0.3745, 0.4464],
                        "rank": 1, "rank_ci": [1, 2], "rank_set": [1, 2], "best_or_tied": True}],
                   "pairs": [
                       {**pair, "a": "7b", "b": "13b", "a_mean": 0.2957, "b_mean": 0.3724,
                        "diff": 0.0767, "a_only": 67, "b_only": 122, "distinguishable": True},
                       {**pair, "a": "7b", "b": "70b", "a_mean": 0.2957, "b_mean": 0.41,
                        "diff": 0.1143, "a_only": 50, "b_only": 132, "distinguishable": True},
                       {**pair, "a": "13b", "b": "70b", "a_mean": 0.3724, "b_mean": 0.41,
                        "diff": 0.0376, "p": 0.21, "p_adjusted": 0.21, "a_only": 60,
                        "b_only": 87, "distinguishable": False}]}],
        "summary": [{"model": "7b", "cells": 1, "best_or_tied": 0, "best": 0,
                     "sentence": "7b is best or tied in 0 of 1 category, alone best in 0."},
                    {"model": "13b", "cells": 1, "best_or_tied": 1, "best": 0,
                     "sentence": "13b is best or tied in 1 of 1 category, alone best in 0."},
                    {"model": "70b", "cells": 1, "best_or_tied": 1, "best": 0,
                     "sentence": "70b is best or tied in 1 of 1 category, alone best in 0."}],
    }


def test_the_pair_map_is_b_minus_a_row_a_column_b(catalog):
    answer = answer_fixture()
    figure = catalog.figure("mmlu-pro")
    cell = answer["cells"][0]
    fig = builders.pair_figure(figure, answer, cell, answer["models"])
    main = fig["data"][0]
    z = decoded(main["z"]).astype(float)
    at = {m: i for i, m in enumerate(answer["models"])}
    for pair in cell["pairs"]:
        i, j = at[pair["a"]], at[pair["b"]]
        assert z[i, j] == pair["diff"] and z[j, i] == -pair["diff"]
    assert np.isnan(np.diag(z)).all()
    # each square's hover: the JSON's numbers as evalmaps.core.text writes them, the words
    # once in the template (one test in the cell), the numbers in the square's customdata
    assert main["customdata"][0][1][-1] == "distinguishable"
    assert filled(main, 0, 1) == [
        "A 7b · B 13b", "Category biology · Metric accuracy", "mean A 0.2957 · mean B 0.3724",
        "B − A +0.077 [+0.012, +0.068] · n 717 items", "only A right 67 · only B right 122",
        "exact McNemar test: p 0.00012 · BH-adjusted p 0.00036", "distinguishable"]
    # the other way round: negated, A's and B's counts swapped, the same p
    back = filled(main, 1, 0)
    assert back[0] == "A 13b · B 7b" and back[3].startswith("B − A -0.077 [-0.068, -0.012]")
    assert back[4] == "only A right 122 · only B right 67"
    assert back[5] == "exact McNemar test: p 0.00012 · BH-adjusted p 0.00036"
    assert filled(main, 1, 2)[-1] == "not distinguishable (adjusted p ≥ 0.05)"
    # every square: exactly the hover pair_hover writes for it
    assert_hovers(figure, answer, cell, fig)
    # Compare on that pair and cell, its items open (the address made from the layout)
    parts = urlsplit(compare_href(fig, 0, 1))
    assert parts.path == "/compare"
    assert parse_qs(parts.query) == {"a": ["mmlu-pro:model=7b"], "b": ["mmlu-pro:model=13b"],
                                     "cell": ["biology|accuracy"]}
    assert compare_href(fig, 1, 0) == builders.CompareLinks(figure, "model", cell["labels"]).href(
        "13b", "7b")
    # outlined: the distinguishable squares, both ways round (one path of four boxes)
    halo, shape = fig["layout"]["shapes"]  # a white line under a dark one
    assert shape["path"] == halo["path"] and shape["path"].count("M") == 4


def test_a_pair_without_a_test_says_so(catalog):
    answer = answer_fixture()
    cell = answer["cells"][0]
    for pair in cell["pairs"]:
        pair.update(n=None, p=None, p_adjusted=None, ci_low=None, ci_high=None, test="none",
                    a_only=None, b_only=None, distinguishable=False)
    fig = builders.pair_figure(catalog.figure("mmlu-pro"), answer, cell, answer["models"])
    lines = filled(fig["data"][0], 0, 1)
    assert lines[3] == "B − A +0.077"
    assert lines[-1] == "no test: no items or standard errors to test"
    assert fig["layout"]["shapes"] == []
    assert_hovers(catalog.figure("mmlu-pro"), answer, cell, fig)


def test_a_cell_of_several_kinds_of_pair_writes_each_hover_whole(catalog):
    """A cell whose pairs do not share the template's lines (one pair with items only one side
    answered, one untested): each square's customdata holds its hover's lines, and every
    hover is still exactly pair_hover's."""
    answer = answer_fixture()
    cell = answer["cells"][0]
    cell["pairs"][0].update(only_in_a=3)
    cell["pairs"][2].update(p=None, p_adjusted=None, test="none", distinguishable=False)
    figure = catalog.figure("mmlu-pro")
    fig = builders.pair_figure(figure, answer, cell, answer["models"])
    main = fig["data"][0]
    assert main["hovertemplate"] == "%{customdata[0]}<extra></extra>"
    assert "only in A 3 (not in the test)" in filled(main, 0, 1)
    assert "only in B 3 (not in the test)" in filled(main, 1, 0)
    assert assert_hovers(figure, answer, cell, fig) == 6
    # a pair without common items: its squares are missing, read as such (their own trace)
    cell["pairs"][1].update(n=0, diff=None, p=None, p_adjusted=None, test="none",
                            distinguishable=False)
    fig = builders.pair_figure(figure, answer, cell, answer["models"])
    main = fig["data"][0]
    (missing,) = [t for t in fig["data"] if "no pair to compare" in t.get("hovertemplate", "")]
    z = decoded(main["z"]).astype(float)
    assert np.isnan(z[0, 2]) and np.isnan(z[2, 0]) and main["customdata"][0][2] is None
    assert sorted(zip(missing["y"][-2:], missing["x"][-2:])) == [("70b", "7b"), ("7b", "70b")]
    assert assert_hovers(figure, answer, cell, fig) == 4


def test_a_map_of_many_models_draws_its_gaps_as_lines(catalog):
    """Above 12 models the squares' 1 px gaps are one path of white lines, the traces drawn
    without gaps (plotly.js paints a heatmap with gaps pixel by pixel); the outlines are the
    squares' rectangles (components.compare.cell_box, inset 6%)."""
    from components.compare import cell_box

    models = [f"m{k:02d}" for k in range(20)]
    pair = {"n": 500, "ci_low": 0.01, "ci_high": 0.05, "p": 0.001, "p_adjusted": 0.002,
            "test": "mcnemar", "only_in_a": 0, "only_in_b": 0, "a_only": 30, "b_only": 50,
            "a_mean": 0.5, "b_mean": 0.54, "diff": 0.04, "distinguishable": True}
    cell = {"labels": {"category": "biology", "metric": "accuracy"},
            "models": [{"model": m, "mean": 0.5} for m in models],
            "pairs": [{**pair, "a": a, "b": b} for i, a in enumerate(models)
                      for b in models[i + 1:]]}
    answer = {"by": "model", "alpha": 0.05, "cells": [cell]}
    figure = catalog.figure("mmlu-pro")
    fig = builders.pair_figure(figure, answer, cell, models)
    assert all(t.get("xgap", 0) == 0 and t.get("ygap", 0) == 0 for t in fig["data"])
    gaps, halo, line = fig["layout"]["shapes"]
    assert gaps["name"] == "gaps" and gaps["path"].count("M") == 2 * 19
    assert gaps["line"] == {"color": "#ffffff", "width": 1}
    boxes = [cell_box(i, j, 20, 20, inset=0.06) for i in range(20) for j in range(20) if i != j]
    assert line["path"].count("M") == len(boxes)
    first = boxes[0]
    assert line["path"].startswith(f"M{first['x0']:.5f},{first['y0']:.5f}H{first['x1']:.5f}"
                                   f"V{first['y1']:.5f}H{first['x0']:.5f}Z")
    assert assert_hovers(figure, answer, cell, fig) == 380
    # the where map of 20 models, alike (its rows' gaps: 19 lines; its one column: none)
    for row in cell["models"]:
        row.update(rank=1, best_or_tied=True)
    where = builders.where_figure(figure, answer, models)
    assert all(t.get("xgap", 0) == 0 and t.get("ygap", 0) == 0 for t in where["data"])
    assert where["layout"]["shapes"][0]["name"] == "gaps"
    assert where["layout"]["shapes"][0]["path"].count("M") == 19
    # twelve models or fewer: gaps as every other map draws them
    small = builders.pair_figure(figure, answer, cell, models[:12])
    assert small["data"][0]["xgap"] == 1 and all(s["name"] != "gaps"
                                                 for s in small["layout"]["shapes"])


@pytest.mark.parametrize("unit", ["", "%"])
def test_a_difference_is_written_as_core_text_writes_it(catalog, unit):
    """PairText.signed, the pair maps' fast writer, against evalmaps.core.text on values that
    round to zero from either side, halves, negatives, and random ones."""
    figure = catalog.figure("mmlu-pro")
    cell = {"labels": {"category": "biology", "metric": "accuracy"}, "models": []}
    text = builders.PairText(figure, cell, 0.05)
    rng = np.random.default_rng(5)
    values = [0.0, -0.0, 1e-9, -1e-9, 0.0004999, -0.0004999, 0.0005, -0.0005, 0.00049999999,
              -0.0125, 0.0125, 1.0, -1.0, 12.5, -0.3, *rng.normal(0, 0.2, 2000).tolist(),
              *(rng.integers(-2000, 2000, 500) / 1000).tolist()]
    metric = text.metric if not unit else fmt_metric_percent(text.metric)
    text.metric, text.factor = metric, fmt.shown(metric, 1.0, text.decimals)[0]
    assert (text.factor == 100.0) == (unit == "%")
    for places in (0, 1, 2, 3):
        text.places, text.differences = places, {}
        for v in values:
            assert text.signed(v) == fmt.signed(fmt.shown(metric, v, text.decimals)[0], places), \
                (v, places)
    assert text.signed(None) == text.signed(float("nan")) == fmt.DASH


def fmt_metric_percent(metric):
    from dataclasses import replace

    return replace(metric, unit="%", scale=100)


FIELD = re.compile(r"%\{([^\s%{}:]*)(?::([^}]*))?\}")


def filled(trace: dict, i: int, j: int) -> list[str]:
    """The hover of square (i, j) as plotly.js writes it, line by line: the trace's template
    filled with the square's labels and customdata (its one number format, ',.0f', as d3
    writes an integer: '12,032')."""
    data = trace["customdata"][i][j]

    def field(match):
        name, spec = match.groups()
        if name in ("x", "y"):
            value = trace[name][j if name == "x" else i]
        else:
            value = data[int(re.fullmatch(r"customdata\[(\d+)\]", name).group(1))]
        if spec:
            assert spec == ",.0f" and isinstance(value, int), (spec, value)
            return f"{value:,}"
        return str(value)

    template = trace["hovertemplate"].removesuffix("<extra></extra>")
    return FIELD.sub(field, template).split("<br>")


def assert_hovers(figure, answer, cell, fig) -> int:
    """Every square with a value hovers exactly what pair_hover writes for its pair, seen from
    its row; the squares checked."""
    main = fig["data"][0]
    z = decoded(main["z"]).astype(float)
    models = list(main["y"])
    text = builders.PairText(figure, cell, answer.get("alpha", 0.05))
    checked = 0
    for pair in cell["pairs"]:
        if pair["a"] not in models or pair["b"] not in models:
            continue
        for row in (pair["a"], pair["b"]):
            seen = builders.oriented(pair, row)
            i, j = models.index(seen["a"]), models.index(seen["b"])
            if np.isnan(z[i, j]):
                continue
            assert filled(main, i, j) == builders.pair_hover(text, seen).split("<br>")
            checked += 1
    return checked


def compare_href(fig: dict, i: int, j: int) -> str:
    """Square (i, j)'s Compare address as assets/evalmaps-rank.js makes it from the layout."""
    compare = fig["layout"]["meta"]["evalmaps"]["rank"]["compare"]
    return f"/compare?a={compare['refs'][i]}&b={compare['refs'][j]}&{compare['rest']}"


def test_the_where_map_sentences_and_table(catalog):
    answer = answer_fixture()
    figure = catalog.figure("mmlu-pro")
    fig = builders.where_figure(figure, answer, answer["models"])
    z = decoded(fig["data"][0]["z"]).astype(float)
    assert z[:, 0].tolist() == [3, 2, 1]
    assert "95% rank interval 2–3 · simultaneous rank set 1–3" in \
        fig["data"][0]["customdata"][1][0][0]
    _, shape = fig["layout"]["shapes"]
    assert shape["path"].count("M") == 2  # 13b and 70b: best or tied
    assert builders.sentences(answer, figure) == [s["sentence"] for s in answer["summary"]]
    rows = builders.table_rows(answer, ["category"])
    assert [(r["model"], r["mean"], r["ci_low"], r["rank_set_high"], r["best_or_tied"])
            for r in rows] == [("7b", 0.2957, 0.2631, 3, False), ("13b", 0.3724, 0.3374, 3, True),
                               ("70b", 0.41, 0.3745, 2, True)]


def test_a_compare_address_fixes_the_dimensions_off_the_grid(catalog):
    pythia = catalog.figure("pythia-zero-shot")
    href = builders.CompareLinks(pythia, "model",
                                 {"task": "piqa", "metric": "acc", "step": "143000"}).href(
        "70m", "12b")
    query = parse_qs(urlsplit(href).query)
    assert query["a"] == ["pythia-zero-shot:model=70m"]
    assert query["metric"] == ["acc"]  # off Compare's grid (task by step): fixed
    assert query["cell"] == ["piqa|143000"]


@pytest.mark.parametrize("query", ["", "?figure=mmlu-pro&by=category",
                                   "?figure=pythia-zero-shot",
                                   "?figure=acemath-training-progress"])
def test_the_real_answers_draw_with_the_jsons_numbers(catalog, query):
    state = parse(query, catalog)
    answer = RankView.from_query(catalog, state.query()).to_dict()
    figure = catalog.figure(state.figure)
    cell = answer["cells"][0]
    fig = builders.pair_figure(figure, answer, cell, answer["models"])
    z = decoded(fig["data"][0]["z"]).astype(float)
    at = {m: i for i, m in enumerate(answer["models"])}
    metric = figure.spec.metric_for(cell["labels"])
    for pair in cell["pairs"]:
        want = fmt.shown(metric, pair["diff"], figure.decimals_for(cell["labels"]))[0]
        got = z[at[pair["a"]], at[pair["b"]]]
        assert got == want or (pair.get("n") == 0 and np.isnan(got))
    json.dumps(fig)  # plain JSON all through


# --------------------------------------------------------------------------- the page

def page_json(dash_app, **query) -> str:
    from layouts import rank

    with dash_app.server.test_request_context("/rank"):
        page = rank.layout(**query)
    return json.dumps(page.to_plotly_json(), default=lambda o: o.to_plotly_json())


@pytest.mark.parametrize("query, said", [
    ({}, None),
    ({"figure": "nope"}, "There is no figure"),
    ({"figure": ["mmlu-pro", "pythia-zero-shot"], "by": ["model", "category"]}, None),
    ({"figure": "mmlu-pro", "k": "9"}, "pass@9 needs 9 samples"),
    ({"figure": "mmlu-pro", "category": "", "metric": "nothing"}, "Unknown metric nothing"),
    ({"figure": "pythia-zero-shot", "model": "70m"}, "two or more model labels"),
    ({"figure": "core-generalization", "by": "length", "type": "m"}, None),
])
def test_the_page_draws_any_address_and_says_what_it_dropped(dash_app, query, said):
    text = page_json(dash_app, **query)
    assert '"rank-body"' in text and '"rank-error"' not in text
    if said:
        assert said in text


def test_the_page_names_the_test_or_that_none_can_be_made(dash_app):
    assert "exact McNemar test" in page_json(dash_app, figure="mmlu-pro")
    assert "unpaired z-test" in page_json(dash_app, figure="pythia-zero-shot")
    # DynTS gives no standard errors and no items: no test
    text = page_json(dash_app, figure="dynts-llama-vs-qwen")
    assert "none: no test can be made on this data (neither per-item records" in text
    # categories hold different questions: items, but no pair of categories shares one
    text = page_json(dash_app, figure="mmlu-pro", by="category")
    assert "no pair has enough items both answered" in text


def test_k_where_the_items_allow_it(dash_app, tmp_path):
    """Items with 3 samples each: the k menu offers pass@1 to pass@3, k=2 ranks pass@2 (the
    answer's k), k=5 is dropped with a note."""
    from tests.items_fixture import item_scores, items_figure

    models = ("a", "b", "c")
    scores = item_scores(models=models, n_items=12, samples=3, seed=2)
    figure = items_figure(tmp_path / "items", "toy-k", scores, models=models)
    state = dash_app.server.extensions["evalmaps"]
    before = state["catalog"]
    state["catalog"] = before.with_figures([figure])
    try:
        text = page_json(dash_app, figure="toy-k", k="2")
        assert '"value": 2' in text and '"pass@3"' in text  # the k menu, at 2, up to 3
        rank_state = parse("?figure=toy-k&k=2", state["catalog"])
        assert rank_state.k == 2 and rank_state.query()["k"] == ["2"]
        assert RankView.from_query(state["catalog"], rank_state.query()).to_dict()["k"] == 2
        assert "pass@5 needs 5 samples" in page_json(dash_app, figure="toy-k", k="5")
    finally:
        state["catalog"] = before


def _texts(node) -> str:
    """A component's text, depth first."""
    if node is None:
        return ""
    if isinstance(node, (str, int, float)):
        return str(node)
    if isinstance(node, (list, tuple)):
        return "".join(_texts(n) for n in node)
    return _texts(getattr(node, "children", None))


def _rows(node):
    from dash import html

    if isinstance(node, html.Tr):
        yield node
        return
    children = getattr(node, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if child is not None and not isinstance(child, (str, int, float)):
            yield from _rows(child)


def test_the_across_figures_section_says_what_the_overview_json_says(dash_app, client):
    """/rank with no figure opens on the overview of every figure that ranks models: one row
    per figure and cell, the models best or tied (the highest mean, said as such, where no
    pair could be tested), as /rank/overview.json gives them."""
    from layouts import rank as page
    from layouts._shared import get_catalog

    overview = client.get("/rank/overview.json").get_json()
    with dash_app.server.test_request_context("/rank"):
        section = page.across_figures(get_catalog(None))
        assert section.id == "rank-overview"
        rows = list(_rows(section))[1:]  # the header's row first
        layout = page.layout()
        assert "rank-overview" in json.dumps(layout.to_plotly_json(), default=str)
        assert "rank-overview" not in json.dumps(page.layout(figure="mmlu-pro").to_plotly_json(),
                                                 default=str)
    expected = []
    for entry in overview["figures"]:
        if not entry["ranked"]:
            expected.append(f"Not ranked here: {entry['reason']}")
            continue
        for cell in entry["cells"]:
            where = " · ".join(cell["labels"].values())
            said = (", ".join(cell["best_or_tied"]) if entry["tested"] else
                    ", ".join(cell["highest"]) + " (highest mean, no test)")
            expected.append(where + said)
    got = [_texts(row.children[1:]) for row in rows]
    assert got == [e if e.startswith("Not ranked") is False else "—" + e for e in expected]


def test_a_page_drawn_again_reuses_its_maps(dash_app, catalog):
    """The maps of an answer kept (the same Ranking) are built once: the page drawn again for
    the same address holds the same figures; another address (another ranking) draws its own,
    and the page sends no Ranking."""
    from evalmaps.analysis.rank import Ranking
    from layouts import rank as page
    from layouts._shared import get_catalog

    def graphs(query):
        with dash_app.server.test_request_context("/rank"):
            state = parse(query, get_catalog(None))
            answer, failed = page.rank_answer(get_catalog(None), state)
            assert failed is None and isinstance(answer[page.RANKING], Ranking)
            return page.drawn_maps(catalog.figure(state.figure), state, answer,
                                   answer["models"], builders.varying(answer["cells"]))

    first = graphs("?figure=mmlu-pro")
    again = graphs("?figure=mmlu-pro")
    assert again[0][0] is first[0][0] and again[1] is first[1]
    other = graphs("?figure=mmlu-pro&category=law&category=math")
    assert other[1] is not first[1] and len(other[0]) == 2
    assert "_ranking" not in page_json(dash_app, figure="mmlu-pro")


def test_a_map_of_many_models_reserves_its_upright_labels_room(dash_app):
    """The height the browser's fit draws a pair map at (assets/evalmaps-fit.js, xTicks), worked
    out by hand: 34 px columns hold a level label of 3 characters (3 x 7.5 + 8 = 30.5 px), not
    of 7 ('lm-0.5b': 60.5 px), which stands upright: 7 x 7 + 8 = 57 px below the axis, 39 more
    than a level row; at most 150 px (a label of 25 characters: 150 - 18). A map of many models
    is exactly its least width and reserves that height (its longest label, 'lm-12.5b', 8
    characters: 46 px), the intrinsic size of its skipped content inside the 10 px frame; a map
    of few models only its figure's."""
    from layouts import rank as page

    assert builders.x_label_room(["a", "abc"], 34) == 0
    assert builders.x_label_room(["lm-0.5b", "lm-25b"], 34) == 39
    assert builders.x_label_room(["lm-0.5b"], 61) == 0
    assert builders.x_label_room(["x" * 25], 34) == 132
    assert builders.x_label_room(["a<b"], 34) == 6 * 7 + 8 - 18  # "a&lt;b", as the axis holds it
    assert builders.x_label_room(["\U0001F600abc"], 10) == 5 * 7 + 8 - 18  # UTF-16 units
    fig = {"layout": {"height": 1629}}
    models = [f"lm-{k / 2:g}b" for k in range(1, 51)]
    many = page.pair_style(fig, models, 1900, True)
    assert many["minHeight"] == "1685px" and many["minWidth"] == many["maxWidth"] == "1900px"
    assert many["containIntrinsicSize"] == "auto 1890px auto 1675px"
    few = page.pair_style(fig, models[:7], 600, False)
    assert few["minHeight"] == "1639px" and "maxWidth" not in few
    assert page.pair_style({"layout": {}}, models, 600, False) == {"minWidth": "600px"}
