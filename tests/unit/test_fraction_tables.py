"""A table given the default metric (0 to 100, %) whose values all lie in [0, 1] holds fractions:
it is never labelled % (issue 24: "no fraction is ever labelled %")."""

from __future__ import annotations

import pytest

from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.catalog.shaping import FRACTIONS_NOTE
from evalmaps.core.figure import Metric
from evalmaps.readers.base import ImportOptions

FRACTIONS = b"model,task,value\na,x,0.5\na,y,0.75\nb,x,0.25\nb,y,1\n"


def metric_of(data: bytes, options: ImportOptions | None = None):
    figure = figure_of(import_bytes(data, "f.csv", options or ImportOptions())[0])
    return figure.spec.metric, figure.spec.notes


def test_fractions_are_read_as_fractions_with_a_note_saying_how_to_undo():
    metric, notes = metric_of(FRACTIONS)
    assert metric == Metric(name="Accuracy", unit="", range=(0.0, 1.0), higher_is_better=True, scale=1)
    assert FRACTIONS_NOTE in notes


def test_percent_keeps_them_percent():
    metric, notes = metric_of(FRACTIONS, ImportOptions(guess_fractions=False))
    assert (metric.unit, metric.range) == ("%", (0.0, 100.0))
    assert FRACTIONS_NOTE not in notes


@pytest.mark.parametrize("data", [
    b"model,task,value\na,x,0\na,y,1\nb,x,1\nb,y,0\n",  # only 0s and 1s: either; kept as given
    b"model,task,value\na,x,0.5\na,y,75\nb,x,25\nb,y,100\n",  # percentages
])
def test_other_tables_keep_the_metric_given(data):
    metric, notes = metric_of(data)
    assert (metric.unit, metric.range) == ("%", (0.0, 100.0))
    assert FRACTIONS_NOTE not in notes


def test_a_metric_the_user_set_is_not_second_guessed():
    metric, _ = metric_of(FRACTIONS, ImportOptions(metric="Score", unit="pts", metric_range=(0.0, 100.0)))
    assert (metric.name, metric.unit, metric.range) == ("Score", "pts", (0.0, 100.0))
    metric, _ = metric_of(FRACTIONS, ImportOptions(metric_range=None))
    assert (metric.unit, metric.range) == ("%", None)
