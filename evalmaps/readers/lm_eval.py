"""lm-evaluation-harness results JSON, v0.3 (``"acc"``, ``"acc_stderr"``) and >= 0.4
(``"acc,none"``, ``"acc_stderr,none"``, the stderr possibly ``"N/A"``): one value per model,
checkpoint (when known), task and metric; the stderr kept as ``se``. Group rows (``groups``,
``group_subtasks``) are not tasks. Dimensions: model, step (when a file gives a checkpoint),
task, metric (a facet). Values keep their own scale (fractions stay fractions).

evalchemy writes this shape too; its tasks run several times (AIME24, AMC23, MATH500) give
``"accuracy_avg"``, ``"accuracy_std_err"`` (the standard error over the repeats) and
``"num_repeat"``: the metric ``accuracy``, its ``se``, and ``n`` (docs/readers/evalchemy.md)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    ImportFailed,
    Probe,
    Reading,
    number,
    short,
    text_of,
)

NAME = "lm-eval"
DESCRIBES = "lm-evaluation-harness results JSON"
TOOL = "lm-evaluation-harness results"
TOOL_FILES = "lm-evaluation-harness results files"
# keys of an lm-eval task's results that are not metrics
NOT_METRICS = ("alias", "name", "sample_len", "sample_count", "samples", " ")
# evalchemy's counts beside its accuracies (repeats, questions, questions solved): not metrics
REPEATS = "num_repeat"
COUNTS = (REPEATS, "num_total", "num_solved", "solved_avg")


STEP_RE = re.compile(r"(?:^|[_\-.])step[_\-]?(\d+)(?=$|[_\-.])", re.I)


def sniff(probe: Probe) -> bool:
    doc = probe.doc
    if not isinstance(doc, dict):
        return False
    results = doc.get("results")
    return isinstance(results, dict) and bool(results) \
        and all(isinstance(v, dict) for v in results.values()) \
        and any(k in doc for k in ("versions", "config", "higher_is_better", "n-shot",
                                   "configs", "group_subtasks", "groups", "n-samples"))


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    return read_lm_eval(probe.doc, file)


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    """Model by step when the files give checkpoints, else model by task (the last two are y
    and x); a sweep where only some files give a step is refused."""
    with_step = [f for f, rec in records if "step" in rec]
    if with_step and len(with_step) != len(records):
        without = next(f for f, rec in records if "step" not in rec)
        raise ImportFailed(f"some files give a checkpoint (step) and {short(without)} does "
                           f"not (no revision=stepN in its config, no _stepN in its name). "
                           f"Import the checkpoints of one run only, or rename the file.",
                           file=name)
    return ["task", "metric", "model", "step"] if with_step else ["metric", "model", "task"]


def _args(model_args) -> dict[str, str]:
    """lm-eval's ``model_args`` ("pretrained=EleutherAI/pythia-160m,revision=step1000")."""
    if isinstance(model_args, dict):
        return {str(k): str(v) for k, v in model_args.items()}
    if not isinstance(model_args, str):
        return {}
    pairs = (part.split("=", 1) for part in model_args.split(",") if "=" in part)
    return {k.strip(): v.strip() for k, v in pairs}


def _step(revision: str | None, file: str) -> str | None:
    """A checkpoint step from a revision ("step1000") or the file's name ("160m_step1000.json")."""
    for text in (revision or "", PurePosixPath(file).name):
        m = STEP_RE.search(text)
        if m:
            return str(int(m.group(1)))
    return None


def _metric_label(metric: str, filt: str | None) -> str:
    return metric if filt in (None, "none") else f"{metric} ({filt})"


def read_lm_eval(doc: dict, file: str) -> Reading:
    """One lm-evaluation-harness results file (v0.3 or >= 0.4) -> its values."""
    reading = Reading(NAME, file)
    config = doc.get("config") if isinstance(doc.get("config"), dict) else {}
    args = _args(config.get("model_args"))
    model = args.get("pretrained") or args.get("model") or args.get("path")
    if not model and isinstance(doc.get("model_name"), str) and doc["model_name"].strip():
        model = doc["model_name"].strip()
    if not model:
        parent = PurePosixPath(file).parent.name
        model = parent or PurePosixPath(file).stem
        reading.warnings.append(f"{short(file)} names no model (no pretrained= in "
                                f"config.model_args, no model_name): it is named after its "
                                f"{'folder' if parent else 'file'}, '{model}'.")
    revision = args.get("revision") or (config.get("model_revision")
                                        if isinstance(config.get("model_revision"), str) else None)
    step = _step(revision, file)
    groups = set(doc.get("groups") or {}) if isinstance(doc.get("groups"), dict) else set()
    subtasks = doc.get("group_subtasks") if isinstance(doc.get("group_subtasks"), dict) else {}
    groups |= {g for g, members in subtasks.items() if isinstance(members, list) and members}
    better = doc.get("higher_is_better") if isinstance(doc.get("higher_is_better"), dict) else {}
    samples = doc.get("n-samples") if isinstance(doc.get("n-samples"), dict) else {}
    results = doc["results"]
    skipped_groups = sorted(t for t in results if t in groups)
    if skipped_groups:
        reading.warnings.append(f"{short(file)}: the group rows {', '.join(skipped_groups[:5])}"
                                f"{' ...' if len(skipped_groups) > 5 else ''} aggregate other "
                                f"tasks and are not imported as tasks.")
    for task, metrics in results.items():
        if task in groups:
            continue
        values, errors, repeats, averaged = _metrics(metrics)
        for (metric, filt), value in values.items():
            se = errors.get((metric, filt))
            label = _metric_label(metric, filt)
            coords = {"model": model, "task": str(task), "metric": label}
            if step is not None:
                coords["step"] = step
            reading.records.append({**coords, "value": text_of(value),
                                    "se": text_of(se) if number(se) is not None and se >= 0 else "",
                                    **({"n": repeats} if repeats and metric in averaged else {})})
            said = better.get(task, {}).get(metric) if isinstance(better.get(task), dict) else None
            if isinstance(said, bool):
                reading.lower[label] = not said
        counts = samples.get(task)
        if isinstance(counts, dict) and number(counts.get("effective")) is not None \
                and number(counts.get("original")) is not None \
                and counts["effective"] < counts["original"]:
            reading.warnings.append(f"{short(file)}: {task} was evaluated on "
                                    f"{counts['effective']} of its {counts['original']} samples "
                                    f"(a --limit run).")
    return reading


def _metrics(metrics: dict) -> tuple[dict, dict, str | None, set[str]]:
    """A task's results -> its values and stderrs, each keyed (metric, filter), the repeats
    behind evalchemy's averages (``num_repeat``, else None) and the metrics that are such
    averages. A task is read in lm-eval >= 0.4's style when a key holds a comma
    (``"acc,none"``), else v0.3's (``"acc"``, ``"acc_stderr"``), which evalchemy's repeated
    tasks extend: ``"<m>_avg"`` is the metric ``<m>``, ``"<m>_std_err"`` its standard error;
    evalchemy's counts (:data:`COUNTS`) are not metrics."""
    new_style = any("," in key for key in metrics)
    repeated = not new_style and (REPEATS in metrics
                                  or any(str(k).endswith("_std_err") for k in metrics))
    values: dict = {}
    errors: dict = {}
    averaged: set[str] = set()
    for key, value in metrics.items():
        key = str(key)
        if key in NOT_METRICS or (new_style and "," not in key):
            continue
        if not new_style and key in COUNTS:
            continue
        metric, _, filt = key.partition(",") if new_style else (key, "", None)
        filt = filt if new_style else None
        if metric.endswith("_stderr"):
            errors[(metric[:-len("_stderr")], filt)] = value
        elif repeated and metric.endswith("_std_err"):
            errors[(metric[:-len("_std_err")], filt)] = value
        elif number(value) is None:
            continue
        elif repeated and metric.endswith("_avg") and metric[:-len("_avg")] not in metrics:
            values[(metric[:-len("_avg")], filt)] = value
            averaged.add(metric[:-len("_avg")])
        else:
            values[(metric, filt)] = value
    count = metrics.get(REPEATS) if repeated else None
    repeats = str(count) if isinstance(count, int) and not isinstance(count, bool) \
        and count >= 1 else None
    return values, errors, repeats, averaged


RESULTS_RE = re.compile(r"^results_(?P<stamp>.+)\.json$")
STAMP = "_lm_eval_timestamp"  # a samples file's items.attrs key: the timestamp of its results


def join_items(readings: list[Reading], warnings: list[str]) -> None:
    """Give per-sample records (:mod:`evalmaps.readers.lm_eval_samples`) the model (and step)
    of the results file of the same timestamp in the same folder (see
    :func:`evalmaps.readers.items.join_items`)."""
    from evalmaps.readers.items import join_items as join

    join(readings, warnings, RESULTS_RE, STAMP, ("model", "step"))
