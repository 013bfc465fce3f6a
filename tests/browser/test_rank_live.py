"""A Rank page open on a watched folder follows it (issue 38, as Browse, Trends and Compare do in
tests/browser/test_live.py): a real gunicorn of two workers serves a folder that lm-evaluation-
harness files are written into; when a new model's file arrives, the open /rank page draws the
figure's new version in place (no reload, its URL unchanged): the new model in the where map,
its pair maps and its ranking table, every number the /api/rank answer's; a polite note says
what changed. The browser logs no error and the server answers no 5xx."""

from __future__ import annotations

import json
import re

import pytest

from evalmaps.core.figure import short_slug
from tests.browser.helpers import fetch_text, texts
from tests.browser.test_live import (  # noqa: F401 - fixtures
    api_version,
    browser,
    copy,
    drawn_version,
    note_text,
    served_by_every_worker,
)
from tests.integration.test_live_gunicorn import served, until  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.external]

FIRST = ["pythia-70m/zero-shot/70m_step0.json", "pythia-160m/zero-shot/160m_step0.json",
         "pythia-410m/zero-shot/410m_step0.json"]
NEW = "pythia-1b-bf16/zero-shot/1b-bf16_step0.json"  # a fourth model: a row and a column more


def where_models(driver) -> list[str]:
    """The models (rows) of the where map as drawn."""
    return driver.execute_script(
        "const gd = document.querySelector('#rank-where .js-plotly-plot');"
        "return gd && gd._fullLayout ? gd._fullLayout.yaxis._categories : null;") or []


def where_ranks(driver) -> list[list]:
    """The where map's ranks as drawn (rows: models, columns: cells)."""
    return driver.execute_script(
        "const gd = document.querySelector('#rank-where .js-plotly-plot');"
        "return Array.from(gd._fullData[0].z).map(r => Array.from(r));")


def pair_squares(driver) -> int:
    """Rows of the first pair map as drawn."""
    return driver.execute_script(
        "const gd = document.querySelector('[id*=\"rank-pairs\"] .js-plotly-plot');"
        "return gd && gd._fullData ? gd._fullData[0].z.length : 0;")


def table_rows(driver) -> int:
    return driver.execute_script(
        "return document.querySelectorAll('#rank-table .ag-center-cols-container .ag-row')"
        ".length;")


def test_an_open_rank_page_draws_a_new_model_in_place(served, browser):  # noqa: F811
    base, folder, log = served
    fid = "import-" + short_slug(folder.name)
    for name in FIRST:
        copy(folder, name)
    until(lambda: served_by_every_worker(base, fid) and len(json.loads(fetch_text(
        base, f"/api/rank?figure={fid}&task=arc_easy&metric=acc"))["models"]) == 3, 30,
        "three models served by both workers")
    query = f"?figure={fid}&task=arc_easy&metric=acc"
    url = f"{base}/rank{query}"
    browser.get(url)
    until(lambda: len(where_models(browser)) == 3, 30, "the where map of three models")
    before = until(lambda: drawn_version(browser), 10, "what the page drew")
    assert before == api_version(base, fid)
    browser.execute_script("window.__same_page = true")
    old = json.loads(fetch_text(base, f"/api/rank{query}"))
    assert pair_squares(browser) == 3

    copy(folder, NEW)
    until(lambda: drawn_version(browser) not in (None, before), 20, "the page drawn again")
    assert drawn_version(browser) == api_version(base, fid)
    answer = json.loads(fetch_text(base, f"/api/rank{query}"))
    assert len(answer["models"]) == 4 and len(old["models"]) == 3
    until(lambda: where_models(browser) == answer["models"], 10, "the new model in the map")
    # what is drawn is /api/rank's answer for the same address: each model's rank per cell
    at = {m: i for i, m in enumerate(answer["models"])}
    want = [[None] * len(answer["cells"]) for _ in answer["models"]]
    for j, cell in enumerate(answer["cells"]):
        for m in cell["models"]:
            want[at[m["model"]]][j] = m["rank"]
    assert where_ranks(browser) == want
    assert pair_squares(browser) == 4
    until(lambda: table_rows(browser) == sum(len(c["models"]) for c in answer["cells"]), 10,
          "the table's rows")
    sentences = texts(browser, "#rank-sentences li")
    assert sentences == [s["sentence"] for s in answer["summary"]]
    assert browser.execute_script("return window.__same_page === true")  # no reload
    assert browser.current_url == url
    assert re.match(r"\d+ new cells?", note_text(browser)), note_text(browser)
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors
    assert not re.search(r'" 5\d\d ', log())  # no 5xx in the access log
