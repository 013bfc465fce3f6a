"""A private upload's pages and data go out with ``Cache-Control: private, no-store`` (issue 37,
red team 11): no shared cache or browser history cache keeps them. The real app and its real
store; every response of a request that names the upload, and none that does not."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from evalmaps.catalog.imports import import_bytes
from evalmaps.service import uploads
from tests.integration.dash_calls import call

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PRIVATE = "private, no-store"


@pytest.fixture()
def upload(client):
    store = client.application.extensions["evalmaps"]["store"]
    imported = import_bytes((FIXTURES / "tidy_small.csv").read_bytes(), "secret_runs.csv")[0]
    fid = store.put(uploads.upload_spec(imported.spec), imported.to_csv(for_spreadsheets=False),
                    "secret_runs.csv")
    panel = next(iter(store.figure(fid).panels))
    return fid, panel


def test_an_uploads_pages_and_json_are_private_and_not_stored(client, upload):
    fid, panel = upload
    ref = quote(f"{fid}:{panel}")
    for url in (f"/?figure={fid}", f"/data?figure={fid}", f"/compare?a={ref}&b={ref}",
                f"/api/figures/{fid}", f"/api/figures/{fid}/cells",
                f"/api/figures/{fid}/cells?format=csv", f"/api/figures/{fid}/trends",
                f"/api/compare?a={ref}&b={ref}"):
        response = client.get(url)
        assert response.status_code == 200, (url, response.data[:200])
        assert response.headers.get("Cache-Control") == PRIVATE, url


def test_a_callback_that_carries_an_upload_is_private(client, upload):
    fid, _ = upload
    response = call(client, "uploads.data", {"data-add.n_clicks": 1},
                    state={"data-pending.data": None, "uploads.data": [fid]})
    assert response.status_code in (200, 204)
    assert response.headers.get("Cache-Control") == PRIVATE


def test_the_built_in_figures_keep_their_caching(client):
    assert client.get("/api/figures/pythia-zero-shot").headers["Cache-Control"] == "no-cache"
    assert client.get("/?figure=pythia-zero-shot").headers.get("Cache-Control") != PRIVATE
