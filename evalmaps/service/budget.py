"""Bounded work: run one import in a child process with a time and a memory budget.

A file someone uploads can cost far more than its size: 100,000 columns, a million short rows, a
zip that expands a hundredfold. The server must stay responsive and keep its memory whatever
arrives, so an upload's import runs in a child process (started by a fork server, so nothing of
the serving threads is copied) that is stopped when it passes ``seconds`` or grows by more than
``memory_mb``; the caller gets :class:`OverBudget` with a sentence to show. At most
``MAX_CONCURRENT`` imports run at once per process; another one waits at most ``WAIT`` seconds,
then is told to try again (one client's uploads never take every thread).

The child's result comes back pickled; an ordinary import error comes back as its message.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
import traceback
from typing import Any, Callable

from evalmaps.core.errors import EvalmapsError

MAX_CONCURRENT = 2
WAIT = 5.0  # seconds an import waits for a free slot
POLL = 0.02  # seconds between checks of the child's time and memory
_slots = threading.BoundedSemaphore(MAX_CONCURRENT)
_context = None
_context_lock = threading.Lock()


class OverBudget(EvalmapsError):
    """The work passed its time or memory budget, or the server was too busy to start it."""


def _ctx():
    global _context
    with _context_lock:
        if _context is None:
            _context = multiprocessing.get_context("forkserver")
            _context.set_forkserver_preload(["evalmaps.catalog.imports", "evalmaps.readers.csvfile"])
        return _context


def rss_mb(pid: int | None = None) -> float:
    """Resident memory of a process (this one by default), MB; 0 when it cannot be read."""
    try:
        with open(f"/proc/{pid or os.getpid()}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def release_memory() -> None:
    """Give memory the process freed back to the system (glibc's malloc_trim): an upload's
    request body and decoded bytes are large and short-lived, and glibc would otherwise keep
    the freed pages in its arenas, so a worker's resident memory would stay at its peak."""
    global _trim
    if _trim is None:
        try:
            import ctypes

            _trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _trim = False
    if _trim:
        _trim(0)


_trim = None


def peak_mb() -> float:
    """This process's peak resident memory so far, MB (Linux: ru_maxrss in KB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(conn, fn, args, kwargs) -> None:
    conn.send(("base", rss_mb()))
    try:
        value = fn(*args, **kwargs)
        result = ("ok", (value, peak_mb()))  # the peak: a spike between two polls counts too
    except EvalmapsError as exc:
        result = ("error", (type(exc).__name__, str(exc)))
    except MemoryError:
        result = ("memory", None)
    except Exception:  # noqa: BLE001 - reported to the parent, which logs it
        result = ("crash", traceback.format_exc(limit=5))
    try:
        conn.send(result)
    finally:
        conn.close()


class ChildFailed(EvalmapsError):
    """The work raised an EvalmapsError in the child: its message, as is."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def run(fn: Callable[..., Any], *args, seconds: float, memory_mb: float, what: str = "the file",
        **kwargs) -> Any:
    """``fn(*args, **kwargs)`` in a child process, within ``seconds`` and ``memory_mb`` (growth of
    the child's resident memory). Raises :class:`OverBudget`, or :class:`ChildFailed` carrying the
    message of the EvalmapsError ``fn`` raised."""
    if not _slots.acquire(timeout=WAIT):
        raise OverBudget("The server is busy reading other uploads. Try again in a minute.")
    try:
        return _run(fn, args, kwargs, seconds, memory_mb, what)
    finally:
        _slots.release()


def _run(fn, args, kwargs, seconds, memory_mb, what):
    ctx = _ctx()
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, args, kwargs), daemon=True)
    proc.start()
    child.close()
    start = time.monotonic()
    base = None
    try:
        while True:
            if parent.poll(POLL):
                try:
                    kind, payload = parent.recv()
                except EOFError:
                    kind, payload = "died", None
                if kind == "base":
                    base = payload
                    continue
                break
            elapsed = time.monotonic() - start
            if elapsed > seconds:
                raise OverBudget(f"Reading {what} took longer than the {seconds:g} s this server "
                                 f"allows per upload. Upload a smaller file, or serve it with "
                                 f"evalmaps serve --data.")
            if base is not None and rss_mb(proc.pid) - base > memory_mb:
                raise OverBudget(f"Reading {what} needed more than the {memory_mb:g} MB of memory "
                                 f"this server allows per upload. Upload a smaller file, or serve "
                                 f"it with evalmaps serve --data.")
            if not proc.is_alive() and not parent.poll():
                kind, payload = "died", None
                break
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(timeout=5)
        parent.close()
    if kind == "ok":
        value, peak = payload
        if base is not None and peak - base > memory_mb:
            raise OverBudget(f"Reading {what} needed more than the {memory_mb:g} MB of memory "
                             f"this server allows per upload. Upload a smaller file, or serve "
                             f"it with evalmaps serve --data.")
        return value
    if kind == "error":
        raise ChildFailed(*payload)
    if kind == "memory" or kind == "died":
        raise OverBudget(f"Reading {what} needed more memory than this server allows per upload. "
                         f"Upload a smaller file, or serve it with evalmaps serve --data.")
    raise RuntimeError(f"the import failed in its child process:\n{payload}")
