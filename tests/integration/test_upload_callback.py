"""Uploads through the real callback path (POST /_dash-update-component), bad input included.

Each bad file gets a clear one- or two-sentence message naming the file and what to do, the
server never answers 500, and nothing else is touched: the built-in figures stay as they were.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.integration.dash_calls import call, outputs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PREVIEW = "data-upload-status.children"


def raw(name: str, data: bytes) -> dict:
    return {"name": name, "contents": "data:text/csv;base64," + base64.b64encode(data).decode()}


def preview(client, name: str, data: bytes, **mapping):
    inputs = {"data-upload-raw.data": raw(name, data), "data-format.value": "auto",
              "data-metric.value": "Accuracy", "data-unit.value": "%", "data-range.value": True}
    inputs.update({f"data-{k}.value": v for k, v in mapping.items()})
    response = call(client, PREVIEW, inputs)
    assert response.status_code == 200, response.data[:300]
    return outputs(response)


def alert_text(out: dict) -> str | None:
    node = out[PREVIEW]
    if node.get("type") == "Alert":
        return node["props"]["children"]
    return None


def test_good_upload_previews_and_yields_a_session_figure(client):
    out = preview(client, "wide_small.csv", (FIXTURES / "wide_small.csv").read_bytes())
    assert alert_text(out) is None
    assert out["data-add.disabled"] is False
    pending = out["data-pending.data"]
    assert pending["spec"]["id"].startswith("upload-wide-small-")
    assert pending["spec"]["provenance"] == "uploaded"
    assert out["data-x.value"] == "len" and out["data-y.value"] == "type"
    assert out["data-replicate.value"] == "seed"
    preview_json = json.dumps(out[PREVIEW])
    for fragment in ("wide", "seed", "15"):
        assert fragment in preview_json
    # the stored entry rebuilds into the same figure any worker can serve
    from evalmaps.uploads import figure_from_upload

    figure = figure_from_upload(pending)
    assert figure.value(model="tiny-a", ft_type="lora", type="1", len="1") == 90.0


def test_mapping_change_re_imports(client):
    data = (FIXTURES / "tidy_small.csv").read_bytes()
    out = preview(client, "tidy_small.csv", data)
    assert (out["data-x.value"], out["data-y.value"]) == ("length", "type")
    inputs = {"data-upload-raw.data": raw("tidy_small.csv", data), "data-format.value": "auto",
              "data-x.value": "type", "data-y.value": "length", "data-replicate.value": "",
              "data-metric.value": "Accuracy", "data-unit.value": "%", "data-range.value": True}
    swapped = outputs(call(client, PREVIEW, inputs, changed=["data-x.value"]))
    spec = swapped["data-pending.data"]["spec"]
    assert (spec["x"], spec["y"]) == ("type", "length")


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
    assert len(client.get("/api/figures").get_json()["figures"]) == 6


def test_html_labels_stay_text(client):
    data = b"type,len,value\n<script>alert(1)</script>,1,50\n<img src=x onerror=alert(2)>,2,60\n"
    out = preview(client, "html.csv", data)
    assert alert_text(out) is None
    labels = out["data-pending.data"]["spec"]["dims"]["type"]["labels"]
    assert "<script>alert(1)</script>" in labels  # kept as data; every view renders it as text
    from evalmaps.slicing import slice_panel
    from evalmaps.uploads import figure_from_upload
    from components.heatmap import heatmap_figure

    figure = figure_from_upload(out["data-pending.data"])
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
    fid = pending["spec"]["id"]
    shown = [{"type": "=1+2", "len": "1"}, {"type": "@cmd", "len": "2"}]
    response = call(client, "data-download.data", {"data-download-button.n_clicks": 1},
                    state={"data-grid.virtualRowData": shown, "data-rendered-figure.data": fid,
                           "uploads.data": [pending]})
    content = outputs(response)["data-download.data"]["content"]
    assert "'=1+2,1,50.0" in content and "'@cmd,2,60.0" in content
