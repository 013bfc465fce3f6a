"""Watched folders read once, through the store (issue 41, part 3; evalmaps.service.live with
evalmaps.service.store.PieceStore): each file of a folder of per-item tables is read alone, once,
into a piece; the figure put together from the pieces is the import of the whole folder; a
reader keeps keys, never a file's parsed content; a second reader of the folder (another
process: its lock is held) reads no file and serves the same versions; a restart parses
nothing."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

from evalmaps.catalog.imports import figure_of, import_paths
from evalmaps.catalog.pieces import FolderRecords
from evalmaps.core.figure import Catalog
from evalmaps.readers.base import ImportOptions
from evalmaps.service import live
from evalmaps.service.startup import assemble

MMLU = ImportOptions(item="question_id", correct=("pred", "answer"), fixed=(("model", "{file}"),))
CATEGORIES = ("law", "math", "physics")


def model_file(folder: Path, model: str, seed: int, n: int = 60) -> Path:
    """One model's per-question outputs in MMLU-Pro's columns (a JSON list), seeded; written
    aside and renamed into place, and aged (settled)."""
    rng = random.Random(seed)
    rows = [{"question_id": str(70 + q), "category": CATEGORIES[q % len(CATEGORIES)],
             "answer": "ABCD"[q % 4], "pred": rng.choice("ABCD"),
             "generated_text": f"{model} thinks {rng.random():.6f}"} for q in range(n)]
    out = folder / f"{model}.json"
    tmp = folder / f".{model}.part"
    tmp.write_text(json.dumps(rows))
    then = time.time() - 10
    os.utime(tmp, (then, then))
    os.replace(tmp, out)
    return out


def two_models(tmp_path: Path) -> tuple[Path, Path]:
    """A folder of results of the models ant and bee (MMLU-Pro's layout), and a cache beside."""
    folder, cache = tmp_path / "outputs", tmp_path / "cache"
    folder.mkdir()
    for k, model in enumerate(("ant", "bee")):
        model_file(folder, model, k)
    return folder, cache


def watcher(reader):
    return live.Live([reader], lambda per, problems: (assemble(Catalog([]), per, problems),
                                                      problems), lambda snapshot: None)


def reader_and_follower(folder: Path, cache: Path):
    """Two processes' readers of ``folder``, each started: the first holds the folder's lock
    (its reader from now on), the second follows its manifest. (reader, its Live, follower,
    its Live)."""
    first = live.FolderReader(folder, cache, MMLU, settle=0.05)
    a = watcher(first)
    a.refresh(initial=True)
    assert first._lead()  # the reader of the folder from now on (its lock held)
    second = live.FolderReader(folder, cache, MMLU, settle=0.05)
    b = watcher(second)
    b.refresh(initial=True)
    return first, a, second, b


def puts(cache: Path) -> list[str]:
    log = cache / "live" / "puts.log"
    return log.read_text().splitlines() if log.is_file() else []


def test_pieces_put_together_are_the_import_of_the_folder(tmp_path):
    folder, cache = tmp_path / "outputs", tmp_path / "cache"
    folder.mkdir()
    for k, model in enumerate(("ant", "bee", "cat")):
        model_file(folder, model, k)
    reader = live.FolderReader(folder, cache, MMLU, settle=0.05)
    w = watcher(reader)
    w.refresh(initial=True)
    figure = w.snapshot.catalog.figure("import-outputs")
    (imported,) = import_paths([folder], MMLU, by_tool=True)
    whole = figure_of(imported)
    cols = list(whole.cells.columns)
    assert figure.cells.sort_values(cols[:-1]).reset_index(drop=True).equals(
        whole.cells.sort_values(cols[:-1]).reset_index(drop=True))
    # the records: a cell's items and their texts as the whole import keeps them
    assert isinstance(figure.items, FolderRecords) and len(puts(cache)) == 3
    coords = {"model": "bee", "category": "math", "metric": "accuracy"}
    coords = {d: coords[d] for d in figure.spec.dim_names}
    mine, theirs = figure.items.cell(coords), imported.items.records().cell(coords)
    assert list(mine.items) == list(theirs.items) and list(mine.total) == list(theirs.total)
    items = list(mine.items[:3])
    assert figure.items.texts(coords, items) == imported.items.records().texts(coords, items)
    assert figure.items.items_with_text(coords, "BEE THINKS") == set(map(str, mine.items))
    # by hand: bee's math questions (q % 3 == 1), correct where pred == answer
    rng = random.Random(1)
    rows = [(q, "ABCD"[q % 4], rng.choice("ABCD"), rng.random()) for q in range(60)]
    hits = [a == p for q, a, p, _ in rows if q % 3 == 1]
    assert figure.value(**coords) == sum(hits) / len(hits)


def test_a_reader_keeps_keys_and_a_new_file_is_read_alone(tmp_path):
    folder, cache = two_models(tmp_path)
    reader = live.FolderReader(folder, cache, MMLU, settle=0.05)
    w = watcher(reader)
    w.refresh(initial=True)
    assert reader.reads == 2
    # no parsed copy of any file: what the reader keeps of each is its piece's key
    assert all(isinstance(k.result, str) and len(k.result) == 64 for k in reader.kept.values())
    model_file(folder, "cat", 2)
    w.refresh()
    time.sleep(0.1)
    assert w.refresh()
    assert reader.reads == 3 and len(puts(cache)) == 3
    assert puts(cache)[-1].split(" ", 2)[2] == str(folder / "cat.json")
    labels = w.snapshot.catalog.figure("import-outputs").spec.dims["model"].labels
    assert labels == ("ant", "bee", "cat")
    # the put-together scores: written once the figure is served, the older ones removed
    combined = cache / "live" / "combined"
    assert [p.name for p in combined.iterdir()] == [
        w.snapshot.catalog.figure("import-outputs").items.folder.name] or len(
        list(combined.iterdir())) == 2
    for model, seed in (("dog", 3), ("eel", 4)):
        model_file(folder, model, seed)
        w.refresh()
        time.sleep(0.1)
        assert w.refresh()
    figure = w.snapshot.catalog.figure("import-outputs")
    assert figure.items.folder in list(combined.iterdir()) and len(list(combined.iterdir())) == 2
    assert len(figure.items.cell({"model": "eel", "category": "law", "metric": "accuracy"})) == 20


def test_a_second_reader_reads_no_file_and_a_restart_parses_nothing(tmp_path):
    folder, cache = two_models(tmp_path)
    first, a, second, b = reader_and_follower(folder, cache)
    assert second.following and second.reads == 0
    assert b.snapshot.versions == a.snapshot.versions
    model_file(folder, "cat", 2)
    a.refresh()
    time.sleep(0.1)
    assert a.refresh() and first.reads == 3
    assert second.changed() and b.refresh()  # the manifest changed: put together anew
    assert second.reads == 0 and b.snapshot.versions == a.snapshot.versions
    assert "cat" in b.snapshot.catalog.figure("import-outputs").spec.dims["model"].labels
    first._let_go()  # the reading process ends: the next one reads, from the manifest
    logged = puts(cache)
    again = live.FolderReader(folder, cache, MMLU, settle=0.05)
    c = watcher(again)
    c.refresh(initial=True)
    assert not again.following and again.reads == 0 and puts(cache) == logged
    assert c.snapshot.versions == a.snapshot.versions


def test_a_failing_file_is_a_problem_in_the_manifest_and_the_others_stay(tmp_path):
    folder, cache = tmp_path / "outputs", tmp_path / "cache"
    folder.mkdir()
    model_file(folder, "ant", 0)
    bad = folder / "bee.json"
    bad.write_text('[{"question_id": "70", "category": "law", "answ')
    then = time.time() - 10
    os.utime(bad, (then, then))
    first, a, second, b = reader_and_follower(folder, cache)
    for snapshot in (a.snapshot, b.snapshot):
        assert [str(bad) in line and "not valid JSON" in line for line in snapshot.problems] == [
            True]
        assert snapshot.catalog.figure("import-outputs").spec.dims["model"].labels == ("ant",)
    assert second.reads == 0


def test_files_that_share_cells_are_counted_together(tmp_path):
    """One model's questions split into two files, both of the law cell: the cell is counted
    over both, as the import of the folder counts it; a question in both files is refused,
    naming them, as that import refuses it."""
    folder, cache = tmp_path / "outputs", tmp_path / "cache"
    folder.mkdir()

    def row(q: str, pred: str) -> dict:
        return {"question_id": q, "category": "law", "answer": "A", "pred": pred}

    (folder / "a.json").write_text(json.dumps([row("1", "A"), row("3", "A")]))
    (folder / "b.json").write_text(json.dumps([row("2", "B")]))
    options = ImportOptions(item="question_id", correct=("pred", "answer"),
                            fixed=(("model", "x"),))
    reader = live.FolderReader(folder, cache, options, settle=0.05)
    w = watcher(reader)
    w.refresh(initial=True)
    figure = w.snapshot.catalog.figure("import-outputs")
    (imported,) = import_paths([folder], options, by_tool=True)
    assert figure.cells["value"].tolist() == figure_of(imported).cells["value"].tolist()
    assert figure.cells["value"].tolist() == [2 / 3]  # by hand: 2 of 3 right
    (folder / "b.json").write_text(json.dumps([row("2", "B"), row("3", "C")]))
    w.refresh()
    time.sleep(0.1)
    assert w.refresh()
    (line,) = w.snapshot.problems
    assert "item '3' is in both a.json and b.json, in the same cell" in line, line


def test_a_rename_is_checked_against_the_folder_as_its_import_checks_it(tmp_path):
    """--rename of a label that one file has renames it; of a label no file has, the folder is
    refused with the sentence the import of the folder gives."""
    from dataclasses import replace

    from evalmaps.core.errors import DataError

    folder, cache = two_models(tmp_path)
    good = replace(MMLU, rename=(("model", "bee", "Bee 7B"),))
    w = watcher(live.FolderReader(folder, cache, good, settle=0.05))
    w.refresh(initial=True)
    assert w.snapshot.problems == []
    labels = w.snapshot.catalog.figure("import-outputs").spec.dims["model"].labels
    assert labels == tuple(figure_of(import_paths([folder], good, by_tool=True)[0]).spec
                           .dims["model"].labels) == ("ant", "Bee 7B")
    bad = replace(MMLU, rename=(("model", "cow", "Cow"),))
    try:
        import_paths([folder], bad, by_tool=True)
    except DataError as exc:
        said = str(exc).split(": ", 1)[1]
    w = watcher(live.FolderReader(folder, cache, bad, settle=0.05))
    w.refresh(initial=True)
    (line,) = w.snapshot.problems
    assert said.startswith("--rename model:cow=Cow: no model is labelled 'cow'") and said in line


def test_a_replaced_files_piece_goes_once_no_manifest_has_named_it_for_a_while(tmp_path,
                                                                               monkeypatch):
    folder, cache = tmp_path / "outputs", tmp_path / "cache"
    folder.mkdir()
    model_file(folder, "ant", 0)
    model_file(folder, "bee", 1)
    reader = live.FolderReader(folder, cache, MMLU, settle=0.05)
    w = watcher(reader)
    w.refresh(initial=True)
    assert reader._lead()
    pieces = cache / "live" / "pieces"
    old = reader.kept[folder / "bee.json"].result

    def replaced(seed: int) -> str:
        model_file(folder, "bee", seed)
        w.refresh()
        time.sleep(0.1)
        assert w.refresh()
        return reader.kept[folder / "bee.json"].result

    new = replaced(5)
    assert new != old and (pieces / old).is_dir()  # kept a while: others may still serve it
    monkeypatch.setattr(live, "DROP_AFTER", 0.0)
    newer = replaced(6)
    assert not (pieces / old).exists() and not (pieces / new).exists()
    assert {p.name for p in pieces.iterdir()} == {reader.kept[folder / "ant.json"].result, newer}
    assert w.snapshot.catalog.figure("import-outputs").spec.dims["model"].labels == ("ant", "bee")


def test_every_file_removed_is_gone_from_the_processes_that_follow_at_once(tmp_path):
    """The reader of a folder whose files are all removed writes a manifest of no pieces, so
    a process that follows it stops serving the figure on its next look (it served the last
    pieces until the next rescan before)."""
    folder, cache = two_models(tmp_path)
    first, a, second, b = reader_and_follower(folder, cache)
    assert second.following and "import-outputs" in b.snapshot.versions
    for path in list(folder.iterdir()):
        path.unlink()
    assert a.refresh() and "import-outputs" not in a.snapshot.versions
    assert second.changed() and b.refresh()  # the manifest changed: nothing to put together
    assert "import-outputs" not in b.snapshot.versions and second.reads == 0
    model_file(folder, "ant", 0)  # a file back: served again by both
    a.refresh()
    time.sleep(0.1)
    assert a.refresh() and "import-outputs" in a.snapshot.versions
    assert b.refresh() and b.snapshot.versions == a.snapshot.versions
