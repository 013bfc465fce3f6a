"""The paired test and its interval agree on every cell of the shared MMLU-Pro pairs (issue 37,
statistics 4: a bootstrap interval beside the exact McNemar p disagreed in 121 of 3,892 cells).
Every pair of the seven models' per-question outputs, in each of the 14 categories, scored as the
import scores them (pred == answer), compared on the questions both answered: the interval
leaves out 0 exactly when the exact McNemar p is below 0.05, and that p is the exact binomial
test's (scipy)."""

from __future__ import annotations

import itertools
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from evalmaps.analysis.paired import ALPHA, paired_values

FOLDER = Path(__file__).resolve().parents[2].parent / "shared" / "external" / "mmlu-pro"

pytestmark = pytest.mark.external


def outputs() -> dict[str, dict[str, dict[str, float]]]:
    """{model: {category: {question_id: 1.0 right / 0.0 wrong}}}."""
    out = {}
    for path in sorted((FOLDER / "eval_results").glob("*.zip")):
        with zipfile.ZipFile(path) as archive:
            (name,) = archive.namelist()
            rows = json.loads(archive.read(name))
        by = out.setdefault(path.stem, {})
        for r in rows:
            pred, answer = str(r.get("pred") or "").strip(), str(r["answer"]).strip()
            by.setdefault(r["category"], {})[str(r["question_id"])] = float(
                pred == answer and pred != "")
    return out


def test_the_interval_and_the_exact_test_agree_on_every_cell_of_every_pair():
    if not FOLDER.is_dir():
        pytest.skip(f"{FOLDER} is absent: tests of real outputs skipped")
    stats = pytest.importorskip("scipy.stats")
    data = outputs()
    assert len(data) >= 2
    cells = disagree = 0
    for a, b in itertools.combinations(sorted(data), 2):
        for category in sorted(set(data[a]) & set(data[b])):
            ids = sorted(set(data[a][category]) & set(data[b][category]))
            va = np.array([data[a][category][i] for i in ids])
            vb = np.array([data[b][category][i] for i in ids])
            r = paired_values(va, vb, mcnemar=True)
            cells += 1
            m = r.a_only + r.b_only
            want = 1.0 if m == 0 else stats.binomtest(r.b_only, m).pvalue
            assert r.p == pytest.approx(want, rel=1e-9, abs=1e-300), (a, b, category)
            disagree += (r.p < ALPHA) != (not r.ci_low <= 0 <= r.ci_high)
            assert r.ci_low <= r.diff <= r.ci_high
    assert cells >= 14 and disagree == 0, (cells, disagree)
