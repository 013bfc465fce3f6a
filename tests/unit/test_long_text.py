"""Long texts in imported files (issue 37, red team 11): a CSV field over the csv module's
131,072 characters is read, not refused as a quote that never closes; a JSON Lines file whose
lines are long is read as JSON Lines, not as a CSV; and no import error quotes a file's long
text whole (each is at most a few hundred characters, its start and its fix kept)."""

from __future__ import annotations

import json

import pytest

from evalmaps.catalog.imports import import_bytes
from evalmaps.readers import jsonl
from evalmaps.readers.base import ImportOptions, Probe

LONG = "x" * 200_000  # over the csv module's default limit of 131,072
HUGE = "y" * 3_000_000  # over pyarrow's block: read by the reference (csv module) reader


@pytest.mark.parametrize("text", [LONG, HUGE], ids=["200k", "3M"])
@pytest.mark.parametrize("quoted", [True, False], ids=["quoted", "bare"])
def test_a_csv_field_longer_than_the_csv_modules_limit_is_read(text, quoted):
    field = f'"{text}"' if quoted else text
    data = f"model,task,value,note\nm1,t1,0.5,{field}\nm2,t1,0.25,short\n".encode()
    imported = import_bytes(data, "long.csv")
    assert imported.format == "tidy" and imported.n_cells == 2
    records = f"item,score,response\nq1,1,{field}\nq2,0,no\n".encode()
    items = import_bytes(records, "items.csv", ImportOptions(fixed={"model": "m"})).items
    assert items is not None and len(items) == 2


def test_json_lines_with_long_lines_are_read_as_json_lines():
    rows = [json.dumps({"model": f"m{i}", "task": "t", "value": 0.5, "note": LONG})
            for i in range(3)]
    data = ("\n".join(rows) + "\n").encode()
    assert jsonl.sniff(Probe(data))
    assert jsonl.sniff(Probe(b"\xef\xbb\xbf" + b" \n" * 100 + data))  # blank lines before it
    imported = import_bytes(data, "long.jsonl")
    assert imported.format == "tidy" and imported.n_cells == 3
    assert not jsonl.sniff(Probe(b"model,task\n" + data))  # a CSV stays a CSV
