"""JSON (and CSV) payloads of the public API, as plain dicts: the web layer only serialises them.
The pages' answers are :mod:`evalmaps.views.models`' views; the functions here that answer
the same (``cells_payload``, ``trends_payload``, ``compare_payload``) are their JSON.

Shapes are a public contract (scripts and tests use them): keep the keys.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from evalmaps.analysis import export as exporting
from evalmaps.analysis import uncertainty
from evalmaps.analysis.slicing import views_for
from evalmaps.core import text as fmt
from evalmaps.core.errors import MAX_LISTED
from evalmaps.core.figure import Catalog, Figure
from evalmaps.views.models import (
    BadQuery,
    BrowseView,
    CompareView,
    TrendsView,
    filter_state,
    item_errors_of,
    parse_filters,
    query_cluster,
    view_cells,
)
from evalmaps.views.state import ViewState

# what other modules read from here (the views' JSON is evalmaps.views.models')
__all__ = ["BadQuery", "cells_csv", "cells_payload", "compare_payload", "figure_summary",
           "figure_url", "figures_payload", "grid_cells", "parse_filters", "table_payload",
           "trends_payload", "view_cells"]


def figure_url(figure_id: str, page: str = "/") -> str:
    return page + ViewState(figure_id).to_query()


def public_source(source: dict | None) -> dict | None:
    """A figure's source as the API gives it: without ``seed`` (the file name of the
    description a built-in figure was transcribed from: the project's own bookkeeping, as the
    provenance card leaves it out)."""
    if source is None:
        return None
    return {key: value for key, value in source.items() if key != "seed"}


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
        "source": public_source(spec.source),
        "notes": list(spec.notes),
    }


def figures_payload(catalog: Catalog) -> dict:
    return {"figures": [figure_summary(f) for f in catalog]}


def grid_cells(figure: Figure, filters: dict[str, set[str]] | None = None) -> list[dict]:
    """Every cell of every panel's grid in display order, ``value`` None where not reported."""
    filters = filters or {}
    views, _ = views_for(figure, filter_state(figure, filters), filters.get(figure.spec.x))
    return view_cells(views)


def cells_payload(figure: Figure, query: Mapping[str, str | list[str]]) -> dict:
    """``/api/figures/<id>/cells``: :class:`~evalmaps.views.models.BrowseView`'s JSON."""
    return BrowseView.of_figure(figure, query).to_dict()


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
    errors = item_errors_of(figure, views, query)  # a figure's items: their standard errors
    if errors:
        table = exporting.with_item_errors(table, errors[views[0].panel.key],
                                           query_cluster(query))
    return (exporting.render(table, format), exporting.filename(table, format),
            exporting.FORMATS[format][1])


def cells_csv(figure: Figure, cells: list[dict]) -> str:
    """Cells as CSV (header from the first cell's keys), with a provenance column."""
    spec = figure.spec
    columns = [*spec.dim_names, "value"] + [c for c in ("sd", "n", "se", "se_clustered",
                                                        "n_clusters", *uncertainty.VARIANCE_PARTS)
                                              if cells and c in cells[0]]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([fmt.neutralise(str(c)) for c in [*columns, "provenance"]])  # a header cell too
    for cell in cells:
        row = ["" if cell.get(c) is None else fmt.neutralise(str(cell[c])) for c in columns]
        writer.writerow([*row, spec.provenance])
    return buf.getvalue()


def trends_payload(figure: Figure, query: Mapping[str, str | list[str]]) -> dict:
    """``/api/figures/<id>/trends``: :class:`~evalmaps.views.models.TrendsView`'s JSON."""
    return TrendsView.of_figure(figure, query).to_dict()


def compare_payload(catalog: Catalog, query: Mapping[str, str | list[str]]) -> dict:
    """:class:`~evalmaps.views.models.CompareView`'s JSON, of a catalog already at the query's
    ``k`` (``/api/compare`` answers :meth:`CompareView.from_query`, which puts it there)."""
    return CompareView.of_catalog(catalog, query).to_dict()
