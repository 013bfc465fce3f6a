"""bigcode-evaluation-harness results JSON (``evaluation_results.json``, what ``main.py
--metric_output_path`` writes): ``{<task>: {"pass@1": ..., "pass@10": ...}, "config": {"model":
..., "temperature": ..., "n_samples": ..., ...}}``. docs/readers/bigcode.md says what becomes what.

- model: ``config.model`` as written; task: each key besides ``config``;
- metric (a facet): ``pass@<k>`` is the metric ``pass@k`` with ``k`` a facet (other metrics,
  as written, have k ``-``);
- the sampling settings (``temperature``, ``n_samples``): a note, or facets when files differ.
"""

from __future__ import annotations

import re

from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    ImportFailed,
    Note,
    Probe,
    Reading,
    number,
    short,
    text_of,
)

NAME = "bigcode"
DESCRIBES = "bigcode-evaluation-harness results JSON"
TOOL = "bigcode-evaluation-harness results"
TOOL_FILES = "bigcode-evaluation-harness results files"

NONE = "-"  # k of a metric that is not pass@k
PASS = re.compile(r"^pass@(\d+)$")
# the settings that say how the generations were sampled: dimension -> its words in a note
SETTINGS = {"temperature": "temperature {}", "n_samples": "n_samples {} (generations per problem)"}
LOWER_IS_BETTER = ("num_failed_execution",)  # the PAL tasks' count of programs that failed


def sniff(probe: Probe) -> bool:
    doc = probe.doc
    if not isinstance(doc, dict) or "results" in doc:  # lm-eval's files have "results"
        return False
    config = doc.get("config")
    return isinstance(config, dict) and "model" in config and "n_samples" in config \
        and ("tasks" in config or "allow_code_execution" in config) \
        and any(isinstance(v, dict) for k, v in doc.items() if k != "config")


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    return read_bigcode(probe.doc, file)


def _setting(value) -> str:
    if number(value) is not None:
        return text_of(value)
    return str(value) if isinstance(value, str) and value.strip() else NONE


def read_bigcode(doc: dict, file: str) -> Reading:
    """One bigcode-evaluation-harness results file -> its values."""
    reading = Reading(NAME, file)
    config = doc["config"]
    model = config.get("model")
    if not isinstance(model, str) or not model.strip():
        raise ImportFailed("this bigcode-evaluation-harness file names no model (config.model). "
                           "Write the model's name there (main.py --model) and import it again.",
                           file=file)
    model = model.strip()
    settings = {dim: _setting(config.get(dim)) for dim in SETTINGS}
    fractions: dict[str, bool] = {}
    for task, metrics in doc.items():
        if task == "config" or not isinstance(metrics, dict):
            continue
        for metric, value in metrics.items():
            if number(value) is None:
                continue
            m = PASS.match(str(metric))
            label, k = ("pass@k", str(int(m.group(1)))) if m else (str(metric), NONE)
            reading.records.append({"model": model, "task": str(task), "metric": label, "k": k,
                                    **settings, "value": text_of(value), "se": ""})
            fractions[label] = fractions.get(label, True) and 0 <= value <= 1
            if label in LOWER_IS_BETTER:
                reading.lower[label] = True
    if fractions.get("pass@k"):
        reading.metrics["pass@k"] = {"range": [0, 1]}
    limit = config.get("limit")
    if number(limit) is not None and reading.records:
        reading.warnings.append(f"{short(file)}: {model} was evaluated on {limit} problems of "
                                f"each task only (a --limit run).")
    return reading


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    """Model by task, metric (and k, with pass@k) as facets. The sampling settings become
    facets when the files differ in them, else a note gives them.

    With pass@k, ``records`` is put in order of k (other metrics, "-", first; stable
    otherwise), in place: labels are ordered as they first appear."""
    facets = ["metric"]
    if any(rec["k"] != NONE for _, rec in records):
        facets.append("k")
        records.sort(key=lambda item: int(item[1]["k"]) if item[1]["k"] != NONE else -1)
    said = []
    for dim, words in SETTINGS.items():
        labels = list(dict.fromkeys(rec[dim] for _, rec in records))
        if len(labels) > 1:
            facets.append(dim)
        elif labels[0] != NONE:
            said.append(words.format(labels[0]))
    if said:
        warnings.append(Note(f"Sampling, as the files' config gives it: {', '.join(said)}."))
    return [*facets, "model", "task"]
