"""A real S3-protocol server for the tests: moto's server mode, over HTTP on loopback, on a free
port, in a thread of the test process. evalmaps talks to it as to any S3-compatible store, by
the standard variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION).

The fixtures are a plugin of tests/conftest.py: ``s3_bucket`` (a new, empty bucket per test,
with the variables set to reach it) and ``s3_endpoint`` (the server's URL). moto is imported
only when a test asks for them.
"""

from __future__ import annotations

import secrets

import pytest

from evalmaps.service import objects

VARIABLES = {"AWS_ACCESS_KEY_ID": "evalmaps-test", "AWS_SECRET_ACCESS_KEY": "evalmaps-test",
             "AWS_REGION": "eu-west-1"}


@pytest.fixture(scope="session")
def s3_endpoint():
    """The URL of a moto server started for this test session (stopped at its end)."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    assert port, "moto's server did not say its port"
    yield f"http://{host}:{port}"
    server.stop()


def use_server(monkeypatch, endpoint: str) -> None:
    """Point this process's S3 file system at ``endpoint`` (the standard variables)."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
    for name, value in VARIABLES.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    objects.use_variables({"AWS_ENDPOINT_URL": endpoint})  # the file system made anew


@pytest.fixture()
def s3_bucket(s3_endpoint, monkeypatch):
    """A new bucket on the session's server, the variables set to reach it; its name."""
    use_server(monkeypatch, s3_endpoint)
    bucket = "evalmaps-" + secrets.token_hex(6)
    objects.filesystem().mkdir(bucket)
    yield bucket
    objects.use_variables({"AWS_ENDPOINT_URL": s3_endpoint})
