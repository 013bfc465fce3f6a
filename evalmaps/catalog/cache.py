"""A cache of validated cells, keyed by content, so that a start-up does not parse again a file
that has not changed.

An entry is one file ``<key>.cells`` in the cache folder: a magic line, the SHA-256 of the rest,
and the cells as an Arrow IPC file (labels dictionary-encoded, compressed) whose metadata holds
the display decimals and, for imports, the catalog entry made from the file. The key is the
SHA-256 of the cache format version, what the result depends on besides the file (the catalog's
dims and labels, the import options), and the file's bytes: a changed file or option is a new key.

Writes go to a temporary file renamed into place (atomic). An entry that is missing, truncated,
corrupt or of another version is ignored (and rebuilt by the caller); a cache folder that cannot be
written is ignored too. The cache never changes a result: what it returns is what was validated.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

FORMAT_VERSION = 2
MAGIC = b"evalmaps-cells/1\n"
OPTIONAL = ("sd", "n", "se")
_META = b"evalmaps"
COMPRESSION = "lz4"  # fast to write and read; None: none


@dataclass
class Entry:
    cells: pd.DataFrame
    decimals: int
    meta: dict = field(default_factory=dict)


def key(*parts: str | bytes) -> str:
    """SHA-256 (hex) of the cache format version and ``parts``, each length-prefixed."""
    h = hashlib.sha256()
    for part in (str(FORMAT_VERSION), *parts):
        data = part.encode("utf-8") if isinstance(part, str) else bytes(part)
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def _path(cache_dir: str | Path, entry_key: str) -> Path:
    return Path(cache_dir) / f"{entry_key}.cells"


def load(cache_dir: str | Path, entry_key: str) -> Entry | None:
    """The entry stored under ``entry_key``, or None (absent, unreadable or not valid)."""
    try:
        blob = _path(cache_dir, entry_key).read_bytes()
    except OSError:
        return None
    try:
        return _decode(blob)
    except Exception:  # noqa: BLE001 - a bad entry is a miss, whatever is wrong with it
        return None


def store(cache_dir: str | Path, entry_key: str, cells: pd.DataFrame, decimals: int,
          meta: dict | None = None) -> None:
    """Keep ``cells`` under ``entry_key``; failures (a read-only folder, a full disk) are ignored."""
    try:
        blob = _encode(cells, decimals, meta or {})
        folder = Path(cache_dir)
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".cells")
    except Exception:  # noqa: BLE001 - a cache that cannot be written is no cache
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(blob)
        os.replace(tmp, _path(folder, entry_key))
    except Exception:  # noqa: BLE001
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _encode(cells: pd.DataFrame, decimals: int, meta: dict) -> bytes:
    numeric = [c for c in ("value", *OPTIONAL) if c in cells.columns]
    dims = [c for c in cells.columns if c not in numeric]
    arrays, names = [], []
    for col in dims:
        arrays.append(pa.array(cells[col], type=pa.string(), from_pandas=True).dictionary_encode())
        names.append(col)
    for col in numeric:
        arrays.append(pa.array(cells[col].to_numpy(dtype=float), type=pa.float64()))
        names.append(col)
    info = {"version": FORMAT_VERSION, "decimals": int(decimals), "dims": dims,
            "numeric": numeric, "rows": len(cells), "meta": meta}
    table = pa.Table.from_arrays(arrays, names=names).replace_schema_metadata(
        {_META: json.dumps(info).encode("utf-8")})
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(
        compression=COMPRESSION if COMPRESSION and pa.Codec.is_available(COMPRESSION) else None)
    with pa.ipc.new_file(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    payload = sink.getvalue().to_pybytes()
    return MAGIC + hashlib.sha256(payload).digest() + payload


def _decode(blob: bytes) -> Entry:
    if not blob.startswith(MAGIC):
        raise ValueError("not a cache entry of this version")
    digest = blob[len(MAGIC):len(MAGIC) + 32]
    payload = memoryview(blob)[len(MAGIC) + 32:]
    if hashlib.sha256(payload).digest() != digest:
        raise ValueError("checksum mismatch")
    table = pa.ipc.open_file(pa.py_buffer(payload)).read_all()
    info = json.loads(table.schema.metadata[_META])
    dims, numeric = info["dims"], info["numeric"]
    if (info["version"] != FORMAT_VERSION or table.column_names != [*dims, *numeric]
            or table.num_rows != info["rows"] or numeric[:1] != ["value"]
            or not set(numeric[1:]) <= set(OPTIONAL)):
        raise ValueError("unexpected layout")
    decimals = info["decimals"]
    if not isinstance(decimals, int) or isinstance(decimals, bool) or decimals < 0:
        raise ValueError("bad decimals")
    data = {}
    for col in dims:
        arr = table.column(col)
        if pa.types.is_dictionary(arr.type):
            arr = arr.cast(arr.type.value_type)
        if arr.type != pa.string() or arr.null_count:
            raise ValueError("bad label column")
        data[col] = pd.Series(arr.to_pandas())
    for col in numeric:
        arr = table.column(col)
        if arr.type != pa.float64():
            raise ValueError("bad number column")
        data[col] = np.asarray(arr.to_numpy(), dtype=float)
    cells = pd.DataFrame(data) if data else pd.DataFrame()
    return Entry(cells, decimals, info.get("meta") or {})
