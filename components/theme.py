"""The shared look of every chart, :mod:`evalmaps.figures.theme` (its template, colours, colour
scales and sizes), re-exported for the pages, and what only a Dash graph needs: the style that
holds a graph's height from the first paint."""

from __future__ import annotations

from evalmaps.figures.theme import *  # noqa: F403
from evalmaps.figures.theme import TypedArray, graph_config  # noqa: F401 - the names app.py and the pages use

# a graph's frame (.heatmap-graph, .trends-graph): 0.25rem of padding and a 1 px border a side
GRAPH_FRAME_PX = 10


def reserved_height(figure: dict | None) -> dict:
    """A dcc.Graph's style holding the figure's height (its layout height plus the frame) from
    the first paint: plotly.js draws after the page is laid out, and a graph growing from
    nothing to its figure would push everything below it down (layout shift)."""
    height = ((figure or {}).get("layout") or {}).get("height")
    return {"minHeight": f"{int(height) + GRAPH_FRAME_PX}px"} if height else {}
