"""The Rank page's figures and texts: built by :mod:`evalmaps.figures.rank` (pure, no Dash),
re-exported here for the page that draws them (a Dash page takes its figures from
``components``)."""

from evalmaps.figures.rank import *  # noqa: F403
