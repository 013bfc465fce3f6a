"""Natural order: numbers inside labels by value, model sizes by size, for results files'
labels and Browse's "by name" order."""

from __future__ import annotations

import json
import random

import pytest

from evalmaps.catalog.imports import import_paths
from evalmaps.core.text import natural_key
from tests.conftest import SHARED

PYTHIA_SIZES = ["70m", "160m", "410m", "1b", "1b-bf16", "1.4b", "2.8b", "6.9b", "12b"]


def test_model_sizes_sort_by_size():
    shuffled = random.Random(4).sample(PYTHIA_SIZES, len(PYTHIA_SIZES))
    assert sorted(shuffled, key=natural_key) == PYTHIA_SIZES
    prefixed = [f"EleutherAI/pythia-v1.1-{s}" for s in PYTHIA_SIZES]
    assert sorted(reversed(prefixed), key=natural_key) == prefixed


@pytest.mark.parametrize("labels", [
    ["step1", "step2", "step10", "step100"],
    ["HumanEval/0", "HumanEval/9", "HumanEval/10", "Mbpp/2"],
    ["abc", "Abd", "abe"],  # case does not decide before the letters do
    ["task-9", "task-10", "task-10-b"],
])
def test_numbers_inside_labels_sort_by_value(labels):
    assert sorted(reversed(labels), key=natural_key) == labels


def test_results_files_import_in_natural_order(tmp_path):
    for model in ("pythia-12b", "pythia-70m", "pythia-1.4b", "pythia-160m"):
        for task in ("task10", "task9", "arc"):
            doc = {"results": {task: {"acc,none": 0.5}}, "versions": {},
                   "config": {"model_args": f"pretrained=EleutherAI/{model}"}}
            (tmp_path / f"{model}-{task}.json").write_text(json.dumps(doc), encoding="utf-8")
    imported = import_paths([tmp_path])[0]
    assert imported.dims["model"] == ["EleutherAI/pythia-70m", "EleutherAI/pythia-160m",
                                      "EleutherAI/pythia-1.4b", "EleutherAI/pythia-12b"]
    assert imported.dims["task"] == ["arc", "task9", "task10"]


def test_a_table_keeps_the_order_its_file_gives():
    from evalmaps.catalog.imports import import_bytes

    imported = import_bytes(b"model,task,value\nzeta,b,1\nalpha,a,2\n", "t.csv")[0]
    assert imported.dims["model"] == ["zeta", "alpha"]


def test_the_pythia_sweep_lists_its_models_by_size():
    folder = SHARED / "external" / "pythia-evals" / "pythia-v1"
    if not folder.is_dir():
        pytest.skip("../shared/external is absent")
    imported = import_paths([folder])[0]
    assert imported.dims["model"] == [f"EleutherAI/pythia-v1.1-{s}" for s in PYTHIA_SIZES
                                      if s != "1b"]
