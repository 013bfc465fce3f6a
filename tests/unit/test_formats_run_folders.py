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
from evalmaps.readers.base import ImportFailed, ImportOptions
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
        import_bytes(data, name)[0]
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
    # one run is one model and one scenario: on its own it is a map of split by perturbation
    alone = import_paths([tmp_path / "runs"])[0]
    assert (alone.spec["y"], alone.spec["x"], alone.facets) == \
        ("split", "perturbation", ["metric", "model", "scenario"])
    imp = import_paths([tmp_path / "runs"], ImportOptions(y="model", x="scenario"))[0]
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
    imp = import_paths([external / "helm"])[0]
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
    assert imp.spec["notes"] == ["Imported from 3 HELM runs; values on the scale the tool "
                                 "writes them (fractions stay fractions).", HELM_NOTE,
                                 HELM_SKIPPED]  # the runs' one note, once
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
    expected = import_paths([external / "helm"])[0]
    figures = load_folder(folder)
    assert len(figures) == 1
    figure = figures[0]
    assert figure.spec.dims["metric"].labels[0] == "exact_match"
    assert figure.spec.dims["model"].labels == (PYTHIA, GPT2)
    dims = ["metric", "split", "perturbation", "model", "scenario"]
    served = sorted(zip(*(figure.cells[d] for d in dims), figure.cells["value"]))
    assert served == sorted(zip(*(expected.tidy[d] for d in dims),
                                expected.tidy["value"].astype(float)))
    uploaded = import_bytes(zipped(folder), "helm.zip")[0]
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
    assert import_bytes(data, f"{MMLU}/stats.json")[0].dims["model"] == [GPT2]
    assert import_bytes(data, f"{MMLU}.zip/stats.json")[0].dims["scenario"] == [MMLU_X]
    empty = as_bytes([stat("training_co2_cost", 0.0, count=0)])
    assert refused(empty, f"{MMLU}/stats.json") == (
        f"{MMLU}/stats.json: this HELM stats.json holds no value (every stat has a count of 0). "
        f"Import the stats of a run that finished.")


def test_two_helm_runs_of_one_cell_that_differ_are_refused(tmp_path):
    for suite, value in (("v1", 0.5), ("v2", 0.25)):
        run = tmp_path / suite / "boolq:model=org_m"
        run.mkdir(parents=True)
        (run / "stats.json").write_bytes(as_bytes([stat("exact_match", value)]))
    with pytest.raises(ImportFailed) as info:
        import_paths([tmp_path])[0]
    assert str(info.value) == (
        f"{tmp_path.as_posix()}: v1/boolq:model=org_m/stats.json and v2/boolq:model=org_m/"
        f"stats.json both give the cell (metric exact_match, model org_m, scenario boolq), with "
        f"different values (0.5 and 0.25). Import one of the two runs, not both.")


# ------------------------------------------------------------------------ EvalPlus, EvalPerf

QWEN = "Qwen--Qwen2.5-7B-Instruct"
DEEPSEEK = "deepseek-ai--deepseek-coder-6.7b-instruct"
QWEN_FILE = f"{QWEN}_vllm_temp_1.0_evalperf_results.brief.json"
DEEPSEEK_FILE = f"{DEEPSEEK}_vllm_temp_1.0_evalperf_results.brief.json"
LEADERBOARD_NOTE = ("The leaderboard's size, prompted, open-data and link describe each model, "
                    "not a score: they are not imported.")
EVALPERF_NOTE = ("pass@1 is the percent of a task's 100 samples that pass; dps and dps_norm are "
                 "given for tasks where at least 10 passed (the others have no cell).")


def leaderboard(**models) -> bytes:
    return as_bytes({model: {"link": "https://example.org", "open-data": "NONE",
                             "pass@1": dict(zip(("humaneval", "humaneval+", "mbpp", "mbpp+"),
                                                scores)),
                             "prompted": True, "size": 7}
                     for model, scores in models.items()})


def test_the_evalplus_leaderboard_is_models_by_benchmark_in_percent():
    data = leaderboard(**{"CodeGen-16B": (32.9, 28.0, 54.2, 45.5),
                          "CodeGen-2B": (24.4, 22.6, None, None), "Command-R+": (64, 56.7)})
    imp = import_bytes(data, "results.json")[0]
    assert imp.format == "evalplus"
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == ("model", "task", [])
    assert imp.to_csv() == ("model,task,value\n"
                            "CodeGen-16B,humaneval,32.9\nCodeGen-16B,humaneval+,28.0\n"
                            "CodeGen-16B,mbpp,54.2\nCodeGen-16B,mbpp+,45.5\n"
                            "CodeGen-2B,humaneval,24.4\nCodeGen-2B,humaneval+,22.6\n"
                            "Command-R+,humaneval,64\nCommand-R+,humaneval+,56.7\n")
    assert imp.dims == {"model": ["CodeGen-2B", "CodeGen-16B", "Command-R+"],
                        "task": ["humaneval", "humaneval+", "mbpp", "mbpp+"]}
    figure = figure_of(imp)
    assert figure.spec.metric == Metric("pass@1", "%", (0, 100), True)
    assert imp.spec["notes"][1:] == [LEADERBOARD_NOTE] and imp.warnings == []
    bad = leaderboard(m=("n/a",))
    assert refused(bad, "results.json") == ("results.json: the pass@1 of m on humaneval is "
                                            "'n/a', not a number. Fix the file or remove the "
                                            "entry.")


def test_the_real_evalplus_leaderboard(external, tmp_path):
    path = external / "evalplus" / "results.json"
    doc = json.loads(path.read_bytes())
    imp = import_paths([path])[0]
    assert imp.format == "evalplus" and imp.facets == []
    # every pass@1 the file gives is a cell, as its JSON number; null is no cell
    want = {(model, task): repr(float(v)) if isinstance(v, float) else str(v)
            for model, entry in doc.items() for task, v in entry["pass@1"].items()
            if v is not None}
    assert dict(zip(zip(imp.tidy["model"], imp.tidy["task"]), imp.tidy["value"])) == want
    assert len(imp.tidy) == len(want) == 428
    assert cells(imp, model="OpenCoder-8B-Instruct") == {
        ("OpenCoder-8B-Instruct", "humaneval"): "81.7",
        ("OpenCoder-8B-Instruct", "humaneval+"): "77.4",
        ("OpenCoder-8B-Instruct", "mbpp"): "82.0", ("OpenCoder-8B-Instruct", "mbpp+"): "71.4"}
    assert cells(imp, model="Command-R+")[("Command-R+", "humaneval")] == "64"
    assert cells(imp, model="Code-13B") == {("Code-13B", "humaneval"): "56.1",
                                            ("Code-13B", "humaneval+"): "52.4"}
    assert imp.dims["task"] == ["humaneval", "humaneval+", "mbpp", "mbpp+"]
    models = imp.dims["model"]
    assert len(models) == 125 and set(models) == set(doc)
    assert models.index("CodeGen-2B") < models.index("CodeGen-6B") < models.index("CodeGen-16B")
    assert models[:3] == ["Artigenz-Coder-DS-6.7B", "Claude Sonnet 3.5 (June 2024)",
                          "claude-2 (Mar 2024)"]
    assert figure_of(imp).spec.metric == Metric("pass@1", "%", (0, 100), True)
    assert imp.spec["notes"][1:] == [LEADERBOARD_NOTE]
    folder = tmp_path / "leaderboard"
    folder.mkdir()
    shutil.copy(path, folder / "results.json")
    [figure] = load_folder(folder)
    assert figure.spec.metric == Metric("pass@1", "%", (0, 100), True)
    assert figure.spec.dims["model"].labels == tuple(models)
    assert len(figure.cells) == 428
    uploaded = import_bytes(zipped(folder), "leaderboard.zip")[0]
    assert uploaded.tidy.to_dict("list") == imp.tidy.to_dict("list")


def evalperf_doc(tasks: dict, n_samples=100, min_correct=10) -> dict:
    return {"date": "2024-10-19 16:31",
            "config": {"n_samples": n_samples, "temperature": 1.0, "min_correct": min_correct,
                       "max_profile": 20},
            "summary": {"dps": 1.0, "dps_norm": 1.0, "pass@1": 1.0},
            "eval": {task: {"dps": dps, "dps_norm": norm, "pass@1": p, "profiled": []}
                     for task, (p, dps, norm) in tasks.items()}}


def test_evalperf_files_are_one_figure_of_models_by_task(tmp_path):
    (tmp_path / "org--a_vllm_temp_1.0_evalperf_results.brief.json").write_bytes(as_bytes(
        evalperf_doc({"HumanEval/10": (90.0, 50.5, 60.0), "HumanEval/9": (5.0, None, None),
                      "Mbpp/2": (100.0, 99.0, 100.0)})))
    # the script's own output, in its samples folder: named after the folder
    (tmp_path / "org--my_model").mkdir()
    doc = evalperf_doc({"HumanEval/9": (50.0, 25.0, 30.0)})
    doc = {"date": doc["date"], **doc["config"], "eval": doc["eval"]}
    (tmp_path / "org--my_model" / "evalperf_results.json").write_bytes(as_bytes(doc))
    imp = import_paths([tmp_path])[0]
    assert imp.format == "evalperf"
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == ("model", "task", ["metric"])
    assert imp.to_csv() == (
        "metric,model,task,value\n"
        "pass@1,org--a,HumanEval/10,90.0\ndps,org--a,HumanEval/10,50.5\n"
        "dps_norm,org--a,HumanEval/10,60.0\npass@1,org--a,HumanEval/9,5.0\n"
        "pass@1,org--a,Mbpp/2,100.0\ndps,org--a,Mbpp/2,99.0\ndps_norm,org--a,Mbpp/2,100.0\n"
        "pass@1,org--my_model,HumanEval/9,50.0\ndps,org--my_model,HumanEval/9,25.0\n"
        "dps_norm,org--my_model,HumanEval/9,30.0\n")
    assert imp.dims == {"metric": ["pass@1", "dps", "dps_norm"],
                        "model": ["org--a", "org--my_model"],
                        "task": ["HumanEval/9", "HumanEval/10", "Mbpp/2"]}
    spec = figure_of(imp).spec
    assert spec.metric_for({"metric": "pass@1"}) == Metric("pass@1", "%", (0, 100), True)
    assert spec.metric_for({"metric": "dps_norm"}) == Metric("dps_norm", "", (0, 100), True)
    assert imp.warnings == [] and imp.spec["notes"][1:] == [EVALPERF_NOTE]
    # a file whose name gives no model is named after the file, with a warning
    renamed = import_bytes(as_bytes(evalperf_doc({"HumanEval/0": (1.0, None, None)})),
                           "perf.json")[0]
    assert renamed.dims["model"] == ["perf"]
    assert renamed.warnings == [
        "perf.json's name does not give its model (EvalPerf writes <model>_<backend>_temp_<t>_"
        "evalperf_results.json): it is named after the file, 'perf'. Rename the file to choose "
        "its name."]


def test_the_real_evalperf_files_open_together(external, tmp_path):
    folder = external / "evalplus" / "results" / "evalperf"
    imp = import_paths([folder])[0]
    assert imp.format == "evalperf"
    assert imp.spec["title"] == "evalperf (2 EvalPerf results files)"
    assert imp.dims["model"] == [DEEPSEEK, QWEN]
    assert imp.dims["metric"] == ["pass@1", "dps", "dps_norm"]
    tasks = imp.dims["task"]
    assert len(tasks) == 118
    assert tasks[:4] == ["HumanEval/0", "HumanEval/4", "HumanEval/9", "HumanEval/16"]
    assert tasks[-3:] == ["Mbpp/800", "Mbpp/805", "Mbpp/808"]
    for metric, want in {
            "pass@1": {QWEN: "100.0", DEEPSEEK: "78.0"},
            "dps": {QWEN: "98.81703470031546", DEEPSEEK: "72.98107255520505"},
            "dps_norm": {QWEN: "99.44444444444444", DEEPSEEK: "68.33333333333333"}}.items():
        got = cells(imp, metric=metric)
        assert {m: v for (m, t), v in got.items() if t == "HumanEval/9"} == want
    # every value each file gives is a cell; a null dps (too few correct samples) is none
    want = {}
    for file, model in ((QWEN_FILE, QWEN), (DEEPSEEK_FILE, DEEPSEEK)):
        for task, result in json.loads((folder / file).read_bytes())["eval"].items():
            for metric in ("pass@1", "dps", "dps_norm"):
                if result[metric] is not None:
                    want[(metric, model, task)] = repr(float(result[metric]))
    got = {(r["metric"], r["model"], r["task"]): r["value"] for r in imp.tidy.to_dict("records")}
    assert got == want and len(got) == 3 * 118 * 2 - 2 * (6 + 10)
    assert ("dps", QWEN, "Mbpp/16") not in got and ("pass@1", QWEN, "Mbpp/16") in got
    assert imp.spec["notes"][1:] == [EVALPERF_NOTE] and imp.warnings == []
    copy = tmp_path / "evalperf"
    shutil.copytree(folder, copy)
    [figure] = load_folder(copy)
    assert figure.spec.dims["task"].labels == tuple(tasks)
    assert len(figure.cells) == len(want)
    uploaded = import_bytes(zipped(copy), "evalperf.zip")[0]
    assert uploaded.tidy.to_dict("list") == imp.tidy.to_dict("list")


def test_the_evalplus_folder_mixes_two_kinds_and_says_so(external):
    with pytest.raises(ImportFailed, match="these files mix EvalPlus leaderboard files and "
                                           "EvalPerf results files. Import each kind separately."):
        import_paths([external / "evalplus"])[0]


# ----------------------------------------------------------------------------- simple-evals

SIMPLE_EVALS_RUN = "results/2024-11-28_05-04-56"
SD_WARNING = ("simple-evals' ':std' is the standard deviation of a metric over a run's samples, "
              "and these files do not give how many samples there were (no ':n_samples'): it "
              "is kept as sd, but no standard error can be made from it, so no difference "
              "between cells is called significant.")
# every value and :std of the five real files, as they write them
SIMPLE_EVALS_CSV = (
    "metric,model,eval,value,sd\n"
    "chars,customgpt,gpqa,2026.2,186.45793091204246\n"
    "score,customgpt,gpqa,0.1,0.30000000000000004\n"
    "score,customgpt,math,1.0,0.0\n"
    "bn,customgpt,mgsm,0.0,0.0\n"
    "group_non_latin,customgpt,mgsm,0.5,0.5\n"
    "de,customgpt,mgsm,1.0,0.0\n"
    "group_latin,customgpt,mgsm,1.0,0.0\n"
    "en,customgpt,mgsm,1.0,0.0\n"
    "es,customgpt,mgsm,1.0,0.0\n"
    "fr,customgpt,mgsm,1.0,0.0\n"
    "ja,customgpt,mgsm,1.0,0.0\n"
    "ru,customgpt,mgsm,1.0,0.0\n"
    "sw,customgpt,mgsm,1.0,0.0\n"
    "te,customgpt,mgsm,0.0,0.0\n"
    "th,customgpt,mgsm,0.0,0.0\n"
    "zh,customgpt,mgsm,1.0,0.0\n"
    "score,customgpt,mgsm,0.7272727272727273,0.4453617714151233\n"
    "other,customgpt,mmlu,0.0,0.0\n"
    "score,customgpt,mmlu,0.0,0.0\n"
    "is_correct,customgpt,simpleqa,1.0,0.0\n"
    "is_incorrect,customgpt,simpleqa,0.0,0.0\n"
    "is_not_attempted,customgpt,simpleqa,0.0,0.0\n"
    "score,customgpt,simpleqa,1.0,0.0\n")


def test_the_real_simple_evals_results_are_one_figure(external, tmp_path):
    folder = external / "simple-evals"
    imp = import_paths([folder])[0]
    assert imp.format == "simple-evals"
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == ("model", "eval", ["metric"])
    assert imp.to_csv() == SIMPLE_EVALS_CSV
    assert imp.dims["metric"][:4] == ["score", "bn", "chars", "de"]
    assert imp.dims["eval"] == ["gpqa", "math", "mgsm", "mmlu", "simpleqa"]
    assert imp.warnings == [SD_WARNING]  # one warning, not one per file
    spec = figure_of(imp).spec
    assert spec.metric_for({"metric": "score"}) == Metric("score", "", (0, 1), True)
    assert spec.metric_for({"metric": "chars"}) == Metric("chars", "", None, True)
    assert spec.metric_for({"metric": "is_incorrect"}) == \
        Metric("is_incorrect", "", (0, 1), False)
    copy = tmp_path / "simple-evals"
    shutil.copytree(folder, copy)
    [figure] = load_folder(copy)
    assert figure.spec.dims["eval"].labels == ("gpqa", "math", "mgsm", "mmlu", "simpleqa")
    assert sorted(zip(figure.cells["metric"], figure.cells["eval"], figure.cells["sd"])) == \
        sorted((m, e, float(sd)) for m, _, e, _, sd in
               (line.split(",") for line in SIMPLE_EVALS_CSV.splitlines()[1:]))
    uploaded = import_bytes(zipped(copy), "simple-evals.zip")[0]
    assert uploaded.to_csv() == SIMPLE_EVALS_CSV and uploaded.warnings == [SD_WARNING]
    one = import_bytes((folder / SIMPLE_EVALS_RUN / "gpqa_customgpt.json").read_bytes(),
                       "gpqa_customgpt.json")[0]
    assert one.to_csv() == ("metric,model,eval,value,sd\n"
                            "chars,customgpt,gpqa,2026.2,186.45793091204246\n"
                            "score,customgpt,gpqa,0.1,0.30000000000000004\n")


def test_simple_evals_names_and_standard_errors(tmp_path):
    runs = {
        # newer simple-evals: a time in the name; a model name with '_'
        "mmlu_gpt-4o_assistant_20250101_120000.json": {"score": 0.8, "score:std": 0.4},
        # an eval whose name holds '_'; :n_samples and :bootstrap_std
        "healthbench_hard_o3-mini_high.json": {
            "score": 0.25, "score:std": 0.5, "score:n_samples": 400, "score:bootstrap_std": 0.02,
            "overall_score": 0.3, "overall_score:std": 0.2, "overall_score:n_samples": 400,
            "overall_score:min": 0.0, "overall_score:max": 1.0},
    }
    for name, doc in runs.items():
        (tmp_path / name).write_bytes(as_bytes(doc))
    imp = import_paths([tmp_path])[0]
    assert imp.to_csv() == (
        "metric,model,eval,value,sd,n,se\n"
        "score,o3-mini_high,healthbench_hard,0.25,0.5,400,0.02\n"
        "overall_score,o3-mini_high,healthbench_hard,0.3,0.2,400,\n"
        "score,gpt-4o_assistant,mmlu,0.8,0.4,,\n")
    assert imp.dims == {"metric": ["score", "overall_score"],
                        "model": ["gpt-4o_assistant", "o3-mini_high"],
                        "eval": ["healthbench_hard", "mmlu"]}
    assert imp.warnings == [SD_WARNING]  # mmlu's sd has no n
    cells_ = figure_of(imp).cells.sort_values(["metric", "eval"])
    assert cells_[["sd", "n", "se"]].fillna(-1).values.tolist() == [
        [0.2, 400.0, -1], [0.5, 400.0, 0.02], [0.4, -1, -1]]
    del runs["mmlu_gpt-4o_assistant_20250101_120000.json"]
    (tmp_path / "mmlu_gpt-4o_assistant_20250101_120000.json").unlink()
    assert import_paths([tmp_path])[0].warnings == []  # every sd has its n (or an se)
    debug = import_bytes(as_bytes({"score": 1.0, "score:std": 0.0}), "math_o1_DEBUG.json")[0]
    assert debug.dims["model"] == ["o1"] and debug.dims["eval"] == ["math"]
    assert debug.warnings == ["math_o1_DEBUG.json is a --debug run (a few examples only).",
                              SD_WARNING]
    assert refused(as_bytes({"score": 0.5, "score:std": 0.1}), "results.json") == (
        "results.json: a simple-evals results file is named <eval>_<model>.json (its name is "
        "the only place that says which eval and model it is), and this one's name is not. "
        "Rename it so, as simple-evals wrote it.")


def test_a_one_row_table_is_not_simple_evals():
    assert readers.detect(as_bytes({"score": 0.5, "score:std": 0.1})) == "simple-evals"
    # a record of scores with its coordinates (a folder of JSON records), not simple-evals
    assert readers.detect(as_bytes({"model": "m", "score": 0.5, "score:std": 0.1})) == \
        "json-records"
    assert readers.detect(as_bytes({"score": 0.5, "n": 10})) == "json-records"
    assert readers.detect(as_bytes({"score": 0.5, "acc:std": 0.1})) == "jsonl"
    assert readers.detect(as_bytes({"accuracy": 0.5, "accuracy:std": 0.1})) == "jsonl"


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
        elif rel == "evalplus/results.json":
            expected[rel] = "evalplus"
        elif rel.startswith("evalplus/results/evalperf/"):
            expected[rel] = "evalperf"
        elif rel.startswith("simple-evals/results/"):
            expected[rel] = "simple-evals"
        elif kind in ("helm", "evalplus", "evalperf", "simple-evals"):
            pytest.fail(f"{rel} is claimed by {kind}")
        if rel in expected:
            assert kind == expected[rel], rel
    assert len(expected) == 11
