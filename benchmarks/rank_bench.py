"""The Rank answer at a lab's scale (issue 38): 50 models x 14 cells x 12,032 items (8.4e6 0/1
records, seeded), the whole ``/api/rank`` answer (1,225 pairs in each of the 14 cells tested,
rank intervals and rank sets from 1,000 resamples) in a fresh process through the app's Flask
client, against a floor measured in the same process: the same statistics
(:mod:`evalmaps.analysis.rank`'s vectorised functions: Wilson intervals, every pair's McNemar
test from one matrix product, the bootstrap's rank intervals and rank sets, Benjamini-Hochberg)
on the scores already in memory as one numpy array. The process's peak RSS is the worker's.

The process keeps the answers it made (:data:`evalmaps.views.rank.KEPT_RANKINGS`); they are
dropped before each measured request, so that each one ranks.

``python benchmarks/run.py --only rank`` runs it (the ``rank`` section); ``child`` is what the
fresh process runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

MODELS, CELLS, ITEMS = 50, 14, 12_032
FIGURE = "rank-bench"
DIMS = ("model", "category", "split")


def names(models: int, cells: int, items: int) -> tuple[list[str], list[str], list[str]]:
    return ([f"model-{m}" for m in range(models)], [f"category-{c:02d}" for c in range(cells)],
            [f"q{i:05d}" for i in range(items)])


def scores(models: int, cells: int, items: int, seed: int = 38) -> np.ndarray:
    """0/1 scores (models x cells x items): models of rising skill on items of shared
    difficulty (so that pairs are correlated, as real models' answers are)."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.3, 0.7, models)[:, None, None]
    hard = rng.random((1, cells, items))
    return ((0.6 * hard + 0.4 * rng.random((models, cells, items))) < skill).astype(np.float64)


def write(folder: Path, models: int = MODELS, cells: int = CELLS, items: int = ITEMS) -> int:
    """The figure's per-item records (``scores.parquet``, as evalmaps keeps them) and its cells
    (``cells.json``: each model's mean in each cell) in ``folder``; the record count."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from evalmaps.catalog.items import SCORES

    folder.mkdir(parents=True, exist_ok=True)
    model_names, cell_names, item_names = names(models, cells, items)
    right = scores(models, cells, items)
    n = right.size
    i = np.arange(n)
    table = pa.table({
        "model": pa.array(model_names).take(pa.array(i // (cells * items))),
        "category": pa.array(cell_names).take(pa.array((i // items) % cells)),
        "split": pa.array(["test"]).take(pa.array(np.zeros(n, dtype=np.int64))),
        "item": pa.array(item_names).take(pa.array(i % items)),
        "sample": pa.array(np.zeros(n, dtype=np.int64)),
        "score": pa.array(right.ravel())})
    pq.write_table(table, folder / SCORES, compression="zstd", row_group_size=128 * 1024)
    means = right.mean(axis=2)
    cells_out = [{"model": m, "category": c, "split": "test", "value": repr(float(means[a, b])),
                  "n": str(items)}
                 for a, m in enumerate(model_names) for b, c in enumerate(cell_names)]
    (folder / "cells.json").write_text(json.dumps({"shape": [models, cells, items],
                                                   "cells": cells_out}))
    return n


def figure(folder: Path):
    """The benchmark's figure, its items the records in ``folder``."""
    import pandas as pd

    from evalmaps.catalog.items import ItemRecords
    from evalmaps.catalog.load import parse_spec, validate_cells
    from evalmaps.core.figure import Figure

    saved = json.loads((folder / "cells.json").read_text())
    models, cells, items = saved["shape"]
    model_names, cell_names, _ = names(models, cells, items)
    spec = parse_spec({
        "id": FIGURE, "file": f"{FIGURE}.csv", "title": "Rank benchmark",
        "metric": {"name": "accuracy", "unit": "", "range": [0, 1]}, "x": "split",
        "y": "category", "facets": ["model"], "provenance": "illustrative",
        "dims": {"model": {"title": "Model", "labels": model_names},
                 "category": {"title": "Category", "labels": cell_names},
                 "split": {"title": "Split", "labels": ["test"]}},
    }, where="benchmark")
    table, decimals = validate_cells(pd.DataFrame(saved["cells"]), spec, file=f"{FIGURE}.csv")
    fig = Figure(spec, table, decimals)
    fig.items = ItemRecords(folder, DIMS)
    return fig


def floor(right: np.ndarray, model_names: list[str], seeds: list[int]) -> int:
    """The Rank answer's statistics on scores in memory (models x cells x items): per cell each
    model's mean and Wilson interval, every pair's exact McNemar test with its interval, the
    rank intervals and rank sets from the same 1,000 resamples, then Benjamini-Hochberg over
    every pair; the number of pairs tested."""
    from evalmaps.analysis import paired as paired_stats
    from evalmaps.analysis import rank as ranking

    p_all = []
    for cell, seed in zip(range(right.shape[1]), seeds):
        r = right[:, cell, :]
        n = r.shape[1]
        paired_stats.wilson(r.sum(axis=1), n)
        pairs = ranking.mcnemar_pairs(model_names, r)
        p_all += [p.p for p in pairs]
        counts = ranking.resample_counts(n, seed)
        draws = ranking.bootstrap_means(r, counts)
        ranking.rank_intervals(draws)
        theta = r.mean(axis=1)
        sds = ranking.difference_sds(np.cov(r, ddof=0) / n)
        ranking.rank_sets(theta, draws - theta, sds)
    paired_stats.bh_adjust(np.array(p_all))
    return len(p_all)


def child(folder: str, repeat: int) -> None:
    """In a fresh process: the whole /api/rank answer ``repeat`` times (its peak RSS then), then
    the floor ``repeat`` times; prints one JSON line of medians (ms) and peak RSS (MB)."""
    import resource

    import pyarrow.parquet as pq

    import app as webapp
    from evalmaps.catalog.items import SCORES
    from evalmaps.core.figure import Catalog
    from evalmaps.views.rank import KEPT_RANKINGS

    folder_path = Path(folder)
    fig = figure(folder_path)
    server = webapp.get_app().server
    server.extensions["evalmaps"]["catalog"] = Catalog([fig])
    client = server.test_client()
    measured, size = [], 0
    for _ in range(repeat):
        KEPT_RANKINGS.clear()  # each run ranks: the answer kept from the last is not measured
        started = time.perf_counter()
        response = client.get(f"/api/rank?figure={FIGURE}")
        body = response.get_data()
        measured.append(time.perf_counter() - started)
        assert response.status_code == 200, body[:300]
        size = len(body)
    answer = json.loads(body)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    models, cells, items = json.loads((folder_path / "cells.json").read_text())["shape"]
    table = pq.read_table(folder_path / SCORES, columns=["score"])
    right = table.column("score").to_numpy().reshape(models, cells, items)
    model_names, cell_names, _ = names(models, cells, items)
    from evalmaps.analysis.rank import cell_seed

    seeds = [cell_seed(FIGURE, "model", {"category": c, "split": "test"}, 1) for c in cell_names]
    floors = []
    for _ in range(repeat):
        started = time.perf_counter()
        tested = floor(right, model_names, seeds)
        floors.append(time.perf_counter() - started)
    pairs = sum(len(c["pairs"]) for c in answer["cells"])
    assert pairs == tested, (pairs, tested)
    print(json.dumps({"measured_ms": float(np.median(measured)) * 1000,
                      "floor_ms": float(np.median(floors)) * 1000, "rss_mb": rss_mb,
                      "bytes": size, "pairs": pairs}))


def run(folder: Path, repeat: int, timeout: float = 1800) -> dict:
    """:func:`child` in a fresh Python process (the repository on its path); its JSON line."""
    root = Path(__file__).resolve().parents[1]
    code = f"import sys; sys.path.insert(0, {str(root)!r}); from benchmarks.rank_bench import " \
           f"child; child({str(folder)!r}, {int(repeat)})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip()
                           else f"exit {done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])
