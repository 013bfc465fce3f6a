"""The catalog's product of an import: :class:`Imported`, a catalog entry and its tidy cells.

Made by :mod:`evalmaps.catalog.imports` (through :mod:`evalmaps.catalog.shaping`), made a
validated :class:`~evalmaps.core.figure.Figure` by :func:`evalmaps.catalog.imports.figure_of`,
written by ``evalmaps import`` and kept by the upload store. Every field is public: what
validation may reuse (``encodings``, ``value_numbers``) is part of the record, not a private
detail read from outside.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalmaps.catalog import columnar


@dataclass
class Imported:
    """The result of an import: a catalog entry and tidy cells (strings), plus what was seen."""

    format: str
    spec: dict
    tidy: pd.DataFrame
    facets: list[str]
    replicate: str | None
    replicates: int  # most replicates behind one cell (1 = none averaged)
    dims: dict[str, list[str]]
    warnings: list[str] = field(default_factory=list)
    # the tidy dims' distinct labels and each row's position among them, when the import has
    # them already (validation then does not hash the labels again); None: not known
    encodings: dict | None = field(default=None, repr=False, compare=False)
    columns: list[str] = field(default_factory=list)  # the file's header, as read
    # with the encodings, when pyarrow read every value: the values as validation reads them
    # (pandas' choice of what is a number), which it then does not parse again
    value_numbers: np.ndarray | None = field(default=None, repr=False, compare=False)
    # the per-item records behind the cells, when it has them (evalmaps.readers.items): the
    # dims' columns, item, sample, score and any of prompt/target/response
    items: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    @property
    def n_cells(self) -> int:
        return int((self.tidy["value"] != "").sum())

    def to_csv(self, for_spreadsheets: bool = True) -> str:
        """The tidy cells as CSV. An export (the default) neutralises text that a spreadsheet
        would run as a formula; ``for_spreadsheets=False`` keeps the labels as they are, for
        the app's own use (a session's upload)."""
        return self.to_csv_bytes(for_spreadsheets).decode("utf-8")

    def to_csv_bytes(self, for_spreadsheets: bool = True) -> bytes:
        """:meth:`to_csv` as UTF-8 bytes, without building the text in between."""
        return b"".join(self._csv_parts(for_spreadsheets))

    def write_csv(self, path, for_spreadsheets: bool = True) -> None:
        """Write :meth:`to_csv` to ``path`` (UTF-8), without building it whole in memory."""
        with open(path, "wb") as out:
            for part in self._csv_parts(for_spreadsheets):
                out.write(part)

    def _csv_parts(self, for_spreadsheets: bool) -> list:
        from evalmaps.core.text import NEUTRALISED_PREFIXES, neutralise

        with columnar.lean_memory():
            if not for_spreadsheets:
                return columnar.write_csv_parts(self.tidy)
            return columnar.write_csv_parts(self.tidy, neutralise, NEUTRALISED_PREFIXES)

    def summary(self) -> dict:
        return {"format": self.format, "x": self.spec["x"], "y": self.spec["y"],
                "facets": self.facets, "replicate": self.replicate, "replicates": self.replicates,
                "dims": {k: len(v) for k, v in self.dims.items()}, "cells": self.n_cells,
                "warnings": self.warnings}
