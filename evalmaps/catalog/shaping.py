"""Shaping: a table of results -> a tidy figure (an :class:`~evalmaps.catalog.imported.Imported`),
in the shapes a table comes in, auto-detected and overridable. A reader (CSV, Parquet, JSON
Lines) gives the table as texts; this shapes it, in the catalog, once for every format.

- ``tidy``: one row per cell: dimension columns, ``value``, optional ``sd`` and ``n``.
- ``wide``: results tables as papers publish them: metadata columns plus one column per cell
  whose name encodes the cell, e.g. ``type_3_len_15``. Metadata columns become facets; a
  replicate column (``seed``) is averaged into ``value`` with ``sd`` and ``n``.
- ``matrix``: as pasted from a paper: first column the row labels, header the column labels.
- ``leaderboard``: one row per model, a column per score, standard errors beside their scores,
  text columns (:mod:`evalmaps.catalog.leaderboard`).

Every problem is an :class:`ImportFailed` (a DataError) whose message names the file, row or
column and says what to do. Nothing here reads the network or runs anything from the file.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from evalmaps.catalog import columnar, leaderboard
from evalmaps.catalog.imported import Imported
from evalmaps.core.figure import short_slug, slugify
from evalmaps.core.names import RESERVED_NAMES as RESERVED_DIM_NAMES
from evalmaps.core.text import natural_key, places
from evalmaps.readers.base import ImportFailed, ImportOptions, control_problem

FORMATS = ("auto", "tidy", "wide", "matrix", "leaderboard")


REPLICATE_NAMES = ("seed", "seeds", "run", "replicate", "rep", "trial")


CELL_RE = re.compile(r"^([A-Za-z]+)_([^_]+)_([A-Za-z]+)_([^_]+)$")


OPTIONAL = ("sd", "n", "se")


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _numeric_share(values) -> float:
    text = columnar.as_text(values)
    given = pc.filter(text, pc.fill_null(pc.not_equal(text, ""), True))
    return float(columnar.python_numbers(given).mean()) if len(given) else 0.0


def _not_numbers(values) -> np.ndarray:
    """Where a text is neither empty nor a finite number (as ``float()`` reads it)."""
    text = columnar.as_text(values)
    empty = pc.fill_null(pc.equal(text, ""), False).to_numpy(zero_copy_only=False)
    return ~empty & ~columnar.python_numbers(text)


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
    if len(patterns) > 1 and max(len(v) for v in patterns.values()) < 2:
        # one column per pattern: cell columns (their labels are numbers) named inconsistently
        cols = [v[0] for v in patterns.values()]
        named = ", ".join(cols[:5]) + (" ..." if len(cols) > 5 else "")
        raise ImportFailed(f"the columns {named} look like cell columns but follow different "
                           f"patterns ({', '.join(f'{a}_<{a}>_{b}_<{b}>' for a, b in patterns)[:300]})"
                           f". Rename them to one pattern such as type_<type>_len_<len>, or "
                           f"choose the matrix format to read them as plain columns.", file=name)
    if not patterns or max(len(v) for v in patterns.values()) < 2:
        return None
    if len(patterns) > 1:
        ordered = sorted(patterns.items(), key=lambda kv: -len(kv[1]))
        desc = " and ".join(f"{a}_<{a}>_{b}_<{b}> ({len(cols)} columns, like {cols[0]})"
                            for (a, b), cols in ordered[:3])
        raise ImportFailed(f"the cell columns follow more than one pattern: {desc}. Rename the "
                           f"columns to one pattern, or split the file.", file=name)
    (key, cols), = patterns.items()
    return key, cols


def detect_format(frame: pd.DataFrame, name: str, options: ImportOptions | None = None) -> str:
    """The file's format (tidy, wide, matrix) from its columns. ``options``: the user's choices;
    its replicate column ('' for none) decides which columns a matrix averages over."""
    columns = list(frame.columns)
    if "value" in [c.lower() for c in columns]:
        return "tidy"
    if cell_pattern(columns, name):
        return "wide"
    replicate = _matrix_replicate(columns, options)
    values = [c for c in columns[1:] if c != replicate]
    numbers = bool(values) and all(_numeric_share(frame[c]) == 1.0 or (frame[c] == "").all()
                                   for c in values)
    # a leaderboard: text columns beside the scores, or a standard error beside a score
    if replicate is None and (not numbers or leaderboard.names_a_standard_error(values)):
        found = leaderboard.roles(frame)
        if found is not None and (not numbers or found.se):
            return "leaderboard"
    if numbers:
        return "matrix"
    # a long table whose score column has a name of its own (model,task,step,solved): the last
    # column of numbers is most likely its score
    scores = [c for c in values if _numeric_share(frame[c]) == 1.0]
    fix = (f"If each row is one cell, rename its score column ('{scores[-1]}') to 'value'; "
           f"else choose the format, or reshape the file." if scores and len(columns) >= 3
           else "Choose the format, or reshape the file.")
    raise ImportFailed("the format is not recognised: there is no 'value' column (tidy), no "
                       "cell columns like type_3_len_15 (wide), the columns after the first "
                       "are not all numbers (matrix), and no column names each row once beside "
                       f"columns of scores (leaderboard). {fix}", file=name)


def _dim_name(raw: str) -> str:
    name = slugify(raw).replace("-", "_") or "dim"
    return f"{name}_" if name in RESERVED_DIM_NAMES else name


def _order(labels, distinct: bool = False, natural: bool = False) -> list[str]:
    """Labels in order: numeric ones by value, others as they first appear, or with
    ``natural`` all of them in natural order (:func:`evalmaps.core.text.natural_key`).
    ``distinct``: ``labels`` are distinct already (an encoding's), read as they are unless one is
    missing (None)."""
    if distinct and None not in labels:
        seen = list(labels)
    else:
        seen = [str(v) for v in pd.unique(pd.Series(labels, dtype="str"))] if len(labels) else []
    if seen and all(_is_number(v) for v in seen):
        return sorted(seen, key=float)
    return sorted(seen, key=natural_key) if natural else seen


def _averaged(cells: pd.DataFrame, keys: list[str], name: str, replicate: str | None,
              warnings: list[str], parsed: np.ndarray | None = None,
              encodings: dict | None = None,
              numbers_out: dict | None = None) -> tuple[pd.DataFrame, int]:
    """One row per cell: replicates averaged (value = mean, sd, n); conflicts refused.

    ``parsed``: the values as ``float()`` reads them, when known. ``encodings``: filled with the
    keys' encodings of the rows returned, when they come for free. ``numbers_out``: filled with
    the returned rows' values as validation reads them (``"value"``), when those rows are the
    given ones unchanged and ``parsed`` is known (pyarrow read every value)."""
    given = ~columnar.empty(columnar.as_text(cells["value"]))
    present = cells if given.all() else columnar.filter_rows(cells, given)
    present = present.copy()
    present["v"] = parsed[given] if parsed is not None else _floats(present["value"])
    if replicate is not None:  # the same replicate of a cell twice: merge repeats, refuse clashes
        present = _unique(present, [*keys, replicate], name, warnings,
                          "Choose another replicate column, or remove the repeated rows.")
    if replicate is None:
        found: dict = {}
        present = _unique(present, keys, name, warnings,
                          "Keep one row per cell, or choose the column that tells replicates "
                          "apart (a seed) to average them.", found)
        if encodings is not None:
            encodings.update(found)
        if found and parsed is not None and numbers_out is not None:
            # as columnar.stripped_numbers reads these rows' texts (its cast is parsed[given])
            numbers_out["value"] = columnar.pandas_numbers(
                columnar.chunked(columnar.as_text(present["value"])), present["v"].to_numpy())[0]
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


def _floats(values: pd.Series) -> np.ndarray:
    """Texts of numbers (as ``float()`` reads them) -> floats; pyarrow reads the plain ones."""
    try:
        return columnar.to_floats(columnar.as_text(values))
    except ValueError:
        return values.astype(float).to_numpy()


def _unique(present: pd.DataFrame, keys: list[str], name: str, warnings: list[str],
            fix: str, encodings: dict | None = None) -> pd.DataFrame:
    """One row per key: identical repeats are merged (with a warning), different values refused.

    ``encodings``: filled with the keys' encodings when no row repeats (the rows returned)."""
    found = columnar.encode_all([columnar.as_text(present[k]) for k in keys])
    if not columnar.any_repeated(found):
        if encodings is not None:
            encodings.update(zip(keys, found))
        return present
    dup = present.duplicated(keys, keep=False)
    if not dup.any():
        return present
    clash = present[dup].groupby(keys, sort=False)["v"].nunique()
    if (clash > 1).any():
        key = clash[clash > 1].index[0]
        key = key if isinstance(key, tuple) else (key,)
        coords = ", ".join(f"{k} {v}" for k, v in zip(keys, key))
        raise ImportFailed(f"the cell ({coords}) is given more than once with different values. "
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


def import_tidy(frame: pd.DataFrame, name: str, options: ImportOptions, warnings: list[str]):
    given = list(frame.columns)
    cols = {c.lower(): c for c in frame.columns}
    value_col = cols["value"] if "value" in cols else None
    if value_col is None:
        raise ImportFailed("there is no 'value' column. A tidy file needs one column per "
                           "dimension and a 'value' column.", file=name)
    frame = frame.rename(columns={value_col: "value"})
    for opt in OPTIONAL:
        if opt in cols and cols[opt] != opt:
            frame = frame.rename(columns={cols[opt]: opt})
    replicate = _replicate(list(frame.columns), options, name)
    dims = [c for c in frame.columns if c not in ("value", *OPTIONAL) and c != replicate]
    if len(dims) < 2:
        raise ImportFailed("a tidy file needs at least two dimension columns (one for the rows, "
                           "one for the columns of the heatmap) besides 'value'.", file=name)
    if value_col != "value" and "value" in given:  # 'Value' is read as 'value'
        raise ImportFailed(f"the columns 'value' and '{value_col}' would both be the 'value' "
                           f"column. Keep one, or rename the other.", file=name)
    return frame, dims, replicate


def import_wide(frame: pd.DataFrame, name: str, options: ImportOptions, warnings: list[str]):
    found = cell_pattern(list(frame.columns), name)
    if not found:
        single = [c for c in frame.columns if CELL_RE.match(c)]
        if len(single) == 1:
            raise ImportFailed(f"only one cell column ({single[0]}) was found; a wide results "
                               f"table has one column per cell, like type_3_len_15 and "
                               f"type_3_len_16. Choose another format.", file=name)
        raise ImportFailed("no cell columns like type_3_len_15 were found, so the file is not a "
                           "wide results table. Choose another format.", file=name)
    (d1, d2), cell_cols = found
    meta = [c for c in frame.columns if c not in cell_cols]
    replicate = _replicate(meta, options, name)
    facets = _facet_columns(frame, meta, replicate, warnings)
    keep = facets + ([replicate] if replicate else [])
    long = frame[keep + cell_cols].melt(id_vars=keep, value_vars=cell_cols, var_name="_cell",
                                        value_name="value")
    parts = long["_cell"].str.extract(CELL_RE)
    dim1, dim2 = _dim_name(d1), _dim_name(d2)
    long[dim1], long[dim2] = parts[1], parts[3]
    long = long.drop(columns="_cell")
    return long, [*facets, dim1, dim2], replicate


def _matrix_replicate(columns: list[str], options: ImportOptions | None) -> str | None:
    """A matrix's replicate column: the one chosen, else one named seed/run/... after the first
    (``model,seed,accuracy``: rows are replicates of the metric columns); '' chooses none."""
    if len(columns) < 3:  # a replicate column and nothing else to average: a plain column
        return None
    if options is not None and options.replicate is not None:
        return options.replicate if options.replicate in columns[1:] else None
    return next((c for c in columns[1:] if c.lower() in REPLICATE_NAMES), None)


def import_matrix(frame: pd.DataFrame, name: str, options: ImportOptions, warnings: list[str]):
    first = frame.columns[0]
    replicate = _matrix_replicate(list(frame.columns), options)
    for col in frame.columns[1:]:
        if col == replicate:
            continue
        not_numbers = _not_numbers(frame[col])
        bad = [frame[col].iloc[int(not_numbers.argmax())]] if not_numbers.any() else []
        if bad:
            hint = ("This file has a 'value' column: choose the tidy format."
                    if "value" in [c.lower() for c in frame.columns] else "Choose another format.")
            raise ImportFailed(f"in the matrix format every column after the first holds "
                               f"numbers, but '{col}' holds '{bad[0]}'. {hint}",
                               file=name, column=col)
    ydim = _dim_name(first) if first.strip() else "row"
    xdim = "column" if ydim != "column" else "col"
    keep = [first]
    if replicate is not None:  # the other columns are metrics measured per replicate
        labels = [c for c in frame.columns[1:] if c != replicate]
        if not any(_is_number(c) for c in labels) and ydim != "metric":
            xdim = "metric"
        keep = [first, replicate]
    # melt into a private name: a column label may itself be "value"
    long = frame.melt(id_vars=keep, var_name="_x", value_name="_value")
    long = long.rename(columns={first: ydim, "_x": xdim, "_value": "value"})
    if (long[ydim] == "").any():
        i = int((frame[first] == "").to_numpy().argmax())
        raise ImportFailed("a row has no label in the first column. Give every row a label.",
                           file=name, row=i + 2)
    return long, [ydim, xdim], replicate


def _replicate(columns: list[str], options: ImportOptions, name: str) -> str | None:
    if options.replicate == "":
        return None
    if options.replicate:
        if options.replicate not in columns:
            raise ImportFailed(f"the replicate column '{options.replicate}' is not in the file "
                               f"(columns: {', '.join(columns)}). Choose one of those, or none.",
                               file=name)
        return options.replicate
    return next((c for c in columns if c.lower() in REPLICATE_NAMES), None)


def _refuse_controls(frame: pd.DataFrame, name: str) -> None:
    """No column name or field may hold a control character (C0 such as NUL, tab or a line
    break inside a quoted field; DEL; C1): the first one, row by row, is named with its row and
    column. Fields are stripped already: surrounding whitespace is not in them."""
    for head in frame.columns:
        if columnar.CONTROL_RE.search(str(head)):
            raise ImportFailed(control_problem(str(head), "column name"), file=name, row=1)
    first = None  # (row, column position)
    for j, col in enumerate(frame.columns):
        i = columnar.first_control(columnar.as_text(frame.iloc[:, j]))
        if i >= 0 and (first is None or i < first[0]):
            first = (i, j)
    if first is not None:
        i, j = first
        raise ImportFailed(control_problem(frame.iloc[i, j]), file=name, row=i + 2,
                           column=str(frame.columns[j]))


def import_table(frame: pd.DataFrame, name: str, options: ImportOptions | None = None,
                 warnings: list[str] | None = None) -> Imported:
    options = options or ImportOptions()
    warnings = list(warnings or [])
    _refuse_controls(frame, name)
    fmt = detect_format(frame, name, options) if options.format == "auto" else options.format
    if fmt not in FORMATS[1:]:
        raise ImportFailed(f"unknown format '{fmt}'. Use one of {', '.join(FORMATS)}.", file=name)
    importer = {"tidy": import_tidy, "wide": import_wide, "matrix": import_matrix,
                "leaderboard": leaderboard.import_leaderboard}[fmt]
    long, dims, replicate = importer(frame, name, options, warnings)

    # numbers: refuse what is not a finite number, naming the first offender
    values = long["value"]
    bad, numbers, parsed = columnar.value_numbers(columnar.as_text(values))
    if bad.any():
        i = int(bad.argmax())
        where = {d: long[d].iloc[i] for d in dims}
        coords = ", ".join(f"{d} {v}" for d, v in where.items())
        raise ImportFailed(f"'{values.iloc[i]}' is not a finite number (cell {coords}). Write a "
                           f"number, or leave the cell empty if there is no result.", file=name)

    x, y = _axes(long, dims, options, name)
    facets = [d for d in dims if d not in (x, y)]
    if fmt != "leaderboard" and _fractions(options, numbers):
        options = replace(options, metric_range=(0.0, 1.0), unit="")
        notes = [FRACTIONS_NOTE]
    else:
        notes = []
    # every given value, before any averaging (a leaderboard's scores have each their own
    # range: leaderboard.describe)
    if options.metric_range is not None and fmt != "leaderboard":
        lo, hi = options.metric_range
        with np.errstate(invalid="ignore"):
            out = (numbers < lo) | (numbers > hi)
        if out.any():
            i = int(out.argmax())
            coords = ", ".join(f"{d} {long[d].iloc[i]}" for d in (*facets, y, x))
            raise ImportFailed(f"the value {long['value'].iloc[i]} (cell {coords}) is outside "
                               f"the range of {options.metric} ({lo:g} to {hi:g}). Fix the number, "
                               f"or set the metric's range.", file=name)
    for opt in OPTIONAL:  # 'SD' is read as 'sd': unless there is one too (kept when no replicate)
        if replicate is None and list(long.columns).count(opt) > 1:
            raise ImportFailed(f"two columns would both be the '{opt}' column (their names differ "
                               f"only in case). Keep one, or rename the other.", file=name)
    encodings: dict = {}
    known: dict = {}  # the values as validation reads them, when pyarrow parsed every one
    cells, replicates = _averaged(long, [*facets, y, x], name, replicate, warnings, parsed,
                                  encodings, known)
    if cells.empty:
        raise ImportFailed("the file holds no values. Fill in at least one cell.", file=name)
    natural = options.order == "natural"
    labels = {d: _order(encodings[d][0], distinct=True, natural=natural) if d in encodings
              else _order(cells[d], natural=natural)
              for d in (*facets, y, x)}
    spec = {
        "id": "import-" + short_slug(name.rsplit("/", 1)[-1].rsplit(".", 1)[0]),
        "file": name,
        "title": name.rsplit("/", 1)[-1],
        "metric": {"name": options.metric, "unit": options.unit,
                   "range": list(options.metric_range) if options.metric_range else None},
        "x": x, "y": y, "facets": facets,
        "dims": {d: {"title": d.replace("_", " ").capitalize(), "labels": labels[d]}
                 for d in (*facets, y, x)},
        "colorscale": "Viridis",
        "zrange": list(options.metric_range) if options.metric_range else None,
        "provenance": "imported",
        "source": {"file": name.rsplit("/", 1)[-1]},
        "notes": [f"Imported from {name.rsplit('/', 1)[-1]} ({fmt} format)."]
        + ([f"Each value is the mean over the '{replicate}' replicates (sd and n kept)."]
           if replicate else []) + notes + warnings,
    }
    if options.metric_range is None:
        spec.pop("zrange")
    if fmt == "leaderboard":
        leaderboard.describe(spec, cells, frame, warnings)
    if replicate:  # means: one more decimal than the inputs carry
        text = columnar.as_text(long["value"])
        given = pc.filter(text, pc.fill_null(pc.not_equal(text, ""), True))
        spec["decimals"] = places(1 + columnar.decimals_written(given, exponent=0))
    complete = len(encodings) == len(labels)
    return Imported(fmt, spec, cells, facets, replicate, replicates, labels, warnings,
                    encodings=encodings if complete else None,
                    columns=[str(c) for c in frame.columns],
                    value_numbers=known.get("value") if complete else None)


FRACTIONS_NOTE = ("Every value lies between 0 and 1: read as fractions (0 to 1; the Percent switch "
                  "shows them as %). If they are percentages, set the unit (the Data page's Unit, "
                  "or evalmaps import --percent).")


def _fractions(options: ImportOptions, numbers: np.ndarray) -> bool:
    """Whether a table given the default metric (0 to 100, %) holds fractions: every value in
    [0, 1] and one at least not 0 or 1 (a table of 0s and 1s could be either: left as given)."""
    if not (options.guess_fractions and options.unit == "%" and options.metric_range == (0.0, 100.0)):
        return False
    finite = numbers[np.isfinite(numbers)]
    return bool(len(finite) and finite.min() >= 0 and finite.max() <= 1
                and ((finite > 0) & (finite < 1)).any())


def _axes(long: pd.DataFrame, dims: list[str], options: ImportOptions, name: str) -> tuple[str, str]:
    for role, chosen in (("x", options.x), ("y", options.y)):
        if chosen is not None and chosen not in dims:
            raise ImportFailed(f"the {role} dimension '{chosen}' is not among the file's "
                               f"dimensions ({', '.join(dims)}).", file=name)
    if options.x and options.y:
        if options.x == options.y:
            raise ImportFailed("x and y must be different dimensions.", file=name)
        return options.x, options.y
    # defaults: the last two dimensions are y then x (wide: type then len; matrix: row, column)
    rest = [d for d in dims if d not in (options.x, options.y)]
    x = options.x or rest.pop()
    y = options.y or [d for d in rest if d != x].pop()
    return x, y
