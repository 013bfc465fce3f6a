"""The provenance and source panel of a figure, and the badge that flags illustrative data."""

from __future__ import annotations

import re

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


# what a figure's source says, in this order; 'seed' (the file name of the description a
# figure was transcribed from) is the project's own bookkeeping, not shown
SOURCE_ROWS = (("paper", "Paper"), ("figure", "Figure"), ("repository", "Repository"),
               ("files", "Files"), ("file", "File"), ("tool", "Tool"))
HIDDEN_SOURCE = {"seed", "arxiv"}  # arxiv: with the paper
ARXIV_ID = re.compile(r"\d{4}\.\d{4,5}(v\d+)?")


def arxiv_link(arxiv: str):
    """'arXiv 2505.14313', a link to its abstract page when it is an arXiv id."""
    if ARXIV_ID.fullmatch(arxiv):
        return html.A(f"arXiv {arxiv}", href=f"https://arxiv.org/abs/{arxiv}", target="_blank",
                      rel="noopener noreferrer")
    return f"arXiv {arxiv}"


def source_rows(source: dict) -> list[tuple[str, object]]:
    """(title, value) of each thing a figure's source says: the paper (with its arXiv id) and
    the figure first, then the repository and files of published results, the file and tool of
    an import, and anything else the catalog holds; the description's file name left out."""
    given = {k: v for k, v in (source or {}).items() if v not in (None, "")}
    rows: list[tuple[str, object]] = []
    arxiv = str(given["arxiv"]) if "arxiv" in given else ""
    if "paper" in given:
        rows.append(("Paper", [str(given["paper"]), *([" · ", arxiv_link(arxiv)] if arxiv
                                                       else [])]))
    elif arxiv:
        rows.append(("Paper", arxiv_link(arxiv)))
    rows += [(title, str(given[key])) for key, title in SOURCE_ROWS
             if key in given and key != "paper"]
    known = {key for key, _ in SOURCE_ROWS} | HIDDEN_SOURCE
    rows += [(key.replace("_", " ").capitalize(), str(value)) for key, value in given.items()
             if key not in known]
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
