"""JSON (and CSV) payloads of the public API, as plain dicts: the web layer only serialises them.

Shapes are a public contract (scripts and tests use them): keep the keys.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping

import numpy as np

from evalmaps.analysis import compare as comparing
from evalmaps.analysis import export as exporting
from evalmaps.analysis import trends as trending
from evalmaps.analysis import uncertainty as stderr
from evalmaps.analysis.slicing import PanelView, views_for
from evalmaps.catalog.items import figure_at, max_k
from evalmaps.core import text as fmt
from evalmaps.core.errors import MAX_LISTED, MAX_QUOTED, EvalmapsError
from evalmaps.core.figure import Catalog, Figure
from evalmaps.views.state import (
    GRID_KEYS,
    CompareState,
    ViewState,
    as_list,
    grid_query,
    grid_state,
    parse_options,
)


class BadQuery(EvalmapsError, ValueError):
    """A query parameter that names something the figure does not have (HTTP 400)."""


def figure_url(figure_id: str, page: str = "/") -> str:
    return page + ViewState(figure_id).to_query()


def _number(value: float | None) -> float | None:
    if value is None or value != value or not math.isfinite(value):
        return None
    return float(value)


def figure_summary(figure: Figure) -> dict:
    spec = figure.spec
    roles = {spec.x: "x", spec.y: "y", **{f: "facet" for f in spec.facets}}
    return {
        "id": spec.id,
        "title": spec.title,
        "metric": {"name": spec.metric.name, "unit": spec.metric.unit,
                   "range": list(spec.metric.range) if spec.metric.range else None},
        "provenance": spec.provenance,
        "url": figure_url(spec.id),
        "dims": [{"name": d.name, "title": d.title, "role": roles[d.name], "labels": list(d.labels)}
                 for d in spec.dims.values()],
        "panels": [{"key": p.key, "title": p.title, "facets": p.facets, "n_cells": p.n_cells}
                   for p in figure.panels.values()],
        "n_cells": figure.n_cells,
        "source": spec.source,
        "notes": list(spec.notes),
    }


def figures_payload(catalog: Catalog) -> dict:
    return {"figures": [figure_summary(f) for f in catalog]}


def parse_filters(figure: Figure, query: Mapping[str, str | list[str]]) -> dict[str, set[str]]:
    """``?<dim>=<label>`` filters (repeatable). Unknown labels are a :class:`BadQuery`."""
    spec = figure.spec
    filters = {}
    for dim in spec.dim_names:
        wanted = as_list(query.get(dim))
        if not wanted:
            continue
        unknown = [w for w in wanted if w not in spec.dims[dim].index()]
        if unknown:
            raise BadQuery(f"'{fmt.clip(unknown[0], MAX_QUOTED)}' is not a label of '{dim}' in "
                           f"figure '{spec.id}'. "
                           f"Use one of: {fmt.listing(spec.dims[dim].labels, MAX_LISTED)}.")
        filters[dim] = set(wanted)
    return filters


def view_cells(views: list[PanelView], present_only: bool = False) -> list[dict]:
    """The cells of panel views in display order (panels, rows top to bottom, columns left to
    right): ``{<dim>: label, ..., "value": number or None}``, plus ``sd``, ``n`` and ``se`` when
    the figure has them. ``present_only``: only the cells the source reports."""
    out = []
    if not views:
        return out
    spec = views[0].spec
    has_sd = any(v.panel.sd is not None for v in views)
    has_n = any(v.panel.n is not None for v in views)
    has_se = any(v.panel.se is not None for v in views)
    for view in views:
        keep = np.isfinite(view.z) if present_only else np.ones(view.z.shape, dtype=bool)
        rows, cols = np.nonzero(keep)
        values = view.z[rows, cols].tolist()
        sds = view.sd[rows, cols].tolist() if view.sd is not None else [None] * len(values)
        ns = view.n[rows, cols].tolist() if view.n is not None else [None] * len(values)
        ses = view.se[rows, cols].tolist() if view.se is not None else [None] * len(values)
        for i, j, value, sd, n, se in zip(rows.tolist(), cols.tolist(), values, sds, ns, ses):
            cell = {**view.panel.facets, spec.y: view.y_labels[i], spec.x: view.x_labels[j],
                    "value": _number(value)}
            if has_sd:
                cell["sd"] = _number(sd)
            if has_n:
                cell["n"] = _number(n)
            if has_se:
                cell["se"] = _number(se)
            out.append(cell)
    return out


def grid_cells(figure: Figure, filters: dict[str, set[str]] | None = None) -> list[dict]:
    """Every cell of every panel's grid in display order, ``value`` None where not reported."""
    filters = filters or {}
    views, _ = views_for(figure, filter_state(figure, filters), filters.get(figure.spec.x))
    return view_cells(views)


def cells_payload(figure: Figure, query: Mapping[str, str | list[str]]) -> dict:
    cells = grid_cells(figure, parse_filters(figure, query))
    return {"figure": figure.id, "provenance": figure.spec.provenance,
            "metric": figure.spec.metric.name, "cells": cells}


def table_payload(figure: Figure, query: Mapping[str, str | list[str]],
                  format: str) -> tuple[str, str, str]:
    """``/api/figures/<id>/cells?format=latex|markdown``: one panel as a table for a paper
    (:mod:`evalmaps.analysis.export`), as (text, file name, media type). The filters must leave one
    panel: otherwise a :class:`BadQuery` names the facets to narrow."""
    filters = parse_filters(figure, query)
    views, empty = views_for(figure, filter_state(figure, filters), filters.get(figure.spec.x))
    if len(views) > 1:
        spec = figure.spec
        varying = [f for f in spec.facets if len({v.panel.facets[f] for v in views}) > 1]
        picks = "&".join(f"{f}=<label>" for f in varying)
        labels = "; ".join(f"{f}: " + fmt.listing(dict.fromkeys(v.panel.facets[f] for v in views),
                                                  MAX_LISTED) for f in varying)
        raise BadQuery(f"The filters leave {len(views)} panels of figure '{spec.id}', and a table "
                       f"holds one. Pick one with {picks} ({labels}).")
    if empty:
        raise BadQuery(f"{empty} (In the API: the filters ?<dim>=<label> pick what is shown.)")
    table = exporting.table_of_view(views[0])
    return (exporting.render(table, format), exporting.filename(table, format),
            exporting.FORMATS[format][1])


def filter_state(figure: Figure, filters: dict[str, set[str]]) -> ViewState:
    """The view state of ``?<dim>=<label>`` filters: facets pick panels, y rows (x columns are
    passed to :func:`views_for` as ``columns``)."""
    spec = figure.spec
    facets = {f: tuple(lab for lab in spec.dims[f].labels if lab in filters[f])
              for f in spec.facets if f in filters}
    rows = tuple(filters[spec.y]) if spec.y in filters else None
    return ViewState(figure.id, facets, rows)


def trends_payload(figure: Figure, query: Mapping[str, str | list[str]]) -> dict:
    """Per-line statistics, per-panel best/worst and marginal means, and the observation
    sentences (see evalmaps.analysis.trends). Filters as for cells; ``transpose=1``, ``threshold=<n>``."""
    options = parse_options(query)
    if options.problems:  # the page ignores them with a note; a script gets a 400
        raise BadQuery(f"{options.problems[0].split(';')[0]}. "
                       f"Use transpose=1 or 0 and a number for threshold.")
    k = 1 if "k" in figure.spec.dims else _k(query)  # a dimension k takes k= as its label
    if k != 1:
        top = max_k(figure)
        if not 1 <= k <= top:
            raise BadQuery(f"k={k}: pass@k needs k from 1 to {top} for this figure (the fewest "
                           "samples of an item with 0/1 scores). Use a smaller k.")
        figure = figure_at(figure, k)
    filters = parse_filters(figure, query)
    views, empty = views_for(figure, filter_state(figure, filters), filters.get(figure.spec.x))
    payload = {"figure": figure.id, "provenance": figure.spec.provenance,
               "metric": {"name": figure.spec.metric.name, "unit": figure.spec.metric.unit},
               "k": k}
    report = None if empty else trending.analyse(views, transpose=options.transpose,
                                                 threshold=options.threshold)
    if report is None:
        return {**payload, "transpose": options.transpose, "threshold": options.threshold,
                "lines": [], "panels": [], "observations": []}
    out = {**payload, **report.to_dict()}
    points = _line_points(figure, views, options.transpose, k)
    for line in out["lines"]:
        line["points"] = points.get((line["panel"], line["line"]), [])
    return out


def _line_points(figure: Figure, views, transpose: bool, k: int) -> dict:
    """Each line's points with the 95% interval of the value drawn (``lo``, ``hi``: from the
    items at pass@``k`` where the figure keeps them, else from the standard error; None where
    there is neither), keyed by (panel key, line label), as Trends' bands draw them."""
    out = {}
    items = getattr(figure, "items", None)
    for view in views:
        lo, hi = stderr.view_intervals(view, items, k)
        for line in trending.lines_of(view, transpose):
            out[(view.panel.key, line.label)] = [
                {"at": at, "value": _finite(value), "lo": _finite(lo[i, j]), "hi": _finite(hi[i, j])}
                for at, value, (i, j) in zip(line.labels, line.values, line.cells)]
    return out


def _finite(value) -> float | None:
    return float(value) if value is not None and np.isfinite(value) else None


def cells_csv(figure: Figure, cells: list[dict]) -> str:
    """Cells as CSV (header from the first cell's keys), with a provenance column."""
    spec = figure.spec
    columns = [*spec.dim_names, "value"] + [c for c in ("sd", "n", "se")
                                              if cells and c in cells[0]]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([fmt.neutralise(str(c)) for c in [*columns, "provenance"]])  # a header cell too
    for cell in cells:
        row = ["" if cell.get(c) is None else fmt.neutralise(str(cell[c])) for c in columns]
        writer.writerow([*row, spec.provenance])
    return buf.getvalue()


def _side(side: comparing.ComparePanel) -> dict:
    return {"ref": side.ref, "label": side.label, "provenance": side.provenance,
            "derived": side.derived, "panels": list(side.sources),
            "metric": {"name": side.metric.name, "unit": side.metric.unit},
            "n_cells": side.n_cells}


def _grid(al: comparing.Alignment) -> dict:
    """How two labels of a dimension were laid out: the dimension, the grid's rows and columns,
    the other dimensions fixed (at a label) or averaged over."""
    grid = al.a.grid
    return {"dim": grid.dim, "y": grid.y, "x": grid.x, "fixed": dict(grid.fixed),
            "averaged": list(grid.averaged), "averaged_of": al.a.of_averaged or None}


def _k(query: Mapping[str, str | list[str]]) -> int:
    """The ``k`` of pass@k a query names (default 1); anything but a whole number of at least
    1 is a :class:`CompareError`."""
    given = as_list(query.get("k")) or []
    if not given:
        return 1
    text = given[0].strip()
    if len(given) > 1 or not (text.isascii() and text.isdigit() and len(text) <= 6) \
            or int(text) < 1:
        raise comparing.CompareError(f"k must be one whole number of at least 1 (pass@k), not "
                                     f"'{fmt.clip(', '.join(given))}'.")
    return int(text)


def compare_payload(catalog: Catalog, query: Mapping[str, str | list[str]]) -> dict:
    """``/api/compare?a=<ref>&b=<ref>``: the common cells of two panels with ``a``, ``b`` and
    ``delta`` (= b - a), and the summary numbers. No a and b: the default pair.

    A reference is a panel key (``<figure>:<panel>``) or ``mean(<key>,<key>,...)``, or a label
    of a dimension (``<figure>:<dim>=<label>``), laid out by ``ydim``, ``xdim``, ``<dim>=<label>``
    and ``avg=<dim>`` (then the answer adds ``grid``); see :mod:`evalmaps.analysis.compare`.
    Unknown, malformed or disjoint panels are a ``CompareError`` (400).
    """
    a_refs, b_refs = as_list(query.get("a")) or [], as_list(query.get("b")) or []
    if bool(a_refs) != bool(b_refs):
        raise comparing.CompareError("Give both a and b (panel keys as /api/figures lists them), "
                                     "or neither for the default pair.")
    if len(a_refs) > 1 or len(b_refs) > 1:
        raise comparing.CompareError("Give one panel as a and one as b.")
    a_ref, b_ref = (a_refs[0], b_refs[0]) if a_refs else comparing.default_pair(catalog)
    labelled = next((ref for ref in (a_ref, b_ref) if comparing.is_label_ref(ref)), None)
    grid = {}
    if labelled is not None:
        figure = comparing.parse_label_ref(catalog, labelled, "A" if labelled == a_ref else "B")[0]
        grid = grid_query(query, figure.spec)
    elif any(key in query for key in GRID_KEYS):
        raise comparing.CompareError("ydim, xdim and avg lay out two labels of a dimension: give "
                                     "a and b as <figure>:<dimension>=<label>.")
    # a figure's own dimension k (pass@k importers make one) takes k= as its label
    k = 1 if labelled is not None and "k" in figure.spec.dims else _k(query)
    al = comparing.compare(catalog, a_ref, b_ref, k=k, **grid)
    numbers = comparing.summary(al)
    state = CompareState(al.a.ref, al.b.ref)
    if al.a.grid is not None:
        state = grid_state(state, al.a.grid, catalog.figure(al.a.figure_ids[0]).spec)
    view = state.to_query(comparing.default_pair(catalog))
    payload = {
        "a": _side(al.a),
        "b": _side(al.b),
        "url": "/compare" + view,
        "dims": {axis: {"name": dim.name, "title": dim.title, "labels": list(dim.labels)}
                 for axis, dim in (("y", al.y), ("x", al.x))},
        "n_common": al.n_common,
        "summary": numbers,
        "sentences": comparing.sentences(al, numbers),
        "warnings": list(al.warnings),
        "cells": al.cells(),
    }
    if al.a.grid is not None:
        payload["grid"] = _grid(al)
    return payload
