"""Long texts in imported files (issue 37, red team 11): a CSV field over the csv module's
131,072 characters is read, not refused as a quote that never closes; a JSON Lines file whose
lines are long is read as JSON Lines, not as a CSV; and no import error quotes a file's long
text whole (each is at most a few hundred characters, its start and its fix kept)."""

from __future__ import annotations

import itertools
import json

import pytest

from evalmaps.catalog.imports import import_bytes
from evalmaps.core.errors import DataError
from evalmaps.readers import jsonl
from evalmaps.readers.base import ImportFailed, ImportOptions, Probe

LONG = "x" * 200_000  # over the csv module's default limit of 131,072
HUGE = "y" * 3_000_000  # over pyarrow's block: read by the reference (csv module) reader


@pytest.mark.parametrize("text", [LONG, HUGE], ids=["200k", "3M"])
@pytest.mark.parametrize("quoted", [True, False], ids=["quoted", "bare"])
def test_a_csv_field_longer_than_the_csv_modules_limit_is_read(text, quoted):
    field = f'"{text}"' if quoted else text
    data = f"model,task,value,note\nm1,t1,0.5,{field}\nm2,t1,0.25,short\n".encode()
    imported = import_bytes(data, "long.csv")[0]
    assert imported.format == "tidy" and imported.n_cells == 2
    records = f"item,score,response\nq1,1,{field}\nq2,0,no\n".encode()
    items = import_bytes(records, "items.csv", ImportOptions(fixed={"model": "m"}))[0].items
    assert items is not None and len(items) == 2


def test_json_lines_with_long_lines_are_read_as_json_lines():
    rows = [json.dumps({"model": f"m{i}", "task": "t", "value": 0.5, "note": LONG})
            for i in range(3)]
    data = ("\n".join(rows) + "\n").encode()
    assert jsonl.sniff(Probe(data))
    assert jsonl.sniff(Probe(b"\xef\xbb\xbf" + b" \n" * 100 + data))  # blank lines before it
    imported = import_bytes(data, "long.jsonl")[0]
    assert imported.format == "tidy" and imported.n_cells == 3
    assert not jsonl.sniff(Probe(b"model,task\n" + data))  # a CSV stays a CSV


def test_an_error_quotes_at_most_a_few_hundred_characters_of_a_file():
    """The red team's JSON Lines file (long lines, no item column) printed 100 KB of the file;
    every error an import of a file with long texts raises is short, and keeps its fix."""
    with pytest.raises(ImportFailed) as err:
        import_bytes(("\n".join(json.dumps({"model": "m", "task": "t", "value": 0.5,
                                            "prompt": LONG[:100_000]}) for _ in range(3))
                      + "\n").encode(), "long.jsonl", ImportOptions(item="task2"))[0]
    assert str(err.value) == ("long.jsonl: there is no item column 'task2' (the columns are "
                              "model, task, value, prompt). Name the column that holds each "
                              "item's id with --item COLUMN.")
    with pytest.raises(ImportFailed) as err:  # a header of 200,000 characters, named
        import_bytes(f"model,{LONG},value\nm,t,0.5\n".encode(), "f.csv",
                     ImportOptions(item="task"))[0]
    message = str(err.value)
    assert len(message) <= 400, len(message)
    assert message.startswith("f.csv: there is no item column 'task' (the columns are model, xxx")
    assert "xxx…" in message and message.endswith("with --item COLUMN.")
    spaced = "w " * 50_000
    texts = {
        "header": f"model,{LONG},value\nm,t,0.5\n", "spaced header": f"model,{spaced},value\nm,t,1\n",
        "label": f"model,task,value\n{LONG},t,0.5\n", "value": f"model,task,value\nm,t,{LONG}\n",
        "one column": f"{LONG}\n1\n", "wide": f"model,{LONG}_3\nm,0.5\n",
        "json key": json.dumps({LONG: 1}), "json list": json.dumps([{"model": "m", "task": LONG}]),
        "bad line": '{"model": "m", "task": "t", "value": 0.5}\n{' + LONG + "\n",
        "nested": json.dumps({"model": "m", LONG: {"a": 1}, "value": 0.5}) + "\n",
        "open quote": f'model,task,value\nm,"t{LONG}\n', "control": f"model,task,value\nm,\x01{LONG},1\n",
        "repeated header": f"{LONG},{LONG},value\nm,t,0.5\n",
    }
    options = [ImportOptions(), ImportOptions(item="task"), ImportOptions(x=LONG),
               ImportOptions(item=LONG), ImportOptions(correct=(LONG, "x"))]
    long_errors = []
    for (what, text), opts, name in itertools.product(texts.items(), options,
                                                      ("f.csv", "f.jsonl", "f.json")):
        try:
            import_bytes(text.encode(), name, opts)[0]
        except DataError as exc:
            if len(str(exc)) > 1000:
                long_errors.append((what, name, len(str(exc)), str(exc)[:120]))
    assert long_errors == []
