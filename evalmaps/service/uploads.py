"""Uploads: a file goes to the server once, is imported within a budget, and is kept in the store.

The Data page stages the file's bytes (:meth:`Store.stage`), previews its import with the options
the user picks (:func:`preview`), then stores its figures (:func:`store_upload`: one, or one per
tool or table in a zip of a folder, grouped as ``evalmaps import`` groups them); every step after
the first carries the staged file's key, never its contents. Both import steps run in a child
process with a time and memory budget (:mod:`evalmaps.service.budget`). Pages then name stored figures
by id (``?figure=upload-...``): :func:`catalog_with` adds them to the built-in catalog.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalmaps.catalog.imports import figure_of, import_file
from evalmaps.core.errors import EvalmapsError
from evalmaps.core.figure import Catalog
from evalmaps.readers.base import ImportOptions
from evalmaps.readers.csvfile import too_many_columns
from evalmaps.service import budget
from evalmaps.service.store import UPLOAD_PREFIX, Store, is_stored_id, open_store

MAX_RECENT = 8  # stored figures a browser lists in its menus (its most recent uploads)
# figures one upload may hold (a zip of a folder: one per tool or table): its menus list them all
MAX_FIGURES = MAX_RECENT

__all__ = ["UPLOAD_PREFIX", "Budget", "catalog_with", "preview", "store_upload",
           "upload_spec"]


@dataclass(frozen=True)
class Budget:
    """What one upload's import may take (``EVALMAPS_UPLOAD_SECONDS``, ``..._MEMORY_MB``)."""

    max_bytes: int
    seconds: float
    memory_mb: float


def upload_spec(imported_spec: dict) -> dict:
    """The catalog entry of an upload (the store gives it its id): provenance ``uploaded``."""
    spec = dict(imported_spec)
    spec.pop("id", None)
    spec["provenance"] = "uploaded"
    spec["notes"] = [n.replace("Imported from", "Uploaded from") for n in spec.get("notes", [])]
    return spec



def _import(path: str, name: str, options: ImportOptions, max_bytes: int) -> list:
    """A staged file's figures, grouped as ``evalmaps import`` groups them (a zip of a folder
    holding two tools' results, or several tables: one figure each), each validated."""
    with open(path, "rb") as staged:  # a staged file: its name, a line, then its bytes
        start = len(staged.readline())
    # read from the disk: a zip's members one at a time, not the whole file in memory
    imported = import_file(path, name, options, max_bytes=max_bytes, by_tool=True, start=start)
    if len(imported) > MAX_FIGURES:
        raise EvalmapsError(f"{name} holds {len(imported)} figures; an upload keeps at most "
                            f"{MAX_FIGURES}. Upload fewer files at a time, or serve the folder "
                            f"with evalmaps serve --data.")
    return [(one, figure_of(one)) for one in imported]


def preview_in_child(path: str, name: str, options: ImportOptions, max_bytes: int) -> dict:
    """Import a staged file; what the Data page shows about it (small: no cells). Its first
    figure's axes and columns (the options apply to it); ``figures``: each figure's title and
    summary."""
    found = _import(path, name, options, max_bytes)
    imported, figure = found[0]
    return {"name": name, "summary": imported.summary(), "columns": list(imported.columns[:200]),
            "dims": list(imported.spec["dims"]), "x": figure.spec.x, "y": figure.spec.y,
            "replicate": imported.replicate or "",
            # an evaluation tool's results ('lm-evaluation-harness results'; '' for a table;
            # the tools, joined, of several figures): their metrics come from the files, and
            # the metric options do not apply
            "tool": " and ".join(dict.fromkeys(
                str(i.spec.get("source", {}).get("tool") or "") for i, _ in found)),
            "figures": [{"title": f.spec.title, "summary": i.summary()} for i, f in found],
            # the metric as read (a table of fractions under the default 0-100 % is read as
            # fractions, 0-1, no unit): the page labels its fields by it
            "metric": {"name": figure.spec.metric.name, "unit": figure.spec.metric.unit,
                       "range": None if figure.spec.metric.range is None
                       else [float(v) for v in figure.spec.metric.range]}}


def store_in_child(path: str, name: str, options: ImportOptions, max_bytes: int,
                   root: str, max_store_bytes: int | None, max_figures: int | None,
                   variables: dict[str, str] | None = None) -> list[str]:
    """Import a staged file and keep its figures in the store; their ids, in import order.
    ``variables``: the server's AWS_* settings, for a store in an object store."""
    from evalmaps.service import objects

    objects.use_variables(variables)
    store = open_store(root, max_store_bytes, max_figures)
    return [store.put(upload_spec(imported.spec), imported.to_csv(for_spreadsheets=False), name,
                      imported.items)
            for imported, _ in _import(path, name, options, max_bytes)]


def _bounded(store: Store, key: str, limits: Budget, fn, *extra):
    staged = store.staged(key)
    if staged is None:
        raise EvalmapsError("The uploaded file is no longer on the server. Upload it again.")
    name, data = staged
    problem = too_many_columns(data, name)
    if problem:
        raise EvalmapsError(problem)
    del data
    try:
        with store.staged_file(key) as path:  # on this host, for the child to read
            return budget.run(fn, str(path), name, *extra, seconds=limits.seconds,
                              memory_mb=limits.memory_mb, what=name)
    except budget.ChildFailed as exc:
        raise EvalmapsError(str(exc)) from None


def preview(store: Store, key: str, options: ImportOptions, limits: Budget) -> dict:
    return _bounded(store, key, limits, preview_in_child, options, limits.max_bytes)


def store_upload(store: Store, key: str, options: ImportOptions, limits: Budget) -> list[str]:
    """Keep the staged file's figures in the store (one per tool or table it holds); their ids,
    the first one first."""
    from evalmaps.service import objects

    return _bounded(store, key, limits, store_in_child, options, limits.max_bytes,
                    str(store.root), store.max_bytes, store.max_figures,
                    objects.connection_variables() if objects.is_url(str(store.root)) else None)


def catalog_with(base: Catalog, store: Store | None, ids) -> Catalog:
    """The built-in catalog plus the stored figures named in ``ids`` (unknown or malformed ids
    are left out; at most :data:`MAX_RECENT` of them)."""
    if store is None or not ids:
        return base
    wanted, seen = [], set()
    for fid in ids if isinstance(ids, (list, tuple)) else [ids]:
        if is_stored_id(fid) and fid not in seen and fid not in base:
            seen.add(fid)
            wanted.append(fid)
    figures = [f for f in (store.figure(fid) for fid in wanted[-MAX_RECENT - 2:]) if f is not None]
    return base.with_figures(figures) if figures else base


# ------------------------------------------------------------------------- private responses

PRIVATE = "private, no-store"  # an upload is its uploader's: kept by no browser cache or proxy
SCANNED_BODY = 64 * 1024  # a request body up to this size is searched for an upload's id


def carries_upload(path: str, query: str, body: bytes | None, size: int | None) -> bool:
    """Whether a request names an upload, so that its answer (a page, JSON, a CSV, a callback's
    figure) carries the upload's data: an upload id in its path or query (``?figure=upload-...``,
    ``/api/figures/upload-.../cells``, ``/api/compare?a=upload-...``) or in a callback's body
    (a page's state, a browser's list of its uploads). A body larger than :data:`SCANNED_BODY` is
    an upload's file itself (its preview carries its data) and is taken to carry one."""
    from urllib.parse import unquote_plus

    from evalmaps.service.store import STORED_ID_IN

    if STORED_ID_IN.search(path) or STORED_ID_IN.search(unquote_plus(query)):
        return True
    if size is not None and size > SCANNED_BODY:
        return True
    return bool(body) and STORED_ID_IN.search(body.decode("utf-8", "replace")) is not None


def mark_private(request, response) -> None:
    """``Cache-Control: private, no-store`` on the answer to a request that names an upload
    (:func:`carries_upload`): a shared link to a private upload is not kept by any cache, nor
    shown from the browser's history cache to the next user of the machine."""
    size = request.content_length
    body = None
    if size and size <= SCANNED_BODY:
        try:
            body = request.get_data(cache=True)  # read already by the view, mostly
        except Exception:  # noqa: BLE001 - refused (over MAX_CONTENT_LENGTH): never a 500 here
            body, size = None, SCANNED_BODY + 1  # unread: taken to carry one
    if carries_upload(request.path, request.query_string.decode("latin-1"), body, size):
        response.headers["Cache-Control"] = PRIVATE
