"""What a figure's source says, as the provenance card lists it: one home for the live app's card
(components/provenance.py) and the static bundle's (evalmaps.service.bundle)."""

from __future__ import annotations

import re

# what a figure's source says, in this order; 'seed' (the file name of the description a
# figure was transcribed from) is the project's own bookkeeping, not shown
SOURCE_ROWS = (("paper", "Paper"), ("figure", "Figure"), ("repository", "Repository"),
               ("files", "Files"), ("file", "File"), ("tool", "Tool"))
HIDDEN_SOURCE = {"seed", "arxiv"}  # arxiv: with the paper
ARXIV_ID = re.compile(r"\d{4}\.\d{4,5}(v\d+)?")


def arxiv_href(arxiv: str) -> str | None:
    """The abstract page of an arXiv id (None: not one)."""
    return f"https://arxiv.org/abs/{arxiv}" if ARXIV_ID.fullmatch(arxiv) else None


def source_items(source: dict | None) -> list[tuple[str, str, str | None]]:
    """(title, text, arXiv id or None) of each thing a figure's source says: the paper (with its
    arXiv id) and the figure first, then the repository and files of published results, the file
    and tool of an import, and anything else the catalog holds; the description's file name left
    out."""
    given = {k: v for k, v in (source or {}).items() if v not in (None, "")}
    rows: list[tuple[str, str, str | None]] = []
    arxiv = str(given["arxiv"]) if "arxiv" in given else ""
    if "paper" in given or arxiv:
        rows.append(("Paper", str(given.get("paper", "")), arxiv or None))
    rows += [(title, str(given[key]), None) for key, title in SOURCE_ROWS
             if key in given and key != "paper"]
    known = {key for key, _ in SOURCE_ROWS} | HIDDEN_SOURCE
    rows += [(key.replace("_", " ").capitalize(), str(value), None) for key, value in given.items()
             if key not in known]
    return rows
