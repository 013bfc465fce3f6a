"""The Rank page (/rank, issue 38) in a real headless Chromium: it draws the answer of
/api/rank for the same query, for the built-in MMLU-Pro figure (per-item records, paired
tests), for the shared folder's seven models and for Pythia's sizes (no items: unpaired); a
pair square's hover gives the JSON's numbers; the table's CSV is the JSON's; a click on a pair
square, and Enter on it, land in Compare on that pair and that cell with its items; a bad URL is
forgiven with a note; screenshots at 1440 and 390 px."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.browser.helpers import (
    cell_center,
    fetch_text,
    hover_cell,
    non_local_requests,
    screenshot,
    widened_margins,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "external" / "mmlu-pro"
PHONE = (390, 844)
DESKTOP = (1440, 1000)


def pairs_css(index: int) -> str:
    dom_id = json.dumps({"panel": str(index), "type": "rank-pairs"}, separators=(",", ":"))
    return f"[id={json.dumps(dom_id)}]"


WHERE = "[id={}]".format(json.dumps(json.dumps({"panel": "where", "type": "rank-where"},
                                               separators=(",", ":"))))


def api(dash_duo, query: str) -> dict:
    return json.loads(fetch_text(dash_duo.server_url, f"/api/rank{query}"))


def open_rank(dash_duo, query: str) -> None:
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/rank{query}")
    dash_duo.wait_for_element(f"{pairs_css(0)} .main-svg", timeout=60)
    dash_duo.wait_for_element(f"{WHERE} .main-svg", timeout=20)


def hover_lines(dash_duo, graph_css: str, x: str, y: str) -> str:
    hover_cell(dash_duo, graph_css, x, y, timeout=10)
    return dash_duo.driver.execute_script(
        "return Array.from(document.querySelector(arguments[0]).querySelectorAll("
        "'.hoverlayer .hovertext text tspan.line')).map(t => t.textContent).join('\\n')",
        graph_css)


NUMBER = re.compile(r"[+\u2212-]?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?")


def numbers(text: str) -> list[float]:
    return [float(n.replace("\u2212", "-").replace(",", "")) for n in NUMBER.findall(text)]


def close(shown: float, exact: float, text: str) -> bool:
    """Whether ``shown`` (as the page writes it, in ``text``) is ``exact`` to the places
    written: half a unit of its last place (two significant digits for a p value)."""
    places = len(text.partition(".")[2]) if "." in text and "e" not in text else 0
    if "e" in text:
        return abs(shown - exact) <= abs(exact) * 0.051
    return abs(shown - exact) <= 0.5 * 10 ** -places + 1e-12


def line_of(lines: str, start: str) -> str:
    found = [line for line in lines.split("\n") if line.startswith(start)]
    assert found, f"no line starting {start!r} in:\n{lines}"
    return found[0]


def check_pair_hover(dash_duo, answer: dict, index: int) -> dict:
    """Hover the square (row A, column B) of the answer's first pair in cell ``index``; every
    number the hover writes is the JSON's, to the places written."""
    cell = answer["cells"][index]
    pair = next(p for p in cell["pairs"] if p["p"] is not None)
    lines = hover_lines(dash_duo, pairs_css(index), pair["b"], pair["a"])
    assert line_of(lines, "A ") == f"A {pair['a']} · B {pair['b']}"
    means = line_of(lines, "mean A ")
    texts = NUMBER.findall(means)
    assert len(texts) == 2
    for text, exact in zip(texts, (pair["a_mean"], pair["b_mean"])):
        assert close(float(text), exact, text), (means, pair)
    diff = line_of(lines, "B \u2212 A ")
    texts = NUMBER.findall(diff.split(" · ")[0])
    for text, exact in zip(texts, (pair["diff"], pair["ci_low"], pair["ci_high"])):
        assert close(float(text.replace("\u2212", "-")), exact, text), (diff, pair)
    assert diff.endswith(f" · n {pair['n']:,} items")
    assert line_of(lines, "only A right") == (f"only A right {pair['a_only']:,} · only B right "
                                               f"{pair['b_only']:,}")
    test = [line for line in lines.split("\n") if ": p " in line][0]
    p, adjusted = NUMBER.findall(test.split(": p ")[1])
    assert close(float(p), pair["p"], p) and close(float(adjusted), pair["p_adjusted"], adjusted)
    assert ("not distinguishable" in lines) == (not pair["distinguishable"])
    return pair


def check_csv(dash_duo, answer: dict) -> None:
    """The table's CSV (its link) holds the JSON's numbers, row for row."""
    href = dash_duo.find_element("#rank-csv").get_attribute("href")
    parts = urlsplit(href)
    text = fetch_text(dash_duo.server_url, f"{parts.path}?{parts.query}")
    rows = list(csv.DictReader(io.StringIO(text)))
    want = [(c["labels"], m) for c in answer["cells"] for m in c["models"]]
    assert len(rows) == len(want)
    by = answer["by"]
    for row, (labels, m) in zip(rows, want):
        assert all(row[d] == str(v) for d, v in labels.items())
        assert row[by] == m["model"]
        assert float(row["mean"]) == m["mean"]
        assert [float(row["ci_low"]), float(row["ci_high"])] == m["ci"]
        assert int(row["rank"]) == m["rank"]
        if m["rank_ci"] is not None:
            assert [int(row["rank_ci_low"]), int(row["rank_ci_high"])] == m["rank_ci"]
            assert [int(row["rank_set_low"]), int(row["rank_set_high"])] == m["rank_set"]
        assert row["best_or_tied"] == json.dumps(m["best_or_tied"])  # as the JSON writes it


def grid_rows(dash_duo) -> list[dict]:
    script = ("const api = dash_ag_grid.getApi('rank-table'); const out = [];"
              "api.forEachNodeAfterFilterAndSort(n => out.push(n.data)); return out;")
    until(lambda: dash_duo.driver.execute_script(script), timeout=20)
    return dash_duo.driver.execute_script(script)


def click_square(dash_duo, graph_css: str, x: str, y: str) -> None:
    driver = dash_duo.driver
    plot = driver.find_element(By.CSS_SELECTOR, f"{graph_css} .nsewdrag")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});",
                          plot)
    cx, cy = cell_center(driver, graph_css, x, y)
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(round(cx), round(cy))
    actions.pointer_action.click()
    actions.perform()


def in_compare(dash_duo, a: str, b: str, figure: str, by: str, cell_title: str) -> dict:
    """Compare is open on A and B (labels of ``by``) with the cell's items listed."""
    until(lambda: urlsplit(dash_duo.driver.current_url).path == "/compare", timeout=20)
    dash_duo.wait_for_text_to_equal("#compare-items-title", f"Items at {cell_title}",
                                    timeout=30)
    query = parse_qs(urlsplit(dash_duo.driver.current_url).query)
    assert query["a"] == [f"{figure}:{by}={a}"] and query["b"] == [f"{figure}:{by}={b}"]
    return query


# --------------------------------------------------------------------------- the built-in figure

def test_builtin_mmlu_pro_ranks_as_the_api_says(dash_duo, dash_app, tmp_path):
    """Llama-2-7B and 13B on MMLU-Pro, per category: paired, the hover's and the CSV's
    numbers are the JSON's; the where map, the sentences and the notes are the answer's; a
    click on a square lands in Compare on that pair and category, its items open."""
    query = "?figure=mmlu-pro"
    dash_duo.driver.set_window_size(*DESKTOP)
    dash_duo.start_server(dash_app)
    answer = api(dash_duo, query)
    assert answer["basis"] == "items" and len(answer["cells"]) == 14
    open_rank(dash_duo, query)
    assert dash_duo.find_element("#rank-test").text.startswith("Test: exact McNemar test")
    assert "Benjamini-Hochberg over every tested pair of every cell" in \
        dash_duo.find_element("#rank-bh").text
    sentences = [li.text for li in dash_duo.driver.find_elements(By.CSS_SELECTOR,
                                                                 "#rank-sentences li")]
    assert sentences == [row["sentence"] for row in answer["summary"]]
    pair = check_pair_hover(dash_duo, answer, 0)
    # the where map: a model's rank and best-or-tied in a cell, as the JSON says
    cell = answer["cells"][0]
    row = cell["models"][0]
    lines = hover_lines(dash_duo, WHERE, cell["labels"]["category"], row["model"])
    assert f"rank {row['rank']}" in lines
    assert ("not best or tied" not in lines) == row["best_or_tied"]
    # the table shows one row a model a cell; the CSV holds the JSON's numbers
    shown = grid_rows(dash_duo)
    assert [(r["category"], r["model"], r["rank"]) for r in shown] == [
        (c["labels"]["category"], m["model"], m["rank"]) for c in answer["cells"]
        for m in c["models"]]
    check_csv(dash_duo, answer)
    assert non_local_requests(dash_duo.driver) == []
    # a click on a square: Compare on that pair and that cell, its items listed
    click_square(dash_duo, pairs_css(0), pair["b"], pair["a"])
    query = in_compare(dash_duo, pair["a"], pair["b"], "mmlu-pro", "model",
                       f"Category {cell['labels']['category']} · Metric accuracy")
    assert query["cell"] == [f"{cell['labels']['category']}|accuracy"]
    compare = json.loads(fetch_text(dash_duo.server_url,
                                    f"/api/compare?a={quote(query['a'][0])}"
                                    f"&b={quote(query['b'][0])}"))
    paired = next(c["paired"] for c in compare["cells"]
                  if c["category"] == cell["labels"]["category"])
    assert (paired["n"], paired["a_only"], paired["b_only"], paired["p"]) == (
        pair["n"], pair["a_only"], pair["b_only"], pair["p"])  # the same test as Compare's
    assert dash_duo.get_logs() == []


def test_enter_on_a_square_opens_compare(dash_duo, dash_app):
    """Tab to a pair map, arrow to a square, Enter: Compare on that pair and cell."""
    query = "?figure=mmlu-pro&category=law&category=math"
    dash_duo.start_server(dash_app)
    answer = api(dash_duo, query)
    open_rank(dash_duo, query)
    frame = dash_duo.find_element(f".heatmap-keys:has({pairs_css(0)})")
    dash_duo.driver.execute_script("arguments[0].focus()", frame)
    ActionChains(dash_duo.driver).send_keys(Keys.ARROW_RIGHT).perform()  # the first: top-left
    ActionChains(dash_duo.driver).send_keys(Keys.ARROW_RIGHT).perform()  # row A, column B
    models = answer["models"]
    pair = answer["cells"][0]["pairs"][0]
    assert (pair["a"], pair["b"]) == (models[0], models[1])
    # the live region reads the square as its hover does: the JSON's pair, line by line
    live = f".heatmap-panel:has({pairs_css(0)}) .heatmap-live"
    until(lambda: dash_duo.find_element(live).text.startswith(
        f"A {pair['a']} · B {pair['b']} · Category law · Metric accuracy · mean A "), timeout=10)
    said = dash_duo.find_element(live).text
    assert f"only A right {pair['a_only']:,} · only B right {pair['b_only']:,}" in said
    ActionChains(dash_duo.driver).send_keys(Keys.ENTER).perform()
    in_compare(dash_duo, models[0], models[1], "mmlu-pro", "model",
               f"Category {answer['cells'][0]['labels']['category']} · Metric accuracy")


# --------------------------------------------------------------------------- no items

def test_pythia_without_items_says_the_test_is_unpaired(dash_duo, dash_app, tmp_path):
    """Pythia's eight sizes (no per-item records, standard errors): the page says the test is
    unpaired, orders the sizes by size, and its rank cells are the JSON's."""
    dash_duo.driver.set_window_size(*DESKTOP)
    dash_duo.start_server(dash_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/rank?figure=pythia-zero-shot")
    dash_duo.wait_for_element(f"{pairs_css(0)} .main-svg", timeout=60)
    href = dash_duo.find_element("#rank-csv").get_attribute("href")
    query = "?" + urlsplit(href).query.replace("&format=csv", "")
    answer = api(dash_duo, query)
    assert answer["basis"] in ("standard errors", "means")
    test = dash_duo.find_element("#rank-test").text
    assert ("unpaired" in test) if answer["basis"] == "standard errors" else ("none" in test)
    assert "opened on one task and one training step" in dash_duo.find_element("#rank-opened").text
    ticks = dash_duo.driver.execute_script(
        "return document.querySelector(arguments[0]).querySelector('.js-plotly-plot')"
        "._fullLayout.yaxis._categories;", WHERE)
    assert ticks == answer["models"] == ["70m", "160m", "410m", "1b-bf16", "1.4b", "2.8b",
                                         "6.9b", "12b"]
    screenshot(dash_duo.driver, "rank-pythia-1440", tmp_path)
    cell = answer["cells"][0]
    pair = next((p for p in cell["pairs"] if p["p"] is not None), None)
    if pair is not None:
        lines = hover_lines(dash_duo, pairs_css(0), pair["b"], pair["a"])
        assert "unpaired z-test" in lines
        assert "only A right" not in lines  # no items: no counts of them
    check_csv(dash_duo, answer)
    assert dash_duo.get_logs() == []


def test_a_bad_url_is_forgiven_with_a_note(dash_duo, dash_app):
    dash_duo.start_server(dash_app)
    open_rank(dash_duo, "?figure=nope&by=zz&k=x&category=nothing")
    note = dash_duo.find_element("#rank-problems").text
    for said in ("There is no figure 'nope'", "by=zz", "k=x", "Unknown category nothing"):
        assert said in note
    assert dash_duo.get_logs() == []


def test_a_control_changes_the_url_and_back_reopens_the_view(dash_duo, dash_app):
    from tests.browser.helpers import pick_option

    def rows():
        return dash_duo.driver.execute_script(
            "const g = document.querySelector(arguments[0]);"
            "const gd = g && g.querySelector('.js-plotly-plot');"
            "return gd && gd._fullLayout ? gd._fullLayout.yaxis._categories : null;", WHERE)

    dash_duo.start_server(dash_app)
    open_rank(dash_duo, "?figure=mmlu-pro")
    models = api(dash_duo, "?figure=mmlu-pro")["models"]
    until(lambda: rows() == models, timeout=20)
    pick_option(dash_duo, "#rank-by", "Category (14 labels)")
    until(lambda: "by=category" in dash_duo.driver.current_url, timeout=20)
    categories = api(dash_duo, "?figure=mmlu-pro&by=category")["models"]
    until(lambda: rows() == categories, timeout=60)  # the where map ranks categories now
    dash_duo.driver.back()
    until(lambda: "by=category" not in dash_duo.driver.current_url, timeout=20)
    until(lambda: rows() == models, timeout=60)
    # the page drawn anew for back writes no address of its own: forward is still there
    dash_duo.driver.forward()
    until(lambda: "by=category" in dash_duo.driver.current_url, timeout=20)
    until(lambda: rows() == categories, timeout=60)
    assert dash_duo.get_logs() == []


# --------------------------------------------------------------------------- seven models

@pytest.fixture()
def seven(dash_duo, dash_app, tmp_path_factory):
    """The real app with the shared folder's seven MMLU-Pro models as one figure
    (``import-mmlu-pro``), read as ``evalmaps serve --data`` reads it with the options
    test_mmlu_pro_folder.py gives."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the shared MMLU-Pro outputs are not here")
    from evalmaps.catalog.folders import load_folder
    from evalmaps.readers.base import ImportOptions
    from tests.items_fixture import serving

    (figure,) = load_folder(SHARED, cache_dir=tmp_path_factory.mktemp("cache"),
                            options=ImportOptions.parse("question_id", "pred=answer",
                                                       ["model={file}"]))
    with serving(dash_app, [figure]):
        dash_duo.start_server(dash_app)
        yield figure


def test_seven_models_rank_and_a_square_opens_compare(dash_duo, seven, tmp_path):
    figure = seven
    query = f"?figure={figure.id}"
    dash_duo.driver.set_window_size(*DESKTOP)
    answer = api(dash_duo, query)
    assert len(answer["models"]) == 7 and len(answer["cells"]) == 14
    open_rank(dash_duo, query)
    pair = check_pair_hover(dash_duo, answer, 3)
    check_csv(dash_duo, answer)
    sentences = [li.text for li in dash_duo.driver.find_elements(By.CSS_SELECTOR,
                                                                 "#rank-sentences li")]
    assert sentences == [row["sentence"] for row in answer["summary"]]
    dash_duo.driver.execute_script("window.scrollTo(0, 0)")
    screenshot(dash_duo.driver, "rank-1440", tmp_path)
    dash_duo.driver.execute_script(
        "document.getElementById('rank-maps').scrollIntoView({behavior: 'instant'})")
    screenshot(dash_duo.driver, "rank-pairs-1440", tmp_path)
    cell = answer["cells"][3]
    click_square(dash_duo, pairs_css(3), pair["b"], pair["a"])
    in_compare(dash_duo, pair["a"], pair["b"], figure.id, "model",
               f"Category {cell['labels']['category']} · Metric accuracy")
    assert dash_duo.get_logs() == []


def test_seven_models_on_a_phone(dash_duo, seven, tmp_path):
    """390 px: nothing scrolls the page sideways, the where map is in reach, screenshots."""
    dash_duo.driver.set_window_size(*PHONE)
    open_rank(dash_duo, f"?figure={seven.id}")
    screenshot(dash_duo.driver, "rank-390", tmp_path)
    width = dash_duo.driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] == width[1]
    dash_duo.driver.execute_script(
        "document.getElementById('rank-maps').scrollIntoView({behavior: 'instant'})")
    screenshot(dash_duo.driver, "rank-pairs-390", tmp_path)
    assert widened_margins(dash_duo.driver) == []  # each map drawn once
    assert dash_duo.get_logs() == []


# --------------------------------------------------------------------------- fifty models

SIZES = [f"lm-{k / 2:g}b" for k in range(1, 51)]


def fifty_models(tmp_path: Path):
    """A figure of 50 models (sizes 0.5b to 25b, listed shuffled) x 2 cells, 40 items each."""
    import numpy as np

    from tests.items_fixture import item_scores, items_figure

    shuffled = list(np.random.default_rng(5).permutation(SIZES))
    chance = {m: 0.3 + 0.012 * k for k, m in enumerate(SIZES)}
    scores = item_scores(models=shuffled, ys=("easy",), xs=("t1", "t2"), n_items=40,
                         chance=chance, seed=3)
    return items_figure(tmp_path / "items", "fifty", scores, models=shuffled, ys=("easy",),
                        xs=("t1", "t2"))


def test_fifty_models_keep_their_squares_in_natural_order(dash_duo, dash_app, tmp_path):
    """50 models (sizes 0.5b to 25b, listed shuffled): the maps list them by size, each pair
    map keeps squares of at least 30 px and scrolls sideways in its frame, never squeezed."""
    sizes = SIZES
    figure = fifty_models(tmp_path)
    state = dash_app.server.extensions["evalmaps"]
    before = state["catalog"]
    state["catalog"] = before.with_figures([figure])
    try:
        dash_duo.driver.set_window_size(*DESKTOP)
        dash_duo.start_server(dash_app)
        answer = api(dash_duo, "?figure=fifty")
        assert answer["models"] == sizes and len(answer["cells"][0]["pairs"]) == 1225
        open_rank(dash_duo, "?figure=fifty")
        got = dash_duo.driver.execute_script("""
            const frame = document.querySelector(arguments[0]).closest('.rank-map-scroll');
            const gd = document.querySelector(arguments[0]).querySelector('.js-plotly-plot');
            const xa = gd._fullLayout.xaxis;
            return {square: xa._length / xa._categories.length, rows: gd._fullLayout.yaxis._categories,
                    scrolls: frame.scrollWidth > frame.clientWidth,
                    page: document.documentElement.scrollWidth - document.documentElement.clientWidth};
        """, pairs_css(0))
        assert got["rows"] == sizes and got["square"] >= 30
        assert got["scrolls"] and got["page"] == 0
        # every map drawn once: its colour bar had its room (evalmaps.figures.heatmap.place_bar)
        assert widened_margins(dash_duo.driver) == []
        dash_duo.driver.execute_script(
            "document.getElementById('rank-maps').scrollIntoView({behavior: 'instant'})")
        screenshot(dash_duo.driver, "rank-fifty-1440", tmp_path)
        assert dash_duo.get_logs() == []
    finally:
        state["catalog"] = before


def far_map_heights(dash_duo, index: int, screen: tuple[int, int]) -> tuple[dict, dict]:
    """Pair map ``index``'s box height, top and drawn figure height while it is far below the
    screen (skipped by the browser, content-visibility), then once scrolled to."""
    measure = """
        const host = document.querySelector(arguments[0]);
        const gd = host.querySelector('.js-plotly-plot');
        return {box: host.getBoundingClientRect().height, top: host.getBoundingClientRect().top,
                drawn: gd._fullLayout.height};"""
    dash_duo.wait_for_element(f"{pairs_css(index)} .main-svg", timeout=30)
    far = dash_duo.driver.execute_script(measure, pairs_css(index))
    assert far["top"] > screen[1] + 1000  # far below the screen: not laid out yet
    dash_duo.driver.execute_script(
        "document.querySelector(arguments[0]).scrollIntoView({behavior: 'instant'})",
        pairs_css(index))
    dash_duo.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "requestAnimationFrame(() => requestAnimationFrame(() => done()));")
    near = dash_duo.driver.execute_script(measure, pairs_css(index))
    assert near["top"] < screen[1]  # on the screen now
    return far, near


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440", "390"])
def test_a_far_pair_map_keeps_its_height_when_scrolled_to(dash_duo, dash_app, tmp_path, size):
    """50 models: the second pair map, far below the screen (skipped by the browser until it
    comes near), takes the height it is drawn at before it is scrolled to, and the same after
    (its upright x labels' room reserved by the server): nothing below it moves."""
    state = dash_app.server.extensions["evalmaps"]
    before = state["catalog"]
    state["catalog"] = before.with_figures([fifty_models(tmp_path)])
    try:
        dash_duo.driver.set_window_size(*size)
        dash_duo.start_server(dash_app)
        open_rank(dash_duo, "?figure=fifty")
        far, near = far_map_heights(dash_duo, 1, size)
        assert far["drawn"] > 1600 and near["drawn"] == far["drawn"]
        assert far["box"] == near["box"] == far["drawn"] + 10  # the frame: border and padding
        assert dash_duo.get_logs() == []
    finally:
        state["catalog"] = before


def test_a_far_pair_map_of_few_models_keeps_its_height_on_a_phone(dash_duo, dash_app):
    """Seven models on a phone: the maps share no row, each as wide as the screen, which the
    server does not know; their x labels stand upright and the map is drawn taller than the
    server reserved. The browser reserves the drawn height before it draws (evalmaps-fit.js),
    so a far map is as tall before it is scrolled to as after."""
    dash_duo.driver.set_window_size(*PHONE)
    dash_duo.start_server(dash_app)
    open_rank(dash_duo, "?figure=mmlu-pro")
    far, near = far_map_heights(dash_duo, 12, PHONE)
    reserved = dash_duo.driver.execute_script(
        "return parseFloat(document.querySelector(arguments[0]).style.minHeight)", pairs_css(12))
    assert near["drawn"] == far["drawn"] and reserved == far["drawn"] + 10
    assert far["box"] == near["box"] == far["drawn"] + 10
    assert dash_duo.get_logs() == []
