"""GET /api/figures/<id>/trends through Flask's test client: shape, the seeds' numbers, filters
(as for /cells), transpose and threshold, and errors (400/404 JSON, never a 500)."""

from __future__ import annotations

import json

import pytest

from evalmaps.analysis.slicing import views_for
from evalmaps.analysis.trends import analyse
from evalmaps.views.state import ViewState
from tests.integration.test_api import CATALOG_IDS, assert_json_error, get_json

LINE_KEYS = {"panel", "panel_title", "line", "n_present", "n_total", "mean", "min", "min_at",
             "max", "max_at", "first", "first_at", "last", "last_at", "change", "slope",
             "slope_basis", "r2", "drop", "drop_from", "drop_to", "threshold", "below_at",
             "below", "class"}


def trends(client, figure_id, query=""):
    return get_json(client, f"/api/figures/{figure_id}/trends{query}")


def line(payload, label, panel=None):
    (found,) = [x for x in payload["lines"]
                if x["line"] == label and (panel is None or x["panel_title"] == panel)]
    return found


@pytest.mark.parametrize("figure_id", CATALOG_IDS)
def test_every_figure_has_trends(client, catalog, figure_id):
    payload = trends(client, figure_id)
    fig = catalog.figure(figure_id)
    assert payload["figure"] == figure_id and payload["provenance"] == fig.spec.provenance
    assert payload["metric"]["name"] == fig.spec.metric.name
    assert (payload["line_dim"], payload["axis_dim"]) == (fig.spec.y, fig.spec.x)
    assert len(payload["lines"]) == len(fig.panels) * len(fig.spec.dims[fig.spec.y].labels)
    assert all(LINE_KEYS <= set(x) for x in payload["lines"])
    assert all(x["class"] in ("stable", "declining", "rising", "mixed", None)
               for x in payload["lines"])
    views, _ = views_for(fig, ViewState(figure_id, {f: fig.spec.dims[f].labels
                                                    for f in fig.spec.facets}))
    assert payload["observations"] == analyse(views).observations
    assert [p["key"] for p in payload["panels"]] == [p.key for p in fig.panels.values()]
    assert payload["rules"]["notes"]


def test_strict_json_without_nan(client):
    for figure_id in CATALOG_IDS:
        body = client.get(f"/api/figures/{figure_id}/trends?transpose=1").get_data(as_text=True)
        json.loads(body, parse_constant=lambda c: pytest.fail(f"{figure_id}: {c} in JSON"))


def test_short_to_long_numbers(client):
    payload = trends(client, "short-to-long")
    t4 = line(payload, "4")
    assert (t4["drop"], t4["drop_from"], t4["drop_to"]) == (15.4, "10", "11")
    assert (t4["drop_from_value"], t4["drop_to_value"]) == (78.7, 63.3)
    assert (t4["below_at"], t4["below"], t4["class"]) == ("10", 78.7, "declining")
    assert (t4["n_present"], t4["n_total"]) == (5, 15)
    t1 = line(payload, "1")
    assert (t1["first"], t1["last"], t1["change"]) == (77.3, 46.3, -31.0)
    assert line(payload, "2")["class"] == "stable" and line(payload, "2")["below_at"] is None
    assert any("type 4 by 15.4 points" in s for s in payload["observations"])


def test_qwen_best_cell(client):
    payload = trends(client, "dynts-llama-vs-qwen", "?model=R1-Qwen")
    (panel,) = payload["panels"]
    assert panel["best"] == {"value": 56.3, "cells": [{"window": "2000", "ratio": "0.4"}]}
    assert panel["worst"] == {"value": 51.5, "cells": [{"window": "500", "ratio": "0.1"}]}
    by_ratio = {m["label"]: m["mean"] for m in panel["marginal_means"]["by_x"]["means"]}
    assert by_ratio["0.4"] == pytest.approx(54.575)
    assert {x["panel_title"] for x in payload["lines"]} == {"R1-Qwen"}


def test_filters_as_for_cells(client):
    payload = trends(client, "short-to-long", "?type=4&type=1&length=8&length=9&length=10")
    assert [x["line"] for x in payload["lines"]] == ["1", "4"]
    t4 = line(payload, "4")
    assert (t4["n_total"], t4["n_present"], t4["first_at"], t4["last_at"]) == (3, 3, "8", "10")
    assert t4["drop"] == 3.6  # 82.3 -> 78.7; the 15.4 at 11 is filtered out


def test_non_adjacent_label_filter_measures_no_drop_across_the_hole(client):
    payload = trends(client, "short-to-long", "?type=4&length=10&length=11&length=7")
    t4 = line(payload, "4")
    assert t4["drop"] == 15.4  # 10 -> 11 are neighbours
    payload = trends(client, "short-to-long", "?type=4&length=7&length=11")
    assert line(payload, "4")["drop"] is None  # 7 and 11 are not


def test_transpose_and_threshold(client):
    payload = trends(client, "dynts-llama-vs-qwen", "?transpose=1&threshold=52&model=R1-Llama")
    assert payload["transpose"] is True and payload["threshold"] == 52.0
    assert (payload["line_dim"], payload["axis_dim"]) == ("ratio", "window")
    r01 = line(payload, "0.1")
    assert (r01["first_at"], r01["last_at"]) == ("500", "3000")  # by number along the line
    assert (r01["below_at"], r01["below"]) == ("500", 49.8)
    assert line(payload, "0.2")["below_at"] == "2000"  # 52.1 and 52.7 are not below 52


def test_empty_selection_is_an_empty_report(client):
    payload = trends(client, "short-to-long", "?length=19")
    assert payload["observations"] == []
    assert all(x["n_present"] == 0 for x in payload["lines"])


@pytest.mark.parametrize("query", ["?type=9", "?model=GPT", "?length=99", "?threshold=abc",
                                   "?threshold=inf", "?transpose=maybe",
                                   "?type=%3Cscript%3E"])
def test_bad_query_is_a_json_400(client, query):
    message = assert_json_error(client.get(f"/api/figures/short-to-long/trends{query}"), 400)
    assert "<script>" not in message or "not a label" in message


def test_unknown_figure_is_a_json_404(client):
    assert "no figure" in assert_json_error(client.get("/api/figures/nope/trends"), 404)


def test_trends_page_is_served(client):
    response = client.get("/trends?figure=short-to-long&transpose=1&threshold=abc")
    assert response.status_code == 200 and response.mimetype == "text/html"
