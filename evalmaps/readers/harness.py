"""What evaluation tools write -> one tidy figure (pure: no Dash, nothing run from a file).

Read, detected from the content (never the extension):

- **lm-evaluation-harness** results JSON, v0.3 (``"acc"``, ``"acc_stderr"``) and >= 0.4
  (``"acc,none"``, ``"acc_stderr,none"``, the stderr possibly ``"N/A"``): one value per model,
  checkpoint (when known), task and metric; the stderr kept as ``se``. Group rows (``groups``,
  ``group_subtasks``) are not tasks. Dimensions: model, step (when a file gives a checkpoint),
  task, metric (a facet). Values keep their own scale (fractions stay fractions).
- **Inspect** logs: ``.eval`` (a zip whose ``header.json`` holds ``eval`` and ``results``) and
  ``.json`` logs. Dimensions: model, task, scorer and metric (facets); ``stderr`` becomes ``se``.
- **JSON Lines** (one object per line) and **Parquet**: tables, imported as a CSV would be.

:func:`import_paths` reads files, folders (recursively) and zips; many harness files become ONE
figure. :func:`detect` names what a file's bytes are; the CSV importer keeps everything else.
"""

from __future__ import annotations

import io
import json
import math
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pandas as pd

from evalmaps.readers.importers import (DEFAULT_MAX_BYTES, ImportFailed, Imported, ImportOptions,
                                import_csv_bytes, import_parquet, import_table)
from evalmaps.core.figure import slugify

# what a file's bytes are (see detect)
LM_EVAL, INSPECT_LOG, INSPECT_JSON, ZIP, PARQUET, JSONL, CSV, OTHER_JSON = (
    "lm-eval", "inspect-eval", "inspect-json", "zip", "parquet", "jsonl", "csv", "json")
HARNESS = (LM_EVAL, INSPECT_LOG, INSPECT_JSON)
TABLES = (PARQUET, JSONL, CSV)
# names of metrics where lower is better, for files that do not say (lm-eval v0.3): the
# perplexities and bits per byte of lm-eval's language-modelling tasks (lambada's "ppl" too)
LOWER_IS_BETTER = ("perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte", "ppl")
# metrics that are fractions (0..1) in both tools: given the range [0, 1] when every value fits
FRACTIONS = ("acc", "acc_norm", "acc_mutual_info", "exact_match", "accuracy", "mc1", "mc2",
             "pct_stereotype", "f1", "em")
# keys of an lm-eval task's results that are not metrics
NOT_METRICS = ("alias", "name", "sample_len", "sample_count", "samples", " ")
# file names a folder search looks at (the content decides what they are)
SUFFIXES = (".json", ".eval", ".jsonl", ".ndjson", ".csv", ".tsv", ".txt", ".parquet", ".zip")
MAX_HEADER_BYTES = 64 * 2**20  # an Inspect log's header.json (the samples are not read)
STEP_RE = re.compile(r"(?:^|[_\-.])step[_\-]?(\d+)(?=$|[_\-.])", re.I)


def detect(data: bytes) -> str:
    """What these bytes are: LM_EVAL, INSPECT_LOG, INSPECT_JSON, ZIP, PARQUET, JSONL (rows),
    OTHER_JSON (a JSON document that is none of those) or CSV (anything else: the CSV importer
    says what is wrong with it)."""
    if data[:4] == b"PAR1":
        return PARQUET
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        try:
            names = zipfile.ZipFile(io.BytesIO(data)).namelist()
        except (zipfile.BadZipFile, OSError, ValueError):
            return CSV  # not a readable zip: the CSV importer calls it binary
        return INSPECT_LOG if "header.json" in names or "_journal/start.json" in names else ZIP
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] == b"{":
        doc = _json(data)
        if doc is None:
            return JSONL if _jsonl_lines(data) else CSV
        kind = _json_kind(doc)
        if kind:
            return kind
        flat = isinstance(doc, dict) and not any(isinstance(v, (dict, list)) for v in doc.values())
        return JSONL if flat else OTHER_JSON  # one object of scalars: a one-row table
    if head[:1] == b"[":
        return JSONL
    return CSV


def _json(data: bytes):
    try:
        return json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def _jsonl_lines(data: bytes) -> bool:
    """JSON Lines: the first line is a JSON object of its own."""
    first = next((line for line in data[:1 << 16].splitlines() if line.strip()), b"")
    return isinstance(_json(first), dict)


def _json_kind(doc) -> str | None:
    if not isinstance(doc, dict):
        return None
    results = doc.get("results")
    if isinstance(results, dict) and results and all(isinstance(v, dict)
                                                     for v in results.values()) \
            and any(k in doc for k in ("versions", "config", "higher_is_better", "n-shot",
                                       "configs", "group_subtasks", "groups", "n-samples")):
        return LM_EVAL
    ev = doc.get("eval")
    if isinstance(ev, dict) and "model" in ev and "task" in ev:
        return INSPECT_JSON
    return None


# ------------------------------------------------------------------------------- the records

@dataclass
class Reading:
    """What one harness file gives: values with their coordinates, and what it says of metrics."""

    kind: str  # LM_EVAL or "inspect" (both Inspect forms)
    file: str
    records: list[dict]  # coords (dim -> label), "value", "se" (texts)
    lower: dict[str, bool] = field(default_factory=dict)  # metric label -> lower is better
    warnings: list[str] = field(default_factory=list)


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _text(value) -> str:
    """A JSON number as the text of its value (an int as written, a float's shortest form)."""
    return str(value) if isinstance(value, int) else repr(float(value))


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
    reading = Reading(LM_EVAL, file, [])
    config = doc.get("config") if isinstance(doc.get("config"), dict) else {}
    args = _args(config.get("model_args"))
    model = args.get("pretrained") or args.get("model") or args.get("path")
    if not model and isinstance(doc.get("model_name"), str) and doc["model_name"].strip():
        model = doc["model_name"].strip()
    if not model:
        parent = PurePosixPath(file).parent.name
        model = parent or PurePosixPath(file).stem
        reading.warnings.append(f"{_short(file)} names no model (no pretrained= in "
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
    new_style = any("," in key for metrics in results.values() for key in metrics)
    skipped_groups = sorted(t for t in results if t in groups)
    if skipped_groups:
        reading.warnings.append(f"{_short(file)}: the group rows {', '.join(skipped_groups[:5])}"
                                f"{' ...' if len(skipped_groups) > 5 else ''} aggregate other "
                                f"tasks and are not imported as tasks.")
    for task, metrics in results.items():
        if task in groups:
            continue
        values, errors = {}, {}
        for key, value in metrics.items():
            if key in NOT_METRICS or (new_style and "," not in key):
                continue
            metric, _, filt = key.partition(",") if new_style else (key, "", None)
            filt = filt if new_style else None
            if metric.endswith("_stderr"):
                errors[(metric[:-len("_stderr")], filt)] = value
            elif _number(value) is not None:
                values[(metric, filt)] = value
        for (metric, filt), value in values.items():
            se = errors.get((metric, filt))
            label = _metric_label(metric, filt)
            coords = {"model": model, "task": str(task), "metric": label}
            if step is not None:
                coords["step"] = step
            reading.records.append({**coords, "value": _text(value),
                                    "se": _text(se) if _number(se) is not None and se >= 0 else ""})
            said = better.get(task, {}).get(metric) if isinstance(better.get(task), dict) else None
            if isinstance(said, bool):
                reading.lower[label] = not said
        counts = samples.get(task)
        if isinstance(counts, dict) and _number(counts.get("effective")) is not None \
                and _number(counts.get("original")) is not None \
                and counts["effective"] < counts["original"]:
            reading.warnings.append(f"{_short(file)}: {task} was evaluated on "
                                    f"{counts['effective']} of its {counts['original']} samples "
                                    f"(a --limit run).")
    return reading


def read_inspect(header: dict, file: str) -> Reading:
    """One Inspect log's header (``eval``, ``results``) -> its values."""
    reading = Reading("inspect", file, [])
    ev = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    model, task = str(ev.get("model", "")).strip(), str(ev.get("task", "")).strip()
    if not model or not task:
        raise ImportFailed("this Inspect log names no model or no task (eval.model, eval.task). "
                           "Import a complete log.", file=file)
    status = header.get("status")
    if status not in (None, "success"):
        reading.warnings.append(f"{_short(file)}: the run's status is '{status}'; its scores are "
                                f"those the log gives.")
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
            if _number(value) is None or (metric == "stderr" and has_mean):
                continue
            se = stderr if metric in ("accuracy", "mean") and _number(stderr) is not None \
                and stderr >= 0 else None
            reading.records.append({"model": model, "task": task, "scorer": scorer,
                                    "metric": metric, "value": _text(value),
                                    "se": "" if se is None else _text(se),
                                    "run": PurePosixPath(file).stem})
    if not reading.records:
        reading.warnings.append(f"{_short(file)} holds no scores (results.scores is empty); it "
                                f"adds no cells.")
    return reading


def _short(file: str) -> str:
    return PurePosixPath(file).name


# ------------------------------------------------------------------------- reading the bytes

def read_harness(data: bytes, file: str, kind: str | None = None,
                 max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    """A harness file's bytes (``kind`` from :func:`detect`) -> its values."""
    kind = kind or detect(data)
    if kind == INSPECT_LOG:
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
        return read_inspect(header, file)
    doc = _json(data)
    if kind == LM_EVAL:
        return read_lm_eval(doc, file)
    if kind == INSPECT_JSON:
        return read_inspect(doc, file)
    raise ImportFailed(not_known(file), file=file)


def not_known(file: str) -> str:
    return ("this file is none of the formats evalmaps reads: a CSV, Parquet or JSON Lines "
            "table, lm-evaluation-harness results JSON, or an Inspect log (.eval or .json). "
            "Export one of those and try again.")


def read_json_table(data: bytes, name: str) -> pd.DataFrame:
    """JSON Lines (one object per line), or a JSON list of objects -> a table of texts, as a CSV
    of the same rows would read (numbers as the text of their value, null as empty)."""
    text = data.decode("utf-8-sig", errors="strict") if data else ""
    stripped = text.lstrip()
    rows: list = []
    if stripped.startswith("["):
        doc = _json(data)
        if not isinstance(doc, list):
            raise ImportFailed("this JSON file is not a list of rows that can be read. Write one "
                               "JSON object per row (JSON Lines), or a CSV.", file=name)
        rows = [(i + 1, row) for i, row in enumerate(doc)]
    else:
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append((i, json.loads(line)))
            except ValueError:
                raise ImportFailed("this line is not a JSON object. Write one JSON object per "
                                   "line (JSON Lines).", file=name, row=i) from None
    if not rows:
        raise ImportFailed("the file holds no rows. Write one JSON object per row.", file=name)
    columns: dict[str, None] = {}
    for i, row in rows:
        if not isinstance(row, dict):
            raise ImportFailed("this row is not a JSON object. Write one object per row, its "
                               "keys the columns.", file=name, row=i)
        for key, value in row.items():
            if isinstance(value, (dict, list)):
                raise ImportFailed(f"the key '{str(key)[:100]}' holds a nested value; a table's "
                                   f"cells are text or numbers. Flatten it.", file=name, row=i)
            columns.setdefault(str(key).strip(), None)

    def cell(value) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return _text(value) if not isinstance(value, float) or math.isfinite(value) \
                else str(value)
        return str(value).strip()

    table = {c: [cell(row.get(c)) for _, row in rows] for c in columns}
    return pd.DataFrame(table, dtype="str")


# ----------------------------------------------------------------------- combining into one

def _runs_differ(records: list[tuple[str, dict]], dims: list[str]) -> bool:
    """Whether two records give one cell different values (or standard errors)."""
    seen: dict[tuple, tuple[float, str]] = {}
    for _, rec in records:
        key = tuple(rec[d] for d in dims)
        given = (float(rec["value"]), rec["se"])
        if seen.setdefault(key, given) != given:
            return True
    return False


def combine(readings: list[Reading], name: str, options: ImportOptions | None = None,
            extra_warnings: list[str] | None = None) -> Imported:
    """Many harness files' values -> ONE figure (a clear error when they cannot be one)."""
    options = options or ImportOptions()
    kinds = sorted({r.kind for r in readings})
    if len(kinds) > 1:
        raise ImportFailed("these files mix lm-evaluation-harness results and Inspect logs. "
                           "Import each kind separately.", file=name)
    kind = kinds[0]
    warnings = list(extra_warnings or [])
    for reading in readings:
        warnings.extend(reading.warnings)
    records = [(r.file, rec) for r in readings for rec in r.records]
    if not records:
        raise ImportFailed("these results hold no values (no metric with a number). Import "
                           "files that hold scores.", file=name)
    if kind == LM_EVAL:
        with_step = [f for f, rec in records if "step" in rec]
        if with_step and len(with_step) != len(records):
            without = next(f for f, rec in records if "step" not in rec)
            raise ImportFailed(f"some files give a checkpoint (step) and {_short(without)} does "
                               f"not (no revision=stepN in its config, no _stepN in its name). "
                               f"Import the checkpoints of one run only, or rename the file.",
                               file=name)
        # the last two are y and x: model by step, else model by task
        dims = ["task", "metric", "model", "step"] if with_step else ["metric", "model", "task"]
    else:
        dims = ["scorer", "metric", "model", "task"]
        if _runs_differ(records, dims):
            # several logs of one model and task: each log is a run, shown side by side (the
            # values stay as each log gives them; nothing is averaged)
            dims = ["run", *dims]
            warnings.append("Several logs give the same model and task with different scores: "
                            "each log is a run (the facet 'run', named by its file).")
    # one value per cell: the same value twice is merged, two different ones are refused
    seen: dict[tuple, tuple[str, str, str]] = {}
    rows = []
    merged = 0
    for file, rec in records:
        key = tuple(rec[d] for d in dims)
        if key in seen:
            first_file, value, se = seen[key]
            if (float(value), se) == (float(rec["value"]), rec["se"]):
                merged += 1
                continue
            coords = ", ".join(f"{d} {v}" for d, v in zip(dims, key))
            raise ImportFailed(f"{_short(first_file)} and {_short(file)} both give the cell "
                               f"({coords}), with different values ({value} and {rec['value']}). "
                               f"Import one of the two runs, not both.", file=name)
        seen[key] = (file, rec["value"], rec["se"])
        rows.append(rec)
    if merged:
        warnings.append(f"{merged} value(s) given identically by more than one file were merged.")
    frame = pd.DataFrame({**{d: [r[d] for r in rows] for d in dims},
                          "value": [r["value"] for r in rows], "se": [r["se"] for r in rows]},
                         dtype="str")
    if not (frame["se"] != "").any():
        frame = frame.drop(columns="se")
    mapping = ImportOptions(format="tidy", x=options.x, y=options.y, replicate="",
                            metric="score", unit="", metric_range=None)
    imported = import_table(frame, name, mapping, [])
    _describe(imported, kind, readings, rows, warnings, name)
    return imported


def _describe(imported: Imported, kind: str, readings: list[Reading], rows: list[dict],
              warnings: list[str], name: str) -> None:
    """The catalog entry of a harness import: its metrics (direction and scale), title, notes."""
    spec = imported.spec
    lower: dict[str, bool] = {}
    for reading in readings:
        lower.update(reading.lower)
    labels = imported.dims["metric"]
    metrics = {}
    for label in labels:
        base = label.split(" (", 1)[0]
        entry: dict = {"name": label}
        values = [float(r["value"]) for r in rows if r["metric"] == label]
        if base in FRACTIONS and all(0 <= v <= 1 for v in values):
            entry["range"] = [0, 1]
        if lower.get(label, base in LOWER_IS_BETTER):
            entry["higher_is_better"] = False
        metrics[label] = entry
    facets = spec["facets"]
    if len(labels) == 1:
        spec["metric"] = {"unit": "", **metrics[labels[0]]}
        spec["metric"].setdefault("range", None)
    else:
        spec["metric"] = {"name": "score", "unit": "", "range": None}
        if "metric" in facets:
            spec["metrics"] = {"dim": "metric", "labels": metrics}
    tool = "lm-evaluation-harness results" if kind == LM_EVAL else "Inspect log"
    files = len(readings)
    several = f"{files} {tool} files" if kind == LM_EVAL else f"{files} {tool}s"
    if files == 1:
        spec["title"] = _short(readings[0].file)
        spec["id"] = "import-" + slugify(spec["title"].rsplit(".", 1)[0])[:40]
    else:
        where = name.rstrip("/").rsplit("/", 1)[-1] if not name.endswith(" paths") else ""
        spec["title"] = f"{where} ({several})" if where else several[0].upper() + several[1:]
        spec["id"] = "import-" + slugify(spec["title"])[:40]
    spec["source"] = {"file": spec["title"] if files == 1 else name, "tool": tool}
    dims = {d: spec["dims"][d] for d in spec["dims"]}
    for d, title in (("step", "Step"), ("model", "Model"), ("task", "Task"),
                     ("metric", "Metric"), ("scorer", "Scorer")):
        if d in dims:
            dims[d]["title"] = title
    se_note = (["Each value keeps the standard error its file gives (se)."]
               if "se" in imported.tidy.columns else [])
    spec["notes"] = [f"Imported from {several if files > 1 else 'one ' + tool + ' file'}; "
                     f"values on the scale the tool writes them (fractions stay fractions)."] \
        + se_note + warnings
    imported.format = kind if kind == LM_EVAL else "inspect"
    imported.warnings[:] = warnings


# ----------------------------------------------------------------------------- files, folders

def _members(data: bytes, name: str, max_bytes: int | None) -> list[tuple[str, bytes]]:
    """A zip of results -> its files (name inside the zip, bytes); nothing is extracted."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        if "[Content_Types].xml" in archive.namelist():
            raise ImportFailed("the file is an office document (a spreadsheet workbook?), not a "
                               "table. Export it as CSV (comma-separated, UTF-8) and try again.",
                               file=name)
        infos = [i for i in archive.infolist() if not i.is_dir()
                 and PurePosixPath(i.filename).suffix.lower() in SUFFIXES
                 and not PurePosixPath(i.filename).name.startswith((".", "__MACOSX"))
                 and "__MACOSX" not in i.filename]
        limit = None if max_bytes is None else 10 * max_bytes
        if limit is not None and sum(i.file_size for i in infos) > limit:
            raise ImportFailed(f"the zip expands to more than {limit // 2**20} MB. Import fewer "
                               f"files at a time.", file=name)
        return [(f"{name}/{i.filename}", archive.read(i)) for i in sorted(
            infos, key=lambda i: i.filename)]
    except ImportFailed:
        raise
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError):
        raise ImportFailed("the zip file is damaged or uses an unsupported compression. Zip the "
                           "files again.", file=name) from None


def import_sources(sources: list[tuple[str, bytes]], name: str,
                   options: ImportOptions | None = None,
                   max_bytes: int | None = DEFAULT_MAX_BYTES, searched: bool = False) -> Imported:
    """Named files' bytes -> ONE figure. Harness files combine; a table file imports alone.

    ``searched``: the files come from a folder or zip search, where files that are neither
    harness results nor a table (a README, lm-eval's per-sample logs next to its results) are
    skipped with a warning instead of refused."""
    options = options or ImportOptions()
    readings: list[Reading] = []
    tables: list[tuple[str, bytes, str]] = []
    given: list[str] = []  # tables named on their own (not found by a search)
    skipped: list[str] = []
    expanded: list[tuple[str, bytes, bool]] = [(n, d, searched) for n, d in sources]
    while expanded:
        file, data, from_search = expanded.pop(0)
        kind = detect(data)
        if kind == ZIP:
            expanded[:0] = [(n, d, True) for n, d in _members(data, file, max_bytes)]
            continue
        if kind in HARNESS:
            readings.append(read_harness(data, file, kind, max_bytes))
        elif kind == OTHER_JSON:
            if from_search:  # a JSON document that is not results: a config, a sample log
                skipped.append(_short(file))
                continue
            raise ImportFailed(not_known(file), file=file)
        else:
            tables.append((file, data, kind))
            if not from_search:
                given.append(file)
    if readings:
        if given:
            raise ImportFailed(f"{_short(given[0])} is a table, the other files are harness "
                               f"results. Import the table on its own.", file=name)
        skipped += [_short(f) for f, _, _ in tables]
        notes = ([f"Not results, skipped: {', '.join(skipped[:10])}"
                  f"{' ...' if len(skipped) > 10 else ''}."] if skipped else [])
        return combine(readings, name, options, notes)
    if not tables:
        raise ImportFailed("no results were found: no CSV, Parquet or JSON Lines table, no "
                           "lm-evaluation-harness results and no Inspect log. Give the files "
                           "themselves or the folder that holds them.", file=name)
    if len(tables) > 1:
        names = ", ".join(_short(f) for f, _, _ in tables[:5])
        raise ImportFailed(f"there are {len(tables)} tables ({names}); one import makes one "
                           f"figure from one table. Import them one at a time.", file=name)
    file, data, kind = tables[0]
    return import_table_bytes(data, file, options, max_bytes, kind)


def import_table_bytes(data: bytes, name: str, options: ImportOptions | None,
                       max_bytes: int | None, kind: str) -> Imported:
    """A table's bytes (CSV, Parquet, JSON Lines) -> an :class:`Imported`."""
    if max_bytes is not None and len(data) > max_bytes:
        return import_csv_bytes(data, name, options, max_bytes)  # its size message
    if kind == PARQUET:
        return import_parquet(data, name, options or ImportOptions(format="tidy"))
    if kind == JSONL:
        try:
            frame = read_json_table(data, name)
        except UnicodeDecodeError as exc:
            raise ImportFailed(f"the file is not UTF-8 text (byte {exc.start} cannot be read). "
                               f"Save it with UTF-8 encoding.", file=name) from None
        return import_table(frame, name, options, [])
    return import_csv_bytes(data, name, options, max_bytes)


def import_paths(paths, options: ImportOptions | None = None) -> Imported:
    """Files, folders (searched recursively) and zips -> ONE figure. Harness files (lm-eval
    results, Inspect logs) combine into one figure; a single table imports as ``import_bytes``
    would. No size limit: the files are the user's own."""
    paths = [Path(p) for p in paths]
    if not paths:
        raise ImportFailed("no file was given. Give one or more files, folders or zips.")
    sources: list[tuple[str, bytes]] = []
    searched = False
    for path in paths:
        if path.is_dir():
            searched = True
            found = sorted(p for p in path.rglob("*") if p.is_file()
                           and p.suffix.lower() in SUFFIXES and not p.name.startswith("."))
            if not found:
                raise ImportFailed("the folder holds no results files (.json, .eval, .csv, "
                                   ".parquet, .jsonl, .zip).", file=str(path))
            sources += [(p.as_posix(), _read(p)) for p in found]
        else:
            sources.append((path.as_posix(), _read(path)))
    name = paths[0].as_posix() if len(paths) == 1 else f"{len(paths)} paths"
    return import_sources(sources, name, options, max_bytes=None, searched=searched)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ImportFailed(f"cannot read the file ({exc.strerror}). Check the path.",
                           file=str(path)) from None
