"""The items behind one cell of a comparison, for the API and the Compare page:
``/api/compare/items?a=..&b=..&<row dim>=<label>&<column dim>=<label>&which=..&k=..`` and the
page's ``cell=<row label>|<column label>&which=..`` (see :mod:`evalmaps.analysis.items`).

Shapes are a public contract (scripts rely on them): keep the keys.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from evalmaps.analysis import compare as comparing
from evalmaps.analysis.items import CellItems, ItemsError, cell_items, check_which
from evalmaps.core import text as fmt
from evalmaps.core.figure import Catalog
from evalmaps.views.state import (
    CompareState,
    Query,
    as_list,
    first,
    grid_query,
    grid_state,
)

MAX_K = 10_000
MAX_SEARCH = 200  # characters of a search (q)
# every answer is bounded, as Datasette bounds its (max_returned_rows, truncate_cells_html):
PAGE_ROWS = 100  # items a page lists unless limit= says otherwise
MAX_ROWS = 1000  # the most items one page lists (limit=)
CSV_ROWS = 20_000  # the most items one CSV holds (limit= up to this with format=csv)
LIST_TEXT = 1_000  # characters of each text a list gives (the rest: item=<id>)
CSV_TEXT = 32_767  # characters of each text a CSV gives: a spreadsheet cell's most
ITEM_TEXT = 1_000_000  # characters of each text one item (item=<id>) gives
CELL_SEP = "|"  # the page's cell=<row label>|<column label>
TEXT_COLUMNS = ("prompt", "target", "a_response", "b_response")


def parse_k(query: Query) -> int:
    """``k`` (default 1): a whole number from 1. Anything else is an :class:`ItemsError`."""
    text = first(query.get("k"))
    if text is None or text == "":
        return 1
    try:
        k = int(text)
    except ValueError:
        k = 0
    if not 1 <= k <= MAX_K:
        raise ItemsError(f"k='{fmt.clip(text)}' is not a whole number from 1 to {MAX_K}. Use "
                         "k=1 (the mean over samples) or a k up to the items' samples.")
    return k


def parse_cell(text: str | None) -> tuple[str, str] | None:
    """The page's ``cell=<row label>|<column label>`` (None when absent or not of that form;
    the column label is after the last '|', so a row label may hold one)."""
    if not text or CELL_SEP not in text:
        return None
    y, _, x = text.rpartition(CELL_SEP)
    return y, x


@dataclass(frozen=True)
class ItemsQuery:
    """What an items request names: the two sides, the cell's labels (by dimension name) and
    how its items are scored and listed."""

    a: comparing.ComparePanel
    b: comparing.ComparePanel
    y_name: str
    x_name: str
    y_label: str
    x_label: str
    k: int
    which: str
    search: str = ""  # q: only the items holding it (ids, scores, texts; plain text, any case)


def _one(query: Query, name: str, title: str) -> str | None:
    labels = as_list(query.get(name)) or []
    if len(labels) > 1:
        raise ItemsError(f"Give one label of {title.lower()} (the cell's); the query gives "
                         f"{len(labels)}.")
    return labels[0] if labels else None


def items_query(catalog: Catalog, query: Query) -> ItemsQuery:
    """Read ``a``, ``b``, the cell (``<row dim>=<label>``, ``<column dim>=<label>``, or the
    page's ``cell=<row label>|<column label>``; a grid of two labels of a dimension is laid out by
    ``ydim``, ``xdim``, ``avg`` and the other dimensions' labels, as in /api/compare), ``k`` and
    ``which``. With the page's ``cell``, no a and b is the page's default pair (of ``figure``,
    if given). A problem is a 400 error (:class:`ItemsError` or
    :class:`~evalmaps.analysis.compare.CompareError`) that says what to give."""
    a_refs, b_refs = as_list(query.get("a")) or [], as_list(query.get("b")) or []
    cells = as_list(query.get("cell")) or []
    cell = parse_cell(cells[0]) if len(cells) == 1 else None
    if "cell" in query and cell is None:
        raise ItemsError("Name one cell as cell=<row label>|<column label> (the column label "
                         "after the last '|'), as the Compare page's address holds it.")
    if cell is not None and not a_refs and not b_refs:
        figure_id = first(query.get("figure"))
        a_refs, b_refs = map(list, zip(comparing.default_pair(
            catalog, figure_id if figure_id in catalog else None)))
    if len(a_refs) != 1 or len(b_refs) != 1:
        raise ItemsError("Give one panel as a and one as b (as /api/compare takes them), and the "
                         "cell's row and column labels, e.g. ?a=<figure>:<panel>&b=<figure>:"
                         "<panel>&<row dim>=<label>&<column dim>=<label>.")
    a_ref, b_ref = a_refs[0], b_refs[0]
    k = parse_k(query)
    which = check_which(first(query.get("which")) or "all")
    labelled = next((ref for ref in (a_ref, b_ref) if comparing.is_label_ref(ref)), None)
    if labelled is not None:
        figure, dim, _ = comparing.parse_label_ref(catalog, labelled,
                                                   "A" if labelled == a_ref else "B")
        spec = figure.spec
        axes = comparing.label_grid(spec, dim, y=first(query.get("ydim")),
                                    x=first(query.get("xdim")) or None)
        y_name, x_name = axes.y or comparing.ONE_ROW, axes.x
        rest = {key: value for key, value in query.items() if key not in (axes.y, axes.x)}
        a, b = comparing.resolve_pair(catalog, a_ref, b_ref, **grid_query(rest, spec))
    else:
        a, b = comparing.resolve_pair(catalog, a_ref, b_ref)
        y_name, x_name = a.y.name, a.x.name
    labels = {}
    for name, dim, at in ((y_name, a.y, 0), (x_name, a.x, 1)):
        if name == comparing.ONE_ROW:
            labels[name] = dim.labels[0]
        else:
            labels[name] = cell[at] if cell is not None else _one(query, name, dim.title or name)
    absent = [name for name, label in labels.items() if label is None]
    if absent:
        raise ItemsError("Name the cell: give " + " and ".join(f"{n}=<label>" for n in absent) +
                         f" (its label of the comparison's rows, {y_name}, and columns, "
                         f"{x_name}).")
    return ItemsQuery(a, b, y_name, x_name, labels[y_name], labels[x_name], k, which,
                      parse_search(query))


def parse_search(query: Query) -> str:
    """``q``: the text the listed items must hold ("" for all of them), as plain text."""
    text = first(query.get("q")) or ""
    if len(text) > MAX_SEARCH:
        raise ItemsError(f"q is {len(text):,} characters long. Search for at most {MAX_SEARCH} "
                         "characters of an item's id, score or texts.")
    return text


def page_url(catalog: Catalog, q: ItemsQuery, default: tuple[str, str] | None = None) -> str:
    """The Compare page with this cell's items open: its state plus ``cell`` and ``which``
    (and ``k`` when not 1, ``q`` when the list is searched)."""
    state = CompareState(q.a.ref, q.b.ref)
    if q.a.grid is not None:
        state = grid_state(state, q.a.grid, catalog.figure(q.a.figure_ids[0]).spec)
    view = state.to_query(default)
    extra = [("cell", f"{q.y_label}{CELL_SEP}{q.x_label}"), ("which", q.which)]
    if q.k != 1:
        extra.append(("k", str(q.k)))
    if q.search:
        extra.append(("q", q.search))
    return "/compare" + (view + "&" if view else "?") + urlencode(extra, safe=":(),=/|")


def listed(catalog: Catalog, q: ItemsQuery) -> CellItems:
    return cell_items(catalog, q.a, q.b, q.y_label, q.x_label, q.k)


def _whole_number(query: Query, name: str, default: int, top: int) -> int:
    text = first(query.get(name))
    if text is None or text == "":
        return default
    if not (text.isascii() and text.isdigit() and len(text) <= 9) or not 0 <= int(text) <= top:
        raise ItemsError(f"{name}='{fmt.clip(text)}' is not a whole number from 0 to {top:,}. "
                         f"Give {name}=<n>, or leave it out.")
    return int(text)


def clipped(row: dict, limit: int) -> dict:
    """``row`` with each text longer than ``limit`` characters cut there (an ellipsis after it)
    and ``"clipped"`` naming the texts cut (absent when none is)."""
    cut = [key for key in TEXT_COLUMNS if isinstance(row.get(key), str) and len(row[key]) > limit]
    if not cut:
        return row
    out = {**row, **{key: row[key][:limit] + "\u2026" for key in cut}}
    out["clipped"] = cut
    return out


@dataclass(frozen=True, eq=False)
class ItemsView:
    """One cell's items on A and B, as Compare lists them (``/compare?...&cell=<row>|<column>
    &which=..``) and ``/api/compare/items`` answers them (:func:`items_query` reads both)."""

    query: ItemsQuery
    items: CellItems
    rows: tuple[dict, ...]  # the page of items listed (``which``, holding ``q``), texts clipped
    url: str  # the Compare page with this list open
    total: int = 0  # the items of the list (holding ``q``), all pages
    offset: int = 0  # where this page starts in the list
    limit: int = PAGE_ROWS
    item: str | None = None  # item=<id>: that item alone, its texts whole (up to ITEM_TEXT)

    @classmethod
    def from_query(cls, catalog: Catalog, query: Query, csv: bool = False) -> ItemsView:
        """The view of a query; ``csv``: the CSV's bounds (more rows a page, longer texts)."""
        q = items_query(catalog, query)
        cell = listed(catalog, q)
        url = page_url(catalog, q, comparing.default_pair(catalog))
        item = first(query.get("item"))
        if item is not None:
            row = cell.row(item)
            if row is None:
                raise ItemsError(f"The cell has no item '{fmt.clip(item)}' that both A and B "
                                 "answered. Give item=<id> as the list gives it.")
            return cls(q, cell, (clipped(row, ITEM_TEXT),), url, 1, 0, 1, item)
        top = CSV_ROWS if csv else MAX_ROWS
        limit = _whole_number(query, "limit", top if csv else PAGE_ROWS, top)
        offset = _whole_number(query, "next", 0, 10**9)
        every = cell.rows(q.which, search=q.search, texts=False)  # searched once
        page = cell.with_texts(every[offset:offset + limit])
        text = CSV_TEXT if csv else LIST_TEXT
        return cls(q, cell, tuple(clipped(r, text) for r in page), url, len(every), offset,
                   limit)

    @property
    def next(self) -> str | None:
        """The cursor of the next page (``next=``), None on the last."""
        end = self.offset + len(self.rows)
        return str(end) if self.item is None and end < self.total else None

    def to_dict(self) -> dict:
        """``{"a", "b"`` (refs), ``"cell": {<row dim>: label, <column dim>: label}``, ``"k"``,
        ``"which"``, ``"q"`` (the search, "" for none), ``"counts"`` (per list, before the
        search; null for the right/wrong lists where scores are neither 0/1 nor within 0..1),
        ``"graded"``, ``"only_in_a"``/``"only_in_b"`` (items one side lacks, not listed),
        ``"note"`` (why there are no items, else null), ``"url"`` (the Compare page with this
        list open) and ``"items"``: ``[{"item", "a", "b", ...texts}]``, only those holding
        ``q`` where one is given: one page of them (``limit``, default 100, at most 1,000;
        ``"total"`` in the list; ``"next"``, the cursor of the next page to give as
        ``next=``, or null on the last), each text cut at 1,000 characters (``"clipped"``
        names those cut; ``item=<id>`` gives that item alone with its texts whole)."""
        q, cell = self.query, self.items
        return {
            "a": q.a.ref, "b": q.b.ref,
            "cell": ({q.x_name: q.x_label} if q.y_name == comparing.ONE_ROW
                     else {q.y_name: q.y_label, q.x_name: q.x_label}),
            "k": q.k, "which": q.which, "q": q.search, "counts": cell.counts,
            "graded": cell.graded, "only_in_a": cell.only_in_a, "only_in_b": cell.only_in_b,
            "note": cell.why or None, "url": self.url,
            "total": self.total, "limit": self.limit, "next": self.next,
            "items": list(self.rows),
        }


def items_payload(catalog: Catalog, query: Query, csv: bool = False) -> dict:
    """``/api/compare/items``: one cell's items on A and B (:class:`ItemsView`'s JSON; ``csv``:
    with the CSV's bounds, up to 20,000 items a page and texts of up to 32,767 characters)."""
    return ItemsView.from_query(catalog, query, csv=csv).to_dict()


def items_csv(payload: Mapping) -> str:
    """The items of a payload as CSV: item, a, b, the sample counts and texts where any row has
    them; text that would start a spreadsheet formula is neutralised."""
    rows = payload["items"]
    optional = ["a_samples", "b_samples", *TEXT_COLUMNS]
    columns = ["item", "a", "b"] + [c for c in optional if any(c in r for r in rows)]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else fmt.neutralise(str(row[c]))
                         for c in columns])
    return buf.getvalue()


def csv_name(payload: Mapping) -> str:
    """``<a>__vs__<b>__<labels>__<which>.csv`` with characters unsafe in a file name replaced."""
    parts = [payload["a"], "vs", payload["b"], *payload["cell"].values(), payload["which"]]
    if payload["k"] != 1:
        parts.append(f"pass@{payload['k']}")
    stem = "__".join(parts)
    safe = "".join(c if c.isalnum() or c in "-._@" else "-" for c in stem)
    return safe[:150] + ".csv"


def figure_at_query(figure, query: Query):
    """The figure at the query's ``k`` (the cells and trends API): itself at k = 1; a k its
    items do not allow is an :class:`ItemsError` (400)."""
    from evalmaps.catalog.items import figure_at, max_k

    k = parse_k(query)
    if k == 1:
        return figure
    most = max_k(figure)
    if k > most:
        raise ItemsError(f"pass@{k} needs {k} samples of every item with 0/1 scores, and "
                         + (f"figure '{figure.id}' has {most} at the fewest"
                            if getattr(figure, "items", None) is not None and most > 1
                            else f"figure '{figure.id}' has no such items")
                         + f". Use k=1{f' to {most}' if most > 1 else ''}.")
    return figure_at(figure, k)


def compare_catalog_at(catalog: Catalog, query: Query) -> Catalog:
    """The catalog at the query's ``k`` for /api/compare (its sides' cells at pass@k); a k that
    A's or B's items do not allow is an :class:`ItemsError` (400)."""
    from evalmaps.catalog.items import catalog_at
    from evalmaps.views.state import compare_max_k

    k = parse_k(query)
    if k == 1:
        return catalog
    a, b = first(query.get("a")), first(query.get("b"))
    if not (a and b):
        a, b = comparing.default_pair(catalog)
    most = compare_max_k(catalog, a, b)
    if k > most:
        raise ItemsError(f"pass@{k} needs {k} samples of every item with 0/1 scores on both "
                         "sides" + (f", and A and B have {most} at the fewest. Use k=1 to {most}."
                                    if most > 1 else ", and A or B has no such items. Use k=1."))
    return catalog_at(catalog, k)
