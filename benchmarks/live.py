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
