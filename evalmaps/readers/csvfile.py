"""CSV (comma, semicolon or tab separated, UTF-8): the reader of last resort, for bytes that no
other reader claims and that are not one JSON document. Its errors say what is wrong with the
text (binary, not UTF-8, one column, ragged rows ...)."""

from __future__ import annotations

import csv
import io
import re

import pandas as pd

from evalmaps.readers import fastcsv
from evalmaps.readers.base import DEFAULT_MAX_BYTES, ImportFailed, Probe, Reading, check_header

MAX_COLUMNS = 5000  # refused before parsing: a results table has far fewer
# a field may be as long as its file (an item's prompt or response): the csv module's default
# limit (131,072 characters) refused a longer one as a quote that never closes. Raised once, for
# the process (the limit is the module's own), to the largest a C long holds everywhere.
FIELD_LIMIT = 2**31 - 1
csv.field_size_limit(max(csv.field_size_limit(), FIELD_LIMIT))

NAME = "csv"
DESCRIBES = "CSV"
TABLE = True  # its file is one table
DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab"}


def sniff(probe: Probe) -> bool:
    """Anything that is not one JSON document (the CSV reader says what is wrong with it)."""
    return probe.doc is None


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    """The file's table of texts (its separator, when not a comma, said in a warning). A header
    of more than :data:`MAX_COLUMNS` fields is refused before any parsing, on every path."""
    problem = too_many_columns(probe.data, file)
    if problem:
        raise ImportFailed(problem)
    # memory: the catalog's import reads a table within its lean_memory (the policy)
    text = _decode_unless_ascii(probe.data, file, max_bytes)
    frame, warnings = _read_table(text, file, probe.data)
    return Reading(NAME, file, table=frame, warnings=warnings)


def _mb_pair(size: int, limit: int) -> tuple[str, str]:
    """Size and limit in MB (MiB, as the limit is set), with enough decimals to tell them apart."""
    for decimals in range(1, 8):
        shown = f"{size / 2**20:.{decimals}f}", f"{limit / 2**20:.{decimals}f}"
        if shown[0] != shown[1]:
            return shown
    return shown


def decode(data: bytes, name: str, max_bytes: int | None = DEFAULT_MAX_BYTES) -> str:
    """Bytes -> text, refusing what is not a CSV: too big, empty, binary, not UTF-8.

    ``max_bytes`` is the browser upload's limit; None (files on disk, the CLI): no limit.
    """
    if max_bytes is not None and len(data) > max_bytes:
        size, limit = _mb_pair(len(data), max_bytes)
        raise ImportFailed(f"the file is {size} MB, over the {limit} MB limit. Split it, or "
                           f"drop unused columns.", file=name)
    if not data or data.isspace():  # what strip() would leave empty, without copying the file
        raise ImportFailed("the file is empty. It needs a header row and at least one data row.",
                           file=name)
    if b"\x00" in data[:8192]:
        raise ImportFailed("the file is binary, not a CSV text file. Export it as CSV "
                           "(comma-separated, UTF-8) and try again.", file=name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFailed(f"the file is not UTF-8 text (byte {exc.start} cannot be read). "
                           f"Save it as CSV with UTF-8 encoding.", file=name) from None
    if not text or text.isspace():
        raise ImportFailed("the file is empty. It needs a header row and at least one data row.",
                           file=name)
    return text


def _first_lines(text: str, count: int, ascii_bytes: bytes | None = None) -> list[str]:
    """The first ``count`` non-blank lines of ``text`` (as ``str.splitlines`` splits them),
    without splitting the whole text. ``ascii_bytes``: the text as ASCII bytes, when ``text`` was
    not built (``text`` is then None)."""
    size = 1 << 16
    whole = len(text) if text is not None else len(ascii_bytes)
    while True:
        prefix = text[:size] if text is not None else ascii_bytes[:size].decode("ascii")
        lines = [line for line in prefix.splitlines() if line.strip()]
        if size >= whole or len(lines) > count:
            return lines[:count]
        size *= 4


_NOT_SPACE = re.compile(rb"[^\t\n\x0b\x0c\r\x1c-\x1f ]")  # ASCII that str.strip() keeps


def _decode_unless_ascii(data: bytes, name: str, max_bytes: int | None) -> str | None:
    """:func:`decode`, its checks and errors; but for an ASCII file (valid UTF-8 as it is, no BOM)
    the text is not built: None. Saves a copy of a big file."""
    if not data.isascii():
        return decode(data, name, max_bytes)
    if (max_bytes is not None and len(data) > max_bytes) or b"\x00" in data[:8192] \
            or _NOT_SPACE.search(data) is None:
        return decode(data, name, max_bytes)  # raises its error
    return None


def read_table(text: str, name: str) -> tuple[pd.DataFrame, list[str]]:
    """Text -> a table of strings, checking delimiter, header and ragged rows."""
    return _read_table(text, name)


def _read_table(text: str | None, name: str,
                raw: bytes | None = None) -> tuple[pd.DataFrame, list[str]]:
    """:func:`read_table`; ``raw``: the bytes ``text`` was decoded from (UTF-8, a BOM allowed),
    read as they are instead of encoding the text again. ``text`` None: ``raw`` is ASCII and the
    text is built only if the reference reader needs it."""
    warnings: list[str] = []
    lines = _first_lines(text, 2, raw if text is None else None)
    header = lines[0]
    counts = {d: header.count(d) for d in DELIMITERS}
    delimiter = max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","
    if not any(counts.values()):
        for odd in ("|", ":", " "):
            if header.count(odd) >= 1 and len(lines) > 1 and lines[1].count(odd) >= 1:
                raise ImportFailed(f"the header has one column only; the file seems to separate "
                                   f"columns with '{odd}'. Save it with commas (or semicolons or "
                                   f"tabs) between columns.", file=name)
        raise ImportFailed("the header has one column only. A CSV needs at least a label column "
                           "and a value column, separated by commas.", file=name)
    if delimiter != ",":
        warnings.append(f"Read as {DELIMITERS[delimiter]}-separated.")
    try:  # pyarrow, when it reads the file exactly as the csv module would
        fields, columns = fastcsv.read_csv_module_like(text, delimiter, raw)
    except fastcsv.Unsupported:
        text = raw.decode("ascii") if text is None else text
        return _read_table_csv(text, name, delimiter), warnings
    head = [h.strip() for h in fields]
    if not len(columns[0]):
        raise ImportFailed("the file has a header but no data rows. Add one row per result.",
                           file=name)
    check_header(head, name)
    frame = pd.DataFrame({h: pd.Series(c.to_pandas(), dtype="str") for h, c in zip(head, columns)})
    return frame, warnings


def _read_table_csv(text: str, name: str, delimiter: str) -> pd.DataFrame:
    """The reference reader (row by row, with the csv module): it names the row of a problem."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    numbered: list[tuple[int, list[str]]] = []  # (row number as a spreadsheet shows it, fields)
    try:
        start = 1
        for record in reader:
            if any(cell.strip() for cell in record):
                numbered.append((start, record))
            start = reader.line_num + 1  # a quoted field may span lines: number by the first
    except csv.Error:
        raise ImportFailed("a quote (\") opens a field that never closes, so the rows after it "
                           "cannot be read. Close or remove the stray quote.", file=name,
                           row=reader.line_num) from None
    rows = [r for _, r in numbered]
    head = [h.strip() for h in rows[0]]
    if len(rows) == 1:
        raise ImportFailed("the file has a header but no data rows. Add one row per result.",
                           file=name)
    check_header(head, name)
    for i, row in numbered[1:]:
        if len(row) != len(head):
            raise ImportFailed(f"this row has {len(row)} fields but the header has {len(head)}. "
                               f"Fix the row (a stray {DELIMITERS[delimiter]}? a missing "
                               f"cell?) so every row has the header's columns.", file=name, row=i)
    return pd.DataFrame([[c.strip() for c in r] for r in rows[1:]], columns=head, dtype=str)


def too_many_columns(data: bytes, name: str) -> str | None:
    """A sentence when a text file's header has more than :data:`MAX_COLUMNS` fields (checked
    before any parsing), else None."""
    head = data[:2**20]
    end = head.find(b"\n")
    line = head if end < 0 else head[:end]
    if b"\0" in line[:8]:  # binary (zip, Parquet): the importer decides
        return None
    fields = max(line.count(sep) for sep in (b",", b";", b"\t")) + 1
    if fields > MAX_COLUMNS or (end < 0 and len(data) > 2**20):
        return (f"{name}: its header has more than {MAX_COLUMNS:,} columns. A results table has "
                f"one column per dimension and a value (or one per cell of a wide table); "
                f"split the file or make it tidy.")
    return None
