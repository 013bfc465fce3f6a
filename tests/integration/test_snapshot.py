"""What a process serves is one frozen snapshot, read once per request (issue 36, step 5): a
swap during a request cannot label one snapshot's list with another's versions."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest

from evalmaps.core.figure import Catalog
from evalmaps.service.snapshot import Served, Snapshot
from evalmaps.views import payloads


def _etag_of(figures: list[dict]) -> str:
    every = ",".join(f"{f['id']}={f['version']}" for f in figures)
    return hashlib.sha256(every.encode()).hexdigest()[:16]


def test_a_snapshot_is_frozen_and_its_maps_read_only(catalog):
    snapshot = Snapshot(catalog, ["a problem"], {catalog.ids[0]: "v1"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.catalog = Catalog([])
    with pytest.raises(TypeError):
        snapshot.versions[catalog.ids[0]] = "v2"
    assert snapshot.problems == ("a problem",)
    assert snapshot.version_of(catalog.ids[0]) == "v1"
    assert snapshot.version_of(catalog.ids[1]) == "1"  # not watched


def test_setting_a_key_swaps_a_whole_new_snapshot(catalog):
    served = Served(Snapshot(catalog, versions={catalog.ids[0]: "v1"}))
    old = served.snapshot
    served["versions"] = {catalog.ids[0]: "v2"}
    assert served.snapshot is not old and old.version_of(catalog.ids[0]) == "v1"
    assert served["versions"][catalog.ids[0]] == "v2" and served["catalog"] is catalog
    with pytest.raises(KeyError):
        served["nothing"] = 1


@pytest.fixture()
def swapping(dash_app, monkeypatch):
    """A swap to another snapshot (one figure less, every figure at version 'new') in the middle
    of the next request that builds the figures' list; the state as it was afterwards."""
    state = dash_app.server.extensions["evalmaps"]
    before = state.snapshot
    smaller = Catalog([before.catalog.figure(fid) for fid in before.catalog.ids[1:]])
    after = dataclasses.replace(before, catalog=smaller,
                                versions=dict.fromkeys(before.catalog.ids, "new"))
    real = payloads.figures_payload

    def list_then_swap(catalog):
        out = real(catalog)
        state.swap(after)  # the watcher's thread, between the list and its versions
        return out

    monkeypatch.setattr(payloads, "figures_payload", list_then_swap)
    yield before, after
    state.swap(before)


def test_the_list_and_its_etag_come_from_one_snapshot(dash_app, swapping):
    before, after = swapping
    response = dash_app.server.test_client().get("/api/figures")
    figures = response.get_json()["figures"]
    assert [f["id"] for f in figures] == list(before.catalog.ids)
    assert {f["version"] for f in figures} == {"1"}  # the old snapshot's, not "new"
    assert response.headers["ETag"].strip('"') == _etag_of(figures)
    # the next request reads the new snapshot, whole
    monkeypatch_free = dash_app.server.test_client().get("/api/figures").get_json()["figures"]
    assert [f["id"] for f in monkeypatch_free] == list(after.catalog.ids)
    assert {f["version"] for f in monkeypatch_free} == {"new"}


def test_a_figure_and_its_version_come_from_one_snapshot(dash_app, monkeypatch):
    state = dash_app.server.extensions["evalmaps"]
    before = state.snapshot
    fid = before.catalog.ids[0]
    real = payloads.figure_summary

    def summary_then_swap(figure):
        state.swap(versions={fid: "new"})
        return real(figure)

    monkeypatch.setattr(payloads, "figure_summary", summary_then_swap)
    try:
        response = dash_app.server.test_client().get(f"/api/figures/{fid}")
    finally:
        state.swap(before)
    assert response.get_json()["version"] == "1"
    assert response.headers["ETag"].strip('"') == "1"
