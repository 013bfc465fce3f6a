"""The Problems collector: what a load met and went on without, one line each, or, strict, the
first problem raised as its own error (evalmaps.core.problems)."""

from __future__ import annotations

import logging

import pytest

from evalmaps.catalog.folders import load_folder
from evalmaps.catalog.load import load_catalog
from evalmaps.core.errors import DataError, problem_line
from evalmaps.core.problems import STRICT, Problems

GOOD = "model,task,value\nm1,a,1\nm1,b,2\nm2,a,3\nm2,b,4\n"
BAD = "model,task,value\nm1,a,1\nm1,b,lots\n"


def test_a_collector_keeps_each_problem_as_one_line_in_order():
    problems = Problems()
    problems.add("first")
    problems.not_served(DataError("the value 'x' is not a number. Fix it.", file="b.csv"))
    problems.warn("Renamed:\nthe figure 'a' is served as 'a-2'.")
    assert list(problems) == [
        "first",
        "Not served: b.csv: the value 'x' is not a number. Fix it.",
        "Renamed: the figure 'a' is served as 'a-2'.",  # one line: the break is a space
    ]
    assert len(problems) == 3 and problems[1].startswith("Not served: b.csv")
    assert problems == list(problems) and problems != ["first"]
    assert Problems(["a", "b"]) == ("a", "b") and not Problems()


def test_strict_raises_the_first_problem_as_its_own_error_and_keeps_nothing():
    problems = Problems(strict=True)
    error = DataError("the catalog names a missing file. Add it.", file="catalog.json")
    with pytest.raises(DataError) as raised:
        problems.not_served(error)
    assert raised.value is error
    with pytest.raises(DataError) as raised:
        problems.add("Not checked: x", error)
    assert raised.value is error
    # a line without an error of its own is raised as a DataError saying it
    with pytest.raises(DataError, match=r"^Changed since its manifest: f\.csv\.$"):
        problems.add("Changed since its manifest: f.csv.")
    assert list(problems) == [] and STRICT.strict and list(STRICT) == []
    # a collector's initial lines go through add too: strict refuses the first
    with pytest.raises(DataError, match="^old$"):
        Problems(["old"], strict=True)


def test_strict_logs_a_warning_instead_of_raising(caplog):
    with caplog.at_level(logging.WARNING, logger="evalmaps.data"):
        STRICT.warn("Renamed: the figure 'a' is served as 'a-2'.")
    assert [r.getMessage() for r in caplog.records] == [
        problem_line("Renamed: the figure 'a' is served as 'a-2'.")]
    assert list(STRICT) == []


def test_a_folder_loads_strictly_by_default_and_collects_with_a_collector(tmp_path):
    (tmp_path / "good.csv").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.csv").write_text(BAD, encoding="utf-8")
    with pytest.raises(DataError, match=r"'lots' is not a finite number") as raised:
        load_folder(tmp_path)
    problems = Problems()
    (figure,) = load_folder(tmp_path, problems=problems)
    assert figure.id == "import-good" and figure.n_cells == 4
    assert list(problems) == [f"Not served: {raised.value}"]


def test_a_catalog_with_a_bad_figure_raises_strictly_and_serves_the_rest_collected(tmp_path):
    (tmp_path / "good.csv").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.csv").write_text(BAD, encoding="utf-8")
    entry = ('{{"id": "{0}", "file": "{0}.csv", "title": "{0}", "metric": {{"name": "A"}}, '
             '"x": "task", "y": "model", "facets": [], "dims": {{"model": {{"labels": '
             '["m1", "m2"]}}, "task": {{"labels": ["a", "b"]}}}}, "provenance": "published"}}')
    (tmp_path / "catalog.json").write_text(
        f'{{"figures": [{entry.format("good")}, {entry.format("bad")}]}}', encoding="utf-8")
    with pytest.raises(DataError) as raised:
        load_catalog(tmp_path)
    problems = Problems()
    catalog = load_catalog(tmp_path, problems=problems)
    assert catalog.ids == ["good"]
    assert list(problems) == [f"Not served: {raised.value}"]
