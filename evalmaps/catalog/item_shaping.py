"""Per-item records shaped into cells: a plain per-item table's records and dimensions, and a
cell's value from its items. The readers (:mod:`evalmaps.readers.items`) sniff and read the
records; this, in the catalog, shapes them.

A cell's value is the mean over its items of each item's mean over samples (Pass@1 averaged
over n samples): :func:`summarise`.

A plain per-item table (CSV, Parquet, JSON Lines, a JSON list, or a zip of one), one row per
item (or per item and sample), is imported by :func:`import_items`:

- dimension columns, ``item`` (or the column ``--item`` names), an optional ``sample``, and
  ``score`` (0/1 or any number; true/false and yes/no read as 1/0);
- or, with ``--correct pred=answer``, a prediction and a reference column compared as text
  (stripped; an empty prediction, JSON null, is wrong);
- ``--set model=Llama-2-7B`` adds a dimension every row shares (the model, named outside the
  file); ``--set model={file}`` names it after the file the rows come from (:func:`file_label`),
  so that a folder of one file per model is one figure (:func:`evalmaps.catalog.imports`
  combines per-item tables of the same columns).

The dimensions are the other columns that hold labels, by what they are (:func:`_dimensions`):
the model, ``-x``, ``-y`` and ``--rename``'s DIM whatever their count of labels; a column that
tells rows of one item apart; and a property of each item that groups the items in at most
:data:`~evalmaps.readers.items.MAX_LABELS` groups, unless it restates the reference (a column
one-to-one with it, such as an answer's index; one-to-one but for a few bad source rows too,
with a warning naming them: :func:`_restates`). Free text, an empty column and ``--drop COL``
never are; columns left out are named in a note with their reasons. ``--rename DIM:OLD=NEW``
shows a label under another name. The model (``--set model=...`` or a ``model`` column) is a
facet, so that Compare can put two models side by side, unless ``-x`` or ``-y`` names it; with
a single other dimension, x is ``metric`` (one label).
"""

from __future__ import annotations

import math
from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from evalmaps.readers.base import SUFFIXES, ImportFailed, ImportOptions, short
from evalmaps.readers.fastcsv import as_text
from evalmaps.readers.items import (
    FILE,
    ITEM,
    MAX_LABEL,
    MAX_LABELS,
    MODEL_NAMES,
    SAMPLE,
    SCORE,
    TEXT_ALIASES,
    TEXT_COLUMNS,
    WORDS,
    cluster_column,
)


def summarise(items: pd.DataFrame, coords: list[str]) -> pd.DataFrame:
    """Each cell's value (the mean over its items of each item's mean over samples, summed
    exactly: :func:`exact_mean`), its item
    count and its largest sample count: coords, ``value``, ``n_items``, ``n_samples`` (names no
    dimension takes: lighteval has a dimension ``samples``)."""
    per_item = (items.groupby([*coords, ITEM], sort=False, observed=True)[SCORE]
                .agg(["mean", "size"]).reset_index())
    cell = per_item.groupby(coords, sort=False, observed=True).ngroup().to_numpy() \
        if coords and len(per_item) else None
    if cell is None or (cell < 0).any():  # a cell's label missing: pandas' own way
        return (per_item.groupby(coords, sort=False, observed=True)
                .agg(value=("mean", exact_mean), n_items=("mean", "size"),
                     n_samples=("size", "max"))
                .reset_index())
    # the same, each cell's items as one run (the cells in their first item's order, as
    # pandas gives them): a Python call per cell for its exact sum, not pandas' per group
    order = np.argsort(cell, kind="stable")
    starts = np.flatnonzero(np.r_[True, cell[order][1:] != cell[order][:-1]])
    stops = np.r_[starts[1:], len(order)]
    means = per_item["mean"].to_numpy()[order].tolist()
    out = per_item[coords].iloc[order[starts]].reset_index(drop=True)
    out["value"] = np.array([exact_mean(means[a:b]) for a, b in zip(starts, stops)],
                            dtype=np.float64)
    out["n_items"] = (stops - starts).astype(np.int64)
    out["n_samples"] = np.maximum.reduceat(per_item["size"].to_numpy()[order], starts)
    return out


def exact_mean(values) -> float:
    """The mean of the items' means with their sum correctly rounded (math.fsum): the same
    whatever order the items come in."""
    return math.fsum(values) / len(values)


def file_label(name: str) -> str:
    """What ``{file}`` in a ``--set`` label stands for: the name of the file the rows come from
    (a zip's member: its own name), without its folders and its extensions (those of the files
    evalmaps reads, and ``.gz``): ``eval_results/model_outputs_Llama-2-7b-hf_5shots.json`` ->
    ``model_outputs_Llama-2-7b-hf_5shots``. Other dots stay (``Llama-3.1-8B.jsonl`` ->
    ``Llama-3.1-8B``)."""
    stem = PurePosixPath(name).name
    while True:
        head, dot, ext = stem.rpartition(".")
        if not (dot and head and (f".{ext.lower()}" in SUFFIXES or ext.lower() == "gz")):
            return stem
        stem = head


def _fixed(options: ImportOptions, name: str, files: pd.Series | None,
           rows: int) -> dict[str, pd.Series]:
    """Each ``--set`` dimension's label in every row: ``{file}`` replaced by :func:`file_label`
    of the row's file (``files``; else ``name``)."""
    out = {}
    for dim, label in options.fixed.items():
        if FILE in label and files is not None:
            out[dim] = files.astype("category").map(
                lambda f, label=label: label.replace(FILE, file_label(f))).astype(str)
        else:
            out[dim] = pd.Series([label.replace(FILE, file_label(name))] * rows, dtype=str)
    return out


def _in_arrow(values: pd.Series) -> bool:
    """Whether a column is texts that pyarrow keeps (pandas' ``str``), none missing."""
    return isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow" \
        and not values.hasnans


def _positional(values: pd.Series):
    """A column's values to put in another table row by row (not by its index): kept in Arrow
    where they are texts there (``to_numpy`` would make each a Python object, for pandas to
    turn back into Arrow)."""
    return values.array if _in_arrow(values) else values.to_numpy()


def _text_or_none(values: pd.Series):
    """An item's texts as the records keep them: an empty text missing (None), the others as
    they are; in Arrow where the texts are there."""
    if _in_arrow(values):
        import pyarrow as pa
        import pyarrow.compute as pc

        texts = as_text(values)
        kept = pc.if_else(pc.equal(texts, ""), pa.scalar(None, texts.type), texts)
        return pd.array(kept, dtype=values.dtype)
    return values.astype(object).where(values.astype(str) != "", None).to_numpy()


def _free_text(values: pd.Series) -> bool:
    texts = values.astype(str)
    return bool(texts.str.contains("\n", regex=False).any() or (texts.str.len() > MAX_LABEL).any())


def _scores(values: pd.Series, name: str) -> np.ndarray:
    out = np.empty(len(values), dtype=np.float64)
    for i, text in enumerate(values.tolist()):
        low = str(text).strip().lower()
        if low in WORDS:
            out[i] = WORDS[low]
            continue
        try:
            out[i] = float(low)
        except ValueError:
            out[i] = np.nan
        if not math.isfinite(out[i]):
            raise ImportFailed(f"the score '{str(text)[:40]}' is not a number. Write each item's "
                               f"score as a number (1 right, 0 wrong), true/false or yes/no.",
                               file=name, row=i + 2, column=SCORE)
    return out


def _texts(frame: pd.DataFrame, lower: dict[str, str], exclude: set[str]) -> dict[str, pd.Series]:
    """An item's texts the table gives: each of TEXT_COLUMNS by its own name, else by the first
    of its :data:`TEXT_ALIASES` the table has (never a column in ``exclude``)."""
    out = {}
    for name in TEXT_COLUMNS:
        for candidate in (name, *TEXT_ALIASES.get(name, ())):
            column = lower.get(candidate)
            if column is not None and column not in exclude:
                out[name] = frame[column]
                break
    return out


def import_items(frame: pd.DataFrame, name: str, options: ImportOptions,
                 notes: list[str], files: pd.Series | None = None,
                 warnings: list[str] | None = None,
                 dims_of: list[str] | None = None) -> tuple[pd.DataFrame, list[str], str]:
    """A per-item table (texts) -> its items (dims, item, sample, score, texts), its dims
    (facets first, then y and x) and the metric's name. See the module's docstring.
    ``files``: each row's file, when the rows of several files are read as one table (their
    ``{file}`` labels differ; errors name the file). ``warnings``: where to say what the user
    should check (a column left out of the dimensions because of a few bad rows); else the
    ``notes``. ``dims_of``: the dimension columns, decided already (by the first of several
    tables of the same columns read one at a time: :mod:`evalmaps.catalog.stream`)."""
    frame = frame.rename(columns=lambda c: str(c).strip())
    columns = list(frame.columns)
    lower = {c.lower(): c for c in columns}
    absent = [c for c in options.drop if c not in frame]
    if absent:
        raise ImportFailed(f"--drop names the column {absent[0]!r}, which the table does not "
                           f"have (its columns are {', '.join(columns[:12])}). Give --drop one "
                           f"of its columns.", file=name)
    item_col = options.item or lower.get(ITEM)
    if item_col is None or item_col not in frame:
        raise ImportFailed(f"there is no item column{f' {item_col!r}' if item_col else ''} "
                           f"(the columns are {', '.join(columns[:12])}). Name the column that "
                           f"holds each item's id with --item COLUMN.", file=name)
    used = {item_col}
    if options.correct:
        pred, ref = options.correct
        missing = [c for c in (pred, ref) if c not in frame]
        if missing:
            raise ImportFailed(f"--correct names the column {missing[0]!r}, which the table does "
                               f"not have (its columns are {', '.join(columns[:12])}). Give "
                               f"--correct PREDICTION=REFERENCE with two of its columns.",
                               file=name)
        if SCORE in lower:
            raise ImportFailed(f"the table has a score column ({lower[SCORE]!r}) and --correct "
                               f"was given too. Use one of the two.", file=name)
        p, r = frame[pred].astype(str).str.strip(), frame[ref].astype(str).str.strip()
        score = ((p == r) & (p != "")).to_numpy(dtype=np.float64)
        texts = {**_texts(frame, lower, exclude={pred, ref}), "target": frame[ref]}
        texts.setdefault("response", frame[pred])  # the model's own text where the table has it
        used |= {pred, ref}
        metric = "accuracy"
    else:
        if SCORE not in lower:
            raise ImportFailed(f"there is no score column (the columns are "
                               f"{', '.join(columns[:12])}). Add a 'score' column (1 right, 0 "
                               f"wrong, or any number), or compare a prediction with a reference "
                               f"with --correct PREDICTION=REFERENCE.", file=name)
        score = _scores(frame[lower[SCORE]], name)
        texts = _texts(frame, lower, exclude={lower[SCORE]})
        used.add(lower[SCORE])
        metric = "score"
    used |= {column.name for column in texts.values()}
    if options.cluster is not None:
        if options.cluster not in frame:
            raise ImportFailed(f"--cluster names the column {options.cluster!r}, which the table "
                               f"does not have (its columns are {', '.join(columns[:12])}). Give "
                               f"--cluster the column that groups the items, or leave it out.",
                               file=name)
        if options.cluster in used:
            raise ImportFailed(f"--cluster names the column {options.cluster!r}, which holds the "
                               f"items' ids, scores or texts. Give --cluster the column that "
                               f"groups the items.", file=name)
        used.add(options.cluster)
    sample_col = lower.get(SAMPLE)
    if sample_col is not None:
        used.add(sample_col)
        samples = pd.to_numeric(frame[sample_col], errors="coerce")
        if samples.isna().any() or (samples != samples.round()).any():
            i = int(samples.isna().to_numpy().argmax()) if samples.isna().any() else \
                int((samples != samples.round()).to_numpy().argmax())
            raise ImportFailed("a sample number is not a whole number. Number each item's "
                               "samples 0, 1, 2, ...", file=name, row=i + 2, column=sample_col)
        sample = samples.to_numpy(dtype=np.int64)
    else:
        sample = np.zeros(len(frame), dtype=np.int64)
    ids = frame[item_col].astype(str).str.strip()
    if (ids == "").any():
        i = int((ids == "").to_numpy().argmax())
        raise ImportFailed("an item has no id. Give every row its item's id.", file=name,
                           row=i + 2, column=item_col)
    needed = [c for c in options.drop if c in used]
    if needed:
        raise ImportFailed(f"--drop names the column {needed[0]!r}, which holds the items' ids "
                           f"or scores. Drop another column, or leave --drop out.", file=name)
    if dims_of is not None:  # decided already, by the first table of a stream of them
        dims, left_out = [c for c in dims_of if c in frame and c not in options.fixed], []
        reasons: dict[str, str] = {}
    else:
        dims, reasons = _dimensions(frame, columns, used, options, ids, sample, item_col, name,
                                    notes if warnings is None else warnings)
        left_out = [c for c in reasons if c not in options.drop]
    out = pd.DataFrame({**{d: frame[d].astype(str).str.strip() for d in dims},
                        **{d: _positional(v) for d, v in
                           _fixed(options, name, files, len(frame)).items()}})
    for d in out.columns:
        if (out[d] == "").any():
            i = int((out[d] == "").to_numpy().argmax())
            raise ImportFailed(f"the dimension {d!r} is empty in this row. Give every row a "
                               f"label, or leave the column out.", file=name, row=i + 2, column=d)
    _rename(out, options, name)
    if not len(out.columns):
        raise ImportFailed("the table has no dimension column besides the item and its score. "
                           "Add one (such as model), or name the model with --set model=NAME.",
                           file=name)
    if options.x and options.x == options.y:
        raise ImportFailed("x and y must be different dimensions.", file=name)
    # the model is a facet (Compare sets two side by side), unless x or y is chosen to be it
    chosen = [c for c in (options.x, options.y) if c]
    models = [d for d in out.columns if d.lower() in MODEL_NAMES and d not in chosen]
    others = [d for d in out.columns if d not in models]
    if len(others) < 2:
        out["metric"] = metric
        others.append("metric")
    for role, chosen in (("x", options.x), ("y", options.y)):
        if chosen and chosen not in others:
            raise ImportFailed(f"the {role} dimension {chosen!r} is not among the table's "
                               f"dimensions ({', '.join([*models, *others])}).", file=name)
    if options.x:
        others.remove(options.x)
        others.append(options.x)
    if options.y:
        others.remove(options.y)
        others.insert(len(others) - 1, options.y)
    dims = [*models, *others]
    out = out[dims]
    out[ITEM] = _positional(ids)
    out[SAMPLE] = sample
    out[SCORE] = score
    for column, values in texts.items():
        out[column] = _text_or_none(values)
    if options.cluster is not None:
        out[cluster_column(options.cluster)] = _clusters(frame[options.cluster], out, dims,
                                                         options.cluster, name)
    repeated = out.duplicated([*dims, ITEM, SAMPLE])
    if repeated.any():
        i = int(repeated.to_numpy().argmax())
        if files is not None:
            key = out.iloc[i][[*dims, ITEM, SAMPLE]].tolist()
            first = int((out[[*dims, ITEM, SAMPLE]] == key).all(axis=1).to_numpy().argmax())
            if files.iloc[first] != files.iloc[i]:
                raise ImportFailed(f"item {out[ITEM].iloc[i]!r} is in both {short(files.iloc[first])} "
                                   f"and {short(files.iloc[i])}, in the same cell. Name each "
                                   f"file's model after the file with --set model={FILE} (on "
                                   f"the Data page: model from the file name), or import the "
                                   f"files one at a time.", file=name)
        raise ImportFailed(_twice(frame, out, dims, i, reasons), file=name, row=i + 2)
    if left_out:
        said = [f"{c} ({reasons[c]})" for c in left_out[:10]]
        notes.append(f"Columns not used as dimensions: {', '.join(said)}"
                     f"{' ...' if len(left_out) > 10 else ''}.")
    if options.drop:
        notes.append(f"Left out of the dimensions with --drop: {', '.join(options.drop)}.")
    return out, dims, metric


def _twice(frame: pd.DataFrame, out: pd.DataFrame, dims: list[str], i: int,
           reasons: dict[str, str]) -> str:
    """What to say of the row ``i`` whose item and sample another row of its cell has: the
    columns left out of the dimensions that tell the two rows apart, each with why it was left
    out, or that nothing does."""
    key = out.iloc[i][[*dims, ITEM, SAMPLE]].tolist()
    first = int((out[[*dims, ITEM, SAMPLE]] == key).all(axis=1).to_numpy().argmax())
    apart = [c for c in reasons if c in frame
             and str(frame[c].iloc[first]).strip() != str(frame[c].iloc[i]).strip()]
    head = f"item {out[ITEM].iloc[i]!r} appears twice in one cell with the same sample"
    if apart:
        said = "; ".join(f"{c!r} is {reasons[c]}" for c in apart[:3])
        return (f"{head}: its two rows differ only in columns that are not dimensions ({said}). "
                f"Keep one row per item and sample, or make the column that tells them apart a "
                f"dimension (name it with -x or -y, or give each file its label with --set).")
    return (f"{head}, and no other column tells the two rows apart. Keep one row per item (and "
            f"sample), or number the samples in a 'sample' column.")


def _dimensions(frame: pd.DataFrame, columns: list[str], used: set[str], options: ImportOptions,
                ids: pd.Series, sample: np.ndarray, item_col: str, name: str,
                warnings: list[str]) -> tuple[list[str], dict[str, str]]:
    """Which of a per-item table's columns are dimensions, by what they are, and why each other
    column is not (column -> the reason, in the words of the import's note).

    A column is a dimension when it is named as one (the model, ``model`` or ``model_name``;
    the ``-x`` or ``-y`` of the import; the DIM of a ``--rename``), whatever its count of labels;
    or when its labels tell apart rows of the same item and sample (the run, the seed, the
    model under another name: without it the item would be twice in one cell), unless each of
    its labels is on a single row (a time stamp, an id of the row). Any other column with
    labels is a property of each item; it is a dimension when it groups the items in at most
    :data:`MAX_LABELS` groups (the category, the subject), and not when it has more (the source
    of each question) or restates the reference (an answer's index beside its letter). Free
    text (a label with a line break or over :data:`MAX_LABEL` characters), a column with no
    label and ``--drop COL`` are never dimensions."""
    named = {c for c in columns if c.lower() in MODEL_NAMES}
    named |= {c for c in (options.x, options.y) if c}
    named |= {dim for dim, _, _ in options.rename}
    reference = frame[options.correct[1]].astype(str) if options.correct else None
    # each row's item and sample as one code: rows that share one are what a dimension tells apart
    item_code = pd.factorize(ids)[0].astype(np.int64)
    key = item_code * (int(sample.max()) + 1 if len(sample) else 1) + sample
    repeats = bool(pd.Series(key).duplicated().any())
    dims, reasons = [], {}
    for col in columns:
        if col in used or col in options.fixed:
            continue
        if col in options.drop:
            reasons[col] = "left out with --drop"
            continue
        values = frame[col].astype(str)
        distinct = values.nunique()
        if distinct < 2 and values.iloc[0].strip() == "":
            reasons[col] = "empty"
        elif _free_text(values):
            reasons[col] = "free text"
        elif col in named:
            dims.append(col)
        elif repeats and distinct * 2 <= len(values) and _tells_apart(key, values):
            dims.append(col)  # the run, the seed: the same item under several of its labels
        elif distinct > MAX_LABELS:
            reasons[col] = f"a property of each item in more than {MAX_LABELS} groups"
        elif reference is not None and _one_to_one(values, reference):
            reasons[col] = "the reference written another way"
        elif reference is not None and (off := _restates(values, reference, ids)) is not None:
            reasons[col] = "the reference written another way"
            said = "; ".join(f"{item_col} {i!r}: {options.correct[1]} {r!r}, {col} {v!r}"
                             for i, r, v in off[:3])
            warnings.append(
                f"The column {col!r} is the reference {options.correct[1]!r} written another "
                f"way (a property of each item), but the two disagree in {len(off)} row"
                f"{'s' if len(off) > 1 else ''} ({said}{'; ...' if len(off) > 3 else ''}); it "
                f"is left out of the dimensions. Check those rows of the source; --drop COL "
                f"leaves out any other column.")
        else:
            dims.append(col)
    return dims, reasons


def _tells_apart(key: np.ndarray, values: pd.Series) -> bool:
    """Whether a column's labels differ between some two rows of the same item and sample."""
    pairs = pd.DataFrame({"k": key, "v": pd.factorize(values)[0]}).drop_duplicates()
    return bool(pairs["k"].duplicated().any())


def _clusters(values: pd.Series, out: pd.DataFrame, dims: list[str], column: str,
              name: str) -> np.ndarray:
    """Each row's cluster (``--cluster COL``), as text: refused where a row has none, or where
    one item of a cell is in two clusters (its samples disagree)."""
    texts = values.astype(str).str.strip()
    empty = values.isna().to_numpy() | (texts == "").to_numpy()
    if empty.any():
        i = int(empty.argmax())
        raise ImportFailed(f"the cluster column {column!r} is empty in this row. Give every item "
                           f"its cluster, or leave --cluster out.", file=name, row=i + 2,
                           column=column)
    keyed = pd.DataFrame({**{d: out[d].to_numpy() for d in dims}, ITEM: out[ITEM].to_numpy(),
                          "__cluster": texts.to_numpy()})
    counts = keyed.groupby([*dims, ITEM], sort=False, observed=True)["__cluster"].nunique()
    if (counts > 1).any():
        item = counts.index[int((counts > 1).to_numpy().argmax())][-1]
        raise ImportFailed(f"item {item!r} is in more than one cluster of {column!r} within one "
                           f"cell. Give each item one cluster (all its samples the same).",
                           file=name, column=column)
    return texts.to_numpy(dtype=object)


def _rename(out: pd.DataFrame, options: ImportOptions, name: str) -> None:
    """Each ``--rename DIM:OLD=NEW`` applied to the dimensions' labels ``out`` (in place): an
    error when DIM is no dimension, no label is OLD, or two labels would become one."""
    for dim, old, new in options.rename:
        if dim not in out.columns:
            raise ImportFailed(f"--rename names the dimension {dim!r}, which this import does not "
                               f"have (its dimensions are {', '.join(out.columns)}). Give "
                               f"--rename DIM:OLD=NEW with one of them.", file=name)
        labels = out[dim].unique().tolist()
        if old not in labels:
            shown = ", ".join(labels[:8]) + (" ..." if len(labels) > 8 else "")
            raise ImportFailed(f"--rename {dim}:{old}={new}: no {dim} is labelled {old!r} (the "
                               f"labels are {shown}). Give one of them.", file=name)
        if new != old and new in labels:
            raise ImportFailed(f"--rename {dim}:{old}={new} would give two {dim} labels the one "
                               f"name {new!r}. Give each its own name.", file=name)
        out[dim] = out[dim].where(out[dim] != old, new)


def _one_to_one(values: pd.Series, reference: pd.Series) -> bool:
    pairs = pd.DataFrame({"a": values.to_numpy(), "b": reference.to_numpy()}).drop_duplicates()
    return pairs["a"].is_unique and pairs["b"].is_unique


RESTATES_OFF = 0.01  # the share of items on which a restatement of the reference may disagree


def _restates(values: pd.Series, reference: pd.Series, ids: pd.Series
              ) -> list[tuple[str, str, str]] | None:
    """Whether a column is the reference written another way (an answer's index beside its
    letter: a property of each item) but for a few bad source rows: one-to-one with the
    reference on all the items but at least one and at most :data:`RESTATES_OFF` of them. The
    rows whose two disagree with that correspondence (item id, reference, value), each once, in
    the table's order; None when it is not such a column (a grouping of the items, such as a
    category, is no function of the reference)."""
    rows = pd.DataFrame({"id": ids.to_numpy(), "ref": reference.to_numpy(),
                         "value": values.to_numpy()}).drop_duplicates()
    if rows["value"].nunique() < 2:
        return None

    def usual(key: str, of: str) -> pd.Series:  # each key's most frequent partner
        return rows.groupby(key, sort=False)[of].agg(lambda s: s.value_counts().index[0])

    off = (rows["value"] != rows["ref"].map(usual("ref", "value"))) \
        | (rows["ref"] != rows["value"].map(usual("value", "ref")))
    n_off = rows.loc[off, "id"].nunique()
    if not n_off or n_off > RESTATES_OFF * rows["id"].nunique():
        return None
    return list(rows.loc[off, ["id", "ref", "value"]].itertuples(index=False, name=None))


# ---------------------------------------------------------------------------- Arrow fast path

def import_items_arrow(table, name: str, options: ImportOptions, notes: list[str]):
    """:func:`import_items` on a Parquet table of native types, kept in Arrow (a million
    records read about as fast as pyarrow reads the file): None when the table is not the
    plain shape this path takes (a numeric ``score``, no texts, no ``--correct``), and the
    general path reads it. Returns the records (a ``pyarrow.Table``: dims as text, item,
    sample, score), the dims and the metric's name."""
    import pyarrow as pa

    if options.correct or options.fixed or options.drop or options.rename or options.cluster:
        return None
    lower = {c.strip().lower(): c for c in table.column_names}
    item_col = options.item or lower.get(ITEM)
    score_col, sample_col = lower.get(SCORE), lower.get(SAMPLE)
    if item_col not in table.column_names or score_col is None \
            or not (pa.types.is_integer(table.schema.field(score_col).type)
                    or pa.types.is_floating(table.schema.field(score_col).type)) \
            or any(c in lower for c in TEXT_COLUMNS) or table.num_rows == 0:
        return None
    if sample_col is not None and not pa.types.is_integer(table.schema.field(sample_col).type):
        return None
    score = table.column(score_col).cast(pa.float64())
    weights = _numpy(score)  # the one copy of a column made here: bincount takes one array
    if score.null_count or not np.isfinite(weights).all():
        return None  # the general path names the row
    item = _codes(table.column(item_col))
    if item is None or _to_strip(item[1].to_pylist()):
        return None  # ids to strip or empty: the general path
    dims, encoded = [], {}
    for col in table.column_names:
        if col in (item_col, score_col, sample_col):
            continue
        found = _codes(table.column(col))
        if found is None:
            return None
        chunks, dictionary = found
        labels = dictionary.to_pylist()
        named = col.lower() in MODEL_NAMES  # a dimension whatever its count of labels
        if (len(labels) > MAX_LABELS and not named) or _free_text_in(labels) \
                or _to_strip(labels):
            # the labels the rows use decide (a dictionary may hold more than they use)
            used = np.bincount(np.concatenate(chunks), minlength=len(labels)) > 0
            labels = [v for v, u in zip(labels, used) if u]
            if (len(labels) > MAX_LABELS and not named) or _free_text_in(labels) \
                    or (len(labels) == 1 and not labels[0].strip()):
                return None  # a column that may not be a dimension: the general path says why
            if _to_strip(labels):
                return None  # labels to strip or empty: the general path
        dims.append(col)
        encoded[col] = found
    if not dims:
        return None
    models = [d for d in dims if d.lower() in MODEL_NAMES]
    others = [d for d in dims if d not in models]
    for chosen in (options.x, options.y):
        if chosen and chosen not in others:
            return None
    if len(others) < 2 or options.x or options.y:
        return None  # an added 'metric' dimension or axes to move: the general path
    dims = [*models, *others]
    if sample_col:
        sample = table.column(sample_col).cast(pa.int64())
        samples = _chunks(sample)
    else:
        sample = pa.array(np.zeros(table.num_rows, dtype=np.int64))
        samples = _chunks(sample)
    records = pa.table([*[table.column(d) for d in dims], table.column(item_col), sample, score],
                       names=[*dims, ITEM, SAMPLE, SCORE])
    # each row's cell and item as one integer (the labels' codes in mixed radix): grouping on
    # it is a fraction of grouping on the texts
    codes = [encoded[d][0] for d in dims] + [item[0]]
    labels = [encoded[d][1] for d in dims] + [item[1]]
    sizes = [len(d) for d in labels]
    n_samples = max(int(c.max()) for c in samples if len(c)) + 1
    if math.prod(sizes) * n_samples >= 2**62 or min(int(c.min()) for c in samples if len(c)) < 0:
        return None
    key = np.empty(table.num_rows, dtype=np.int64)
    for i, (chunks, size) in enumerate(zip(codes, sizes)):  # in place, a chunk at a time
        for part, chunk in _parts(key, chunks):
            if i == 0:
                part[...] = chunk
            else:
                part *= size
                part += chunk
    if _repeated(key, samples, n_samples, math.prod(sizes) * n_samples):
        return None  # an item's sample given twice: the general path names the row
    if math.prod(sizes) <= 4 * table.num_rows + 1024:  # a dense key: count in numpy
        counts = np.bincount(key, minlength=math.prod(sizes))
        sums = np.bincount(key, weights=weights, minlength=math.prod(sizes))
        keys = np.flatnonzero(counts)
        per_item = (keys, sums[keys] / counts[keys], counts[keys])
    else:
        grouped = pa.table({"key": key, SCORE: score}).group_by("key").aggregate(
            [(SCORE, "mean"), (SCORE, "count")])
        per_item = (grouped.column("key").to_numpy(), grouped.column(f"{SCORE}_mean").to_numpy(),
                    grouped.column(f"{SCORE}_count").to_numpy())
    span = (float(weights.min()), float(weights.max()))
    return records, dims, "score", (per_item, labels[:-1], sizes, span)


def _codes(column):
    """A column's rows as codes into its labels (texts): (its chunks' integer codes as numpy
    arrays, a pyarrow string dictionary); None for a column with nulls or of a type other than
    text or integers. A dictionary-encoded column's chunks share one dictionary
    (``Table.unify_dictionaries``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if column.null_count:
        return None
    if pa.types.is_dictionary(column.type):
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        if not chunks:
            return None
        dictionary = chunks[0].dictionary
        if any(not c.dictionary.equals(dictionary) for c in chunks[1:]):
            return None
        if not (pa.types.is_string(dictionary.type) or pa.types.is_large_string(dictionary.type)
                or pa.types.is_integer(dictionary.type)):
            return None
        dictionary = dictionary.cast(pa.string())
        if pc.count_distinct(dictionary).as_py() != len(dictionary):
            return None  # a label twice in the dictionary: the general path
        return [c.indices.to_numpy(zero_copy_only=False) for c in chunks], dictionary
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
            or pa.types.is_integer(column.type)):
        return None
    encoded = pc.dictionary_encode(column.cast(pa.string()))
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    return [encoded.indices.to_numpy(zero_copy_only=False)], encoded.dictionary


def _chunks(column) -> list[np.ndarray]:
    """A numeric column without nulls as numpy arrays, one a chunk, none copied."""
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    return [c.to_numpy(zero_copy_only=False) for c in chunks]


def _numpy(column) -> np.ndarray:
    """A numeric column without nulls as one numpy array (a copy where it has several chunks)."""
    chunks = _chunks(column)
    return chunks[0] if len(chunks) == 1 else np.concatenate(chunks)


def _parts(whole: np.ndarray, chunks: list[np.ndarray]):
    """Each chunk with the part of ``whole`` (as long as all of them) at its rows."""
    start = 0
    for chunk in chunks:
        yield whole[start:start + len(chunk)], chunk
        start += len(chunk)


def _to_strip(labels: list[str]) -> bool:
    """Whether any label is empty or has spaces around it (which the general path strips)."""
    return any(not label or label != label.strip() for label in labels)


def _free_text_in(labels: list[str]) -> bool:
    """:func:`_free_text` of a few labels."""
    return any("\n" in label or len(label) > MAX_LABEL for label in labels)


def _repeated(key: np.ndarray, samples: list[np.ndarray], n_samples: int, span: int) -> bool:
    """Whether any row's cell, item and sample (``key``, and ``samples`` in chunks) is another
    row's: not when they rise row by row (records written in order), else counted."""
    with_sample = key
    if n_samples > 1:
        with_sample = key * n_samples
        for part, chunk in _parts(with_sample, samples):
            part += chunk
    if len(with_sample) < 2 or bool((with_sample[1:] > with_sample[:-1]).all()):
        return False
    if span <= 4 * len(with_sample) + 1024:
        seen = np.zeros(span, dtype=bool)
        seen[with_sample] = True
        return int(np.count_nonzero(seen)) != len(with_sample)
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.count_distinct(pa.array(with_sample)).as_py() != len(with_sample)


def summarise_grouped(grouped, dims: list[str]) -> pd.DataFrame:
    """:func:`summarise` from the Arrow path's per-item means and sample counts (keyed by the
    cell's and item's codes), with the dims' labels and every key column's size."""
    (key, means, counts), labels, sizes = grouped[:3]
    key, means, counts = np.asarray(key), np.asarray(means), np.asarray(counts)
    if len(key) > 1 and (np.diff(key) < 0).any():  # Arrow's group_by keeps no order
        order = np.argsort(key, kind="stable")
        key, means, counts = key[order], means[order], counts[order]
    cell = key // sizes[-1]  # the item's code is the last digit
    # each cell's run of items (the keys are sorted, so a cell's items are together)
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if len(cell) else np.zeros(0, int)
    stops = np.r_[starts[1:], len(cell)].astype(np.int64)
    listed = means.tolist()
    cells = {"value": np.array([exact_mean(listed[s:e]) for s, e in zip(starts, stops)]),
             "n_items": stops - starts,
             "n_samples": np.maximum.reduceat(counts, starts) if len(starts) else counts[:0]}
    rest = cell[starts]
    out = {}
    for d, dictionary, size in reversed(list(zip(dims, labels, sizes[:-1]))):
        out[d] = np.asarray(dictionary.to_pylist(), dtype=object)[rest % size]
        rest = rest // size
    result = pd.DataFrame({d: out[d] for d in dims})
    for column in ("value", "n_items", "n_samples"):
        result[column] = cells[column]
    return result
