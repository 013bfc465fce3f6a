"""Make the ILLUSTRATIVE values of seed 002 (AceMath Figure 5), deterministically.

The seed gives no numbers. This script turns the trends it states into made-up values so the
figure can be shown; the catalog marks the figure ``provenance: illustrative`` and the UI and API
say so wherever it appears. Nothing here is a result. Re-running it rewrites the same file.

Stated trends encoded below:
- accuracy rises with training progress;
- the largest model (32b) is the highest at every step; smaller models are lower;
- Minerva Math and College Math dip at the start of training, then rise;
- "Average" is the mean of the seven benchmarks (computed here from the illustrative values).

    python scripts/make_illustrative.py
"""

from __future__ import annotations

import csv
from pathlib import Path

OUT = (Path(__file__).resolve().parent.parent / "data" / "figures"
       / "acemath-training-progress.illustrative.csv")

PROGRESS = ["0", "0.2", "0.4", "0.6", "0.8", "1"]
SIZES = ["32b", "7b", "1.5b", "0.5b"]
# (level of the 32b model at the end of training, whether the benchmark dips early)
BENCHMARKS = {
    "GSM8K": (95.0, False),
    "Math 500": (85.0, False),
    "Minerva Math": (60.0, True),
    "Gaokao2023EN": (78.0, False),
    "Olympiad Bench": (52.0, False),
    "College Math": (64.0, True),
    "MMMLU STEM": (85.0, False),
}
SIZE_FACTOR = {"32b": 1.0, "7b": 0.9, "1.5b": 0.72, "0.5b": 0.55}
START_FRACTION = 0.8  # a model starts at 80 % of its end-of-training level
DIP = {"0.2": 3.0}  # points lost at progress 0.2 on benchmarks that dip early


def value(bench: str, size: str, step: str) -> float:
    top, dips = BENCHMARKS[bench]
    end = top * SIZE_FACTOR[size]
    p = float(step)
    v = end * (START_FRACTION + (1 - START_FRACTION) * p)
    if dips and step in DIP:
        v = end * START_FRACTION - DIP[step]
    return round(v, 1)


def main() -> None:
    rows = []
    for bench in [*BENCHMARKS, "Average"]:
        for size in SIZES:
            for step in PROGRESS:
                if bench == "Average":
                    v = round(sum(value(b, size, step) for b in BENCHMARKS) / len(BENCHMARKS), 1)
                else:
                    v = value(bench, size, step)
                rows.append((bench, size, step, f"{v:.1f}"))
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["benchmark", "size", "progress", "value"])
        w.writerows(rows)
    print(f"wrote {OUT.name}: {len(rows)} illustrative cells")


if __name__ == "__main__":
    main()
