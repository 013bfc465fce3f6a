"""Columnar reading of big tables: CSV through pyarrow, every field kept as the text it is.

The reference readers stay the small, careful ones (pandas for catalog files, :mod:`csv` for
imports): they name the row of a problem. The readers here are fast and promise the *same*
result on the files they accept; on anything they cannot promise that for (a ragged row, a
whitespace-only line, a duplicate header name, ...) they raise :class:`Unsupported` and the caller
falls back to the reference reader, which gives its usual result or its usual error message.

Also here: the few text helpers reading needs (texts as Arrow columns, stripping, control
characters) and Parquet reading (a Parquet table becomes a table of texts, so that it is checked
by the same code as a CSV). What the catalog does to the columns read (numbers, encodings,
decimals, writing CSV) and the memory policy of a load are the column engine,
:mod:`evalmaps.catalog.columnar`.
"""

from __future__ import annotations

import csv
import re
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

TEXT = pa.large_string()  # what pandas' str columns hold: no copy between the two


STRING_TYPES = (pa.string(), pa.large_string())


class Unsupported(Exception):
    """The fast reader cannot promise the reference reader's result on this input."""


def read_fields(data: bytes, delimiter: str = ",", is_ascii: bool | None = None,
                quoted: bool | None = None) -> tuple[list[str], list[pa.ChunkedArray]]:
    """CSV bytes -> (header fields, one array of texts per column), quotes resolved.

    Blank lines are skipped, nothing is stripped or converted. Raises :class:`Unsupported` when
    pyarrow refuses the file (ragged rows, unclosed quotes, invalid UTF-8, a huge row, ...).
    ``is_ascii``, ``quoted``: whether ``data`` is ASCII and holds a quote, when the caller knows.
    """
    first = data[:data.find(b"\n")] if b"\n" in data else data
    guess = first.count(delimiter.encode()) + 1
    types = {f"f{i}": TEXT for i in range(guess)}
    # two scans of the bytes that save pyarrow more than they cost: ASCII is valid UTF-8 as it
    # is, and without a quote no field can hold a line break (pyarrow then splits the file into
    # blocks without tracking quotes)
    is_ascii = data.isascii() if is_ascii is None else is_ascii
    quoted = b'"' in data if quoted is None else quoted
    try:
        table = pcsv.read_csv(
            pa.BufferReader(data),
            read_options=pcsv.ReadOptions(autogenerate_column_names=True, use_threads=True),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, newlines_in_values=quoted),
            convert_options=pcsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                                quoted_strings_can_be_null=False, null_values=[],
                                                check_utf8=not is_ascii))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        raise Unsupported(str(exc)) from None
    if table.num_columns == 0 or table.num_rows == 0:
        raise Unsupported("no header")
    if any(t not in STRING_TYPES for t in table.schema.types):  # more columns than guessed
        raise Unsupported("column types")
    header = [str(table.column(i)[0].as_py()) for i in range(table.num_columns)]
    columns = [table.column(i).slice(1) for i in range(table.num_columns)]
    return header, columns


def read_pandas_like(data: bytes) -> tuple[list[str], list[pa.ChunkedArray]]:
    """What ``pd.read_csv(dtype=str, keep_default_na=False)`` reads, or :class:`Unsupported`.

    pandas renames repeated and empty header names, skips whitespace-only lines, refuses a
    quoted field that runs to the end of the file (pyarrow takes it) and reads a carriage return
    after a newline in its own way; such files, and any file with a quote or a lone carriage
    return, go to pandas itself.
    """
    if b'"' in data:
        raise Unsupported("quotes")
    crs = data.count(b"\r") if b"\r" in data else 0
    if crs and crs != data.count(b"\r\n"):  # pandas reads "\n\r," as neither reader does
        raise Unsupported("lone carriage return")
    header, columns = read_fields(data, quoted=False)
    if len(set(header)) != len(header) or any(h == "" for h in header):
        raise Unsupported("header names pandas would rename")
    if len(header) < 2:  # pandas skips whitespace-only lines, which pyarrow reads as one field
        raise Unsupported("one column")
    return header, columns


def read_csv_module_like(text: str, delimiter: str,
                         data: bytes | None = None) -> tuple[list[str], list[pa.ChunkedArray]]:
    """What :func:`csv.reader` reads from ``text`` (records with only blank fields dropped, every
    field stripped), or :class:`Unsupported`. ``data``: the UTF-8 bytes of ``text`` (a leading
    BOM allowed: pyarrow skips it as the decoding did)."""
    if data is None:
        data = text.encode("utf-8")
    crs = data.count(b"\r") if b"\r" in data else 0
    if crs and crs != data.count(b"\r\n"):  # csv.reader refuses a lone CR outside quotes
        raise Unsupported("lone carriage return")
    is_ascii, quoted = data.isascii(), b'"' in data
    header, columns = read_fields(data, delimiter, is_ascii, quoted)
    limit = csv.field_size_limit()
    if len(data) > limit:  # csv.reader refuses a field longer than its limit
        longest = max([max(len(h) for h in header)]
                      + [int(np.diff(byte_views(chunk)[0]).max(initial=0))
                         for c in columns for chunk in c.chunks])
        if longest > limit:
            raise Unsupported("field over csv's limit")
    if not any(h.strip() for h in header):
        raise Unsupported("blank first record")
    if _may_need_strip(data, delimiter, is_ascii, quoted):
        for i in range(len(columns)):  # in place: each column's unstripped texts freed in turn
            columns[i] = strip(columns[i])
    # records whose every field is empty are dropped (the first column's empties, once)
    blank = empty(columns[0]) if columns else np.zeros(0, bool)
    for col in columns[1:]:
        if not blank.any():
            break
        blank &= empty(col)
    if blank.any():
        keep = pa.array(~blank)
        columns = [c.filter(keep) for c in columns]
    return header, columns


def _may_need_strip(data: bytes, delimiter: str, is_ascii: bool, quoted: bool) -> bool:
    """Whether a field could have surrounding whitespace: not when the file is ASCII without
    quotes and its only whitespace bytes are line breaks and the delimiter (a scan of bytes)."""
    if not is_ascii or quoted:
        return True
    spaces = b" \t\x0b\x0c\x1c\x1d\x1e\x1f".replace(delimiter.encode(), b"")
    return any(data.find(bytes([c])) >= 0 for c in spaces)


def as_text(values) -> pa.ChunkedArray:
    """A pandas Series (or array-like) of strings -> a chunked array of strings (None: null);
    no copy of a pandas str column."""
    try:
        arr = pa.array(values, from_pandas=True)
        if arr.type not in STRING_TYPES:
            arr = pa.array(values, type=TEXT, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        arr = pa.array([v if isinstance(v, str) else None for v in values], type=TEXT)
    return arr if isinstance(arr, pa.ChunkedArray) else pa.chunked_array([arr], type=arr.type)


def strip(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """Every text without surrounding whitespace (what ``str.strip`` removes), nulls kept."""
    return pc.utf8_trim_whitespace(col) if len(col) else col


def empty(col) -> np.ndarray:
    """Where a text is empty (a null is not): where its offsets do not move."""
    parts = []
    for chunk in (col.chunks if isinstance(col, pa.ChunkedArray) else [col]):
        if not len(chunk):
            continue
        offsets = byte_views(chunk)[0]
        mask = offsets[1:] == offsets[:-1]
        if chunk.null_count:
            mask &= chunk.is_valid().to_numpy(zero_copy_only=False)
        parts.append(mask)
    return np.concatenate(parts) if len(parts) > 1 else parts[0] if parts else np.zeros(0, bool)


# control characters: C0 (U+0000 to U+001F: NUL, tab, line breaks, ...), DEL and C1 (U+0080 to
# U+009F). No label may hold one (surrounding whitespace is stripped first).
CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f]")


class ParquetColumnError(ValueError):
    def __init__(self, column: str, type_name: str) -> None:
        super().__init__(column)
        self.column = column
        self.type_name = type_name


_PANDAS_INDEX = re.compile(r"^__index_level_\d+__$")


def parquet_texts(table: pa.Table) -> tuple[list[str], list[pa.ChunkedArray]]:
    """A Parquet table as texts, as a CSV of it would read: numbers in their shortest round-trip
    form without exponent (-0 as 0), nulls as empty cells. Text and number columns only: another
    type raises :class:`ParquetColumnError`. Columns of a pandas index are left out."""
    names, columns = [], []
    for name, col in zip(table.column_names, table.columns):
        if _PANDAS_INDEX.match(name):
            continue
        names.append(name)
        columns.append(_column_text(name, col))
    return names, columns


def _column_text(name: str, col: pa.ChunkedArray) -> pa.ChunkedArray:
    kind = col.type
    if pa.types.is_dictionary(kind):
        col = col.cast(kind.value_type)
        kind = kind.value_type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        text = col.cast(TEXT)
    elif pa.types.is_integer(kind) or pa.types.is_decimal(kind):
        text = col.cast(TEXT)
    elif pa.types.is_floating(kind):
        text = _float_text(col)
    else:
        raise ParquetColumnError(name, str(kind))
    return pc.fill_null(text, "")


def _float_text(col: pa.ChunkedArray) -> pa.ChunkedArray:
    if pa.types.is_float16(col.type):
        col = col.cast(pa.float32())
    col = pc.add(col, pa.scalar(0.0, col.type))  # -0.0 + 0.0 == 0.0
    text = col.cast(TEXT).combine_chunks()
    has_e = pc.greater_equal(pc.find_substring(text, "e"), 0)
    if not pc.any(has_e).as_py():
        return pa.chunked_array([text])
    values = text.to_pylist()
    for i in np.flatnonzero(has_e.to_numpy(zero_copy_only=False)):
        values[i] = _positional(values[i])
    return pa.chunked_array([pa.array(values, type=TEXT)])


def _positional(text: str | None) -> str | None:
    """'1e-07' -> '0.0000001', '1.5e+20' -> '150000000000000000000' (the same number)."""
    if text is None or text.lower() in ("nan", "inf", "-inf"):
        return text
    return format(Decimal(text), "f")


def byte_views(col: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A string array's offsets and bytes as numpy views (no copy)."""
    width = 8 if pa.types.is_large_string(col.type) else 4
    offsets = np.frombuffer(col.buffers()[1], dtype=np.int64 if width == 8 else np.int32,
                            count=len(col) + 1, offset=col.offset * width)
    data = col.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return offsets, raw
