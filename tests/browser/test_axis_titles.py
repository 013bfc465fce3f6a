"""Axis titles in a real headless Chromium against a real gunicorn. A heatmap's axis titles are
annotations placed from the labels' estimated widths (evalmaps.figures.heatmap.axis_titles: plotly.js
would measure every tick label to place an axis's own title). They must sit where plotly.js puts
them: the y title left of the widest row label, the x title below the column labels, neither
over a label; on a chart too narrow for its labels (a phone) the y title stays inside the chart."""

from __future__ import annotations

import json
import urllib.request

import pytest
from dash.testing.wait import until

from tests.browser.helpers import screenshot
from tests.servers import start_app_gunicorn, stop_gunicorn, wait_until_serving

pytestmark = [pytest.mark.browser, pytest.mark.server]

ROWS = ["/home/someone/lm-evaluation-harness/examples/dog_steer.csv",
        "EleutherAI/pythia-160m-deduped@step143000", "lme", "a-very-long-model-name-that-goes-on"]
COLUMNS = ["arc_easy", "hellaswag", "winogrande", "piqa", "lambada_openai"]
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

GEOMETRY = """
const gd = document.querySelector('.heatmap-graph .js-plotly-plot');
if (!gd || !gd._fullLayout) { return null; }
const box = e => { const r = e.getBoundingClientRect();
                   return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
const titles = {};
gd.querySelectorAll('.annotation').forEach(a => {
  const t = a.querySelector('.annotation-text');
  if (t) { titles[t.textContent] = box(a.querySelector('.bg') || t); }
});
return {chart: box(gd), titles: titles,
        ylabels: Array.from(gd.querySelectorAll('.ytick text')).map(box),
        xlabels: Array.from(gd.querySelectorAll('.xtick text')).map(box)};
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("titles")
    folder = tmp / "long"
    folder.mkdir()
    lines = ["model,task,value"] + [f"{r},{c},{0.1 + 0.01 * (i + 5 * j):.2f}"
                                    for j, r in enumerate(ROWS) for i, c in enumerate(COLUMNS)]
    (folder / "long-labels.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = tmp / "gunicorn.log"
    proc, base = start_app_gunicorn({"EVALMAPS_EXTRA_DATA": str(folder), "EVALMAPS_CACHE": "off",
                                     "EVALMAPS_STORE": str(tmp / "store")}, log)
    workers: list[int] = []
    try:
        def ready():
            with OPENER.open(base + "/api/figures", timeout=5) as response:
                figures = json.loads(response.read())["figures"]
            return any(f["id"] == "import-long-labels" for f in figures)
        workers = wait_until_serving(proc, ready,
                                     lambda: log.read_text(errors="replace")[-4000:], 30, 1)
        yield base
    finally:
        assert stop_gunicorn(proc, workers, 10) == []


def drawn(driver) -> dict:
    """The geometry once it stops changing (the chart is fitted to its width after drawing)."""
    last = {}

    def steady():
        nonlocal last
        now = driver.execute_script(GEOMETRY)
        same, last = now is not None and now == last, now
        return same and "Model" in now["titles"]

    until(steady, timeout=20, poll=0.7)
    return last


def test_axis_titles_sit_beside_the_labels_and_inside_the_chart(server, dash_duo, tmp_path):
    driver = dash_duo.driver
    driver.set_window_size(1400, 1000)
    driver.get(server + "/?figure=import-long-labels")
    got = drawn(driver)
    y, x, chart = got["titles"]["Model"], got["titles"]["Task"], got["chart"]
    assert len(got["ylabels"]) == len(ROWS) and len(got["xlabels"]) == len(COLUMNS)
    widest = min(label["left"] for label in got["ylabels"])
    assert chart["left"] <= y["left"] and y["right"] <= widest  # left of every row label
    assert max(label["bottom"] for label in got["xlabels"]) <= x["top"]  # below the columns
    assert x["bottom"] <= chart["bottom"]
    screenshot(driver, "axis-titles-long-labels-1400", tmp_path)

    driver.set_window_size(390, 844)
    driver.get(server + "/?figure=import-long-labels")
    got = drawn(driver)
    y, chart = got["titles"]["Model"], got["chart"]
    # the chart is too narrow for its labels: plotly.js narrows the margin, and the title
    # moves in with it (over the labels, as plotly.js does with an axis's own title)
    assert chart["left"] - 1 <= y["left"] and y["right"] <= chart["right"]
    screenshot(driver, "axis-titles-long-labels-390", tmp_path)
    assert dash_duo.get_logs() == []
