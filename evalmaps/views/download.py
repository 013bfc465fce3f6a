"""The Data page's download: the rows its grid shows, as CSV, with every number from the figure.

Written a column at a time (a 380,000-row slice took 20 s of CPU when each row looked its
``sd`` and ``n`` up in a pandas index of its own; it takes about a second): the coordinates come
from the browser, the numbers only from the figure's cells, and a row that names no cell of the
figure is left out. The CSV is :func:`evalmaps.views.payloads.cells_csv`'s, byte for byte.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd

from evalmaps.core import text as fmt
from evalmaps.core.figure import Figure

EXTRAS = ("sd", "n", "se")  # the figure's columns written after the value, when it has them


def slice_csv(figure: Figure, rows) -> str:
    """The CSV of ``rows`` (the grid's, in its order: dicts naming each dimension's label) as
    :func:`~evalmaps.views.payloads.cells_csv` writes cells: the dimensions, ``value``, the
    figure's ``sd``, ``n``, ``se`` (when it has them) and ``provenance``. A row whose labels
    name no cell with a value is not written."""
    spec = figure.spec
    dims = list(spec.dim_names)
    rows = [row for row in rows or () if isinstance(row, dict)]
    shown = pd.DataFrame({d: [str(row.get(d, "")) for row in rows] for d in dims}, dtype=object)
    extras = [c for c in EXTRAS if c in figure.cells.columns]
    cells = figure.cells[[*dims, "value", *extras]].astype({d: object for d in dims})
    cells = cells.drop_duplicates(dims)  # one cell per coordinate, as Figure.value reads it
    found = shown.merge(cells, how="left", on=dims, sort=False, validate="many_to_one")
    found = found[~np.isnan(found["value"].to_numpy(dtype=float))]
    if not len(found):  # no cell: no cell's sd or n either
        return _write([[fmt.neutralise(c) for c in [*dims, "value", "provenance"]]], [])
    header = [fmt.neutralise(c) for c in [*dims, "value", *extras, "provenance"]]
    out = []
    for d in dims:  # labels repeat: each neutralised once
        labels = found[d].tolist()
        seen = {label: fmt.neutralise(label) for label in set(labels)}
        out.append([seen[label] for label in labels])
    out.append([str(v) for v in found["value"].astype(float).tolist()])
    for col in extras:
        out.append(["" if v != v else str(v) for v in found[col].astype(float).tolist()])
    out.append([spec.provenance] * len(found))
    return _write([header], zip(*out))


def _write(header: list[list[str]], rows) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerows(header)
    writer.writerows(rows)
    return buf.getvalue()
