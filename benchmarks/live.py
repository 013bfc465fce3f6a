"""The live section's pieces: a sweep written into a watched folder while a real gunicorn serves
it and a real Chromium shows it (evalmaps.service.live, assets/evalmaps-live.js).

Files are lm-evaluation-harness results (``{"results": {task: {"acc": v}}, "config":
{"model_args": "pretrained=lab/<model>,revision=step<n>"}}``), one (model, step) each, written
whole by an atomic rename. The page's probe (:data:`CELL_PROBE`) notes, every 20 ms, the time
(``Date.now()``, the machine's clock, as the writer's ``time.time()``) at which each cell of the
painted heatmap first holds a value: the latency of a file is that time minus the time its rename
was done.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

TASKS = ("alpha", "beta", "gamma")  # each file's tasks; the page shows the first one's panel
MODELS = ("ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis", "jay", "kiwi", "lark")

# Polls the painted heatmap (Plotly's drawn data, once no Plotly promise is pending), noting
# when each cell first holds a value; keys "<y label>|<x label>".
CELL_PROBE = """
(function () {
  if (window.__live) { return; }
  window.__live = {};
  setInterval(function () {
    var gd = document.querySelector('.heatmap-keys .js-plotly-plot');
    var fd = gd && gd._fullData;
    if (!fd || !fd.length || (gd._promises && gd._promises.length)) { return; }
    var t = fd[0], z = t.z || [], now = Date.now();
    for (var i = 0; i < z.length; i++) {
      for (var j = 0; j < (z[i] || []).length; j++) {
        var v = z[i][j];
        if (v !== null && v !== undefined && !(typeof v === 'number' && isNaN(v))) {
          var key = String(t.y[i]) + '|' + String(t.x[j]);
          if (!(key in window.__live)) { window.__live[key] = now; }
        }
      }
    }
  }, 20);
})();
"""


def results_file(model: str, step: int, seed: int) -> bytes:
    values = {task: {"acc": round(((seed * 37 + k * 11) % 97) / 100, 4),
                     "acc_stderr": 0.01} for k, task in enumerate(TASKS)}
    return json.dumps({"results": values, "versions": {t: 0 for t in TASKS},
                       "config": {"model": "hf-causal", "num_fewshot": 0,
                                  "model_args": f"pretrained=lab/{model},revision=step{step}"}
                       }).encode()


def write(folder: Path, model: str, step: int, seed: int) -> float:
    """Write one (model, step) file whole (an atomic rename); the time it landed."""
    out = folder / model / f"results_{model}_step{step}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name("." + out.name + ".part")
    tmp.write_bytes(results_file(model, step, seed))
    os.replace(tmp, out)
    return time.time()


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of these processes so far (/proc/<pid>/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def latencies(seen: dict[str, float], written: dict[tuple[str, int], float]) -> list[float]:
    """Seconds from each file written to its cell painted (files whose cell never painted are
    left out; the caller says how many)."""
    out = []
    for (model, step), at in written.items():
        hit = [ms for key, ms in seen.items()
               if key.split("|")[0].endswith(model) and key.split("|")[1] == str(step)]
        if hit:
            out.append(max(0.0, min(hit) / 1000 - at))
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


# ---------------------------------------------------------------- a lab's folder, watched (issue 41)

LAB_MODELS = 200  # models in the watched folder at the goal
NEW_MODELS = 3  # new models' files written in, one at a time
LAB_LATENCY_GOAL = 5.0  # seconds from a new model's file complete to /api/figures serving it
LAB_START_GOAL = 2.0  # start-up with the folder read already, against built-in figures only


def vm_hwm_mb(pid: int) -> float | None:
    """Peak RSS (VmHWM) of a process in MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


def lab_rows(ctx, Row, Gunicorn, request, value_at_most, ratio_at_most, reason) -> list:
    """A lab's folder of per-item zips in MMLU-Pro's layout (benchmarks/lab.py), watched by a
    gunicorn of 2 workers with a cache (the store of pieces): the first read of every file; the
    seconds from a new model's file complete (renamed into place) to ``/api/figures`` serving
    it, in one answer and then in every one of 8 in a row (both workers); each worker's peak
    RSS; a restart's start-up to the first 200 on ``/healthz`` against the start with built-in
    figures only, taken in turn."""
    import shutil
    import statistics

    from benchmarks import lab
    from evalmaps.core.figure import short_slug

    models = 6 if ctx.quick else LAB_MODELS
    source = ctx.tmp / "live-lab-source"
    ctx.log(f"live: writing {models + NEW_MODELS} models' zips")
    made = lab.make(source, models + NEW_MODELS)
    folder = ctx.tmp / "live-lab"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for path in made[:models]:
        os.link(path, folder / path.name)
    cache = ctx.tmp / "live-lab-cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = {"EVALMAPS_CACHE": str(cache), "EVALMAPS_STORE": "off",
           "EVALMAPS_DATA_OPTIONS": " ".join(lab.OPTIONS)}
    fid = "import-" + short_slug(folder.name)
    puts = cache / "live" / "puts.log"
    first = Row(f"live: {models} models' folder, first start-up (each file read once)", "s")
    served = Row(f"live, {models} models: a new model's file complete to /api/figures serving "
                 f"it, median of {NEW_MODELS}", "s", goal=f"≤ {LAB_LATENCY_GOAL:g} s",
                 within=value_at_most(LAB_LATENCY_GOAL))
    both = Row(f"live, {models} models: ... to 8 answers in a row serving it (both workers), "
               f"median of {NEW_MODELS}", "s")
    reads = Row(f"live, {models} models: files read per new file, over all processes", "files",
                goal="1", within=value_at_most(1.0))
    rss = Row(f"live, {models + NEW_MODELS} models: peak RSS of a worker (the larger)", "MB")
    start = Row(f"live, {models + NEW_MODELS} models read already: start-up to the first "
                f"/healthz 200 (floor: built-in figures only), median of 3", "s",
                goal=f"≤ {LAB_START_GOAL:g}x", within=ratio_at_most(LAB_START_GOAL))
    rows = [first, served, both, reads, rss, start]

    def cells() -> int:
        r = request(server.port, "GET", f"/api/figures/{fid}", timeout=30)
        return json.loads(r.body)["n_cells"] if r.status == 200 else -1

    server = Gunicorn([folder], env=env)
    try:
        at = time.monotonic()
        server.start(timeout=3600)
        first.evalmaps = time.monotonic() - at
        per_model = cells() // models
        time.sleep(3.0)
        for _ in range(8):
            cells()  # each worker's watcher started by its first request
        once, all_of, counts = [], [], []
        for k, path in enumerate(made[models:models + NEW_MODELS]):
            before = len(puts.read_text().splitlines())
            tmp = folder / f".{path.name}.part"
            shutil.copyfile(path, tmp)
            os.replace(tmp, folder / path.name)
            done = time.time()
            want = per_model * (models + k + 1)
            deadline = time.monotonic() + 60
            while cells() != want:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"model {models + k + 1} not served within 60 s")
                time.sleep(0.05)
            once.append(time.time() - done)
            while not all(cells() == want for _ in range(8)):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"model {models + k + 1} not served by both workers")
                time.sleep(0.05)
            all_of.append(time.time() - done)
            time.sleep(2.5)  # a scan more: any other process that reads it is counted
            counts.append(len(puts.read_text().splitlines()) - before)
        served.evalmaps, both.evalmaps = statistics.median(once), statistics.median(all_of)
        reads.evalmaps = max(counts)
        rss.evalmaps = max(vm_hwm_mb(pid) or 0 for pid in server.worker_pids())
    except Exception as exc:  # noqa: BLE001 - the rows so far stand
        for row in rows:
            if row.evalmaps is None:
                row.failed = reason(exc)
    finally:
        server.stop()
    try:
        logged = puts.read_text()
        theirs, mine = [], []
        for _ in range(3):
            for extra, out in (([], theirs), ([folder], mine)):
                server = Gunicorn(extra, env=env)
                try:
                    at = time.monotonic()
                    server.start(timeout=600)
                    out.append(time.monotonic() - at)
                finally:
                    server.stop()
        start.evalmaps, start.floor = statistics.median(mine), statistics.median(theirs)
        if puts.read_text() != logged:
            start.failed = "a restart read files again"
    except Exception as exc:  # noqa: BLE001
        start.failed = reason(exc)
    ctx.notes.append(
        f"live (lab): {models} models' zips in MMLU-Pro's layout (benchmarks/lab.py, "
        f"{' '.join(lab.OPTIONS)}) in a folder watched by gunicorn --workers 2 with "
        f"EVALMAPS_CACHE (the store of pieces); {NEW_MODELS} new models' zips copied aside and "
        f"renamed into place one at a time; latency: rename done to the first /api/figures "
        f"answer (a new connection each, polled every 50 ms) whose n_cells counts the new "
        f"model (a file is read once it has held 2 s: SETTLE). Files read: lines added to the "
        f"store's put log (<cache>/live/puts.log) per new file, over all processes. Peak RSS: "
        f"VmHWM. Start-up: Popen to the first 200 on /healthz, the folder read already (its "
        f"manifest and pieces in the cache), against the same server with no --data, taken in "
        f"turn, 3 each. Load average at the end: {os.getloadavg()[0]:.1f}.")
    shutil.rmtree(folder, ignore_errors=True)
    return rows
