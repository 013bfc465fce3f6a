"""The Rank answers kept per process (evalmaps.views.rank.KEPT_RANKINGS): a page loaded again,
its CSV, the API and the overview do not rank again; a figure served anew (a watched folder
read again), records written anew, or another question, rank again; the oldest answers go past
the bound; an answer handed out is the caller's to add to. Real records, in Parquet, as the
store keeps them (benchmarks/rank_bench.py writes them: 4 models x 2 cells x 30 items)."""

from __future__ import annotations

import gc
import os

import pytest

from benchmarks import rank_bench
from evalmaps.analysis import rank as ranking
from evalmaps.core.figure import Catalog
from evalmaps.views import rank as views
from evalmaps.views.rank import KEPT_RANKINGS, RankOverview, RankView, kept_ranking

QUERY = {"figure": [rank_bench.FIGURE]}
RANK_FIGURE = ranking.rank_figure  # uncounted


@pytest.fixture()
def kept(monkeypatch):
    """KEPT_RANKINGS emptied, and each call of rank_figure counted."""
    KEPT_RANKINGS.clear()
    calls = []
    real = ranking.rank_figure

    def counted(*args, **kwargs):
        calls.append(args[0].id)  # not the figure: it must be free to go
        return real(*args, **kwargs)

    monkeypatch.setattr(ranking, "rank_figure", counted)
    yield calls
    KEPT_RANKINGS.clear()


def made(folder, models=4, cells=2, items=30):
    rank_bench.write(folder, models, cells, items)
    return rank_bench.figure(folder)


def test_the_same_question_is_ranked_once(tmp_path, kept):
    figure = made(tmp_path / "a")
    catalog = Catalog([figure])
    first = RankView.from_query(catalog, QUERY)
    again = RankView.from_query(catalog, {**QUERY, "format": ["csv"]})
    assert len(kept) == 1 and again.ranking is first.ranking
    assert again.to_dict() == first.to_dict()
    # the answer is the one ranked afresh, number for number
    fresh = RANK_FIGURE(figure, "model").to_dict()
    shown = first.to_dict()
    assert [{k: v for k, v in c.items() if k != "compare"} for c in shown["cells"]] == \
        fresh["cells"]
    assert {k: v for k, v in shown.items() if k in fresh and k != "cells"} == \
        {k: v for k, v in fresh.items() if k != "cells"}
    # another question ranks again: a slice, another k-free by, a bound
    RankView.from_query(catalog, {**QUERY, "model": ["model-0", "model-1"]})
    assert len(kept) == 2
    RankOverview.from_query(catalog, {})  # its own bound on pairs: its own answer
    RankOverview.from_query(catalog, {})
    assert len(kept) == 3


def test_an_answer_handed_out_is_the_callers(tmp_path, kept):
    catalog = Catalog([made(tmp_path / "a")])
    first = RankView.from_query(catalog, QUERY).to_dict()
    first["cells"][0]["added"] = True
    first["cells"].pop()
    again = RankView.from_query(catalog, QUERY).to_dict()
    assert "added" not in again["cells"][0] and len(again["cells"]) == 2
    assert all("compare" in cell for cell in again["cells"])


def test_a_figure_served_anew_is_ranked_anew(tmp_path, kept):
    """A watched folder read again gives a new Figure: its answer is its own, even with the
    same id; the old figure's answer goes when the figure does."""
    old = made(tmp_path / "a", items=30)
    before = RankView.from_query(Catalog([old]), QUERY).to_dict()
    new = made(tmp_path / "b", items=40)
    after = RankView.from_query(Catalog([new]), QUERY).to_dict()
    assert len(kept) == 2
    assert {m["n"] for c in before["cells"] for m in c["models"]} == {30}
    assert {m["n"] for c in after["cells"] for m in c["models"]} == {40}
    assert len(KEPT_RANKINGS) == 2
    del old
    gc.collect()
    assert len(KEPT_RANKINGS) == 1


def test_records_written_anew_are_ranked_anew(tmp_path, kept):
    """The same figure whose records file is replaced (a new version, by rename): ranked again
    on the new records."""
    figure = made(tmp_path / "a", items=30)
    catalog = Catalog([figure])
    RankView.from_query(catalog, QUERY)
    rank_bench.write(tmp_path / "b", 4, 2, 40)
    os.replace(tmp_path / "b" / "scores.parquet", figure.items.scores_path)
    answer = RankView.from_query(catalog, QUERY).to_dict()
    assert len(kept) == 2
    assert {m["n"] for c in answer["cells"] for m in c["models"]} == {40}
    RankView.from_query(catalog, QUERY)
    assert len(kept) == 2


def test_the_oldest_answers_go_past_the_bound(tmp_path, kept, monkeypatch):
    figure = made(tmp_path / "a")  # 2 cells of 6 pairs: 12 pairs an answer
    monkeypatch.setattr(KEPT_RANKINGS, "limit", 30)
    slices = [["model-0", "model-1", "model-2", "model-3"], ["model-0", "model-1", "model-2"],
              ["model-1", "model-2", "model-3"]]
    for models in slices:
        kept_ranking(figure, "model", {"model": set(models)}, 1, None)
    assert len(kept) == 3 and KEPT_RANKINGS.size == 12 + 6 + 6 <= 30
    kept_ranking(figure, "model", {}, 1, None)  # 12 more: the first (12 pairs) goes
    assert KEPT_RANKINGS.size == 6 + 6 + 12
    kept_ranking(figure, "model", {"model": set(slices[0])}, 1, None)
    assert len(kept) == 5
    kept_ranking(figure, "model", {"model": set(slices[2])}, 1, None)  # still kept
    assert len(kept) == 5


def test_records_that_cannot_be_read_are_never_kept(tmp_path, kept):
    figure = made(tmp_path / "a")
    assert views._records_version(figure) is not None
    figure.items.scores_path.unlink()
    assert views._records_version(figure) is None
