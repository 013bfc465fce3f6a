"""lm-evaluation-harness per-sample records: ``samples_<task>_<timestamp>.jsonl``, which
``lm_eval --log_samples`` writes beside ``results_<timestamp>.json``. One line per document:
``doc_id``, ``doc_hash``, ``filter``, ``metrics`` (the names of its metric keys) and each
metric's value (``"exact_match": 0.0``), ``arguments`` (the prompt), ``target`` and
``filtered_resps`` (the response).

Each line is a per-item record (:mod:`evalmaps.readers.items`) of the cell (model, task,
metric): the item its ``doc_id``, the metric labelled as the results file labels it
(``exact_match``, or ``exact_match (flexible-extract)`` for a filter other than ``none``). The
task comes from the file's name; the model (and checkpoint) from the results file of the same
timestamp in the same folder (:func:`evalmaps.readers.lm_eval.join_items`), else the folder's
name. The records are read as lm-eval's, so they combine with its results files.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

import pandas as pd

from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    ImportFailed,
    Probe,
    Reading,
    number,
    parse_json,
    short,
)
from evalmaps.readers.lm_eval import STAMP, _metric_label

NAME = "lm-eval-samples"
DESCRIBES = "lm-evaluation-harness per-sample records (samples_*.jsonl)"
READS_AS = "lm-eval"  # its readings combine with lm-eval's results files
NAME_RE = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl?$")


def _first(probe: Probe) -> dict | None:
    first = next((line for line in probe.data[:1 << 20].splitlines() if line.strip()), b"")
    found = parse_json(first)
    return found if isinstance(found, dict) else None


def sniff(probe: Probe) -> bool:
    obj = _first(probe)
    return obj is not None and "doc_id" in obj and isinstance(obj.get("metrics"), list) \
        and bool(obj.keys() & {"doc_hash", "filter", "filtered_resps", "resps"})


def _text(value) -> str | None:
    """A prompt or response as text: the first string inside lists and argument dicts."""
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    if isinstance(value, dict):
        first = next(iter(value.values()), None)
        return _text(first.get("arg_0") if isinstance(first, dict) else first)
    return value if isinstance(value, str) else (None if value in (None, [], ()) else str(value))


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    reading = Reading(READS_AS, file)
    match = NAME_RE.match(PurePosixPath(file).name)
    task = match.group("task") if match else PurePosixPath(file).stem.removeprefix("samples_")
    rows = []
    try:
        text = probe.data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFailed(f"the file is not UTF-8 text (byte {exc.start} cannot be read). "
                           f"Import the file lm_eval wrote.", file=file) from None
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            raise ImportFailed("this line is not a JSON object; lm_eval writes one per line. "
                               "Import the file lm_eval wrote.", file=file, row=i) from None
        if not isinstance(doc, dict) or "doc_id" not in doc:
            raise ImportFailed("this line has no doc_id. Import the samples file lm_eval wrote.",
                               file=file, row=i)
        names = doc.get("metrics") if isinstance(doc.get("metrics"), list) else []
        for metric in names:
            value = doc.get(metric)
            if isinstance(value, bool):
                value = float(value)
            if number(value) is None:
                continue
            rows.append({"task": task, "metric": _metric_label(str(metric), doc.get("filter")),
                         "item": str(doc["doc_id"]), "sample": 0, "score": float(value),
                         "prompt": _text(doc.get("arguments")),
                         "target": None if doc.get("target") is None else str(doc["target"]),
                         "response": _text(doc.get("filtered_resps"))})
    if not rows:
        reading.warnings.append(f"{short(file)} holds no per-sample scores; it adds nothing.")
        return reading
    reading.items = pd.DataFrame(rows)
    reading.items.attrs[STAMP] = match.group("stamp") if match else ""
    return reading
