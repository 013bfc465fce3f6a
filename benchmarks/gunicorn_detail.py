"""Measure the deployed server: a real gunicorn (gunicorn.conf.py from the repository root) on
127.0.0.1. Speed is measured here, never asserted in tests.

    python benchmarks/gunicorn_detail.py idle [--sockets 200] [--repeat 20] [--kind silent]
    python benchmarks/gunicorn_detail.py load [--configs 2x8,2x4,2x16,4x2,4x4] [--clients 8]

idle: the median time to answer /healthz (``--repeat`` sequential requests), first with no other
connection open (the floor), then with ``--sockets`` idle connections open (silent, or having sent
part of a request line or head); printed with the ratio to the floor. For comparison it does the
same with gunicorn's own gthread worker and with the old setup (2 sync workers); a server that
does not answer within ``--client-timeout`` seconds is reported as starved.

load: per workers x threads setting (``WxT``), ``--clients`` clients send ``--requests`` Dash
callback POSTs in all (the Data page's upload preview of an 8100-cell CSV: pandas parsing and
validation, CPU-bound), while one more client asks for /healthz every 0.1 s. Prints callbacks
per second, callback and /healthz latency (median, 90th percentile).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import free_port  # noqa: E402

HOST = "127.0.0.1"
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 only
KINDS = {"silent": b"", "partial-request-line": b"GET /healthz HT",
         "partial-head": b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"}
SETUPS = {  # name -> extra gunicorn arguments (on top of gunicorn.conf.py)
    "gunicorn.conf.py": [],
    "gunicorn gthread, 2x8": ["--worker-class", "gthread"],
    "old: 2 sync workers": ["--worker-class", "sync", "--threads", "1"],
}


@contextlib.contextmanager
def gunicorn(args: list[str]):
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("GUNICORN_CMD_ARGS", "WEB_CONCURRENCY", "PORT")}
    env["PYTHONPATH"] = str(ROOT)
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "app:server", "--bind",
                             f"{HOST}:{port}", "--access-logfile", "/dev/null", *args],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise SystemExit(f"gunicorn did not start:\n{log.read().decode()[-3000:]}")
            with contextlib.suppress(OSError):
                if get(port, "/healthz", 2)[0] == 200:
                    break
            time.sleep(0.2)
        time.sleep(1.0)  # the second worker
        yield port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        log.close()


def get(port: int, path: str, timeout: float) -> tuple[int, bytes]:
    with OPENER.open(f"http://{HOST}:{port}{path}", timeout=timeout) as response:
        return response.status, response.read()


def healthz_ms(port: int, timeout: float) -> float:
    start = time.perf_counter()
    status, body = get(port, "/healthz", timeout)
    elapsed = (time.perf_counter() - start) * 1000
    if status != 200 or json.loads(body).get("status") != "ok":
        raise RuntimeError(f"/healthz answered {status} {body[:100]!r}")
    return elapsed


def median_healthz(port: int, repeat: int, timeout: float) -> float | None:
    samples = []
    for _ in range(repeat):
        try:
            samples.append(healthz_ms(port, timeout))
        except (TimeoutError, urllib.error.URLError):
            return None
    return statistics.median(samples)


def idle(args) -> None:
    print(f"/healthz, median of {args.repeat}, with {args.sockets} {args.kind} connections open "
          f"(client timeout {args.client_timeout:g} s)")
    for name, extra in SETUPS.items():
        with gunicorn(extra) as port:
            for _ in range(5):  # warm-up
                healthz_ms(port, 10)
            floor = median_healthz(port, args.repeat, args.client_timeout)
            socks = []
            try:
                for _ in range(args.sockets):
                    sock = socket.create_connection((HOST, port), timeout=10)
                    socks.append(sock)
                    if KINDS[args.kind]:
                        sock.sendall(KINDS[args.kind])
                loaded = median_healthz(port, args.repeat, args.client_timeout)
            finally:
                for sock in socks:
                    sock.close()
        if loaded is None:
            print(f"  {name:24s} floor {floor:7.1f} ms   idle: no answer within "
                  f"{args.client_timeout:g} s (starved)")
        else:
            print(f"  {name:24s} floor {floor:7.1f} ms   idle {loaded:7.1f} ms   "
                  f"ratio {loaded / floor:5.2f}")


def callback_request_body() -> bytes:
    import app as webapp
    from tests.integration.dash_calls import callback_body

    rows = "".join(f"t{t},{n},{(t * 7 + n * 3) % 100}\n" for t in range(90) for n in range(90))
    data = ("type,len,value\n" + rows).encode()
    inputs = {"data-upload-raw.data": {
                  "name": "big.csv",
                  "contents": "data:text/csv;base64," + base64.b64encode(data).decode()},
              "data-format.value": "auto", "data-metric.value": "Accuracy",
              "data-unit.value": "%", "data-range.value": True}
    return callback_body(webapp.server.test_client(), "data-upload-status.children",
                         inputs).encode()


def post_ms(port: int, body: bytes) -> float:
    request = urllib.request.Request(f"http://{HOST}:{port}/_dash-update-component", data=body,
                                     headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    with OPENER.open(request, timeout=120) as response:
        response.read()
        if response.status != 200:
            raise RuntimeError(f"callback answered {response.status}")
    return (time.perf_counter() - start) * 1000


def pct(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=10)[int(q * 10) - 1] if len(samples) > 1 \
        else samples[0]


def load(args) -> None:
    body = callback_request_body()
    print(f"{args.requests} callback POSTs from {args.clients} clients, /healthz every 0.1 s")
    for config in args.configs.split(","):
        workers, threads = config.split("x")
        with gunicorn(["--workers", workers, "--threads", threads]) as port:
            for _ in range(4):  # warm-up: both workers
                post_ms(port, body)
            remaining = [args.requests]
            lock = threading.Lock()
            callbacks: list[float] = []
            probes: list[float] = []
            done = threading.Event()

            def client():
                while True:
                    with lock:
                        if remaining[0] == 0:
                            return
                        remaining[0] -= 1
                    callbacks.append(post_ms(port, body))

            def prober():
                while not done.wait(0.1):
                    probes.append(healthz_ms(port, 60))

            probe = threading.Thread(target=prober)
            probe.start()
            start = time.perf_counter()
            pool = [threading.Thread(target=client) for _ in range(args.clients)]
            for thread in pool:
                thread.start()
            for thread in pool:
                thread.join()
            wall = time.perf_counter() - start
            done.set()
            probe.join()
        print(f"  {workers} workers x {threads:>2s} threads: {len(callbacks) / wall:5.1f} "
              f"callbacks/s; callback median {statistics.median(callbacks):6.0f} ms, "
              f"p90 {pct(callbacks, 0.9):6.0f} ms; /healthz median "
              f"{statistics.median(probes):5.0f} ms, p90 {pct(probes, 0.9):5.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    p_idle = sub.add_parser("idle")
    p_idle.add_argument("--sockets", type=int, default=200)
    p_idle.add_argument("--repeat", type=int, default=20)
    p_idle.add_argument("--kind", choices=list(KINDS), default="silent")
    p_idle.add_argument("--client-timeout", type=float, default=10.0)
    p_load = sub.add_parser("load")
    p_load.add_argument("--configs", default="2x8,2x4,2x16,4x2,4x4")
    p_load.add_argument("--clients", type=int, default=8)
    p_load.add_argument("--requests", type=int, default=160)
    args = parser.parse_args()
    idle(args) if args.mode == "idle" else load(args)


if __name__ == "__main__":
    main()
