"""Each panel's own metric in a real headless Chromium against a real gunicorn (issue 9): the
built-in Pythia figure with pct=1 (fractions as percent), and the lm-evaluation-harness files of
../shared/external/lm-eval as a data folder (perplexity and bits per byte: lower is better,
reversed colours, log colours)."""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
from pathlib import Path

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.by import By

from evalmaps.figures.compare import DELTA_COLORSCALE
from evalmaps.figures.theme import UNIFORM_SCALE, colorscale_of, reversed_stops
from tests.browser.helpers import graph_selector, hover_cell, screenshot
from tests.servers import start_app_gunicorn, stop_gunicorn, wait_until_serving
from tests.unit.test_metric_display import write_mixed

pytestmark = [pytest.mark.browser, pytest.mark.server]

ROOT = Path(__file__).resolve().parents[2]
LM_EVAL = ROOT.parent / "shared" / "external" / "lm-eval"
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
SHOTS = os.environ.get("EVALMAPS_SCREENSHOTS")


def get_json(base: str, path: str) -> dict:
    with OPENER.open(base + path, timeout=5) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """gunicorn (one worker) serving the built-in figures and the lm-eval results files."""
    if not LM_EVAL.is_dir():
        pytest.skip("../shared/external/lm-eval is absent")
    tmp = tmp_path_factory.mktemp("metrics")
    folder = tmp / "lm-eval"
    folder.mkdir()
    for path in LM_EVAL.glob("*.json"):
        shutil.copy(path, folder / path.name)
    mixed = tmp / "mixed"
    write_mixed(mixed, provenance="illustrative",
                title="Made-up accuracies and perplexities (a test fixture)")
    log = tmp / "gunicorn.log"
    proc, base = start_app_gunicorn({
        "EVALMAPS_EXTRA_DATA": os.pathsep.join([str(folder), str(mixed)]),
        "EVALMAPS_CACHE": "off", "EVALMAPS_STORE": str(tmp / "store")}, log)
    workers: list[int] = []
    try:
        workers = wait_until_serving(proc, lambda: get_json(base, "/healthz")["status"] == "ok",
                                     lambda: log.read_text(errors="replace")[-4000:], 30, 1)
        figures = get_json(base, "/api/figures")
        ids = [f["id"] for f in (figures["figures"] if isinstance(figures, dict) else figures)]
        yield base, next(i for i in ids if i.startswith("import-lm-eval"))
    finally:
        assert stop_gunicorn(proc, workers, 10) == []


def drawn(driver, css: str) -> dict:
    """What Plotly drew for a heatmap's values: its colour scale's first stop (reversed scales
    are drawn as reversed stops), the range, colour bar ticks and title."""
    return driver.execute_script(
        """
        const gd = document.querySelector(arguments[0]).querySelector('.js-plotly-plot');
        const t = gd._fullData[0];
        const ticks = Array.from(gd.querySelectorAll('.colorbar .cbaxis text, .cbaxis text'))
            .map(e => e.textContent);
        return {first_stop: t.colorscale[0][1], zmin: t.zmin, zmax: t.zmax,
                title: t.colorbar.title.text, ticks: ticks};
        """, css)


REVERSED = reversed_stops(colorscale_of(UNIFORM_SCALE))[0][1]  # lower is better: best on top
REVERSED_DELTA = reversed_stops(colorscale_of(DELTA_COLORSCALE))[0][1]


def test_pythia_fractions_as_percent(server, dash_duo, tmp_path):
    base, _ = server
    driver = dash_duo.driver
    driver.set_window_size(1400, 1000)
    driver.get(base + "/?figure=pythia-zero-shot&pct=1&color=fixed")
    css = graph_selector("browse", "arc-challenge-acc")
    dash_duo.wait_for_element(f"{css} .main-svg", timeout=20)
    # arc_challenge, acc, 70m, step 0: 0.21416382252559726 in the data file, se 0.0119883832...
    hover = hover_cell(dash_duo, css, "0", "70m")
    assert "acc 21.42% ± 1.20% se" in hover
    bar = drawn(driver, css)
    assert (bar["first_stop"] == REVERSED, bar["zmin"], bar["zmax"], bar["title"]) == (
        False, 0, 1, "acc (%)")
    assert bar["ticks"] == ["0%", "20%", "40%", "60%", "80%", "100%"]
    assert dash_duo.find_element("#browse-pct").is_selected()
    # the API stays raw
    cells = get_json(base, "/api/figures/pythia-zero-shot/cells?task=arc_challenge&metric=acc"
                           "&model=70m&step=0")
    assert [c["value"] for c in cells["cells"]] == [0.21416382252559726]
    screenshot(driver, "metrics-browse-pct-1400", Path(SHOTS) if SHOTS else tmp_path)
    driver.get(base + "/trends?figure=pythia-zero-shot&pct=1&threshold=0.25")
    dash_duo.wait_for_element("#trends-observations-list", timeout=20)
    assert "25%" in dash_duo.find_element("#trends-observations").text
    screenshot(driver, "metrics-trends-pct-1400", Path(SHOTS) if SHOTS else tmp_path)
    driver.set_window_size(390, 1000)
    driver.get(base + "/?figure=pythia-zero-shot&pct=1")
    dash_duo.wait_for_element(f"{css} .main-svg", timeout=20)
    screenshot(driver, "metrics-browse-pct-390", Path(SHOTS) if SHOTS else tmp_path)
    assert dash_duo.get_logs() == [], "browser console errors"


def test_lm_eval_lower_is_better_reversed_and_log(server, dash_duo, tmp_path):
    base, fid = server
    driver = dash_duo.driver
    driver.set_window_size(1400, 1000)
    driver.get(base + f"/?figure={fid}")
    ppl = graph_selector("browse", "perplexity")
    acc = graph_selector("browse", "acc")
    dash_duo.wait_for_element(f"{ppl} .main-svg", timeout=20)
    assert drawn(driver, ppl)["first_stop"] == REVERSED
    assert drawn(driver, ppl)["title"] == "perplexity"
    assert "perplexity · lower is better" in driver.find_element(By.CSS_SELECTOR, ppl).text
    assert drawn(driver, acc)["first_stop"] == colorscale_of(UNIFORM_SCALE)[0][1]
    assert "Lower is better for bits_per_byte, byte_perplexity, perplexity, word_perplexity" \
        in dash_duo.find_element("#browse-scale-note").text
    # log colours: the switch writes the URL; the hover shows the value, ticks its units
    driver.find_element(By.CSS_SELECTOR, "label[for='browse-log']").click()
    until(lambda: "zscale=log" in driver.current_url, timeout=10)
    until(lambda: drawn(driver, ppl)["title"] == "perplexity (log)", timeout=10)
    assert drawn(driver, ppl)["ticks"] == ["200", "500", "1000"]
    hover = hover_cell(dash_duo, ppl, "lambada_openai", "lm-eval")
    assert "perplexity 605.5452 (lower is better)" in hover
    assert "acc keeps linear colours" in dash_duo.find_element("#browse-scale-note").text \
        or "acc, acc_norm keep linear colours" in dash_duo.find_element("#browse-scale-note").text
    screenshot(driver, "metrics-browse-lmeval-log-1400", Path(SHOTS) if SHOTS else tmp_path)
    driver.set_window_size(390, 1000)
    driver.get(base + f"/?figure={fid}&zscale=log")
    dash_duo.wait_for_element(f"{ppl} .main-svg", timeout=20)
    screenshot(driver, "metrics-browse-lmeval-log-390", Path(SHOTS) if SHOTS else tmp_path)
    driver.set_window_size(1400, 1000)
    driver.get(base + f"/trends?figure={fid}")
    dash_duo.wait_for_element("#trends-observations-list", timeout=20)
    assert ("Every reported perplexity cell is 605.5452."  # one cell: best and worst alike
            in dash_duo.find_element("#trends-observations").text)
    assert "Best (lowest: lower is better) 605.5452" in dash_duo.find_element(
        "#trends-panels").text
    screenshot(driver, "metrics-trends-lmeval-1400", Path(SHOTS) if SHOTS else tmp_path)
    assert dash_duo.get_logs() == [], "browser console errors"


def test_compare_lower_is_better_says_better_and_worse(server, dash_duo, tmp_path):
    """Two made-up perplexity panels (the unit tests' fixture, served as illustrative)."""
    base, _ = server
    driver = dash_duo.driver
    driver.set_window_size(1400, 1000)
    driver.get(base + "/compare?a=mixed:perplexity-r1&b=mixed:perplexity-r2")
    delta = '[id=\'{"panel":"delta","type":"compare-heatmap"}\']'
    dash_duo.wait_for_element(f"{delta} .main-svg", timeout=20)
    assert dash_duo.find_element("#compare-sentences").text.startswith(
        "perplexity | r2 is better (lower) than perplexity | r1 in 3 of 9 cells (2 equal), and "
        "lower by 0.33 on average over cells (better).")
    assert dash_duo.find_element("#compare-higher").text == (
        "in 3 of 9 cells (2 equal, 4 worse (higher)); lower is better")
    assert drawn(driver, delta)["first_stop"] == REVERSED_DELTA
    hover = hover_cell(dash_duo, delta, "2", "m2")
    assert "B − A -5 (lower is better: − means B better)" in hover
    until(lambda: "(B better: lower is better)" in dash_duo.find_element(
        "#compare-readout").text, timeout=5)
    screenshot(driver, "metrics-compare-lower-1400", Path(SHOTS) if SHOTS else tmp_path)
    driver.set_window_size(390, 1000)
    driver.get(base + "/compare?a=pythia-zero-shot:arc-challenge-acc"
                      "&b=pythia-zero-shot:arc-easy-acc&pct=1")
    dash_duo.wait_for_element(f"{delta} .main-svg", timeout=20)
    assert dash_duo.find_element("#compare-pct").is_selected()
    screenshot(driver, "metrics-compare-pct-390", Path(SHOTS) if SHOTS else tmp_path)
    driver.set_window_size(1400, 1000)
    driver.get(base + "/compare?a=pythia-zero-shot:arc-challenge-acc"
                      "&b=pythia-zero-shot:arc-easy-acc&pct=1")
    dash_duo.wait_for_element(f"{delta} .main-svg", timeout=20)
    screenshot(driver, "metrics-compare-pct-1400", Path(SHOTS) if SHOTS else tmp_path)
    assert dash_duo.get_logs() == [], "browser console errors"
