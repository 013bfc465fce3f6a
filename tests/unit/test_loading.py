"""load_catalog: a tiny valid data dir loads; every kind of bad catalog or CSV raises a DataError
whose message names the file (and row / column) and says what to fix."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from evalmaps.catalog.load import load_catalog
from evalmaps.core.errors import DataError

ROOT = Path(__file__).resolve().parents[2]

ENTRY = {
    "id": "tiny",
    "file": "figures/tiny.csv",
    "title": "Tiny",
    "metric": {"name": "Accuracy", "unit": "%", "range": [0, 100]},
    "x": "len",
    "y": "kind",
    "facets": ["model"],
    "dims": {
        "model": {"title": "Model", "labels": ["A", "B"]},
        "kind": {"title": "Kind", "labels": ["p", "q"]},
        "len": {"title": "Length", "labels": ["1", "2", "3"]},
    },
    "zrange": [0, 100],
    "provenance": "transcribed",
}
HEADER = "model,kind,len,value"
GOOD_ROWS = ["A,p,1,10.5", "A,p,2,20", "A,q,1,30.25", "B,p,3,40"]


def csv_text(*rows: str, header: str = HEADER) -> str:
    return "\n".join([header, *rows]) + "\n"


def make_dir(root: Path, entries=None, csv: str | None = csv_text(*GOOD_ROWS),
             catalog_text: str | None = None) -> Path:
    """A data dir: catalog.json (from ``entries`` or raw ``catalog_text``) and figures/tiny.csv."""
    (root / "figures").mkdir(parents=True, exist_ok=True)
    if catalog_text is None:
        catalog_text = json.dumps({"figures": [ENTRY] if entries is None else entries})
    (root / "catalog.json").write_text(catalog_text, encoding="utf-8")
    if csv is not None:
        (root / "figures" / "tiny.csv").write_text(csv, encoding="utf-8")
    return root


def entry(**changes) -> dict:
    """ENTRY with top-level keys changed; a value of ``None`` deletes the key."""
    e = copy.deepcopy(ENTRY)
    for key, value in changes.items():
        if value is None:
            e.pop(key, None)
        else:
            e[key] = value
    return e


def load_error(data_dir: Path) -> DataError:
    with pytest.raises(DataError) as info:
        load_catalog(data_dir)
    return info.value


# ------------------------------------------------------------------------------ valid data


def test_tiny_valid_dir_loads(tmp_path):
    catalog = load_catalog(make_dir(tmp_path))
    assert catalog.ids == ["tiny"]
    fig = catalog.figure("tiny")
    assert fig.n_cells == 4
    assert fig.value(model="A", kind="q", len="1") == 30.25
    assert fig.value(model="B", kind="q", len="1") is None
    assert list(fig.panels) == ["a", "b"]
    assert fig.panels["a"].z.shape == (2, 3)


def test_empty_value_cell_is_missing(tmp_path):
    fig = load_catalog(make_dir(tmp_path, csv=csv_text("A,p,1,10", "A,p,2,", "A,q,3,  "))).figure("tiny")
    assert len(fig.cells) == 1
    assert not ((fig.cells["kind"] == "p") & (fig.cells["len"] == "2")).any()
    assert fig.value(model="A", kind="p", len="2") is None
    assert fig.value(model="A", kind="q", len="3") is None
    assert np.isnan(fig.panels["a"].z[0, 1])


@pytest.mark.parametrize("values, decimals", [
    (["10", "20"], 0),
    (["10.5", "20", "30.25"], 2),
    (["1.50", "2"], 2),          # trailing zeros in the text count
    (["1.5", "", "2.125"], 3),   # empty (missing) cells do not count
])
def test_decimals_is_max_in_value_text(tmp_path, values, decimals):
    rows = [f"A,p,{i + 1},{v}" for i, v in enumerate(values)]
    assert load_catalog(make_dir(tmp_path, csv=csv_text(*rows))).figure("tiny").decimals == decimals


def test_labels_keep_catalog_order_regardless_of_row_order(tmp_path):
    rows = ["B,q,3,6", "B,p,1,1", "A,q,3,60", "A,q,1,40", "A,p,2,20", "A,p,1,10"]
    fig = load_catalog(make_dir(tmp_path, csv=csv_text(*rows))).figure("tiny")
    assert list(fig.panels) == ["a", "b"]  # facet order as in the catalog, not the file
    np.testing.assert_array_equal(fig.panels["a"].z, [[10, 20, np.nan], [40, np.nan, 60]])
    np.testing.assert_array_equal(fig.panels["b"].z, [[1, np.nan, np.nan], [np.nan, np.nan, 6]])


# ------------------------------------------------------------------------ catalog problems


def test_missing_catalog(tmp_path):
    err = load_error(tmp_path)
    assert "catalog.json" in str(err) and "missing" in str(err)


def test_invalid_json(tmp_path):
    err = load_error(make_dir(tmp_path, catalog_text='{"figures": [ {"id": "tiny",, } ]'))
    assert "catalog.json" in str(err) and "not valid JSON" in str(err) and "Fix the syntax" in str(err)


@pytest.mark.parametrize("entries, fragments", [
    ([], ["non-empty list", '"figures"']),
    ([ENTRY, ENTRY], ["'tiny' is used twice", "Give each figure its own id"]),
    ([entry(metric=None)], ['"metric" is missing', "Add it"]),
    ([entry(dims=None)], ['"dims" is missing', "Add it"]),
    ([entry(x="size")], ["x dimension 'size' is not among the dims", "model, kind, len"]),
    ([entry(facets=[])], ["model", "neither x, y nor a facet"]),
    ([entry(dims={**ENTRY["dims"], "value": {"labels": ["v"]}}, facets=["model", "value"])],
     ["'value' is a reserved word", "Rename it"]),
    ([entry(provenance="made-up")], ["provenance 'made-up'", "transcribed", "illustrative"]),
    ([entry(provenance=None)], ["provenance ''", "transcribed"]),
], ids=["empty-figures", "duplicate-id", "no-metric", "no-dims", "x-not-in-dims", "stray-dim",
        "reserved-dim", "bad-provenance", "no-provenance"])
def test_catalog_problems(tmp_path, entries, fragments):
    msg = str(load_error(make_dir(tmp_path, entries=entries)))
    assert "catalog.json" in msg
    for fragment in fragments:
        assert fragment in msg


def test_missing_file_key_is_a_data_error(tmp_path):
    msg = str(load_error(make_dir(tmp_path, entries=[entry(file=None)])))
    assert "catalog.json" in msg and '"file"' in msg


# ---------------------------------------------------------------------------- CSV problems


def test_missing_figure_csv(tmp_path):
    msg = str(load_error(make_dir(tmp_path, csv=None)))
    assert "tiny.csv" in msg and "missing" in msg and '"file" entry' in msg


@pytest.mark.parametrize("csv, row, column, fragments", [
    (csv_text("A,p,1", header="model,kind,value"), None, "len",
     ["'len' is missing", "one column per dimension"]),
    (csv_text("A,p,1", header="model,kind,len"), None, None, ["no 'value' column", "Add one"]),
    (csv_text("A,p,1,5,x", header="model,kind,len,value,note"), None, "note",
     ["'note' is not a dimension", "Remove it or add the dimension"]),
    (csv_text("A,p,1,5", "A,p,2,5", "C,p,3,5"), 4, None,
     ["'C' is not a label of dimension 'model'", "A, B", "add the label to the catalog"]),
    (csv_text("A,p,1,5", "A,p,2,abc"), 3, "value", ["'abc' is not a finite number", "leave the cell empty"]),
    (csv_text("A,p,1,5", "A,p,2,6", "A,p,3,inf"), 4, "value", ["'inf' is not a finite number"]),
    (csv_text("A,p,1,5", "A,p,2,101"), 3, "value", ["101 is outside the range", "0 to 100"]),
    (csv_text("A,p,1,5,1", "A,p,2,6,-0.5", header=HEADER + ",sd"), 3, "sd",
     ["standard deviation cannot be negative"]),
    (csv_text("A,p,1,5,3", "A,p,2,6,3", "A,p,3,7,2.5", header=HEADER + ",n"), 4, "n",
     ["n must be a whole number"]),
    (csv_text("A,p,1,5,0.1", "A,p,2,6,-0.2", header=HEADER + ",se"), 3, "se",
     ["standard error cannot be negative"]),
], ids=["no-dim-column", "no-value-column", "extra-column", "unknown-label", "not-a-number",
        "infinite", "out-of-range", "negative-sd", "fractional-n", "negative-se"])
def test_csv_problems(tmp_path, csv, row, column, fragments):
    err = load_error(make_dir(tmp_path, csv=csv))
    msg = str(err)
    assert "tiny.csv" in msg
    assert err.row == row
    if row is not None:
        assert f"row {row}" in msg
    if column is not None:
        assert f"column '{column}'" in msg
    for fragment in fragments:
        assert fragment in msg


def test_duplicate_cell_names_both_rows(tmp_path):
    msg = str(load_error(make_dir(tmp_path, csv=csv_text("A,p,1,5", "A,q,1,6", "A,p,1,7"))))
    assert "tiny.csv" in msg
    assert "rows 2 and 4" in msg and "model A, kind p, len 1" in msg and "one row per cell" in msg


def test_duplicate_cell_names_the_right_pair(tmp_path):
    csv = csv_text("A,p,1,5", "A,p,2,6", "A,p,2,7", "A,p,1,8")  # (p,1): rows 2+5, (p,2): rows 3+4
    msg = str(load_error(make_dir(tmp_path, csv=csv)))
    assert ("rows 2 and 5" in msg and "len 1" in msg) or ("rows 3 and 4" in msg and "len 2" in msg)


# ------------------------------------------------------------------------- shipped catalog


def test_shipped_catalog_loads_every_figure(catalog):
    listed = json.loads((ROOT / "data" / "catalog.json").read_text(encoding="utf-8"))["figures"]
    assert catalog.ids == [e["id"] for e in listed]
    for fig in catalog:
        assert fig.n_cells > 0 and fig.panels


def test_shipped_panel_grids_have_label_shape(catalog):
    for fig in catalog:
        spec = fig.spec
        shape = (len(spec.dims[spec.y].labels), len(spec.dims[spec.x].labels))
        for panel in fig.panels.values():
            assert panel.z.shape == shape, panel.key
        assert sum(p.n_cells for p in fig.panels.values()) == fig.n_cells
        assert all(math.isfinite(v) for v in fig.cells["value"])


@pytest.mark.parametrize("field, value, fragment", [
    ("colorscale", 5, "colorscale must be a Plotly colour scale name, or a list of [stop, colour]"),
    ("colorscale", "NoSuchScale", "colorscale 'NoSuchScale' is not a Plotly colour scale name"),
    ("colorscale", [[0, "#fff"], [0.5, "#000"]], "stops rising from 0 to 1"),
    ("colorscale", [[0, "#fff"], ["x", "#000"]], "stops rising from 0 to 1"),
    ("zrange", ["a", "b"], "zrange must be [low, high], two numbers with low < high."),
    ("zrange", 5, "zrange must be [low, high], two numbers with low < high."),
    ("zrange", [100, 0], "zrange must be [low, high], two numbers with low < high."),
])
def test_colour_fields_are_checked(tmp_path, field, value, fragment):
    """Issue 11: `colorscale: 5` or `zrange: ["a", "b"]` used to reach the figure builder."""
    msg = str(load_error(make_dir(tmp_path, entries=[entry(**{field: value})])))
    assert fragment in msg and "catalog.json" in msg


def test_named_and_listed_colour_scales_load(tmp_path):
    for i, value in enumerate(("Blues", "viridis_r", [[0, "#ffffff"], [1, "#08306b"]])):
        catalog = load_catalog(make_dir(tmp_path / str(i), entries=[entry(colorscale=value)]))
        expected = value if isinstance(value, str) else ((0.0, "#ffffff"), (1.0, "#08306b"))
        assert catalog.figure(entry()["id"]).spec.colorscale == expected


# ---------------------------------------------------------------- control characters (issue 11)

def test_a_label_with_a_control_character_is_refused_naming_row_and_column(tmp_path):
    err = load_error(make_dir(tmp_path, csv=csv_text("A,p,1,10", "B,q\x00,2,20", "A,q\x00,3,5")))
    assert (err.row, err.column) == (3, "kind")
    assert str(err) == (f"{tmp_path / 'figures' / 'tiny.csv'}, row 3, column 'kind': the label "
                        f"'q\\x00' holds the control character U+0000. Labels may not hold control "
                        f"characters (NUL, tab, line break, ...); remove it.")


def test_a_catalog_label_with_a_control_character_is_refused(tmp_path):
    dims = copy.deepcopy(ENTRY["dims"])
    dims["kind"]["labels"] = ["p", "q\x9f"]
    err = load_error(make_dir(tmp_path, [entry(dims=dims)]))
    assert "dimension 'kind': the label 'q\\x9f' holds the control character U+009F" in str(err)


def test_colour_scale_names_are_plotlys_own():
    """The names a catalog's colorscale may take are exactly the ones plotly.colors lists
    (read from its modules, without importing Plotly's validators at start-up)."""
    from plotly.colors import named_colorscales

    from evalmaps.core.colorscales import NAMED_COLORSCALES
    assert sorted(NAMED_COLORSCALES) == sorted(named_colorscales())
