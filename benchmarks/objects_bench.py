"""The ``objects`` section: the upload store and a data folder on S3-compatible object storage
(issue 41 part 4), against the same on the local disk, in the same run.

The S3 server is moto's (``python -m moto.server``) in a process of its own on 127.0.0.1, so it
does not share the benchmark's interpreter; its answers cost a Python web server's time, not a
network's, so the rows say what evalmaps adds over the disk on loopback, not what a real
bucket far away costs. Rows:

- the paired statistics of a 40-cell comparison (the ``items`` section's data: 2 x 160k
  records) with the records kept in the S3 store (read by DuckDB through s3fs registered on its
  connection), the process's kept cells cleared before each run; floor: the same records in a
  store folder on the disk;
- a file put in a watched data folder on S3 until this process's watcher (its real thread:
  polling the prefix) serves it, median of 5; floor: the same file renamed into a watched
  folder on the disk.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

RECORDS = (5, 8, 500, 8)  # rows, columns, items, samples: as the items section's paired row


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Moto:
    """moto's S3 server in its own process on a free loopback port."""

    def __init__(self, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.out = open(log, "wb")  # noqa: SIM115 - closed by stop()
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                                      "-p", str(self.port)], stdout=self.out,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto's server did not start") from None
                time.sleep(0.1)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.out.close()


def _records():
    """The items section's paired records (2 models x 5 x 8 cells x 500 items x 8 samples,
    seeded 0/1 scores) as a per-item table, imported as an upload's file is."""
    import pandas as pd

    from evalmaps.catalog.imports import import_bytes

    rows_, cols_, items_, samples_ = RECORDS
    rng = np.random.default_rng(27)
    shape = (2, rows_, cols_, items_, samples_)
    score = (rng.random(shape) < np.array([0.5, 0.53])[:, None, None, None, None]).astype(int)
    index = np.indices(shape).reshape(len(shape), -1)
    frame = pd.DataFrame({
        "model": np.array(["a", "b"])[index[0]], "y": np.char.add("r", index[1].astype(str)),
        "x": np.char.add("c", index[2].astype(str)),
        "item": np.char.add("q", np.char.zfill(index[3].astype(str), 3)),
        "sample": index[4], "score": score.ravel()})
    (one,) = import_bytes(frame.to_csv(index=False).encode(), "bench.csv")
    return one


def _kept_figure(store, one):
    """The records kept in ``store`` as an upload's are; the figure read back."""
    from evalmaps.service.uploads import upload_spec

    fid = store.put(upload_spec(one.spec), one.to_csv(for_spreadsheets=False), "bench.csv",
                    one.items)
    return store.figure(fid)


def paired_rows(ctx, moto: Moto, Row, attempt, ratio_at_most) -> list:
    from evalmaps.analysis.paired import paired_grid
    from evalmaps.catalog import items as item_store
    from evalmaps.service.store import open_store

    one = _records()
    disk = open_store(str(ctx.tmp / "objects-store"))
    disk.ensure()
    s3 = open_store("s3://bench/store")
    s3.ensure()
    on_disk, on_s3 = _kept_figure(disk, one), _kept_figure(s3, one)
    repeat = max(ctx.repeat, 3)

    spec = on_disk.spec
    fixed = {d: spec.dims[d].labels[0] for d in spec.dim_names if d not in ("model", "y", "x")}
    keys = [(f"r{i}", f"c{j}") for i in range(RECORDS[0]) for j in range(RECORDS[1])]

    def run(figure) -> float:
        item_store.KEPT.clear()
        a, b = (figure.items.cells({**fixed, "model": m}, ("y", "x")) for m in ("a", "b"))
        return len(paired_grid(a, b, keys))

    def median(figure) -> float:
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            assert run(figure) == len(keys)
            times.append(time.perf_counter() - start)
        return float(np.median(times)) * 1000

    row = Row("paired statistics, 40 cells x 500 items x 8 samples, records in an S3 store "
              "(moto on loopback)", "ms", "informational")
    run(on_s3), run(on_disk)  # DuckDB's connections opened, s3fs's session made
    return [attempt(row, lambda: (median(on_s3), median(on_disk)), ctx.log)]


def _served_after(loaded, fid: str, put, seconds: float = 60.0) -> float:
    start = time.perf_counter()
    put()
    deadline = time.monotonic() + seconds
    while fid not in loaded.live.snapshot.catalog:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{fid} was not served within {seconds:g} s")
        time.sleep(0.02)
    return time.perf_counter() - start


def folder_rows(ctx, Row, attempt, value_at_most) -> list:
    from evalmaps.service import objects
    from evalmaps.service.settings import Settings
    from evalmaps.service.startup import load_data

    fs = objects.filesystem()
    local = ctx.tmp / "objects-runs" / "runs"
    local.mkdir(parents=True)
    first = b"model,task,value\nm0,t1,0.5\n"
    fs.pipe_file("bench/lab/runs/t0.csv", first)
    (local / "t0.csv").write_bytes(first)
    watched = {}
    for name, where in (("s3", "s3://bench/lab/runs"), ("disk", local)):
        loaded = load_data(Settings(extra_data=(where,), cache_dir=ctx.tmp / f"objects-{name}",
                                    store_dir=None, watch="auto"))
        loaded.live.ensure_running()
        watched[name] = loaded
    n = 5

    def s3_put(i):
        return lambda: fs.pipe_file(f"bench/lab/runs/t{i}.csv", f"model,task,value\nm{i},t1,0.{i}\n"
                                    .encode())

    def disk_put(i):
        def put():
            tmp = local.parent / f".t{i}.csv"
            tmp.write_bytes(f"model,task,value\nm{i},t1,0.{i}\n".encode())
            os.replace(tmp, local / f"t{i}.csv")
        return put

    def measure():
        s3_times, disk_times = [], []
        for i in range(1, n + 1):
            s3_times.append(_served_after(watched["s3"], f"import-t{i}", s3_put(i)))
            disk_times.append(_served_after(watched["disk"], f"import-t{i}", disk_put(i)))
        return float(np.median(s3_times)), float(np.median(disk_times))

    row = Row("a table put in a watched data folder on S3 until served (the prefix polled), "
              f"median of {n}", "s", "< 5 s", within=value_at_most(5.0))
    try:
        return [attempt(row, measure, ctx.log)]
    finally:
        for loaded in watched.values():
            loaded.live.stop()


def section(ctx, Row, attempt, ratio_at_most, value_at_most) -> list:
    from evalmaps.service import objects

    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    moto = Moto(ctx.tmp / "moto.log")
    try:
        objects.use_variables({"AWS_ENDPOINT_URL": moto.url, "AWS_REGION": "eu-west-1"})
        objects.filesystem().mkdir("bench")
        rows = [*paired_rows(ctx, moto, Row, attempt, ratio_at_most),
                *folder_rows(ctx, Row, attempt, value_at_most)]
        ctx.notes.append("objects: moto's S3 server in its own process on 127.0.0.1 (a Python "
                         "web server, no network latency); paired statistics as in items, the "
                         "records read by DuckDB through s3fs (floor: the same records in a "
                         "store folder on the disk); a table put in a watched folder until this "
                         "process's watcher thread serves it (floor: the same file renamed into "
                         "a watched folder on the disk, settling 2 s)")
        return rows
    finally:
        moto.stop()
