"""Empty states say what is wrong: a facet combination no panel has names the ones that exist."""

from __future__ import annotations

from evalmaps.analysis.slicing import NO_PANEL, views_for
from evalmaps.views.state import ViewState

PYTHIA = "pythia-zero-shot"  # task x metric; lambada_openai has no acc_norm panel


def test_a_combination_without_panel_names_the_combinations_that_exist(catalog):
    figure = catalog.figure(PYTHIA)
    views, why = views_for(figure, ViewState(PYTHIA, {"task": ("lambada_openai",),
                                                      "metric": ("acc_norm",)}))
    assert views == []
    with_norm = [p.facets["task"] for p in figure.panels.values()
                 if p.facets["metric"] == "acc_norm"]
    assert why == ("No panel has task lambada_openai with metric acc_norm. With metric acc_norm, "
                   f"task can be {', '.join(with_norm[:6])} and {len(with_norm) - 6} more; "
                   "with task lambada_openai, metric can be acc.")


def test_a_facet_with_nothing_picked_says_pick_one(catalog):
    views, why = views_for(catalog.figure(PYTHIA), ViewState(PYTHIA, {"task": (),
                                                                      "metric": ("acc",)}))
    assert (views, why) == ([], NO_PANEL)
