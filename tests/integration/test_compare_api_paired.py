"""/api/compare over HTTP (the real app's Flask client) with a figure that keeps per-item
records: each cell's paired test, the summary's counts, and a bad k answered 400, never 500."""

from __future__ import annotations

import pytest

from tests.items_fixture import item_scores, items_figure, serving


@pytest.fixture()
def served(dash_app, tmp_path):
    with serving(dash_app, [items_figure(tmp_path, "toy-items",
                                         item_scores(n_items=40, samples=2, seed=8))]):
        yield dash_app.server.test_client()


def test_paired_cells_and_summary(served):
    body = served.get("/api/compare?a=toy-items:small&b=toy-items:large").get_json()
    assert all(c["paired"]["test"] in ("sign-flip", "sign-flip-normal") and c["paired"]["n"] == 40
               for c in body["cells"])
    s = body["summary"]
    assert s["paired_cells"] == 6 and s["k"] == 1
    assert s["b_sig_better_paired"] == sum(c["paired"]["p_adjusted"] < 0.05 and c["paired"]["diff"] > 0
                                           for c in body["cells"])
    at_2 = served.get("/api/compare?a=toy-items:small&b=toy-items:large&k=2").get_json()
    assert at_2["summary"]["k"] == 2
    assert [c["paired"]["a_mean"] for c in at_2["cells"]] != [c["paired"]["a_mean"]
                                                             for c in body["cells"]]
    again = served.get("/api/compare?a=toy-items:small&b=toy-items:large&k=2").get_json()
    assert again["cells"] == at_2["cells"]  # nothing random: the same numbers


@pytest.mark.parametrize("k", ["0", "x", "3", "1&k=2"])
def test_a_bad_k_is_a_400(served, k):
    response = served.get(f"/api/compare?a=toy-items:small&b=toy-items:large&k={k}")
    assert response.status_code == 400
    assert "k" in response.get_json()["error"]
