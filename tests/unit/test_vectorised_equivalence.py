"""The vectorised data path against the row-by-row code it replaced, on generated inputs.

The reference is that code, kept verbatim in tests/reference (and the csv-module table reader and
pandas' reader, still the library's fallbacks). For every generated input the fast path gives the
same result, or the same error: message, row and column.
"""

from __future__ import annotations

import csv
import io
import math
import os
import string

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evalmaps.catalog import columnar
from evalmaps.catalog.load import MAX_DECIMALS, parse_spec, validate_cells
from evalmaps.core.errors import DataError
from evalmaps.core.text import NEUTRALISED_PREFIXES, neutralise
from evalmaps.readers import fastcsv
from evalmaps.readers.base import ImportFailed
from evalmaps.readers.csvfile import read_table
from tests.reference.loading import _decimals
from tests.reference.loading import validate_cells as reference_validate_cells

# EVALMAPS_EQUIVALENCE_EXAMPLES=5000 for a deeper search than the suite's
SETTINGS = settings(max_examples=int(os.environ.get("EVALMAPS_EQUIVALENCE_EXAMPLES", 300)), deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


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

# with control characters inside labels (refused, issue 11) and around them (stripped, kept)
LABELS = {"model": ["A", "B", " A", "B ", "C", "", "a", "\x1fA\x85"],
          "kind": ["p", "q", "\tq", "r", ""],
          "len": ["1", "2", "3", " 3 ", "4", "01", "nan", ""]}
# in one frame in four: labels with control characters inside (refused, issue 11)
CONTROL_LABELS = {"model": ["A\x00", "\x01"], "kind": ["q\x7f", "p\x85q"],
                  "len": ["1\x9f", "2\n3"]}
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
    controls = draw(st.integers(0, 3)) == 0
    for i, col in enumerate(columns):
        name = col.strip()
        pool = LABELS.get(name, NUMBERS) + (CONTROL_LABELS.get(name, []) if controls else [])
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
    except ImportFailed as err:
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


def test_a_quoted_line_break_is_read_across_pyarrows_blocks():
    """Without a quote pyarrow splits the file into blocks at any line break; with one it must
    track quotes: a field that holds a line break, in a file of several 1 MB blocks."""
    rows = [[f"m{i}", f"line {i}\nnext" if i % 2 else f"t{i}", f"{i}.5"]
            for i in range(120_000)]
    text = "model,note,value\n" + "".join(
        f'{m},"{t}",{v}\n' if "\n" in t else f"{m},{t},{v}\n" for m, t, v in rows)
    assert len(text) > 2 << 20
    header, columns = fastcsv.read_csv_module_like(text, ",")
    assert header == ["model", "note", "value"]
    assert [c.to_pylist() for c in columns] == [list(col) for col in zip(*rows)]


def test_bytes_that_are_not_utf8_are_left_to_the_reference_reader():
    for data in (b"model,value\n\xff,1\n", b"model,value\n\xc3,1\n"):
        with pytest.raises(fastcsv.Unsupported):
            fastcsv.read_fields(data)


@SETTINGS
@given(st.lists(st.one_of(st.none(), st.sampled_from(["", "a", " ", "é", "long text"])),
                max_size=12), st.integers(0, 3), st.booleans(), st.integers(0, 2))
def test_empty_texts_are_found_in_chunks_slices_and_nulls(texts, cut, large, skip):
    kind = pa.large_string() if large else pa.string()
    cut = min(cut, len(texts))
    chunks = [pa.array(["x"] * skip + texts[:cut], type=kind).slice(skip),
              pa.array(texts[cut:], type=kind)]
    col = pa.chunked_array(chunks, type=kind)
    want = [t == "" for t in texts]  # a null is not an empty text
    assert fastcsv.empty(col).tolist() == want
    assert fastcsv.empty(col.combine_chunks()).tolist() == want


def test_big_columns_encode_in_threads_as_they_would_one_by_one():
    rng = np.random.default_rng(5)
    n = columnar.PARALLEL_ROWS + 1
    columns = [fastcsv.as_text(pd.Series(rng.choice(pool, n), dtype="str"))
               for pool in (["a", "b"], [f"w{i}" for i in range(50)], ["", "x", "y"])]
    got = columnar.encode_all(columns)
    want = [columnar.encode(c) for c in columns]
    assert [labels for labels, _ in got] == [labels for labels, _ in want]
    assert all(np.array_equal(g, w) for (_, g), (_, w) in zip(got, want))
    assert [labels for labels, _ in got][0] in (["a", "b"], ["b", "a"])


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


def test_values_are_the_nearest_double_even_where_pandas_is_not():
    col = fastcsv.as_text(pd.Series(["+3E23", "5", ""], dtype="str"))
    assert pd.to_numeric(pd.Series(["+3E23"])).iloc[0] != 3e23  # pandas' parser is off here
    values, _ = columnar.pandas_numbers(col)
    assert values[0] == 3e23 and values[1] == 5.0 and np.isnan(values[2])
    mixed = fastcsv.as_text(pd.Series(["+3E23", "1_000"], dtype="str"))  # the pandas fallback
    values, _ = columnar.pandas_numbers(mixed)
    assert values[0] == 3e23 and np.isnan(values[1])


@SETTINGS
@given(st.lists(NUMBER_TEXT, max_size=10))
@example(texts=["-0", " 7 "])  # whole numbers pyarrow cannot cast (a space): pandas reads 0
@example(texts=["-0 "])  # one whole number with a space: pandas reads an integer, 0 (not -0)
def test_numbers_read_as_pandas_and_python_read_them(texts):
    col = fastcsv.as_text(pd.Series(texts, dtype="str"))
    series = pd.Series(texts, dtype="str")
    parsed = pd.to_numeric(series.where(series != ""), errors="coerce")
    want = np.array(parsed.to_numpy(dtype=float))
    integers = parsed.dtype.kind in "iu"  # pandas read the column as integers: "-0" is 0
    for i, t in enumerate(texts):  # pandas decides what is a number; its value is the nearest
        if np.isfinite(want[i]):   # double (pandas' own parser is off on '+3E23')
            want[i] = want[i] if (want[i] == 0 and integers) else float(t)
    got, given_ = columnar.pandas_numbers(col)
    assert np.array_equal(got, want, equal_nan=True), (texts, got, want)
    numbers = ~np.isnan(want)  # a NaN is refused whatever its sign
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers])), texts
    assert given_.tolist() == [t != "" for t in texts]

    def finite(t):
        try:
            return math.isfinite(float(t))
        except ValueError:
            return False
    assert columnar.python_numbers(col).tolist() == [finite(t) for t in texts]
    bad, numbers, parsed = columnar.value_numbers(col)
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
    assert columnar.decimals_written(col, MAX_DECIMALS) == max(
        (_decimals(t) for t in texts if t), default=0)


# ----------------------------------------------------------------------------------- writing

CELL_TEXT = st.text(alphabet=list(string.ascii_letters[:6] + string.digits[:4]) +
                    [",", '"', "\n", "\r", " ", "=", "+", "-", "@", "\t", ".", "é", "'"],
                    max_size=6)


@SETTINGS
@given(st.integers(2, 4).flatmap(lambda k: st.tuples(
    st.lists(CELL_TEXT.filter(bool), min_size=k, max_size=k, unique=True),
    st.lists(st.lists(CELL_TEXT, min_size=k, max_size=k), max_size=6))))
def test_csv_writer_matches_pandas_to_csv(table):
    names, rows = table
    frame = pd.DataFrame(rows, columns=names, dtype="str") if rows else pd.DataFrame(
        {n: pd.Series([], dtype="str") for n in names})
    for fn, prefixes in ((None, ()), (neutralise, NEUTRALISED_PREFIXES)):
        buf = io.StringIO()
        # a header cell is neutralised as a value is
        (frame.map(fn).rename(columns=fn) if fn else frame).to_csv(buf, index=False,
                                                                   lineterminator="\n")
        assert columnar.write_csv(frame, fn, prefixes) == buf.getvalue()


# ------------------------------------------------------ the whole import, and catalog loading

from types import SimpleNamespace  # noqa: E402

from evalmaps.catalog import shaping as table  # noqa: E402
from evalmaps.catalog.imports import figure_of, import_bytes  # noqa: E402
from evalmaps.readers import csvfile  # noqa: E402
from evalmaps.readers.base import ImportOptions  # noqa: E402

# the importer as one module, as the reference is
fast_importers = SimpleNamespace(import_bytes=lambda *a, **k: import_bytes(*a, **k)[0],
                                 ImportOptions=ImportOptions,
                                 figure_of=figure_of, read_table=csvfile.read_table,
                                 detect_format=table.detect_format,
                                 _matrix_replicate=table._matrix_replicate)
from evalmaps.catalog.load import load_catalog  # noqa: E402
from tests.reference import importers as ref_importers  # noqa: E402
from tests.reference import loading as ref_loading  # noqa: E402

DIM_NAMES = ["model", "type", "len", "seed", "Run", " size ", "value", "Value", "sd", "n", "note",
             "t\x02"]
FIELD = st.sampled_from(["m1", "m2", " m1", "a", "b", "1", "2", "10", "0.5", "", " ", "-",
                         "x,y", 'q"t', "=1+1", "-3", "5", "5.5", "99.9", "101", "-0", "abc",
                         "inf", "1e2", "7.25", "1_000"])
# in one file in four: fields with control characters inside (refused, issue 11)
CONTROL_FIELD = st.sampled_from(["a\x01", "m\x7f", "x\ny", "b\x9f", "5\x1b"])


@st.composite
def import_files(draw):
    """Small results tables as bytes, tidy-like, wide-like or matrix-like, with their faults."""
    kind = draw(st.sampled_from(["tidy", "tidy", "wide", "matrix"]))
    if kind == "tidy":
        head = draw(st.lists(st.sampled_from(DIM_NAMES), min_size=2, max_size=5, unique=True))
    elif kind == "wide":
        head = ["model", "seed"] + draw(st.lists(st.sampled_from(
            ["type_1_len_1", "type_1_len_2", "type_2_len_1", "type_2_len_2", "kind_1_size_2"]),
            min_size=1, max_size=4, unique=True))
    else:
        head = ["size"] + draw(st.lists(st.sampled_from(["0.1", "0.2", "0.3", "value"]),
                                        min_size=1, max_size=3, unique=True))
    field = st.one_of(FIELD, CONTROL_FIELD) if draw(st.integers(0, 3)) == 0 else FIELD
    rows = draw(st.lists(st.lists(field, min_size=len(head), max_size=len(head)), min_size=0,
                         max_size=8))
    if rows and draw(st.integers(0, 6)) == 0:  # a ragged row
        rows[draw(st.integers(0, len(rows) - 1))].append("9")
    delimiter = draw(st.sampled_from([",", ",", ",", ";", "\t"]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, lineterminator=newline)
    writer.writerow(head)
    for row in rows:
        if draw(st.integers(0, 8)) == 0:
            buf.write(newline)  # a blank line
        writer.writerow(row)
    data = buf.getvalue().encode("utf-8")
    if draw(st.integers(0, 10)) == 0:
        data = b"\xef\xbb\xbf" + data
    mapping = draw(st.sampled_from([
        {}, {"format": "tidy"}, {"replicate": ""}, {"replicate": "seed"}, {"metric_range": None},
        {"format": "matrix"}, {"format": "wide"}, {"x": "model", "y": "type"}]))
    return data, mapping


def error_name(err: Exception) -> str:
    """The error's class name; the reference's ImportError_ is today's ImportFailed."""
    name = type(err).__name__
    return "ImportFailed" if name == "ImportError_" else name


def import_outcome(module, data, mapping):
    """Every stage of an import with ``module``: the Imported, its figure and its CSV export,
    or the first stage's error (class name, message, row, column)."""
    try:
        options = getattr(module, "ImportOptions", None) or module.Mapping  # the reference: old name
        # the reference predates reading a table of values in [0, 1] as fractions (issue 24:
        # test_fraction_tables.py): compared with that off
        later = {"guess_fractions": False} if "guess_fractions" in options.__dataclass_fields__ else {}
        imported = module.import_bytes(data, "t.csv", options(**mapping, **later))
    except DataError as err:
        return [("error", error_name(err), str(err), err.row, err.column)]
    stages = [("imported", imported.format, imported.spec, imported.facets, imported.replicate,
               imported.replicates, imported.dims, imported.warnings, imported.n_cells)]
    tidy = imported.tidy.reset_index(drop=True)
    try:
        figure = getattr(module, "figure_of", lambda i: i.figure())(imported)
    except DataError as err:
        return stages + [("error", error_name(err), str(err), err.row, err.column)]
    panels = {k: (p.facets, p.z.tolist(), None if p.sd is None else p.sd.tolist(),
                  None if p.n is None else p.n.tolist()) for k, p in figure.panels.items()}
    return stages + [("figure", figure.decimals, figure.cells, panels), ("csv", imported.to_csv(),
                                                                         tidy)]


def same_outcome(got, want):
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert g[0] == w[0], (g, w)
        if g[0] == "figure":
            assert g[1] == w[1]
            pd.testing.assert_frame_equal(g[2], w[2], check_exact=True)
            assert repr(g[3]) == repr(w[3])  # NaN-aware, order-aware
        elif g[0] == "csv":
            assert g[1] == w[1]
            pd.testing.assert_frame_equal(g[2], w[2], check_exact=True)
        else:
            assert g == w


def new_since_the_reference(data, mapping, got) -> bool:
    """Cases the row-by-row reference predates (issue 11), tested on their own in
    test_importers.py: a matrix with a replicate column (seed: its rows averaged), cell columns
    in different patterns named as such, a lone wide cell column named; and the leaderboard
    shape (tested in test_formats_tables_and_records.py), which the format-not-recognised message names."""
    first = got[0]
    if first[0] == "error" and ("follow different patterns" in first[2]
                                or "only one cell column" in first[2]
                                or "(leaderboard)" in first[2]):
        return True
    try:
        frame, _ = fast_importers.read_table(data.decode("utf-8-sig"), "t.csv")
        options = fast_importers.ImportOptions(**mapping)
        fmt = options.format if options.format != "auto" else \
            fast_importers.detect_format(frame, "t.csv", options)
    except (DataError, UnicodeDecodeError):
        return False
    return fmt == "leaderboard" or (fmt == "matrix" and fast_importers._matrix_replicate(
        list(frame.columns), options) is not None)


@SETTINGS
@given(import_files())
def test_imports_match_the_row_by_row_importer(case):
    data, mapping = case
    got = import_outcome(fast_importers, data, mapping)
    if new_since_the_reference(data, mapping, got):
        return
    try:
        want = import_outcome(ref_importers, data, mapping)
    except (ValueError, KeyError, TypeError):  # the old importer crashed: now a clear error
        kind, name, message = got[-1][:3]
        assert (kind, name) == ("error", "ImportFailed"), got
        # it names the file and ends with what to do
        assert message.startswith("t.csv") and message.endswith("."), got
        return
    same_outcome(got, want)


def test_value_columns_that_differ_in_case_only_are_a_clear_error():
    data = b"value,Value,model,type\n1,2,m,a\n"
    with pytest.raises(ImportFailed) as info:
        fast_importers.import_bytes(data, "twice.csv")
    assert str(info.value) == ("twice.csv: the columns 'value' and 'Value' would both be the "
                               "'value' column. Keep one, or rename the other.")


CATALOG_CELL = st.sampled_from(["A", "B", "p", "q", "1", "2", "3", " A", "", "5", "5.5", "101",
                                '"A"', '"x,1"', "abc", "-0", "1e1", "7.25"])


@st.composite
def catalog_files(draw):
    head = draw(st.sampled_from(["model,kind,len,value", "model,kind,len,value,sd",
                                 "model,kind,len,value,n", "model, kind ,len,value",
                                 "model,kind,len,value,value", "model,kind,value",
                                 "model,kind,len,value,note", '"model",kind,len,value',
                                 "kind,len,value", "kind,len,value,sd"]))
    width = head.count(",") + 1
    lines = [head]
    for _ in range(draw(st.integers(0, 8))):
        k = width + draw(st.sampled_from([0, 0, 0, 0, 0, 0, -1, 1]))
        lines.append(",".join(draw(st.lists(CATALOG_CELL, min_size=k, max_size=k))))
        if draw(st.integers(0, 10)) == 0:
            lines.append(draw(st.sampled_from(["", "  ", ",,,"])))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return (newline.join(lines) + draw(st.sampled_from([newline, ""]))).encode("utf-8")


CATALOG_ENTRY = {"id": "tiny", "file": "tiny.csv", "metric": {"name": "Accuracy", "range": [0, 100]},
                 "x": "len", "y": "kind", "facets": ["model"],
                 "dims": {"model": {"labels": ["A", "B"]}, "kind": {"labels": ["p", "q"]},
                          "len": {"labels": ["1", "2", "3"]}}, "provenance": "transcribed"}


def catalog_outcome(load, folder):
    try:
        figure = load(folder).figure("tiny")
    except DataError as err:
        return ("error", str(err), err.row, err.column)
    panels = {k: (p.z.tolist(), None if p.sd is None else p.sd.tolist(),
                  None if p.n is None else p.n.tolist()) for k, p in figure.panels.items()}
    return ("ok", figure.decimals, figure.cells, repr(panels))


@SETTINGS
@given(catalog_files())
def test_catalog_files_load_as_the_row_by_row_loader_loads_them(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("cat")
    entry = CATALOG_ENTRY
    if not data.lstrip(b"\xef\xbb\xbf").startswith((b"model", b'"model"')):  # no facet
        entry = {**CATALOG_ENTRY, "facets": [],
                 "dims": {k: v for k, v in CATALOG_ENTRY["dims"].items() if k != "model"}}
    (folder / "catalog.json").write_text(__import__("json").dumps({"figures": [entry]}))
    (folder / "tiny.csv").write_bytes(data)
    got = catalog_outcome(load_catalog, folder)
    try:
        want = catalog_outcome(ref_loading.load_catalog, folder)
    except (IndexError, ValueError, KeyError):  # the old loader crashed (a header-only file
        # without facets): now it loads, or says why, naming the file
        assert got[0] == "ok" or (got[0] == "error" and "tiny.csv" in got[1]
                                  and got[1].endswith(".")), got
        return
    assert got[0] == want[0], (data, got, want)
    if got[0] == "error":
        assert got == want, data
    else:
        assert got[1] == want[1] and got[3] == want[3], data
        pd.testing.assert_frame_equal(got[2], want[2], check_exact=True)
