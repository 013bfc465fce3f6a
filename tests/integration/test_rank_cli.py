"""``evalmaps rank`` and ``evalmaps.rank`` (issue 40 on issue 38's Rank answer): the same answer
as ``/api/rank``, for a built-in figure and for files made one figure, whose pairs are
Compare's tests of the same two files."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

import evalmaps
from tests.integration.test_cli import assert_clean_failure, run_cli
from tests.integration.test_compare_cli import checkpoint


def cli(*args, cwd: Path) -> str:
    proc = run_cli("rank", *map(str, args), cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


def test_the_cli_and_the_python_api_are_api_rank(client, tmp_path):
    response = client.get("/api/rank?figure=mmlu-pro")
    assert response.status_code == 200
    expected = response.get_json()
    assert json.loads(cli("mmlu-pro", "--format", "json", cwd=tmp_path)) == expected
    assert cli("mmlu-pro", "--format", "csv", cwd=tmp_path) == \
        client.get("/api/rank?figure=mmlu-pro&format=csv").get_data(as_text=True)
    frame = evalmaps.rank("mmlu-pro")
    models = [(c["labels"], m) for c in expected["cells"] for m in c["models"]]
    assert len(frame) == len(models) > 0
    for row, (labels, m) in zip(frame.to_dict("records"), models):
        assert {d: row[d] for d in labels} == labels and row["model"] == m["model"]
        assert (row["mean"], row["n"], row["rank"], row["best_or_tied"], row["best"]) == (
            m["mean"], m["n"], m["rank"], m["best_or_tied"], m["best"])
        assert [row["ci_low"], row["ci_high"]] == m["ci"]
        assert [row["rank_set_low"], row["rank_set_high"]] == m["rank_set"]
    assert frame.attrs["summary"] == expected["summary"]
    keep = cli("mmlu-pro", "--keep", "category=law", "--keep", "category=math", "--format",
               "json", cwd=tmp_path)
    assert json.loads(keep) == client.get(
        "/api/rank?figure=mmlu-pro&category=law&category=math").get_json()


def test_files_are_ranked_with_compares_pairs(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    paths = [checkpoint(folder / "old.csv", 0.7, 1), checkpoint(folder / "worse.csv", 0.3, 2),
             checkpoint(folder / "better.csv", 0.95, 3)]
    frame = evalmaps.rank(*paths, item="item")
    assert set(frame["run"]) == {"old.csv", "worse.csv", "better.csv"}
    best = frame[frame["best"]]
    assert set(best["run"]) == {"better.csv"} and len(best) == 6  # best in every cell
    pairs = frame.attrs["pairs"]
    for (a, b), tested in pairs.groupby(["a", "b"]):
        compared = evalmaps.compare(folder / a, folder / b, item="item")
        merged = tested.merge(compared, on=["level", "task"], suffixes=("", "_compare"))
        assert len(merged) == 6
        for name in ("n", "a_only", "b_only", "p", "diff", "ci_low", "ci_high"):
            assert (merged[name] == merged[f"{name}_compare"]).all(), (a, b, name)
    table = cli(*paths, "--item", "item", cwd=tmp_path)
    assert table.splitlines()[0] == "3 results ranked in every cell"
    assert table.count(" best\n") == 6
    markdown = cli(*paths, "--item", "item", "--format", "markdown", cwd=tmp_path)
    assert markdown.count("\n| ") == 2 + len(frame)
    csv_frame = pd.read_csv(io.StringIO(cli(*paths, "--item", "item", "--format", "csv",
                                            cwd=tmp_path)))
    assert list(csv_frame["mean"]) == pytest.approx(list(frame["mean"]), rel=0, abs=0)


@pytest.mark.parametrize("args, named", [
    (["nope"], "nope"),
    (["{old}", "missing.csv"], "missing.csv"),
    (["mmlu-pro", "--keep", "model"], "--keep"),
    (["mmlu-pro", "--by", "nope"], "nope"),
    (["mmlu-pro", "--format", "xml"], "--format"),
])
def test_bad_input_is_one_sentence_and_exit_2(tmp_path, args, named):
    old = checkpoint(tmp_path / "old.csv", 0.7, 1)
    proc = run_cli("rank", *[a.format(old=old) for a in args], cwd=tmp_path)
    assert_clean_failure(proc, named)
