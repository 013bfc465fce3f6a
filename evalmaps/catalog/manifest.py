"""A data folder's manifest: the sha256 and the cell count of every figure file, checked at
start-up so that a file cut short or edited is noticed.

``manifest.json`` sits next to ``catalog.json`` (or next to the files of a folder of CSVs)::

    {"about": "...", "files": {"figures/core-generalization.csv": {"sha256": "...", "cells": 48}}}

Keys are the files' paths relative to the folder, with '/'. ``cells``: the cells with a value
(what the figure shows). The built-in ``data/`` must match its manifest (a file that does not is
not served); a user's folder may have one (a file that does not match is served, with a warning).
Regenerate with ``evalmaps manifest DIR`` (``python scripts/make_manifest.py`` for ``data/``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from evalmaps.core.errors import DataError

MANIFEST = "manifest.json"
ABOUT = ("sha256 and cell count (cells with a value) of every figure file, checked at start-up. "
         "Regenerate after changing a file: evalmaps manifest <this folder> "
         "(for data/: python scripts/make_manifest.py).")


@dataclass(frozen=True)
class Entry:
    sha256: str
    cells: int


def sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def read(folder: Path) -> dict[str, Entry] | None:
    """The folder's manifest (relative path -> Entry), or None when it has none."""
    path = Path(folder) / MANIFEST
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"the manifest is not valid JSON ({exc}). Regenerate it with "
                        f"`evalmaps manifest {folder}`.", file=str(path)) from None
    files = raw.get("files") if isinstance(raw, dict) else None
    if not isinstance(files, dict) or not all(
            isinstance(e, dict) and isinstance(e.get("sha256"), str)
            and isinstance(e.get("cells"), int) for e in files.values()):
        raise DataError('the manifest must be {"files": {"<file>": {"sha256": "...", "cells": N}}}. '
                        f"Regenerate it with `evalmaps manifest {folder}`.", file=str(path))
    return {name: Entry(e["sha256"], e["cells"]) for name, e in files.items()}


def key(folder: Path, path: Path) -> str:
    """A file's key in its folder's manifest."""
    try:
        return Path(path).relative_to(folder).as_posix()
    except ValueError:
        return Path(path).as_posix()


def mismatch(entry: Entry | None, digest: str, cells: int | None) -> str | None:
    """What differs between a file and its manifest entry (None: nothing); ``cells`` None when
    the file could not be read into cells."""
    if entry is None:
        return "it is not in the manifest"
    if digest == entry.sha256 and (cells is None or cells == entry.cells):
        return None
    parts = []
    if cells is not None and cells != entry.cells:
        parts.append(f"it has {cells} cells where the manifest records {entry.cells}")
    parts.append(f"its sha256 is {digest[:12]}…, not {entry.sha256[:12]}…")
    return "; ".join(parts)


def build(folder: Path, figures_by_file: dict[str, int]) -> dict:
    """The manifest of ``folder``: its files' sha256 and the given cell counts."""
    files = {name: {"sha256": sha256(Path(folder) / name), "cells": cells}
             for name, cells in sorted(figures_by_file.items())}
    return {"about": ABOUT, "files": files}

