"""Hover text is written once (evalmaps.figures.hover): a real mouse over the same cell reads the
same words on the live Browse page and on the static site's page of the figure (evalmaps bundle),
for a plain cell, a cell with a standard error, an unreported cell and an illustrative figure's
cell. (A figure with per-item records is left out: the live page adds what its items give, a
standard error and the item counts, and the static site does not carry the items.)"""

from __future__ import annotations

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.by import By

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


@pytest.fixture(scope="module")
def site(tmp_path_factory, catalog):
    out = tmp_path_factory.mktemp("bundle") / "site"
    bundle.write_site(catalog, out, figure_ids=sorted({c[0] for c in CELLS}), pairs=[])
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
