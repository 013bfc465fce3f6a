"""GET /api/compare/items through Flask's test client, on the real app with the items fixture's
figure (tests/cell_items_fixture.py) added to its catalog: whole answers checked against the
fixture's hand-worked lists, CSV with formulas neutralised, and 400s that say what to give."""

from __future__ import annotations

import csv
import io
from urllib.parse import quote

import pytest

from tests.cell_items_fixture import EVIL_RESPONSE, FIGURE_ID, items_figure
from tests.integration.test_api import assert_json_error, get_json

A, B = f"{FIGURE_ID}:m7", f"{FIGURE_ID}:m13"


@pytest.fixture(scope="module")
def items_client(dash_app, tmp_path_factory):
    catalog = dash_app.server.extensions["evalmaps"]["catalog"]
    catalog.figures[FIGURE_ID] = items_figure(tmp_path_factory.mktemp("items"))
    yield dash_app.server.test_client()
    del catalog.figures[FIGURE_ID]


def url(a=A, b=B, **query):
    rest = "".join(f"&{k}={quote(str(v))}" for k, v in query.items())
    return f"/api/compare/items?a={quote(a)}&b={quote(b)}{rest}"


def test_one_cells_list_whole(items_client):
    body = get_json(items_client, url(category="math", split="test", which="b_only"))
    q = "x" * 400
    assert body == {
        "a": A, "b": B, "cell": {"category": "math", "split": "test"}, "k": 1,
        "which": "b_only", "q": "",
        "counts": {"a_only": 1, "b_only": 2, "both": 1, "neither": 2, "all": 6},
        "graded": True, "only_in_a": 1, "only_in_b": 0, "note": None,
        "url": f"/compare?a={A}&b={B}&cell=math|test&which=b_only",
        "total": 2, "limit": 100, "next": None,
        "items": [
            {"item": "q2", "a": 0.0, "b": 1.0, "prompt": f"Question q2? {q}", "target": "target q2",
             "a_response": "m7 says q2", "b_response": EVIL_RESPONSE},
            {"item": "q3", "a": 0.0, "b": 1.0, "prompt": f"Question q3? {q}", "target": "target q3",
             "a_response": "m7 says q3", "b_response": "m13 says q3"}]}


def test_labels_of_a_dimension_and_pass_at_k(items_client):
    body = get_json(items_client, url(f"{FIGURE_ID}:model=m7", f"{FIGURE_ID}:model=m13",
                                      category="law", split="test", k=2))
    assert (body["k"], body["counts"]) == (2, {"a_only": 1, "b_only": 1, "both": 0, "neither": 1,
                                               "all": 3})
    assert [(r["item"], r["a"], r["b"]) for r in body["items"]] == [
        ("l1", 0.5, pytest.approx(5 / 6)), ("l2", 0.0, 1.0), ("l3", 1.0, 0.5)]
    assert body["url"] == (f"/compare?a={FIGURE_ID}:model=m7&b={FIGURE_ID}:model=m13"
                           "&cell=law|test&which=all&k=2")


def test_csv_neutralises_formulas(items_client, dash_app):
    figure = dash_app.server.extensions["evalmaps"]["catalog"].figure(FIGURE_ID)
    import pandas as pd

    from evalmaps.catalog.items import ItemRecords
    from tests.cell_items_fixture import DIMS, scores_frame
    texts = pd.DataFrame([("m7", "math", "test", "q4", "=HYPERLINK(\"x\")", "1", "+2")],
                         columns=[*DIMS, "item", "prompt", "target", "response"])
    kept = figure.items
    figure.items = ItemRecords.write(kept.folder.parent / "formula", DIMS, scores_frame(), texts)
    try:
        response = items_client.get(url(category="math", split="test", which="a_only",
                                         format="csv"))
    finally:
        figure.items = kept
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert "attachment; filename=itemdemo-m7__vs__itemdemo-m13__math__test__a_only.csv" == \
        response.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows == [["item", "a", "b", "prompt", "target", "a_response"],
                    ["q4", "1.0", "0.0", "'=HYPERLINK(\"x\")", "1", "+2"]]


@pytest.mark.parametrize(("query", "words"), [
    ({"category": "math"}, "Name the cell: give split=<label>"),
    ({"category": "physics", "split": "test"}, "'physics' is not a row"),
    ({"category": "math", "split": "test", "which": "best"}, "Use which=a_only, b_only"),
    ({"category": "math", "split": "test", "k": "two"}, "k='two' is not a whole number"),
    ({"category": "law", "split": "test", "k": "9"}, "at least 9 samples"),
    ({"category": "chem", "split": "test", "k": "2"}, "scores of 0 or 1"),
    ({"category": "chem", "split": "test", "which": "a_only", "format": "xml"}, "Unknown format"),
])
def test_bad_queries_are_400s_that_say_what_to_give(items_client, query, words):
    message = assert_json_error(items_client.get(url(**query)), 400)
    assert words in message


def test_missing_sides_and_unknown_panels_are_400s(items_client):
    assert "Give one panel as a and one as b" in assert_json_error(
        items_client.get("/api/compare/items?category=math"), 400)
    assert "Panel B" in assert_json_error(
        items_client.get(url(b=f"{FIGURE_ID}:nope", category="math", split="test")), 400)


def test_a_figure_without_items_says_why(items_client):
    body = get_json(items_client, "/api/compare/items?a=dynts-llama-vs-qwen:r1-llama&"
                                  "b=dynts-llama-vs-qwen:r1-qwen&window=2000&ratio=0.4")
    assert (body["items"], body["counts"]["all"], body["note"]) == (
        [], 0, "A: figure 'dynts-llama-vs-qwen' has no per-item records; B: figure "
               "'dynts-llama-vs-qwen' has no per-item records")


def test_cells_and_trends_take_k(items_client, dash_app, tmp_path):
    from math import comb
    catalog = dash_app.server.extensions["evalmaps"]["catalog"]
    kept = catalog.figures[FIGURE_ID]
    catalog.figures[FIGURE_ID] = items_figure(tmp_path, sampled=True)
    client = items_client
    try:
        cells = get_json(client, f"/api/figures/{FIGURE_ID}/cells?k=2&category=law")["cells"]
        p2 = [1 - comb(4 - c, 2) / comb(4, 2) for c in range(5)]
        assert [(c["model"], c["value"]) for c in cells] == [
            ("m7", pytest.approx((p2[1] + p2[0] + p2[4]) / 3)),
            ("m13", pytest.approx((p2[2] + p2[4] + p2[1]) / 3))]
        assert get_json(client, f"/api/figures/{FIGURE_ID}/trends?k=4")["figure"] == FIGURE_ID
        assert "has 4 at the fewest. Use k=1 to 4." in assert_json_error(
            client.get(f"/api/figures/{FIGURE_ID}/cells?k=5"), 400)
        assert "has no such items. Use k=1." in assert_json_error(
            client.get("/api/figures/dynts-llama-vs-qwen/cells?k=2"), 400)
    finally:
        catalog.figures[FIGURE_ID] = kept


def test_compare_takes_k(items_client, dash_app, tmp_path):
    from math import comb
    catalog = dash_app.server.extensions["evalmaps"]["catalog"]
    kept = catalog.figures[FIGURE_ID]
    catalog.figures[FIGURE_ID] = items_figure(tmp_path, sampled=True)
    try:
        body = get_json(items_client, f"/api/compare?a={A}&b={B}&k=2")
        p2 = [1 - comb(4 - c, 2) / comb(4, 2) for c in range(5)]
        a, b = (p2[1] + p2[0] + p2[4]) / 3, (p2[2] + p2[4] + p2[1]) / 3
        assert [(c["a"], c["b"]) for c in body["cells"]] == [
            (pytest.approx(a), pytest.approx(b))] * 3
        assert "Use k=1 to 4." in assert_json_error(
            items_client.get(f"/api/compare?a={A}&b={B}&k=5"), 400)
        assert "A or B has no such items. Use k=1." in assert_json_error(
            items_client.get("/api/compare?k=2"), 400)
    finally:
        catalog.figures[FIGURE_ID] = kept


def test_answers_are_bounded_paged_and_texts_clipped_with_the_whole_one_request_away(
        items_client, monkeypatch):
    """Issue 37, red team 3: one cell answered every item with every text whole (48 MB of JSON
    for 2 x 1,200 items of 20 KB). A page lists at most ``limit`` items (a cursor goes on),
    texts are cut in lists (``clipped`` names them), and ``item=<id>`` gives one whole."""
    from evalmaps.views import items as items_view

    first = get_json(items_client, url(category="math", split="test", limit=4))
    assert (first["total"], first["limit"], first["next"]) == (6, 4, "4")
    rest = get_json(items_client, url(category="math", split="test", limit=4, next=first["next"]))
    assert rest["next"] is None and len(rest["items"]) == 2
    whole = get_json(items_client, url(category="math", split="test", limit=1000))
    assert [r["item"] for r in first["items"] + rest["items"]] == [r["item"] for r in whole["items"]]

    monkeypatch.setattr(items_view, "LIST_TEXT", 20)
    cut = get_json(items_client, url(category="math", split="test"))
    q2 = next(r for r in cut["items"] if r["item"] == "q2")
    assert q2["prompt"] == "Question q2? " + "x" * 7 + "\u2026"
    assert set(q2["clipped"]) == {"prompt", "b_response", "a_response"} - (
        {"a_response"} if len("m7 says q2") <= 20 else set())
    one = get_json(items_client, url(category="math", split="test", item="q2"))
    (row,) = one["items"]
    assert row["prompt"] == "Question q2? " + "x" * 400 and "clipped" not in row
    assert row["b_response"] == EVIL_RESPONSE and one["next"] is None


@pytest.mark.parametrize("query, says", [
    ({"limit": "1001"}, "limit='1001' is not a whole number from 0 to 1,000"),
    ({"next": "-1"}, "next='-1' is not a whole number"),
    ({"item": "nope"}, "no item 'nope'"),
])
def test_bad_pages_are_400s(items_client, query, says):
    response = items_client.get(url(category="math", split="test", **query))
    assert response.status_code == 400 and says in response.get_json()["error"]


def test_the_page_holds_at_most_20000_characters_of_a_text_and_links_the_whole(items_client):
    """Issue 37, red team 3: a 25 MB item text made Compare's layout 50 MB. The page holds the
    first 20,000 characters and links the item's JSON (the twin of the page's query), which
    gives the text whole."""
    from components.items import SHOWN, detail

    link = f"/compare/items.json?a={quote(A)}&b={quote(B)}&cell=math%7Ctest&item=q2"
    huge = "y" * 25_000_000
    shown = str(detail({"item": "q2", "a": 0.0, "b": 1.0, "prompt": huge}, whole=link))
    assert len(shown) < 3 * SHOWN and link in shown
    body = get_json(items_client, link)
    assert [r["item"] for r in body["items"]] == ["q2"]
    assert body["items"][0]["prompt"] == "Question q2? " + "x" * 400
