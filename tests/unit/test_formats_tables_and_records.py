"""Leaderboard CSVs, folders of JSON score records, and the nearest format of a file none reads.

Real files come from ../shared/external (alpaca-eval, needle-haystack, lm-eval-samples; the tests
that need them skip when it is absent, and nothing of them is copied into the project). Results
are compared whole, or all cells of a slice, against values typed from the files.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalmaps import readers
from evalmaps.catalog.folders import load_folder
from evalmaps.catalog.imports import figure_of, import_bytes, import_paths
from evalmaps.catalog.shaping import FORMATS
from evalmaps.readers.base import ImportFailed, ImportOptions

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = ROOT.parent / "shared" / "external"
ALPACA = EXTERNAL / "alpaca-eval" / "data_AlpacaEval" / "alpaca_eval_gpt4_leaderboard.csv"
NEEDLE = EXTERNAL / "needle-haystack" / "original_results" / "OpenAI_Original_Results"
SAMPLES = EXTERNAL / "lm-eval-samples" / "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
# the sentence that lists the formats read (pinned in tests/unit/test_readers.py)
FORMATS_READ = readers.described()


def shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent: tests of real tool output skipped")
    return path


def refused(data: bytes, name: str, options: ImportOptions | None = None) -> str:
    with pytest.raises(ImportFailed) as info:
        import_bytes(data, name, options)[0]
    message = str(info.value)
    assert message.startswith(name) and "\n" not in message and "Traceback" not in message
    return message


def zipped(folder: Path, inside: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path in sorted(folder.iterdir()):
            z.write(path, f"{inside}/{path.name}")
    return buf.getvalue()


# --------------------------------------------------------------------------- sniffing

def test_every_real_file_is_claimed_by_the_reader_it_should_be():
    """json-records claims the needle grids and nothing else of ../shared/external; the
    leaderboard, a table shape, is read by the CSV reader."""
    files = sorted(p for p in shared(EXTERNAL).rglob("*")
                   if p.is_file() and p.name not in ("README.md", "LICENSE"))
    claimed = {p.relative_to(EXTERNAL).as_posix() for p in files
               if readers.detect(p.read_bytes()) == "json-records"}
    assert claimed == {
        "needle-haystack/original_results/OpenAI_Original_Results/OpenAI_OriginalResults.json",
        "needle-haystack/original_results/OpenAI_Original_Results/OpenAI_OriginalResults_2.json"}
    assert readers.detect(ALPACA.read_bytes()) == "csv"
    assert readers.detect(SAMPLES.read_bytes()) == "lm-eval-samples"  # per-item records


def test_records_reader_sits_before_json_lines():
    names = readers.names()
    assert names.index("json-records") == names.index("jsonl") - 1
    assert readers.described() == FORMATS_READ


@pytest.mark.parametrize("data, name", [
    (b'[{"token_limit": 1000, "depth_percent": 0, "score": 10}]', "json-records"),
    (b'{"model": "m", "context_length": 1000, "depth_percent": 50.0, "score": 3}',
     "json-records"),
    (b'[{"model": "m", "task": "t", "accuracy": 0.5}]', "json-records"),
    # a tidy table: a value column, as a JSON list or as JSON Lines
    (b'[{"model": "m", "type": "a", "score": 1, "value": 50.5}]', "jsonl"),
    (b'{"model": "m", "type": "a", "score": 1}\n{"model": "m", "type": "b", "score": 2}\n',
     "jsonl"),
    # simple-evals' flat results: scores and their std, no coordinate
    (b'{"score": 0.5, "score:std": 0.1, "other": 0.0}', "simple-evals"),
    # no score; a nested value; an empty list
    (b'[{"model": "m", "pred": "A", "answer": "B"}]', "jsonl"),
    (b'[{"model": "m", "score": 1, "meta": {"a": 1}}]', "jsonl"),
    (b'[]', "jsonl"),
    (b'[{"score": 1, "max_score": 10}]', "jsonl"),  # a range is not a coordinate
])
def test_json_records_sniff(data, name):
    assert readers.detect(data) == name


# --------------------------------------------------------------------------- leaderboards

SCORES = ("win_rate", "n_wins", "n_wins_base", "n_draws", "n_total", "avg_length",
          "discrete_win_rate", "length_controlled_winrate")
# rows of alpaca_eval_gpt4_leaderboard.csv as typed from it: mode, then the scores, then the
# standard error of win_rate ("" where the file leaves a score empty)
ALPACA_ROWS = {
    "gpt4_1106_preview": ("minimal", ("97.69900497512438", "783", "16", "5", "804", "2049",
                                      "97.69900497512438", "89.85849210429464"),
                          "0.5104849118311993"),
    "xwinlm-70b-v0.1": ("community", ("95.56803995", "765", "35", "1", "801", "1775", "", ""),
                        "0.724941926"),
    "gpt4_0314": ("verified", ("94.78260869565216", "756", "35", "14", "805", "1371",
                               "94.78260869565216", "85.334647371383"), "0.7489957601246771"),
    "text_davinci_001": ("minimal", ("15.17412935323383", "112", "672", "20", "804", "296",
                                     "15.17412935323383", "20.57118821914347"),
                         "1.235107892276849"),
}


def alpaca_expected(models) -> dict:
    """The tidy cells of these models, in the import's order (score by score, rows as in the
    file): win_rate carries its standard error, no other score has one."""
    out = {"metric": [], "model": [], "mode": [], "value": [], "se": []}
    for i, score in enumerate(SCORES):
        for model in models:
            mode, values, se = ALPACA_ROWS[model]
            if values[i] == "":
                continue
            for key, cell in zip(out, (score, model, mode, values[i], se if i == 0 else "")):
                out[key].append(cell)
    return out


@pytest.fixture(scope="module")
def alpaca():
    return import_bytes(shared(ALPACA).read_bytes(), ALPACA.name)[0]


def test_alpaca_eval_reads_as_model_by_mode_one_panel_per_score(alpaca):
    assert alpaca.format == "leaderboard"
    assert (alpaca.spec["y"], alpaca.spec["x"], alpaca.facets) == ("model", "mode", ["metric"])
    assert alpaca.dims["metric"] == list(SCORES)  # win_rate first, as in the file
    assert alpaca.dims["mode"] == ["minimal", "community", "verified"]
    assert alpaca.dims["model"][:3] == ["gpt4_1106_preview", "xwinlm-70b-v0.3", "mistral-medium"]
    assert len(alpaca.dims["model"]) == 102 and alpaca.dims["model"][-1] == "text_davinci_001"
    assert alpaca.warnings == []
    tidy = alpaca.tidy
    rows = tidy[tidy["model"].isin(list(ALPACA_ROWS))].to_dict("list")
    assert rows == alpaca_expected(list(ALPACA_ROWS))


def test_alpaca_eval_keeps_every_number_of_the_file(alpaca):
    """Every score cell of the file, read with the csv module, is one cell of the import with
    its text unchanged; the empty ones are missing; standard_error is win_rate's se only."""
    with open(ALPACA, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    want = {"metric": [], "model": [], "mode": [], "value": [], "se": []}
    for score in SCORES:
        for row in rows:
            if row[score] == "":
                continue
            se = row["standard_error"] if score == "win_rate" else ""
            for key, cell in zip(want, (score, row[""], row["mode"], row[score], se)):
                want[key].append(cell)
    assert alpaca.tidy.to_dict("list") == want
    assert alpaca.n_cells == 102 * 8 - 42 - 44  # discrete and LC win rates left empty


def test_each_score_has_its_own_scale(alpaca):
    """Win rates are percent (0-100), counts and lengths have no range: no colour scale holds
    both; each panel's metric is its score's."""
    labels = alpaca.spec["metrics"]["labels"]
    percent = {"unit": "%", "range": [0, 100]}
    assert labels == {
        "win_rate": {"name": "win_rate", **percent},
        "n_wins": {"name": "n_wins"}, "n_wins_base": {"name": "n_wins_base"},
        "n_draws": {"name": "n_draws"}, "n_total": {"name": "n_total"},
        "avg_length": {"name": "avg_length"},
        "discrete_win_rate": {"name": "discrete_win_rate", **percent},
        "length_controlled_winrate": {"name": "length_controlled_winrate", **percent}}
    assert alpaca.spec["metric"] == {"name": "score", "unit": "", "range": None}
    assert "zrange" not in alpaca.spec
    figure = figure_of(alpaca)
    assert figure.spec.metric_for({"metric": "n_total"}).range is None
    assert figure.spec.metric_for({"metric": "win_rate"}).range == (0, 100)
    assert figure.value(metric="win_rate", model="gpt4_0314", mode="verified") == \
        94.78260869565216
    assert figure.value(metric="n_total", model="gpt4_0314", mode="verified") == 805
    assert figure.value(metric="n_total", model="gpt4_0314", mode="minimal") is None
    assert alpaca.spec["notes"] == [
        "Imported from alpaca_eval_gpt4_leaderboard.csv (leaderboard format): one panel per "
        "score, each on its own colour scale.",
        "Standard errors (se): standard_error of win_rate."]


def test_the_leaderboard_csv_loads_from_a_data_folder_and_a_zip(tmp_path, alpaca):
    shutil.copy(shared(ALPACA), tmp_path / ALPACA.name)
    (figure,) = load_folder(tmp_path)
    assert figure.id == "import-alpaca-eval-gpt4-leaderboard"
    assert figure.n_cells == alpaca.n_cells
    assert figure.value(metric="avg_length", model="text_davinci_001", mode="minimal") == 296
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.write(ALPACA, f"data_AlpacaEval/{ALPACA.name}")
    from_zip = import_bytes(buf.getvalue(), "alpaca.zip")[0]
    assert from_zip.tidy.to_dict("list") == alpaca.tidy.to_dict("list")
    assert import_paths([tmp_path])[0].tidy.to_dict("list") == alpaca.tidy.to_dict("list")


LEADERBOARD = (
    "name,link,org,win_rate,lc_standard_error,length_controlled_winrate,standard_error,"
    "acc,acc_stderr,f1,f1_se,n_total,bleu_stderr\n"
    "m1,https://a/m1,A,50.5,1.5,40,0.5,0.25,0.01,0.5,0.02,100,0.1\n"
    "m2,https://a/m2,A,N/A,,45.25,,0.75,,0.25,0.03,100,0.2\n"
    "m3,https://b/m3,B,10,2,,1,1,0,0,0,90,0.3\n"
    "m4,https://b/m4,B,20,,,2,0.5,0.05,1,,80,0.4\n").encode()


def test_a_leaderboard_pairs_each_standard_error_with_its_score():
    """standard_error: the first score's; lc_standard_error: the length-controlled win rate's;
    <score>_stderr and <score>_se: that score's; one of no score is left out, as are text
    columns that do not group models (links); 'N/A' is a missing score."""
    imp = import_bytes(LEADERBOARD, "board.csv")[0]
    assert imp.format == "leaderboard"
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == ("model", "org", ["metric"])
    assert imp.tidy.to_dict("list") == {
        "metric": ["win_rate"] * 3 + ["length_controlled_winrate"] * 2 + ["acc"] * 4
        + ["f1"] * 4 + ["n_total"] * 4,
        "model": ["m1", "m3", "m4", "m1", "m2"] + ["m1", "m2", "m3", "m4"] * 3,
        "org": ["A", "B", "B", "A", "A"] + ["A", "A", "B", "B"] * 3,
        "value": ["50.5", "10", "20", "40", "45.25", "0.25", "0.75", "1", "0.5", "0.5", "0.25",
                  "0", "1", "100", "100", "90", "80"],
        "se": ["0.5", "1", "2", "1.5", "", "0.01", "", "0", "0.05", "0.02", "0.03", "0", "",
               "", "", "", ""]}
    assert imp.warnings == [
        "'bleu_stderr' is a standard error of no score column (no column 'bleu'); it is left "
        "out.",
        "The text column 'link' does not group models (each model its own text, the same text "
        "in every row, or empty cells) and is left out."]
    labels = imp.spec["metrics"]["labels"]
    assert labels["acc"] == {"name": "acc", "range": [0, 1]}  # a fraction stays a fraction
    assert labels["f1"] == {"name": "f1"}  # not named a rate: no range invented
    assert labels["win_rate"] == {"name": "win_rate", "unit": "%", "range": [0, 100]}
    assert "Standard errors (se): standard_error of win_rate, lc_standard_error of " \
           "length_controlled_winrate, acc_stderr of acc, f1_se of f1." in imp.spec["notes"]
    figure = figure_of(imp)
    assert figure.value(metric="f1", model="m4", org="B") == 1.0


def test_a_second_standard_error_of_one_score_is_left_out():
    imp = import_bytes(b"model,acc,acc_se,acc_stderr\na,0.5,0.1,0.2\nb,0.25,0.3,0.4\n", "b.csv")[0]
    assert imp.tidy["se"].tolist() == ["0.1", "0.3"]
    assert imp.warnings == ["'acc_stderr' is a second standard error of acc (after 'acc_se'); "
                            "it is left out."]


def test_without_a_grouping_column_the_leaderboard_is_one_column():
    imp = import_bytes(b"model,url,acc,acc_stderr\na,http://a,0.5,0.1\nb,http://b,0.7,0.2\n",
                       "runs/board.csv")[0]
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == ("model", "leaderboard", ["metric"])
    assert imp.tidy.to_dict("list") == {"metric": ["acc", "acc"], "model": ["a", "b"],
                                        "leaderboard": ["board", "board"],
                                        "value": ["0.5", "0.7"], "se": ["0.1", "0.2"]}
    # one score: the figure's metric is it
    assert imp.spec["metric"] == {"unit": "", "range": [0, 1], "name": "acc"}
    assert "metrics" not in imp.spec


def test_a_matrix_stays_a_matrix_unless_a_standard_error_sits_beside_a_score():
    assert import_bytes(b"model,acc,f1\na,0.5,0.25\nb,0.75,0.5\n", "m.csv")[0].format == "matrix"
    imp = import_bytes(b"model,acc,acc_stderr\na,0.5,0.1\nb,0.75,0.2\n", "m.csv")[0]
    assert imp.format == "leaderboard"
    # a replicate column (seed) is a matrix's, averaged as before
    assert import_bytes(b"model,seed,acc\na,1,50\na,2,52\n", "r.csv")[0].format == "matrix"


def test_the_leaderboard_is_a_format_the_user_can_choose():
    assert FORMATS[-1] == "leaderboard"
    chosen = import_bytes(b"model,acc,f1\na,0.5,0.25\nb,0.75,0.5\n", "m.csv",
                          ImportOptions(format="leaderboard"))[0]
    assert (chosen.format, chosen.facets, chosen.spec["x"]) == ("leaderboard", ["metric"],
                                                                "leaderboard")
    assert chosen.tidy.to_dict("list") == {"metric": ["acc", "acc", "f1", "f1"],
                                           "model": ["a", "b", "a", "b"],
                                           "leaderboard": ["m"] * 4,
                                           "value": ["0.5", "0.75", "0.25", "0.5"]}
    # the Data page's metric range (0-100) does not apply: each score has its own
    counts = import_bytes(b"model,n_total,mode\na,805,x\nb,804,x\nc,800,y\nd,1,y\n", "c.csv",
                          ImportOptions(format="leaderboard", metric_range=(0.0, 100.0)))[0]
    assert counts.tidy["value"].tolist() == ["805", "804", "800", "1"]


def test_metric_as_an_axis_says_the_scores_share_one_colour_scale(alpaca):
    imp = import_bytes(ALPACA.read_bytes(), ALPACA.name, ImportOptions(x="metric", y="model"))[0]
    assert (imp.spec["x"], imp.facets) == ("metric", ["mode"])
    assert "metrics" not in imp.spec
    assert imp.warnings == [
        "The scores (win_rate, n_wins, n_wins_base, n_draws, n_total, avg_length ...) share one "
        "colour scale, as metric is an axis: keep metric a facet to colour each score on its own "
        "scale."]


@pytest.mark.parametrize("data, message", [
    (b"model,acc,mode\na,0.5,x\na,0.6,y\n",
     "no column names each row once (the models). A leaderboard has one row per model and a "
     "column per score; choose another format."),
    (b"model,mode\na,x\nb,y\n",
     "no column holds scores (numbers) beside the model names. A leaderboard has one row per "
     "model and a column per score; choose another format."),
    (b"model,acc,acc_stderr\na,0.5,-0.1\nb,0.6,0.1\n",
     "the standard error of acc for a is -0.1, below 0. A standard error is 0 or more: fix it, "
     "or leave the cell empty."),
])
def test_a_table_that_is_no_leaderboard_is_a_clear_error(data, message):
    assert refused(data, "b.csv", ImportOptions(format="leaderboard")) == f"b.csv: {message}"


# --------------------------------------------------------------------------- JSON records

NEEDLE_FILES = ("OpenAI_OriginalResults.json", "OpenAI_OriginalResults_2.json")
# the cells at 128,000 tokens, as typed from the two files (depth: score, in the files' order)
AT_128K = {"OpenAI_OriginalResults": [("7", "3"), ("0", "10"), ("14", "1"), ("21", "3"),
                                      ("29", "10"), ("36", "10"), ("43", "3"), ("50", "10"),
                                      ("57", "10"), ("64", "10"), ("71", "10"), ("79", "3"),
                                      ("86", "3"), ("93", "10"), ("100", "10")],
           "OpenAI_OriginalResults_2": [("0", "10"), ("7", "3"), ("14", "10"), ("21", "1"),
                                        ("29", "10"), ("36", "10"), ("43", "10"), ("50", "10"),
                                        ("57", "10"), ("64", "10"), ("71", "10"), ("79", "10"),
                                        ("86", "10"), ("93", "10"), ("100", "10")]}
DEPTHS = ["0", "7", "14", "21", "29", "36", "43", "50", "57", "64", "71", "79", "86", "93", "100"]
TOKENS = ["1000", "10071", "19143", "28214", "37286", "46357", "55429", "64500", "73571",
          "82643", "91714", "100786", "109857", "118929", "128000"]
NEEDLE_WARNINGS = [
    "The records name no model: the model is the name of their folder "
    "(OpenAI_Original_Results). Give each record a \"model\" to name it.",
    "105 cells are given by more than one file, 25 with different scores (a re-run): each file "
    "is a run (the facet 'run', named by its file); nothing is averaged."]


def needle_expected(model: str = "OpenAI_Original_Results") -> dict:
    """Every record of the two files (read with the json module) as a tidy row."""
    out = {"run": [], "model": [], "depth_percent": [], "token_limit": [], "value": []}
    for name in NEEDLE_FILES:
        for rec in json.loads((NEEDLE / name).read_text()):
            for key, cell in zip(out, (name[:-5], model, str(rec["depth_percent"]),
                                       str(rec["token_limit"]), str(rec["score"]))):
                out[key].append(cell)
    return out


@pytest.fixture(scope="module")
def needle():
    return import_paths([shared(NEEDLE)])[0]


def test_the_needle_grid_is_one_figure_each_file_a_run(needle):
    assert needle.format == "json-records"
    assert (needle.facets, needle.spec["y"], needle.spec["x"]) == \
        (["run", "model"], "depth_percent", "token_limit")
    assert needle.dims == {"run": ["OpenAI_OriginalResults", "OpenAI_OriginalResults_2"],
                           "model": ["OpenAI_Original_Results"], "depth_percent": DEPTHS,
                           "token_limit": TOKENS}  # numeric order: depth 0 on top
    assert needle.warnings == NEEDLE_WARNINGS
    assert needle.tidy.to_dict("list") == needle_expected()
    tidy = needle.tidy[needle.tidy["token_limit"] == "128000"]
    assert tidy.to_dict("list") == {
        "run": [run for run, cells in AT_128K.items() for _ in cells],
        "model": ["OpenAI_Original_Results"] * 30, "depth_percent": [
            d for cells in AT_128K.values() for d, _ in cells],
        "token_limit": ["128000"] * 30,
        "value": [v for cells in AT_128K.values() for _, v in cells]}


def test_the_needle_scores_keep_their_scale_and_no_range_is_invented(needle):
    assert needle.spec["metric"] == {"unit": "", "name": "score", "range": None}
    assert needle.spec["title"] == "OpenAI_Original_Results (2 JSON records files)"
    figure = figure_of(needle)
    cell = {"model": "OpenAI_Original_Results", "depth_percent": "14", "token_limit": "128000"}
    assert figure.value(run="OpenAI_OriginalResults", **cell) == 1.0
    assert figure.value(run="OpenAI_OriginalResults_2", **cell) == 10.0
    # the re-run covers 73,571 tokens and up only: below, its cells are missing
    assert figure.value(run="OpenAI_OriginalResults_2", **{**cell, "token_limit": "1000"}) \
        is None
    assert figure.n_cells == 225 + 105


def test_the_needle_folder_loads_from_a_data_folder_and_a_zip(tmp_path, needle):
    copy = tmp_path / "OpenAI_Original_Results"
    shutil.copytree(shared(NEEDLE), copy)
    (figure,) = load_folder(copy)
    assert figure.n_cells == 330 and figure.spec.facets == ("run", "model")
    assert figure.value(run="OpenAI_OriginalResults", model="OpenAI_Original_Results",
                        depth_percent="86", token_limit="128000") == 3.0
    from_zip = import_bytes(zipped(NEEDLE, "OpenAI_Original_Results"), "needle.zip")[0]
    assert from_zip.tidy.to_dict("list") == needle_expected()
    assert from_zip.warnings == NEEDLE_WARNINGS
    # a zip of the files alone: the model is the zip's name
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in NEEDLE_FILES:
            z.write(NEEDLE / name, name)
    assert import_bytes(buf.getvalue(), "gpt4.zip")[0].tidy.to_dict("list") == \
        needle_expected("gpt4")


def test_one_needle_file_alone_is_named_after_itself():
    imp = import_bytes(shared(NEEDLE / NEEDLE_FILES[1]).read_bytes(), NEEDLE_FILES[1])[0]
    assert (imp.facets, imp.spec["title"]) == (["model"], NEEDLE_FILES[1])
    assert imp.warnings == ["The records name no model: the model is the name of their file "
                            "(OpenAI_OriginalResults_2). Give each record a \"model\" to name it."]
    expected = needle_expected()
    keep = [i for i, run in enumerate(expected["run"]) if run == "OpenAI_OriginalResults_2"]
    assert imp.tidy.to_dict("list") == {
        "model": ["OpenAI_OriginalResults_2"] * 105,
        **{k: [expected[k][i] for i in keep] for k in ("depth_percent", "token_limit", "value")}}


def needle_cell(model, length, depth, score, response="The answer is to eat a sandwich.",
                seconds=1.25) -> bytes:
    """One cell as LLMTest_NeedleInAHaystack writes it, one file per cell."""
    return json.dumps({
        "model": model, "context_length": length, "depth_percent": float(depth), "version": 1,
        "needle": "\nThe best thing to do in San Francisco is eat a sandwich and sit in Dolores "
                  "Park on a sunny day.\n", "model_response": response, "score": score,
        "test_duration_seconds": seconds, "test_timestamp_utc": f"2024-03-0{depth // 50 + 1} "
                                                                f"12:00:{length // 1000:02d}+0000"},
        indent=4).encode()


def test_a_folder_of_one_record_per_file_is_one_grid(tmp_path):
    """The newer needle tool: one object per file, with a model, free text, a duration and a
    time that place nothing; depth_percent written as a float."""
    folder = tmp_path / "results"
    folder.mkdir()
    scores = {(1000, 0): 10, (1000, 50): 7, (1000, 100): 10, (2000, 0): 1, (2000, 50): 3,
              (2000, 100): 10}
    for i, ((length, depth), score) in enumerate(scores.items()):
        (folder / f"gpt-4_len_{length}_depth_{depth}_results.json").write_bytes(
            needle_cell("gpt-4-1106-preview", length, depth, score, response=f"answer {i}",
                        seconds=1.5 + i / 7))
    imp = import_paths([folder])[0]
    assert (imp.facets, imp.spec["y"], imp.spec["x"]) == (["model"], "depth_percent",
                                                          "context_length")
    assert imp.dims["depth_percent"] == ["0.0", "50.0", "100.0"]  # numeric order
    assert imp.tidy.to_dict("list") == {  # the files in their names' order
        "model": ["gpt-4-1106-preview"] * 6,
        "depth_percent": ["0.0", "100.0", "50.0", "0.0", "100.0", "50.0"],
        "context_length": ["1000", "1000", "1000", "2000", "2000", "2000"],
        "value": ["10", "10", "7", "1", "10", "3"]}
    assert imp.warnings == [
        "Left out, as they do not place a score (each record its own text, time or measure): "
        "model_response, test_duration_seconds, test_timestamp_utc."]
    # a re-run of one cell with another score: each file is a run
    (folder / "rerun_len_2000_depth_50_results.json").write_bytes(
        needle_cell("gpt-4-1106-preview", 2000, 50, 10))
    rerun = import_paths([folder])[0]
    assert rerun.facets == ["run", "model"]
    assert rerun.warnings[-1] == ("1 cell is given by more than one file, 1 with different "
                                  "scores (a re-run): each file is a run (the facet 'run', "
                                  "named by its file); nothing is averaged.")
    figure = figure_of(rerun)
    assert figure.value(run="rerun_len_2000_depth_50_results", model="gpt-4-1106-preview",
                        depth_percent="50.0", context_length="2000") == 10.0
    assert figure.value(run="gpt-4_len_2000_depth_50_results", model="gpt-4-1106-preview",
                        depth_percent="50.0", context_length="2000") == 3.0


def test_folders_of_two_models_are_panels(tmp_path):
    for model, score in (("OpenAI_Original_Results", 10), ("Anthropic_Original_Results", 5)):
        (tmp_path / model).mkdir()
        (tmp_path / model / "results.json").write_text(json.dumps(
            [{"context_length": c, "depth_percent": d, "score": score - d // 50}
             for c in (1000, 2000) for d in (0, 50)]))
    imp = import_paths([tmp_path])[0]
    assert imp.dims["model"] == ["Anthropic_Original_Results", "OpenAI_Original_Results"]
    assert imp.tidy.to_dict("list") == {
        "model": ["Anthropic_Original_Results"] * 4 + ["OpenAI_Original_Results"] * 4,
        "depth_percent": ["0", "50"] * 4, "context_length": ["1000", "1000", "2000", "2000"] * 2,
        "value": ["5", "4", "5", "4", "10", "9", "10", "9"]}


def test_records_name_their_metric_range_and_standard_error():
    doc = [{"model": "m", "task": "arc", "accuracy": 0.5, "accuracy_stderr": 0.01,
            "f1": 0.25, "min_score": 0, "max_score": 1},
           {"model": "m", "task": "gsm8k", "accuracy": 0.75, "f1": None,
            "min_score": 0, "max_score": 1}]
    imp = import_bytes(json.dumps(doc).encode(), "lab.json")[0]
    assert (imp.facets, imp.spec["y"], imp.spec["x"]) == (["metric"], "model", "task")
    assert imp.tidy.to_dict("list") == {"metric": ["accuracy", "f1", "accuracy"],
                                        "model": ["m", "m", "m"],
                                        "task": ["arc", "arc", "gsm8k"],
                                        "value": ["0.5", "0.25", "0.75"],
                                        "se": ["0.01", "", ""]}
    assert imp.spec["metrics"]["labels"] == {"accuracy": {"name": "accuracy", "range": [0, 1]},
                                             "f1": {"name": "f1", "range": [0, 1]}}
    # one score, named by its key; a 1-10 range the file gives
    one = [{"model": "m", "context_length": c, "depth_percent": 0, "score": 7,
            "min_score": 1, "max_score": 10} for c in (1000, 2000)]
    imp = import_bytes(json.dumps(one).encode(), "one.json")[0]
    assert imp.spec["metric"] == {"unit": "", "name": "score", "range": [1, 10]}
    scored = [{"model": "m", "task": t, "win_rate": 0.5} for t in ("a", "b")]
    assert import_bytes(json.dumps(scored).encode(), "w.json")[0].spec["metric"]["name"] == \
        "win_rate"


@pytest.mark.parametrize("doc, message", [
    ([{"model": "m", "task": f"t{i}", "score": 1} for i in range(200)]
     + [{"model": "m", "task": "a", "score": "ten"}],  # past the records sniff looks at
     "x.json: record 201 gives 'score' as 'ten', not a number. Write the score as a number "
     "(null when there is none)."),
    ([{"model": "m", "task": "a", "score": 1}, {"model": "m", "task": "a", "score": 2},
      {"model": "m", "task": "b", "score": 2}],
     "x.json: x.json gives the cell (model m, task a) twice, with different scores (1 and 2). "
     "Keep one record per cell, or give the records a key that tells them apart."),
    ([{"model": "m", "task": "a", "n": 1, "score": 1}, {"model": "m", "task": "b", "score": 2}],
     "x.json: some records give 'n_' and one in x.json does not. Give every record its n_, or "
     "remove the key."),
])
def test_bad_records_are_a_clear_error(doc, message):
    assert refused(json.dumps(doc).encode(), "x.json") == message


def test_a_record_without_a_score_is_a_missing_cell():
    doc = [{"model": "m", "task": "a", "score": 1}, {"model": "m", "task": "b", "score": None},
           {"model": "m", "task": "c", "score": 0.5}]
    imp = import_bytes(json.dumps(doc).encode(), "x.json")[0]
    assert imp.tidy.to_dict("list") == {"model": ["m", "m"], "task": ["a", "c"],
                                        "value": ["1", "0.5"]}
    assert imp.warnings == ["x.json: 1 record gives no score (null); its cell is missing."]


# --------------------------------------------------------------------------- nearest format

def nearest_message(what: str, instead: str) -> str:
    return (f"this looks like {what}, not results: import {instead}; the formats read are "
            f"{FORMATS_READ}.")


LM_EVAL_SAMPLES = nearest_message("lm-evaluation-harness per-sample records (samples_*.jsonl)",
                                  "the results_*.json beside it")


def test_lm_eval_samples_alone_are_per_item_records_named_by_their_folder():
    """Without the results file of their timestamp, the records' model is their folder's name;
    a line of them as JSON Lines or as one JSON object reads the same."""
    imp = import_paths([shared(SAMPLES)])[0]
    assert imp.format == "lm-eval"
    assert imp.warnings == [f"{SAMPLES.name} has no results file of its timestamp among the "
                            f"files to name its model: it is named after its folder, "
                            f"'lm-eval-samples'."]
    assert imp.to_csv() == ("model,metric,task,value,n\n"
                            "lm-eval-samples,exact_match,math_perturbed_full,0.0,10\n")
    line = b'{"doc_id": 0, "doc": {"q": "1+1"}, "target": "2", "filter": "none", ' \
           b'"metrics": ["exact_match"], "doc_hash": "ab", "exact_match": 1.0}'
    for data, name in ((line + b"\n" + line.replace(b'"doc_id": 0', b'"doc_id": 1') + b"\n",
                        "samples_t_2026-01-01T00-00-00.jsonl"), (line, "s.json")):
        imp = import_bytes(data, f"run/{name}")[0]
        assert imp.tidy["value"].tolist() == ["1.0"]
        assert imp.items[["item", "score", "target"]].values.tolist() == \
            [[str(i), 1.0, "2"] for i in range(len(imp.items))]


def test_a_zip_of_samples_only_reads_them():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.write(shared(SAMPLES), f"run/{SAMPLES.name}")
    imp = import_bytes(buf.getvalue(), "run.zip")[0]
    assert imp.items["model"].unique().tolist() == ["run"]
    assert len(imp.items) == 10


def test_a_lighteval_details_parquet_of_an_older_lighteval_is_read():
    """Its columns as lighteval <= 0.8 writes them (details_<task>_<time>.parquet): per-item
    records, the metric map ``metrics``, the prompt, gold and prediction as texts."""
    table = pa.table({
        "example": ["What is 1+1?"], "instruction": [""], "full_prompt": ["Q: What is 1+1?"],
        "num_effective_few_shots": [0], "num_asked_few_shots": [0], "predictions": [["2"]],
        "prediction_logits": [None], "input_tokens": [[1, 2]], "cont_tokens": [[3]],
        "truncated": [[0]], "padded": [[0]], "gold": [["2"]], "pred_logits": [None],
        "choices": [["2", "3"]], "gold_index": [[0]], "metrics": [{"em": 1.0}],
        "specifics": [{"kind": "mc"}]})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    imp = import_bytes(buf.getvalue(), "details_arc_2024.parquet")[0]
    assert imp.format == "lighteval"
    assert imp.items.to_dict("records") == [
        {"model": "details_arc_2024", "metric": "em", "task": "arc_2024", "item": "0",
         "sample": 0, "score": 1.0, "prompt": "Q: What is 1+1?", "target": "2", "response": "2"}]


def test_an_inspect_sample_is_named():
    sample = {"id": 1, "epoch": 1, "input": "Which is heavier?", "target": "A",
              "messages": [{"role": "user", "content": "Which is heavier?"}],
              "output": {"model": "openai/gpt-4o"}, "scores": {"choice": {"value": "C"}}}
    message = nearest_message("one sample of an Inspect log (samples/<id>_epoch_<n>.json, from "
                              "inside a .eval log)", "the .eval log itself")
    assert refused(json.dumps(sample).encode(), "1_epoch_1.json") == f"1_epoch_1.json: {message}"


def test_a_file_near_nothing_keeps_the_plain_message_and_tables_their_own():
    assert refused(b'{"name": "x", "deps": {"a": 1}}', "package.json") == (
        f"package.json: this file is none of the formats evalmaps reads: {FORMATS_READ}. Export "
        f"one of those and try again.")
    # a table's own problem is not replaced
    assert refused(b"model,type\nm,a\n", "t.csv").startswith(
        "t.csv: the format is not recognised")


def test_a_data_folder_serves_the_leaderboard_one_folder_down(tmp_path):
    """alpaca-eval keeps its CSV in data_AlpacaEval/: the folder serves it as it imports. (Its
    results/ hold AlpacaEval judgements, which an import of the whole folder reads instead: the
    leaderboard is then skipped with a note; left out here.)"""
    from evalmaps.catalog.folders import load_folder

    copy = tmp_path / "alpaca-eval"
    shutil.copytree(shared(ALPACA).parents[1], copy, ignore=shutil.ignore_patterns("results"))
    (served,) = load_folder(copy)
    assert served.cells.equals(figure_of(import_bytes(ALPACA.read_bytes(), ALPACA.name)[0]).cells)
