"""The provenance and source panel of a figure, and the badge that flags illustrative data."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import html

from evalmaps.core.figure import FigureSpec
from evalmaps.views.source import arxiv_href, source_items

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
    # dark text on the light colours (white on Bootstrap's info is 1.9:1, under WCAG's 4.5:1)
    return dbc.Badge(text, color=color, className="provenance-badge ms-2",
                     text_color="dark" if color in ("warning", "info") else None, **extra)


def arxiv_link(arxiv: str):
    """'arXiv 2505.14313', a link to its abstract page when it is an arXiv id."""
    href = arxiv_href(arxiv)
    if href:
        return html.A(f"arXiv {arxiv}", href=href, target="_blank", rel="noopener noreferrer")
    return f"arXiv {arxiv}"


def source_rows(source: dict) -> list[tuple[str, object]]:
    """(title, value) of each thing a figure's source says (evalmaps.views.source), the paper
    with a link to its arXiv page."""
    rows: list[tuple[str, object]] = []
    for title, text, arxiv in source_items(source):
        if arxiv:
            rows.append((title, [text, " · ", arxiv_link(arxiv)] if text else arxiv_link(arxiv)))
        else:
            rows.append((title, text))
    return rows


def source_card(spec: FigureSpec, warnings: list[str] | tuple[str, ...] = ()) -> dbc.Card:
    """The figure's source, provenance and notes; ``warnings``: what the data itself shows to be
    wrong (standard errors that cannot be right, see evalmaps.analysis.uncertainty), listed with the notes."""
    rows = [html.Tr([html.Th(title, className="pe-3 fw-semibold"), html.Td(value)])
            for title, value in source_rows(spec.source)]
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
