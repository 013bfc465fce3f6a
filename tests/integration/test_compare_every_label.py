"""Compare under ``ticks=all`` (issue 37, labels) through the real app: ``/compare.json`` echoes
the key beside the same cells (a bad value is a 400 that says what to give), and the page the
server draws for the same URL (its first layout) holds each map at least a line a column wide
(the same width for A, B and B − A), in panels that scroll sideways; without the key the page
is as it was (no minimum width, no scrolling panels)."""

from __future__ import annotations

from urllib.parse import urlencode

from tests.integration.test_first_page import nodes

HOST = "http://localhost"
MMLU = {"a": "mmlu-pro:llama-2-7b", "b": "mmlu-pro:llama-2-13b"}


def _page(client, query: str) -> list[dict]:
    response = client.get("/_dash-layout", headers={"Referer": f"{HOST}/compare?{query}"})
    assert response.status_code == 200
    return nodes(response.get_json())


def test_the_json_twin_echoes_ticks_all_beside_the_same_cells(client):
    plain = client.get(f"/compare.json?{urlencode(MMLU)}").get_json()
    every = client.get(f"/compare.json?{urlencode({**MMLU, 'ticks': 'all'})}")
    assert every.status_code == 200
    body = every.get_json()
    assert "ticks" not in plain and body["ticks"] == "all"
    assert body["cells"] == plain["cells"] and body["summary"] == plain["summary"]
    assert body["url"] == plain["url"] + "&ticks=all"
    assert client.get(f"/api/compare?{urlencode({**MMLU, 'ticks': 'all'})}").get_json() == body
    bad = client.get(f"/compare.json?{urlencode({**MMLU, 'ticks': 'sideways'})}")
    assert bad.status_code == 400
    assert "ticks must be all" in bad.get_json()["error"]


def test_the_page_under_ticks_all_holds_every_column_a_line(client):
    from evalmaps.figures.heatmap import COLUMN_PX

    nodes = _page(client, urlencode({**MMLU, "ticks": "all"}))
    graphs = [n["props"] for n in nodes if n.get("type") == "Graph"
              and isinstance(n["props"].get("id"), dict)
              and n["props"]["id"].get("type") == "compare-heatmap"]
    assert len(graphs) == 3
    widths = {g["style"]["minWidth"] for g in graphs}
    assert len(widths) == 1  # A, B and B − A at one width: their squares line up
    for g in graphs:
        layout = g["figure"]["layout"]
        n_cols = len(layout["xaxis"]["categoryarray"])
        least = layout["margin"]["l"] + layout["margin"]["r"] + COLUMN_PX * n_cols
        assert int(g["style"]["minWidth"].removesuffix("px")) >= least
    maps = next(n for n in nodes if n.get("props", {}).get("id") == "compare-maps")
    assert "compare-maps-every" in maps["props"]["className"].split()
    store = next(n for n in nodes if n.get("props", {}).get("id") == "compare-ticks")
    assert store["props"]["data"] == "all"
    # no key: no minimum width, no scrolling panels, the store says auto
    nodes = _page(client, urlencode(MMLU))
    assert not [n for n in nodes if n.get("type") == "Graph"
                and "minWidth" in (n["props"].get("style") or {})]
    maps = next(n for n in nodes if n.get("props", {}).get("id") == "compare-maps")
    assert "compare-maps-every" not in maps["props"]["className"].split()
