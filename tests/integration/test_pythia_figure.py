"""The built-in Pythia figure against the published results it is built from (../shared/external/
pythia-evals, read in place; skipped when absent): regenerated whole, and spot-checked cell by
cell against the raw JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from evalmaps.catalog.load import load_catalog

pytestmark = pytest.mark.external

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT.parent / "shared" / "external" / "pythia-evals"
sys.path.insert(0, str(ROOT / "scripts"))

import make_pythia_figure  # noqa: E402


@pytest.fixture(scope="module")
def built():
    if not SOURCE.is_dir():
        pytest.skip("../shared/external/pythia-evals is absent: Pythia figure tests skipped")
    return make_pythia_figure.build(SOURCE)


def test_the_committed_file_and_entry_are_what_the_script_builds(built):
    text, entry = built
    assert (ROOT / "data" / "figures" / "pythia-zero-shot.csv").read_text(encoding="utf-8") == text
    catalog = json.loads((ROOT / "data" / "catalog.json").read_text(encoding="utf-8"))
    assert [f for f in catalog["figures"] if f["id"] == "pythia-zero-shot"] == [entry]


def test_shape_and_order(built):
    fig = load_catalog().figure("pythia-zero-shot")
    spec = fig.spec
    assert (spec.y, spec.x, spec.facets) == ("model", "step", ("task", "metric"))
    assert spec.dims["model"].labels == ("70m", "160m", "410m", "1b-bf16", "1.4b", "2.8b",
                                         "6.9b", "12b")
    steps = [int(s) for s in spec.dims["step"].labels]
    assert steps == sorted(steps) and len(steps) == 27 and steps[0] == 0 and steps[-1] == 143000
    assert spec.provenance == "published"
    # every task with acc: 8 named benchmarks and the 57 MMLU subjects
    assert len(spec.dims["task"].labels) == 65
    assert sum(t.startswith("hendrycksTest-") for t in spec.dims["task"].labels) == 57


@pytest.mark.parametrize("size, step, task", [
    ("70m", "0", "arc_challenge"), ("160m", "1000", "piqa"), ("1b-bf16", "512", "sciq"),
    ("1b-bf16", "143000", "hendrycksTest-virology"), ("12b", "143000", "lambada_openai"),
    ("6.9b", "43000", "arc_easy"), ("2.8b", "64", "winogrande"), ("1.4b", "23000", "wsc"),
])
def test_cells_are_the_raw_json_numbers(built, size, step, task):
    fig = load_catalog().figure("pythia-zero-shot")
    folder = SOURCE / "pythia-v1" / f"pythia-{size}" / "zero-shot"
    (path,) = [p for p in folder.glob(f"*_step{step}.json")]
    raw = json.loads(path.read_text())
    assert f"pretrained=EleutherAI/pythia-v1.1-{size},revision=step{step}" in \
        raw["config"]["model_args"]
    metrics = raw["results"][task]
    for metric in ("acc", "acc_norm"):
        coords = dict(task=task, metric=metric, model=size, step=step)
        if metric not in metrics:
            assert fig.value(**coords) is None
            continue
        assert fig.value(**coords) == metrics[metric]
        panel = fig.panel(next(slug for slug, p in fig.panels.items()
                               if p.facets == {"task": task, "metric": metric}))
        i = fig.spec.dims["model"].index()[size]
        j = fig.spec.dims["step"].index()[step]
        assert panel.se[i, j] == metrics[f"{metric}_stderr"]
