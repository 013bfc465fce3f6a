"""evalmaps.views.payloads payloads: /api/figures summaries, /api/cells grids and filters, CSV export."""

from __future__ import annotations

import csv
import io

import pytest

from evalmaps.core.text import neutralise
from evalmaps.views.payloads import BadQuery, cells_csv, cells_payload, figures_payload

BENCH = "dynts-r1-llama-benchmarks"
QWEN = "dynts-llama-vs-qwen"
ACE = "acemath-training-progress"
SUMMARY_KEYS = {"id", "title", "metric", "provenance", "url", "dims", "panels", "n_cells"}


def grid_size(fig) -> int:
    spec = fig.spec
    return len(fig.panels) * len(spec.dims[spec.y].labels) * len(spec.dims[spec.x].labels)


def test_figures_payload_lists_catalog_in_order(catalog):
    assert [f["id"] for f in figures_payload(catalog)["figures"]] == catalog.ids


def test_figure_summaries(catalog):
    for summary in figures_payload(catalog)["figures"]:
        fig = catalog.figure(summary["id"])
        assert SUMMARY_KEYS <= set(summary)
        assert summary["url"] == f"/?figure={fig.id}"
        assert summary["title"] == fig.spec.title
        assert summary["n_cells"] == fig.n_cells
        assert summary["metric"]["name"] == fig.spec.metric.name
        assert [d["name"] for d in summary["dims"]] == list(fig.spec.dim_names)
        roles = {d["name"]: d["role"] for d in summary["dims"]}
        assert roles[fig.spec.x] == "x" and roles[fig.spec.y] == "y"
        assert all(roles[f] == "facet" for f in fig.spec.facets)
        assert len(summary["panels"]) == len(fig.panels)
        for p in summary["panels"]:
            figure_id, _, key = p["key"].partition(":")
            assert figure_id == fig.id
            assert catalog.panel(p["key"]) is fig.panels[key]
            assert p["n_cells"] == fig.panels[key].n_cells
        assert sum(p["n_cells"] for p in summary["panels"]) == fig.n_cells


def test_provenance_in_summaries(catalog):
    prov = {f["id"]: f["provenance"] for f in figures_payload(catalog)["figures"]}
    assert prov[ACE] == "illustrative"
    assert prov[QWEN] == "transcribed"


@pytest.mark.parametrize("fid", ["core-generalization", "short-to-long", ACE, BENCH, QWEN])
def test_cells_payload_returns_every_grid_cell(catalog, fid):
    fig = catalog.figure(fid)
    payload = cells_payload(fig, {})
    assert payload["figure"] == fid and payload["provenance"] == fig.spec.provenance
    cells = payload["cells"]
    assert len(cells) == grid_size(fig)
    for cell in cells:
        coords = {d: cell[d] for d in fig.spec.dim_names}
        assert cell["value"] == fig.value(**coords)  # None when missing, exact otherwise
    assert sum(c["value"] is not None for c in cells) == fig.n_cells


def test_cells_payload_missing_and_present_values(catalog):
    cells = cells_payload(catalog.figure(BENCH), {"benchmark": "AIME24", "window": "500"})["cells"]
    by_ratio = {c["ratio"]: c["value"] for c in cells}
    assert by_ratio == {"0.1": 43.7, "0.2": None, "0.3": None, "0.4": None, "0.5": 42.7}


@pytest.mark.parametrize("query, n", [
    ({"benchmark": "AIME24"}, 20),
    ({"benchmark": ["AIME24"]}, 20),
    ({"benchmark": ["AIME24", "AMC23"], "ratio": "0.1"}, 8),
    ({"window": ["3000"], "ratio": ["0.1", "0.5"]}, 8),
    ({"model": "R1-Llama"}, 80),
    ({"format": "csv"}, 80),  # keys that are not dims are not filters
])
def test_cells_filters(catalog, query, n):
    cells = cells_payload(catalog.figure(BENCH), query)["cells"]
    assert len(cells) == n
    for dim, wanted in query.items():
        if dim != "format":
            wanted = [wanted] if isinstance(wanted, str) else wanted
            assert {c[dim] for c in cells} == set(wanted)


@pytest.mark.parametrize("query, label, dim", [
    ({"benchmark": "MMLU"}, "MMLU", "benchmark"),
    ({"ratio": ["0.1", "0.25"]}, "0.25", "ratio"),
    ({"model": "R1-Qwen"}, "R1-Qwen", "model"),
])
def test_cells_unknown_label_is_bad_query(catalog, query, label, dim):
    with pytest.raises(BadQuery) as info:
        cells_payload(catalog.figure(BENCH), query)
    msg = str(info.value)
    assert f"'{label}' is not a label of '{dim}'" in msg and BENCH in msg and "Use one of" in msg


def test_cells_payload_provenance_illustrative(catalog):
    assert cells_payload(catalog.figure(ACE), {"benchmark": "GSM8K"})["provenance"] == "illustrative"


def test_cells_csv(catalog):
    fig = catalog.figure(BENCH)
    cells = cells_payload(fig, {"benchmark": "AIME24", "window": "500"})["cells"]
    rows = list(csv.reader(io.StringIO(cells_csv(fig, cells))))
    assert rows[0] == ["model", "benchmark", "window", "ratio", "value", "provenance"]
    assert rows[1:] == [
        ["R1-Llama", "AIME24", "500", "0.1", "43.7", "transcribed"],
        ["R1-Llama", "AIME24", "500", "0.2", "", "transcribed"],
        ["R1-Llama", "AIME24", "500", "0.3", "", "transcribed"],
        ["R1-Llama", "AIME24", "500", "0.4", "", "transcribed"],
        ["R1-Llama", "AIME24", "500", "0.5", "42.7", "transcribed"],
    ]


def test_cells_csv_illustrative_provenance_column(catalog):
    fig = catalog.figure(ACE)
    rows = list(csv.reader(io.StringIO(cells_csv(fig, cells_payload(fig, {})["cells"]))))
    assert rows[0][-1] == "provenance" and len(rows) == grid_size(fig) + 1
    assert {r[-1] for r in rows[1:]} == {"illustrative"}


def test_cells_csv_neutralises_formulas(catalog):
    fig = catalog.figure(QWEN)
    cells = [{"model": "=HYPERLINK(\"x\")", "window": "@SUM(A1)", "ratio": "+1+1", "value": -3.5}]
    rows = list(csv.reader(io.StringIO(cells_csv(fig, cells))))
    assert rows[1] == ["'=HYPERLINK(\"x\")", "'@SUM(A1)", "'+1+1", "-3.5", "transcribed"]


@pytest.mark.parametrize("text, expected", [
    ("=1+2", "'=1+2"),
    ("+x", "'+x"),
    ("-x", "'-x"),
    ("@x", "'@x"),
    ("\tx", "'\tx"),
    ("-3.5", "-3.5"),
    ("+2", "+2"),
    ("3.5", "3.5"),
    ("a=b", "a=b"),
    ("", ""),
])
def test_neutralise(text, expected):
    assert neutralise(text) == expected
