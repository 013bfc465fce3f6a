"""Inspect logs: ``.eval`` (a zip whose ``header.json`` holds ``eval`` and ``results``) and
``.json`` logs. Dimensions: model, task, scorer and metric (facets); ``stderr`` becomes ``se``.

The samples (``samples/*.json`` in a ``.eval``, ``samples[]`` in a ``.json`` log) are read as
per-item records (:mod:`evalmaps.readers.items`): the item is the sample's ``id``, the sample its
``epoch``, and each scorer's ``value`` a score as Inspect's ``value_to_float`` reads it (C 1,
I 0, P 0.5, N 0, yes/no, true/false, numbers), under the metric ``accuracy`` (or ``mean``) of
that scorer. The input, target and output's completion are kept as the texts."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import PurePosixPath

import pandas as pd

from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    ImportFailed,
    Note,
    Probe,
    Reading,
    number,
    runs_differ,
    short,
    text_of,
)
from evalmaps.readers.items import value_to_float

NAME = "inspect"
DESCRIBES = "an Inspect log (.eval or .json)"
TOOL = "Inspect log"
TOOL_FILES = "Inspect logs"
MAX_HEADER_BYTES = 64 * 2**20  # an Inspect log's header.json (the samples are not read)


def sniff(probe: Probe) -> bool:
    names = probe.zip_names
    if names is not None:
        return "header.json" in names or "_journal/start.json" in names
    doc = probe.doc
    ev = doc.get("eval") if isinstance(doc, dict) else None
    return isinstance(ev, dict) and "model" in ev and "task" in ev


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    """A log's header -> its values (a ``.eval`` zip's ``header.json``, or a JSON log)."""
    if probe.is_zip:
        data = probe.data
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
            if "header.json" not in archive.namelist():
                raise ImportFailed("this Inspect log has no header.json: the run did not finish, "
                                   "so it holds no results. Import a finished log.", file=file)
            info = archive.getinfo("header.json")
            limit = MAX_HEADER_BYTES if max_bytes is None else max(max_bytes, 2**20)
            if info.file_size > limit:
                raise ImportFailed("this Inspect log's header.json is too large to read. Export "
                                   "the log as JSON, or import a smaller one.", file=file)
            header = json.loads(archive.read("header.json").decode("utf-8"))
        except ImportFailed:
            raise
        except (zipfile.BadZipFile, OSError, ValueError, UnicodeDecodeError, KeyError):
            raise ImportFailed("this Inspect .eval log is damaged (its zip or header.json cannot "
                               "be read). Export the log again.", file=file) from None
        if not isinstance(header, dict):
            raise ImportFailed("this Inspect log's header.json is not a log header. Export the "
                               "log again.", file=file)
        reading = read_inspect(header, file)
        samples = []
        for member in sorted(n for n in archive.namelist()
                             if n.startswith("samples/") and n.endswith(".json")):
            try:
                samples.append(json.loads(archive.read(member).decode("utf-8")))
            except (OSError, ValueError, UnicodeDecodeError, zipfile.BadZipFile):
                reading.warnings.append(f"{short(file)}: the sample {member} cannot be read; "
                                        f"it is left out.")
        _samples(reading, header, samples, file)
        return reading
    reading = read_inspect(probe.doc, file)
    samples = probe.doc.get("samples")
    _samples(reading, probe.doc, samples if isinstance(samples, list) else [], file)
    return reading


def _text(value) -> str | None:
    """An input, target or output as text: a string, a list of strings, or chat messages'
    contents joined."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [_text(v.get("content") if isinstance(v, dict) else v) for v in value]
        return "\n\n".join(p for p in parts if p)
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return value["text"]
        return _text(value.get("content"))
    return str(value)


def _samples(reading: Reading, header: dict, samples: list, file: str) -> None:
    """The log's samples -> ``reading.items`` (see the module's docstring)."""
    if not samples or not reading.records:
        return
    first = reading.records[0]
    metric_of = {}  # scorer -> the metric its samples' mean is
    for rec in reading.records:
        if rec["metric"] in ("accuracy", "mean"):
            metric_of.setdefault(rec["scorer"], rec["metric"])
    rows, unread = [], 0
    for sample in samples:
        if not isinstance(sample, dict) or not isinstance(sample.get("scores"), dict) \
                or sample.get("id") is None:
            continue
        epoch = sample.get("epoch", 1)
        output = sample.get("output") if isinstance(sample.get("output"), dict) else {}
        choices = output.get("choices")
        message = choices[0].get("message") if isinstance(choices, list) and choices \
            and isinstance(choices[0], dict) else None
        response = output.get("completion") or _text(message)
        for scorer, score in sample["scores"].items():
            if scorer not in metric_of or not isinstance(score, dict):
                continue
            value = value_to_float(score.get("value"))
            if value is None:
                unread += 1
                value = 0.0  # as Inspect counts it
            rows.append({"model": first["model"], "task": first["task"], "scorer": scorer,
                         "metric": metric_of[scorer], "run": first["run"],
                         "item": str(sample["id"]),
                         "sample": int(epoch) if isinstance(epoch, int) else 1,
                         "score": value, "prompt": _text(sample.get("input")),
                         "target": _text(sample.get("target")), "response": response})
    if unread:
        reading.warnings.append(f"{short(file)}: {unread} sample score(s) are not a number or "
                                f"a letter Inspect reads (C, I, P, N); they count 0, as Inspect "
                                f"counts them.")
    if rows:
        reading.items = pd.DataFrame(rows)


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    """Scorer and metric as facets, model by task; several logs of one model and task that
    differ are each a run (the facet ``run``, named by its file)."""
    dims = ["scorer", "metric", "model", "task"]
    if runs_differ(records, dims):
        # the values stay as each log gives them; nothing is averaged
        warnings.append("Several logs give the same model and task with different scores: "
                        "each log is a run (the facet 'run', named by its file).")
        return ["run", *dims]
    return dims


def read_inspect(header: dict, file: str) -> Reading:
    """One Inspect log's header (``eval``, ``results``) -> its values."""
    reading = Reading(NAME, file)
    ev = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    model, task = str(ev.get("model", "")).strip(), str(ev.get("task", "")).strip()
    if not model or not task:
        raise ImportFailed("this Inspect log names no model or no task (eval.model, eval.task). "
                           "Import a complete log.", file=file)
    status = header.get("status")
    if status not in (None, "success"):
        reading.warnings.append(Note(f"{short(file)}: the run's status is '{status}'; its scores "
                                     f"are those the log gives."))
    results = header.get("results") if isinstance(header.get("results"), dict) else {}
    scores = results.get("scores") if isinstance(results.get("scores"), list) else []
    for score in scores:
        if not isinstance(score, dict) or not isinstance(score.get("metrics"), dict):
            continue
        scorer = str(score.get("name") or score.get("scorer") or "score")
        metrics = {str(k): m.get("value") for k, m in score["metrics"].items()
                   if isinstance(m, dict)}
        stderr = metrics.get("stderr")
        has_mean = any(k in metrics for k in ("accuracy", "mean"))
        for metric, value in metrics.items():
            if number(value) is None or (metric == "stderr" and has_mean):
                continue
            se = stderr if metric in ("accuracy", "mean") and number(stderr) is not None \
                and stderr >= 0 else None
            reading.records.append({"model": model, "task": task, "scorer": scorer,
                                    "metric": metric, "value": text_of(value),
                                    "se": "" if se is None else text_of(se),
                                    "run": PurePosixPath(file).stem})
    if not reading.records:
        reading.warnings.append(f"{short(file)} holds no scores (results.scores is empty); it "
                                f"adds no cells.")
    return reading
