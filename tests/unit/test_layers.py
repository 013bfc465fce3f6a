"""The import contract: the domain package's layers import only those below them, the domain
imports no Dash, and no module of it takes part in an import cycle (pyproject.toml's
[tool.importlinter] contracts, run as CI runs them, and grimp's graph for the cycles)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")  # import-linter's command
    run = subprocess.run([str(lint) if lint.exists() else "lint-imports", "--no-cache"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "BROKEN" not in run.stdout and run.stdout.count("KEPT") == 3, run.stdout


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
