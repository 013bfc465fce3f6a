"""Importers: a user's results table -> a tidy figure (catalog entry + tidy cells).

Three formats, auto-detected and overridable:

- ``tidy``: one row per cell: dimension columns, ``value``, optional ``sd`` and ``n``.
- ``wide``: results tables as papers publish them: metadata columns plus one column per cell
  whose name encodes the cell, e.g. ``type_3_len_15``. Metadata columns become facets; a
  replicate column (``seed``) is averaged into ``value`` with ``sd`` and ``n``.
- ``matrix``: as pasted from a paper: first column the row labels, header the column labels.

Every problem is an :class:`ImportError_` (a DataError) whose message names the file, row or
column and says what to do. Nothing here reads the network or runs anything from the file.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalmaps.core.errors import DataError
from tests.reference.loading import (RESERVED_DIM_NAMES, _control, _control_problem, parse_spec,
                                     validate_cells)
from tests.reference.model import Figure, slugify

FORMATS = ("auto", "tidy", "wide", "matrix")
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab"}
REPLICATE_NAMES = ("seed", "seeds", "run", "replicate", "rep", "trial")
CELL_RE = re.compile(r"^([A-Za-z]+)_([^_]+)_([A-Za-z]+)_([^_]+)$")
OPTIONAL = ("sd", "n")


class ImportError_(DataError):
    """A file that cannot be imported; the message says why and what to do."""


@dataclass
class Mapping:
    """How a table becomes a figure: which dimension is x, y, which are facets, replicates."""

    format: str = "auto"
    x: str | None = None
    y: str | None = None
    replicate: str | None = None  # None: auto (a column named seed/run/...), "" : none
    metric: str = "Accuracy"
    unit: str = "%"
    metric_range: tuple[float, float] | None = (0.0, 100.0)


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

    @property
    def n_cells(self) -> int:
        return int((self.tidy["value"] != "").sum())

    def figure(self) -> Figure:
        spec = parse_spec(self.spec, where=f"import of {self.spec.get('title', 'a file')}")
        cells, decimals = validate_cells(self.tidy, spec, file=self.spec.get("title", "import"))
        return Figure(spec, cells, decimals)

    def to_csv(self, for_spreadsheets: bool = True) -> str:
        """The tidy cells as CSV. An export (the default) neutralises text that a spreadsheet
        would run as a formula; ``for_spreadsheets=False`` keeps the labels as they are, for
        the app's own use (a session's upload)."""
        from evalmaps.core.text import neutralise

        tidy = self.tidy.map(neutralise).rename(columns=neutralise) if for_spreadsheets else self.tidy
        buf = io.StringIO()
        tidy.to_csv(buf, index=False, lineterminator="\n")
        return buf.getvalue()

    def summary(self) -> dict:
        return {"format": self.format, "x": self.spec["x"], "y": self.spec["y"],
                "facets": self.facets, "replicate": self.replicate, "replicates": self.replicates,
                "dims": {k: len(v) for k, v in self.dims.items()}, "cells": self.n_cells,
                "warnings": self.warnings}


# ----------------------------------------------------------------------------- reading the file

def _mb_pair(size: int, limit: int) -> tuple[str, str]:
    """Size and limit in MB (MiB, as the limit is set), with enough decimals to tell them apart."""
    for decimals in range(1, 8):
        shown = f"{size / 2**20:.{decimals}f}", f"{limit / 2**20:.{decimals}f}"
        if shown[0] != shown[1]:
            return shown
    return shown


def decode(data: bytes, name: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """Bytes -> text, refusing what is not a CSV: too big, empty, binary, not UTF-8."""
    if len(data) > max_bytes:
        size, limit = _mb_pair(len(data), max_bytes)
        raise ImportError_(f"the file is {size} MB, over the {limit} MB limit. Split it, or "
                           f"drop unused columns.", file=name)
    if not data.strip():
        raise ImportError_("the file is empty. It needs a header row and at least one data row.",
                           file=name)
    if b"\x00" in data[:8192]:
        raise ImportError_("the file is binary, not a CSV text file. Export it as CSV "
                           "(comma-separated, UTF-8) and try again.", file=name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportError_(f"the file is not UTF-8 text (byte {exc.start} cannot be read). "
                           f"Save it as CSV with UTF-8 encoding.", file=name) from None
    if not text.strip():
        raise ImportError_("the file is empty. It needs a header row and at least one data row.",
                           file=name)
    return text


def read_table(text: str, name: str) -> tuple[pd.DataFrame, list[str]]:
    """Text -> a table of strings, checking delimiter, header and ragged rows."""
    warnings: list[str] = []
    lines = [line for line in text.splitlines() if line.strip()]
    header = lines[0]
    counts = {d: header.count(d) for d in DELIMITERS}
    delimiter = max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","
    if not any(counts.values()):
        for odd in ("|", ":", " "):
            if header.count(odd) >= 1 and len(lines) > 1 and lines[1].count(odd) >= 1:
                raise ImportError_(f"the header has one column only; the file seems to separate "
                                   f"columns with '{odd}'. Save it with commas (or semicolons or "
                                   f"tabs) between columns.", file=name)
        raise ImportError_("the header has one column only. A CSV needs at least a label column "
                           "and a value column, separated by commas.", file=name)
    if delimiter != ",":
        warnings.append(f"Read as {DELIMITERS[delimiter]}-separated.")
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    numbered: list[tuple[int, list[str]]] = []  # (row number as a spreadsheet shows it, fields)
    try:
        start = 1
        for record in reader:
            if any(cell.strip() for cell in record):
                numbered.append((start, record))
            start = reader.line_num + 1  # a quoted field may span lines: number by the first
    except csv.Error:
        raise ImportError_("a quote (\") opens a field that never closes, so the rows after it "
                           "cannot be read. Close or remove the stray quote.", file=name,
                           row=reader.line_num) from None
    rows = [r for _, r in numbered]
    head = [h.strip() for h in rows[0]]
    if len(rows) == 1:
        raise ImportError_("the file has a header but no data rows. Add one row per result.",
                           file=name)
    if any(h == "" for h in head[1:]) or len(set(head)) != len(head):
        dup = [h for h, c in Counter(head).items() if c > 1 or h == ""]
        raise ImportError_(f"the header has an empty or repeated column name "
                           f"({', '.join(repr(d) for d in dup)}). Give every column its own "
                           f"name.", file=name)
    for i, row in numbered[1:]:
        if len(row) != len(head):
            raise ImportError_(f"this row has {len(row)} fields but the header has {len(head)}. "
                               f"Fix the row (a stray {DELIMITERS[delimiter]}? a missing "
                               f"cell?) so every row has the header's columns.", file=name, row=i)
    frame = pd.DataFrame([[c.strip() for c in r] for r in rows[1:]], columns=head, dtype=str)
    return frame, warnings


# --------------------------------------------------------------------------------- detection

def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _numeric_share(values) -> float:
    values = [v for v in values if v != ""]
    return sum(_is_number(v) for v in values) / len(values) if values else 0.0


def cell_pattern(columns: list[str], name: str) -> tuple[tuple[str, str], list[str]] | None:
    """The (dim1, dim2) pattern of wide cell columns and those columns, or None.

    Columns like ``type_3_len_15``. Columns whose label parts are not numbers while the
    pattern's are (``type_x_len_samples``) are metadata. Two patterns are an error.
    """
    groups: dict[tuple[str, str], list[str]] = {}
    for col in columns:
        m = CELL_RE.match(col)
        if m:
            groups.setdefault((m.group(1), m.group(3)), []).append(col)
    if not groups:
        return None

    def labelled(cols):  # cell columns proper: their label parts are numbers
        return [c for c in cols if _is_number(CELL_RE.match(c).group(2))
                and _is_number(CELL_RE.match(c).group(4))]

    patterns = {k: labelled(v) or v for k, v in groups.items() if len(v) >= 2 or labelled(v)}
    patterns = {k: v for k, v in patterns.items() if v}
    if not patterns or max(len(v) for v in patterns.values()) < 2:
        return None
    if len(patterns) > 1:
        ordered = sorted(patterns.items(), key=lambda kv: -len(kv[1]))
        desc = " and ".join(f"{a}_<{a}>_{b}_<{b}> ({len(cols)} columns, like {cols[0]})"
                            for (a, b), cols in ordered[:3])
        raise ImportError_(f"the cell columns follow more than one pattern: {desc}. Rename the "
                           f"columns to one pattern, or split the file.", file=name)
    (key, cols), = patterns.items()
    return key, cols


def detect_format(frame: pd.DataFrame, name: str) -> str:
    columns = list(frame.columns)
    if "value" in [c.lower() for c in columns]:
        return "tidy"
    if cell_pattern(columns, name):
        return "wide"
    if len(columns) >= 2 and all(_numeric_share(frame[c]) == 1.0 or (frame[c] == "").all()
                                 for c in columns[1:]):
        return "matrix"
    raise ImportError_("the format is not recognised: there is no 'value' column (tidy), no "
                       "cell columns like type_3_len_15 (wide), and the columns after the first "
                       "are not all numbers (matrix). Choose the format, or reshape the file.",
                       file=name)


# ----------------------------------------------------------------------------- the formats

def _dim_name(raw: str) -> str:
    name = slugify(raw).replace("-", "_") or "dim"
    return f"{name}_" if name in RESERVED_DIM_NAMES else name


def _order(labels) -> list[str]:
    """Labels in a natural order: numeric ones by value, others as they first appear."""
    seen = list(dict.fromkeys(labels))
    if seen and all(_is_number(v) for v in seen):
        return sorted(seen, key=float)
    return seen


def _averaged(cells: pd.DataFrame, keys: list[str], name: str, replicate: str | None,
              warnings: list[str]) -> tuple[pd.DataFrame, int]:
    """One row per cell: replicates averaged (value = mean, sd, n); conflicts refused."""
    present = cells[cells["value"] != ""].copy()
    present["v"] = present["value"].astype(float)
    if replicate is not None:  # the same replicate of a cell twice: merge repeats, refuse clashes
        present = _unique(present, [*keys, replicate], name, warnings,
                          "Choose another replicate column, or remove the repeated rows.")
    if replicate is None:
        present = _unique(present, keys, name, warnings,
                          "Keep one row per cell, or choose the column that tells replicates "
                          "apart (a seed) to average them.")
        out = present[keys].copy()
        out["value"] = present["value"]
        for col in OPTIONAL:  # a tidy file's own sd and n are kept
            if col in present.columns:
                out[col] = present[col]
        return out.reset_index(drop=True), 1
    grouped = present.groupby(keys, sort=False)["v"]
    stats = grouped.agg(["mean", "std", "count"]).reset_index()
    out = stats[keys].copy()
    out["value"] = [repr(float(v)) for v in stats["mean"]]
    out["sd"] = ["" if not np.isfinite(s) else repr(float(s)) for s in stats["std"]]
    out["n"] = [str(int(c)) for c in stats["count"]]
    return out, int(stats["count"].max()) if len(stats) else 0


def _unique(present: pd.DataFrame, keys: list[str], name: str, warnings: list[str],
            fix: str) -> pd.DataFrame:
    """One row per key: identical repeats are merged (with a warning), different values refused."""
    dup = present.duplicated(keys, keep=False)
    if not dup.any():
        return present
    clash = present[dup].groupby(keys, sort=False)["v"].nunique()
    if (clash > 1).any():
        key = clash[clash > 1].index[0]
        key = key if isinstance(key, tuple) else (key,)
        coords = ", ".join(f"{k} {v}" for k, v in zip(keys, key))
        raise ImportError_(f"the cell ({coords}) is given more than once with different values. "
                           f"{fix}", file=name)
    repeats = int(dup.sum() - present[dup].drop_duplicates(keys).shape[0])
    warnings.append(f"{repeats} repeated value(s) identical to another row were merged.")
    return present.drop_duplicates(keys)


def _facet_columns(frame: pd.DataFrame, meta: list[str], replicate: str | None,
                   warnings: list[str]) -> list[str]:
    facets = []
    for col in meta:
        if col == replicate:
            continue
        values = [v for v in frame[col] if v not in ("", "-")]
        measures = values and all(_is_number(v) for v in values) and any(
            not float(v).is_integer() for v in values) and frame[col].nunique() > 0.5 * len(frame)
        if measures:
            warnings.append(f"Column '{col}' holds a different number in most rows (a per-run "
                            f"measure, not a facet); it is not used.")
            continue
        if "-" in set(frame[col]):
            warnings.append(f"Column '{col}' uses '-' as a placeholder; it is kept as the label '-'.")
        facets.append(col)
    return facets


def import_tidy(frame: pd.DataFrame, name: str, mapping: Mapping, warnings: list[str]):
    cols = {c.lower(): c for c in frame.columns}
    value_col = cols["value"] if "value" in cols else None
    if value_col is None:
        raise ImportError_("there is no 'value' column. A tidy file needs one column per "
                           "dimension and a 'value' column.", file=name)
    frame = frame.rename(columns={value_col: "value"})
    for opt in OPTIONAL:
        if opt in cols and cols[opt] != opt:
            frame = frame.rename(columns={cols[opt]: opt})
    replicate = _replicate(list(frame.columns), mapping, name)
    dims = [c for c in frame.columns if c not in ("value", *OPTIONAL) and c != replicate]
    if len(dims) < 2:
        raise ImportError_("a tidy file needs at least two dimension columns (one for the rows, "
                           "one for the columns of the heatmap) besides 'value'.", file=name)
    return frame, dims, replicate


def import_wide(frame: pd.DataFrame, name: str, mapping: Mapping, warnings: list[str]):
    found = cell_pattern(list(frame.columns), name)
    if not found:
        raise ImportError_("no cell columns like type_3_len_15 were found, so the file is not a "
                           "wide results table. Choose another format.", file=name)
    (d1, d2), cell_cols = found
    meta = [c for c in frame.columns if c not in cell_cols]
    replicate = _replicate(meta, mapping, name)
    facets = _facet_columns(frame, meta, replicate, warnings)
    keep = facets + ([replicate] if replicate else [])
    long = frame[keep + cell_cols].melt(id_vars=keep, value_vars=cell_cols, var_name="_cell",
                                        value_name="value")
    parts = long["_cell"].str.extract(CELL_RE)
    dim1, dim2 = _dim_name(d1), _dim_name(d2)
    long[dim1], long[dim2] = parts[1], parts[3]
    long = long.drop(columns="_cell")
    return long, [*facets, dim1, dim2], replicate


def import_matrix(frame: pd.DataFrame, name: str, mapping: Mapping, warnings: list[str]):
    first = frame.columns[0]
    for col in frame.columns[1:]:
        bad = [v for v in frame[col] if v != "" and not _is_number(v)]
        if bad:
            hint = ("This file has a 'value' column: choose the tidy format."
                    if "value" in [c.lower() for c in frame.columns] else "Choose another format.")
            raise ImportError_(f"in the matrix format every column after the first holds "
                               f"numbers, but '{col}' holds '{bad[0]}'. {hint}",
                               file=name, column=col)
    ydim = _dim_name(first) if first.strip() else "row"
    xdim = "column" if ydim != "column" else "col"
    # melt into a private name: a column label may itself be "value"
    long = frame.melt(id_vars=[first], var_name="_x", value_name="_value")
    long = long.rename(columns={first: ydim, "_x": xdim, "_value": "value"})
    if (long[ydim] == "").any():
        i = int((frame[first] == "").to_numpy().argmax())
        raise ImportError_("a row has no label in the first column. Give every row a label.",
                           file=name, row=i + 2)
    return long, [ydim, xdim], None


def _replicate(columns: list[str], mapping: Mapping, name: str) -> str | None:
    if mapping.replicate == "":
        return None
    if mapping.replicate:
        if mapping.replicate not in columns:
            raise ImportError_(f"the replicate column '{mapping.replicate}' is not in the file "
                               f"(columns: {', '.join(columns)}). Choose one of those, or none.",
                               file=name)
        return mapping.replicate
    return next((c for c in columns if c.lower() in REPLICATE_NAMES), None)


def import_table(frame: pd.DataFrame, name: str, mapping: Mapping | None = None,
                 warnings: list[str] | None = None) -> Imported:
    mapping = mapping or Mapping()
    warnings = list(warnings or [])
    # changed on purpose (issue 11): no field or column name may hold a control character
    for j, head in enumerate(frame.columns):
        if _control(head) is not None:
            raise ImportError_(_control_problem(head, "column name"), file=name, row=1)
    for i, row in enumerate(frame.itertuples(index=False, name=None)):
        for head, text in zip(frame.columns, row):
            if isinstance(text, str) and _control(text) is not None:
                raise ImportError_(_control_problem(text), file=name, row=i + 2, column=head)
    fmt = detect_format(frame, name) if mapping.format == "auto" else mapping.format
    if fmt not in FORMATS[1:]:
        raise ImportError_(f"unknown format '{fmt}'. Use one of {', '.join(FORMATS)}.", file=name)
    importer = {"tidy": import_tidy, "wide": import_wide, "matrix": import_matrix}[fmt]
    long, dims, replicate = importer(frame, name, mapping, warnings)

    # numbers: refuse what is not a finite number, naming the first offender
    values = long["value"]
    bad = (values != "") & ~values.map(_is_number)
    if bad.any():
        i = int(bad.to_numpy().argmax())
        where = {d: long[d].iloc[i] for d in dims}
        coords = ", ".join(f"{d} {v}" for d, v in where.items())
        raise ImportError_(f"'{values.iloc[i]}' is not a finite number (cell {coords}). Write a "
                           f"number, or leave the cell empty if there is no result.", file=name)

    x, y = _axes(long, dims, mapping, name)
    facets = [d for d in dims if d not in (x, y)]
    if mapping.metric_range is not None:  # every given value, before any averaging
        lo, hi = mapping.metric_range
        numbers = pd.to_numeric(long["value"].where(long["value"] != ""), errors="coerce")
        out = (numbers < lo) | (numbers > hi)
        if out.any():
            i = int(out.to_numpy().argmax())
            coords = ", ".join(f"{d} {long[d].iloc[i]}" for d in (*facets, y, x))
            raise ImportError_(f"the value {long['value'].iloc[i]} (cell {coords}) is outside "
                               f"the range of {mapping.metric} ({lo:g} to {hi:g}). Fix the number, "
                               f"or set the metric's range.", file=name)
    cells, replicates = _averaged(long, [*facets, y, x], name, replicate, warnings)
    if cells.empty:
        raise ImportError_("the file holds no values. Fill in at least one cell.", file=name)
    labels = {d: _order(cells[d]) for d in (*facets, y, x)}
    spec = {
        "id": "import-" + slugify(name.rsplit("/", 1)[-1].rsplit(".", 1)[0])[:40],
        "file": name,
        "title": name.rsplit("/", 1)[-1],
        "metric": {"name": mapping.metric, "unit": mapping.unit,
                   "range": list(mapping.metric_range) if mapping.metric_range else None},
        "x": x, "y": y, "facets": facets,
        "dims": {d: {"title": d.replace("_", " ").capitalize(), "labels": labels[d]}
                 for d in (*facets, y, x)},
        "colorscale": "Viridis",
        "zrange": list(mapping.metric_range) if mapping.metric_range else None,
        "provenance": "imported",
        "source": {"file": name.rsplit("/", 1)[-1]},
        "notes": [f"Imported from {name.rsplit('/', 1)[-1]} ({fmt} format)."]
        + ([f"Each value is the mean over the '{replicate}' replicates (sd and n kept)."]
           if replicate else []) + warnings,
    }
    if mapping.metric_range is None:
        spec.pop("zrange")
    if replicate:  # means: one more decimal than the inputs carry
        given = [t for t in long["value"] if t != ""]
        spec["decimals"] = min(4, 1 + max((len(t.split(".", 1)[1]) if "." in t and "e" not in
                                           t.lower() else 0) for t in given))
    return Imported(fmt, spec, cells, facets, replicate, replicates, labels, warnings)


def _axes(long: pd.DataFrame, dims: list[str], mapping: Mapping, name: str) -> tuple[str, str]:
    for role, chosen in (("x", mapping.x), ("y", mapping.y)):
        if chosen is not None and chosen not in dims:
            raise ImportError_(f"the {role} dimension '{chosen}' is not among the file's "
                               f"dimensions ({', '.join(dims)}).", file=name)
    if mapping.x and mapping.y:
        if mapping.x == mapping.y:
            raise ImportError_("x and y must be different dimensions.", file=name)
        return mapping.x, mapping.y
    # defaults: the last two dimensions are y then x (wide: type then len; matrix: row, column)
    rest = [d for d in dims if d not in (mapping.x, mapping.y)]
    x = mapping.x or rest.pop()
    y = mapping.y or [d for d in rest if d != x].pop()
    return x, y


def import_bytes(data: bytes, name: str, mapping: Mapping | None = None,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> Imported:
    """The whole path: bytes of a file -> an :class:`Imported` (or a clear ImportError_)."""
    text = decode(data, name, max_bytes)
    frame, warnings = read_table(text, name)
    return import_table(frame, name, mapping, warnings)


def load_folder(folder) -> list[Figure]:
    """A user's folder: its own catalog.json (like data/), or else every *.csv imported (auto)."""
    from pathlib import Path

    from tests.reference.loading import load_catalog

    folder = Path(folder)
    if not folder.is_dir():
        raise ImportError_("the data folder does not exist. Give the path of a folder of CSV "
                           "files.", file=str(folder))
    if (folder / "catalog.json").exists():
        return list(load_catalog(folder))
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise ImportError_("the data folder holds no .csv files and no catalog.json.",
                           file=str(folder))
    return [import_bytes(path.read_bytes(), path.name).figure() for path in files]
