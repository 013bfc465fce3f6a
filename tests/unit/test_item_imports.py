"""Per-item records read from harness files and per-item tables, checked against the harnesses'
own results and against sums done independently (json and zipfile, itertools); kept beside the
figure wherever it loads (an import's output, a data folder's cache, the upload store, data/);
pass@k figures from them."""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import math
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from evalmaps.catalog import items as item_store
from evalmaps.catalog.folders import load_folder, write_import
from evalmaps.catalog.imports import figure_of, import_bytes, import_paths
from evalmaps.catalog.load import load_catalog
from evalmaps.readers.base import ImportFailed, ImportOptions
from evalmaps.readers.items import value_to_float
from evalmaps.service import uploads
from evalmaps.service.cli import main as cli
from evalmaps.service.store import Store

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = ROOT.parent / "shared" / "external"
INSPECT = EXTERNAL / "inspect-samples"
LM_EVAL = EXTERNAL / "lm-eval-samples"
MMLU_PRO = EXTERNAL / "mmlu-pro" / "eval_results"
FIXTURES = ROOT / "tests" / "fixtures" / "formats"
LCB = FIXTURES / "livecodebench"
LIGHTEVAL = FIXTURES / "lighteval-details"
MMLU_OPTIONS = dict(item="question_id", correct=("pred", "answer"))


def shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent: tests of real tool output skipped")
    return path


def refused(data: bytes, name: str, options: ImportOptions | None = None) -> str:
    with pytest.raises(ImportFailed) as info:
        import_bytes(data, name, options)[0]
    message = str(info.value)
    assert message.startswith(name) and "\n" not in message
    return message


# ------------------------------------------------------------------------ Inspect's samples

def test_value_to_float_reads_as_inspect_does():
    given = ["C", "I", "P", "N", "yes", "No", "TRUE", "false", "0.25", 3, 0.5, True, False,
             "maybe", None, {"a": 1}, float("nan")]
    assert [value_to_float(v) for v in given] == [1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 1.0, 0.0, 0.25,
                                                  3.0, 0.5, 1.0, 0.0, None, None, None, None]


def test_inspect_samples_give_the_logs_reported_accuracy():
    """Each log's accuracy (results.scores) is the mean of its samples' letters, C=1, I=0."""
    paths = [shared(INSPECT) / n for n in ("data_arc_qwen.json", "data_arc_sonnet.json")]
    imp = import_paths(paths)[0]
    assert (imp.spec["facets"], imp.spec["y"], imp.spec["x"]) == (["model", "scorer"], "metric",
                                                                   "task")
    assert imp.warnings == []  # no cell's samples disagree with the log
    for path in paths:
        log = json.loads(path.read_text())
        reported = log["results"]["scores"][0]["metrics"]["accuracy"]["value"]
        letters = [s["scores"]["choice"]["value"] for s in log["samples"]]
        by_hand = sum({"C": 1, "I": 0}[v] for v in letters) / len(letters)
        assert math.isclose(by_hand, reported)
        row = imp.tidy[imp.tidy["model"] == log["eval"]["model"]]
        assert row[["value", "n"]].values.tolist() == [[repr(reported), str(len(letters))]]
    records = imp.items
    by_model = {m: set(g["item"]) for m, g in records.groupby("model")}
    assert by_model["ollama/qwen2.5:0.5b"] & by_model["anthropic/claude-sonnet-4-0"] == \
        {"1", "2", "3"}  # three arc_easy items in common
    first = records[(records["model"] == "ollama/qwen2.5:0.5b") & (records["item"] == "1")]
    assert first[["sample", "score", "target"]].values.tolist() == [[1, 1.0, "A"]]
    assert first["prompt"].iloc[0].startswith("Which statement best explains why photosynthesis")
    assert first["response"].iloc[0].startswith("ANSWER: A")


def test_an_eval_zip_reads_its_samples_folder():
    log = json.loads(shared(INSPECT / "data_arc_qwen.json").read_text())
    header = {k: v for k, v in log.items() if k != "samples"}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("header.json", json.dumps(header))
        for s in log["samples"]:
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
    from_zip = import_bytes(buf.getvalue(), "arc.eval")[0]
    from_json = import_paths([INSPECT / "data_arc_qwen.json"])[0]
    assert from_zip.to_csv() == from_json.to_csv()
    assert from_zip.items.equals(from_json.items)


# ------------------------------------------------------------------------ lm-eval's samples

def test_lm_eval_samples_join_their_results_file():
    imp = import_paths([shared(LM_EVAL)])[0]
    results = json.loads(next(LM_EVAL.glob("results_*.json")).read_text())
    lines = [json.loads(line) for line in next(LM_EVAL.glob("samples_*.jsonl")).open()]
    model = "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1"
    assert set(imp.items["model"]) == {model}  # from the results file of the same timestamp
    assert imp.spec["facets"] == ["model"]
    reported = results["results"]["math_perturbed_full"]["exact_match,none"]
    by_hand = sum(line["exact_match"] for line in lines) / len(lines)
    assert by_hand == reported == 0.0
    assert imp.warnings == []  # the samples' mean is the results' value
    assert imp.tidy.to_dict("records") == [
        {"model": model, "metric": "exact_match", "task": "math_perturbed_full", "value": "0.0",
         "n": "10", "se": "0.0"},
        {"model": model, "metric": "exact_match", "task": "math_rephrased_full",
         "value": "0.0004", "n": "", "se": "0.0002828144211304471"}]  # no samples: no n
    assert imp.items["item"].tolist() == [str(line["doc_id"]) for line in lines]
    assert imp.items["target"].tolist() == [line["target"] for line in lines]


def test_samples_that_disagree_with_the_results_keep_the_results_value(tmp_path):
    (tmp_path / "results_T.json").write_text(json.dumps({
        "results": {"t": {"acc,none": 0.75}}, "config": {"model_args": "pretrained=m"},
        "versions": {}}))
    (tmp_path / "samples_t_2026-01-01T00-00-00.jsonl").write_text("".join(
        json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"], "doc_hash": "h",
                    "acc": v}) + "\n" for i, v in enumerate([1.0, 0.0])))
    imp = import_paths([tmp_path])[0]
    assert imp.tidy[["model", "value", "n"]].values.tolist() == [["m", "0.75", "2"]]
    assert imp.warnings == ["The per-item records do not give the results' value of 1 cell(s) "
                            "(a run on part of the items?); the cells keep the results' values: "
                            "task t, metric acc, model m: 0.75 in the results, 0.5 over 2 items."]


# ------------------------------------------------------------------------ LiveCodeBench, lighteval

def test_livecodebench_cells_are_the_mean_of_each_problems_pass_at_1():
    path = next(LCB.rglob("*_eval_all.json"))
    problems = json.loads(path.read_text())
    imp = import_paths([LCB])[0]
    assert (imp.format, imp.spec["facets"], imp.spec["y"], imp.spec["x"]) == \
        ("livecodebench", ["model"], "difficulty", "platform")
    assert imp.spec["metric"]["name"] == "pass@1"
    assert imp.spec["dims"]["difficulty"]["labels"] == ["easy", "medium", "hard"]
    expected = {}
    for p in problems:
        expected.setdefault((p["difficulty"], p["platform"]), []).append(p["pass@1"])
    got = {(r["difficulty"], r["platform"]): (float(r["value"]), int(r["n"]))
           for r in imp.tidy.to_dict("records")}
    assert got == {k: (sum(v) / len(v), len(v)) for k, v in expected.items()}
    assert set(imp.items["model"]) == {"Qwen2.5-Coder-7B"}  # the folder
    assert len(imp.items) == sum(len(p["graded_list"]) for p in problems)


ALPACA = EXTERNAL / "alpaca-eval"
# AlpacaEval 2's leaderboard win rates (x 100) of the three models, as ../shared's README gives them
WIN_RATES = {"FuseChat-Llama-3.2-3B-Instruct": 51.2967, "phi-2": 2.3502,
             "falcon-7b-instruct": 2.1466}


def test_alpaca_eval_judgements_give_the_leaderboards_win_rates(tmp_path, capsys):
    """A folder of AlpacaEval annotations.json: per-item records whose mean is each model's
    leaderboard win rate, each cell the mean of preference - 1 over its instructions."""
    imp = import_paths([shared(ALPACA)])[0]  # the leaderboard CSV beside them is skipped
    assert (imp.format, imp.spec["facets"], imp.spec["y"], imp.spec["x"]) == (
        "alpaca-eval", ["model"], "dataset", "annotator")
    assert imp.spec["metric"]["name"] == "win rate" and imp.spec["metric"]["range"] == [0, 1]
    by_hand: dict[str, list[float]] = {}
    cells: dict[tuple[str, str], list[float]] = {}
    for path in sorted(ALPACA.glob("results/*/*/annotations.json")):
        for judged in json.loads(path.read_text()):
            by_hand.setdefault(judged["generator_2"], []).append(judged["preference"] - 1)
            cells.setdefault((judged["generator_2"], judged["dataset"]), []).append(
                judged["preference"] - 1)
    got = {(r["model"], r["dataset"]): (float(r["value"]), int(r["n"]))
           for r in imp.tidy.to_dict("records")}
    assert got == {k: (math.fsum(v) / len(v), len(v)) for k, v in cells.items()}
    means = {m: math.fsum(g["score"]) / len(g) for m, g in imp.items.groupby("model")}
    assert means == {m: math.fsum(v) / len(v) for m, v in by_hand.items()}
    assert {m: round(100 * v, 4) for m, v in means.items()} == WIN_RATES
    assert imp.items.groupby("model").size().to_dict() == {
        "FuseChat-Llama-3.2-3B-Instruct": 805, "phi-2": 803, "falcon-7b-instruct": 805}
    (text,) = [t for t in imp.items.to_dict("records") if t["model"] == "phi-2"][:1]
    assert text["item"] == text["prompt"] and text["response"] and text["target"]

    assert cli(["import", str(ALPACA), "-o", str(tmp_path / "alpaca.csv")]) == 0
    err = capsys.readouterr().err
    assert "Not results, skipped: alpaca_eval_gpt4_leaderboard.csv." in err
    assert "wrote 15 cells" in err  # 3 models x 5 datasets x 1 annotator


def test_a_json_file_that_is_not_results_is_skipped_in_a_folder(tmp_path, capsys):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "tidy_small.csv").write_bytes((ROOT / "tests" / "fixtures" / "tidy_small.csv")
                                            .read_bytes())
    (folder / "log.json").write_text('[{"step": 1, "config": {"lr": 0.1}}]')
    (figure,) = import_paths([folder], by_tool=True)
    assert figure.warnings == ["Not results, skipped: log.json."]
    assert "Not results, skipped: log.json." in figure.spec["notes"]
    assert figure.tidy.equals(import_paths([folder / "tidy_small.csv"])[0].tidy)
    assert cli(["import", str(folder / "log.json")]) == 2  # given by name: refused, saying why
    assert capsys.readouterr().err.endswith("log.json, row 1: the key 'config' holds a nested "
                                            "value; a table's cells are text or numbers. "
                                            "Flatten it.\n")


def test_lighteval_details_join_the_results_of_their_timestamp():
    imp = import_paths([LIGHTEVAL])[0]
    results = json.loads(next(LIGHTEVAL.rglob("results_*.json")).read_text())
    assert imp.tidy[["model", "task", "metric", "value", "n", "se"]].values.tolist() == [
        ["org/m", "arc:challenge", "acc",
         repr(results["results"]["leaderboard|arc:challenge|25"]["acc"]), "3", "0.33"]]
    assert imp.items[["model", "item", "score", "target", "response"]].values.tolist() == [
        ["org/m", "d0", 1.0, "2", "2"], ["org/m", "d1", 0.0, "4", "5"],
        ["org/m", "d2", 1.0, "7", "7"]]
    assert not any("per-item records do not give" in w for w in imp.warnings)


# ------------------------------------------------------------------------ per-item tables

def mmlu_by_hand(path: Path) -> dict[str, tuple[float, int]]:
    """Each category's share of questions with pred == answer (None: wrong), from the zip."""
    with zipfile.ZipFile(path) as z:
        records = json.loads(z.read(z.namelist()[0]))
    counts: dict[str, list[int]] = {}
    for r in records:
        counts.setdefault(r["category"], []).append(int(r["pred"] is not None
                                                        and r["pred"] == r["answer"]))
    return {c: (sum(v) / len(v), len(v)) for c, v in counts.items()}


def test_mmlu_pro_outputs_compare_pred_with_answer():
    path = shared(MMLU_PRO) / "model_outputs_Llama-2-7b-hf_5shots.zip"
    imp = import_paths([path], ImportOptions(**MMLU_OPTIONS, fixed={"model": "Llama-2-7B"}))[0]
    assert (imp.spec["facets"], imp.spec["y"], imp.spec["x"]) == (["model"], "category", "metric")
    assert len(imp.items) == 12_032 and imp.items["item"].is_unique
    got = {r["category"]: (float(r["value"]), int(r["n"])) for r in imp.tidy.to_dict("records")}
    assert got == mmlu_by_hand(path)
    assert imp.spec["metric"]["range"] == [0.0, 1.0]
    assert ("answer_index (the reference written another way), cot_content (empty), src (a "
            "property of each item in more than 50 groups)") in " ".join(imp.spec["notes"])


def mmlu_with_a_bad_row(folder: Path, models=("Llama-2-7b-hf", "Llama-2-13b-hf")) -> Path:
    """Two real MMLU-Pro zips with, as MMLU-Pro's mathstral-7B and Llama-3.1-8B files have it,
    one question whose ``answer_index`` disagrees with its ``answer`` (question 75's index moved
    from 0, 'A', to 1) in each."""
    folder.mkdir()
    for model in models:
        name = f"model_outputs_{model}_5shots"
        with zipfile.ZipFile(shared(MMLU_PRO) / f"{name}.zip") as z:
            records = json.loads(z.read(f"{name}.json"))
        (bad,) = [r for r in records if r["question_id"] == 75]
        assert (bad["answer"], bad["answer_index"]) == ("A", 0)
        bad["answer_index"] = 1
        with zipfile.ZipFile(folder / f"{name}.zip", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(f"{name}.json", json.dumps(records))
    return folder


def test_one_bad_source_row_does_not_make_the_answer_index_a_dimension(tmp_path, capsys):
    folder = mmlu_with_a_bad_row(tmp_path / "mmlu")
    out = tmp_path / "out.csv"
    assert cli(["import", str(folder), "--item", "question_id", "--correct", "pred=answer",
                "--set", "model={file}", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "wrote 28 cells" in err  # 2 models x 14 categories, not x 10 answer indices
    assert ("warning: The column 'answer_index' is the reference 'answer' written another way "
            "(a property of each item), but the two disagree in 1 row (question_id '75': "
            "answer 'A', answer_index '1'); it is left out of the dimensions.") in err
    table = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(table.columns) == ["model", "category", "metric", "value", "n"]
    for model in ("Llama-2-7b-hf", "Llama-2-13b-hf"):  # every number as the source gives it
        rows = table[table["model"] == f"model_outputs_{model}_5shots"]
        got = {r["category"]: (float(r["value"]), int(r["n"])) for _, r in rows.iterrows()}
        assert got == mmlu_by_hand(folder / f"model_outputs_{model}_5shots.zip")


def test_a_grouping_of_the_items_stays_a_dimension():
    """A category is a property of each item too, but no function of the reference: a
    dimension still, whatever few rows agree with the reference's letters."""
    rows = ["question_id,category,answer,answer_index,pred"]
    for i in range(200):
        letter = "ABCD"[i % 4]
        rows.append(f"{i},{'law' if i % 3 else 'math'},{letter},{i % 4 + (i == 7)},{letter}")
    imp = import_bytes("\n".join(rows).encode(), "items.csv",
                       ImportOptions(**MMLU_OPTIONS, fixed={"model": "m"}))[0]
    assert (imp.spec["facets"], imp.spec["y"], imp.spec["x"]) == (["model"], "category",
                                                                   "metric")
    assert [w for w in imp.warnings if "answer_index" in w]


def test_drop_leaves_a_column_out_of_the_dimensions(tmp_path, capsys):
    csv = b"question_id,category,level,answer,pred\n1,law,1,A,A\n2,law,2,B,C\n3,math,1,C,C\n"
    options = ImportOptions(**MMLU_OPTIONS, fixed={"model": "m"})
    assert import_bytes(csv, "items.csv", options)[0].spec["x"] == "level"
    imp = import_bytes(csv, "items.csv", dataclasses.replace(options, drop=("level",)))[0]
    assert (imp.spec["y"], imp.spec["x"]) == ("category", "metric")
    assert "Left out of the dimensions with --drop: level." in imp.spec["notes"]
    assert imp.tidy[["category", "value", "n"]].values.tolist() == [["law", "0.5", "2"],
                                                                    ["math", "1.0", "1"]]
    path = tmp_path / "items.csv"
    path.write_bytes(csv)
    assert cli(["import", str(path), "--item", "question_id", "--correct", "pred=answer",
                "--drop", "level", "--drop", "nope"]) == 2
    assert capsys.readouterr().err == (
        f"evalmaps: {path}: --drop names the column 'nope', which the table does not have (its "
        "columns are question_id, category, level, answer, pred). Give --drop one of its "
        "columns.\n")


def test_rename_names_the_models_a_folder_of_files_gives(capsys):
    """--set model={file} names a model after its file (model_outputs_Llama-2-7b-hf_5shots);
    --rename model:OLD=NEW shows it as the user names it, its numbers unchanged."""
    paths = [shared(MMLU_PRO) / f"model_outputs_{m}_5shots.zip" for m in ("Llama-2-7b-hf",
                                                                           "Llama-2-13b-hf")]
    assert cli(["import", *map(str, paths), "--item", "question_id", "--correct", "pred=answer",
                "--set", "model={file}", "--rename",
                "model:model_outputs_Llama-2-7b-hf_5shots=Llama-2-7B", "--rename",
                "model: model_outputs_Llama-2-13b-hf_5shots = Llama 2 13B"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["dims"]["model"] == 2
    imp = import_paths(paths, ImportOptions(**MMLU_OPTIONS, fixed={"model": "{file}"}, rename=(
        ("model", "model_outputs_Llama-2-7b-hf_5shots", "Llama-2-7B"),
        ("model", "model_outputs_Llama-2-13b-hf_5shots", "Llama 2 13B"))))[0]
    assert imp.dims["model"] == ["Llama 2 13B", "Llama-2-7B"]
    assert set(imp.items.to_pandas()["model"]) == {"Llama 2 13B", "Llama-2-7B"}
    for model, path in zip(("Llama-2-7B", "Llama 2 13B"), paths):
        rows = imp.tidy[imp.tidy["model"] == model]
        assert {r["category"]: (float(r["value"]), int(r["n"])) for r in rows.to_dict("records")
                } == mmlu_by_hand(path)


@pytest.mark.parametrize("rename, message", [
    (("task", "a", "b"), "--rename names the dimension 'task', which this import does not have "
                         "(its dimensions are category, model). Give --rename DIM:OLD=NEW with "
                         "one of them."),
    (("model", "m2", "n"), "--rename model:m2=n: no model is labelled 'm2' (the labels are m). "
                           "Give one of them."),
    (("category", "law", "math"), "--rename category:law=math would give two category labels "
                                  "the one name 'math'. Give each its own name."),
])
def test_a_bad_rename_says_what_to_give(rename, message):
    csv = b"question_id,category,answer,pred\n1,law,A,A\n2,math,B,C\n3,law,B,B\n4,math,A,A\n"
    assert refused(csv, "items.csv", ImportOptions(**MMLU_OPTIONS, fixed={"model": "m"},
                                                   rename=(rename,))) == f"items.csv: {message}"


def test_the_model_may_be_chosen_as_an_axis():
    """The model is a facet unless -x or -y names it: then it is that axis (it was refused as
    "not among the table's dimensions (model, category, metric)", a list that holds it)."""
    paths = [shared(MMLU_PRO) / f"model_outputs_{m}_5shots.zip" for m in ("Llama-2-7b-hf",
                                                                           "Llama-2-13b-hf")]
    options = ImportOptions(**MMLU_OPTIONS, fixed={"model": "{file}"}, y="model")
    imp = import_paths(paths, options)[0]
    assert (imp.spec["facets"], imp.spec["y"], imp.spec["x"]) == ([], "model", "category")
    for path in paths:
        rows = imp.tidy[imp.tidy["model"] == path.name.removesuffix(".zip")]
        assert {r["category"]: (float(r["value"]), int(r["n"])) for r in rows.to_dict("records")
                } == mmlu_by_hand(path)
    flipped = import_paths(paths, dataclasses.replace(options, x="model", y=None))[0]
    assert (flipped.spec["facets"], flipped.spec["y"], flipped.spec["x"]) == ([], "category",
                                                                               "model")
    with pytest.raises(ImportFailed, match="x and y must be different dimensions."):
        import_paths(paths, dataclasses.replace(options, x="model"))[0]


def test_a_plain_per_item_table_with_samples():
    csv = (b"model,task,item,sample,score\n"
           b"A,t,1,0,1\nA,t,1,1,0\nA,t,2,0,1\nA,t,2,1,1\nB,t,1,0,0\nB,t,1,1,0\nB,t,2,0,true\n"
           b"B,t,2,1,no\n")
    imp = import_bytes(csv, "per-item.csv")[0]
    assert (imp.spec["facets"], imp.spec["y"], imp.spec["x"]) == (["model"], "task", "metric")
    assert imp.tidy.to_dict("records") == [
        {"model": "A", "task": "t", "metric": "score", "value": "0.75", "n": "2"},
        {"model": "B", "task": "t", "metric": "score", "value": "0.25", "n": "2"}]
    assert "mean over its items of each item's mean over its samples" in imp.spec["notes"][0]


@pytest.mark.parametrize("data, options, message", [
    (b"model,item,value\nA,1,1\n", ImportOptions(item="item"),
     "there is no score column (the columns are model, item, value). Add a 'score' column (1 "
     "right, 0 wrong, or any number), or compare a prediction with a reference with --correct "
     "PREDICTION=REFERENCE."),
    (b"model,id,score\nA,1,1\n", ImportOptions(item="question_id"),
     "there is no item column 'question_id' (the columns are model, id, score). Name the column "
     "that holds each item's id with --item COLUMN."),
    (b"model,item,pred,answer\nA,1,B,B\n", ImportOptions(correct=("pred", "gold")),
     "--correct names the column 'gold', which the table does not have (its columns are model, "
     "item, pred, answer). Give --correct PREDICTION=REFERENCE with two of its columns."),
    (b"model,item,pred,answer,score\nA,1,B,B,1\n", ImportOptions(correct=("pred", "answer")),
     "the table has a score column ('score') and --correct was given too. Use one of the two."),
    (b"model,item,score\nA,1,1\nA,2,right\n", None,
     "row 3, column 'score': the score 'right' is not a number. Write each item's score as a "
     "number (1 right, 0 wrong), true/false or yes/no."),
    (b"model,item,score\nA,1,1\nA,1,0\n", None,
     "row 3: item '1' appears twice in one cell with the same sample, and no other column tells "
     "the two rows apart. Keep one row per item (and sample), or number the samples in a "
     "'sample' column."),
    (b"model,item,score\nA,1,1\nA,,0\n", None,
     "row 3, column 'item': an item has no id. Give every row its item's id."),
    (b"item,score\n1,1\n", None,
     "the table has no dimension column besides the item and its score. Add one (such as "
     "model), or name the model with --set model=NAME."),
    (b"model,item,sample,score\nA,1,0,1\nA,1,x,0\n", None,
     "row 3, column 'sample': a sample number is not a whole number. Number each item's samples "
     "0, 1, 2, ..."),
])
def test_bad_per_item_tables_say_what_to_do(data, options, message):
    assert refused(data, "items.csv", options) == f"items.csv, {message}" \
        if message.startswith("row") else f"items.csv: {message}"


# ------------------------------------------------------------------------ where records are kept

def test_import_o_writes_the_records_beside_the_cells_and_serve_loads_them(tmp_path, capsys):
    paths = [str(shared(INSPECT) / n) for n in ("data_arc_qwen.json", "data_arc_sonnet.json")]
    assert cli(["import", *paths, "-o", str(tmp_path / "arc.csv")]) == 0
    assert sorted(p.name for p in (tmp_path / "arc.items").iterdir()) == ["scores.parquet",
                                                                           "texts.parquet"]
    assert json.loads((tmp_path / "arc.figure.json").read_text())["items"] == "arc.items"
    imported = import_paths(paths)[0]
    for cache in (None, tmp_path / "cache"):
        (figure,) = load_folder(tmp_path, cache_dir=cache)
        assert figure.items is not None and figure.items.dims == figure.spec.dim_names
        values = figure.items.cell_values()
        assert values["value"].tolist() == [1.0, 1 / 3]
        assert figure.cells["n"].tolist() == [3.0, 5.0]
        scores = pd.read_parquet(tmp_path / "arc.items" / "scores.parquet")
        assert scores["score"].tolist() == imported.items.sort_values(
            ["model", "item"])["score"].tolist()
    coords = dict(zip(figure.spec.dim_names, ("ollama/qwen2.5:0.5b", "choice", "accuracy",
                                              "inspect_evals/arc_easy")))
    (text,) = figure.items.texts(coords, ["2"])
    assert (text["target"], text["response"][:9]) == ("B", "ANSWER:D\n")


def test_a_data_folder_of_logs_keeps_its_records_in_the_cache(tmp_path):
    cache = tmp_path / "cache"
    (first,) = load_folder(shared(INSPECT), cache_dir=cache)
    (again,) = load_folder(INSPECT, cache_dir=cache)
    assert first.items.folder == again.items.folder and first.items.folder.parent == cache
    assert first.items.dims == first.spec.dim_names
    (no_cache,) = load_folder(INSPECT)
    assert no_cache.items.cell_values().equals(first.items.cell_values())


def test_an_upload_keeps_its_records_in_the_store(tmp_path):
    csv = b"model,task,item,score\nA,t,1,1\nA,t,2,0\nB,t,1,1\nB,t,2,1\n"
    store = Store(tmp_path)
    store.ensure()
    key = store.stage(csv, "items.csv")
    limits = uploads.Budget(max_bytes=2**20, seconds=30, memory_mb=1024)
    [fid] = uploads.store_upload(store, key, ImportOptions(), limits)
    figure = Store(tmp_path).figure(fid)  # as another process reads it
    assert figure.items is not None and figure.items.folder == store.folder(fid) / "items"
    assert figure.items.cell_values()["value"].tolist() == [0.5, 1.0]
    assert figure.value(model="B", task="t", metric="score") == 1.0
    # the same cells with other records are another upload
    other = store.stage(b"model,task,item,score\nA,t,1,0\nA,t,3,1\nB,t,1,1\nB,t,2,1\n",
                        "items.csv")
    assert uploads.store_upload(store, other, ImportOptions(), limits) != [fid]


def test_the_built_in_mmlu_pro_figure_loads_its_records():
    figure = load_catalog(manifest_check="refuse").figure("mmlu-pro")
    assert figure.items is not None and figure.items.dims == figure.spec.dim_names
    assert list(figure.panels) == ["llama-2-7b", "llama-2-13b"]
    values = figure.items.cell_values()
    assert values["n_items"].sum() == 2 * 12_032
    cells = figure.cells.sort_values(["model", "category"], ignore_index=True)
    values = values.sort_values(["model", "category"], ignore_index=True)
    assert values["value"].tolist() == cells["value"].tolist()
    assert values["n_items"].astype(float).tolist() == cells["n"].tolist()


def test_the_built_in_mmlu_pro_figure_is_what_its_script_makes():
    shared(MMLU_PRO)
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_mmlu_pro", ROOT / "scripts" /
                                                  "make_mmlu_pro.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    imported, entry = script.build(MMLU_PRO.parent)
    catalog = json.loads((ROOT / "data" / "catalog.json").read_text())
    assert [f for f in catalog["figures"] if f["id"] == "mmlu-pro"] == [entry]
    committed = pd.read_csv(ROOT / "data" / "figures" / "mmlu-pro.csv", dtype=str)
    assert committed.equals(imported.tidy.astype(str))
    for model, name in script.MODELS.items():
        got = committed[committed["model"] == model]
        assert {r["category"]: (float(r["value"]), int(r["n"])) for r in got.to_dict("records")} \
            == mmlu_by_hand(MMLU_PRO / name)
    scores = pd.read_parquet(ROOT / "data" / "figures" / "mmlu-pro.items" / "scores.parquet")
    assert len(scores) == 24_064 and list(scores.columns) == [*script.DIMS, "item", "sample",
                                                              "score"]


# ------------------------------------------------------------------------ pass@k figures

def by_enumeration(outcomes: list[int], k: int) -> float:
    """pass@k of one item: the share of the k-subsets of its samples that hold a right one."""
    subsets = list(itertools.combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets)


def test_figure_at_k_matches_direct_enumeration(tmp_path):
    outcomes = {("A", "1"): [1, 0, 0, 0], ("A", "2"): [1, 1, 0, 1], ("B", "1"): [0, 0, 0, 0],
                ("B", "2"): [0, 1, 0, 0], ("B", "3"): [1, 1, 1, 0]}
    rows = [{"model": m, "task": "t", "item": i, "sample": s, "score": v}
            for (m, i), vs in outcomes.items() for s, v in enumerate(vs)]
    path = tmp_path / "items.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    (figure,) = load_folder(tmp_path)
    assert item_store.max_k(figure) == 4
    assert item_store.figure_at(figure, 1) is figure
    for k in (2, 3, 4):
        at = item_store.figure_at(figure, k)
        assert at is item_store.figure_at(figure, k)  # kept
        assert at.spec.metric.name == f"pass@{k}" and at.items is figure.items
        for model in ("A", "B"):
            mine = [v for (m, _), v in outcomes.items() if m == model]
            expected = sum(by_enumeration(v, k) for v in mine) / len(mine)
            assert math.isclose(at.value(model=model, task="t", metric="score"), expected)
    with pytest.raises(ValueError, match="k must be from 1 to 4"):
        item_store.figure_at(figure, 5)


def test_max_k_is_1_without_items_or_with_scores_other_than_0_or_1(tmp_path):
    imp = import_bytes(b"model,task,item,sample,score\nA,t,1,0,0.5\nA,t,1,1,1\n", "x.csv")[0]
    figure = item_store_figure(imp, tmp_path)
    assert item_store.max_k(figure) == 1
    imp = import_bytes(b"model,task,value\nA,t,1\nB,t,2\n", "y.csv")[0]
    assert item_store.max_k(figure_of(imp)) == 1


def item_store_figure(imported, folder):
    figure = figure_of(imported)
    figure.items = item_store.save(folder, figure.spec.dim_names, imported.items)
    return figure


def test_write_import_without_records_writes_no_items_folder(tmp_path):
    imported = import_bytes(b"model,task,value\nA,t,1\nB,t,2\n", "y.csv")[0]
    write_import(imported, tmp_path / "y.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["y.csv", "y.figure.json"]
    assert "items" not in json.loads((tmp_path / "y.figure.json").read_text())


def test_a_parquet_per_item_table_reads_as_its_csv_does(tmp_path):
    """The Arrow path (native types, dictionary-encoded labels) gives the cells and records the
    general path gives for the same rows as CSV; rows it does not take go the general way."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(7)
    n = 600
    frame = pd.DataFrame({"model": rng.choice(["m-a", "m-b"], n),
                          "config": rng.choice(["c1", "c2", "c10"], n),
                          "bench": rng.choice(["aime", "math"], n),
                          "item": rng.integers(0, 40, n), "sample": 0,
                          "score": rng.integers(0, 2, n).astype(float)})
    frame["sample"] = frame.groupby(["model", "config", "bench", "item"]).cumcount()
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buf)
    fast = import_bytes(buf.getvalue(), "items.parquet")[0]
    slow = import_bytes(frame.to_csv(index=False).encode(), "items.csv")[0]
    assert isinstance(fast.items, pa.Table) and isinstance(slow.items, pd.DataFrame)
    assert fast.spec["dims"] == slow.spec["dims"] and fast.spec["notes"] == [
        n.replace("items.csv", "items.parquet") for n in slow.spec["notes"]]
    key = ["model", "config", "bench"]
    assert fast.tidy.sort_values(key, ignore_index=True).equals(
        slow.tidy.sort_values(key, ignore_index=True))
    a = item_store.save(tmp_path / "a", list(fast.spec["dims"]), fast.items)
    b = item_store.save(tmp_path / "b", list(slow.spec["dims"]), slow.items)
    assert pd.read_parquet(a.scores_path).equals(pd.read_parquet(b.scores_path))
    assert item_store.digest(fast.items) != item_store.digest(fast.items.slice(1))
    # an item's sample twice: the general path names the row
    twice = pa.Table.from_pandas(pd.concat([frame, frame.iloc[:1]]), preserve_index=False)
    buf = io.BytesIO()
    pq.write_table(twice, buf)
    assert "appears twice in one cell with the same sample" in refused(buf.getvalue(),
                                                                      "items.parquet")


def test_a_per_item_table_with_harness_results_is_refused(tmp_path):
    """Mixed: a per-item table named beside harness results makes no figure, and says so."""
    (tmp_path / "items.csv").write_text("model,task,item,score\nA,t,1,1\n")
    results = shared(LM_EVAL) / "results_2026-01-21T03-44-18.458309.json"
    with pytest.raises(ImportFailed) as info:
        import_paths([tmp_path / "items.csv", results])[0]
    assert str(info.value) == ("2 paths: items.csv is a table, the other files are harness "
                               "results. Import the table on its own.")


def test_mmlu_pro_items_keep_the_question_and_the_models_answer_text():
    """Issue 37, a new user 10: the items of an MMLU-Pro import dropped the question and the
    model's generated answer though the files hold both: they are the prompt and the response
    (the reference letter is the target)."""
    source = shared(MMLU_PRO) / "model_outputs_Llama-2-7b-hf_5shots.zip"
    with zipfile.ZipFile(source) as archive:
        (name,) = archive.namelist()
        rows = {str(r["question_id"]): r for r in json.loads(archive.read(name))}
    imp = import_paths([source], ImportOptions(**MMLU_OPTIONS, fixed={"model": "{file}"}))[0]
    assert {"prompt", "target", "response"} <= set(imp.items.columns)
    for _, got in imp.items.head(50).iterrows():
        want = rows[got["item"]]
        assert got["prompt"].strip() == want["question"].strip()
        assert got["response"].strip() == want["generated_text"].strip()
        assert got["target"] == want["answer"]


SWE = FIXTURES / "swe-bench"


def test_swe_bench_results_score_every_system_on_every_instance_named():
    """SWE-bench's results.json (the experiments repository's layout, fixture README): each
    instance a 0/1 item, resolved or not; a system whose file does not name an instance another
    names is scored 0 on it (unresolved is the complement of ``resolved``), so that every
    system has the same items and a pair is tested on all of them. Cells checked by hand."""
    files = sorted(SWE.rglob("results.json"))
    docs = {path.parents[1].name: json.loads(path.read_text()) for path in files}
    named = sorted({i for doc in docs.values() for ids in doc.values() for i in ids})
    imp = import_paths([SWE])[0]
    assert (imp.format, imp.spec["facets"], imp.spec["y"], imp.spec["x"]) == (
        "swe-bench", ["model"], "split", "repo")
    assert imp.spec["metric"]["name"] == "resolved" and imp.spec["metric"]["range"] == [0, 1]
    assert imp.spec["dims"]["model"]["labels"] == sorted(docs)  # the folders, whole
    expected = {}
    for system, doc in docs.items():
        for instance in named:
            owner, _, rest = instance.partition("__")
            repo = f"{owner}/{rest.rsplit('-', 1)[0]}"
            expected.setdefault((system, repo), []).append(instance in doc["resolved"])
    got = {(r["model"], r["repo"]): (float(r["value"]), int(r["n"]))
           for r in imp.tidy.to_dict("records")}
    assert got == {k: (sum(v) / len(v), len(v)) for k, v in expected.items()}
    assert set(imp.tidy["split"]) == {"verified"}
    per_system = imp.items.groupby("model")["item"].apply(lambda s: sorted(s)).to_dict()
    assert all(items == named for items in per_system.values())
    assert any("SWE-bench verified has 500 instances and these files name 9" in w
               for w in imp.warnings)


def test_swe_bench_results_out_of_layout_or_with_bad_ids_are_refused_clearly():
    good = json.dumps({"resolved": ["django__django-11099"], "no_logs": []}).encode()
    assert refused(good, "results.json").startswith("results.json: a SWE-bench results.json is "
                                                    "named by the folder of its submission")
    bad = json.dumps({"resolved": ["django__django-11099", 7]}).encode()
    assert "entry 2 of 'resolved' is not an instance id" in refused(
        bad, "verified/20240101_x/results/results.json")


def test_cluster_on_a_harness_results_folder_is_refused_not_ignored():
    """--cluster groups a per-item table's items by one of its columns; an evaluation tool's
    files keep no such column, so the option is refused with the reason, never dropped."""
    with pytest.raises(ImportFailed) as info:
        import_paths([SWE], ImportOptions(cluster="src"))[0]
    message = str(info.value)
    assert "--cluster src groups the items of a per-item table by one of its columns, and " \
           "these are SWE-bench results files, which keep no such column." in message
    assert "\n" not in message
