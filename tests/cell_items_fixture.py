"""A small figure with per-item records, for the tests of the items behind a cell: MMLU-style
accuracy of two models (facet ``model``: m7, m13) by ``category`` (math, law, chem) and ``split``
(test). Its cells are the means of its items' scores, as an import from items makes them.

- math: items q1..q6, one sample each, 0/1 (q1 right on both, q2 and q3 only on m13, q4 only on
  m7, q5 and q6 on neither); m7 also has q7, which m13 lacks.
- law: items l1..l3, four samples each, 0/1 (pass@k applies).
- chem: items c1..c2, one sample, partial credit (0.25, 0.75 on m7; 0.5, 1 on m13).

Texts (prompt, target, response) are kept for math; a response holds markup that must stay text.
"""

from __future__ import annotations

import pandas as pd

from evalmaps.catalog.items import ItemRecords
from evalmaps.catalog.load import parse_spec, validate_cells
from evalmaps.core.figure import Figure

FIGURE_ID = "itemdemo"
DIMS = ["model", "category", "split"]
EVIL_RESPONSE = "<script>window.__pwned = 1</script><b>bold</b> the answer is (B)"

MATH = {  # item: (m7, m13)
    "q1": (1, 1), "q2": (0, 1), "q3": (0, 1), "q4": (1, 0), "q5": (0, 0), "q6": (0, 0),
}
LAW = {  # item: (m7 samples, m13 samples)
    "l1": ((1, 0, 0, 0), (1, 1, 0, 0)),
    "l2": ((0, 0, 0, 0), (1, 1, 1, 1)),
    "l3": ((1, 1, 1, 1), (0, 0, 0, 1)),
}
CHEM = {"c1": (0.25, 0.5), "c2": (0.75, 1.0)}


def sampled_frame() -> pd.DataFrame:
    """Every cell as law: items l1..l3, four 0/1 samples each (pass@k applies up to k = 4)."""
    rows = []
    for category in ("math", "law", "chem"):
        for item, (a, b) in LAW.items():
            for s, (va, vb) in enumerate(zip(a, b)):
                rows += [("m7", category, "test", item, s, va),
                         ("m13", category, "test", item, s, vb)]
    return pd.DataFrame(rows, columns=[*DIMS, "item", "sample", "score"])


def scores_frame(partial: bool = True) -> pd.DataFrame:
    rows = []
    for item, (a, b) in MATH.items():
        rows += [("m7", "math", "test", item, 0, a), ("m13", "math", "test", item, 0, b)]
    rows.append(("m7", "math", "test", "q7", 0, 1))
    for item, (a, b) in LAW.items():
        for s, (va, vb) in enumerate(zip(a, b)):
            rows += [("m7", "law", "test", item, s, va), ("m13", "law", "test", item, s, vb)]
    for item, (a, b) in CHEM.items():
        if not partial:  # 0/1 instead: the figure allows pass@k (at most 1 sample in chem)
            a, b = round(a + 0.01), round(b)
        rows += [("m7", "chem", "test", item, 0, a), ("m13", "chem", "test", item, 0, b)]
    return pd.DataFrame(rows, columns=[*DIMS, "item", "sample", "score"])


def texts_frame() -> pd.DataFrame:
    rows = []
    for model in ("m7", "m13"):
        for item in MATH:
            response = EVIL_RESPONSE if (model, item) == ("m13", "q2") else f"{model} says {item}"
            rows.append((model, "math", "test", item, f"Question {item}? " + "x" * 400,
                         f"target {item}", response))
    return pd.DataFrame(rows, columns=[*DIMS, "item", "prompt", "target", "response"])


def items_figure(folder, partial: bool = True, sampled: bool = False) -> Figure:
    """The figure, its cells the item means, with its records kept in ``folder``;
    ``partial=False``: chem's scores are 0/1 (c1 wrong on A, right on B; c2 right on both);
    ``sampled``: every cell's items are law's (four samples each: :func:`sampled_frame`)."""
    scores = sampled_frame() if sampled else scores_frame(partial)
    item_means = scores.groupby([*DIMS, "item"], sort=False)["score"].mean().reset_index()
    cells = item_means.groupby(DIMS, sort=False)["score"].mean().reset_index()
    spec = parse_spec({
        "id": FIGURE_ID, "file": f"{FIGURE_ID}.csv", "title": "Item demo",
        "metric": {"name": "accuracy", "unit": "", "range": [0, 1]},
        "x": "split", "y": "category", "facets": ["model"], "provenance": "uploaded",
        "dims": {"model": {"title": "Model", "labels": ["m7", "m13"]},
                 "category": {"title": "Category", "labels": ["math", "law", "chem"]},
                 "split": {"title": "Split", "labels": ["test"]}},
    }, where="test")
    frame = pd.DataFrame({d: cells[d] for d in DIMS})
    frame["value"] = [repr(float(v)) for v in cells["score"]]
    validated, decimals = validate_cells(frame.astype(str), spec, file=f"{FIGURE_ID}.csv")
    figure = Figure(spec, validated, decimals)
    figure.items = ItemRecords.write(folder, DIMS, scores, None if sampled else texts_frame())
    return figure
