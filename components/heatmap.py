"""The heatmap figures of the pages: built by :mod:`evalmaps.figures.heatmap` (pure, no Dash),
with their hover text from :mod:`evalmaps.figures.hover`; re-exported here for the pages that
draw them (a Dash page takes its figures from ``components``)."""

from evalmaps.figures.heatmap import *  # noqa: F403
from evalmaps.figures.hover import *  # noqa: F403
from evalmaps.figures.theme import colorscale_of, reversed_stops  # noqa: F401
