"""assets/evalmaps-slice.js, the static site's in-browser slicing (the live pages slice on the
server), against its reference, evalmaps.analysis.slicing: Python works out what each view
shows (its panels, rows, columns and values, and every colour mode's range), Node runs the
library alone (no page script) on the same figure, as the site's data writes it, and the two
are compared."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np
import pytest

from evalmaps.analysis.slicing import COLOR_MODES, view_ranges, views_for
from evalmaps.figures.heatmap import extent
from evalmaps.service import bundle
from evalmaps.views.state import parse_state

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "assets" / "evalmaps-slice.js"
RUN = """
const fs = require("node:fs"), vm = require("node:vm");
const req = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const w = {console: console};
w.window = w;
vm.createContext(w);
vm.runInContext(fs.readFileSync(req.library, "utf8"), w, {filename: req.library});
const S = w.evalmapsLib.slice;
const out = req.states.map(function (state) {
  const got = S.views(req.figure, state);
  if (got.empty) {
    return {empty: got.empty};
  }
  return got.views.map(function (v) {
    const ranges = {};
    req.modes.forEach(function (m) { ranges[m] = S.colorRange(req.figure, got.views, v, m); });
    return {slug: v.panel.slug, y: v.y, x: v.x, ranges: ranges,
            z: Array.from(v.z, function (x) { return isFinite(x) ? x : null; })};
  });
});
process.stdout.write(JSON.stringify(out));
"""
CASES = {
    "dynts-llama-vs-qwen": ["", "sort=mean", "model=R1-Qwen&xmin=0.2&xmax=0.4&sort=col:0.3",
                            "rows=2000&rows=500&sort=name&color=fixed"],
    "pythia-zero-shot": ["task=arc_easy&task=piqa&metric=acc&metric=acc_norm&sort=mean&top=4",
                         "task=arc_easy&xmin=1000&xmax=100000&pct=1&color=shared",
                         "zscale=log&color=shared", "task=wsc&metric=acc&sort=name&top=3"],
    "acemath-training-progress": ["benchmark=Math%20500&benchmark=GSM8K&color=shared&sort=mean"],
    "core-generalization": ["color=figure", "sort=col:3&top=2"],
}


def js_state(state, figure) -> dict:
    """A parsed view state as the library reads it (the static site's fragment, parsed)."""
    spec = figure.spec
    return {"facets": {f: list(state.facets[f]) if f in state.facets else None
                       for f in spec.facets},
            "rows": list(state.rows) if state.rows is not None else None,
            "xmin": state.x_range[0] if state.x_range else None,
            "xmax": state.x_range[1] if state.x_range else None,
            "sort": state.sort, "top": state.top, "pct": state.pct, "zscale": state.zscale}


def run_library(tmp_path, figure_data: dict, states: list[dict]) -> list:
    node = shutil.which("node")
    if not node:
        pytest.skip("`node` is not installed (Debian: apt-get install nodejs)")
    script, request = tmp_path / "run.js", tmp_path / "request.json"
    script.write_text(RUN)
    request.write_text(json.dumps({"library": str(LIBRARY), "figure": figure_data,
                                   "states": states, "modes": list(COLOR_MODES)}))
    done = subprocess.run([node, str(script), str(request)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def same_range(mine, reference) -> bool:
    if reference is None or mine is None:
        return mine is None and reference is None
    return all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12) for a, b in zip(mine, reference))


@pytest.mark.parametrize("fid", sorted(CASES))
def test_the_shared_slicing_library_slices_as_python_does(catalog, tmp_path, fid):
    figure = catalog.figure(fid)
    states, expected = [], []
    for query in CASES[fid]:
        state = parse_state({"figure": fid, **parse_qs(query, keep_blank_values=True)}, catalog)
        assert not state.problems, (query, state.problems)
        views, empty = views_for(figure, state)
        assert empty is None, query
        states.append(js_state(state, figure))
        expected.append((query, views, view_ranges(figure.spec, views)))
    got = run_library(tmp_path, bundle.figure_data(figure), states)
    for (query, views, ranges), mine in zip(expected, got):
        assert [v["slug"] for v in mine] == [v.panel.slug for v in views], query
        for view, shown, zr in zip(views, mine, ranges):
            assert shown["y"] == list(view.y_labels), query
            assert shown["x"] == list(view.x_labels), query
            z = [None if not np.isfinite(v) else float(v) for v in view.z.ravel()]
            assert shown["z"] == z, query
            own = extent(np.log10(view.z) if view.log_scale else view.z)
            own = None if own == (None, None) else own
            for mode in COLOR_MODES:
                # None: the view's own extent (the library's and the heatmap's way to say it)
                mine_range = shown["ranges"][mode] or own
                assert same_range(mine_range, zr[mode] or own), (query, mode, mine_range, zr[mode])


def test_a_wrong_slice_would_be_found(catalog, tmp_path):
    """The comparison above can fail: a state that asks for other rows is told apart."""
    figure = catalog.figure("dynts-llama-vs-qwen")
    state = parse_state({"figure": figure.id, "rows": ["2000"]}, catalog)
    other = js_state(state, figure) | {"rows": ["500"]}
    (views, _), mine = views_for(figure, state), run_library(
        tmp_path, bundle.figure_data(figure), [other])[0]
    assert mine[0]["y"] == ["500"] != list(views[0].y_labels)
