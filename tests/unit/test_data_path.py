"""Parquet files, the cache of validated cells, and files at the size of real results.

Every file is written in a temporary folder by the test. Figures are compared whole: cells (dtypes
and exact floats), display decimals, labels and every panel's grids.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalmaps.catalog import cache, columnar, imports
from evalmaps.catalog import load as loading
from evalmaps.catalog import shaping as table
from evalmaps.catalog.folders import load_folder
from evalmaps.catalog.load import MAX_DECIMALS, load_catalog, load_figure, parse_spec
from evalmaps.core.errors import DataError
from evalmaps.core.problems import Problems
from evalmaps.readers import csvfile, fastcsv
from evalmaps.readers.base import DEFAULT_MAX_BYTES, ImportFailed

ENTRY = {
    "id": "tiny", "file": "tiny.csv", "title": "Tiny",
    "metric": {"name": "Accuracy", "unit": "%", "range": [0, 100]},
    "x": "len", "y": "kind", "facets": ["model"],
    "dims": {"model": {"labels": ["A", "B"]}, "kind": {"labels": ["p", "q"]},
             "len": {"labels": ["1", "2", "3"]}},
    "provenance": "transcribed",
}
CSV = "model,kind,len,value,sd\nA,p,1,10.5,1\nA,p,2,20,\nA,q,1,30.25,0.5\nB,p,3,40,2\nB,q,2,,\n"


def write_catalog(folder: Path, *entries: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.json").write_text(json.dumps({"figures": list(entries)}), encoding="utf-8")
    return folder


def entry(**changes) -> dict:
    e = copy.deepcopy(ENTRY)
    e.update(changes)
    return e


def assert_same_figure(a, b) -> None:
    pd.testing.assert_frame_equal(a.cells, b.cells, check_exact=True)
    assert a.decimals == b.decimals
    assert a.spec.dims == b.spec.dims
    assert list(a.panels) == list(b.panels)
    for key in a.panels:
        pa_, pb = a.panels[key], b.panels[key]
        assert pa_.facets == pb.facets
        for grid in ("z", "sd", "n", "se"):
            ga, gb = getattr(pa_, grid), getattr(pb, grid)
            assert (ga is None) == (gb is None)
            if ga is not None:
                assert np.array_equal(ga, gb, equal_nan=True)


def tidy_frame() -> pd.DataFrame:
    """CSV's table with numbers as numbers (missing: null), as a Parquet writer would hold it."""
    frame = pd.read_csv(pd.io.common.StringIO(CSV), dtype={"model": str, "kind": str, "len": str})
    return frame


# ------------------------------------------------------------------------------------ Parquet

def test_parquet_catalog_file_loads_the_same_cells_as_the_csv(tmp_path):
    (tmp_path / "tiny.csv").write_text(CSV, encoding="utf-8")
    pq.write_table(pa.Table.from_pandas(tidy_frame(), preserve_index=False), tmp_path / "t.parquet")
    catalog = load_catalog(write_catalog(tmp_path, entry(), entry(id="pq", file="t.parquet")))
    csv_fig, pq_fig = catalog.figure("tiny"), catalog.figure("pq")
    assert csv_fig.n_cells == 4 and csv_fig.decimals == 2
    assert csv_fig.value(model="A", kind="q", len="1") == 30.25
    assert_same_figure(csv_fig, pq_fig)


def test_parquet_with_text_columns_loads_as_the_csv(tmp_path):
    (tmp_path / "tiny.csv").write_text(CSV, encoding="utf-8")
    text = pd.read_csv(pd.io.common.StringIO(CSV), dtype=str, keep_default_na=False)
    pq.write_table(pa.Table.from_pandas(text, preserve_index=False), tmp_path / "t.parquet")
    catalog = load_catalog(write_catalog(tmp_path, entry(), entry(id="pq", file="t.parquet")))
    assert_same_figure(catalog.figure("tiny"), catalog.figure("pq"))


@pytest.mark.parametrize("values, decimals", [
    ([0.1 + 0.2, 1.5], MAX_DECIMALS),   # 0.30000000000000004: capped
    ([100.0, 2.0], 0),                  # whole numbers: no decimals
    ([87.3, 56.25], 2),
    ([1e-7, 5.0], MAX_DECIMALS),        # 0.0000001: seven, capped
])
def test_parquet_numeric_values_are_exact_and_decimals_inferred(tmp_path, values, decimals):
    table = pa.table({"model": ["A", "A"], "kind": ["p", "p"], "len": [1, 2],
                      "value": pa.array(values, type=pa.float64())})
    pq.write_table(table, tmp_path / "t.parquet")
    fig = load_catalog(write_catalog(tmp_path, entry(file="t.parquet"))).figure("tiny")
    assert fig.decimals == decimals
    assert fig.value(model="A", kind="p", len="1") == values[0]  # exactly the stored double
    assert fig.value(model="A", kind="p", len="2") == values[1]
    # the catalog's decimals win
    pinned = load_catalog(write_catalog(tmp_path, entry(file="t.parquet", decimals=1)))
    assert pinned.figure("tiny").decimals == 1


def test_parquet_random_doubles_round_trip_exactly(tmp_path):
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.uniform(0, 100, 2000), rng.uniform(0, 1e-3, 500),
                             np.round(rng.uniform(0, 100, 500), 2)])
    n = len(values)
    table = pa.table({"y": [str(i) for i in range(n)], "x": ["a"] * n, "value": values})
    pq.write_table(table, tmp_path / "r.parquet")
    spec = parse_spec({"id": "r", "file": "r.parquet", "metric": {"name": "v"}, "x": "x",
                       "y": "y", "dims": {"y": {"labels": [str(i) for i in range(n)]},
                                          "x": {"labels": ["a"]}},
                       "provenance": "published"}, where="test")
    fig = load_figure(spec, tmp_path / "r.parquet")
    assert np.array_equal(fig.panels["all"].z[:, 0], values)


def test_parquet_nulls_are_missing_cells_and_whole_number_dims_are_labels(tmp_path):
    table = pa.table({"model": pa.array(["A", "B", "B"]).dictionary_encode(),
                      "kind": ["p", "q", "p"], "len": pa.array([1, 2, 3], type=pa.int32()),
                      "value": pa.array([5.5, None, 7.0])})
    pq.write_table(table, tmp_path / "t.parquet")
    fig = load_catalog(write_catalog(tmp_path, entry(file="t.parquet"))).figure("tiny")
    assert fig.n_cells == 2
    assert fig.value(model="A", kind="p", len="1") == 5.5
    assert fig.value(model="B", kind="q", len="2") is None
    assert fig.value(model="B", kind="p", len="3") == 7.0


def test_parquet_problems_are_data_errors_naming_the_file(tmp_path):
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(DataError, match=r"bad\.parquet: the file cannot be read as Parquet"):
        load_catalog(write_catalog(tmp_path, entry(file="bad.parquet")))
    table = pa.table({"model": ["A"], "kind": ["p"], "len": ["1"], "value": [True]})
    pq.write_table(table, tmp_path / "bool.parquet")
    with pytest.raises(DataError) as info:
        load_catalog(write_catalog(tmp_path, entry(file="bool.parquet")))
    assert info.value.column == "value" and "bool" in str(info.value) and "text or numbers" in str(
        info.value)
    table = pa.table({"model": ["A"], "kind": ["p"], "len": ["1"], "value": [float("nan")]})
    pq.write_table(table, tmp_path / "nan.parquet")
    with pytest.raises(DataError, match="'nan' is not a finite number"):
        load_catalog(write_catalog(tmp_path, entry(file="nan.parquet")))


def test_parquet_in_a_folder_imports_like_its_csv(tmp_path):
    with_csv, with_pq = tmp_path / "csv", tmp_path / "pq"
    with_csv.mkdir()
    with_pq.mkdir()
    (with_csv / "runs.csv").write_text(CSV, encoding="utf-8")
    pq.write_table(pa.Table.from_pandas(tidy_frame(), preserve_index=False),
                   with_pq / "runs.parquet")
    (a,), (b,) = load_folder(with_csv), load_folder(with_pq)
    assert a.id == b.id == "import-runs"
    assert a.spec.provenance == b.spec.provenance == "imported"
    assert (a.spec.x, a.spec.y, a.spec.facets) == (b.spec.x, b.spec.y, b.spec.facets)
    assert_same_figure(a, b)
    assert b.value(model="A", kind="q", len="1") == 30.25


def test_a_folder_imports_its_csv_and_parquet_files(tmp_path):
    (tmp_path / "a.csv").write_text(CSV, encoding="utf-8")
    pq.write_table(pa.Table.from_pandas(tidy_frame(), preserve_index=False), tmp_path / "b.parquet")
    assert [f.id for f in load_folder(tmp_path)] == ["import-a", "import-b"]


# -------------------------------------------------------------------------------------- cache

def block_parsing(monkeypatch) -> None:
    """Make every way of reading or validating a file fail."""
    def refuse(*args, **kwargs):
        raise AssertionError("parsed again")

    monkeypatch.setattr(fastcsv, "read_fields", refuse)
    monkeypatch.setattr(loading.pd, "read_csv", refuse)
    monkeypatch.setattr(loading, "validate_columns", refuse)
    monkeypatch.setattr(csvfile, "_read_table_csv", refuse)
    monkeypatch.setattr(table, "import_table", refuse)
    monkeypatch.setattr(imports, "import_table", refuse)


def test_second_catalog_load_does_not_parse(tmp_path, monkeypatch):
    data = write_catalog(tmp_path / "data", entry())
    (data / "tiny.csv").write_text(CSV, encoding="utf-8")
    first = load_catalog(data, cache_dir=tmp_path / "cache").figure("tiny")
    block_parsing(monkeypatch)
    with pytest.raises(AssertionError, match="parsed again"):  # the block does block
        load_catalog(data)
    again = load_catalog(data, cache_dir=tmp_path / "cache").figure("tiny")
    assert_same_figure(first, again)


def test_second_folder_load_does_not_parse(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "runs.csv").write_text(CSV, encoding="utf-8")
    pq.write_table(pa.Table.from_pandas(tidy_frame(), preserve_index=False),
                   tmp_path / "data" / "more.parquet")
    first = load_folder(tmp_path / "data", cache_dir=tmp_path / "cache")
    block_parsing(monkeypatch)
    def refuse(*args, **kwargs):
        raise AssertionError("parsed again")

    monkeypatch.setattr(pq, "read_table", refuse)
    with pytest.raises(AssertionError, match="parsed again"):
        load_folder(tmp_path / "data")
    again = load_folder(tmp_path / "data", cache_dir=tmp_path / "cache")
    assert [f.id for f in again] == [f.id for f in first]
    for a, b in zip(first, again):
        assert a.spec == b.spec
        assert_same_figure(a, b)


def test_a_changed_file_or_catalog_entry_is_validated_again(tmp_path):
    data = write_catalog(tmp_path / "data", entry())
    (data / "tiny.csv").write_text(CSV, encoding="utf-8")
    store = tmp_path / "cache"
    assert load_catalog(data, cache_dir=store).figure("tiny").value(model="A", kind="p",
                                                                    len="1") == 10.5
    (data / "tiny.csv").write_text(CSV.replace("10.5", "11.5"), encoding="utf-8")
    assert load_catalog(data, cache_dir=store).figure("tiny").value(model="A", kind="p",
                                                                    len="1") == 11.5
    # the same file under a narrower range: validated again, and refused
    write_catalog(data, entry(metric={"name": "Accuracy", "range": [0, 30]}))
    with pytest.raises(DataError, match="30.25 is outside the range"):
        load_catalog(data, cache_dir=store)
    # pinned decimals: a new key too
    write_catalog(data, entry(decimals=3))
    assert load_catalog(data, cache_dir=store).figure("tiny").decimals == 3


def test_a_changed_folder_file_is_imported_again(tmp_path):
    (tmp_path / "data").mkdir()
    path = tmp_path / "data" / "runs.csv"
    path.write_text(CSV, encoding="utf-8")
    store = tmp_path / "cache"
    (fig,) = load_folder(tmp_path / "data", cache_dir=store)
    assert fig.spec.dims["model"].labels == ("A", "B")
    path.write_text(CSV + "C,q,3,50,\n", encoding="utf-8")
    (fig,) = load_folder(tmp_path / "data", cache_dir=store)
    assert fig.spec.dims["model"].labels == ("A", "B", "C")
    assert fig.value(model="C", kind="q", len="3") == 50.0


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "other-version"])
def test_a_damaged_cache_entry_is_ignored_and_rebuilt(tmp_path, damage):
    data = write_catalog(tmp_path / "data", entry())
    (data / "tiny.csv").write_text(CSV, encoding="utf-8")
    store = tmp_path / "cache"
    first = load_catalog(data, cache_dir=store).figure("tiny")
    (path,) = store.glob("*.cells")
    blob = path.read_bytes()
    damaged = {"truncate": blob[: len(blob) // 2],
               "flip": blob[:-40] + bytes([blob[-40] ^ 0xFF]) + blob[-39:],
               "garbage": b"\x00" * 100,
               "empty": b"",
               "other-version": blob.replace(cache.MAGIC, b"evalmaps-cells/0\n", 1)}[damage]
    path.write_bytes(damaged)
    assert cache.load(store, path.stem) is None
    again = load_catalog(data, cache_dir=store).figure("tiny")
    assert_same_figure(first, again)
    assert path.read_bytes() == blob  # rebuilt
    assert cache.load(store, path.stem) is not None


def test_an_unusable_cache_folder_is_no_error(tmp_path):
    data = write_catalog(tmp_path / "data", entry())
    (data / "tiny.csv").write_text(CSV, encoding="utf-8")
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    fig = load_catalog(data, cache_dir=not_a_folder).figure("tiny")
    assert_same_figure(fig, load_catalog(data).figure("tiny"))


def test_cache_writes_leave_only_complete_entries(tmp_path):
    data = write_catalog(tmp_path / "data", entry(), entry(id="two"))
    (data / "tiny.csv").write_text(CSV, encoding="utf-8")
    store = tmp_path / "cache"
    load_catalog(data, cache_dir=store)
    names = sorted(p.name for p in store.iterdir())
    assert len(names) == 1 and names[0].endswith(".cells")  # same file, same entry: one key


def test_a_bad_file_is_never_cached(tmp_path):
    data = write_catalog(tmp_path / "data", entry())
    (data / "tiny.csv").write_text(CSV.replace("40", "abc"), encoding="utf-8")
    store = tmp_path / "cache"
    for _ in range(2):
        with pytest.raises(DataError, match="'abc' is not a finite number"):
            load_catalog(data, cache_dir=store)
    assert not store.exists() or list(store.glob("*.cells")) == []


# ------------------------------------------------------------------------- a million cells

def write_grid(path: Path, ys: int, xs: int, seed: int = 3):
    """A tidy CSV of ys x xs cells with one-decimal values, ~1% left empty; returns the labels
    and the expected grid (the texts read by Python's float, NaN where empty)."""
    rng = np.random.default_rng(seed)
    n = ys * xs
    texts = np.char.mod("%.1f", rng.uniform(0, 100, n)).astype(object)
    texts[rng.random(n) < 0.01] = ""
    ylabels = [str(100 * (i + 1)) for i in range(ys)]
    xlabels = [f"{j / xs:.3f}" for j in range(xs)]
    y = np.repeat(ylabels, xs)
    x = np.tile(xlabels, ys)
    lines = ["model,window,ratio,value"] + [f"R1-Llama-8B,{a},{b},{v}" for a, b, v in zip(y, x, texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = np.array([float(t) if t else np.nan for t in texts]).reshape(ys, xs)
    return ylabels, xlabels, expected


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    ylabels, xlabels, expected = write_grid(folder / "big.csv", 1000, 1000)
    return folder, ylabels, xlabels, expected


def test_a_million_cell_folder_loads_every_value_exactly(big, tmp_path):
    folder, ylabels, xlabels, expected = big
    assert (folder / "big.csv").stat().st_size > DEFAULT_MAX_BYTES  # no upload limit on disk
    for store in (None, tmp_path / "cache", tmp_path / "cache"):  # no cache, cold, warm
        (fig,) = load_folder(folder, cache_dir=store)
        assert fig.n_cells == int(np.isfinite(expected).sum())
        assert fig.spec.dims["window"].labels == tuple(ylabels)
        assert fig.spec.dims["ratio"].labels == tuple(xlabels)
        assert list(fig.panels) == ["r1-llama-8b"] and fig.decimals == 1
        assert np.array_equal(fig.panels["r1-llama-8b"].z, expected, equal_nan=True)
        i, j = 123, 456
        want = None if np.isnan(expected[i, j]) else expected[i, j]
        assert fig.value(model="R1-Llama-8B", window=ylabels[i], ratio=xlabels[j]) == want


def test_a_million_cell_catalog_file_loads_every_value_exactly(big, tmp_path):
    folder, ylabels, xlabels, expected = big
    data = write_catalog(tmp_path / "data", entry(
        file=str(folder / "big.csv"), x="ratio", y="window", facets=["model"],
        dims={"model": {"labels": ["R1-Llama-8B"]}, "window": {"labels": ylabels},
              "ratio": {"labels": xlabels}}))
    figs = [load_catalog(data, cache_dir=store).figure("tiny")
            for store in (None, tmp_path / "cache", tmp_path / "cache")]
    for fig in figs:
        assert np.array_equal(fig.panels["r1-llama-8b"].z, expected, equal_nan=True)
        assert fig.decimals == 1
    assert_same_figure(figs[0], figs[2])


def test_an_import_is_refused_over_the_upload_limit_only_when_one_is_given(big):
    folder = big[0]
    data = (folder / "big.csv").read_bytes()
    with pytest.raises(ImportFailed, match="over the 20.0 MB limit"):
        imports.import_bytes(data, "big.csv")[0]
    assert imports.import_bytes(data, "big.csv", max_bytes=None)[0].n_cells > 0


def test_loads_put_pyarrows_memory_pool_back(tmp_path):
    before = pa.default_memory_pool().backend_name
    data = write_catalog(tmp_path / "data", entry())
    (data / "tiny.csv").write_text(CSV, encoding="utf-8")
    load_catalog(data)
    with pytest.raises(DataError):
        load_catalog(tmp_path / "nowhere")
    with columnar.lean_memory():
        with columnar.lean_memory():
            assert pa.default_memory_pool().backend_name == "system"
        assert pa.default_memory_pool().backend_name == "system"
    assert pa.default_memory_pool().backend_name == before


def test_an_import_runs_on_the_lean_pool_and_puts_the_pool_back(tmp_path, monkeypatch):
    """The policy's import entry points: a table's shaping on the system pool, a Parquet
    per-item table's read on pyarrow's own (even inside a load), and the pool put back."""
    before = pa.default_memory_pool().backend_name
    assert before != "system"  # else the test could not tell them apart
    seen: dict[str, list[str]] = {"table": [], "parquet": []}
    shape, read = imports.import_table, imports._parquet_items_read

    def shaping(*args, **kwargs):
        seen["table"].append(pa.default_memory_pool().backend_name)
        return shape(*args, **kwargs)

    def parquet(*args, **kwargs):
        seen["parquet"].append(pa.default_memory_pool().backend_name)
        return read(*args, **kwargs)

    monkeypatch.setattr(imports, "import_table", shaping)
    monkeypatch.setattr(imports, "_parquet_items_read", parquet)
    (tmp_path / "t.csv").write_text(CSV, encoding="utf-8")
    assert imports.import_paths([tmp_path / "t.csv"])[0].n_cells == 4
    assert imports.import_bytes(CSV.encode(), "t.csv")[0].n_cells == 4
    assert seen["table"] == ["system", "system"]
    assert pa.default_memory_pool().backend_name == before
    records = pd.DataFrame({"item": ["q1", "q2", "q1", "q2"], "model": ["A", "A", "B", "B"],
                            "score": [1.0, 0.0, 1.0, 1.0]})
    pq.write_table(pa.Table.from_pandas(records, preserve_index=False), tmp_path / "r.parquet")
    with columnar.lean_memory():  # a folder load around it
        imported = imports.import_paths([tmp_path / "r.parquet"])[0]
        assert pa.default_memory_pool().backend_name == "system"
    assert imported.items is not None and len(seen["parquet"]) == 1
    assert seen["parquet"] == [before]
    assert pa.default_memory_pool().backend_name == before
    with pytest.raises(ImportFailed):
        imports.import_bytes(b"\x00\x01 not a table", "bad.csv")
    assert pa.default_memory_pool().backend_name == before


class RecordingLibc:
    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append(("mallopt", param, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("malloc_trim", pad))
        return 1


def test_a_load_reuses_big_blocks_and_hands_free_memory_back_when_done(monkeypatch):
    libc = RecordingLibc()
    monkeypatch.setattr(columnar, "_LIBC", libc)
    during = [("mallopt", columnar.M_MMAP_THRESHOLD, 64 << 20)]
    with columnar.lean_memory():
        with columnar.lean_memory():
            assert libc.calls == during
        assert libc.calls == during  # the outer load is not done yet
    assert libc.calls == during + [("mallopt", columnar.M_MMAP_THRESHOLD, 32 << 20),
                                   ("mallopt", columnar.M_TRIM_THRESHOLD, 64 << 20),
                                   ("malloc_trim", 0)]


def test_glibc_is_found_where_it_is_the_c_library():
    import platform

    assert (columnar._LIBC is not None) == (platform.libc_ver()[0] == "glibc")


def test_two_files_that_would_be_one_figure_get_a_suffix_and_a_warning(tmp_path):
    (tmp_path / "runs.csv").write_text(CSV, encoding="utf-8")
    pq.write_table(pa.Table.from_pandas(tidy_frame(), preserve_index=False),
                   tmp_path / "runs.parquet")
    problems = Problems()
    a, b = load_folder(tmp_path, problems=problems)
    assert (a.id, b.id) == ("import-runs", "import-runs-2")
    assert_same_figure(a, load_folder(tmp_path)[0])
    assert b.panels[next(iter(b.panels))].figure_id == "import-runs-2"
    assert problems == [f"Renamed: the files runs.csv and runs.parquet in {tmp_path} would both "
                        f"be the figure 'import-runs'; runs.parquet is served as 'import-runs-2'. "
                        f"Rename one of them to choose its id."]


def test_a_figure_without_facets_and_without_cells_has_its_one_empty_panel(tmp_path):
    spec = parse_spec({"id": "e", "file": "e.csv", "metric": {"name": "v"}, "x": "x", "y": "y",
                       "dims": {"y": {"labels": ["a"]}, "x": {"labels": ["1", "2"]}},
                       "provenance": "published"}, where="test")
    (tmp_path / "e.csv").write_text("y,x,value\n", encoding="utf-8")
    fig = load_figure(spec, tmp_path / "e.csv")
    assert fig.n_cells == 0 and list(fig.panels) == ["all"]
    assert np.isnan(fig.panels["all"].z).all() and fig.panels["all"].z.shape == (1, 2)
    assert fig.value(y="a", x="1") is None


def test_the_cache_keeps_sd_n_and_se(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "runs.csv").write_text(
        "model,task,value,sd,n,se\nA,x,0.5,0.1,3,0.02\nA,y,0.25,,,\n", encoding="utf-8")
    (first,) = load_folder(tmp_path / "data", cache_dir=tmp_path / "cache")
    block_parsing(monkeypatch)
    (again,) = load_folder(tmp_path / "data", cache_dir=tmp_path / "cache")
    assert_same_figure(first, again)
    panel = again.panels["all"]
    assert [np.nan_to_num(g, nan=-1).tolist() for g in (panel.z, panel.sd, panel.n, panel.se)] == \
        [[[0.5, 0.25]], [[0.1, -1]], [[3.0, -1]], [[0.02, -1]]]
