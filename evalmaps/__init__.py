"""evalmaps: heatmaps of ML evaluation results, browsed, compared and ranked.

The package's public names are its Python API (docs/api.md): results files as a figure, B
against A and many models ranked as DataFrames, and the whole app in a notebook::

    import evalmaps
    old = evalmaps.read("runs/ckpt-1000/results.json")
    old.cells                                                  # one row per cell
    evalmaps.compare("runs/ckpt-1000", "runs/ckpt-2000")       # one row per cell: diff, p, ...
    evalmaps.rank("mmlu-pro")                                  # one row per cell and model
    evalmaps.show(old)                                         # the app, inline

and :class:`EvalmapsError`, which they raise with one or two sentences (what is wrong, what to
do). Everything else is internal: its layers, each importing only those below it
(``tests/tools/test_layers.py`` and the import-linter contract in ``pyproject.toml`` check this;
docs/architecture.md describes them):

1. :mod:`evalmaps.core`: the data model, errors, number text, reserved names, run-time files;
2. :mod:`evalmaps.readers`: one module per file format, in a registry;
3. :mod:`evalmaps.catalog`: loading and validation, the cache, folders and manifests
   (``from evalmaps.catalog.load import load_catalog``: the built-in figures, or a folder's);
4. :mod:`evalmaps.analysis`: slicing, trends, compare, uncertainty, export;
5. :mod:`evalmaps.views`: URL state and API payloads;
6. :mod:`evalmaps.figures`: the Plotly figure dicts, their hover text and theme;
7. :mod:`evalmaps.service`: settings, the upload store, uploads, the server and the CLI.

The names below are imported when first used, so importing one layer does not import the rest.
"""

from __future__ import annotations

import importlib

_EXPORTS = {  # the Python API (docs/api.md), and the error it raises
    "read": "evalmaps.service.api", "compare": "evalmaps.service.api",
    "rank": "evalmaps.service.api", "show": "evalmaps.service.api",
    "EvalmapsError": "evalmaps.core.errors",
}
# names the top level once gave, now internal: where each lives (an AttributeError says so)
_MOVED = {
    "Catalog": "evalmaps.core.figure", "Dim": "evalmaps.core.figure",
    "Figure": "evalmaps.core.figure", "FigureSpec": "evalmaps.core.figure",
    "Metric": "evalmaps.core.figure", "Panel": "evalmaps.core.figure",
    "DataError": "evalmaps.core.errors", "UnknownFigure": "evalmaps.core.errors",
    "UnknownPanel": "evalmaps.core.errors", "load_catalog": "evalmaps.catalog.load",
    "Settings": "evalmaps.service.settings", "Problems": "evalmaps.core.problems",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    if name in _MOVED:
        raise AttributeError(f"evalmaps.{name} is internal, not part of the Python API "
                             f"(docs/api.md): import it as 'from {_MOVED[name]} import {name}'.")
    raise AttributeError(f"module 'evalmaps' has no attribute {name!r}")
