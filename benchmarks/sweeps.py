"""Synthetic sweeps: deterministic tidy grids written as catalog folders (x/y/facet roles explicit).

Values are one-decimal numbers in [0, 100] (metric "Accuracy", unit "%"); a few cells are absent
from the file, so the figures have gaps. The same arithmetic gives the grids back as arrays
(``Sweep.grid``), so the floors are computed on exactly the values the app shows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Sweep:
    """One synthetic figure: ``panels`` panels (facet ``model``) of ``rows`` y by ``cols`` x."""

    id: str
    panels: int
    rows: int
    cols: int

    @property
    def cells(self) -> int:
        return self.panels * self.rows * self.cols

    @property
    def models(self) -> list[str]:
        return [f"model-{p}" for p in range(self.panels)]

    @property
    def y_labels(self) -> list[str]:  # a context window size, as in the papers' sweeps
        return [str(64 * (i + 1)) for i in range(self.rows)]

    @property
    def x_labels(self) -> list[str]:  # a ratio
        return [f"{j / self.cols:.4f}" for j in range(self.cols)]

    def panel_key(self, p: int) -> str:
        """The app's panel key of panel ``p`` (slug of its facet label)."""
        return f"{self.id}:model-{p}"

    def grid(self, p: int) -> np.ndarray:
        """Panel p's values (rows x cols, float64), NaN where the file has no row."""
        i = np.arange(self.rows)[:, None]
        j = np.arange(self.cols)[None, :]
        tenths = (i * 37 + j * 11 + p * 53) % 1001  # 0 .. 1000 tenths: 0.0 .. 100.0
        z = tenths / 10.0
        return np.where(self._missing(p, i, j), np.nan, z)

    def _missing(self, p: int, i, j):
        """About one cell in 500 is not reported (absent from the file)."""
        return ((i * 131 + j * 17 + p * 7) % 499) == 0

    def catalog_entry(self, file: str) -> dict:
        return {
            "id": self.id, "file": file,
            "title": f"Synthetic sweep: {self.panels} x {self.rows} x {self.cols}",
            "metric": {"name": "Accuracy", "unit": "%", "range": [0, 100]},
            "x": "ratio", "y": "window", "facets": ["model"],
            "dims": {"model": {"title": "Model", "labels": self.models},
                     "window": {"title": "Window", "labels": self.y_labels},
                     "ratio": {"title": "Ratio", "labels": self.x_labels}},
            "colorscale": "Viridis", "zrange": [0, 100], "provenance": "illustrative",
            "notes": ["Synthetic values made by benchmarks/sweeps.py for benchmarking."],
        }

    def csv_text(self) -> str:
        """The tidy CSV: model,window,ratio,value; one row per reported cell, one decimal."""
        ys = np.array(self.y_labels, dtype=object)
        xs = np.array(self.x_labels, dtype=object)
        parts = ["model,window,ratio,value\n"]
        for p, model in enumerate(self.models):
            z = self.grid(p)
            i, j = np.nonzero(np.isfinite(z))
            tenths = np.rint(z[i, j] * 10).astype(np.int64)
            values = [f"{t // 10}.{t % 10}" for t in tenths.tolist()]
            parts.append("".join(f"{model},{y},{x},{v}\n"
                                 for y, x, v in zip(ys[i], xs[j], values)))
        return "".join(parts)

    def write_catalog_folder(self, folder: Path) -> Path:
        """``folder/catalog.json`` + ``folder/<id>.csv``; returns the CSV's path."""
        folder.mkdir(parents=True, exist_ok=True)
        csv_path = folder / f"{self.id}.csv"
        csv_path.write_text(self.csv_text(), encoding="utf-8")
        (folder / "catalog.json").write_text(
            json.dumps({"figures": [self.catalog_entry(csv_path.name)]}, indent=1),
            encoding="utf-8")
        return csv_path

    def write_plain_folder(self, folder: Path, csv_path: Path) -> Path:
        """A folder with only the tidy CSV (no catalog.json): the importer's auto path."""
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / csv_path.name
        if not target.exists():
            try:
                target.hardlink_to(csv_path)
            except OSError:
                target.write_bytes(csv_path.read_bytes())
        return target


def sweeps(quick: bool) -> tuple[Sweep, Sweep]:
    """(8 panels of 200 y x 100 x = 160k cells, one 1000 x 1000 panel = 1e6 cells);
    ``quick``: the same shapes, much smaller, to check the script itself."""
    if quick:
        return Sweep("bench-8-panels", 8, 20, 10), Sweep("bench-1-panel", 1, 100, 100)
    return Sweep("bench-8-panels", 8, 200, 100), Sweep("bench-1-panel", 1, 1000, 1000)
