"""The mmlu-pro folder of ../shared/external (one zip per model, each a JSON list of 12,032
questions; the two Llama-2 zips, copied to a folder of their own, are the built-in figure's
source) as ONE figure of model x category with its items: by ``evalmaps import
--item question_id --correct pred=answer --set model={file}``, and by an upload of a zip of the
folder with the Data page's per-item options. Both give the whole table of the built-in
``mmlu-pro`` figure (data/figures/mmlu-pro.csv, made by scripts/make_mmlu_pro.py; its model
labels mapped), and the stored items give /api/compare the built-in's paired results. So does
``evalmaps serve --data`` of the folder with the same options (a real gunicorn)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pandas as pd
import pandas.testing as pd_testing
import pytest

from evalmaps.service import cli
from tests.integration.test_cli import Gunicorn, fetch, run_cli, wait_for_healthz
from tests.integration.test_upload_callback import keep, preview
from tests.integration.test_upload_folders import zipped

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT.parent / "shared" / "external" / "mmlu-pro"
BUILTIN = ROOT / "data" / "figures" / "mmlu-pro.csv"
MODELS = {"model_outputs_Llama-2-7b-hf_5shots": "Llama-2-7B",
          "model_outputs_Llama-2-13b-hf_5shots": "Llama-2-13B"}
DIMS = ["model", "category", "metric"]

pytestmark = pytest.mark.skipif(not FOLDER.is_dir(),
                                reason=f"{FOLDER} is absent: tests of real outputs skipped")


@pytest.fixture(scope="module")
def llama2(tmp_path_factory) -> Path:
    """A folder ``mmlu-pro`` holding the shared folder's two Llama-2 zips (the shared folder
    also holds other models' since issue 38; the built-in figure is these two)."""
    folder = tmp_path_factory.mktemp("shared") / "mmlu-pro"
    (folder / "eval_results").mkdir(parents=True)
    for name in MODELS:
        source = FOLDER / "eval_results" / f"{name}.zip"
        (folder / "eval_results" / source.name).write_bytes(source.read_bytes())
    return folder


def builtin_table() -> pd.DataFrame:
    return pd.read_csv(BUILTIN, dtype=str, keep_default_na=False)


def sorted_table(table: pd.DataFrame) -> pd.DataFrame:
    return table.sort_values(DIMS, ignore_index=True)


def test_the_cli_imports_the_folder_as_the_builtin_figure(tmp_path, capsys, llama2):
    out = tmp_path / "mmlu.csv"
    assert cli.main(["import", str(llama2), "--item", "question_id", "--correct", "pred=answer",
                     "--set", "model={file}", "-o", str(out)]) == 0
    assert "wrote 28 cells" in capsys.readouterr().err
    table = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert set(table["model"]) == set(MODELS)
    pd_testing.assert_frame_equal(sorted_table(table.assign(model=table["model"].map(MODELS))),
                                  sorted_table(builtin_table()))  # every cell, its value and n
    entry = json.loads(out.with_suffix(".figure.json").read_text())
    assert (entry["facets"], entry["y"], entry["x"], entry["items"]) == (
        ["model"], "category", "metric", "mmlu.items")
    scores = pd.read_parquet(tmp_path / "mmlu.items" / "scores.parquet")
    builtin = pd.read_parquet(ROOT / "data" / "figures" / "mmlu-pro.items" / "scores.parquet")
    key = [*DIMS, "item", "sample"]
    pd_testing.assert_frame_equal(sorted_table(scores.assign(model=scores["model"].map(MODELS)))
                                  .sort_values(key, ignore_index=True)[builtin.columns],
                                  builtin.sort_values(key, ignore_index=True))


def test_the_cli_without_item_names_the_options(capsys):
    assert cli.main(["import", str(FOLDER), "-o", "unused.csv"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("this table looks like per-item records (one row per item), not cells, "
                        "and was imported without --item. Import it with --item question_id "
                        "--correct pred=answer (on the Data page: Per-item records).\n")


def test_an_upload_of_the_zipped_folder_is_the_builtin_figure_paired(client, dash_app, llama2):
    data = zipped(llama2)
    refused = preview(client, "mmlu-pro.zip", data)
    assert "--item question_id --correct pred=answer" in json.dumps(
        refused["data-upload-status.children"])
    assert refused["data-items.open"] is True  # the options open, to be filled in

    out = preview(client, "mmlu-pro.zip", data, item="question_id", pred="pred", ref="answer",
                  **{"model-file": True})
    card = json.dumps(out["data-upload-status.children"])
    assert "Alert" not in card and '"28"' in card  # one figure of 2 models x 14 categories
    pending = out["data-pending.data"]
    assert (pending["options"]["item"], pending["options"]["correct"],
            pending["options"]["fixed"]) == ("question_id", ["pred", "answer"],
                                             {"model": "{file}"})
    kept = keep(client, pending)
    (fid,) = kept["uploads.data"]
    store = dash_app.server.extensions["evalmaps"]["store"]
    stored = pd.read_csv(store.folder(fid) / "cells.csv", dtype=str, keep_default_na=False)
    pd_testing.assert_frame_equal(sorted_table(stored.assign(model=stored["model"].map(MODELS))),
                                  sorted_table(builtin_table()))

    def compare(a: str, b: str) -> dict:
        response = client.get(f"/api/compare?a={quote(a)}&b={quote(b)}")
        assert response.status_code == 200, response.data[:300]
        return response.get_json()

    ours = compare(f"{fid}:model-outputs-llama-2-7b-hf-5shots",
                   f"{fid}:model-outputs-llama-2-13b-hf-5shots")
    builtin = compare("mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b")
    paired = {c["category"]: c["paired"] for c in ours["cells"]}
    assert paired == {c["category"]: c["paired"] for c in builtin["cells"]}
    assert all(p is not None and p["test"] == "mcnemar" for p in paired.values())
    assert paired["biology"]["n"] == 717
    for key in ("paired_cells", "b_sig_better_paired", "b_sig_worse_paired"):
        assert ours["summary"][key] == builtin["summary"][key]


@pytest.mark.server
def test_serve_data_with_the_options_serves_the_folder_as_the_builtin_figure(tmp_path, request,
                                                                            llama2):
    """``evalmaps serve --data mmlu-pro --item ... --correct ... --set model={file}`` (a real
    gunicorn): the folder is ONE figure, ``import-mmlu-pro``, whose cells are the built-in's and
    whose items give /api/compare the built-in's paired results."""
    server = Gunicorn(llama2, tmp_path / "gunicorn.log", "--item", "question_id", "--correct",
                      "pred=answer", "--set", "model={file}")
    request.addfinalizer(server.stop)
    health = wait_for_healthz(server)
    assert health["problems"] == [] and health["status"] == "ok"

    def get(path: str) -> dict:
        status, body = fetch(server.base, path)
        assert status == 200, body[:300]
        return json.loads(body)

    imported = [f for f in get("/api/figures")["figures"] if f["provenance"] == "imported"]
    assert [f["id"] for f in imported] == ["import-mmlu-pro"]
    assert imported[0]["n_cells"] == 28
    cells = pd.DataFrame(get("/api/figures/import-mmlu-pro/cells")["cells"])
    assert (cells.pop("se") > 0).all()  # each cell's standard error from its items
    builtin = builtin_table()
    pd_testing.assert_frame_equal(
        sorted_table(cells.assign(model=cells["model"].map(MODELS))),
        sorted_table(builtin.astype({"value": float, "n": float})))  # every cell, value and n

    def compare(a: str, b: str) -> dict:
        return get(f"/api/compare?a={quote(a)}&b={quote(b)}")

    ours = compare("import-mmlu-pro:model-outputs-llama-2-7b-hf-5shots",
                   "import-mmlu-pro:model-outputs-llama-2-13b-hf-5shots")
    theirs = compare("mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b")
    paired = {c["category"]: c["paired"] for c in ours["cells"]}
    assert paired == {c["category"]: c["paired"] for c in theirs["cells"]}
    assert all(p is not None and p["test"] == "mcnemar" for p in paired.values())
    for key in ("paired_cells", "b_sig_better_paired", "b_sig_worse_paired"):
        assert ours["summary"][key] == theirs["summary"][key]


@pytest.mark.parametrize("options, message", [
    (["--correct", "pred"], "evalmaps: --correct takes PRED=REF (two names joined by '='), not "
                            "'pred'."),
    (["--set", "model"], "evalmaps: --set takes DIM=LABEL (two names joined by '='), not "
                         "'model'."),
])
def test_serve_data_with_a_bad_option_is_the_imports_error(tmp_path, options, message):
    proc = run_cli("serve", "--data", FOLDER, *options, cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", message + "\n")
    imported = run_cli("import", FOLDER, *options, cwd=tmp_path)
    assert (imported.returncode, imported.stderr) == (2, message + "\n")


def test_serve_options_without_a_data_folder_say_so(tmp_path):
    proc = run_cli("serve", "--item", "question_id", cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2, "", "evalmaps: --item, --correct and --set (EVALMAPS_DATA_OPTIONS) say how the tables "
               "of --data folders are read, and no --data folder was given. Give --data DIR, or "
               "leave them out.\n")
