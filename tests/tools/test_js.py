"""The browser scripts' own checks, run by pytest so that the README's one test command runs
them: their unit tests (``node --test tests/js/``, Node's built-in runner, no npm package) and
ESLint (pinned in package.json; installed with ``npm ci`` when node_modules lacks it).

Without Node (or npm, for ESLint) they skip locally, and fail in CI (``CI`` set), where .ci/run
installs both."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JS_TESTS = ROOT / "tests" / "js"
ESLINT = ROOT / "node_modules" / "eslint" / "bin" / "eslint.js"
TIMEOUT = 300


def _missing(what: str) -> None:
    """Skip locally; fail in CI, which must have every tool."""
    if os.environ.get("CI"):
        pytest.fail(f"CI: {what}")
    pytest.skip(what)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        _missing(f"`{name}` is not installed (Debian: apt-get install nodejs npm)")
    return path


def _run(args: list[str]) -> tuple[int, str]:
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"})
    return done.returncode, f"$ {' '.join(args)}\n{done.stdout}\n{done.stderr}"


def test_the_browser_scripts_unit_tests_pass():
    """Every tests/js/*.test.js file, named one by one (Node 18 to 22 agree on files; not all
    of them take a folder)."""
    node = _tool("node")
    files = sorted(str(path.relative_to(ROOT)) for path in JS_TESTS.glob("*.test.js"))
    assert len(files) >= 8, files
    code, output = _run([node, "--test", *files])
    assert code == 0, output
    passed = re.search(r"^# pass (\d+)$", output, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", output, re.MULTILINE)
    assert passed and failed, output
    assert int(passed.group(1)) >= 50 and failed.group(1) == "0", output


def _pinned_versions_installed() -> bool:
    """Whether node_modules holds each devDependency at the version package.json pins."""
    pins = json.loads((ROOT / "package.json").read_text())["devDependencies"]
    for name, version in pins.items():
        installed = ROOT / "node_modules" / name / "package.json"
        if not installed.is_file() or json.loads(installed.read_text())["version"] != version:
            return False
    return True


def test_eslint_finds_nothing():
    node = _tool("node")
    if not _pinned_versions_installed():
        npm = _tool("npm")
        code, output = _run([npm, "ci", "--no-audit", "--no-fund"])
        if code != 0:
            _missing(f"npm ci could not install ESLint:\n{output}")
    code, output = _run([node, str(ESLINT), "--max-warnings", "0", "."])
    assert code == 0, output
