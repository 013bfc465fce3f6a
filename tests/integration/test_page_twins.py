"""Browse and Trends draw what their JSON twins answer (issue 36, step 2): the cells of the
heatmaps and the points of the lines a page's first layout carries (the page as the server draws
it for its URL, layouts/_first_page.py) equal ``/browse.json`` and ``/trends.json`` for the same
query. A query with parts that name nothing: the JSON refuses it (400), the page drops those
parts with a note, and draws what the JSON gives for the query without them."""

from __future__ import annotations

import base64

import numpy as np
import pytest

HOST = "http://localhost"

BROWSE = [
    ("figure=dynts-r1-llama-benchmarks", None),
    ("figure=dynts-r1-llama-benchmarks&benchmark=AIME24&benchmark=AMC23&hide=500&sort=mean", None),
    ("figure=acemath-training-progress&benchmark=GSM8K&benchmark=Math+500&xmin=0.2&xmax=0.8"
     "&top=2", None),
    ("figure=pythia-zero-shot&task=arc_easy&metric=acc", None),
    ("figure=mmlu-pro&model=Llama-2-7B", None),
    ("figure=mmlu-pro&model=Llama-2-7B&ticks=all", None),  # every label: the same cells
    # labels, a row and an order that name nothing: the page drops them, the JSON refuses them
    ("figure=dynts-r1-llama-benchmarks&benchmark=AIME24&benchmark=nope&rows=3000&rows=zzz"
     "&sort=bogus", "figure=dynts-r1-llama-benchmarks&benchmark=AIME24&rows=3000"),
]

TRENDS = [
    ("figure=dynts-r1-llama-benchmarks", None),
    ("figure=dynts-r1-llama-benchmarks&benchmark=AIME25&transpose=1&threshold=40", None),
    ("figure=acemath-training-progress&benchmark=GSM8K&hide=0.5b&xmin=0.2", None),
    ("figure=short-to-long", None),
    ("figure=acemath-training-progress&benchmark=GSM8K&threshold=abc&hide=nobody",
     "figure=acemath-training-progress&benchmark=GSM8K"),
]


def _graphs(node, kind: str, out=None) -> list[dict]:
    """Every dcc.Graph of id type ``kind`` in a serialised layout, in page order."""
    out = [] if out is None else out
    if isinstance(node, dict):
        if node.get("type") == "Graph" and isinstance(node["props"].get("id"), dict) \
                and node["props"]["id"].get("type") == kind:
            out.append(node["props"])
        for value in node.values():
            _graphs(value, kind, out)
    elif isinstance(node, list):
        for value in node:
            _graphs(value, kind, out)
    return out


def _page(client, path: str, query: str) -> dict:
    response = client.get("/_dash-layout", headers={"Referer": f"{HOST}{path}?{query}"})
    assert response.status_code == 200
    return response.get_json()


def _array(value) -> np.ndarray:
    """A trace's array as the browser gets it: a list, or a typed array (base64)."""
    if isinstance(value, dict):
        shape = tuple(int(n) for n in str(value["shape"]).split(",")) if "shape" in value else -1
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).reshape(shape)
    return np.array([np.nan if v is None else v for v in value], dtype=float)


def _twin(client, path: str, query: str, clean: str | None) -> dict:
    response = client.get(f"{path}.json?{query}")
    if clean is None:
        assert response.status_code == 200, response.get_json()
        return response.get_json()
    assert response.status_code == 400  # the JSON refuses what names nothing ...
    assert "error" in response.get_json()
    response = client.get(f"{path}.json?{clean}")  # ... and gives what the page draws
    assert response.status_code == 200
    return response.get_json()


@pytest.mark.parametrize(("query", "clean"), BROWSE)
def test_browse_draws_its_json_twins_cells(client, query, clean):
    twin = _twin(client, "/browse", query, clean)
    maps = _graphs(_page(client, "/", query), "browse-heatmap")
    assert maps, "the page drew no heatmap"
    figure = client.get(f"/api/figures/{twin['figure']}").get_json()
    y, x = [d["name"] for d in figure["dims"]][-2:]
    facets = [d["name"] for d in figure["dims"]][:-2]
    panels: dict[tuple, list[dict]] = {}
    for cell in twin["cells"]:
        panels.setdefault(tuple(cell[f] for f in facets), []).append(cell)
    assert len(maps) == len(panels)
    for drawn, cells in zip(maps, panels.values()):
        trace = next(t for t in drawn["figure"]["data"] if (t.get("meta") or {}).get("role")
                     == "value")
        rows = list(dict.fromkeys(c[y] for c in cells))
        cols = list(dict.fromkeys(c[x] for c in cells))
        assert [str(r) for r in trace["y"]] == rows and [str(c) for c in trace["x"]] == cols
        z = _array(trace["z"]).reshape(len(rows), len(cols))
        want = np.array([np.nan if c["value"] is None else c["value"] for c in cells])
        # the drawn array's own precision (float32 where the page sends a typed array)
        want = want.astype(z.dtype).reshape(len(rows), len(cols))
        assert np.array_equal(z, want, equal_nan=True)
        assert np.isfinite(z).sum() == sum(c["value"] is not None for c in cells)


@pytest.mark.parametrize(("query", "clean"), TRENDS)
def test_trends_draws_its_json_twins_points(client, query, clean):
    twin = _twin(client, "/trends", query, clean)
    charts = _graphs(_page(client, "/trends", query), "trends-chart")
    assert charts, "the page drew no chart"
    drawn = {}
    for chart in charts:
        for trace in chart["figure"]["data"]:
            meta = trace.get("meta")
            if trace.get("type") in ("scatter", "scattergl") and isinstance(meta, list) \
                    and len(meta) == 2 and trace.get("name") == meta[0]:
                drawn[(meta[1], meta[0])] = _array(trace["y"])
    lines = {(line["panel"].split(":", 1)[1], line["line"]): line for line in twin["lines"]}
    # a line with no value reported is listed, not drawn
    assert drawn.keys() == {key for key, line in lines.items()
                            if any(p["value"] is not None for p in line["points"])}
    assert drawn
    lines = {key: lines[key] for key in drawn}
    for key, line in lines.items():
        want = np.array([np.nan if p["value"] is None else p["value"] for p in line["points"]])
        assert np.array_equal(drawn[key], want.astype(drawn[key].dtype), equal_nan=True), key
