"""The data view in a real browser: upload, preview, the heatmap of an upload, bad files,
the slice download and the modebar's PNG/SVG export."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from dash.testing.wait import until
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By

from tests.browser.helpers import axis_ticks, hover_cell, screenshot, texts

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture()
def served(dash_duo, dash_app):
    dash_duo.start_server(dash_app)
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=15)
    return dash_duo


def open_data(dash_duo, query: str = "") -> None:
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/data{query}")
    dash_duo.wait_for_element("#data-upload", timeout=15)


def upload(dash_duo, path: Path) -> None:
    dash_duo.driver.find_element(By.CSS_SELECTOR, "#data-upload input[type=file]").send_keys(
        str(path))


def previewed(dash_duo, timeout: float) -> str:
    """The preview card's text, once the upload's preview is shown."""
    dash_duo.wait_for_element("#data-preview-card", timeout=timeout)
    return dash_duo.find_element("#data-preview-card").text


def keep_and_open(dash_duo, id_prefix: str, timeout: float) -> None:
    """Keep the previewed upload and wait for Browse to draw it (its id starts ``id_prefix``)."""
    dash_duo.find_element("#data-add").click()
    until(lambda: f"figure={id_prefix}" in dash_duo.driver.current_url, timeout=timeout)
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)


def heatmap_css(panel_key_prefix: str) -> str:
    return f'.heatmap-graph[id*=\'"panel":"{panel_key_prefix}\']'


def test_upload_shows_preview_then_its_heatmap_with_exact_values(served, tmp_path):
    open_data(served)
    upload(served, FIXTURES / "wide_small.csv")
    served.wait_for_element("#data-preview-card", timeout=10)
    preview = served.find_element("#data-preview-card").text
    assert "wide" in preview and "seed" in preview and "15" in preview
    screenshot(served.driver, "data-upload-preview", tmp_path)
    served.find_element("#data-add").click()
    served.wait_for_text_to_equal(".figure-title", served.find_element(".figure-title").text)
    until(lambda: "wide_small.csv" in served.find_element(".figure-title").text, timeout=10)
    assert "Uploaded to this server" in served.find_element(".figure-title").text
    served.wait_for_element(".heatmap-graph .main-svg")
    css = heatmap_css("tiny-a-lora")
    text = hover_cell(served, css, "1", "1")
    assert "Type 1 · Len 1 · Accuracy 90.00% ± 2.00 sd (n=3)" in text
    screenshot(served.driver, "data-upload-heatmap", tmp_path)
    # the upload is kept on the server: it survives a reload, and its link opens the same
    # figure in a fresh browser profile (no storage shared with this one)
    served.driver.refresh()
    served.wait_for_element(".heatmap-graph .main-svg", timeout=15)
    assert "wide_small.csv" in served.find_element(".figure-title").text
    link = served.driver.current_url
    assert re.search(r"figure=upload-[0-9a-f]{32}(&|$)", link)  # a random link
    # the Data page's grid writes the values as every view does: with the figure's decimals
    open_data(served, "?" + link.split("?", 1)[1])
    served.wait_for_element("#data-grid .ag-cell[col-id='value']", timeout=15)
    shown = [c.text for c in served.driver.find_elements(
        By.CSS_SELECTOR, "#data-grid .ag-center-cols-container .ag-cell[col-id='value']")]

    assert shown and all(re.fullmatch(r"-?\d+\.\d\d", t) for t in shown), shown  # 2 decimals
    served.driver.back()
    served.wait_for_element(".heatmap-graph .main-svg", timeout=15)
    assert served.get_logs() == []
    other = fresh_browser(tmp_path / "profile")
    try:
        other.get(link)
        until(lambda: other.find_elements(By.CSS_SELECTOR, css + " .main-svg"), timeout=20)
        assert "wide_small.csv" in other.find_element(By.CSS_SELECTOR, ".figure-title").text
        # a fresh profile: this browser lists no uploads of its own, the link alone opened it
        assert other.execute_script("return JSON.parse(localStorage.getItem('uploads'))") == []
        text = hover_cell(Driven(other), css, "1", "1")
        assert "Type 1 · Len 1 · Accuracy 90.00% ± 2.00 sd (n=3)" in text
        screenshot(other, "data-upload-link-in-a-fresh-profile", tmp_path)
    finally:
        other.quit()


class Driven:
    """What tests.browser.helpers needs of dash_duo, for a second browser."""

    def __init__(self, driver) -> None:
        self.driver = driver

    def wait_for_element(self, css: str, timeout: float = 10):
        until(lambda: self.driver.find_elements(By.CSS_SELECTOR, css), timeout=timeout)
        return self.driver.find_element(By.CSS_SELECTOR, css)


def fresh_browser(profile: Path):
    """Another headless Chromium with its own, empty profile."""
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
                f"--user-data-dir={profile}"):
        options.add_argument(arg)
    return webdriver.Chrome(options=options)


def test_bad_file_is_refused_with_a_clear_message(served, tmp_path):
    bad = tmp_path / "ragged.csv"
    bad.write_text("type,len,value\na,1,5\nb,2,6,7\n", encoding="utf-8")
    open_data(served)
    upload(served, bad)
    served.wait_for_element("#data-upload-error", timeout=10)
    message = served.find_element("#data-upload-error").text
    assert message.startswith("ragged.csv") and "row 3" in message
    assert served.find_element("#data-add").get_attribute("disabled") is not None
    assert served.get_logs() == []


def test_html_labels_are_shown_as_text_never_run(served, tmp_path):
    evil = tmp_path / "evil.csv"
    evil.write_text("type,len,value\n<img src=x onerror=alert(1)>,1,50\n<b>bold</b>,2,60\n",
                    encoding="utf-8")
    open_data(served)
    upload(served, evil)
    served.wait_for_element("#data-preview-card", timeout=10)
    served.find_element("#data-add").click()
    until(lambda: "evil.csv" in served.find_element(".figure-title").text, timeout=10)
    served.wait_for_element(".heatmap-graph .main-svg")
    ticks = axis_ticks(served.driver, ".heatmap-graph", "y")
    assert ticks == ["<img src=x onerror=alert(1)>", "<b>bold</b>"]
    with pytest.raises(NoAlertPresentException):
        served.driver.switch_to.alert.text  # noqa: B018 - no script ran
    assert served.driver.find_elements(By.CSS_SELECTOR, ".heatmap-graph img") == []


def test_oversize_file_is_refused_before_it_is_sent(served, tmp_path):
    big = tmp_path / "big.csv"
    row = "a,1," + "5" * 60 + "\n"
    with open(big, "w", encoding="utf-8") as f:
        f.write("type,len,value\n")
        f.write(row * (21 * 2**20 // len(row)))
    open_data(served)
    upload(served, big)
    until(lambda: "MB limit" in served.find_element("#data-upload-client-error").text, timeout=30)
    assert "big.csv" in served.find_element("#data-upload-client-error").text


def read_download(folder: Path, name: str) -> list[list[str]]:
    path = Path(folder) / name
    until(lambda: path.exists() and path.stat().st_size > 0, timeout=10)
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_download_holds_exactly_the_visible_cells(served):
    open_data(served, "?figure=dynts-llama-vs-qwen&model=R1-Qwen&rows=2000&xmin=0.2&xmax=0.4")
    until(lambda: len(served.driver.find_elements(By.CSS_SELECTOR, ".cells-grid .ag-row")) == 3,
          timeout=10)
    served.find_element("#data-download-button").click()
    rows = read_download(served.download_path, "dynts-llama-vs-qwen-slice.csv")
    assert rows == [["model", "window", "ratio", "value", "provenance"],
                    ["R1-Qwen", "2000", "0.2", "51.9", "transcribed"],
                    ["R1-Qwen", "2000", "0.3", "54.6", "transcribed"],
                    ["R1-Qwen", "2000", "0.4", "56.3", "transcribed"]]
    assert served.get_logs() == []


def test_modebar_exports_png_and_svg_named_after_figure_and_panel(served):
    served.wait_for_page(url=f"{served.server_url}/?figure=dynts-llama-vs-qwen&model=R1-Qwen")
    served.wait_for_element(".heatmap-graph .main-svg", timeout=15)
    # read and click in the browser at once: the map may be redrawn just after its first paint
    # (its cell text fitted to the drawn size), which would leave element references stale
    assert served.driver.execute_script(
        "return document.querySelectorAll(\".heatmap-graph [data-title*='PNG']\").length") > 0
    served.driver.execute_script(
        "document.querySelector(\".heatmap-graph [data-title='Download plot as SVG']\").click();")
    path = Path(served.download_path) / "dynts-llama-vs-qwen__r1-qwen.svg"
    until(lambda: path.exists() and path.stat().st_size > 0, timeout=10)
    assert path.read_text(encoding="utf-8").lstrip().startswith("<svg")
    titles = served.driver.execute_script(
        "return Array.from(document.querySelector('.heatmap-graph')"
        ".querySelectorAll('.modebar-btn')).map(b => b.getAttribute('data-title'));")
    assert titles, "the modebar has buttons"
    assert not any("Share" in (t or "") for t in titles), "no button that sends data away"


PYTHIA = Path(__file__).resolve().parents[3] / "shared" / "external" / "pythia-evals" / "pythia-v1"


@pytest.mark.external
def test_a_zip_of_lm_eval_results_uploads_as_heatmaps(served, tmp_path):
    """Issue 9: a folder of lm-evaluation-harness results (zipped) opens as heatmaps through an
    upload, each value exactly as the results file gives it."""
    import json
    import urllib.request
    import zipfile
    from urllib.parse import parse_qs, urlparse

    folder = PYTHIA / "pythia-160m" / "zero-shot"
    if not folder.is_dir():
        pytest.skip("../shared/external/pythia-evals is absent")
    files = [folder / "160m_step143000.json", folder / "160m_step3000.json"]
    archive = tmp_path / "pythia-160m.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in files:
            z.write(f, f"pythia-160m/zero-shot/{f.name}")
    open_data(served)
    upload(served, archive)
    card = previewed(served, timeout=20)
    assert "step (2 labels)" in card and "task" in card and "metric" in card, card
    keep_and_open(served, "upload-", timeout=20)
    screenshot(served.driver, "data-upload-lm-eval-zip", tmp_path)
    fid = parse_qs(urlparse(served.driver.current_url).query)["figure"][0]
    raw = json.loads(files[0].read_text())["results"]["arc_easy"]
    url = f"{served.server_url}/api/figures/{fid}/cells?task=arc_easy&metric=acc&step=143000"
    with urllib.request.urlopen(url) as response:
        cells = json.loads(response.read())["cells"]
    assert [(c["value"], c["se"]) for c in cells] == [(raw["acc"], raw["acc_stderr"])]
    assert served.get_logs() == []


LM_EVAL = {"results": {"arc_easy": {"acc": 0.4, "acc_stderr": 0.01},
                       "piqa": {"acc": 0.6, "acc_stderr": 0.011}},
           "versions": {"arc_easy": 0, "piqa": 0},
           "config": {"model": "hf-causal", "model_args": "pretrained=EleutherAI/pythia-160m"}}


def test_a_results_file_hides_the_metric_fields_and_opens_at_the_top(served, tmp_path):
    """A results file (lm-eval, Inspect) names its own metrics: the Data page's Metric, Unit and
    0-100 fields, which would be ignored, are hidden and a note says why; the preview counts
    '1 label'; after Keep, the figure opens at the top of the page, not scrolled to where the
    button was. A table shows the fields again."""
    import json

    served.driver.set_window_size(390, 844)
    open_data(served)
    fields = served.find_element("#data-metric-fields")
    assert fields.is_displayed() and served.find_element("#data-metric").is_displayed()
    results = tmp_path / "results.json"
    results.write_text(json.dumps(LM_EVAL))
    upload(served, results)
    served.wait_for_element("#data-preview-card", timeout=15)
    card = served.find_element("#data-preview-card").text
    assert "model (1 label)" in card and "task (2 labels)" in card, card
    until(lambda: not served.find_element("#data-metric-fields").is_displayed(), timeout=5)
    assert not served.find_element("#data-range").is_displayed()
    note = served.find_element("#data-metric-note").text
    assert "come from the file (lm-evaluation-harness results)" in note
    screenshot(served.driver, "data-results-preview-phone", tmp_path)
    button = served.find_element("#data-add")
    served.driver.execute_script(
        "arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});", button)
    assert served.driver.execute_script("return window.scrollY") > 100
    button.click()
    until(lambda: "figure=upload-" in served.driver.current_url, timeout=20)
    served.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    assert served.driver.execute_script("return window.scrollY") == 0
    # a table: its metric fields are back
    open_data(served)
    upload(served, FIXTURES / "wide_small.csv")
    served.wait_for_element("#data-preview-card", timeout=15)
    until(lambda: served.find_element("#data-metric-fields").is_displayed(), timeout=5)
    assert served.find_element("#data-metric-note").text == ""
    assert served.get_logs() == []


def test_a_thousand_columns_open_without_console_errors(served, tmp_path):
    """An upload of 1000 columns: Browse's x-range slider had a mark per column, and Dash's
    slider logs 'Slider: Too many marks (1000) provided' as an error above 500 (twice). It
    now gets a few labelled marks and steps by the axis's spacing."""
    rows = ["model,step,value"] + [f"m{k},{i},{(i * 7 + k) % 100}" for k in range(3)
                                   for i in range(1000)]
    wide = tmp_path / "thousand.csv"
    wide.write_text("\n".join(rows) + "\n")
    open_data(served)
    upload(served, wide)
    previewed(served, timeout=15)
    keep_and_open(served, "upload-", timeout=20)
    served.wait_for_element("#browse-xrange", timeout=10)
    marks = served.driver.find_elements(By.CSS_SELECTOR, "#browse-xrange .dash-slider-mark")
    assert 3 <= len(marks) <= 20, len(marks)
    assert served.get_logs() == []


def test_a_zip_of_two_tools_results_keeps_both_figures_with_their_links(served, tmp_path):
    folder = Path(__file__).resolve().parents[2].parent / "shared" / "external" / "evalplus"
    if not folder.exists():
        pytest.skip(f"{folder} is absent: tests of real tool output skipped")
    from tests.integration.test_upload_folders import zipped

    path = tmp_path / "evalplus.zip"
    path.write_bytes(zipped(folder))
    open_data(served)
    upload(served, path)
    until(lambda: "holds 2 figures" in served.find_element("#data-preview-card").text, timeout=20)
    # the button is below the fold: Bootstrap's smooth scrolling would still be moving it when
    # the click lands, so it is brought into view at once first
    add = served.find_element("#data-add")
    served.driver.execute_script(
        "arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", add)
    add.click()
    served.wait_for_element("#data-kept-card", timeout=20)
    # the card may be drawn again while it is read (the kept list updates after the upload), so
    # each list is read in one script, at one moment, and the titles until they are complete
    expected = ["results.json", "evalplus.zip (2 EvalPerf results files)"]
    until(lambda: texts(served.driver, ".kept-title") == expected, timeout=10)
    links = served.driver.execute_script(
        "return Array.from(document.querySelectorAll('.kept-browse'), e => e.href)")
    shared = texts(served.driver, ".kept-link")
    assert links == shared and all("/?figure=upload-" in link for link in links)
    # the Data page shows the first; this browser's menus list both
    until(lambda: "results.json" in served.find_element("#data-title").text, timeout=10)
    stored = served.driver.execute_script("return JSON.parse(localStorage.getItem('uploads'))")
    assert stored == [link.split("figure=")[1] for link in links]
    screenshot(served.driver, "data-upload-two-figures", tmp_path)
    served.driver.find_elements(By.CSS_SELECTOR, ".kept-browse")[1].click()
    until(lambda: "EvalPerf" in served.find_element(".figure-title").text, timeout=15)
    served.wait_for_element(".heatmap-graph .main-svg", timeout=15)
    assert served.get_logs() == []
