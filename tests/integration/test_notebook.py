"""docs/notebook.ipynb runs from top to bottom on a real kernel (nbclient, ipykernel) and fails
on any error; a figure shows as its heatmaps (Plotly's mime type), a comparison as Compare's
three maps above its table.
It reads the shared MMLU-Pro outputs as ``external/mmlu-pro`` beside it (skipped when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
MMLU = ROOT.parent / "shared" / "external" / "mmlu-pro"
PLOTLY = "application/vnd.plotly.v1+json"

pytestmark = pytest.mark.skipif(not MMLU.is_dir(), reason=f"{MMLU} is absent")


def test_the_notebook_runs_and_shows_heatmaps_and_tables(tmp_path, monkeypatch):
    (tmp_path / "external").mkdir()
    (tmp_path / "external" / "mmlu-pro").symlink_to(MMLU)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # CellExecutionError on any error
    outputs = [cell.outputs for cell in notebook.cells if cell.cell_type == "code"]
    shown = [o for cell in outputs for o in cell if o.output_type in ("display_data",
                                                                     "execute_result")]
    plots = [o for o in shown if PLOTLY in o.data]
    # the one model's figure (one panel, its heatmap), then the comparison: A, B and B - A
    assert len(plots) == 4
    assert all(o.data[PLOTLY]["data"][0]["type"] == "heatmap" for o in plots)
    titles = [o.data[PLOTLY]["layout"]["title"]["text"] for o in plots[1:]]
    assert titles[0].startswith("A · ") and titles[1].startswith("B · ") and "B − A" in titles[2]
    tables = [o for o in shown if "text/html" in o.data and "<table" in o.data["text/html"]]
    assert len(tables) >= 4  # cells, items, the comparison, the ranks
    printed = "".join(o.get("text", "") for cell in outputs for o in cell
                      if o.output_type == "stream")
    assert "Llama-2-13b" in printed and "is best or tied in" in printed
