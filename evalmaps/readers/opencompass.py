"""OpenCompass summary CSV (``outputs/<run>/<time>/summary/summary_<time>.csv``): the header
``dataset,version,metric,mode,<one column per model>``, one row per dataset and metric, scores
in percent, ``-`` where a model has none. docs/readers/opencompass.md says what becomes what.

- model: each column after ``mode``, as written; dataset: the ``dataset`` field;
- metric (a facet): the ``metric`` field; unit "%" and range [0, 100] when its values fit;
- the summarizer's group rows (version ``-``: ``naive_average``, ``weighted_average``, ... over
  several datasets) are not datasets: left out, in a note; rows with no score are skipped;
- mode (``gen``, ``ppl``) and version (the prompt's hash): a note, or facets when one dataset
  comes with more than one.
"""

from __future__ import annotations

import csv
import io
import math

from evalmaps.readers.base import DEFAULT_MAX_BYTES, ImportFailed, Note, Probe, Reading, short

NAME = "opencompass"
DESCRIBES = "an OpenCompass summary CSV"
TOOL = "OpenCompass summary"
TOOL_FILES = "OpenCompass summaries"

HEADER = ("dataset", "version", "metric", "mode")
MISSING = "-"  # OpenCompass's mark for no score (and no version or mode)


def sniff(probe: Probe) -> bool:
    if probe.head[:1] in (b"{", b"[") or probe.is_zip:
        return False
    line = probe.data[:4096].split(b"\n", 1)[0].lstrip(b"\xef\xbb\xbf").rstrip(b"\r")
    fields = [f.strip() for f in line.split(b",")]
    return len(fields) > len(HEADER) and tuple(f.decode("latin-1") for f in fields[:4]) == HEADER


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    try:
        text = probe.data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ImportFailed("this OpenCompass summary is not UTF-8 text. Save it as UTF-8 (as "
                           "OpenCompass writes it) and import it again.", file=file) from None
    return read_summary(text, file)


def _number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def read_summary(text: str, file: str) -> Reading:
    """One OpenCompass summary CSV -> its scores."""
    reading = Reading(NAME, file)
    lines = list(csv.reader(io.StringIO(text)))
    header = [h.strip() for h in lines[0]]
    models = header[len(HEADER):]
    if any(not m for m in models) or len(set(models)) != len(models):
        raise ImportFailed("the summary's header has an empty or repeated model column. Give "
                           "every model its own name and import it again.", file=file)
    groups: list[str] = []
    values: dict[str, list[float]] = {}  # metric -> its scores (for the range)
    for number, row in enumerate(lines[1:], start=2):
        fields = [f.strip() for f in row]
        if not any(fields):
            continue
        if len(fields) != len(header):
            raise ImportFailed(f"row {number} has {len(fields)} fields where the header has "
                               f"{len(header)}. Export the summary again (OpenCompass writes one "
                               f"field per model in every row).", file=file)
        dataset, version, metric, mode = fields[:len(HEADER)]
        scores = fields[len(HEADER):]
        if all(s in (MISSING, "") for s in scores):  # no results, or a summarizer's divider
            continue
        if version == MISSING:  # a summarizer group: an average over datasets
            groups.append(f"{dataset} ({metric})")
            continue
        for model, score in zip(models, scores):
            if score in (MISSING, ""):
                continue
            if not _number(score):
                raise ImportFailed(f"the score '{score}' (row {number}, dataset {dataset}, "
                                   f"model {model}) is not a number. Write a number, or '-' "
                                   f"where there is none.", file=file)
            reading.records.append({"model": model, "dataset": dataset, "metric": metric,
                                    "mode": mode, "version": version, "value": score, "se": ""})
            values.setdefault(metric, []).append(float(score))
    for metric, given in values.items():
        if all(0 <= v <= 100 for v in given):  # OpenCompass writes scores in percent
            reading.metrics[metric] = {"unit": "%", "range": [0, 100]}
    if groups:
        shown = ", ".join(groups[:6]) + (" ..." if len(groups) > 6 else "")
        reading.warnings.append(Note(f"{short(file)}: the summary group rows {shown} are "
                                     f"averages over datasets (version '-'), not datasets: they "
                                     f"are not imported."))
    return reading


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    """Model by dataset, metric a facet; mode and version become facets only where one dataset
    and metric come with more than one, else a note gives the modes."""
    facets = ["metric"]
    for dim in ("mode", "version"):
        if _tells_apart(records, [*facets, "dataset"], dim):
            facets.append(dim)
    if "mode" not in facets:
        modes: dict[str, list[str]] = {}
        for _, rec in records:
            names = modes.setdefault(rec["mode"], [])
            if rec["dataset"] not in names:
                names.append(rec["dataset"])
        parts = [f"{mode} for {'every dataset' if len(modes) == 1 else _listed(names)}"
                 for mode, names in modes.items() if mode != MISSING]
        if parts:
            warnings.append(Note(f"Mode (gen: generation, ppl: perplexity): {'; '.join(parts)}."))
    return [*facets, "model", "dataset"]


def _listed(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _tells_apart(records: list[tuple[str, dict]], dims: list[str], dim: str) -> bool:
    """Whether records alike in ``dims`` differ in ``dim`` (so it must be a dimension)."""
    seen: dict[tuple, str] = {}
    return any(seen.setdefault(tuple(rec[d] for d in dims), rec[dim]) != rec[dim]
               for _, rec in records)
