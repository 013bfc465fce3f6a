"""Labels as they are shown (issue 37, red team 11): bidirectional controls are written out, so
"\\u202etxt.exe" never reads as "exe.txt"; a label holding "%{" is shown as typed with nothing
inserted into it (a zero-width space would be copied with it). The live heatmap, the bundle's
own script (in Node) and the problems list; the labels themselves (data, downloads) untouched."""

from __future__ import annotations

import html
import json
import re

import pandas as pd

from evalmaps.analysis.slicing import slice_panel
from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.core.errors import problem_line
from evalmaps.core.figure import Catalog
from evalmaps.figures import heatmap
from evalmaps.figures.heatmap import heatmap_figure
from evalmaps.figures.theme import text
from evalmaps.service import bundle
from tests.plotly_render import heatmap_cell
from tests.unit.test_bundle import node_answer
from tests.unit.test_heatmap_builder import make_view

RLO = "\u202etxt.exe"  # reads "exe.txt" when shown raw
TEMPLATE = "a%{x}b"
PLOTLY_TEMPLATE = re.compile(r"%\{([^\s%{}:]*)")  # how plotly.js finds a template variable
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_a_label_is_shown_with_its_bidi_controls_written_out():
    assert text(RLO) == "[U+202E]txt.exe"
    assert text("\u2067x\u2069 \u200f") == "[U+2067]x[U+2069] [U+200F]"
    assert problem_line(f"Not served: {RLO}: bad") == "Not served: [U+202E]txt.exe: bad"


def test_a_percent_brace_label_is_shown_as_typed_with_nothing_inserted():
    shown = text(TEMPLATE)
    assert "\u200b" not in shown and not PLOTLY_TEMPLATE.search(shown)
    assert html.unescape(shown) == TEMPLATE  # plotly.js turns &#37; back into %


def test_the_heatmap_shows_no_raw_bidi_control_and_no_inserted_character():
    view = make_view(pd.DataFrame({"f": [RLO, RLO], "y": [RLO, "r"], "x": [TEMPLATE, "1"],
                                   "value": ["1.5", "2"]}),
                     {"f": {"title": "Facet", "labels": [RLO]},
                      "y": {"title": f"Row {RLO}", "labels": [RLO, "r"]},
                      "x": {"title": "Col %{x}", "labels": ["1", TEMPLATE]}})
    fig = heatmap_figure(view, None)
    trace = fig["data"][0]
    assert trace["y"] == ["[U+202E]txt.exe", "r"] and trace["x"] == ["1", "a&#37;{x}b"]
    assert heatmap_cell(fig, "[U+202E]txt.exe", "a&#37;{x}b")["hover"] == (
        "Row [U+202E]txt.exe [U+202E]txt.exe · Col &#37;{x} a&#37;{x}b · Score 1.5<br>"
        "Facet [U+202E]txt.exe")
    written = json.dumps(fig, ensure_ascii=False)
    assert not BIDI.search(written) and "\u200b" not in written
    assert list(view.y_labels) == [RLO, "r"]  # the data keeps the label


def test_the_bundle_shows_labels_as_the_app_does(tmp_path):
    rows = [f"{RLO},{TEMPLATE},t1,0.5", f"{RLO},{TEMPLATE},t2,0.25", f"b,{TEMPLATE},t1,0.5",
            "b,c,t2,0.25"]
    figure = figure_of(import_bytes(("suite,model,task,value\n" + "\n".join(rows) + "\n").encode(),
                                    "labels.csv")[0])
    assert figure.spec.facets == ("suite",)
    site = tmp_path / "site"
    bundle.write_site(Catalog([figure]), site, pairs=[])
    got = node_answer(tmp_path, {"figure": figure.id, "file": str(site / f"data/{figure.id}.js"),
                                 "csv": False, "views": [""]})
    shown = got["views"][0]["panels"]
    live = [slice_panel(figure, panel) for panel in figure.panels.values()]
    assert len(shown) == len(live) == 2
    for mine, view in zip(shown, live):
        traces = heatmap.panel_traces(view, (0, 1))
        assert set(mine["templates"]) == {t["hovertemplate"] for t in traces if "hovertemplate" in t}
    written = json.dumps([p["templates"] for p in shown], ensure_ascii=False)
    assert "Suite [U+202E]txt.exe" in written
    assert not BIDI.search(written) and "\u200b" not in written


def run_formatter(tmp_path, formatter: str, values: list) -> list[str]:
    """An AG Grid value formatter run in Node on each value, as the grid runs it."""
    import shutil
    import subprocess

    import pytest

    node = shutil.which("node")
    if not node:
        pytest.skip("`node` is not installed")
    script = tmp_path / "formatter.js"
    script.write_text(f"const f = new Function('params', 'return ' + {json.dumps(formatter)});\n"
                      f"process.stdout.write(JSON.stringify({json.dumps(values)}.map("
                      f"function (v) {{ return f({{value: v}}); }})));\n", encoding="utf-8")
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_cells_table_and_the_menus_write_bidi_controls_out(tmp_path):
    from components.controls import label_options
    from components.datatable import label_column

    labels = [RLO, "plain", "x\u2067y"]
    column = label_column("model", "Model", labels)
    assert run_formatter(tmp_path, column["valueFormatter"]["function"], [*labels, None]) == [
        "[U+202E]txt.exe", "plain", "x[U+2067]y", ""]
    long = ["org/family-v1-" + label for label in labels]  # a shared start left off, too
    column = label_column("model", "Model", long)
    assert run_formatter(tmp_path, column["valueFormatter"]["function"], long) == [
        "[U+202E]txt.exe", "plain", "x[U+2067]y"]
    assert "valueFormatter" not in label_column("model", "Model", ["a", "b"])
    assert label_options(labels) == [{"label": "[U+202E]txt.exe", "value": RLO},
                                     {"label": "plain", "value": "plain"},
                                     {"label": "x[U+2067]y", "value": "x\u2067y"}]
