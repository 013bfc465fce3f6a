"""gunicorn throughput on 127.0.0.1: req/s, p50 and p99 latency and errors with N connections.

``wrk`` (Debian package ``wrk``) when it is installed, with a Lua script that sets the POST body
and prints the summary in one machine-readable line; otherwise a Python thread pool of N
clients. Both loops are bounded in time (``seconds``) and the Python one also in count.

``run`` loads one path; ``run_mix`` sends a mix of requests in turn (each connection cycles
through the list, so the mix holds them in equal numbers), for the soak.
"""

from __future__ import annotations

import http.client
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HOST = "127.0.0.1"

LUA = """
{body}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("BENCH %d %d %.1f %.1f %d %d %d %d %d\\n", summary.requests,
    summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
"""

MIX = """
local targets = {{targets}}
local built = nil
local i = 0
local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end
request = function()
  if built == nil then
    built = {}
    for n, t in ipairs(targets) do
      if t[2] then
        built[n] = wrk.format("POST", t[1], {["Content-Type"] = "application/json"}, slurp(t[2]))
      else
        built[n] = wrk.format("GET", t[1])
      end
    end
    i = math.random(#built) - 1  -- threads start at different places of the mix
  end
  i = i % #built + 1
  return built[i]
end
"""

POST_BODY = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = assert(io.open("{path}", "rb"))
wrk.body = f:read("*a")
f:close()
"""


@dataclass
class Result:
    tool: str
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int  # connect/read/write/timeouts and non-2xx/3xx answers
    kinds: str = ""  # the errors by kind, when the tool tells them apart ('read 3, timeout 2')

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


TOOLS = ("auto", "wrk", "python")


def tool_name(tool: str = "auto") -> str:
    """The load generator ``run`` uses: wrk when asked for or installed, else Python threads."""
    if tool == "wrk" or (tool == "auto" and shutil.which("wrk")):
        return "wrk"
    return "python threads"


def run(port: int, path: str, body: bytes | None = None, connections: int = 32,
        seconds: float = 10.0, tool: str = "auto") -> Result:
    return run_mix(port, [(path, body)], connections, seconds, tool)


def run_mix(port: int, targets: list[tuple[str, bytes | None]], connections: int = 32,
            seconds: float = 10.0, tool: str = "auto") -> Result:
    """``targets``: (path, POST body or None for a GET); one target is a plain load test."""
    if tool_name(tool) == "wrk":
        return _wrk(port, targets, connections, seconds)
    return _threads(port, targets, connections, seconds)


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _wrk(port: int, targets: list[tuple[str, bytes | None]], connections: int,
         seconds: float) -> Result:
    with tempfile.TemporaryDirectory(prefix="evalmaps-bench-wrk-") as tmp:
        script = Path(tmp) / "bench.lua"
        if len(targets) == 1:
            path, body = targets[0]
            post = ""
            if body is not None:
                body_file = Path(tmp) / "body.json"
                body_file.write_bytes(body)
                post = POST_BODY.replace("{path}", str(body_file))
        else:
            path, entries = "/", []
            for n, (target, body) in enumerate(targets):
                body_path = "nil"
                if body is not None:
                    body_file = Path(tmp) / f"body{n}.json"
                    body_file.write_bytes(body)
                    body_path = _lua_string(str(body_file))
                entries.append(f"{{{_lua_string(target)}, {body_path}}}")
            post = MIX.replace("{{targets}}", "{" + ", ".join(entries) + "}")
        script.write_text(LUA.replace("{body}", post))
        cmd = ["wrk", "--threads", "2", "--connections", str(connections),
               "--duration", f"{max(1, round(seconds))}s", "--timeout", "10s",
               "--script", str(script), f"http://{HOST}:{port}{path}"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("BENCH ")), None)
    if line is None:
        raise RuntimeError(f"wrk printed no summary (exit {proc.returncode}): "
                           f"{(proc.stderr or proc.stdout).strip()[-300:]}")
    n, duration_us, p50_us, p99_us, *errors = line.split()[1:]
    kinds = ", ".join(f"{name} {count}" for name, count in zip(
        ("connect", "read", "write", "status", "timeout"), map(int, errors)) if count)
    return Result("wrk", int(n), int(duration_us) / 1e6, float(p50_us) / 1000,
                  float(p99_us) / 1000, sum(int(e) for e in errors), kinds)


def _threads(port: int, targets: list[tuple[str, bytes | None]], connections: int,
             seconds: float) -> Result:
    max_requests = max(200_000, int(seconds * 5000))  # a bound far above what threads reach
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    start = time.perf_counter()
    deadline = start + seconds
    json_headers = {"Content-Type": "application/json"}

    def client(offset: int):
        n = offset
        while time.perf_counter() < deadline:
            with lock:
                if len(latencies) + errors[0] >= max_requests:
                    return
            path, body = targets[n % len(targets)]
            n += 1
            method = "POST" if body is not None else "GET"
            headers = json_headers if body is not None else {}
            t0 = time.perf_counter()
            try:
                conn = http.client.HTTPConnection(HOST, port, timeout=10)
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
                resp.read()
                conn.close()
                ok = resp.status < 400
            except OSError:
                ok = False
            with lock:
                if ok:
                    latencies.append((time.perf_counter() - t0) * 1000)
                else:
                    errors[0] += 1

    threads = [threading.Thread(target=client, args=(i,), daemon=True)
               for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 15)
    elapsed = time.perf_counter() - start
    if not latencies:
        raise RuntimeError(f"no request succeeded ({errors[0]} errors)")
    q = statistics.quantiles(latencies, n=100, method="inclusive")
    return Result("python threads", len(latencies) + errors[0], elapsed, q[49], q[98], errors[0])
