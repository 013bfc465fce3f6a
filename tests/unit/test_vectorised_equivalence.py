"""The vectorised data path against the row-by-row code it replaced, on generated inputs.

The reference implementations are kept here verbatim (validate_cells as it was; the csv-module
table reader and pandas' reader are still the library's fallbacks). For every generated input the
fast path gives the same result, or the same error: message, row and column.
"""

from __future__ import annotations

import csv
import io
import math
import os
import string

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalmaps import fastcsv
from evalmaps.api import FORMULA_PREFIXES, neutralise
from evalmaps.errors import DataError
from evalmaps.importers import ImportError_, _read_table_csv, read_table
from evalmaps.loading import MAX_DECIMALS, OPTIONAL_COLUMNS, parse_spec, validate_cells
from evalmaps.model import FigureSpec

# EVALMAPS_EQUIVALENCE_EXAMPLES=5000 for a deeper search than the suite's
SETTINGS = settings(max_examples=int(os.environ.get("EVALMAPS_EQUIVALENCE_EXAMPLES", 300)), deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _decimals(text: str) -> int:
    text = text.strip().lower()
    if "e" in text:
        return MAX_DECIMALS
    return len(text.split(".", 1)[1]) if "." in text else 0


# ------------------------------------------------------- the reference: validate_cells as it was

def reference_validate_cells(frame: pd.DataFrame, spec: FigureSpec, file: str) -> tuple[pd.DataFrame, int]:
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


# ----------------------------------------------------------------------------- validate_cells

SPEC = parse_spec({
    "id": "tiny", "file": "tiny.csv", "title": "Tiny",
    "metric": {"name": "Accuracy", "unit": "%", "range": [0, 100]},
    "x": "len", "y": "kind", "facets": ["model"],
    "dims": {"model": {"labels": ["A", "B"]}, "kind": {"labels": ["p", "q"]},
             "len": {"labels": ["1", "2", "3"]}},
    "provenance": "transcribed"}, where="test")
SPEC_NO_RANGE = parse_spec({
    "id": "free", "file": "free.csv", "title": "Free", "metric": {"name": "Score"},
    "x": "len", "y": "kind", "dims": {"kind": {"labels": ["p", "q"]},
                                      "len": {"labels": ["1", "2", "3", "nan"]}},
    "decimals": 2, "provenance": "transcribed"}, where="test")

LABELS = {"model": ["A", "B", " A", "B ", "C", "", "a"],
          "kind": ["p", "q", "\tq", "r", ""],
          "len": ["1", "2", "3", " 3 ", "4", "01", "nan", ""]}
NUMBERS = ["", "5", "5.5", "0.25", "100", "101", "-1", "-0", "-0.0", "0", " 7 ", "  ", "1e2",
           "1E-3", "abc", "inf", "-inf", "NaN", "1_000", "+5", ".5", "5.", "1.50", "99.999",
           "3", "2.5", "12345678901234567890", "0x10", "1,5"]


@st.composite
def tidy_frames(draw):
    spec = draw(st.sampled_from([SPEC, SPEC_NO_RANGE]))
    n = draw(st.integers(min_value=0, max_value=12))
    columns = list(spec.dim_names) + ["value"]
    if draw(st.integers(0, 3)) == 0:
        columns.append("sd")
    if draw(st.integers(0, 3)) == 0:
        columns.append("n")
    if draw(st.integers(0, 15)) == 0:
        columns.append(draw(st.sampled_from(["note", "value", " model", "kind"])))
    if draw(st.integers(0, 15)) == 0:
        columns.remove(draw(st.sampled_from(columns)))
    data = {}
    for i, col in enumerate(columns):
        name = col.strip()
        pool = LABELS.get(name, NUMBERS)
        cells = draw(st.lists(st.sampled_from(pool + [None] if draw(st.integers(0, 9)) == 0
                                              else pool), min_size=n, max_size=n))
        data[i] = cells
    frame = pd.DataFrame(data, dtype="str")
    frame.columns = columns
    return spec, frame


def outcome(fn, frame, spec):
    try:
        cells, decimals = fn(frame.copy(), spec, file="f.csv")
    except DataError as err:
        return ("error", str(err), err.row, err.column)
    return ("ok", cells, decimals)


@SETTINGS
@given(tidy_frames())
def test_validate_cells_matches_the_row_by_row_reference(case):
    spec, frame = case
    got = outcome(validate_cells, frame, spec)
    want = outcome(reference_validate_cells, frame, spec)
    assert got[0] == want[0], (got, want)
    if got[0] == "error":
        assert got == want
    else:
        assert got[2] == want[2]
        pd.testing.assert_frame_equal(got[1], want[1], check_exact=True)
        for col in ("value", "sd", "n"):  # -0.0 and 0.0 are told apart too
            if col in got[1].columns:
                assert np.array_equal(np.signbit(got[1][col].to_numpy()),
                                      np.signbit(want[1][col].to_numpy()))


# ---------------------------------------------------------------------------- reading tables

CSV_ALPHABET = ["a", "b", "1", ",", ";", "\t", '"', "\n", "\r\n", "\r", " ", "", "x y", "é",
                "\u00a0", "\x1c", "\u2028"]


@st.composite
def csv_texts(draw):
    head = draw(st.sampled_from(["m,t,value", "m;t;value", "m\tt\tvalue", "m, t ,value",
                                 "m,m,value", "m,,value", '"m,1",t,value', " ,m,value"]))
    body = draw(st.lists(st.sampled_from(CSV_ALPHABET), max_size=40))
    return head + "\n" + "".join(body)


def read_outcome(fn, text):
    try:
        frame, warnings = fn(text, "t.csv")
    except ImportError_ as err:
        return ("error", str(err), err.row)
    return ("ok", frame, warnings)


def reference_read_table(text, name):
    """read_table with the csv-module reader only."""
    original = fastcsv.read_csv_module_like

    def unsupported(*args, **kwargs):
        raise fastcsv.Unsupported("reference")

    fastcsv.read_csv_module_like = unsupported
    try:
        return read_table(text, name)
    finally:
        fastcsv.read_csv_module_like = original


@SETTINGS
@given(csv_texts())
def test_read_table_matches_the_csv_module_reader(text):
    got = read_outcome(read_table, text)
    want = read_outcome(reference_read_table, text)
    assert got[0] == want[0], (text, got, want)
    if got[0] == "error":
        assert got == want
    else:
        pd.testing.assert_frame_equal(got[1], want[1], check_exact=True)
        assert got[2] == want[2]


@SETTINGS
@given(csv_texts())
def test_pandas_like_reader_matches_pandas_or_steps_aside(text):
    data = text.encode("utf-8")
    try:
        header, columns = fastcsv.read_pandas_like(data)
    except fastcsv.Unsupported:
        return  # pandas reads it (or refuses it) itself
    frame = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, encoding="utf-8")
    assert header == list(frame.columns)
    for i, col in enumerate(columns):
        assert col.to_pylist() == frame.iloc[:, i].tolist(), (text, i)


def test_the_large_file_paths_are_taken_for_plain_files():
    """The fallbacks must stay the exception: a plain file is read by pyarrow."""
    text = "model,kind,value\n" + "".join(f"m{i},k,{i}.5\n" for i in range(50))
    header, columns = fastcsv.read_csv_module_like(text, ",")
    assert header == ["model", "kind", "value"] and len(columns[0]) == 50
    header, columns = fastcsv.read_pandas_like(text.encode())
    assert columns[2].to_pylist()[:2] == ["0.5", "1.5"]


# ------------------------------------------------------------------------------------ numbers

NUMBER_TEXT = st.one_of(
    st.sampled_from(NUMBERS + ["Infinity", "-nan", "1e400", "4.9e-324", "1.", "+.5e1", "e5",
                               "1e", ".", "-", "١٢", "1d5", "0012", "-00"]),
    st.floats(allow_nan=False).map(repr),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
    st.text(alphabet="0123456789.-+eE_ infa", max_size=8))


@SETTINGS
@given(st.lists(NUMBER_TEXT, max_size=10))
def test_numbers_read_as_pandas_and_python_read_them(texts):
    col = fastcsv.as_text(pd.Series(texts, dtype="str"))
    series = pd.Series(texts, dtype="str")
    want = pd.to_numeric(series.where(series != ""), errors="coerce").to_numpy(dtype=float)
    got, given_ = fastcsv.pandas_numbers(col)
    assert np.array_equal(got, want, equal_nan=True), (texts, got, want)
    numbers = ~np.isnan(want)  # a NaN is refused whatever its sign
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers])), texts
    assert given_.tolist() == [t != "" for t in texts]

    def finite(t):
        try:
            return math.isfinite(float(t))
        except ValueError:
            return False
    assert fastcsv.python_numbers(col).tolist() == [finite(t) for t in texts]
    bad, numbers, parsed = fastcsv.value_numbers(col)
    assert bad.tolist() == [t != "" and not finite(t) for t in texts]
    assert np.array_equal(numbers, want, equal_nan=True)
    if parsed is not None:
        for t, v in zip(texts, parsed):
            if t != "":
                assert v == float(t) or (math.isnan(v) and math.isnan(float(t)))


@SETTINGS
@given(st.lists(st.sampled_from(["", "5", "1.50", "0.125", "-3", "1e5", "2E-1", "10.0", "7.",
                                 ".25", "123.4567"]), max_size=8))
def test_decimals_are_counted_as_the_text_writes_them(texts):
    col = fastcsv.as_text(pd.Series(texts, dtype="str"))
    assert fastcsv.decimals_written(col, MAX_DECIMALS) == max(
        (_decimals(t) for t in texts if t), default=0)


# ----------------------------------------------------------------------------------- writing

CELL_TEXT = st.text(alphabet=list(string.ascii_letters[:6] + string.digits[:4]) +
                    [",", '"', "\n", "\r", " ", "=", "+", "-", "@", "\t", ".", "é"], max_size=6)


@SETTINGS
@given(st.integers(2, 4).flatmap(lambda k: st.tuples(
    st.lists(CELL_TEXT.filter(bool), min_size=k, max_size=k, unique=True),
    st.lists(st.lists(CELL_TEXT, min_size=k, max_size=k), max_size=6))))
def test_csv_writer_matches_pandas_to_csv(table):
    names, rows = table
    frame = pd.DataFrame(rows, columns=names, dtype="str") if rows else pd.DataFrame(
        {n: pd.Series([], dtype="str") for n in names})
    for fn, prefixes in ((None, ()), (neutralise, FORMULA_PREFIXES)):
        buf = io.StringIO()
        (frame.map(fn) if fn else frame).to_csv(buf, index=False, lineterminator="\n")
        assert fastcsv.write_csv(frame, fn, prefixes) == buf.getvalue()
