"""What a file that no format reads is nearest to, from its bytes: the per-sample files that
evaluation tools write beside their results (lm-evaluation-harness' ``samples_*.jsonl``,
lighteval's ``details_*.parquet``, an Inspect sample taken out of its ``.eval`` log). Each is
named with the file to import instead; :func:`evalmaps.catalog.imports.not_known` says it.
Cheap: the first line, the parsed JSON document or the Parquet schema, never the rows."""

from __future__ import annotations

import io

from evalmaps.readers.base import Probe, parse_json

# (what the file looks like, what to import instead)
LM_EVAL_SAMPLES = ("lm-evaluation-harness per-sample records (samples_*.jsonl)",
                   "the results_*.json beside it")
LIGHTEVAL_DETAILS = ("a lighteval details file (details_*.parquet, one row per sample)",
                     "the results_*.json of the same run")
INSPECT_SAMPLE = ("one sample of an Inspect log (samples/<id>_epoch_<n>.json, from inside a "
                  ".eval log)", "the .eval log itself")

def _first_object(probe: Probe) -> dict | None:
    """The parsed document when it is an object, else the first line's object (JSON Lines), else
    a list's first object."""
    doc = probe.doc
    if isinstance(doc, list):
        return doc[0] if doc and isinstance(doc[0], dict) else None
    if isinstance(doc, dict):
        return doc
    if probe.head[:1] != b"{":
        return None
    first = next((line for line in probe.data[:1 << 20].splitlines() if line.strip()), b"")
    found = parse_json(first)
    return found if isinstance(found, dict) else None


def _parquet_columns(data: bytes) -> set[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return set(pq.read_schema(io.BytesIO(data)).names)
    except (pa.ArrowException, OSError, ValueError):
        return set()


def hint(probe: Probe) -> tuple[str, str] | None:
    """What the file looks like and what to import instead (None: nothing near)."""
    if probe.data[:4] == b"PAR1":
        columns = _parquet_columns(probe.data)
        if {"predictions", "metrics"} <= columns and columns & {"example", "full_prompt",
                                                                  "gold", "choices"}:
            return LIGHTEVAL_DETAILS
        return None
    obj = _first_object(probe)
    if obj is None:
        return None
    if "doc_id" in obj and obj.keys() & {"doc_hash", "filter", "filtered_resps", "resps"}:
        return LM_EVAL_SAMPLES
    if {"id", "epoch"} <= obj.keys() and obj.keys() & {"scores", "messages", "output"}:
        return INSPECT_SAMPLE
    return None
