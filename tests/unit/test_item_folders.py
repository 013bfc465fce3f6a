"""Per-item tables of one folder (one file per model) as ONE figure: the ``{file}`` label of
``--set model={file}``, the combining of tables of the same columns, and the errors that name
the options when a table of per-item records is imported without them."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from evalmaps.catalog.imports import _import_sources, import_bytes
from evalmaps.catalog.item_shaping import file_label
from evalmaps.readers.base import ImportFailed, ImportOptions
from evalmaps.readers.items import item_options

OPTIONS = ImportOptions(item="question_id", correct=("pred", "answer"), fixed={"model": "{file}"})


def records(*rows) -> bytes:
    """A JSON list of MMLU-Pro-shaped records (question_id, category, answer, pred, options)."""
    return json.dumps([{"question_id": q, "category": c, "answer": a, "pred": p,
                        "options": ["A", "B"]} for q, c, a, p in rows]).encode()


SEVEN = records((1, "law", "A", "A"), (2, "law", "B", None), (3, "math", "C", "C"))
THIRTEEN = records((1, "law", "A", "A"), (2, "law", "B", "B"), (3, "math", "C", "D"))


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("name, label", [
    ("eval_results/model_outputs_Llama-2-7b-hf_5shots.json", "model_outputs_Llama-2-7b-hf_5shots"),
    ("up.zip/a.zip/model_outputs_Llama-2-7b-hf_5shots.json", "model_outputs_Llama-2-7b-hf_5shots"),
    ("Llama-3.1-8B.jsonl", "Llama-3.1-8B"),  # a dot of the name stays
    ("runs/gpt-4o.csv.gz", "gpt-4o"),
    ("qwen.jsonl.zip", "qwen"),
    (".csv", ".csv"),  # nothing left: the name as it is
    ("model.v2", "model.v2"),  # not an extension evalmaps reads
])
def test_file_label_is_the_files_name_without_its_extensions(name, label):
    assert file_label(name) == label


def test_a_folder_of_one_file_per_model_is_one_figure_named_by_file():
    imp = _import_sources([("out/llama-7b.json", SEVEN), ("out/llama-13b.json", THIRTEEN)], "out",
                          OPTIONS, searched=True)[0]
    assert (imp.spec["facets"], imp.spec["y"], imp.spec["x"]) == (["model"], "category", "metric")
    assert imp.spec["dims"]["model"]["labels"] == ["llama-7b", "llama-13b"]  # natural order
    by_hand = {("llama-7b", "law"): (0.5, 2), ("llama-7b", "math"): (1.0, 1),
               ("llama-13b", "law"): (1.0, 2), ("llama-13b", "math"): (0.0, 1)}
    got = {(r["model"], r["category"]): (float(r["value"]), int(r["n"]))
           for r in imp.tidy.to_dict("records")}
    assert got == by_hand
    items = imp.items.to_pandas().sort_values(["model", "item"], ignore_index=True)
    assert items[["model", "category", "item", "score"]].values.tolist() == [
        ["llama-13b", "law", "1", 1.0], ["llama-13b", "law", "2", 1.0],
        ["llama-13b", "math", "3", 0.0],
        ["llama-7b", "law", "1", 1.0], ["llama-7b", "law", "2", 0.0],
        ["llama-7b", "math", "3", 1.0]]
    assert "The per-item records of 2 files: llama-7b.json, llama-13b.json." in imp.spec["notes"]


def test_a_zip_of_zips_uploaded_is_the_same_one_figure_with_by_tool():
    data = zipped({"mmlu/a/llama-7b.zip": zipped({"llama-7b.json": SEVEN}),
                   "mmlu/a/llama-13b.zip": zipped({"llama-13b.json": THIRTEEN})})
    (imp,) = import_bytes(data, "mmlu.zip", OPTIONS, by_tool=True)
    alone = _import_sources([("llama-7b.json", SEVEN), ("llama-13b.json", THIRTEEN)], "x",
                            OPTIONS, searched=True)[0]
    assert imp.tidy.sort_values(["model", "category"], ignore_index=True).equals(
        alone.tidy.sort_values(["model", "category"], ignore_index=True))


def test_one_file_with_file_label_names_its_model_after_itself():
    imp = import_bytes(SEVEN, "dir/llama-7b.json", OPTIONS)[0]
    assert imp.spec["dims"]["model"]["labels"] == ["llama-7b"]


def test_files_of_one_model_each_without_a_model_are_refused_naming_the_option():
    options = ImportOptions(item="question_id", correct=("pred", "answer"))
    with pytest.raises(ImportFailed) as err:
        _import_sources([("out/a.json", SEVEN), ("out/b.json", THIRTEEN)], "out", options,
                       searched=True)
    assert str(err.value) == (
        "out: item '1' is in both a.json and b.json, in the same cell. Name each file's model "
        "after the file with --set model={file} (on the Data page: model from the file name), "
        "or import the files one at a time.")


def test_an_error_in_a_combined_table_names_its_file_and_row():
    bad = b"model,question_id,score\nB,1,1\nB,2,maybe\n"
    good = b"model,question_id,score\nA,1,1\nA,2,0\n"
    with pytest.raises(ImportFailed) as err:
        _import_sources([("f/a.csv", good), ("f/b.csv", bad)], "f",
                       ImportOptions(item="question_id"), searched=True)
    assert str(err.value).startswith("f/b.csv, row 3, column 'score': the score 'maybe'")


def test_tables_of_other_columns_are_a_figure_each_or_refused():
    other = b"model,question_id,subject,pred,answer\nA,1,x,A,A\nA,2,y,A,B\n"
    sources = [("f/a.json", SEVEN), ("f/c.csv", other)]
    options = ImportOptions(item="question_id", correct=("pred", "answer"))
    with pytest.raises(ImportFailed) as err:
        _import_sources(sources, "f", options, searched=True)
    assert str(err.value) == ("f: the per-item tables a.json and c.csv have different columns, "
                              "so they are not one figure. Import them one at a time.")
    figures = _import_sources(sources, "f", options, searched=True, by_tool=True)
    assert [f.spec["dims"].get("category", {}).get("labels") for f in figures] == [
        ["law", "math"], None]


@pytest.mark.parametrize("data, name, message", [
    (SEVEN, "out.json", "--item question_id --correct pred=answer"),  # nested: was "Flatten it"
    (b"question_id,category,pred,answer\n1,law,A,A\n", "out.csv",
     "--item question_id --correct pred=answer"),
])
def test_per_item_records_without_item_name_the_options(data, name, message):
    with pytest.raises(ImportFailed) as err:
        import_bytes(data, name)[0]
    assert str(err.value) == (
        f"{name}: this table looks like per-item records (one row per item), not cells, and was "
        f"imported without --item. Import it with {message} (on the Data page: Per-item "
        f"records).")


@pytest.mark.parametrize("columns, rows, expected", [
    (["question_id", "category", "pred", "answer"], None, "--item question_id --correct pred=answer"),
    (["doc_id", "prediction", "target"], None, "--item doc_id --correct prediction=target"),
    (["id", "model", "score"], [(str(i), "m", "1") for i in range(51)], "--item id"),
    (["id", "model", "correct"], [(str(i), "m", "1") for i in range(51)],
     "--item id (its score in a column named 'score')"),
    (["id", "model", "score"], [(str(i), "m", "1") for i in range(50)], None),  # ids as labels
    (["model", "task", "pred", "answer"], None, None),  # no item id
    (["model", "task", "value"], None, None),
])
def test_item_options_are_named_only_for_records_that_look_per_item(columns, rows, expected):
    import pandas as pd

    frame = pd.DataFrame(rows, columns=columns) if rows is not None else None
    assert item_options(columns, frame) == expected


def test_a_table_of_cells_with_an_id_column_still_imports():
    imp = import_bytes(b"id,score\n1,0.5\n2,0.7\n", "cells.csv")[0]  # a matrix: id x score
    assert imp.format != "items" and imp.n_cells == 2


def test_fifty_files_of_one_model_each_sharing_their_items_are_one_figure():
    """Issue 38: a lab's folder of 50 models' per-item files (the same 40 questions each, in
    two categories) joins as one figure of 50 models, each cell the mean of its items, computed
    here from the rows written."""
    import random

    rng = random.Random(38)
    sources, by_hand = [], {}
    for m in range(50):
        rows = []
        for q in range(40):
            category = "law" if q % 2 else "math"
            right = rng.random() < 0.3 + m / 100
            rows.append((q, category, "A", "A" if right else "B"))
            by_hand.setdefault((f"model-{m}", category), []).append(float(right))
        sources.append((f"out/model-{m}.json", records(*rows)))
    imp = _import_sources(sources, "out", OPTIONS, searched=True)[0]
    assert imp.spec["facets"] == ["model"]
    assert imp.spec["dims"]["model"]["labels"] == [f"model-{m}" for m in range(50)]  # natural
    got = {(r["model"], r["category"]): (float(r["value"]), int(r["n"]))
           for r in imp.tidy.to_dict("records")}
    assert got == {k: (sum(v) / len(v), len(v)) for k, v in by_hand.items()}
    written = imp.items.to_pandas()  # written to Parquet one file at a time
    assert len(written) == 50 * 40 and written.groupby("model")["item"].nunique().eq(40).all()
