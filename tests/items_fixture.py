"""Small figures with per-item records for the paired tests (unit, integration and browser):
a tidy figure whose cells are exactly the means of their items, with the items kept by
:meth:`evalmaps.catalog.items.ItemRecords.write` and attached as ``figure.items``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from evalmaps.catalog.items import ItemRecords
from evalmaps.catalog.load import parse_spec, validate_cells
from evalmaps.core.figure import Figure

MODELS = ("small", "large")
YS = ("easy", "hard")
XS = ("t1", "t2", "t3")


def item_scores(models=MODELS, ys=YS, xs=XS, n_items: int = 40, samples: int = 1,
                chance: dict | None = None, seed: int = 0) -> pd.DataFrame:
    """One row per model, cell, item and sample: 0/1 scores, right with ``chance[model]``
    (default 0.5 and 0.7), drawn from a seeded generator."""
    rng = np.random.default_rng(seed)
    chance = chance or {m: 0.5 + 0.2 * k for k, m in enumerate(models)}
    rows = []
    for model in models:
        for y in ys:
            for x in xs:
                right = rng.random((n_items, samples)) < chance[model]
                for item in range(n_items):
                    for s in range(samples):
                        rows.append((model, y, x, f"q{item:03d}", s, float(right[item, s])))
    return pd.DataFrame(rows, columns=["model", "level", "task", "item", "sample", "score"])


def items_figure(folder: Path, fid: str, scores: pd.DataFrame, *, with_items: bool = True,
                 models=MODELS, ys=YS, xs=XS) -> Figure:
    """A figure (facet model, rows level, columns task, metric Accuracy 0-1) whose cells are
    the mean over items of each item's mean over samples, written with 6 decimals."""
    item_means = scores.groupby(["model", "level", "task", "item"])["score"].mean()
    cells = item_means.groupby(["model", "level", "task"]).mean().reset_index()
    frame = pd.DataFrame({"model": cells["model"], "level": cells["level"],
                          "task": cells["task"],
                          "value": [f"{v:.6f}".rstrip("0").rstrip(".") for v in cells["score"]]})
    spec = parse_spec({
        "id": fid, "file": f"{fid}.csv", "title": f"Figure {fid}",
        "metric": {"name": "Accuracy", "unit": "", "range": [0, 1]},
        "x": "task", "y": "level", "facets": ["model"], "provenance": "uploaded",
        "dims": {"model": {"title": "Model", "labels": list(models)},
                 "level": {"title": "Level", "labels": list(ys)},
                 "task": {"title": "Task", "labels": list(xs)}},
    }, where="test")
    tidy, decimals = validate_cells(frame.astype(str), spec, file=f"{fid}.csv")
    figure = Figure(spec, tidy, decimals)
    if with_items:
        figure.items = ItemRecords.write(folder, figure.spec.dim_names, scores)
    return figure


def clustered_by_src(scores: pd.DataFrame, per: int = 5) -> pd.DataFrame:
    """``scores`` with a cluster column ``src`` (kept as ``evalmaps import --cluster src``
    keeps it): items q0..q{per-1} in source-0, the next ``per`` in source-1, and so on."""
    scores["cluster:src"] = "source-" + (scores["item"].str[1:].astype(int) // per).astype(str)
    return scores


@contextmanager
def serving(dash_app, figures: Iterable[Figure]) -> Iterator:
    """The app serving its catalog with ``figures`` added (the catalog it serves, yielded), and
    its own catalog again after."""
    state = dash_app.server.extensions["evalmaps"]
    before = state["catalog"]
    state["catalog"] = before.with_figures(list(figures))
    try:
        yield state["catalog"]
    finally:
        state["catalog"] = before
