"""Formulas in the CSV files evalmaps writes (issue 37, red team 6 and 7): a header cell is
neutralised as a value is, in the API's cells CSV, `evalmaps import -o` and the bundle's CSV;
and a data folder written by `evalmaps import -o` serves every label exactly as imported.

Real files through the real code paths: the import command, the folder loader, the bundle's own
script (in Node) against the live app's writer."""

from __future__ import annotations

import csv
import io

import pandas as pd

from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.core.figure import Catalog
from evalmaps.core.text import FORMULA_PREFIXES, neutralise
from evalmaps.readers import fastcsv
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
    figure = figure_of(import_bytes(EVIL, "evil.csv"))
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
    assert header(fastcsv.write_csv(empty, neutralise, FORMULA_PREFIXES)) == ["'" + HOSTILE, "value"]


def test_the_bundles_csv_neutralises_a_formula_in_its_header_as_the_app_does(tmp_path):
    figure = figure_of(import_bytes(EVIL, "evil.csv"))
    site = tmp_path / "site"
    bundle.write_site(Catalog([figure]), site, pairs=[])
    got = node_answer(tmp_path, {"figure": figure.id, "file": str(site / f"data/{figure.id}.js"),
                                 "csv": True, "views": []})
    assert got["csv"] == payloads.cells_csv(figure, payloads.grid_cells(figure))
    assert header(got["csv"])[0] == "'" + HOSTILE
