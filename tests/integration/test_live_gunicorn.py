"""A sweep written while a real gunicorn (two workers) serves its folder (evalmaps.service.live):
a writer process copies Pythia results files (../shared/external/pythia-evals) into an empty
folder, some by plain writes in two parts and some by atomic renames; the API follows, never
answers 5xx, never serves a file half-read, and ends with what a fresh start-up on the full
folder serves. Then a removed file takes its cells away and a file cut short is a problem that
names it, in both workers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from evalmaps.catalog.folders import load_folder
from evalmaps.core.figure import short_slug
from evalmaps.service import live
from tests.servers import free_port, stop_gunicorn, wait_until_serving

pytestmark = [pytest.mark.server, pytest.mark.external]

ROOT = Path(__file__).resolve().parents[2]
PYTHIA = ROOT.parent / "shared" / "external" / "pythia-evals" / "pythia-v1"
HOST = "127.0.0.1"
N_FILES = 16
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

WRITER = r"""
import os, shutil, sys, time
from pathlib import Path
src, dst, gap = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
for i, name in enumerate(sys.argv[4:]):
    out = dst / name
    out.parent.mkdir(parents=True, exist_ok=True)
    data = (src / name).read_bytes()
    if i % 2:  # atomic: written aside, renamed into place
        tmp = out.with_name("." + out.name + ".part")
        tmp.write_bytes(data)
        os.replace(tmp, out)
    else:  # plain, in two parts: half a file is on disk for a while
        with open(out, "wb") as f:
            f.write(data[: len(data) // 2]); f.flush()
            time.sleep(gap)
            f.write(data[len(data) // 2:])
    time.sleep(gap)
"""


def fetch(base: str, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(base + path, headers=headers or {})
    try:
        with OPENER.open(request, timeout=15) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, dict(err.headers), err.read()


@pytest.fixture()
def served(tmp_path):
    if not PYTHIA.is_dir():
        pytest.skip("../shared/external/pythia-evals is absent")
    folder = tmp_path / "sweep"
    folder.mkdir()
    port = free_port()
    log_file = tempfile.NamedTemporaryFile(prefix="evalmaps-live-", suffix=".log", delete=False)
    env = {**os.environ, "EVALMAPS_EXTRA_DATA": str(folder), "EVALMAPS_CACHE": "off",
           "EVALMAPS_STORE": "off", "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "gunicorn", "app:server", "--bind", f"{HOST}:{port}",
           "--workers", "2", "--graceful-timeout", "5"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log_file, stderr=subprocess.STDOUT, env=env,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    log_file.close()
    base = f"http://{HOST}:{port}"

    def log() -> str:
        return Path(log_file.name).read_text(errors="replace")[-4000:]

    workers: list[int] = []
    try:
        workers = wait_until_serving(proc, lambda: fetch(base, "/healthz")[0] == 200, log, 30)
        yield base, folder, log
    finally:
        leftovers = stop_gunicorn(proc, workers, 10)
        Path(log_file.name).unlink(missing_ok=True)
        assert not leftovers


def until(check, timeout: float = 10.0, what: str = ""):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {timeout:g} s: {what}"
        time.sleep(0.2)


def fresh_version(folder: Path) -> tuple[str, int]:
    (figure,) = load_folder(folder, None, [])
    return live.figure_version(figure), figure.n_cells


def test_a_sweep_written_while_served(served):
    base, folder, log = served
    fid = "import-" + short_slug(folder.name)
    status, _, body = fetch(base, "/healthz")
    assert status == 200 and json.loads(body)["problems"] == []  # an empty folder: no problem
    status, _, body = fetch(base, f"/api/figures/{fid}")
    assert status == 404
    names = [p.relative_to(PYTHIA).as_posix() for p in sorted(PYTHIA.rglob("*.json"))]
    names = names[:: len(names) // N_FILES][:N_FILES]
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(PYTHIA), str(folder), "0.3",
                               *names])
    seen_cells, statuses, etag = set(), [], None
    try:
        while writer.poll() is None:
            headers = {"If-None-Match": etag} if etag else {}
            status, head, body = fetch(base, f"/api/figures/{fid}", headers)
            statuses.append(status)
            if status == 200:
                seen_cells.add(json.loads(body)["n_cells"])
                etag = head["ETag"]
            elif status == 304:
                assert body == b""
            time.sleep(0.1)
    finally:
        writer.wait(timeout=60)
    assert writer.returncode == 0
    assert all(s in (200, 304, 404) for s in statuses), (statuses, log())
    final_version, final_cells = fresh_version(folder)

    def every_worker_has(version: str) -> bool:
        answers = [fetch(base, f"/api/figures/{fid}") for _ in range(8)]
        return all(s == 200 and json.loads(b)["version"] == version for s, _, b in answers)

    until(lambda: every_worker_has(final_version), 10, "the last file served")
    # what was served on the way: only whole files, so each count is that of a prefix of them
    prefixes = set()
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            out = Path(scratch) / "sweep" / name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes((PYTHIA / name).read_bytes())
            prefixes.add(load_folder(Path(scratch) / "sweep", None, [])[0].n_cells)
    assert len(seen_cells) >= 3 and seen_cells <= prefixes, (seen_cells, prefixes)
    cells = json.loads(fetch(base, f"/api/figures/{fid}/cells")[2])["cells"]
    assert sum(c["value"] is not None for c in cells) == final_cells

    # unchanged: a 304 with no body, well under 1 KB on the wire
    status, head, body = fetch(base, f"/api/figures/{fid}", {"If-None-Match": f'"{final_version}"'})
    assert status == 304 and body == b""
    assert len("".join(f"{k}: {v}\r\n" for k, v in head.items())) < 1024

    # a removed file takes its cells away
    (folder / names[0]).unlink()
    removed_version, removed_cells = fresh_version(folder)
    assert removed_cells < final_cells
    until(lambda: every_worker_has(removed_version), 10, "the removed file's cells gone")

    # a file cut short and left so: a problem naming it, in every worker, once it has held
    cut = folder / names[1]
    data = cut.read_bytes()
    cut.write_bytes(data[: len(data) // 3])

    def reported() -> bool:
        answers = [json.loads(fetch(base, "/healthz")[2])["problems"] for _ in range(8)]
        return all(any(str(cut) in line for line in lines) for lines in answers)

    until(reported, 10, "the cut file reported")
    status, _, body = fetch(base, f"/api/figures/{fid}")
    assert status == 200


def test_trends_compare_and_rank_wait_for_a_watched_folders_first_file(served):
    """Issue 37 (a new user, 5), beyond Browse: Trends, Compare and Rank opened on a watched figure
    with no file yet say that they wait for it (and draw no other figure); once its first file
    is read, the same URLs draw it."""
    base, folder, _ = served
    fid = "import-" + short_slug(folder.name)
    pages = {"trends": f"/trends?figure={fid}",
             "compare": f"/compare?a={fid}:arc-easy-acc&b={fid}:arc-challenge-acc",
             "rank": f"/rank?figure={fid}"}

    def first_layout(path: str) -> str:
        status, _, body = fetch(base, "/_dash-layout", {"Referer": base + path})
        assert status == 200
        return body.decode()

    for page, path in pages.items():
        body = first_layout(path)
        assert f'"{page}-waiting"' in body, page
        assert f"Waiting for {fid}: no file yet in {folder.name}/." in body
        assert str(folder.parent) not in body
    name = "pythia-70m/zero-shot/70m_step0.json"
    (folder / name).parent.mkdir(parents=True)
    tmp = folder / (name + ".part")
    tmp.write_bytes((PYTHIA / name).read_bytes())
    os.replace(tmp, folder / name)
    until(lambda: all(fetch(base, f"/api/figures/{fid}")[0] == 200 for _ in range(8)), 20,
          "the first file read by both workers")
    for page, path in pages.items():
        body = first_layout(path)
        assert f'"{page}-waiting"' not in body and fid in body, page


def start_gunicorn(env_extra: dict[str, str], log_path: Path):
    port = free_port()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("EVALMAPS_")},
           "PYTHONPATH": str(ROOT), **env_extra}
    with open(log_path, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "app:server", "--bind",
                                 f"{HOST}:{port}", "--workers", "2", "--graceful-timeout", "5"],
                                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    base = f"http://{HOST}:{port}"
    workers = wait_until_serving(proc, lambda: fetch(base, "/healthz")[0] == 200,
                                 lambda: log_path.read_text(errors="replace")[-4000:], 60)
    return proc, base, workers


def test_two_workers_read_a_new_file_once_and_a_restart_reads_none(tmp_path):
    """Issue 41, part 3: a folder of per-item tables served by two workers: a new model's file
    is read by exactly one process (the store's put log has one line for it), both workers
    serve it, with one version; a restart on the same folder and cache parses nothing."""
    from tests.unit.test_live_store import model_file

    folder, cache = tmp_path / "outputs", tmp_path / "cache"
    folder.mkdir()
    for k, model in enumerate(("ant", "bee")):
        model_file(folder, model, k)
    env = {"EVALMAPS_EXTRA_DATA": str(folder), "EVALMAPS_CACHE": str(cache),
           "EVALMAPS_STORE": "off",
           "EVALMAPS_DATA_OPTIONS": "--item question_id --correct pred=answer --set model={file}"}
    log_path = tmp_path / "gunicorn.log"
    puts = cache / "live" / "puts.log"

    def answers() -> list[dict]:
        out = []
        for _ in range(12):  # a new connection each: both workers answer among them
            status, _, body = fetch(base, "/api/figures/import-outputs")
            assert status == 200, body
            out.append(json.loads(body))
        return out

    proc, base, workers = start_gunicorn(env, log_path)
    try:
        assert len(puts.read_text().splitlines()) == 2  # start-up: each file read once
        assert {a["n_cells"] for a in answers()} == {6}  # 2 models x 3 categories
        for worker in workers:  # each worker's first request starts its watcher
            os.kill(worker, 0)
        model_file(folder, "cat", 2)
        until(lambda: all(a["n_cells"] == 9 for a in answers()), 20, "the new model served")
        time.sleep(3)  # more than a scan: no other process reads it later
        lines = puts.read_text().splitlines()
        assert len(lines) == 3, lines
        pid, _, file = lines[-1].split(" ", 2)
        assert file == str(folder / "cat.json") and int(pid) in workers, (lines, workers)
        versions = {a["version"] for a in answers()}
        assert len(versions) == 1, versions
    finally:
        assert not stop_gunicorn(proc, workers, 10)
    logged = puts.read_text()
    proc, base, workers = start_gunicorn(env, log_path)
    try:
        assert {a["version"] for a in answers()} == versions
        assert puts.read_text() == logged  # nothing parsed again
    finally:
        assert not stop_gunicorn(proc, workers, 10)
