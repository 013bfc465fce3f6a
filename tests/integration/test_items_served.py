"""A data folder of Inspect logs with samples, served as ``evalmaps serve --data`` serves it: the
app's figure has its per-item records (figure.items), whose dims are the figure's, and the API
serves the figure with the model a facet. The app is made in a fresh interpreter: a second Dash
app in the test process would register its scripts again for every later test."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = ROOT.parent / "shared" / "external"
INSPECT = EXTERNAL / "inspect-samples"


@pytest.fixture
def arc_folder(tmp_path):
    if not INSPECT.exists():
        pytest.skip(f"{INSPECT} is absent: tests of real tool output skipped")
    folder = tmp_path / "arc"
    folder.mkdir()
    for name in ("data_arc_qwen.json", "data_arc_sonnet.json"):
        shutil.copy(INSPECT / name, folder / name)
    return folder


# run in a fresh interpreter: argv[1] the data folder, argv[2] a scratch folder
SCRIPT = """
import sys
from pathlib import Path

from app import create_app
from evalmaps.service.settings import Settings

arc_folder, tmp_path = Path(sys.argv[1]), Path(sys.argv[2])
app = create_app(Settings(extra_data=(arc_folder,), cache_dir=tmp_path / "cache",
                          store_dir=None))
catalog = app.server.extensions["evalmaps"]["catalog"]
figure = catalog.figure("import-arc")
assert figure.items is not None and figure.items.dims == figure.spec.dim_names
assert figure.items.folder.parent == tmp_path / "cache"
grid = figure.items.cells({"scorer": "choice", "metric": "accuracy",
                           "task": "inspect_evals/arc_easy"}, ["model"])
assert {k: (list(v.items), list(v.mean)) for k, v in grid.items()} == {
    ("anthropic/claude-sonnet-4-0",): (["1", "2", "3", "4", "5"], [1.0] * 5),
    ("ollama/qwen2.5:0.5b",): (["1", "2", "3"], [1.0, 0.0, 0.0])}
builtin = catalog.figure("mmlu-pro")
assert builtin.items is not None
body = app.server.test_client().get("/api/figures/import-arc").get_json()
assert [(d["name"], d["role"]) for d in body["dims"]] == [
    ("model", "facet"), ("scorer", "facet"), ("metric", "y"), ("task", "x")]
print("checked")
"""


def test_served_data_folder_figures_have_their_items(arc_folder, tmp_path):
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(arc_folder), str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "checked"
