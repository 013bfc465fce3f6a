"""lighteval's per-sample details: ``details_<suite|task|shots>_<timestamp>.parquet``, which
lighteval writes under ``details/<model>/<timestamp>/`` beside ``results/<model>/
results_<timestamp>.json``. One row per document. Two layouts, as lighteval versions write them:

- ``doc`` (query, choices, gold_index, id, ...), ``model_response`` (text, ...) and ``metric``
  (a metric's name -> this document's value), lighteval >= 0.10;
- ``example``/``full_prompt``, ``predictions``, ``gold``, ``metrics`` (the same map), earlier.

Each row and metric is a per-item record (:mod:`evalmaps.readers.items`) of the cell (model,
task, metric) as lighteval's results file names it: the item the document's ``id`` where it has
one, else its row (lighteval writes a task's documents in one order for every model), the score
the metric's value. The suite, task and few-shot count come from the file's name; the model from
the results file of the same timestamp, else the folder above the timestamp's. The records are
read as lighteval's, so they combine with its results files.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import PurePosixPath

import pandas as pd

from evalmaps.readers.base import DEFAULT_MAX_BYTES, ImportFailed, Probe, Reading, number, short

NAME = "lighteval-details"
DESCRIBES = "lighteval details (details_*.parquet)"
READS_AS = "lighteval"  # its readings combine with lighteval's results files
NAME_RE = re.compile(r"^details_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[0-9.\-:]+)\.parquet$")
METRIC_COLUMNS = ("metric", "metrics")


def _columns(data: bytes) -> set[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return set(pq.read_schema(io.BytesIO(data)).names)
    except (pa.ArrowException, OSError, ValueError):
        return set()


def sniff(probe: Probe) -> bool:
    if probe.data[:4] != b"PAR1":
        return False
    columns = _columns(probe.data)
    return bool(columns & set(METRIC_COLUMNS)) and bool(
        columns & {"doc", "example", "full_prompt", "predictions", "model_response"})


def _first_text(value) -> str | None:
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    if value is None or isinstance(value, (list, tuple, dict)):
        return None
    return str(value)


def _map(value) -> dict:
    """A row's metrics: a struct (dict), a map (list of pairs) or JSON text."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    if isinstance(value, list):
        value = dict(pair for pair in value if isinstance(pair, tuple) and len(pair) == 2)
    return value if isinstance(value, dict) else {}


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from evalmaps.readers.lighteval import NONE, STAMP, split_key

    reading = Reading(READS_AS, file)
    match = NAME_RE.match(PurePosixPath(file).name)
    key = match.group("task") if match else PurePosixPath(file).stem.removeprefix("details_")
    suite, task, shots = split_key(key)
    try:
        rows = pq.read_table(io.BytesIO(probe.data)).to_pylist()
    except (pa.ArrowException, OSError, ValueError):
        raise ImportFailed("this lighteval details file cannot be read as Parquet. Import the "
                           "file lighteval wrote.", file=file) from None
    metric_col = next(c for c in METRIC_COLUMNS if rows and c in rows[0]) if rows else None
    records = []
    for i, row in enumerate(rows):
        doc = row.get("doc") if isinstance(row.get("doc"), dict) else {}
        item = doc.get("id") if doc.get("id") not in (None, "") else i
        response = row.get("model_response")
        response = response.get("text") if isinstance(response, dict) else row.get("predictions")
        gold = row.get("gold")
        if gold is None and isinstance(doc.get("choices"), list):
            index = doc.get("gold_index")
            index = index[0] if isinstance(index, list) and index else index
            gold = doc["choices"][index] if isinstance(index, int) \
                and 0 <= index < len(doc["choices"]) else None
        prompt = row.get("full_prompt") or doc.get("query") or row.get("example")
        for metric, value in _map(row.get(metric_col)).items():
            if isinstance(value, bool):
                value = float(value)
            if number(value) is None:
                continue
            records.append({"task": task, "metric": str(metric), "k": NONE, "samples": NONE,
                            "suite": suite, "shots": shots, "item": str(item), "sample": 0,
                            "score": float(value), "prompt": _first_text(prompt),
                            "target": _first_text(gold), "response": _first_text(response)})
    if not records:
        reading.warnings.append(f"{short(file)} holds no per-sample metric values; it adds "
                                f"nothing.")
        return reading
    reading.items = pd.DataFrame(records)
    reading.items.attrs[STAMP] = match.group("stamp") if match else ""
    return reading
