"""JSON Lines (one object per line), or a JSON list of objects, or one flat object: a table,
read as a CSV of the same rows would be (numbers as the text of their value, null as empty)."""

from __future__ import annotations

import json
import math
from operator import itemgetter

import pandas as pd
import pyarrow as pa

from evalmaps.readers import items
from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    ImportFailed,
    NotResults,
    Probe,
    Reading,
    parse_json,
    text_of,
)

NAME = "jsonl"
DESCRIBES = "JSON Lines"
TABLE = True  # its file is one table


def sniff(probe: Probe) -> bool:
    """A JSON list; or lines of which the first is an object; or one object of scalars (a
    one-row table)."""
    if probe.head[:1] == b"[":
        return True
    if probe.head[:1] != b"{":
        return False
    doc = probe.doc
    if doc is None:
        return _jsonl_lines(probe.data)
    return isinstance(doc, dict) and not any(isinstance(v, (dict, list)) for v in doc.values())


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    try:
        # per-item records (a lab's own outputs) may hold nested values (a question's options):
        # those columns are left out, as free text is
        nested_ok = options is not None and bool(options.item or options.correct)
        frame = read_json_table(probe.data, file, nested_ok, probe)
    except UnicodeDecodeError as exc:
        raise ImportFailed(f"the file is not UTF-8 text (byte {exc.start} cannot be read). "
                           f"Save it with UTF-8 encoding.", file=file) from None
    return Reading(NAME, file, table=frame)


def keys_of(rows: list) -> set:
    """Every key of the rows (each row a dict)."""
    keys: set = set()
    last = None
    for _, row in rows:
        if row.keys() != last:
            last = row.keys()
            keys.update(last)
    return keys


def _refuse_nested(row: dict, key, i: int, name: str) -> None:
    records = items.not_cells(row)  # a lab's per-item outputs: name the options
    if records is not None:
        raise ImportFailed(records, file=name)
    raise NotResults(f"the key '{str(key)[:100]}' holds a nested value; a table's "
                     f"cells are text or numbers. Flatten it.", file=name, row=i)


def _nested_slowly(rows: list, name: str, nested_ok: bool) -> set[str]:
    """The columns (stripped keys) that hold a nested value, row by row and key by key (keys
    that are not text, or have spaces around them); refused unless ``nested_ok``."""
    nested: set[str] = set()
    for i, row in rows:
        for key, value in row.items():
            if isinstance(value, (dict, list)) and nested_ok:
                nested.add(str(key).strip())
            elif isinstance(value, (dict, list)):
                _refuse_nested(row, key, i, name)
    return nested


def _jsonl_lines(data: bytes) -> bool:
    """JSON Lines: the first line that is not blank, whole however long (an item's text), is a
    JSON object of its own."""
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end].strip()
        if line:
            return line[:1] == b"{" and isinstance(parse_json(line), dict)
        start = end + 1
    return False


def read_json_table(data: bytes, name: str, nested_ok: bool = False,
                    probe: Probe | None = None) -> pd.DataFrame:
    """JSON Lines (one object per line), or a JSON list of objects -> a table of texts, as a CSV
    of the same rows would read (numbers as the text of their value, null as empty).
    ``nested_ok``: a key that holds a nested value is left out instead of refused. ``probe``:
    the bytes' probe, whose document, parsed already to tell what the file is, is not parsed
    again."""
    doc = probe.doc if probe is not None else None
    # a JSON list parsed already is UTF-8 that reads: not decoded again only to be looked at
    text = "" if isinstance(doc, list) else \
        data.decode("utf-8-sig", errors="strict") if data else ""
    stripped = text.lstrip()
    rows: list = []
    if isinstance(doc, list) or stripped.startswith("["):
        doc = doc if probe is not None else parse_json(data)
        if not isinstance(doc, list):
            raise ImportFailed("this JSON file is not a list of rows that can be read. Write one "
                               "JSON object per row (JSON Lines), or a CSV.", file=name)
        rows = [(i + 1, row) for i, row in enumerate(doc)]
    else:
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append((i, json.loads(line)))
            except ValueError:
                raise ImportFailed("this line is not a JSON object. Write one JSON object per "
                                   "line (JSON Lines).", file=name, row=i) from None
    if not rows:
        raise ImportFailed("the file holds no rows. Write one JSON object per row.", file=name)
    columns: dict[str, None] = {}
    keys = None
    changes = 0  # how often a row's keys are not the row's before
    for i, row in rows:
        if not isinstance(row, dict):
            raise ImportFailed("this row is not a JSON object. Write one object per row, its "
                               "keys the columns.", file=name, row=i)
        if row.keys() != keys:  # a row of other keys than the row before: its new columns
            keys = row.keys()
            changes += 1
            for key in keys:
                columns.setdefault(str(key).strip(), None)
    got: dict[str, list] = {}  # each column's values, as the rows give them
    only_texts: set[str] = set()  # the columns of texts only
    if any(not isinstance(k, str) or k != k.strip() for k in keys_of(rows)):
        nested = _nested_slowly(rows, name, nested_ok)
    else:  # each column's values looked at once, a column of texts only at a glance
        first: dict[str, int] = {}
        dicts = [row for _, row in rows]
        for c in columns:
            # every row has every key when no row's keys differ from the first's
            values = got[c] = list(map(itemgetter(c), dicts)) if changes == 1 else \
                [row.get(c) for row in dicts]
            if all(type(v) is str for v in values):
                only_texts.add(c)
            else:
                at = next((j for j, v in enumerate(values) if isinstance(v, (dict, list))), None)
                if at is not None:
                    first[c] = at
        nested = set(first)
        if first and not nested_ok:
            i, row = rows[min(first.values())]
            key = next(k for k, v in row.items() if isinstance(v, (dict, list)))
            _refuse_nested(row, key, i, name)

    def cell(value) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return text_of(value) if not isinstance(value, float) or math.isfinite(value) \
                else str(value)
        return str(value).strip()

    def texts(c: str) -> list[str]:
        values = got.pop(c) if c in got else [row.get(c) for _, row in rows]
        if c in only_texts or all(type(v) is str for v in values):  # the common column
            return [v.strip() for v in values]
        return [cell(v) for v in values]

    # each column made in Arrow, as pandas keeps its texts (a sixth of the time pandas takes
    # to make them from a list)
    table = {c: pd.array(pa.array(texts(c), pa.large_string()), dtype="str")
             for c in columns if c not in nested}
    return pd.DataFrame(table)
