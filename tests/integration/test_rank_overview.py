"""/rank/overview.json (and /api/rank/overview): where each model is best across every figure
that ranks models. Each figure's cells say what that figure's own /rank.json says (the same
ranking, the same tests); figures without a dimension of models are not in it; a figure too big
to rank at once is listed with the reason; anything but the format is a clear 400."""

from __future__ import annotations

from tests.integration.test_api import assert_json_error, get_json


def test_each_figure_is_its_own_rank_answer(client, catalog):
    overview = get_json(client, "/rank/overview.json")
    assert overview == get_json(client, "/api/rank/overview")
    assert overview["alpha"] == 0.05 and "within each figure" in overview["p_adjusted"]
    listed = {e["figure"]: e for e in overview["figures"]}
    with_models = [f.id for f in catalog
                   if any("model" in (d.name.casefold(), d.title.casefold()) and len(d.labels) > 1
                          for d in f.spec.dims.values())]
    assert sorted(listed) == sorted(with_models)
    ranked = [e for e in overview["figures"] if e["ranked"]]
    assert ranked and any(e["tested"] for e in ranked)
    for entry in ranked:
        own = get_json(client, f"/rank.json?figure={entry['figure']}&by={entry['by']}")
        assert entry["basis"] == own["basis"]
        assert [c["labels"] for c in entry["cells"]] == [c["labels"] for c in own["cells"]]
        for mine, theirs in zip(entry["cells"], own["cells"]):
            models = theirs["models"]
            assert mine["best_or_tied"] == [m["model"] for m in models if m["best_or_tied"]]
            assert mine["highest"] == [m["model"] for m in models if m["rank"] == 1]
            assert mine["best"] == next((m["model"] for m in models if m["best"]), None)
        assert entry["summary"] == own["summary"]
        assert entry["tested"] == any(p["p"] is not None for c in own["cells"]
                                      for p in c["pairs"])
    # MMLU-Pro's two models, per-item records: exact McNemar in each category
    mmlu = listed["mmlu-pro"]
    assert mmlu["basis"] == "items" and mmlu["tests"] == ["mcnemar"] and mmlu["tested"]


def test_a_figure_too_big_to_rank_at_once_says_so():
    from evalmaps.catalog.load import load_catalog
    from evalmaps.core.figure import Catalog
    from evalmaps.views.rank import RankOverview

    catalog = load_catalog()
    entry = next(e for e in RankOverview.from_query(Catalog([catalog.figure("pythia-zero-shot")]),
                                                      {}).to_dict()["figures"])
    assert not entry["ranked"] and entry["cells"] == []
    assert entry["reason"].endswith("pairs in 3,429 cells: open it on its own and narrow it.")
    assert entry["url"] == "/rank?figure=pythia-zero-shot"


def test_the_overview_reads_nothing_but_its_format(client):
    message = assert_json_error(client.get("/rank/overview.json?figure=mmlu-pro"), 400)
    assert message == ("The overview of every figure reads no 'figure'; open one figure's "
                       "ranking with /rank.json?figure=<id>.")
    message = assert_json_error(client.get("/rank/overview.json?format=csv"), 400)
    assert message == "The overview answers JSON only. Leave format out."
