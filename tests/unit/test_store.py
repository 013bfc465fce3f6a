"""The upload store, the bounded import of uploads, and the catalog of stored figures."""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from pathlib import Path

import pandas.testing as pd_testing
import pytest

from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.core.errors import EvalmapsError
from evalmaps.core.figure import Catalog
from evalmaps.readers.base import ImportOptions
from evalmaps.service import budget, uploads
from evalmaps.service.store import STORED_ID_IN, Store, StoreFull, is_stored_id

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ROOT = Path(__file__).resolve().parents[2]
LIMITS = uploads.Budget(max_bytes=20 * 2**20, seconds=30, memory_mb=1024)


def imported_entry(name="tidy_small.csv"):
    imported = import_bytes((FIXTURES / name).read_bytes(), name)[0]
    return uploads.upload_spec(imported.spec), imported.to_csv(for_spreadsheets=False), imported


def test_put_then_read_gives_the_imported_figure(tmp_path):
    store = Store(tmp_path)
    store.ensure()
    spec, tidy, imported = imported_entry()
    fid = store.put(spec, tidy, "tidy_small.csv")
    assert is_stored_id(fid)
    stored = Store(tmp_path).figure(fid)  # another process: nothing cached
    expected = figure_of(imported)
    assert stored.spec.title == expected.spec.title and stored.spec.dims == expected.spec.dims
    assert stored.spec.provenance == "uploaded"
    assert stored.cells.to_dict("records") == expected.cells.to_dict("records")
    assert stored.decimals == expected.decimals
    assert Store(tmp_path).title(fid) == expected.spec.title
    assert sorted(p.name for p in store.folder(fid).iterdir()) == ["cells.csv", "spec.json"]


def test_a_link_is_a_random_capability_unrelated_to_the_file(tmp_path):
    """Issue 37 (red team 5): the link was upload-<file name>-<16 hex of the content's SHA-256>,
    so anyone holding the same file could compute it, and it told the file's name. A link is
    128 random bits; the same file kept twice gets two links, and is stored once."""
    store = Store(tmp_path)
    store.ensure()
    spec, tidy, _ = imported_entry()
    fid = store.put(spec, tidy, "tidy_small.csv")
    assert re.fullmatch(r"upload-[0-9a-f]{32}", fid)  # 32 hex digits: 128 bits
    assert "tidy" not in fid and "small" not in fid
    content = hashlib.sha256(tidy.encode()).hexdigest()
    assert not any(content[i:i + 8] in fid for i in range(0, 57))
    before = store.folder(fid) / "cells.csv"
    mtime = before.stat().st_mtime_ns
    time.sleep(0.01)
    again = store.put(spec, tidy, "tidy_small.csv")
    elsewhere = Store(tmp_path / "other")
    elsewhere.ensure()
    assert len({fid, again, elsewhere.put(spec, tidy, "tidy_small.csv")}) == 3
    assert store.folder(again) == store.folder(fid)  # one copy of the content...
    assert before.stat().st_mtime_ns == mtime  # ...never written again
    assert sorted(p.name for p in (tmp_path / "content").iterdir()) == [store.folder(fid).name]
    assert store.count() == 2
    assert Store(tmp_path).figure(again).cells.equals(Store(tmp_path).figure(fid).cells)
    assert Store(tmp_path).figure(again).id == again
    other = store.put(dict(spec, title="Another title"), tidy, "tidy_small.csv")
    assert store.folder(other) != store.folder(fid) and store.count() == 3
    # a link that was never given names nothing, whatever its shape
    assert store.figure("upload-" + "0" * 32) is None and "upload-" + "0" * 32 not in store


def test_an_upload_kept_under_an_id_of_the_older_form_is_still_served(tmp_path):
    """Links shared before links were random (upload-<name>-<16 hex>) keep working; a new
    upload is never kept under one."""
    store = Store(tmp_path)
    store.ensure()
    spec, tidy, imported = imported_entry()
    old = "upload-tidy-small-0123456789abcdef"  # as the store wrote it then
    (tmp_path / "figures" / old).mkdir()
    (tmp_path / "figures" / old / "cells.csv").write_text(tidy)
    (tmp_path / "figures" / old / "spec.json").write_text(json.dumps(dict(spec, id=old)))
    assert is_stored_id(old) and old in store and store.count() == 1
    figure = Store(tmp_path).figure(old)
    assert figure.id == old
    assert figure.cells.to_dict("records") == figure_of(imported).cells.to_dict("records")
    assert Store(tmp_path).title(old) == figure.spec.title
    assert STORED_ID_IN.findall(f"?figure={old}") == [old]
    # its entry must name it: another id's folder is not served under this one
    (tmp_path / "figures" / old / "spec.json").write_text(
        json.dumps(dict(spec, id="upload-x-0123456789abcdef")))
    assert Store(tmp_path).figure(old) is None


def test_concurrent_writers_of_one_upload_agree(tmp_path):
    spec, tidy, _ = imported_entry()
    Store(tmp_path).ensure()
    ids, errors = [], []

    def write():
        try:
            ids.append(Store(tmp_path).put(spec, tidy, "tidy_small.csv"))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(set(ids)) == 8 and Store(tmp_path).count() == 8
    assert len(list((tmp_path / "content").iterdir())) == 1  # one copy of the content
    assert not [p for folder in ("content", "links") for p in (tmp_path / folder).iterdir()
                if p.name.startswith(".tmp-")]
    assert all(Store(tmp_path).figure(fid) is not None for fid in ids)


def test_bounds_refuse_with_a_message(tmp_path):
    spec, tidy, _ = imported_entry()
    store = Store(tmp_path, max_figures=1)
    store.ensure()
    store.put(spec, tidy, "a.csv")
    with pytest.raises(StoreFull) as err:
        store.put(spec, tidy, "b.csv")
    assert str(err.value) == ("the upload store is full (1 figures). Ask the server's admin to "
                              "raise EVALMAPS_STORE_MAX_FIGURES or to make room.")
    small = Store(tmp_path / "small", max_bytes=100)
    small.ensure()
    with pytest.raises(StoreFull, match=r"full \(9.53674e-05 MB\).*EVALMAPS_STORE_MAX_MB"):
        small.put(spec, tidy, "a.csv")


@pytest.mark.parametrize("fid", ["../etc", "upload-x-0123", "upload-../../x-0123456789abcdef",
                                 "UPLOAD-X-0123456789ABCDEF", 5, None, ["upload-a-0123456789abcdef"],
                                 "upload-" + "0" * 31, "upload-" + "0" * 33, "upload-" + "A" * 32,
                                 "upload-" + "0" * 32, "upload-../" + "0" * 29])
def test_malformed_or_unknown_ids_name_nothing(tmp_path, fid):
    store = Store(tmp_path)
    store.ensure()
    assert store.figure(fid) is None and (fid in store) is False and store.title(fid) is None


def test_a_damaged_entry_is_not_served(tmp_path):
    store = Store(tmp_path)
    store.ensure()
    spec, tidy, _ = imported_entry()
    fid = store.put(spec, tidy, "t.csv")
    (store.folder(fid) / "cells.csv").write_text("type,length\nx,1\n")
    assert Store(tmp_path).figure(fid) is None
    (store.folder(fid) / "spec.json").write_text("{not json")
    assert Store(tmp_path).figure(fid) is None


def test_staging_round_trip_and_expiry(tmp_path):
    store = Store(tmp_path)
    store.ensure()
    key = store.stage(b"a,b\n1,2\n", "my\nfile.csv")
    assert store.staged(key) == ("my file.csv", b"a,b\n1,2\n")
    assert store.staged("../" + key) is None and store.staged(7) is None
    old = time.time() - 2 * 24 * 3600
    os.utime(store.staging_dir / key, (old, old))
    store.stage(b"other", "o.csv")  # a later upload sweeps what expired
    assert store.staged(key) is None


def test_ids_are_found_in_query_values_and_panel_references():
    for fid in ("upload-runs-0123456789abcdef", "upload-0123456789abcdef0123456789abcdef"):
        text = f"?a={fid}:all&b=core:x&figure={fid}"
        assert STORED_ID_IN.findall(text) == [fid, fid]
        assert STORED_ID_IN.findall(fid + "0") == []


def test_catalog_with_adds_only_named_stored_figures(tmp_path):
    store = Store(tmp_path)
    store.ensure()
    spec, tidy, _ = imported_entry()
    fid = store.put(spec, tidy, "t.csv")
    base = Catalog([])
    assert uploads.catalog_with(base, store, [fid, "junk", 5, {"spec": []}]).ids == [fid]
    assert uploads.catalog_with(base, store, None) is base
    assert uploads.catalog_with(base, None, [fid]) is base


# ------------------------------------------------------------------------ bounded uploads

def staged(tmp_path, data: bytes, name: str) -> tuple[Store, str]:
    store = Store(tmp_path)
    store.ensure()
    return store, store.stage(data, name)


def test_preview_and_store_through_the_child_process(tmp_path):
    data = (FIXTURES / "wide_small.csv").read_bytes()
    store, key = staged(tmp_path, data, "wide_small.csv")
    seen = uploads.preview(store, key, ImportOptions(), LIMITS)
    imported = import_bytes(data, "wide_small.csv")[0]
    assert seen == {"name": "wide_small.csv", "summary": imported.summary(),
                    "columns": list(imported.columns), "dims": list(imported.spec["dims"]),
                    "x": "len", "y": "type", "replicate": "seed", "tool": "",  # a table
                    "figures": [{"title": "wide_small.csv", "summary": imported.summary()}],
                    "metric": {"name": "Accuracy", "unit": "%", "range": [0.0, 100.0]}}
    [fid] = uploads.store_upload(store, key, ImportOptions(), LIMITS)
    assert store.figure(fid).value(model="tiny-a", ft_type="lora", type="1", len="1") == 90.0


def test_an_import_error_comes_back_as_its_message(tmp_path):
    store, key = staged(tmp_path, b"type,len,value\na,1,5\nb,2,abc\n", "bad.csv")
    with pytest.raises(EvalmapsError) as err:
        uploads.preview(store, key, ImportOptions(), LIMITS)
    expected = None
    try:
        figure_of(import_bytes(b"type,len,value\na,1,5\nb,2,abc\n", "bad.csv")[0])
    except EvalmapsError as exc:
        expected = str(exc)
    assert str(err.value) == expected


def test_too_many_columns_are_refused_before_parsing(tmp_path, monkeypatch):
    data = (",".join(f"c{i}" for i in range(100_000)) + "\n" + ",".join(["1"] * 100_000)).encode()
    store, key = staged(tmp_path, data, "wide.csv")
    monkeypatch.setattr(budget, "run", lambda *a, **k: pytest.fail("parsed"))
    with pytest.raises(EvalmapsError) as err:
        uploads.preview(store, key, ImportOptions(), LIMITS)
    assert str(err.value) == ("wide.csv: its header has more than 5,000 columns. A results table "
                              "has one column per dimension and a value (or one per cell of a "
                              "wide table); split the file or make it tidy.")


def _sleep(seconds):
    time.sleep(seconds)
    return "slept"


def _grow(mb):
    blob = bytearray(mb * 2**20)
    for i in range(0, len(blob), 4096):
        blob[i] = 1
    time.sleep(5)
    return len(blob)


def test_budget_stops_slow_and_hungry_work():
    start = time.monotonic()
    with pytest.raises(budget.OverBudget, match=r"took longer than the 0.5 s"):
        budget.run(_sleep, 10, seconds=0.5, memory_mb=500)
    assert time.monotonic() - start < 5
    with pytest.raises(budget.OverBudget, match=r"more than the 50 MB of memory"):
        budget.run(_grow, 400, seconds=20, memory_mb=50)
    assert budget.run(_sleep, 0, seconds=20, memory_mb=500) == "slept"


def test_the_store_files_are_plain_json_and_csv(tmp_path):
    store = Store(tmp_path)
    store.ensure()
    spec, tidy, _ = imported_entry()
    fid = store.put(spec, tidy, "t.csv")
    entry = json.loads((store.folder(fid) / "spec.json").read_text())
    assert entry == {k: v for k, v in spec.items() if k != "id"}  # the link is not content
    assert (store.folder(fid) / "cells.csv").read_text() == tidy


@pytest.mark.parametrize("change", [{"colorscale": 5}, {"zrange": ["a", "b"]}, {"dims": []},
                                    {"metric": None}, {"x": ["len"]}])
def test_a_tampered_catalog_entry_is_not_served(tmp_path, change):
    """Issue 11: a stored entry with `colorscale: 5` or `zrange: ["a", "b"]` broke Browse."""
    store = Store(tmp_path)
    store.ensure()
    spec, tidy, _ = imported_entry()
    fid = store.put(spec, tidy, "t.csv")
    path = store.folder(fid) / "spec.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    assert Store(tmp_path).figure(fid) is None


def test_the_per_process_cache_of_stored_figures_is_bounded(tmp_path, monkeypatch):
    """Issue 11: no cache grows from what clients send (it kept 64 uploads per worker)."""
    from evalmaps.service import store as store_module

    store = Store(tmp_path)
    store.ensure()
    spec, tidy, imported = imported_entry()
    ids = [store.put(dict(spec, title=f"run {i}"), tidy, f"run{i}.csv") for i in range(20)]
    for fid in ids:
        assert store.figure(fid) is not None
    assert list(store._cache) == ids[-store_module.CACHED_FIGURES:]
    cells = imported.n_cells
    monkeypatch.setattr(store_module, "CACHED_CELLS", 3 * cells)
    store.figure(ids[0])
    assert len(store._cache) == 3 and list(store._cache)[-1] == ids[0]


def _spike(mb):
    blob = bytearray(mb * 2**20)
    for i in range(0, len(blob), 4096):
        blob[i] = 1
    del blob
    return "done"


def test_a_short_spike_over_the_memory_budget_is_refused_too():
    """Work that grows past the budget and finishes between two polls is still refused: the
    child reports its peak."""
    with pytest.raises(budget.OverBudget, match=r"more than the 50 MB of memory"):
        budget.run(_spike, 300, seconds=20, memory_mb=50)
    assert budget.run(_spike, 10, seconds=20, memory_mb=200) == "done"


def zipped(folder: Path) -> bytes:
    """A folder as the browser uploads it: a zip, its files under the folder's name."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                z.write(path, path.relative_to(folder.parent).as_posix())
    return buffer.getvalue()


def test_an_upload_of_several_tables_keeps_one_figure_per_table(tmp_path):
    folder = ROOT.parent / "shared" / "external" / "meta-learning-logic"
    if not folder.exists():
        pytest.skip(f"{folder} is absent: tests of real tool output skipped")
    from evalmaps.catalog.imports import import_paths

    store, key = staged(tmp_path, zipped(folder), "meta-learning-logic.zip")
    seen = uploads.preview(store, key, ImportOptions(), LIMITS)
    expected = import_paths([folder], by_tool=True)
    assert [f["title"] for f in seen["figures"]] == [i.spec["title"] for i in expected] \
        == ["results_core.csv", "results_short-to-long.csv"]
    fids = uploads.store_upload(store, key, ImportOptions(), LIMITS)
    assert len(fids) == 2 and len(set(fids)) == 2
    for fid, imported in zip(fids, expected):
        stored, want = Store(tmp_path).figure(fid), figure_of(imported)
        assert stored.spec.title == want.spec.title
        pd_testing.assert_frame_equal(stored.cells.reset_index(drop=True),
                                      want.cells.reset_index(drop=True))


def test_an_upload_of_more_figures_than_a_browser_lists_is_refused(tmp_path):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for i in range(uploads.MAX_FIGURES + 1):
            z.writestr(f"tables/t{i}.csv", "type,len,value\na,1,5\nb,2,6\n")
    store, key = staged(tmp_path, buffer.getvalue(), "tables.zip")
    with pytest.raises(EvalmapsError) as err:
        uploads.store_upload(store, key, ImportOptions(), LIMITS)
    assert str(err.value) == (f"tables.zip holds {uploads.MAX_FIGURES + 1} figures; an upload "
                              f"keeps at most {uploads.MAX_FIGURES}. Upload fewer files at a "
                              f"time, or serve the folder with evalmaps serve --data.")
    assert store.count() == 0


def _keep_then_die(root: str) -> None:
    """A worker killed (SIGKILL) in the middle of keeping an upload: its cells are written into
    its temporary folder, and it dies before the entry is whole."""
    import signal

    spec, tidy, _ = imported_entry()
    real = Path.write_bytes

    def write_bytes(self, data):
        if self.name == "spec.json":
            os.kill(os.getpid(), signal.SIGKILL)
        return real(self, data)

    Path.write_bytes = write_bytes
    Store(root).put(spec, tidy, "tidy_small.csv")


def test_a_keep_killed_midway_leaves_nothing_counted_after_a_start(tmp_path):
    import multiprocessing

    store = Store(tmp_path)
    store.ensure()
    child = multiprocessing.get_context("fork").Process(target=_keep_then_die,
                                                        args=(str(tmp_path),))
    child.start()
    child.join(60)
    assert child.exitcode == -9
    (left,) = [p for p in store.content_dir.iterdir()]
    assert left.name.startswith(".tmp-") and (left / "cells.csv").is_file()
    assert store.size() > 0
    # another worker keeping an upload right now: its temporary folder is fresh
    busy = store.staging_dir / ".tmp-busy"
    busy.write_bytes(b"being written")
    Store(tmp_path).ensure()  # a start while both are recent: nothing is pulled from a writer
    assert left.exists() and busy.exists()
    then = time.time() - 2 * 3600
    for path in (left, left / "cells.csv"):
        os.utime(path, (then, then))
    restarted = Store(tmp_path)
    restarted.ensure()  # the next start: the abandoned folder goes, the fresh file stays
    assert not left.exists() and busy.exists()
    assert restarted.size() == len(b"being written")
    spec, tidy, _ = imported_entry()
    fid = restarted.put(spec, tidy, "tidy_small.csv")  # and the upload can be kept again
    assert restarted.figure(fid) is not None
