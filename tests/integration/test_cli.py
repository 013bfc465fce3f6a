"""The ``evalmaps`` command as a user runs it: a real subprocess, its exit code and its output.

``evalmaps import`` prints a JSON summary or writes a tidy CSV; every bad file is exit 2 with a
one-line message on stderr naming the file and no traceback. ``serve --data DIR`` is checked
as run: ``evalmaps serve`` starts a real gunicorn (tests/integration/test_wheel.py checks it from
an installed wheel).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.catalog.load import load_catalog
from evalmaps.readers.base import ImportOptions
from tests.servers import alive, children_of, free_port

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
HOST = "127.0.0.1"
START_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0
CLI_TIMEOUT = 60

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# --------------------------------------------------------------------------- helpers

def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("EVALMAPS_DATA", "EVALMAPS_EXTRA_DATA")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra)
    return env


def run_cli(*args: str, cwd: Path, entry_point: bool = False) -> subprocess.CompletedProcess:
    cmd = [shutil.which("evalmaps")] if entry_point else [sys.executable, "-m", "evalmaps.service.cli"]
    return subprocess.run([*cmd, *map(str, args)], cwd=cwd, env=_env(), capture_output=True,
                          text=True, timeout=CLI_TIMEOUT, stdin=subprocess.DEVNULL)


def assert_clean_failure(proc: subprocess.CompletedProcess, name: str) -> str:
    """Exit 2, nothing on stdout, one line on stderr naming ``name``, no traceback anywhere."""
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("evalmaps: "), line
    assert name in line, line
    return line


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def read_summary(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


# --------------------------------------------------------------------------- import: good files

@pytest.mark.parametrize("name, fmt, cells, x, y", [
    ("tidy_small.csv", "tidy", 5, "length", "type"),
    ("wide_small.csv", "wide", 15, "len", "type"),
    ("matrix_small.csv", "matrix", 6, "column", "size"),
])
def test_import_prints_a_json_summary(tmp_path, name, fmt, cells, x, y):
    summary = read_summary(run_cli("import", FIXTURES / name, cwd=tmp_path))
    assert summary["format"] == fmt and summary["cells"] == cells
    assert (summary["x"], summary["y"]) == (x, y)
    assert list(tmp_path.iterdir()) == []  # no -o: nothing written


def test_import_summary_of_the_wide_fixture(tmp_path):
    summary = read_summary(run_cli("import", FIXTURES / "wide_small.csv", cwd=tmp_path))
    assert summary["facets"] == ["model", "ft_type"]
    assert summary["replicate"] == "seed" and summary["replicates"] == 3
    assert summary["dims"] == {"model": 3, "ft_type": 2, "type": 2, "len": 3}
    assert any("accuracy" in w for w in summary["warnings"])


@pytest.mark.parametrize("name", ["tidy_small.csv", "wide_small.csv", "matrix_small.csv"])
def test_import_output_is_a_tidy_csv_the_loader_accepts(tmp_path, name):
    out = tmp_path / "out.csv"
    proc = run_cli("import", FIXTURES / name, "-o", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    original = import_bytes((FIXTURES / name).read_bytes(), name)[0]
    entry = tmp_path / "out.figure.json"
    assert proc.stderr.strip().splitlines() == [
        *(f"evalmaps: warning: {w}" for w in original.warnings),
        f"evalmaps: wrote {original.n_cells} cells to {out} and the figure's catalog entry to "
        f"{entry}; serve them with: evalmaps serve --data {tmp_path}"]
    assert out.read_text(encoding="utf-8") == original.to_csv()
    assert json.loads(entry.read_text(encoding="utf-8")) == {**original.spec, "file": "out.csv"}

    # re-imported as tidy, every cell value comes back
    fig = figure_of(original)
    again = figure_of(import_bytes(out.read_bytes(), "out.csv", ImportOptions(format="tidy"))[0])
    assert again.n_cells == fig.n_cells
    for row in fig.cells.itertuples(index=False):
        coords = {d: getattr(row, d) for d in fig.spec.dim_names}
        assert again.value(**coords) == fig.value(**coords)

    # and a catalog entry over it passes the loader's validation (as data/ would)
    spec = {**original.spec, "file": "out.csv"}
    (tmp_path / "catalog.json").write_text(json.dumps({"figures": [spec]}), encoding="utf-8")
    loaded = load_catalog(tmp_path).figure(spec["id"])
    assert loaded.n_cells == fig.n_cells
    assert loaded.cells.equals(fig.cells)


def test_import_format_option(tmp_path):
    proc = run_cli("import", FIXTURES / "tidy_small.csv", "--format", "tidy", cwd=tmp_path)
    assert read_summary(proc)["format"] == "tidy"
    proc = run_cli("import", FIXTURES / "wide_small.csv", "--format", "tidy", cwd=tmp_path)
    line = assert_clean_failure(proc, "wide_small.csv")
    assert "'value' column" in line


def test_import_replicate_option(tmp_path):
    path = write(tmp_path, "runs.csv", b"model,type,run_id,value\nm,a,r1,10\nm,a,r2,20\n")
    summary = read_summary(run_cli("import", path, "--replicate", "run_id", cwd=tmp_path))
    assert summary["replicate"] == "run_id" and summary["replicates"] == 2
    assert summary["cells"] == 1
    out = tmp_path / "runs_out.csv"
    assert run_cli("import", path, "--replicate", "run_id", "-o", out, cwd=tmp_path).returncode == 0
    assert out.read_text().splitlines() == ["model,type,value,sd,n",
                                            f"m,a,15.0,{(50.0) ** 0.5!r},2"]


def test_import_replicate_none(tmp_path):
    summary = read_summary(run_cli("import", FIXTURES / "wide_small.csv", "--replicate", "",
                                   cwd=tmp_path))
    assert summary["replicate"] is None and "seed" in summary["facets"]
    assert summary["cells"] == 3 * 5 + 2 * 6 + 4  # per seed: tiny-a 5 cells, tiny-b 6, gpt-x 4


def test_import_axis_options(tmp_path):
    summary = read_summary(run_cli("import", FIXTURES / "tidy_small.csv", "-x", "type", "-y",
                                   "length", cwd=tmp_path))
    assert (summary["x"], summary["y"]) == ("type", "length")
    assert summary["facets"] == ["model"]
    proc = run_cli("import", FIXTURES / "tidy_small.csv", "-x", "nope", cwd=tmp_path)
    assert "'nope'" in assert_clean_failure(proc, "tidy_small.csv")


def test_import_relative_path(tmp_path):
    shutil.copy(FIXTURES / "matrix_small.csv", tmp_path / "m.csv")
    assert read_summary(run_cli("import", "m.csv", cwd=tmp_path))["cells"] == 6


@pytest.mark.skipif(shutil.which("evalmaps") is None, reason="the evalmaps entry point is not "
                    "installed (pip install -e .)")
def test_installed_entry_point(tmp_path):
    summary = read_summary(run_cli("import", FIXTURES / "tidy_small.csv", cwd=tmp_path,
                                   entry_point=True))
    assert summary["format"] == "tidy" and summary["cells"] == 5
    bad = write(tmp_path, "bad.csv", b"model,type,value\nm,a,abc\n")
    assert_clean_failure(run_cli("import", bad, cwd=tmp_path, entry_point=True), "bad.csv")


# --------------------------------------------------------------------------- import: bad files

BAD_FILES = {
    "empty": (b"", "empty"),
    "blank": (b"\n \n", "empty"),
    "header_only": (b"model,type,value\n", "no data rows"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    "latin1": (b"model,type,value\ncaf\xe9,a,1\n", "UTF-8"),
    "pipes": (b"model|type|value\nm|a|1\n", "'|'"),
    "ragged": (b"model,type,value\nm,a,1\nm,b,2,3\n", "row 3"),
    "non_numeric": (b"model,type,value\nm,a,abc\n", "'abc'"),
    "infinite": (b"model,type,value\nm,a,inf\n", "'inf'"),
    "out_of_range": (b"model,type,value\nm,a,101\n", "101"),
    "duplicate": (b"model,type,value\nm,a,1\nm,a,2\n", "more than once"),
    "two_patterns": (b"model,type_1_len_0,type_1_len_1,kind_2_size_3,kind_2_size_4\n"
                     b"m,1,2,3,4\n", "more than one pattern"),
    "unrecognised": (b"model,type,score\nm,a,high\n", "not recognised"),
    "no_values": (b"model,type,value\nm,a,\n", "no values"),
    "repeated_header": (b"model,model,value\nm,a,1\n", "repeated column name"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_is_one_line_and_exit_2(tmp_path, case):
    data, hint = BAD_FILES[case]
    path = write(tmp_path, f"{case}.csv", data)
    line = assert_clean_failure(run_cli("import", path, cwd=tmp_path), f"{case}.csv")
    assert hint in line


def test_bad_file_with_output_writes_nothing(tmp_path):
    path = write(tmp_path, "bad.csv", b"model,type,value\nm,a,abc\n")
    out = tmp_path / "out.csv"
    assert_clean_failure(run_cli("import", path, "-o", out, cwd=tmp_path), "bad.csv")
    assert not out.exists()


def test_no_value_column_with_format_tidy(tmp_path):
    path = write(tmp_path, "noval.csv", b"model,type,score\nm,a,1\n")
    line = assert_clean_failure(run_cli("import", path, "--format", "tidy", cwd=tmp_path),
                                "noval.csv")
    assert "'value'" in line


def test_missing_file(tmp_path):
    line = assert_clean_failure(run_cli("import", tmp_path / "nope.csv", cwd=tmp_path),
                                "nope.csv")
    assert "cannot read" in line and "Check the path" in line


def test_a_directory_instead_of_a_file(tmp_path):
    (tmp_path / "folder.csv").mkdir()
    assert_clean_failure(run_cli("import", tmp_path / "folder.csv", cwd=tmp_path), "folder.csv")


def test_bom_only_file(tmp_path):
    path = write(tmp_path, "bom.csv", b"\xef\xbb\xbf")
    assert_clean_failure(run_cli("import", path, cwd=tmp_path), "bom.csv")


def test_unclosed_quote_in_a_large_file(tmp_path):
    rows = ['model,type,value', '"m0,a,1'] + [f"m{i},a,1" for i in range(1, 20000)]
    path = write(tmp_path, "quote.csv", ("\n".join(rows) + "\n").encode())
    assert_clean_failure(run_cli("import", path, cwd=tmp_path), "quote.csv")


def test_unwritable_output(tmp_path):
    proc = run_cli("import", FIXTURES / "tidy_small.csv", "-o", tmp_path / "no" / "out.csv",
                   cwd=tmp_path)
    assert_clean_failure(proc, "out.csv")


def test_format_matrix_on_a_tidy_file(tmp_path):
    proc = run_cli("import", FIXTURES / "tidy_small.csv", "--format", "matrix", cwd=tmp_path)
    assert_clean_failure(proc, "tidy_small.csv")


def test_replicate_naming_no_column(tmp_path):
    proc = run_cli("import", FIXTURES / "tidy_small.csv", "--replicate", "nope", cwd=tmp_path)
    assert_clean_failure(proc, "tidy_small.csv")


def test_replicate_naming_no_column_exits_2_without_traceback(tmp_path):
    proc = run_cli("import", FIXTURES / "tidy_small.csv", "--replicate", "nope", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "'nope'" in proc.stderr


def test_unknown_format_is_a_usage_error(tmp_path):
    proc = run_cli("import", FIXTURES / "tidy_small.csv", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "invalid choice" in proc.stderr


# --------------------------------------------------------------------------- serve: bad options


def test_serve_debug_with_workers_is_a_clean_error(tmp_path):
    proc = run_cli("serve", "--debug", "--workers", "2", cwd=tmp_path)
    line = assert_clean_failure(proc, "--workers")
    assert line == ("evalmaps: --workers applies to gunicorn, which --debug does not use. "
                    "Leave out one of them.")


def test_serve_bad_port_from_the_environment_is_a_clean_error(tmp_path):
    cmd = [sys.executable, "-m", "evalmaps.service.cli", "serve"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=_env(PORT="80a"), capture_output=True,
                          text=True, timeout=CLI_TIMEOUT, stdin=subprocess.DEVNULL)
    line = assert_clean_failure(proc, "PORT=80a")
    assert line == "evalmaps: PORT=80a is not a port: give a number from 1 to 65535, or --port."


@pytest.mark.parametrize("option, value, message", [
    ("--workers", "0", "'0' is not a number of workers: give a whole number of at least 1"),
    ("--port", "70000", "'70000' is not a port: give a number from 1 to 65535"),
])
def test_serve_bad_option_values_are_usage_errors(tmp_path, option, value, message):
    proc = run_cli("serve", option, value, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].endswith(f"argument {option}: {message}")


# --------------------------------------------------------------------------- serve --data


def fetch(base: str, path: str, timeout: float = 10.0) -> tuple[int, bytes]:
    try:
        with OPENER.open(base + path, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.read()


class Gunicorn:
    """``evalmaps serve --data DIR`` (gunicorn) with one worker in its own session; stopped by
    :meth:`stop`."""

    def __init__(self, extra_data: Path, log_path: Path, *options: str):
        self.port = free_port()
        self.base = f"http://{HOST}:{self.port}"
        self.log_path = log_path
        self.workers: list[int] = []
        with open(log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "evalmaps.service.cli", "serve", "--data", str(extra_data),
                 "--host", HOST, "--port", str(self.port), "--workers", "1", *options],
                cwd=extra_data, env=_env(), stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        proc = self.proc
        if proc.poll() is None:
            self.workers = self.workers or children_of(proc.pid)
            proc.terminate()
            try:
                proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait(timeout=STOP_TIMEOUT)
        leftovers: list[int] = []
        deadline = time.monotonic() + STOP_TIMEOUT
        while time.monotonic() < deadline:
            leftovers = [pid for pid in [proc.pid, *self.workers] if alive(pid)]
            if not leftovers:
                break
            time.sleep(0.1)
        for pid in leftovers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        assert not leftovers, f"gunicorn processes outlived the test: {leftovers}"


@pytest.fixture()
def start_gunicorn(tmp_path, request):
    def start(extra_data: Path, *options: str) -> Gunicorn:
        server = Gunicorn(extra_data, tmp_path / f"gunicorn-{len(options)}-{free_port()}.log",
                          *options)
        request.addfinalizer(server.stop)
        return server
    return start


@pytest.mark.server
def test_serve_extra_data_folder_over_gunicorn(tmp_path, start_gunicorn):
    data = tmp_path / "mine"
    data.mkdir()
    shutil.copy(FIXTURES / "tidy_small.csv", data / "tidy_small.csv")
    server = start_gunicorn(data)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if server.proc.poll() is not None:
            pytest.fail(f"gunicorn exited with {server.proc.returncode}:\n{server.log()[-4000:]}")
        try:
            status, body = fetch(server.base, "/healthz", timeout=2)
            if status == 200 and json.loads(body).get("status") == "ok":
                break
        except (urllib.error.URLError, ConnectionError, OSError, ValueError):
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"no /healthz within {START_TIMEOUT:g} s:\n{server.log()[-4000:]}")
        time.sleep(0.2)
    server.workers = children_of(server.proc.pid)
    assert json.loads(body) == {"status": "ok", "figures": 8, "problems": []}

    status, body = fetch(server.base, "/api/figures")
    assert status == 200
    figures = json.loads(body)["figures"]
    builtin = [f["id"] for f in json.loads((ROOT / "data" / "catalog.json").read_text())["figures"]]
    assert [f["id"] for f in figures] == [*builtin, "import-tidy-small"]
    assert len(builtin) == 7
    imported = figures[-1]
    assert imported["provenance"] == "imported"
    assert imported["n_cells"] == 5
    assert {d["name"]: d["role"] for d in imported["dims"]} == {"model": "facet", "type": "y",
                                                                "length": "x"}
    assert all(f["provenance"] != "imported" for f in figures[:-1])

    status, body = fetch(server.base, "/api/figures/import-tidy-small/cells?model=m1&type=b")
    assert status == 200
    assert json.loads(body)["cells"] == [
        {"model": "m1", "type": "b", "length": "1", "value": 77.25},
        {"model": "m1", "type": "b", "length": "2", "value": None},
    ]


def wait_for_healthz(server: Gunicorn) -> dict:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if server.proc.poll() is not None:
            pytest.fail(f"gunicorn exited with {server.proc.returncode}:\n{server.log()[-4000:]}")
        try:
            status, body = fetch(server.base, "/healthz", timeout=2)
            if status == 200:
                server.workers = children_of(server.proc.pid)
                return json.loads(body)
        except (urllib.error.URLError, ConnectionError, OSError, ValueError):
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"no /healthz within {START_TIMEOUT:g} s:\n{server.log()[-4000:]}")
        time.sleep(0.2)


@pytest.mark.server
def test_serve_bad_extra_data_folder_skips_the_bad_file_and_serves_the_rest(tmp_path,
                                                                            start_gunicorn):
    """Issue 11: one bad CSV no longer stops start-up. It is skipped; its problem is one line
    in the log and on /healthz; the good file is served."""
    data = tmp_path / "mine"
    data.mkdir()
    shutil.copy(FIXTURES / "tidy_small.csv", data / "tidy_small.csv")
    (data / "broken_results.csv").write_bytes(b"model,type,value\nm,a,1\nm,b,2,3\n")
    server = start_gunicorn(data)
    problem = ("Not served: broken_results.csv, row 3: this row has 4 fields but the header has "
               "3. Fix the row (a stray comma? a missing cell?) so every row has the header's "
               "columns.")
    assert wait_for_healthz(server) == {"status": "ok", "figures": 8, "problems": [problem]}
    status, body = fetch(server.base, "/api/figures/import-tidy-small/cells?model=m1&type=b")
    assert status == 200 and json.loads(body)["cells"][0]["value"] == 77.25
    status, body = fetch(server.base, "/api/figures/import-broken-results")
    assert status == 404
    assert [line for line in server.log().splitlines() if "broken_results.csv" in line] == [problem]


def test_import_of_a_million_cells_over_the_upload_limit(tmp_path):
    """No size limit on the command line: a 1000 x 1000 tidy file (over 20 MB) is imported and
    written back cell for cell (rows without a value left out, every text as in the file)."""
    import numpy as np

    rng = np.random.default_rng(11)
    n = 1000 * 1000
    texts = np.char.mod("%.1f", rng.uniform(0, 100, n)).astype(object)
    texts[rng.random(n) < 0.01] = ""
    windows = np.repeat([str(100 * (i + 1)) for i in range(1000)], 1000)
    ratios = np.tile([f"{j / 1000:.3f}" for j in range(1000)], 1000)
    rows = [f"R1-Llama-8B,{w},{r},{v}" for w, r, v in zip(windows, ratios, texts)]
    path = tmp_path / "big.csv"
    path.write_text("model,window,ratio,value\n" + "\n".join(rows) + "\n", encoding="utf-8")
    assert path.stat().st_size > 20 * 2**20
    out = tmp_path / "out.csv"
    proc = run_cli("import", path, "-o", out, cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    present = [row for row, v in zip(rows, texts) if v]
    assert proc.stderr.strip() == (f"evalmaps: wrote {len(present)} cells to {out} and the "
                                   f"figure's catalog entry to {tmp_path / 'out.figure.json'}; "
                                   f"serve them with: evalmaps serve --data {tmp_path}")
    assert out.read_text(encoding="utf-8") == "model,window,ratio,value\n" + "\n".join(present) + "\n"


# ------------------------------------------------ several paths: evaluation tools' results

SHARED_EXTERNAL = ROOT.parent / "shared" / "external"


def _external(name: str) -> Path:
    folder = SHARED_EXTERNAL / name
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    return folder


def test_import_several_inspect_logs_into_one_figure(tmp_path):
    folder = _external("inspect")
    out = tmp_path / "inspect.csv"
    proc = run_cli("import", folder / "mmlu-summary-choices.eval",
                   folder / "2025-05-12T20-28-13-04-00_no-samples.json", "-o", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (  # the run's status is a note of the figure's, not a warning
        f"evalmaps: wrote 2 cells to {out} and the figure's catalog entry to "
        f"{tmp_path / 'inspect.figure.json'}; serve them with: evalmaps serve --data {tmp_path}\n")
    # the .eval log's samples are per-item records, kept beside the cells (n: its items); the
    # log without samples has none
    assert out.read_text() == (
        "model,scorer,metric,task,value,n,se\n"
        "openai/gpt-4o,choice,accuracy,inspect_evals/mmlu_0_shot,0.0,1,0.0\n"
        "openai/gpt-4o-mini,match,accuracy,testtaskname,0.6666666666666666,,"
        "0.33333333333333337\n")
    assert (tmp_path / "inspect.items" / "scores.parquet").is_file()


def test_import_a_folder_of_lm_eval_results_prints_one_summary(tmp_path):
    folder = _external("pythia-evals") / "pythia-v1"
    summary = read_summary(run_cli("import", folder / "pythia-70m", folder / "pythia-160m",
                                   cwd=tmp_path))
    assert summary == {"format": "lm-eval", "x": "step", "y": "model",
                       "facets": ["task", "metric"], "replicate": None, "replicates": 1,
                       "dims": {"task": 87, "metric": 5, "model": 2, "step": 27},
                       "cells": 2 * 27 * 172, "warnings": []}


def test_import_of_repeated_inspect_runs_keeps_each_run(tmp_path):
    """The shared Inspect folder holds two runs of one model and task with different scores:
    each log becomes a run (a facet), nothing averaged, nothing refused."""
    folder = _external("inspect")
    proc = run_cli("import", folder, "-o", str(tmp_path / "tidy.csv"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = (tmp_path / "tidy.csv").read_text().splitlines()
    assert lines[0] == "model,run,scorer,metric,task,value,n,se"  # samples: the model a facet
    assert sorted(line.split(",")[-3] for line in lines[1:]) == \
        ["0.0", "0.0", "0.6666666666666666", "0.6666666666666666", "0.8"]


def test_import_a_json_file_of_no_known_format(tmp_path):
    path = write(tmp_path, "config.json", b'{"name": "x", "deps": {"a": 1}}')
    line = assert_clean_failure(run_cli("import", path, cwd=tmp_path), "config.json")
    assert line.endswith("Export one of those and try again.")


def post_callback(server: Gunicorn, client, output: str, inputs: dict, state=None) -> dict:
    """POST a callback to a real server, the body built as the page builds it."""
    from tests.integration.dash_calls import callback_body

    body = callback_body(client, output, inputs, state).encode()
    request = urllib.request.Request(server.base + "/_dash-update-component", data=body,
                                     headers={"Content-Type": "application/json"})
    with OPENER.open(request, timeout=60) as response:
        return {f"{cid}.{prop}": value for cid, props in json.loads(response.read())["response"]
                .items() for prop, value in props.items()}


@pytest.mark.server
def test_two_servers_share_one_store_and_no_store_is_read_only(tmp_path, start_gunicorn, client):
    """Issue 9: an upload kept through one server opens by its link on another that names the
    same --store; --no-store turns uploads off with a note."""
    import base64

    data = tmp_path / "mine"
    data.mkdir()
    shutil.copy(FIXTURES / "tidy_small.csv", data / "tidy_small.csv")
    store = tmp_path / "shared-store"
    one, two = start_gunicorn(data, "--store", str(store)), start_gunicorn(data, "--store", str(store))
    off = start_gunicorn(data, "--no-store")
    for server in (one, two, off):
        wait_for_healthz(server)
    raw = {"name": "wide_small.csv", "contents": "data:text/csv;base64,"
           + base64.b64encode((FIXTURES / "wide_small.csv").read_bytes()).decode()}
    staged = post_callback(one, client, "data-staged.data", {"data-upload-raw.data": raw})
    pending = post_callback(one, client, "data-pending.data", {
        "data-staged.data": staged["data-staged.data"], "data-format.value": "auto",
        "data-range.value": True})["data-pending.data"]
    kept = post_callback(one, client, "uploads.data", {"data-add.n_clicks": 1},
                         {"data-pending.data": pending, "uploads.data": []})
    fid = kept["uploads.data"][-1]
    assert sorted(p.name for p in (store / "links").iterdir()) == [fid]
    status, body = fetch(two.base, f"/api/figures/{fid}/cells?model=tiny-a&ft_type=lora&type=1"
                                   f"&len=1")
    assert status == 200 and [c["value"] for c in json.loads(body)["cells"]] == [90.0]
    status, _ = fetch(off.base, f"/api/figures/{fid}")
    assert status == 404  # a read-only server has no store to open it from
    refused = post_callback(off, client, "data-staged.data", {"data-upload-raw.data": raw})
    assert refused["data-staged.data"] is None
    assert "read-only" in json.dumps(refused["data-upload-status.children"])


# ------------------------------------------------------- import then serve, and bounded inputs

PYTHIA = ROOT.parent / "shared" / "external" / "pythia-evals" / "pythia-v1"


def test_import_then_serve_keeps_what_the_import_knew(tmp_path):
    """The README's steps: import an lm-eval sweep with -o, then serve its folder. The served
    figure is the import's: metrics as fractions (range 0-1, never %), ppl lower-is-better."""
    if not PYTHIA.is_dir():
        pytest.skip("../shared/external is absent")
    from evalmaps.catalog.folders import load_folder
    from evalmaps.catalog.imports import import_paths

    out = tmp_path / "mydata" / "pythia.csv"
    out.parent.mkdir()
    proc = run_cli("import", PYTHIA, "-o", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (served,) = load_folder(out.parent)
    imported = figure_of(import_paths([PYTHIA])[0])
    assert served.spec == imported.spec.__class__(**{**imported.spec.__dict__, "file": "pythia.csv"})
    assert served.cells.equals(imported.cells)
    assert served.id == "import-pythia-v1-216-lm-evaluation-harness"
    metrics = served.spec.metrics.labels
    assert (metrics["acc"].unit, metrics["acc"].range) == ("", (0, 1))
    assert metrics["ppl"].higher_is_better is False


def test_data_given_a_file_says_it_takes_a_folder(tmp_path):
    from evalmaps.catalog.folders import load_folder
    from evalmaps.readers.base import ImportFailed

    table = tmp_path / "results.csv"
    table.write_text("model,task,value\nm,t,1\n", encoding="utf-8")
    with pytest.raises(ImportFailed) as err:
        load_folder(table)
    assert str(err.value) == (f"{table}: --data takes a folder, and this is a file. To serve one "
                              f"file, put it in a folder of its own (mkdir my-data && mv "
                              f"results.csv my-data/) and give --data my-data.")


def test_output_must_be_a_csv_path(tmp_path):
    proc = run_cli("import", FIXTURES / "tidy_small.csv", "-o", tmp_path / "out", cwd=tmp_path)
    assert proc.returncode == 2 and not (tmp_path / "out").exists()
    assert proc.stderr.strip() == ("evalmaps: -o takes the path of a .csv file to write (such as "
                                   f"my-data/out.csv); '{tmp_path / 'out'}' does not end in .csv.")


def test_a_header_of_100000_columns_is_refused_early_on_every_path(tmp_path):
    from evalmaps.catalog.folders import load_folder
    from evalmaps.readers.base import ImportFailed

    data = (",".join(f"c{i}" for i in range(100_000)) + "\n" + ",".join(["1"] * 100_000)).encode()
    folder = tmp_path / "wide"
    folder.mkdir()
    (folder / "wide.csv").write_bytes(data)
    expected = ("its header has more than 5,000 columns. A results table has one column per "
                "dimension and a value (or one per cell of a wide table); split the file or make "
                "it tidy.")
    proc = run_cli("import", folder / "wide.csv", cwd=tmp_path)  # the CLI
    assert (proc.returncode, proc.stderr.strip()) == (2, f"evalmaps: {folder / 'wide.csv'}: "
                                                         f"{expected}")
    with pytest.raises(ImportFailed) as err:  # a data folder
        load_folder(folder)
    assert str(err.value) == f"wide.csv: {expected}"


def bomb(path: Path, rows: int = 3_000_000) -> Path:
    """A small zip holding one large CSV: one row repeated (a decompression bomb)."""
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("results.csv", "model,task,value\n" + "m,t,1\n" * rows)
    return path


def test_a_decompression_bomb_is_refused_naming_the_member_on_every_path(tmp_path):
    from evalmaps.catalog.folders import load_folder
    from evalmaps.readers.base import ImportFailed

    folder = tmp_path / "bomb"
    folder.mkdir()
    archive = bomb(folder / "bomb.zip")
    assert archive.stat().st_size < 200_000
    proc = run_cli("import", archive, cwd=tmp_path)  # the CLI
    assert proc.returncode == 2
    message = proc.stderr.strip()
    assert message.startswith(f"evalmaps: {archive}: the zip's member results.csv expands ")
    assert message.endswith("over the limit of 100 times: it looks like a decompression bomb. "
                            "Give the file unzipped if it is real.")
    with pytest.raises(ImportFailed) as err:  # a data folder
        load_folder(folder)
    assert "the zip's member results.csv expands" in str(err.value)
    with pytest.raises(ImportFailed) as err:  # an upload (bytes, with the upload's size limit)
        import_bytes(archive.read_bytes(), "bomb.zip")[0]
    assert "the zip's member results.csv expands" in str(err.value)


EVALPLUS = ROOT.parent / "shared" / "external" / "evalplus"


def test_a_folder_of_two_tools_results_is_one_figure_per_tool(tmp_path):
    """The EvalPlus folder holds the leaderboard and EvalPerf results: a data folder serves
    both figures, and the CLI writes one file each, named after the tool."""
    if not EVALPLUS.is_dir():
        pytest.skip("../shared/external is absent")
    from evalmaps.catalog.folders import load_folder
    from evalmaps.catalog.imports import import_paths
    from evalmaps.readers.base import ImportFailed

    served = load_folder(EVALPLUS)
    leaderboard = figure_of(import_paths([EVALPLUS / "results.json"])[0])
    evalperf = figure_of(import_paths([EVALPLUS / "results" / "evalperf"])[0])
    assert [f.spec.source["tool"] for f in served] == [leaderboard.spec.source["tool"],
                                                       evalperf.spec.source["tool"]]
    assert served[0].cells.equals(leaderboard.cells) and served[1].cells.equals(evalperf.cells)
    with pytest.raises(ImportFailed, match="these files mix"):
        import_paths([EVALPLUS])[0]  # one figure cannot hold both
    out = tmp_path / "ep.csv"
    proc = run_cli("import", EVALPLUS, "-o", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for fmt, figure in zip(("evalplus", "evalperf"), import_paths([EVALPLUS], by_tool=True)):
        written = tmp_path / f"ep-{fmt}.csv"
        assert written.read_text(encoding="utf-8") == figure.to_csv()
        assert (tmp_path / f"ep-{fmt}.figure.json").is_file()
    assert not out.exists()


@pytest.mark.parametrize(("flags", "unit", "metric_range"), [((), "", [0.0, 1.0]), (("--percent",), "%", [0.0, 100.0])])
def test_import_of_fractions_writes_their_unit_and_percent_overrides(tmp_path, flags, unit, metric_range):
    source = tmp_path / "fractions.csv"
    source.write_text("model,task,value\na,x,0.5\na,y,0.75\nb,x,0.25\nb,y,1\n", encoding="utf-8")
    proc = run_cli("import", source, *flags, "-o", tmp_path / "out.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    entry = json.loads((tmp_path / "out.figure.json").read_text(encoding="utf-8"))
    assert (entry["metric"]["unit"], entry["metric"]["range"]) == (unit, metric_range)


def test_import_of_a_folder_of_tables_writes_one_figure_per_table(tmp_path):
    folder = _external("meta-learning-logic")
    proc = run_cli("import", folder, "-o", tmp_path / "mll.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "mll-results-core.csv", "mll-results-core.figure.json",
        "mll-results-short-to-long.csv", "mll-results-short-to-long.figure.json"]
    for table in ("results_core.csv", "results_short-to-long.csv"):
        alone = import_bytes((folder / table).read_bytes(), table)[0]
        written = tmp_path / f"mll-{table[:-4].replace('_', '-')}.csv"
        assert written.read_text(encoding="utf-8") == alone.to_csv()
