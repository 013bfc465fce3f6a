"""Data folders on object storage (``--data s3://bucket/folder``): the same folder tests on a
folder of the local disk and on a prefix of an S3-protocol server (moto's, on loopback:
:mod:`tests.s3_server`). Two servers (two start-ups, each with its own cache: two hosts) serve
one folder; it gains a model, loses a file, and both follow."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from evalmaps.catalog.folders import load_folder
from evalmaps.service import objects
from evalmaps.service.settings import Settings, SettingsError
from evalmaps.service.startup import load_data

ROOT = Path(__file__).resolve().parents[2]
PYTHIA = ROOT.parent / "shared" / "external" / "pythia-evals" / "pythia-v1"


class Folder:
    """A data folder named ``runs``: on the disk, or under ``s3://<bucket>/lab/``."""

    def __init__(self, kind: str, tmp_path: Path, bucket: str | None) -> None:
        self.kind = kind
        if kind == "disk":
            self.path = tmp_path / "runs"
            self.path.mkdir()
            self.location = self.path
        else:
            self.base = f"{bucket}/lab/runs"
            self.location = f"s3://{self.base}"

    def put(self, rel: str, data: bytes) -> None:
        if self.kind == "disk":
            out = self.path / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_name("." + out.name + ".part")
            tmp.write_bytes(data)
            then = time.time() - 10
            os.utime(tmp, (then, then))
            os.replace(tmp, out)  # whole, as an upload to S3 is
        else:
            objects.filesystem().pipe_file(f"{self.base}/{rel}", data)

    def remove(self, rel: str) -> None:
        if self.kind == "disk":
            (self.path / rel).unlink()
        else:
            objects.filesystem().rm_file(f"{self.base}/{rel}")


@pytest.fixture(params=["disk", "s3"])
def folder(request, tmp_path):
    bucket = request.getfixturevalue("s3_bucket") if request.param == "s3" else None
    return Folder(request.param, tmp_path, bucket)


def server(folder: Folder, tmp_path: Path, name: str, watch: str = "poll"):
    """A start-up serving ``folder`` (its own cache folder: another host)."""
    return load_data(Settings(extra_data=(folder.location,), cache_dir=tmp_path / name,
                              store_dir=None, watch=watch))


def until(loaded, done, seconds: float = 20.0) -> None:
    """Scan as the watcher thread does (every 0.2 s here) until ``done(catalog)``."""
    stop = time.monotonic() + seconds
    while not done(loaded.live.snapshot.catalog):
        assert time.monotonic() < stop, "the change was not served in time"
        time.sleep(0.2)
        loaded.live.refresh()


def table(model: str, value: str) -> bytes:
    return f"model,task,value\n{model},t1,{value}\n{model},t2,0.25\n".encode()


def test_a_table_dropped_into_the_folder_is_served_by_both_servers(folder, tmp_path):
    folder.put("a.csv", table("m1", "0.5"))
    one, two = server(folder, tmp_path, "host-1"), server(folder, tmp_path, "host-2")
    for loaded in (one, two):
        assert loaded.catalog.ids[-1:] == ["import-a"] and loaded.problems == []
    folder.put("b.csv", table("m2", "0.75"))
    for loaded in (one, two):
        until(loaded, lambda catalog: "import-b" in catalog)
        assert loaded.live.snapshot.catalog.figure("import-b").value(model="m2", task="t1") \
            == 0.75
    folder.remove("a.csv")
    for loaded in (one, two):
        until(loaded, lambda catalog: "import-a" not in catalog)
        assert "import-a" in loaded.live.snapshot.gone


def pythia(n: int) -> list[Path]:
    if not PYTHIA.is_dir():
        pytest.skip("../shared/external/pythia-evals is absent")
    models = sorted(p for p in PYTHIA.iterdir() if p.is_dir())[:n]
    return [sorted(m.rglob("*.json"))[0] for m in models]


def test_a_folder_of_results_gains_a_model_and_both_servers_show_it(folder, tmp_path):
    first, second, third = pythia(3)
    for src in (first, second):
        folder.put(src.relative_to(PYTHIA).as_posix(), src.read_bytes())
    one, two = server(folder, tmp_path, "host-1"), server(folder, tmp_path, "host-2")
    size = third.relative_to(PYTHIA).parts[0].rsplit("-", 1)[-1]  # pythia-160m: 160m
    for loaded in (one, two):
        before = loaded.catalog.figure("import-runs").spec.dims["model"].labels
        assert len(before) == 2 and not any(m.endswith(size) for m in before)
    folder.put(third.relative_to(PYTHIA).as_posix(), third.read_bytes())
    # what a fresh start-up on a folder of the three files reads
    fresh = tmp_path / "fresh" / "runs"
    for src in (first, second, third):
        out = fresh / src.relative_to(PYTHIA)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(src.read_bytes())
    (expected,) = load_folder(fresh, None, [])
    for loaded in (one, two):
        until(loaded, lambda c: len(c.figure("import-runs").spec.dims["model"].labels) == 3)
        figure = loaded.live.snapshot.catalog.figure("import-runs")
        assert [m for m in figure.spec.dims["model"].labels if m not in before][0].endswith(size)
        columns = list(expected.cells.columns)
        got = figure.cells.sort_values(columns).reset_index(drop=True)
        assert got.equals(expected.cells.sort_values(columns).reset_index(drop=True))


def test_a_folder_read_once_serves_what_is_there(folder, tmp_path):
    folder.put("a.csv", table("m1", "0.5"))
    loaded = server(folder, tmp_path, "host", watch="off")
    assert loaded.live is None and loaded.problems == []
    assert loaded.catalog.figure("import-a").value(model="m1", task="t1") == 0.5


def test_a_prefix_that_cannot_be_listed_is_a_problem_naming_it(s3_bucket, tmp_path):
    url = f"s3://{s3_bucket}-missing/runs"
    for watch in ("poll", "off"):
        loaded = load_data(Settings(extra_data=(url,), cache_dir=tmp_path / watch,
                                    store_dir=None, watch=watch))
        assert len(loaded.problems) == 1, loaded.problems
        assert url in loaded.problems[0] and "does not exist" in loaded.problems[0]
        assert loaded.catalog.ids  # the built-in figures are served


def test_object_store_urls_in_the_settings():
    settings = Settings.from_env({"EVALMAPS_EXTRA_DATA": "/a:s3://lab-results/runs/:/b",
                                  "EVALMAPS_STORE": "s3://team-store/evalmaps"})
    assert settings.extra_data == (Path("/a"), "s3://lab-results/runs", Path("/b"))
    assert settings.store_dir == "s3://team-store/evalmaps"
    with pytest.raises(SettingsError, match="gs:// is not an object store.*s3://bucket/prefix"):
        Settings.from_env({"EVALMAPS_STORE": "gs://b/x"})
    with pytest.raises(SettingsError, match="'Bad_Bucket' is not a bucket name"):
        Settings.from_env({"EVALMAPS_EXTRA_DATA": "s3://Bad_Bucket/x"})
    with pytest.raises(SettingsError, match="EVALMAPS_CACHE=s3://b/c: the cache is a folder"):
        Settings.from_env({"EVALMAPS_CACHE": "s3://b/c"})


def test_the_python_api_and_commands_read_a_folder_on_s3(s3_bucket):
    """evalmaps.read's and the commands' --data (evalmaps compare, rank, bundle) take an
    s3:// folder as they take a folder; a folder that is neither is refused, naming both."""
    from evalmaps.readers.base import ImportOptions
    from evalmaps.service.api import SideError, catalog_of

    objects.filesystem().pipe_file(f"{s3_bucket}/lab/runs/a.csv", table("m1", "0.5"))
    catalog, problems = catalog_of([f"s3://{s3_bucket}/lab/runs"], ImportOptions())
    assert problems == [] and catalog.figure("import-a").value(model="m1", task="t1") == 0.5
    with pytest.raises(SideError, match="not a folder.*s3://bucket/folder"):
        catalog_of(["/no/such/folder"], ImportOptions())


def test_a_file_rewritten_at_once_with_the_same_size_is_served_anew(folder, tmp_path):
    """Rewritten at the same size, a file is served anew (on the disk: renamed into place, a new
    inode; on S3: see the next test)."""
    folder.put("a.csv", table("m1", "0.5"))
    loaded = server(folder, tmp_path, "host")
    assert loaded.catalog.figure("import-a").value(model="m1", task="t1") == 0.5
    folder.put("a.csv", table("m1", "0.7"))
    until(loaded, lambda c: c.figure("import-a").value(model="m1", task="t1") == 0.7)


def test_an_object_rewritten_within_its_second_is_copied_again(s3_bucket, tmp_path):
    """An object's time is in whole seconds: one rewritten within the same second at the same
    size is told apart by its ETag, and copied again."""
    from evalmaps.service.prefixes import PrefixMirror

    fs = objects.filesystem()
    key = f"{s3_bucket}/lab/runs/a.csv"
    mirror = PrefixMirror(f"s3://{s3_bucket}/lab/runs", tmp_path)
    for _ in range(10):  # until both writes fall in one second
        fs.pipe_file(key, table("m1", "0.5"))
        mirror.sync(force=True)
        fs.pipe_file(key, table("m1", "0.7"))
        copied = (mirror.local / "a.csv").stat().st_mtime_ns  # the first write's second
        if copied == int(fs.info(key)["LastModified"].timestamp()) * 10**9:
            break
    else:
        pytest.skip("no two writes fell within one second")
    assert mirror.sync(force=True)
    assert (mirror.local / "a.csv").read_bytes() == table("m1", "0.7")


def test_without_the_s3_extra_an_s3_location_says_how_to_install_it(monkeypatch, tmp_path):
    import sys

    from evalmaps.core.errors import EvalmapsError
    from evalmaps.service.store import open_store

    monkeypatch.setitem(sys.modules, "s3fs", None)  # import s3fs raises ImportError
    monkeypatch.setattr(objects, "_FS", {})
    with pytest.raises(EvalmapsError, match=r"pip install 'evalmaps\[s3\]'.*--no-store"):
        open_store("s3://team-store/x").ensure()
    loaded = load_data(Settings(extra_data=("s3://lab-results/runs",), cache_dir=tmp_path,
                                store_dir=None, watch="off"))
    assert len(loaded.problems) == 1 and "pip install 'evalmaps[s3]'" in loaded.problems[0]
