"""The search of a cell's items (``q`` of /api/compare/items, the Compare panel's search box):
plain text in any case over the ids, the scores as the list shows them and the texts kept in
texts.parquet (searched by DuckDB). Checked on the built-in MMLU-Pro figure against a count made
here from MMLU-Pro's own output files in ../shared/external/mmlu-pro (json and zipfile)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from evalmaps.analysis.items import ItemsError, score_text
from evalmaps.catalog.load import load_catalog
from evalmaps.views.items import MAX_SEARCH, items_payload

ROOT = Path(__file__).resolve().parents[2]
MMLU_PRO = ROOT.parent / "shared" / "external" / "mmlu-pro" / "eval_results"
FILES = {"a": "model_outputs_Llama-2-7b-hf_5shots.zip", "b": "model_outputs_Llama-2-13b-hf_5shots.zip"}
QUERY = {"a": ["mmlu-pro:llama-2-7b"], "b": ["mmlu-pro:llama-2-13b"], "category": ["biology"],
         "metric": ["accuracy"]}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(manifest_check="refuse")


@pytest.fixture(scope="module")
def outputs():
    """Each side's biology questions from MMLU-Pro's own files: id -> (answer, pred, right)."""
    if not MMLU_PRO.exists():
        pytest.skip(f"{MMLU_PRO} is absent: tests of real tool output skipped")
    out = {}
    for side, name in FILES.items():
        with zipfile.ZipFile(MMLU_PRO / name) as z:
            records = json.loads(z.read(z.namelist()[0]))
        out[side] = {str(r["question_id"]): (r["answer"], r["pred"],
                                             r["pred"] is not None and r["pred"] == r["answer"])
                     for r in records if r["category"] == "biology"}
    return out


def search(catalog, q: str, which: str = "all") -> list[str]:
    """Every item the search lists, page by page (the answer is bounded: ``next`` goes on)."""
    items, cursor, total = [], None, None
    while True:
        query = {**QUERY, "which": [which], "q": [q], **({"next": [cursor]} if cursor else {})}
        body = items_payload(catalog, query)
        assert body["q"] == q and body["counts"]["all"] == 717  # the tabs count before the search
        assert len(body["items"]) <= body["limit"] == 100
        total = body["total"] if total is None else total
        items += [row["item"] for row in body["items"]]
        cursor = body["next"]
        if cursor is None:
            assert len(items) == total
            return items


def by_hand(outputs, needle: str, which: str = "all") -> list[str]:
    """The common items whose id, score (1 or 0), target or either response holds ``needle``."""
    needle = needle.casefold()
    common = sorted(set(outputs["a"]) & set(outputs["b"]))
    lists = {"all": lambda a, b: True, "b_only": lambda a, b: b and not a}
    out = []
    for item in common:
        answer, pred_a, right_a = outputs["a"][item]
        _, pred_b, right_b = outputs["b"][item]
        texts = [item, str(int(right_a)), str(int(right_b)), answer, pred_a or "", pred_b or ""]
        if lists[which](right_a, right_b) and any(needle in t.casefold() for t in texts):
            out.append(item)
    return out


def test_a_search_finds_the_texts_in_any_case(catalog, outputs):
    # "c": no id or score holds it; the target or a response that is the letter C does
    found = search(catalog, "c")
    assert found == by_hand(outputs, "c") and 0 < len(found) < 717
    assert search(catalog, "C") == found
    assert search(catalog, "c", "b_only") == by_hand(outputs, "c", "b_only")


def test_a_search_finds_ids_and_scores(catalog, outputs):
    assert search(catalog, "280") == by_hand(outputs, "280")
    assert search(catalog, "1") == by_hand(outputs, "1")  # ids, and every score of 1
    assert search(catalog, "") == by_hand(outputs, "")  # no search: all 717


@pytest.mark.parametrize("q", ["%", "_", "' OR 1=1 --", "C' OR 'a'='a", ".*", "\\"])
def test_a_search_is_plain_text_never_a_pattern_or_sql(catalog, outputs, q):
    assert search(catalog, q) == by_hand(outputs, q) == []


def test_a_too_long_search_says_so(catalog):
    with pytest.raises(ItemsError, match="at most 200 characters"):
        items_payload(catalog, {**QUERY, "q": ["x" * (MAX_SEARCH + 1)]})


def test_scores_read_as_the_list_shows_them():
    assert [score_text(v) for v in (1.0, 0.0, -0.0, 0.5, 1 / 3, 2 / 3, -1.25, 100.0)] == \
        ["1", "0", "0", "0.5", "0.3333", "0.6667", "-1.25", "100"]


def test_a_link_keeps_the_search_and_the_page_opens_it_searched(catalog, outputs):
    """The list's link (the API's ``url``, the page's "Link to this list") carries ``q``; the
    Compare page opened from it lists the same items, with the search in its box and the count
    found, and a new cell or Close drops the search from the location."""
    from urllib.parse import parse_qs, urlsplit

    import app  # noqa: F401 - registers the pages, as the server does
    from layouts import _compare_items as page

    body = items_payload(catalog, {**QUERY, "which": ["b_only"], "q": ["C"]})
    query = parse_qs(urlsplit(body["url"]).query)
    assert (query["cell"], query["which"], query["q"]) == (["biology|accuracy"], ["b_only"], ["C"])
    values = page.panel(catalog, query)
    expected = by_hand(outputs, "C", "b_only")
    assert [row["item"] for row in values["rows"]] == expected == [
        row["item"] for row in body["items"]]
    assert (values["search"], values["found"]) == ("C", f"{len(expected)} items found")
    assert parse_qs(urlsplit(values["link"]).query) == query
    unsearched = page.panel(catalog, {k: v for k, v in query.items() if k != "q"})
    assert (unsearched["search"], unsearched["found"]) == ("", "")
    assert len(unsearched["rows"]) == body["counts"]["b_only"] > len(expected)


def test_the_search_alone_does_not_redraw_the_panel():
    """The search box writes ``q`` into the location once its rows are listed: the panel's key
    leaves ``q`` out, so that write redraws nothing (a redraw would rebuild the grid and drop the
    item picked), while a new cell, tab or comparison does redraw it."""
    import app  # noqa: F401 - registers the pages, as the server does
    from layouts import _compare_items as page

    base = {**QUERY, "which": ["b_only"]}
    assert page.shown_key({**base, "q": ["C"]}) == page.shown_key(base)
    assert page.shown_key({**base, "which": ["a_only"]}) != page.shown_key(base)
    assert page.shown_key({**base, "cell": ["chemistry|accuracy"]}) != page.shown_key(base)
