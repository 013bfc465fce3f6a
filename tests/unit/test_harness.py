"""What evaluation tools write -> one figure (evalmaps.readers.harness), detected from the content.

Real files come from ../shared/external (lm-eval, inspect, pythia-evals; skipped when absent);
the shapes they lack (groups, filters, a checkpoint in the name, repeated runs) are built here
as the tools write them. Results are compared whole: the full tidy CSV of an import.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalmaps.catalog.folders import load_folder
from evalmaps.catalog.imports import figure_of, import_bytes, import_paths
from evalmaps.core.figure import Metric
from evalmaps.readers import detect
from evalmaps.readers.base import ImportFailed, ImportOptions
from evalmaps.readers.jsonl import read_json_table

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = ROOT.parent / "shared" / "external"
LM_EVAL = EXTERNAL / "lm-eval"
INSPECT = EXTERNAL / "inspect"
PYTHIA = EXTERNAL / "pythia-evals"
POPULARITY_EVAL = "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
EMPTY_EVAL = "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
POPULARITY_JSON = "2025-05-12T20-28-13-04-00_popularity.json"
NO_SAMPLES_JSON = "2025-05-12T20-28-13-04-00_no-samples.json"


def shared(folder: Path) -> Path:
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent: tests of real tool output skipped")
    return folder


def refused(data: bytes, name: str, **kwargs) -> str:
    with pytest.raises(ImportFailed) as info:
        import_bytes(data, name, **kwargs)[0]
    message = str(info.value)
    assert message.startswith(name) and "\n" not in message and "Traceback" not in message
    return message


def lm_eval_04(**extra) -> dict:
    """An lm-eval >= 0.4 results file as the CLI writes one: a group (mmlu) with two subtasks,
    a task with two filters, a stderr 'N/A', n-samples, higher_is_better, config."""
    doc = {
        "results": {
            "mmlu": {"acc,none": 0.45, "acc_stderr,none": 0.01, "alias": "mmlu"},
            "mmlu_anatomy": {"alias": " - anatomy", "acc,none": 0.5,
                             "acc_stderr,none": 0.04},
            "mmlu_virology": {"alias": " - virology", "acc,none": 0.4,
                              "acc_stderr,none": "N/A"},
            "gsm8k": {"alias": "gsm8k", "exact_match,strict-match": 0.25,
                      "exact_match_stderr,strict-match": 0.012,
                      "exact_match,flexible-extract": 0.3,
                      "exact_match_stderr,flexible-extract": 0.0125},
        },
        "groups": {"mmlu": {"acc,none": 0.45, "acc_stderr,none": 0.01, "alias": "mmlu"}},
        "group_subtasks": {"mmlu": ["mmlu_anatomy", "mmlu_virology"], "gsm8k": []},
        "higher_is_better": {"mmlu_anatomy": {"acc": True}, "gsm8k": {"exact_match": True}},
        "n-samples": {"mmlu_anatomy": {"original": 135, "effective": 135},
                      "mmlu_virology": {"original": 166, "effective": 166},
                      "gsm8k": {"original": 1319, "effective": 100}},
        "config": {"model": "hf", "model_args": "pretrained=org/tiny,revision=step2000,dtype=float16"},
        "model_name": "org/tiny",
    }
    doc.update(extra)
    return doc


def as_bytes(doc) -> bytes:
    return json.dumps(doc, indent=2).encode()


# ------------------------------------------------------------------------------- detection

def test_detection_reads_the_content_not_the_name(tmp_path):
    assert detect(as_bytes(lm_eval_04())) == "lm-eval"
    assert detect(b"PAR1....") == "parquet"
    assert detect(b'{"model": "m", "type": "a", "value": 1}\n{"model": "m", "type": "b", '
                  b'"value": 2}\n') == "jsonl"
    assert detect(b'[{"model": "m"}]') == "jsonl"
    assert detect(b"model,type,value\nm,a,1\n") == "csv"
    assert detect(b'{"name": "x", "deps": {"a": 1}}') == "json"
    # an lm-eval file named .csv is still lm-eval results
    imp = import_bytes(as_bytes(lm_eval_04()), "results.csv")[0]
    assert imp.format == "lm-eval"


# ------------------------------------------------------------------------------- lm-eval

def test_lm_eval_04_whole_result():
    imp = import_bytes(as_bytes(lm_eval_04()), "results_2024.json")[0]
    assert imp.format == "lm-eval"
    # one checkpoint: the tasks are the columns (one step would be 3 panels of one cell each)
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == ("model", "task", ["metric", "step"])
    # the group row (mmlu) is not a task; N/A is no se; each filter is its own metric label
    assert imp.to_csv() == (
        "metric,step,model,task,value,se\n"
        "acc,2000,org/tiny,mmlu_anatomy,0.5,0.04\n"
        "acc,2000,org/tiny,mmlu_virology,0.4,\n"
        "exact_match (strict-match),2000,org/tiny,gsm8k,0.25,0.012\n"
        "exact_match (flexible-extract),2000,org/tiny,gsm8k,0.3,0.0125\n")
    assert imp.warnings == [
        "results_2024.json: the group rows mmlu aggregate other tasks and are not imported as "
        "tasks.",
        "results_2024.json: gsm8k was evaluated on 100 of its 1319 samples (a --limit run)."]
    spec = figure_of(imp).spec
    assert spec.metrics.dim == "metric"
    assert spec.metric_for({"metric": "acc"}) == Metric("acc", "", (0, 1), True)
    assert spec.metric_for({"metric": "exact_match (strict-match)"}) == \
        Metric("exact_match (strict-match)", "", (0, 1), True)


def test_lm_eval_without_a_checkpoint_is_model_by_task():
    doc = lm_eval_04(config={"model_args": "pretrained=org/tiny"})
    imp = import_bytes(as_bytes(doc), "r.json")[0]
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == ("model", "task", ["metric"])
    assert imp.to_csv().splitlines()[:2] == ["metric,model,task,value,se",
                                             "acc,org/tiny,mmlu_anatomy,0.5,0.04"]


def test_lm_eval_model_name_then_folder_name(tmp_path):
    doc = lm_eval_04(config={"model_args": "dtype=float16"})
    assert import_bytes(as_bytes(doc), "r.json")[0].dims["model"] == ["org/tiny"]
    del doc["model_name"]
    (tmp_path / "my-model").mkdir()
    (tmp_path / "my-model" / "r.json").write_bytes(as_bytes(doc))
    imp = import_paths([tmp_path / "my-model" / "r.json"])[0]
    assert imp.dims["model"] == ["my-model"]
    assert "it is named after its folder, 'my-model'" in imp.warnings[0]


def test_lm_eval_checkpoint_from_the_file_name(tmp_path):
    for step, acc in (("1000", 0.25), ("500", 0.2)):
        doc = {"results": {"piqa": {"acc": acc, "acc_stderr": 0.01}}, "versions": {"piqa": 0},
               "config": {"model_args": "pretrained=org/m"}}
        (tmp_path / f"m_step{step}.json").write_bytes(as_bytes(doc))
    imp = import_paths([tmp_path])[0]
    assert imp.to_csv() == ("task,metric,model,step,value,se\n"
                            "piqa,acc,org/m,1000,0.25,0.01\n"
                            "piqa,acc,org/m,500,0.2,0.01\n")
    assert imp.dims["step"] == ["500", "1000"]  # numeric order


def test_lm_eval_real_regression_file_whole_result():
    path = shared(LM_EVAL) / "cpu_regression_expected.json"
    imp = import_paths([path])[0]
    # no model in the file: named after its folder; stderr "N/A": no se column at all
    assert imp.to_csv() == (
        "metric,model,task,value\n"
        "acc,lm-eval,arc_easy,0.3\n"
        "acc_norm,lm-eval,arc_easy,0.1\n"
        "acc,lm-eval,lambada_openai,0.1\n"
        "perplexity,lm-eval,lambada_openai,605.5452047779999\n"
        "bits_per_byte,lm-eval,wikitext,1.3393660745008342\n"
        "byte_perplexity,lm-eval,wikitext,2.530401076099876\n"
        "word_perplexity,lm-eval,wikitext,130.4813590639406\n")
    spec = figure_of(imp).spec
    assert {label: (m.higher_is_better, m.range) for label, m in spec.metrics.labels.items()} == {
        "acc": (True, (0, 1)), "acc_norm": (True, (0, 1)), "perplexity": (False, None),
        "bits_per_byte": (False, None), "byte_perplexity": (False, None),
        "word_perplexity": (False, None)}


def test_lm_eval_real_cli_output_whole_result():
    path = shared(LM_EVAL) / "results_2025-01-21T00-40-03.356274.json"
    imp = import_bytes(path.read_bytes(), path.name)[0]
    raw = json.loads(path.read_text())
    model = raw["model_name"]  # model_args has no pretrained=
    assert imp.to_csv(for_spreadsheets=False) == (
        "metric,model,task,value,se\n"
        f"acc,{model},mmlu_abstract_algebra,0.34,0.047609522856952344\n")


def test_pythia_folder_is_one_figure_that_keeps_every_number():
    folder = shared(PYTHIA)
    imp = import_paths([folder])[0]
    files = sorted(folder.rglob("*.json"))
    assert len(files) == 216
    assert {k: len(v) for k, v in imp.dims.items()} == {"task": 87, "metric": 5, "model": 8,
                                                        "step": 27}
    # every value and stderr of every file, independently read
    expected = {}
    for path in files:
        raw = json.loads(path.read_text())
        args = dict(p.split("=", 1) for p in raw["config"]["model_args"].split(","))
        step = args["revision"].removeprefix("step")
        for task, metrics in raw["results"].items():
            for key, value in metrics.items():
                if not key.endswith("_stderr"):
                    expected[(task, key, args["pretrained"], step)] = (
                        value, metrics.get(f"{key}_stderr"))
    tidy = imp.tidy
    got = {(t, m, mo, s): (float(v), float(e) if e else None) for t, m, mo, s, v, e in zip(
        tidy["task"], tidy["metric"], tidy["model"], tidy["step"], tidy["value"], tidy["se"])}
    assert got == expected
    assert imp.spec["metrics"]["labels"]["ppl"] == {"name": "ppl", "higher_is_better": False}


# ------------------------------------------------------------------------------- Inspect

def test_inspect_eval_log_whole_result():
    path = shared(INSPECT) / POPULARITY_EVAL
    imp = import_bytes(path.read_bytes(), path.name)[0]
    assert imp.format == "inspect"
    # its samples are per-item records: the model a facet, n the items (whose mean is 0.8 too)
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == ("metric", "task", ["model", "scorer"])
    assert imp.to_csv() == ("model,scorer,metric,task,value,n,se\n"
                            "openai/gpt-4o-mini,match,accuracy,popularity,0.8,10,"
                            "0.13333333333333333\n")
    assert imp.warnings == []  # no cell's items disagree with its value


def test_inspect_json_logs_and_eval_logs_combine():
    folder = shared(INSPECT)
    paths = [folder / "mmlu-summary-choices.eval", folder / "mmlu-no-summary-choices.eval",
             folder / POPULARITY_JSON, folder / NO_SAMPLES_JSON, folder / EMPTY_EVAL]
    imp = import_paths(paths)[0]
    assert imp.to_csv() == (  # the log without samples has no n
        "model,scorer,metric,task,value,n,se\n"
        "openai/gpt-4o,choice,accuracy,inspect_evals/mmlu_0_shot,0.0,1,0.0\n"
        "openai/gpt-4o-mini,match,accuracy,popularity,0.6666666666666666,3,0.33333333333333337\n"
        "openai/gpt-4o-mini,match,accuracy,testtaskname,0.6666666666666666,,"
        "0.33333333333333337\n")
    cancelled = [f"{POPULARITY_JSON}: the run's status is 'cancelled'; its scores are those the log "
                 f"gives.", f"{NO_SAMPLES_JSON}: the run's status is 'cancelled'; its scores are "
                 f"those the log gives."]
    assert [n for n in imp.spec["notes"] if "status is" in n] == cancelled  # a note, not a warning
    assert imp.warnings == [
        f"{EMPTY_EVAL} holds no scores (results.scores is empty); it adds no cells.",
        "1 value(s) given identically by more than one file were merged."]


def test_runs_with_different_values_become_a_run_facet_never_averaged():
    """The whole shared folder: two popularity logs give different scores for one model and
    task, so each log is a run (a facet named by its file); every value as its log gives it."""
    imp = import_paths([shared(INSPECT)])[0]
    assert imp.facets == ["model", "run", "scorer"]  # per-item records: the model a facet
    mini, gpt4o = "openai/gpt-4o-mini", "openai/gpt-4o"
    assert imp.to_csv() == (
        "model,run,scorer,metric,task,value,n,se\n"
        f"{mini},{POPULARITY_EVAL.rsplit('.', 1)[0]},match,accuracy,popularity,0.8,10,"
        "0.13333333333333333\n"
        f"{mini},{NO_SAMPLES_JSON.rsplit('.', 1)[0]},match,accuracy,testtaskname,"
        "0.6666666666666666,,0.33333333333333337\n"
        f"{mini},{POPULARITY_JSON.rsplit('.', 1)[0]},match,accuracy,popularity,"
        "0.6666666666666666,3,0.33333333333333337\n"
        f"{gpt4o},mmlu-no-summary-choices,choice,accuracy,inspect_evals/mmlu_0_shot,0.0,1,0.0\n"
        f"{gpt4o},mmlu-summary-choices,choice,accuracy,inspect_evals/mmlu_0_shot,0.0,1,0.0\n")
    assert imp.warnings[-1] == ("Several logs give the same model and task with different "
                                "scores: each log is a run (the facet 'run', named by its file).")


def test_two_lm_eval_runs_with_different_values_are_refused_naming_both(tmp_path):
    for i, acc in enumerate((0.5, 0.6)):
        (tmp_path / f"results_{i}.json").write_text(json.dumps({
            "results": {"arc_easy": {"acc,none": acc}},
            "config": {"model_args": "pretrained=m"}}))
    with pytest.raises(ImportFailed) as info:
        import_paths([tmp_path])[0]
    assert "results_0.json and results_1.json both give the cell" in str(info.value)
    assert str(info.value).endswith("Import one of the two runs, not both.")


def test_an_unfinished_eval_log_is_a_clear_error():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("_journal/start.json", "{}")
    message = refused(buf.getvalue(), "run.eval")
    assert message == ("run.eval: this Inspect log has no header.json: the run did not finish, "
                       "so it holds no results. Import a finished log.")


# ------------------------------------------------------------------- zips, tables, errors

def test_a_zip_of_results_is_one_figure():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for step, acc in (("1", 0.1), ("2", 0.2)):
            z.writestr(f"runs/tiny_step{step}.json", json.dumps(
                {"results": {"piqa": {"acc": acc, "acc_stderr": 0.01}},
                 "config": {"model_args": "pretrained=org/m"}}))
        z.writestr("runs/README.md", "notes")
        z.writestr("runs/samples_piqa.jsonl", '{"doc_id": 0}\n{"doc_id": 1}\n')
    imp = import_bytes(buf.getvalue(), "runs.zip")[0]
    assert imp.to_csv() == ("task,metric,model,step,value,se\n"
                            "piqa,acc,org/m,1,0.1,0.01\npiqa,acc,org/m,2,0.2,0.01\n")
    assert imp.warnings == ["Not results, skipped: samples_piqa.jsonl."]


def test_json_lines_and_parquet_import_as_tables():
    lines = (b'{"model": "m", "type": "a", "value": 50.5, "se": null}\n'
             b'{"model": "m", "type": "b", "value": 60, "se": 1.5}\n')
    csv = b"model,type,value,se\nm,a,50.5,\nm,b,60,1.5\n"
    from_csv = import_bytes(csv, "t.csv")[0]
    for data in (lines, json.dumps(json.loads(b"[" + lines.replace(b"}\n{", b"},{")[:-1] + b"]"))
                 .encode()):
        imp = import_bytes(data, "t.jsonl")[0]
        assert (imp.format, imp.to_csv(), imp.spec["x"]) == \
            (from_csv.format, from_csv.to_csv(), from_csv.spec["x"])
    buf = io.BytesIO()
    pq.write_table(pa.table({"model": ["m", "m"], "type": ["a", "b"], "value": [50.5, 60.0],
                             "se": [None, 1.5]}), buf)
    imp = import_bytes(buf.getvalue(), "t.bin")[0]  # Parquet by its magic, whatever the name
    assert imp.to_csv() == "model,type,value,se\nm,a,50.5,\nm,b,60,1.5\n"


def test_json_lines_errors_are_clear():
    assert refused(b'{"model": "m", "value": 1}\nnot json\n', "t.jsonl") == \
        "t.jsonl, row 2: this line is not a JSON object. Write one JSON object per line (JSON Lines)."
    assert refused(b'{"model": "m", "v": {"a": 1}}\n{"model": "n", "v": 2}\n', "t.jsonl") == \
        ("t.jsonl, row 1: the key 'v' holds a nested value; a table's cells are text or "
         "numbers. Flatten it.")
    assert read_json_table(b'{"a": true, "b": null, "c": 2}\n{"a": 1}\n', "x").to_dict("list") \
        == {"a": ["true", "1"], "b": ["", ""], "c": ["2", ""]}


def test_a_json_file_of_no_known_format_is_a_clear_error():
    assert refused(b'{"name": "x", "deps": {"a": 1}}', "package.json") == (
        "package.json: this file is none of the formats evalmaps reads: a CSV, Parquet or"
        " JSON Lines table, lighteval details (details_*.parquet), lighteval results "
        "JSON, lm-evaluation-harness results JSON, lm-evaluation-harness per-sample "
        "records (samples_*.jsonl), bigcode-evaluation-harness results JSON, an Inspect "
        "log (.eval or .json), LiveCodeBench graded generations (*_eval_all.json), "
        "AlpacaEval judgements (annotations.json), a HELM run's stats.json, the EvalPlus leaderboard's results.json, EvalPerf results "
        "JSON, SWE-bench results (results/results.json), simple-evals results JSON, JSON "
        "records of scores (a list, or one object "
        "per file), or an OpenCompass summary CSV. Export one of those and try again.")


def test_a_spreadsheet_workbook_is_named():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
    assert refused(buf.getvalue(), "book.csv") == (
        "book.csv: the file is an office document (a spreadsheet workbook?), not a table. Export "
        "it as CSV (comma-separated, UTF-8) and try again.")


def test_mixing_a_checkpoint_run_with_a_file_without_one_is_refused(tmp_path):
    doc = {"results": {"piqa": {"acc": 0.5}}, "config": {"model_args": "pretrained=org/m"}}
    (tmp_path / "m_step1.json").write_bytes(as_bytes(doc))
    (tmp_path / "final.json").write_bytes(as_bytes(doc))
    with pytest.raises(ImportFailed) as info:
        import_paths([tmp_path])[0]
    assert str(info.value).endswith(
        "some files give a checkpoint (step) and final.json does not (no revision=stepN in its "
        "config, no _stepN in its name). Import the checkpoints of one run only, or rename the "
        "file.")


def test_lm_eval_and_inspect_do_not_mix(tmp_path):
    (tmp_path / "a.json").write_bytes(as_bytes(lm_eval_04()))
    (tmp_path / "b.json").write_bytes(as_bytes(
        {"eval": {"model": "m", "task": "t"}, "results": {"scores": []}}))
    with pytest.raises(ImportFailed) as info:
        import_paths([tmp_path])[0]
    assert str(info.value).endswith("these files mix lm-evaluation-harness results files and "
                                    "Inspect logs. Import each kind separately.")


def test_a_data_folder_of_harness_files_is_one_figure(tmp_path):
    for step in ("1", "2"):
        (tmp_path / "run" / f"s{step}").mkdir(parents=True)
        (tmp_path / "run" / f"s{step}" / "results.json").write_bytes(as_bytes(
            {"results": {"piqa": {"acc,none": 0.25 * int(step), "acc_stderr,none": "N/A"}},
             "config": {"model_args": f"pretrained=org/m,revision=step{step}"}}))
    (figure,) = load_folder(tmp_path)
    assert figure.value(task="piqa", metric="acc", model="org/m", step="2") == 0.5
    assert figure.n_cells == 2


def test_x_and_y_can_be_chosen():
    imp = import_bytes(as_bytes(lm_eval_04()), "r.json", ImportOptions(x="model", y="task"))[0]
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == ("task", "model", ["metric", "step"])


# ------------------------------------------------------------------ axes that make a map

def records(**columns):
    """(file, record) pairs from columns of labels."""
    n = len(next(iter(columns.values())))
    return [("f.json", {d: labels[i] for d, labels in columns.items()}) for i in range(n)]


@pytest.mark.parametrize("dims, columns, expected", [
    # a sweep's axes are kept
    (["task", "metric", "model", "step"],
     dict(task=["a", "a", "b", "b"], metric=["acc"] * 4, model=["m", "n", "m", "n"],
          step=["1", "2", "1", "2"]), ["task", "metric", "model", "step"]),
    # one checkpoint: the task is x, the model stays y
    (["task", "metric", "model", "step"],
     dict(task=["a", "b", "c", "a"], metric=["acc", "acc", "acc", "f1"], model=["m"] * 4,
          step=["9"] * 4), ["metric", "step", "model", "task"]),
    # one log per run, one model and task each: the model's row, a column per run
    (["run", "scorer", "metric", "model", "task"],
     dict(run=["r1", "r2", "r3"], scorer=["s"] * 3, metric=["accuracy"] * 3, model=["m"] * 3,
          task=["t"] * 3), ["scorer", "metric", "task", "model", "run"]),
    # one cell: nothing to gain, the reader's axes stay
    (["scorer", "metric", "model", "task"],
     dict(scorer=["s"], metric=["accuracy"], model=["m"], task=["t"]),
     ["scorer", "metric", "model", "task"]),
])
def test_axes_are_chosen_to_make_a_map(dims, columns, expected):
    from evalmaps.catalog.imports import map_axes

    assert map_axes(dims, records(**columns), ImportOptions()) == expected
    # the user's choice of axes is kept as it is
    assert map_axes(dims, records(**columns), ImportOptions(x=dims[-1])) == dims
