"""evalmaps at scale, side by side with floors measured in the same run.

    python benchmarks/run.py [--quick] [--only SECTION ...] [--out DIR] [--markdown FILE]
                             [--soak-seconds N] [--load-tool auto|wrk|python]

Sections: load, callback, payload, paint, transfer, throughput, soak, uploads, lighthouse, live
(see benchmarks/README.md).
Every measurement that fails prints "failed: <reason>" in its row and the run goes on. Speed is
reported here, never asserted in tests. Each run's table is also kept as
benchmarks/results/<UTC date and time>-<short commit>.md (--out DIR puts it elsewhere).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks import dash_requests, floors, hostile, throughput  # noqa: E402
from benchmarks import live as live_bench  # noqa: E402
from benchmarks.server import Gunicorn, request, rss_mb  # noqa: E402
from benchmarks.sweeps import Sweep, sweeps  # noqa: E402

SECTIONS = ("load", "items", "rank", "cli", "lab", "callback", "payload", "paint", "transfer",
            "throughput", "soak", "uploads", "lighthouse", "live", "objects")
# sections that need none of the sweeps written
OWN_DATA = {"soak", "uploads", "live", "rank", "cli", "lab", "objects"}
SERVER_SECTIONS = {"callback", "payload", "paint", "transfer", "throughput", "lighthouse"}
JSON = {"Content-Type": "application/json"}
# the upload budget of the soak and uploads server, low on purpose: below what importing the
# hostile 1,000,000-row CSV costs (about 110 MB since 2026-11-23; 150 MB refused it before)
UPLOAD_MEMORY_MB = 64
UPLOAD_SECONDS = 10


# ----------------------------------------------------------------------------- the table

@dataclass
class Row:
    what: str
    unit: str  # s, ms, MB, KB, req/s
    goal: str = "—"
    evalmaps: float | None = None
    floor: float | None = None
    failed: str | None = None
    within: Callable[[float, float | None], bool] | None = None

    @property
    def ratio(self) -> float | None:
        if self.evalmaps is None or not self.floor:
            return None
        return self.evalmaps / self.floor

    def cells(self) -> list[str]:
        if self.failed is not None:
            return [self.what, f"failed: {self.failed}", fmt(self.floor, self.unit), "—",
                    self.goal, "—"]
        ok = "—"
        if self.within is not None and self.evalmaps is not None:
            ok = "yes" if self.within(self.evalmaps, self.ratio) else "no"
        ratio = "—" if self.ratio is None else f"{self.ratio:.2f}"
        return [self.what, fmt(self.evalmaps, self.unit), fmt(self.floor, self.unit), ratio,
                self.goal, ok]


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    # 3 significant digits, never in exponent form (999.7 would be "1e+03")
    text = f"{value:.0f}" if abs(value) >= 999.5 else f"{value:.3g}"
    return f"{text} {unit}"


def ratio_at_most(limit: float):
    return lambda value, ratio: ratio is not None and ratio <= limit


def value_at_most(limit: float):
    return lambda value, ratio: value <= limit


HEADER = ["what", "evalmaps", "floor", "ratio", "goal", "within goal?"]


def table(rows: list[Row]) -> str:
    body = [HEADER] + [r.cells() for r in rows]
    widths = [max(len(line[i]) for line in body) for i in range(len(HEADER))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    body = [[c.replace("|", "\\|") for c in cells] for cells in body]
    widths = [max(len(line[i]) for line in body) for i in range(len(HEADER))]
    out = [line(HEADER), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(cells) for cells in body[1:]]
    return "\n".join(out)


def reason(exc: BaseException) -> str:
    message = getattr(exc, "msg", None)  # selenium: the message without the driver's stack
    text = " ".join(str(message or exc).split()) or type(exc).__name__
    if isinstance(exc, (KeyError, AssertionError, TypeError, IndexError)):
        text = f"{type(exc).__name__}: {text}"
    return text[:240]


def attempt(row: Row, fn: Callable[[], tuple[float | None, float | None]], log) -> Row:
    """Run one measurement into ``row``; a failure is written into the row, never raised."""
    try:
        row.evalmaps, floor = fn()
        if floor is not None:
            row.floor = floor
    except Exception as exc:  # noqa: BLE001 - every failure becomes a row
        row.failed = reason(exc)
        log(f"  {row.what}: failed: {row.failed}")
        if os.environ.get("EVALMAPS_BENCH_DEBUG"):
            traceback.print_exc()
    return row


def median_of(samples: list[float]) -> float:
    return statistics.median(samples)


# ----------------------------------------------------------------------------- the machine

def machine_line(extra: list[str]) -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        nproc = str(os.cpu_count())
    try:
        mem = next(int(line.split()[1]) // 1024 for line in Path("/proc/meminfo").read_text()
                   .splitlines() if line.startswith("MemTotal"))
        mem_text = f", {mem / 1024:.1f} GB RAM"
    except (OSError, StopIteration):
        mem_text = ""
    now = dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    return (f"Machine: {nproc} CPUs (nproc), {model}{mem_text}; {now}; Python "
            f"{platform.python_version()}" + "".join(f"; {e}" for e in extra))


def load_average() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def versions() -> list[str]:
    out = []
    for name in ("pandas", "plotly", "dash", "gunicorn", "orjson"):
        try:
            module = __import__(name)
            out.append(f"{name} {module.__version__}")
        except Exception:  # noqa: BLE001
            pass
    return out


def git_commit() -> tuple[str, bool]:
    """The checkout's short commit ("unknown" outside a git checkout) and whether its tracked
    files have changes not committed."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=30, check=True).stdout.strip()
    try:
        commit = git("rev-parse", "--short", "HEAD")
    except (OSError, subprocess.SubprocessError):
        return "unknown", False
    try:
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        dirty = False
    return commit, dirty


def result_path(out: Path, started: dt.datetime, commit: str) -> Path:
    """out/<UTC date and time>-<short commit>.md, a new file (a second run in the same minute on
    the same commit gets -2, -3, ...)."""
    stem = f"{started.astimezone(dt.timezone.utc):%Y-%m-%dT%H%MZ}-{commit}"
    path = out / f"{stem}.md"
    n = 2
    while path.exists():
        path = out / f"{stem}-{n}.md"
        n += 1
    return path


def result_text(text: str, started: dt.datetime, commit: str, dirty: bool,
                argv: list[str]) -> str:
    """A run's file: the machine facts (cores, Python, commit, command) on top, then the table
    as printed."""
    cores = os.cpu_count()
    try:
        cores = int(subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip())
    except (OSError, ValueError):
        pass
    command = " ".join(["python", "benchmarks/run.py", *argv])
    facts = [
        f"# Benchmark run, {started.astimezone(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"commit {commit}",
        "",
        f"- cores: {cores} (nproc)",
        f"- python: {platform.python_version()} ({platform.python_implementation()})",
        f"- commit: {commit}" + (" with uncommitted changes" if dirty else ""),
        f"- command: `{command}`",
    ]
    return "\n".join(facts) + "\n\n" + text


# ----------------------------------------------------------------------------- load

LOAD_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[3])
import pandas as pd
from evalmaps.catalog.folders import load_folder


def hwm_mb():
    # VmHWM: this process's peak resident set since exec (ru_maxrss would also count the
    # parent's size at fork time)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024


mode, path = sys.argv[1], sys.argv[2]
base = hwm_mb()
start = time.perf_counter()
try:
    result = pd.read_csv(path) if mode == "read_csv" else load_folder(path)
except Exception as exc:
    print(json.dumps({"error": " ".join(str(exc).split()) or type(exc).__name__}))
    sys.exit(0)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_mb": hwm_mb(), "base_mb": base}))
"""


def load_once(mode: str, path: Path, timeout: float = 600) -> dict:
    """One load in a fresh Python process (same imports for both modes): time and peak RSS."""
    proc = subprocess.run([sys.executable, "-c", LOAD_CHILD, mode, str(path), str(ROOT)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"the loader exited with {proc.returncode}: "
                           f"{(proc.stderr.strip().splitlines() or ['no output'])[-1]}")
    result = json.loads(lines[-1])
    if "error" in result:
        raise RuntimeError(result["error"])
    return result


def load_median(mode: str, path: Path, repeat: int) -> dict:
    runs = [load_once(mode, path) for _ in range(repeat)]
    return {"seconds": median_of([r["seconds"] for r in runs]),
            "peak_mb": median_of([r["peak_mb"] for r in runs]),
            "base_mb": median_of([r["base_mb"] for r in runs])}


def section_load(ctx: "Context") -> list[Row]:
    rows = []
    notes = ctx.notes
    base = None
    small, big = ctx.sweeps
    for sweep, goal in ((small, False), (big, True)):
        csv_path = ctx.csv[sweep.id]
        size = human_bytes(csv_path.stat().st_size)
        ctx.log(f"load: {sweep.id} ({size})")
        try:
            floor = load_median("read_csv", csv_path, ctx.repeat)
        except Exception as exc:  # noqa: BLE001
            floor = None
            ctx.log(f"  read_csv failed: {reason(exc)}")
        variants = [("catalog folder", ctx.folders[sweep.id])]
        if goal:
            variants.append(("plain folder, auto import", ctx.plain[sweep.id]))
        for label, folder in variants:
            cells = label_cells(sweep)
            time_row = Row(f"load {cells} ({label}, {size} CSV): time", "s",
                           "≤ 3x" if goal else "—", within=ratio_at_most(3) if goal else None)
            mem_row = Row(f"load {cells} ({label}): peak RSS", "MB",
                          "≤ 400 MB" if goal else "—", within=value_at_most(400) if goal else None)
            measured: dict = {}

            def run_load(folder=folder):
                measured.update(load_median("load_folder", folder, ctx.repeat))
                return measured["seconds"], floor["seconds"] if floor else None

            attempt(time_row, run_load, ctx.log)
            if floor:
                mem_row.floor = floor["peak_mb"]
            if time_row.failed:
                mem_row.failed = time_row.failed
            else:
                mem_row.evalmaps = measured["peak_mb"]
            rows += [time_row] + ([mem_row] if goal else [])
        if floor:
            base = floor["base_mb"]
    notes.append("load: each load runs in a fresh Python process (median of "
                 f"{ctx.repeat}); floor = pandas.read_csv(path) with its defaults on the same "
                 "file; peak RSS (VmHWM) is the whole process, Python, pandas and evalmaps "
                 "imported" + (f" ({base:.0f} MB before loading)." if base else "."))
    return rows


def items_file(path: Path, models: int, configs: int, benchmarks: int, items: int,
               samples: int) -> int:
    """A per-item Parquet table (model, config, benchmark, item, sample, score: 0/1, seeded) of
    models x configs x benchmarks x items x samples records, as a harness's export would be;
    its record count."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = models * configs * benchmarks * items * samples
    i = np.arange(n)
    rng = np.random.default_rng(27)
    table = pa.table({
        "model": pa.array([f"model-{k}" for k in range(models)]).take(
            pa.array(i // (configs * benchmarks * items * samples))),
        "config": pa.array([f"window-{k}" for k in range(configs)]).take(
            pa.array((i // (benchmarks * items * samples)) % configs)),
        "benchmark": pa.array([f"bench-{k}" for k in range(benchmarks)]).take(
            pa.array((i // (items * samples)) % benchmarks)),
        "item": pa.array([str(k) for k in range(items)]).take(pa.array((i // samples) % items)),
        "sample": pa.array(i % samples),
        "score": pa.array((rng.random(n) < 0.5).astype(np.float64))})
    pq.write_table(table, path)
    return n


def ingest_rows(ctx: "Context") -> list[Row]:
    """Ingesting per-item records: a Parquet per-item table imported (cells and records), against
    pyarrow reading the same file; each the median of a few runs in this process."""
    import io

    import pyarrow.parquet as pq

    from evalmaps.catalog import items as item_store
    from evalmaps.catalog.imports import import_bytes

    shape = (2, 25, 4, 500, 10) if not ctx.quick else (2, 5, 4, 500, 10)
    path = ctx.tmp / "items.parquet"
    n = items_file(path, *shape)
    data = path.read_bytes()
    runs = 15 if not ctx.quick else 3
    label = f"{n:,} records ({human_bytes(len(data))} Parquet)"
    ctx.log(f"items: ingest of {label}")
    ingest = Row(f"ingest {label}: time", "s", "≤ 1.5x" if not ctx.quick else "—",
                 within=ratio_at_most(1.5) if not ctx.quick else None)
    write = Row(f"ingest {label}: records written as Parquet", "s")
    imported: dict = {}

    def timed(fn) -> float:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            fn()
            times.append(time.perf_counter() - started)
        return median_of(times)

    def run_ingest():
        # the two taken in turn, so that the machine's load at any time weighs on both
        floors, times = [], []
        imported.update(i=import_bytes(data, path.name, max_bytes=None)[0])  # a first, warm-up run
        for _ in range(runs):
            for out, fn in ((floors, lambda: pq.read_table(io.BytesIO(data))),
                            (times, lambda: imported.update(
                                i=import_bytes(data, path.name, max_bytes=None)[0]))):
                started = time.perf_counter()
                fn()
                out.append(time.perf_counter() - started)
        return median_of(times), median_of(floors)

    attempt(ingest, run_ingest, ctx.log)

    def run_write():
        records = imported["i"].items
        dims = [*imported["i"].spec["facets"], imported["i"].spec["y"], imported["i"].spec["x"]]
        return timed(lambda: item_store.save(ctx.tmp / "items-out", dims, records)), \
            timed(lambda: pq.write_table(records, ctx.tmp / "plain.parquet"))

    if not ingest.failed:
        attempt(write, run_write, ctx.log)
    ctx.notes.append(f"items: {label}, 0/1 scores; ingest = import_bytes of the file (cells and "
                     f"records in memory: what an upload or a data folder does before keeping "
                     f"them), floor = pyarrow.parquet.read_table of the same bytes; the write "
                     f"(sorted, zstd) against pyarrow.parquet.write_table of the records, no "
                     f"goal. Medians of {runs} runs in one process, the ingest and its floor taken "
                     f"in turn after a warm-up run.")
    return [ingest, write]


def human_bytes(n: int) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n / 1024:.0f} KB"


def label_cells(sweep: Sweep) -> str:
    cells = sweep.cells
    text = f"{cells / 1e6:g}e6" if cells >= 1e6 else f"{cells / 1000:g}k"
    return f"{text} cells in {sweep.panels} panel{'s' * (sweep.panels != 1)} of " \
           f"{sweep.rows}x{sweep.cols}"


# ----------------------------------------------------------------------------- callback, payload

def http_get(port: int):
    def get(path: str) -> bytes:
        r = request(port, "GET", path)
        if r.status != 200:
            raise RuntimeError(f"GET {path} answered {r.status}: {r.body[:160]!r}")
        return r.body
    return get


def http_post(port: int):
    def post(path: str, body: bytes) -> bytes:
        r = request(port, "POST", path, body, JSON)
        if r.status != 200:
            raise RuntimeError(f"POST {path} answered {r.status}: {r.body[:160]!r}")
        return r.body
    return post


def browse_call(ctx: "Context", sweep: Sweep) -> dict:
    """The browse callback for ``?figure=<sweep>``: its body, timings and response size."""
    if sweep.id in ctx.calls:
        return ctx.calls[sweep.id]
    ctx.require_figure(sweep.id)
    port = ctx.server.port
    body, _page = dash_requests.browse_request(http_get(port), http_post(port), sweep.id)
    size, calls = None, []
    budget = ctx.budget(sweep)
    started = time.monotonic()
    warmups = 2  # gunicorn has two workers: let both run the callback once
    for i in range(warmups + ctx.callback_repeat):
        r = request(port, "POST", "/_dash-update-component", body, JSON,
                    timeout=max(60.0, budget))
        if r.status != 200:
            raise RuntimeError(f"the callback answered {r.status}: {r.body[:200]!r}")
        if size is None:
            size = len(r.body)
            shown = len(dash_requests.figures_in(
                dash_requests.response_outputs(r.body).get("browse-graphs.children")))
            if shown != sweep.panels:
                raise RuntimeError(f"the callback drew {shown} heatmaps, not {sweep.panels}")
        calls.append(r.seconds)
        if time.monotonic() - started > budget and len(calls) >= 2:
            break
    samples = calls[warmups:] or calls[-1:]  # out of time during the warm-ups: the last call
    if not samples:
        raise RuntimeError("no timed call within the time budget")
    gz = request(port, "POST", "/_dash-update-component", body,
                 {**JSON, "Accept-Encoding": "gzip, br"}, timeout=max(60.0, budget))
    result = {"body": body, "seconds": median_of(samples), "n": len(samples), "bytes": size,
              "wire": len(gz.body), "encoding": gz.headers.get("content-encoding", "identity")}
    ctx.calls[sweep.id] = result
    return result


def sweep_grids(sweep: Sweep) -> list[np.ndarray]:
    return [sweep.grid(p) for p in range(sweep.panels)]


def section_callback(ctx: "Context") -> list[Row]:
    rows = []
    for sweep in ctx.sweeps:
        ctx.log(f"callback: {sweep.id}")
        # the goal is at 1e6 cells; at 160k in 8 panels the floor is half a millisecond
        # and each panel's fixed cost (its hover, ranges, frame) dominates: shown, no goal
        at_scale = sweep.cells >= 1_000_000
        row = Row(f"browse callback, {label_cells(sweep)}: server time", "ms",
                  "≤ 1.5x" if at_scale else "—", within=ratio_at_most(1.5) if at_scale else None)

        def measure(sweep=sweep):
            floor = floors.json_floor_seconds(sweep_grids(sweep)) * 1000
            call = browse_call(ctx, sweep)
            return call["seconds"] * 1000, floor

        attempt(row, measure, ctx.log)
        if not row.failed:
            row.what += f" (median of {ctx.calls[sweep.id]['n']})"
        rows.append(row)
    ctx.notes.append("callback: server time = HTTP round trip of POST /_dash-update-component on "
                     "127.0.0.1 (after one warm-up call per worker), body built from "
                     "/_dash-layout, the routing callback's page and /_dash-dependencies, "
                     "trigger browse-rows.value (a slicing change on ?figure=<id>). Floor = "
                     "orjson.dumps of the shown grids alone as float32 base64 typed arrays, in this process.")
    return rows


def section_payload(ctx: "Context") -> list[Row]:
    rows = []
    for sweep in ctx.sweeps:
        ctx.log(f"payload: {sweep.id}")
        row = Row(f"browse callback response, {label_cells(sweep)}: bytes", "KB", "≤ 1.5x",
                  within=ratio_at_most(1.5))

        def measure(sweep=sweep):
            floor = floors.payload_floor_bytes(sweep_grids(sweep), sweep.x_labels,
                                               sweep.y_labels) / 1024
            call = browse_call(ctx, sweep)
            return call["bytes"] / 1024, floor

        attempt(row, measure, ctx.log)
        rows.append(row)
        call = ctx.calls.get(sweep.id)
        if call:
            ctx.notes.append(f"payload {sweep.id}: {call['bytes']:,} bytes uncompressed; with "
                             f"Accept-Encoding gzip, br the server sends {call['wire']:,} bytes "
                             f"({call['encoding']}).")
    rows.append(swap_row(ctx))
    ctx.notes.append("payload: floor = bytes of orjson.dumps of the shown grids as float32 "
                     "base64 typed arrays (4 bytes per cell, base64) plus their x and y labels; "
                     "evalmaps = the callback's response body, uncompressed.")
    return rows


def swap_row(ctx: "Context") -> Row:
    """Compare's swap of two 200x100 panels: the response the page gets (it holds the maps'
    arrays, components.reuse) against the response a page holding no maps gets (every value and
    hover datum of the three maps): "bytes, not megabytes"."""
    small = ctx.sweeps[0]
    row = Row(f"compare swap response, 2 panels of {small.rows}x{small.cols}: bytes", "KB",
              "≤ 0.1x", within=ratio_at_most(0.1))

    def measure():
        ctx.require_figure(small.id)
        port = ctx.server.port
        query = f"a={small.panel_key(0)}&b={small.panel_key(1)}"
        lean, whole, _page = dash_requests.compare_request(http_get(port), http_post(port), query)
        sizes = []
        for body in (lean, whole):
            r = request(port, "POST", "/_dash-update-component", body, JSON, timeout=120)
            if r.status != 200:
                raise RuntimeError(f"the swap answered {r.status}: {r.body[:200]!r}")
            sizes.append(len(r.body))
        a, b = small.grid(0), small.grid(1)
        values = floors.payload_floor_bytes([a, b, b - a], small.x_labels, small.y_labels)
        ctx.notes.append(f"swap: the page's response is {sizes[0]:,} bytes; the floor is the "
                         f"response to a page holding no maps, {sizes[1]:,} bytes (the three "
                         f"maps' values alone, as float32 base64, are {values:,} bytes). What "
                         f"is left: labels, hover templates, the sparse traces of missing "
                         f"cells, the summary.")
        return sizes[0] / 1024, sizes[1] / 1024

    attempt(row, measure, ctx.log)
    return row


# ----------------------------------------------------------------------------- paint

def paint_pages(ctx: "Context") -> list[tuple[str, str, int, list[np.ndarray], Sweep, str, Callable]]:
    small, big = ctx.sweeps
    a, b = small.grid(0), small.grid(1)
    delta = b - a  # NaN where either is missing, as the app's B - A map
    return [
        (f"paint browse, {label_cells(small)}", f"/?figure={small.id}", small.panels,
         sweep_grids(small), small, "≤ 1.5x", ratio_at_most(1.5)),
        (f"paint browse, {label_cells(big)}", f"/?figure={big.id}", big.panels,
         sweep_grids(big), big, "≤ 2x", ratio_at_most(2)),
        (f"paint compare, 2 panels of {small.rows}x{small.cols} (A, B, B − A)",
         f"/compare?a={small.panel_key(0)}&b={small.panel_key(1)}", 3, [a, b, delta], small,
         "≤ 1.5x", ratio_at_most(1.5)),
    ]


def paint_against_floor(browser, static, url: str, expected: int, graphs: int,
                        floor_page: Callable[[list[dict]], str], name: str, runs: int,
                        budget: float | None = None) -> tuple[float, float, int]:
    """A page's paint against its floor, as every paint row measures it: two warm-up
    navigations (V8 runs a script from its code cache from the third load on; caches filled),
    the page's ``graphs`` graphs' boxes read (:meth:`Browser.graph_boxes`) and the floor page
    made from them (``floor_page(boxes)``: its HTML, published as ``name``), two warm-ups of
    the floor alike, then page and floor alternately ``runs`` times (fewer past ``budget``
    seconds): (median ms of the page, median ms of the floor, runs made)."""
    started = time.monotonic()
    for _ in range(2):
        browser.paint(url, expected)
    boxes = browser.graph_boxes()
    if len(boxes) != graphs:
        raise RuntimeError(f"the page has {len(boxes)} graphs, not {graphs}")
    floor_url = static.publish(name, floor_page(boxes))
    for _ in range(2):
        browser.paint(floor_url, expected)
    app, floor = [], []
    for _ in range(runs):
        app.append(browser.paint(url, expected))
        floor.append(browser.paint(floor_url, expected))
        if budget is not None and time.monotonic() - started > budget:
            break
    return median_of(app), median_of(floor), len(app)


def section_paint(ctx: "Context") -> list[Row]:
    from benchmarks.browser import Browser

    rows = []
    static = floors.StaticServer()
    browser = None
    try:
        browser = Browser()
        ctx.extra_versions.append(browser.version())
        for n, (what, path, expected, grids, sweep, goal, within) in enumerate(paint_pages(ctx)):
            ctx.log(f"paint: {path}")
            runs = ctx.paint_repeat
            row = Row(what + (f" (median of {runs})" if runs > 1 else ""), "ms", goal,
                      within=within)

            def measure(path=path, expected=expected, grids=grids, sweep=sweep, n=n):
                ctx.require_figure(sweep.id)

                def floor_page(boxes):
                    return floors.static_page(
                        grids, sweep.x_labels, sweep.y_labels,
                        [(b["width"], b["height"]) for b in boxes],
                        zranges=[(0, 100)] * (len(grids) - 1) + [
                            (-100, 100) if path.startswith("/compare") else (0, 100)])

                app, floor, done = paint_against_floor(
                    browser, static, ctx.server.base + path, expected, len(grids), floor_page,
                    f"floor{n}.html", runs, budget=max(240.0, ctx.budget(sweep) * 3))
                if done != runs:
                    row.what += f" (only {done} runs in the time budget)"
                return app, floor

            attempt(row, measure, ctx.log)
            rows.append(row)
        rows.append(dash_floor_row(ctx, browser, static))
    except Exception as exc:  # noqa: BLE001 - no browser: every paint row fails, the run goes on
        for what, *_ in paint_pages(ctx)[len(rows):]:
            rows.append(Row(what, "ms", failed=reason(exc)))
    finally:
        if browser is not None:
            browser.close()
        static.close()
    ctx.notes.append("paint: ms from navigation start (performance.now()) until every expected "
                     "Plotly graph holds a drawn heatmap (no pending Plotly promise, "
                     ".heatmaplayer image set) plus one frame; two warm-up navigations each "
                     "(V8's code cache serves a script from its third load), then app and floor "
                     f"alternately, median of {ctx.paint_repeat}, warm HTTP cache, headless Chromium "
                     "1400x1000. Floor = a static page drawing the same grids at the same sizes "
                     "with Plotly.newPlot, the installed plotly package's plotly.min.js, float32 "
                     "typed arrays and one hovertemplate. The bare Dash app (no goal): one "
                     "dcc.Graph per figure of that static page and nothing else, as Dash serves "
                     "it by default (benchmarks/floors.py, DashFloor).")
    return rows


ITEMS_PER_CELL = 12_032  # MMLU-Pro's questions: the largest per-cell list the issue names
ITEMS_FIGURE = "bench-items"

# Enter on the cell of B − A (what assets/evalmaps-items.js hands to Dash), once the page is
# drawn; then ms until the list shows its rows (and a frame has passed). The list's grid, and
# AG Grid's code, come only when a cell is opened (components/items.py), so both are counted.
ITEMS_OPENED = """
const done = arguments[arguments.length - 1];
(function ready() {
  if (!document.getElementById('compare-items') || !window.dash_clientside ||
      !window.dash_clientside.set_props) { setTimeout(ready, 20); return; }
  const start = performance.now();
  window.dash_clientside.set_props('compare-items-open', {data: {y: 'all', x: 'test', t: start}});
  (function poll() {
    if (document.querySelector('#compare-items-grid .ag-center-cols-container .ag-row')) {
      requestAnimationFrame(function () { setTimeout(function () { done(performance.now() - start); }, 0); });
      return;
    }
    setTimeout(poll, 5);
  })();
})();
"""

# performance.now() once the Compare page's items list shows its rows (and a frame has passed)
ITEMS_PAINTED = """
const done = arguments[arguments.length - 1];
(function poll() {
  if (document.querySelector('#compare-items-grid .ag-center-cols-container .ag-row')) {
    requestAnimationFrame(function () { setTimeout(function () { done(performance.now()); }, 0); });
    return;
  }
  setTimeout(poll, 5);
})();
"""


def items_figure(folder: Path):
    """Two models' accuracy on one cell of 12,032 items (one sample each, seeded 0/1 scores,
    prompts and responses of MMLU-Pro's size), its records kept in ``folder``."""
    import pandas as pd

    from evalmaps.catalog.items import ItemRecords
    from evalmaps.catalog.load import parse_spec, validate_cells
    from evalmaps.core.figure import Figure

    rng = np.random.default_rng(27)
    dims = ["model", "category", "split"]
    items = [f"{n:05d}" for n in range(ITEMS_PER_CELL)]
    scores, values = [], []
    for model, p in (("llama-2-7b", 0.19), ("llama-2-13b", 0.26)):
        right = (rng.random(ITEMS_PER_CELL) < p).astype(float)
        scores.append(pd.DataFrame({"model": model, "category": "all", "split": "test",
                                    "item": items, "score": right}))
        values.append({"model": model, "category": "all", "split": "test",
                       "value": repr(float(right.mean()))})
    texts = pd.DataFrame({"model": "llama-2-7b", "category": "all", "split": "test",
                          "item": items, "prompt": ["Question? " + "x" * 600] * ITEMS_PER_CELL})
    spec = parse_spec({
        "id": ITEMS_FIGURE, "file": f"{ITEMS_FIGURE}.csv", "title": "Items benchmark",
        "metric": {"name": "accuracy", "unit": "", "range": [0, 1]}, "x": "split",
        "y": "category", "facets": ["model"], "provenance": "illustrative",
        "dims": {"model": {"title": "Model", "labels": ["llama-2-7b", "llama-2-13b"]},
                 "category": {"title": "Category", "labels": ["all"]},
                 "split": {"title": "Split", "labels": ["test"]}},
    }, where="benchmark")
    cells, decimals = validate_cells(pd.DataFrame(values), spec, file=f"{ITEMS_FIGURE}.csv")
    figure = Figure(spec, cells, decimals)
    figure.items = ItemRecords.write(folder, dims, pd.concat(scores, ignore_index=True), texts)
    return figure


def _items_server(ctx: "Context"):
    """The app in this process on a threaded werkzeug server, with the items figure in its
    catalog (until data folders of per-item records are read, no gunicorn serves one); the
    server, its Compare URL of the figure's two models, and a function that stops it."""
    import threading

    from werkzeug.serving import make_server

    import app as webapp

    catalog = webapp.app.server.extensions["evalmaps"]["catalog"]
    if ITEMS_FIGURE not in catalog:
        catalog.figures[ITEMS_FIGURE] = items_figure(ctx.tmp / "items")
    server = make_server("127.0.0.1", 0, webapp.app.server, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = (f"http://127.0.0.1:{server.server_port}/compare?a={ITEMS_FIGURE}:llama-2-7b"
           f"&b={ITEMS_FIGURE}:llama-2-13b")
    return url, server.shutdown


def _check_all_tab(browser) -> None:
    text = browser.driver.execute_script(
        "return document.querySelectorAll('#compare-items-which label')[4].textContent;")
    if text != f"All ({ITEMS_PER_CELL:,})":
        raise RuntimeError(f"the list's All tab reads {text!r}")


def items_paint_row(ctx: "Context") -> list[Row]:
    """A 12,032-item list of one cell paints in under 2x the paint of the comparison itself:
    Enter on the cell of B − A until the list shows its rows, against the Compare page's paint
    (its three maps), in the same run. A second row, with no goal: the page opened with the list
    in its URL (``cell=``: maps and list) against the same page without it."""
    from benchmarks.browser import Browser

    opened = Row(f"open one cell's list of {ITEMS_PER_CELL:,} items (Enter on B − A) until its "
                 "rows paint, against the comparison's paint", "ms", "≤ 2x",
                 within=ratio_at_most(2))
    linked = Row(f"paint compare with the list of {ITEMS_PER_CELL:,} items in its URL, against "
                 "the comparison alone", "ms")
    results: dict[str, list[float]] = {"alone": [], "open": [], "linked": []}

    def measure():
        base, stop = _items_server(ctx)
        browser = Browser()
        try:
            for n in range(2 + ctx.paint_repeat):  # two warm-ups of each
                alone = browser.paint(base, 3)
                took = browser.driver.execute_async_script(ITEMS_OPENED)
                _check_all_tab(browser)
                browser.paint(base + "&cell=all%7Ctest", 3)
                painted = browser.driver.execute_async_script(ITEMS_PAINTED)
                _check_all_tab(browser)
                if n >= 2:
                    results["alone"].append(alone)
                    results["open"].append(float(took))
                    results["linked"].append(float(painted))
            return median_of(results["open"]), median_of(results["alone"])
        finally:
            browser.close()
            stop()

    attempt(opened, measure, ctx.log)
    if results["linked"]:
        linked.evalmaps, linked.floor = median_of(results["linked"]), median_of(results["alone"])
    else:
        linked.failed = opened.failed or "not measured"
    return [opened, linked]


def items_paint_rows(ctx: "Context") -> list[Row]:
    """:func:`items_paint_row` with its note."""
    rows = items_paint_row(ctx)
    ctx.notes.append("items: the Compare page of two models on one cell of 12,032 items (app in "
                     "this process, threaded werkzeug server). Open: from the Enter on the cell "
                     "of B − A (the page drawn; the list's grid and AG Grid's code come then) until "
                     "the list's AG Grid shows rows, plus "
                     "one frame; floor: the page's paint as in paint (its three maps drawn). "
                     "Linked: the page with cell= in its URL until its list shows rows. Medians "
                     "of the paint repeats after two warm-ups of each.")
    return rows


DASH_FLOOR_WHAT = "paint compare against a bare Dash app of the floor's three maps"


def dash_floor_row(ctx: "Context", browser, static: floors.StaticServer) -> Row:
    """Compare against a Dash app of nothing but three ``dcc.Graph`` holding the static floor's
    figures (:class:`floors.DashFloor`): what Dash's own start costs, with no goal. The app,
    the Dash app and the static page load in turn; the row says the Dash app's ratio to the
    static page too."""
    small = ctx.sweeps[0]
    runs = ctx.paint_repeat
    row = Row(DASH_FLOOR_WHAT + (f" (median of {runs})" if runs > 1 else ""), "ms")
    path, expected = next((p, n) for _, p, n, *_ in paint_pages(ctx) if p.startswith("/compare"))
    grids = next(g for _, p, _, g, *_ in paint_pages(ctx) if p.startswith("/compare"))

    def measure():
        ctx.require_figure(small.id)
        url = ctx.server.base + path
        for _ in range(2):
            browser.paint(url, expected)
        boxes = [(b["width"], b["height"]) for b in browser.graph_boxes()]
        zranges = [(0, 100), (0, 100), (-100, 100)]
        figures = floors.floor_figures(grids, small.x_labels, small.y_labels, boxes, zranges)
        floor_url = static.publish("floor-dash.html", floors.static_page(
            grids, small.x_labels, small.y_labels, boxes, zranges))
        dash_floor = floors.DashFloor(figures)
        try:
            for _ in range(2):
                browser.paint(dash_floor.url, expected)
                browser.paint(floor_url, expected)
            app, bare, page = [], [], []
            for _ in range(runs):
                app.append(browser.paint(url, expected))
                bare.append(browser.paint(dash_floor.url, expected))
                page.append(browser.paint(floor_url, expected))
        finally:
            dash_floor.close()
        bare_ms, page_ms = median_of(bare), median_of(page)
        row.what += (f"; that Dash app paints in {fmt(bare_ms, 'ms')}, "
                     f"{bare_ms / page_ms:.2f}x the static page's {fmt(page_ms, 'ms')}")
        return median_of(app), bare_ms

    return attempt(row, measure, ctx.log)


# ----------------------------------------------------------------------------- transfer

def section_transfer(ctx: "Context") -> list[Row]:
    from benchmarks.browser import Browser

    cold = Row("transfer of /, cold (fresh profile)", "KB", "≤ 2.5 MB",
               within=value_at_most(2.5 * 1024))
    warm = Row("transfer of /, warm reload (same session)", "KB", "≤ 150 KB",
               within=value_at_most(150))
    colds, warms, details = [], [], []

    def measure_cold():
        figures = json.loads(http_get(ctx.server.port)("/api/figures"))["figures"]
        expected = len(figures[0]["panels"])  # / shows the catalog's first figure
        for _ in range(ctx.repeat):
            browser = Browser()
            try:
                browser.arm(expected)
                browser.driver.get(ctx.server.base + "/")
                browser.wait_painted(120)
                first = browser.transferred()
                colds.append(first["bytes"] / 1024)
                browser.reload_painted(120)
                second = browser.transferred()
                warms.append(second["bytes"] / 1024)
                details.append((first, second))
            finally:
                browser.close()
        return median_of(colds), None

    attempt(cold, measure_cold, ctx.log)
    if cold.failed:
        warm.failed = cold.failed
    else:
        warm.evalmaps = median_of(warms)
        first, second = details[0]
        ctx.notes.append(
            f"transfer: Chromium Resource Timing, transferSize (headers + body as sent) of the "
            f"navigation and every resource including Dash's fetches, counted once all heatmaps "
            f"are painted and no request started for 750 ms; median of {len(colds)} fresh "
            f"profiles. Cold: {first['resources']} resources. Warm = location.reload() in the "
            f"same session (HTTP cache honoured): {second['from_cache']} of "
            f"{second['resources']} resources from cache, {second['revalidated']} revalidated.")
    return [cold, warm]


# ----------------------------------------------------------------------------- throughput

def load_targets(ctx: "Context", port: int, rows: list[Row] | None = None
                 ) -> list[tuple[str, str, bytes | None]]:
    """(label, path, POST body or None) of the load tests: the cells API, a page, the browse
    callback, each for the catalog's first figure. A target that cannot be built is left out
    (with a failed row when ``rows`` is given)."""
    figures = json.loads(http_get(port)("/api/figures"))["figures"]
    default = figures[0]["id"]
    targets: list[tuple[str, str, bytes | None]] = [
        (f"cells API /api/figures/{default}/cells", f"/api/figures/{default}/cells", None),
        ("page / (HTML)", "/", None)]
    try:
        body, _ = dash_requests.browse_request(http_get(port), http_post(port), default)
        targets.append((f"browse callback (POST /_dash-update-component, {default})",
                        "/_dash-update-component", body))
    except Exception as exc:  # noqa: BLE001
        if rows is not None:
            rows.append(Row("throughput browse callback: req/s", "req/s", failed=reason(exc)))
    return targets


def load_rows(label: str, result: dict, floor, rps: Row) -> list[Row]:
    """p50 and p99 rows next to a req/s row filled by ``attempt`` (``result['r']``)."""
    p50 = Row(f"{label}: p50 latency", "ms")
    p99 = Row(f"{label}: p99 latency", "ms")
    if rps.failed:
        p50.failed = p99.failed = rps.failed
    else:
        res = result["r"]
        rps.what += f" ({res.errors} errors of {res.requests}" + (
            f": {res.kinds})" if res.kinds else ")")
        p50.evalmaps, p99.evalmaps = res.p50_ms, res.p99_ms
        if floor:
            p50.floor, p99.floor = floor.p50_ms, floor.p99_ms
    return [rps, p50, p99]


def section_throughput(ctx: "Context") -> list[Row]:
    port = ctx.server.port
    rows: list[Row] = []
    seconds = ctx.throughput_seconds
    ctx.log(f"throughput: /healthz (floor), {seconds:g} s")
    try:
        floor = throughput.run(port, "/healthz", connections=32, seconds=seconds, tool=ctx.tool)
    except Exception as exc:  # noqa: BLE001
        floor = None
        ctx.log(f"  floor failed: {reason(exc)}")
    for label, path, body in load_targets(ctx, port, rows):
        ctx.log(f"throughput: {label}, {seconds:g} s")
        rps = Row(f"{label}: req/s", "req/s")
        result: dict = {}

        def measure(path=path, body=body):
            res = throughput.run(port, path, body, connections=32, seconds=seconds,
                                 tool=ctx.tool)
            result["r"] = res
            return res.rps, floor.rps if floor else None

        attempt(rps, measure, ctx.log)
        rows += load_rows(label, result, floor, rps)
    tool = floor.tool if floor else throughput.tool_name(ctx.tool)
    ctx.notes.append(f"throughput: {tool}, 32 connections, {seconds:g} s per target, gunicorn "
                     f"with gunicorn.conf.py (2 workers x 8 threads) on 127.0.0.1 (the load "
                     f"generator shares the CPUs). Floor = the same run against /healthz (a "
                     f"trivial JSON route)"
                     + (f": {floor.errors} errors of {floor.requests}." if floor else ".")
                     + " For req/s a ratio below 1 is slower than the floor.")
    return rows


# ----------------------------------------------------------------------------- soak

def worker_rss(server: Gunicorn) -> dict[int, float]:
    """{worker pid: RSS MB} of a gunicorn's workers right now."""
    out = {}
    for pid in server.worker_pids():
        mb = rss_mb(pid)
        if mb is not None:
            out[pid] = mb
    return out


def section_soak(ctx: "Context") -> list[Row]:
    server = ctx.hardened()
    port = server.port
    seconds = ctx.soak_seconds
    interval = 10.0 if seconds >= 40 else max(1.0, seconds / 4)
    chunks = max(1, round(seconds / interval))
    targets = load_targets(ctx, port)
    mix = [(path, body) for _, path, body in targets]
    names = ", ".join(label.split(" (")[0].split(" /")[0] for label, _, _ in targets)
    floor_seconds = ctx.throughput_seconds
    ctx.log(f"soak: /healthz (floor), {floor_seconds:g} s")
    try:
        floor = throughput.run(port, "/healthz", connections=32, seconds=floor_seconds,
                               tool=ctx.tool)
    except Exception as exc:  # noqa: BLE001
        floor = None
        ctx.log(f"  floor failed: {reason(exc)}")
    ctx.log(f"soak: mixed load ({names}), {chunks} x {interval:g} s, 32 connections")
    series: dict[int, list[float]] = {pid: [mb] for pid, mb in worker_rss(server).items()}
    first_pids = list(series)
    results = []
    failure = None
    for _ in range(chunks):
        try:
            results.append(throughput.run_mix(port, mix, connections=32, seconds=interval,
                                              tool=ctx.tool))
        except Exception as exc:  # noqa: BLE001 - the series so far is still reported
            failure = reason(exc)
            ctx.log(f"  soak chunk failed: {failure}")
            break
        for pid, mb in worker_rss(server).items():
            series.setdefault(pid, []).append(mb)
    rows = []
    label = f"soak: mixed load ({names}), {len(results)} x {interval:g} s"
    rps = Row(f"{label}: req/s", "req/s")
    p50 = Row(f"{label}: p50 latency (median of the {interval:g}-s runs)", "ms")
    p99 = Row(f"{label}: p99 latency (worst {interval:g}-s run)", "ms")
    drift = Row(f"{label}: req/s of the last {interval:g} s vs the first", "req/s")
    if not results:
        for row in (rps, p50, p99, drift):
            row.failed = failure or "no load run"
    else:
        requests = sum(r.requests for r in results)
        errors = sum(r.errors for r in results)
        rps.what += f" ({errors} errors of {requests})"
        rps.evalmaps = requests / sum(r.seconds for r in results)
        p50.evalmaps = median_of([r.p50_ms for r in results])
        p99.evalmaps = max(r.p99_ms for r in results)
        drift.evalmaps, drift.floor = results[-1].rps, results[0].rps
        if floor:
            rps.floor, p50.floor, p99.floor = floor.rps, floor.p50_ms, floor.p99_ms
    rows += [rps, p50, p99, drift]
    for n, pid in enumerate(first_pids, 1):
        values = series[pid]
        gone = rss_mb(pid) is None
        row = Row(f"soak: worker {n} RSS, last sample vs first ({len(values)} samples"
                  + (", replaced during the soak" if gone else "") + ")", "MB")
        row.evalmaps, row.floor = values[-1], values[0]
        rows.append(row)
    late = [pid for pid in series if pid not in first_pids]
    tool = results[0].tool if results else throughput.tool_name(ctx.tool)
    ctx.notes.append(
        f"soak: {tool}, 32 connections on a mix of {names} (each connection cycles through "
        f"them), {chunks} runs of {interval:g} s back to back ({seconds:g} s in all), on a "
        f"gunicorn with gunicorn.conf.py but --max-requests 0, so that the same two workers "
        f"serve the whole soak and any growth shows (deployed, max_requests replaces a worker "
        f"after about 1000 requests). Each worker's RSS (VmRSS, /proc) sampled before the load "
        f"and after every run: "
        + "; ".join(f"worker {n}: {', '.join(f'{v:.0f}' for v in series[pid])} MB"
                    for n, pid in enumerate(first_pids, 1))
        + (f"; workers started during the soak: {len(late)}" if late else "")
        + ". req/s per run: " + ", ".join(f"{r.rps:.0f}" for r in results)
        + (f". Floor = /healthz alone, {floor_seconds:g} s." if floor else ".")
        + (f" Stopped early: {failure}." if failure else ""))
    return rows


# ----------------------------------------------------------------------------- uploads

def section_uploads(ctx: "Context") -> list[Row]:
    server = ctx.hardened()
    port = server.port
    default = json.loads(http_get(port)("/api/figures"))["figures"][0]["id"]
    cells = f"/api/figures/{default}/cells"
    probe_paths = ["/healthz", cells]
    ctx.log("uploads: making the hostile files")
    files = hostile.hostile_files()
    client = hostile.UploadClient(port)
    bodies = {f.kind: client.stage_body(f.name, f.data) for f in files}
    for _ in range(4):  # warm-up of both workers (and of the cells API's cache)
        for path in probe_paths:
            request(port, "GET", path)
    baseline_seconds = 3.0 if ctx.quick else 20.0
    ctx.log(f"uploads: /healthz and cells API alone, {baseline_seconds:g} s")
    quiet = hostile.Prober(port, probe_paths).start()
    time.sleep(baseline_seconds)
    quiet.stop()
    before = worker_rss(server)
    peak = dict(before)

    def track_peak():
        for pid, mb in worker_rss(server).items():
            peak[pid] = max(peak.get(pid, 0.0), mb)

    rounds = 1 if ctx.quick else 3
    clients = 2
    outcomes: list[tuple[str, float, str, str]] = []  # kind, seconds, refused by, message
    errors: list[str] = []
    lock = threading.Lock()

    def uploader(offset: int):
        order = files[offset:] + files[:offset]
        for _ in range(rounds):
            for f in order:
                try:
                    seconds, by, message = client.upload(f.name, bodies[f.kind])
                except Exception as exc:  # noqa: BLE001 - counted, the others go on
                    with lock:
                        errors.append(f"{f.kind}: {reason(exc)}")
                    continue
                with lock:
                    outcomes.append((f.kind, seconds, by, message))

    ctx.log(f"uploads: {clients} clients x {rounds} round(s) of {len(files)} hostile uploads, "
            f"probing meanwhile")
    busy = hostile.Prober(port, probe_paths, on_each=track_peak).start()
    started = time.monotonic()
    threads = [threading.Thread(target=uploader, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=900)
    loaded_seconds = time.monotonic() - started
    busy.stop()
    time.sleep(2.0)  # the last callbacks' buffers freed
    after = worker_rss(server)

    rows: list[Row] = []
    for f in files:
        mine = [o for o in outcomes if o[0] == f.kind]
        refused = [o for o in mine if o[2] in hostile.REFUSERS[f.expected]]
        by = sorted({o[2] for o in mine})
        ok = bool(mine) and len(refused) == len(mine)
        row = Row(f"upload {f.label}: stage + preview until refused, median of {len(mine)} "
                  f"(refused by: {', '.join(by) or '—'}; {len(refused)} of {len(mine)} as "
                  f"expected)", "s", "refused", within=lambda value, ratio, ok=ok: ok)
        if mine:
            row.evalmaps = median_of([o[1] for o in mine])
        else:
            row.failed = "; ".join(e for e in errors if e.startswith(f.kind)) or "no upload ran"
        rows.append(row)
    for path in probe_paths:
        name = "/healthz" if path == "/healthz" else f"cells API {path}"
        calm, loaded = quiet.samples[path], busy.samples[path]
        fails = busy.failures[path]
        for stat, fn in (("p50", lambda xs: hostile.percentile(xs, 50)),
                         ("p99", lambda xs: hostile.percentile(xs, 99)), ("max", max)):
            row = Row(f"{name} during hostile uploads: {stat} latency"
                      + (f" ({len(loaded)} requests, {fails} failed)" if stat == "p50" else ""),
                      "ms", "≤ 1 s" if stat == "max" else "—",
                      within=value_at_most(1000) if stat == "max" else None)
            if not loaded or not calm:
                row.failed = "no probe answered"
            else:
                row.evalmaps, row.floor = fn(loaded), fn(calm)
            rows.append(row)
    for n, pid in enumerate(sorted(before), 1):
        row = Row(f"worker {n} RSS after the hostile uploads vs before (peak during: "
                  f"{peak.get(pid, 0):.0f} MB)", "MB", "≤ 1.1x", within=ratio_at_most(1.1))
        if pid in after:
            row.evalmaps, row.floor = after[pid], before[pid]
        else:
            row.failed = "the worker was replaced"
        rows.append(row)
    messages = {}
    for kind, _, by, message in outcomes:
        messages.setdefault(kind, message)
    expected = {f.kind: hostile.REFUSERS[f.expected] for f in files}
    unexpected = [(kind, message) for kind, _, by, message in outcomes
                  if by not in expected[kind]]
    if unexpected:  # say what happened, with the server's own account of it
        trace = server.log_excerpt("upload preview failed")
        ctx.notes.append("uploads, unexpected answers: " + "; ".join(
            f"{kind}: \"{message[:200]}\"" for kind, message in unexpected[:4])
            + (f". Server log: {trace}" if trace else ""))
    ctx.notes.append(
        f"uploads: the Data page's two callbacks over HTTP, as the browser sends them (stage: "
        f"the file base64 in data-upload-raw.data; preview: the staged key), on the soak's "
        f"gunicorn with EVALMAPS_UPLOAD_MEMORY_MB={UPLOAD_MEMORY_MB} and "
        f"EVALMAPS_UPLOAD_SECONDS={UPLOAD_SECONDS}; {clients} upload clients at once, "
        f"{rounds} round(s) each over the {len(files)} files, {loaded_seconds:.0f} s in all. "
        f"Meanwhile another client asks for /healthz and the cells API in turn, one request at "
        f"a time with 50 ms pauses; floor = the same client for {baseline_seconds:g} s just "
        f"before, with no upload running. Worker RSS (VmRSS) 2 s after the last upload against "
        f"just before the first. Messages shown: "
        + "; ".join(f"{kind}: \"{message}\"" for kind, message in messages.items())
        + (f". Client errors: {'; '.join(errors[:3])}" if errors else "") + ".")
    return rows


# ----------------------------------------------------------------------------- lighthouse

LIGHTHOUSE_PAGES = ("/", "/trends", "/compare", "/data")
LIGHTHOUSE_HOME = Path(__file__).resolve().parent / "lighthouse"  # npm install --prefix here


def lighthouse_binary() -> str | None:
    """$EVALMAPS_LIGHTHOUSE, benchmarks/lighthouse's npm install, or a lighthouse on PATH."""
    local = LIGHTHOUSE_HOME / "node_modules" / ".bin" / "lighthouse"
    for candidate in (os.environ.get("EVALMAPS_LIGHTHOUSE"), str(local), shutil.which("lighthouse")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def section_lighthouse(ctx: "Context") -> list[Row]:
    """Lighthouse's Accessibility score of each page (0-100; the audits are axe-core's), run
    against the benchmark's gunicorn on 127.0.0.1 with the system Chromium."""
    binary = lighthouse_binary()
    rows = [Row(f"lighthouse accessibility {page}", "/100", "≥ 95",
                within=lambda value, _ratio: value >= 95) for page in LIGHTHOUSE_PAGES]
    if binary is None:
        for row in rows:
            row.failed = ("lighthouse is not installed: npm install --prefix benchmarks/lighthouse "
                          "lighthouse (or set EVALMAPS_LIGHTHOUSE)")
        return rows
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", chrome)}
    for page, row in zip(LIGHTHOUSE_PAGES, rows):
        out = ctx.tmp / f"lighthouse{page.replace('/', '-') or '-'}.json"

        def measure(page=page, out=out):
            subprocess.run([binary, ctx.server.base + page, "--only-categories=accessibility",
                            "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
                            "--output=json", f"--output-path={out}", "--quiet"],
                           check=True, timeout=240, env=env, capture_output=True)
            report = json.loads(out.read_text(encoding="utf-8"))
            failing = [k for k, a in report["audits"].items()
                       if a.get("score") is not None and a["score"] < 1
                       and a.get("scoreDisplayMode") == "binary"]
            if failing:
                ctx.notes.append(f"lighthouse {page}: failing audits {', '.join(failing)}")
            return report["categories"]["accessibility"]["score"] * 100, None

        attempt(row, measure, ctx.log)
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    ctx.notes.append(f"lighthouse {version.stdout.strip()}: Accessibility category only, one run "
                     f"per page (the score is deterministic: no floor).")
    return rows


# ----------------------------------------------------------------------------- the run

@dataclass
class Context:
    quick: bool
    sweeps: tuple[Sweep, Sweep]
    tmp: Path
    log: Callable[[str], None]
    folders: dict[str, Path] = field(default_factory=dict)
    plain: dict[str, Path] = field(default_factory=dict)
    csv: dict[str, Path] = field(default_factory=dict)
    server: Gunicorn | None = None
    calls: dict[str, dict] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    extra_versions: list[str] = field(default_factory=list)
    figure_ids: list[str] | None = None
    tool: str = "auto"
    soak_seconds: float = 300.0
    hard_server: Gunicorn | None = None

    def hardened(self) -> Gunicorn:
        """The soak and uploads server: built-in data only, a store in the run's folder, a low
        upload budget, no max-requests restarts (started once, on first use)."""
        if self.hard_server is None:
            server = Gunicorn([], env={
                "EVALMAPS_STORE": str(self.tmp / "store"),
                "EVALMAPS_UPLOAD_MEMORY_MB": str(UPLOAD_MEMORY_MB),
                "EVALMAPS_UPLOAD_SECONDS": str(UPLOAD_SECONDS)}, args=["--max-requests", "0"])
            self.log(f"gunicorn: starting on {server.base} (built-in data, upload budget "
                     f"{UPLOAD_MEMORY_MB} MB / {UPLOAD_SECONDS} s, --max-requests 0)")
            try:
                server.start()
            except Exception:
                server.stop()
                raise
            self.hard_server = server
            time.sleep(1.0)  # the second worker
        return self.hard_server

    @property
    def repeat(self) -> int:
        return 1 if self.quick else 3

    @property
    def paint_repeat(self) -> int:
        """Paint runs of each page (app and floor alternately): a page paints within +-15% from
        one navigation to the next here, so a median of 3 moved a ratio by 0.2."""
        return 1 if self.quick else 7

    @property
    def callback_repeat(self) -> int:
        return 2 if self.quick else 5

    @property
    def throughput_seconds(self) -> float:
        return 2 if self.quick else 10

    def require_figure(self, figure_id: str) -> None:
        """Raise unless the running app serves this figure (it may have started without it)."""
        if self.figure_ids is None:
            get = http_get(self.server.port)
            self.figure_ids = [f["id"] for f in json.loads(get("/api/figures"))["figures"]]
        if figure_id not in self.figure_ids:
            raise RuntimeError(f"the app does not serve the figure {figure_id}")

    def budget(self, sweep: Sweep) -> float:
        """Seconds one measurement of a sweep may take (requests stop once it is spent)."""
        return 30.0 if self.quick else (60.0 if sweep.cells < 500_000 else 240.0)


def paired_row(ctx: "Context") -> list[Row]:
    """The paired statistics of a 40-cell comparison (5 x 8 cells, 500 items x 8 samples a
    cell, 0/1 scores: 320,000 records over two models) as Compare makes them: each side's
    records read from Parquet (ItemRecords.cells: pyarrow, grouped in numpy) and the paired
    tests (paired_grid). Floor: the same paired_grid on the same items already in memory: the
    cells a read gave, read once before the runs (their sums of squares included, so that the
    floor computes the within-item variance the page computes). The two are taken in turn."""
    import numpy as np
    import pandas as pd

    from evalmaps.analysis.paired import paired_grid
    from evalmaps.catalog.items import ItemRecords, ItemScores

    rows_, cols_, items_, samples_ = 5, 8, 500, 8
    rng = np.random.default_rng(27)
    models = ("a", "b")
    shape = (len(models), rows_, cols_, items_, samples_)
    chance = np.array([0.5, 0.53])[:, None, None, None, None]
    score = (rng.random(shape) < chance).astype(float)
    index = np.indices(shape).reshape(len(shape), -1)
    frame = pd.DataFrame({
        "model": np.array(models)[index[0]], "y": np.char.add("r", index[1].astype(str)),
        "x": np.char.add("c", index[2].astype(str)),
        "item": np.char.add("q", np.char.zfill(index[3].astype(str), 3)),
        "sample": index[4], "score": score.ravel()})
    records = ItemRecords.write(ctx.tmp / "items-paired", ("model", "y", "x"), frame)
    keys = [(f"r{i}", f"c{j}") for i in range(rows_) for j in range(cols_)]
    repeat = max(ctx.repeat, 9)  # about 30 ms a run: nine of each steady the medians

    from evalmaps.catalog import items as item_store

    item_store.KEPT.clear()
    memory = [dict(records.cells({"model": m}, ("y", "x"))) for m in models]  # read once
    item_store.KEPT.clear()
    for m, side in enumerate(memory):  # the items as read are the data's, exactly
        for key, (i, j) in zip(keys, np.ndindex(rows_, cols_)):
            cell = side[key]
            assert isinstance(cell, ItemScores) and cell.squares is not None
            assert np.array_equal(cell.total, score[m, i, j].sum(axis=1))

    def measured() -> float:  # cold: the records read from the Parquet file
        item_store.KEPT.clear()
        a, b = (records.cells({"model": m}, ("y", "x")) for m in models)
        return len(paired_grid(a, b, keys))

    def kept() -> float:  # warm: the same cells asked again (a colour mode, k, the items list)
        a, b = (records.cells({"model": m}, ("y", "x")) for m in models)
        return len(paired_grid(a, b, keys))

    def floor() -> float:
        return len(paired_grid(memory[0], memory[1], keys))

    def in_turn(fn) -> tuple[float, float]:
        """Medians (ms) of ``fn`` and of the floor, taken in turn, so that the machine's load
        at any time weighs on both."""
        times: tuple[list, list] = ([], [])
        for _ in range(repeat):
            for kind, run in enumerate((fn, floor)):
                start = time.perf_counter()
                assert run() == len(keys)
                times[kind].append(time.perf_counter() - start)
        return float(np.median(times[0])) * 1000, float(np.median(times[1])) * 1000

    row = Row("paired statistics, 40 cells x 500 items x 8 samples (2 x 160k records): "
              "records read", "ms", "≤ 2x", within=ratio_at_most(2))
    row = attempt(row, lambda: in_turn(measured), ctx.log)
    warm = Row("paired statistics, the same 40 cells asked again (their items kept)", "ms",
               "≤ 2x", within=ratio_at_most(2))
    kept()
    warm = attempt(warm, lambda: in_turn(kept), ctx.log)
    ctx.notes.append("items: paired statistics = each side's Parquet records read "
                     "(ItemRecords.cells: the columns as dictionaries, counted and summed in "
                     "numpy) plus paired_grid (exact McNemar or the sign-flip test with the "
                     "intervals that invert them, BH), the process's kept cells cleared before "
                     "each run; asked again = the same with the cells' items kept from the "
                     "last request (evalmaps.catalog.items.KEPT, keyed by the records' version); "
                     "floor = the same paired_grid on the same items already in memory (the "
                     "cells one read gave, sums of squares included); medians of "
                     f"{repeat} runs of each, taken in turn")
    return [row, warm]


def section_items(ctx: "Context") -> list[Row]:
    """Per-item records (issue 27): ingest (:func:`ingest_rows`) and the paired statistics
    (:func:`paired_row`) and the paint of a cell's item list (:func:`items_paint_row`)."""
    return [*ingest_rows(ctx), *paired_row(ctx), *items_paint_rows(ctx)]


# ----------------------------------------------------------------------------- rank

def section_rank(ctx: "Context") -> list[Row]:
    """The Rank answer at a lab's scale (issue 38, :mod:`benchmarks.rank_bench`): 50 models x 14
    cells x 12,032 items (a smaller figure with --quick), the whole /api/rank answer in a fresh
    process against the same statistics on the scores in memory, and that process's peak RSS."""
    from benchmarks import rank_bench

    shape = (rank_bench.MODELS, rank_bench.CELLS, rank_bench.ITEMS) if not ctx.quick \
        else (8, 3, 500)
    folder = ctx.tmp / "rank"
    n = rank_bench.write(folder, *shape)
    label = f"{shape[0]} models x {shape[1]} cells x {shape[2]:,} items ({n:,} records)"
    ctx.log(f"rank: /api/rank of {label}")
    repeat = max(ctx.repeat, 3) if not ctx.quick else 1
    answer = Row(f"/api/rank, {label}: the whole answer", "ms",
                 "≤ 2x" if not ctx.quick else "—", within=ratio_at_most(2) if not ctx.quick else None)
    memory = Row(f"/api/rank, {label}: peak RSS of the process", "MB",
                 "≤ 2,048 MB" if not ctx.quick else "—",
                 within=value_at_most(2048) if not ctx.quick else None)
    found: dict = {}

    def measure():
        found.update(rank_bench.run(folder, repeat))
        return found["measured_ms"], found["floor_ms"]

    attempt(answer, measure, ctx.log)
    if found:
        memory.evalmaps = found["rss_mb"]
    else:
        memory.failed = answer.failed
    ctx.notes.append(f"rank: {label}, seeded 0/1 scores; the whole /api/rank answer (Flask's "
                     f"test client in a fresh process: the Parquet records read as code matrices "
                     f"(ItemRecords.matrices: one sample per item), "
                     f"{found.get('pairs', 0):,} pairs tested, rank intervals and sets from "
                     f"1,000 resamples, the JSON: {human_bytes(found.get('bytes', 0))}); floor = "
                     f"the same statistics (evalmaps.analysis.rank's vectorised functions) on "
                     f"the scores already in memory as one array; medians of {repeat} runs; RSS: "
                     f"the process's peak (ru_maxrss) after the answers, before the floor.")
    return [answer, memory, *rank_paint_rows(ctx)]


RANK_PAINT_SHAPE = (50, 14, 200)  # models, cells, items: the page of issue 38's 50 models


def rank_paint_rows(ctx: "Context") -> list[Row]:
    """The Rank page of 50 models (14 cells: a pair map each and the where map) painted,
    against a static page drawing the same maps (issue 38's goal, at most 1.5x): the figures
    the page drew, read from its graphs, drawn by Plotly.newPlot alone (the same traces,
    labels, outlines, hover data and sizes). Also against lighter maps: grids of the same
    shapes and sizes with short labels, no outlines and no hover data (Plotly.newPlot, typed
    arrays), which splits what the maps hold from what the app adds. The app in this process
    on a threaded werkzeug server, the figure's records in Parquet as the store keeps them."""
    import threading

    from werkzeug.serving import make_server

    from benchmarks import rank_bench
    from benchmarks.browser import Browser

    models, cells, items = RANK_PAINT_SHAPE if not ctx.quick else (8, 3, 100)
    row = Row(f"paint /rank, {models} models x {cells} cells ({cells} pair maps and the where "
              f"map), against grids of the same shapes (no labels, outlines or hover data)",
              "ms")
    own = Row(f"paint /rank, {models} models x {cells} cells, against a static page drawing "
              f"the same maps (the page's own figures: traces, outlines, labels, hover data, "
              f"sizes)", "ms", "≤ 1.5x" if not ctx.quick else "—",
              within=ratio_at_most(1.5) if not ctx.quick else None)
    static = floors.StaticServer()

    def measure():
        import app as webapp

        folder = ctx.tmp / "rank-paint"
        rank_bench.write(folder, models, cells, items)
        catalog = webapp.app.server.extensions["evalmaps"]["catalog"]
        catalog.figures[rank_bench.FIGURE] = rank_bench.figure(folder)
        server = make_server("127.0.0.1", 0, webapp.app.server, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        browser = Browser()
        try:
            url = f"http://127.0.0.1:{server.server_port}/rank?figure={rank_bench.FIGURE}"

            def floor_page(boxes):  # grids of the shapes and sizes the page drew
                rng = np.random.default_rng(38)
                grids = [rng.random((b["rows"], b["cols"])) for b in boxes]
                labels = [([f"x{k}" for k in range(b["cols"])],
                           [f"y{k}" for k in range(b["rows"])]) for b in boxes]
                return floors.static_page(grids, [], [], [(b["width"], b["height"]) for b in boxes],
                                          [(0, 1)] * len(grids), labels=labels)

            app, floor, _ = paint_against_floor(browser, static, url, cells + 1, cells + 1,
                                                floor_page, "rank-floor.html", ctx.paint_repeat)
            # the second floor: the figures this page drew, drawn by Plotly alone, so that the
            # ratio splits what the maps hold (labels, outlines) from what the app adds
            browser.paint(url, cells + 1)
            figures = browser.graph_figures()

            def own_floor():
                app_own, floor_own, _ = paint_against_floor(
                    browser, static, url, cells + 1, cells + 1,
                    lambda boxes: floors.figures_page(figures), "rank-own.html",
                    ctx.paint_repeat)
                return app_own, floor_own

            attempt(own, own_floor, ctx.log)
            return app, floor
        finally:
            browser.close()
            server.shutdown()

    try:
        attempt(row, measure, ctx.log)
    finally:
        static.close()
    ctx.notes.append(f"rank: paint of /rank?figure=rank-bench ({models} models x {cells} cells x "
                     f"{items} items, seeded): ms until every map is drawn, as the paint rows; "
                     f"medians of {ctx.paint_repeat} after two warm-ups each. The goal's floor "
                     f"(second row) draws the same maps: the figures the page drew (read from "
                     f"each graph's data and layout after it painted) with Plotly.newPlot on a "
                     f"static page; the page is measured again beside it. The first row's floor "
                     f"draws lighter maps: grids of the same shapes at the same sizes (short "
                     f"labels, no outlines or hover data; Plotly.newPlot, typed arrays).")
    return [row, own]


# ----------------------------------------------------------------------------- cli

def section_cli(ctx: "Context") -> list[Row]:
    """``evalmaps compare A B`` of two per-question files of 12,032 items each (MMLU-Pro's
    shape: question_id, category, answer, pred; seeded), the whole command in a fresh process
    (import both, pair them, test every cell, print the JSON), against ``evalmaps import`` of the
    same two files as one figure in a fresh process (issue 40: at most 1.5x)."""
    import json as json_module
    import subprocess

    items = 12_032 if not ctx.quick else 1_200
    rng = np.random.default_rng(40)
    files = []
    for name, skill in (("base", 0.45), ("next", 0.5)):
        right = rng.random(items) < skill
        records = [{"question_id": q, "category": f"category-{q % 14:02d}", "answer": "A",
                    "pred": "A" if ok else "B"} for q, ok in zip(range(items), right)]
        path = ctx.tmp / f"cli-{name}.json"
        path.write_text(json_module.dumps(records))
        files.append(str(path))
    options = ["--item", "question_id", "--correct", "pred=answer"]
    commands = {
        "compare": [sys.executable, "-m", "evalmaps.service.cli", "compare", *files, *options,
                    "--format", "json"],
        "import": [sys.executable, "-m", "evalmaps.service.cli", "import", *files, *options,
                   "--set", "model={file}"]}
    repeat = max(ctx.repeat, 3) if not ctx.quick else 1
    row = Row(f"evalmaps compare of two files of {items:,} items (the whole command)", "s",
              "≤ 1.5x" if not ctx.quick else "—",
              within=ratio_at_most(1.5) if not ctx.quick else None)

    def measure():
        times: dict[str, list[float]] = {"compare": [], "import": []}
        for _ in range(repeat):  # taken in turn, so that the machine's load weighs on both
            for name, command in commands.items():
                started = time.perf_counter()
                done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                                      cwd=ROOT)
                times[name].append(time.perf_counter() - started)
                if done.returncode != 0:
                    raise RuntimeError(f"{name}: {done.stderr.strip()[-200:]}")
        return median_of(times["compare"]), median_of(times["import"])

    attempt(row, measure, ctx.log)
    ctx.notes.append(f"cli: two seeded per-question JSON files of {items:,} items in 14 "
                     f"categories; evalmaps compare A B --item question_id --correct pred=answer "
                     f"--format json (import both, pair them, test 14 cells, print the JSON) "
                     f"against evalmaps import A B --item question_id --correct pred=answer --set "
                     f"model={{file}} (one figure of both), each a fresh process; medians of "
                     f"{repeat} runs taken in turn.")
    return [row]


# ----------------------------------------------------------------------------- lab

LAB_MODELS = (50, 200, 1000)
LAB_GB = 1.0  # issue 41: at 200 models, at most 1 GB peak RSS


def lab_once(what: str, folder: Path, out: Path, timeout: float = 3600) -> dict:
    """``benchmarks/lab.py import|floor`` in a fresh process: its time, CPU time, peak RSS."""
    shutil.rmtree(out, ignore_errors=True)
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "lab.py"), what,
                           str(folder), str(out)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)
    shutil.rmtree(out, ignore_errors=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"{what} exited with {proc.returncode}: "
                           f"{(proc.stderr.strip().splitlines() or ['no output'])[-1]}")
    return json.loads(lines[-1])


def section_lab(ctx: "Context") -> list[Row]:
    """Issue 41: a lab's folder of N models' per-item zips in MMLU-Pro's layout
    (``benchmarks/lab.py``), ``evalmaps import DIR --item question_id --correct pred=answer
    --set model={file} -o lab.csv`` in a fresh process against the streaming floor (orjson ->
    Arrow -> Parquet, one file at a time) in a fresh process, taken in turn: time, CPU time and
    peak RSS."""
    from benchmarks import lab

    counts = (3, 6) if ctx.quick else LAB_MODELS
    rows = []
    for models in counts:
        records = models * lab.ITEMS
        folder = ctx.tmp / f"lab-{models}"
        ctx.log(f"lab: writing {models} models' zips")
        lab.make(folder, models)
        at_goal = models == 200
        time_row = Row(f"lab: import {models} models ({records / 1e6:.2g}M records): time",
                       "s", "≤ 2x" if at_goal else "—",
                       within=ratio_at_most(2.0) if at_goal else None)
        cpu_row = Row(f"lab: import {models} models: CPU time (user + system)", "s")
        rss_row = Row(f"lab: import {models} models: peak RSS", "MB",
                      f"≤ {LAB_GB * 1024:.0f} MB" if at_goal else
                      ("completes" if models == 1000 else "—"),
                      within=value_at_most(LAB_GB * 1024) if at_goal else
                      ((lambda value, ratio: True) if models == 1000 else None))
        ctx.log(f"lab: {models} models: evalmaps import and the floor")
        found: dict[str, dict] = {}

        def measure(folder=folder, found=found):
            found["floor"] = lab_once("floor", folder, ctx.tmp / "lab-floor-out")
            found["import"] = lab_once("import", folder, ctx.tmp / "lab-import-out")
            return found["import"]["seconds"], found["floor"]["seconds"]

        attempt(time_row, measure, ctx.log)
        if found.get("import") and found.get("floor"):
            cpu_row.evalmaps, cpu_row.floor = (found[k]["cpu_seconds"] for k in ("import", "floor"))
            rss_row.evalmaps, rss_row.floor = (found[k]["peak_mb"] for k in ("import", "floor"))
        else:
            cpu_row.failed = rss_row.failed = time_row.failed
        rows += [time_row, cpu_row, rss_row]
        shutil.rmtree(folder, ignore_errors=True)
    ctx.notes.append(f"lab: folders of {', '.join(map(str, counts))} models' zips in MMLU-Pro's "
                     f"layout ({lab.ITEMS:,} items in {len(lab.CATEGORIES)} categories a model, "
                     f"about 3.5 MB zipped, 14.8 MB unzipped; {lab.DISTINCT} distinct models, "
                     f"the others copies under their own names), evalmaps import DIR "
                     f"{' '.join(lab.OPTIONS)} -o lab.csv against the floor: each zip unzipped, "
                     f"parsed by orjson, its records as Arrow columns written to a scores and a "
                     f"texts Parquet file (zstd), one file at a time; each a fresh process, one "
                     f"run each, the floor first. Peak RSS: VmHWM.")
    return rows


# ----------------------------------------------------------------------------- live

def section_objects(ctx: "Context") -> list[Row]:
    """The store and a watched folder on S3 (moto), against the disk (:mod:`benchmarks.objects_bench`)."""
    from benchmarks import objects_bench

    return objects_bench.section(ctx, Row, attempt, ratio_at_most, value_at_most)


def section_live(ctx: "Context") -> list[Row]:
    """A sweep written into a watched folder while a gunicorn of 2 workers serves it: the time
    from a file written to its cell painted in an open page (at 1 and at 20 files a second),
    and the server's CPU with 20 open tabs and nothing changing (floor: no tab open)."""
    from benchmarks.browser import Browser
    from evalmaps.core.figure import short_slug

    lab_rows = live_bench.lab_rows(ctx, Row, Gunicorn, request, value_at_most, ratio_at_most,
                                   reason)
    folder = ctx.tmp / "live-sweep"
    for seed, (model, step) in enumerate([(m, s) for m in live_bench.MODELS[:2] for s in (0, 1)]):
        live_bench.write(folder, model, step, seed)
    server = Gunicorn([folder], env={"EVALMAPS_CACHE": "off", "EVALMAPS_STORE": "off"})
    ctx.log(f"live: gunicorn on {server.base}, a watched folder")
    rows: list[Row] = list(lab_rows)
    browser = None
    try:
        server.start()
        get = http_get(server.port)
        fid = "import-" + short_slug(folder.name)
        time.sleep(3.0)  # both workers up, their watchers started by their first requests
        for _ in range(4):
            get(f"/api/figures/{fid}")
        browser = Browser()
        ctx.extra_versions.append(browser.version())
        driver = browser.driver
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                               {"source": live_bench.CELL_PROBE})
        driver.get(f"{server.base}/?figure={fid}&task=alpha")
        deadline = time.monotonic() + 60
        while not driver.execute_script("return Object.keys(window.__live || {}).length"):
            if time.monotonic() > deadline:
                raise TimeoutError("the page's first heatmap was not painted within 60 s")
            time.sleep(0.1)
        seed = 100
        runs = [(1.0, [(live_bench.MODELS[0], s) for s in range(2, 8 if ctx.quick else 22)]),
                (20.0, [(m, s) for s in range(0, 5 if ctx.quick else 20)
                        for m in live_bench.MODELS[2:12]])]
        for rate, files in runs:
            row50 = Row(f"live: file written to its cell painted, {rate:g} file/s, median "
                        f"({len(files)} files)", "s")
            row95 = Row(f"live: file written to its cell painted, {rate:g} file/s, p95", "s",
                        goal=f"< {5 if rate < 2 else 10} s",
                        within=value_at_most(5.0 if rate < 2 else 10.0))
            ctx.log(f"live: {len(files)} files at {rate:g} file/s")
            written = {}
            started = time.monotonic()
            for k, (model, step) in enumerate(files):
                pause = started + k / rate - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
                seed += 1
                written[(model, step)] = live_bench.write(folder, model, step, seed)
            deadline = time.monotonic() + 20
            while True:
                seen = driver.execute_script("return window.__live")
                found = live_bench.latencies(seen, written)
                if len(found) == len(written) or time.monotonic() > deadline:
                    break
                time.sleep(0.25)
            if len(found) < len(written):
                for row in (row50, row95):
                    row.failed = f"{len(written) - len(found)} of {len(written)} cells not painted"
            else:
                row50.evalmaps = median_of(found)
                row95.evalmaps = live_bench.percentile(found, 95)
            rows += [row50, row95]
        rows.append(idle_cpu_row(ctx, server, browser, fid))
    except Exception as exc:  # noqa: BLE001 - the rows so far stand; the rest say why
        rows.append(Row("live: the section", "", failed=reason(exc)))
        ctx.log(f"live: failed: {reason(exc)}")
    finally:
        if browser is not None:
            browser.close()
        server.stop()
    ctx.notes.append(
        "live: gunicorn app:server --workers 2 serving one watched folder (EVALMAPS_WATCH=auto: "
        "watchfiles events, a scan every 2 s); lm-evaluation-harness results files written "
        "whole (atomic rename), one (model, step) cell per task each; one Chromium page shows "
        "the figure's first panel and a probe notes when each cell of the painted heatmap first "
        "holds a value (every 20 ms). A file is read once it has held for 0.5 s; open pages "
        "check every 3 s. Idle CPU: user + system time of the gunicorn master and workers "
        "(/proc) over the window, 20 Chromium windows open on the figure (each polls with an "
        "ETag: a 304); floor: the same window with no page open.")
    return rows


def idle_cpu_row(ctx: "Context", server: Gunicorn, browser, fid: str) -> Row:
    """The server's CPU, % of one core, with 20 pages open and nothing changing."""
    seconds = 10.0 if ctx.quick else 30.0
    row = Row(f"live: server CPU, 20 open tabs, nothing changing ({seconds:g} s)", "%",
              goal="< 2% of a core", within=value_at_most(2.0))
    pids = [server.proc.pid, *server.worker_pids()]
    driver = browser.driver

    def measure() -> float:
        before, at = live_bench.cpu_seconds(pids), time.monotonic()
        time.sleep(seconds)
        return 100 * (live_bench.cpu_seconds(pids) - before) / (time.monotonic() - at)

    main = driver.current_window_handle
    driver.get("about:blank")
    time.sleep(3)
    floor = measure()
    for _ in range(20):
        driver.switch_to.new_window("window")
        driver.get(f"{server.base}/?figure={fid}&task=alpha")
    time.sleep(8)  # every page drawn; their first checks done
    hidden = 0
    for handle in driver.window_handles:
        if handle != main:
            driver.switch_to.window(handle)
            hidden += driver.execute_script("return document.visibilityState") != "visible"

    def counts() -> tuple[int, int]:  # checks of the figure, and requests of any kind, so far
        text = server.log_path.read_text(errors="replace")
        return text.count(f"GET /api/figures/{fid} "), text.count('HTTP/1.1" ')

    checks, requests = counts()
    row.evalmaps, row.floor = measure(), floor
    checks_after, requests_after = counts()
    row.what += (f" ({checks_after - checks} checks, {requests_after - requests} requests in "
                 f"all; {hidden} of 20 windows hidden)")
    return row


SECTION_FUNCS = {"load": section_load, "items": section_items, "rank": section_rank,
                 "lab": section_lab,
                 "cli": section_cli,
                 "callback": section_callback,
                 "payload": section_payload, "paint": section_paint, "transfer": section_transfer,
                 "throughput": section_throughput, "soak": section_soak,
                 "uploads": section_uploads, "lighthouse": section_lighthouse,
                 "live": section_live, "objects": section_objects}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sweeps, one repeat, 2 s load tests: checks the script itself")
    parser.add_argument("--only", action="append", default=[], metavar="SECTION",
                        help=f"run only these sections (repeat or comma-separate): "
                             f"{', '.join(SECTIONS)}")
    parser.add_argument("--out", metavar="DIR", type=Path, default=RESULTS,
                        help="keep the run's table in DIR/<UTC date and time>-<short commit>.md "
                             "with the machine facts on top (default: benchmarks/results/)")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    parser.add_argument("--soak-seconds", type=float, default=None, metavar="N",
                        help="length of the soak's mixed load (default 300; 6 with --quick)")
    parser.add_argument("--load-tool", choices=throughput.TOOLS, default="auto",
                        help="load generator: wrk when installed (auto), or Python threads")
    args = parser.parse_args(argv)
    if args.soak_seconds is None:
        args.soak_seconds = 6.0 if args.quick else 300.0
    if not 1 <= args.soak_seconds <= 3600:
        parser.error("--soak-seconds takes a number of seconds from 1 to 3600")
    only = [s.strip() for value in args.only for s in value.split(",") if s.strip()]
    unknown = [s for s in only if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    args.sections = [s for s in SECTIONS if not only or s in only]
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    started = dt.datetime.now(dt.timezone.utc)
    commit, dirty = git_commit()  # the code measured: as it is when the run starts

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    load_before = load_average()
    tmp = Path(tempfile.mkdtemp(prefix="evalmaps-bench-"))
    ctx = Context(args.quick, sweeps(args.quick), tmp, log, tool=args.load_tool,
                  soak_seconds=args.soak_seconds)
    rows: list[Row] = []
    try:
        for sweep in ctx.sweeps if set(args.sections) - OWN_DATA else ():
            folder = tmp / sweep.id
            ctx.csv[sweep.id] = sweep.write_catalog_folder(folder)
            ctx.folders[sweep.id] = folder
            ctx.plain[sweep.id] = tmp / f"{sweep.id}-plain"
            sweep.write_plain_folder(ctx.plain[sweep.id], ctx.csv[sweep.id])
        log(f"sweeps written to {tmp}")
        server_error = None
        for name in args.sections:  # load first: no server competes for the CPUs then
            if name in SERVER_SECTIONS and ctx.server is None and server_error is None:
                server_error = start_server(ctx)
            if name in SERVER_SECTIONS and ctx.server is None:
                rows.append(Row(f"{name}: every measurement", "", failed=server_error))
                continue
            try:
                rows += SECTION_FUNCS[name](ctx)
            except Exception as exc:  # noqa: BLE001 - one section's failure ends only it
                rows.append(Row(f"{name}: the section", "", failed=reason(exc)))
                log(f"{name}: failed: {reason(exc)}")
                if os.environ.get("EVALMAPS_BENCH_DEBUG"):
                    traceback.print_exc()
    finally:
        for server in (ctx.server, ctx.hard_server):
            if server is not None:
                server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    extra = [f"commit {commit}" + (" with uncommitted changes" if dirty else ""),
             f"load average (1 min) {load_before} at start, {load_average()} at end"]
    extra += versions() + ctx.extra_versions
    if throughput.tool_name(args.load_tool) == "wrk" and {"throughput", "soak"} & set(
            args.sections):
        extra.append("wrk " + (subprocess.run(["wrk", "--version"], capture_output=True,
                                              text=True).stdout.split() or ["?", "?"])[1])
    sizes = ", ".join(f"{s.id} = {label_cells(s)}" for s in ctx.sweeps)
    lines = [machine_line(extra), "",
             f"Sweeps{' (--quick)' if args.quick else ''}: {sizes}. Ratio = evalmaps / floor.",
             "", table(rows), ""]
    lines += [f"- {note}" for note in ctx.notes]
    text = "\n".join(lines).rstrip() + "\n"
    print(text, end="")
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        path = result_path(args.out, started, commit)
        path.write_text(result_text(text, started, commit, dirty, argv), encoding="utf-8")
    except OSError as exc:
        log(f"could not keep the table in {args.out}: {exc}")
        return 1
    log(f"table kept in {path}")
    return 0


def start_server(ctx: Context) -> str | None:
    """gunicorn with both sweeps; if it cannot start, with the small one only. Returns why the
    server is missing (or None)."""
    small, big = ctx.sweeps
    attempts = [[ctx.folders[small.id], ctx.folders[big.id]], [ctx.folders[small.id]]]
    error = None
    for folders in attempts:
        server = Gunicorn(folders)
        ctx.log(f"gunicorn: starting on {server.base} with {len(folders)} sweep folder(s)")
        try:
            started = time.monotonic()
            server.start()
            ctx.server = server
            ctx.notes.append(f"server: gunicorn app:server --workers 2 on 127.0.0.1, up in "
                             f"{time.monotonic() - started:.1f} s with "
                             f"{', '.join(f.name for f in folders)}"
                             + (f" (with every sweep it failed: {error})" if error else "") + ".")
            return None
        except Exception as exc:  # noqa: BLE001
            error = reason(exc)
            ctx.log(f"gunicorn: failed: {error}")
            server.stop()
    return f"gunicorn did not start: {error}"


if __name__ == "__main__":
    sys.exit(main())
