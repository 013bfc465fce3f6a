"""Leaderboards, a table shape: one row per model, a column per score, standard errors beside
their scores, text columns (AlpacaEval's CSVs, the Open LLM Leaderboard's export).

:mod:`evalmaps.catalog.shaping` calls this module for the shape ``leaderboard`` (detected, or
chosen in the Data page's format menu); the file itself is read by its own reader (CSV, Parquet,
JSON Lines). The columns' roles:

- the **model** column: the first column, when it names each row once (else the first column
  called ``model``, ``model_name``, ``name`` or ``fullname`` that does);
- **scores**: every other column whose cells are numbers (or empty, or a placeholder such as
  ``N/A``: a score the file does not give is missing). Counts (``n_wins``, ``n_total``) and
  lengths (``avg_length``) are scores too;
- **standard errors**, kept as each cell's ``se``: ``standard_error`` (or ``stderr``, ``se``)
  belongs to the first score, ``lc_standard_error`` to ``length_controlled_winrate``, and
  ``<score>_stderr``, ``<score>_se``, ``<score>_standard_error`` to ``<score>``;
- **text columns** that group models (a few labels, each shared by several rows, such as
  AlpacaEval's ``mode``) are dimensions; other text (links, descriptions) is left out, with a
  warning that names it.

The figure: one panel per score (the facet ``metric``, in the file's order: the main score
first), so that each score is coloured on its own scale (a win rate in percent and a count of
wins never share one); models are the rows, in the file's order; the columns are the first
grouping column's labels (each model's score sits in its group's column), or, with none, one
column named after the file. Other grouping columns are facets. A score named as a rate
(``win_rate``, ``accuracy``, ``pass_rate``...) whose values all lie in [0, 1] is a fraction
(range [0, 1]); one whose values lie in [0, 100], some above 1, is a percent (unit ``%``, range
[0, 100]); no other score is given a range (its colours span its values).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from evalmaps.catalog import columnar
from evalmaps.core.figure import slugify
from evalmaps.core.names import RESERVED_NAMES
from evalmaps.readers.base import ImportFailed

NAME = "leaderboard"
MODEL_NAMES = ("model", "model_name", "name", "fullname")  # a model column named so
MISSING = frozenset({"", "-", "n/a", "na", "nan", "none", "null"})  # a score not given
MAIN_SE = ("standard_error", "stderr", "se", "std_err")  # the first score's standard error
SE_SUFFIXES = ("_standard_error", "_stderr", "_std_err", "_se")  # <score><suffix>
# AlpacaEval 2's length-controlled win rate and its standard error
LC_SE = "lc_standard_error"
LC_SCORES = ("length_controlled_winrate", "lc_win_rate", "lc_winrate")
RATE_WORDS = frozenset({"rate", "winrate", "passrate", "accuracy", "acc", "percent",
                        "percentage", "pct"})
MAX_GROUP_LABELS = 12  # a text column with more labels than this does not group models
MODEL, METRIC, ONE_COLUMN = "model", "metric", "leaderboard"


@dataclass
class Roles:
    """What each column of a leaderboard is."""

    model: str
    scores: list[str]  # in the file's order, the main score first
    se: dict[str, str]  # score column -> its standard error column
    groups: list[str]  # text columns that group models
    left_out: list[str] = field(default_factory=list)  # warnings: columns not used, and why


def _given(values: pd.Series) -> pd.Series:
    """The cells that give something (not empty, not a placeholder such as N/A)."""
    return values[~values.str.strip().str.lower().isin(MISSING)]


def _numeric(values: pd.Series) -> bool:
    """Whether a column holds numbers: every cell given is one, and one is given at least."""
    given = _given(values)
    return bool(len(given)) and bool(columnar.python_numbers(columnar.as_text(given)).all())


def _model_column(frame: pd.DataFrame) -> str | None:
    """The column that names each row once: the first, else one called like a model column."""
    columns = list(frame.columns)
    named = [c for c in columns[1:] if c.strip().lower() in MODEL_NAMES]
    for col in [columns[0], *named]:
        values = frame[col]
        if (values != "").all() and values.is_unique and not _numeric(values):
            return col
    return None


def _se_target(col: str, scores: list[str]) -> str | None:
    """The score a standard-error column belongs to (None: it is not a standard error)."""
    low = col.strip().lower()
    if low in MAIN_SE:
        return scores[0] if scores else None
    if low == LC_SE:
        return next((s for s in scores if s.strip().lower() in LC_SCORES), None)
    for suffix in SE_SUFFIXES:
        if low.endswith(suffix) and len(low) > len(suffix):
            base = low[:-len(suffix)]
            return next((s for s in scores if s.strip().lower() == base), None)
    return None


def _is_se_name(col: str) -> bool:
    low = col.strip().lower()
    return low in MAIN_SE or low == LC_SE or any(
        low.endswith(s) and len(low) > len(s) for s in SE_SUFFIXES)


def names_a_standard_error(columns) -> bool:
    """Whether a column is named as a standard error (a cheap look before :func:`roles`)."""
    return any(_is_se_name(c) for c in columns)


def roles(frame: pd.DataFrame) -> Roles | None:
    """The columns' roles, or None when the table is not a leaderboard (no column names each
    row once, or no column holds scores)."""
    model = _model_column(frame)
    if model is None:
        return None
    numeric = [c for c in frame.columns if c != model and _numeric(frame[c])]
    scores = [c for c in numeric if not _is_se_name(c)]
    if not scores:
        return None
    se, left_out = {}, []
    for col in numeric:
        if col in scores:
            continue
        target = _se_target(col, scores)
        if target is None:
            left_out.append(f"'{col}' is a standard error of no score column (no column "
                            f"'{_base(col)}'); it is left out.")
        elif target in se:
            left_out.append(f"'{col}' is a second standard error of {target} (after "
                            f"'{se[target]}'); it is left out.")
        else:
            se[target] = col
    groups, texts = [], []
    for col in frame.columns:
        if col == model or col in numeric:
            continue
        values = frame[col]
        labels = values.nunique()
        if (values != "").all() and 2 <= labels <= MAX_GROUP_LABELS and labels <= len(values) / 2:
            groups.append(col)
        else:
            texts.append(col)
    if texts:
        named = ", ".join(f"'{c}'" for c in texts[:8]) + (" ..." if len(texts) > 8 else "")
        left_out.append(f"The text column{'s' * (len(texts) > 1)} {named} "
                        f"{'do' if len(texts) > 1 else 'does'} not group models (each model its "
                        f"own text, the same text in every row, or empty cells) and "
                        f"{'are' if len(texts) > 1 else 'is'} left out.")
    return Roles(model, scores, se, groups, left_out)


def _base(col: str) -> str:
    low = col.strip().lower()
    if low == LC_SE:
        return LC_SCORES[0]
    return next((col[:-len(s)] for s in SE_SUFFIXES if low.endswith(s)), col)


def _dim_name(column: str, taken: set[str]) -> str:
    """A grouping column's dimension name, as a wide table's are named (a slug, not a reserved
    name, not one of the leaderboard's own)."""
    name = slugify(column).replace("-", "_") or "group"
    while name in RESERVED_NAMES or name in taken:
        name += "_"
    return name


def import_leaderboard(frame: pd.DataFrame, name: str, options, warnings: list[str]):
    """The leaderboard shape (:func:`evalmaps.catalog.shaping.import_table`'s importer): the
    long table of cells (value and se texts), the dimensions (facets, y, x) and no replicate."""
    found = roles(frame)
    if found is None:
        has_model = _model_column(frame) is not None
        raise ImportFailed(
            ("no column holds scores (numbers) beside the model names. " if has_model else
             "no column names each row once (the models). ")
            + "A leaderboard has one row per model and a column per score; choose another "
              "format.", file=name)
    warnings.extend(found.left_out)
    taken = {MODEL, METRIC, "se"}
    group_dims = {}
    for col in found.groups:
        group_dims[col] = _dim_name(col, taken)
        taken.add(group_dims[col])
    x = found.groups[0] if found.groups else None
    stem = PurePosixPath(name).name.rsplit(".", 1)[0] or "scores"
    parts = []
    for score in found.scores:
        values = frame[score]
        present = ~values.str.strip().str.lower().isin(MISSING)
        part = pd.DataFrame({METRIC: score}, index=frame.index[present])
        for col in found.groups[1:]:
            part[group_dims[col]] = frame.loc[present, col]
        part[MODEL] = frame.loc[present, found.model]
        part[group_dims[x] if x else ONE_COLUMN] = frame.loc[present, x] if x else stem
        part["value"] = values[present]
        if found.se:
            se = frame.loc[present, found.se[score]] if score in found.se else ""
            part["se"] = se
            part["se"] = part["se"].where(~part["se"].str.strip().str.lower().isin(MISSING), "")
        parts.append(part)
    long = pd.concat(parts, ignore_index=True).astype("str")
    if "se" in long:
        _check_se(long, name)
    dims = [METRIC, *(group_dims[c] for c in found.groups[1:]), MODEL,
            group_dims[x] if x else ONE_COLUMN]
    return long, dims, None


def _check_se(long: pd.DataFrame, name: str) -> None:
    given = long["se"] != ""
    if not given.any():
        return
    values = _floats(long.loc[given, "se"])
    if (values < 0).any():
        i = long.index[given][int((values < 0).argmax())]
        raise ImportFailed(f"the standard error of {long.at[i, METRIC]} for {long.at[i, MODEL]} "
                           f"is {long.at[i, 'se']}, below 0. A standard error is 0 or more: fix "
                           f"it, or leave the cell empty.", file=name)


def _floats(texts: pd.Series) -> np.ndarray:
    """Texts of numbers as ``float()`` reads them ('1_000' too)."""
    return np.array([float(t) for t in texts], dtype=float)


def _rate(label: str) -> bool:
    """Whether a score's name says it is a rate (a fraction or a percent)."""
    words = set(re.split(r"[^a-z0-9]+", label.lower()))
    return "%" in label or bool(words & RATE_WORDS)


def metric_entry(label: str, values) -> dict:
    """A score's metric entry: a rate's scale from its values (fraction or percent), nothing
    else invented."""
    entry: dict = {"name": label}
    values = list(values)
    if _rate(label) and values and all(0 <= v <= 1 for v in values):
        entry["range"] = [0, 1]
    elif _rate(label) and values and all(0 <= v <= 100 for v in values):
        entry.update(unit="%", range=[0, 100])
    return entry


def describe(spec: dict, cells: pd.DataFrame, frame: pd.DataFrame, warnings: list[str]) -> None:
    """The catalog entry of a leaderboard: each score's metric (its own colour scale when the
    metric is a facet), and a note that says which standard error belongs to which score."""
    values = _floats(cells["value"])
    labels = spec["dims"][METRIC]["labels"]
    metrics = {label: metric_entry(label, values[(cells[METRIC] == label).to_numpy()])
               for label in labels}
    spec.pop("zrange", None)
    spec["dims"][MODEL]["title"] = "Model"
    spec["dims"][METRIC]["title"] = "Metric"
    if len(labels) == 1:
        spec["metric"] = {"unit": "", "range": None, **metrics[labels[0]]}
    else:
        spec["metric"] = {"name": "score", "unit": "", "range": None}
        if METRIC in spec["facets"]:
            spec["metrics"] = {"dim": METRIC, "labels": metrics}
        else:
            warnings.append(f"The scores ({', '.join(labels[:6])}{' ...' * (len(labels) > 6)}) "
                            f"share one colour scale, as metric is an axis: keep metric a facet "
                            f"to colour each score on its own scale.")
    found = roles(frame)
    notes = [f"Imported from {spec['title']} (leaderboard format): one panel per score, each on "
             f"its own colour scale."]
    if found is not None and found.se:
        notes.append("Standard errors (se): " + ", ".join(
            f"{found.se[score]} of {score}" for score in found.scores if score in found.se) + ".")
    spec["notes"] = notes + warnings
