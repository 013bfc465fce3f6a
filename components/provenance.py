"""The provenance and source panel of a figure, and the badge that flags illustrative data."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import html

from evalmaps.core.figure import FigureSpec

BADGE = {
    "transcribed": ("Transcribed from a figure description", "secondary"),
    "published": ("Published results table", "success"),
    "illustrative": ("ILLUSTRATIVE values, not results", "warning"),
    "imported": ("Imported results", "info"),
    "uploaded": ("Uploaded to this server", "info"),
    "derived": ("Derived from other panels", "info"),
}


def provenance_badge(provenance: str, with_id: bool = False) -> dbc.Badge:
    """The badge of a provenance ('ILLUSTRATIVE values, not results' in amber, ...)."""
    text, color = BADGE.get(provenance, (provenance, "secondary"))
    extra = {"id": f"badge-{provenance}"} if with_id else {}
    return dbc.Badge(text, color=color, className="provenance-badge ms-2",
                     text_color="dark" if color == "warning" else None, **extra)


def source_card(spec: FigureSpec, warnings: list[str] | tuple[str, ...] = ()) -> dbc.Card:
    """The figure's source, provenance and notes; ``warnings``: what the data itself shows to be
    wrong (standard errors that cannot be right, see evalmaps.analysis.uncertainty), listed with the notes."""
    src = spec.source
    rows = []
    for key, title in (("paper", "Paper"), ("arxiv", "arXiv"), ("figure", "Figure"),
                       ("seed", "Description"), ("file", "File")):
        if src.get(key):
            rows.append(html.Tr([html.Th(title, className="pe-3 fw-semibold"), html.Td(src[key])]))
    rows.append(html.Tr([html.Th("Provenance", className="pe-3 fw-semibold"),
                         html.Td(spec.provenance)]))
    return dbc.Card([
        dbc.CardHeader(["Provenance and source", provenance_badge(spec.provenance)]),
        dbc.CardBody([
            html.Table(html.Tbody(rows), className="table table-sm mb-3 source-table"),
            html.H6("Notes", className="fw-semibold") if spec.notes or warnings else None,
            html.Ul([*(html.Li(w, className="text-danger-emphasis fw-semibold",
                               id=f"data-warning-{k}") for k, w in enumerate(warnings)),
                     *(html.Li(note) for note in spec.notes)], className="small mb-0"),
        ]),
    ], className="mt-3", id="provenance-card")
