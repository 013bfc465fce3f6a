"""Build the built-in figure "MMLU-Pro accuracy by category, Llama-2-7B and Llama-2-13B" from
MMLU-Pro's published model outputs (TIGER-AI-Lab/MMLU-Pro @f418b11, eval_results/, Apache-2.0),
as kept in ../shared/external/mmlu-pro: one zip per model, each a JSON list of 12,032 questions.

Each zip is read by evalmaps' own importer as a per-item table (``evalmaps import <zip> --item
question_id --correct pred=answer --set model=<model>``): a question is right when the letter the
model's answer ended on (``pred``) is the reference (``answer``); a null ``pred`` (no letter
found) is wrong. A cell is the share of its category's questions answered right, with n its
questions. The model is a facet (two panels of one grid: Compare sets them side by side,
paired per question), y the 14 categories, x the metric (accuracy).

Written: data/figures/mmlu-pro.csv (the cells), data/figures/mmlu-pro.items/ (scores.parquet:
24,064 records; texts.parquet: each record's pred and answer, as the response and the target;
the generated_text is NOT kept), and the figure's entry in data/catalog.json. Re-running it
rewrites the same files.

    python scripts/make_mmlu_pro.py [SOURCE_DIR]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalmaps.catalog import items  # noqa: E402
from evalmaps.catalog.imports import import_paths, items_import  # noqa: E402
from evalmaps.readers.base import ImportOptions  # noqa: E402

SOURCE = ROOT.parent / "shared" / "external" / "mmlu-pro"
FIGURE_ID = "mmlu-pro"
OUT = ROOT / "data" / "figures" / f"{FIGURE_ID}.csv"
ITEMS = OUT.with_name(f"{FIGURE_ID}.items")
CATALOG = ROOT / "data" / "catalog.json"
MODELS = {"Llama-2-7B": "model_outputs_Llama-2-7b-hf_5shots.zip",
          "Llama-2-13B": "model_outputs_Llama-2-13b-hf_5shots.zip"}
DIMS = ["model", "category", "metric"]


def records(source: Path = SOURCE) -> pd.DataFrame:
    """Both models' per-question records, as the importer reads them."""
    frames = []
    for model, name in MODELS.items():
        options = ImportOptions(item="question_id", correct=("pred", "answer"),
                                fixed={"model": model})
        (imported,) = import_paths([source / "eval_results" / name], options)
        assert list(imported.spec["dims"]) == DIMS, imported.spec["dims"]
        frames.append(imported.items)
    return pd.concat(frames, ignore_index=True)


def build(source: Path = SOURCE):
    """The import of both models (cells, catalog entry, records) and its catalog entry."""
    imported = items_import(records(source), DIMS, "accuracy", "mmlu-pro", [], [])
    spec = imported.spec
    rank = {d: {label: i for i, label in enumerate(spec["dims"][d]["labels"])} for d in DIMS}
    imported.tidy = imported.tidy.sort_values(DIMS, key=lambda c: c.map(rank[c.name]),
                                              ignore_index=True)
    entry = {
        "id": FIGURE_ID,
        "file": f"figures/{OUT.name}",
        "title": "MMLU-Pro accuracy by category, Llama-2-7B and Llama-2-13B (5-shot CoT), with "
                 "12,032 per-question records each",
        "metric": {"name": "Accuracy", "unit": "", "range": [0, 1]},
        "x": spec["x"], "y": spec["y"], "facets": spec["facets"],
        "dims": {"model": {"title": "Model", "labels": list(MODELS)},
                 "category": {"title": "Category", "labels": spec["dims"]["category"]["labels"]},
                 "metric": {"title": "Metric", "labels": ["accuracy"]}},
        "colorscale": "Viridis",
        "decimals": 4,
        "provenance": "published",
        "items": ITEMS.name,
        "source": {
            "paper": "MMLU-Pro: A More Robust and Challenging Multi-Task Language Understanding "
                     "Benchmark (Wang et al., 2024)",
            "arxiv": "2406.01574",
            "repository": "TIGER-AI-Lab/MMLU-Pro @f418b11, eval_results/ (Apache-2.0)",
            "files": ", ".join(MODELS.values()),
        },
        "notes": [
            "Each cell is the share of the category's questions the model answered right (a "
            "fraction from 0 to 1; n: its questions): pred, the letter its chain of thought "
            "ended on, equals the answer; a missing pred (no letter found) is wrong.",
            "The 12,032 per-question records of each model are kept (scores, pred and answer); "
            "the generated text is not. question_id joins a question across the two models: "
            "Compare tests Llama-2-13B against 7B per category, paired per question.",
        ],
    }
    return imported, entry


def write_entry(entry: dict) -> None:
    """Put the entry in data/catalog.json: appended when absent, replaced when different."""
    text = CATALOG.read_text(encoding="utf-8")
    catalog = json.loads(text)
    present = [f for f in catalog["figures"] if f.get("id") == FIGURE_ID]
    if present == [entry]:
        return
    if not present:  # appended as the last figure, the rest of the file kept as it is written
        block = json.dumps(entry, indent=2, ensure_ascii=False).replace("\n", "\n    ")
        end = text.rstrip().rindex("]")  # the end of "figures" (the catalog's last key)
        text = f"{text[:end].rstrip()},\n    {block}\n  ]\n}}\n"
        assert json.loads(text)["figures"][-1] == entry
    else:
        catalog["figures"] = [entry if f.get("id") == FIGURE_ID else f for f in catalog["figures"]]
        text = json.dumps(catalog, indent=2, ensure_ascii=False) + "\n"
    CATALOG.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else SOURCE
    if not source.is_dir():
        print(f"make_mmlu_pro: {source} is absent; nothing written.", file=sys.stderr)
        return 2
    imported, entry = build(source)
    imported.write_csv(OUT, for_spreadsheets=False)
    items.save(ITEMS, DIMS, imported.items)
    write_entry(entry)
    print(f"wrote {OUT.relative_to(ROOT)} ({imported.n_cells} cells), "
          f"{ITEMS.relative_to(ROOT)}/ ({len(imported.items):,} records) and its entry in "
          f"{CATALOG.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
