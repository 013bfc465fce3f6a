"""EvalPerf results: ``<model>_<backend>_temp_<t>_evalperf_results[.brief].json``, one per model:
``config`` (``n_samples``, ``temperature``, ``min_correct``, ...), ``summary`` and ``eval``
keyed by task id (``HumanEval/9``, ``Mbpp/3``), each with ``pass@1`` (percent of the task's
samples that pass), ``dps`` and ``dps_norm`` (its correct samples' efficiency, 0 to 100; null
when fewer than ``min_correct`` samples passed). The script's own output (``n_samples`` and
``eval`` at the top, no ``config``) is read the same.

Dimensions: metric (facet: pass@1, dps, dps_norm), model (y: from the file's name, as EvalPerf
writes it, ``Qwen--Qwen2.5-7B-Instruct``; ``evalperf_results.json`` in a samples folder is named
after the folder) by task (x, in natural order: HumanEval/9 before HumanEval/10). ``summary``
(the means over tasks) is not a cell. No standard error: the files give none.
docs/readers/evalplus.md says more.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from evalmaps.core.text import natural_key
from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    ImportFailed,
    Probe,
    Reading,
    number,
    short,
    text_of,
)

NAME = "evalperf"
DESCRIBES = "EvalPerf results JSON"
TOOL = "EvalPerf results"
TOOL_FILES = "EvalPerf results files"
METRICS = ("pass@1", "dps", "dps_norm")
FILE_RE = re.compile(r"^(?P<model>.+?)_(?P<backend>[^_]+)_temp_(?P<temperature>[^_]+)"
                     r"_evalperf_results(?:\.brief)?\.json$")
PLAIN_RE = re.compile(r"^evalperf_results(?:\.brief)?\.json$")


def sniff(probe: Probe) -> bool:
    """An object with ``eval``: tasks, each with ``pass@1`` and ``dps``."""
    doc = probe.doc
    if not isinstance(doc, dict) or not ("config" in doc or "n_samples" in doc):
        return False
    tasks = doc.get("eval")
    return isinstance(tasks, dict) and bool(tasks) and all(
        isinstance(t, dict) and "pass@1" in t and "dps" in t for t in tasks.values())


def metric_range(label: str):
    return (0, 100)  # pass@1 in percent; dps and dps_norm from 0 to 100


def model_of(file: str) -> str | None:
    """The model a results file's name gives (None: its name gives none)."""
    path = PurePosixPath(file)
    found = FILE_RE.match(path.name)
    if found:
        return found.group("model")
    if PLAIN_RE.match(path.name) and path.parent.name:  # the script's output in a samples folder
        return path.parent.name
    return None


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    reading = Reading(NAME, file)
    doc = probe.doc
    model = model_of(file)
    if model is None:
        model = PurePosixPath(file).name.split(".", 1)[0] or "model"
        reading.warnings.append(f"{short(file)}'s name does not give its model (EvalPerf writes "
                                f"<model>_<backend>_temp_<t>_evalperf_results.json): it is named "
                                f"after the file, '{model}'. Rename the file to choose its name.")
    for task, result in doc["eval"].items():
        for metric in METRICS:
            value = result.get(metric)
            if value is None:  # dps: fewer than min_correct samples passed
                continue
            if number(value) is None:
                raise ImportFailed(f"the {metric} of {str(task)[:100]} is '{str(value)[:100]}', "
                                   f"not a number. Export the results again.", file=file)
            reading.records.append({"model": model, "task": str(task), "metric": metric,
                                    "value": text_of(value), "se": ""})
    reading.metrics["pass@1"] = {"unit": "%"}
    config = doc.get("config") if isinstance(doc.get("config"), dict) else doc
    samples, least = config.get("n_samples"), config.get("min_correct")
    if number(samples) is not None and number(least) is not None:
        reading.notes.append(f"pass@1 is the percent of a task's {samples} samples that pass; "
                             f"dps and dps_norm are given for tasks where at least {least} "
                             f"passed (the others have no cell).")
    return reading


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    return ["metric", "model", "task"]  # a facet, y, then x


def order(dim: str, labels: list[str], records: list[dict]) -> list[str]:
    """pass@1, dps, dps_norm; models and task ids in natural order (HumanEval/9 before
    HumanEval/10)."""
    if dim == "metric":
        return sorted(labels, key=lambda m: (METRICS.index(m) if m in METRICS else len(METRICS),
                                             natural_key(m)))
    return sorted(labels, key=natural_key)
