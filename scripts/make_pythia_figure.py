"""Build the built-in figure "Pythia zero-shot accuracy over training steps" from the published
lm-evaluation-harness v0.3 results of EleutherAI/pythia (evals/pythia-v1, Apache-2.0), as kept in
../shared/external/pythia-evals: 8 models x 27 checkpoints, one file each.

Every value and standard error is the one its results file gives, read by evalmaps' own importer
(evalmaps.readers.harness); nothing is computed. Kept: the metrics acc and acc_norm (the crows_pairs
tasks, which give neither, and lambada's ppl are left out). y = model, ordered by size; x = step,
in numeric order; one panel per task and metric. Re-running it rewrites the same files.

    python scripts/make_pythia_figure.py [SOURCE_DIR]
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalmaps.catalog.imports import import_paths  # noqa: E402

SOURCE = ROOT.parent / "shared" / "external" / "pythia-evals"
FIGURE_ID = "pythia-zero-shot"
OUT = ROOT / "data" / "figures" / f"{FIGURE_ID}.csv"
CATALOG = ROOT / "data" / "catalog.json"
METRICS = ("acc", "acc_norm")
PREFIX = "EleutherAI/pythia-v1.1-"


def size(model: str) -> float:
    """Parameters of a Pythia model from its name (70m, 1.4b, 1b-bf16)."""
    m = re.match(r"(\d+(?:\.\d+)?)([mb])", model)
    return float(m.group(1)) * (1e6 if m.group(2) == "m" else 1e9)


def task_order(task: str) -> tuple:
    """The named benchmarks first, then the 57 MMLU (hendrycksTest) subjects, alphabetically."""
    return (task.startswith("hendrycksTest-"), task)


def build(source: Path = SOURCE) -> tuple[str, dict]:
    """The figure's tidy CSV text and its catalog entry."""
    (imported,) = import_paths([source])
    tidy = imported.tidy
    tidy = tidy[tidy["metric"].isin(METRICS)]
    models = {m: m.removeprefix(PREFIX) for m in tidy["model"].unique()}
    assert all(m.startswith(PREFIX) for m in models), sorted(models)
    model_labels = sorted(models.values(), key=size)
    tasks = sorted(tidy["task"].unique(), key=task_order)
    steps = sorted(tidy["step"].unique(), key=int)
    rank = {**{t: i for i, t in enumerate(tasks)}}
    rows = sorted(
        ((r.task, r.metric, models[r.model], r.step, r.value, r.se)
         for r in tidy.itertuples(index=False)),
        key=lambda r: (rank[r[0]], METRICS.index(r[1]), model_labels.index(r[2]), int(r[3])))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["task", "metric", "model", "step", "value", "se"])
    writer.writerows(rows)
    files = len(list(source.rglob("*.json")))
    entry = {
        "id": FIGURE_ID,
        "file": f"figures/{OUT.name}",
        "title": "Pythia zero-shot accuracy over training steps, by model size, one panel per task "
                 "(acc and acc_norm, with se)",
        "metric": {"name": "Accuracy", "unit": "", "range": [0, 1]},
        "metrics": {"dim": "metric", "labels": {
            "acc": {"name": "acc", "unit": "", "range": [0, 1]},
            "acc_norm": {"name": "acc_norm", "unit": "", "range": [0, 1]}}},
        "x": "step",
        "y": "model",
        "facets": ["task", "metric"],
        "dims": {
            "task": {"title": "Task", "labels": tasks},
            "metric": {"title": "Metric", "labels": list(METRICS)},
            "model": {"title": "Model", "labels": model_labels},
            "step": {"title": "Training step", "labels": steps},
        },
        "colorscale": "Viridis",
        "provenance": "published",
        "source": {
            "paper": "Pythia: A Suite for Analyzing Large Language Models Across Training and "
                     "Scaling (Biderman et al., 2023)",
            "arxiv": "2304.01373",
            "repository": "EleutherAI/pythia, evals/pythia-v1 (Apache-2.0)",
            "files": f"{files} lm-evaluation-harness v0.3 results files, "
                     f"pythia-<size>/zero-shot/<size>_step<N>.json",
        },
        "notes": [
            "Every value and se is the one the results file gives (lm-evaluation-harness v0.3: "
            "acc and acc_stderr, acc_norm and acc_norm_stderr), as a fraction from 0 to 1.",
            "Models are EleutherAI/pythia-v1.1-<size>, ordered by size; the 1b model is the "
            "bf16 run (pythia-v1.1-1b-bf16). The step is the checkpoint the config's revision "
            "names.",
            "Zero-shot: every file's config says num_fewshot 0, including four 1b-bf16 files "
            "whose names say 5shot.",
            "acc_norm is accuracy with answers scored by length-normalised likelihood; "
            "lambada_openai, winogrande and wsc give acc only, so they have no acc_norm panel.",
            "Left out: the crows_pairs tasks (likelihood_difference and pct_stereotype, not "
            "accuracies) and lambada_openai's perplexity (ppl).",
        ],
    }
    return buf.getvalue(), entry


def write_entry(entry: dict) -> None:
    """Put the entry in data/catalog.json: appended as the last figure when absent (the rest of
    the file kept as it is written), left alone when equal, else the catalog is rewritten."""
    text = CATALOG.read_text(encoding="utf-8")
    catalog = json.loads(text)
    present = [f for f in catalog["figures"] if f.get("id") == FIGURE_ID]
    if present == [entry]:
        return
    if not present:
        block = json.dumps(entry, indent=2, ensure_ascii=False).replace("\n", "\n    ")
        end = text.rstrip().rindex("]")  # the end of "figures" (the catalog's last key)
        head = text[:end].rstrip()
        text = f"{head},\n    {block}\n  ]\n}}\n"
        assert json.loads(text)["figures"][-1] == entry
    else:
        catalog["figures"] = [entry if f.get("id") == FIGURE_ID else f for f in catalog["figures"]]
        text = json.dumps(catalog, indent=2, ensure_ascii=False) + "\n"
    CATALOG.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else SOURCE
    if not source.is_dir():
        print(f"make_pythia_figure: {source} is absent; nothing written.", file=sys.stderr)
        return 2
    text, entry = build(source)
    OUT.write_text(text, encoding="utf-8")
    write_entry(entry)
    print(f"wrote {OUT.relative_to(ROOT)} ({text.count(chr(10)) - 1} cells) and its entry in "
          f"{CATALOG.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
