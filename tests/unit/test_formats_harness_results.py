"""Harness results files: lighteval, evalchemy (lm-eval's reader), the
bigcode-evaluation-harness and OpenCompass summaries.

Real lighteval files come from ../shared/external/lighteval (read in place, never copied; the
tests that need them skip when it is absent). The other formats have no real file there: their
fixtures (tests/fixtures/formats/<format>/, each with a README saying where its shape comes
from) are written from the tools' documented output. Results are compared whole: every cell of
an import (or of a slice) against values typed from the files.
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
from evalmaps.core.text import natural_key
from evalmaps.readers import detect
from evalmaps.readers.base import ImportFailed, ImportOptions

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = ROOT.parent / "shared" / "external"
LIGHTEVAL = EXTERNAL / "lighteval"
GERMAN_RAG = LIGHTEVAL / "german_rag_eval"
LEADERBOARD = LIGHTEVAL / "open_llm_leaderboard"
FIXTURES = ROOT / "tests" / "fixtures" / "formats"
MINE = ("lighteval", "bigcode", "opencompass")


def shared(folder: Path) -> Path:
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent: tests of real tool output skipped")
    return folder


def refused(data: bytes, name: str) -> str:
    with pytest.raises(ImportFailed) as info:
        import_bytes(data, name)[0]
    message = str(info.value)
    assert message.startswith(name) and "\n" not in message and "Traceback" not in message
    return message


def as_bytes(doc) -> bytes:
    return json.dumps(doc, indent=2).encode()


def zipped(folder: Path) -> bytes:
    """A folder as a browser upload sends it: a zip of it, under its own name."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                z.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return buf.getvalue()


def rows(imported, *columns) -> list[tuple]:
    """The import's tidy cells as tuples of ``columns``, sorted."""
    tidy = imported.tidy
    return sorted(zip(*(tidy[c] for c in columns)))


# ------------------------------------------------------------------------------- detection

def test_every_real_file_is_read_by_the_reader_of_its_format():
    """lighteval's files are lighteval's, and the new readers claim no other real file: lm-eval
    results (which lighteval's look like) are still lm-eval's."""
    shared(EXTERNAL)
    found = {}
    for path in sorted(EXTERNAL.rglob("*")):
        if path.is_file() and path.name not in ("LICENSE", "README.md"):
            found[path.relative_to(EXTERNAL).as_posix()] = detect(path.read_bytes())
    lighteval = {f: k for f, k in found.items() if f.startswith("lighteval/")}
    assert len(lighteval) == 17 and set(lighteval.values()) == {"lighteval"}
    others = {f: k for f, k in found.items() if not f.startswith("lighteval/")}
    assert not {f: k for f, k in others.items() if k in MINE}
    lm_eval = {f: k for f, k in others.items()
               if f.split("/")[0] in ("lm-eval", "lm-eval-samples", "pythia-evals")
               and f.endswith(".json")}
    assert len(lm_eval) == 219 and set(lm_eval.values()) == {"lm-eval"}


def test_lighteval_comes_before_lm_eval_and_csv_stays_last():
    order = readers.names()
    assert order.index("lighteval") < order.index("lm-eval")
    assert order[-1] == "csv"


# ------------------------------------------------------------------------------- lighteval

# german_rag_eval: (acc, acc_stderr) of the four tasks, as each file gives them
GERMAN_TASKS = ["german_rag_eval:choose_context_by_question",
                "german_rag_eval:choose_question_by_context",
                "german_rag_eval:context_question_match",
                "german_rag_eval:question_answer_match"]
MIXTRAL_8X22B = ("_mnt_azureml_cr_j_c10d21340e3c47a8a6a3fbf1b3c2b84c_cap_data-capability_wd_"
                 "datadir_base_models_Mixtral-8x22B-Instruct-v0.1")  # as its file names it
GERMAN_RAG_ACC = {
    "DiscoResearch/DiscoLM_German_7b_v1": [
        ("0.625", "0.015316971293620996"), ("0.991", "0.002987963843142651"),
        ("0.914", "0.008870325962594766"), ("0.927", "0.008230354715244054")],
    "VAGOsolutions/Llama-3-SauerkrautLM-70b-Instruct": [
        ("0.998", "0.0014135055705578087"), ("1.0", "0.0"),
        ("0.973", "0.005128089049275286"), ("0.949", "0.006960420062571403")],
    "VAGOsolutions/Llama-3-SauerkrautLM-8b-Instruct": [
        ("0.928", "0.008178195576218681"), ("0.824", "0.012048616898597505"),
        ("0.982", "0.004206387249611473"), ("0.906", "0.009233052000787728")],
    "DiscoResearch/Llama3_DiscoLM_German_8b_v0.1_experimental": [
        ("0.303", "0.014539683710535245"), ("0.28", "0.014205696104091501"),
        ("0.751", "0.013681600278702306"), ("0.594", "0.015537226438634593")],
    "meta-llama/Meta-Llama-3-70B-Instruct": [
        ("0.94", "0.007513751157474921"), ("1.0", "0.0"),
        ("0.974", "0.00503481373531819"), ("0.946", "0.007150883521295429")],
    "meta-llama/Meta-Llama-3-8B-Instruct": [
        ("0.725", "0.01412708655649053"), ("0.855", "0.011139977517890141"),
        ("0.977", "0.004742730594656806"), ("0.943", "0.007335175853706812")],
    MIXTRAL_8X22B: [
        ("0.998", "0.0014135055705578048"), ("1.0", "0.0"),
        ("0.967", "0.005651808820452373"), ("0.986", "0.003717232548256591")],
    "mistralai/Mixtral-8x7B-Instruct-v0.1": [
        ("0.94", "0.007513751157474921"), ("0.998", "0.0014135055705578057"),
        ("0.973", "0.005128089049275286"), ("0.973", "0.005128089049275286")],
    "microsoft/Phi-3-mini-4k-instruct": [
        ("0.847", "0.011389500459665542"), ("0.998", "0.0014135055705578213"),
        ("0.965", "0.005814534272734948"), ("0.964", "0.0058939578161655405")],
    "VAGOsolutions/SauerkrautLM-Mixtral-8x7B-Instruct": [
        ("0.953", "0.0066959566781630425"), ("0.998", "0.0014135055705578057"),
        ("0.975", "0.004939574819698447"), ("0.974", "0.0050348137353182255")],
    "LeoLM/leo-mistral-hessianai-7b-chat": [
        ("0.865", "0.010811655372416051"), ("0.949", "0.006960420062571416"),
        ("0.735", "0.01396316475480994"), ("0.52", "0.015806639423035167")],
    "occiglot/occiglot-7b-de-en-instruct": [
        ("0.343", "0.015019206922356951"), ("0.994", "0.002443352199329842"),
        ("0.863", "0.010878848714333306"), ("0.969", "0.005483527064679195")],
    "occiglot/occiglot-7b-de-en": [
        ("0.453", "0.015749255189977593"), ("0.698", "0.014526080235459548"),
        ("0.501", "0.01581926829057682"), ("0.5", "0.015819299929208316")],
    "occiglot/occiglot-7b-eu5-instruct": [
        ("0.722", "0.014174516461485246"), ("0.982", "0.004206387249611476"),
        ("0.587", "0.015577986829936533"), ("0.814", "0.012310790208412794")],
    "occiglot/occiglot-7b-eu5": [
        ("0.327", "0.014842213153411242"), ("0.582", "0.015605111967541947"),
        ("0.5", "0.015819299929208316"), ("0.5", "0.015819299929208316")],
}
# the models in the order their folders are found (sorted by path)
GERMAN_RAG_MODELS = [
    "DiscoResearch/DiscoLM_German_7b_v1", "VAGOsolutions/Llama-3-SauerkrautLM-70b-Instruct",
    "VAGOsolutions/Llama-3-SauerkrautLM-8b-Instruct",
    "DiscoResearch/Llama3_DiscoLM_German_8b_v0.1_experimental",
    "meta-llama/Meta-Llama-3-70B-Instruct", "meta-llama/Meta-Llama-3-8B-Instruct", MIXTRAL_8X22B,
    "mistralai/Mixtral-8x7B-Instruct-v0.1", "microsoft/Phi-3-mini-4k-instruct",
    "VAGOsolutions/SauerkrautLM-Mixtral-8x7B-Instruct", "LeoLM/leo-mistral-hessianai-7b-chat",
    "occiglot/occiglot-7b-de-en", "occiglot/occiglot-7b-de-en-instruct",
    "occiglot/occiglot-7b-eu5", "occiglot/occiglot-7b-eu5-instruct"]
GERMAN_RAG_NOTES = [
    "The averages lighteval adds ('all', 'german_rag_eval:_average') are means over tasks, not "
    "tasks: they are not imported.",
    "From lighteval's task keys (suite|task|few-shot): few-shot count 0 for every task; suite "
    "community for every task."]


def german_rag_expected() -> list[tuple]:
    return sorted(("acc", model, task, value, se) for model, cells in GERMAN_RAG_ACC.items()
                  for task, (value, se) in zip(GERMAN_TASKS, cells))


def notes(imported) -> list[str]:
    """What the reader said of the files, in the figure's notes (not warnings: nothing to do)."""
    return [n for n in imported.spec["notes"] if n not in imported.warnings
            and not n.startswith(("Imported from", "Each value keeps"))]


def check_german_rag(imported, models=None) -> None:
    """Results files' labels come in natural order (evalmaps.core.text.natural_key)."""
    models = models or sorted(GERMAN_RAG_MODELS, key=natural_key)
    assert imported.format == "lighteval"
    assert (imported.spec["y"], imported.spec["x"], imported.facets) == ("model", "task",
                                                                         ["metric"])
    assert imported.dims == {"metric": ["acc"], "model": models,
                             "task": sorted(GERMAN_TASKS, key=natural_key)}
    assert list(imported.tidy.columns) == ["metric", "model", "task", "value", "se"]
    assert rows(imported, "metric", "model", "task", "value", "se") == german_rag_expected()
    assert notes(imported) == GERMAN_RAG_NOTES
    assert imported.warnings == []  # what the files say of themselves asks nothing of the user


def test_lighteval_german_rag_folder_is_model_by_task_with_every_value_and_se():
    imported = import_paths([shared(GERMAN_RAG)])[0]
    check_german_rag(imported)
    assert imported.spec["title"] == "german_rag_eval (15 lighteval results files)"
    assert imported.spec["source"]["tool"] == "lighteval results"
    spec = figure_of(imported).spec
    assert spec.metric == Metric("acc", "", (0, 1), True)
    assert list(spec.notes[2:]) == GERMAN_RAG_NOTES


def test_lighteval_german_rag_as_a_data_folder_and_as_an_uploaded_zip(tmp_path):
    copy = tmp_path / "german_rag_eval"
    shutil.copytree(shared(GERMAN_RAG), copy)
    (figure,) = load_folder(copy)  # evalmaps serve --data
    assert figure.n_cells == 60
    for model, cells in GERMAN_RAG_ACC.items():
        for task, (value, _) in zip(GERMAN_TASKS, cells):
            assert figure.value(metric="acc", model=model, task=task) == float(value)
    upload = import_bytes(zipped(GERMAN_RAG), "german_rag_eval.zip")[0]
    check_german_rag(upload)  # the same natural order, whichever order the files are read in
    assert figure_of(upload).n_cells == 60


LEADERBOARD_TASKS = 62  # 64 entries less 'all' and 'mmlu:_average'
# the cells of every metric but acc, as the two files give them: (metric, model, task, value, se)
PHI3 = "microsoft/Phi-3-mini-4k-instruct"
LLAMAFIED = "vonjack/Phi-3-mini-4k-instruct-LLaMAfied"
LEADERBOARD_NOT_ACC = sorted([
    ("acc_norm", PHI3, "arc:challenge", "0.6569965870307167", "0.013872423223718164"),
    ("acc_norm", PHI3, "hellaswag", "0.7877912766381199", "0.004080362208251183"),
    ("qem", PHI3, "gsm8k", "0.6360879454131918", "0.01325253922796619"),
    ("truthfulqa_mc1", PHI3, "truthfulqa:mc", "0.44063647490820074", "0.017379697555437446"),
    ("truthfulqa_mc2", PHI3, "truthfulqa:mc", "0.626144499273936", "0.01578395532145966"),
])


def leaderboard_cells_from_the_files() -> list[tuple]:
    """Every (metric, model, task, value, se) the two files give, read with the json module,
    the averages left out: what the import must hold, no more, no less."""
    cells = []
    for path in sorted(LEADERBOARD.rglob("results_*.json")):
        doc = json.loads(path.read_text("utf-8"))
        model = doc["config_general"]["model_name"]
        for key, metrics in doc["results"].items():
            if key == "all" or ":_average|" in key:
                continue
            suite, task, shots = key.split("|")
            assert suite == "leaderboard" and shots.isdigit()
            for metric, value in metrics.items():
                if not metric.endswith("_stderr"):
                    cells.append((metric, model, task, repr(value),
                                  repr(metrics[metric + "_stderr"])))
    return sorted(cells)


def test_lighteval_open_llm_leaderboard_is_model_by_task_with_metric_a_facet():
    imported = import_paths([shared(LEADERBOARD)])[0]
    assert (imported.spec["y"], imported.spec["x"], imported.facets) == ("model", "task",
                                                                         ["metric"])
    assert imported.dims["metric"] == ["acc", "acc_norm", "qem", "truthfulqa_mc1",
                                       "truthfulqa_mc2"]
    assert imported.dims["model"] == [PHI3, LLAMAFIED]
    tasks = imported.dims["task"]
    assert len(tasks) == LEADERBOARD_TASKS and "all" not in tasks
    assert tasks == sorted(tasks, key=natural_key)  # results files' labels: natural order
    assert tasks[:3] == ["arc:challenge", "gsm8k", "hellaswag"]
    assert tasks[-3:] == ["mmlu:world_religions", "truthfulqa:mc", "winogrande"]
    assert not [t for t in tasks if "_average" in t or "|" in t]
    got = rows(imported, "metric", "model", "task", "value", "se")
    assert got == leaderboard_cells_from_the_files()
    assert [r for r in got if r[0] != "acc" and r[1] == PHI3] == LEADERBOARD_NOT_ACC
    assert ("acc", PHI3, "mmlu:abstract_algebra", "0.34", "0.04760952285695236") in got
    assert notes(imported) == [
        "The averages lighteval adds ('all', 'mmlu:_average') are means over tasks, not tasks: "
        "they are not imported.",
        "From lighteval's task keys (suite|task|few-shot): few-shot count 25 for arc:challenge, "
        "10 for hellaswag, 0 for truthfulqa:mc, 5 for the other 59 tasks; suite leaderboard for "
        "every task."]
    spec = figure_of(imported).spec
    for metric in imported.dims["metric"]:
        assert spec.metric_for({"metric": metric}) == Metric(metric, "", (0, 1), True)


def lighteval_doc(results: dict, model="org/m", **general) -> dict:
    """A lighteval results file as lighteval writes one (the parts the reader looks at)."""
    return {"config_general": {"lighteval_sha": "0", "model_name": model, **general},
            "results": results, "versions": {k: 0 for k in results if k != "all"},
            "config_tasks": {}, "summary_tasks": {}, "summary_general": {}}


def test_lighteval_pass_at_k_in_both_spellings_is_one_metric_with_k_and_samples():
    """Newer lighteval: task keys with a fourth field, pass@k named two ways; both are the metric
    pass@k, k and the sample count its dimensions; other metrics have neither ('-')."""
    old = lighteval_doc({
        "lighteval|math_500|0|0": {"math_pass@1:4_samples": 0.75, "extractive_match": 0.7,
                                   "extractive_match_stderr": 0.02},
        "lighteval|aime24|0|0": {"math_pass@1:64_samples": 0.3,
                                 "math_pass@1:64_samples_stderr": 0.08},
        "all": {"extractive_match": 0.7, "math_pass@1:4_samples": 0.75}})
    new = lighteval_doc({
        "lighteval|math_500|0|0": {"pass@k:k=1&n=1": 0.5, "pass@k:k=1&n=1_stderr": 0.0223},
        "lighteval|aime24|0|0": {"pass@k:k=1&n=16": 0.25}}, model="org/new")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("runs/old/results_2025-01-01T00-00-00.json", as_bytes(old))
        z.writestr("runs/new/results_2025-06-01T00-00-00.json", as_bytes(new))
    imported = import_bytes(buf.getvalue(), "runs.zip")[0]
    assert imported.facets == ["metric", "k", "samples"]
    # the other metrics ('-') first, then by k and samples, whatever order the files give
    assert imported.tidy.to_dict("list") == {
        "metric": ["extractive_match", "pass@k", "pass@k", "pass@k", "pass@k"],
        "k": ["-", "1", "1", "1", "1"],
        "samples": ["-", "1", "4", "16", "64"],
        "model": ["org/m", "org/new", "org/m", "org/new", "org/m"],
        "task": ["math_500", "math_500", "math_500", "aime24", "aime24"],
        "value": ["0.7", "0.5", "0.75", "0.25", "0.3"],
        "se": ["0.02", "0.0223", "", "", "0.08"]}
    assert imported.dims == {"metric": ["extractive_match", "pass@k"], "k": ["1", "-"],
                             "samples": ["1", "4", "16", "64", "-"],
                             "model": ["org/m", "org/new"], "task": ["aime24", "math_500"]}
    spec = figure_of(imported).spec
    assert spec.metric_for({"metric": "pass@k"}) == Metric("pass@k", "", (0, 1), True)
    assert notes(imported)[-1] == ("From lighteval's task keys (suite|task|few-shot): few-shot "
                                     "count 0 for every task; suite lighteval for every task.")


def test_lighteval_one_task_at_two_few_shot_counts_makes_the_count_a_facet(tmp_path):
    """arc:challenge run 25-shot and 0-shot: the two are not one cell, so the few-shot count is
    a dimension (shots); the newest key form (task|few-shot, no suite) reads as well."""
    for name, doc in (
            ("a", lighteval_doc({"leaderboard|arc:challenge|25": {"acc": 0.6, "acc_stderr": 0.01},
                                 "leaderboard|gsm8k|5": {"qem": 0.4, "qem_stderr": 0.013}})),
            ("b", lighteval_doc({"leaderboard|arc:challenge|0": {"acc": 0.5, "acc_stderr": 0.0146},
                                 "all": {"acc": 0.5}}))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results_2024.json").write_bytes(as_bytes(doc))
    imported = import_paths([tmp_path], ImportOptions(y="model", x="task"))[0]
    assert imported.facets == ["metric", "shots"]
    assert imported.tidy.to_dict("list") == {
        "metric": ["acc", "qem", "acc"], "shots": ["25", "5", "0"],
        "model": ["org/m", "org/m", "org/m"], "task": ["arc:challenge", "gsm8k", "arc:challenge"],
        "value": ["0.6", "0.4", "0.5"], "se": ["0.01", "0.013", "0.0146"]}
    assert notes(imported) == [
        "The averages lighteval adds ('all') are means over tasks, not tasks: they are not "
        "imported.",
        "From lighteval's task keys (suite|task|few-shot): suite leaderboard for every task."]
    newest = import_bytes(as_bytes(lighteval_doc({"gsm8k|5": {"extractive_match": 0.8}})),
                          "results.json")[0]
    assert newest.tidy.to_dict("list") == {"metric": ["extractive_match"], "model": ["org/m"],
                                           "task": ["gsm8k"], "value": ["0.8"]}
    assert notes(newest) == ["From lighteval's task keys (suite|task|few-shot): few-shot count "
                               "5 for every task."]


def test_lighteval_without_a_model_name_is_named_after_its_folder(tmp_path):
    doc = lighteval_doc({"community|task_a|0": {"acc": 0.25}})
    del doc["config_general"]["model_name"]
    (tmp_path / "my-model").mkdir()
    (tmp_path / "my-model" / "results_1.json").write_bytes(as_bytes(doc))
    imported = import_paths([tmp_path / "my-model" / "results_1.json"])[0]
    assert imported.dims["model"] == ["my-model"]
    assert imported.warnings[0] == (
        "results_1.json names no model (no config_general.model_name): it is named after its "
        "folder, 'my-model'. Rename the folder to name the model.")


def test_lighteval_files_of_averages_only_or_no_numbers_are_a_clear_error():
    only_all = lighteval_doc({"all": {"acc": 0.5, "acc_stderr": 0.1}})
    assert refused(as_bytes(only_all), "results.json") == (
        "results.json: these results hold no values (no metric with a number). Import files "
        "that hold scores.")
    no_numbers = lighteval_doc({"community|t|0": {"acc": None}, "community|u|0": "n/a"})
    assert refused(as_bytes(no_numbers), "results.json").endswith("Import files that hold "
                                                                  "scores.")


def test_lighteval_direction_is_read_where_the_file_says_it():
    """Newer lighteval writes each task's metrics with higher_is_better in config_tasks."""
    doc = lighteval_doc({"lighteval|wmt14:de-en|0": {"ter": 47.17, "bleu": 46.1}},
                        model_config={"model_name": "org/from-config"})
    del doc["config_general"]["model_name"]
    doc["config_tasks"] = {"lighteval|wmt14:de-en": {"metrics": [
        {"metric_name": "ter", "higher_is_better": False},
        {"metric_name": ["bleu", "chrf"], "higher_is_better": {"bleu": True, "chrf": True}}]}}
    imported = import_bytes(as_bytes(doc), "results.json")[0]
    assert imported.tidy.to_dict("list") == {
        "metric": ["ter", "bleu"], "model": ["org/from-config"] * 2,
        "task": ["wmt14:de-en"] * 2, "value": ["47.17", "46.1"]}
    spec = figure_of(imported).spec
    assert spec.metric_for({"metric": "ter"}) == Metric("ter", "", None, False)
    assert spec.metric_for({"metric": "bleu"}) == Metric("bleu", "", None, True)


# ------------------------------------------------------------------------------- evalchemy

EVALCHEMY = FIXTURES / "evalchemy"
QWEN, MISTRAL = "Qwen/Qwen2.5-7B-Instruct", "mistralai/Mistral-7B-Instruct-v0.3"


def test_evalchemy_repeated_tasks_are_accuracy_with_their_se_and_repeats():
    """accuracy_avg is the value of the metric accuracy, accuracy_std_err its se, num_repeat
    its n; a single run's accuracy (MATH500) and lm-eval's own tasks sit beside them; the counts
    (num_total, solved_avg, num_solved) are not metrics."""
    imported = import_paths([EVALCHEMY])[0]
    assert imported.format == "lm-eval"
    assert (imported.spec["y"], imported.spec["x"], imported.facets) == ("model", "task",
                                                                         ["metric"])
    assert imported.tidy.to_dict("list") == {
        "metric": ["accuracy", "accuracy", "accuracy", "acc", "acc_norm",
                   "accuracy", "accuracy", "accuracy"],
        "model": [QWEN] * 5 + [MISTRAL] * 3,
        "task": ["AIME24", "AMC23", "MATH500", "hellaswag", "hellaswag",
                 "AIME24", "AMC23", "MATH500"],
        "value": ["0.10999999999999999", "0.525", "0.762", "0.6152", "0.8047",
                  "0.01", "0.20750000000000002", "0.36"],
        "n": ["10", "10", "", "", "", "10", "10", ""],
        "se": ["0.009486832980505136", "0.009354143466934856", "", "0.0049", "0.004",
               "0.004830458915396479", "0.007115124735378854", ""]}
    assert imported.warnings == []
    figure = figure_of(imported)
    (panel,) = [p for p in figure.panels.values() if p.facets == {"metric": "accuracy"}]
    # rows: Qwen, Mistral; columns: AIME24, AMC23, MATH500, hellaswag (no accuracy, no n: nan)
    assert [[None if v != v else v for v in row] for row in panel.n.tolist()] == [
        [10.0, 10.0, None, None], [10.0, 10.0, None, None]]
    assert figure.spec.metric_for({"metric": "accuracy"}) == Metric("accuracy", "", (0, 1), True)


def test_evalchemy_shape_as_its_docs_give_it():
    """The shape evalchemy documents (run_accuracies instead of run_stats), beside an lm-eval
    v0.3 task: each read as its own style; several _avg metrics (LiveCodeBench's difficulty
    levels) each with its own se."""
    doc = {"results": {
        "AIME24": {"accuracy_avg": 0.3, "accuracy_std_err": 0.05, "num_repeat": 10,
                   "run_accuracies": [0.3] * 10},
        "LiveCodeBench": {"accuracy_avg": 0.4, "accuracy_std_err": 0.01, "accuracy_easy_avg": 0.8,
                          "accuracy_easy_std_err": 0.02, "num_repeat": 3, "num_total": 100},
        "piqa": {"acc": 0.75, "acc_stderr": 0.01}},
        "config": {"model": "hf", "model_args": "pretrained=org/m"}}
    imported = import_bytes(as_bytes(doc), "results.json")[0]
    assert imported.tidy.to_dict("list") == {
        "metric": ["accuracy", "accuracy", "accuracy_easy", "acc"],
        "model": ["org/m"] * 4, "task": ["AIME24", "LiveCodeBench", "LiveCodeBench", "piqa"],
        "value": ["0.3", "0.4", "0.8", "0.75"], "n": ["10", "3", "3", ""],
        "se": ["0.05", "0.01", "0.02", "0.01"]}


# ------------------------------------------------------------------------------- bigcode

BIGCODE = FIXTURES / "bigcode"
STARCODER, CODELLAMA = "bigcode/starcoder", "codellama/CodeLlama-7b-hf"
BIGCODE_TIDY = {
    "metric": ["pass@k"] * 8,
    "k": ["1", "1", "1", "1", "10", "10", "10", "10"],
    "model": [CODELLAMA, CODELLAMA, STARCODER, STARCODER] * 2,
    "task": ["humaneval", "mbpp"] * 4,
    "value": ["0.3012", "0.3978", "0.3354", "0.4309", "0.4451", "0.5531", "0.4762", "0.5918"]}
BIGCODE_NOTE = ("Sampling, as the files' config gives it: temperature 0.2, n_samples 50 "
                "(generations per problem).")


def bigcode_doc(model="org/coder", temperature=0.2, n_samples=50, **results) -> dict:
    """A bigcode-evaluation-harness evaluation_results.json (the config's keys it looks at)."""
    return {**results, "config": {"prefix": "", "do_sample": True, "temperature": temperature,
                                  "top_p": 0.95, "n_samples": n_samples, "model": model,
                                  "tasks": ",".join(results), "limit": None,
                                  "allow_code_execution": True,
                                  "metric_output_path": "evaluation_results.json"}}


def test_bigcode_results_are_model_by_task_with_pass_at_k_and_k_facets(tmp_path):
    imported = import_paths([BIGCODE])[0]
    assert imported.format == "bigcode"
    assert (imported.spec["y"], imported.spec["x"], imported.facets) == ("model", "task",
                                                                         ["metric", "k"])
    assert imported.tidy.to_dict("list") == BIGCODE_TIDY
    assert imported.dims["k"] == ["1", "10"]
    assert (notes(imported), imported.warnings) == ([BIGCODE_NOTE], [])
    figure = figure_of(imported)
    assert figure.spec.metric == Metric("pass@k", "", (0, 1), True)
    # the same figure from a data folder and from an uploaded zip of the folder
    shutil.copytree(BIGCODE, tmp_path / "bigcode")
    (served,) = load_folder(tmp_path / "bigcode")
    assert served.n_cells == 8
    assert served.value(metric="pass@k", k="10", model=STARCODER, task="mbpp") == 0.5918
    assert import_bytes(zipped(BIGCODE), "bigcode.zip")[0].tidy.to_dict("list") == BIGCODE_TIDY


def test_bigcode_files_that_differ_in_temperature_make_it_a_facet():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for t, (p1, p10) in (("0.2", (0.31, 0.45)), ("0.8", (0.25, 0.6))):
            z.writestr(f"t{t}/evaluation_results.json", as_bytes(bigcode_doc(
                temperature=float(t), humaneval={"pass@1": p1, "pass@10": p10})))
    imported = import_bytes(buf.getvalue(), "sweep.zip", ImportOptions(y="model", x="task"))[0]
    assert imported.facets == ["metric", "k", "temperature"]
    assert imported.tidy.to_dict("list") == {
        "metric": ["pass@k"] * 4, "k": ["1", "1", "10", "10"],
        "temperature": ["0.2", "0.8", "0.2", "0.8"], "model": ["org/coder"] * 4,
        "task": ["humaneval"] * 4, "value": ["0.31", "0.25", "0.45", "0.6"]}
    assert notes(imported) == ["Sampling, as the files' config gives it: n_samples 50 "
                                 "(generations per problem)."]


def test_bigcode_other_metrics_keep_their_names_and_a_limit_is_said():
    doc = bigcode_doc(n_samples=1, humaneval={"pass@1": 0.3},
                      **{"pal-gsm8k-greedy": {"accuracy": 0.52, "num_failed_execution": 12}})
    doc["config"]["limit"] = 100
    imported = import_bytes(as_bytes(doc), "evaluation_results.json")[0]
    assert imported.tidy.to_dict("list") == {
        "metric": ["accuracy", "num_failed_execution", "pass@k"], "k": ["-", "-", "1"],
        "model": ["org/coder"] * 3, "task": ["pal-gsm8k-greedy", "pal-gsm8k-greedy", "humaneval"],
        "value": ["0.52", "12", "0.3"]}
    assert imported.warnings == [
        "evaluation_results.json: org/coder was evaluated on 100 problems of each task only "
        "(a --limit run)."]
    assert notes(imported)[-1] == (
        "Sampling, as the files' config gives it: temperature 0.2, n_samples 1 (generations per "
        "problem).")
    spec = figure_of(imported).spec
    assert spec.metric_for({"metric": "num_failed_execution"}).higher_is_better is False


def test_bigcode_without_a_model_is_a_clear_error():
    doc = bigcode_doc(model="", humaneval={"pass@1": 0.3})
    assert refused(as_bytes(doc), "evaluation_results.json") == (
        "evaluation_results.json: this bigcode-evaluation-harness file names no model "
        "(config.model). Write the model's name there (main.py --model) and import it again.")


# ------------------------------------------------------------------------------- OpenCompass

OPENCOMPASS = FIXTURES / "opencompass"
QUICK_START = OPENCOMPASS / "quick_start" / "summary_20240711_101502.csv"
SUMMARIZER = OPENCOMPASS / "summarizer" / "summary_20230705_150000.csv"
QUICK_START_TIDY = {
    "metric": ["accuracy"] * 4,
    "model": ["qwen2-1.5b-instruct-hf", "internlm2-chat-1.8b-hf"] * 2,
    "dataset": ["demo_gsm8k", "demo_gsm8k", "demo_math", "demo_math"],
    "value": ["56.25", "32.81", "18.75", "14.06"]}


def test_opencompass_summary_is_model_by_dataset_in_percent():
    imported = import_bytes(QUICK_START.read_bytes(), QUICK_START.name)[0]
    assert imported.format == "opencompass"
    assert (imported.spec["y"], imported.spec["x"], imported.facets) == ("model", "dataset",
                                                                         ["metric"])
    assert imported.tidy.to_dict("list") == QUICK_START_TIDY
    assert (notes(imported), imported.warnings) == (
        ["Mode (gen: generation, ppl: perplexity): gen for every dataset."], [])
    figure = figure_of(imported)
    assert figure.spec.metric == Metric("accuracy", "%", (0, 100), True)
    assert figure.spec.title == "summary_20240711_101502.csv"


def test_opencompass_group_rows_are_averages_left_out_with_a_note():
    imported = import_paths([SUMMARIZER])[0]
    assert imported.tidy.to_dict("list") == {
        "metric": ["accuracy", "accuracy"], "model": ["internlm-7b-hf"] * 2,
        "dataset": ["race-high", "race-middle"], "value": ["74.53", "77.92"]}
    assert (notes(imported), imported.warnings) == ([
        "summary_20230705_150000.csv: the summary group rows race (naive_average) are averages "
        "over datasets (version '-'), not datasets: they are not imported.",
        "Mode (gen: generation, ppl: perplexity): ppl for every dataset."], [])


def test_opencompass_summaries_in_a_data_folder_and_an_uploaded_zip(tmp_path):
    folder = tmp_path / "summaries"
    folder.mkdir()
    shutil.copy(QUICK_START, folder)
    shutil.copy(SUMMARIZER, folder)
    figures = {f.id: f for f in load_folder(folder)}  # evalmaps serve --data: a figure each
    assert sorted(figures) == ["import-summary-20230705-150000", "import-summary-20240711-101502"]
    quick = figures["import-summary-20240711-101502"]
    assert quick.n_cells == 4 and quick.spec.metric == Metric("accuracy", "%", (0, 100), True)
    assert quick.value(metric="accuracy", model="internlm2-chat-1.8b-hf",
                       dataset="demo_math") == 14.06
    assert figures["import-summary-20230705-150000"].n_cells == 2
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.write(QUICK_START, f"outputs/demo/summary/{QUICK_START.name}")
    assert import_bytes(buf.getvalue(), "outputs.zip")[0].tidy.to_dict("list") == QUICK_START_TIDY


def test_opencompass_dividers_missing_scores_modes_and_scales():
    """A summarizer's divider rows and datasets without results add nothing; '-' is a missing
    cell; a dataset run both ways (gen and ppl) makes mode a facet; a metric that is not a
    percentage (a score above 100) gets no unit."""
    data = ("\ufeffdataset,version,metric,mode,model-a,model-b\r\n"
            "--------- Exam ---------,-,-,-,-,-\r\n"
            "siqa,e78df3,accuracy,gen,21.55,-\r\n"
            "siqa,4f9bcf,accuracy,ppl,48.07,49.20\r\n"
            "ceval,-,-,-,-,-\r\n"
            "mmlu,-,naive_average,gen,60.10,58.00\r\n"
            "mmlu,-,weighted_average,gen,61.20,57.30\r\n"
            "alignbench,b1a3c2,score,gen,540.5,612\r\n").encode("utf-8")
    assert detect(data) == "opencompass"
    imported = import_bytes(data, "summary.csv")[0]
    assert imported.facets == ["metric", "mode"]  # the version tells no cells apart the mode does not
    assert imported.tidy.to_dict("list") == {
        "metric": ["accuracy", "accuracy", "accuracy", "score", "score"],
        "mode": ["gen", "ppl", "ppl", "gen", "gen"],
        "model": ["model-a", "model-a", "model-b", "model-a", "model-b"],
        "dataset": ["siqa", "siqa", "siqa", "alignbench", "alignbench"],
        "value": ["21.55", "48.07", "49.20", "540.5", "612"]}
    assert (notes(imported), imported.warnings) == ([
        "summary.csv: the summary group rows mmlu (naive_average), mmlu (weighted_average) are "
        "averages over datasets (version '-'), not datasets: they are not imported."], [])
    spec = figure_of(imported).spec
    assert spec.metric_for({"metric": "accuracy"}) == Metric("accuracy", "%", (0, 100), True)
    assert spec.metric_for({"metric": "score"}) == Metric("score", "", None, True)


def test_opencompass_sniff_reads_the_header_only():
    assert detect(QUICK_START.read_bytes()) == "opencompass"
    assert detect(b"dataset,version,metric,mode\nx,1,acc,gen\n") == "csv"  # no model column
    assert detect(b"dataset,metric,model,value\nx,acc,m,1\n") == "csv"
    assert detect(b"model,dataset,version,metric,mode,value\nm,x,1,acc,gen,2\n") == "csv"


def test_opencompass_bad_summaries_are_clear_errors():
    header = "dataset,version,metric,mode,model-a,model-b\n"
    assert refused((header + "siqa,e78df3,accuracy,gen,21.55\n").encode(), "summary.csv") == (
        "summary.csv: row 2 has 5 fields where the header has 6. Export the summary again "
        "(OpenCompass writes one field per model in every row).")
    assert refused((header + "siqa,e78df3,accuracy,gen,21.55,n/a\n").encode(), "summary.csv") \
        == ("summary.csv: the score 'n/a' (row 2, dataset siqa, model model-b) is not a number. "
            "Write a number, or '-' where there is none.")
    assert refused(b"dataset,version,metric,mode,m,m\nsiqa,e78df3,accuracy,gen,1,2\n",
                   "summary.csv") == (
        "summary.csv: the summary's header has an empty or repeated model column. Give every "
        "model its own name and import it again.")
    assert refused("dataset,version,metric,mode,modèle\nsiqa,e,accuracy,gen,1\n".encode("latin-1"),
                   "summary.csv") == (
        "summary.csv: this OpenCompass summary is not UTF-8 text. Save it as UTF-8 (as OpenCompass "
        "writes it) and import it again.")


def test_opencompass_summaries_of_one_dataset_at_two_versions_keep_them_apart():
    """The version is the hash of the dataset's prompt and settings: two summaries giving one
    dataset at two versions are not one column, so the version becomes a facet."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a/summary.csv", "dataset,version,metric,mode,m1\nsiqa,e78df3,accuracy,gen,21.5\n")
        z.writestr("b/summary.csv", "dataset,version,metric,mode,m2\nsiqa,0c332f,accuracy,gen,30\n"
                                    "race-high,0c332f,accuracy,gen,40\n")
    imported = import_bytes(buf.getvalue(), "runs.zip")[0]
    assert imported.facets == ["metric", "version"]
    assert imported.tidy.to_dict("list") == {
        "metric": ["accuracy"] * 3, "version": ["e78df3", "0c332f", "0c332f"],
        "model": ["m1", "m2", "m2"], "dataset": ["siqa", "siqa", "race-high"],
        "value": ["21.5", "30", "40"]}


def test_lighteval_both_suites_at_once_are_one_figure_with_one_note_of_averages():
    imported = import_paths([shared(LIGHTEVAL)])[0]
    both = rows(imported, "metric", "model", "task", "value", "se")
    assert both == sorted(german_rag_expected() + leaderboard_cells_from_the_files())
    assert imported.dims["model"] == sorted({*GERMAN_RAG_MODELS, PHI3, LLAMAFIED},
                                            key=natural_key)
    assert notes(imported)[0] == (
        "The averages lighteval adds ('all', 'german_rag_eval:_average', 'mmlu:_average') are "
        "means over tasks, not tasks: they are not imported.")
    assert len(notes(imported)) == 2 and imported.warnings == [] and notes(imported)[1].endswith(
        "suite community for german_rag_eval:choose_context_by_question, "
        "german_rag_eval:choose_question_by_context, german_rag_eval:context_question_match, "
        "german_rag_eval:question_answer_match, leaderboard for the other 62 tasks.")


def test_lighteval_two_pass_at_k_of_one_task_at_one_k_keep_the_second_name():
    """math_pass@1:4_samples and gpqa_pass@1:4_samples of one task would be one cell: the first
    is pass@k, the second keeps its name as written (a metric of its own), both kept."""
    doc = lighteval_doc({"lighteval|t|0": {"math_pass@1:4_samples": 0.5,
                                           "gpqa_pass@1:4_samples": 0.25},
                         "lighteval|u:_average|0": {"math_pass@1:4_samples": 0.5},
                         "lighteval|v_average|0": {"acc": 0.125}})
    imported = import_bytes(as_bytes(doc), "results.json")[0]
    assert imported.tidy.to_dict("list") == {
        "metric": ["acc", "pass@k", "gpqa_pass@1:4_samples"], "k": ["-", "1", "1"],
        "samples": ["-", "4", "4"], "model": ["org/m"] * 3, "task": ["v_average", "t", "t"],
        "value": ["0.125", "0.5", "0.25"]}
    assert notes(imported)[0] == ("The averages lighteval adds ('u:_average') are means over "
                                    "tasks, not tasks: they are not imported.")
