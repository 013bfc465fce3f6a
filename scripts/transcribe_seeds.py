"""Transcribe the numbers of the seed figure descriptions into tidy CSVs (one-off, reproducible).

Reads ``../shared/seeds/00[0,1,3,4]_*.txt`` and writes ``data/figures/<id>.csv`` with exactly the
cells each seed gives, as written (one row per cell). Cells a seed does not give are not written:
the catalog's label order defines the grid, and absent cells are missing.

Seed 002 gives no numbers; its illustrative values come from ``scripts/make_illustrative.py``.

    python scripts/transcribe_seeds.py [SEEDS_DIR]
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "figures"


def seed_text(seeds: Path, prefix: str) -> str:
    (path,) = seeds.glob(f"{prefix}_*.txt")
    return path.read_text(encoding="utf-8")


def type_by_length(text: str, type_re: str) -> list[tuple[str, str, str]]:
    """Rows of (type, length, value) from '**Type X...' headings followed by 'Length L: V%' bullets."""
    rows = []
    current = None
    for line in text.splitlines():
        head = re.match(type_re, line)
        if head:
            current = head.group(1)
            continue
        if line.startswith("### Key Observations"):
            break
        cell = re.match(r"\* Length (\d+): ([\d.]+)%", line)
        if cell and current is not None:
            rows.append((current, cell.group(1), cell.group(2)))
    return rows


def write(name: str, header: list[str], rows: list[tuple]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / f"{name}.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    print(f"wrote {name}.csv: {len(rows)} cells")


def main(seeds: Path) -> None:
    t000 = seed_text(seeds, "000")
    rows = type_by_length(t000, r"\* \*\*Type '(.+)':\*\*")
    write("core-generalization", ["model", "type", "length", "value"],
          [("Qwen-2.5B", t, n, v) for t, n, v in rows])

    t001 = seed_text(seeds, "001")
    rows = type_by_length(t001, r"\*\*Type (\d+)")
    write("short-to-long", ["model", "type", "length", "value"],
          [("Qwen-2.5 7B", t, n, v) for t, n, v in rows])

    t003 = seed_text(seeds, "003")
    rows = []
    bench = None
    names = {"GPQA D": "GPQA-Diamond"}
    for line in t003.splitlines():
        head = re.match(r"\*\*R1-Llama \| (.+):\*\*", line)
        if head:
            bench = names.get(head.group(1), head.group(1))
            continue
        cell = re.match(r"\s*\* Ratio ([\d.]+), Window (\d+): ([\d.]+)", line)
        if cell and bench:
            rows.append(("R1-Llama", bench, cell.group(2), cell.group(1), cell.group(3)))
    write("dynts-r1-llama-benchmarks", ["model", "benchmark", "window", "ratio", "value"], rows)

    t004 = seed_text(seeds, "004")
    rows = []
    model = None
    ratios = ["0.1", "0.2", "0.3", "0.4", "0.5"]
    for line in t004.splitlines():
        head = re.match(r"\*\*(R1-\w+) Heatmap", line)
        if head:
            model = head.group(1)
            continue
        cell = re.match(r"\* \*\*Row \d \(Local Window Size (\d+)\):\*\* Values[^:]*: ([\d., ]+)\.", line)
        if cell and model:
            values = [v.strip() for v in cell.group(2).split(",")]
            assert len(values) == 5, line
            rows += [(model, cell.group(1), r, v) for r, v in zip(ratios, values)]
    write("dynts-llama-vs-qwen", ["model", "window", "ratio", "value"], rows)


if __name__ == "__main__":
    default = ROOT.parent / "shared" / "seeds"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
