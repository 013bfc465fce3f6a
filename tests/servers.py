"""Helpers for tests that start a real server process on this machine (127.0.0.1 only)."""

from __future__ import annotations

import socket
from pathlib import Path

from benchmarks.server import children_of

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until_serving(proc, healthy, log, timeout: float, workers: int = 2) -> list[int]:
    """Wait (bounded) until a gunicorn started as ``proc`` answers (``healthy()`` is true) and its
    master reports ``workers`` workers; return their pids. Fails the test, with ``log()``, if
    gunicorn exits or does not answer in time. ``healthy`` may raise OSError or ValueError
    while the server is not up yet."""
    import time

    import pytest

    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            pytest.fail(f"gunicorn exited with {proc.returncode} on start-up:\n{log()}")
        try:
            if healthy():
                break
        except (OSError, ValueError):
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"gunicorn did not answer /healthz within {timeout:g} s:\n{log()}")
        time.sleep(0.2)
    deadline = time.monotonic() + timeout  # workers boot independently
    while len(children_of(proc.pid)) < workers and time.monotonic() < deadline:
        time.sleep(0.1)
    return children_of(proc.pid)


def stop_gunicorn(proc, workers: list[int], timeout: float) -> list[int]:
    """Stop a gunicorn started in its own session: SIGTERM (graceful), then SIGKILL to the whole
    group; return the pids still alive after ``timeout`` (none, normally)."""
    import contextlib
    import os
    import signal
    import subprocess
    import time

    if proc.poll() is None:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=timeout)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=timeout)
    leftovers: list[int] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        leftovers = [pid for pid in [proc.pid, *workers] if alive(pid)]
        if not leftovers:
            break
        time.sleep(0.1)
    for pid in leftovers:  # last resort
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return leftovers


def start_app_gunicorn(env_extra: dict[str, str], log: Path):
    """``gunicorn app:server`` with one worker on a free loopback port, in its own session, the
    app's settings from ``env_extra`` only (no EVALMAPS_* of the caller): ``(proc, base_url)``.
    Wait with :func:`wait_until_serving`, stop with :func:`stop_gunicorn`."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVALMAPS_")}
    env.update(PYTHONPATH=str(root), **env_extra)
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "app:server", "--bind",
                                 f"{HOST}:{port}", "--workers", "1"], cwd=root, env=env,
                                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    return proc, f"http://{HOST}:{port}"
