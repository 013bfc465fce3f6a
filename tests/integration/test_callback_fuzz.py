"""Hostile callback requests: every server-side callback, as listed by /_dash-dependencies, gets
requests whose values are junk or near misses (hypothesis), and never answers 500.

A request is what a browser would POST to /_dash-update-component, with the callback's own
outputs, inputs and state, but any JSON in the values: wrong types, unknown figures and panels,
huge and odd strings, lists where one value goes, pattern-matching ids with made-up dims. The
answer must be 200 (an update, possibly a message on the page), 204 (nothing to update) or 400
(a request that does not fit the app), never a 500 or a traceback. Malformed envelopes (not JSON,
missing keys, wrong shapes) get a 400 with a JSON error.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.server

FIGURES = ["core-generalization", "short-to-long", "dynts-llama-vs-qwen", "acemath-rl-eval",
           "nope", "", "upload-x-0123456789abcdef", "../etc/passwd"]
PANELS = ["dynts-llama-vs-qwen:r1-llama", "dynts-llama-vs-qwen:r1-qwen", "core-generalization:x",
          "mean(dynts-llama-vs-qwen:r1-llama,dynts-llama-vs-qwen:r1-qwen)", "a:b:c", ":"]
SEARCHES = ["", "?", "?figure=", "?figure=short-to-long&rows=1&rows=2&xmin=7&xmax=x",
            "?figure=dynts-llama-vs-qwen&sort=value:2000&top=-1&color=zz&labels=2",
            "?a=dynts-llama-vs-qwen:r1-llama&b=core-generalization:qwen-2-5b&color=panel",
            "?figure=acemath-rl-eval&hide=%00&transpose=1&overlay=q&threshold=nan",
            "?figure=core-generalization&type=%3Cscript%3E&model=" + "x" * 3000]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=30), st.sampled_from(FIGURES + PANELS + SEARCHES))
junk = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)


def dependencies(client) -> list[dict]:
    client.get("/")
    return [d for d in client.get("/_dash-dependencies").get_json()
            if not d.get("clientside_function")]


def _is_pattern(cid) -> bool:
    """A pattern-matching id with a wildcard (ALL): the request lists concrete ids."""
    return isinstance(cid, str) and cid.startswith("{") and '["ALL"]' in cid


def _id(cid):
    return json.loads(cid) if isinstance(cid, str) and cid.startswith("{") else cid


def _concrete(pattern: str, draw) -> list[dict]:
    """Concrete ids for a pattern-matching id (ALL): a few made-up values of its wildcard keys."""
    spec = json.loads(pattern)
    count = draw(st.integers(0, 3))
    ids = []
    for i in range(count):
        ids.append({k: (draw(st.sampled_from(["model", "type", "a", "b", "delta", "x" * 50, "0"]))
                        if isinstance(v, list) else v) for k, v in spec.items()})
    return ids


def _outputs(output: str) -> list[tuple[str, str]]:
    parts = output[2:-2].split("...") if output.startswith("..") else [output]
    return [tuple(p.rsplit(".", 1)) for p in parts]


@st.composite
def requests_for(draw, dep: dict) -> dict:
    def item(cid, prop):
        if _is_pattern(cid):
            return [{"id": i, "property": prop, "value": draw(junk)} for i in _concrete(cid, draw)]
        return {"id": _id(cid), "property": prop, "value": draw(junk)}

    outputs = []
    for cid, prop in _outputs(dep["output"]):
        if _is_pattern(cid):
            outputs.append([{"id": i, "property": prop.split("@")[0]}
                            for i in _concrete(cid, draw)])
        else:
            outputs.append({"id": _id(cid), "property": prop.split("@")[0]})
    inputs = [item(i["id"], i["property"]) for i in dep["inputs"]]
    state = [item(s["id"], s["property"]) for s in dep["state"]]
    changed = draw(st.lists(st.sampled_from([f"{i['id']}.{i['property']}"
                                             for i in dep["inputs"]]), max_size=2, unique=True))
    return {"output": dep["output"],
            "outputs": outputs if dep["output"].startswith("..") else outputs[0],
            "inputs": inputs, "state": state, "changedPropIds": changed}


def envelope(dep: dict, values: dict) -> dict:
    """A request as our page sends it: ``values`` by 'id.prop', None elsewhere."""
    def item(entry):
        return {"id": _id(entry["id"]), "property": entry["property"],
                "value": values.get(f"{entry['id']}.{entry['property']}")}

    outputs = [{"id": _id(cid), "property": prop.split("@")[0]}
               for cid, prop in _outputs(dep["output"])]
    return {"output": dep["output"],
            "outputs": outputs if dep["output"].startswith("..") else outputs[0],
            "inputs": [item(i) for i in dep["inputs"]], "state": [item(s) for s in dep["state"]],
            "changedPropIds": list(values)[:1]}


def post(client, body):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post("/_dash-update-component", data=data, content_type="application/json")


def check(response) -> None:
    assert response.status_code in (200, 204, 400), (response.status_code,
                                                     response.data[:500])
    assert b"Traceback" not in response.data
    if response.status_code == 400:
        assert response.is_json and response.get_json()["error"]


MAX_CALLBACKS = 32  # the fuzz below covers callbacks 0..MAX_CALLBACKS-1 of /_dash-dependencies


def test_every_server_callback_is_fuzzed(client):
    # a new callback joins the fuzz by itself, as long as there are at most MAX_CALLBACKS
    assert 14 <= len(dependencies(client)) <= MAX_CALLBACKS


@pytest.mark.parametrize("index", range(MAX_CALLBACKS))
def test_hostile_values_never_give_500(client, index):
    deps = dependencies(client)
    if index >= len(deps):
        pytest.skip("fewer callbacks")
    dep = deps[index]

    @settings(max_examples=60, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(requests_for(dep))
    def run(body):
        check(post(client, body))

    run()


@pytest.mark.parametrize("body", [
    "", "not json", "[]", "5", "null", '{"output": 5}', "{}",
    '{"output": "browse-rows.value", "outputs": [], "inputs": 5}',
    '{"output": "nope.children", "outputs": {"id": "nope", "property": "children"}, '
    '"inputs": [], "state": [], "changedPropIds": []}',
    '{"output": "data-download.data", "outputs": {"id": "data-download", "property": "data"}, '
    '"inputs": [{"id": "data-download-button"}], "changedPropIds": ["x"]}',
])
def test_malformed_envelopes_get_a_400_json_error(client, body):
    response = post(client, body)
    assert response.status_code == 400, (response.status_code, response.data[:300])
    assert response.get_json()["status"] == 400 and response.get_json()["error"]


@pytest.mark.parametrize("uploads", [[{"spec": [], "csv": ""}], {"spec": []}, "x", [5, None]])
def test_a_malformed_uploads_list_breaks_no_page(client, uploads):
    """Issue 11: one malformed stored upload ({"spec": [], "csv": ""}) broke every page."""
    dep = next(d for d in dependencies(client) if "compare-heading" in d["output"])
    body = envelope(dep, {"compare-loc.search": "?color=fixed", "uploads.data": uploads})
    response = post(client, body)
    assert response.status_code == 200, response.data[:300]
    assert response.get_json()["response"]["compare-color"]["value"] == "fixed"
    page = client.post("/_dash-update-component", data=json.dumps({
        "output": ".._pages_content.children..._pages_store.data..",
        "outputs": [{"id": "_pages_content", "property": "children"},
                    {"id": "_pages_store", "property": "data"}],
        "inputs": [{"id": "_pages_location", "property": "pathname", "value": "/"},
                   {"id": "_pages_location", "property": "search", "value": "?figure=short-to-long"}],
        "state": [{"id": "uploads", "property": "data", "value": uploads}],
        "changedPropIds": ["_pages_location.pathname"]}), content_type="application/json")
    assert page.status_code == 200 and b"Short-to-Long" in page.data


# ------------------------------------------------ one junk value among plausible ones

PLAUSIBLE_FIGURE = "pythia-zero-shot"  # facets, se: the callbacks' longest paths
ONE_JUNK = [True, 1e308, -1e308, 1, "x", {}, [], [1], [[1]], [{}], {"a": [1]}, ["x"],
            "upload-x-0123456789abcdef"]


def plausible(entry: dict):
    """What our page would send for an input or state: the figure, its URL, a click."""
    cid, prop = entry["id"], entry["property"]
    if cid.endswith("rendered-figure") or (cid.endswith("-figure") and prop == "value"):
        return PLAUSIBLE_FIGURE
    if prop == "search":
        return f"?figure={PLAUSIBLE_FIGURE}"
    if prop == "n_clicks":
        return 1
    if cid == "uploads":
        return []
    if prop == "pathname":
        return "/"
    return {"compare-a": "dynts-llama-vs-qwen:r1-llama",
            "compare-b": "dynts-llama-vs-qwen:r1-qwen"}.get(cid)


def one_junk_bodies(dep: dict):
    """A request per (input or state, junk value): the others as our page sends them, so the
    callback gets past its first checks (a real figure) to the junk."""
    entries = [("inputs", e) for e in dep["inputs"]] + [("state", e) for e in dep["state"]]
    for where, target in entries:
        if _is_pattern(target["id"]):
            continue
        for junk in ONE_JUNK:
            def item(entry, kind):
                if _is_pattern(entry["id"]):
                    return []
                value = junk if (kind, entry) == (where, target) else plausible(entry)
                return {"id": _id(entry["id"]), "property": entry["property"], "value": value}

            outputs = [[] if _is_pattern(cid) else {"id": _id(cid), "property": prop.split("@")[0]}
                       for cid, prop in _outputs(dep["output"])]
            yield target, junk, {
                "output": dep["output"],
                "outputs": outputs if dep["output"].startswith("..") else outputs[0],
                "inputs": [item(e, "inputs") for e in dep["inputs"]],
                "state": [item(e, "state") for e in dep["state"]],
                "changedPropIds": [f"{dep['inputs'][0]['id']}.{dep['inputs'][0]['property']}"]}


def test_one_junk_value_among_plausible_ones_never_gives_500(client):
    """The Data page's download with virtualRowData true or 1e+308 (and a real figure) answered
    500 TypeError: the random fuzz above never got past the figure check."""
    failures = []
    for dep in dependencies(client):
        for target, junk, body in one_junk_bodies(dep):
            response = post(client, body)
            if response.status_code not in (200, 204, 400) or b"Traceback" in response.data:
                failures.append((dep["output"][:50], target["id"], target["property"], junk,
                                 response.status_code))
    assert failures == []


@pytest.mark.parametrize("rows", [True, 1e308, 1, "x", {"a": 1}, [1, "x", None, [2]],
                                  [{"model": {"x": 1}, "type": ["h"], "length": 5}]])
def test_the_download_of_junk_rows_is_a_no_op(client, rows):
    dep = next(d for d in dependencies(client) if d["output"].startswith("data-download.data"))
    body = envelope(dep, {"data-download-button.n_clicks": 1, "data-grid.virtualRowData": rows,
                          "data-rendered-figure.data": "core-generalization"})
    response = post(client, body)
    assert response.status_code in (200, 204), (response.status_code, response.data[:300])
    if response.status_code == 200:  # no row of the figure: the header only
        assert response.get_json()["response"]["data-download"]["data"]["content"].count("\n") == 1


@pytest.mark.parametrize("depth", [5000, 900, 65])
def test_a_body_nested_too_deep_gets_a_400(client, depth):
    """A callback body nested 5,000 deep answered 500 RecursionError (the JSON parser's); one
    that parses but nests deeper than any page sends is refused the same way."""
    deep = "[" * depth + "]" * depth
    body = ('{"output": "data-download.data", "outputs": {"id": "data-download", '
            '"property": "data"}, "inputs": [{"id": "data-download-button", '
            '"property": "n_clicks", "value": ' + deep + '}], "state": [], '
            '"changedPropIds": []}')
    response = post(client, body)
    assert response.status_code == 400, (response.status_code, response.data[:300])
    assert "nested more than 64 levels deep" in response.get_json()["error"]


def test_a_body_of_ordinary_depth_is_not_refused_for_it(client):
    dep = next(d for d in dependencies(client) if d["output"].startswith("data-download.data"))
    nested = [[[[[[{"model": "Qwen-2.5B"}]]]]]]
    body = envelope(dep, {"data-download-button.n_clicks": 1, "data-grid.virtualRowData": nested,
                          "data-rendered-figure.data": "core-generalization"})
    assert post(client, body).status_code in (200, 204)
