"""The console script ends a one-shot command with main's exit code at once, its output
flushed: the interpreter's teardown, where a native thread pool (pyarrow's, DuckDB's) now and then
aborts the process after the work is done (SIGABRT, "terminate called without an active
exception"; seen once in the suite on `evalmaps import` of a bad file), never runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import atexit, sys
atexit.register(lambda: print("teardown ran", file=sys.stderr))
from evalmaps.service.cli import run
run(sys.argv[1:])
print("run returned", file=sys.stderr)
"""


def probe(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_a_bad_file_exits_2_with_its_sentence_and_no_teardown(tmp_path):
    bad = tmp_path / "infinite.csv"
    bad.write_text("model,type,value\nm,a,inf\n", encoding="utf-8")
    proc = probe("import", str(bad), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("evalmaps: ") and "'inf'" in proc.stderr
    assert "teardown ran" not in proc.stderr and "run returned" not in proc.stderr


def test_a_good_import_exits_0_with_its_output_whole(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("model,type,value\nm,a,0.5\nm,b,0.25\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    proc = probe("import", str(good), "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "teardown ran" not in proc.stderr
    assert out.read_text(encoding="utf-8").count("\n") >= 3  # the header and both cells


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path):
    """`evalmaps import ... | head -c 10`: the pipe may close before the output is written. No
    traceback, and the code is the command's (0: it wrote all before the reader left) or, where
    the pipe closed first, 141 (128 + SIGPIPE), as a shell reports any tool a closed pipe
    ends. Run 20 times: the order of the two is the machine's."""
    good = tmp_path / "good.csv"
    good.write_text("model,type,value\n" + "".join(f"m,t{i},0.5\n" for i in range(2000)),
                    encoding="utf-8")
    codes = set()
    for _ in range(20):
        proc = subprocess.run(
            f'"{sys.executable}" -c \'{PROBE}\' import "{good}" | head -c 10; '
            'echo "${PIPESTATUS[0]}" >&2', shell=True, cwd=tmp_path, capture_output=True,
            text=True, timeout=120, executable="/bin/bash")
        assert "Traceback" not in proc.stderr and "teardown ran" not in proc.stderr, proc.stderr
        assert len(proc.stdout) == 10
        codes.add(int(proc.stderr.strip().splitlines()[-1]))
    assert codes <= {0, 141}, codes


def test_the_console_script_is_run():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'evalmaps = "evalmaps.service.cli:run"' in text
