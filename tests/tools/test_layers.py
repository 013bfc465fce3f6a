"""The import contract: the domain package's layers import only those below them, the domain
imports no Dash and none of the web app (``app``, ``components``, ``layouts``), and no module of
it takes part in an import cycle (pyproject.toml's [tool.importlinter] contracts, run as CI runs
them, and grimp's graph for the cycles)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
# what lint-imports analyses: the contracts and the packages and modules they name
ANALYSED = ("pyproject.toml", "app.py", "evalmaps", "components", "layouts")


def lint_imports(cwd: Path, **env: str) -> subprocess.CompletedProcess:
    lint = Path(sys.executable).with_name("lint-imports")  # import-linter's command
    return subprocess.run([str(lint) if lint.exists() else "lint-imports", "--no-cache"], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, **env})


def test_the_import_contracts_hold():
    run = lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "BROKEN" not in run.stdout and run.stdout.count("KEPT") == 3, run.stdout


@pytest.mark.parametrize("statement, imported", [
    ("import app", "app"),  # what evalmaps serve did before it named app:server
    ("from layouts import _routes", "layouts._routes"),  # the JSON API, health check, ...
])
def test_the_contract_breaks_when_the_domain_imports_the_web_app(tmp_path, statement, imported):
    """A copy of the repository whose CLI imports the web app: lint-imports fails, naming the
    import, so the contract above would catch it."""
    for name in ANALYSED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name,
                            ignore=shutil.ignore_patterns("__pycache__", "_share", "_bundle"))
        else:
            shutil.copy2(source, tmp_path / name)
    cli = tmp_path / "evalmaps" / "service" / "cli.py"
    text = cli.read_text(encoding="utf-8")
    cli.write_text(text.replace("\nimport argparse\n", f"\nimport argparse\n{statement}\n", 1),
                   encoding="utf-8")
    run = lint_imports(tmp_path, PYTHONPATH=str(tmp_path))  # the copy, not the checkout
    assert run.returncode != 0, run.stdout + run.stderr
    assert "nor the web app (app, components, layouts) BROKEN" in " ".join(run.stdout.split())
    assert f"evalmaps.service.cli -> {imported}" in run.stdout, run.stdout


def import_cycles(graph) -> list[tuple[str, str]]:
    """Every direct import a -> b where b also leads back to a."""
    cycles = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if graph.chain_exists(importer=imported, imported=module):
                cycles.append((module, imported))
    return cycles


def test_no_module_of_the_domain_package_is_in_an_import_cycle():
    assert import_cycles(grimp.build_graph("evalmaps")) == []


def test_the_cycle_check_finds_a_cycle():
    graph = grimp.ImportGraph()
    for name in ("p.a", "p.b", "p.c"):
        graph.add_module(name)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    assert import_cycles(graph) == []
    graph.add_import(importer="p.c", imported="p.a")
    assert import_cycles(graph) == [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a")]
