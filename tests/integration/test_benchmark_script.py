"""The benchmark script runs and prints a well-formed table (speed is never asserted here).

``benchmarks/run.py --quick --only load`` makes the small sweeps, loads them in fresh processes
and prints one markdown table: every row has a number or "failed: <reason>", and the printed
ratio is the printed evalmaps value over the printed floor. Every run also keeps its table in
``--out DIR`` (default benchmarks/results/); the tests give a temporary folder, so a test run
adds nothing to the checkout.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.run import UPLOAD_MEMORY_MB

ROOT = Path(__file__).resolve().parents[2]
RESULT_NAME = re.compile(r"^(\d{4}-\d\d-\d\d)T(\d\d)(\d\d)Z-([0-9a-f]{4,40}|unknown)\.md$")
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
    results = tmp_path / "results"  # made by the script
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--only", "load",
         "--markdown", str(markdown), "--out", str(results)],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    first = out.splitlines()[0]
    assert re.match(r"^Machine: \d+ CPUs \(nproc\), .+; \d{4}-\d\d-\d\d \d\d:\d\d", first), first
    assert markdown.read_text() == out
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    assert f"; commit {commit}" in first, first

    # the run's file in --out: <UTC date and time>-<short commit>.md, the machine facts on top,
    # then the table exactly as printed
    kept = list(results.iterdir())
    assert len(kept) == 1, kept
    name = RESULT_NAME.match(kept[0].name)
    assert name and name.group(4) == commit, kept[0].name
    text = kept[0].read_text(encoding="utf-8")
    head, _, table = text.partition("\n\nMachine: ")
    assert "Machine: " + table == out
    day, hour, minute = name.groups()[:3]
    assert head.splitlines()[0] == f"# Benchmark run, {day} {hour}:{minute} UTC, commit {commit}"
    assert re.search(r"^- cores: \d+ \(nproc\)$", head, re.M), head
    assert re.search(r"^- python: \d+\.\d+\.\d+", head, re.M), head
    assert re.search(rf"^- commit: {commit}( with uncommitted changes)?$", head, re.M), head
    assert "--quick --only load" in head
    assert f"table kept in {kept[0]}" in proc.stderr

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


def test_quick_soak_and_uploads_sections_measure_and_refuse(tmp_path):
    """A 4-second soak (the cells API, a page and the browse callback mixed, the same targets as
    the throughput section's) with worker RSS samples, and the hostile uploads, with the Python
    load generator (wrk is not needed): every row has numbers against a floor of the same run,
    and every hostile upload was refused by what should refuse it."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--only",
         "soak,uploads", "--soak-seconds", "4", "--load-tool", "python",
         "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = table_rows(proc.stdout)
    failed = [row for row in rows if row[1].startswith("failed: ")]
    assert failed == [], failed
    whats = [row[0] for row in rows]

    def numbers(row):
        (ev, ev_unit), (fl, fl_unit) = (NUMBER.match(row[1]).groups(),
                                        NUMBER.match(row[2]).groups())
        assert ev_unit == fl_unit, row
        assert abs(float(row[3]) - float(ev) / float(fl)) <= 0.01 * float(row[3]) + 0.01, row
        return float(ev), float(fl)

    # soak: the mix, its drift, and one RSS row per worker (2 workers), samples before and
    # after each of the 4 one-second runs
    soak = [row for row in rows if row[0].startswith("soak: ")]
    assert len(soak) == 6, whats
    assert soak[0][0].startswith("soak: mixed load (cells API, page, browse callback), 4 x 1 s")
    assert re.search(r"\(0 errors of [1-9]\d*\)", soak[0][0]), soak[0][0]
    workers = [row for row in soak if "RSS" in row[0]]
    assert [row[0] for row in workers] == [
        f"soak: worker {n} RSS, last sample vs first (5 samples)" for n in (1, 2)]
    for row in soak:
        numbers(row)
    # uploads: each hostile file refused, every time, by the check meant for it
    uploads = [row for row in rows if row[0].startswith("upload ")]
    assert [row[0].split(":")[0] for row in uploads] == [
        "upload 100,000-column CSV (0.9 MB)", "upload 1,000,000-row tidy CSV (11.1 MB)",
        "upload zip of 472 KB expanding to 190 MB"]
    assert "(refused by: columns; 2 of 2 as expected)" in uploads[0][0]
    assert re.search(r"\(refused by: (memory budget|time budget)(, time budget)?; "
                     r"2 of 2 as expected\)", uploads[1][0]), uploads[1][0]
    assert "(refused by: zip check; 2 of 2 as expected)" in uploads[2][0]
    assert all(row[4:] == ["refused", "yes"] for row in uploads), uploads
    # the other client's latencies (p50, p99, max for /healthz and the cells API) and each
    # worker's RSS before/after, all against a floor from the same run
    probes = [row for row in rows if "during hostile uploads" in row[0]]
    assert len(probes) == 6, whats
    for row in probes:
        numbers(row)
    assert sum(row[0].startswith("worker ") and "RSS after the hostile uploads" in row[0]
               for row in rows) == 2
    assert f"EVALMAPS_UPLOAD_MEMORY_MB={UPLOAD_MEMORY_MB}" in proc.stdout


def test_quick_payload_section_measures_compare_swap(tmp_path):
    """The swap row: the real app under gunicorn answers the page's swap (which holds the maps)
    with fewer bytes than a page holding nothing (bytes are counted, not timed)."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--only", "payload",
         "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = {row[0]: row for row in table_rows(proc.stdout)}
    swap = next(row for what, row in rows.items() if what.startswith("compare swap response"))
    ev, ev_unit = NUMBER.match(swap[1]).groups()
    fl, fl_unit = NUMBER.match(swap[2]).groups()
    assert ev_unit == fl_unit == "KB"
    assert 0 < float(ev) < float(fl), swap
    assert "swap: the page's response is" in proc.stdout


@pytest.mark.parametrize("value, text", [
    (None, "—"), (0.0413, "0.0413 s"), (9.996, "10 s"), (123.4, "123 s"), (999.4, "999 s"),
    (999.7, "1000 s"), (1082.4, "1082 s")])
def test_table_numbers_never_take_an_exponent(value, text):
    from benchmarks.run import fmt

    assert fmt(value, "s") == text


def test_a_run_is_kept_in_a_new_file_each_time(tmp_path):
    """Two runs in the same minute on the same commit are two files, named in UTC."""
    import datetime as dt

    from benchmarks.run import RESULTS, result_path

    assert RESULTS == ROOT / "benchmarks" / "results"
    started = dt.datetime(2026, 11, 23, 12, 24, 59, tzinfo=dt.timezone.utc)
    first = result_path(tmp_path, started, "a75b4c5")
    assert first.name == "2026-11-23T1224Z-a75b4c5.md"
    first.write_text("run 1")
    assert result_path(tmp_path, started, "a75b4c5").name == "2026-11-23T1224Z-a75b4c5-2.md"
    # a local time is written as UTC
    local = started.astimezone(dt.timezone(dt.timedelta(hours=2)))
    assert result_path(tmp_path / "x", local, "a75b4c5").name == "2026-11-23T1224Z-a75b4c5.md"


def test_results_folder_says_what_it_holds():
    text = (ROOT / "benchmarks" / "results" / "README.md").read_text(encoding="utf-8")
    assert "--out" in text and "<UTC date and time>-<short commit>.md" in text
