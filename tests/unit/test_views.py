"""The view models of evalmaps.views (one per page URL): each is frozen, made once from the
page's query, and its JSON is the API's for the same question; the page's own keys (rows, sort,
top, cell, figure) ask what the API's keys ask."""

from __future__ import annotations

import dataclasses

import pytest

from evalmaps.analysis.compare import CompareError
from evalmaps.analysis.items import ItemsError
from evalmaps.views import BrowseView, CompareView, ItemsView, TrendsView
from evalmaps.views.items import items_payload
from evalmaps.views.models import BadQuery
from evalmaps.views.payloads import cells_payload, compare_payload, trends_payload

BENCH = "dynts-r1-llama-benchmarks"
PYTHIA = "pythia-zero-shot"
ITEMS = {"a": ["mmlu-pro:llama-2-7b"], "b": ["mmlu-pro:llama-2-13b"]}


@pytest.mark.parametrize("view, query", [
    (BrowseView, {"figure": [BENCH]}),
    (TrendsView, {"figure": [BENCH]}),
    (CompareView, {}),
    (ItemsView, {**ITEMS, "category": ["biology"], "metric": ["accuracy"]}),
])
def test_views_are_frozen(catalog, view, query):
    made = view.from_query(catalog, query)
    field = dataclasses.fields(made)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, field, None)


@pytest.mark.parametrize("query", [{}, {"model": ["R1-Llama"]},
                                   {"benchmark": ["AIME24", "AMC23"], "window": ["500"]}])
def test_browse_and_trends_answer_what_the_api_answers(catalog, query):
    figure = catalog.figure(BENCH)
    page = {**query, "figure": [BENCH]}
    assert BrowseView.from_query(catalog, page).to_dict() == cells_payload(figure, query)
    assert TrendsView.from_query(catalog, page).to_dict() == trends_payload(figure, query)


def test_the_pages_rows_are_the_apis_row_filter(catalog):
    figure = catalog.figure(BENCH)
    rows = list(figure.spec.dims[figure.spec.y].labels[:2])
    by_rows = BrowseView.from_query(catalog, {"figure": [BENCH], "rows": rows}).to_dict()
    assert by_rows == cells_payload(figure, {figure.spec.y: rows})
    hidden = figure.spec.dims[figure.spec.y].labels[2:]
    assert BrowseView.from_query(catalog, {"figure": [BENCH], "hide": list(hidden)}).to_dict() \
        == by_rows


def test_the_pages_top_keeps_the_best_rows(catalog):
    view = BrowseView.from_query(catalog, {"figure": [BENCH], "model": ["R1-Llama"],
                                           "benchmark": ["AIME24"], "top": ["2"]})
    assert len({cell[catalog.figure(BENCH).spec.y] for cell in view.cells}) == 2


@pytest.mark.parametrize("query, words", [
    ({"model": ["nope"]}, "is not a label"),
    ({"rows": ["nope"]}, "Unknown"),
    ({"sort": ["sideways"]}, "Row order"),
    ({"top": ["-1"]}, "top=-1"),
])
def test_what_the_page_drops_is_a_bad_query(catalog, query, words):
    for view in (BrowseView, TrendsView):
        with pytest.raises(BadQuery, match=words):
            view.from_query(catalog, {"figure": [BENCH], **query})


@pytest.mark.parametrize("query", [
    {},
    {"a": ["dynts-llama-vs-qwen:r1-qwen"], "b": ["dynts-llama-vs-qwen:r1-llama"]},
    {"a": [f"{PYTHIA}:model=1.4b"], "b": [f"{PYTHIA}:model=2.8b"], "ydim": ["task"],
     "metric": ["acc"]},
])
def test_compare_answers_what_the_api_answers(catalog, query):
    view = CompareView.from_query(catalog, query)
    assert view.to_dict() == compare_payload(catalog, query)
    assert view.to_dict()["url"] == view.url


def test_compares_figure_is_that_figures_default_pair(catalog):
    view = CompareView.from_query(catalog, {"figure": [BENCH]})
    first_two = [p.key for p in list(catalog.figure(BENCH).panels.values())[:2]]
    assert [view.alignment.a.ref, view.alignment.b.ref] == first_two
    with pytest.raises(CompareError, match="no figure"):
        CompareView.from_query(catalog, {"figure": ["nope"]})


def test_items_take_the_pages_cell_as_the_apis_labels(catalog):
    api = items_payload(catalog, {**ITEMS, "category": ["biology"], "metric": ["accuracy"],
                                  "which": ["a_only"]})
    page = ItemsView.from_query(catalog, {**ITEMS, "cell": ["biology|accuracy"],
                                          "which": ["a_only"], "color": ["fixed"]})
    assert page.to_dict() == api and api["items"]
    with pytest.raises(ItemsError, match="cell="):
        ItemsView.from_query(catalog, {**ITEMS, "cell": ["biology"]})
    with pytest.raises(ItemsError, match="Give one panel as a"):  # the API's grammar needs them
        ItemsView.from_query(catalog, {"category": ["biology"], "metric": ["accuracy"]})
