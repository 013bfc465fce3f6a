"""Paired significance on real files (issue 27): the two Inspect arc_easy logs of
../shared/external/inspect-samples answer three items in common (ids 1 to 3). Sonnet gets all
three right, Qwen only item 1: two discordant pairs, both for Sonnet, so the exact McNemar p is
2 * 0.5**2 = 0.5 (worked by hand), although the standard errors the logs give call the gap
distinguishable."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmaps.analysis.compare import compare, with_paired
from evalmaps.catalog.folders import with_items
from evalmaps.catalog.imports import figure_of, import_paths
from evalmaps.core.figure import Catalog

INSPECT = Path(__file__).resolve().parents[2].parent / "shared" / "external" / "inspect-samples"


def test_the_arc_logs_are_paired_on_their_three_common_items(tmp_path):
    if not INSPECT.is_dir():
        pytest.skip(f"{INSPECT} is absent: tests of real tool output skipped")
    folder = INSPECT
    imported = import_paths([folder / "data_arc_qwen.json", folder / "data_arc_sonnet.json"])[0]
    figure = with_items(figure_of(imported), imported, tmp_path)
    sonnet, qwen = (f"{figure.id}:{slug}" for slug in (
        "anthropic-claude-sonnet-4-0-choice", "ollama-qwen2-5-0-5b-choice"))
    al = with_paired(compare(Catalog([figure]), sonnet, qwen))
    [cell] = al.cells()
    paired = {k: v for k, v in cell["paired"].items()
              if k not in ("a_se", "b_se", "se_diff", "se_diff_clustered", "n_clusters", "mde",
                           "items_needed", "a_se_clustered", "b_se_clustered", "a_var_within",
                           "a_var_between", "a_within_share", "b_var_within", "b_var_between",
                           "b_within_share")}
    # A right on all 3, B on 1 of them: d = (0, -1, -1) in some order, se_diff = sqrt(1/3 / 3)
    assert cell["paired"]["se_diff"] == pytest.approx((1 / 9) ** 0.5, abs=1e-12)
    assert cell["paired"]["a_se"] == 0.0 and cell["paired"]["n_clusters"] is None
    assert paired == {"n": 3, "a_mean": 1.0, "b_mean": 0.333333333333,
                              "diff": -0.666666666667, "ci_low": None, "ci_high": None, "p": None,
                              "p_adjusted": None, "test": "none", "a_only": 2, "b_only": 0,
                              "only_in_a": 2, "only_in_b": 0}
    assert (cell["a"], cell["b"]) == (1.0, 0.3333333333333333)  # each log's own mean, 5 and 3 items
    # the unpaired test no longer takes sonnet's 5 of 5 with se 0 for certainty (its Wilson
    # interval stands in), so it agrees with the paired one: not distinguishable
    assert cell["distinguishable"] is False
    swapped = with_paired(compare(Catalog([figure]), qwen, sonnet)).cells()[0]["paired"]
    assert (swapped["diff"], swapped["p"], swapped["a_only"], swapped["b_only"]) == (
        0.666666666667, None, 0, 2)  # three items: no paired test can reach 5%
