"""The app as deployed: a real ``gunicorn app:server`` with two workers, spoken to over HTTP.

gunicorn starts once for the module and is stopped (terminate, then kill) in the finalizer; the
finalizer also checks that neither the master nor its workers outlive the tests.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from importlib.metadata import version
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.servers import children_of, free_port, stop_gunicorn, wait_until_serving

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
BOOTSTRAP_CSS = f"/vendor/bootstrap/css/bootstrap.min.css?v={version('bootstrap-flask')}"
START_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0

# No proxies: only ever 127.0.0.1.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Server:
    def __init__(self, base: str, proc: subprocess.Popen, log_path: Path):
        self.base = base
        self.proc = proc
        self.log_path = log_path

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def fetch(self, path: str, method: str = "GET", data: bytes | None = None,
              timeout: float = 15.0) -> tuple[int, dict, bytes]:
        assert path.startswith("/")
        request = urllib.request.Request(self.base + path, method=method, data=data)
        try:
            with OPENER.open(request, timeout=timeout) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as err:
            with err:
                return err.code, dict(err.headers), err.read()


@pytest.fixture(scope="module")
def server():
    port = free_port()
    log_file = tempfile.NamedTemporaryFile(prefix="evalmaps-gunicorn-", suffix=".log",
                                           delete=False)
    log_path = Path(log_file.name)
    cmd = [sys.executable, "-m", "gunicorn", "app:server", "--bind", f"{HOST}:{port}",
           "--workers", "2", "--timeout", "60", "--graceful-timeout", "5"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log_file, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    log_file.close()
    srv = Server(f"http://{HOST}:{port}", proc, log_path)
    workers: list[int] = []

    def healthy() -> bool:
        status, _, body = srv.fetch("/healthz", timeout=2)
        return status == 200 and json.loads(body).get("status") == "ok"

    try:
        workers = wait_until_serving(proc, healthy, srv.log, START_TIMEOUT)
        yield srv
    finally:
        leftovers = stop_gunicorn(proc, workers, STOP_TIMEOUT)
        log_path.unlink(missing_ok=True)
        assert not leftovers, f"gunicorn processes outlived the tests: {leftovers}"


# --------------------------------------------------------------------------- tests

def test_two_workers(server):
    assert server.proc.poll() is None
    assert len(children_of(server.proc.pid)) == 2


def test_healthz(server):
    status, headers, body = server.fetch("/healthz")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert json.loads(body) == {"status": "ok", "figures": 7, "problems": []}


def test_index_is_html_linking_vendored_bootstrap(server):
    status, headers, body = server.fetch("/")
    assert status == 200
    assert headers["Content-Type"].startswith("text/html")
    html = body.decode("utf-8")
    refs = re.findall(r'<(?:link|script)\b[^>]*?\b(?:href|src)="([^"]*)"', html)
    assert BOOTSTRAP_CSS in refs
    external = [u for u in refs if re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|//)", u)]
    assert external == [], f"assets from another host: {external}"


def test_bootstrap_css(server):
    status, headers, body = server.fetch(BOOTSTRAP_CSS)
    assert status == 200
    assert headers["Content-Type"].startswith("text/css")
    head = body[:200].decode("utf-8")
    assert head.removeprefix('@charset "UTF-8";').startswith("/*!")
    assert "Bootstrap" in head and "v5." in head
    assert len(body) > 100_000


def test_api_figures(server):
    status, headers, body = server.fetch("/api/figures")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    figures = json.loads(body)["figures"]
    assert len(figures) == 7
    assert all(f["url"] == f"/?figure={f['id']}" for f in figures)


def test_cells_over_http(server):
    status, _, body = server.fetch("/api/figures/dynts-llama-vs-qwen/cells"
                                   "?model=R1-Qwen&window=2000&ratio=0.4")
    assert status == 200
    assert json.loads(body)["cells"] == [{"model": "R1-Qwen", "window": "2000", "ratio": "0.4",
                                          "value": 56.3}]
    status, headers, body = server.fetch("/api/figures/dynts-llama-vs-qwen/cells?format=csv")
    assert status == 200 and headers["Content-Type"].startswith("text/csv")
    assert headers["Content-Disposition"].startswith("attachment")
    assert body.decode().splitlines()[0] == "model,window,ratio,value,provenance"


@pytest.mark.parametrize("path, expected", [
    ("/api/figures/nope", 404),
    ("/api/figures/nope/cells", 404),
    ("/api/figures/dynts-llama-vs-qwen/cells?model=nope", 400),
    ("/api/figures/dynts-llama-vs-qwen/cells?model=" + quote("<script>alert(1)</script>"), 400),
    ("/api/figures/dynts-llama-vs-qwen/cells?format=xml", 400),
    ("/api/no-such-route", 404),
])
def test_bad_api_requests_are_json_errors(server, path, expected):
    status, headers, body = server.fetch(path)
    assert status == expected, (path, status, body[:300])
    assert headers["Content-Type"].startswith("application/json")
    text = body.decode("utf-8")
    assert "Traceback" not in text
    assert isinstance(json.loads(text)["error"], str)


def test_post_is_405_json(server):
    status, headers, body = server.fetch("/api/figures", method="POST", data=b"")
    assert status == 405 and headers["Content-Type"].startswith("application/json")
    assert "Traceback" not in body.decode()


@pytest.mark.parametrize("path", [
    "/?figure=" + quote("<script>alert(1)</script>"),
    "/?figure=nope",
    "/?rows=",
    "/?xmin=abc",
    "/?figure=dynts-r1-llama-benchmarks&benchmark=nope&xmin=1e999",
])
def test_odd_pages_never_500(server, path):
    status, headers, body = server.fetch(path)
    assert status == 200, (path, status)
    assert headers["Content-Type"].startswith("text/html")
    html = body.decode("utf-8")
    assert "Traceback" not in html
    assert "<script>alert(1)</script>" not in html


def test_dash_layout(server):
    status, headers, body = server.fetch("/_dash-layout")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert json.loads(body)["props"]


def test_dash_dependencies(server):
    status, _, body = server.fetch("/_dash-dependencies")
    assert status == 200
    assert isinstance(json.loads(body), list) and json.loads(body)


def test_server_still_healthy_after_bad_requests(server):
    for _ in range(4):  # both workers, in all likelihood
        status, _, _ = server.fetch("/healthz")
        assert status == 200
    assert server.proc.poll() is None
