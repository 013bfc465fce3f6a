"""Uploads through the real callback path (POST /_dash-update-component), bad input included.

Each bad file gets a clear one- or two-sentence message naming the file and what to do, the
server never answers 500, and nothing else is touched: the built-in figures stay as they were.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from tests.integration.dash_calls import call, outputs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PREVIEW = "data-upload-status.children"


def raw(name: str, data: bytes) -> dict:
    return {"name": name, "contents": "data:text/csv;base64," + base64.b64encode(data).decode()}


def stage(client, name: str, data: bytes) -> dict:
    response = call(client, "data-staged.data", {"data-upload-raw.data": raw(name, data)})
    assert response.status_code == 200, response.data[:300]
    return outputs(response)


def preview(client, name: str, data: bytes, **mapping):
    """Stage the file (its one trip to the server), then preview it as the page does."""
    staged = stage(client, name, data)
    if not staged.get("data-staged.data"):
        return staged
    assert staged["data-upload-raw.data"] is None and staged["data-upload.contents"] is None
    return preview_staged(client, staged["data-staged.data"], **mapping)


def preview_staged(client, key: str, changed=None, **mapping):
    inputs = {"data-staged.data": key, "data-format.value": "auto",
              "data-metric.value": "Accuracy", "data-unit.value": "%", "data-range.value": True}
    inputs.update({f"data-{k}.value": v for k, v in mapping.items()})
    response = call(client, "data-pending.data", inputs, changed=changed)
    assert response.status_code == 200, response.data[:300]
    return outputs(response)


def keep(client, pending: dict, recent=None) -> dict:
    response = call(client, "uploads.data", {"data-add.n_clicks": 1},
                    state={"data-pending.data": pending, "uploads.data": recent or []})
    assert response.status_code == 200, response.data[:300]
    return outputs(response)


def current_store(client):
    return client.application.extensions["evalmaps"]["store"]


def alert_text(out: dict) -> str | None:
    node = out[PREVIEW]
    if node.get("type") == "Alert":
        return node["props"]["children"]
    return None


def test_good_upload_previews_then_is_kept_on_the_server(client, dash_app):
    data = (FIXTURES / "wide_small.csv").read_bytes()
    out = preview(client, "wide_small.csv", data)
    assert alert_text(out) is None
    assert out["data-add.disabled"] is False
    pending = out["data-pending.data"]
    assert set(pending) == {"key", "options"} and len(json.dumps(pending)) < 400  # no contents
    assert out["data-x.value"] == "len" and out["data-y.value"] == "type"
    assert out["data-replicate.value"] == "seed"
    preview_json = json.dumps(out[PREVIEW])
    for fragment in ("wide", "seed", "15"):
        assert fragment in preview_json
    kept = keep(client, pending, recent=["upload-older-0123456789abcdef"])
    fid = kept["uploads.data"][-1]
    assert kept["uploads.data"] == ["upload-older-0123456789abcdef", fid]
    assert re.fullmatch(r"upload-[0-9a-f]{32}", fid)  # a random link, not the file's name
    assert kept["_pages_location.href"] == f"/?figure={fid}"
    # the figure is in the store: any worker, any browser opens it by id
    store = dash_app.server.extensions["evalmaps"]["store"]
    from evalmaps.service.store import Store

    figure = Store(store.root).figure(fid)
    assert figure.spec.provenance == "uploaded"
    assert figure.value(model="tiny-a", ft_type="lora", type="1", len="1") == 90.0
    summary = client.get(f"/api/figures/{fid}").get_json()
    assert (summary["id"], summary["provenance"]) == (fid, "uploaded")
    assert client.get(f"/?figure={fid}").status_code == 200


def test_mapping_change_re_imports_from_the_staged_file(client):
    data = (FIXTURES / "tidy_small.csv").read_bytes()
    key = stage(client, "tidy_small.csv", data)["data-staged.data"]
    out = preview_staged(client, key)
    assert (out["data-x.value"], out["data-y.value"]) == ("length", "type")
    swapped = preview_staged(client, key, changed=["data-x.value"], x="type", y="length",
                             replicate="")
    assert swapped["data-pending.data"]["options"]["x"] == "type"
    fid = keep(client, swapped["data-pending.data"])["uploads.data"][-1]
    roles = {d["name"]: d["role"] for d in client.get(f"/api/figures/{fid}").get_json()["dims"]}
    assert (roles["type"], roles["length"]) == ("x", "y")


def test_the_per_item_options_leave_out_the_columns_named(client):
    """"Leave out columns" (``--drop``, commas between): the preview and the kept figure both
    go without them."""
    data = (b"model,question_id,category,level,src,answer,pred\nm,1,law,1,a,A,A\n"
            b"m,2,law,2,b,B,C\nm,3,math,1,b,C,C\n")
    key = stage(client, "items.csv", data)["data-staged.data"]
    mapping = dict(item="question_id", pred="pred", ref="answer")
    assert preview_staged(client, key, **mapping)["data-x.value"] in ("level", "src")
    out = preview_staged(client, key, changed=["data-drop.value"], **mapping,
                         drop=" level, src")
    assert alert_text(out) is None, out[PREVIEW]
    assert out["data-pending.data"]["options"]["drop"] == ["level", "src"]
    kept = keep(client, out["data-pending.data"])
    assert "uploads.data" in kept, kept
    fid = kept["uploads.data"][-1]
    dims = [d["name"] for d in client.get(f"/api/figures/{fid}").get_json()["dims"]]
    assert dims == ["model", "category", "metric"]
    refused = preview_staged(client, key, changed=["data-drop.value"], **mapping, drop="nope")
    assert "--drop names the column 'nope'" in alert_text(refused)


def test_the_cluster_column_is_kept_with_the_items_and_clusters_the_api(client):
    """"Cluster column" (``--cluster``): the kept figure's items carry it, so /api/cells and
    /api/compare cluster by it; a column the table lacks is one sentence naming it."""
    rows = ["model,question_id,category,src,answer,pred"]
    for model in ("m1", "m2"):
        for q in range(24):
            right = (q * (3 if model == "m1" else 5)) % 7 < 4
            rows.append(f"{model},{q},{'law' if q < 12 else 'math'},s{q % 4},A,{'A' if right else 'B'}")
    data = ("\n".join(rows) + "\n").encode()
    key = stage(client, "items.csv", data)["data-staged.data"]
    mapping = dict(item="question_id", pred="pred", ref="answer")
    refused = preview_staged(client, key, changed=["data-cluster.value"], **mapping,
                             cluster="nope")
    assert "--cluster names the column 'nope'" in alert_text(refused)
    out = preview_staged(client, key, changed=["data-cluster.value"], **mapping, cluster="src")
    assert alert_text(out) is None, out[PREVIEW]
    assert out["data-pending.data"]["options"]["cluster"] == "src"
    fid = keep(client, out["data-pending.data"])["uploads.data"][-1]
    dims = [d["name"] for d in client.get(f"/api/figures/{fid}").get_json()["dims"]]
    assert "src" not in dims  # the cluster is no dimension
    cells = client.get(f"/api/figures/{fid}/cells?cluster=src").get_json()["cells"]
    assert {c["n_clusters"] for c in cells} == {4}
    body = client.get(f"/api/compare?a={fid}:m1&b={fid}:m2&cluster=src").get_json()
    assert {c["paired"]["n_clusters"] for c in body["cells"]} == {4}
    assert body["url"].endswith("cluster=src")


BAD_FILES = {
    "empty": (b"", "empty"),
    "header-only": (b"model,type,length,value\n", "no data rows"),
    "binary": (b"PK\x03\x04\x00\x00\x00binary", "binary"),
    "not-utf8": ("type,len,value\ncafé,1,5\n".encode("latin-1"), "UTF-8"),
    "wrong-delimiter": (b"type|len|value\na|1|5\nb|2|6\n", "'|'"),
    "ragged": (b"type,len,value\na,1,5\nb,2,6,7\n", "row 3"),
    "no-value-column": (b"type,len,score\na,1,5\n", "no 'value' column"),
    "non-numeric": (b"type,len,value\na,1,5\nb,2,abc\n", "'abc' is not a finite number"),
    "infinite": (b"type,len,value\na,1,inf\n", "'inf' is not a finite number"),
    "out-of-range": (b"type,len,value\na,1,101\n", "outside the range"),
    "conflicting-duplicates": (b"type,len,value\na,1,5\na,1,6\n", "more than once"),
    "no-single-pattern": (b"m,type_1_len_0,type_1_len_1,kind_2_size_3,kind_2_size_4\n"
                          b"x,1,2,3,4\n", "more than one pattern"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_files_get_a_clear_message_and_no_figure(client, case):
    data, fragment = BAD_FILES[case]
    out = preview(client, f"{case}.csv", data, format="tidy" if case == "no-value-column"
                  else "auto")
    message = alert_text(out)
    assert message is not None, f"{case}: no error shown"
    assert fragment in message
    assert message.startswith(f"{case}.csv")
    assert message.count(". ") <= 2 and "Traceback" not in message
    assert out["data-add.disabled"] is True and out["data-pending.data"] is None
    # nothing else was touched
    assert len(client.get("/api/figures").get_json()["figures"]) == 7


def test_html_labels_stay_text(client):
    data = b"type,len,value\n<script>alert(1)</script>,1,50\n<img src=x onerror=alert(2)>,2,60\n"
    out = preview(client, "html.csv", data)
    assert alert_text(out) is None
    fid = keep(client, out["data-pending.data"])["uploads.data"][-1]
    dims = client.get(f"/api/figures/{fid}").get_json()["dims"]
    labels = [d for d in dims if d["name"] == "type"][0]["labels"]
    assert "<script>alert(1)</script>" in labels  # kept as data; every view renders it as text
    from evalmaps.analysis.slicing import slice_panel
    from evalmaps.figures.heatmap import heatmap_figure

    figure = current_store(client).figure(fid)
    view = slice_panel(figure, next(iter(figure.panels.values())))
    fig = heatmap_figure(view, (0, 100))
    assert fig["data"][0]["y"] == ["&lt;script&gt;alert(1)&lt;/script&gt;",
                                   "&lt;img src=x onerror=alert(2)&gt;"]
    assert "<script>" not in json.dumps(fig)


def test_size_limit_is_enforced_by_the_server(client, dash_app):
    config = dash_app.server.config
    saved = config["EVALMAPS_MAX_UPLOAD_BYTES"], config["MAX_CONTENT_LENGTH"]
    try:
        config["EVALMAPS_MAX_UPLOAD_BYTES"] = 1000
        out = preview(client, "big.csv", b"type,len,value\n" + b"a,1,50\n" * 400)
        assert "over the" in alert_text(out) and "MB limit" in alert_text(out)
        config["MAX_CONTENT_LENGTH"] = 5000  # a request body no file under the limit needs
        response = call(client, PREVIEW, {"data-upload-raw.data": raw("huge.csv", b"x" * 20000)})
        assert response.status_code == 413
        assert "at most" in response.get_json()["error"]
    finally:
        config["EVALMAPS_MAX_UPLOAD_BYTES"], config["MAX_CONTENT_LENGTH"] = saved


def test_default_limit_is_20_mb_server_side(dash_app):
    assert dash_app.server.config["EVALMAPS_MAX_UPLOAD_BYTES"] == 20 * 2**20
    assert dash_app.server.config["MAX_CONTENT_LENGTH"] >= 20 * 2**20 * 4 // 3


def test_damaged_upload_is_explained(client):
    out = preview(client, "x.csv", b"")
    bad = {"name": "x.csv", "contents": "data:text/csv;base64,@@@not-base64@@@"}
    response = call(client, PREVIEW, {"data-upload-raw.data": bad, "data-format.value": "auto",
                                      "data-range.value": True})
    assert response.status_code == 200
    assert alert_text(outputs(response)) == "x.csv: the upload arrived damaged. Upload the file again."
    assert alert_text(out) == "x.csv: the file is empty. It needs a header row and at least one data row."


def test_download_holds_exactly_the_rows_shown(client):
    shown = [{"model": "R1-Qwen", "window": "2000", "ratio": "0.4", "value": 1.0},  # value ignored
             {"model": "R1-Qwen", "window": "500", "ratio": "0.1"},
             {"model": "R1-Qwen", "window": "9999", "ratio": "0.1"}]  # not a cell: left out
    response = call(client, "data-download.data", {"data-download-button.n_clicks": 1},
                    state={"data-grid.virtualRowData": shown,
                           "data-rendered-figure.data": "dynts-llama-vs-qwen", "uploads.data": []})
    data = outputs(response)["data-download.data"]
    assert data["filename"] == "dynts-llama-vs-qwen-slice.csv"
    lines = data["content"].strip().splitlines()
    assert lines == ["model,window,ratio,value,provenance",
                     "R1-Qwen,2000,0.4,56.3,transcribed",
                     "R1-Qwen,500,0.1,51.5,transcribed"]


def test_download_neutralises_formula_labels(client):
    data = b"type,len,value\n=1+2,1,50\n@cmd,2,60\n"
    pending = preview(client, "formula.csv", data)["data-pending.data"]
    fid = keep(client, pending)["uploads.data"][-1]
    shown = [{"type": "=1+2", "len": "1"}, {"type": "@cmd", "len": "2"}]
    response = call(client, "data-download.data", {"data-download-button.n_clicks": 1},
                    state={"data-grid.virtualRowData": shown, "data-rendered-figure.data": fid,
                           "uploads.data": [fid]})
    content = outputs(response)["data-download.data"]["content"]
    assert "'=1+2,1,50.0" in content and "'@cmd,2,60.0" in content


def test_a_read_only_server_turns_the_upload_off(client, dash_app, monkeypatch):
    monkeypatch.setitem(dash_app.server.extensions["evalmaps"], "store", None)
    out = stage(client, "tidy_small.csv", (FIXTURES / "tidy_small.csv").read_bytes())
    assert alert_text(out) == ("This server is read-only (it runs without an upload store), so "
                               "uploads are off. Serve your files with evalmaps serve --data DIR "
                               "instead.")
    assert out["data-staged.data"] is None and out["data-upload-raw.data"] is None
    from layouts import data as data_page

    with dash_app.server.test_request_context("/data"):
        page = json.dumps(data_page.layout(), cls=__import__("plotly").utils.PlotlyJSONEncoder)
    assert '"disabled": true' in page and "uploads are off" in page


@pytest.mark.parametrize("pending", [None, 5, "x", [], {"key": 5}, {"key": "../../etc/passwd"},
                                     {"key": "a" * 64, "options": "junk"},
                                     {"key": "a" * 64, "options": {"format": ["tidy"], "x": 5}}])
def test_junk_pending_uploads_get_a_message_or_nothing(client, pending):
    response = call(client, "uploads.data", {"data-add.n_clicks": 1},
                    state={"data-pending.data": pending, "uploads.data": "junk"})
    assert response.status_code in (200, 204)
    if response.status_code == 200:
        assert alert_text(outputs(response)) == ("The uploaded file is no longer on the server. "
                                                 "Upload it again.")


@pytest.mark.parametrize("staged", [5, ["a"], {"k": 1}, "not-a-key", "b" * 64])
def test_junk_staged_keys_get_a_message_or_nothing(client, staged):
    response = call(client, "data-pending.data", {"data-staged.data": staged,
                                                  "data-format.value": ["x"],
                                                  "data-range.value": "yes"})
    assert response.status_code in (200, 204)
    if response.status_code == 200:
        assert alert_text(outputs(response)) == ("The uploaded file is no longer on the server. "
                                                 "Upload it again.")


def test_a_file_of_100000_columns_is_refused_before_parsing(client):
    data = (",".join(f"c{i}" for i in range(100_000)) + "\n" + "1," * 99_999 + "1\n").encode()
    out = preview(client, "columns.csv", data)
    assert alert_text(out) == ("columns.csv: its header has more than 5,000 columns. A results "
                               "table has one column per dimension and a value (or one per cell "
                               "of a wide table); split the file or make it tidy.")


def test_the_range_field_is_labelled_by_the_metric_as_read(client, dash_app):
    """Issue 37 (a new user, 10): a table of fractions was read as fractions (0-1, no unit),
    while the page went on labelling it "Accuracy % · Values must lie in 0-100"."""
    fractions = b"model,task,value\na,x,0.25\na,y,0.5\nb,x,0.75\nb,y,1.0\n"
    out = preview(client, "fractions.csv", fractions)
    assert alert_text(out) is None
    assert out["data-range.label"] == "Values must lie in 0-1 (fractions)"
    assert "read as fractions" in out["data-metric-note.children"]
    percentages = b"model,task,value\na,x,25\na,y,50\nb,x,75\nb,y,100\n"
    out = preview(client, "percent.csv", percentages)
    assert out["data-range.label"] == "Values must lie in 0-100"
    assert out["data-metric-note.children"] == ""
