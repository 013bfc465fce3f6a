"""evalmaps domain package: the figure catalog, loading and validation, slicing and analyses.

Pure Python + pandas/numpy. No Dash import: usable from a notebook or a script::

    from evalmaps import load_catalog
    catalog = load_catalog()
    fig = catalog.figure("dynts-llama-vs-qwen")
    fig.value(model="R1-Qwen", window="2000", ratio="0.4")   # 56.3
"""

from evalmaps.errors import DataError, EvalmapsError, UnknownFigure, UnknownPanel
from evalmaps.loading import load_catalog
from evalmaps.model import Catalog, Dim, Figure, FigureSpec, Metric, Panel
from evalmaps.settings import Settings

__all__ = [
    "Catalog",
    "DataError",
    "Settings",
    "Dim",
    "EvalmapsError",
    "Figure",
    "FigureSpec",
    "Metric",
    "Panel",
    "UnknownFigure",
    "UnknownPanel",
    "load_catalog",
]
