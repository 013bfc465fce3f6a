"""The column engine: what the catalog does to columns of texts (Arrow arrays), vectorised,
with the same result as the careful per-value code it stands in for: numbers read as pandas and
``float()`` read them, labels encoded, control characters found, decimals counted, tables
written as CSV; and the memory policy of a load or an import (:func:`lean_memory`).

The readers (:mod:`evalmaps.readers.fastcsv`) read a file into columns of texts; this works on
them, in the catalog: validation (:mod:`evalmaps.catalog.load`), shaping
(:mod:`evalmaps.catalog.shaping`) and an import's CSV (:mod:`evalmaps.catalog.imported`).
"""

from __future__ import annotations

import csv
import ctypes
import io
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalmaps.readers.fastcsv import CONTROL_RE, TEXT, as_text, byte_views, empty, strip  # noqa: F401 (the catalog's too)

_INT_RE = r"^[+-]?[0-9]+$"


_POOL_LOCK = threading.Lock()


_pool_users = 0  # within lean_memory
_own_users = 0  # within own_pool (inside lean_memory or not)
_pool_before = None  # the pool put back: set while the system pool is in use


@contextmanager
def lean_memory():
    """Let pyarrow allocate from the system allocator meanwhile: it gives a big freed buffer back
    at once, where pyarrow's own pools keep it for later (and apart from numpy's), so a load's
    peak memory stays near what it holds. With glibc, a freed block of up to 64 MB is kept for
    the load's next allocation meanwhile (see :func:`_reuse_big_blocks`). Results do not depend
    on either. Threads may overlap, and an entry point called by another (an import within a
    folder load) enters it again: the pool in use before the first of them is put back when the
    last one is done.

    The policy (docs/architecture.md, "Import, one pipeline"): it is entered at the entry points
    only, never below them; readers never enter it.

    - a folder load, server start included: ``load_catalog``, ``load_folder`` and a watched
      folder's scan (``evalmaps.service.live``); ``folder_files`` too, the folder load of
      ``evalmaps manifest``;
    - an import: ``import_paths``, ``import_bytes`` and ``import_file``; a Parquet per-item
      table is read within it on pyarrow's own pool (:func:`own_pool`: twice as fast there);
    - three public steps that callers run on their own, after an import or without one:
      ``figure_of`` (validates an import: the CLI, an upload, the Python API),
      ``validate_cells`` (a stored upload's cells, read back by the store) and an
      ``Imported``'s CSV (written by ``evalmaps import`` and an upload)."""
    global _pool_users
    with _POOL_LOCK:
        _pool_users += 1
        _set_pool()
    try:
        yield
    finally:
        with _POOL_LOCK:
            _pool_users -= 1
            _set_pool()


@contextmanager
def own_pool():
    """pyarrow's own memory pool meanwhile, even within :func:`lean_memory` (a Parquet per-item
    table's read, twice as fast there); the system's again after, if a load still runs."""
    global _own_users
    with _POOL_LOCK:
        _own_users += 1
        _set_pool()
    try:
        yield
    finally:
        with _POOL_LOCK:
            _own_users -= 1
            _set_pool()


def _set_pool() -> None:
    """The pool the counts ask for (the lock held): the system's while a load runs and no
    :func:`own_pool` does, else the one in use before."""
    global _pool_before
    lean = _pool_users > 0 and _own_users == 0
    if lean and _pool_before is None:
        _pool_before = pa.default_memory_pool()
        pa.set_memory_pool(pa.system_memory_pool())
        _reuse_big_blocks(True)
    elif not lean and _pool_before is not None:
        pa.set_memory_pool(_pool_before)
        _pool_before = None
        _reuse_big_blocks(False)


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


def _glibc():
    try:
        libc = ctypes.CDLL(None)
        glibc = all(hasattr(libc, f) for f in ("gnu_get_libc_version", "mallopt", "malloc_trim"))
        return libc if glibc else None
    except (OSError, AttributeError):
        return None


_LIBC = _glibc()


def _reuse_big_blocks(on: bool) -> None:
    """glibc hands a freed block of more than its threshold (128 kB at start-up, raised up to
    32 MB as such blocks are freed) straight back to the kernel, and the next big block is a
    fresh mapping whose every page faults in: a load of a 1e6-cell file spent a sixth of its
    time so. On: blocks of up to 64 MB come from the heap, where a freed one is reused. Off: the
    threshold glibc's own rule ends at (32 MB, heap trimmed above 64 MB), and the free memory
    handed back now (``malloc_trim``), so that a worker does not keep what a load let go of.
    No-op without glibc."""
    if _LIBC is None:
        return
    if on:
        _LIBC.mallopt(M_MMAP_THRESHOLD, 64 << 20)
        return
    _LIBC.mallopt(M_MMAP_THRESHOLD, 32 << 20)
    _LIBC.mallopt(M_TRIM_THRESHOLD, 64 << 20)
    _LIBC.malloc_trim(0)


def release_memory() -> None:
    """Hand the memory freed since the last load back to the kernel (``malloc_trim``): what a
    watched folder's figures let go of when their files were replaced or deleted. No-op
    without glibc."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _one_chunk(col) -> pa.Array:
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def encode(col) -> tuple[list[str | None], np.ndarray]:
    """Distinct texts in order of first appearance, and each row's position among them."""
    enc = _one_chunk(pc.dictionary_encode(col, null_encoding="encode"))
    codes = enc.indices.to_numpy(zero_copy_only=False)
    return enc.dictionary.to_pylist(), codes


_CONTROL_RE2 = "[\\x00-\\x1f\\x7f-\\x{9f}]"  # the same, as pyarrow's RE2 writes it


def first_control(col) -> int:
    """The position of the first text of ``col`` that holds a control character, or -1.

    A pass over the texts' bytes with numpy finds the columns that hold none (almost all);
    only a column that has such a byte is searched text by text."""
    offset = 0
    for chunk in (col.chunks if isinstance(col, pa.ChunkedArray) else [col]):
        if len(chunk) and _control_bytes(chunk):
            hits = pc.match_substring_regex(chunk, _CONTROL_RE2)
            if pc.any(hits).as_py():
                return offset + int(pc.index(hits, True).as_py())
        offset += len(chunk)
    return -1


def _control_bytes(chunk: pa.Array) -> bool:
    """Whether the texts' bytes hold a C0 byte, DEL, or the UTF-8 encoding of a C1 character
    (0xC2 0x80 to 0xC2 0x9F; 0xC2 is never a continuation byte). May say yes for a null's
    bytes; never says no wrongly."""
    data = chunk.buffers()[2]
    if data is None:
        return False
    width = 8 if pa.types.is_large_string(chunk.type) else 4
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32 if width == 4 else np.int64,
                            count=len(chunk) + 1, offset=chunk.offset * width)
    b = np.frombuffer(data, dtype=np.uint8)[int(offsets[0]):int(offsets[-1])]
    if not len(b):
        return False
    if b.min() < 0x20 or (b == 0x7F).any():
        return True
    lead = np.flatnonzero(b[:-1] == 0xC2)
    return bool(len(lead) and ((b[lead + 1] >= 0x80) & (b[lead + 1] <= 0x9F)).any())


def to_floats(col) -> np.ndarray:
    """Texts that are all numbers pyarrow reads -> floats; ValueError when one is not."""
    try:
        values = pc.cast(col, pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise ValueError("not plain numbers") from None
    return np.asarray(values.to_numpy(zero_copy_only=False) if len(values) else [], dtype=float)


def filter_rows(frame, keep: np.ndarray):
    """``frame[keep]`` (index kept), with columns of texts filtered by pyarrow."""
    import pandas as pd

    mask = pa.array(keep, type=pa.bool_())
    index = frame.index[keep]
    data = {}
    for name in frame.columns:
        series = frame[name]
        if isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow":
            data[name] = pd.Series(as_text(series).filter(mask).to_pandas(), dtype=series.dtype)
            data[name].index = index
        else:
            data[name] = series[keep]
    return pd.DataFrame(data, index=index, columns=frame.columns)


PARALLEL_ROWS = 200_000  # from this many rows, columns are encoded in two threads


def encode_all(columns: list) -> list[tuple[list[str | None], np.ndarray]]:
    """:func:`encode` of each column; big columns two at a time (pyarrow lets go of the GIL)."""
    if len(columns) < 2 or len(columns[0]) < PARALLEL_ROWS:
        return [encode(col) for col in columns]
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(encode, columns))


def any_repeated(encoded: list[tuple[list, np.ndarray]]) -> bool:
    """Whether two rows hold the same texts in every column (columns given by :func:`encode`)."""
    if not encoded or len(encoded[0][1]) < 2:
        return False
    return repeated_keys([codes for _, codes in encoded], [len(labels) for labels, _ in encoded])


def repeated_keys(codes: list[np.ndarray], sizes: list[int]) -> np.ndarray | bool:
    """Whether two rows share all their codes (each in ``range(size)``); as cheap as it gets:
    one number per row and a bitmap of the numbers seen when that fits in memory."""
    import pandas as pd

    n = len(codes[0])
    span = 1
    for size in sizes:
        span *= max(size, 1)
    if span >= 2**62:  # too many combinations for one number: let pandas hash the rows
        return bool(pd.DataFrame(dict(enumerate(codes))).duplicated().any())
    key = np.zeros(n, dtype=np.int64)
    for c, size in zip(codes, sizes):
        key *= max(size, 1)
        key += c
    if span <= max(16 * n, 1 << 20):  # one byte per possible key
        seen = np.zeros(span, dtype=bool)
        seen[key] = True
        return int(np.count_nonzero(seen)) < n
    return bool(pd.Series(key).duplicated().any())


def chunked(col) -> pa.ChunkedArray:
    return col if isinstance(col, pa.ChunkedArray) else pa.chunked_array([col])


def value_numbers(col) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """For an import's value texts: (where a text is neither empty nor a finite number as
    ``float()`` reads it, the numbers as pandas reads them, the numbers as ``float()`` reads them
    or None when pyarrow could not read every text). One parse when pyarrow reads them all."""
    col = chunked(col)
    try:
        parsed, is_empty = _cast_numbers(col)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        is_empty = empty(col)
        return ~is_empty & ~python_numbers(col), pandas_numbers(col)[0], None
    values = np.asarray(parsed.to_numpy(zero_copy_only=False) if len(col) else [], dtype=float)
    del parsed
    given = ~is_empty
    bad = given & ~np.isfinite(values)  # a null (no text) is not a number either
    return bad, pandas_numbers(col, values, given)[0], values


def _cast_numbers(col: pa.ChunkedArray) -> tuple[pa.Array | pa.ChunkedArray, np.ndarray]:
    """The texts cast to float64, an empty text as null (ArrowInvalid when one is not a number
    pyarrow reads), and where a text is empty. A column without empty texts is cast as it is."""
    is_empty = empty(col)
    if is_empty.any():
        col = pc.if_else(pa.array(is_empty), None, col.combine_chunks())
    return pc.cast(col, pa.float64()), is_empty


def stripped_numbers(col) -> tuple[pa.ChunkedArray, tuple[np.ndarray, np.ndarray]]:
    """The texts stripped, and :func:`pandas_numbers` of them. Texts that pyarrow reads as
    numbers have no surrounding whitespace, so the stripping is skipped when it reads them all."""
    col = chunked(col)
    try:
        values, is_empty = _cast_numbers(col)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        col = strip(col)
        return col, pandas_numbers(col)
    return col, pandas_numbers(col, values, ~is_empty)


def pandas_numbers(col: pa.ChunkedArray, parsed=None,
                   given: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``pd.to_numeric(text.where(text != ""), errors="coerce")`` as floats, vectorised.

    Returns (values, given): NaN where a text is empty or not a number; ``given`` marks the texts
    that are not empty (nulls count as given: they read as 'nan'). pandas decides what is a
    number; the value is the nearest double to the text, as Python's float() reads it (pyarrow
    reads plain numbers so; pandas' own parser is a unit off in the last place on a few texts,
    such as '+3E23', and is not used for values). ``parsed`` and ``given``: the texts as pyarrow
    casts them and where they are not empty, when the caller has them.
    """
    n = len(col)
    if given is None:
        given = ~empty(col)
    try:
        values = parsed if parsed is not None else _cast_numbers(col)[0]
        if not isinstance(values, np.ndarray):
            values = values.to_numpy(zero_copy_only=False) if n else np.empty(0)
        values = np.asarray(values, dtype=float)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        import pandas as pd

        series = pd.Series(col.to_pandas())
        parsed = pd.to_numeric(series.where(series != ""), errors="coerce")
        values = np.array(parsed.to_numpy(dtype=float, na_value=np.nan))  # writable
        numbers = np.flatnonzero(np.isfinite(values))
        if len(numbers):  # what pandas reads as a number, to the nearest double
            texts, codes = encode(col.take(pa.array(numbers)))
            exact = np.array([_nearest(t) for t in texts], dtype=float)[codes]
            values[numbers] = np.where(np.isnan(exact), values[numbers], exact)
        if parsed.dtype.kind in "iu":  # read as integers, where "-0" is 0 (as below)
            values = values + 0.0
        return values, given
    if n and given.all() and np.any((values == 0) & np.signbit(values)):
        # pandas reads a column of whole numbers as integers: there "-0" is 0
        ints = pc.match_substring_regex(col, _INT_RE)
        if pc.all(ints).as_py() and _read_as_integers(col, values):
            values = values + 0.0
    return values, given


def _read_as_integers(col: pa.ChunkedArray, values: np.ndarray) -> bool:
    """Whether pandas reads a column of whole numbers as integers: int64 when every one fits,
    else uint64 when none is negative and every one fits, else float64 (where "-0" stays -0)."""
    big = np.flatnonzero(np.abs(values) >= 9.2e18)  # below, every whole number fits in int64
    if not len(big):
        return True
    exact = [int(t) for t in col.take(pa.array(big)).to_pylist()]
    if all(-2**63 <= v < 2**63 for v in exact):
        return True
    return bool(np.all(values >= 0)) and all(0 <= v < 2**64 for v in exact)


def _nearest(text) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


def python_numbers(col: pa.ChunkedArray) -> np.ndarray:
    """Which texts ``float()`` reads as a finite number, vectorised (pyarrow first, then Python
    for the distinct texts pyarrow does not read)."""
    n = len(col)
    if n == 0:
        return np.zeros(0, dtype=bool)
    try:
        values = pc.cast(col, pa.float64()).to_numpy(zero_copy_only=False)
        return np.isfinite(np.asarray(values, dtype=float))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    labels, codes = encode(col)
    ok = np.array([_is_finite_number(v) for v in labels], dtype=bool)
    return ok[codes]


def _is_finite_number(text) -> bool:
    if text is None:
        return False
    try:
        return bool(np.isfinite(float(text)))
    except ValueError:
        return False


def _text_bytes(chunk: pa.Array) -> bytes:
    """The bytes of all texts of a string array, one after the other (nulls and slices right)."""
    if len(chunk) == 0 or chunk.buffers()[2] is None:
        return b""
    width = 8 if pa.types.is_large_string(chunk.type) else 4
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32 if width == 4 else np.int64,
                            count=len(chunk) + 1, offset=chunk.offset * width)
    return chunk.buffers()[2][int(offsets[0]):int(offsets[-1])].to_pybytes()


def decimals_written(col, exponent: int) -> int:
    """The most decimals among number texts (stripped; empty texts count 0): digits after the
    first '.'; a text with an exponent counts ``exponent``. Vectorised over the raw bytes."""
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    best = 0
    dotted = []  # chunks of ASCII texts without an exponent, some with a '.'
    for chunk in chunks:
        if len(chunk) == 0 or chunk.null_count:
            best = max(best, _decimals_slow(chunk, exponent))
            continue
        raw = _text_bytes(chunk)
        if not raw.isascii():  # count as Python does
            best = max(best, _decimals_slow(chunk, exponent))
        elif b"e" in raw or b"E" in raw:  # those count ``exponent``
            has_e = pc.or_(pc.match_substring(chunk, "e"), pc.match_substring(chunk, "E"))
            best = max(best, exponent, decimals_written(chunk.filter(pc.invert(has_e)), exponent))
        elif b"." in raw:
            dotted.append(chunk)
    if dotted:
        texts = pa.chunked_array(dotted, type=dotted[0].type)
        dot = pc.find_substring(texts, ".")  # the first '.', -1 where there is none
        after = pc.if_else(pc.greater_equal(dot, 0),
                           pc.subtract(pc.binary_length(texts), dot), 1)  # its digits, plus 1
        best = max(best, pc.max(after).as_py() - 1)
    return best


def _decimals_slow(chunk, exponent: int) -> int:
    best = 0
    for text in chunk.to_pylist():
        low = (text or "").strip().lower()
        count = exponent if "e" in low else (len(low.split(".", 1)[1]) if "." in low else 0)
        best = max(best, count)
    return best


def write_csv(frame, neutralise=None, prefixes: tuple[str, ...] = ()) -> str:
    """``frame.map(neutralise).to_csv(index=False, lineterminator="\\n")`` for a table of texts,
    vectorised: the same text, quoted as the csv module quotes (asked of it for the few fields
    that need it). ``neutralise`` is applied to the distinct texts that start with one of
    ``prefixes`` (the only ones it may change), and to the header's names."""
    return write_csv_buffer(frame, neutralise, prefixes).decode("utf-8")


def write_csv_buffer(frame, neutralise=None, prefixes: tuple[str, ...] = ()) -> bytes:
    """:func:`write_csv` as UTF-8 bytes (no str of the whole text is built)."""
    return b"".join(write_csv_parts(frame, neutralise, prefixes))


def write_csv_parts(frame, neutralise=None, prefixes: tuple[str, ...] = ()) -> list:
    """:func:`write_csv_buffer` in parts (bytes-like) to write one after the other: the rows
    are not copied to put the header in front of them."""
    names = [str(name) for name in frame.columns]
    if neutralise is not None:  # a header cell is a cell: neutralised as the values are
        names = [neutralise(name) for name in names]
    if frame.shape[1] < 2 or len(frame) == 0:  # a lone empty field is quoted: the reference
        body = io.StringIO()
        (frame.map(neutralise) if neutralise else frame).set_axis(names, axis=1).to_csv(
            body, index=False, lineterminator="\n")
        return [body.getvalue().encode("utf-8")]
    header = io.StringIO()  # quoted as the csv module quotes: asked of it
    csv.writer(header, lineterminator="\n").writerow(names)
    parts = []
    for name in frame.columns:
        col = pc.fill_null(as_text(frame[name]), "").combine_chunks().cast(TEXT)
        if neutralise is not None:
            col = apply_to_prefixed(col, neutralise, prefixes)
        parts += [_quoted(col), pa.scalar(",", type=TEXT)]
    parts[-1] = pa.scalar("\n", type=TEXT)
    rows = pc.binary_join_element_wise(*parts, pa.scalar("", type=TEXT))
    del parts
    rows = rows.combine_chunks() if isinstance(rows, pa.ChunkedArray) else rows
    width = 8 if pa.types.is_large_string(rows.type) else 4
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int64 if width == 8 else np.int32,
                            count=len(rows) + 1, offset=rows.offset * width)
    body = memoryview(rows.buffers()[2])[int(offsets[0]):int(offsets[-1])]
    return [header.getvalue().encode("utf-8"), body]


def apply_to_prefixed(col: pa.Array, fn, prefixes: tuple[str, ...]) -> pa.Array:
    """``fn`` of each distinct text of ``col`` that starts with one of ``prefixes`` (the only
    texts it may change); the others as they are."""
    if not prefixes or len(col) == 0:
        return col
    if all(len(p) == 1 and p.isascii() for p in prefixes):  # by the first byte, vectorised
        offsets, raw = byte_views(col)
        starts = offsets[:-1]
        nonempty = offsets[1:] > starts
        first = np.zeros(len(col), dtype=np.uint8)
        first[nonempty] = raw[starts[nonempty]]
        hit = np.isin(first, np.frombuffer("".join(prefixes).encode(), dtype=np.uint8)) & nonempty
        if not hit.any():
            return col
        candidate = pa.array(hit)
    else:
        candidate = pc.fill_null(pc.is_in(pc.utf8_slice_codeunits(col, 0, 1),
                                           value_set=pa.array(list(prefixes), type=col.type)),
                                 False)
        if not pc.any(candidate).as_py():
            return col
    texts, codes = encode(pc.filter(col, candidate))
    changed = [fn(t) for t in texts]
    if changed == texts:
        return col
    return _replace_where(col, candidate, pa.array(changed, type=col.type).take(pa.array(codes)))


def _quoted(col: pa.Array) -> pa.Array:
    offsets, raw = byte_views(col)
    if not np.isin(raw[offsets[0]:offsets[-1]], np.frombuffer(b',"\r\n', dtype=np.uint8)).any():
        return col
    special = pc.match_substring(col, ",")
    for char in ('"', "\r", "\n"):
        special = pc.or_(special, pc.match_substring(col, char))
    if not pc.any(special).as_py():
        return col
    texts, codes = encode(pc.filter(col, special))
    quoted = []
    for text in texts:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow([text, ""])
        quoted.append(buf.getvalue()[:-2])  # the field, without ",\n"
    return _replace_where(col, special, pa.array(quoted, type=col.type).take(pa.array(codes)))


def _replace_where(col: pa.Array, mask: pa.Array, new: pa.Array) -> pa.Array:
    """``col`` with the texts where ``mask`` holds replaced, in order, by ``new``."""
    where = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
    take = np.arange(len(col), dtype=np.int64)
    take[where] = len(col) + np.arange(len(where))
    return pa.concat_arrays([col, new]).take(pa.array(take))
