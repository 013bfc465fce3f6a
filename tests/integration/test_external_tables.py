"""The importer against tables as researchers publish them (../shared/external, read in place).

The results tables of "A MIND for Reasoning" (meta-learning-logic, CC BY-SA 4.0) are never copied
into the project: every test here reads them from ../shared and skips when it is absent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.catalog.load import load_catalog
from evalmaps.readers.base import ImportOptions

pytestmark = pytest.mark.external

ROOT = Path(__file__).resolve().parents[2]
S2L = "results_short-to-long.csv"
CORE = "results_core.csv"

# seed 001 (Short-to-Long, Qwen-2.5 7B), type 1, lengths 5-9: the published means
TYPE1 = {"5": 77.3, "6": 69.7, "7": 67.0, "8": 54.7, "9": 46.3}
QWEN7B_BASE = {"model": "qwen-7b", "model_type": "base", "dataset": "base", "test_type": "normal",
               "type_x_len_samples": "1000", "ft_type": "lora"}


def imported(external_dir: Path, name: str, mapping: ImportOptions | None = None):
    return import_bytes((external_dir / name).read_bytes(), name, mapping)[0]


@pytest.fixture()
def short_to_long(external_dir):
    return imported(external_dir, S2L)


def test_short_to_long_imports_as_wide_with_seeds_averaged(short_to_long):
    imp = short_to_long
    assert imp.format == "wide"
    assert (imp.spec["x"], imp.spec["y"]) == ("len", "type")
    assert imp.replicate == "seed"
    assert imp.facets == ["model", "type_x_len_samples", "test_type", "ft_type", "model_type",
                          "dataset"]
    assert imp.dims["type"] == [str(t) for t in range(1, 8)]
    assert imp.dims["len"] == sorted(imp.dims["len"], key=int)
    assert any("'accuracy'" in w for w in imp.warnings)
    assert imp.spec["provenance"] == "imported"


def test_short_to_long_gives_the_published_means(short_to_long):
    fig = figure_of(short_to_long)
    tidy = short_to_long.tidy
    for length, published in TYPE1.items():
        coords = {**QWEN7B_BASE, "type": "1", "len": length}
        value = fig.value(**coords)
        assert value is not None, coords
        assert round(value, 1) == published, (length, value)
        mask = (tidy[list(coords)] == list(coords.values())).all(axis=1)
        assert tidy.loc[mask, "n"].tolist() == ["3"], (length, tidy.loc[mask])


def test_short_to_long_means_are_the_means_of_the_three_seed_rows(external_dir, short_to_long):
    import csv
    import io
    import statistics

    rows = [r for r in csv.DictReader(io.StringIO((external_dir / S2L).read_text("utf-8")))
            if all(r[k] == v for k, v in QWEN7B_BASE.items())]
    assert sorted(r["seed"] for r in rows) == ["1048", "1596", "512"]
    fig = figure_of(short_to_long)
    for length in TYPE1:
        mean = statistics.fmean(float(r[f"type_1_len_{length}"]) for r in rows)
        assert abs(fig.value(**QWEN7B_BASE, type="1", len=length) - mean) < 1e-9


def test_shipped_seed_001_figure_agrees_with_the_published_table(short_to_long):
    shipped = load_catalog().figure("short-to-long")
    fig = figure_of(short_to_long)
    (model,) = shipped.spec.dims["model"].labels
    for length, published in TYPE1.items():
        ours = shipped.value(model=model, type="1", length=length)
        theirs = fig.value(**QWEN7B_BASE, type="1", len=length)
        assert ours == published
        assert abs(ours - theirs) <= 0.05, (length, ours, theirs)


def test_a_repeated_seed_row_is_not_a_fourth_replicate(short_to_long):
    assert short_to_long.replicates == 3
    tidy = short_to_long.tidy
    rows = tidy[(tidy["model"] == "qwen-7b") & (tidy["test_type"] == "ood_constants")
                & (tidy["model_type"] == "meta")]
    assert set(rows["n"]) == {"3"}


def test_core_imports_with_the_dash_placeholder(external_dir):
    imp = imported(external_dir, CORE)
    assert imp.format == "wide"
    assert "model" in imp.facets
    assert set(imp.dims["model"]) == {"qwen-1.5b", "qwen-3b", "qwen-7b", "gpt-4o", "o3-mini"}
    assert imp.replicate == "seed"
    assert "-" in imp.dims["type_x_len_samples"]
    assert any("'type_x_len_samples'" in w and "'-'" in w for w in imp.warnings), imp.warnings
    assert imp.dims["len"] == [str(n) for n in range(20)]
    # API models have one run, seed "-": one replicate, no sd
    tidy = imp.tidy
    api = tidy[tidy["model"] == "gpt-4o"]
    assert len(api) > 0 and set(api["n"]) == {"1"} and set(api["sd"]) == {""}
    fig = figure_of(imp)
    assert fig.n_cells == imp.n_cells > 0
    assert all(0 <= v <= 100 for v in fig.cells["value"])


def test_core_with_an_explicit_mapping(external_dir):
    imp = imported(external_dir, CORE, ImportOptions(format="wide", x="type", y="len"))
    assert (imp.spec["x"], imp.spec["y"]) == ("type", "len")
    assert figure_of(imp).n_cells == imported(external_dir, CORE).n_cells


@pytest.mark.parametrize("name", [S2L, CORE])
def test_cli_imports_the_published_tables(external_dir, tmp_path, name):
    out = tmp_path / "out.csv"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    proc = subprocess.run([sys.executable, "-m", "evalmaps.service.cli", "import", str(external_dir / name),
                           "-o", str(out)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    expected = imported(external_dir, name)
    assert proc.stderr.strip().splitlines() == [
        *(f"evalmaps: warning: {w}" for w in expected.warnings),
        f"evalmaps: wrote {expected.n_cells} cells to {out} and the figure's catalog entry to "
        f"{tmp_path / 'out.figure.json'}; serve them with: evalmaps serve --data {tmp_path}"]
    text = out.read_text(encoding="utf-8")
    assert text.splitlines()[0] == ",".join([*expected.facets, "type", "len", "value", "sd", "n"])
    assert len(text.splitlines()) == 1 + expected.n_cells

    proc = subprocess.run([sys.executable, "-m", "evalmaps.service.cli", "import", str(external_dir / name)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["format"] == "wide" and summary["cells"] == expected.n_cells


def test_core_output_csv_round_trips_with_its_placeholder_label(external_dir, tmp_path):
    imp = imported(external_dir, CORE)
    (tmp_path / "out.csv").write_text(imp.to_csv(), encoding="utf-8")
    (tmp_path / "catalog.json").write_text(json.dumps({"figures": [{**imp.spec,
                                                                    "file": "out.csv"}]}))
    fig = load_catalog(tmp_path).figure(imp.spec["id"])
    assert fig.n_cells == imp.n_cells
    again = import_bytes((tmp_path / "out.csv").read_bytes(), "out.csv", ImportOptions(format="tidy"))[0]
    assert again.dims["type_x_len_samples"] == imp.dims["type_x_len_samples"]
