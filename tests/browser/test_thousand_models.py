"""Issue 41, part 2: a facet of 1,000 models in a real headless Chromium. Browse opens on one
panel (not 1,000 squeezed side by side); the menus that list the models (Browse's facet menu,
Compare's panel menus, the Rank page's model menu) find one model among 1,000 as it is typed;
screenshots at 1440 and 390 px."""

from __future__ import annotations

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.by import By

from tests.browser.helpers import close_dropdowns, screenshot, texts

pytestmark = pytest.mark.browser

MODELS = [f"lab-model-{m:04d}" for m in range(1000)]
DESKTOP, PHONE = (1440, 1000), (390, 844)


@pytest.fixture()
def thousand(dash_duo, dash_app, tmp_path_factory):
    """The real app with a figure of 1,000 models (a facet), two tasks, per-item records."""
    from tests.items_fixture import item_scores, items_figure, serving

    scores = item_scores(models=MODELS, ys=("easy",), xs=("t1", "t2"), n_items=6, seed=41)
    figure = items_figure(tmp_path_factory.mktemp("items"), "thousand", scores, models=MODELS,
                          ys=("easy",), xs=("t1", "t2"))
    with serving(dash_app, [figure]):
        dash_duo.start_server(dash_app)
        yield figure


def shown_options(dash_duo) -> list[str]:
    return texts(dash_duo.driver, ".dash-dropdown-option")  # in one script: the menu re-renders


def search_menu(dash_duo, menu_css: str, typed: str) -> list[str]:
    """Open the menu, type into its search box; the options it then shows."""
    close_dropdowns(dash_duo)
    menu = dash_duo.find_element(menu_css)
    if not menu.is_displayed():  # a phone: the menus are behind the page's Filters button
        toggle = dash_duo.driver.find_element(By.CSS_SELECTOR, ".filters-toggle")
        toggle.click()
        until(menu.is_displayed, timeout=5)
    dash_duo.driver.execute_script(
        "arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});", menu)
    menu.click()
    dash_duo.wait_for_element(".dash-dropdown-option")
    before = shown_options(dash_duo)
    search = dash_duo.driver.find_element(By.CSS_SELECTOR, ".dash-dropdown-search")
    search.send_keys(typed)
    until(lambda: shown_options(dash_duo) != before, timeout=10)
    return shown_options(dash_duo)


def no_sideways_scroll(dash_duo) -> bool:
    return dash_duo.driver.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440", "390"])
def test_browse_shows_one_panel_and_its_menu_finds_a_model_among_1000(dash_duo, thousand,
                                                                      tmp_path, size):
    dash_duo.driver.set_window_size(*size)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?figure=thousand")
    dash_duo.wait_for_element(".js-plotly-plot .main-svg", timeout=30)
    graphs = dash_duo.driver.find_elements(By.CSS_SELECTOR, ".js-plotly-plot")
    assert len(graphs) == 1  # the first model's panel, not 1,000 squeezed
    menu = '[id=\'{"dim":"model","type":"browse-facet"}\']'
    found = search_menu(dash_duo, menu, "0777")
    assert found and all("0777" in text for text in found) and len(found) == 1
    screenshot(dash_duo.driver, f"thousand-browse-menu-{size[0]}", tmp_path)
    assert no_sideways_scroll(dash_duo)
    assert dash_duo.get_logs() == []


def test_compare_panel_menu_finds_a_model_among_1000(dash_duo, thousand, tmp_path):
    dash_duo.driver.set_window_size(*DESKTOP)
    keys = list(thousand.panels)
    a, b = (f"thousand:{keys[m]}" for m in (3, 950))
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/compare?a={a}&b={b}")
    dash_duo.wait_for_element(".js-plotly-plot .main-svg", timeout=30)
    found = search_menu(dash_duo, "#compare-b", "0421")
    assert len(found) == 1 and "0421" in found[0]
    screenshot(dash_duo.driver, "thousand-compare-menu-1440", tmp_path)
    assert dash_duo.get_logs() == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440", "390"])
def test_rank_model_menu_finds_a_model_among_1000(dash_duo, thousand, tmp_path, size):
    dash_duo.driver.set_window_size(*size)
    query = "&".join(f"model={m}" for m in MODELS[:4])
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/rank?figure=thousand&by=model&{query}")
    dash_duo.wait_for_element(".js-plotly-plot .main-svg", timeout=60)
    menu = '[id=\'{"dim":"model","type":"rank-slice"}\']'
    found = search_menu(dash_duo, menu, "0612")
    assert len(found) == 1 and "0612" in found[0]
    screenshot(dash_duo.driver, f"thousand-rank-menu-{size[0]}", tmp_path)
    assert no_sideways_scroll(dash_duo)
    assert dash_duo.get_logs() == []
