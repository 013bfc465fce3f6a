"""The static bundle (evalmaps bundle) opened from file:// in a real headless Chromium: pages open
with no console error and load nothing from outside the site, a real mouse hover reads the seed
values, the menus and the fragment hold the view (back and forward too), the Table toggle holds
the live API's cells, a Compare page's summary is /api/compare's, and a figure of a million
cells opens with hover."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from dash.testing.wait import until
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from evalmaps.catalog.folders import load_folder
from evalmaps.core import text as fmt
from evalmaps.core.figure import Catalog
from evalmaps.service import bundle
from tests.browser.helpers import hover_cell

PAIR = ("dynts-llama-vs-qwen:r1-llama", "dynts-llama-vs-qwen:r1-qwen")
SE_PAIR = ("pythia-zero-shot:arc-easy-acc", "pythia-zero-shot:arc-easy-acc-norm")  # with se
SEED = "dynts-llama-vs-qwen"
PAIRED = ("mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b")  # per-item records: the paired test


def summary_numbers(driver) -> dict:
    """The Compare page's folded summary numbers (their text, shown or not)."""
    return {k: json.loads(v) for k, v in driver.execute_script(
        "return Array.from(document.querySelectorAll('#compare-summary dd'))"
        ".map(e => [e.getAttribute('data-key'), e.textContent]);")}


@pytest.fixture(scope="module")
def site(tmp_path_factory, catalog):
    out = tmp_path_factory.mktemp("bundle") / "site"
    bundle.write_site(catalog, out, pairs=[PAIR, SE_PAIR, PAIRED])
    return out


def panel_css(slug: str) -> str:
    return f'.heatmap-panel[data-panel="{slug}"]'


def open_page(dash_duo, url: str, panels: int = 1) -> None:
    dash_duo.driver.get(url)
    until(lambda: len(dash_duo.driver.find_elements(
        By.CSS_SELECTOR, ".heatmap-panel .js-plotly-plot .nsewdrag")) >= panels, timeout=20)


def outside(driver, site) -> list[str]:
    """Every URL the page loaded that is not a file of the site."""
    root = site.resolve().as_uri() + "/"
    urls = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).concat([location.href]);")
    return [u for u in urls if not u.startswith(root)]


def shown_panels(driver) -> list[str]:
    return [e.get_attribute("data-panel")
            for e in driver.find_elements(By.CSS_SELECTOR, "#panels .heatmap-panel")]


def test_every_page_opens_with_no_error_and_nothing_from_outside(dash_duo, site, catalog):
    driver = dash_duo.driver
    driver.get((site / "index.html").as_uri())
    cards = driver.find_elements(By.CSS_SELECTOR, ".figure-card")
    assert len(cards) == len(catalog)
    assert outside(driver, site) == []
    for figure in catalog:
        open_page(dash_duo, (site / f"figures/{figure.id}.html").as_uri())
        assert outside(driver, site) == [], figure.id
        assert dash_duo.get_logs() == [], figure.id
    open_page(dash_duo, (site / "compare/1.html").as_uri(), panels=3)
    assert outside(driver, site) == []
    assert dash_duo.get_logs() == []


def test_a_mouse_hover_reads_the_seed_values(dash_duo, site):
    open_page(dash_duo, (site / f"figures/{SEED}.html").as_uri(), panels=2)
    llama = hover_cell(dash_duo, panel_css("r1-llama"), "0.3", "2000")
    # the label's lines (SVG tspans) read as one text
    assert llama == "Local Window Size 2000 · Ratio 0.3 · Pass@1 52.8Model R1-Llama"
    qwen = hover_cell(dash_duo, panel_css("r1-qwen"), "0.4", "2000")
    assert qwen == "Local Window Size 2000 · Ratio 0.4 · Pass@1 56.3Model R1-Qwen"
    # the keyboard readout says the cell as the hover writes it
    frame = dash_duo.driver.find_element(By.CSS_SELECTOR, f"{panel_css('r1-llama')} .heatmap-keys")
    frame.send_keys(Keys.ARROW_RIGHT)  # focus: the top-left cell; then one to the right
    live = f"{panel_css('r1-llama')} .heatmap-live"
    until(lambda: "Ratio 0.2" in dash_duo.find_element(live).get_attribute("textContent"), timeout=5)
    assert dash_duo.find_element(live).get_attribute("textContent") == \
        "Local Window Size 3000 · Ratio 0.2 · Pass@1 50.1 · Model R1-Llama"


def test_menus_and_the_fragment_hold_the_view(dash_duo, site):
    driver = dash_duo.driver
    url = (site / f"figures/{SEED}.html").as_uri()
    open_page(dash_duo, url, panels=2)
    assert shown_panels(driver) == ["r1-llama", "r1-qwen"]
    Select(driver.find_element(By.ID, "facet-model")).deselect_by_visible_text("R1-Llama")
    until(lambda: shown_panels(driver) == ["r1-qwen"], timeout=5)
    assert driver.execute_script("return location.hash") == "#model=R1-Qwen"
    driver.execute_script("const x = document.getElementById('xmin'); x.value = '0.2';"
                          "x.dispatchEvent(new Event('change', {bubbles: true}));")
    until(lambda: driver.execute_script("return location.hash") == "#model=R1-Qwen&xmin=0.2",
          timeout=5)
    ticks = lambda: driver.execute_script(  # noqa: E731
        "return document.querySelector('#panels .js-plotly-plot')._fullLayout.xaxis._categories")
    until(lambda: ticks() == ["0.2", "0.3", "0.4", "0.5"], timeout=5)
    driver.back()
    until(lambda: driver.execute_script("return location.hash") == "#model=R1-Qwen", timeout=5)
    until(lambda: ticks() == ["0.1", "0.2", "0.3", "0.4", "0.5"], timeout=5)
    driver.back()
    until(lambda: shown_panels(driver) == ["r1-llama", "r1-qwen"], timeout=5)
    driver.forward()
    until(lambda: shown_panels(driver) == ["r1-qwen"], timeout=5)
    # a link to a view reopens it, menus included
    driver.get(url + "#model=R1-Llama&sort=mean&top=2")
    driver.refresh()
    open_page(dash_duo, driver.current_url)
    assert shown_panels(driver) == ["r1-llama"]
    assert Select(driver.find_element(By.ID, "sort")).first_selected_option.get_attribute("value") == "mean"
    assert dash_duo.get_logs() == []


def test_the_table_toggle_holds_the_live_apis_cells(dash_duo, site, client, catalog):
    driver = dash_duo.driver
    fragment = "model=R1-Qwen&xmin=0.2&xmax=0.4&sort=mean"
    open_page(dash_duo, (site / f"figures/{SEED}.html").as_uri() + "#" + fragment)
    driver.find_element(By.CSS_SELECTOR, f"{panel_css('r1-qwen')} .heatmap-table-toggle").click()
    table = f"{panel_css('r1-qwen')} .heatmap-data-table"
    dash_duo.wait_for_element(table)
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0] + ' tbody tr')).map(tr => "
        "Array.from(tr.children).map(td => td.textContent));", table)
    cols = driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0] + ' thead tr:last-child th'))"
        ".slice(1).map(th => th.textContent);", table)
    api = client.get(f"/api/figures/{SEED}/cells?model=R1-Qwen&ratio=0.2&ratio=0.3&ratio=0.4").json
    decimals = catalog.figure(SEED).decimals
    expected = {(c["window"], c["ratio"]): fmt.number(c["value"], decimals) for c in api["cells"]}
    assert cols == ["0.2", "0.3", "0.4"]
    got = {(row[0], col): text for row in rows for col, text in zip(cols, row[1:])}
    assert got == expected
    # rows by mean, best first: the live view's order
    means = {w: np.mean([c["value"] for c in api["cells"] if c["window"] == w]) for w, _ in expected}
    assert [row[0] for row in rows] == sorted(means, key=lambda w: -means[w])


def test_a_compare_pages_summary_is_the_compare_apis(dash_duo, site, client):
    driver = dash_duo.driver
    open_page(dash_duo, (site / "compare/1.html").as_uri(), panels=3)
    api = client.get(f"/api/compare?a={PAIR[0]}&b={PAIR[1]}").json
    assert summary_numbers(driver) == api["summary"]
    sentences = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#compare-sentences li")]
    assert sentences == api["sentences"]
    # a hover on A outlines the cell on B and B - A, and the readout says it
    hover_cell(dash_duo, '.heatmap-panel[data-map="a"]', "0.4", "2000")
    until(lambda: "Ratio 0.4" in driver.find_element(By.ID, "compare-readout").text, timeout=5)
    assert driver.find_element(By.ID, "compare-readout").text == \
        "Local Window Size 2000 · Ratio 0.4 — A 52.5 · B 56.3 · B − A +3.8"
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('.compare-outline')).map(o => !o.hidden)")
    assert shown == [False, True, True]


def test_a_figure_of_a_million_cells_opens_with_hover(dash_duo, tmp_path):
    folder = tmp_path / "big"
    folder.mkdir()
    n = 1000
    rng = np.random.default_rng(7)
    values = np.round(rng.uniform(0, 100, n * n), 1)
    rows = np.repeat(np.arange(n), n)
    cols = np.tile(np.arange(n), n)
    lines = ["row,col,value"] + [f"r{r},{c},{v}" for r, c, v in zip(rows.tolist(), cols.tolist(),
                                                                    values.tolist())]
    (folder / "big.csv").write_text("\n".join(lines) + "\n")
    figures = load_folder(folder)
    assert figures[0].n_cells == n * n
    out = tmp_path / "site"
    bundle.write_site(Catalog(figures), out)
    fid = figures[0].id
    open_page(dash_duo, (out / f"figures/{fid}.html").as_uri())
    spec = figures[0].spec
    x, y = spec.dims[spec.x].labels[500], spec.dims[spec.y].labels[250]  # 'r250'
    text = hover_cell(dash_duo, ".heatmap-panel", x, y, timeout=30)
    # cells are under a pixel high: the hover names the cell under the pointer, whose value
    # it must give exactly
    match = re.fullmatch(r"Row (r\d+) · Col (\d+) · Accuracy ([\d.]+)%", text)
    assert match, text
    row, col, shown = match.groups()
    assert abs(int(row[1:]) - 250) <= 2 and col == x
    assert shown == f"{figures[0].value(**{spec.y: row, spec.x: col}):.1f}"
    assert dash_duo.get_logs() == []


def test_distinguishable_differences_are_outlined(dash_duo, site, client):
    open_page(dash_duo, (site / "compare/2.html").as_uri(), panels=3)
    api = client.get(f"/api/compare?a={SE_PAIR[0]}&b={SE_PAIR[1]}").json
    assert api["summary"]["n_with_se"] > 0
    dims = api["dims"]
    expected = sorted((dims["y"]["labels"].index(c[dims["y"]["name"]]),
                       dims["x"]["labels"].index(c[dims["x"]["name"]]))
                      for c in api["cells"] if c["distinguishable"])
    assert expected
    shapes = dash_duo.driver.execute_script(
        "const gd = document.querySelector('.heatmap-panel[data-map=\"delta\"] .js-plotly-plot');"
        "return gd.layout.shapes.map(s => [s.y0 + 0.5, s.x0 + 0.5]);")
    assert sorted(tuple(round(v) for v in s) for s in shapes) == expected
    assert summary_numbers(dash_duo.driver) == api["summary"]
    assert dash_duo.get_logs() == []


def test_a_paired_compare_page_outlines_and_reads_the_paired_test(dash_duo, site, client):
    """Issue 37, a new user 4: a bundled Compare of two figures with per-item records shows
    what the app shows: outlines where the paired test calls a cell, the paired line in the
    readout, the sentences, and the numbers folded away (no raw keys on the page)."""
    driver = dash_duo.driver
    open_page(dash_duo, (site / "compare/3.html").as_uri(), panels=3)
    api = client.get(f"/api/compare?a={PAIRED[0]}&b={PAIRED[1]}").json
    dims = api["dims"]
    called = sorted((dims["y"]["labels"].index(c[dims["y"]["name"]]),
                     dims["x"]["labels"].index(c[dims["x"]["name"]]))
                    for c in api["cells"] if c["paired"]["p_adjusted"] < 0.05)
    assert called and len(called) < len(api["cells"])
    shapes = driver.execute_script(
        "const gd = document.querySelector('.heatmap-panel[data-map=\"delta\"] .js-plotly-plot');"
        "return gd.layout.shapes.map(s => [s.y0 + 0.5, s.x0 + 0.5]);")
    assert sorted(tuple(round(v) for v in s) for s in shapes) == called
    assert summary_numbers(driver) == api["summary"]
    assert not driver.find_element(By.CSS_SELECTOR, "#compare-summary details").get_attribute("open")
    assert "paired test" in driver.find_element(By.ID, "compare-outlines").text
    sentences = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#compare-sentences li")]
    assert sentences == api["sentences"]
    biology = next(c for c in api["cells"] if "biology" in c.values())
    hover_cell(dash_duo, '.heatmap-panel[data-map="a"]', biology[dims["x"]["name"]],
               biology[dims["y"]["name"]])
    until(lambda: "paired" in driver.find_element(By.ID, "compare-readout").text, timeout=5)
    readout = driver.find_element(By.ID, "compare-readout").text
    p = biology["paired"]
    assert f"paired, {p['n']} items: " in readout and "exact McNemar" in readout, readout
    assert dash_duo.get_logs() == []


def test_labels_are_text_not_markup(dash_duo, tmp_path):
    """Issue 37, red team 4: a category '<a href=...>clickme</a>' was a clickable link in the
    bundle's figure and compare pages; it reads as the text it is, as the live app shows it."""
    folder = tmp_path / "hostile"
    folder.mkdir()
    label = '<a href="https://evil.example/">clickme</a>'
    quoted = '"' + label.replace('"', '""') + '"'
    rows = ["model,split,task,value"] + [f'{m},{s},{t},{v}' for m in ("m1", "m2")
                                          for s in ("dev", "test")
                                          for t, v in ((quoted, 0.5), ("plain", 0.25))]
    (folder / "hostile.csv").write_text("\n".join(rows) + "\n")
    figures = load_folder(folder)
    out = tmp_path / "site"
    fid = figures[0].id
    panels = list(figures[0].panels)
    bundle.write_site(Catalog(figures), out, pairs=[(f"{fid}:{panels[0]}", f"{fid}:{panels[1]}")])
    for page, count in ((f"figures/{fid}.html", 1), ("compare/1.html", 3)):
        open_page(dash_duo, (out / page).as_uri(), panels=count)
        links = dash_duo.driver.execute_script(
            "return Array.from(document.querySelectorAll('.js-plotly-plot a'))"
            ".map(a => a.getAttribute('href')).filter(h => h && h.includes('evil'));")
        assert links == [], page
        ticks = dash_duo.driver.execute_script(
            "return Array.from(document.querySelectorAll('.js-plotly-plot .xtick text, "
            ".js-plotly-plot .ytick text')).map(t => t.textContent);")
        assert label in ticks, (page, ticks)


def test_a_compare_pages_row_labels_are_whole(dash_duo, site):
    """The compare pages' maps had a fixed left margin of 90 px, which cut 'computer science'
    to 'puter science'; the margin is the row labels' width, as on the figure pages."""
    open_page(dash_duo, (site / "compare/3.html").as_uri(), panels=3)
    clipped = dash_duo.driver.execute_script("""
        return Array.from(document.querySelectorAll('.js-plotly-plot .ytick text')).filter(t => {
            const box = t.getBoundingClientRect();
            const plot = t.closest('.js-plotly-plot').getBoundingClientRect();
            return box.left < plot.left - 0.5;
        }).map(t => t.textContent);""")
    assert clipped == []


def test_a_paired_compare_page_has_the_power_sentence_and_the_power_map(dash_duo, site, client,
                                                                       tmp_path):
    """Issue 39: the readout gives each paired cell's error bar and power, as the app's; the
    Power map switch colours B − A by each cell's mde (/api/compare's), kept in the fragment
    (power=1), and back off to B − A."""
    from tests.browser.helpers import screenshot

    driver = dash_duo.driver
    driver.set_window_size(1440, 1000)
    open_page(dash_duo, (site / "compare/3.html").as_uri(), panels=3)
    api = client.get(f"/api/compare?a={PAIRED[0]}&b={PAIRED[1]}").json
    dims = api["dims"]
    biology = next(c for c in api["cells"] if "biology" in c.values())
    hover_cell(dash_duo, '.heatmap-panel[data-map="a"]', biology[dims["x"]["name"]],
               biology[dims["y"]["name"]])
    until(lambda: "smallest difference" in driver.find_element(By.ID, "compare-readout").text,
          timeout=5)
    readout = driver.find_element(By.ID, "compare-readout").text
    p = biology["paired"]
    assert f"the smallest difference these {p['n']:,} items detect is" in readout
    assert f"this one needs {p['items_needed']:,} items" in readout
    delta = '.heatmap-panel[data-map="delta"] .js-plotly-plot'
    drawn = ("const gd = document.querySelector(arguments[0]);"
             "return [gd.data[0].z, gd.data[0].colorbar.title.text, gd.data[0].zmin, "
             "gd.data[0].zmax];")
    before = driver.execute_script(drawn, delta)
    driver.find_element(By.ID, "compare-power").click()
    until(lambda: "power=1" in driver.current_url, timeout=5)
    z, title, zmin, zmax = driver.execute_script(drawn, delta)
    scale = 100 if api["a"].get("metric", {}).get("percent") else 1
    ys, xs = dims["y"]["labels"], dims["x"]["labels"]
    want = [[None] * len(xs) for _ in ys]
    for c in api["cells"]:
        want[ys.index(c[dims["y"]["name"]])][xs.index(c[dims["x"]["name"]])] = \
            c["paired"]["mde"] * scale
    assert z == [[pytest.approx(v, rel=1e-12) if v is not None else None for v in row]
                 for row in want]
    assert title.startswith("mde") and zmin == 0
    assert zmax == pytest.approx(max(v for row in want for v in row if v is not None))
    for width in (1440, 390):
        driver.set_window_size(width, 1000)
        driver.execute_script("document.querySelector(arguments[0]).scrollIntoView("
                              "{block: 'center'});", delta)
        screenshot(driver, f"bundle-power-{width}", tmp_path)
    driver.set_window_size(1440, 1000)
    driver.refresh()  # the fragment reopens the power map
    until(lambda: len(driver.find_elements(By.CSS_SELECTOR, delta)) == 1, timeout=20)
    until(lambda: driver.find_element(By.ID, "compare-power").is_selected(), timeout=10)
    until(lambda: driver.execute_script(drawn, delta)[1].startswith("mde"), timeout=10)
    driver.find_element(By.ID, "compare-power").click()  # off: B − A again
    until(lambda: driver.execute_script(drawn, delta)[1] == before[1], timeout=5)
    assert driver.execute_script(drawn, delta)[0] == before[0]
    assert "power=1" not in driver.current_url
    assert dash_duo.get_logs() == []
