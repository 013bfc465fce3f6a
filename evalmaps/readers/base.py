"""What every reader shares: the protocol (:class:`Reader`), the reading it returns, the options
of an import and its one error.

A reader is a module (or any object) with the members :class:`Reader` names; the registry,
:mod:`evalmaps.readers`, lists the built-in ones and adds a lab's (an entry point, or
:func:`evalmaps.readers.register_reader`). :mod:`evalmaps.readers.testing` is the suite a reader
runs to show that it conforms.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import zipfile
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath
from typing import Any, Protocol, runtime_checkable

import pandas as pd

from evalmaps.core.errors import MAX_QUOTED, DataError, EvalmapsError
from evalmaps.core.text import clip
from evalmaps.readers import fastcsv

DEFAULT_MAX_BYTES = 20 * 1024 * 1024


# file names a folder or zip search looks at (the content decides what they are)
SUFFIXES = (".json", ".eval", ".jsonl", ".ndjson", ".csv", ".tsv", ".txt", ".parquet", ".zip")


class Note(str):
    """A reader's remark, passed with its warnings, that belongs in the figure's notes: it says
    what the file is (a run cancelled, averages left out) and asks nothing of the user."""


class ImportFailed(DataError):
    """A file that cannot be imported; the message says why and what to do."""


class NotResults(ImportFailed):
    """A file of a table's format whose content is no table of results (a JSON list of nested
    records: a log, a config): refused when given, skipped with a note when a folder's or a
    zip's search finds it among results."""


class Labels(Mapping):
    """Labels by dimension (``--set DIM=LABEL``), in the order given: a mapping that cannot
    change and can be hashed, so that :class:`ImportOptions` is frozen whole. Equal to a dict
    of the same pairs."""

    __slots__ = ("_labels",)

    def __init__(self, given=()):
        pairs = given.items() if isinstance(given, Mapping) else given
        self._labels = dict(pairs)

    def __getitem__(self, key):
        return self._labels[key]

    def __iter__(self):
        return iter(self._labels)

    def __len__(self) -> int:
        return len(self._labels)

    def __hash__(self) -> int:
        return hash(tuple(self._labels.items()))

    def __repr__(self) -> str:
        return repr(self._labels)


@dataclass(frozen=True)
class ImportOptions:
    """How files become a figure, the one option type of an import: the table's shape and axes
    (the Data page's controls, ``evalmaps import --format/--x/--y/--replicate/--percent``) and
    how per-item tables are read (``--item COL``, ``--correct PRED=REF``, ``--cluster COL`` and
    the repeatable ``--set DIM=LABEL``, ``--drop COL`` and ``--rename DIM:OLD=NEW``, which
    ``evalmaps serve --data`` (``EVALMAPS_DATA_OPTIONS``) applies to its folders' tables too).
    Frozen: a changed copy is :func:`dataclasses.replace`'s. :meth:`parse` reads the table
    options as the command line gives them, so a bad option is the same sentence wherever it
    is given (docs/formats.md, "Per-item records")."""

    format: str = "auto"
    x: str | None = None
    y: str | None = None
    replicate: str | None = None  # None: auto (a column named seed/run/...), "" : none
    metric: str = "Accuracy"
    unit: str = "%"
    metric_range: tuple[float, float] | None = (0.0, 100.0)
    # the labels' order: "source" (numbers by value, others as the file gives them: a paper's
    # own order) or "natural" (every dimension sorted, numbers and model sizes by value: for
    # results files, whose order is the order they were written in)
    order: str = "source"
    # a table with the default metric (0 to 100, %) whose every value lies in [0, 1] holds
    # fractions, not percentages under 1%: read it so (False: keep the range and unit as given)
    guess_fractions: bool = True
    # per-item records (docs/formats.md, "Per-item records"): the item id's column (None: a
    # column named 'item', if any), a prediction and a reference column compared as text
    # ("pred", "answer"; None: a 'score' column), and dimensions every row shares (--set: a
    # dict or (dim, label) pairs, kept as :class:`Labels`)
    item: str | None = None
    correct: tuple[str, str] | None = None
    fixed: Mapping[str, str] = field(default_factory=Labels)
    # per-item records: columns never made dimensions (--drop), whatever their labels, and
    # labels shown under another name (--rename DIM:OLD=NEW: (dim, old, new))
    drop: tuple[str, ...] = ()
    rename: tuple[tuple[str, str, str], ...] = ()
    # per-item records: the column of each item's cluster (--cluster COL: a passage, a source
    # data set), kept with the records for clustered standard errors, never a dimension
    cluster: str | None = None

    def __post_init__(self):
        fixed = self.fixed if isinstance(self.fixed, Labels) else Labels(self.fixed)
        object.__setattr__(self, "fixed", fixed)
        object.__setattr__(self, "drop", tuple(self.drop))
        object.__setattr__(self, "rename", tuple(tuple(r) for r in self.rename))
        if self.correct is not None:
            object.__setattr__(self, "correct", tuple(self.correct))
        if self.metric_range is not None:
            object.__setattr__(self, "metric_range", tuple(self.metric_range))

    @classmethod
    def parse(cls, item: str | None = None, correct: str | None = None,
              fixed=(), drop=(), rename=(), cluster: str | None = None,
              **others) -> "ImportOptions":
        """The options with the table options as the command line gives them (``fixed``: the
        ``--set`` values, ``drop``: the ``--drop`` ones, ``rename``: the ``--rename`` ones,
        ``cluster``: the ``--cluster`` column); ``others``: the rest, as they are."""
        if cluster is not None and not cluster.strip():
            raise OptionError("--cluster takes the name of the column that groups the items "
                              "(a passage, a source data set), such as --cluster src; it was "
                              "empty.")
        columns = []
        for column in drop:
            if not column.strip():
                raise OptionError("--drop takes the name of a column to leave out of the "
                                  "dimensions, such as --drop answer_index; it was empty.")
            columns.append(column.strip())
        return cls(item=item, correct=_pair(correct, "--correct", "PRED=REF"),
                   fixed=tuple(_pair(f, "--set", "DIM=LABEL") for f in fixed),
                   drop=tuple(dict.fromkeys(columns)), rename=tuple(_renamed(r) for r in rename),
                   cluster=None if cluster is None else cluster.strip(), **others)

    @classmethod
    def from_words(cls, words: list[str]) -> "ImportOptions":
        """``["--item", "question_id", "--set", "model={file}", ...]`` (``--item=COL`` too)."""
        given: dict[str, list[str]] = {"--item": [], "--correct": [], "--set": [], "--drop": [],
                                       "--rename": [], "--cluster": []}
        words = list(words)
        while words:
            word = words.pop(0)
            name, sep, value = word.partition("=") if word.startswith("--") else (word, "", "")
            if name not in given:
                raise OptionError(f"'{word[:40]}' is not a table option: give --item COL, "
                                  f"--correct PRED=REF, --set DIM=LABEL, --drop COL, "
                                  f"--rename DIM:OLD=NEW or --cluster COL.")
            if not sep:
                if not words:
                    raise OptionError(f"{name} needs a value after it, such as {name} "
                                      f"{_SHAPES[name]}.")
                value = words.pop(0)
            given[name].append(value)
        item = given["--item"][-1] if given["--item"] else None
        correct = given["--correct"][-1] if given["--correct"] else None
        cluster = given["--cluster"][-1] if given["--cluster"] else None
        return cls.parse(item, correct, given["--set"], given["--drop"], given["--rename"],
                         cluster)

    def to_dict(self) -> dict:
        """The options as plain values (``fixed`` a dict), as :func:`dataclasses.asdict` gives
        them: what a data folder's cache key holds."""
        return {f.name: dict(self.fixed) if f.name == "fixed" else getattr(self, f.name)
                for f in dataclasses.fields(self)}

    @property
    def per_item(self) -> bool:
        """Whether the options name per-item records (``--item`` or ``--correct``)."""
        return self.item is not None or self.correct is not None

    @property
    def table_options(self) -> bool:
        """Whether any table option (``--item``, ``--correct``, ``--set``, ``--drop``,
        ``--rename``, ``--cluster``) is given."""
        return bool(self.per_item or self.fixed or self.drop or self.rename
                    or self.cluster is not None)


class OptionError(EvalmapsError, ValueError):
    """A table option (``--item``, ``--correct``, ``--set``, ``--rename``) that is not of its
    shape."""


_SHAPES = {"--item": "COL", "--correct": "PRED=REF", "--set": "DIM=LABEL", "--drop": "COL",
           "--rename": "DIM:OLD=NEW", "--cluster": "COL"}


def _renamed(text: str) -> tuple[str, str, str]:
    """``model:model_outputs_Llama-2-7b-hf_5shots=Llama-2-7B`` -> (dim, old, new): the dim up to
    the first ':', the new label after the last '=' (an old label may hold either), all
    stripped and given."""
    dim, _, rest = text.partition(":")
    old, sep, new = rest.rpartition("=")
    if not sep or not dim.strip() or not old.strip() or not new.strip():
        raise OptionError(f"--rename takes DIM:OLD=NEW (a dimension, one of its labels and the "
                          f"label to show instead, such as --rename model:old-name=Llama-2-7B), "
                          f"not '{text[:60]}'.")
    return dim.strip(), old.strip(), new.strip()


def _pair(text: str | None, option: str, shape: str) -> tuple[str, str] | None:
    """``A=B`` -> (A, B), both stripped and given; None for None."""
    if text is None:
        return None
    left, sep, right = text.partition("=")
    if not sep or not left.strip() or not right.strip():
        raise OptionError(f"{option} takes {shape} (two names joined by '='), not "
                          f"'{text[:40]}'.")
    return left.strip(), right.strip()


@dataclass
class Reading:
    """What one file gives (see the module's docstring): records, a table or an archive's files."""

    reader: str  # the reader's NAME
    file: str
    records: list[dict] = field(default_factory=list)  # coords (dim -> label), "value", "se"
    lower: dict[str, bool] = field(default_factory=dict)  # metric label -> lower is better
    # metric label -> what the file says of it, as a catalog's metric entry ("unit": "%",
    # "range": [0, 100], "higher_is_better": False); it wins over what names suggest
    metrics: dict[str, dict] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # what the figure's notes say of the file that is no warning (nothing to act on); said once
    # however many files say it
    notes: list[str] = field(default_factory=list)
    table: pd.DataFrame | None = None  # a table of texts, as a CSV reads
    shape: str | None = None  # the table's shape when the format fixes it ("tidy": Parquet)
    members: list[tuple[str, bytes]] | None = None  # an archive's files (name, bytes)
    # per-item records behind the values (:mod:`evalmaps.readers.items`): the records' coords
    # as columns, ``item``, ``sample``, ``score`` and any of prompt/target/response
    items: pd.DataFrame | None = None


class Probe:
    """A file's bytes as the readers' ``sniff`` look at them: what they need is worked out once
    (the JSON document, the zip's names), whichever reader asks first."""

    def __init__(self, data: bytes):
        self.data = data
        # the first bytes after a BOM and blank space, however much of it there is
        self.head = data[:1 << 16].lstrip(b"\xef\xbb\xbf \t\r\n")[:64]

    @cached_property
    def doc(self):
        """The JSON document the bytes hold (None: not one JSON document)."""
        return parse_json(self.data) if self.head[:1] in (b"{", b"[") else None

    @property
    def is_zip(self) -> bool:
        return self.data[:4] in (b"PK\x03\x04", b"PK\x05\x06")

    @cached_property
    def zip_names(self) -> list[str] | None:
        """The names in a readable zip (None: not one)."""
        if not self.is_zip:
            return None
        try:
            return zipfile.ZipFile(io.BytesIO(self.data)).namelist()
        except (zipfile.BadZipFile, OSError, ValueError):
            return None


def check_header(head: list[str], name: str) -> None:
    """Refuse a table's header with an empty or repeated column name."""
    if any(h == "" for h in head[1:]) or len(set(head)) != len(head):
        dup = [h for h, c in Counter(head).items() if c > 1 or h == ""]
        raise ImportFailed(f"the header has an empty or repeated column name "
                           f"({', '.join(repr(d) for d in dup)}). Give every column its own "
                           f"name.", file=name)


def parse_json(data: bytes):
    """The JSON document ``data`` holds (UTF-8, a BOM allowed), as :func:`json.loads` reads it;
    None when it holds none. orjson reads it (several times faster); what orjson refuses and
    the json module takes (NaN, integers past 64 bits, lone surrogates) the json module reads."""
    import orjson

    try:
        return orjson.loads(data[3:] if data[:3] == b"\xef\xbb\xbf" else data)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def text_of(value) -> str:
    """A JSON number as the text of its value (an int as written, a float's shortest form)."""
    return str(value) if isinstance(value, int) else repr(float(value))


def short(file: str) -> str:
    return PurePosixPath(file).name


def control_problem(text: str, what: str = "label") -> str:
    """What is wrong with a label that holds a control character, and what to do."""
    char = fastcsv.CONTROL_RE.search(text).group()
    shown = fastcsv.CONTROL_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", clip(text, MAX_QUOTED))
    return (f"the {what} '{shown}' holds the control character U+{ord(char):04X}. Labels may not "
            f"hold control characters (NUL, tab, line break, ...); remove it.")


def runs_differ(records: list[tuple[str, dict]], dims: list[str]) -> bool:
    """Whether two records give one cell different values (or standard errors)."""
    seen: dict[tuple, tuple[float, str]] = {}
    for _, rec in records:
        key = tuple(rec[d] for d in dims)
        given = (float(rec["value"]), rec["se"])
        if seen.setdefault(key, given) != given:
            return True
    return False


# ------------------------------------------------------------------------------ the protocol

@runtime_checkable
class Reader(Protocol):
    """A reader of one file format: a module (or any object) with these four members.

    - ``NAME``: a short name (``"lm-eval"``), what :func:`evalmaps.readers.detect` answers and
      the name it is registered under;
    - ``DESCRIBES``: what it reads, in a few words, for the sentence that lists the formats read
      (:func:`evalmaps.readers.described`; a table format's reader gives its format's name,
      ``"CSV"``, and sets ``TABLE = True``);
    - ``sniff(probe) -> bool``: whether these bytes are its format. Cheap (a look at
      ``probe.head``, the parsed ``probe.doc`` or ``probe.zip_names``, which :class:`Probe`
      works out once for all readers), and it never raises, whatever the bytes;
    - ``read(probe, file, options=None, max_bytes=DEFAULT_MAX_BYTES) -> Reading``: what the file
      holds (``options``: the import's :class:`ImportOptions`, ``max_bytes``: the most text an
      import may hold, None for no limit). A file of its format that it cannot read raises
      :class:`ImportFailed`, whose message says why and what to do; never another error.

    A :class:`Reading` holds one of four things: ``records`` (an evaluation tool's results:
    values with their coordinates, combined with other files' by
    :mod:`evalmaps.catalog.imports`), ``items`` (per-item records, :mod:`evalmaps.readers.items`),
    a ``table`` of texts (one table: one figure, shaped by :mod:`evalmaps.catalog.shaping`) or
    ``members`` (an archive's files, each read in turn).

    Optional hooks (:data:`HOOKS` gives the default the catalog uses when one is absent, and
    :func:`hook` looks one up):

    - ``TABLE: bool``: its file is one table (CSV, Parquet, JSON Lines), shaped as a whole;
    - ``TOOL: str`` and ``TOOL_FILES: str``: its files' name, one and many (``"lm-evaluation-
      harness results"``, ``"... results files"``), as messages name them; a reader of results
      (one whose readings hold records) has both, and ``layout``;
    - ``layout(records, name, warnings) -> list[str]``: the figure's dimensions, facets first
      and then y and x (``records``: ``(file, record)`` pairs; ``name``: the import's name;
      ``warnings``: a list to append to);
    - ``FIRST_BYTES: tuple[bytes, ...]``: what its files can start with (after a BOM and blank
      space); bytes that start otherwise are not offered to its ``sniff``. Absent: it is always
      asked. The built-in readers' are in :data:`evalmaps.readers.FIRST_BYTES`, so that a
      built-in reader is not imported to learn them;
    - ``READS_AS: str``: the name of the reader whose records its readings combine with (its
      ``Reading.reader``: lm-eval-samples' are read as lm-eval's);
    - ``order(dim, labels, records) -> list[str]``: the order of a dimension's labels (default:
      natural order, :func:`evalmaps.core.text.natural_key`);
    - ``metric_range(label) -> tuple[float, float] | None``: the range a metric's values take,
      kept when every value of the import fits (default: none known);
    - ``join_items(readings, warnings) -> None``: joins the per-item readings of a folder to the
      results files beside them (lm-eval's samples to its results), in place (default: nothing
      joined).
    """

    NAME: str
    DESCRIBES: str

    def sniff(self, probe: Probe) -> bool: ...

    def read(self, probe: Probe, file: str, options: ImportOptions | None = None,
             max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading: ...


def _no_range(label: str) -> tuple[float, float] | None:
    return None


# the optional hooks, each with what the catalog does when a reader has none
HOOKS: dict[str, Any] = {
    "TABLE": False,  # records, items or an archive, not one table
    "TOOL": None,  # required of a reader of results
    "TOOL_FILES": None,  # required of a reader of results
    "layout": None,  # required of a reader of results
    "FIRST_BYTES": None,  # always asked
    "READS_AS": None,  # its readings are its own (Reading.reader is its NAME)
    "order": None,  # natural order
    "metric_range": _no_range,  # no range known
    "join_items": None,  # nothing joined
}
RESULTS_HOOKS = ("TOOL", "TOOL_FILES", "layout")
REQUIRED = ("NAME", "DESCRIBES", "sniff", "read")


def hook(reader, name: str) -> Any:
    """``reader``'s hook ``name`` (one of :data:`HOOKS`), or its default when it has none."""
    if name not in HOOKS:
        raise KeyError(f"{name!r} is no reader hook; the hooks are {', '.join(HOOKS)}")
    return getattr(reader, name, HOOKS[name])


def nonconformance(reader) -> str | None:
    """What keeps ``reader`` from being a :class:`Reader`, in a sentence (None: nothing)."""
    problems = [f"no {m}" for m in REQUIRED if not hasattr(reader, m)]
    problems += [f"a {m} that is not a non-empty text" for m in ("NAME", "DESCRIBES")
                 if hasattr(reader, m) and not (isinstance(getattr(reader, m), str)
                                               and getattr(reader, m).strip())]
    problems += [f"a {m} that is not callable" for m in ("sniff", "read")
                 if hasattr(reader, m) and not callable(getattr(reader, m))]
    given = [h for h in RESULTS_HOOKS if getattr(reader, h, None) is not None]
    if given and len(given) < len(RESULTS_HOOKS):
        problems.append(f"{' and '.join(given)} without "
                        f"{' and '.join(h for h in RESULTS_HOOKS if h not in given)} "
                        f"(a reader of results has all three)")
    for h in ("layout", "order", "metric_range", "join_items"):
        if getattr(reader, h, None) is not None and not callable(getattr(reader, h)):
            problems.append(f"a {h} that is not callable")
    starts = getattr(reader, "FIRST_BYTES", None)
    if starts is not None and not (isinstance(starts, tuple) and starts
                                   and all(isinstance(s, bytes) and s for s in starts)):
        problems.append("a FIRST_BYTES that is not a tuple of byte strings")
    if not problems:
        return None
    listed = ", ".join(problems[:-1]) + " and " + problems[-1] if len(problems) > 1 else problems[0]
    return (f"it has {listed}. "
            f"A reader needs NAME and DESCRIBES (texts), sniff(probe) and read(probe, file, "
            f"options, max_bytes): see evalmaps.readers.base.Reader.")
