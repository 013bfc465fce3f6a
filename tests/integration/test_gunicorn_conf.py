"""gunicorn.conf.py: the settings gunicorn loads from the repository root, and what they are for:
a real gunicorn keeps answering /healthz while idle, half-sent and slowloris connections are open.

Every server here is a real ``gunicorn app:server`` started from the repository root (so it reads
gunicorn.conf.py), bound to 127.0.0.1 only, in its own process group, which is killed at the end.
Nothing asserts speed: a starved server does not answer at all within a generous client timeout.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import importlib.util
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.integration.dash_calls import callback_body
from tests.servers import children_of, free_port, stop_gunicorn, wait_until_serving

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "gunicorn.conf.py"
HOST = "127.0.0.1"
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
CLIENT_TIMEOUT = 10.0  # generous: a starved server does not answer within minutes
IDLE_SOCKETS = 200
HEALTHY = {"status": "ok", "figures": 7, "problems": []}

# Everything gunicorn.conf.py sets, as gunicorn should load it (no overriding environment).
EXPECTED = {
    "worker_class": "evalmaps.service.gunicorn_worker.HeadBufferingThreadWorker",
    "workers": 2,
    "threads": 8,
    "worker_connections": 1000,
    "bind": ["0.0.0.0:8050"],
    "timeout": 60,
    "graceful_timeout": 8,
    "keepalive": 5,
    "limit_request_line": 8190,
    "limit_request_fields": 50,
    "limit_request_field_size": 8190,
    "max_requests": 1000,
    "max_requests_jitter": 100,
    "preload_app": True,
    "control_socket_disable": True,
    "accesslog": "-",
}
OVERRIDES = ("GUNICORN_CMD_ARGS", "WEB_CONCURRENCY", "PORT")

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 only


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in OVERRIDES}
    env.update(extra)
    return env


# --------------------------------------------------------------------------- a real gunicorn

class Server:
    def __init__(self, port: int, proc: subprocess.Popen, out: Path, err: Path):
        self.port = port
        self.base = f"http://{HOST}:{port}"
        self.proc = proc
        self.out = out
        self.err = err

    def log(self) -> str:
        text = ""
        for path in (self.out, self.err):
            with contextlib.suppress(OSError):
                text += path.read_text(errors="replace")[-3000:]
        return text

    def fetch(self, path: str, timeout: float = CLIENT_TIMEOUT) -> tuple[int, dict, bytes]:
        try:
            with OPENER.open(self.base + path, timeout=timeout) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as err:
            with err:
                return err.code, dict(err.headers), err.read()

    def healthz(self, timeout: float = CLIENT_TIMEOUT) -> tuple[int, dict]:
        status, _, body = self.fetch("/healthz", timeout=timeout)
        return status, json.loads(body)


@contextlib.contextmanager
def gunicorn(*args: str):
    """``gunicorn app:server --bind 127.0.0.1:<free port> *args`` from the repository root."""
    port = free_port()
    out = Path(tempfile.mkstemp(prefix="evalmaps-gunicorn-", suffix=".out")[1])
    err = Path(tempfile.mkstemp(prefix="evalmaps-gunicorn-", suffix=".err")[1])
    cmd = [sys.executable, "-m", "gunicorn", "app:server", "--bind", f"{HOST}:{port}", *args]
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=clean_env(), stdout=stdout, stderr=stderr,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    server = Server(port, proc, out, err)
    workers: list[int] = []
    try:
        workers = wait_until_serving(proc, lambda: server.healthz(timeout=2) == (200, HEALTHY),
                                     server.log, START_TIMEOUT)
        yield server
    finally:
        leftovers = stop_gunicorn(proc, workers, STOP_TIMEOUT)
        out.unlink(missing_ok=True)
        err.unlink(missing_ok=True)
        assert not leftovers, f"gunicorn processes outlived the test: {leftovers}"


@pytest.fixture(scope="module")
def server():
    with gunicorn() as srv:
        yield srv


@contextlib.contextmanager
def open_sockets(port: int, count: int, first_bytes: bytes = b""):
    """``count`` connections to the server, each having sent ``first_bytes`` (maybe nothing)."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.create_connection((HOST, port), timeout=CLIENT_TIMEOUT)
            socks.append(sock)
            if first_bytes:
                sock.sendall(first_bytes)
        yield socks
    finally:
        for sock in socks:
            sock.close()


# --------------------------------------------------------------------------- the settings

def load_conf_module() -> dict:
    spec = importlib.util.spec_from_file_location("evalmaps_gunicorn_conf", CONF)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return vars(module)


def printed_config(**env: str) -> dict[str, str]:
    """``gunicorn --print-config`` from the repository root: name -> printed value."""
    result = subprocess.run([sys.executable, "-m", "gunicorn", "--print-config", "app:server"],
                            cwd=ROOT, env=clean_env(**env), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    settings = {}
    for line in result.stdout.splitlines():
        name, sep, value = line.partition(" = ")
        if sep:
            settings[name.strip()] = value.strip()
    return settings


def test_conf_module_sets_exactly_these(monkeypatch):
    for name in OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    values = load_conf_module()
    assert {name: values.get(name) for name in EXPECTED} == EXPECTED
    # and nothing else that looks like a setting, unchecked
    settings = {k for k, v in values.items() if not k.startswith("_")
                and not callable(v) and not isinstance(v, type(os))}
    assert settings == set(EXPECTED)


def test_gunicorn_loads_the_conf_file_from_the_repo_root():
    printed = printed_config()
    assert printed["config"] == "./gunicorn.conf.py"
    assert {name: printed.get(name) for name in EXPECTED} == \
        {name: str(value) for name, value in EXPECTED.items()}


@pytest.mark.parametrize("env, expected", [
    ({"WEB_CONCURRENCY": "3", "PORT": "9000"},
     {"workers": "3", "threads": "8", "bind": "['0.0.0.0:9000']", "timeout": "60"}),
    ({"GUNICORN_CMD_ARGS": "--workers 5 --threads 4 --bind 127.0.0.1:8060",
      "WEB_CONCURRENCY": "3", "PORT": "9000"},
     {"workers": "5", "threads": "4", "bind": "['127.0.0.1:8060']", "timeout": "60"}),
], ids=["WEB_CONCURRENCY+PORT", "GUNICORN_CMD_ARGS-wins"])
def test_workers_threads_and_bind_can_be_overridden(env, expected):
    printed = printed_config(**env)
    assert {name: printed.get(name) for name in expected} == expected


# --------------------------------------------------------------------------- the server

def test_server_runs_the_configured_worker_and_logs_access_to_stdout(server):
    assert server.proc.poll() is None
    assert len(children_of(server.proc.pid)) == 2
    assert server.healthz() == (200, HEALTHY)
    deadline = time.monotonic() + 5
    while '"GET /healthz HTTP/1.1" 200' not in server.out.read_text() \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert '"GET /healthz HTTP/1.1" 200' in server.out.read_text(), server.log()
    errors = server.err.read_text()
    assert "Using worker: evalmaps.service.gunicorn_worker.HeadBufferingThreadWorker" in errors
    assert '"GET /healthz' not in errors


def test_a_bad_data_file_is_reported_once_by_the_master_and_the_rest_served(tmp_path):
    """preload_app: the master loads the data once. A bad file no longer stops gunicorn (issue
    11): the master logs its problem once, before forking; every worker serves the good files
    and lists the problem on /healthz."""
    data = tmp_path / "mine"
    data.mkdir()
    (data / "broken_results.csv").write_bytes(b"model,type,value\nm,a,1\nm,b,2,3\n")
    (data / "good.csv").write_bytes(b"model,type,len,value\nm,a,1,5\nm,b,2,6\n")
    port = free_port()
    err = tmp_path / "err.log"
    with open(err, "wb") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "app:server", "--bind", f"{HOST}:{port}"],
            cwd=ROOT, env=clean_env(EVALMAPS_EXTRA_DATA=str(data)), stdout=subprocess.DEVNULL,
            stderr=errors, stdin=subprocess.DEVNULL, start_new_session=True)
    problem = ("Not served: broken_results.csv, row 3: this row has 4 fields but the header has "
               "3. Fix the row (a stray comma? a missing cell?) so every row has the header's "
               "columns.")
    workers: list[int] = []

    def health():
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
                f"http://{HOST}:{port}/healthz", timeout=2) as response:
            return json.loads(response.read())

    try:
        workers = wait_until_serving(proc, lambda: health()["status"] == "ok",
                                     lambda: err.read_text(errors="replace")[-4000:],
                                     START_TIMEOUT)
        assert health() == {"status": "ok", "figures": 8, "problems": [problem]}
    finally:
        assert stop_gunicorn(proc, workers, STOP_TIMEOUT) == []
    log = err.read_text(errors="replace")
    assert log.count(problem) == 1, log
    assert log.index(problem) < log.index("Booting worker"), log


IDLE_KINDS = {
    "silent": b"",  # connected, sending nothing
    "partial-request-line": b"GET /healthz HT",
    "partial-head": b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n",
}


@pytest.mark.parametrize("kind", list(IDLE_KINDS))
def test_healthz_answers_while_200_idle_connections_are_open(server, kind):
    with open_sockets(server.port, IDLE_SOCKETS, IDLE_KINDS[kind]):
        for _ in range(4):  # both workers, in all likelihood
            assert server.healthz() == (200, HEALTHY)
    assert server.proc.poll() is None


def test_sync_workers_do_starve(tmp_path):
    """The old setup (2 sync workers): the same probe gets no answer. The probe can fail."""
    with gunicorn("--worker-class", "sync", "--threads", "1", "--workers", "2") as old:
        assert "Using worker: sync" in old.err.read_text()
        with open_sockets(old.port, IDLE_SOCKETS):
            # each worker now waits on a silent socket until its 60 s timeout, 100 times over
            with pytest.raises((TimeoutError, urllib.error.URLError)):
                old.healthz(timeout=3)


def test_slowloris_connections_do_not_block_healthz_and_are_dropped(server):
    """More trickling connections than there are threads (2 x 8), one header byte a second."""
    count = 40
    header = b"X-Slow: " + b"a" * 60
    with open_sockets(server.port, count,
                      b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n") as socks:
        answers = {}  # socket index -> what the server sent before closing it
        started = time.monotonic()
        for second in range(30):  # bounded; the server drops them after its 10 s header timeout
            for i, sock in enumerate(socks):
                if i in answers:
                    continue
                readable, _, _ = select.select([sock], [], [], 0)
                try:
                    if readable:
                        answers[i] = sock.recv(4096)
                        continue
                    sock.send(header[second:second + 1])
                except OSError:
                    answers[i] = b""
            if second < 5:
                assert server.healthz() == (200, HEALTHY)
            if len(answers) == count:
                break
            time.sleep(max(0.0, started + second + 1 - time.monotonic()))
        assert server.healthz() == (200, HEALTHY)
    assert sorted(answers) == list(range(count)), "slowloris connections were never dropped"
    assert {answer.split(b"\r\n", 1)[0] for answer in answers.values()} == \
        {b"HTTP/1.1 408 Request Timeout"}


# --------------------------------------------------------------------------- requests in pieces

def read_response(sock: socket.socket) -> tuple[int, dict, bytes]:
    response = http.client.HTTPResponse(sock)
    response.begin()
    with response:
        return response.status, dict(response.getheaders()), response.read()


def big_upload_inputs() -> dict:
    rows = "".join(f"t{t},{n},{(t * 7 + n * 3) % 100}\n" for t in range(90) for n in range(90))
    data = ("type,len,value\n" + rows).encode()
    assert len(data) > 65536  # the body does not fit in one read of the request head
    return {"data-upload-raw.data": {
                "name": "big.csv",
                "contents": "data:text/csv;base64," + base64.b64encode(data).decode()},
            "data-format.value": "auto", "data-metric.value": "Accuracy",
            "data-unit.value": "%", "data-range.value": True}


def test_request_sent_in_pieces_then_kept_alive(server, client):
    """A callback POST whose head and body arrive in pieces gets the same answer as in-process;
    then a second request on the same connection, its head split too, is answered as well."""
    body = callback_body(client, "data-upload-status.children", big_upload_inputs()).encode()
    expected = client.post("/_dash-update-component", data=body, content_type="application/json")
    assert expected.status_code == 200
    head = (f"POST /_dash-update-component HTTP/1.1\r\nHost: {HOST}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    with socket.create_connection((HOST, server.port), timeout=CLIENT_TIMEOUT) as sock:
        for piece in (head[:20], head[20:] + body[:1000], body[1000:50000], body[50000:]):
            sock.sendall(piece)
            time.sleep(0.3)
        status, headers, answer = read_response(sock)
        assert status == 200 and headers["Connection"] == "keep-alive"
        assert json.loads(answer) == expected.get_json()
        second = f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
        sock.sendall(second[:10])
        time.sleep(0.3)
        sock.sendall(second[10:])
        status, _, answer = read_response(sock)
        assert (status, json.loads(answer)) == (200, HEALTHY)


def test_oversized_head_is_refused(server):
    field = b"X-Big: " + b"b" * 4000 + b"\r\n"
    with socket.create_connection((HOST, server.port), timeout=CLIENT_TIMEOUT) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + field * 16)  # < 64 kB
        time.sleep(0.3)
        sock.sendall(field)  # now past the 64 kB the worker buffers, with nothing left unread
        first_line = sock.recv(4096).split(b"\r\n", 1)[0]
    assert first_line == b"HTTP/1.1 431 Request Header Fields Too Large"
    assert server.healthz() == (200, HEALTHY)


def test_bare_lf_head_is_refused_at_once(server):
    with socket.create_connection((HOST, server.port), timeout=CLIENT_TIMEOUT) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n")
        first_line = sock.recv(4096).split(b"\r\n", 1)[0]
    assert first_line == b"HTTP/1.1 400 Bad Request"
    assert server.healthz() == (200, HEALTHY)
