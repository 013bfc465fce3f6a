"""evalmaps domain package: the figure catalog, loading and validation, slicing and analyses.

Pure Python + pandas/numpy. No Dash import: usable from a notebook or a script::

    from evalmaps import load_catalog
    catalog = load_catalog()
    fig = catalog.figure("dynts-llama-vs-qwen")
    fig.value(model="R1-Qwen", window="2000", ratio="0.4")   # 56.3

and, from results files, the figure and a comparison as DataFrames (docs/cli.md)::

    import evalmaps
    old = evalmaps.read("runs/ckpt-1000/results.json")
    old.cells                                                  # one row per cell
    evalmaps.compare("runs/ckpt-1000", "runs/ckpt-2000")       # one row per cell: diff, p, ...

Layers, each importing only those below it (``tests/tools/test_layers.py`` and the import-linter
contract in ``pyproject.toml`` check this; docs/architecture.md describes them):

1. :mod:`evalmaps.core`: the data model, errors, number text, reserved names, run-time files;
2. :mod:`evalmaps.readers`: one module per file format, in a registry;
3. :mod:`evalmaps.catalog`: loading and validation, the cache, folders and manifests;
4. :mod:`evalmaps.analysis`: slicing, trends, compare, uncertainty, export;
5. :mod:`evalmaps.views`: URL state and API payloads;
6. :mod:`evalmaps.service`: settings, the upload store, uploads, the server and the CLI.

The names below are imported when first used, so importing one layer does not import the rest.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Catalog": "evalmaps.core.figure", "Dim": "evalmaps.core.figure",
    "Figure": "evalmaps.core.figure", "FigureSpec": "evalmaps.core.figure",
    "Metric": "evalmaps.core.figure", "Panel": "evalmaps.core.figure",
    "DataError": "evalmaps.core.errors", "EvalmapsError": "evalmaps.core.errors",
    "UnknownFigure": "evalmaps.core.errors", "UnknownPanel": "evalmaps.core.errors",
    "load_catalog": "evalmaps.catalog.load", "Settings": "evalmaps.service.settings",
    # what a load met and went on without (load_catalog's problems=Problems(); strict raises)
    "Problems": "evalmaps.core.problems",
    # the Python API (docs/cli.md): results files as a figure, and B against A as a DataFrame
    "read": "evalmaps.service.api", "compare": "evalmaps.service.api",
    "rank": "evalmaps.service.api", "show": "evalmaps.service.api",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'evalmaps' has no attribute {name!r}")
