"""``evalmaps compare A B`` and ``evalmaps.compare`` (issue 40): the same numbers as
``/api/compare``, for panels of the built-in figures and for two files made one figure, checked
against an independent count of the items; every output format; the CI gate's exit codes.

The command runs as a user runs it, in a subprocess (:func:`tests.integration.test_cli.run_cli`);
``/api/compare`` is the session's app (Flask's test client) for the built-in figures, and an app
serving a ``--data`` folder of the same files in a fresh interpreter for the shared MMLU-Pro
outputs (a second Dash app in the test process would register its scripts again)."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import urlencode

import pandas as pd
import pytest
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests

import evalmaps
from tests.integration.test_cli import ROOT, assert_clean_failure, run_cli
from tests.items_fixture import item_scores

MMLU = ROOT.parent / "shared" / "external" / "mmlu-pro" / "eval_results"
LLAMA_7B = MMLU / "model_outputs_Llama-2-7b-hf_5shots.zip"
LLAMA_13B = MMLU / "model_outputs_Llama-2-13b-hf_5shots.zip"
MMLU_OPTIONS = ("--item", "question_id", "--correct", "pred=answer", "--set", "model={file}")
PAIRED = ("n", "a_mean", "b_mean", "diff", "ci_low", "ci_high", "p", "p_adjusted", "test",
          "a_only", "b_only")


# --------------------------------------------------------------------------- helpers

def cli_json(*args, cwd: Path) -> dict:
    """``evalmaps compare ... --format json`` through the real console script, as a user or a
    CI job runs it."""
    proc = run_cli("compare", *map(str, args), "--format", "json", cwd=cwd, entry_point=True)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


def api_compare(client, query: dict) -> dict:
    response = client.get("/api/compare?" + urlencode(query, doseq=True))
    assert response.status_code == 200, response.data[:300]
    return response.get_json()


def checkpoint(path: Path, chance: float, seed: int) -> Path:
    """A per-item CSV of one checkpoint: model, level, task, item, score (0/1), 40 items a
    cell, right with ``chance``."""
    scores = item_scores(models=("ckpt",), chance={"ckpt": chance}, seed=seed)
    scores.drop(columns="sample").to_csv(path, index=False)
    return path


def same(x, y) -> bool:
    """Equal, or both missing (None, NaN, pandas' NA)."""
    missing = [v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) for v in (x, y)]
    if all(missing):
        return True
    return not any(missing) and x == y


def assert_frame_is_the_api(frame: pd.DataFrame, payload: dict, dims: list[str]) -> None:
    """Every row of the Python API's frame is the cell of ``/api/compare``'s answer: the paired
    block's numbers where it has one, else the cell's values."""
    assert len(frame) == len(payload["cells"]) > 0
    assert list(frame.columns[:len(dims)]) == dims
    for row, cell in zip(frame.to_dict("records"), payload["cells"]):
        assert {d: row[d] for d in dims} == {d: cell[d] for d in dims}
        paired = cell.get("paired")
        if paired is None:
            expected = {"a_mean": cell["a"], "b_mean": cell["b"], "diff": cell["delta"],
                        "n": None, "p": None, "p_adjusted": None}
        else:
            expected = {name: paired[name] for name in PAIRED}
        for name, value in expected.items():
            assert same(row[name], value), (name, row[name], value, cell)


def independent_count(a: pd.DataFrame, b: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per cell (``keys``), from the raw 0/1 scores of A and B joined by item id: the common
    items, each side's mean, the discordant counts, the exact McNemar p (scipy's binomial test)
    and Benjamini-Hochberg's adjusted p (statsmodels)."""
    joined = a.merge(b, on=[*keys, "item"], suffixes=("_a", "_b"))
    rows = []
    for key, group in joined.groupby(keys, sort=True):
        a_only = int(((group["score_a"] == 1) & (group["score_b"] == 0)).sum())
        b_only = int(((group["score_a"] == 0) & (group["score_b"] == 1)).sum())
        m = a_only + b_only
        p = binomtest(min(a_only, b_only), m, 0.5).pvalue if m else 1.0
        rows.append({**dict(zip(keys, key if isinstance(key, tuple) else (key,))),
                     "n": len(group), "a_mean": group["score_a"].mean(),
                     "b_mean": group["score_b"].mean(), "a_only": a_only, "b_only": b_only,
                     "p": min(1.0, p)})
    out = pd.DataFrame(rows)
    out["p_adjusted"] = multipletests(out["p"], method="fdr_bh")[1]
    return out


def assert_matches_count(frame: pd.DataFrame, count: pd.DataFrame, keys: list[str]) -> None:
    merged = frame.merge(count, on=keys, suffixes=("", "_count"))
    assert len(merged) == len(frame) == len(count)
    for name in ("n", "a_only", "b_only"):
        assert (merged[name].astype(int) == merged[f"{name}_count"]).all(), name
    for name in ("a_mean", "b_mean", "p", "p_adjusted"):
        assert merged[name].to_numpy() == pytest.approx(merged[f"{name}_count"].to_numpy(),
                                                        rel=1e-9, abs=1e-12), name
    assert (merged["test"] == "mcnemar").all()


# --------------------------------------------------------------------------- built-in panels

@pytest.mark.parametrize("a, b, options, query", [
    ("dynts-llama-vs-qwen:r1-llama", "dynts-llama-vs-qwen:r1-qwen", (), {}),
    ("mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b", (), {}),
    ("pythia-zero-shot:model=1.4b", "pythia-zero-shot:model=2.8b",
     ("--fix", "metric=acc_norm", "--ydim", "task"), {"metric": "acc_norm", "ydim": "task"}),
])
def test_the_cli_json_and_the_python_api_are_api_compare(client, tmp_path, a, b, options,
                                                         query):
    expected = api_compare(client, {"a": a, "b": b, **query})
    assert cli_json(a, b, *options, cwd=tmp_path) == expected
    fix = {"metric": query["metric"]} if "metric" in query else None
    frame = evalmaps.compare(a, b, fix=fix, ydim=query.get("ydim"))
    y, x = expected["dims"]["y"]["name"], expected["dims"]["x"]["name"]
    assert_frame_is_the_api(frame, expected, [y, x])
    assert frame.attrs["sentences"] == expected["sentences"]


# --------------------------------------------------------------------------- two files

@pytest.fixture
def checkpoints(tmp_path) -> dict[str, Path]:
    """Per-item CSVs of checkpoints: ``old``, ``worse`` (right far less often), ``same`` (old's
    scores under another name) and ``better``."""
    folder = tmp_path / "runs"
    folder.mkdir()
    return {"old": checkpoint(folder / "old.csv", 0.7, 1),
            "worse": checkpoint(folder / "worse.csv", 0.3, 2),
            "same": checkpoint(folder / "same.csv", 0.7, 1),
            "better": checkpoint(folder / "better.csv", 0.95, 3)}


def test_two_files_are_paired_on_their_items_as_an_independent_count(tmp_path, checkpoints):
    a, b = checkpoints["old"], checkpoints["worse"]
    payload = cli_json(a, b, "--item", "item", cwd=tmp_path)
    assert [c["paired"]["test"] for c in payload["cells"]] == ["mcnemar"] * 6
    frame = evalmaps.compare(a, b, item="item")
    assert_frame_is_the_api(frame, payload, ["level", "task"])
    count = independent_count(pd.read_csv(a), pd.read_csv(b), ["level", "task"])
    assert_matches_count(frame, count, ["level", "task"])
    # read() figures compare as their paths do
    old, worse = evalmaps.read(a, item="item"), evalmaps.read(b, item="item")
    pd.testing.assert_frame_equal(evalmaps.compare(old, worse), frame)
    assert old.items is not None and len(old.items) == 6 * 40
    assert sorted(old.cells["value"].astype(float)) == pytest.approx(
        sorted(pd.read_csv(a).groupby(["level", "task"])["score"].mean()))


def test_every_format_gives_the_same_cells(tmp_path, checkpoints):
    a, b = checkpoints["old"], checkpoints["worse"]
    frame = evalmaps.compare(a, b, item="item")

    def run(fmt: str) -> str:
        proc = run_cli("compare", a, b, "--item", "item", "--format", fmt, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        return proc.stdout

    table = pd.read_csv(io.StringIO(run("csv")), dtype={"level": str, "task": str})
    pd.testing.assert_frame_equal(table, frame.astype({"n": "int64", "a_only": "int64",
                                                       "b_only": "int64",
                                                       "distinguishable": "bool"}),
                                  check_dtype=False)
    assert list(csv.reader(io.StringIO(run("csv"))))[0] == list(frame.columns)
    sentences = frame.attrs["sentences"]
    markdown = run("markdown")
    assert markdown.count("\n| ") == 2 + len(frame)  # the header, its rule, a line a cell
    assert all(f"| {level} | {task} |" in markdown
               for level, task in zip(frame["level"], frame["task"]))
    latex = run("latex")
    assert latex.count(r" \\") == 1 + len(frame) and r"\begin{tabular}{ll" in latex
    plain = run("table").splitlines()  # not a terminal: plain columns, then the summary
    assert plain[0] == "A: old.csv" and plain[1] == "B: worse.csv"
    assert plain[-1] == " ".join(sentences)
    body = [line for line in plain if line.endswith("▼") or line.endswith("▲")]
    assert len(body) == int(frame["distinguishable"].sum())


# --------------------------------------------------------------------------- the CI gate

@pytest.mark.parametrize("b, code", [("worse", 1), ("same", 0), ("better", 0)])
def test_the_gate_fails_only_a_worse_checkpoint(tmp_path, checkpoints, b, code):
    """Through the real console script (``evalmaps``, as a CI job runs it)."""
    proc = run_cli("compare", checkpoints["old"], checkpoints[b], "--item", "item",
                   "--fail-if-worse", cwd=tmp_path, entry_point=True)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    frame = evalmaps.compare(checkpoints["old"], checkpoints[b], item="item")
    worse = frame[(frame["diff"] < 0) & (frame["p_adjusted"] < 0.05)]
    assert (len(worse) > 0) == (code == 1)
    if code == 1:
        assert proc.stderr.strip().endswith(f"B is distinguishably worse than A in {len(worse)} "
                                            f"of {len(frame)} cells ("
                                            + ", ".join(f"{r.level} · {r.task}"
                                                        for r in worse.itertuples()) + ").")


def test_min_diff_and_alpha_move_the_gate(tmp_path, checkpoints):
    frame = evalmaps.compare(checkpoints["old"], checkpoints["worse"], item="item")
    largest = float(frame["diff"].abs().max())
    smallest_p = float(frame["p_adjusted"].min())

    def gate(*options) -> int:
        return run_cli("compare", checkpoints["old"], checkpoints["worse"], "--item", "item",
                       "--fail-if-worse", *map(str, options), cwd=tmp_path).returncode

    assert gate("--min-diff", largest + 1e-6) == 0  # every difference is smaller
    assert gate("--min-diff", largest - 1e-6) == 1
    assert gate("--alpha", smallest_p * 0.99) == 0  # no adjusted p is below it
    assert gate("--alpha", smallest_p * 1.01) == 1


def test_the_gate_without_any_test_is_an_input_error(tmp_path):
    proc = run_cli("compare", "dynts-llama-vs-qwen:r1-llama", "dynts-llama-vs-qwen:r1-qwen",
                   "--fail-if-worse", cwd=tmp_path)
    line = assert_clean_failure(proc, "--fail-if-worse")
    assert "neither side gives a standard error" in line


@pytest.mark.parametrize("args, named", [
    (["missing.csv", "{old}"], "missing.csv"),
    (["{old}", "mmlu-pro:llama-2-7b"], "FIGURE:PANEL"),
    (["mmlu-pro:llama-2-7b", "mmlu-pro:nope"], "mmlu-pro:nope"),
    (["{old}", "{old}", "--item", "item", "--alpha", "2"], "--alpha"),
    (["{old}", "{old}", "--correct", "pred"], "--correct"),
    (["{old}"], "B"),
    (["{notes}", "{old}"], "notes.txt"),
])
def test_bad_input_is_one_sentence_and_exit_2(tmp_path, checkpoints, args, named):
    (tmp_path / "notes.txt").write_text("not results\n")
    names = {"old": checkpoints["old"], "notes": tmp_path / "notes.txt"}
    proc = run_cli("compare", *[a.format(**names) for a in args], cwd=tmp_path)
    assert_clean_failure(proc, named)


# --------------------------------------------------------------------------- MMLU-Pro

APP_SCRIPT = """
import json, sys
from pathlib import Path

from app import create_app
from evalmaps.readers.base import ImportOptions
from evalmaps.service.settings import Settings

folder, query = Path(sys.argv[1]), sys.argv[2]
options = ImportOptions.parse("question_id", "pred=answer", ["model={file}"])
app = create_app(Settings(extra_data=(folder,), data_options=options, cache_dir=None,
                          store_dir=None, watch="off"))
response = app.server.test_client().get("/api/compare?" + query)
assert response.status_code == 200, response.data[:300]
print(json.dumps(response.get_json()))
"""


def raw_scores(path: Path) -> pd.DataFrame:
    """A zip of MMLU-Pro outputs read here, not by evalmaps: one row per question, score 1
    where the prediction is the answer (an empty prediction is wrong)."""
    with zipfile.ZipFile(path) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".json")]
        records = json.loads(archive.read(name))
    return pd.DataFrame({"category": [r["category"] for r in records],
                         "item": [str(r["question_id"]) for r in records],
                         "score": [float(bool(r.get("pred")) and str(r["pred"]) == str(r["answer"]))
                                   for r in records]})


@pytest.mark.external
@pytest.mark.skipif(not LLAMA_7B.is_file(), reason=f"{MMLU} is absent: tests of real outputs "
                                                   f"skipped")
def test_mmlu_pro_outputs_agree_everywhere(tmp_path):
    """The two Llama-2 zips: the CLI's JSON, the Python API and /api/compare of an app serving
    a --data folder of the same zips give the same cells, and they are an independent count."""
    payload = cli_json(LLAMA_7B, LLAMA_13B, *MMLU_OPTIONS, cwd=tmp_path)
    frame = evalmaps.compare(LLAMA_7B, LLAMA_13B, item="question_id", correct="pred=answer",
                             set={"model": "{file}"})
    assert_frame_is_the_api(frame, payload, ["category", "metric"])

    folder = tmp_path / "mmlu-pro"
    folder.mkdir()
    for source in (LLAMA_7B, LLAMA_13B):
        (folder / source.name).write_bytes(source.read_bytes())
    query = urlencode({"a": "import-mmlu-pro:model-outputs-llama-2-7b-hf-5shots",
                       "b": "import-mmlu-pro:model-outputs-llama-2-13b-hf-5shots"})
    proc = subprocess.run([sys.executable, "-c", APP_SCRIPT, str(folder), query], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    served = json.loads(proc.stdout)
    assert payload["cells"] == served["cells"]
    for key in ("paired_cells", "b_sig_better_paired", "b_sig_worse_paired", "items_n",
                "items_mean_delta", "mean_delta"):
        assert payload["summary"][key] == served["summary"][key]
    # by the keys of that served folder, the CLI's JSON is /api/compare's whole answer
    keyed = cli_json("import-mmlu-pro:model-outputs-llama-2-7b-hf-5shots",
                     "import-mmlu-pro:model-outputs-llama-2-13b-hf-5shots", "--data", folder,
                     *MMLU_OPTIONS, cwd=tmp_path)
    assert keyed == served

    count = independent_count(raw_scores(LLAMA_7B), raw_scores(LLAMA_13B), ["category"])
    assert_matches_count(frame, count, ["category"])
    assert int(frame["n"].sum()) == 12_032


def test_cluster_clusters_every_paired_cell_as_the_api_does(tmp_path, checkpoints):
    """--cluster COL (the import's option) keeps each item's cluster and asks the view for
    ``cluster=COL``: every paired cell is tested on its clustered standard error, the CLI's
    JSON, the Python API and a hand count of the clusters agreeing; evalmaps rank --cluster
    tests each pair as compare's clustered cells."""
    folder = tmp_path / "clustered"
    folder.mkdir()
    paths = []
    for name in ("old", "worse"):
        frame = pd.read_csv(checkpoints[name])
        frame["passage"] = "p" + (frame["item"].astype(str).str.extract(r"(\d+)")[0]
                                  .astype(int) // 5).astype(str)
        paths.append(folder / f"{name}.csv")
        frame.to_csv(paths[-1], index=False)
    payload = cli_json(*paths, "--item", "item", "--cluster", "passage", cwd=tmp_path)
    frame = evalmaps.compare(*paths, item="item", cluster="passage")
    assert_frame_is_the_api(frame, payload, ["level", "task"])
    old = pd.read_csv(paths[0])
    for cell in payload["cells"]:
        paired = cell["paired"]
        mine = old[(old["level"].astype(str) == cell["level"]) & (old["task"] == cell["task"])]
        assert paired["n_clusters"] == mine["passage"].nunique()
        assert paired["se_diff_clustered"] is not None
        if paired["n_clusters"] > 1:
            assert paired["test"] == "clustered"
    unclustered = cli_json(*paths, "--item", "item", "--drop", "passage", cwd=tmp_path)
    assert all(c["paired"]["test"] == "mcnemar" for c in unclustered["cells"])
    # evalmaps rank --cluster: each pair tested as compare's clustered cells, the same p
    proc = run_cli("rank", *map(str, paths), "--item", "item", "--cluster", "passage",
                   "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    ranked = json.loads(proc.stdout)
    assert ranked["cluster"] == "passage" and "cluster bootstrap" in ranked["rank_interval"]
    by_cell = {(c["level"], c["task"]): c["paired"] for c in payload["cells"]}
    for cell in ranked["cells"]:
        (pair,) = cell["pairs"]
        paired = by_cell[(cell["labels"]["level"], cell["labels"]["task"])]
        assert (pair["test"], pair["n_clusters"]) == (paired["test"], paired["n_clusters"])
        assert pair["se_diff_clustered"] == paired["se_diff_clustered"]
        assert pair["p"] == paired["p"] and pair["ci_low"] == paired["ci_low"]
        for m in cell["models"]:
            assert m["n_clusters"] == paired["n_clusters"] and m["se_clustered"] is not None
    frame = evalmaps.rank(*paths, item="item", cluster="passage")
    assert list(frame.columns[-2:]) == ["se_clustered", "n_clusters"]
    models = [m for c in ranked["cells"] for m in c["models"]]
    assert frame["se_clustered"].tolist() == [m["se_clustered"] for m in models]


# --------------------------------------------------------------------------- LiveCodeBench

LCB_FIXTURE = (ROOT / "tests" / "fixtures" / "formats" / "livecodebench" / "output"
               / "Qwen2.5-Coder-7B" / "Scenario.codegeneration_4_0.2_eval_all.json")
LCB_NAME = "Scenario.codegeneration_1_0.2_eval_all.json"  # lcb_runner's name at n = 1


def lcb_output(folder: Path, model: str, right: dict[str, bool]) -> Path:
    """An ``lcb_runner`` ``*_eval_all.json`` of one model at n = 1 (one graded sample a
    problem), in its ``output/<model>/`` folder, as the fixture's keys lay it out: its problems
    over three difficulties and two platforms, each right as ``right`` says."""
    template = json.loads(LCB_FIXTURE.read_text(encoding="utf-8"))[0]
    problems = []
    for k, (qid, ok) in enumerate(right.items()):
        problems.append({**template, "question_id": qid, "question_title": f"P{qid}",
                         "difficulty": ("easy", "medium", "hard")[k % 3],
                         "platform": ("leetcode", "atcoder")[k // 3 % 2],
                         "output_list": ["x"], "code_list": [f"print({k})"],
                         "graded_list": [ok], "pass@1": float(ok), "metadata": ["{}"]})
    path = folder / "output" / model / LCB_NAME
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(problems), encoding="utf-8")
    return path


def lcb_scores(path: Path) -> pd.DataFrame:
    """The raw file's per-problem scores, read with json alone: the independent side."""
    return pd.DataFrame([{"difficulty": p["difficulty"], "platform": p["platform"],
                          "item": p["question_id"], "score": float(p["graded_list"][0])}
                         for p in json.loads(path.read_text(encoding="utf-8"))])


@pytest.mark.parametrize("b_name, keep, gain, code", [("Coder-worse", 0.4, 0.0, 1),
                                                      ("Coder-same", 1.0, 0.0, 0),
                                                      ("Coder-better", 1.0, 0.8, 0)])
def test_livecodebench_outputs_through_the_console_script(tmp_path, b_name, keep, gain, code):
    """Issue 40: the real console script on two LiveCodeBench runs (lcb_runner's
    ``output/<model>/*_eval_all.json``), its JSON against a count made from the raw files, and
    its gate's exit code. ../shared holds no LiveCodeBench output, so the files are written here
    in the fixture's layout (tests/fixtures/formats/livecodebench)."""
    import random
    rng = random.Random(40)
    qids = [f"{3000 + k}" for k in range(180)]
    a_right = {q: rng.random() < 0.6 for q in qids}
    # B keeps each of A's right answers with chance ``keep`` and gets each wrong one right with
    # chance ``gain``: worse, the same run under another name, or better
    b_right = {q: rng.random() < (keep if ok else gain) for q, ok in a_right.items()}
    a = lcb_output(tmp_path / "a", "Coder-base", a_right)
    b = lcb_output(tmp_path / "b", b_name, b_right)
    proc = run_cli("compare", a, b, "--format", "json", "--fail-if-worse", cwd=tmp_path,
                   entry_point=True)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    payload = json.loads(proc.stdout)
    cells = pd.DataFrame([{"difficulty": c["difficulty"], "platform": c["platform"],
                           **{name: c["paired"][name] for name in PAIRED}}
                          for c in payload["cells"]])
    keys = ["difficulty", "platform"]
    count = independent_count(lcb_scores(a), lcb_scores(b), keys)
    assert len(cells) == 6
    assert_matches_count(cells, count, keys)
    worse = count[(count["b_mean"] < count["a_mean"]) & (count["p_adjusted"] < 0.05)]
    assert (len(worse) > 0) == (code == 1)
    assert (cells["diff"].to_numpy() == pytest.approx(
        (count.set_index(keys).loc[list(map(tuple, cells[keys].to_numpy()))]
         .eval("b_mean - a_mean")).to_numpy()))
    assert payload == cli_json(a, b, cwd=tmp_path)  # the gate changes the exit code only


def test_livecodebench_samples_give_each_problems_pass_at_1(tmp_path):
    """The fixture's four graded samples a problem: a cell's mean is the mean over problems of
    each one's share of right samples (lcb_runner's own ``pass@1``), paired on the problems."""
    a = tmp_path / "a" / "output" / "Qwen2.5-Coder-7B" / LCB_FIXTURE.name
    b = tmp_path / "b" / "output" / "Qwen2.5-Coder-7B-flipped" / LCB_FIXTURE.name
    a.parent.mkdir(parents=True)
    b.parent.mkdir(parents=True)
    problems = json.loads(LCB_FIXTURE.read_text(encoding="utf-8"))
    a.write_text(json.dumps(problems), encoding="utf-8")
    flipped = [{**p, "graded_list": [not g for g in p["graded_list"]],
                "pass@1": 1 - p["pass@1"]} for p in problems]
    b.write_text(json.dumps(flipped), encoding="utf-8")
    payload = cli_json(a, b, cwd=tmp_path)
    expected: dict = {}
    for p, q in zip(problems, flipped):
        cell = expected.setdefault((p["difficulty"], p["platform"]), [[], []])
        cell[0].append(sum(p["graded_list"]) / len(p["graded_list"]))
        cell[1].append(sum(q["graded_list"]) / len(q["graded_list"]))
    got = {(c["difficulty"], c["platform"]): c["paired"] for c in payload["cells"]}
    assert set(got) == set(expected)
    for key, (a_means, b_means) in expected.items():
        paired = got[key]
        assert paired["n"] == len(a_means)
        assert paired["a_mean"] == pytest.approx(sum(a_means) / len(a_means), abs=1e-12)
        assert paired["b_mean"] == pytest.approx(sum(b_means) / len(b_means), abs=1e-12)
        assert paired["diff"] == pytest.approx(paired["b_mean"] - paired["a_mean"], abs=1e-12)
