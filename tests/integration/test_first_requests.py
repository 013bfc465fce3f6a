"""A fresh gunicorn worker answers callbacks that arrive together as its very first requests.

Dash moves the app's registered callbacks into it in a hook of its first request, and marks that
hook done before it has copied them: with gthread workers (gunicorn.conf.py), the requests that
arrive with the first one could find no callback and got a 400 'names no server callback' (a
few in every load test after a worker restart). ``dash_internals.setup_before_any_request``
makes the others wait."""

from __future__ import annotations

import http.client
import threading
import time
from urllib.parse import urlsplit

import pytest

from benchmarks import dash_requests
from tests.servers import start_app_gunicorn, stop_gunicorn, wait_until_serving

pytestmark = pytest.mark.server

CLIENTS = 16


def _request(base: str, method: str, path: str, body: bytes | None = None,
             deadline: float | None = None) -> tuple[int, bytes]:
    """One request; connection refused (the port not bound yet) is retried until ``deadline``."""
    url = urlsplit(base)
    while True:
        try:
            conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
            conn.request(method, path, body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            return response.status, response.read()
        except ConnectionRefusedError:
            if deadline is None or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _body(tmp_path) -> bytes:
    """The browse callback's request, built against a first server (then stopped)."""
    proc, base = start_app_gunicorn({"EVALMAPS_CACHE": "off"}, tmp_path / "first.log")
    workers: list[int] = []
    try:
        workers = wait_until_serving(proc, lambda: _request(base, "GET", "/healthz")[0] == 200,
                                     lambda: (tmp_path / "first.log").read_text()[-2000:], 60, 1)

        def get(path):
            return _request(base, "GET", path)[1]

        def post(path, body):
            return _request(base, "POST", path, body)[1]

        return dash_requests.browse_request(get, post, "core-generalization")[0]
    finally:
        stop_gunicorn(proc, workers, 10)


def test_callbacks_arriving_together_first_are_all_answered(tmp_path):
    body = _body(tmp_path)
    log = tmp_path / "second.log"
    proc, base = start_app_gunicorn({"EVALMAPS_CACHE": "off"}, log)
    statuses: list[tuple[int, bytes]] = []
    start = threading.Barrier(CLIENTS)
    deadline = time.monotonic() + 60

    def client():
        start.wait()
        statuses.append(_request(base, "POST", "/_dash-update-component", body, deadline))

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        workers = wait_until_serving(proc, lambda: True, lambda: log.read_text()[-2000:], 30, 1)
        stop_gunicorn(proc, workers, 10)
    refused = [(code, text[:120]) for code, text in statuses if code != 200]
    assert (len(statuses), refused) == (CLIENTS, [])
