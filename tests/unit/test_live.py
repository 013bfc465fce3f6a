"""Watched data folders (evalmaps.service.live) without a server: a folder of results that fills
in file by file ends with the cells a fresh start-up reads; only changed files are read; files
caught half-written are not served and not reported until they have held; removed files take
their cells away. The real Pythia results (../shared/external/pythia-evals) where present."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from evalmaps.catalog.folders import load_folder
from evalmaps.core.errors import UnknownFigure
from evalmaps.core.figure import Catalog, short_slug
from evalmaps.service import live
from evalmaps.service.settings import Settings, SettingsError
from evalmaps.service.startup import assemble, load_data

ROOT = Path(__file__).resolve().parents[2]
PYTHIA = ROOT.parent / "shared" / "external" / "pythia-evals" / "pythia-v1"


def pythia_files(n: int | None = None) -> list[Path]:
    if not PYTHIA.is_dir():
        pytest.skip("../shared/external/pythia-evals is absent")
    files = sorted(PYTHIA.rglob("*.json"))
    return files if n is None else files[:: max(1, len(files) // n)][:n]


def aged(path: Path, seconds: float = 10.0) -> None:
    """As if the file had been written ``seconds`` ago (settled)."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def copy_in(src: Path, folder: Path, atomic: bool) -> Path:
    out = folder / src.relative_to(PYTHIA)
    out.parent.mkdir(parents=True, exist_ok=True)
    if atomic:
        tmp = out.with_name("." + out.name + ".part")
        shutil.copyfile(src, tmp)
        aged(tmp)
        os.replace(tmp, out)
    else:
        shutil.copyfile(src, out)
        aged(out)
    return out


def fid_of(folder: Path) -> str:
    return "import-" + short_slug(folder.name)


def sorted_cells(figure):
    cells = figure.cells
    return cells.sort_values(list(cells.columns)).reset_index(drop=True)


def watched(folder: Path, settle: float = 0.05):
    """A watcher of ``folder`` (its files read once two scans ``settle`` seconds apart agree)."""
    served = []
    reader = live.FolderReader(folder, None, settle=settle)
    watcher = live.Live([reader], lambda per, problems: (assemble(Catalog([]), per, problems),
                                                         problems), served.append)
    watcher.refresh(initial=True)
    return watcher, reader, served


def settled(watcher) -> bool:
    """Scan until no file waits (each read once two scans agree on it, a failing one until it is
    reported): whether anything new was published."""
    published = watcher.refresh()
    while any(reader.pending for reader in watcher.readers):
        time.sleep(0.05)
        published = watcher.refresh() or published
    return published


def test_a_sweep_fills_in_file_by_file_and_ends_as_a_fresh_start_up(tmp_path):
    files = pythia_files(12)
    watcher, reader, _ = watched(tmp_path)
    assert len(watcher.snapshot.catalog) == 0 and watcher.snapshot.problems == []
    fid, versions, counts = None, [], []
    for i, src in enumerate(files):
        before = reader.reads
        copy_in(src, tmp_path, atomic=i % 2 == 1)
        assert settled(watcher)
        assert reader.reads == before + 1  # one new file: one file read
        (figure,) = watcher.snapshot.catalog
        fid = fid or figure.id
        assert figure.id == fid == fid_of(tmp_path)  # the folder's, whatever the count
        versions.append(watcher.snapshot.versions[fid])
        counts.append(figure.n_cells)
    assert counts == sorted(counts) and counts[0] < counts[-1]
    assert len(set(versions)) == len(versions)
    assert not watcher.refresh()  # nothing changed: nothing read, nothing published
    (fresh,) = load_folder(tmp_path, None, [])
    (figure,) = watcher.snapshot.catalog
    assert figure.spec == fresh.spec
    assert sorted_cells(figure).equals(sorted_cells(fresh))
    assert watcher.snapshot.versions[fid] == live.figure_version(fresh)


def test_a_file_still_being_written_is_retried_then_reported_once_it_holds(tmp_path):
    first, second = pythia_files(2)
    watcher, _, _ = watched(tmp_path)
    copy_in(first, tmp_path, atomic=False)
    settled(watcher)
    cells = watcher.snapshot.catalog.figure(fid_of(tmp_path)).n_cells
    out = tmp_path / second.relative_to(PYTHIA)
    data = second.read_bytes()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data[: len(data) // 2])  # being written now: not read yet
    reader = watcher.readers[0]
    reads = reader.reads
    watcher.refresh()
    assert watcher.snapshot.problems == [] and watcher.snapshot.catalog.figure(
        fid_of(tmp_path)).n_cells == cells and reader.reads == reads
    time.sleep(0.1)  # held a little: read, fails, tried again later, not reported
    watcher.refresh()
    assert watcher.snapshot.problems == [] and reader.reads == reads + 1
    settled(watcher)  # held long enough and still fails: a problem naming the file
    (line,) = watcher.snapshot.problems
    assert str(out) in line and "not valid JSON" in line and reader.reads == reads + 2
    out.write_bytes(data)
    settled(watcher)
    assert watcher.snapshot.problems == []
    assert watcher.snapshot.catalog.figure(fid_of(tmp_path)).n_cells > cells


def test_removed_files_take_their_cells_and_a_figure_with_none_says_so(tmp_path):
    files = pythia_files(3)
    watcher, _, _ = watched(tmp_path)
    outs = [copy_in(src, tmp_path, atomic=False) for src in files]
    settled(watcher)
    fid = fid_of(tmp_path)
    full = watcher.snapshot.catalog.figure(fid).n_cells
    outs[0].unlink()
    assert watcher.refresh()
    (fresh,) = load_folder(tmp_path, None, [])
    assert sorted_cells(watcher.snapshot.catalog.figure(fid)).equals(sorted_cells(fresh))
    assert fresh.n_cells < full
    for out in outs[1:]:
        out.unlink()
    watcher.refresh()
    catalog = watcher.snapshot.catalog
    catalog.gone = watcher.snapshot.gone
    assert fid not in catalog and watcher.snapshot.gone == {fid: str(tmp_path)}
    with pytest.raises(UnknownFigure, match="has no data file now"):
        catalog.figure(fid)


def test_a_csv_dropped_in_becomes_a_figure_and_only_it_is_read(tmp_path):
    (tmp_path / "a.csv").write_text("model,task,value\nm1,t1,0.5\nm1,t2,0.25\n")
    watcher, reader, _ = watched(tmp_path)
    assert watcher.snapshot.catalog.ids == ["import-a"]
    before = reader.reads
    (tmp_path / "b.csv").write_text("model,task,value\nm2,t1,0.75\n")
    assert settled(watcher)
    assert watcher.snapshot.catalog.ids == ["import-a", "import-b"]
    assert reader.reads == before + 1
    assert watcher.snapshot.catalog.figure("import-b").value(model="m2", task="t1") == 0.75


def test_start_up_with_watching_serves_what_start_up_without_it_does(tmp_path):
    for src in pythia_files(4):
        copy_in(src, tmp_path, atomic=False)
    (tmp_path / "x").mkdir()
    on = load_data(Settings(extra_data=(tmp_path,), cache_dir=None, store_dir=None))
    off = load_data(Settings(extra_data=(tmp_path,), cache_dir=None, store_dir=None,
                             watch="off"))
    assert on.live is not None and off.live is None
    assert on.catalog.ids == off.catalog.ids and on.problems == off.problems
    for a, b in zip(on.catalog, off.catalog):
        assert a.spec == b.spec and sorted_cells(a).equals(sorted_cells(b))


def test_the_watch_setting():
    assert Settings.from_env({}).watch == "auto"
    assert Settings.from_env({"EVALMAPS_WATCH": "POLL"}).watch == "poll"
    assert Settings.from_env({"EVALMAPS_WATCH": "off"}).watch == "off"
    with pytest.raises(SettingsError, match="EVALMAPS_WATCH=yes is not valid: give auto, poll "
                                            "or off."):
        Settings.from_env({"EVALMAPS_WATCH": "yes"})


def test_a_watched_folder_does_not_follow_a_link_out_of_it(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.csv").write_text("model,task,value\nm9,t1,0.125\n")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "a.csv").write_text("model,task,value\nm1,t1,0.5\n")
    watcher, _, _ = watched(mine)
    assert watcher.snapshot.catalog.ids == ["import-a"]
    (mine / "leak.csv").symlink_to(outside / "secret.csv")
    settled(watcher)
    assert watcher.snapshot.catalog.ids == ["import-a"]
    (line,) = watcher.snapshot.problems
    assert line.startswith(f"Not served: {mine / 'leak.csv'}: it is a link that leads outside")


def test_a_file_that_cannot_be_read_is_a_problem_and_the_folder_keeps_updating(tmp_path,
                                                                               monkeypatch):
    (tmp_path / "a.csv").write_text("model,task,value\nm1,t1,0.5\n")
    watcher, _, _ = watched(tmp_path)
    locked = tmp_path / "locked.csv"
    locked.write_text("model,task,value\nm3,t1,0.5\n")
    real = Path.open

    def open_(self, *args, **kwargs):  # as if chmod 000 (the tests run as root)
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", open_)
    settled(watcher)
    assert watcher.snapshot.problems == [
        f"Not served: {locked}: cannot read the file (Permission denied). Check its permissions, "
        f"or remove it."]
    (tmp_path / "b.csv").write_text("model,task,value\nm2,t1,0.75\n")  # the folder still updates
    assert settled(watcher)
    assert watcher.snapshot.catalog.ids == ["import-a", "import-b"]
    os.mkfifo(tmp_path / "pipe.csv")
    settled(watcher)
    assert f"Not served: {tmp_path / 'pipe.csv'}: it is not a regular file (a named pipe, " \
           f"socket or device), so it is not read. Write the results to a regular file." \
           in watcher.snapshot.problems
    assert watcher.snapshot.catalog.ids == ["import-a", "import-b"]


def test_the_source_names_the_folder_never_the_servers_path_and_follows_updates(tmp_path):
    """Issue 37, a new user 10: the provenance card showed the server's absolute path, and
    kept a file's name after more files came in."""
    folder = tmp_path / "sweep"
    folder.mkdir()
    files = pythia_files(3)
    watcher, _, _ = watched(folder)
    copy_in(files[0], folder, atomic=True)
    settled(watcher)
    (figure,) = watcher.snapshot.catalog
    assert figure.spec.source["file"] == files[0].name
    for src in files[1:]:
        copy_in(src, folder, atomic=True)
        settled(watcher)
    (figure,) = watcher.snapshot.catalog
    assert figure.spec.source["file"] == "sweep/"
    assert str(tmp_path) not in repr(figure.spec.source) and str(tmp_path) not in figure.spec.title
    (fresh,) = load_folder(folder, None, [])
    assert fresh.spec.source == figure.spec.source


def test_a_csv_written_a_row_at_a_time_is_served_only_whole(tmp_path):
    """A writer appends rows with pauses longer than a scan (the red team's writer: a row a
    second), one value in two parts ("6", then ".5"); the watcher scans ten times a second. What
    is served goes from nothing straight to the whole file: never some of its rows, never 6."""
    rows = [f"m{i},t1,0.{i}5\n" for i in range(1, 5)]
    out = tmp_path / "runs.csv"
    (tmp_path / "a.csv").write_text("model,task,value\nm1,t1,0.5\n")
    watcher, _, _ = watched(tmp_path, settle=live.SETTLE)

    def write():
        with open(out, "w") as f:
            for part in ["model,task,value\n", *rows, "m9,t1,6", ".5\n"]:
                f.write(part)
                f.flush()
                time.sleep(0.8)

    writer = threading.Thread(target=write)
    writer.start()
    served = []

    def look():
        watcher.refresh()
        catalog = watcher.snapshot.catalog
        if "import-runs" in catalog:
            served.append(catalog.figure("import-runs").cells)

    while writer.is_alive():
        look()
        time.sleep(0.1)
    deadline = time.monotonic() + live.SETTLE + 2
    while not served and time.monotonic() < deadline:
        look()
        time.sleep(0.1)
    assert served, "the whole file was never served"
    assert {len(cells) for cells in served} == {5}, [len(cells) for cells in served]
    assert all(6.0 not in cells["value"].tolist() for cells in served)
    assert served[-1]["value"].tolist()[-1] == 6.5


def test_a_table_that_ends_in_the_middle_of_a_row_waits(tmp_path):
    """A CSV whose last byte is not a line end is a row being written: not read when two scans
    agree on it, only once it has held far longer (live.UNENDED)."""
    watcher, reader, _ = watched(tmp_path, settle=live.SETTLE)
    out = tmp_path / "runs.csv"
    out.write_text("model,task,value\nm1,t1,0.5\nm1,t2,6")
    watcher.refresh()
    time.sleep(live.SETTLE + 0.2)
    assert not watcher.refresh() and "import-runs" not in watcher.snapshot.catalog
    assert reader.pending == {out}
    with open(out, "a") as f:
        f.write(".5\n")
    watcher.refresh()
    time.sleep(live.SETTLE + 0.2)
    assert watcher.refresh()
    assert watcher.snapshot.catalog.figure("import-runs").value(model="m1", task="t2") == 6.5


def test_a_replaced_or_deleted_file_leaves_nothing_of_it_kept(tmp_path):
    """Issue 37 (red team 10): a growing watched file took a worker to 2 GB, kept after the file
    was deleted. Each version of a file read is let go once the next is read, and the last once
    the file is deleted, while another file of the folder fails at every scan (its error, raised
    again at each scan, kept every scan's frames and in them every figure read)."""
    import gc
    import weakref

    (tmp_path / "a.csv").write_text("model,task,value\nm1,t1,0.5\n")
    (tmp_path / "bad.csv").write_text("model\n")  # one column: fails at every scan
    reader = live.FolderReader(tmp_path, None, settle=0.05)
    watcher = live.Live([reader], lambda per, problems: (assemble(Catalog([]), per, problems),
                                                         problems), lambda snapshot: None)
    watcher.refresh(initial=True)
    assert len(watcher.snapshot.problems) == 1
    grow = tmp_path / "grow.csv"
    versions = []
    for rows in (1000, 2000, 3000):  # the file grows, read again each time
        grow.write_text("model,task,value\n" + "".join(f"m{i},t1,0.5\n" for i in range(rows)))
        settled(watcher)
        figure = reader.kept[grow].result
        assert figure.n_cells == rows
        versions.append((weakref.ref(figure), weakref.ref(figure.cells)))
        del figure
        for i in range(3):  # other changes: scans that raise bad.csv's error again
            (tmp_path / "a.csv").write_text("model,task,value\nm1,t1,0.5\n" + "\n" * (i + 1))
            settled(watcher)
    gc.collect()
    assert [ref() is None for pair in versions for ref in pair] == [True] * 4 + [False] * 2
    grow.unlink()
    assert settled(watcher)
    gc.collect()
    assert all(ref() is None for pair in versions for ref in pair)
    assert grow not in reader.kept and grow not in reader._since and grow not in reader.pending
    assert "import-grow" not in watcher.snapshot.catalog


def test_a_watched_per_item_tables_temporary_records_go_with_it(tmp_path):
    """Without a cache, a per-item table's records are kept in a temporary folder: one for each
    version read. A version replaced, and the file deleted, leave none behind."""
    import gc

    table = tmp_path / "items.csv"
    table.write_text("model,task,item,score\nA,t,1,1\nA,t,2,0\nB,t,1,1\nB,t,2,1\n")
    reader = live.FolderReader(tmp_path, None, settle=0.05)
    watcher = live.Live([reader], lambda per, problems: (assemble(Catalog([]), per, problems),
                                                         problems), lambda snapshot: None)
    watcher.refresh(initial=True)
    first = watcher.snapshot.catalog.figure("import-items").items.folder
    assert (first / "scores.parquet").is_file()
    table.write_text("model,task,item,score\nA,t,1,0\nA,t,2,0\nB,t,1,1\nB,t,2,1\n")
    assert settled(watcher)
    second = watcher.snapshot.catalog.figure("import-items").items.folder
    gc.collect()
    assert second != first and not first.exists() and (second / "scores.parquet").is_file()
    assert watcher.snapshot.catalog.figure("import-items").value(model="A", task="t",
                                                                 metric="score") == 0.0
    table.unlink()
    assert settled(watcher)
    gc.collect()
    assert not second.exists()


def test_a_row_being_written_at_start_up_waits_too(tmp_path):
    """A CSV that ends in the middle of a row ("6" of "6.5") as the server starts is not read
    at start-up (its first page would serve 6); the watcher reads it once it ends and holds."""
    out = tmp_path / "runs.csv"
    out.write_text("model,task,value\nm1,t1,0.5\nm1,t2,6")
    aged(out)
    watcher, reader, _ = watched(tmp_path)
    assert "import-runs" not in watcher.snapshot.catalog and reader.pending == {out}
    with open(out, "a") as f:
        f.write(".5\n")
    aged(out)
    deadline = time.monotonic() + live.SETTLE + 5
    while "import-runs" not in watcher.snapshot.catalog and time.monotonic() < deadline:
        watcher.refresh()
        time.sleep(0.1)
    assert watcher.snapshot.catalog.figure("import-runs").value(model="m1", task="t2") == 6.5


def test_a_file_growing_whole_rows_at_start_up_is_served_only_whole(tmp_path):
    """The server starts while a writer appends a whole row every 0.8 s (each write ends in a
    line end, so the file never looks unended): start-up does not read it at once, but waits
    for it like every changing file; what is served is the whole file, never its first rows."""
    out = tmp_path / "runs.csv"
    out.write_text("model,task,value\nm0,t1,0.05\n")
    rows = [f"m{i},t1,0.{i}5\n" for i in range(1, 4)]

    def write():
        for row in rows:
            time.sleep(0.8)
            with open(out, "a") as f:
                f.write(row)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        watcher, reader, _ = watched(tmp_path, settle=1.5)
        assert "import-runs" not in watcher.snapshot.catalog and reader.pending == {out}
        served = []
        while writer.is_alive():
            watcher.refresh()
            if "import-runs" in watcher.snapshot.catalog:
                served.append(len(watcher.snapshot.catalog.figure("import-runs").cells))
            time.sleep(0.1)
    finally:
        writer.join()
    deadline = time.monotonic() + 5
    while "import-runs" not in watcher.snapshot.catalog and time.monotonic() < deadline:
        watcher.refresh()
        time.sleep(0.1)
    assert served == []  # never a prefix
    assert len(watcher.snapshot.catalog.figure("import-runs").cells) == 4


def test_a_file_written_long_before_start_up_is_read_at_once(tmp_path):
    """Start-up waits only for files that changed in the last ``settle`` seconds: a folder
    written earlier is served by the first page, with no wait."""
    out = tmp_path / "runs.csv"
    out.write_text("model,task,value\nm0,t1,0.05\n")
    aged(out)
    started = time.monotonic()
    watcher, reader, _ = watched(tmp_path, settle=5.0)
    assert time.monotonic() - started < 2.5
    assert reader.pending == set() and "import-runs" in watcher.snapshot.catalog
