"""The real app under gunicorn, on 127.0.0.1 only, and a small HTTP client for it (no proxies)."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def rss_mb(pid: int) -> float | None:
    """VmRSS of a process in MB (None once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float  # the round trip: request sent .. last byte read


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None, timeout: float = 120.0) -> Response:
    """One HTTP request to 127.0.0.1:port on a fresh connection (as gunicorn's sync workers
    close every connection anyway)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        start = time.perf_counter()
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        seconds = time.perf_counter() - start
        return Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, data, seconds)
    finally:
        conn.close()


class Gunicorn:
    """``gunicorn app:server --workers 2 --bind 127.0.0.1:<port>`` from the repo root (so a
    ``gunicorn.conf.py`` there applies), in its own process group; ``stop`` ends that group."""

    def __init__(self, extra_dirs: list[Path], workers: int = 2, env: dict[str, str] | None = None,
                 args: list[str] | None = None, app: str = "app:server"):
        self.extra_dirs = extra_dirs
        self.app = app  # what gunicorn serves (benchmarks/boundary.py: a variant of the app)
        self.workers = workers
        self.env = env or {}  # extra environment (EVALMAPS_* settings) for this server
        self.args = args or []  # extra gunicorn arguments (over gunicorn.conf.py)
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.log = tempfile.NamedTemporaryFile(prefix="evalmaps-bench-gunicorn-", suffix=".log",
                                               delete=False)
        self.log_path = Path(self.log.name)

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, timeout: float = 240.0) -> None:
        env = dict(os.environ)
        env["EVALMAPS_EXTRA_DATA"] = os.pathsep.join(str(d) for d in self.extra_dirs)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep)
        env.pop("EVALMAPS_DEBUG", None)
        env.update(self.env)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", self.app, "--workers", str(self.workers),
             "--bind", f"{HOST}:{self.port}", *self.args],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with code {self.proc.returncode}: "
                                   f"{self.last_error()}")
            try:
                if request(self.port, "GET", "/healthz", timeout=5).status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"/healthz did not answer within {timeout:.0f} s: {self.last_error()}")

    def worker_pids(self) -> list[int]:
        """The gunicorn workers: the master's child processes, oldest first."""
        return [] if self.proc is None else children_of(self.proc.pid)

    def log_excerpt(self, marker: str, lines: int = 12) -> str:
        """The log's lines from the first one holding ``marker`` (for a note), or ''."""
        try:
            text = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        start = next((i for i, line in enumerate(text) if marker in line), None)
        if start is None:
            return ""
        return " | ".join(line.strip() for line in text[start:start + lines])[:1500]

    def last_error(self) -> str:
        """The most telling line of the log (an error message, else its last line)."""
        try:
            lines = [line.strip() for line in self.log_path.read_text(errors="replace").splitlines()
                     if line.strip()]
        except OSError:
            return "no log"
        for line in reversed(lines):
            if "Error" in line or "error" in line:
                return line[-400:]
        return lines[-1][-400:] if lines else "no output"

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM to the process group (master and workers), SIGKILL if it lingers; the log
        is removed (start-up errors were read from it already)."""
        if self.proc is None:
            self.log.close()
            self.log_path.unlink(missing_ok=True)
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=timeout)
                break
            except subprocess.TimeoutExpired:
                continue
        # the workers are in the same group: make sure none is left
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if self.proc.poll() is None:
            self.proc.wait(timeout=timeout)
        self.log.close()
        self.log_path.unlink(missing_ok=True)


def children_of(pid: int) -> list[int]:
    """Pids whose parent is ``pid`` (Linux /proc), oldest first."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if int(fields[1]) == pid:  # ppid
            found.append((int(fields[19]), int(entry.name)))  # (start time, pid)
    return [child for _, child in sorted(found)]
