"""A data folder of Inspect logs with samples, served as ``evalmaps serve --data`` serves it: the
app's figure has its per-item records (figure.items), whose dims are the figure's, and the API
serves the figure with the model a facet."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app import create_app
from evalmaps.service.settings import Settings

EXTERNAL = Path(__file__).resolve().parents[2].parent / "shared" / "external"
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


def test_served_data_folder_figures_have_their_items(arc_folder, tmp_path):
    app = create_app(Settings(extra_data=(arc_folder,), cache_dir=tmp_path / "cache",
                              store_dir=None))
    catalog = app.server.extensions["evalmaps"]["catalog"]
    figure = catalog.figure("import-arc-2-inspect-logs")
    assert figure.items is not None and figure.items.dims == figure.spec.dim_names
    assert figure.items.folder.parent == tmp_path / "cache"
    grid = figure.items.cells({"scorer": "choice", "metric": "accuracy",
                               "task": "inspect_evals/arc_easy"}, ["model"])
    assert {k: (list(v.items), list(v.mean)) for k, v in grid.items()} == {
        ("anthropic/claude-sonnet-4-0",): (["1", "2", "3", "4", "5"], [1.0] * 5),
        ("ollama/qwen2.5:0.5b",): (["1", "2", "3"], [1.0, 0.0, 0.0])}
    builtin = catalog.figure("mmlu-pro")
    assert builtin.items is not None
    body = app.server.test_client().get("/api/figures/import-arc-2-inspect-logs").get_json()
    assert [(d["name"], d["role"]) for d in body["dims"]] == [
        ("model", "facet"), ("scorer", "facet"), ("metric", "y"), ("task", "x")]
