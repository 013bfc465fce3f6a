"""Routes around the API (issue 11, Routes): unknown paths answer 404 (the app's page for a
browser, JSON under /api), no development endpoint in production, Dash's dependency errors do
not list every path, messages quote at most 100 characters of the input, security headers."""

from __future__ import annotations

import pytest

LONG = "x" * 5000


@pytest.mark.parametrize("path", ["/.env", "/wp-admin/setup.php", "/trendsx", "/a/b/c"])
def test_unknown_paths_answer_404_with_the_apps_page(client, path):
    response = client.get(path)
    assert (response.status_code, response.mimetype) == (404, "text/html")
    assert b'<div id="react-entry-point">' in response.data  # the app renders its own 'not found'


@pytest.mark.parametrize("path", ["/", "/trends", "/compare", "/data", "/trends/",
                                  "/?figure=core-generalization"])
def test_pages_answer_200(client, path):
    assert client.get(path).status_code == 200


def test_development_endpoints_are_off_in_production(client):
    response = client.get("/_reload-hash")
    assert (response.status_code, response.get_json()) == (
        404, {"error": "There is no route /_reload-hash.", "status": 404})


def test_an_unknown_script_is_a_404_that_lists_nothing(client):
    response = client.get("/_dash-component-suites/dash/nope.js")
    assert (response.status_code, response.get_json()) == (404, {
        "error": "There is no script or style sheet at /_dash-component-suites/dash/nope.js.",
        "status": 404})


@pytest.mark.parametrize("path", [f"/api/figures/{LONG}", f"/api/{LONG}",
                                  f"/api/figures/core-generalization/cells?type={LONG}",
                                  f"/api/figures/core-generalization/cells?format={LONG}"])
def test_errors_quote_at_most_100_characters_of_the_input(client, path):
    response = client.get(path)
    assert response.status_code in (400, 404)
    message = response.get_json()["error"]
    assert "x" * 100 + "…" in message and "x" * 101 not in message
    assert len(message) < 400


def test_security_headers(client):
    headers = client.get("/").headers
    assert headers["Permissions-Policy"].startswith("camera=(), microphone=(), geolocation=()")
    assert "Strict-Transport-Security" not in headers  # plain HTTP: no HSTS
    secure = client.get("/", base_url="https://localhost").headers
    assert secure["Strict-Transport-Security"] == "max-age=31536000"


def test_the_page_names_no_server_versions(client):
    import json
    import re
    import sys

    html = client.get("/").get_data(as_text=True)
    config = json.loads(re.search(r'<script id="_dash-config" type="application/json">(.*?)'
                                  r'</script>', html, re.S).group(1))
    assert {"dash_version", "python_version", "plotly_version", "ddk_version",
            "dash_version_url"}.isdisjoint(config)
    assert sys.version.split()[0] not in html


def test_the_page_config_carries_no_validation_layout(client):
    """Every page's HTML held all pages' layouts (~170 KB, 23 ms of CPU per GET /) for a check
    only the dev tools show: it is left out unless debug is on."""
    import json
    import re

    html = client.get("/").get_data(as_text=True)
    config = json.loads(re.search(r'<script id="_dash-config" type="application/json">(.*?)'
                                  r'</script>', html, re.S).group(1))
    assert "validation_layout" not in config and len(html) < 20_000
