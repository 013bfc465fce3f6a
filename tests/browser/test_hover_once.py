"""Hover text is written once (evalmaps.figures.hover): a real mouse over the same cell reads the
same words on the live Browse page and on the static site's page of the figure (evalmaps bundle),
for a plain cell, a cell with a standard error, an unreported cell and an illustrative figure's
cell. (A figure with per-item records is left out: the live page adds what its items give, a
standard error and the item counts, and the static site does not carry the items.)

Compare's too (evalmaps.figures.compare): the same cell of A, B and B − A reads the same words on
the live /compare page and on the site's Compare page, for a plain pair, a pair with standard
errors, a pair tested on its items (the paired test and the power lines) and a cell B does not
report."""

from __future__ import annotations

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from evalmaps.service import bundle
from tests.browser.helpers import graph_selector, hover_cell

pytestmark = pytest.mark.browser

# figure, panel, the view (the live page's query and the site's fragment), x label, y label
CELLS = [
    ("dynts-llama-vs-qwen", "r1-qwen", "", "0.4", "2000"),
    ("pythia-zero-shot", "arc-challenge-acc", "", "1", "70m"),
    ("dynts-r1-llama-benchmarks", "r1-llama-amc23", "benchmark=AMC23", "0.3", "2000"),
    ("acemath-training-progress", "gsm8k", "benchmark=GSM8K", "1", "32b"),
]


# A, B (the site's Compare pages in this order), x label, y label, the maps read (the site's A
# map holds the common cells: it leaves blank, without a hover, a cell only A reports)
PAIRS = [
    ("dynts-llama-vs-qwen:r1-llama", "dynts-llama-vs-qwen:r1-qwen", "0.4", "2000", "a b delta"),
    ("pythia-zero-shot:arc-easy-acc", "pythia-zero-shot:arc-easy-acc-norm", "1", "70m",
     "a b delta"),
    ("mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b", "accuracy", "biology", "a b delta"),
    ("dynts-llama-vs-qwen:r1-llama", "dynts-r1-llama-benchmarks:r1-llama-amc23", "0.3", "2000",
     "b delta"),
]


def readout_of(driver, x: str) -> str:
    """Compare's readout line once it says the hovered cell (its column ``x``)."""
    until(lambda: f" {x} — " in driver.find_element(By.ID, "compare-readout").text, timeout=5)
    return driver.find_element(By.ID, "compare-readout").text


@pytest.fixture(scope="module")
def site(tmp_path_factory, catalog):
    out = tmp_path_factory.mktemp("bundle") / "site"
    bundle.write_site(catalog, out, figure_ids=sorted({c[0] for c in CELLS}),
                      pairs=[(a, b) for a, b, *_ in PAIRS])
    return out


def test_a_cells_hover_reads_the_same_live_and_in_the_static_site(dash_duo, dash_app, site):
    dash_duo.start_server(dash_app)
    driver = dash_duo.driver
    read = {}
    for figure, panel, view, x, y in CELLS:
        dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?figure={figure}"
                                   + (f"&{view}" if view else ""))
        css = graph_selector("browse", panel)
        dash_duo.wait_for_element(f"{css} .nsewdrag", timeout=15)
        live = hover_cell(dash_duo, css, x, y)
        driver.get((site / f"figures/{figure}.html").as_uri() + (f"#{view}" if view else ""))
        static_css = f'.heatmap-panel[data-panel="{panel}"]'
        until(lambda: driver.find_elements(By.CSS_SELECTOR, f"{static_css} .nsewdrag"),
              timeout=20)
        static = hover_cell(dash_duo, static_css, x, y)
        read[figure] = live
        assert static == live, (figure, panel, x, y)
    # the cases are what they claim to be
    assert "Pass@1 56.3" in read["dynts-llama-vs-qwen"]
    assert " ± " in read["pythia-zero-shot"] and " se" in read["pythia-zero-shot"]
    assert "not reported" in read["dynts-r1-llama-benchmarks"]
    assert "ILLUSTRATIVE" in read["acemath-training-progress"]
    assert dash_duo.get_logs() == []


def test_a_compare_cells_hover_reads_the_same_live_and_in_the_static_site(dash_duo, dash_app,
                                                                          site):
    dash_duo.start_server(dash_app)
    driver = dash_duo.driver
    read = {}
    for k, (a, b, x, y, maps) in enumerate(PAIRS, 1):
        dash_duo.wait_for_page(url=f"{dash_duo.server_url}/compare?a={a}&b={b}")
        dash_duo.wait_for_element(f'{graph_selector("compare", "delta")} .nsewdrag', timeout=20)
        live = {m: hover_cell(dash_duo, graph_selector("compare", m), x, y)
                for m in maps.split()}  # B − A last: the readout is its cell's
        live["readout"] = readout_of(driver, x)
        driver.get((site / f"compare/{k}.html").as_uri())
        until(lambda: len(driver.find_elements(
            By.CSS_SELECTOR, ".heatmap-panel[data-map] .nsewdrag")) == 3, timeout=20)
        static = {m: hover_cell(dash_duo, f'.heatmap-panel[data-map="{m}"]', x, y)
                  for m in maps.split()}
        static["readout"] = readout_of(driver, x)
        read[k] = live
        assert static == live, (a, b, x, y)
    # the cases are what they claim to be
    assert read[1]["a"].startswith("Local Window Size 2000 · Ratio 0.4")
    assert "Pass@1 52.5" in read[1]["a"] and "Pass@1 56.3" in read[1]["b"]
    assert "B − A +3.8" in read[1]["delta"] and "A 52.5 · B 56.3" in read[1]["delta"]
    assert " se" in read[2]["a"] and "SE " in read[2]["delta"]
    assert "paired" in read[3]["delta"] and "smallest difference" in read[3]["delta"]
    assert "not reported" in read[4]["b"] and "not comparable" in read[4]["delta"]
    # the line under the maps (the readout) is worded once (evalmaps-hover.js's ``readout``,
    # from evalmaps.figures.compare.readouts): the same on both pages, for the same cases
    assert read[1]["readout"] == ("Local Window Size 2000 · Ratio 0.4 — A 52.5 · B 56.3 · "
                                  "B − A +3.8"), read[1]["readout"]
    assert " · SE " in read[2]["readout"], read[2]["readout"]
    assert (" · paired, " in read[3]["readout"]
            and "smallest difference these" in read[3]["readout"]), read[3]["readout"]
    assert ("B not reported" in read[4]["readout"]
            and "B − A not comparable" in read[4]["readout"]), read[4]["readout"]
    # the site's A map (the page open) draws that cell blank, and no hover there gives a value
    held = driver.execute_script(
        "const gd = document.querySelector('.heatmap-panel[data-map=\"a\"] .js-plotly-plot');"
        "return gd.data.map(t => t.z[1][2]);")  # row 2000, column 0.3
    assert held[0] is None and all(v is None for v in held[1:]), held
    assert dash_duo.get_logs() == []


def test_the_keyboard_says_a_site_compare_cell_as_its_hover_does(dash_duo, site):
    """The site's Compare maps' keyboard (evalmaps-keys.js) reads a cell from the hover's own
    template and values: its live region says the cell's words with its value filled in."""
    driver = dash_duo.driver
    driver.get((site / "compare/1.html").as_uri())
    until(lambda: len(driver.find_elements(
        By.CSS_SELECTOR, ".heatmap-panel[data-map] .nsewdrag")) == 3, timeout=20)
    said = {}
    for m in ("a", "delta"):
        frame = driver.find_element(By.CSS_SELECTOR, f'.heatmap-panel[data-map="{m}"] .heatmap-keys')
        driver.execute_script("arguments[0].focus();", frame)
        frame.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_DOWN)  # Ratio 0.2, Local Window Size 2000
        live = driver.find_element(By.CSS_SELECTOR, f'.heatmap-panel[data-map="{m}"] .heatmap-live')
        until(lambda: "Ratio 0.2" in live.text, timeout=5)
        said[m] = live.text
    assert said == {"a": "Local Window Size 2000 · Ratio 0.2 · Pass@1 51.7 · A: R1-Llama",
                    "delta": "Local Window Size 2000 · Ratio 0.2 · B − A +0.2 · A 51.7 · B 51.9"}
    # a keyboard move on B − A writes the readout line of the cell it lands on, as a hover does
    driver.get((site / "compare/3.html").as_uri())
    until(lambda: len(driver.find_elements(
        By.CSS_SELECTOR, ".heatmap-panel[data-map] .nsewdrag")) == 3, timeout=20)
    frame = driver.find_element(By.CSS_SELECTOR, '.heatmap-panel[data-map="delta"] .heatmap-keys')
    driver.execute_script("arguments[0].focus();", frame)
    frame.send_keys(Keys.ARROW_RIGHT)
    until(lambda: " — A " in driver.find_element(By.ID, "compare-readout").text, timeout=5)
    assert " · paired, " in driver.find_element(By.ID, "compare-readout").text
