"""What a process serves, as one frozen value swapped whole (issue 36, step 5).

A :class:`Snapshot` holds the catalog, the problems start-up and the watched folders reported,
each figure's version, the upload store and the upload limits. :class:`Served` holds the
snapshot a process serves now; a new one (a watched folder changed: :mod:`evalmaps.service.live`)
replaces it by one assignment, :meth:`Served.swap`. A request reads the snapshot once (the web
layer keeps it in Flask's ``g`` for the request) and takes everything from it, so that its list
and its ETag, a figure and its version, always come from the same data: a swap during a request
is seen by the next one.

:class:`Served` also answers the old keys of the app's state (``state["catalog"]``,
``state["store"]``, ``state["problems"]``, ``state["versions"]``, ``state["settings"]``,
``state["upload_budget"]``) by reading the snapshot, and setting one of them swaps in a
snapshot with it replaced: scripts and tests that set the catalog keep working, and still swap
whole snapshots.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from evalmaps.core.figure import Catalog
from evalmaps.service.live import STATIC_VERSION

# the app's old state keys -> the snapshot's fields
FIELDS = {"catalog": "catalog", "problems": "problems", "versions": "versions",
          "store": "store", "upload_budget": "limits", "settings": "settings", "gone": "gone"}


def _frozen_map(mapping) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The data a process serves at one moment. ``catalog``: the figures (built-in, the data
    folders'); ``problems``: what could not be served as it is; ``versions``: each watched
    figure's version (:func:`evalmaps.service.live.figure_version`; the others are
    :data:`STATIC_VERSION`); ``store``: the upload store (None: uploads off); ``limits``: the
    upload budget (:class:`evalmaps.service.budget.Budget`); ``settings``: the server's settings;
    ``gone``: watched figures whose files were removed (id -> their folder)."""

    catalog: Catalog
    problems: tuple[str, ...] = ()
    versions: Mapping[str, str] = field(default_factory=dict)
    store: object | None = None
    limits: object | None = None
    settings: object | None = None
    gone: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "problems", tuple(self.problems or ()))
        object.__setattr__(self, "versions", _frozen_map(self.versions))
        object.__setattr__(self, "gone", _frozen_map(self.gone))

    def version_of(self, figure_id: str) -> str:
        """A figure's version in this snapshot (:data:`STATIC_VERSION` when it is not
        watched)."""
        return self.versions.get(figure_id, STATIC_VERSION)

    def with_uploads(self, ids) -> Catalog:
        """The catalog plus the stored uploads named in ``ids`` (unknown or malformed ids left
        out: :func:`evalmaps.service.uploads.catalog_with`)."""
        from evalmaps.service.uploads import catalog_with

        return catalog_with(self.catalog, self.store, ids)


class Served(Mapping):
    """The snapshot a process serves (:attr:`snapshot`), replaced whole by :meth:`swap`.

    As a mapping it answers the app's old state keys (:data:`FIELDS`) from the snapshot of the
    moment; each read is a new look at :attr:`snapshot`, so code that reads two of them should
    read :attr:`snapshot` once instead."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self._lock = threading.Lock()  # swaps that change a field of the current snapshot

    def swap(self, snapshot: Snapshot | None = None, **changes) -> Snapshot:
        """Serve ``snapshot`` (or the current one with ``changes``) from now on: one assignment,
        so a request sees the old data or the new, whole."""
        with self._lock:
            new = snapshot if snapshot is not None else replace(self.snapshot, **changes)
            self.snapshot = new
        return new

    # --- the old keys ---------------------------------------------------------------------------

    def __getitem__(self, key: str):
        if key not in FIELDS:
            raise KeyError(key)
        return getattr(self.snapshot, FIELDS[key])

    def __setitem__(self, key: str, value) -> None:
        if key not in FIELDS:
            raise KeyError(f"{key} is not part of what the app serves ({', '.join(FIELDS)})")
        self.swap(**{FIELDS[key]: value})

    def __iter__(self) -> Iterator[str]:
        return iter(FIELDS)

    def __len__(self) -> int:
        return len(FIELDS)
