"""A team's set-up, for real: two `gunicorn app:server` processes (two servers behind one load
balancer) share one upload store and one data folder on an S3-protocol server (moto's, on
loopback: tests/s3_server.py), configured only by EVALMAPS_STORE, EVALMAPS_EXTRA_DATA and the
standard AWS_* variables. One keeps an upload through the Data page's callbacks and the other
serves it; the folder gains a table and both serve it."""

from __future__ import annotations

import json
import time

import pytest
import requests

from evalmaps.service import objects
from tests.integration.test_upload_callback import FIXTURES, keep, preview_staged, stage
from tests.servers import start_app_gunicorn, stop_gunicorn, wait_until_serving

pytestmark = pytest.mark.server


class Response:
    def __init__(self, response: requests.Response) -> None:
        self.status_code = response.status_code
        self.data = response.content

    def get_json(self):
        return json.loads(self.data)


class Client:
    """The few calls of Flask's test client that the callback helpers make, over HTTP."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.session = requests.Session()

    def get(self, path: str) -> Response:
        return Response(self.session.get(self.base + path, timeout=30))

    def post(self, path: str, data: str, content_type: str, headers: dict) -> Response:
        return Response(self.session.post(self.base + path, data=data, timeout=60,
                                          headers={"Content-Type": content_type, **headers}))


def test_two_servers_share_a_store_and_a_folder_on_s3(s3_bucket, tmp_path):
    fs = objects.filesystem()
    fs.pipe_file(f"{s3_bucket}/lab/runs/a.csv", b"model,task,value\nm1,t1,0.5\nm1,t2,0.25\n")
    servers = []
    try:
        for host in ("one", "two"):
            log = tmp_path / f"{host}.log"
            proc, base = start_app_gunicorn({
                "EVALMAPS_STORE": f"s3://{s3_bucket}/team/store",
                "EVALMAPS_EXTRA_DATA": f"s3://{s3_bucket}/lab/runs",
                "EVALMAPS_CACHE": str(tmp_path / host), "EVALMAPS_WATCH": "poll"}, log)
            servers.append((proc, base, log, []))
        for proc, base, log, workers in servers:
            workers += wait_until_serving(
                proc, lambda b=base: requests.get(b + "/healthz", timeout=5).ok,
                lambda lg=log: lg.read_text()[-3000:], 90, 1)
        one, two = (Client(base) for _, base, _, _ in servers)
        for client in (one, two):
            summary = client.get("/api/figures/import-a").get_json()
            assert summary["id"] == "import-a"

        # server one keeps an upload; server two serves it
        key = stage(one, "wide_small.csv", (FIXTURES / "wide_small.csv").read_bytes())[
            "data-staged.data"]
        pending = preview_staged(one, key)["data-pending.data"]
        fid = keep(one, pending)["uploads.data"][-1]
        assert fs.isfile(f"{s3_bucket}/team/store/links/{fid}")
        answers = [c.get(f"/api/figures/{fid}/cells") for c in (one, two)]
        assert [a.status_code for a in answers] == [200, 200]
        assert answers[0].get_json() == answers[1].get_json()
        assert any(cell["model"] == "tiny-a" for cell in answers[1].get_json()["cells"])

        # the folder gains a table: both servers serve it
        fs.pipe_file(f"{s3_bucket}/lab/runs/b.csv", b"model,task,value\nm2,t1,0.75\n")
        put = time.monotonic()
        for client in (one, two):
            while client.get("/api/figures/import-b").status_code != 200:
                assert time.monotonic() - put < 30, "the new table was not served"
                time.sleep(0.2)
            cells = client.get("/api/figures/import-b/cells").get_json()["cells"]
            assert [(c["model"], c["task"], c["value"]) for c in cells] == [("m2", "t1", 0.75)]
    finally:
        for proc, _, _, workers in servers:
            assert stop_gunicorn(proc, workers, 20) == []
