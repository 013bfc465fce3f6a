"""GET /api/compare through Flask's test client, against the real app and data: the default
pair's cells and summary, panel keys and derived means, and 400s (never 404 or 500) for bad input.
Also the /compare page itself: it answers for any query, with the problem explained."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from plotly.utils import PlotlyJSONEncoder

from tests.integration.dash_calls import outputs
from tests.integration.test_api import assert_json_error, asset_refs, get_json, is_local

BENCH = "dynts-r1-llama-benchmarks"
LLAMA = "dynts-llama-vs-qwen:r1-llama"
QWEN = "dynts-llama-vs-qwen:r1-qwen"
MEAN = f"mean({BENCH}:r1-llama-aime24,{BENCH}:r1-llama-aime25,{BENCH}:r1-llama-amc23," \
       f"{BENCH}:r1-llama-gpqa-diamond)"
PAYLOAD_KEYS = ["a", "b", "url", "dims", "n_common", "summary", "sentences", "warnings", "cells"]


def compare_url(a: str, b: str) -> str:
    return f"/api/compare?a={quote(a)}&b={quote(b)}"


def test_default_pair_without_arguments(client):
    body = get_json(client, "/api/compare")
    assert list(body) == PAYLOAD_KEYS
    assert body["a"]["ref"] == LLAMA and body["b"]["ref"] == QWEN
    assert body["a"]["provenance"] == "transcribed" and body["a"]["derived"] is False
    assert body["url"] == "/compare"
    assert body["dims"]["y"] == {"name": "window", "title": "Local Window Size",
                                 "labels": ["3000", "2000", "1000", "500"]}
    assert body["n_common"] == 20 and len(body["cells"]) == 20
    assert body["cells"][0] == {"window": "3000", "ratio": "0.1", "a": 49.1, "b": 53.9, "delta": 4.8,
                                 "paired": None}  # no per-item records: no paired test
    cell = next(c for c in body["cells"] if (c["window"], c["ratio"]) == ("2000", "0.4"))
    assert (cell["a"], cell["b"], cell["delta"]) == (52.5, 56.3, 3.8)
    s = body["summary"]
    assert (s["mean_a"], s["mean_b"], s["mean_delta"]) == (51.08, 53.45, 2.37)
    assert (s["b_higher"], s["n_common"]) == (19, 20)
    assert s["largest_gain"]["delta"] == 4.8 and s["largest_loss"]["delta"] == -0.3
    assert body["sentences"][0] == ("R1-Qwen is higher than R1-Llama in 19 of 20 cells, "
                                    "by 2.37 points on average over cells.")
    assert body["warnings"] == []
    assert get_json(client, compare_url(LLAMA, QWEN)) == body


def test_panel_keys_are_the_ones_api_figures_lists(client):
    keys = [p["key"] for f in get_json(client, "/api/figures")["figures"] for p in f["panels"]]
    assert LLAMA in keys and QWEN in keys
    body = get_json(client, compare_url(f"{BENCH}:r1-llama-aime24", LLAMA))
    assert body["n_common"] == 8 and {c["ratio"] for c in body["cells"]} == {"0.1", "0.5"}
    assert body["url"] == f"/compare?a={BENCH}:r1-llama-aime24&b={LLAMA}"


def test_derived_mean_as_a_side(client):
    body = get_json(client, compare_url(MEAN, LLAMA))
    a = body["a"]
    assert a["derived"] is True and a["provenance"] == "derived"
    assert a["label"].endswith("(derived)") and len(a["panels"]) == 4
    assert a["n_cells"] == 8
    first = body["cells"][0]
    assert (first["window"], first["ratio"], first["a"], first["b"]) == ("3000", "0.1", 51.075, 49.1)
    assert first["delta"] == pytest.approx(-1.975)


@pytest.mark.parametrize("query, says", [
    (f"?a={LLAMA}", "Give both a and b"),
    (f"?a={LLAMA}&a={QWEN}&b={QWEN}", "Give one panel"),
    (f"?a=nofig:x&b={QWEN}", "Panel A: There is no figure 'nofig'."),
    (f"?a={LLAMA}&b=dynts-llama-vs-qwen:zz", "Panel B: There is no panel"),
    (f"?a={LLAMA}&b=core-generalization:qwen-2-5b", "Panels A and B have different axes"),
    (f"?a={LLAMA}&b={quote('mean(a:b)')}", "A mean needs at least two panel keys"),
    ("?a=" + quote("__import__('os')") + f"&b={QWEN}", "is neither a panel key"),
    ("?a=" + quote(f"mean({BENCH}:r1-llama-aime24,core-generalization:qwen-2-5b)") + f"&b={QWEN}",
     "must share their axes"),
])
def test_bad_panels_are_a_400_with_a_clear_message(client, query, says):
    message = assert_json_error(client.get("/api/compare" + query), 400)
    assert says in message


def test_only_get(client):
    assert_json_error(client.post("/api/compare"), 405)


@pytest.mark.parametrize("query", [
    "", "?a=nope:x", f"?a={quote(MEAN)}&b={LLAMA}", "?a=core-generalization:qwen-2-5b",
    "?b=" + quote("<script>alert(1)</script>"), "?figure=short-to-long", "?color=nope&labels=off",
])
def test_compare_page_answers_for_any_query(client, query):
    response = client.get("/compare" + query)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    refs = asset_refs(html)
    assert all(is_local(u) for u in [*refs.links, *refs.scripts, *refs.other])


# --------------------------------------------------------------------------- the page's callback


from tests.integration.dash_calls import find, find_callback  # noqa: E402

SYNC = "compare-loc.search"


def _outputs_spec(output: str) -> list[dict]:
    """The outputs of a multi-output callback; pattern ids ('{"panel":...}') as dicts."""
    specs = []
    for part in output[2:-2].split("..."):
        cid, prop = part.rsplit(".", 1)
        specs.append({"id": json.loads(cid) if cid.startswith("{") else cid, "property": prop})
    return specs


def sync(client, changed: str, mean=None, uploads=None, **values):
    """POST the page's sync callback as the browser does; {'id.prop': value} of what it wrote."""
    response = sync_response(client, changed, mean, uploads, **values)
    assert response.status_code == 200, response.get_data(True)[:300]
    written = response.get_json()["response"]
    return {f"{cid}.{prop}": value for cid, props in written.items() for prop, value in props.items()}


def sync_response(client, changed: str, mean=None, uploads=None, **values):
    dep = find_callback(client, SYNC)
    # compare_a__value=... is 'compare-a.value'
    values = {k if k == "rest" else k.split("__")[0].replace("_", "-") + "." + k.split("__")[1]: v
              for k, v in values.items()}
    current = {"compare-loc.search": "", "compare-a.value": LLAMA, "compare-b.value": QWEN,
               "compare-color.value": "shared", "compare-labels.value": True,
               "compare-mean.value": mean, "uploads.data": uploads, **values}
    rest = current.pop("rest", {})  # the other dimensions' menus: {dim: value}

    def given(i):
        if i["id"].startswith("{"):  # the menus of the other dimensions (ALL): each one
            return [{"id": {"dim": dim, "type": "compare-rest"}, "property": i["property"],
                     **({"value": value} if i["property"] == "value" else
                        {"value": {"dim": dim, "type": "compare-rest"}})}
                    for dim, value in rest.items()]
        return {**i, "value": current.get(f"{i['id']}.{i['property']}")}

    body = {
        "output": dep["output"], "outputs": _outputs_spec(dep["output"]),
        "inputs": [given(i) for i in dep["inputs"]],
        "state": [given(i) for i in dep["state"]],
        "changedPropIds": [changed],
    }
    return client.post("/_dash-update-component", data=json.dumps(body),
                       content_type="application/json")


def alert_text(component) -> str:
    """The text of a dbc.Alert as serialised in a callback response."""
    children = component["props"]["children"]
    return children if isinstance(children, str) else " ".join(map(str, children))


def text_of(node) -> str | None:
    return None if node is None else node["props"]["children"]


NOT_A_KEY = "is neither a panel key ('<figure>:<panel>', as /api/figures lists them) nor a " \
            "mean(<key>,<key>,...)."
LAYOUT_CASES = [  # query -> A, B, the problems shown, the error shown
    ({}, LLAMA, QWEN, None, None),
    ({"a": "nope:x"}, LLAMA, QWEN,
     "Panel A: There is no figure 'nope'. Pick one of: core-generalization, short-to-long, "
     "acemath-training-progress, dynts-r1-llama-benchmarks, dynts-llama-vs-qwen, pythia-zero-shot, "
     "mmlu-pro. Showing "
     f"{LLAMA} as A instead.", None),
    ({"a": MEAN, "b": LLAMA}, MEAN, LLAMA, None, None),
    ({"figure": "short-to-long"}, "short-to-long:qwen-2-5-7b", "core-generalization:qwen-2-5b",
     None, None),
    ({"a": "core-generalization:qwen-2-5b"}, "core-generalization:qwen-2-5b", QWEN, None,
     "Panels A and B have different axes: A's are Type × Length and B's are Local Window Size "
     "× Ratio. Pick panels over the same axes."),
    ({"b": "<script>x</script>"}, LLAMA, QWEN,
     f"'<script>x</script>' {NOT_A_KEY} Showing {QWEN} as B instead.", None),
    ({"a": ["x", "y"], "color": "nope", "labels": "off"}, LLAMA, QWEN,
     f"'x' {NOT_A_KEY} Showing {LLAMA} as A instead. Colour mode 'nope' is not one of this "
     "page's (figure, fixed, shared); using a range shared by A and B.", None),
]


@pytest.mark.parametrize("query, a, b, problems, error", LAYOUT_CASES)
def test_layout_renders_any_query(dash_app, query, a, b, problems, error):
    from layouts.compare import layout

    with dash_app.server.test_request_context("/compare"):
        page = json.loads(json.dumps(layout(**query), cls=PlotlyJSONEncoder))
    assert (find(page, "compare-a")["props"]["value"], find(page, "compare-b")["props"]["value"],
            text_of(text_of(find(page, "compare-problems"))),
            text_of(text_of(find(page, "compare-error")))) == (a, b, problems, error)


def test_mean_built_in_the_menu_becomes_a_side(client):
    keys = [f"{BENCH}:r1-llama-{b}" for b in ("aime24", "aime25", "amc23", "gpqa-diamond")]
    out = sync(client, "compare-mean-as-a.n_clicks", mean=keys, compare_mean_as_a__n_clicks=1)
    assert out["compare-a.value"] == MEAN
    assert out["compare-loc.search"] == f"?a={MEAN}"
    assert any(o["value"] == MEAN and o["label"].endswith("(derived)")
               for o in out["compare-a.options"])


@pytest.mark.parametrize("mean, says", [
    ([], "Pick at least two panels"),
    ([LLAMA], "Pick at least two panels"),
    ([LLAMA, "core-generalization:qwen-2-5b"], "must share their axes"),
])
def test_bad_mean_is_explained_and_changes_nothing(client, mean, says):
    out = sync(client, "compare-mean-as-b.n_clicks", mean=mean, compare_mean_as_b__n_clicks=1)
    assert "compare-b.value" not in out  # no_update
    assert says in alert_text(out["compare-problems.children"])
    assert out["compare-loc.search"] == ""  # still the default pair


def test_swap_and_incompatible_menus(client):
    out = sync(client, "compare-swap.n_clicks", compare_swap__n_clicks=1)
    assert (out["compare-a.value"], out["compare-b.value"]) == (QWEN, LLAMA)
    assert out["compare-loc.search"] == f"?a={QWEN}&b={LLAMA}"
    out = sync(client, "compare-a.value", compare_a__value="core-generalization:qwen-2-5b")
    assert "different axes" in alert_text(out["compare-error.children"])
    assert out["compare-body.style"] == {"display": "none"}
    assert out["compare-b.options"] == [  # B's figure's panels, none over A's axes
        {"label": "R1-Llama (no common cells with A)", "value": LLAMA, "disabled": True},
        {"label": "R1-Qwen (no common cells with A)", "value": QWEN, "disabled": True}]


def test_swap_sends_the_maps_labels_not_their_values(client):
    """The page gives back the digests of the arrays it holds; a swap's maps refer to them (the
    browser makes them: components.reuse), and the whole response is a few kilobytes."""
    from components.reuse import annotate, resolve

    # back to the default pair from a swapped page: its maps whole, and their digests
    shown = dict(compare_loc__search="", compare_a__value=QWEN, compare_b__value=LLAMA)
    first = sync(client, "compare-loc.search", **shown)
    held = first["compare-held.data"]
    whole = sync_response(client, "compare-swap.n_clicks", compare_swap__n_clicks=1)
    swap = sync_response(client, "compare-swap.n_clicks", compare_swap__n_clicks=1,
                         compare_held__data=held)
    full, lean = outputs(whole)["compare-incoming.data"], outputs(swap)["compare-incoming.data"]
    refs = [t[f] for fig in lean for t in fig["data"] for f in ("z", "customdata")
            if isinstance(t.get(f), dict) and "reuse" in t[f]]
    assert sorted(r["op"] for r in refs) == ["neg", "same", "same", "swap01"]
    assert {r["reuse"] for r in refs} <= set(held)
    assert outputs(swap)["compare-held.data"] == annotate(full)[1] == outputs(whole)[
        "compare-held.data"]
    # what the browser draws is the whole response's maps
    assert resolve(lean, first["compare-incoming.data"]) == full
    # everything but the maps is the same; the maps lost their values
    assert {k: v for k, v in outputs(swap).items() if k != "compare-incoming.data"} == {
        k: v for k, v in outputs(whole).items() if k != "compare-incoming.data"}
    assert len(swap.get_data()) < len(whole.get_data())


def test_stale_page_gets_the_maps_whole(client):
    first = sync(client, "compare-loc.search", compare_loc__search="", compare_a__value=QWEN,
                 compare_b__value=LLAMA)
    out = sync(client, "compare-stale.data", compare_stale__data=1795400000000,
               compare_held__data=first["compare-held.data"])
    maps = out["compare-incoming.data"]
    assert [fig["layout"]["title"]["text"] for fig in maps] == ["A · R1-Llama", "B · R1-Qwen",
                                                                 "B − A"]
    assert not any("reuse" in t[f] for fig in maps for t in fig["data"]
                   for f in ("z", "customdata") if isinstance(t.get(f), dict))


def test_a_figure_menu_picks_its_first_panel_and_a_fitting_b(client):
    # B (R1-Qwen) shares no cell with Core Generalization: B becomes a pair of A's figure's own
    out = sync(client, "compare-a-figure.value", compare_a_figure__value="short-to-long",
               compare_b_figure__value="dynts-llama-vs-qwen")
    assert (out["compare-a.value"], out["compare-b.value"], out["compare-b-figure.value"],
            out["compare-loc.search"]) == (
        "short-to-long:qwen-2-5-7b", "core-generalization:qwen-2-5b", "core-generalization",
        "?a=short-to-long:qwen-2-5-7b&b=core-generalization:qwen-2-5b")
    assert "compare-a-figure.value" not in out  # the menu shows it already: not written again
    assert out["compare-a.options"] == [{"label": "Qwen-2.5 7B",
                                         "value": "short-to-long:qwen-2-5-7b"}]
    # B's figure: its first panel that shares cells with A
    out = sync(client, "compare-b-figure.value", compare_b_figure__value=BENCH)
    assert out["compare-b.value"] == f"{BENCH}:r1-llama-aime24"
    assert "compare-a.value" not in out and "compare-b-figure.value" not in out  # as shown
    assert [o["value"] for o in out["compare-b.options"]] == [
        f"{BENCH}:r1-llama-{b}" for b in ("aime24", "aime25", "amc23", "gpqa-diamond")]
    # the figure already shown, or one that does not exist: nothing changes
    for figure in ("dynts-llama-vs-qwen", "nope"):
        response = sync_response(client, "compare-a-figure.value",
                                 compare_a_figure__value=figure)
        assert response.status_code == 204


def test_mean_menu_lists_one_figure_and_keeps_its_picks(client):
    dep = find_callback(client, "compare-mean.options@")
    pick = f"{BENCH}:r1-llama-aime24"
    body = {"output": dep["output"], "outputs": {"id": "compare-mean", "property": "options"},
            "inputs": [{"id": "compare-mean-figure", "property": "value",
                        "value": "dynts-llama-vs-qwen"}],
            "state": [{"id": "compare-mean", "property": "value", "value": [pick]},
                      {"id": "uploads", "property": "data", "value": []}],
            "changedPropIds": ["compare-mean-figure.value"]}
    response = client.post("/_dash-update-component", data=json.dumps(body),
                           content_type="application/json")
    assert response.status_code == 200, response.get_data(True)[:300]
    assert response.get_json()["response"]["compare-mean"]["options"] == [
        {"label": "R1-Llama", "value": LLAMA}, {"label": "R1-Qwen", "value": QWEN},
        {"label": "R1-Llama | AIME24 — "
                  "R1-Llama Pass@1 by local window size and ratio, four benchmarks", "value": pick}]


def test_a_panel_that_is_gone_falls_back_with_a_message(client):
    out = sync(client, "compare-b.value", compare_b__value="upload-gone:x")
    assert out["compare-b.value"] == QWEN
    assert "Panel B: There is no figure 'upload-gone'" in alert_text(
        out["compare-problems.children"])


def test_very_large_maps_draw_gaps_as_background_and_say_so(monkeypatch, catalog, dash_app):
    """Compare's maps follow evalmaps.figures.heatmap's rule for panels above MAX_GAP_TRACE_CELLS
    (lowered here to 10, so a 4 x 5 pair counts as large): no trace of unreported cells (two
    benchmarks of R1-Llama, ratios 0.2-0.4 not reported), a grey plot background, and the
    legend says their hover is gone."""
    import evalmaps.figures.heatmap as heatmap
    from evalmaps.figures.theme import MISSING_COLOR
    from evalmaps.views.state import parse_compare_state
    from layouts.compare import render

    state = parse_compare_state({"a": [f"{BENCH}:r1-llama-aime24"],
                                 "b": [f"{BENCH}:r1-llama-aime25"]}, catalog)
    before = render(catalog, state)
    monkeypatch.setattr(heatmap, "MAX_GAP_TRACE_CELLS", 10)
    after = render(catalog, state)
    for old, new in zip(before["figures"], after["figures"]):
        assert new["layout"]["plot_bgcolor"] == MISSING_COLOR != old["layout"]["plot_bgcolor"]
        gone = [t for t in old["data"] if t not in new["data"]]
        assert gone and all("not reported" in t["hovertemplate"] or "not comparable"
                            in t["hovertemplate"] for t in gone)
    assert "Above 10 cells a panel's grey cells have no hover" in " ".join(after["legend"])
    assert "no hover" not in " ".join(before["legend"])


# --------------------------------------------------------------------------- labels of a dimension

PYTHIA = "pythia-zero-shot"
A14, B28 = f"{PYTHIA}:model=1.4b", f"{PYTHIA}:model=2.8b"


def test_two_models_of_a_figure_with_models_as_rows(client, catalog):
    body = get_json(client, compare_url(A14, B28))
    assert list(body) == [*PAYLOAD_KEYS, "grid"]  # the panels' shape, one field added
    assert body["grid"] == {"dim": "model", "y": "task", "x": "step",
                            "fixed": {"metric": "acc"}, "averaged": [], "averaged_of": None}
    assert body["dims"]["y"]["name"] == "task" and body["dims"]["x"]["name"] == "step"
    assert body["a"]["ref"] == A14 and body["a"]["derived"] is False
    assert body["url"] == f"/compare?a={A14}&b={B28}"
    fig = catalog.figure(PYTHIA)
    for cell in body["cells"][::97]:  # every cell is the figure's own pair of values
        coords = {"task": cell["task"], "step": cell["step"], "metric": "acc"}
        a, b = fig.value(model="1.4b", **coords), fig.value(model="2.8b", **coords)
        assert (cell["a"], cell["b"], cell["delta"]) == (a, b, round(b - a, 9))
        assert "a_count" not in cell and cell["se"] is not None
    assert body["summary"]["no_significance"] is None
    assert body["n_common"] == len(body["cells"]) == 65 * 27


def test_an_averaged_dimension_counts_its_cells_and_has_no_standard_error(client, catalog):
    body = get_json(client, compare_url(A14, B28) + "&ydim=metric&avg=task")
    assert body["grid"]["averaged"] == ["task"] and body["grid"]["averaged_of"] == 65
    assert body["url"] == f"/compare?a={A14}&b={B28}&ydim=metric&avg=task"
    cell = next(c for c in body["cells"] if (c["metric"], c["step"]) == ("acc", "143000"))
    cells = catalog.figure(PYTHIA).cells
    mine = cells[(cells.model == "1.4b") & (cells.metric == "acc") & (cells.step == "143000")]
    assert cell["a"] == pytest.approx(mine.value.mean(), abs=1e-9)
    assert cell["a_count"] == len(mine) == 65 and "se" not in cell
    assert body["a"]["derived"] is True
    assert body["summary"]["no_significance"] == ("both sides are means, which carry no "
                                                  "standard error")
    assert body["sentences"][-1] == ("Significance cannot be judged from this data: both sides "
                                     "are means, which carry no standard error.")


def test_the_default_pair_says_why_significance_cannot_be_judged(client):
    body = get_json(client, "/api/compare")
    assert body["summary"]["no_significance"] == "neither side gives a standard error"
    assert body["sentences"][-1] == ("Significance cannot be judged from this data: neither "
                                     "side gives a standard error.")


@pytest.mark.parametrize("query, says", [
    (f"?a={A14}&b={QWEN}", "A names a label of a dimension and B a panel"),
    (f"?a={A14}&b={PYTHIA}:step=0", "labels of one dimension of one figure"),
    (f"?a={A14}&b={PYTHIA}:model=13b", "B: '13b' is not a label of model"),
    (f"?a={A14}&b={B28}&ydim=model", "The rows cannot be chosen so: Model is the dimension "
                                     "compared."),
    (f"?a={A14}&b={B28}&avg=metric", "Metric cannot be averaged over"),
    (f"?a={A14}&b={B28}&metric=acc&metric=acc_norm", "Give one label of metric"),
    (f"?a={A14}&b={B28}&avg=task", "Task is the rows: it cannot also be fixed or averaged"),
    (f"?a={LLAMA}&b={QWEN}&ydim=model", "ydim, xdim and avg lay out two labels"),
])
def test_labels_that_do_not_fit_are_a_400(client, query, says):
    message = assert_json_error(client.get("/api/compare" + query.replace("+", "%2B")), 400)
    assert says in message


def test_compare_by_a_dimension_in_the_page(client):
    """'Compare' set to a dimension: A and B become two of its labels (the panels' own, where
    they have them), on the default grid; the grid's menus show; back to panels."""
    out = sync(client, "compare-by.value", compare_by__value="model")
    assert (out["compare-a.value"], out["compare-b.value"]) == (
        "dynts-llama-vs-qwen:model=R1-Llama", "dynts-llama-vs-qwen:model=R1-Qwen")
    assert out["compare-grid.style"] == {} and out["compare-a-label.children"] == "A: Model"
    assert (out["compare-ydim.value"], out["compare-xdim.value"]) == ("window", "ratio")
    assert out["compare-b-figure.disabled"] is True
    assert "Significance cannot be judged from this data: neither side gives a standard " \
           "error." in str(out["compare-text.children"])
    shown = dict(compare_a__value=out["compare-a.value"], compare_b__value=out["compare-b.value"],
                 compare_by__value="", compare_loc__search=out["compare-loc.search"])
    back = sync(client, "compare-by.value", **shown)
    assert (back["compare-a.value"], back["compare-b.value"]) == (LLAMA, QWEN)
    assert back["compare-grid.style"] == {"display": "none"} and back["compare-loc.search"] == ""


def test_the_grids_menus_in_the_page(client):
    search = f"?a={A14}&b={B28}"
    shown = dict(compare_a__value=A14, compare_b__value=B28, compare_by__value="model",
                 compare_ydim__value="task", compare_xdim__value="step", compare_loc__search=search,
                 rest={"metric": "=acc"})
    # the rows: metric; task leaves the rows for a menu of its own, fixed at its first label
    out = sync(client, "compare-ydim.value", **{**shown, "compare_ydim__value": "metric"})
    assert out["compare-loc.search"] == search + "&ydim=metric"
    menus = out["compare-rest.children"]
    assert [m["props"]["children"][1]["props"]["id"]["dim"] for m in menus] == ["task"]
    assert menus[0]["props"]["children"][1]["props"]["value"] == "=arc_challenge"
    # task averaged over
    out = sync(client, '{"dim":"task","type":"compare-rest"}.value',
               **{**shown, "compare_ydim__value": "metric", "rest": {"task": "mean"},
                  "compare_loc__search": search + "&ydim=metric"})
    assert out["compare-loc.search"] == search + "&ydim=metric&avg=task"
    assert "compare-rest.children" not in out  # the menus show that already
    # the columns set to the rows' dimension: the two swap
    out = sync(client, "compare-xdim.value", **{**shown, "compare_xdim__value": "task"})
    assert out["compare-loc.search"] == search + "&xdim=task"
    assert out["compare-ydim.value"] == "step"
    assert "compare-xdim.value" not in out  # the menu shows it already


@pytest.mark.parametrize("query, a, b, error", [
    ({"a": A14, "b": B28}, A14, B28, None),
    ({"a": A14, "b": f"{PYTHIA}:model=12b", "task": "lambada_openai", "ydim": "metric",
      "metric": "acc"}, A14, f"{PYTHIA}:model=12b", None),
])
def test_the_page_renders_two_labels(dash_app, query, a, b, error):
    from layouts.compare import layout

    with dash_app.server.test_request_context("/compare"):
        page = json.loads(json.dumps(layout(**query), cls=PlotlyJSONEncoder))
    assert (find(page, "compare-a")["props"]["value"], find(page, "compare-b")["props"]["value"],
            text_of(text_of(find(page, "compare-error")))) == (a, b, error)
    assert find(page, "compare-by")["props"]["value"] == "model"
