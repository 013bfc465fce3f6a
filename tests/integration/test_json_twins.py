"""Every page path's JSON twin (``/compare.json``, ``/trends.json``, ``/browse.json``,
``/compare/items.json``) takes the page's query string and answers what its ``/api`` alias
answers for the same question; bad input is the API's JSON 400, never a 500."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.integration.test_api import assert_json_error, get_json

BENCH = "dynts-r1-llama-benchmarks"
PYTHIA = "pythia-zero-shot"
MMLU = {"a": "mmlu-pro:llama-2-7b", "b": "mmlu-pro:llama-2-13b"}
LABELS = {"a": f"{PYTHIA}:model=1.4b", "b": f"{PYTHIA}:model=2.8b", "ydim": "task"}


def q(**query) -> str:
    return "?" + urlencode(query, doseq=True) if query else ""


@pytest.mark.parametrize("twin, alias", [
    ("/compare.json", "/api/compare"),
    (f"/compare.json{q(**MMLU)}", f"/api/compare{q(**MMLU)}"),
    (f"/compare.json{q(**LABELS, metric='acc_norm')}", f"/api/compare{q(**LABELS, metric='acc_norm')}"),
    (f"/compare.json{q(**{**LABELS, 'ydim': 'metric'}, avg='task')}",
     f"/api/compare{q(**{**LABELS, 'ydim': 'metric'}, avg='task')}"),
    (f"/trends.json{q(figure=BENCH)}", f"/api/figures/{BENCH}/trends"),
    (f"/trends.json{q(figure=BENCH, model='R1-Llama', transpose='1', threshold='0.3')}",
     f"/api/figures/{BENCH}/trends{q(model='R1-Llama', transpose='1', threshold='0.3')}"),
    (f"/browse.json{q(figure=BENCH)}", f"/api/figures/{BENCH}/cells"),
    (f"/browse.json{q(figure=BENCH, benchmark=['AIME24', 'AMC23'], color='fixed')}",
     f"/api/figures/{BENCH}/cells{q(benchmark=['AIME24', 'AMC23'])}"),
    (f"/compare/items.json{q(**MMLU, cell='biology|accuracy', which='a_only')}",
     f"/api/compare/items{q(**MMLU, category='biology', metric='accuracy', which='a_only')}"),
    (f"/rank.json{q(figure='mmlu-pro')}", f"/api/rank{q(figure='mmlu-pro')}"),
    (f"/rank.json{q(figure=PYTHIA, step='143000', task=['arc_easy', 'piqa'], pct='1')}",
     f"/api/rank{q(figure=PYTHIA, step='143000', task=['arc_easy', 'piqa'])}"),
])
def test_a_twin_answers_what_its_api_alias_answers(client, twin, alias):
    assert get_json(client, twin) == get_json(client, alias)


def test_the_twin_of_a_pages_address_is_that_address_as_json(client):
    """The JSON's url is the page; its path with .json answers the same JSON."""
    body = get_json(client, f"/compare.json{q(**LABELS)}")
    path, _, query = body["url"].partition("?")
    assert path == "/compare" and get_json(client, f"/compare.json?{query}") == body
    items = get_json(client, f"/compare/items.json{q(**MMLU, cell='biology|accuracy')}")
    path, _, query = items["url"].partition("?")
    assert get_json(client, f"/compare/items.json?{query}") == items


@pytest.mark.parametrize("url, words", [
    (f"/compare.json{q(a='nope:x', b='nope:y')}", "nope"),
    (f"/compare.json{q(figure='nope')}", "no figure"),
    (f"/compare.json{q(**MMLU, k='two')}", "k='two'"),
    (f"/compare.json{q(**MMLU, ydim='category')}", "ydim"),
    (f"/trends.json{q(figure=BENCH, model='nope')}", "nope"),
    (f"/trends.json{q(figure=BENCH, transpose='sideways')}", "transpose"),
    (f"/trends.json{q(figure=BENCH, rows='nope')}", "Unknown"),
    (f"/browse.json{q(figure=BENCH, xmin='wide')}", "xmin=wide"),
    (f"/browse.json{q(figure=BENCH, top='0')}", "top=0"),
    (f"/browse.json{q(figure=BENCH, sort='col:nope')}", "Row order"),
    (f"/compare/items.json{q(**MMLU, cell='biology')}", "cell="),
    (f"/compare/items.json{q(**MMLU, cell=['biology|accuracy', 'law|accuracy'])}", "cell="),
    (f"/compare/items.json{q(**MMLU, cell='nope|accuracy')}", "nope"),
    (f"/compare/items.json{q(**MMLU, cell='biology|accuracy', which='best')}", "which="),
    (f"/rank.json{q(figure='mmlu-pro', by='nope')}", "by="),
    (f"/rank.json{q(figure='mmlu-pro', model='Llama-2-7B')}", "two or more"),
    (f"/rank.json{q(figure='mmlu-pro', rows='biology')}", "'rows'"),
    (f"/rank.json{q(figure=PYTHIA)}", "Narrow it"),
])
def test_bad_input_is_a_json_400(client, url, words):
    assert words in assert_json_error(client.get(url), 400)


def test_an_unknown_figure_is_a_json_404_as_in_the_api(client):
    assert "nope" in assert_json_error(client.get("/browse.json?figure=nope"), 404)
    assert "nope" in assert_json_error(client.get("/trends.json?figure=nope"), 404)
    assert "nope" in assert_json_error(client.get("/rank.json?figure=nope"), 404)


@pytest.mark.parametrize("path", ["/compare.jsonx", "/browse.json/", "/trends.json.json",
                                  "/compare/items.jsonp", "/rank.jsonx"])
def test_only_the_twins_paths_answer_json(client, path):
    response = client.get(path)
    assert response.status_code == 404 and response.mimetype == "text/html", path
