"""Per-item records: what every reader of them shares, and the sniffing of a plain per-item table.

A reader that finds per-item records (lm-eval's ``samples_*.jsonl``, Inspect's samples,
lighteval's details, LiveCodeBench's graded lists) puts them in :attr:`Reading.items`: one row
per item and sample, the coordinates of the cell it belongs to as columns (as its records name
them), ``item`` (text), ``sample`` (int), ``score`` (float), and any of ``prompt``, ``target``
and ``response`` (text). Here are the records' names, a score read as Inspect reads it
(:func:`value_to_float`), whether a table is per-item records (:func:`is_item_table`,
:func:`item_options`) and a harness's samples given their model (:func:`join_items`).

The catalog shapes them (:mod:`evalmaps.catalog.item_shaping`): a plain per-item table's
records and dimensions (``import_items``), a cell's value from its items (``summarise``).
"""

from __future__ import annotations

import math
import re
from pathlib import PurePosixPath

import pandas as pd

from evalmaps.readers.base import ImportOptions, short

ITEM, SAMPLE, SCORE = "item", "sample", "score"
TEXT_COLUMNS = ("prompt", "target", "response")
# other names a table gives an item's texts (MMLU-Pro's per-question outputs: question,
# generated_text), tried in order where the column of TEXT_COLUMNS' own name is absent
TEXT_ALIASES = {"prompt": ("question", "input", "instruction", "problem"),
                "response": ("generated_text", "output", "completion", "model_output")}
MAX_LABELS = 50  # a property of each item with more labels is an attribute, not a grouping
MAX_LABEL = 100  # a longer text is free text, not a label
# Inspect's letter values, as inspect_ai.scorer.value_to_float maps them
LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
MODEL_NAMES = ("model", "model_name")
FILE = "{file}"  # in a --set label: the name of the file the rows come from (file_label)


def value_to_float(value) -> float | None:
    """A score as Inspect's ``value_to_float`` reads it: a number (true/false: 1/0), the letters
    C (1), I (0), P (0.5) and N (0), yes/true (1) and no/false (0), a number written as text.
    None for anything else (Inspect counts it 0 with a warning; the caller says so)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        if value in LETTERS:
            return LETTERS[value]
        low = value.strip().lower()
        if low in WORDS:
            return WORDS[low]
        try:
            number = float(low)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


# the names that say a table is per-item records when --item was not given: an item's id, and a
# prediction with its reference (compared as text) or an item's score
ID_NAMES = ("item", "item_id", "id", "question_id", "doc_id", "sample_id", "problem_id",
            "example_id", "task_id", "qid", "uid")
PRED_NAMES = ("pred", "prediction", "predicted", "model_answer", "extracted_answer")
REF_NAMES = ("answer", "target", "reference", "gold", "label", "ground_truth", "correct_answer")
SCORE_NAMES = ("score", "correct", "is_correct", "passed")


def item_options(columns, frame: pd.DataFrame | None = None) -> str | None:
    """The options that would import a table with these columns as per-item records (``--item
    question_id --correct pred=answer``), when they look like them: an id column, and a
    prediction with its reference or (given the ``frame``: an id column of more than
    :data:`MAX_LABELS` labels) a score. None otherwise."""
    lower = {str(c).strip().lower(): str(c).strip() for c in columns}
    item = next((lower[n] for n in ID_NAMES if n in lower), None)
    if item is None:
        return None
    pred = next((lower[n] for n in PRED_NAMES if n in lower), None)
    ref = next((lower[n] for n in REF_NAMES if n in lower), None)
    if pred and ref:
        return f"--item {item} --correct {pred}={ref}"
    score = next((lower[n] for n in SCORE_NAMES if n in lower), None)
    if score and (frame is None or frame[item].nunique() > MAX_LABELS):
        return f"--item {item}" + ("" if score.lower() == SCORE else
                                   " (its score in a column named 'score')")
    return None


def not_cells(columns, frame: pd.DataFrame | None = None) -> str | None:
    """What to say of a table imported without ``--item`` whose columns look like per-item
    records (:func:`item_options`): name the options. None when they do not."""
    given = item_options(columns, frame)
    if given is None:
        return None
    return (f"this table looks like per-item records (one row per item), not cells, and was "
            f"imported without --item. Import it with {given} (on the Data page: Per-item "
            f"records).")


def is_item_table(columns, options: ImportOptions | None) -> bool:
    """Whether a table is per-item records: ``--item`` or ``--correct`` given, or columns named
    ``item`` and ``score`` (and no ``value``: a tidy table of cells)."""
    if options is not None and (options.item or options.correct):
        return True
    names = {str(c).strip().lower() for c in columns}
    return ITEM in names and SCORE in names and "value" not in names


CLUSTER_PREFIX = "cluster:"  # the records' column of --cluster COL is 'cluster:COL'


def cluster_column(column: str) -> str:
    """The records' column that keeps ``--cluster COL``'s labels: ``cluster:COL``."""
    return CLUSTER_PREFIX + column


def join_items(readings: list, warnings: list[str], results_re: re.Pattern, stamp: str,
               keys: tuple[str, ...], folders_up: int = 0) -> None:
    """Give per-sample records that do not name their model (a harness's samples file) the
    ``keys`` (model, step) of the results file of the same timestamp (``items.attrs[stamp]``;
    ``results_re``'s group ``stamp`` in the results file's name), looked for anywhere among
    ``readings``; else of the only model of the results in the same folder; else the name of
    the folder ``folders_up`` above the file's own, with a warning."""
    found: dict[str, dict] = {}  # timestamp -> a record's coords
    by_folder: dict[str, set] = {}
    for reading in readings:
        if not reading.records:
            continue
        path = PurePosixPath(reading.file)
        m = results_re.match(path.name)
        rec = reading.records[0]
        coords = {k: rec[k] for k in keys if k in rec}
        if m:
            found.setdefault(m.group("stamp"), coords)
        by_folder.setdefault(str(path.parent), set()).add(tuple(sorted(coords.items())))
    for reading in readings:
        items = reading.items
        if items is None or "model" in items.columns:
            continue
        path = PurePosixPath(reading.file)
        coords = found.get(items.attrs.get(stamp, ""))
        if coords is None and len(by_folder.get(str(path.parent), ())) == 1:
            coords = dict(next(iter(by_folder[str(path.parent)])))
        if coords is None:
            folder = path.parents[folders_up] if len(path.parents) > folders_up else path.parent
            model = folder.name or path.stem
            warnings.append(f"{short(reading.file)} has no results file of its timestamp among "
                            f"the files to name its model: it is named after its folder, '{model}'.")
            coords = {"model": model}
        for key, value in coords.items():
            items[key] = value
