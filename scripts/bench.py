"""Benchmarks: print how long start-up and the browse callback take, and how big a response is.

Speed is measured here, never asserted in tests. Run:  python scripts/bench.py [--repeat N]

It times, on the shipped data and on synthetic grids of growing size:
- load_catalog (start-up: read and validate every file once);
- the browse callback's work for one view (slice every panel, build its Plotly figure);
- the size of that work serialised as the callback would send it (float32 typed arrays);
- the /api/figures/<id>/cells payload.
The synthetic grids show that a callback costs in proportion to the cells it shows.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import plotly.io as pio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from components.heatmap import heatmap_figure  # noqa: E402
from evalmaps import load_catalog  # noqa: E402
from evalmaps.api import cells_payload  # noqa: E402
from evalmaps.slicing import color_range, select_panels, slice_panel  # noqa: E402


def timed(fn, repeat: int) -> float:
    """Median wall time of fn() in milliseconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def browse_work(figure):
    views = [slice_panel(figure, p) for p in select_panels(figure)]
    zrange = color_range(figure.spec, views, "figure")
    return [heatmap_figure(v, zrange) for v in views]


def synthetic(tmp: Path, side: int, panels: int) -> Path:
    labels = [str(i) for i in range(side)]
    models = [f"m{i}" for i in range(panels)]
    catalog = {"figures": [{
        "id": "synthetic", "file": "synthetic.csv", "title": "synthetic",
        "metric": {"name": "Accuracy", "unit": "%", "range": [0, 100]},
        "x": "x", "y": "y", "facets": ["model"],
        "dims": {"model": {"labels": models}, "y": {"labels": labels}, "x": {"labels": labels}},
        "zrange": [0, 100], "provenance": "illustrative"}]}
    folder = tmp / f"s{side}x{panels}"
    folder.mkdir()
    (folder / "catalog.json").write_text(json.dumps(catalog))
    rows = ["model,y,x,value"] + [f"{m},{y},{x},{(int(y) * 7 + int(x) * 3) % 1000 / 10:.1f}"
                                  for m in models for y in labels for x in labels]
    (folder / "synthetic.csv").write_text("\n".join(rows) + "\n")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print(f"plotly json engine: {pio.json.config.default_engine}")
    print(f"start-up  load_catalog (5 figures): {timed(load_catalog, args.repeat):7.1f} ms")
    catalog = load_catalog()
    print(f"\n{'figure':32} {'cells':>6} {'callback ms':>12} {'bytes':>9} {'api ms':>8}")
    for figure in catalog:
        ms = timed(lambda: browse_work(figure), args.repeat)
        size = sum(len(json.dumps(f)) for f in browse_work(figure))
        api_ms = timed(lambda: cells_payload(figure, {}), args.repeat)
        cells = sum(p.z.size for p in figure.panels.values())
        print(f"{figure.id:32} {cells:6d} {ms:12.1f} {size:9d} {api_ms:8.2f}")
    print(f"\n{'synthetic grid':32} {'cells':>6} {'callback ms':>12} {'bytes':>9} {'ms/1k cells':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for side, panels in ((10, 1), (20, 2), (40, 2), (40, 8)):
            figure = load_catalog(synthetic(Path(tmp), side, panels)).figure("synthetic")
            cells = side * side * panels
            ms = timed(lambda: browse_work(figure), max(3, args.repeat // 3))
            size = sum(len(json.dumps(f)) for f in browse_work(figure))
            print(f"{f'{side}x{side} x {panels} panels':32} {cells:6d} {ms:12.1f} {size:9d} "
                  f"{ms / cells * 1000:12.2f}")


if __name__ == "__main__":
    main()
