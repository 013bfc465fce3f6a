"""Reading (layer 2): a module per file format, in a registry that imports them lazily (as
fsspec's ``known_implementations`` does).

:data:`KNOWN_READERS` is the ordered table: the first reader whose ``sniff`` claims a file's
bytes reads it, so a specific format comes before a general one, and CSV, which takes anything
that is not one JSON document, comes last. What a file is comes from its content, never its name.
A reader is a module (or any object) with ``NAME``, ``DESCRIBES``, ``sniff`` and ``read``, and
optional hooks: :class:`evalmaps.readers.base.Reader` says what each does.

A lab can add its own reader from its own package, with no change here: an entry point in the
group ``evalmaps.readers`` whose value is the reader module's path (in its ``pyproject.toml``:
``[project.entry-points."evalmaps.readers"]`` ``mylab = "mylab.evalmaps_reader"``), or at run
time, :func:`register_reader`. Such readers are tried after the built-in ones and before CSV
(a registered one: before the reader it names). :mod:`evalmaps.readers.testing` is the suite
that shows a reader conforms. docs/architecture.md and docs/formats.md show an example.

Combining several files into one figure, and walking folders and zips, live once, above the
readers: :mod:`evalmaps.catalog.imports`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from evalmaps.readers.base import Probe, Reader, hook, nonconformance

# name -> module, in the order they are tried
KNOWN_READERS: dict[str, str] = {
    "lighteval-details": "evalmaps.readers.lighteval_details",  # before parquet: it is one
    "parquet": "evalmaps.readers.parquet",
    "lighteval": "evalmaps.readers.lighteval",  # before lm-eval: its files look alike
    "lm-eval": "evalmaps.readers.lm_eval",
    "lm-eval-samples": "evalmaps.readers.lm_eval_samples",  # before jsonl: JSON Lines too
    "bigcode": "evalmaps.readers.bigcode",
    "inspect": "evalmaps.readers.inspect_log",  # before zip: an .eval log is a zip
    "zip": "evalmaps.readers.zipped",
    "livecodebench": "evalmaps.readers.livecodebench",  # before helm: a JSON list too
    "alpaca-eval": "evalmaps.readers.alpaca_eval",  # before jsonl: a JSON list of records
    "helm": "evalmaps.readers.helm",  # before jsonl: a stats.json is a JSON list
    "evalplus": "evalmaps.readers.evalplus",
    "evalperf": "evalmaps.readers.evalperf",
    "swe-bench": "evalmaps.readers.swe_bench",  # before simple-evals: an object of lists
    "simple-evals": "evalmaps.readers.simple_evals",  # before jsonl: a flat JSON object
    "json-records": "evalmaps.readers.json_records",  # before jsonl: a list of scores
    "jsonl": "evalmaps.readers.jsonl",
    "opencompass": "evalmaps.readers.opencompass",  # before csv: its summaries are CSV
    "csv": "evalmaps.readers.csvfile",
}
# What a built-in reader's files can start with (after a BOM and white space), where that is
# known: a reader whose starts do not match the bytes is not asked, and so not even imported
# (reading a CSV then imports only the readers of text). A built-in reader left out of this table
# is always asked. It is kept here, not in the readers, so that no reader is imported to learn
# it; a reader from an entry point or register_reader declares its own (FIRST_BYTES, optional).
FIRST_BYTES: dict[str, tuple[bytes, ...]] = {
    "lighteval-details": (b"PAR1",), "parquet": (b"PAR1",), "livecodebench": (b"[",),
    "alpaca-eval": (b"[",),
    "lighteval": (b"{",), "lm-eval": (b"{",), "lm-eval-samples": (b"{",), "bigcode": (b"{",),
    "inspect": (b"PK", b"{"), "zip": (b"PK",), "helm": (b"[",), "evalplus": (b"{",),
    "evalperf": (b"{",), "swe-bench": (b"{",), "simple-evals": (b"{",), "json-records": (b"[", b"{"),
    "jsonl": (b"[", b"{"),
}
FALLBACK = "csv"  # tried last, after any reader from an entry point
ENTRY_POINT_GROUP = "evalmaps.readers"
OTHER_JSON = "json"  # what detect() answers for a JSON document no reader claims

_loaded: dict[str, ModuleType] = {}
_extra: dict[str, str] = {}  # readers from entry points: name -> module
_order: list[str] | None = None
# readers added at run time: name -> (reader, the reader it is tried before, its first bytes)
_registered: dict[str, tuple[Reader, str, tuple[bytes, ...] | None]] = {}


def _entry_points() -> dict[str, str]:
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)
            if ep.name not in KNOWN_READERS}


def names() -> list[str]:
    """Every reader's name, in the order they are tried."""
    global _order
    if _order is None:
        extra = _entry_points()
        built_in = [n for n in KNOWN_READERS if n != FALLBACK]
        _order = [*built_in, *extra, FALLBACK]
        _extra.update(extra)
    order = [n for n in _order if n not in _registered]
    for name, (_, before, _) in _registered.items():
        order.insert(order.index(before) if before in order else len(order) - 1, name)
    return order


def reader(name: str) -> Reader:
    """The reader called ``name`` (a module's imported on first use)."""
    if name in _registered:
        return _registered[name][0]
    module = _loaded.get(name)
    if module is None:
        path = KNOWN_READERS.get(name) or _extra.get(name)
        if path is None:
            names()
            path = _extra.get(name)
        if path is None:
            raise KeyError(f"no reader is called {name!r}; the readers are {', '.join(names())}")
        module = _loaded[name] = importlib.import_module(path)
    return module


def detect(data: bytes | Probe) -> str:
    """The name of the reader that reads these bytes, or :data:`OTHER_JSON` for a JSON document
    that none of them reads (a config, a samples log)."""
    probe = data if isinstance(data, Probe) else Probe(data)
    for name in names():
        starts = first_bytes(name)
        if starts is not None and not probe.head.startswith(starts):
            continue
        if reader(name).sniff(probe):
            return name
    return OTHER_JSON


def described() -> str:
    """The formats read, as a sentence's list: "a CSV, Parquet or JSON Lines table, <each other
    reader's DESCRIBES>, or <the last one's>". A table reader's ``DESCRIBES`` is its format's
    name and its ``TABLE`` is true; a zip is not listed (it holds these)."""
    modules = [reader(n) for n in [FALLBACK, *names()[:-1]] if n != "zip"]
    tables = [m.DESCRIBES for m in modules if hook(m, "TABLE")]
    others = [m.DESCRIBES for m in modules if not hook(m, "TABLE")]
    table = "a " + (", ".join(tables[:-1]) + " or " + tables[-1] if len(tables) > 1 else tables[0])
    parts = [table + " table", *others]
    return ", ".join(parts[:-1]) + ", or " + parts[-1]


def first_bytes(name: str) -> tuple[bytes, ...] | None:
    """What the files of the reader ``name`` can start with (None: anything). A built-in
    reader's come from :data:`FIRST_BYTES`, without importing it; another's from
    :func:`register_reader`'s argument or its own ``FIRST_BYTES``."""
    if name in KNOWN_READERS:
        return FIRST_BYTES.get(name)
    if name in _registered:
        return _registered[name][2]
    return hook(reader(name), "FIRST_BYTES")


def register_reader(name: str, reader: Reader | ModuleType | str, *,
                    first_bytes: bytes | tuple[bytes, ...] | None = None,
                    before: str = FALLBACK) -> Reader:
    """Add a reader at run time: a module, any object with the members of
    :class:`~evalmaps.readers.base.Reader`, or a module's dotted path. It is tried just before
    the reader ``before`` (CSV, the last, by default); bytes that do not start with one of
    ``first_bytes`` (else the reader's own ``FIRST_BYTES``; neither: any bytes) are not offered
    to it. A reader that does not conform is refused with a :class:`TypeError` that names what
    is missing. Returns the reader."""
    if isinstance(reader, str):
        reader = importlib.import_module(reader)
    problem = nonconformance(reader)
    if problem is not None:
        raise TypeError(f"{reader!r} cannot be registered as the reader {name!r}: {problem}")
    if reader.NAME != name:
        raise ValueError(f"the reader {reader.NAME!r} cannot be registered as {name!r}: its "
                         f"NAME is what detect() answers, so register it as {reader.NAME!r}.")
    if name in names():
        raise ValueError(f"a reader called {name!r} is already registered; give yours another "
                         f"NAME (or unregister_reader({name!r}) first, for one added at run "
                         f"time).")
    if before not in names():
        raise ValueError(f"there is no reader {before!r} to try {name!r} before; the readers "
                         f"are {', '.join(names())}.")
    starts = first_bytes if first_bytes is not None else hook(reader, "FIRST_BYTES")
    if isinstance(starts, bytes):
        starts = (starts,)
    if starts is not None and not (isinstance(starts, tuple) and starts
                                   and all(isinstance(s, bytes) and s for s in starts)):
        raise TypeError(f"first_bytes of the reader {name!r} must be byte strings its files can "
                        f"start with, such as (b'{{',), not {starts!r}.")
    _registered[name] = (reader, before, starts)
    return reader


def unregister_reader(name: str) -> None:
    """Take away a reader added by :func:`register_reader` (tests do, after a test)."""
    if name not in _registered:
        raise KeyError(f"no reader called {name!r} was added by register_reader")
    del _registered[name]
