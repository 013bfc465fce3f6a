"""The upload store's conformance: the same tests on a folder of the local disk and on an
S3-protocol server (moto's, over HTTP on loopback: :mod:`tests.s3_server`). Each test opens the
store anew where another server would (a new :class:`Store`, nothing cached), so what one keeps
the other serves."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pandas.testing as pd_testing
import pytest

from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.core.errors import EvalmapsError
from evalmaps.core.figure import Catalog
from evalmaps.service import uploads
from evalmaps.service.store import S3Store, Store, StoreFull, is_stored_id, open_store

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LIMITS = uploads.Budget(max_bytes=20 * 2**20, seconds=30, memory_mb=1024)
PER_ITEM = (b"model,task,item,sample,score\n"
            b"A,t,1,0,1\nA,t,1,1,0\nA,t,2,0,1\nA,t,2,1,1\nB,t,1,0,0\nB,t,1,1,0\nB,t,2,0,1\n"
            b"B,t,2,1,0\n")


@pytest.fixture(params=["disk", "s3"])
def where(request, tmp_path):
    """Where the store is: a folder, or ``s3://<a new bucket>/team/store``."""
    if request.param == "disk":
        return str(tmp_path / "store")
    bucket = request.getfixturevalue("s3_bucket")
    return f"s3://{bucket}/team/store"


def opened(where: str, **bounds) -> Store:
    """The store at ``where`` as a server opens it at start-up (a new process: no cache)."""
    store = open_store(where, **bounds)
    store.ensure()
    return store


def imported(name="tidy_small.csv", data: bytes | None = None):
    (one,) = import_bytes((FIXTURES / name).read_bytes() if data is None else data, name)
    return uploads.upload_spec(one.spec), one.to_csv(for_spreadsheets=False), one


def test_the_store_kind_follows_the_location(where):
    store = open_store(where)
    assert isinstance(store, S3Store) == where.startswith("s3://")


def test_what_one_server_keeps_the_other_serves(where):
    spec, tidy, one = imported()
    fid = opened(where).put(spec, tidy, "tidy_small.csv")
    assert is_stored_id(fid)
    other = opened(where)
    assert fid in other
    stored, expected = other.figure(fid), figure_of(one)
    assert stored.id == fid and stored.spec.provenance == "uploaded"
    assert stored.spec.title == expected.spec.title and stored.spec.dims == expected.spec.dims
    assert stored.cells.to_dict("records") == expected.cells.to_dict("records")
    assert stored.decimals == expected.decimals
    assert other.title(fid) == expected.spec.title


def test_the_same_content_kept_twice_is_two_links_to_one_copy(where):
    spec, tidy, _ = imported()
    store = opened(where)
    first = store.put(spec, tidy, "a.csv")
    size = store.size()
    second = opened(where).put(spec, tidy, "b.csv")
    assert first != second and store.count() == 2
    assert store.size() - size < 200  # a link (one line), not a second copy of the cells
    assert opened(where).figure(first).cells.equals(opened(where).figure(second).cells)


def test_concurrent_writers_of_one_upload_agree(where):
    spec, tidy, _ = imported()
    ids, errors = [], []

    def keep():
        try:
            ids.append(opened(where).put(spec, tidy, "x.csv"))
        except Exception as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)

    threads = [threading.Thread(target=keep) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(set(ids)) == 4
    cells = [opened(where).figure(fid).cells for fid in ids]
    assert all(c.equals(cells[0]) for c in cells)


@pytest.mark.parametrize("fid", ["upload-" + "0" * 32, "upload-zz", "nope", None, 3])
def test_unknown_or_malformed_ids_name_nothing(where, fid):
    store = opened(where)
    assert store.figure(fid) is None and fid not in store and store.title(fid) is None


def test_bounds_refuse_with_a_message(where):
    spec, tidy, _ = imported()
    store = opened(where, max_figures=1)
    store.put(spec, tidy, "a.csv")
    with pytest.raises(StoreFull, match="full \\(1 figures\\)"):
        opened(where, max_figures=1).put(spec, tidy, "b.csv")
    with pytest.raises(StoreFull, match="MB"):
        opened(where, max_bytes=10).put(*imported("wide_small.csv")[:2], "c.csv")


def test_staged_files_round_trip(where):
    store = opened(where)
    key = store.stage(b"a,b\n1,2\n", "my  file.csv")
    assert opened(where).staged(key) == ("my file.csv", b"a,b\n1,2\n")
    with opened(where).staged_file(key) as path:
        assert Path(path).read_bytes() == b"my file.csv\na,b\n1,2\n"
    assert store.staged("0" * 64) is None and store.staged("../x") is None


def test_per_item_records_are_queried_where_they_are_kept(where):
    spec, tidy, one = imported("per-item.csv", PER_ITEM)
    fid = opened(where).put(spec, tidy, "per-item.csv", one.items)
    figure = opened(where).figure(fid)
    assert figure.items is not None
    # by hand: A's item 1 scores 1, 0 (mean 0.5) and item 2 scores 1, 1 (mean 1)
    cell = figure.items.cell({"model": "A", "task": "t", "metric": "score"})
    assert list(cell.items) == ["1", "2"] and list(cell.n) == [2, 2]
    assert np.allclose(cell.mean, [0.5, 1.0])
    assert figure.items.cell({"model": "B", "task": "t", "metric": "score"}).total.tolist() == [
        0.0, 1.0]
    values = figure.items.cell_values()
    assert sorted(values["value"].round(6)) == [0.25, 0.75]


def test_an_upload_kept_through_the_child_process_is_served_by_another_server(where):
    """Server A stages a file, imports it in its bounded child and keeps it; server B (its own
    store object) serves it in its catalog."""
    a, b = opened(where), opened(where)
    key = a.stage((FIXTURES / "wide_small.csv").read_bytes(), "wide_small.csv")
    from evalmaps.readers.base import ImportOptions

    [fid] = uploads.store_upload(a, key, ImportOptions(), LIMITS)
    catalog = uploads.catalog_with(Catalog([]), b, [fid])
    assert fid in catalog
    expected = figure_of(imported("wide_small.csv")[2])
    pd_testing.assert_frame_equal(catalog.figure(fid).cells, expected.cells)


def test_an_unreachable_or_wrong_store_says_what_to_set(where, monkeypatch):
    if not where.startswith("s3://"):
        blocker = Path(where).parent / "file"
        blocker.write_text("x")
        with pytest.raises(EvalmapsError, match="cannot be written"):
            Store(blocker / "store").ensure()
        return
    bucket = where.split("/")[2]
    with pytest.raises(EvalmapsError, match="bucket or prefix does not exist.*--no-store"):
        open_store(f"s3://{bucket}-missing/x").ensure()


WITH_TEXTS = (b"model,task,item,score,prompt,response\n"
              b"A,t,1,1,what is 2+2,4\nA,t,2,0,capital of france,berlin\n"
              b"B,t,1,0,what is 2+2,5\nB,t,2,1,capital of france,paris\n")


def test_per_item_matrices_and_texts_are_read_where_they_are_kept(where):
    """What Rank reads (a matrix of one sample per item, from Parquet's dictionaries) and what
    the items panel reads (the texts, searched), as a person wrote them in the file."""
    spec, tidy, one = imported("texts.csv", WITH_TEXTS)
    fid = opened(where).put(spec, tidy, "texts.csv", one.items)
    records = opened(where).figure(fid).items
    (matrix,) = records.matrices("model", ("task", "metric")).values()
    assert list(matrix.items) == ["1", "2"] and matrix.rows == {"A": 0, "B": 1}
    assert matrix.total.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert records.clusters == () and records.has_texts
    b = {"model": "B", "task": "t", "metric": "score"}
    assert records.items_with_text(b, "paris") == {"2"}
    assert records.items_with_text({**b, "model": "A"}, "paris") == set()
    assert records.texts(b, ["2"]) == [{"item": "2", "sample": 0, "prompt": "capital of france",
                                        "response": "paris"}]


def test_a_keep_that_fails_before_its_manifest_serves_nothing_half(where, monkeypatch):
    """A keep that dies after the cells were written and before the manifest (spec.json) and
    the link: no link names it, nothing is counted as a figure, and the next keep of the same
    file completes it."""
    spec, tidy, one = imported()
    store = opened(where)
    with monkeypatch.context() as patch:
        if isinstance(store, S3Store):
            fs, real = store.fs, store.fs.pipe_file

            def pipe_file(path, data, **kwargs):
                if path.endswith("/spec.json"):
                    raise OSError("the connection was cut")
                return real(path, data, **kwargs)

            patch.setattr(fs, "pipe_file", pipe_file)
        else:
            real = Path.write_bytes

            def write_bytes(self, data):
                if self.name == "spec.json":
                    raise OSError("the disk went away")
                return real(self, data)

            patch.setattr(Path, "write_bytes", write_bytes)
        with pytest.raises((OSError, EvalmapsError), match="cut|went away"):
            store.put(spec, tidy, "a.csv")
    assert opened(where).count() == 0
    fid = opened(where).put(spec, tidy, "a.csv")
    pd_testing.assert_frame_equal(opened(where).figure(fid).cells, figure_of(one).cells)
    assert opened(where).count() == 1
