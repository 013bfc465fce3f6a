"""Transfer: every text response compressed (brotli or gzip, as the client accepts), static files
cached for a year under fingerprinted URLs, and what is compressed decompresses to the original."""

from __future__ import annotations

import gzip
import re

import brotli
import pytest

from tests.integration.dash_calls import call
from tests.integration.test_script_bundle import parts
from tests.integration.test_upload_callback import stage

FINGERPRINTED = re.compile(r"(?:src|href)=\"(/(?:_dash-component-suites|assets|vendor)/[^\"]+)\"")


def static_urls(client) -> list[str]:
    return FINGERPRINTED.findall(client.get("/").get_data(as_text=True))


def test_static_files_are_fingerprinted_and_cached_for_a_year(client):
    urls = static_urls(client)
    assert any(u.startswith("/assets/evalmaps.css?m=") for u in urls)
    assert any(u.startswith("/vendor/scripts/dash_renderer.") for u in urls)  # its name: a digest
    assert any(u.startswith("/vendor/bootstrap/css/bootstrap.min.css?v=") for u in urls)
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "max-age=31536000" in response.headers["Cache-Control"], url


@pytest.mark.parametrize("encoding, decode", [("br", brotli.decompress),
                                              ("gzip", gzip.decompress)])
def test_static_and_pages_are_compressed_as_the_client_accepts(client, encoding, decode):
    for url in ["/", "/_dash-layout", "/api/figures", *static_urls(client)]:
        plain = client.get(url).data
        if len(plain) < 1024:
            continue  # too small to be worth it
        packed = client.get(url, headers={"Accept-Encoding": encoding})
        assert packed.headers.get("Content-Encoding") == encoding, url
        assert "Accept-Encoding" in packed.headers.get("Vary", ""), url
        if url == "/":  # the page carries a fresh token every time: compare its start
            assert decode(packed.data).startswith(b"<!DOCTYPE html>")
        else:
            assert decode(packed.data) == plain, url
        assert len(packed.data) < len(plain), url


def test_a_client_that_accepts_nothing_gets_plain_bytes(client):
    response = client.get("/api/figures", headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in response.headers
    assert response.get_json()["figures"]


def test_callback_responses_are_compressed_too(client):
    # a matrix of 150 columns: the preview lists each column as a replicate option
    header = "model," + ",".join(f"column_label_{i}" for i in range(150))
    rows = [f"m{r}," + ",".join(str((r * i) % 100) for i in range(150)) for r in range(5)]
    key = stage(client, "wide.csv", "\n".join([header, *rows]).encode())["data-staged.data"]
    inputs = {"data-staged.data": key, "data-format.value": "auto", "data-range.value": True}
    plain = call(client, "data-pending.data", inputs)
    packed = call(client, "data-pending.data", inputs, headers={"Accept-Encoding": "br"})
    assert plain.status_code == packed.status_code == 200
    assert packed.headers.get("Content-Encoding") == "br"
    assert brotli.decompress(packed.data) == plain.data
    assert len(packed.data) < len(plain.data) // 2


def test_pages_load_no_legacy_polyfill_and_regenerator_comes_first(client):
    """dash_internals.drop_legacy_polyfill: the page's scripts (joined in one bundle,
    layouts._routes.bundle_scripts) are Dash's renderer dependencies without @babel/polyfill. The files
    that call the global regeneratorRuntime (their lazy-component loaders) run after the one
    that defines it (dash-bootstrap-components)."""
    bundle = [u for u in static_urls(client) if u.startswith("/vendor/scripts/")]
    assert len(bundle) == 1
    files = parts(client.get(bundle[0]).data)
    names = [src.split("/")[-1] for src, _ in files]
    assert not any("polyfill" in n for n in names)
    assert [n.split(".")[0] for n in names[:3]] == ["react@18", "react-dom@18", "prop-types@15"]
    defines = [k for k, (_, text) in enumerate(files) if b"regeneratorRuntime=" in text]
    uses = [k for k, (_, text) in enumerate(files) if b"regeneratorRuntime.mark" in text]
    assert defines and "dash_bootstrap_components" in files[defines[0]][0]
    assert uses and min(uses) >= defines[0]
