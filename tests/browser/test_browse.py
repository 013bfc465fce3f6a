"""The browse view in a real headless Chromium (dash_duo), against the real app and data."""

from __future__ import annotations

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from components.controls import figure_label
from tests.browser.helpers import (
    axis_ticks,
    download_to,
    downloaded,
    fetch_text,
    graph_selector,
    hover_cell,
    non_local_requests,
    pick_option,
    screenshot,
    texts,
)

pytestmark = pytest.mark.browser

GRAPHS = ".heatmap-graph .main-svg"


def panel_titles(dash_duo) -> list[str]:
    """The panels' titles (read in the browser at once: a redraw cannot leave a stale node)."""
    return dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll('.heatmap-graph .gtitle'))"
        ".map(e => e.textContent);")


def open_view(dash_duo, query: str) -> None:
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/{query}")
    dash_duo.wait_for_element(GRAPHS, timeout=15)


@pytest.fixture()
def served(dash_duo, dash_app):
    dash_duo.start_server(dash_app)
    dash_duo.wait_for_element(GRAPHS, timeout=15)
    return dash_duo


@pytest.mark.parametrize("figure_id", ["core-generalization", "short-to-long",
                                       "acemath-training-progress", "dynts-r1-llama-benchmarks",
                                       "dynts-llama-vs-qwen"])
def test_each_figure_loads_clean_with_all_panels(served, catalog, figure_id, tmp_path):
    open_view(served, f"?figure={figure_id}")
    figure = catalog.figure(figure_id)
    served.wait_for_text_to_equal(".figure-title", served.find_element(".figure-title").text)
    assert figure.spec.title in served.find_element(".figure-title").text
    served.wait_for_element(".heatmap-graph:nth-of-type(1) .gtitle")
    titles = panel_titles(served)
    assert len(titles) == len(figure.panels)
    assert all(any(p.title in t for t in titles) for p in figure.panels.values())
    screenshot(served.driver, f"browse-{figure_id}", tmp_path)
    assert served.get_logs() == [], "browser console errors"
    assert non_local_requests(served.driver) == []


def test_hover_shows_exact_value_with_coordinates(served):
    open_view(served, "?figure=core-generalization")
    text = hover_cell(served, graph_selector("browse", "qwen-2-5b"), "3", "u")
    assert "Type u · Length 3 · Accuracy 87.3%" in text


def test_hover_on_missing_cell_says_not_reported(served):
    open_view(served, "?figure=dynts-r1-llama-benchmarks&benchmark=AMC23")
    text = hover_cell(served, graph_selector("browse", "r1-llama-amc23"), "0.3", "2000")
    assert "Local Window Size 2000 · Ratio 0.3 · Pass@1 not reported" in text


def test_flagship_hover_and_label_order(served):
    open_view(served, "?figure=dynts-llama-vs-qwen")
    css = graph_selector("browse", "r1-qwen")
    text = hover_cell(served, css, "0.4", "2000")
    assert "Local Window Size 2000 · Ratio 0.4 · Pass@1 56.3" in text
    assert "R1-Qwen" in text
    assert axis_ticks(served.driver, css, "y") == ["3000", "2000", "1000", "500"]  # top to bottom, as the seed draws it


def test_illustrative_figure_is_labelled_on_the_figure(served):
    open_view(served, "?figure=acemath-training-progress&benchmark=GSM8K")
    assert "ILLUSTRATIVE" in served.find_element(".figure-title").text
    # drawn on the figure, beside the axes' titles (annotations too: evalmaps.figures.heatmap)
    drawn = [el.text for el in served.driver.find_elements(
        "css selector", ".heatmap-graph .annotation-text")]
    assert drawn == ["Training Progress", "Model Size", "ILLUSTRATIVE values, not results"]
    text = hover_cell(served, graph_selector("browse", "gsm8k"), "1", "32b")
    assert "ILLUSTRATIVE" in text


def test_changing_the_figure_dropdown_changes_the_heatmap_and_url(served):
    open_view(served, "?figure=core-generalization")
    pick_option(served, "#browse-figure", "R1-Llama vs R1-Qwen: Pass@1 by local window size and ratio")
    served.wait_for_text_to_equal(".heatmap-graph:nth-of-type(1) .gtitle", "R1-Llama", timeout=10)
    assert sorted(panel_titles(served)) == ["R1-Llama", "R1-Qwen"]
    assert "figure=dynts-llama-vs-qwen" in served.driver.current_url
    assert served.get_logs() == []


def test_typing_in_the_open_figure_menu_searches_it(served, catalog):
    """The Figure menu says "type to search": Dash's Dropdown focuses the selected option when
    a one-value menu opens, so keys went nowhere (evalmaps-menus.js sends them to the search
    box, as the Rows menu does). Typing filters the options; Enter opens the first."""
    open_view(served, "?figure=core-generalization")
    menu = served.find_element("#browse-figure")
    menu.click()
    served.wait_for_element(".dash-dropdown-option")
    # the selected option has the focus, as Dash leaves it
    until(lambda: served.driver.execute_script(
        "return document.activeElement.closest('.dash-dropdown-option') !== null"), timeout=3)
    ActionChains(served.driver).send_keys("pythia").perform()

    def shown():
        return texts(served.driver, ".dash-dropdown-option")

    until(lambda: shown() == [figure_label(catalog.figure("pythia-zero-shot"))], timeout=5)
    search = served.find_element(".dash-dropdown-search")
    assert search.get_attribute("value") == "pythia"
    assert served.driver.switch_to.active_element == search
    ActionChains(served.driver).send_keys(Keys.ENTER).perform()
    until(lambda: "figure=pythia-zero-shot" in served.driver.current_url, timeout=10)
    assert served.get_logs() == []


def test_facet_dropdown_picks_the_panels_shown(served):
    open_view(served, "?figure=dynts-r1-llama-benchmarks")
    assert len(panel_titles(served)) == 4
    facet = '[id=\'{"dim":"benchmark","type":"browse-facet"}\']'
    pick_option(served, facet, "AIME25")  # deselect one of the four
    served.driver.find_element(By.TAG_NAME, "body").click()
    served.wait_for_element(".heatmap-graph")
    until(lambda: len(panel_titles(served)) == 3, timeout=10)
    assert not any("AIME25" in t for t in panel_titles(served))
    until(lambda: "benchmark=AIME24" in served.driver.current_url, timeout=5)
    assert "AIME25" not in served.driver.current_url


def test_rows_and_range_come_from_the_url_and_survive_reload(served):
    query = "?figure=short-to-long&rows=1&rows=4&xmin=7&xmax=11&labels=off&color=shared"
    open_view(served, query)
    css = graph_selector("browse", "qwen-2-5-7b")
    assert axis_ticks(served.driver, css, "y") == ["1", "4"]
    assert axis_ticks(served.driver, css, "x") == ["7", "8", "9", "10", "11"]
    assert served.driver.find_elements(By.CSS_SELECTOR, f"{css} .heatmap-label text") == []
    assert served.find_element("#browse-labels").is_selected() is False
    assert served.find_element("#browse-color input:checked").get_attribute("id").endswith("shared")
    # shared colour range = min/max of the visible cells (46.3 .. 85.3)
    zrange = served.driver.execute_script(
        "const gd = document.querySelector(arguments[0]).querySelector('.js-plotly-plot');"
        "return [gd.data[0].zmin, gd.data[0].zmax];", css)
    assert zrange == pytest.approx([46.3, 85.3])
    served.driver.refresh()
    served.wait_for_element(GRAPHS, timeout=15)
    assert axis_ticks(served.driver, css, "y") == ["1", "4"]


def test_back_and_forward_restore_views(served):
    open_view(served, "?figure=dynts-llama-vs-qwen&model=R1-Qwen")
    assert panel_titles(served) == ["R1-Qwen"]
    css = graph_selector("browse", "r1-qwen")
    # a control change on the same figure: a history entry, no reload
    served.driver.execute_script("window.__same_document = true;")
    pick_option(served, "#browse-rows", "2000")  # deselect 2000
    served.wait_for_text_to_equal("#browse-rows-value-count", "3 selected")
    until(lambda: axis_ticks(served.driver, css, "y") == ["3000", "1000", "500"], timeout=10)
    assert served.driver.current_url.endswith("model=R1-Qwen&hide=2000")  # 3 of 4 rows shown
    # another figure: Dash Pages renders the page anew
    pick_option(served, "#browse-figure", "Baseline - Short-to-Long - Qwen-2.5 7B")
    served.wait_for_text_to_equal(".heatmap-graph .gtitle", "Qwen-2.5 7B", timeout=10)

    served.driver.back()
    served.wait_for_text_to_equal(".heatmap-graph .gtitle", "R1-Qwen", timeout=10)
    until(lambda: axis_ticks(served.driver, css, "y") == ["3000", "1000", "500"], timeout=10)
    served.driver.back()
    until(lambda: axis_ticks(served.driver, css, "y") == ["3000", "2000", "1000", "500"], timeout=10)
    assert served.driver.current_url.endswith("?figure=dynts-llama-vs-qwen&model=R1-Qwen")
    served.driver.forward()
    until(lambda: axis_ticks(served.driver, css, "y") == ["3000", "1000", "500"], timeout=10)
    served.driver.forward()
    served.wait_for_text_to_equal(".heatmap-graph .gtitle", "Qwen-2.5 7B", timeout=10)
    assert served.driver.execute_script("return window.__same_document === true;")
    assert served.get_logs() == []


def test_unknown_figure_in_url_is_explained_not_a_crash(served):
    open_view(served, "?figure=no-such-figure")
    assert "There is no figure 'no-such-figure'" in served.find_element(".alert").text
    assert served.get_logs() == []


def callback_posts(driver) -> list[int]:
    """Bytes received for each callback request so far (resource timing)."""
    return driver.execute_script(
        "return performance.getEntriesByType('resource')"
        ".filter(e => e.name.includes('_dash-update-component'))"
        ".map(e => e.encodedBodySize);")


def drawn_texts(driver, css: str) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelector(arguments[0]).querySelectorAll("
        "'.heatmap-label text')).map(t => t.textContent);", css)


def z_range(driver, css: str) -> list:
    return driver.execute_script(
        "const t = document.querySelector(arguments[0]).querySelector('.js-plotly-plot')"
        "._fullData[0]; return [t.zmin, t.zmax];", css)


def test_colour_range_and_values_restyle_in_the_browser(served):
    """Changing no data sends no data: the heatmaps are restyled where they are."""
    open_view(served, "?figure=dynts-llama-vs-qwen")
    css = graph_selector("browse", "r1-qwen")
    until(lambda: "56.3" in drawn_texts(served.driver, css), timeout=10)
    assert z_range(served.driver, css) == [49, 57]  # the figure's own range
    before = callback_posts(served.driver)
    served.find_element("#browse-color input[value='shared']").click()
    until(lambda: z_range(served.driver, css) == [49.1, 56.3], timeout=5)  # over both panels
    served.find_element("#browse-labels").click()
    until(lambda: drawn_texts(served.driver, css) == [], timeout=5)
    until(lambda: served.driver.current_url.endswith("?figure=dynts-llama-vs-qwen&color=shared"
                                                     "&labels=off"), timeout=5)
    after = callback_posts(served.driver)
    # no heatmap is sent again: the URL change is checked, and answered with nothing
    assert after[:len(before)] == before and set(after[len(before):]) <= {0}
    served.driver.back()  # values back on, from the URL
    until(lambda: "56.3" in drawn_texts(served.driver, css), timeout=5)
    served.driver.back()
    until(lambda: z_range(served.driver, css) == [49, 57], timeout=5)
    assert served.get_logs() == []


def test_rows_can_be_ordered_cut_to_the_top_and_reset(served):
    open_view(served, "?figure=short-to-long&sort=mean&top=3")
    css = graph_selector("browse", "qwen-2-5-7b")
    # means over the 15 lengths: type 2 95.2..., type 6, type 3 (highest first)
    until(lambda: axis_ticks(served.driver, css, "y") == ["2", "6", "3"], timeout=10)
    assert served.find_element("#browse-top").get_attribute("value") == "3"
    pick_option(served, "#browse-sort", "By type name")
    until(lambda: axis_ticks(served.driver, css, "y") == ["2", "3", "6"], timeout=10)
    until(lambda: "sort=name" in served.driver.current_url, timeout=5)
    served.find_element("#browse-rows-none").click()
    served.wait_for_text_to_equal("#browse-graphs", "No rows selected: pick rows in the Rows menu.")
    served.find_element("#browse-rows-all").click()
    until(lambda: axis_ticks(served.driver, css, "y") == ["2", "3", "6"], timeout=10)
    top = served.find_element("#browse-top")
    top.clear()
    top.send_keys("\n")
    until(lambda: axis_ticks(served.driver, css, "y") == ["1", "2", "3", "4", "5", "6", "7"],
          timeout=10)
    assert "top=" not in served.driver.current_url
    assert served.get_logs() == []


def test_table_download_is_the_views_panel(served, tmp_path):
    """The export button downloads the picked panel of the view as shown (rows sliced), the
    same text as the cells API gives for that panel."""
    folder = tmp_path / "downloads"
    download_to(served.driver, folder)
    served.wait_for_page(url=f"{served.server_url}/?figure=dynts-r1-llama-benchmarks"
                             "&rows=2000&rows=500")
    served.wait_for_element(graph_selector("browse", "r1-llama-amc23"), timeout=15)
    Select(served.find_element("#browse-export-panel")).select_by_visible_text("R1-Llama | AMC23")
    served.find_element("#browse-export").click()
    text = downloaded(folder, "dynts-r1-llama-benchmarks__r1-llama-amc23.tex")
    assert text == fetch_text(served.server_url, "/api/figures/dynts-r1-llama-benchmarks/cells"
                              "?format=latex&benchmark=AMC23&window=2000&window=500")
    assert "\\toprule" in text and text.count("\\\\\n") == 4  # two header lines, two rows
    Select(served.find_element("#browse-export-format")).select_by_value("markdown")
    served.find_element("#browse-export").click()
    text = downloaded(folder, "dynts-r1-llama-benchmarks__r1-llama-amc23.md")
    assert text == fetch_text(served.server_url, "/api/figures/dynts-r1-llama-benchmarks/cells"
                              "?format=markdown&benchmark=AMC23&window=2000&window=500")
    assert served.get_logs() == []
