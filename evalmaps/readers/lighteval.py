"""lighteval results JSON (``results_<timestamp>.json``): ``config_general`` (``model_name``)
and ``results`` keyed ``suite|task|few-shot`` (older: ``task|few-shot``; some versions add a
fourth field, truncate-few-shots: ``lighteval|math_500|0|0``), each with ``<metric>`` and
``<metric>_stderr`` pairs. docs/readers/lighteval.md says what becomes what.

- model: ``config_general.model_name`` as written;
- task: the key's task field as written (``german_rag_eval:choose_question_by_context``); the
  suite and the few-shot count are dimensions only when the files hold one task under more than
  one of them, else a note says what they are;
- metric (a facet), the stderr as ``se``; pass@k in either spelling (``math_pass@1:64_samples``,
  ``pass@k:k=1&n=1``) is the metric ``pass@k`` with ``k`` and ``samples`` as dimensions;
- the averages lighteval adds (``all``, ``<task>:_average``) are not tasks: left out, in a note.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    Note,
    Probe,
    Reading,
    number,
    short,
    text_of,
)

NAME = "lighteval"
DESCRIBES = "lighteval results JSON"
TOOL = "lighteval results"
TOOL_FILES = "lighteval results files"

AVERAGES_NOTE = re.compile(r"^The averages lighteval adds \((.*)\) are means over tasks")
NONE = "-"  # the label of a dimension a record does not have (k of acc; a key without a suite)
AVERAGE_SUFFIX = ":_average"  # mmlu:_average|5: lighteval's mean over a task's subtasks

# pass@k as lighteval names it: older "math_pass@1:64_samples", "pass@10:32_samples"; newer
# "pass@k:k=1&n=1" (the metric's parameters, joined with "&")
OLD_PASS = re.compile(r"^(?P<prefix>[A-Za-z0-9]+_)?pass@(?P<k>\d+):(?P<n>\d+)_samples$")
NEW_PASS = re.compile(r"^(?P<prefix>[A-Za-z0-9]+_)?pass@k:(?P<params>[^:]+)$")

# lighteval metrics that are fractions (0..1): given the range [0, 1] when every value fits
FRACTIONS = ("acc", "acc_norm", "acc_norm_nospace", "acc_norm_token", "acc_norm_pmi", "qem",
             "em", "exact_match", "quasi_exact_match", "prefix_exact_match",
             "prefix_quasi_exact_match", "extractive_match", "truthfulqa_mc1", "truthfulqa_mc2",
             "mc1", "mc2", "f1", "pass@k", "loglikelihood_acc", "loglikelihood_acc_norm")


def sniff(probe: Probe) -> bool:
    doc = probe.doc
    return isinstance(doc, dict) and isinstance(doc.get("config_general"), dict) \
        and isinstance(doc.get("results"), dict)


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    return read_lighteval(probe.doc, file)


def split_key(key: str) -> tuple[str, str, str]:
    """A results key -> (suite, task, few-shot label), NONE where the key has no such field:
    ``community|german_rag_eval:choose_question_by_context|0`` -> ("community",
    "german_rag_eval:choose_question_by_context", "0"); ``gsm8k|5`` -> ("-", "gsm8k", "5");
    ``lighteval|math_500|0|1`` -> ("lighteval", "math_500", "0, truncated")."""
    parts = key.split("|")
    if len(parts) == 4 and parts[2].isdigit() and parts[3] in ("0", "1"):
        return parts[0], parts[1], parts[2] + (", truncated" if parts[3] == "1" else "")
    if len(parts) == 3 and parts[2].isdigit():
        return parts[0], parts[1], parts[2]
    if len(parts) == 2 and parts[1].isdigit():
        return NONE, parts[0], parts[1]
    return NONE, key, NONE


def pass_at_k(metric: str) -> tuple[str, str, str] | None:
    """(prefix, k, samples) of a pass@k metric name, or None (any other metric, or pass@k with
    parameters other than k and n, which keeps its name)."""
    m = OLD_PASS.match(metric)
    if m:
        return m.group("prefix") or "", str(int(m.group("k"))), str(int(m.group("n")))
    m = NEW_PASS.match(metric)
    if m:
        params = dict(p.split("=", 1) for p in m.group("params").split("&") if "=" in p)
        if set(params) == {"k", "n"} and params["k"].isdigit() and params["n"].isdigit():
            return m.group("prefix") or "", str(int(params["k"])), str(int(params["n"]))
    return None


def _directions(config_tasks) -> dict[str, bool]:
    """metric name -> higher is better, where the file says (newer lighteval writes each task's
    metrics with ``metric_name`` and ``higher_is_better``; older ones only their names)."""
    said: dict[str, bool] = {}
    if not isinstance(config_tasks, dict):
        return said
    for config in config_tasks.values():
        metrics = config.get("metrics") if isinstance(config, dict) else None
        for metric in metrics if isinstance(metrics, list) else []:
            if not isinstance(metric, dict):
                continue
            name, better = metric.get("metric_name"), metric.get("higher_is_better")
            if isinstance(name, str) and isinstance(better, bool):
                said[name] = better
            elif isinstance(name, list) and isinstance(better, dict):
                said.update({n: b for n, b in better.items()
                             if isinstance(n, str) and isinstance(b, bool)})
    return said


def _model(general: dict, file: str, reading: Reading) -> str:
    for source in (general, general.get("model_config")):
        name = source.get("model_name") if isinstance(source, dict) else None
        if isinstance(name, str) and name.strip():
            return name.strip()
    parent = PurePosixPath(file).parent.name
    model = parent or PurePosixPath(file).stem
    reading.warnings.append(f"{short(file)} names no model (no config_general.model_name): it is "
                            f"named after its {'folder' if parent else 'file'}, '{model}'. "
                            f"Rename the {'folder' if parent else 'file'} to name the model.")
    return model


def read_lighteval(doc: dict, file: str) -> Reading:
    """One lighteval results file -> its values."""
    reading = Reading(NAME, file)
    model = _model(doc["config_general"], file, reading)
    said = _directions(doc.get("config_tasks"))
    averages: list[str] = []
    values: dict[str, list[float]] = {}  # metric label -> its values (for the range)
    for key, metrics in doc["results"].items():
        if not isinstance(metrics, dict):
            continue
        suite, task, shots = split_key(str(key))
        if key == "all" or task.endswith(AVERAGE_SUFFIX):
            averages.append(task)
            continue
        errors = {m[:-len("_stderr")]: v for m, v in metrics.items()
                  if isinstance(m, str) and m.endswith("_stderr")}
        taken: set[tuple[str, str, str]] = set()
        for metric, value in metrics.items():
            if not isinstance(metric, str) or metric.endswith("_stderr") or number(value) is None:
                continue
            found = pass_at_k(metric)
            label, k, samples = metric, NONE, NONE
            if found is not None:
                _, k, samples = found
                label = "pass@k"
                if (label, k, samples) in taken:  # math_pass@1 and pass@1 of one task: keep both
                    label = metric
            taken.add((label, k, samples))
            se = errors.get(metric)
            reading.records.append({
                "model": model, "task": task, "metric": label, "k": k, "samples": samples,
                "suite": suite, "shots": shots, "value": text_of(value),
                "se": text_of(se) if number(se) is not None and se >= 0 else ""})
            values.setdefault(label, []).append(float(value))
            better = said.get(metric, said.get(label))
            if isinstance(better, bool):
                reading.lower[label] = not better
    for label, given in values.items():
        if (label.endswith("pass@k") or label in FRACTIONS) and all(0 <= v <= 1 for v in given):
            reading.metrics[label] = {"range": [0, 1]}
    if averages:
        reading.warnings.append(_averages_note(averages))
    return reading


def _averages_note(averages) -> str:
    names = ", ".join(f"'{a}'" for a in sorted(set(averages), key=lambda a: (a != "all", a)))
    return Note(f"The averages lighteval adds ({names}) are means over tasks, not tasks: they are "
                f"not imported.")


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    """Model by task, metric a facet (then k and samples when there is pass@k); the suite and
    the few-shot count become facets only where one task comes with more than one of them (so
    two models' values of a task side by side were run alike), else a note says what they are.
    A note many files repeat is said once.

    With pass@k, ``records`` is put in order of k and samples (the other metrics, "-", first;
    stable otherwise), in place: labels are ordered as they first appear, so k and samples read
    1, 10, 100 rather than in the files' order."""
    facets = ["metric"]
    if any(rec["k"] != NONE for _, rec in records):
        facets += ["k", "samples"]
        records.sort(key=lambda item: (item[1]["k"] != NONE, _count(item[1]["k"]),
                                       _count(item[1]["samples"])))
    said = []
    for dim, what in (("shots", "few-shot count"), ("suite", "suite")):
        if _tells_apart(records, [*facets, "task"], dim):
            facets.append(dim)
        else:
            said += [f"{what} {text}" for text in [_describe(records, dim)] if text]
    if said:
        warnings.append(Note(f"From lighteval's task keys (suite|task|few-shot): {'; '.join(said)}."))
    # each file's note of the averages left out, as one note where the first was
    averages = [m.group(1) for w in warnings for m in [AVERAGES_NOTE.match(w)] if m]
    if averages:
        first = next(i for i, w in enumerate(warnings) if AVERAGES_NOTE.match(w))
        warnings[first] = _averages_note(a.strip("'") for given in averages
                                         for a in given.split(", "))
        warnings[first + 1:] = [w for w in warnings[first + 1:] if not AVERAGES_NOTE.match(w)]
    warnings[:] = list(dict.fromkeys(warnings))
    return [*facets, "model", "task"]


def _count(label: str) -> int:
    return int(label) if label.isdigit() else -1


def _tells_apart(records: list[tuple[str, dict]], dims: list[str], dim: str) -> bool:
    """Whether records alike in ``dims`` differ in ``dim`` (so it must be a dimension)."""
    seen: dict[tuple, str] = {}
    return any(seen.setdefault(tuple(rec[d] for d in dims), rec[dim]) != rec[dim]
               for _, rec in records)


def _describe(records: list[tuple[str, dict]], dim: str) -> str | None:
    """What a key field that is not a dimension is, for a note: "0 for every task", or "25 for
    arc:challenge, 10 for hellaswag, 5 for the other 59 tasks" (None: no key gives one)."""
    tasks: dict[str, list[str]] = {}  # label -> its tasks, in order
    for _, rec in records:
        group = tasks.setdefault(rec[dim], [])
        if rec["task"] not in group:
            group.append(rec["task"])
    tasks.pop(NONE, None)
    if not tasks:
        return None
    if len(tasks) == 1:
        return f"{next(iter(tasks))} for every task"
    most = max(tasks, key=lambda label: len(tasks[label]))
    rest = len(tasks[most]) > 3  # the largest group is "the other N tasks"
    parts = []
    for label, names in tasks.items():
        if not (rest and label == most):
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            parts.append(f"{label} for {shown}")
    if rest:
        parts.append(f"{most} for the other {len(tasks[most])} tasks")
    return ", ".join(parts)


RESULTS_RE = re.compile(r"^results_(?P<stamp>.+)\.json$")
STAMP = "_lighteval_timestamp"  # a details file's items.attrs key: the timestamp of its results


def join_items(readings: list[Reading], warnings: list[str]) -> None:
    """Give details files' per-sample records (:mod:`evalmaps.readers.lighteval_details`) the
    model of the results file of the same timestamp, else the folder above their timestamp's
    (see :func:`evalmaps.readers.items.join_items`)."""
    from evalmaps.readers.items import join_items as join

    join(readings, warnings, RESULTS_RE, STAMP, ("model",), folders_up=1)
