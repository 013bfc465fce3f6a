"""Separate imports as ONE figure whose labels Compare (and Rank) set side by side.

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
of any figure. ``evalmaps rank A B C ...`` makes many imports one figure the same way
(:func:`merge_imports`), each a label of the dimension ranked. Pure: no Dash.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import PurePosixPath

import pandas as pd

from evalmaps.catalog.folders import figure_dims, with_items
from evalmaps.catalog.imported import Imported
from evalmaps.catalog.imports import figure_of
from evalmaps.core import text as fmt
from evalmaps.core.errors import DataError
from evalmaps.core.figure import Figure

FIGURE_ID = "compare"
ADDED_DIMS = ("run", "side", "compared_run")  # the added dimension's name: the first not taken


class PairError(DataError):
    """Two imports that cannot be one figure to compare (different dimensions or metrics)."""


@dataclasses.dataclass(frozen=True, eq=False)
class Merged:
    """Several imports as one figure, and the labels of its compared dimension ``dim`` that
    name them, in their order."""

    figure: Figure
    dim: str
    labels: tuple[str, ...]

    def ref(self, i: int) -> str:
        """The reference of the ``i``-th import: ``compare:<dimension>=<label>``."""
        return f"{self.figure.id}:{self.dim}={self.labels[i]}"

    @property
    def a_ref(self) -> str:
        return self.ref(0)

    @property
    def b_ref(self) -> str:
        return self.ref(1)


def side_names(*paths: str) -> tuple[str, ...]:
    """What paths are called as the labels of an added dimension: their names
    (``ckpt-1000.json``), or, where those are alike, their paths from where they part
    (``1000/results.json``); ``A``, ``B``, ... where even those are alike."""
    parts = [PurePosixPath(str(p).rstrip("/")).parts for p in paths]
    names = [p[-1] if p else "" for p in parts]
    if all(names) and len(set(names)) == len(names):
        return tuple(names)
    same = 0
    while all(len(p) > same + 1 for p in parts) and len({p[same] for p in parts}) == 1:
        same += 1
    names = ["/".join(p[same:]) for p in parts]
    if all(names) and len(set(names)) == len(names):
        return tuple(names)
    return tuple(LETTERS[i] if i < len(LETTERS) else f"run {i + 1}" for i in range(len(paths)))


LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


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


def pair_imports(a: Imported, b: Imported, names: tuple[str, str] = ("A", "B")) -> Merged:
    """A's and B's imports as one figure (:func:`merge_imports`)."""
    return merge_imports([a, b], names, ("A", "B"))


def merge_imports(imports: list[Imported], names: tuple[str, ...],
                  sides: tuple[str, ...] | None = None) -> Merged:
    """Imports as one figure (the module's docstring); ``names``: the labels of an added
    dimension (:func:`side_names`), ``sides``: how messages call the imports (default: their
    names). Imports of different dimensions or metrics are a :class:`PairError` that says so."""
    first = imports[0]
    sides = sides or tuple(names)
    dims_first = figure_dims(first.spec)
    for side_name, imported in zip(sides[1:], imports[1:]):
        dims = figure_dims(imported.spec)
        if set(dims) != set(dims_first):
            raise PairError(f"{sides[0]}'s results have the dimensions "
                            f"{fmt.listing(dims_first)} and {side_name}'s {fmt.listing(dims)}: "
                            f"compare results of the same evaluation (the same tasks and "
                            f"metrics, run on other models or checkpoints).")
    spec = copy.deepcopy(first.spec)
    axes = (spec["y"], spec["x"])
    differ = [d for d in dims_first
              if all(len(_labels(imported, d)) == 1 for imported in imports)
              and len({_labels(imported, d)[0] for imported in imports}) == len(imports)]
    differ.sort(key=lambda d: d not in axes)  # an axis first: a facet can be left out, not it
    if len(differ) > 1 and differ[1] in axes:
        raise PairError(f"{' and '.join(sides)} share no label of {differ[0]} nor of "
                        f"{differ[1]}: there is no cell to compare. Compare results of the same "
                        f"tasks.")
    dropped = differ[1:]
    if differ:
        dim = differ[0]
        labels = tuple(_labels(imported, dim)[0] for imported in imports)
    else:
        dim = next(name for name in ADDED_DIMS if name not in dims_first)
        labels = tuple(names)

    def side(label: str, frame: pd.DataFrame | None) -> pd.DataFrame | None:
        if frame is None:
            return None
        frame = frame.drop(columns=[d for d in dropped if d in frame.columns])
        if not differ:
            frame = frame.assign(**{dim: label})
        return frame

    cells = pd.concat([side(label, imported.tidy) for label, imported in zip(labels, imports)],
                      ignore_index=True)
    cells = cells.fillna("").astype(str)  # a column only one side gives (se): '' on the other
    order = [*([dim] if not differ else []), *[d for d in dims_first if d not in dropped]]
    cells = cells[[*order, *[c for c in cells.columns if c not in order]]]
    dims = {}
    if not differ:
        dims[dim] = {"title": dim.replace("_", " ").capitalize(), "labels": list(labels)}
    for d in dims_first:
        if d in dropped:
            continue
        merged_labels = list(dict.fromkeys(label for imported in imports
                                           for label in _labels(imported, d)))
        dims[d] = {**spec["dims"][d], "labels": merged_labels}
    spec["dims"] = dims
    spec["facets"] = [*([dim] if not differ else []),
                      *[f for f in spec["facets"] if f not in dropped]]
    for imported in imports[1:]:
        spec["metric"] = _metric(spec["metric"], imported.spec["metric"])
    given = [imported.spec["metrics"] for imported in imports if imported.spec.get("metrics")]
    if given:
        by_label = {}
        for metrics in reversed(given):  # the first import's entry wins
            by_label.update(metrics.get("labels", {}))
        spec["metrics"] = {**given[0], "labels": by_label}
    if len({str(imported.spec.get("zrange")) for imported in imports}) > 1:
        spec.pop("zrange", None)
    if any("decimals" in imported.spec for imported in imports):
        spec["decimals"] = max(imported.spec.get("decimals", 0) for imported in imports)
    spec["id"] = FIGURE_ID
    spec["title"] = " vs ".join(labels)
    spec["source"] = {**spec.get("source", {}), "file": ", ".join(labels)}
    spec["notes"] = [f"{name}: {note}" for name, imported in zip(sides, imports)
                     for note in imported.spec.get("notes", [])]
    spec["file"] = ", ".join(labels)
    records = None
    frames = [_items(imported) for imported in imports]
    if all(frame is not None for frame in frames):
        records = pd.concat([side(label, frame) for label, frame in zip(labels, frames)],
                            ignore_index=True)
        if "sample" in records:
            records["sample"] = records["sample"].fillna(0).astype("int64")
    merged = dataclasses.replace(
        first, spec=spec, tidy=cells, facets=list(spec["facets"]),
        dims={d: list(entry["labels"]) for d, entry in dims.items()},
        warnings=[w for imported in imports for w in imported.warnings], encodings=None,
        value_numbers=None, items=records)
    figure = with_items(figure_of(merged), merged, cache_dir=None)
    return Merged(figure, dim, labels)
