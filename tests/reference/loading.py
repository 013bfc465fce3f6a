"""Load and validate the catalog and its tidy cell files, once, into a :class:`Catalog`.

A file that fails validation raises :class:`DataError` naming the file, the row or column, and
the problem. Nothing is filled in: a cell absent from the file (or with an empty value) is missing.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pandas as pd

from evalmaps.core.errors import DataError
from tests.reference.model import PROVENANCES, Catalog, Dim, Figure, FigureSpec, Metric

DEFAULT_DATA_DIR = Path(os.environ.get("EVALMAPS_DATA", Path(__file__).resolve().parent.parent / "data"))
# query parameters of the pages and the API: a dimension cannot share a name with one
RESERVED_DIM_NAMES = {"figure", "value", "sd", "n", "rows", "xmin", "xmax", "color", "labels",
                      "format", "a", "b", "view", "panels", "transpose", "overlay", "threshold"}
OPTIONAL_COLUMNS = ("sd", "n")
MAX_DECIMALS = 4


def _control(text: str) -> str | None:
    """The first control character of ``text`` (C0, DEL, C1), row by row."""
    return next((c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F), None)


def _control_problem(text: str, what: str = "label") -> str:
    clipped = text if len(text) <= 100 else text[:100] + "\u2026"
    shown = "".join(f"\\x{ord(c):02x}" if _control(c) else c for c in clipped)
    return (f"the {what} '{shown}' holds the control character U+{ord(_control(text)):04X}. "
            f"Labels may not hold control characters (NUL, tab, line break, ...); remove it.")


def load_catalog(data_dir: str | Path | None = None) -> Catalog:
    """Read ``catalog.json`` in ``data_dir`` and every figure file it names; validate all."""
    data_dir = Path(data_dir) if data_dir is not None else DEFAULT_DATA_DIR
    catalog_path = data_dir / "catalog.json"
    try:
        raw = json.loads(catalog_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError("the catalog file is missing. Put a catalog.json next to the figure files.",
                        file=str(catalog_path)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"the catalog is not valid JSON ({exc}). Fix the syntax at that spot.",
                        file=str(catalog_path)) from None
    entries = raw.get("figures") if isinstance(raw, dict) else None
    if not isinstance(entries, list) or not entries:
        raise DataError("the catalog needs a non-empty list under \"figures\".", file=str(catalog_path))
    figures = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        spec = parse_spec(entry, where=f"{catalog_path}, figure #{i + 1}")
        if spec.id in seen:
            raise DataError(f"the figure id '{spec.id}' is used twice. Give each figure its own id.",
                            file=str(catalog_path))
        seen.add(spec.id)
        path = data_dir / spec.file
        figures.append(load_figure(spec, path))
    return Catalog(figures)


def _need(entry: dict, key: str, kind: type | tuple, where: str) -> Any:
    if key not in entry:
        raise DataError(f"the key \"{key}\" is missing. Add it to the figure's entry.", file=where)
    value = entry[key]
    if not isinstance(value, kind):
        raise DataError(f"\"{key}\" has the wrong type ({type(value).__name__}). "
                        f"See data/README.md for the catalog format.", file=where)
    return value


def parse_spec(entry: Any, where: str) -> FigureSpec:
    """Validate one catalog entry (a dict) into a :class:`FigureSpec`."""
    if not isinstance(entry, dict):
        raise DataError("each figure entry must be a JSON object.", file=where)
    fid = _need(entry, "id", str, where)
    where = f"{where.rsplit(', figure #', 1)[0]}, figure '{fid}'"
    if not fid or not all(c.isalnum() or c in "-_." for c in fid):
        raise DataError(f"the id '{fid}' may only hold letters, digits, '-', '_' and '.'.", file=where)
    metric_raw = _need(entry, "metric", dict, where)
    metric_range = metric_raw.get("range")
    if metric_range is not None and (len(metric_range) != 2 or metric_range[0] >= metric_range[1]):
        raise DataError("metric.range must be [low, high] with low < high.", file=where)
    metric = Metric(str(metric_raw.get("name", "value")), str(metric_raw.get("unit", "")),
                    tuple(metric_range) if metric_range is not None else None)
    dims_raw = _need(entry, "dims", dict, where)
    dims = {}
    for name, d in dims_raw.items():
        if name in RESERVED_DIM_NAMES:
            raise DataError(f"'{name}' is a reserved word and cannot name a dimension. Rename it.",
                            file=where)
        labels = d.get("labels") if isinstance(d, dict) else None
        if not isinstance(labels, list) or not labels:
            raise DataError(f"dimension '{name}' needs a non-empty list of labels.", file=where)
        labels = tuple(str(label) for label in labels)
        if len(set(labels)) != len(labels):
            raise DataError(f"dimension '{name}' lists a label twice.", file=where)
        dims[name] = Dim(name, str(d.get("title", name)), labels)
    x = _need(entry, "x", str, where)
    y = _need(entry, "y", str, where)
    facets = tuple(_need(entry, "facets", list, where)) if "facets" in entry else ()
    for role, name in [("x", x), ("y", y), *[("facet", f) for f in facets]]:
        if name not in dims:
            raise DataError(f"the {role} dimension '{name}' is not among the dims "
                            f"({', '.join(dims)}).", file=where)
    used = [x, y, *facets]
    if len(set(used)) != len(used):
        raise DataError("x, y and the facets must be different dimensions.", file=where)
    if set(dims) != set(used):
        extra = sorted(set(dims) - set(used))
        raise DataError(f"dimension(s) {', '.join(extra)} are neither x, y nor a facet.", file=where)
    provenance = str(entry.get("provenance", ""))
    if provenance not in PROVENANCES:
        raise DataError(f"provenance '{provenance}' is not one of {', '.join(PROVENANCES)}.", file=where)
    zrange = entry.get("zrange")
    if zrange is not None and (len(zrange) != 2 or zrange[0] >= zrange[1]):
        raise DataError("zrange must be [low, high] with low < high.", file=where)
    colorscale = entry.get("colorscale", "Viridis")
    if isinstance(colorscale, list):
        colorscale = tuple((float(stop), str(color)) for stop, color in colorscale)
    return FigureSpec(
        id=fid, title=str(entry.get("title", fid)), metric=metric, x=x, y=y, facets=facets,
        dims={name: dims[name] for name in (*facets, y, x)}, colorscale=colorscale,
        zrange=tuple(zrange) if zrange is not None else None, provenance=provenance,
        source={str(k): str(v) for k, v in dict(entry.get("source", {})).items()},
        notes=tuple(str(n) for n in entry.get("notes", [])), file=_need(entry, "file", str, where),
        decimals=_decimals_entry(entry, where),
    )


def _decimals_entry(entry: dict, where: str) -> int | None:
    value = entry.get("decimals")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_DECIMALS:
        raise DataError(f"\"decimals\" must be a whole number from 0 to {MAX_DECIMALS}.", file=where)
    return value


def load_figure(spec: FigureSpec, path: Path) -> Figure:
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    except FileNotFoundError:
        raise DataError("the figure file is missing. Check the \"file\" entry in the catalog.",
                        file=str(path)) from None
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DataError(f"the file cannot be read as UTF-8 CSV ({exc}).", file=str(path)) from None
    cells, decimals = validate_cells(frame, spec, file=str(path))
    return Figure(spec, cells, decimals)


def _decimals(text: str) -> int:
    text = text.strip().lower()
    if "e" in text:
        return MAX_DECIMALS
    return len(text.split(".", 1)[1]) if "." in text else 0


def validate_cells(frame: pd.DataFrame, spec: FigureSpec, file: str) -> tuple[pd.DataFrame, int]:
    """Check a tidy table of strings against ``spec``; return the present cells and the decimals.

    Row numbers in messages count the header as row 1, as a spreadsheet shows them.
    """
    columns = [str(c).strip() for c in frame.columns]
    frame = frame.copy()
    frame.columns = columns
    for col in spec.dim_names:
        if col not in columns:
            raise DataError(f"the column '{col}' is missing. The file needs one column per "
                            f"dimension ({', '.join(spec.dim_names)}) and a 'value' column.",
                            file=file, column=col)
    if "value" not in columns:
        raise DataError("there is no 'value' column. Add one with the cell values.", file=file)
    allowed = {*spec.dim_names, "value", *OPTIONAL_COLUMNS}
    for col in columns:
        if col not in allowed:
            raise DataError(f"the column '{col}' is not a dimension of figure '{spec.id}'. "
                            f"Remove it or add the dimension to the catalog.", file=file, column=col)
    if len(set(columns)) != len(columns):
        raise DataError("a column name appears twice. Give each column its own name.", file=file)

    frame = frame.apply(lambda s: s.str.strip())
    for col in spec.dim_names:
        # changed on purpose (issue 11): a label holding a control character is refused first
        controls = frame[col].map(lambda v: isinstance(v, str) and _control(v) is not None)
        if controls.any():
            i = int(controls.to_numpy().argmax())
            raise DataError(_control_problem(frame[col].iloc[i]), file=file, row=i + 2, column=col)
        known = set(spec.dims[col].labels)
        bad = ~frame[col].isin(known)
        if bad.any():
            i = int(bad.to_numpy().argmax())
            label = frame[col].iloc[i]
            raise DataError(f"'{label}' is not a label of dimension '{col}' "
                            f"(known: {', '.join(spec.dims[col].labels)}). "
                            f"Fix the cell or add the label to the catalog.", file=file, row=i + 2)

    present = frame["value"] != ""
    numbers = {}
    for col in ("value", *[c for c in OPTIONAL_COLUMNS if c in columns]):
        parsed = pd.to_numeric(frame[col].where(frame[col] != ""), errors="coerce")
        bad = (frame[col] != "") & ~parsed.map(lambda v: v is not None and math.isfinite(v))
        if bad.any():
            i = int(bad.to_numpy().argmax())
            raise DataError(f"'{frame[col].iloc[i]}' is not a finite number. Write the number "
                            f"or leave the cell empty if the source does not report it.",
                            file=file, row=i + 2, column=col)
        numbers[col] = parsed
    value = numbers["value"]
    if spec.metric.range is not None:
        lo, hi = spec.metric.range
        out = present & ((value < lo) | (value > hi))
        if out.any():
            i = int(out.to_numpy().argmax())
            raise DataError(f"{frame['value'].iloc[i]} is outside the range of {spec.metric.name} "
                            f"({lo:g} to {hi:g}). Check the number or the metric's range.",
                            file=file, row=i + 2, column="value")
    if "sd" in numbers and (numbers["sd"] < 0).any():
        i = int((numbers["sd"] < 0).to_numpy().argmax())
        raise DataError("a standard deviation cannot be negative.", file=file, row=i + 2, column="sd")
    if "n" in numbers:
        n = numbers["n"]
        bad = n.notna() & ((n < 1) | (n != n.round()))
        if bad.any():
            i = int(bad.to_numpy().argmax())
            raise DataError("n must be a whole number of at least 1.", file=file, row=i + 2, column="n")

    keys = frame[list(spec.dim_names)]
    dup = keys.duplicated(keep="first")
    if dup.any():
        later = int(dup.to_numpy().argmax())
        key = tuple(keys.iloc[later])
        earlier = next(i for i, row in enumerate(keys.itertuples(index=False, name=None))
                       if row == key)
        coords = ", ".join(f"{d} {label}" for d, label in zip(spec.dim_names, key))
        raise DataError(f"rows {earlier + 2} and {later + 2} both give the cell ({coords}). "
                        f"Keep one row per cell.", file=file)

    cells = keys[present].reset_index(drop=True)
    cells["value"] = value[present].to_numpy(dtype=float)
    for col in OPTIONAL_COLUMNS:
        if col in numbers:
            cells[col] = numbers[col][present].to_numpy(dtype=float)
    decimals = max((_decimals(t) for t in frame["value"][present]), default=0)
    if spec.decimals is not None:
        return cells, spec.decimals
    return cells, min(decimals, MAX_DECIMALS)
