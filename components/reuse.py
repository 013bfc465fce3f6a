"""Arrays the browser already holds are not sent again (Compare: swap A and B, back and forward,
one side changed while the other stays).

Every typed array of a figure :func:`annotate` has seen carries a digest in its trace's
``meta["arrays"]`` ({field: digest}), and the page keeps the digests of the maps it was last
sent (``compare-held``), which it gives back with each callback. :func:`elide` then writes an
array of a new figure as a reference, ``{"reuse": digest, "op": op}``, when the browser holds
one it is made from:

- ``"same"``: the very array (A after a swap is B's map);
- ``"neg"``: one negated, ``0 - x`` (B − A after a swap is A − B; ``0 - x`` keeps a zero +0);
- ``"swap01"``: one with its first two columns exchanged (B − A's customdata after a swap: it
  holds A, B, SE and "within 1.96 SE" per cell).

The browser rebuilds the arrays from its own maps (``evalmapsLib.compare.assemble`` in
assets/evalmaps-compare.js) before drawing; a reference it cannot resolve makes it ask for the maps whole
(``compare-stale``). :func:`resolve` is the same in Python (for tests and notebooks).

Digests are of the values (dtype, shape, bytes; every NaN written alike, since a NaN's bits do
not change what is drawn), and an operation is used only when applying it gives back the new
array exactly: what is drawn is what the server made, bit for bit but for NaN payloads.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import numpy as np

from evalmaps.figures.theme import decoded as decode  # decode: this module's name for it
from evalmaps.figures.theme import typed

FIELDS = ("z", "customdata")
OPS = ("same", "neg", "swap01")


def digest(values: np.ndarray) -> str:
    """16 hex digits of the values: their dtype, shape and bytes, every NaN written alike."""
    canonical = np.where(np.isnan(values), np.nan, values).astype(values.dtype, copy=False)
    h = hashlib.blake2b(digest_size=8)
    h.update(f"{values.dtype.str}{values.shape}".encode())
    h.update(np.ascontiguousarray(canonical).tobytes())
    return h.hexdigest()


def apply(op: str, values: np.ndarray) -> np.ndarray:
    """What the browser does to a held array (``evalmapsLib.compare.assemble`` does the same)."""
    if op == "same":
        return values
    if op == "neg":
        return (values.dtype.type(0) - values).astype(values.dtype, copy=False)
    if op == "swap01":
        out = values.copy()
        out[..., [0, 1]] = values[..., [1, 0]]
        return out
    raise ValueError(f"unknown operation {op!r}")


def _is_typed(value) -> bool:
    return isinstance(value, dict) and "bdata" in value and "dtype" in value


def _reusable(trace: dict) -> bool:
    # cell-text traces are rewritten in the browser (evalmapsLib.paint): never a source
    return (trace.get("meta") or {}).get("role") != "text"


def _each_trace(figures: Sequence, change) -> list:
    """The figures with each trace replaced by ``change(trace)``; anything that is not a figure
    (``dash.no_update``) passes as it is."""
    return [{**fig, "data": [change(trace) for trace in fig["data"]]}
            if isinstance(fig, dict) and "data" in fig else fig for fig in figures]


def annotate(figures: Sequence) -> tuple[list, list[str]]:
    """The figures with each reusable typed array's digest in its trace's ``meta["arrays"]``,
    and the list of those digests (what the page will hold once it draws them). Anything that
    is not a figure (``dash.no_update``) passes as it is."""
    held: list[str] = []

    def note(trace: dict) -> dict:
        arrays = {f: digest(decode(trace[f])) for f in FIELDS
                  if _is_typed(trace.get(f))} if _reusable(trace) else {}
        if not arrays:
            return trace
        held.extend(arrays.values())
        return {**trace, "meta": {**(trace.get("meta") or {}), "arrays": arrays}}

    return _each_trace(figures, note), held


def elide(figures: Sequence, held: Iterable[str] | None) -> list:
    """Annotated figures with every array the browser can make from what it holds
    (``held``: digests) written as ``{"reuse": digest, "op": op}``."""
    # what a page sends back (a hostile one may send anything): strings only
    held = {key for key in held if isinstance(key, str)} if isinstance(held, list) else set()
    if not held:
        return list(figures)

    def refer(trace: dict) -> dict:
        arrays = (trace.get("meta") or {}).get("arrays") or {}
        refs = {field: _reference(trace[field], own, held) for field, own in arrays.items()}
        refs = {field: ref for field, ref in refs.items() if ref is not None}
        return {**trace, **refs} if refs else trace

    return _each_trace(figures, refer)


def _reference(spec: dict, own: str, held: set[str]) -> dict | None:
    if own in held:
        return {"reuse": own, "op": "same"}
    values = decode(spec)
    for op in OPS[1:]:
        if op == "swap01" and (values.ndim < 2 or values.shape[-1] < 2):
            continue
        source = apply(op, values)  # both operations undo themselves, but for a -0 (checked)
        key = digest(source)
        if key in held and digest(apply(op, source)) == own:
            return {"reuse": key, "op": op}
    return None


def resolve(figures: Sequence, held_figures: Sequence) -> list:
    """What the browser draws: ``figures`` (from :func:`elide`) with each reference replaced by
    the array it names, made from ``held_figures`` (annotated). KeyError: a digest not held."""
    source = {}
    for fig in held_figures:
        for trace in (fig or {}).get("data", ()) if isinstance(fig, dict) else ():
            for field, key in ((trace.get("meta") or {}).get("arrays") or {}).items():
                source[key] = trace[field]

    def make(trace: dict) -> dict:
        trace = dict(trace)
        for field in FIELDS:
            ref = trace.get(field)
            if isinstance(ref, dict) and "reuse" in ref:
                held = source[ref["reuse"]]
                trace[field] = held if ref["op"] == "same" else typed(
                    apply(ref["op"], decode(held)), held["dtype"])
        return trace

    return _each_trace(figures, make)
