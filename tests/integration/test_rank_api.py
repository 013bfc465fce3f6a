"""/api/rank and /rank.json on the shared MMLU-Pro outputs: seven models' 12,032 questions
each (../shared/external/mmlu-pro, imported as ``evalmaps import --item question_id --correct
pred=answer --set model={file}`` makes it), ranked by model in each of the 14 categories. Every
pair's p is /api/compare's p for the same two labels and cell; the means are the figure's; the
CSV says the numbers the JSON says. Skipped when the shared folder is absent."""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from evalmaps.service import cli
from evalmaps.service.settings import Settings
from evalmaps.service.startup import load_data
from tests.integration.test_api import assert_json_error, get_json

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT.parent / "shared" / "external" / "mmlu-pro"
FIGURE = "import-mmlu-pro"
N_MODELS, N_CELLS = 7, 14

pytestmark = pytest.mark.skipif(not FOLDER.is_dir(),
                                reason=f"{FOLDER} is absent: tests of real outputs skipped")


@pytest.fixture(scope="module")
def served(tmp_path_factory, dash_app):
    """The app serving the built-in figures and the shared folder's seven models as one figure
    (the CLI's import of the folder, then loaded as ``evalmaps serve --data`` loads it)."""
    out = tmp_path_factory.mktemp("mmlu7")
    assert cli.main(["import", str(FOLDER), "--item", "question_id", "--correct", "pred=answer",
                     "--set", "model={file}", "-o", str(out / "mmlu.csv")]) == 0
    loaded = load_data(Settings(extra_data=(out,), cache_dir=out / "cache", store_dir=None))
    state = dash_app.server.extensions["evalmaps"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(state, "catalog", loaded.catalog)
        yield dash_app.server.test_client()


@pytest.fixture(scope="module")
def answer(served):
    started = time.perf_counter()
    body = get_json(served, f"/api/rank?figure={FIGURE}")
    seconds = time.perf_counter() - started
    print(f"/api/rank, {N_MODELS} models x {N_CELLS} categories x 12,032 questions: "
          f"{seconds:.2f} s")
    return body


def test_the_answer_ranks_seven_models_in_fourteen_categories(answer):
    assert (answer["figure"], answer["by"], answer["alpha"], answer["basis"]) == (
        FIGURE, "model", 0.05, "items")
    assert len(answer["models"]) == N_MODELS and len(answer["cells"]) == N_CELLS
    assert answer["label_prefix"] == "model_outputs_" and answer["titles"]["category"] == "Category"
    assert sum(len(c["pairs"]) for c in answer["cells"]) == N_CELLS * 21
    for cell in answer["cells"]:
        assert sum(m["n"] for m in cell["models"]) == N_MODELS * cell["n_common"]
        assert {m["rank"] for m in cell["models"]} <= set(range(1, N_MODELS + 1))
        for m in cell["models"]:
            assert m["rank_ci"][0] <= m["rank_ci"][1] and m["rank_set"][0] <= m["rank_set"][1]
            assert m["rank_set"][0] <= m["rank"] <= m["rank_set"][1]
    assert sum(c["n_common"] for c in answer["cells"]) == 12032
    assert [s["model"] for s in answer["summary"]] == answer["models"]


def test_each_pairs_p_is_compares_p_for_that_pair_and_cell(served, answer):
    for a_index, a in enumerate(answer["models"]):
        for b in answer["models"][a_index + 1:]:
            query = urlencode({"a": f"{FIGURE}:model={a}", "b": f"{FIGURE}:model={b}"})
            compare = get_json(served, f"/api/compare?{query}")
            by_cell = {(c["category"], c["metric"]): c["paired"] for c in compare["cells"]}
            for cell in answer["cells"]:
                pair = next(p for p in cell["pairs"] if (p["a"], p["b"]) == (a, b))
                paired = by_cell[cell["labels"]["category"], cell["labels"]["metric"]]
                for key in ("n", "diff", "ci_low", "ci_high", "p", "test", "a_only", "b_only",
                            "only_in_a", "only_in_b", "a_mean", "b_mean"):
                    assert pair[key] == paired[key], (a, b, cell["labels"], key)


def test_the_means_are_the_figures_values(served, answer):
    cells = get_json(served, f"/api/figures/{FIGURE}/cells")["cells"]
    value = {(c["model"], c["category"], c["metric"]): c["value"] for c in cells}
    for cell in answer["cells"]:
        for m in cell["models"]:
            assert m["mean"] == value[m["model"], cell["labels"]["category"],
                                      cell["labels"]["metric"]]


def test_the_twin_and_the_csv_say_the_same_numbers(served, answer):
    assert get_json(served, f"/rank.json?figure={FIGURE}") == answer
    response = served.get(f"/api/rank?figure={FIGURE}&format=csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert len(rows) == N_MODELS * N_CELLS
    flat = [(c["labels"], m) for c in answer["cells"] for m in c["models"]]
    for row, (labels, m) in zip(rows, flat):
        assert (row["category"], row["model"]) == (labels["category"], m["model"])
        assert float(row["mean"]) == m["mean"] and int(row["rank"]) == m["rank"]
        assert [int(row["rank_set_low"]), int(row["rank_set_high"])] == m["rank_set"]
        assert row["best_or_tied"] == ("true" if m["best_or_tied"] else "false")
    pairs = served.get(f"/api/rank?figure={FIGURE}&format=csv-pairs").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(pairs)))
    flat = [p for c in answer["cells"] for p in c["pairs"]]
    assert len(rows) == len(flat)
    assert all(float(r["p_adjusted"]) == p["p_adjusted"] for r, p in zip(rows, flat))


def test_a_slice_ranks_the_models_and_categories_named(served):
    models = ["model_outputs_Llama-2-7b-hf_5shots", "model_outputs_Llama-2-70b-hf_5shots",
              "model_outputs_Llama-2-13b-hf_5shots"]
    query = urlencode({"figure": FIGURE, "model": models, "category": ["law", "math"]},
                      doseq=True)
    body = get_json(served, f"/api/rank?{query}")
    assert body["models"] == [models[0], models[2], models[1]]  # natural order: sizes by size
    assert [c["labels"]["category"] for c in body["cells"]] == ["law", "math"]
    assert all(len(c["pairs"]) == 3 for c in body["cells"])


@pytest.mark.parametrize("query, words", [
    ({"figure": FIGURE, "by": "question"}, "not a dimension"),
    ({"figure": FIGURE, "category": "astrology"}, "astrology"),
    ({"figure": FIGURE, "k": "2"}, "pass@2"),
    ({"figure": FIGURE, "a": "x"}, "'a' is none of these"),
    ({"figure": FIGURE, "format": "xlsx"}, "Unknown format"),
])
def test_bad_input_is_a_400_that_names_the_fix(served, query, words):
    message = assert_json_error(served.get(f"/api/rank?{urlencode(query)}"), 400)
    assert words in message


def test_an_unknown_figure_is_a_404(served):
    assert "nope" in assert_json_error(served.get("/api/rank?figure=nope"), 404)


def test_a_cells_compare_query_opens_each_pair_on_that_cell_with_its_items(served, answer):
    first = answer["models"][0]
    for cell in answer["cells"]:
        for pair in (p for p in cell["pairs"] if p["a"] == first):
            query = (urlencode({"a": f"{FIGURE}:model={pair['a']}",
                                "b": f"{FIGURE}:model={pair['b']}"}) + "&" + cell["compare"])
            items = get_json(served, f"/compare/items.json?{query}")
            assert items["cell"] == cell["labels"]
            assert (items["counts"]["a_only"], items["counts"]["b_only"],
                    items["counts"]["all"]) == (pair["a_only"], pair["b_only"], pair["n"])
            assert served.get(f"/compare?{query}").status_code == 200
