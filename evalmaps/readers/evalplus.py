"""The EvalPlus leaderboard's ``results.json``: ``{model: {"link", "open-data", "pass@1":
{"humaneval", "humaneval+", "mbpp", "mbpp+"}, "prompted", "size"}}``, pass@1 in percent.

Dimensions: model (y, in natural order) by task (x: the benchmark, as the file names it); one
metric, pass@1, in percent (unit %, range [0, 100]). A benchmark a model has no result for
(``null``) is a missing cell. ``size``, ``prompted``, ``open-data`` and ``link`` describe a
model, not a score: they are left out, with a note (as facets they would split the models into
panels in which every other model is an empty row). EvalPerf's files are
:mod:`evalmaps.readers.evalperf`; docs/readers/evalplus.md says more.
"""

from __future__ import annotations

from evalmaps.core.text import natural_key
from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    ImportFailed,
    Probe,
    Reading,
    number,
    text_of,
)

NAME = "evalplus"
DESCRIBES = "the EvalPlus leaderboard's results.json"
TOOL = "EvalPlus leaderboard"
TOOL_FILES = "EvalPlus leaderboard files"
METRIC = "pass@1"
DESCRIPTIVE = ("size", "prompted", "open-data", "link")  # of a model, not a score


def sniff(probe: Probe) -> bool:
    """An object of models, each with a ``pass@1`` object of benchmarks."""
    doc = probe.doc
    return isinstance(doc, dict) and bool(doc) and all(
        isinstance(entry, dict) and isinstance(entry.get(METRIC), dict)
        for entry in doc.values())


def metric_range(label: str):
    return (0, 100)  # pass@1 in percent


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    reading = Reading(NAME, file)
    described = set()
    for model, entry in probe.doc.items():
        described |= {k for k in DESCRIPTIVE if k in entry}
        for task, value in entry[METRIC].items():
            if value is None:  # no result for this benchmark
                continue
            if number(value) is None:
                raise ImportFailed(f"the pass@1 of {str(model)[:100]} on {str(task)[:100]} is "
                                   f"'{str(value)[:100]}', not a number. Fix the file or remove "
                                   f"the entry.", file=file)
            reading.records.append({"model": str(model), "task": str(task),
                                    "value": text_of(value), "se": ""})
    # records without a metric coordinate are of the metric "score": this file's is pass@1
    reading.metrics["score"] = {"name": METRIC, "unit": "%"}
    if described:
        fields = [k for k in DESCRIPTIVE if k in described]
        listed = ", ".join(fields[:-1]) + " and " + fields[-1] if len(fields) > 1 else fields[0]
        reading.notes.append(f"The leaderboard's {listed} describe each model, not a score: "
                             f"they are not imported.")
    return reading


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    return ["model", "task"]  # y, then x


def order(dim: str, labels: list[str], records: list[dict]) -> list[str]:
    """Models and benchmarks in natural order (CodeGen-2B before CodeGen-16B; humaneval,
    humaneval+, mbpp, mbpp+)."""
    return sorted(labels, key=natural_key)
