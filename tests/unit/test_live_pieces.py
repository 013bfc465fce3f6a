"""A watched folder's pieces hold data only (issue 41 part 3, a red team's finding): what a
file that is not one per-item table gives is kept as JSON, Parquet and raw files, never as a
pickle, and put together it is exactly what the import of the same files makes; a piece that
is not what the server writes is a clear problem, never code run, never a crash."""

from __future__ import annotations

import json
import os
import shutil
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from evalmaps.catalog import folders, pieces
from evalmaps.catalog.imports import figure_of, import_paths
from evalmaps.core.errors import DataError
from evalmaps.core.figure import Catalog
from evalmaps.readers.base import ImportOptions, Note
from evalmaps.service import live
from evalmaps.service.startup import assemble

EXTERNAL = Path(__file__).resolve().parents[2].parent / "shared" / "external"


@pytest.fixture()
def external() -> Path:
    """The shared material: real files of each tool (read, copied into a watched folder)."""
    if not EXTERNAL.is_dir():
        pytest.skip(f"{EXTERNAL} is absent: tests of real tool output skipped")
    return EXTERNAL


def copied(folder: Path, sources: list[Path]) -> Path:
    folder.mkdir()
    for src in sources:
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, folder / src.name)
    then = time.time() - 10
    for path in folder.rglob("*"):
        os.utime(path, (then, then))
    return folder


def zipped(folder: Path, name: str, sources: list[Path]) -> Path:
    folder.mkdir()
    with zipfile.ZipFile(folder / name, "w") as out:
        for src in sources:
            out.write(src, src.name)
    then = time.time() - 10
    os.utime(folder / name, (then, then))
    return folder


def watcher(reader):
    return live.Live([reader], lambda per, problems: (assemble(Catalog([]), per, problems),
                                                      problems), lambda snapshot: None)


def served(folder: Path, cache: Path, options: ImportOptions = ImportOptions()):
    reader = live.FolderReader(folder, cache, options, settle=0.05)
    w = watcher(reader)
    w.refresh(initial=True)
    return reader, w


KINDS = {
    "lm-eval": lambda tmp, ext: copied(tmp / "lm", [
        ext / "lm-eval" / "results_2025-01-21T00-40-03.356274.json"]),
    "inspect": lambda tmp, ext: copied(tmp / "insp", sorted(
        p for p in (ext / "inspect").iterdir() if p.suffix in (".eval", ".json"))),
    "lighteval": lambda tmp, ext: copied(tmp / "light", [
        ext / "lighteval" / "open_llm_leaderboard"]),
    "helm": lambda tmp, ext: copied(tmp / "helm", sorted((ext / "helm").glob("*=*"))),
    "evalplus": lambda tmp, ext: copied(tmp / "plus", [ext / "evalplus" / "results.json"]),
    "csv-in-zip": lambda tmp, ext: zipped(tmp / "table", "results.zip", [
        ext / "meta-learning-logic" / "results_core.csv"]),
    "zip-of-results": lambda tmp, ext: zipped(tmp / "zipped", "runs.zip", sorted(
        (ext / "lighteval" / "open_llm_leaderboard").rglob("*.json"))),
}


def same_figure(mine, imported, cache: Path) -> None:
    """The figure served equals the import's: its entry, its cells, its per-item records (the
    scores and texts as the import's own are written)."""
    theirs = folders.with_items(figure_of(imported), imported, cache)
    assert mine.spec == replace(theirs.spec, id=mine.spec.id)
    assert mine.decimals == theirs.decimals
    pd.testing.assert_frame_equal(mine.cells, theirs.cells, check_exact=True)
    assert (mine.items is None) == (theirs.items is None)
    if theirs.items is not None:
        for path in ("scores_path", "texts_path"):
            a, b = getattr(mine.items, path), getattr(theirs.items, path)
            assert a.is_file() == b.is_file()
            if b.is_file():
                pd.testing.assert_frame_equal(pd.read_parquet(a), pd.read_parquet(b),
                                              check_exact=True)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_piece_put_together_is_the_import_of_the_same_files(tmp_path, kind, external):
    folder = KINDS[kind](tmp_path, external)
    reader, w = served(folder, tmp_path / "cache")
    assert w.snapshot.problems == []
    figures = [f for f in w.snapshot.catalog if f.id.startswith("import-")]
    imported = import_paths([folder], ImportOptions(), by_tool=True)
    assert len(figures) == len(imported) >= 1
    for mine, theirs in zip(figures, imported):
        same_figure(mine, theirs, tmp_path / "theirs")
    # the pieces hold JSON, Parquet and the files' raw bytes only
    for key in {k.result for k in reader.kept.values()}:
        for path in (reader.store.piece(key)).iterdir():
            assert path.suffix in (".json", ".parquet", ".bin"), path
            assert not path.read_bytes().startswith(b"\x80"), path  # no pickle's opcode


# --------------------------------------------------------------- the data-only codec, exactly

def bits(x: float) -> bytes:
    import struct

    return struct.pack("<d", x)


@pytest.mark.parametrize("x", [0.1, -0.0, 0.0, 1e-320, 5e-324, 1.7976931348623157e308,
                               float("inf"), float("-inf"), 2 / 3, -123456.789e-12])
def test_a_float_reads_back_bit_for_bit(x):
    text = json.dumps(pieces._encode([x, {"v": x}]), allow_nan=False)
    back = pieces._decode(json.loads(text))
    assert [bits(back[0]), bits(back[1]["v"])] == [bits(x), bits(x)]
    assert type(back[0]) is float


def test_nan_and_the_types_json_lacks_read_back_as_they_were():
    value = {"warnings": [Note("a run was cancelled"), "plain"], "range": (0, 100),
             "$": "a key that looks like the tag", 3: "an int key", "nan": float("nan"),
             "nested": [{"k": (1, [2.5, None, True])}], "big": 2**70, "text": "\udcff lone"}
    text = json.dumps(pieces._encode(value), allow_nan=False, ensure_ascii=True)
    back = pieces._decode(json.loads(text))
    assert [type(w) for w in back["warnings"]] == [Note, str]
    assert back["range"] == (0, 100) and type(back["range"]) is tuple
    assert back["$"] == value["$"] and back[3] == "an int key" and back["big"] == 2**70
    assert back["nan"] != back["nan"] and back["nested"] == [{"k": (1, [2.5, None, True])}]
    assert back["text"] == value["text"] and list(back) == list(value)


def test_a_value_of_another_type_is_refused_clearly():
    with pytest.raises(DataError, match="value of type object"):
        pieces._encode({"x": object()})


def test_a_frame_reads_back_with_its_dtypes_and_missing_values(tmp_path):
    import numpy as np

    frame = pd.DataFrame({
        "model": pd.Series(["a", None, "c"], dtype="str"),
        "mixed": pd.Series(["x", None, float("nan")], dtype=object),
        "objects": pd.Series([1, "two", 3.5], dtype=object),
        "sample": np.array([0, 1, 2], dtype="int64"), "score": [0.1, float("nan"), -0.0],
        "ok": [True, False, True], "cat": pd.Categorical(["p", "q", "p"])})
    frame.columns = [*frame.columns[:-1], 7]  # a column name that is no text
    given = pieces._write_frame(frame, tmp_path, "t.parquet")
    back = pieces._read_frame(tmp_path, json.loads(json.dumps(given)))
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    assert back["mixed"][1] is None and back["mixed"][2] != back["mixed"][2]
    assert bits(back["score"][2]) == bits(-0.0)
    odd = frame.set_axis([5, 3, 9])  # an index of its own
    back = pieces._read_frame(tmp_path, pieces._write_frame(odd, tmp_path, "u.parquet"))
    pd.testing.assert_frame_equal(back, odd, check_exact=True)


# ------------------------------------------------------------------ pieces that are not ours

@pytest.fixture()
def lm_folder(tmp_path, external) -> Path:
    """lm-eval's results file (from the shared material), alone in a watched folder."""
    return KINDS["lm-eval"](tmp_path, external)


def only_piece(reader) -> Path:
    (key,) = {k.result for k in reader.kept.values()}
    return reader.store.piece(key)


def test_no_piece_file_is_a_pickle_and_a_hostile_one_runs_nothing(tmp_path, lm_folder):
    """A piece rewritten as the old layout was, with a pickle whose loading would write a
    file: a process that puts the folder together reads no pickle, says the piece is not
    valid, and nothing runs."""
    import pickle

    for module in (folders, pieces):
        assert "pickle" not in Path(module.__file__).read_text(encoding="utf-8")
    folder, cache = lm_folder, tmp_path / "cache"
    reader, w = served(folder, cache)
    assert reader._lead()  # the reader of the folder from now on
    piece = only_piece(reader)
    assert sorted(p.name for p in piece.iterdir()) == ["found.json", "piece.json"]
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').close()",))

    for p in piece.iterdir():
        p.unlink()
    (piece / "found.pickle").write_bytes(pickle.dumps(Payload()))
    for described in ({"kind": "found", "file": "x.json"},
                      {"kind": "found", "file": "x.json", "found": "found.pickle"}):
        (piece / "piece.json").write_text(json.dumps(described))
        pieces.forget_piece(piece)
        with pytest.raises(pieces.BadPiece) as caught:
            pieces.piece_figures(folder, [piece], cache / "combined")
        assert "is not valid" in str(caught.value) and not marker.exists()
    # a second process follows the manifest: the piece is its problem, it serves nothing bad
    pieces.forget_piece(piece)
    other = live.FolderReader(folder, cache, ImportOptions(), settle=0.05)
    w2 = watcher(other)
    w2.refresh(initial=True)
    assert other.following and not marker.exists()
    (line,) = w2.snapshot.problems
    assert "is not valid (piece.json names no found.json)" in line, line
    assert not [f for f in w2.snapshot.catalog if f.id.startswith("import-")]
    # the reader of the folder puts it together again: it reads the file again, no pickle
    assert [f.id for f in reader._combine([piece.name])] == ["import-lm"]
    assert sorted(p.name for p in piece.iterdir()) == ["found.json", "piece.json"]
    assert not marker.exists()


@pytest.mark.parametrize("written, why", [
    ("{not json", "its JSON does not parse"),
    ('{"kind": "shell", "file": "x.json"}', "names the unknown kind 'shell'"),
    ('["found"]', "piece.json is not an object naming its file"),
    ('{"kind": "items", "file": "x.json", "rows": "many"}', "is not a"),
])
def test_a_malformed_description_is_one_clear_sentence(tmp_path, lm_folder, written, why):
    folder, cache = lm_folder, tmp_path / "cache"
    reader, _ = served(folder, cache)
    piece = only_piece(reader)
    (piece / "piece.json").write_text(written)
    pieces.forget_piece(piece)
    with pytest.raises(pieces.BadPiece) as caught:
        pieces.piece_figures(folder, [piece], cache / "combined")
    said = str(caught.value)
    assert why in said and said.endswith("Remove it: the file is read again."), said


@pytest.mark.parametrize("reading, why", [
    ({"reader": "lm-eval", "file": "x", "records": [{"model": "m"}]}, "records, metrics"),
    ({"reader": "lm-eval", "file": "x", "records": [{"value": [1]}]}, "records, metrics"),
    ({"reader": "lm-eval", "file": "x", "records": [], "lower": {"acc": "yes"}}, "metrics"),
    ({"reader": "lm-eval", "file": "x", "records": [], "items": {"file": "../x.parquet"}},
     "a table's description is malformed"),
    ({"reader": "lm-eval", "file": "x", "records": [], "members": [["a", "/etc/passwd"]]},
     "a file of it is not named"),
])
def test_readings_that_are_not_as_written_are_refused(tmp_path, lm_folder, reading, why):
    folder, cache = lm_folder, tmp_path / "cache"
    reader, _ = served(folder, cache)
    piece = only_piece(reader)
    body = {"readings": [{"lower": {}, "metrics": {}, "warnings": [], "notes": [], **reading}],
            "tables": [], "given": [], "skipped": []}
    (piece / "found.json").write_text(json.dumps(body))
    with pytest.raises(pieces.BadPiece, match=why):
        pieces.piece_figures(folder, [piece], cache / "combined")


def test_a_corrupted_piece_keeps_the_last_good_figure_and_its_reader_reads_it_again(
        tmp_path, lm_folder):
    folder, cache = lm_folder, tmp_path / "cache"
    first, a = served(folder, cache)
    good = a.snapshot.versions
    assert first._lead()
    second = live.FolderReader(folder, cache, ImportOptions(), settle=0.05)
    b = watcher(second)
    b.refresh(initial=True)
    assert second.following and b.snapshot.versions == good
    piece = only_piece(first)
    (piece / "found.json").write_text(
        '{"readings": [{"reader": "pickle"}], "tables": [], "given": [], "skipped": []}')
    pieces.forget_piece(piece)
    # the follower puts the folder together again (a new manifest): it keeps what it served
    b.refresh(initial=True)  # put together again (as a new manifest makes it)
    (line,) = b.snapshot.problems
    assert "a reading names no known reader" in line and "stay served" in line, line
    assert b.snapshot.versions == good
    # the reader of the folder reads the file again into the piece, and serves it as before
    first._pieces = []
    assert first._combine([piece.name])
    assert json.loads((piece / "found.json").read_text())["readings"][0]["reader"] == "lm-eval"
    b.refresh(initial=True)  # put together again (as a new manifest makes it)
    assert b.snapshot.problems == [] and b.snapshot.versions == good


def test_a_manifest_naming_a_piece_of_the_old_layout_reads_the_file_again(tmp_path, lm_folder):
    """After an upgrade the folder's manifest still names the file's piece as the old layout
    wrote it (a pickle: here one that would write a file when loaded). The process that reads
    the folder writes the file's piece again, data only, and serves it; nothing runs."""
    import pickle

    folder, cache = lm_folder, tmp_path / "cache"
    reader, w = served(folder, cache)
    good = w.snapshot.versions
    key = only_piece(reader).name
    old = "0" * 64
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').close()",))

    piece = reader.store.piece(old)
    piece.mkdir()
    (piece / "found.pickle").write_bytes(pickle.dumps(Payload()))
    (piece / "piece.json").write_text(json.dumps({"kind": "found", "file": "x.json"}))
    shutil.rmtree(reader.store.piece(key))
    manifest = reader.store.manifest(folder, reader._options)
    manifest["files"] = {p: [sig, old] for p, (sig, _) in manifest["files"].items()}
    manifest["pieces"] = [old]
    reader.store.write_manifest(folder, reader._options, manifest)
    again, w2 = served(folder, cache)
    assert not again.following and again.reads == 0  # the file's signature: as in the manifest
    assert w2.snapshot.problems == [] and w2.snapshot.versions == good
    assert not marker.exists() and not piece.exists()
    assert only_piece(again).name == key and sorted(
        p.name for p in reader.store.piece(key).iterdir()) == ["found.json", "piece.json"]
    written = again.store.manifest(folder, again._options)
    assert written["pieces"] == [key] and [v[1] for v in written["files"].values()] == [key]
