"""A figure of many rows and many columns on disk (issue 37, labels): ``rows`` models x ``cols``
tasks, one panel, names of uneven lengths, a few cells not reported. Loaded as the app loads a
data folder (catalog.json and a tidy CSV)."""

from __future__ import annotations

import json
from pathlib import Path


def row_names(n: int) -> list[str]:
    """Model names of uneven lengths ('model-0', 'checkpoint-12-long-run', ...), all distinct."""
    kinds = ("model-{k}", "ckpt-{k}-sft", "checkpoint-{k}-long-run", "m{k}")
    return [kinds[k % len(kinds)].format(k=k) for k in range(n)]


def column_names(n: int) -> list[str]:
    kinds = ("task{k}", "arith-{k}", "reading-comp-{k}", "qa{k}")
    return [kinds[k % len(kinds)].format(k=k) for k in range(n)]


def write_wide(folder: Path, rows: int, cols: int, figure_id: str = "wide") -> Path:
    """The data folder of a figure ``figure_id``: every cell's value (r * 7 + c * 3) % 100 / 100
    but every 11th cell, which the source does not report (an empty value)."""
    folder.mkdir(parents=True, exist_ok=True)
    ys, xs = row_names(rows), column_names(cols)
    (folder / "catalog.json").write_text(json.dumps({"figures": [{
        "id": figure_id, "file": f"{figure_id}.csv", "title": f"{rows} models x {cols} tasks",
        "metric": {"name": "Accuracy", "range": [0, 1]}, "x": "task", "y": "model",
        "facets": [], "provenance": "imported",
        "dims": {"model": {"labels": ys}, "task": {"labels": xs}}}]}))
    lines = ["model,task,value"]
    for r, y in enumerate(ys):
        for c, x in enumerate(xs):
            value = "" if (r * cols + c) % 11 == 5 else f"{(r * 7 + c * 3) % 100 / 100:g}"
            lines.append(f"{y},{x},{value}")
    (folder / f"{figure_id}.csv").write_text("\n".join(lines) + "\n")
    return folder


def wide_figure(tmp_path: Path, rows: int, cols: int, figure_id: str = "wide"):
    from evalmaps.catalog.load import load_catalog

    return load_catalog(write_wide(tmp_path / figure_id, rows, cols, figure_id)).figure(figure_id)


RUNS = ("base", "tuned")  # the two panels of write_wide_pair, compared as A and B


def write_wide_pair(folder: Path, rows: int, cols: int, figure_id: str = "widepair") -> Path:
    """The data folder of a figure ``figure_id`` of two panels (facet ``run``: base, tuned) of
    ``rows`` models x ``cols`` tasks, names as :func:`write_wide`: a cell's value
    (r * 7 + c * 3 + 13 * run) % 100 / 100, but every 11th cell of each run (a different one
    in each), which the source does not report."""
    folder.mkdir(parents=True, exist_ok=True)
    ys, xs = row_names(rows), column_names(cols)
    (folder / "catalog.json").write_text(json.dumps({"figures": [{
        "id": figure_id, "file": f"{figure_id}.csv", "title": f"Two runs of {rows} x {cols}",
        "metric": {"name": "Accuracy", "range": [0, 1]}, "x": "task", "y": "model",
        "facets": ["run"], "provenance": "imported",
        "dims": {"run": {"labels": list(RUNS)}, "model": {"labels": ys},
                 "task": {"labels": xs}}}]}))
    lines = ["run,model,task,value"]
    for k, run in enumerate(RUNS):
        for r, y in enumerate(ys):
            for c, x in enumerate(xs):
                value = ("" if (r * cols + c) % 11 == 5 + k else
                         f"{(r * 7 + c * 3 + 13 * k) % 100 / 100:g}")
                lines.append(f"{run},{y},{x},{value}")
    (folder / f"{figure_id}.csv").write_text("\n".join(lines) + "\n")
    return folder


def wide_pair_figure(tmp_path: Path, rows: int, cols: int, figure_id: str = "widepair"):
    from evalmaps.catalog.load import load_catalog

    return load_catalog(write_wide_pair(tmp_path / figure_id, rows, cols, figure_id)
                        ).figure(figure_id)
