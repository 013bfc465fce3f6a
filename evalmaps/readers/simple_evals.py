"""OpenAI simple-evals results: one flat JSON per run, ``<eval>_<model>.json`` (newer versions add
``_<YYYYmmdd_HHMMSS>`` and, for a ``--debug`` run, ``_DEBUG``), ``{"score": 0.1, "score:std":
0.3, "chars": 2026.2, "chars:std": 186.5, ...}``: each metric's mean over the samples, and its
``:std`` (and, when the eval asks for them, ``:n_samples``, ``:bootstrap_std``, ``:min``,
``:max``).

Dimensions: metric (facet: ``score`` first), model (y) by eval (x), both from the file's name,
which is the only place that names them (simple-evals splits it at the first ``_`` after a
known eval's name: model names hold ``_``, ``gpt-4o_assistant``). Values as written.

Errors: ``:bootstrap_std`` is a standard error (the spread of the mean over resamples) and is
kept as ``se``. ``:std`` is a standard deviation over samples (numpy's, over the n samples), kept
as ``sd``; with ``:n_samples`` it is kept as ``n`` too, and ``sd / sqrt(n)`` is then the
standard error of the mean. Without ``:n_samples`` (the usual files) no standard error can be
made from it: one warning says so, whatever the number of files. ``:min`` and ``:max`` are not
cells. docs/readers/simple-evals.md says more.
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

NAME = "simple-evals"
DESCRIBES = "simple-evals results JSON"
TOOL = "simple-evals results"
TOOL_FILES = "simple-evals results files"
MAIN = "score"

# simple-evals' evals (the names its files start with); longest first, so that
# healthbench_hard_<model> is the eval healthbench_hard
EVALS = tuple(sorted(("mmlu", "math", "gpqa", "mgsm", "drop", "humaneval", "simpleqa",
                      "browsecomp", "healthbench", "healthbench_hard", "healthbench_consensus",
                      "healthbench_meta"), key=len, reverse=True))
STAT_RE = re.compile(r"^(?P<metric>.+):(?P<stat>[A-Za-z_]+)$")
DATE_RE = re.compile(r"_\d{8}_\d{6}$")  # simple-evals' file names end with the run's time
NOT_FRACTIONS = re.compile(r"chars|tokens|length|time|count|n_samples", re.I)
LOWER = ("is_incorrect",)  # simpleqa: the share of answers that are wrong

SD_WARNING = ("simple-evals' ':std' is the standard deviation of a metric over a run's "
              "samples, and these files do not give how many samples there were (no "
              "':n_samples'): it is kept as sd, but no standard error can be made from it, so "
              "no difference between cells is called significant.")


def sniff(probe: Probe) -> bool:
    """A flat object of numbers with a ``score`` and ``<metric>:<stat>`` keys whose metric is
    there too (``score:std``)."""
    doc = probe.doc
    if not isinstance(doc, dict) or number(doc.get(MAIN)) is None:
        return False
    stats = 0
    for key, value in doc.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return False
        found = STAT_RE.match(key)
        if found:
            if found.group("metric") not in doc:
                return False
            stats += 1
    return stats > 0


def metric_range(label: str):
    """[0, 1]: simple-evals' metrics are means of per-sample scores and shares (not a count or
    a length, such as ``chars``)."""
    return None if NOT_FRACTIONS.search(label) else (0, 1)


def run_of(file: str) -> tuple[str, str, bool]:
    """(eval, model, whether it was a --debug run) from ``<eval>_<model>[_<time>][_DEBUG].json``."""
    stem = PurePosixPath(file).name
    if stem.lower().endswith(".json"):
        stem = stem[:-5]
    debug = stem.endswith("_DEBUG")
    if debug:
        stem = stem[:-len("_DEBUG")]
    stem = DATE_RE.sub("", stem)
    known = next((e for e in EVALS if stem.startswith(e + "_")), None)
    ev, _, model = stem.partition("_") if known is None else (known, "_", stem[len(known) + 1:])
    if not ev or not model:
        raise ImportFailed("a simple-evals results file is named <eval>_<model>.json (its name "
                           "is the only place that says which eval and model it is), and this "
                           "one's name is not. Rename it so, as simple-evals wrote it.", file=file)
    return ev, model, debug


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    reading = Reading(NAME, file)
    ev, model, debug = run_of(file)
    doc = probe.doc
    stats = {}
    for key, value in doc.items():
        found = STAT_RE.match(key)
        if found:
            stats[(found.group("metric"), found.group("stat"))] = value
    for metric, value in doc.items():
        if STAT_RE.match(metric) or number(value) is None:
            continue
        sd, n, se = (stats.get((metric, s)) for s in ("std", "n_samples", "bootstrap_std"))
        reading.records.append({
            "model": model, "eval": ev, "metric": metric, "value": text_of(value),
            "se": text_of(se) if number(se) is not None and se >= 0 else "",
            "sd": text_of(sd) if number(sd) is not None and sd >= 0 else "",
            "n": text_of(n) if number(n) is not None and n >= 1 and float(n).is_integer()
            else ""})
        if metric in LOWER:
            reading.lower[metric] = True
    if debug:
        reading.warnings.append(f"{short(file)} is a --debug run (a few examples only).")
    return reading


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    """Metric as a facet, model by eval; one warning when some sd has no n (and no se)."""
    if any(rec["sd"] and not rec["n"] and not rec["se"] for _, rec in records):
        warnings.append(SD_WARNING)
    return ["metric", "model", "eval"]


def order(dim: str, labels: list[str], records: list[dict]) -> list[str]:
    """``score`` first, then the other metrics; models and evals: in natural order."""
    if dim == "metric":
        return sorted(labels, key=lambda m: (m != MAIN, natural_key(m)))
    return sorted(labels, key=natural_key)
