"""The items behind one cell of a comparison: each item's score on A and on B, which side got it
right, and its texts (prompt, target, both responses) read only for the items shown.

Pure numpy/pandas over :class:`evalmaps.catalog.items.ItemRecords`, no Dash::

    from evalmaps.analysis.compare import resolve_pair
    from evalmaps.analysis.items import cell_items
    a, b = resolve_pair(catalog, "mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b")
    listing = cell_items(catalog, a, b, {"category": "math", ...})
    listing.counts                  # {'a_only': 81, 'b_only': 120, 'both': ..., 'all': ...}
    listing.rows("b_only")[:3]      # [{'item': '70', 'a': 0.0, 'b': 1.0}, ...]

**Where a side's items are.** A side from a panel of a figure with per-item records
(``figure.items``) is the panel's facets fixed, plus the cell's row and column labels; a side
that is a label of a dimension (``<figure>:<dim>=<label>``) fixes that dimension at its label and
every other dimension as its grid does. A mean of panels (``mean(...)``) and a grid averaged
over a dimension have no items of their own: the cell then lists none, and says why.

**Scores.** An item's score on a side is its mean over its samples (at ``k = 1``: Pass@1
averaged over n samples, as the harnesses report it), or at ``k > 1`` the unbiased pass@k of its
samples (:func:`evalmaps.core.estimators.pass_at_k`; it needs 0/1 scores and at least k
samples of every item). Only the items both sides have are listed (a paired comparison); the
counts of items only one side has are given as ``only_in_a``/``only_in_b``.

**Right and wrong** are defined once, in :mod:`evalmaps.analysis.paired` (:func:`~evalmaps.
analysis.paired.graded`, :func:`~evalmaps.analysis.paired.right`), as the paired test's
``a_only``/``b_only`` count them: an item is *right* on a side when its score there is 1, full
credit (every sample right at k = 1, a certain pass at k > 1), where every score lies within
0..1 and higher is better. Elsewhere (a BLEU of 0-100, a loss) there is no right or wrong: only
the ``all`` list is given, and asking for another is an :class:`ItemsError`. The lists (``WHICH``):
``a_only`` (right on A, not on B), ``b_only``, ``both``, ``neither`` and ``all``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from evalmaps.analysis import paired as paired_stats
from evalmaps.analysis.compare import ComparePanel
from evalmaps.catalog.items import ItemRecords, ItemScores, common
from evalmaps.core import text as fmt
from evalmaps.core.errors import EvalmapsError
from evalmaps.core.estimators import pass_at_k
from evalmaps.core.figure import Catalog

WHICH = ("a_only", "b_only", "both", "neither", "all")
WHICH_TITLES = {"a_only": "Only A right", "b_only": "Only B right", "both": "Both right",
                "neither": "Neither right", "all": "All"}


class ItemsError(EvalmapsError, ValueError):
    """A cell, list or k whose items cannot be given (HTTP 400)."""


@dataclass(frozen=True)
class SideItems:
    """Where one side's items of a cell are: the records and the cell's coordinates in them
    (``records`` None: the side has no items; ``why`` says why)."""

    records: ItemRecords | None
    coords: dict[str, str] = field(default_factory=dict)
    why: str = ""


def side_items(catalog: Catalog, side: ComparePanel, y_label: str, x_label: str) -> SideItems:
    """The records and coordinates of ``side``'s cell at (``y_label``, ``x_label``)."""
    if side.is_mean:
        return SideItems(None, why="it is a mean of panels, which has no items of its own")
    figure = catalog.figure(side.figure_ids[0])
    records = getattr(figure, "items", None)
    if records is None:
        return SideItems(None, why=f"figure '{figure.id}' has no per-item records")
    spec = figure.spec
    grid = side.grid
    if grid is None:  # a panel: its facets, then the cell's row and column
        panel = catalog.panel(side.sources[0])
        coords = {**panel.facets, spec.y: y_label, spec.x: x_label}
    else:
        if grid.averaged:
            return SideItems(None, why="its cells are means over " + side.averaged_over +
                             ", which have no items of their own")
        label = side.ref.partition(":")[2][len(grid.dim) + 1:]
        coords = {**dict(grid.fixed), grid.dim: label, grid.x: x_label}
        if grid.y:
            coords[grid.y] = y_label
    return SideItems(records, {d: coords[d] for d in spec.dim_names if d in coords})


def scores_at(cell: ItemScores, k: int) -> np.ndarray:
    """Each item's score: its mean over samples (k = 1), or its unbiased pass@k."""
    if k == 1:
        return cell.mean
    if not cell.binary:
        raise ItemsError(f"pass@{k} needs scores of 0 or 1, and these items have other scores. "
                         "Use k=1.")
    if len(cell) and int(cell.n.min()) < k:
        raise ItemsError(f"pass@{k} needs at least {k} samples of every item, and an item of "
                         f"this cell has {int(cell.n.min())}. Use k={int(cell.n.min())} or less.")
    return pass_at_k(cell.n, cell.total.round().astype(np.int64), k)


@dataclass(frozen=True, eq=False)
class CellItems:
    """One cell's common items on A and B (sorted by id) and who got each right."""

    items: np.ndarray  # ids (text), sorted
    a: np.ndarray  # A's score per item (mean over samples, or pass@k)
    b: np.ndarray
    a_samples: np.ndarray  # samples per item
    b_samples: np.ndarray
    k: int
    graded: bool  # whether items are right or wrong (paired.graded: scores within 0..1, higher better)
    a_right: np.ndarray  # bool
    b_right: np.ndarray
    only_in_a: int = 0  # items only A has (not listed)
    only_in_b: int = 0
    a_coords: dict = field(default_factory=dict)
    b_coords: dict = field(default_factory=dict)
    a_records: ItemRecords | None = None
    b_records: ItemRecords | None = None
    why: str = ""  # why there are no items ("" when there are)

    def mask(self, which: str) -> np.ndarray:
        """The items of a list (:data:`WHICH`)."""
        check_which(which)
        if which == "all":
            return np.ones(len(self.items), dtype=bool)
        if not self.graded:
            raise ItemsError(f"These items' scores are not 0/1 nor within 0..1, so none is right "
                             f"or wrong and there is no '{which}' list. Use which=all.")
        a, b = self.a_right, self.b_right
        return {"a_only": a & ~b, "b_only": b & ~a, "both": a & b, "neither": ~a & ~b}[which]

    @property
    def counts(self) -> dict[str, int | None]:
        """Each list's length (None for the right/wrong lists when items are not graded)."""
        return {w: (int(self.mask(w).sum()) if self.graded or w == "all" else None)
                for w in WHICH}

    def rows(self, which: str = "all", search: str = "", offset: int = 0,
             limit: int | None = None, texts: bool = True) -> list[dict]:
        """The items of a list, in id order: ``{"item", "a", "b"}`` (scores), plus
        ``a_samples``/``b_samples`` where a side has more than one sample of an item, plus
        ``prompt``, ``target``, ``a_response`` and ``b_response`` where the records keep them
        (read only for these items). ``search``: only the items that hold it
        (:meth:`matches`); ``offset``/``limit``: a page of them."""
        at = np.flatnonzero(self.mask(which))
        multi = self._multi
        if search and len(at):
            at = at[self.matches(search, at)]
        at = at[offset:None if limit is None else offset + limit]
        out = []
        for i in at:
            row = {"item": str(self.items[i]), "a": float(self.a[i]), "b": float(self.b[i])}
            if multi:
                row["a_samples"] = int(self.a_samples[i])
                row["b_samples"] = int(self.b_samples[i])
            out.append(row)
        if texts and out:
            self._join_texts(out)
        return out

    @property
    def _multi(self) -> bool:
        """Whether a side has more than one sample of an item (the rows give sample counts)."""
        return bool(len(self.items)) and (int(self.a_samples.max()) > 1
                                          or int(self.b_samples.max()) > 1)

    def matches(self, search: str, at: np.ndarray) -> np.ndarray:
        """Which of the items at positions ``at`` hold ``search`` as plain text, in any case: in
        the id, a score as the list shows it (up to 4 decimals, :func:`score_text`), a sample
        count where the rows give them, or the prompt, target or either response (searched by
        DuckDB in the texts kept, for this cell's items only: texts are never read whole)."""
        needle = search.casefold()
        multi = self._multi
        hit = np.array([needle in str(self.items[i]).casefold()
                        or needle in score_text(self.a[i]) or needle in score_text(self.b[i])
                        or (multi and (needle in str(int(self.a_samples[i]))
                                       or needle in str(int(self.b_samples[i]))))
                        for i in at], dtype=bool)
        held: set[str] = set()
        for records, coords in ((self.a_records, self.a_coords), (self.b_records, self.b_coords)):
            if records is not None:
                held |= records.items_with_text(coords, search)
        if held:
            hit |= np.isin(self.items[at].astype(str), list(held))
        return hit

    def row(self, item: str) -> dict | None:
        """One item's row with its texts (None when the cell has no such item)."""
        at = np.searchsorted(self.items, item) if len(self.items) else 0
        if at >= len(self.items) or self.items[at] != item:
            return None
        row = {"item": str(item), "a": float(self.a[at]), "b": float(self.b[at])}
        self._join_texts([row])
        return row

    def with_texts(self, rows: list[dict]) -> list[dict]:
        """``rows`` (of :meth:`rows` without texts) with their texts, read for them only."""
        rows = [dict(r) for r in rows]
        if rows:
            self._join_texts(rows)
        return rows

    def _join_texts(self, rows: list[dict]) -> None:
        ids = [r["item"] for r in rows]
        a_texts = _texts_by_item(self.a_records, self.a_coords, ids)
        b_texts = _texts_by_item(self.b_records, self.b_coords, ids)
        for row in rows:
            ta, tb = a_texts.get(row["item"], {}), b_texts.get(row["item"], {})
            for key in ("prompt", "target"):
                value = ta.get(key) if ta.get(key) is not None else tb.get(key)
                if value is not None:
                    row[key] = value
            for name, t in (("a_response", ta), ("b_response", tb)):
                if t.get("response") is not None:
                    row[name] = t["response"]


def _texts_by_item(records: ItemRecords | None, coords: Mapping[str, str],
                   items: Sequence[str]) -> dict[str, dict]:
    """Each item's texts (its first sample's, where texts are kept per sample)."""
    if records is None:
        return {}
    out: dict[str, dict] = {}
    for row in records.texts(coords, items):
        out.setdefault(str(row["item"]), row)
    return out


def score_text(value: float) -> str:
    """A score as the list shows it (d3's ``.4~f``: 4 decimals, trailing zeros dropped)."""
    return fmt.number(float(value), 4, 0)


def check_which(which: str) -> str:
    if which not in WHICH:
        raise ItemsError(f"'{fmt.clip(str(which))}' is not a list of items. Use which="
                         + ", ".join(WHICH) + ".")
    return which


def cell_items(catalog: Catalog, a: ComparePanel, b: ComparePanel, y_label: str, x_label: str,
               k: int = 1) -> CellItems:
    """The common items of A's and B's cell at (``y_label``, ``x_label``), scored at ``k``.

    A label that is not one of the comparison's rows or columns is an :class:`ItemsError`. A
    side without items gives an empty list with ``why`` saying so."""
    for dim, label, what in ((a.y, y_label, "row"), (a.x, x_label, "column")):
        if label not in dim.labels or label not in (b.y if what == "row" else b.x).labels:
            raise ItemsError(f"'{fmt.clip(str(label))}' is not a {what} ({dim.title.lower() or what}) "
                             f"both A and B have. Use one of: "
                             f"{fmt.listing(dim.labels, 12)}.")
    if k < 1:
        raise ItemsError(f"k must be a whole number of 1 or more, not {k}.")
    sa, sb = side_items(catalog, a, y_label, x_label), side_items(catalog, b, y_label, x_label)
    missing = [f"{name} {s.why}" for name, s in (("A:", sa), ("B:", sb)) if s.records is None]
    empty = np.array([], dtype=object)
    none = np.array([], dtype=float)
    if missing:
        return CellItems(empty, none, none, none.astype(np.int64), none.astype(np.int64), k,
                         False, none.astype(bool), none.astype(bool), why="; ".join(missing))
    ca, cb = sa.records.cell(sa.coords), sb.records.cell(sb.coords)
    pa, pb = common(ca, cb)
    why = ""
    if not len(pa):
        why = ("A and B share no item in this cell" if len(ca) and len(cb)
               else "this cell has no items on " + ("A" if not len(ca) else "B"))
    va, vb = scores_at(pa, k), scores_at(pb, k)
    return CellItems(pa.items, va, vb, pa.n, pb.n, k,
                     paired_stats.graded(va, vb, a.metric.higher_is_better),
                     paired_stats.right(va), paired_stats.right(vb), len(ca) - len(pa),
                     len(cb) - len(pb), sa.coords, sb.coords, sa.records, sb.records, why)


def count_grid(figure, facets: Mapping[str, str], y_labels: Sequence[str],
               x_labels: Sequence[str]) -> np.ndarray | None:
    """Each cell's item count and largest sample count per item over the grid ``y_labels`` x
    ``x_labels`` of the panel at ``facets`` (rows, cols, 2; NaN where a cell has no items); None
    when the figure has no per-item records. Counted once per figure."""
    records = getattr(figure, "items", None)
    if records is None:
        return None
    counts = getattr(figure, "_evalmaps_counts", None)
    if counts is None:
        counts = figure._evalmaps_counts = records.cell_values(1)
    spec = figure.spec
    keep = np.ones(len(counts), dtype=bool)
    for dim, label in facets.items():
        keep &= counts[dim].to_numpy(dtype=object) == label
    chosen = counts[keep]
    rows = {label: i for i, label in enumerate(y_labels)}
    cols = {label: j for j, label in enumerate(x_labels)}
    grid = np.full((len(y_labels), len(x_labels), 2), np.nan)
    for y, x, n_items, n_samples in zip(chosen[spec.y], chosen[spec.x], chosen["n_items"],
                                        chosen["n_samples"]):
        if y in rows and x in cols:
            grid[rows[y], cols[x]] = (n_items, n_samples)
    return grid
