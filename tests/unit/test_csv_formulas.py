"""Formulas in the CSV files evalmaps writes (issue 37, red team 6 and 7): a header cell is
neutralised as a value is, in the API's cells CSV, `evalmaps import -o` and the bundle's CSV;
and a data folder written by `evalmaps import -o` serves every label exactly as imported.

Real files through the real code paths: the import command, the folder loader, the bundle's own
script (in Node) against the live app's writer."""

from __future__ import annotations

import csv
import io

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from evalmaps.catalog import columnar
from evalmaps.catalog.folders import load_folder
from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.core.figure import Catalog
from evalmaps.core.text import FORMULA_PREFIXES, neutralise, unneutralise
from evalmaps.service import bundle
from evalmaps.service.cli import main as cli
from evalmaps.views import payloads
from tests.unit.test_bundle import node_answer

HOSTILE = '=HYPERLINK("https://evil.example/","x")'
EVIL = (f'"{HOSTILE.replace(chr(34), chr(34) * 2)}",task,value\n'
        f"m1,t1,0.5\nm2,t1,0.25\nm1,t2,0.75\n").encode()


def header(text: str) -> list[str]:
    return next(csv.reader(io.StringIO(text)))


def test_the_api_cells_csv_neutralises_a_formula_in_its_header():
    figure = figure_of(import_bytes(EVIL, "evil.csv")[0])
    text = payloads.cells_csv(figure, payloads.grid_cells(figure))
    assert header(text) == ["'" + HOSTILE, "task", "value", "provenance"]


def test_import_o_neutralises_a_formula_in_its_header(tmp_path, capsys):
    src = tmp_path / "evil.csv"
    src.write_bytes(EVIL)
    out = tmp_path / "out" / "evil.csv"
    out.parent.mkdir()
    assert cli(["import", str(src), "-o", str(out)]) == 0
    assert header(out.read_text(encoding="utf-8"))[0] == "'" + HOSTILE


def test_a_table_with_no_rows_neutralises_its_header_too():
    # written by pandas, not by the vectorised writer
    empty = pd.DataFrame({HOSTILE: pd.Series([], dtype=object), "value": pd.Series([], dtype=object)})
    assert header(columnar.write_csv(empty, neutralise, FORMULA_PREFIXES)) == ["'" + HOSTILE, "value"]


def test_the_bundles_csv_neutralises_a_formula_in_its_header_as_the_app_does(tmp_path):
    figure = figure_of(import_bytes(EVIL, "evil.csv")[0])
    site = tmp_path / "site"
    bundle.write_site(Catalog([figure]), site, pairs=[])
    got = node_answer(tmp_path, {"figure": figure.id, "file": str(site / f"data/{figure.id}.js"),
                                 "csv": True, "views": []})
    assert got["csv"] == payloads.cells_csv(figure, payloads.grid_cells(figure))
    assert header(got["csv"])[0] == "'" + HOSTILE


# ------------------------------------------------------------------ import -o, then serve: lossless

LABELS = ["-base", "+x", "@h", "=1+1", "'quoted", "'=1+1", "''@h", "-", "-5", "plain"]


def test_import_o_then_serve_keeps_every_label_and_header_exactly(tmp_path, capsys):
    rows = [f"{m},{t},{0.125 * (i + j)}" for i, m in enumerate(LABELS)
            for j, t in enumerate(["t1", "=t2"])]
    src = tmp_path / "runs.csv"
    src.write_text("\n".join([f'"{HOSTILE.replace(chr(34), chr(34) * 2)}",task,value', *rows])
                   + "\n", encoding="utf-8")
    want = figure_of(import_bytes(src.read_bytes(), "runs.csv")[0])
    out = tmp_path / "served" / "runs.csv"
    out.parent.mkdir()
    assert cli(["import", str(src), "-o", str(out)]) == 0
    written = out.read_text(encoding="utf-8")
    assert "\n'=1+1," in written and "\n''=1+1," in written  # neutralised, and told apart
    (got,) = load_folder(out.parent)  # strict: any problem raises
    assert got.spec.dims == want.spec.dims
    assert set(got.spec.dims[HOSTILE].labels) == set(LABELS)
    assert got.cells.sort_values(list(got.cells.columns)).reset_index(drop=True).equals(
        want.cells.sort_values(list(want.cells.columns)).reset_index(drop=True))
    assert got.value(**{HOSTILE: "=1+1", "task": "=t2"}) == 0.125 * 4
    assert got.value(**{HOSTILE: "'=1+1", "task": "t1"}) == 0.125 * 5


@given(st.text(alphabet=["'", "=", "+", "-", "@", "\t", "1", ".", "e", "a", " "], max_size=6))
def test_neutralise_is_undone_exactly_and_never_writes_two_texts_alike(text):
    assert unneutralise(neutralise(text)) == text
    assert unneutralise(neutralise("'" + text)) == "'" + text
    assert neutralise(text) != neutralise("'" + text)


def test_the_bundle_neutralises_every_label_as_the_app_does(tmp_path):
    rows = [f"{m},t1,{0.125 * i}" for i, m in enumerate(LABELS)]
    figure = figure_of(import_bytes(("model,task,value\n" + "\n".join(rows) + "\n").encode(),
                                    "labels.csv")[0])
    site = tmp_path / "site"
    bundle.write_site(Catalog([figure]), site, pairs=[])
    got = node_answer(tmp_path, {"figure": figure.id, "file": str(site / f"data/{figure.id}.js"),
                                 "csv": True, "views": []})
    assert got["csv"] == payloads.cells_csv(figure, payloads.grid_cells(figure))
    assert "\n''=1+1," in got["csv"]
