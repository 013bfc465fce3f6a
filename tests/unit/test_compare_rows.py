"""The CI gate's rule (:func:`evalmaps.service.compare_rows.is_worse`) in both directions of a
metric, and how separate imports become one figure (:mod:`evalmaps.catalog.pairs`)."""

from __future__ import annotations

import pytest

from evalmaps.catalog.imports import import_bytes
from evalmaps.catalog.pairs import PairError, merge_imports, side_names
from evalmaps.service.compare_rows import SE_TEST, is_better, is_worse


def paired(diff, p_adjusted):
    return {"diff": diff, "p_adjusted": p_adjusted, "p": p_adjusted, "test": "mcnemar",
            "distinguishable": None}


@pytest.mark.parametrize("row, up, worse", [
    (paired(-0.1, 0.01), True, True),
    (paired(-0.1, 0.2), True, False),  # not distinguishable
    (paired(0.1, 0.01), True, False),  # better
    (paired(0.1, 0.01), False, True),  # higher where lower is better: worse
    (paired(-0.1, 0.01), False, False),
    (paired(0.0, 0.0), True, False),
    (paired(-0.1, None), True, False),  # untested
    ({"diff": -2.0, "p_adjusted": None, "p": None, "test": SE_TEST, "distinguishable": True},
     True, True),
    ({"diff": -2.0, "p_adjusted": None, "p": None, "test": SE_TEST, "distinguishable": False},
     True, False),
    ({"diff": -2.0, "p_adjusted": None, "p": None, "test": None, "distinguishable": None},
     True, False),
])
def test_worse_is_a_distinguishable_difference_in_the_metrics_worse_direction(row, up, worse):
    assert is_worse(row, up, alpha=0.05) is worse
    flipped = {**row, "diff": -row["diff"]}
    assert is_better(flipped, up, alpha=0.05) is worse


def test_alpha_and_min_diff_narrow_what_is_worse():
    row = paired(-0.1, 0.03)
    assert is_worse(row, True, alpha=0.05) and not is_worse(row, True, alpha=0.01)
    assert is_worse(row, True, 0.05, min_diff=0.1) and not is_worse(row, True, 0.05, 0.11)


@pytest.mark.parametrize("paths, names", [
    (["runs/a.json", "runs/b.json"], ("a.json", "b.json")),
    (["runs/1000/results.json", "runs/2000/results.json"],
     ("1000/results.json", "2000/results.json")),
    (["x/results.json", "x/results.json"], ("A", "B")),
    (["a/", "b/", "c"], ("a", "b", "c")),
])
def test_side_names_are_the_paths_names_told_apart(paths, names):
    assert side_names(*paths) == names


def table(rows: str, name: str):
    return import_bytes(("model,task,value\n" + rows).encode(), name)[0]


def test_imports_of_one_model_each_are_compared_by_model():
    merged = merge_imports([table("m1,t1,50\nm1,t2,60\n", "a.csv"),
                            table("m2,t1,55\nm2,t2,58\n", "b.csv")], ("a.csv", "b.csv"))
    assert (merged.dim, merged.labels) == ("model", ("m1", "m2"))
    assert merged.a_ref == "compare:model=m1" and merged.b_ref == "compare:model=m2"
    assert merged.figure.value(model="m2", task="t2") == 58


def test_imports_of_one_name_get_a_run_dimension():
    merged = merge_imports([table("m,t1,50\nm,t2,60\n", "a.csv"),
                            table("m,t1,55\nm,t2,58\n", "b.csv")], ("a.csv", "b.csv"))
    assert (merged.dim, merged.labels) == ("run", ("a.csv", "b.csv"))
    assert merged.figure.spec.facets[0] == "run"
    assert merged.figure.value(run="b.csv", model="m", task="t1") == 55


def test_imports_of_other_dimensions_are_refused_in_one_sentence():
    other = import_bytes(b"model,size,value\nm,s,1\nm,l,2\n", "c.csv")[0]
    with pytest.raises(PairError, match=r"compare results of the same evaluation"):
        merge_imports([table("m,t1,50\nm,t2,60\n", "a.csv"), other], ("a.csv", "c.csv"))
