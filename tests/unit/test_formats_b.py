"""HELM run folders, EvalPlus and EvalPerf results, simple-evals results -> one figure each.

Real files come from ../shared/external (helm, evalplus, simple-evals; tests that read them
skip when it is absent, and nothing of them is copied here); the shapes they lack (several
trials, sub-splits, a renamed folder, a bad file) are built here as the tools write them.
Imports are compared whole (every cell of the figure, or every cell of a slice) against values
typed from the files.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from evalmaps import readers
from evalmaps.catalog.folders import load_folder
from evalmaps.catalog.imports import figure_of, import_bytes, import_paths
from evalmaps.core.figure import Metric
from evalmaps.readers.base import ImportFailed
from evalmaps.readers.helm import parse_run_spec

MMLU = "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
HELLASWAG = "commonsense-dataset=hellaswag,method=multiple_choice_joint,model=eleutherai_pythia-1b-v0"
NARRATIVE = "narrative_qa-model=openai_gpt2"
MMLU_X = "mmlu:subject=philosophy,method=multiple_choice_joint"
HELLASWAG_X = "commonsense:dataset=hellaswag,method=multiple_choice_joint"
GPT2, PYTHIA = "openai_gpt2", "eleutherai_pythia-1b-v0"
HELM_SKIPPED = ("Not results, skipped: run_spec.json (3 files), scenario.json (3 files), "
                "scenario_state.json (3 files), per_instance_stats.json (3 files).")
HELM_NOTE = ("HELM's stats give no standard error: their count and stddev are over a run's "
             "train trials (draws of few-shot examples), not over instances. Where a run has two "
             "trials or more, that stddev is kept as sd; no standard error is made from it.")


def as_bytes(doc) -> bytes:
    return json.dumps(doc, indent=2).encode()


def refused(data: bytes, name: str) -> str:
    with pytest.raises(ImportFailed) as info:
        import_bytes(data, name)
    message = str(info.value)
    assert message.startswith(name) and "\n" not in message and "Traceback" not in message
    return message


def zipped(folder: Path) -> bytes:
    """A zip of a folder as a browser upload sends it: its files under the folder's name."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                z.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return buf.getvalue()


def cells(imp, **fixed) -> dict[tuple[str, str], str]:
    """The cells of one slice of an import: (y label, x label) -> value text."""
    y, x = imp.spec["y"], imp.spec["x"]
    tidy = imp.tidy
    for dim, label in fixed.items():
        tidy = tidy[tidy[dim] == label]
    return dict(zip(zip(tidy[y], tidy[x]), tidy["value"]))


def stat(metric, mean, split="test", count=1, stddev=0.0, **name) -> dict:
    """A stat as HELM writes one in stats.json."""
    entry = {"name": {"name": metric, "split": split, **name}, "count": count}
    if count:
        entry.update({"sum": mean * count, "sum_squared": mean * mean * count, "min": mean,
                      "max": mean, "mean": mean, "variance": stddev ** 2, "stddev": stddev})
    return entry


ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = ROOT.parent / "shared" / "external"


@pytest.fixture()
def external() -> Path:
    """../shared/external: the tools' real files, read in place (skipped when absent)."""
    if not EXTERNAL.is_dir():
        pytest.skip(f"{EXTERNAL} is absent: tests of real tool output skipped")
    return EXTERNAL


WORST = {"name": "robustness", "robustness": True, "fairness": False, "computed_on": "worst"}


# ---------------------------------------------------------------------------------- HELM

def test_helm_run_spec_names_are_read_with_colon_or_dash():
    assert parse_run_spec("mmlu:subject=philosophy,method=multiple_choice_joint,"
                          "model=openai_gpt2") == \
        ("mmlu", {"subject": "philosophy", "method": "multiple_choice_joint",
                  "model": "openai_gpt2"})
    assert parse_run_spec(HELLASWAG) == \
        ("commonsense", {"dataset": "hellaswag", "method": "multiple_choice_joint",
                         "model": "eleutherai_pythia-1b-v0"})
    assert parse_run_spec("narrative_qa:model=openai_gpt2") == \
        ("narrative_qa", {"model": "openai_gpt2"})
    # a scenario's name may hold '-'; a value may hold ',' and '-'
    assert parse_run_spec("my-scenario-stop=a,b,model=org_m-1") == \
        ("my-scenario", {"stop": "a,b", "model": "org_m-1"})
    assert parse_run_spec("stats") is None
    assert parse_run_spec("=x") is None


def test_a_helm_run_folder_is_every_stat_with_its_split_and_perturbation(tmp_path):
    run = tmp_path / "runs" / "v1" / "boolq:data_augmentation=canonical,model=org_m"
    run.mkdir(parents=True)
    (run / "stats.json").write_bytes(as_bytes([
        stat("num_instances", 100.0),
        stat("exact_match", 0.5, count=3, stddev=0.05),
        stat("exact_match", 0.25, count=3, stddev=0.1, perturbation=WORST),
        stat("quasi_exact_match", 0.625, count=3, stddev=0.0),
        stat("inference_runtime", 1.5, count=3, stddev=0.5),
        stat("training_co2_cost", 0.0, count=0),  # no instance: no value
        stat("exact_match", 0.75, split="valid", sub_split="hard"),
    ]))
    (run / "run_spec.json").write_bytes(as_bytes({"name": run.name}))
    imp = import_paths([tmp_path / "runs"])
    assert imp.format == "helm"
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == \
        ("model", "scenario", ["metric", "split", "perturbation"])
    assert imp.to_csv() == (
        "metric,split,perturbation,model,scenario,value,sd\n"
        "num_instances,test,none,org_m,boolq:data_augmentation=canonical,100.0,\n"
        "exact_match,test,none,org_m,boolq:data_augmentation=canonical,0.5,0.05\n"
        "exact_match,test,robustness (worst),org_m,boolq:data_augmentation=canonical,0.25,0.1\n"
        "quasi_exact_match,test,none,org_m,boolq:data_augmentation=canonical,0.625,0.0\n"
        "inference_runtime,test,none,org_m,boolq:data_augmentation=canonical,1.5,0.5\n"
        "exact_match,valid/hard,none,org_m,boolq:data_augmentation=canonical,0.75,\n")
    # the main metric first, then the other scores, then counts and times
    assert imp.dims["metric"] == ["exact_match", "quasi_exact_match", "num_instances",
                                  "inference_runtime"]
    assert imp.dims["split"] == ["test", "valid/hard"]
    assert imp.dims["perturbation"] == ["none", "robustness (worst)"]
    spec = figure_of(imp).spec
    assert spec.metric_for({"metric": "exact_match"}) == Metric("exact_match", "", (0, 1), True)
    assert spec.metric_for({"metric": "inference_runtime"}) == \
        Metric("inference_runtime", "", None, False)
    assert spec.metric_for({"metric": "num_instances"}) == Metric("num_instances", "", None, True)
    assert imp.warnings == ["Not results, skipped: run_spec.json."]
    assert HELM_NOTE in imp.spec["notes"]


def test_the_real_helm_runs_import_as_one_figure(external):
    imp = import_paths([external / "helm"])
    assert imp.format == "helm"
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == \
        ("model", "scenario", ["metric", "split", "perturbation"])
    assert imp.dims["model"] == [PYTHIA, GPT2]
    assert imp.dims["scenario"] == [HELLASWAG_X, MMLU_X, "narrative_qa"]
    assert imp.dims["split"] == ["valid", "test"]  # every run has valid; hellaswag no test
    assert imp.dims["perturbation"] == ["none", "fairness (worst)", "robustness (worst)"]
    # exact_match is the main metric of two runs, f1_score of narrative_qa's
    assert imp.dims["metric"][:4] == ["exact_match", "f1_score", "bleu_4", "exact_match@5"]
    assert imp.warnings == [HELM_SKIPPED]
    assert HELM_NOTE in imp.spec["notes"]
    assert "sd" not in imp.tidy.columns and "se" not in imp.tidy.columns  # one trial each
    assert cells(imp, metric="exact_match", split="valid", perturbation="none") == {
        (PYTHIA, HELLASWAG_X): "0.3", (GPT2, MMLU_X): "0.0", (GPT2, "narrative_qa"): "0.0"}
    assert cells(imp, metric="exact_match", split="test", perturbation="none") == {
        (GPT2, MMLU_X): "0.1111111111111111", (GPT2, "narrative_qa"): "0.0"}
    assert cells(imp, metric="f1_score", split="test", perturbation="robustness (worst)") == {
        (GPT2, "narrative_qa"): "0.17424242424242425"}
    assert cells(imp, metric="inference_runtime", split="valid", perturbation="none") == {
        (PYTHIA, HELLASWAG_X): "14.876816749572754", (GPT2, MMLU_X): "0.6785750389099121",
        (GPT2, "narrative_qa"): "1.743454933166504"}
    assert cells(imp, metric="num_instances", split="test", perturbation="none") == {
        (GPT2, MMLU_X): "9.0", (GPT2, "narrative_qa"): "4.0"}
    # a stat with a count of 0 has no value
    assert "training_co2_cost" not in imp.dims["metric"]
    # every cell is a stat's mean as the file writes it, and every stat with a count is a cell
    runs = {MMLU: (GPT2, MMLU_X), HELLASWAG: (PYTHIA, HELLASWAG_X),
            NARRATIVE: (GPT2, "narrative_qa")}
    shown = {None: "none", "robustness": "robustness (worst)", "fairness": "fairness (worst)"}
    want = {}
    for run, (model, scenario) in runs.items():
        for s in json.loads((external / "helm" / run / "stats.json").read_bytes()):
            if s["count"]:
                name = s["name"]
                key = (name["name"], name["split"],
                       shown[(name.get("perturbation") or {}).get("name")], model, scenario)
                want[key] = repr(float(s["mean"]))
    dims = ["metric", "split", "perturbation", "model", "scenario"]
    got = {tuple(row[d] for d in dims): row["value"] for row in imp.tidy.to_dict("records")}
    assert got == want and len(imp.tidy) == len(want) == 383
    spec = figure_of(imp).spec
    assert spec.metric_for({"metric": "exact_match"}) == Metric("exact_match", "", (0, 1), True)
    assert spec.metric_for({"metric": "bits_per_byte"}).higher_is_better is False


def test_the_real_helm_runs_load_as_a_data_folder_and_upload_as_a_zip(external, tmp_path):
    folder = tmp_path / "helm"
    shutil.copytree(external / "helm", folder)
    expected = import_paths([external / "helm"])
    figures = load_folder(folder)
    assert len(figures) == 1
    figure = figures[0]
    assert figure.spec.dims["metric"].labels[0] == "exact_match"
    assert figure.spec.dims["model"].labels == (PYTHIA, GPT2)
    assert figure.cells.shape[0] == expected.tidy.shape[0]
    uploaded = import_bytes(zipped(folder), "helm.zip")
    assert uploaded.tidy.to_dict("list") == expected.tidy.to_dict("list")
    assert uploaded.dims == expected.dims
    assert uploaded.warnings == [HELM_SKIPPED]


def test_a_helm_stats_json_needs_its_run_folder(tmp_path, external):
    data = (external / "helm" / MMLU / "stats.json").read_bytes()
    assert refused(data, "stats.json") == (
        "stats.json: a HELM stats.json does not name its model and scenario: the name of its "
        "run's folder does (the run spec). Import the run's folder, or a zip of it, not the "
        "file alone.")
    assert refused(data, "my run/stats.json") == (
        "my run/stats.json: this HELM stats.json is in the folder 'my run', which is not a run "
        "spec with a model (scenario:arguments,model=...). Import the run's folder as HELM "
        "named it, or rename the folder to the name its run_spec.json gives.")
    # the folder's name is the run spec, also inside a zip or as the zip's own name
    assert import_bytes(data, f"{MMLU}/stats.json").dims["model"] == [GPT2]
    assert import_bytes(data, f"{MMLU}.zip/stats.json").dims["scenario"] == [MMLU_X]
    empty = as_bytes([stat("training_co2_cost", 0.0, count=0)])
    assert refused(empty, f"{MMLU}/stats.json") == (
        f"{MMLU}/stats.json: this HELM stats.json holds no value (every stat has a count of 0). "
        f"Import the stats of a run that finished.")


def test_two_helm_runs_of_one_cell_that_differ_are_refused(tmp_path):
    for suite, value in (("v1", 0.5), ("v2", 0.25)):
        run = tmp_path / suite / "boolq:model=org_m"
        run.mkdir(parents=True)
        (run / "stats.json").write_bytes(as_bytes([stat("exact_match", value)]))
    with pytest.raises(ImportFailed, match="stats.json and stats.json both give the cell "
                                           r"\(metric exact_match, model org_m, scenario boolq\), "
                                           r"with different values \(0.5 and 0.25\)"):
        import_paths([tmp_path])


# ------------------------------------------------------------------------------ detection

def test_each_real_file_is_detected_as_its_tool_and_these_readers_claim_no_other(external):
    expected = {}
    for path in sorted(external.rglob("*")):
        if not path.is_file() or path.suffix.lower() not in (".json", ".eval", ".jsonl", ".csv",
                                                              ".zip", ".parquet"):
            continue
        rel = path.relative_to(external).as_posix()
        kind = readers.detect(path.read_bytes())
        if rel.startswith("helm/") and path.name == "stats.json":
            expected[rel] = "helm"
        elif kind in ("helm",):
            pytest.fail(f"{rel} is claimed by {kind}")
        if rel in expected:
            assert kind == expected[rel], rel
    assert len(expected) == 3
