"""Leaderboard CSVs.

Real files come from ../shared/external (alpaca-eval; the tests
that need them skip when it is absent, and nothing of them is copied into the project). Results
are compared whole, or all cells of a slice, against values typed from the files.
"""

from __future__ import annotations

import csv
import io
import shutil
import zipfile
from pathlib import Path

import pytest

from evalmaps.catalog.folders import load_folder
from evalmaps.catalog.imports import figure_of, import_bytes, import_paths
from evalmaps.readers.base import ImportFailed, ImportOptions
from evalmaps.readers.table import FORMATS

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = ROOT.parent / "shared" / "external"
ALPACA = EXTERNAL / "alpaca-eval" / "data_AlpacaEval" / "alpaca_eval_gpt4_leaderboard.csv"


def shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent: tests of real tool output skipped")
    return path


def refused(data: bytes, name: str, options: ImportOptions | None = None) -> str:
    with pytest.raises(ImportFailed) as info:
        import_bytes(data, name, options)
    message = str(info.value)
    assert message.startswith(name) and "\n" not in message and "Traceback" not in message
    return message


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
    return import_bytes(shared(ALPACA).read_bytes(), ALPACA.name)


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
    from_zip = import_bytes(buf.getvalue(), "alpaca.zip")
    assert from_zip.tidy.to_dict("list") == alpaca.tidy.to_dict("list")
    assert import_paths([tmp_path]).tidy.to_dict("list") == alpaca.tidy.to_dict("list")


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
    imp = import_bytes(LEADERBOARD, "board.csv")
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


def test_without_a_grouping_column_the_leaderboard_is_one_column():
    imp = import_bytes(b"model,url,acc,acc_stderr\na,http://a,0.5,0.1\nb,http://b,0.7,0.2\n",
                       "runs/board.csv")
    assert (imp.spec["y"], imp.spec["x"], imp.facets) == ("model", "leaderboard", ["metric"])
    assert imp.tidy.to_dict("list") == {"metric": ["acc", "acc"], "model": ["a", "b"],
                                        "leaderboard": ["board", "board"],
                                        "value": ["0.5", "0.7"], "se": ["0.1", "0.2"]}
    # one score: the figure's metric is it
    assert imp.spec["metric"] == {"unit": "", "range": [0, 1], "name": "acc"}
    assert "metrics" not in imp.spec


def test_a_matrix_stays_a_matrix_unless_a_standard_error_sits_beside_a_score():
    assert import_bytes(b"model,acc,f1\na,0.5,0.25\nb,0.75,0.5\n", "m.csv").format == "matrix"
    imp = import_bytes(b"model,acc,acc_stderr\na,0.5,0.1\nb,0.75,0.2\n", "m.csv")
    assert imp.format == "leaderboard"
    # a replicate column (seed) is a matrix's, averaged as before
    assert import_bytes(b"model,seed,acc\na,1,50\na,2,52\n", "r.csv").format == "matrix"


def test_the_leaderboard_is_a_format_the_user_can_choose():
    assert FORMATS[-1] == "leaderboard"
    chosen = import_bytes(b"model,acc,f1\na,0.5,0.25\nb,0.75,0.5\n", "m.csv",
                          ImportOptions(format="leaderboard"))
    assert (chosen.format, chosen.facets, chosen.spec["x"]) == ("leaderboard", ["metric"],
                                                                "leaderboard")
    assert chosen.tidy.to_dict("list") == {"metric": ["acc", "acc", "f1", "f1"],
                                           "model": ["a", "b", "a", "b"],
                                           "leaderboard": ["m"] * 4,
                                           "value": ["0.5", "0.75", "0.25", "0.5"]}
    # the Data page's metric range (0-100) does not apply: each score has its own
    counts = import_bytes(b"model,n_total,mode\na,805,x\nb,804,x\nc,800,y\nd,1,y\n", "c.csv",
                          ImportOptions(format="leaderboard", metric_range=(0.0, 100.0)))
    assert counts.tidy["value"].tolist() == ["805", "804", "800", "1"]


def test_metric_as_an_axis_says_the_scores_share_one_colour_scale(alpaca):
    imp = import_bytes(ALPACA.read_bytes(), ALPACA.name, ImportOptions(x="metric", y="model"))
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
