"""Figures that live in a browser session (uploads): rebuilt from what the browser holds.

The server keeps no uploaded data. The browser's session store holds, per upload, a catalog entry
and the tidy CSV text; every request that needs them sends them, and they are validated and built
here. Built figures are cached by content (a cache, not state: any worker can rebuild them).
"""

from __future__ import annotations

import hashlib
import io
import json
from functools import lru_cache

import pandas as pd

from evalmaps.errors import DataError
from evalmaps.loading import parse_spec, validate_cells
from evalmaps.model import Catalog, Figure, slugify

UPLOAD_PREFIX = "upload-"


def upload_entry(spec: dict, tidy_csv: str) -> dict:
    """What the browser stores for one upload (JSON-serialisable)."""
    return {"spec": spec, "csv": tidy_csv}


def upload_spec(imported_spec: dict, name: str, data: bytes) -> dict:
    """The catalog entry of an upload: an id from the file's name and content, provenance
    ``uploaded``."""
    spec = dict(imported_spec)
    digest = hashlib.sha256(data).hexdigest()[:8]
    spec["id"] = f"{UPLOAD_PREFIX}{slugify(name.rsplit('.', 1)[0])[:32]}-{digest}"
    spec["provenance"] = "uploaded"
    spec["notes"] = [n.replace("Imported from", "Uploaded from") for n in spec["notes"]]
    return spec


def _key(entry: dict) -> str:
    return hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()


@lru_cache(maxsize=64)
def _build(key: str, payload: str) -> Figure:
    entry = json.loads(payload)
    spec = parse_spec(entry["spec"], where=f"upload '{entry['spec'].get('id', '?')}'")
    frame = pd.read_csv(io.StringIO(entry["csv"]), dtype=str, keep_default_na=False)
    cells, decimals = validate_cells(frame, spec, file=f"upload '{spec.id}'")
    return Figure(spec, cells, decimals)


def figure_from_upload(entry: dict) -> Figure:
    if not isinstance(entry, dict) or "spec" not in entry or "csv" not in entry:
        raise DataError("an uploaded figure in this browser session is malformed; upload it again.")
    return _build(_key(entry), json.dumps(entry, sort_keys=True))


def session_catalog(base: Catalog, uploads: list[dict] | None) -> Catalog:
    """The built-in figures plus this session's uploads (malformed uploads are left out)."""
    if not uploads:
        return base
    figures = []
    for entry in uploads:
        try:
            figure = figure_from_upload(entry)
        except (DataError, KeyError, TypeError, ValueError):
            continue  # never let one bad stored upload break every view
        if figure.id not in base and figure.id.startswith(UPLOAD_PREFIX):
            figures.append(figure)
    return base.with_figures(figures) if figures else base
