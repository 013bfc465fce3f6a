"""The public HTTP contract, through Flask's test client against the real app and the real data.

/api/figures, /api/figures/<id>, /api/figures/<id>/cells (JSON and CSV, filters, errors),
/healthz, the vendored Bootstrap CSS and the HTML pages (no non-local hosts).
"""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from importlib.metadata import version
from pathlib import Path
from urllib.parse import quote

import pytest
from plotly.utils import PlotlyJSONEncoder

ROOT = Path(__file__).resolve().parents[2]
CATALOG_IDS = [f["id"] for f in json.loads((ROOT / "data" / "catalog.json").read_text())["figures"]]

QWEN = "dynts-llama-vs-qwen"
BENCH = "dynts-r1-llama-benchmarks"
ACE = "acemath-training-progress"
SUMMARY_KEYS = {"id", "title", "metric", "provenance", "url", "dims", "panels", "n_cells"}
BOOTSTRAP_CSS = f"/vendor/bootstrap/css/bootstrap.min.css?v={version('bootstrap-flask')}"


# --------------------------------------------------------------------------- helpers

def get_json(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code, response.get_data(True)[:300])
    assert response.mimetype == "application/json", (url, response.content_type)
    return response.get_json()


def cells_of(client, figure_id, query=""):
    return get_json(client, f"/api/figures/{figure_id}/cells{query}")["cells"]


def sentences(text: str) -> list[str]:
    """Split on sentence ends ('.', '!' or '?' followed by whitespace or the end)."""
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def assert_json_error(response, status: int) -> str:
    """A JSON error body: {"error": <one or two sentences>, "status": <code>}, no traceback."""
    body = response.get_data(as_text=True)
    assert response.status_code == status, (response.status_code, body[:300])
    assert response.mimetype == "application/json", response.content_type
    assert "Traceback" not in body and 'File "' not in body
    assert not body.lstrip().startswith("<"), "an error body that looks like HTML"
    payload = json.loads(body)
    assert isinstance(payload.get("error"), str) and payload["error"].strip()
    assert payload.get("status") == status
    message = payload["error"]
    assert "\n" not in message
    assert message.rstrip().endswith((".", "!", "?")), message
    assert 1 <= len(sentences(message)) <= 2, message
    return message


def parse_csv(text: str) -> tuple[list[str], list[dict]]:
    reader = csv.DictReader(io.StringIO(text))
    return list(reader.fieldnames or []), list(reader)


def csv_value(text: str) -> float | None:
    return None if text == "" else float(text)


class AssetRefs(HTMLParser):
    """Every URL a page loads: <link href>, <script src> (and <img>/<iframe> src, if any)."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.scripts: list[str] = []
        self.other: list[str] = []
        self.inline_scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and attrs.get("href"):
            self.links.append(attrs["href"])
        elif tag == "script":
            if attrs.get("src"):
                self.scripts.append(attrs["src"])
            else:
                self._in_script = True
                self.inline_scripts.append("")
        elif tag in ("img", "iframe", "embed", "source") and attrs.get("src"):
            self.other.append(attrs["src"])

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and self.inline_scripts:
            self.inline_scripts[-1] += data


def asset_refs(html: str) -> AssetRefs:
    parser = AssetRefs()
    parser.feed(html)
    return parser


def is_local(url: str) -> bool:
    """Relative to the serving host: no scheme, no '//' (protocol-relative) authority."""
    lowered = url.strip().lower()
    return not re.match(r"^([a-z][a-z0-9+.-]*:|//)", lowered)


# --------------------------------------------------------------------------- health, catalog

def test_healthz(client):
    assert get_json(client, "/healthz") == {"status": "ok", "figures": 7, "problems": []}


def test_figures_lists_all_seven_in_catalog_order(client, catalog):
    payload = get_json(client, "/api/figures")
    assert list(payload) == ["figures"]
    ids = [f["id"] for f in payload["figures"]]
    assert ids == CATALOG_IDS == list(catalog.ids)
    assert len(ids) == 7


def test_figure_summaries_shape(client, catalog):
    for summary in get_json(client, "/api/figures")["figures"]:
        fig = catalog.figure(summary["id"])
        spec = fig.spec
        assert SUMMARY_KEYS <= set(summary)
        assert summary["url"] == f"/?figure={fig.id}"
        assert summary["title"] == spec.title
        assert summary["provenance"] in ("transcribed", "illustrative", "published")
        assert summary["metric"]["name"] == spec.metric.name
        assert [d["name"] for d in summary["dims"]] == list(spec.dim_names)
        for d in summary["dims"]:
            assert d["labels"] == list(spec.dims[d["name"]].labels)
        roles = {d["name"]: d["role"] for d in summary["dims"]}
        assert roles[spec.x] == "x" and roles[spec.y] == "y"
        assert all(roles[f] == "facet" for f in spec.facets)
        assert isinstance(summary["n_cells"], int)
        assert summary["n_cells"] == fig.n_cells
        assert sum(p["n_cells"] for p in summary["panels"]) == summary["n_cells"]
        assert len(summary["panels"]) == len(fig.panels)
        # the source as the catalog gives it, but for the seed description's file name (the
        # project's own bookkeeping, which the provenance card leaves out too)
        given = dict(spec.source or {})
        assert summary["source"] == ({k: v for k, v in given.items() if k != "seed"}
                                     if spec.source is not None else None)
        assert "seed" not in (summary["source"] or {})


def test_the_seed_file_names_of_the_built_in_figures_are_nowhere_in_the_api(client):
    catalog_text = (ROOT / "data" / "catalog.json").read_text()
    seeds = re.findall(r'"seed": "([^"]+)"', catalog_text)
    assert seeds  # the catalog keeps them (data/README.md names them)
    body = client.get("/api/figures").get_data(as_text=True)
    assert not [s for s in seeds if s in body]


@pytest.mark.parametrize("figure_id", CATALOG_IDS)
def test_figure_detail_is_the_list_entry(client, figure_id):
    listed = {f["id"]: f for f in get_json(client, "/api/figures")["figures"]}
    assert get_json(client, f"/api/figures/{figure_id}") == listed[figure_id]


@pytest.mark.parametrize("figure_id", CATALOG_IDS)
def test_figure_url_opens_a_page(client, figure_id):
    url = get_json(client, f"/api/figures/{figure_id}")["url"]
    response = client.get(url)
    assert response.status_code == 200 and response.mimetype == "text/html"


def test_json_keeps_documented_key_order(client):
    summary = get_json(client, f"/api/figures/{QWEN}")
    assert list(summary)[:2] == ["id", "title"]
    payload = get_json(client, f"/api/figures/{QWEN}/cells")
    assert list(payload) == ["figure", "provenance", "metric", "cells"]
    assert list(payload["cells"][0]) == ["model", "window", "ratio", "value"]


# --------------------------------------------------------------------------- provenance

def test_illustrative_provenance_everywhere(client):
    listed = {f["id"]: f["provenance"] for f in get_json(client, "/api/figures")["figures"]}
    assert listed[ACE] == "illustrative"
    assert all(p == "transcribed" for fid, p in listed.items()
               if fid not in (ACE, "pythia-zero-shot", "mmlu-pro"))
    assert listed["pythia-zero-shot"] == listed["mmlu-pro"] == "published"
    assert get_json(client, f"/api/figures/{ACE}")["provenance"] == "illustrative"
    assert get_json(client, f"/api/figures/{ACE}/cells")["provenance"] == "illustrative"
    response = client.get(f"/api/figures/{ACE}/cells?format=csv")
    columns, rows = parse_csv(response.get_data(as_text=True))
    assert columns[-1] == "provenance"
    assert rows and {r["provenance"] for r in rows} == {"illustrative"}


# --------------------------------------------------------------------------- cells (JSON)

def test_one_exact_cell(client):
    payload = get_json(client, f"/api/figures/{QWEN}/cells?model=R1-Qwen&window=2000&ratio=0.4")
    assert payload["figure"] == QWEN
    assert payload["provenance"] == "transcribed"
    assert payload["metric"] == "Pass@1"
    assert payload["cells"] == [{"model": "R1-Qwen", "window": "2000", "ratio": "0.4",
                                 "value": 56.3}]


def test_benchmarks_grid_has_80_cells_32_reported(client):
    cells = cells_of(client, BENCH)
    assert len(cells) == 80  # 4 benchmarks x 4 windows x 5 ratios
    reported = [c for c in cells if c["value"] is not None]
    assert len(reported) == 32  # only ratios 0.1 and 0.5
    assert {c["ratio"] for c in reported} == {"0.1", "0.5"}
    assert get_json(client, f"/api/figures/{BENCH}")["n_cells"] == 32


@pytest.mark.parametrize("figure_id", CATALOG_IDS)
def test_cells_are_the_full_grid(client, catalog, figure_id):
    summary = get_json(client, f"/api/figures/{figure_id}")
    payload = get_json(client, f"/api/figures/{figure_id}/cells")
    assert payload["figure"] == figure_id
    assert payload["provenance"] == summary["provenance"]
    assert payload["metric"] == summary["metric"]["name"]
    dims = {d["name"]: d["labels"] for d in summary["dims"]}
    spec = catalog.figure(figure_id).spec
    # every panel's full y-by-x grid (a facet combination without cells is no panel: Pythia's
    # acc_norm of lambada_openai, winogrande, wsc)
    grid = len(catalog.figure(figure_id).panels) * len(dims[spec.y]) * len(dims[spec.x])
    cells = payload["cells"]
    assert len(cells) == grid
    keys = set(dims) | {"value"}
    seen = set()
    for cell in cells:
        assert keys <= set(cell) <= keys | {"sd", "n", "se"}, cell
        for dim, labels in dims.items():
            assert cell[dim] in labels
        assert cell["value"] is None or isinstance(cell["value"], (int, float))
        if summary["metric"]["range"] and cell["value"] is not None:
            lo, hi = summary["metric"]["range"]
            assert lo <= cell["value"] <= hi
        seen.add(tuple(cell[d] for d in dims))
    assert len(seen) == grid  # every grid position exactly once
    assert sum(c["value"] is not None for c in cells) == summary["n_cells"]


def test_repeatable_filter(client):
    cells = cells_of(client, QWEN, "?model=R1-Qwen&model=R1-Llama&window=500")
    assert len(cells) == 2 * 5
    assert {c["model"] for c in cells} == {"R1-Llama", "R1-Qwen"}
    assert {c["window"] for c in cells} == {"500"}


@pytest.mark.parametrize("query, expected", [
    ({"benchmark": ["AMC23"]}, 20),
    ({"benchmark": ["AMC23", "AIME24"], "ratio": ["0.5"]}, 8),
    ({"model": ["R1-Llama"], "window": ["3000", "500"], "ratio": ["0.1", "0.3"]}, 16),
])
def test_filters_select_the_matching_subset(client, query, expected):
    everything = cells_of(client, BENCH)
    qs = "?" + "&".join(f"{k}={quote(v)}" for k, vs in query.items() for v in vs)
    filtered = cells_of(client, BENCH, qs)
    assert len(filtered) == expected
    assert filtered == [c for c in everything if all(c[k] in vs for k, vs in query.items())]


def test_label_with_special_character_filters(client):
    cells = cells_of(client, "core-generalization", "?type=" + quote(">"))
    assert len(cells) == 20 and {c["type"] for c in cells} == {">"}


# --------------------------------------------------------------------------- cells (CSV)

@pytest.mark.parametrize("figure_id", CATALOG_IDS)
def test_csv_rows_match_json_cells(client, figure_id):
    summary = get_json(client, f"/api/figures/{figure_id}")
    dims = [d["name"] for d in summary["dims"]]
    cells = cells_of(client, figure_id)
    response = client.get(f"/api/figures/{figure_id}/cells?format=csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    disposition = response.headers.get("Content-Disposition", "")
    assert disposition.startswith("attachment")
    assert f"{figure_id}.csv" in disposition
    columns, rows = parse_csv(response.get_data(as_text=True))
    assert columns[:len(dims)] == dims and "value" in columns and columns[-1] == "provenance"
    assert len(rows) == len(cells)
    for row, cell in zip(rows, cells):
        assert [row[d] for d in dims] == [cell[d] for d in dims]
        assert csv_value(row["value"]) == cell["value"]
        assert row["provenance"] == summary["provenance"]


def test_csv_honours_filters(client):
    response = client.get(f"/api/figures/{QWEN}/cells?format=csv&model=R1-Qwen&window=2000"
                          "&ratio=0.4")
    assert response.status_code == 200
    _, rows = parse_csv(response.get_data(as_text=True))
    assert rows == [{"model": "R1-Qwen", "window": "2000", "ratio": "0.4", "value": "56.3",
                     "provenance": "transcribed"}]


def test_csv_with_bad_label_is_a_json_error(client):
    response = client.get(f"/api/figures/{QWEN}/cells?format=csv&model=nope")
    assert_json_error(response, 400)


def test_explicit_json_format(client):
    assert cells_of(client, QWEN, "?format=json") == cells_of(client, QWEN)


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("url", [
    f"/api/figures/{QWEN}/cells?model=nope",
    f"/api/figures/{QWEN}/cells?model=R1-Qwen&model=nope",
    f"/api/figures/{QWEN}/cells?ratio=0.40",
    f"/api/figures/{BENCH}/cells?benchmark=aime24",
])
def test_unknown_label_is_400(client, url):
    message = assert_json_error(client.get(url), 400)
    assert "is not a label" in message


def test_unknown_label_message_names_the_choices(client):
    message = assert_json_error(client.get(f"/api/figures/{QWEN}/cells?model=nope"), 400)
    assert "'nope'" in message and "R1-Llama" in message and "R1-Qwen" in message


@pytest.mark.parametrize("url", ["/api/figures/nope", "/api/figures/nope/cells",
                                 "/api/figures/nope/cells?format=csv",
                                 "/api/figures/DYNTS-LLAMA-VS-QWEN"])
def test_unknown_figure_is_404(client, url):
    message = assert_json_error(client.get(url), 404)
    assert "There is no figure" in message


@pytest.mark.parametrize("fmt", ["xml", "CSV", "", "html"])
def test_unknown_format_is_400(client, fmt):
    message = assert_json_error(client.get(f"/api/figures/{QWEN}/cells?format={fmt}"), 400)
    assert "format" in message


@pytest.mark.parametrize("url", ["/api/nothing", "/api/figure", "/api/figures/",
                                 f"/api/figures/{QWEN}/", f"/api/figures/{QWEN}/cells/",
                                 f"/api/figures/{QWEN}/cells/extra", "/api/v2/figures",
                                 "/api/healthz"])
def test_unknown_api_route_is_404_json(client, url):
    assert_json_error(client.get(url), 404)


def test_bare_api_root_is_404_json(client):
    assert_json_error(client.get("/api/"), 404)
    assert_json_error(client.get("/api"), 404)


@pytest.mark.parametrize("method, url", [
    ("POST", "/api/figures"),
    ("PUT", "/api/figures"),
    ("DELETE", f"/api/figures/{QWEN}"),
    ("POST", f"/api/figures/{QWEN}/cells"),
    ("PATCH", "/healthz"),
])
def test_wrong_method_is_405_json(client, method, url):
    message = assert_json_error(client.open(url, method=method), 405)
    assert method in message


@pytest.mark.parametrize("label", ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>'])
def test_html_in_label_is_a_json_400(client, label):
    response = client.get(f"/api/figures/{QWEN}/cells?model={quote(label)}")
    assert_json_error(response, 400)
    assert response.headers["Content-Type"].startswith("application/json")
    assert "text/html" not in response.headers["Content-Type"]


def test_html_in_figure_id_is_a_json_404(client):
    response = client.get("/api/figures/" + quote("<script>alert(1)</script>", safe=""))
    assert_json_error(response, 404)
    assert response.headers["Content-Type"].startswith("application/json")


def test_unexpected_failure_is_a_json_500_without_traceback(client, monkeypatch):
    """The catch-all handler: even a bug in a payload builder answers JSON, never a traceback."""
    import evalmaps.views.payloads

    def boom(*args, **kwargs):
        raise RuntimeError("internal detail that must not leak")

    monkeypatch.setattr(evalmaps.views.payloads, "figures_payload", boom)
    response = client.get("/api/figures")
    message = assert_json_error(response, 500)
    assert "internal detail" not in response.get_data(as_text=True)
    assert "RuntimeError" not in message


# --------------------------------------------------------------------------- vendored Bootstrap

def test_bootstrap_css_is_served_locally(client):
    import flask_bootstrap

    response = client.get(BOOTSTRAP_CSS)
    assert response.status_code == 200
    assert response.mimetype == "text/css"
    body = response.get_data()
    response.close()
    assert re.search(rb"^(@charset \"UTF-8\";)?/\*!\s*\* Bootstrap\s+v5\.", body[:200]), body[:200]
    installed = (Path(flask_bootstrap.__file__).resolve().parent / "static" / "bootstrap5"
                 / "css" / "bootstrap.min.css")
    assert body == installed.read_bytes()


def test_vendor_does_not_escape_its_folder(client):
    for url in ["/vendor/bootstrap/../../__init__.py", "/vendor/bootstrap/%2e%2e/%2e%2e/__init__.py",
                "/vendor/bootstrap/nope.css"]:
        response = client.get(url)
        assert response.status_code == 404, url
        response.close()


# --------------------------------------------------------------------------- pages

PAGE_URLS = [
    "/",
    *[f"/?figure={fid}" for fid in CATALOG_IDS],
    "/?figure=nope",
    "/?figure=",
    "/?rows=",
    "/?xmin=abc",
    "/?xmin=abc&xmax=",
    "/?figure=dynts-llama-vs-qwen&xmin=9&xmax=-3",
    "/?figure=dynts-r1-llama-benchmarks&benchmark=nope&benchmark=AMC23&rows=bogus",
    "/?figure=dynts-llama-vs-qwen&model=&color=rainbow&labels=maybe",
    "/?figure=" + quote("<script>alert(1)</script>"),
]


@pytest.mark.parametrize("url", PAGE_URLS)
def test_page_is_html_with_only_local_assets(client, url):
    response = client.get(url)
    html = response.get_data(as_text=True)
    assert response.status_code == 200, (url, html[:300])
    assert response.mimetype == "text/html"
    assert "Traceback" not in html
    refs = asset_refs(html)
    assert BOOTSTRAP_CSS in refs.links
    assert refs.scripts, "no script tags: not the Dash index page"
    external = [u for u in [*refs.links, *refs.scripts, *refs.other] if not is_local(u)]
    assert external == [], f"{url} loads from another host: {external}"


def test_injected_markup_in_query_is_escaped(client):
    html = client.get("/?figure=" + quote('"><script>alert(1)</script>')).get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html


def test_dash_version_check_is_off(client):
    """The Dash config carries a plotly.com version-check URL; it is only fetched by the dev-tools
    UI. Pin that the served app keeps dev tools off, so the page contacts no other host."""
    html = client.get("/").get_data(as_text=True)
    match = re.search(r'<script id="_dash-config" type="application/json">(.*?)</script>', html,
                      re.S)
    assert match
    config = json.loads(match.group(1))
    assert config["ui"] is False
    assert config["serve_locally"] is True


def test_dash_layout_endpoint(client, dash_app):
    response = client.get("/_dash-layout")
    assert response.status_code == 200 and response.mimetype == "application/json"
    expected = json.loads(json.dumps(dash_app.layout(), cls=PlotlyJSONEncoder))
    # with no Referer, the whole app shell as built by create_app (the page comes through Dash
    # Pages: tests/integration/test_first_page.py)
    assert response.get_json() == expected
