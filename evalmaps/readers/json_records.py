"""JSON records of scores: a JSON list of flat objects, or one flat object per file, each a score
with its coordinates, such as needle-in-a-haystack's results (``[{"token_limit": 1000,
"depth_percent": 0, "score": 10}, ...]``, or one ``{"model", "context_length", "depth_percent",
"score", ...}`` per file). A folder of them is ONE figure.

- The score: the keys :data:`SCORE_KEYS` that hold a number (several: one metric each). A record
  with a ``value`` key is a tidy table, read by the JSON Lines reader, not a record.
- Its standard error (``se``): ``<score>_stderr``, ``<score>_se`` or ``<score>_standard_error``;
  ``stderr``, ``se`` or ``standard_error`` when the record has one score.
- Its range, when the file says it: ``min_score`` and ``max_score`` (else none is invented: the
  colours span the values).
- Coordinates: the other keys. Those that hold free text (a line break, or over
  :data:`MAX_LABEL` characters), timestamps, a measure (a different fraction in most records) or
  the same label in every record are left out; so is a key beyond the two axes that does not
  tell apart records of one file in one cell (a short model response, a needle's name).
- The model: the ``model`` key; without one, the folder's name (``OpenAI_Original_Results``), or
  for a file in no folder its name, with a warning.

Dimensions: the model a facet (with the metric, when there are several), and two coordinates as
y and x: a depth (``depth_percent``) is y, a context length (``context_length``,
``token_limit``) x, else the first key written is x and the second y; other coordinates that
tell records apart are facets.
Numeric labels are in numeric order (depth 0 on top, as in the needle test's own heatmap). With one
coordinate, model is y. The same cell given by two files with different scores (a re-run) makes
each file a run (the facet ``run``, named by its file), and a warning says how many.
"""

from __future__ import annotations

import math
import re
from pathlib import PurePosixPath

from evalmaps.core.names import RESERVED_NAMES
from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    ImportFailed,
    Probe,
    Reading,
    number,
    runs_differ,
    short,
    text_of,
)

NAME = "json-records"
DESCRIBES = "JSON records of scores (a list, or one object per file)"
TOOL = "JSON records"
TOOL_FILES = "JSON records files"

SCORE_KEYS = ("score", "accuracy", "acc", "exact_match", "f1", "pass@1", "pass_rate", "win_rate")
SE_KEYS = ("stderr", "se", "standard_error")  # the se of a record's one score
SE_SUFFIXES = ("_stderr", "_se", "_standard_error")  # <score><suffix>
RANGE_KEYS = ("min_score", "max_score")
Y_NAMES = ("depth_percent", "depth", "needle_depth", "depth_pct")
X_NAMES = ("context_length", "token_limit", "context", "context_size", "context_len",
           "input_length", "n_tokens", "tokens", "length")
MAX_LABEL = 100  # a longer text is free text (a response), not a label
SNIFF_RECORDS = 200  # sniff looks at the first records of a list only
TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}")
# keys of a record that are not its coordinates
OWN = ("value", "se", "run", "metric", "model", "_model_from")


def _rows(doc) -> list | None:
    if isinstance(doc, dict):
        return [doc]
    return doc if isinstance(doc, list) and doc else None


def _flat(row) -> bool:
    return isinstance(row, dict) and bool(row) and not any(
        isinstance(v, (dict, list)) for v in row.values())


def _scores(row: dict) -> list[str]:
    """The record's score keys, in the order it writes them."""
    return [k for k in row if k in SCORE_KEYS]


def sniff(probe: Probe) -> bool:
    """A JSON list of flat objects (or one flat object) that give a score (a number or null)
    and a coordinate (a text or a whole number), and no ``value`` (a tidy table's column)."""
    rows = _rows(probe.doc)
    if rows is None:
        return False
    sample = rows[:SNIFF_RECORDS]
    if not all(_flat(r) for r in sample) or any(
            str(k).strip().lower() == "value" for r in sample for k in r):
        return False
    # every record a score (a number, or null for none), one number at least
    if not all(_scores(r) and all(r[k] is None or number(r[k]) is not None for k in _scores(r))
               for r in sample) or all(r[k] is None for r in sample for k in _scores(r)):
        return False
    return any(isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))
               for r in sample for k, v in r.items()
               if k not in SCORE_KEYS and k not in _not_coordinates(_scores(r)))


def _label(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return text_of(value)
    return str(value).strip()


def _key(key: str) -> str:
    """A record's key as a dimension's name (not one the app reserves, nor one of ours)."""
    key = str(key).strip() or "key"
    while key in RESERVED_NAMES or key in OWN:
        key += "_"
    return key


def _se(row: dict, score: str, scores: list[str]):
    keys = [score + s for s in SE_SUFFIXES] + (list(SE_KEYS) if len(scores) == 1 else [])
    value = next((row[k] for k in keys if k in row), None)
    return value if number(value) is not None and value >= 0 else None


def _not_coordinates(scores: list[str]) -> set[str]:
    keys = {s + suffix for s in scores for suffix in SE_SUFFIXES} | set(RANGE_KEYS)
    return keys | (set(SE_KEYS) if len(scores) == 1 else set())


def _where_named(file: str) -> tuple[str, str]:
    """A model's name from where the file is: its folder (a zip's own name without .zip), else
    the file's name; and which of the two it is."""
    path = PurePosixPath(file)
    parent = path.parent.name
    if parent.lower().endswith(".zip"):
        parent = parent[:-4]
    return (parent, "folder") if parent else (path.stem, "file")


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    reading = Reading(NAME, file)
    rows = _rows(probe.doc)
    run = PurePosixPath(file).stem
    named, source = _where_named(file)
    unscored = 0
    ranges = set()
    for i, row in enumerate(rows, start=1):
        if not _flat(row):
            raise ImportFailed(f"record {i} is not a flat object (its values text or numbers). "
                               f"Flatten it, or remove it.", file=file)
        scores = _scores(row)
        given = [k for k in scores if row[k] is not None]
        bad = next((k for k in given if number(row[k]) is None), None)
        if bad is not None:
            raise ImportFailed(f"record {i} gives '{bad}' as {str(row[bad])[:40]!r}, not a "
                               f"number. Write the score as a number (null when there is "
                               f"none).", file=file)
        if not given:
            unscored += 1
            continue
        skip = set(scores) | _not_coordinates(scores)
        coords = {}
        for key, value in row.items():
            if key in skip or key == "model":
                continue
            label = _label(value)
            if label is not None and label != "":
                coords[_key(key)] = label
        model = _label(row.get("model"))
        coords["model"], coords["_model_from"] = (model, "") if model else (named, source)
        metric = _label(row.get("metric")) if len(scores) == 1 else None
        if metric:
            coords.pop("metric_", None)
        for key in given:
            se = _se(row, key, scores)
            reading.records.append({**coords, "metric": metric or key,
                                    "value": text_of(row[key]),
                                    "se": "" if se is None else text_of(se), "run": run})
        if all(number(row.get(k)) is not None for k in RANGE_KEYS):
            ranges.add((row["min_score"], row["max_score"]))
    if unscored:
        several = unscored > 1
        reading.warnings.append(f"{short(file)}: {unscored} record{'s give' if several else ' gives'}"
                                f" no score (null); {'their cells are' if several else 'its cell is'}"
                                f" missing.")
    if len(ranges) == 1:
        (lo, hi), = ranges
        if lo < hi:
            for label in {r["metric"] for r in reading.records}:
                reading.metrics[label] = {"range": [lo, hi]}
    return reading


def _candidates(records: list[tuple[str, dict]]) -> tuple[list[str], list[str]]:
    """The keys that may place a score, in the order first written, and those that cannot (free
    text, timestamps, a measure such as a duration); a key with one label in every record
    places nothing and is neither."""
    keys: dict[str, None] = {}
    for _, rec in records:
        keys.update(dict.fromkeys(k for k in rec if k not in OWN))
    kept, dropped = [], []
    for key in keys:
        labels = [rec.get(key) for _, rec in records]
        present = [v for v in labels if v is not None]
        distinct = set(present)
        if any(len(v) > MAX_LABEL or "\n" in v for v in distinct) \
                or all(TIMESTAMP_RE.match(v) for v in distinct):
            dropped.append(key)
        elif all(_is_number(v) for v in distinct) and any(not float(v).is_integer()
                                                          for v in distinct) \
                and len(distinct) > 0.5 * len(present):
            dropped.append(key)  # a measure (a duration), not where the score is
        elif len(distinct) > 1 or len(present) < len(labels):
            kept.append(key)
    return kept, dropped


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _needed(records: list[tuple[str, dict]], dims: list[str], key: str) -> bool:
    """Whether ``key`` tells apart records of one file that ``dims`` put in one cell."""
    seen: dict[tuple, str | None] = {}
    for file, rec in records:
        cell = (file, *(rec.get(d) for d in dims))
        if seen.setdefault(cell, rec.get(key)) != rec.get(key):
            return True
    return False


def _axes(coords: list[str]) -> tuple[str, str]:
    """(y, x) of two coordinates or more: a depth is y, a context length x, else the first key
    written is x and the second y."""
    y = next((c for c in coords if c.lower() in Y_NAMES), None)
    x = next((c for c in coords if c.lower() in X_NAMES and c != y), None)
    rest = [c for c in coords if c not in (x, y)]
    x = x or rest.pop(0)
    y = y or rest.pop(0)
    return y, x


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    """The model (and the metric, when several) as facets, two coordinates as y and x (see the
    module's docstring), other keys as facets when they tell a file's records apart; each file
    a run when two files give one cell different scores."""
    coords, dropped = _candidates(records)
    several = ["metric"] if len({rec["metric"] for _, rec in records}) > 1 else []
    if len(coords) >= 2:
        y, x = _axes(coords)
        dims = [*several, "model", y, x]
    elif coords:  # model by that coordinate
        dims = [*several, "model", coords[0]]
    else:
        dims = ["model", "metric"]
    for key in coords:
        if key not in dims:
            if _needed(records, dims, key):
                dims.insert(0, key)
            else:
                dropped.append(key)
    for key in dims:
        missing = next((f for f, rec in records if rec.get(key) is None), None)
        if missing is not None:
            raise ImportFailed(f"some records give '{key}' and one in {short(missing)} does "
                               f"not. Give every record its {key}, or remove the key.",
                               file=name)
    if dropped:
        written: dict[str, int] = {}
        for _, rec in records:
            for k in rec:
                written.setdefault(k, len(written))
        dropped.sort(key=written.get)  # as first written
        warnings.append(f"Left out, as they do not place a score (each record its own text, "
                        f"time or measure): {', '.join(dropped[:8])}"
                        f"{' ...' if len(dropped) > 8 else ''}.")
    unnamed = sorted({rec["model"] for _, rec in records if rec["_model_from"]})
    if unnamed:
        where = {rec["_model_from"] for _, rec in records if rec["_model_from"]}
        warnings.append(f"The records name no model: the model is the name of their "
                        f"{' or '.join(sorted(where))} ({', '.join(unnamed[:3])}"
                        f"{' ...' if len(unnamed) > 3 else ''}). Give each record a \"model\" "
                        f"to name it.")
    _refuse_repeats_within_a_file(records, dims, name)
    if runs_differ(records, dims):
        files: dict[tuple, set[str]] = {}
        values: dict[tuple, set[tuple]] = {}
        for file, rec in records:
            key = tuple(rec[d] for d in dims)
            files.setdefault(key, set()).add(file)
            values.setdefault(key, set()).add((float(rec["value"]), rec["se"]))
        again = [k for k, f in files.items() if len(f) > 1]
        differ = sum(len(values[k]) > 1 for k in again)
        warnings.append(f"{len(again)} cell{'s are' if len(again) > 1 else ' is'} given by more "
                        f"than one file, {differ} with different scores (a re-run): each file "
                        f"is a run (the facet 'run', named by its file); nothing is averaged.")
        return ["run", *dims]
    return dims


def _refuse_repeats_within_a_file(records: list[tuple[str, dict]], dims: list[str],
                                  name: str) -> None:
    seen: dict[tuple, str] = {}
    for file, rec in records:
        key = (file, *(rec[d] for d in dims))
        if key in seen and float(seen[key]) != float(rec["value"]):
            coords = ", ".join(f"{d} {rec[d]}" for d in dims)
            raise ImportFailed(f"{short(file)} gives the cell ({coords}) twice, with different "
                               f"scores ({seen[key]} and {rec['value']}). Keep one record per "
                               f"cell, or give the records a key that tells them apart.",
                               file=name)
        seen.setdefault(key, rec["value"])
