"""The snapshot a request reads (issue 36, step 5). (Not a page: Dash Pages skips '_'.)

The app's data is one frozen :class:`evalmaps.service.snapshot.Snapshot`, replaced whole when a
watched folder changes. A request reads it once, in :func:`hold_snapshot` (the app's
``before_request`` hook), and every route and callback takes the catalog, the versions, the
problems, the store and the limits from that one (:func:`served`), so that what one answer says
comes from one snapshot. The catalog with the uploads a request names is made once per request
too (:func:`catalog_for`).
"""

from __future__ import annotations

from flask import current_app, g, has_request_context

from evalmaps.core.figure import Catalog
from evalmaps.service.snapshot import Snapshot

HELD = "evalmaps_snapshot"  # the request's snapshot, in flask.g
CATALOGS = "evalmaps_catalogs"  # the request's catalogs with uploads, by the ids asked for


def hold_snapshot() -> None:
    """Take the snapshot this request reads (before_request)."""
    setattr(g, HELD, current_app.extensions["evalmaps"].snapshot)
    setattr(g, CATALOGS, {})


def served(state=None) -> Snapshot:
    """The request's snapshot (taken at its start); outside a request, the current one of
    ``state`` (the app's :class:`~evalmaps.service.snapshot.Served`; default: the current
    app's)."""
    if not has_request_context():
        return (state if state is not None else current_app.extensions["evalmaps"]).snapshot
    held = g.get(HELD)
    if held is None:  # a request the hook did not see (a test's request context)
        hold_snapshot()
        held = g.get(HELD)
    return held


def catalog_for(ids) -> Catalog:
    """The request's catalog with the stored uploads named in ``ids`` (:meth:`Snapshot.
    with_uploads`), resolved once per request and list of ids."""
    snapshot = served()
    wanted = tuple(i for i in ids if isinstance(i, str))
    if not has_request_context():
        return snapshot.with_uploads(list(wanted))
    made = g.get(CATALOGS)
    if made is None:
        made = {}
        setattr(g, CATALOGS, made)
    catalog = made.get(wanted)
    if catalog is None:
        catalog = made[wanted] = snapshot.with_uploads(list(wanted))
    return catalog
