"""The start-up problems banner (issue 11) in a real headless Chromium, against a real gunicorn
serving a data folder with a bad file (whose name is markup) and two files with one id."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.by import By

from tests.browser.helpers import texts
from tests.servers import start_app_gunicorn, stop_gunicorn, wait_until_serving

pytestmark = [pytest.mark.browser, pytest.mark.server]

ROOT = Path(__file__).resolve().parents[2]
TIDY = (ROOT / "tests" / "fixtures" / "tidy_small.csv").read_text(encoding="utf-8")
MARKUP_NAME = "<b>bold<i>it<img src=x onerror=alert(1)>.csv"  # no "/": a file name
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get_json(base: str, path: str) -> dict:
    with OPENER.open(base + path, timeout=5) as response:
        return json.loads(response.read())


@pytest.fixture()
def troubled(tmp_path):
    """gunicorn (one worker) serving a folder: a good file, a broken one named as markup, and
    'My Results.csv' next to 'my-results.csv'."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "tidy_small.csv").write_text(TIDY, encoding="utf-8")
    (mine / MARKUP_NAME).write_text("model,type,value\nm,a,1\nm,b,2,3\n", encoding="utf-8")
    (mine / "My Results.csv").write_text(TIDY, encoding="utf-8")
    (mine / "my-results.csv").write_text(TIDY, encoding="utf-8")
    log = tmp_path / "gunicorn.log"
    proc, base = start_app_gunicorn({"EVALMAPS_EXTRA_DATA": str(mine), "EVALMAPS_CACHE": "off"},
                                    log)
    workers: list[int] = []
    try:
        workers = wait_until_serving(proc, lambda: get_json(base, "/healthz")["status"] == "ok",
                                     lambda: log.read_text(errors="replace")[-4000:], 30, 1)
        yield base, mine
    finally:
        assert stop_gunicorn(proc, workers, 10) == []


def banner_lines(driver) -> list[str]:
    return texts(driver, "#data-problems li")


def test_the_banner_lists_each_problem_as_text_and_can_be_dismissed(troubled, dash_duo):
    base, mine = troubled
    problems = get_json(base, "/healthz")["problems"]
    assert problems == [  # in the order of the files' names
        f"Not served: {MARKUP_NAME}, row 3: this row has 4 fields but the header has 3. Fix the "
        f"row (a stray comma? a missing cell?) so every row has the header's columns.",
        f"Renamed: the files My Results.csv and my-results.csv in {mine} would both be the figure "
        f"'import-my-results'; my-results.csv is served as 'import-my-results-2'. Rename one of "
        f"them to choose its id."]
    driver = dash_duo.driver
    driver.set_window_size(1400, 900)
    driver.get(base + "/")
    dash_duo.wait_for_element("#data-problems li", timeout=15)
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=15)  # the page still works
    assert banner_lines(driver) == problems  # one line per problem, as typed
    banner = driver.find_element(By.ID, "data-problems")
    assert banner.find_elements(By.CSS_SELECTOR, "b, i, img") == []  # text, never markup
    assert banner.text.splitlines()[0] == "Data: 2 problems at start-up; every other file is served."
    # the renamed figure is served under its new id
    assert get_json(base, "/api/figures/import-my-results-2")["id"] == "import-my-results-2"

    banner.find_element(By.CSS_SELECTOR, ".btn-close").click()
    until(lambda: driver.find_elements(By.ID, "data-problems") == [], timeout=5)
    driver.find_element(By.CSS_SELECTOR, "a.evalmaps-nav[href='/data']").click()
    until(lambda: driver.current_url.endswith("/data"), timeout=5)
    assert driver.find_elements(By.ID, "data-problems") == []  # dismissed for the visit
