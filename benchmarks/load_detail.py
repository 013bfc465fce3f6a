"""Benchmark of the data path at the size of real results: load_folder, load_catalog and
``evalmaps import`` against ``pandas.read_csv`` on the same file, each in a fresh process.

Speed is measured here, never asserted in tests. Run:  python benchmarks/load_detail.py [--repeat N]

Files (generated in a temporary folder, deterministic):
- big.csv: 1000 x 1000 tidy cells (one panel), values with one decimal, ~1% missing;
- folder160k: 8 panels of 200 y x 100 x (160,000 cells) in one tidy CSV.
For each: wall time (median of --repeat runs) and peak RSS (ru_maxrss of the process), next to
the floor: pd.read_csv of the same file, and the RSS of a process that only imports pandas and
evalmaps.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PRELUDE = """
import json, resource, sys, time
import pandas as pd
import evalmaps, evalmaps.catalog.folders, evalmaps.catalog.load
def report(seconds):
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "rss_mb": rss}))
"""

SNIPPETS = {
    "baseline": "report(0.0)",
    "read_csv": "t = time.perf_counter(); pd.read_csv(sys.argv[1]); report(time.perf_counter() - t)",
    "load_folder": (
        "from evalmaps.catalog.folders import load_folder\n"
        "cache = sys.argv[2] or None\n"
        "t = time.perf_counter()\n"
        "figs = load_folder(sys.argv[1], cache_dir=cache) if cache else load_folder(sys.argv[1])\n"
        "report(time.perf_counter() - t)\n"
        "assert sum(f.n_cells for f in figs) > 0"),
    "load_catalog": (
        "from evalmaps.catalog.load import load_catalog\n"
        "cache = sys.argv[2] or None\n"
        "t = time.perf_counter()\n"
        "cat = load_catalog(sys.argv[1], cache_dir=cache) if cache else load_catalog(sys.argv[1])\n"
        "report(time.perf_counter() - t)"),
    "cli_import": (
        "from evalmaps.service.cli import main\n"
        "t = time.perf_counter()\n"
        "code = main(['import', sys.argv[1], '-o', sys.argv[2]])\n"
        "report(time.perf_counter() - t)\n"
        "assert code == 0"),
}


def tidy_csv(path: Path, models: int, ys: int, xs: int, seed: int = 0) -> int:
    """A tidy CSV of models x ys x xs cells, values with one decimal, ~1% left empty."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = models * ys * xs
    values = np.round(rng.uniform(0, 100, n), 1)
    texts = np.char.mod("%.1f", values).astype(object)
    texts[rng.random(n) < 0.01] = ""
    m = np.repeat([f"model-{i}" for i in range(models)], ys * xs)
    y = np.tile(np.repeat([str(100 * (i + 1)) for i in range(ys)], xs), models)
    x = np.tile([f"{j / xs:.3f}" for j in range(xs)], models * ys)
    lines = ["model,window,ratio,value"]
    lines += [",".join(r) for r in zip(m, y, x, texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return n


def catalog_for(folder: Path, file: str, models: int, ys: int, xs: int) -> None:
    entry = {
        "id": "bench", "file": file, "title": "bench",
        "metric": {"name": "Accuracy", "unit": "%", "range": [0, 100]},
        "x": "ratio", "y": "window", "facets": ["model"],
        "dims": {"model": {"labels": [f"model-{i}" for i in range(models)]},
                 "window": {"labels": [str(100 * (i + 1)) for i in range(ys)]},
                 "ratio": {"labels": [f"{j / xs:.3f}" for j in range(xs)]}},
        "provenance": "illustrative"}
    (folder / "catalog.json").write_text(json.dumps({"figures": [entry]}), encoding="utf-8")


def generate(tmp: Path, label: str, models: int, ys: int, xs: int) -> None:
    folder = tmp / f"folder-{label}"
    folder.mkdir()
    path = folder / f"{label}.csv"
    tidy_csv(path, models, ys, xs)
    cat = tmp / f"catalog-{label}"
    cat.mkdir()
    shutil.copy(path, cat / path.name)
    catalog_for(cat, path.name, models, ys, xs)


def run(kind: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", PRELUDE + SNIPPETS[kind], *args], env=env,
                          capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{kind} {args} failed:\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_s"] = wall
    return out


def median_of(repeat: int, kind: str, *args: str, before=None) -> dict:
    runs = []
    for _ in range(repeat):
        if before:
            before()
        runs.append(run(kind, *args))
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=["big", "160k"], default=None)
    parser.add_argument("--generate", nargs=5, metavar=("FOLDER", "LABEL", "MODELS", "YS", "XS"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:  # in a child process: the parent stays small, so that the measuring
        # processes it starts do not inherit its peak RSS (ru_maxrss survives fork and exec)
        tmp, label, models, ys, xs = args.generate
        generate(Path(tmp), label, int(models), int(ys), int(xs))
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base = median_of(args.repeat, "baseline")
        print(f"baseline (import pandas + evalmaps): rss {base['rss_mb']:.0f} MB")
        cases = [("big", 1, 1000, 1000), ("160k", 8, 200, 100)]
        for label, models, ys, xs in cases:
            if args.only and args.only != label:
                continue
            subprocess.run([sys.executable, __file__, "--generate", str(tmp), label, str(models),
                            str(ys), str(xs)], check=True)
            folder, cat = tmp / f"folder-{label}", tmp / f"catalog-{label}"
            path = folder / f"{label}.csv"
            n = models * ys * xs
            size = path.stat().st_size / 2**20
            print(f"\n{label}: {n} cells, {size:.1f} MB ({models} panel(s) of {ys} x {xs})")
            cache = tmp / f"cache-{label}"
            clear = lambda: shutil.rmtree(cache, ignore_errors=True)  # noqa: E731
            plan = [  # (row, kind, args, before each run)
                ("pd.read_csv (floor)", "read_csv", [str(path)], None),
                ("load_folder, no cache", "load_folder", [str(folder), ""], None),
                ("load_folder, cold cache", "load_folder", [str(folder), str(cache)], clear),
                ("load_folder, warm cache", "load_folder", [str(folder), str(cache)], None),
                ("load_catalog, no cache", "load_catalog", [str(cat), ""], None),
                ("load_catalog, cold cache", "load_catalog", [str(cat), str(cache)], clear),
                ("load_catalog, warm cache", "load_catalog", [str(cat), str(cache)], None),
                ("evalmaps import -o", "cli_import", [str(path), str(tmp / "out.csv")], None),
            ]
            runs: dict[str, list[dict]] = {name: [] for name, *_ in plan}
            for _ in range(args.repeat):  # interleaved: a busy moment of the machine hits all
                for name, kind, run_args, before in plan:
                    if before:
                        before()
                    runs[name].append(run(kind, *run_args))
            rows = [(name, {k: statistics.median(r[k] for r in runs[name]) for k in runs[name][0]})
                    for name, *_ in plan]
            floor = rows[0][1]
            print(f"{'':28} {'seconds':>8} {'x floor':>8} {'peak RSS MB':>12} "
                  f"{'over baseline':>14} {'whole process s':>16}")
            for name, r in rows:
                print(f"{name:28} {r['seconds']:8.3f} {r['seconds'] / floor['seconds']:8.2f} "
                      f"{r['rss_mb']:12.0f} {r['rss_mb'] - base['rss_mb']:14.0f} "
                      f"{r['process_s']:16.2f}")


if __name__ == "__main__":
    main()
