"""The catalog's optional ``metrics``: a metric per label of one facet (direction and scale),
``FigureSpec.metric_for``, its validation, and each cell's range checked against its own metric."""

from __future__ import annotations

import copy
import json

import pytest

from evalmaps.catalog.load import load_catalog
from evalmaps.core.errors import DataError
from evalmaps.core.figure import Metric

ENTRY = {
    "id": "mixed",
    "file": "figures/mixed.csv",
    "title": "Mixed measures",
    "metric": {"name": "score"},
    "x": "task",
    "y": "model",
    "facets": ["metric"],
    "dims": {
        "metric": {"title": "Metric", "labels": ["acc", "perplexity", "other"]},
        "model": {"title": "Model", "labels": ["m1", "m2"]},
        "task": {"title": "Task", "labels": ["t1", "t2"]},
    },
    "metrics": {"dim": "metric", "labels": {
        "acc": {"name": "acc", "range": [0, 1]},
        "perplexity": {"name": "perplexity", "higher_is_better": False}}},
    "provenance": "imported",
}
ROWS = "metric,model,task,value\nacc,m1,t1,0.5\nacc,m2,t2,1\nperplexity,m1,t1,605.5\nother,m1,t2,-3\n"


def load(tmp_path, entry=ENTRY, rows=ROWS):
    (tmp_path / "figures").mkdir(exist_ok=True)
    (tmp_path / "catalog.json").write_text(json.dumps({"figures": [entry]}), encoding="utf-8")
    (tmp_path / "figures" / "mixed.csv").write_text(rows, encoding="utf-8")
    return load_catalog(tmp_path)


def changed(path: list, value):
    entry = copy.deepcopy(ENTRY)
    target = entry
    for key in path[:-1]:
        target = target[key]
    if value is None:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return entry


def test_each_panel_has_its_own_metric(tmp_path):
    spec = load(tmp_path).figure("mixed").spec
    assert spec.metric == Metric("score", "", None, True)
    assert spec.metric_for({"metric": "acc"}) == Metric("acc", "", (0, 1), True)
    assert spec.metric_for({"metric": "perplexity"}) == Metric("perplexity", "", None, False)
    assert spec.metric_for({"metric": "other"}) == spec.metric  # not listed: the figure's
    assert spec.metric_for({}) == spec.metric


def test_without_metrics_every_panel_has_the_figure_metric(tmp_path):
    spec = load(tmp_path, changed(["metrics"], None)).figure("mixed").spec
    assert spec.metrics is None
    assert spec.metric_for({"metric": "acc"}) == Metric("score", "", None, True)


def test_a_value_outside_its_own_metric_range_is_refused(tmp_path):
    # 1.5 would be fine for the figure's metric (no range) and for perplexity: not for acc
    rows = ROWS + "acc,m1,t2,1.5\n"
    with pytest.raises(DataError) as info:
        load(tmp_path, rows=rows)
    assert str(info.value).endswith("row 6, column 'value': 1.5 is outside the range of acc "
                                    "(0 to 1). Check the number or the metric's range.")


def test_the_figure_range_still_applies_to_labels_without_their_own_metric(tmp_path):
    entry = changed(["metric", "range"], [0, 10])
    with pytest.raises(DataError) as info:
        load(tmp_path, entry)  # 'other' -3 is outside 0..10; perplexity 605.5 is its own metric
    assert "row 5, column 'value': -3 is outside the range of score (0 to 10)" in str(info.value)


@pytest.mark.parametrize("path, value, message", [
    (["metrics"], ["acc"], '"metrics" must be {"dim": "<facet>", "labels": {"<label>": '
                           '{"name": ...}}}. See data/README.md.'),
    (["metrics", "dim"], "model", "metrics.dim 'model' is not one of the facets (metric). Name "
                                  "the facet whose labels are metrics."),
    (["metrics", "labels", "bleu"], {"name": "bleu"},
     "metrics.labels names 'bleu', which is not a label of dimension 'metric'. Use one of its "
     "labels."),
    (["metrics", "labels", "acc"], "acc", "metrics.labels['acc'] must be an object like "
                                          '{"name": "acc", "range": [0, 1]}.'),
    (["metrics", "labels", "acc", "range"], [1, 0],
     "metrics.labels['acc'].range must be [low, high] with low < high."),
    (["metrics", "labels", "perplexity", "higher_is_better"], "no",
     "metrics.labels['perplexity'].higher_is_better must be true or false."),
    (["metric", "higher_is_better"], 0, "metric.higher_is_better must be true or false."),
])
def test_a_bad_metrics_entry_is_a_clear_error(tmp_path, path, value, message):
    with pytest.raises(DataError) as info:
        load(tmp_path, changed(path, value))
    assert str(info.value).endswith(message)
