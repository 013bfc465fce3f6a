"""docs/cli.md stays true: every ``evalmaps`` command and Python block it gives runs as given
(exit codes as its comments say), and every option of ``evalmaps compare`` is documented. The
MMLU-Pro examples read ../shared/external/mmlu-pro, as ``mmlu-pro/`` beside the commands; they
are skipped when it is absent."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from evalmaps.service.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"
TEXT = DOC.read_text(encoding="utf-8")
MMLU = ROOT.parent / "shared" / "external" / "mmlu-pro"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", TEXT, re.M | re.S)


def commands() -> list[tuple[str, int]]:
    """Each ``evalmaps ...`` line of the bash blocks with the exit code its comment gives
    (``# exit 1: ...``; default 0)."""
    out = []
    for block in blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            command, _, comment = line.partition("  #")
            if command.startswith("evalmaps "):
                code = re.match(r"\s*exit (\d)", comment)
                out.append((command.strip(), int(code.group(1)) if code else 0))
    return out


@pytest.fixture
def folder(tmp_path) -> Path:
    """Where the docs' commands run: ``external/mmlu-pro`` is the shared outputs' folder."""
    if MMLU.is_dir():
        (tmp_path / "external").mkdir()
        (tmp_path / "external" / "mmlu-pro").symlink_to(MMLU)
    return tmp_path


def env() -> dict:
    import os

    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT),
                                                         os.environ.get("PYTHONPATH", "")])}


def test_the_docs_give_commands_and_python():
    assert len(commands()) >= 11 and len(blocks("python")) >= 3
    assert any(code == 1 for _, code in commands())  # the gate failing is shown too


@pytest.mark.parametrize("command, code", commands(), ids=[c for c, _ in commands()])
def test_every_command_runs_as_the_docs_say(folder, command, code):
    if "external/mmlu-pro/" in command and not MMLU.is_dir():
        pytest.skip(f"{MMLU} is absent")
    words = shlex.split(command)
    build_parser().parse_args(words[1:])  # the options are the parser's
    proc = subprocess.run([sys.executable, "-m", "evalmaps.service.cli", *words[1:]], cwd=folder,
                          env=env(), capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == code, proc.stderr
    assert proc.stdout.strip()


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_every_python_block_runs(folder, index):
    code = blocks("python")[index]
    if "external/mmlu-pro/" in code and not MMLU.is_dir():
        pytest.skip(f"{MMLU} is absent")
    proc = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_every_option_is_documented(command):
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices[command]
    options = {o for action in sub._actions for o in action.option_strings
               if o.startswith("--") and o != "--help"}
    missing = sorted(o for o in options if f"`{o}" not in TEXT)
    assert missing == []
    for fmt in ("table", "json", "csv", "markdown", "latex"):
        assert f"| `{fmt}` |" in TEXT
