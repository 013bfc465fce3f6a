"""Load and validate the catalog and its tidy cell files, once, into a :class:`Catalog`.

A file that fails validation raises :class:`DataError` naming the file, the row or column, and
the problem. Nothing is filled in: a cell absent from the file (or with an empty value) is missing.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from evalmaps.catalog import cache, columnar, manifest
from evalmaps.catalog.resources import default_data_dir
from evalmaps.core.colorscales import NAMED_COLORSCALES
from evalmaps.core.errors import DataError, problem_line
from evalmaps.core.figure import (
    PROVENANCES,
    Catalog,
    Dim,
    Figure,
    FigureSpec,
    Metric,
    MetricsByLabel,
)
from evalmaps.core.names import RESERVED_NAMES
from evalmaps.core.problems import STRICT, Problems
from evalmaps.core.text import MAX_DECIMALS, unneutralise
from evalmaps.readers import fastcsv
from evalmaps.readers.base import control_problem
from evalmaps.readers.parquet import read_parquet_texts

# a dimension cannot share a name with a query key or a cell column
RESERVED_DIM_NAMES = RESERVED_NAMES
# the keys of a figure's catalog entry (data/README.md documents each) and of the catalog itself
CATALOG_FIELDS = ("id", "file", "title", "metric", "metrics", "x", "y", "facets", "dims",
                  "colorscale", "zrange", "decimals", "provenance", "source", "notes", "items")
CATALOG_KEYS = ("figures", "compare")
OPTIONAL_COLUMNS = ("sd", "n", "se")


def load_catalog(data_dir: str | Path | None = None, cache_dir: str | Path | None = None,
                 problems: Problems = STRICT, manifest_check: str | None = None) -> Catalog:
    """Read ``catalog.json`` in ``data_dir`` and every figure file it names; validate all.

    ``cache_dir``: where validated cells are kept between start-ups (None: no cache).
    ``problems``: strict (:data:`~evalmaps.core.problems.STRICT`, the default), and the first
    bad figure raises its DataError; a :class:`~evalmaps.core.problems.Problems` collector, and
    a bad figure is skipped with one line added (as is a warning, such as an id given a suffix).
    ``manifest_check``: None (no check), ``"refuse"`` (the built-in data: a file that does not
    match ``manifest.json`` is not served) or ``"flag"`` (a user's folder: it is served, with a
    warning; a folder without a manifest is not checked). See :mod:`evalmaps.catalog.manifest`.
    """
    with columnar.lean_memory():
        figures, compare = catalog_figures(
            Path(data_dir) if data_dir is not None else default_data_dir(), cache_dir, problems,
            manifest_check)
        return Catalog([figure for _, figure in figures], compare)


def catalog_figures(data_dir: Path, cache_dir: str | Path | None = None,
                    problems: Problems = STRICT, manifest_check: str | None = None
                    ) -> tuple[list[tuple[Path, Figure]], tuple[str, str] | None]:
    """:func:`load_catalog`'s figures, each with its file, and the catalog's compare pair."""
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
    expected = folder_manifest(data_dir, manifest_check, problems)
    figures = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        try:
            spec = parse_spec(entry, where=f"{catalog_path}, figure #{i + 1}")
            if spec.id in seen:
                new = unique_id(spec.id, seen)
                problems.add(problem_line(
                    f"Renamed: {catalog_path} lists the figure id '{spec.id}' twice; the second "
                    f"(file {spec.file}) is served as '{new}'. Give each figure its own id."),
                    DataError(f"the figure id '{spec.id}' is used twice. Give each figure its "
                              f"own id.", file=str(catalog_path)))
                spec = dataclasses.replace(spec, id=new)
            path = data_dir / spec.file
            figure = _load_figure(spec, path, cache_dir)
            if expected is not None:
                check_manifest(expected, data_dir, path, figure, manifest_check, problems)
        except DataError as exc:
            problems.not_served(exc)
            continue
        seen.add(spec.id)
        figures.append((path, figure))
    return figures, _compare_pair(raw.get("compare"), str(catalog_path))


def unique_id(figure_id: str, taken) -> str:
    """``figure_id``, or with the first suffix ``-2``, ``-3``, ... that is not ``taken``."""
    if figure_id not in taken:
        return figure_id
    k = 2
    while f"{figure_id}-{k}" in taken:
        k += 1
    return f"{figure_id}-{k}"


def folder_manifest(folder: Path, check: str | None, problems: Problems = STRICT):
    """The folder's manifest entries when they are to be checked, else None."""
    if check is None:
        return None
    try:
        expected = manifest.read(folder)
    except DataError as exc:
        problems.add(problem_line(f"Not checked: {exc}"), exc)
        return None
    if expected is None and check == "refuse":
        text = (f"{folder / manifest.MANIFEST} is missing, so the built-in files cannot be "
                f"checked. Regenerate it with `evalmaps manifest {folder}`.")
        problems.add(problem_line(f"Not checked: {text}"), DataError(text))
    return expected


def check_manifest(expected: dict, folder: Path, path: Path, figure: Figure, check: str,
                   problems: Problems = STRICT) -> None:
    """Compare a loaded file with its manifest entry: ``"refuse"`` raises a DataError when they
    differ; ``"flag"`` adds a warning (or raises one, when ``problems`` is strict)."""
    what = manifest.mismatch(expected.get(manifest.key(folder, path)), manifest.sha256(path),
                             figure.n_cells)
    if what is None:
        return
    where = folder / manifest.MANIFEST
    refused = DataError(f"the file does not match {where} ({what}): it was cut short or edited. "
                        f"Restore it, or if the change is intended regenerate the manifest with "
                        f"`evalmaps manifest {folder}`.", file=str(path))
    if check == "refuse":
        raise refused
    problems.add(problem_line(
        f"Changed since its manifest: {path}: {what}. It is served as it is; if the change is "
        f"intended, regenerate the manifest with `evalmaps manifest {folder}`."), refused)


def _compare_pair(entry: Any, where: str) -> tuple[str, str] | None:
    """The catalog's ``"compare": {"a": "<figure>:<panel>", "b": ...}``: what Compare opens with."""
    if entry is None:
        return None
    if not (isinstance(entry, dict) and isinstance(entry.get("a"), str)
            and isinstance(entry.get("b"), str)):
        raise DataError('"compare" must be {"a": "<figure>:<panel>", "b": "<figure>:<panel>"}.',
                        file=where)
    return entry["a"], entry["b"]


def control_error(text: str, file: str, row: int, column: str) -> DataError:
    return DataError(control_problem(text), file=file, row=row, column=column)


def _need(entry: dict, key: str, kind: type | tuple, where: str) -> Any:
    if key not in entry:
        raise DataError(f"the key \"{key}\" is missing. Add it to the figure's entry.", file=where)
    value = entry[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
        raise wrong_type(key, value, kind, where)
    return value


_JSON_KINDS = {str: "a text", list: "a list", dict: "an object", bool: "true or false",
               int: "a number", float: "a number", type(None): "null"}


def _kinds(kind: type | tuple) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def wrong_type(key: str, value: Any, kind: type | tuple, where: str, of: str = "",
               member: bool = False) -> DataError:
    """A field of a catalog entry with the wrong JSON type: which field, what it must be
    (``member``: ``value`` is one of its members, the field itself of the right type)."""
    want = " or ".join(dict.fromkeys(_JSON_KINDS.get(k, k.__name__) for k in _kinds(kind)))
    got = _JSON_KINDS.get(type(value), type(value).__name__)
    got = f"and it holds {got}" if member else f"not {got}"
    return DataError(f"\"{key}\" must be {want}{of}, {got}. Fix it, or remove it to use "
                     f"the default (see data/README.md for the catalog format).", file=where)


def _optional(entry: dict, key: str, kind: type | tuple, default: Any, where: str,
              items: type | tuple | None = None, of: str = "") -> Any:
    """An optional field of ``kind`` (its members, or an object's values, of ``items``)."""
    value = entry.get(key, default)
    if value is default:
        return value
    if not isinstance(value, kind) or isinstance(value, bool):
        raise wrong_type(key, value, kind, where, of)
    members = (value.values() if isinstance(value, dict) else value) if items else ()
    for member in members:
        if not isinstance(member, items):
            raise wrong_type(key, member, kind, where, of, member=True)
    return value


_SCALAR = (str, int, float)


def parse_spec(entry: Any, where: str) -> FigureSpec:
    """Validate one catalog entry (a dict) into a :class:`FigureSpec`. A field of the wrong
    type is a DataError naming it (never a TypeError: a bad file never stops the app)."""
    try:
        return _parse_spec(entry, where)
    except DataError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError) as exc:  # a case not checked below
        raise DataError(f"the entry has a field of the wrong type ({exc}). See data/README.md "
                        f"for the catalog format.", file=where) from None


def _parse_spec(entry: Any, where: str) -> FigureSpec:
    if not isinstance(entry, dict):
        raise DataError("each figure entry must be a JSON object.", file=where)
    fid = _need(entry, "id", str, where)
    where = f"{where.rsplit(', figure #', 1)[0]}, figure '{fid}'"
    if not fid or not all(c.isalnum() or c in "-_." for c in fid):
        raise DataError(f"the id '{fid}' may only hold letters, digits, '-', '_' and '.'.", file=where)
    metric = _metric(_need(entry, "metric", dict, where), "metric", "value", where)
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
        for label in labels:
            if columnar.CONTROL_RE.search(label):
                raise DataError(f"dimension '{name}': {control_problem(label)}", file=where)
        if len(set(labels)) != len(labels):
            raise DataError(f"dimension '{name}' lists a label twice.", file=where)
        title = _optional(d, "title", _SCALAR, name, where, of=f" (the title of dimension '{name}')")
        dims[name] = Dim(name, str(title), labels)
    x = _need(entry, "x", str, where)
    y = _need(entry, "y", str, where)
    facets = tuple(_optional(entry, "facets", list, [], where, items=str,
                             of=" of dimension names"))
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
    metrics = _metrics_entry(entry.get("metrics"), dims, facets, where)
    provenance = _optional(entry, "provenance", str, "", where)
    if provenance not in PROVENANCES:
        raise DataError(f"provenance '{provenance}' is not one of {', '.join(PROVENANCES)}.", file=where)
    zrange = entry.get("zrange")
    if zrange is not None and not (
            isinstance(zrange, list) and len(zrange) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                    for v in zrange) and zrange[0] < zrange[1]):
        raise DataError("zrange must be [low, high], two numbers with low < high.", file=where)
    colorscale = _colorscale(entry.get("colorscale", "Viridis"), where)
    return FigureSpec(
        id=fid, title=str(_optional(entry, "title", _SCALAR, fid, where)), metric=metric,
        x=x, y=y, facets=facets,
        dims={name: dims[name] for name in (*facets, y, x)}, colorscale=colorscale,
        zrange=tuple(zrange) if zrange is not None else None, provenance=provenance,
        source={str(k): str(v) for k, v in _optional(
            entry, "source", dict, {}, where, items=_SCALAR, of=" of texts").items()},
        notes=tuple(str(n) for n in _optional(entry, "notes", list, [], where, items=_SCALAR,
                                              of=" of texts")),
        file=_need(entry, "file", str, where),
        decimals=_decimals_entry(entry, where), metrics=metrics,
        items=_items_entry(entry.get("items"), where),
    )


def _items_entry(value: Any, where: str) -> str:
    """The optional ``"items"``: a folder name beside the figure's file (no path)."""
    if value is None:
        return ""
    if not (isinstance(value, str) and value and "/" not in value and "\\" not in value
            and value not in (".", "..")):
        raise DataError('"items" must be the name of a folder beside the figure\'s file, which '
                        'holds its scores.parquet.', file=where)
    return value


def _colorscale(value: Any, where: str):
    """A Plotly colour scale name ('Viridis', 'Blues_r'), or [[stop, colour], ...] with stops
    rising from 0 to 1."""
    if isinstance(value, str):
        if value.lower().removesuffix("_r") in NAMED_COLORSCALES:
            return value
        raise DataError(f"colorscale '{value[:40]}' is not a Plotly colour scale name. Use one "
                        f"such as Viridis or Blues, or a list of [stop, colour] pairs.", file=where)
    stops = []
    if isinstance(value, list) and len(value) >= 2:
        for pair in value:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], str)
                    and isinstance(pair[0], (int, float)) and not isinstance(pair[0], bool)):
                break
            stops.append((float(pair[0]), pair[1]))
    if (isinstance(value, list) and len(stops) == len(value) >= 2 and stops[0][0] == 0
            and stops[-1][0] == 1 and all(a[0] < b[0] for a, b in zip(stops, stops[1:]))):
        return tuple(stops)
    raise DataError("colorscale must be a Plotly colour scale name, or a list of [stop, colour] "
                    "pairs with stops rising from 0 to 1.", file=where)


def _metric(raw: dict, key: str, default_name: str, where: str) -> Metric:
    """One metric entry (``{"name", "unit", "range", "higher_is_better", "decimals"}``) -> a
    Metric."""
    metric_range = raw.get("range")
    if metric_range is not None and not (
            isinstance(metric_range, list) and len(metric_range) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in metric_range)
            and metric_range[0] < metric_range[1]):
        raise DataError(f"{key}.range must be [low, high] with low < high.", file=where)
    better = raw.get("higher_is_better", True)
    if not isinstance(better, bool):
        raise DataError(f"{key}.higher_is_better must be true or false.", file=where)
    name = _optional(raw, "name", _SCALAR, default_name, where, of=f" (the name in {key})")
    unit = _optional(raw, "unit", _SCALAR, "", where, of=f" (the unit in {key})")
    return Metric(str(name), str(unit),
                  tuple(metric_range) if metric_range is not None else None, better,
                  decimals=_decimals_entry(raw, where, f"{key}.decimals"))


def _metrics_entry(raw: Any, dims: dict, facets: tuple, where: str) -> MetricsByLabel | None:
    """The optional ``"metrics": {"dim": <facet>, "labels": {<label>: <metric>, ...}}``."""
    if raw is None:
        return None
    if not (isinstance(raw, dict) and isinstance(raw.get("dim"), str)
            and isinstance(raw.get("labels"), dict)):
        raise DataError('"metrics" must be {"dim": "<facet>", "labels": {"<label>": {"name": ...}}}. '
                        'See data/README.md.', file=where)
    dim = raw["dim"]
    if dim not in facets:
        raise DataError(f"metrics.dim '{dim}' is not one of the facets "
                        f"({', '.join(facets) or 'none'}). Name the facet whose labels are "
                        f"metrics.", file=where)
    known = dims[dim].index()
    labels = {}
    for label, entry in raw["labels"].items():
        if label not in known:
            raise DataError(f"metrics.labels names '{label[:100]}', which is not a label of "
                            f"dimension '{dim}'. Use one of its labels.", file=where)
        if not isinstance(entry, dict):
            raise DataError(f"metrics.labels['{label[:100]}'] must be an object like "
                            f'{{"name": "acc", "range": [0, 1]}}.', file=where)
        labels[label] = _metric(entry, f"metrics.labels['{label[:100]}']", label, where)
    return MetricsByLabel(dim, labels)


def _decimals_entry(entry: dict, where: str, key: str = "decimals") -> int | None:
    value = entry.get("decimals")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_DECIMALS:
        raise DataError(f"\"{key}\" must be a whole number from 0 to {MAX_DECIMALS}.", file=where)
    return value


def load_figure(spec: FigureSpec, path: Path, cache_dir: str | Path | None = None,
                neutralised: bool = False) -> Figure:
    """Read and validate one figure file (tidy CSV, or Parquet when it ends in ``.parquet``).

    With ``cache_dir``, cells validated once are kept there, keyed by the file's content and
    what the catalog says of it; an unchanged file is not parsed again. ``neutralised``: a CSV
    evalmaps wrote itself for spreadsheets (``evalmaps import -o``), whose texts are read back
    as they were before :func:`evalmaps.core.text.neutralise` (``'-base`` is the label
    ``-base``, as its catalog entry says).
    """
    return _load_figure(spec, Path(path), cache_dir, neutralised)  # within a load's lean_memory


def _load_figure(spec: FigureSpec, path: Path, cache_dir: str | Path | None,
                 neutralised: bool = False) -> Figure:
    figure = _load_cells(spec, path, cache_dir, neutralised)
    if spec.items:
        from evalmaps.catalog.items import attach

        attach(figure, path.parent / spec.items)
        if figure.items is None:
            raise DataError(f"the per-item records {spec.items}/scores.parquet are missing. "
                            f"Restore them, or remove \"items\" from the figure's entry.",
                            file=str(path))
    return figure


def _load_cells(spec: FigureSpec, path: Path, cache_dir: str | Path | None,
                neutralised: bool = False) -> Figure:
    if path.exists() and not path.is_file():  # a named pipe would hang the read
        raise DataError("the figure file is not a regular file (a named pipe, socket or "
                        "device), so it is not read. Write the cells to a regular file.",
                        file=str(path))
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError("the figure file is missing. Check the \"file\" entry in the catalog.",
                        file=str(path)) from None
    except OSError as exc:  # unreadable: skipped as a bad file is, never a traceback
        raise DataError(f"cannot read the file ({exc.strerror or exc}). Check its permissions, "
                        f"or remove it.", file=str(path)) from None
    parquet = path.suffix.lower() == ".parquet"
    neutralised = neutralised and not parquet
    key = None
    if cache_dir is not None:
        key = cache.key("catalog-neutralised" if neutralised else "catalog", path.suffix.lower(),
                        _validation_key(spec), data)
        hit = cache.load(cache_dir, key)
        if hit is not None:
            return Figure(spec, hit.cells, hit.decimals)
    if parquet:
        columns, arrays = read_parquet_texts(data, str(path))
    else:
        columns, arrays = _read_csv(data, path)
    if neutralised:
        columns, arrays = _unneutralised(columns, arrays)
    positions: dict = {}
    cells, decimals = validate_columns(columns, arrays, spec, str(path), positions_out=positions)
    if key is not None:
        cache.store(cache_dir, key, cells, decimals)
    return Figure(spec, cells, decimals, _positions=positions)


def _unneutralised(columns: list[str], arrays: list) -> tuple[list[str], list]:
    """A CSV's header and columns as they were before evalmaps neutralised them (only texts
    that start with a quote can change: looked at distinct, vectorised)."""
    return ([unneutralise(c) for c in columns],
            [pa.chunked_array([columnar.apply_to_prefixed(
                col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col,
                unneutralise, ("'",))]) for col in arrays])


def _validation_key(spec: FigureSpec) -> str:
    """What validation depends on besides the file: dims and labels, range, decimals."""
    ranges = None
    if spec.metrics is not None:
        ranges = [spec.metrics.dim, {label: list(m.range) if m.range else None
                                     for label, m in spec.metrics.labels.items()}]
    return json.dumps({"dims": [[d, list(spec.dims[d].labels)] for d in spec.dim_names],
                       "range": list(spec.metric.range) if spec.metric.range else None,
                       "ranges": ranges, "decimals": spec.decimals})


def _read_csv(data: bytes, path: Path) -> tuple[list[str], list]:
    """The file's columns as texts: pyarrow when it reads the file as pandas would, else pandas
    (with its own errors)."""
    try:
        header, arrays = fastcsv.read_pandas_like(data)
        return [str(c).strip() for c in header], arrays
    except fastcsv.Unsupported:
        pass
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    except FileNotFoundError:
        raise DataError("the figure file is missing. Check the \"file\" entry in the catalog.",
                        file=str(path)) from None
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DataError(f"the file cannot be read as UTF-8 CSV ({exc}).", file=str(path)) from None
    return frame_columns(frame)


def frame_columns(frame: pd.DataFrame) -> tuple[list[str], list]:
    columns = [str(c).strip() for c in frame.columns]
    return columns, [columnar.as_text(frame.iloc[:, i]) for i in range(frame.shape[1])]


def validate_cells(frame: pd.DataFrame, spec: FigureSpec, file: str) -> tuple[pd.DataFrame, int]:
    """Check a tidy table of strings against ``spec``; return the present cells and the decimals.

    Row numbers in messages count the header as row 1, as a spreadsheet shows them.
    """
    with columnar.lean_memory():
        columns, arrays = frame_columns(frame)
        return validate_columns(columns, arrays, spec, file)


def _shown(text) -> str:
    """A cell's text as messages quote it (a missing field reads 'nan', as pandas shows it)."""
    return "nan" if text is None else text


def validate_columns(columns: list[str], arrays: list, spec: FigureSpec, file: str,
              encodings: dict | None = None, unique: bool = False,
              positions_out: dict | None = None,
              value_numbers: np.ndarray | None = None) -> tuple[pd.DataFrame, int]:
    """:func:`validate_cells` on columns of texts (pyarrow arrays), vectorised.

    The checks and their order are those of the original row-by-row code: the first problem in
    that order is the one reported, at the first row that has it. ``encodings``: the dims'
    :func:`columnar.encode` of these arrays, when the caller has them; ``unique``: the caller
    knows no two rows hold the same texts in the dims (the check is then left out when no label
    has surrounding whitespace, the only way two distinct texts could name one cell).
    ``positions_out``: filled with each cell's labels as positions among the catalog's labels.
    ``value_numbers``: the values as :func:`columnar.stripped_numbers` reads them, when the caller
    has them for texts that are all given and that pyarrow reads as numbers (an import's).
    """
    unique_rows = unique
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

    raw = dict(zip(columns, arrays))
    nrows = len(arrays[0]) if arrays else 0
    positions = {}  # per dim: each row's label as its position in the catalog's labels
    as_written = {}  # per dim: every text is its label as it is (nothing to strip)
    for col in spec.dim_names:
        labels = spec.dims[col].labels
        known = spec.dims[col].index()
        seen, codes = (encodings or {}).get(col) or columnar.encode(raw[col])
        stripped = [v.strip() if v is not None else None for v in seen]  # what str.strip() leaves
        as_written[col] = stripped == seen and None not in seen
        unique_rows = unique_rows and as_written[col]
        seen = stripped
        bad_text = next((v for v in seen if v and columnar.CONTROL_RE.search(v)), None)
        if bad_text is not None:  # distinct texts: a few, even for a million rows
            i = int(np.flatnonzero(codes == seen.index(bad_text))[0])
            raise control_error(bad_text, file=file, row=i + 2, column=col)
        where = np.array([known.get(v, -1) if v is not None else -1 for v in seen],
                         dtype=np.int32)
        if np.array_equal(where, np.arange(len(where))):  # the texts come in the labels' order
            pos = codes.astype(np.int32, copy=False)
        else:
            pos = where[codes] if len(codes) else np.zeros(0, dtype=np.int32)
        bad = pos < 0
        if bad.any():
            i = int(bad.argmax())
            raise DataError(f"'{_shown(seen[codes[i]])}' is not a label of dimension '{col}' "
                            f"(known: {', '.join(labels)}). "
                            f"Fix the cell or add the label to the catalog.", file=file, row=i + 2)
        positions[col] = pos

    numbers, text = {}, {}
    present = None
    for col in ("value", *[c for c in OPTIONAL_COLUMNS if c in columns]):
        if col == "value" and value_numbers is not None and len(value_numbers) == nrows:
            # nothing to strip (pyarrow read every text as a number), nothing to parse again
            text[col], values = columnar.chunked(raw[col]), value_numbers
            given = np.ones(nrows, dtype=bool)
        else:
            text[col], (values, given) = columnar.stripped_numbers(raw[col])
        bad = given & ~np.isfinite(values)
        if bad.any():
            i = int(bad.argmax())
            raise DataError(f"'{_shown(text[col][i].as_py())}' is not a finite number. Write the "
                            f"number or leave the cell empty if the source does not report it.",
                            file=file, row=i + 2, column=col)
        numbers[col] = values
        if col == "value":
            present = given
    value = numbers["value"]
    _check_ranges(value, present, text["value"], positions, spec, file)
    for col, what in (("sd", "a standard deviation"), ("se", "a standard error")):
        if col in numbers:
            with np.errstate(invalid="ignore"):
                negative = numbers[col] < 0
            if negative.any():
                raise DataError(f"{what} cannot be negative.", file=file,
                                row=int(negative.argmax()) + 2, column=col)
    if "n" in numbers:
        n = numbers["n"]
        with np.errstate(invalid="ignore"):
            bad = ~np.isnan(n) & ((n < 1) | (n != np.round(n)))
        if bad.any():
            i = int(bad.argmax())
            raise DataError("n must be a whole number of at least 1.", file=file, row=i + 2, column="n")

    if not (encodings and unique_rows):  # an import whose rows are unique already: no need
        _check_unique(positions, spec, file, nrows)

    every = bool(present.all())
    rows = slice(None) if every else np.flatnonzero(present)
    labels = {}
    for col in spec.dim_names:
        if every and as_written[col]:  # the texts are the labels: no copy
            labels[col] = pd.Series(raw[col].to_pandas(), dtype="str")
        else:
            labels[col] = pd.Series(pa.array(spec.dims[col].labels, type=columnar.TEXT)
                                    .take(pa.array(positions[col][rows])).to_pandas())
        if positions_out is not None:
            positions_out[col] = positions[col][rows]
    cells = pd.DataFrame(labels)
    cells["value"] = value[rows]
    for col in OPTIONAL_COLUMNS:
        if col in numbers:
            cells[col] = numbers[col][rows]
    if spec.decimals is not None:
        return cells, spec.decimals
    decimals = columnar.decimals_written(text["value"], MAX_DECIMALS)  # empty texts count 0
    return cells, min(decimals, MAX_DECIMALS)


def _check_ranges(value: np.ndarray, present: np.ndarray, text, positions: dict,
                  spec: FigureSpec, file: str) -> None:
    """Every given value within its own metric's range (a cell's metric: the catalog's
    ``metrics`` entry for its label, else the figure's); the first row out of range is named."""
    groups = [(spec.metric, None)]
    if spec.metrics is not None:
        pos = positions[spec.metrics.dim]
        index = spec.dims[spec.metrics.dim].index()
        own = np.zeros(len(pos), dtype=bool)
        for label, metric in spec.metrics.labels.items():
            mine = pos == index[label]
            own |= mine
            groups.append((metric, mine))
        groups[0] = (spec.metric, ~own)
    first = None
    for metric, rows in groups:
        if metric.range is None:
            continue
        lo, hi = metric.range
        with np.errstate(invalid="ignore"):
            out = present & ((value < lo) | (value > hi))
        if rows is not None:
            out &= rows
        if out.any():
            i = int(out.argmax())
            if first is None or i < first[0]:
                first = (i, metric)
    if first is not None:
        i, metric = first
        lo, hi = metric.range
        raise DataError(f"{text[i].as_py()} is outside the range of {metric.name} "
                        f"({lo:g} to {hi:g}). Check the number or the metric's range.",
                        file=file, row=i + 2, column="value")


def _check_unique(positions: dict, spec: FigureSpec, file: str, nrows: int) -> None:
    """Refuse two rows for one cell, naming the first row that repeats one and the row before."""
    if nrows < 2:
        return
    sizes = [len(spec.dims[d].labels) for d in spec.dim_names]
    codes = [positions[d] for d in spec.dim_names]
    if not columnar.repeated_keys(codes, sizes):
        return
    dup = pd.DataFrame(dict(enumerate(codes))).duplicated(keep="first").to_numpy()
    later = int(dup.argmax())
    same = np.ones(nrows, dtype=bool)
    for d in spec.dim_names:
        same &= positions[d] == positions[d][later]
    earlier = int(same.argmax())
    labels = [spec.dims[d].labels[positions[d][later]] for d in spec.dim_names]
    coords = ", ".join(f"{d} {label}" for d, label in zip(spec.dim_names, labels))
    raise DataError(f"rows {earlier + 2} and {later + 2} both give the cell ({coords}). "
                    f"Keep one row per cell.", file=file)
