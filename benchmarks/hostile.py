"""Hostile uploads through the Data page's callbacks, and a client that probes latency meanwhile.

An upload goes through two callbacks, as in the browser: *stage* (``data-staged.data``: the
file's bytes, base64, in ``data-upload-raw.data``) keeps the bytes on the server and answers a
key; *preview* (``data-pending.data``: the key in ``data-staged.data``) imports the staged file
within the upload budget (``evalmaps/service/budget.py``). Each hostile file here must be refused by
the preview; :func:`upload` says how long that took and what refused it.

The files (made here, deterministic):
- ``columns``: a header of 100,000 columns and one row (about 1.2 MB): refused before parsing;
- ``rows``: a tidy CSV of 1,000,000 short rows (about 11 MB, under the 20 MB upload limit):
  stopped by the memory or time budget;
- ``zip``: a zip of one CSV that expands to 190 MB (under the importer's 10x-the-limit check)
  from a few hundred KB: refused before it is expanded, by the zip reader's check of each
  member's size and ratio (a decompression bomb).
"""

from __future__ import annotations

import base64
import io
import statistics
import threading
import time
import zipfile
from dataclasses import dataclass, field
from typing import Callable

import orjson

from benchmarks import dash_requests
from benchmarks.server import request

JSON = {"Content-Type": "application/json"}
MB = 2**20


def columns_file(columns: int = 100_000) -> bytes:
    header = "model," + ",".join(f"c{i}" for i in range(columns))
    row = "m," + ",".join(str(i % 100) for i in range(columns))
    return (header + "\n" + row + "\n").encode()


def rows_file(rows: int = 1_000_000) -> bytes:
    """A tidy CSV of ``rows`` distinct cells: 10 models x (rows / 1000) windows x 100 ratios,
    short labels and whole values (about 11 bytes a row)."""
    windows = max(1, rows // 1000)
    lines = ["m,w,r,value"]
    for m in "abcdefghij":
        for w in range(windows):
            prefix = f"{m},{w},"
            lines += [f"{prefix}{j},{(w * 3 + j) % 100}" for j in range(100)]
    return ("\n".join(lines[: rows + 1]) + "\n").encode()


def zip_file(expanded_bytes: int = 190 * MB) -> bytes:
    """A zip of one tidy CSV (the same row again and again) that expands to ``expanded_bytes``."""
    row = b"model-a,128,0.10,50.0\n"
    chunk = row * (MB // len(row))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        with archive.open("results.csv", "w") as member:
            member.write(b"model,window,ratio,value\n")
            written = 0
            while written + len(chunk) <= expanded_bytes:
                member.write(chunk)
                written += len(chunk)
    return out.getvalue()


@dataclass
class Hostile:
    kind: str  # columns | rows | zip
    label: str
    name: str
    data: bytes
    expected: str  # what should refuse it: "columns", "budget" or "zip"


def hostile_files() -> list[Hostile]:
    cols = columns_file()
    rows = rows_file()
    bomb = zip_file()
    return [
        Hostile("columns", f"100,000-column CSV ({len(cols) / MB:.1f} MB)", "wide.csv", cols,
                "columns"),
        Hostile("rows", f"1,000,000-row tidy CSV ({len(rows) / MB:.1f} MB)", "long.csv", rows,
                "budget"),
        Hostile("zip", f"zip of {len(bomb) / 1024:.0f} KB expanding to 190 MB", "bomb.zip",
                bomb, "zip"),
    ]


# what each kind of hostile file must be refused by
REFUSERS = {"columns": {"columns"}, "budget": {"memory budget", "time budget"},
            "zip": {"zip check"}}


def refused_by(message: str) -> str:
    """What a refusal message names: the column check, the memory or time budget, a busy server."""
    text = message.lower()
    if "columns" in text and "header" in text:
        return "columns"
    if "decompression bomb" in text:
        return "zip check"
    if "memory" in text:
        return "memory budget"
    if "longer than" in text:
        return "time budget"
    if "busy" in text:
        return "busy"
    return "other"


class UploadClient:
    """Builds the two callback bodies from the running app's /_dash-dependencies."""

    def __init__(self, port: int):
        self.port = port
        request(port, "GET", "/data")  # Dash Pages registers its callbacks on a first request
        deps = orjson.loads(self._ok(request(port, "GET", "/_dash-dependencies")))
        self.stage_dep = dash_requests.find_dependency(deps, "data-staged.data")
        self.preview_dep = dash_requests.find_dependency(deps, "data-pending.data")

    @staticmethod
    def _ok(response) -> bytes:
        if response.status != 200:
            raise RuntimeError(f"answered {response.status}: {response.body[:200]!r}")
        return response.body

    def stage_body(self, name: str, data: bytes) -> bytes:
        contents = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
        return dash_requests.envelope(self.stage_dep, {
            "data-upload-raw.data": {"name": name, "contents": contents}})

    def preview_body(self, key: str) -> bytes:
        return dash_requests.envelope(self.preview_dep, {
            "data-staged.data": key, "data-format.value": "auto",
            "data-metric.value": "Accuracy", "data-unit.value": "%", "data-range.value": True})

    def upload(self, name: str, stage_body: bytes) -> tuple[float, str, str]:
        """Stage then preview; (seconds, what refused it or "not refused", the message)."""
        start = time.perf_counter()
        staged = dash_requests.response_outputs(self._ok(request(
            self.port, "POST", "/_dash-update-component", stage_body, JSON, timeout=300)))
        key = staged.get("data-staged.data")
        if not key:
            message = alert_text(staged.get("data-upload-status.children"))
            return time.perf_counter() - start, "stage: " + refused_by(message), message
        shown = dash_requests.response_outputs(self._ok(request(
            self.port, "POST", "/_dash-update-component", self.preview_body(key), JSON,
            timeout=300)))
        seconds = time.perf_counter() - start
        message = alert_text(shown.get("data-upload-status.children"))
        if message is None:
            return seconds, "not refused", ""
        return seconds, refused_by(message), message


def alert_text(node) -> str | None:
    if isinstance(node, dict) and node.get("type") == "Alert":
        return str(node.get("props", {}).get("children"))
    return None


@dataclass
class Prober:
    """Another user: GET each path in turn, one at a time, a short pause between (bounded by
    ``stop`` and by ``max_requests``). Latencies in ms per path; failures counted."""

    port: int
    paths: list[str]
    pause: float = 0.05
    max_requests: int = 20_000
    samples: dict[str, list[float]] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    on_each: Callable[[], None] | None = None

    def __post_init__(self):
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "Prober":
        self.samples = {p: [] for p in self.paths}
        self.failures = {p: 0 for p in self.paths}
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> "Prober":
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=120)
        return self

    def _loop(self) -> None:
        n = 0
        while not self._stop.is_set() and n < self.max_requests:
            for path in self.paths:
                n += 1
                try:
                    r = request(self.port, "GET", path, timeout=60)
                    if r.status == 200:
                        self.samples[path].append(r.seconds * 1000)
                    else:
                        self.failures[path] += 1
                except OSError:
                    self.failures[path] += 1
            if self.on_each is not None:
                self.on_each()
            self._stop.wait(self.pause)


def percentile(samples: list[float], q: int) -> float:
    """The q-th percentile (inclusive method); the value itself for one sample."""
    if len(samples) == 1:
        return samples[0]
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1]
