"""The Rank answer on the readers issue 38 names: SWE-bench's per-instance results (the
fixture in the experiments repository's layout) and AlpacaEval's per-instruction judgements
(../shared/external/alpaca-eval, three models; skipped when absent). Each pair is Compare's
test of the same two labels on the same cell; the counts are checked against the files."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

from evalmaps.analysis.compare import label_ref
from evalmaps.catalog.folders import load_folder
from evalmaps.core.figure import Catalog
from evalmaps.views import CompareView
from evalmaps.views.rank import RankView

ROOT = Path(__file__).resolve().parents[2]
SWE = ROOT / "tests" / "fixtures" / "formats" / "swe-bench"
ALPACA = ROOT.parent / "shared" / "external" / "alpaca-eval"


def ranked(folder: Path, tmp_path) -> tuple[Catalog, dict]:
    (figure,) = load_folder(folder, tmp_path / "cache", [])
    catalog = Catalog([figure])
    return catalog, RankView.from_query(catalog, {"figure": [figure.id]}).to_dict()


def compare_cells(catalog: Catalog, figure_id: str, a: str, b: str, grid: dict) -> dict:
    view = CompareView.from_query(catalog, {"a": [label_ref(figure_id, "model", a)],
                                            "b": [label_ref(figure_id, "model", b)],
                                            **{k: [v] for k, v in grid.items()}})
    return view.to_dict()


def test_swe_bench_systems_are_ranked_on_every_instance_named(tmp_path):
    catalog, answer = ranked(SWE, tmp_path)
    docs = {p.parents[1].name: json.loads(p.read_text()) for p in SWE.rglob("results.json")}
    named = {i for doc in docs.values() for ids in doc.values() for i in ids}
    assert answer["by"] == "model" and answer["models"] == sorted(docs)
    assert sum(cell["n_common"] for cell in answer["cells"]) == len(named)
    for cell in answer["cells"]:
        repo = cell["labels"]["repo"]
        ids = {i for i in named if i.replace("__", "/", 1).rsplit("-", 1)[0] == repo}
        for pair in cell["pairs"]:
            a, b = set(docs[pair["a"]]["resolved"]) & ids, set(docs[pair["b"]]["resolved"]) & ids
            # a_only: items A resolved and B did not, as Compare counts them
            assert (pair["n"], pair["a_only"], pair["b_only"]) == (len(ids), len(a - b), len(b - a))
            assert pair["test"] == ("none" if len(ids) < 6 else "mcnemar")
        means = {m["model"]: m["mean"] for m in cell["models"]}
        assert means == {s: len(set(docs[s]["resolved"]) & ids) / len(ids) for s in docs}


def test_alpaca_eval_models_rank_per_source_set_with_compares_test(tmp_path):
    if not ALPACA.is_dir():
        pytest.skip(f"{ALPACA} is absent: tests of real outputs skipped")
    catalog, answer = ranked(ALPACA, tmp_path)
    figure_id = answer["figure"]
    assert len(answer["models"]) == 3 and answer["basis"] == "items"
    datasets = {cell["labels"]["dataset"] for cell in answer["cells"]}
    assert len(datasets) == len(answer["cells"]) == 5  # one cell per source set
    for a, b in combinations(answer["models"], 2):
        for cell in answer["cells"]:
            compared = compare_cells(catalog, figure_id, a, b, {})
            paired = next(c["paired"] for c in compared["cells"]
                          if all(c[k] == v for k, v in cell["labels"].items()))
            pair = next(p for p in cell["pairs"] if {p["a"], p["b"]} == {a, b})
            sign = 1 if (pair["a"], pair["b"]) == (a, b) else -1
            assert pair["test"] == paired["test"] and pair["p"] == pytest.approx(paired["p"])
            assert sign * pair["diff"] == pytest.approx(paired["diff"])
    # FuseChat (win rate 51%) against phi-2 and falcon (about 2%): alone best everywhere
    best = {s["model"]: s["best"] for s in answer["summary"]}
    assert best["FuseChat-Llama-3.2-3B-Instruct"] == 5
