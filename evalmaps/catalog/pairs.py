"""Two separate imports as ONE figure whose two labels Compare sets side by side.

``evalmaps compare A B`` and :func:`evalmaps.compare` take two files (folders, zips) that were
never one figure: the results of the last checkpoint and of the new one, two models' per-question
outputs. Compare aligns two labels of one dimension of one figure
(:func:`evalmaps.analysis.compare.label_sides`), items and all, so the two imports are made one
figure here, and the comparison is of two labels of its *compared* dimension:

- where the two differ in a dimension that has one label on each side (the model: ``Llama-2-7B``
  against ``Llama-2-13B``), that dimension is the compared one and keeps its labels (a second
  such dimension, a facet, is left out: it says no more than the first);
- else (the same model name in both, as two checkpoints of one run often have) a dimension
  ``run`` is added as the first facet, its labels the two paths' names (``A`` and ``B`` when
  those are the same).

The cells are the imports' own (their values exactly as imported, with ``se``, ``sd`` and ``n``),
and so are the per-item records: both sides' records in one store
(:mod:`evalmaps.catalog.items`), so the paired test joins them by item id as it joins two labels
of any figure. Pure: no Dash.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import PurePosixPath

import pandas as pd

from evalmaps.catalog.folders import figure_dims, with_items
from evalmaps.catalog.imports import figure_of
from evalmaps.core import text as fmt
from evalmaps.core.errors import DataError
from evalmaps.core.figure import Figure
from evalmaps.readers.table import Imported

FIGURE_ID = "compare"
ADDED_DIMS = ("run", "side", "compared_run")  # the added dimension's name: the first not taken


class PairError(DataError):
    """Two imports that cannot be one figure to compare (different dimensions or metrics)."""


@dataclasses.dataclass(frozen=True, eq=False)
class Paired:
    """The two imports as one figure, and A's and B's references into it
    (``compare:<dimension>=<label>``)."""

    figure: Figure
    dim: str
    a_label: str
    b_label: str

    @property
    def a_ref(self) -> str:
        return f"{self.figure.id}:{self.dim}={self.a_label}"

    @property
    def b_ref(self) -> str:
        return f"{self.figure.id}:{self.dim}={self.b_label}"


def side_names(a: str, b: str) -> tuple[str, str]:
    """What two paths are called as the labels of an added dimension: their names
    (``ckpt-1000.json``), or, where those are one, their paths from where the two part
    (``1000/results.json``); ``A`` and ``B`` for the same path."""
    pa, pb = PurePosixPath(a.rstrip("/")).parts, PurePosixPath(b.rstrip("/")).parts
    if not pa or not pb or pa == pb:
        return "A", "B"
    if pa[-1] != pb[-1]:
        return pa[-1], pb[-1]
    same = next((i for i, (x, y) in enumerate(zip(pa, pb)) if x != y), min(len(pa), len(pb)))
    return "/".join(pa[same:]) or "A", "/".join(pb[same:]) or "B"


def _labels(imported: Imported, dim: str) -> list[str]:
    return list(imported.spec["dims"][dim]["labels"])


def _metric(a: dict, b: dict) -> dict:
    """The one metric of both sides: the same name and direction, else a :class:`PairError`;
    a range they do not share is left out."""
    if (a.get("name"), a.get("higher_is_better", True), a.get("unit", "")) != (
            b.get("name"), b.get("higher_is_better", True), b.get("unit", "")):
        raise PairError(f"A gives {fmt.clip(str(a.get('name')))} and B gives "
                        f"{fmt.clip(str(b.get('name')))}: compare results of the same metric "
                        f"(the same evaluation run on two models or checkpoints).")
    out = dict(a)
    if a.get("range") != b.get("range"):
        out["range"] = None
    return out


def _items(imported: Imported) -> pd.DataFrame | None:
    records = imported.items
    if records is None:
        return None
    return records if isinstance(records, pd.DataFrame) else records.to_pandas()


def pair_imports(a: Imported, b: Imported, names: tuple[str, str] = ("A", "B")) -> Paired:
    """A's and B's imports as one figure (the module's docstring); ``names``: the labels of an
    added dimension (:func:`side_names`). Imports of different dimensions or metrics are a
    :class:`PairError` that says so."""
    dims_a, dims_b = figure_dims(a.spec), figure_dims(b.spec)
    if set(dims_a) != set(dims_b):
        raise PairError(f"A's results have the dimensions {fmt.listing(dims_a)} and B's "
                        f"{fmt.listing(dims_b)}: compare results of the same evaluation (the "
                        f"same tasks and metrics, run on two models or checkpoints).")
    spec = copy.deepcopy(a.spec)
    axes = (spec["y"], spec["x"])
    differ = [d for d in dims_a if len(_labels(a, d)) == 1 and len(_labels(b, d)) == 1
              and _labels(a, d) != _labels(b, d)]
    differ.sort(key=lambda d: d not in axes)  # an axis first: a facet can be left out, not it
    if len(differ) > 1 and differ[1] in axes:
        raise PairError(f"A and B share no label of {differ[0]} nor of {differ[1]}: there is no "
                        f"cell to compare. Compare results of the same tasks.")
    dropped = differ[1:]
    if differ:
        dim = differ[0]
        a_label, b_label = _labels(a, dim)[0], _labels(b, dim)[0]
    else:
        dim = next(name for name in ADDED_DIMS if name not in dims_a)
        a_label, b_label = names if names[0] != names[1] else ("A", "B")

    def side(label: str, frame: pd.DataFrame | None) -> pd.DataFrame | None:
        if frame is None:
            return None
        frame = frame.drop(columns=[d for d in dropped if d in frame.columns])
        if not differ:
            frame = frame.assign(**{dim: label})
        return frame

    cells = pd.concat([side(a_label, a.tidy), side(b_label, b.tidy)], ignore_index=True)
    cells = cells.fillna("").astype(str)  # a column only one side gives (se): '' on the other
    order = [*([dim] if not differ else []), *[d for d in dims_a if d not in dropped]]
    cells = cells[[*order, *[c for c in cells.columns if c not in order]]]
    dims = {}
    if not differ:
        dims[dim] = {"title": dim.replace("_", " ").capitalize(), "labels": [a_label, b_label]}
    for d in dims_a:
        if d in dropped:
            continue
        labels = _labels(a, d) + [label for label in _labels(b, d) if label not in _labels(a, d)]
        dims[d] = {**spec["dims"][d], "labels": labels}
    spec["dims"] = dims
    spec["facets"] = [*([dim] if not differ else []),
                      *[f for f in spec["facets"] if f not in dropped]]
    spec["metric"] = _metric(a.spec["metric"], b.spec["metric"])
    if "metrics" in a.spec or "metrics" in b.spec:
        by_label = {**(b.spec.get("metrics") or {}).get("labels", {}),
                    **(a.spec.get("metrics") or {}).get("labels", {})}
        spec["metrics"] = {**(a.spec.get("metrics") or b.spec["metrics"]), "labels": by_label}
    if a.spec.get("zrange") != b.spec.get("zrange"):
        spec.pop("zrange", None)
    if "decimals" in a.spec or "decimals" in b.spec:
        spec["decimals"] = max(a.spec.get("decimals", 0), b.spec.get("decimals", 0))
    spec["id"] = FIGURE_ID
    spec["title"] = f"{a_label} vs {b_label}"
    spec["source"] = {**spec.get("source", {}), "file": f"{a_label} and {b_label}"}
    spec["notes"] = [f"A: {note}" for note in a.spec.get("notes", [])] + \
                    [f"B: {note}" for note in b.spec.get("notes", [])]
    spec["file"] = f"{a_label} and {b_label}"
    items_a, items_b = _items(a), _items(b)
    records = None
    if items_a is not None and items_b is not None:
        records = pd.concat([side(a_label, items_a), side(b_label, items_b)],
                            ignore_index=True)
        if "sample" in records:
            records["sample"] = records["sample"].fillna(0).astype("int64")
    merged = dataclasses.replace(
        a, spec=spec, tidy=cells, facets=list(spec["facets"]),
        dims={d: list(entry["labels"]) for d, entry in dims.items()},
        warnings=[*a.warnings, *b.warnings], _encodings=None, _numbers=None, items=records)
    figure = with_items(figure_of(merged), merged, cache_dir=None)
    return Paired(figure, dim, a_label, b_label)
