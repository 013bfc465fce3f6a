"""The benchmark script runs and prints a well-formed table (speed is never asserted here).

``benchmarks/run.py --quick --only load`` makes the small sweeps, loads them in fresh processes
and prints one markdown table: every row has a number or "failed: <reason>", and the printed
ratio is the printed evalmaps value over the printed floor.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEADER = ["what", "evalmaps", "floor", "ratio", "goal", "within goal?"]
NUMBER = re.compile(r"^(\d+(?:\.\d+)?(?:e[+-]?\d+)?) (s|ms|MB|KB|req/s)$")


def table_rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("|")]
    # cells are split on unescaped pipes (a failure reason may hold an escaped one)
    rows = [[cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
            for line in lines]
    assert rows[0] == HEADER
    assert set("".join(rows[1])) <= {"-"}, rows[1]  # the markdown separator
    return rows[2:]


def test_quick_load_section_prints_a_table_with_consistent_ratios(tmp_path):
    markdown = tmp_path / "bench.md"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--only", "load",
         "--markdown", str(markdown)],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    first = out.splitlines()[0]
    assert re.match(r"^Machine: \d+ CPUs \(nproc\), .+; \d{4}-\d\d-\d\d \d\d:\d\d", first), first
    assert markdown.read_text() == out

    rows = table_rows(out)
    whats = [row[0] for row in rows]
    # the load section: 8 panels (time), one panel (time, peak RSS) from a catalog folder and
    # from a plain folder of the same tidy CSV
    assert len(rows) == 5, whats
    assert sum("catalog folder" in w for w in whats) == 3
    assert sum("plain folder, auto import" in w for w in whats) == 2
    assert sum(w.endswith("peak RSS") for w in whats) == 2

    measured = 0
    for row in rows:
        assert len(row) == 6, row
        what, evalmaps, floor, ratio, goal, within = row
        if evalmaps.startswith("failed: "):
            assert len(evalmaps) > len("failed: ") and ratio == "—" and within == "—"
            continue
        ev, ev_unit = NUMBER.match(evalmaps).groups()
        fl, fl_unit = NUMBER.match(floor).groups()
        assert ev_unit == fl_unit == ("MB" if what.endswith("peak RSS") else "s")
        value = float(ratio)
        # printed with 3 significant digits: the ratio of the printed values, within rounding
        assert abs(value - float(ev) / float(fl)) <= 0.01 * value + 0.01, (evalmaps, floor, ratio)
        assert within in ({"yes", "no"} if goal != "—" else {"—"})
        if goal.startswith("≤ ") and goal.endswith("x") and abs(value - float(goal[2:-1])) > 0.01:
            assert within == ("yes" if value <= float(goal[2:-1]) else "no")
        measured += 1
    # the catalog-folder loads are of files the script itself wrote: they must succeed
    assert measured >= 3
