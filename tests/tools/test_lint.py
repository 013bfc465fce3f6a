"""Lint and dead code: ruff (pyproject.toml's [tool.ruff]) over the repository, and vulture over
the code that runs (the app, the domain, scripts and benchmarks), with a short, commented
whitelist (tests/vulture_whitelist.py) of names only a framework reads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ["evalmaps", "components", "layouts", "app.py",
           "gunicorn.conf.py", "scripts", "benchmarks", "tests/vulture_whitelist.py"]
# functions that frameworks call through a decorator (routes, error handlers, callbacks)
DECORATORS = ["@callback", "@*.route", "@*.errorhandler", "@*.app_errorhandler",
              "@*.before_app_request", "@*.after_app_request", "@*.before_request",
              "@*.after_request", "@*.teardown_app_request", "@*.get", "@*.post"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True)


def test_ruff_finds_nothing():
    proc = run("ruff", "check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_vulture_finds_no_dead_code():
    proc = run("vulture", *SCANNED, "--min-confidence", "60",
               "--ignore-decorators", ",".join(DECORATORS))
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr


def test_vulture_finds_dead_code_when_there_is_some(tmp_path):
    dead = tmp_path / "dead.py"
    dead.write_text("def used():\n    return 1\n\n\ndef never_called():\n    return 2\n\n\n"
                    "print(used())\n", encoding="utf-8")
    proc = run("vulture", str(dead), "--min-confidence", "60")
    assert proc.returncode == 3 and "unused function 'never_called'" in proc.stdout, proc.stdout
