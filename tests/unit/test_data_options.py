"""``evalmaps serve --data DIR --item COL --correct PRED=REF --set DIM=LABEL``: the table options
of ``evalmaps import`` for the tables of data folders. One parser (ImportOptions.parse) for the command
line and EVALMAPS_DATA_OPTIONS; the options are part of a folder table's cache key; a watched
folder reads its new files with them."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

import pytest

from evalmaps.catalog.folders import load_folder
from evalmaps.core.figure import Catalog
from evalmaps.core.problems import Problems
from evalmaps.readers.base import ImportOptions, OptionError
from evalmaps.service import cli, live
from evalmaps.service.settings import Settings, SettingsError
from evalmaps.service.startup import assemble, load_data
from tests.unit.test_item_folders import SEVEN, THIRTEEN

MMLU = ImportOptions(item="question_id", correct=("pred", "answer"), fixed=(("model", "{file}"),))
WORDS = "--item question_id --correct pred=answer --set model={file}"


def aged(path: Path) -> None:
    then = time.time() - 10
    os.utime(path, (then, then))


def test_the_command_line_and_the_environment_give_the_same_options():
    args = cli.build_parser().parse_args(["serve", "--data", "d", *WORDS.split()])
    assert cli.table_options(args) == MMLU
    assert Settings.from_env({"EVALMAPS_DATA_OPTIONS": WORDS}).data_options == MMLU
    assert Settings.from_env({"EVALMAPS_DATA_OPTIONS": "--item=question_id "
                              "--correct=' pred = answer ' --set model={file}"}).data_options == MMLU
    assert Settings.from_env({}).data_options == ImportOptions()
    assert not ImportOptions().table_options and MMLU.table_options
    # the command line's options win over the environment's, as for every setting
    env = {"EVALMAPS_DATA_OPTIONS": "--item id"}
    assert Settings.from_env(env, data_options=MMLU).data_options == MMLU
    assert Settings.from_env(env, data_options=None).data_options == ImportOptions(item="id")
    # import and serve build the same options
    imp = cli.build_parser().parse_args(["import", "x", *WORDS.split()])
    assert cli.table_options(imp) == ImportOptions(
        item="question_id", correct=("pred", "answer"), fixed={"model": "{file}"}) == MMLU


def test_drop_and_rename_read_alike_on_the_command_line_and_in_the_environment():
    words = ["--drop", "answer_index", "--drop", "src", "--rename",
             "model:ollama/qwen2.5:0.5b=lr=0.1=Qwen 0.5B"]
    given = ImportOptions(drop=("answer_index", "src"),
                          rename=(("model", "ollama/qwen2.5:0.5b=lr=0.1", "Qwen 0.5B"),))
    assert cli.table_options(cli.build_parser().parse_args(["import", "x", *words])) == given
    assert ImportOptions.from_words(words) == given
    with pytest.raises(OptionError, match=r"^--rename takes DIM:OLD=NEW \(a dimension, one of "
                                          r"its labels and the label to show instead, such as "
                                          r"--rename model:old-name=Llama-2-7B\), not 'a=b'\.$"):
        ImportOptions.from_words(["--rename", "a=b"])


def test_the_options_are_frozen_whole_and_the_labels_set_a_mapping():
    base = ImportOptions(format="tidy", item="i", fixed={"a": "1"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.item = "j"
    with pytest.raises(TypeError):
        base.fixed["b"] = "2"
    # given as a dict or as pairs, the labels are one mapping: equal, hashed alike, in order
    pairs = ImportOptions(format="tidy", item="i", fixed=(("a", "1"),))
    assert pairs == base and hash(pairs) == hash(base) and base.fixed == {"a": "1"}
    assert list(ImportOptions(fixed={"b": "2", "a": "1"}).fixed) == ["b", "a"]
    assert ImportOptions(fixed={"a": "1"}) != ImportOptions(fixed={"a": "2"})
    # the parse keeps the other options as given
    assert ImportOptions.parse("i", fixed=["a=1"], format="tidy") == base
    # a data folder's cache key: the options as plain values, fixed a dict
    assert base.to_dict()["fixed"] == {"a": "1"} and base.to_dict()["format"] == "tidy"


@pytest.mark.parametrize("value, message", [
    ("--correct pred", "EVALMAPS_DATA_OPTIONS=--correct pred is not valid: --correct takes "
                       "PRED=REF (two names joined by '='), not 'pred'."),
    ("--set model", "EVALMAPS_DATA_OPTIONS=--set model is not valid: --set takes DIM=LABEL (two "
                    "names joined by '='), not 'model'."),
    ("--item", "EVALMAPS_DATA_OPTIONS=--item is not valid: --item needs a value after it, such "
               "as --item COL."),
    ("-x model", "EVALMAPS_DATA_OPTIONS=-x model is not valid: '-x' is not a table option: give "
                 "--item COL, --correct PRED=REF, --set DIM=LABEL, --drop COL, --rename "
                 "DIM:OLD=NEW or --cluster COL."),
    ("--item 'a b", "EVALMAPS_DATA_OPTIONS=--item 'a b is not valid: a quote is not closed. "
                    "Close it, or give table options as evalmaps import takes them, such as "
                    "--item question_id --correct pred=answer --set model={file}."),
])
def test_a_bad_environment_value_is_one_sentence_naming_it(value, message):
    with pytest.raises(SettingsError) as err:
        Settings.from_env({"EVALMAPS_DATA_OPTIONS": value})
    assert str(err.value) == message


def test_the_command_line_refuses_as_import_does():
    args = cli.build_parser().parse_args(["serve", "--data", "d", "--correct", "pred"])
    with pytest.raises(OptionError, match=r"^--correct takes PRED=REF \(two names joined by "
                                          r"'='\), not 'pred'\.$"):
        cli.table_options(args)


def per_item_csv(folder: Path) -> Path:
    folder.mkdir()
    path = folder / "llama.csv"
    path.write_text("question_id,category,answer,pred\n1,law,A,A\n2,law,B,C\n3,math,C,C\n")
    return path


def test_the_options_decide_how_a_table_reads(tmp_path):
    """Other options, another figure (never a cached one of other options); the per-item records
    are kept in the cache by their content, and the same options again find them."""
    folder, cache = tmp_path / "runs", tmp_path / "cache"
    per_item_csv(folder)

    def load(options: ImportOptions):
        problems = Problems()
        figures = load_folder(folder, cache_dir=cache, problems=problems, options=options)
        return figures, problems, sorted(p.name for p in cache.glob("*.items"))

    def as_a(model: str) -> ImportOptions:
        return ImportOptions.parse("question_id", "pred=answer", [f"model={model}"])

    (first,), problems, entries = load(as_a("a"))
    assert problems == [] and len(entries) == 1
    assert first.spec.dims["model"].labels == ("a",)
    assert first.value(model="a", category="law", metric="accuracy") == 0.5
    assert first.items is not None and str(first.items.folder).startswith(str(cache))
    (second,), _, more = load(as_a("b"))  # the same file, other options: other records
    assert second.spec.dims["model"].labels == ("b",) and len(more) == 2
    assert load(ImportOptions())[:2] == ([], [
        "Not served: llama.csv: this table looks like per-item records (one row "
        "per item), not cells, and was imported without --item. Import it with --item "
        "question_id --correct pred=answer (on the Data page: Per-item records)."])
    (again,), _, entries_again = load(as_a("a"))  # the first options again: their records
    assert entries_again == more and again.cells.equals(first.cells)
    assert again.items.folder == first.items.folder


def per_model_tables(folder: Path, suffix: str) -> None:
    """Two models' per-question outputs, one file each (MMLU-Pro's columns), as a lab's own
    script writes them: a folder of CSV or Parquet files."""
    import pandas as pd

    folder.mkdir()
    rows = {"llama-7b": ["A", "C", "C", "D"], "llama-13b": ["A", "B", "C", "A"]}
    for model, preds in rows.items():
        table = pd.DataFrame({"question_id": [1, 2, 3, 4],
                              "category": ["law", "law", "math", "math"],
                              "answer": ["A", "B", "C", "D"], "pred": preds})
        if suffix == "csv":
            table.to_csv(folder / f"{model}.csv", index=False)
        else:
            table.to_parquet(folder / f"{model}.parquet", index=False)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_folder_of_per_item_tables_serves_as_its_import_makes_it(tmp_path, suffix):
    """``serve --data DIR --item ... --set model={file}`` of a folder of per-model CSV or Parquet
    files: ONE figure, model x category, as ``evalmaps import DIR`` with the same options makes
    it (it used to be one figure per file, so Compare could not pair the models on one grid);
    watched or not, and a model's file added while watched joins the same figure."""
    from evalmaps.catalog.imports import figure_of, import_paths

    folder = tmp_path / "outputs"
    per_model_tables(folder, suffix)
    (imported,) = import_paths([folder], MMLU, by_tool=True)
    for watch in ("off", "auto"):
        loaded = load_data(Settings(extra_data=(folder,), data_options=MMLU, cache_dir=None,
                                    store_dir=None, watch=watch))
        assert loaded.problems == [] and loaded.catalog.ids[-1:] == ["import-outputs"]
        figure = loaded.catalog.figure("import-outputs")
        assert figure.spec.dims["model"].labels == ("llama-7b", "llama-13b")
        assert figure.cells.equals(figure_of(imported).cells)
        assert figure.items is not None
        assert [figure.value(model=m, category=c, metric="accuracy")
                for m in ("llama-7b", "llama-13b") for c in ("law", "math")] == [
            0.5, 1.0, 1.0, 0.5]  # by hand: pred = answer, question by question

    # watched: a third model's file joins the figure, read alone
    (tmp_path / "w").mkdir()
    watched = tmp_path / "w" / "outputs"
    per_model_tables(watched, suffix)
    for path in watched.iterdir():
        aged(path)
    reader = live.FolderReader(watched, None, MMLU, settle=0.05)
    watcher = live.Live([reader], lambda per, problems: (assemble(Catalog([]), per, problems),
                                                         problems), lambda snapshot: None)
    watcher.refresh(initial=True)
    assert watcher.snapshot.catalog.ids == ["import-outputs"] and reader.reads == 2
    source = next(watched.glob(f"llama-7b.{suffix}"))
    third = watched / f"mistral-7b.{suffix}"
    third.write_bytes(source.read_bytes())
    watcher.refresh()  # seen once: read when a second scan agrees
    time.sleep(0.1)
    assert watcher.refresh()
    figure = watcher.snapshot.catalog.figure("import-outputs")
    assert figure.spec.dims["model"].labels == ("llama-7b", "llama-13b", "mistral-7b")
    assert figure.value(model="mistral-7b", category="law", metric="accuracy") == 0.5
    assert watcher.snapshot.problems == [] and reader.reads == 3


def test_settings_reach_the_folders_watched_or_not(tmp_path):
    folder = tmp_path / "mmlu"
    folder.mkdir()
    (folder / "llama-7b.json").write_bytes(SEVEN)
    (folder / "llama-13b.json").write_bytes(THIRTEEN)
    for watch in ("off", "auto"):
        loaded = load_data(Settings(extra_data=(folder,), data_options=MMLU, cache_dir=None,
                                    store_dir=None, watch=watch))
        assert loaded.problems == []
        figure = loaded.catalog.figure("import-mmlu")
        assert figure.spec.dims["model"].labels == ("llama-7b", "llama-13b")
        assert figure.items is not None


def test_a_watched_folder_reads_its_new_files_with_the_options(tmp_path):
    (tmp_path / "llama-7b.json").write_bytes(SEVEN)
    aged(tmp_path / "llama-7b.json")
    reader = live.FolderReader(tmp_path, None, MMLU, settle=0.05)
    watcher = live.Live([reader], lambda per, problems: (assemble(Catalog([]), per, problems),
                                                         problems), lambda snapshot: None)
    watcher.refresh(initial=True)
    fid = "import-" + tmp_path.name.lower().replace("_", "-")
    assert watcher.snapshot.catalog.ids == [fid] and watcher.snapshot.problems == []
    assert watcher.snapshot.catalog.figure(fid).spec.dims["model"].labels == ("llama-7b",)
    (tmp_path / "llama-13b.json").write_bytes(THIRTEEN)
    watcher.refresh()  # seen once: read when a second scan agrees
    time.sleep(0.1)
    assert watcher.refresh()
    figure = watcher.snapshot.catalog.figure(fid)
    assert figure.spec.dims["model"].labels == ("llama-7b", "llama-13b")
    assert figure.value(model="llama-13b", category="math", metric="accuracy") == 0.0
    assert watcher.snapshot.problems == [] and reader.reads == 2


def test_what_the_readers_said_stays_with_the_combined_figure(tmp_path):
    """Per-item tables read together keep their readers' warnings (a semicolon-separated CSV
    says so), as the same table imported alone keeps them; what several say is written once."""
    from evalmaps.catalog.imports import import_paths

    folder = tmp_path / "outputs"
    per_model_tables(folder, "csv")
    for path in folder.glob("*.csv"):
        path.write_text(path.read_text().replace(",", ";"))
    said = "Read as semicolon-separated."
    (alone,) = import_paths([folder / "llama-7b.csv"], MMLU, by_tool=True)
    (both,) = import_paths([folder], MMLU, by_tool=True)
    assert alone.spec["notes"].count(said) == 1
    assert both.spec["notes"].count(said) == 1  # said by both files, written once
    assert both.spec["dims"]["model"]["labels"] == ["llama-7b", "llama-13b"]
