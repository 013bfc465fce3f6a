"""Issue 41: a lab's folder of per-item tables is imported one file at a time
(evalmaps/catalog/stream.py): memory bounded by the largest file, the same figure as the
records of every file taken together, and a model column of 1,000 labels is a dimension."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalmaps.catalog import items as item_store
from evalmaps.catalog.imports import _import_sources as import_sources
from evalmaps.catalog.imports import figure_of, import_paths
from evalmaps.catalog.item_shaping import summarise
from evalmaps.readers.base import ImportFailed, ImportOptions

ROOT = Path(__file__).resolve().parents[2]
OPTIONS = ImportOptions(item="question_id", correct=("pred", "answer"), fixed={"model": "{file}"})
CATEGORIES = [f"cat-{c:02d}" for c in range(14)]


def lab_file(rng: np.random.Generator, n_items: int, texts: list[str]) -> bytes:
    """One model's per-question outputs in MMLU-Pro's layout (a JSON list)."""
    import orjson

    right = rng.random(n_items) < rng.uniform(0.2, 0.8)
    picks = rng.integers(0, len(texts), n_items)
    rows = [{"question_id": str(q), "category": CATEGORIES[q % 14], "answer": "A",
             "pred": "A" if right[q] else "B", "src": f"src-{q % 91}",
             "generated_text": texts[picks[q]]}
            for q in range(n_items)]
    return orjson.dumps(rows)


def lab_folder(folder: Path, models: int, n_items: int = 200, text_words: int = 5,
               seed: int = 41) -> Path:
    """``models`` files of ``n_items`` questions, each model's generated texts drawn from
    1,000 texts of ``text_words`` words."""
    rng = np.random.default_rng(seed)
    words = ["".join(chr(97 + c) for c in rng.integers(0, 26, 6)) for _ in range(500)]
    texts = [" ".join(words[w] for w in rng.integers(0, len(words), text_words))
             for _ in range(1000)]
    folder.mkdir(parents=True, exist_ok=True)
    for m in range(models):
        (folder / f"model-{m:04d}.json").write_bytes(lab_file(rng, n_items, texts))
    return folder


def csv_of(rows: list[dict]) -> bytes:
    return pd.DataFrame(rows).to_csv(index=False).encode()


def by_hand(folder: Path) -> dict[tuple[str, str], tuple[float, int]]:
    """Each (model, category) cell from the files themselves: the share of pred == answer."""
    cells: dict[tuple[str, str], list[float]] = {}
    for path in sorted(folder.glob("*.json")):
        for row in json.loads(path.read_bytes()):
            right = row["pred"] is not None and row["pred"].strip() == row["answer"].strip()
            cells.setdefault((path.stem, row["category"]), []).append(float(right))
    return {k: (math.fsum(v) / len(v), len(v)) for k, v in cells.items()}


def test_a_folder_imports_file_by_file_into_the_figure_of_all_its_records(tmp_path):
    folder = lab_folder(tmp_path / "lab", models=12)
    (imported,) = import_paths([folder], OPTIONS)
    assert isinstance(imported.items, item_store.SpooledRecords)  # written as they came
    got = {(r["model"], r["category"]): (float(r["value"]), int(r["n"]))
           for r in imported.tidy.to_dict("records")}
    assert got == by_hand(folder)
    assert imported.spec["facets"] == ["model"] and imported.spec["y"] == "category"
    records = imported.items.to_pandas()
    assert len(records) == len(imported.items) == 12 * 200
    # the records kept are each file's rows, and give the cells again
    again = summarise(records, ["model", "category"])
    assert {(r.model, r.category): (r.value, r.n_items) for r in again.itertuples()} == got
    assert set(records["response"]) >= {json.loads((folder / "model-0000.json").read_bytes())[0][
        "generated_text"]}
    figure_of(imported)  # validates as the app would


def test_saved_records_are_the_spool_and_go_with_it(tmp_path):
    folder = lab_folder(tmp_path / "lab", models=3)
    (imported,) = import_paths([folder], OPTIONS)
    spool = imported.items.folder
    kept = item_store.save(tmp_path / "kept", ["model", "category", "metric"], imported.items)
    assert pd.read_parquet(kept.scores_path).equals(pd.read_parquet(spool / item_store.SCORES))
    assert kept.has_texts
    digest = item_store.digest(imported.items)
    assert digest == imported.items.digest() and len(digest) == 64
    del imported
    import gc

    gc.collect()
    assert not spool.exists()  # the temporary records went with the import
    assert kept.scores_path.is_file()


def test_cells_shared_by_files_come_from_the_parquet(tmp_path):
    """Files split by category (each holds every model): a cell's items are in two files, so
    its value comes from the records written, and equals the one counted here."""
    rng = np.random.default_rng(7)
    by_cell: dict[tuple[str, str], list[float]] = {}
    sources = []
    for part in range(3):
        rows = []
        for model in ("m1", "m2"):
            for q in range(30):
                item = f"{part}-{q}"
                category = "law" if q % 2 else "math"  # every file holds both categories
                score = float(rng.integers(0, 2)) if q % 3 else float(rng.random())
                rows.append({"model": model, "question_id": item, "category": category,
                             "score": score})
                by_cell.setdefault((model, category), []).append(score)
        sources.append((f"out/part-{part}.csv", csv_of(rows)))
    (imported,) = import_sources(sources, "out", ImportOptions(item="question_id"),
                                 searched=True)
    got = {(r["model"], r["category"]): (float(r["value"]), int(r["n"]))
           for r in imported.tidy.to_dict("records")}
    assert got == {k: (float(repr(math.fsum(v) / len(v))), len(v)) for k, v in by_cell.items()}


def test_an_item_in_two_files_of_one_cell_is_refused_naming_both(tmp_path):
    rows = [{"model": "m", "question_id": "1", "category": "law", "score": 1}]
    sources = [("out/a.csv", csv_of(rows)),
               ("out/b.csv", csv_of(rows + [{**rows[0], "question_id": "2"}]))]
    with pytest.raises(ImportFailed) as err:
        import_sources(sources, "out", ImportOptions(item="question_id"), searched=True)
    assert str(err.value) == (
        "out: item '1' is in both a.csv and b.csv, in the same cell. Name each file's model "
        "after the file with --set model={file} (on the Data page: model from the file name), "
        "or import the files one at a time.")


def test_a_thousand_models_make_one_facet(tmp_path):
    """Part 2: a model column of 1,000 labels is a dimension (not cut at 50 labels), and its
    figure has a panel per model."""
    rows = [{"model": f"model-{m:04d}", "question_id": str(q), "category": CATEGORIES[q % 3],
             "score": (m + q) % 2} for m in range(1000) for q in range(6)]
    (imported,) = import_sources([("lab.csv", csv_of(rows))], "lab.csv",
                                 ImportOptions(item="question_id"))
    assert imported.spec["facets"] == ["model"]
    assert len(imported.dims["model"]) == 1000
    figure = figure_of(imported)
    cell = figure.cells[(figure.cells["model"] == "model-0007")
                        & (figure.cells["category"] == CATEGORIES[1])]
    assert float(cell["value"].iloc[0]) == np.mean([(7 + q) % 2 for q in range(6) if q % 3 == 1])


def test_a_column_that_tells_rows_of_one_item_apart_is_a_dimension_whatever_its_count():
    """A run column of 60 labels, each run holding every item: a dimension; a source column of
    60 labels, one per item: a property of each item, left out, and the note says why."""
    rows = [{"run": f"run-{r}", "question_id": str(q), "src": f"src-{q}",
             "category": "law" if q % 2 else "math", "score": (r * q) % 2}
            for r in range(60) for q in range(60)]
    (imported,) = import_sources([("t.csv", csv_of(rows))], "t.csv",
                                 ImportOptions(item="question_id"))
    assert set(imported.dims) == {"run", "category"}
    assert len(imported.dims["run"]) == 60
    assert ("src (a property of each item in more than 50 groups)"
            in " ".join(imported.spec["notes"]))


def test_an_item_twice_names_the_column_that_tells_its_rows_apart():
    """The refusal names the real reason: the rows differ only in a column left out (free text
    here), not 'appears twice' with no reason."""
    long = "x" * 150
    rows = [{"model": "m", "question_id": "70", "note": long + "a", "score": 1},
            {"model": "m", "question_id": "70", "note": long + "b", "score": 0}]
    with pytest.raises(ImportFailed) as err:
        import_sources([("t.csv", csv_of(rows))], "t.csv", ImportOptions(item="question_id"))
    assert "item '70' appears twice in one cell with the same sample: its two rows differ only " \
           "in columns that are not dimensions ('note' is free text)" in str(err.value)


# ------------------------------------------------------------------ memory bounded by one file

LIMIT_MB = 2048  # the address space the import may take: the old import of 40 models took 2.9 GB

CHILD = textwrap.dedent("""
    import resource, sys
    sys.path.insert(0, sys.argv[1])
    from evalmaps.catalog.imports import import_paths, figure_of
    from evalmaps.readers.base import ImportOptions
    limit = int(sys.argv[3]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    (imported,) = import_paths([sys.argv[2]], ImportOptions(
        item="question_id", correct=("pred", "answer"), fixed={"model": "{file}"}))
    figure = figure_of(imported)
    print("cells", len(figure.cells), "records", len(imported.items))
""")


def test_forty_models_import_within_an_address_space_the_whole_folder_exceeds(tmp_path):
    """40 models of 12,032 questions each (MMLU-Pro's count, 7.6 MB of JSON each, 300 MB in
    all) import under an address-space limit (RLIMIT_AS) of 2 GB (measured: a peak of 1.6 GB
    of address space, 0.22 GB resident); the import that held every file at once (before issue
    41) took 2.9 GB of address space (2.0 GB resident) and ran out of memory under it."""
    folder = lab_folder(tmp_path / "lab", models=40, n_items=12_032, text_words=80)
    done = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(folder), str(LIMIT_MB)],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1",
                               "OPENBLAS_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["cells", str(40 * 14), "records", str(40 * 12_032)]


# ------------------------------------------------------------------ the streamed path's Arrow work

@pytest.mark.parametrize("seed", range(6))
def test_record_tables_in_arrow_are_those_pandas_makes(seed):
    """stream._record_tables (Arrow) keeps, for one file's records, the very tables that
    items.record_tables (pandas) makes: columns, types, sort order (stable: an item's samples
    in their order), missing texts."""
    from evalmaps.catalog import stream
    from evalmaps.catalog.item_shaping import import_items

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    rows = pd.DataFrame({
        "model": rng.choice(["m-b", "m-a", "ü-model"], n),
        "category": rng.choice(["law", "math", "Z", "é"], n),
        "question_id": rng.integers(0, 40, n).astype(str),
        "sample": np.arange(n) % 3,
        "score": rng.choice(["1", "0", "0.25"], n),
        "group": rng.choice(["g1", "g2"], n),
        "prompt": rng.choice(["", "why?", "how, then?"], n),
        "response": rng.choice(["", "because", "ok"], n),
    }).drop_duplicates(["model", "category", "question_id", "sample"], ignore_index=True)
    rows["group"] = rows.groupby("question_id")["group"].transform("first")
    rows = rows.astype(str)
    options = ImportOptions(item="question_id", cluster="group" if seed % 2 else None)
    records, dims, _ = import_items(rows, "t.csv", options, [], warnings=[])
    texts = records[[*dims, "item", "sample", "prompt", "response"]]
    want = item_store.record_tables(dims, records, texts)
    got = stream._record_tables(list(dims), records, texts)
    for a, b in zip(want, got):
        assert b.schema.equals(a.schema, check_metadata=False)
        assert b.equals(a)
    assert got[1].column("prompt").null_count == int((rows["prompt"] == "").sum())


# ------------------------------------------------------------------ uploads read from the disk

def staged(folder: Path, members: dict[str, bytes], name: str = "lab.zip") -> Path:
    """A staged upload as the store keeps it (its name, a line, then the zip's bytes)."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    path = folder / "staged"
    path.write_bytes(name.encode() + b"\n" + buffer.getvalue())
    return path


def outcome(fn):
    """An import's figures as what they show (entry, cells, records), or its refusal."""
    try:
        found = fn()
    except ImportFailed as exc:
        return "refused", str(exc)
    def records(items):
        if items is None:
            return None
        frame = items.to_pandas() if hasattr(items, "to_pandas") else items
        return frame.sort_values(list(frame.columns[:4]), ignore_index=True).to_dict("records")

    return [(i.spec, i.tidy.to_dict("records"), records(i.items)) for i in found]


def same_as_whole(path: Path, options: ImportOptions, max_bytes: int = 20 * 2**20):
    """import_file of a staged upload (streamed where it can) against import_bytes of its
    bytes (the import that reads them whole): the same figures, or the same refusal."""
    from evalmaps.catalog.imports import import_bytes, import_file

    blob = path.read_bytes()
    start = blob.index(b"\n") + 1
    whole = outcome(lambda: import_bytes(blob[start:], "lab.zip", options, max_bytes,
                                         by_tool=True))
    streamed = outcome(lambda: import_file(path, "lab.zip", options, max_bytes, by_tool=True,
                                           start=start))
    assert streamed == whole
    return streamed


def test_an_uploaded_zip_of_models_streams_into_the_figure_of_the_whole_zip(tmp_path,
                                                                             monkeypatch):
    from evalmaps.catalog import stream

    folder = lab_folder(tmp_path / "lab", models=5, n_items=60)
    members = {f"lab/{p.name}": p.read_bytes() for p in sorted(folder.glob("*.json"))}
    path = staged(tmp_path, members)
    read = []  # the members' tables, as the streamed import asks for them
    real = stream.item_tables

    def spy(tables, *args, **kwargs):
        return real((read.append(t[0]) or t for t in tables), *args, **kwargs)

    monkeypatch.setattr(stream, "item_tables", spy)
    (figure,) = same_as_whole(path, OPTIONS)
    assert read == [f"lab.zip/{m}" for m in members] * 2  # streamed, then read whole
    got = {(r["model"], r["category"]): (float(r["value"]), int(r["n"])) for r in figure[1]}
    assert got == by_hand(folder)


def test_an_upload_that_cannot_stream_is_read_whole_with_the_same_outcome(tmp_path):
    """Harness results among the tables (the tables are skipped, as a search skips them), an
    error in the last table, a lone table, a file that is no zip: as import_bytes has them."""
    folder = lab_folder(tmp_path / "lab", models=3, n_items=30)
    tables = {f"lab/{p.name}": p.read_bytes() for p in sorted(folder.glob("*.json"))}
    results = (ROOT / "tests/fixtures/formats/bigcode/starcoder/evaluation_results.json"
               ).read_bytes()
    (mixed,) = same_as_whole(staged(tmp_path, {**tables, "lab/zz/results.json": results}),
                             OPTIONS)
    assert mixed[0]["source"]["tool"] != ""  # the harness results' figure
    broken = {**tables, "lab/model-9999.json": b'[{"question_id": "1", "category": "x"}]'}
    refused = same_as_whole(staged(tmp_path, broken), OPTIONS)
    assert refused[0] == "refused" and "pred" in refused[1]
    (one,) = same_as_whole(staged(tmp_path, dict(list(tables.items())[:1])), OPTIONS)
    assert {r["model"] for r in one[1]} == {"model-0000"}
    plain = tmp_path / "plain"
    plain.write_bytes(b"t.csv\n" + csv_of([{"model": "m", "question_id": "1", "score": 1}]))
    assert same_as_whole(plain, ImportOptions(item="question_id"))


UPLOAD_LIMIT_MB = 768  # the address space of an upload's import of 40 models: 2.4 GB before

UPLOAD_CHILD = textwrap.dedent("""
    import resource, sys
    sys.path.insert(0, sys.argv[1])
    from evalmaps.service.uploads import preview_in_child
    from evalmaps.readers.base import ImportOptions
    limit = int(sys.argv[3]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    found = preview_in_child(sys.argv[2], "lab.zip", ImportOptions(
        item="question_id", correct=("pred", "answer"), fixed={"model": "{file}"}), 80 * 2**20)
    print("cells", found["summary"]["cells"], "models", found["summary"]["dims"]["model"])
""")


def test_an_uploaded_zip_of_forty_models_imports_within_a_bounded_address_space(tmp_path):
    """An upload's zip of 40 models (75 MB, unzipping to 300 MB) previews, as the Data page's
    child process does, under an address-space limit (RLIMIT_AS) of 768 MB (measured: 1.56 GB
    of address space without a limit, 0.22 GB resident, and it passes at 512 MB); the import
    that read the staged file whole and unzipped every member at once took 2.4 GB of address
    space (1.1 GB resident) and crashed under 1 GB."""
    folder = lab_folder(tmp_path / "lab", models=40, n_items=12_032, text_words=80)
    members = {f"lab/{p.name}": p.read_bytes() for p in sorted(folder.glob("*.json"))}
    path = staged(tmp_path, members)
    del members
    done = subprocess.run([sys.executable, "-c", UPLOAD_CHILD, str(ROOT), str(path),
                           str(UPLOAD_LIMIT_MB)],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1",
                               "OPENBLAS_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["cells", str(40 * 14), "models", "40"]
