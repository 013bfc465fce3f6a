"""Start-up data (issue 11): a bad file in a data folder is skipped with one problem line while
every good file is served; ids never collide silently; the built-in files are checked against
data/manifest.json (a file cut short or edited is not served); a user folder's own manifest
flags a changed file.

Real files in temporary folders; whole results compared (ids, cells, the exact problem lines)."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from evalmaps.catalog import manifest
from evalmaps.catalog.folders import folder_files, load_folder
from evalmaps.catalog.load import load_catalog
from evalmaps.service.cli import main as cli
from evalmaps.service.settings import Settings
from evalmaps.service.startup import load_data

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
FIXTURES = ROOT / "tests" / "fixtures"
BUILTIN = [f["id"] for f in json.loads((DATA / "catalog.json").read_text())["figures"]]
TIDY = (FIXTURES / "tidy_small.csv").read_text(encoding="utf-8")
BROKEN = "model,type,value\nm,a,1\nm,b,2,3\n"


def settings(*extra: Path, data_dir: Path = DATA) -> Settings:
    return Settings(data_dir=data_dir, extra_data=tuple(extra), cache_dir=None)


def folder(root: Path, name: str, **files: str) -> Path:
    out = root / name
    out.mkdir()
    for file_name, text in files.items():
        (out / file_name).write_text(text, encoding="utf-8")
    return out


def copy_data(tmp_path: Path) -> Path:
    out = tmp_path / "data"
    shutil.copytree(DATA, out)
    return out


# ------------------------------------------------------------------------- the committed manifest

def test_the_committed_manifest_matches_data():
    """Fails when a file in data/ changes without `python scripts/make_manifest.py`."""
    counts = {manifest.key(DATA, path): figure.n_cells for path, figure in folder_files(DATA)}
    assert json.loads((DATA / "manifest.json").read_text(encoding="utf-8")) == \
        manifest.build(DATA, counts)
    assert sorted(counts) == sorted(f["file"] for f in json.loads(
        (DATA / "catalog.json").read_text())["figures"])


def test_the_manifest_command_writes_the_same_manifest(tmp_path, capsys):
    data = copy_data(tmp_path)
    (data / "manifest.json").unlink()
    assert cli(["manifest", str(data)]) == 0
    assert (data / "manifest.json").read_text() == (DATA / "manifest.json").read_text()
    assert capsys.readouterr().err == f"evalmaps: wrote {data / 'manifest.json'}\n"


def test_the_built_in_data_loads_with_no_problem():
    loaded = load_data(settings())
    assert (loaded.catalog.ids, loaded.problems) == (BUILTIN, [])


# ------------------------------------------------------------------------------ bad files skipped

def test_a_bad_csv_is_skipped_and_every_good_file_served(tmp_path, caplog):
    mine = folder(tmp_path, "mine", **{"tidy_small.csv": TIDY, "broken_results.csv": BROKEN,
                                       "zeta.csv": TIDY.replace("91.5", "91.75")})
    with caplog.at_level(logging.WARNING, logger="evalmaps.data"):
        loaded = load_data(settings(mine))
    assert loaded.catalog.ids == [*BUILTIN, "import-tidy-small", "import-zeta"]
    assert loaded.catalog.figure("import-zeta").value(model="m1", type="a", length="1") == 91.75
    assert loaded.problems == [
        "Not served: broken_results.csv, row 3: this row has 4 fields but the header has 3. Fix "
        "the row (a stray comma? a missing cell?) so every row has the header's columns."]
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("evalmaps.data", "WARNING", loaded.problems[0])]


def test_a_missing_folder_and_a_bad_catalog_file_are_problems_not_failures(tmp_path):
    data = copy_data(tmp_path)
    (data / "figures" / "short-to-long.csv").write_text("model,type,length,value\nX,1,5,7\n")
    (data / "manifest.json").unlink()
    loaded = load_data(settings(tmp_path / "nowhere", data_dir=data))
    assert loaded.catalog.ids == [i for i in BUILTIN if i != "short-to-long"]
    assert loaded.problems[0] == (f"Not checked: {data / 'manifest.json'} is missing, so the "
                                  f"built-in files cannot be checked. Regenerate it with "
                                  f"`evalmaps manifest {data}`.")
    assert loaded.problems[1].startswith(f"Not served: {data / 'figures' / 'short-to-long.csv'}, "
                                         f"row 2: 'X' is not a label of dimension 'model'")
    assert loaded.problems[2:] == [f"Not served: {tmp_path / 'nowhere'}: the data folder does not "
                                   f"exist. Give the path of a folder of CSV files."]


def test_a_problem_is_one_line_even_when_the_file_quotes_a_line_break(tmp_path):
    mine = folder(tmp_path, "mine", **{"a.csv": 'model,type,len,value\nm,a,1,"5\n6"\n'})
    (problem,) = load_data(settings(mine)).problems
    assert problem == ("Not served: a.csv, row 2, column 'value': the label '5\\x0a6' holds the "
                       "control character U+000A. Labels may not hold control characters (NUL, "
                       "tab, line break, ...); remove it.")


# ------------------------------------------------------------------------------------------ ids

def test_file_names_with_one_id_get_a_suffix_and_a_warning(tmp_path):
    mine = folder(tmp_path, "mine", **{"My Results.csv": TIDY,
                                       "my-results.csv": TIDY.replace("91.5", "12.5")})
    loaded = load_data(settings(mine))
    assert loaded.catalog.ids == [*BUILTIN, "import-my-results", "import-my-results-2"]
    first, second = (loaded.catalog.figure(i) for i in ("import-my-results", "import-my-results-2"))
    assert (first.spec.title, second.spec.title) == ("My Results.csv", "my-results.csv")
    assert second.value(model="m1", type="a", length="1") == 12.5
    assert list(second.panels) == ["m1", "m2"]
    assert loaded.catalog.panel("import-my-results-2:m1").figure_id == "import-my-results-2"
    assert loaded.problems == [
        f"Renamed: the files My Results.csv and my-results.csv in {mine} would both be the figure "
        f"'import-my-results'; my-results.csv is served as 'import-my-results-2'. Rename one of "
        f"them to choose its id."]


def test_a_folder_figure_with_a_built_in_or_another_folders_id_gets_a_suffix(tmp_path):
    one = folder(tmp_path, "one", **{"results.csv": TIDY})
    two = folder(tmp_path, "two", **{"results.csv": TIDY.replace("91.5", "1.5")})
    entry = json.loads((DATA / "catalog.json").read_text())["figures"][1]  # core-generalization
    three = folder(tmp_path, "three", **{"catalog.json": json.dumps({"figures": [entry]})})
    shutil.copytree(DATA / "figures", three / "figures")
    loaded = load_data(settings(one, two, three))
    assert loaded.catalog.ids == [*BUILTIN, "import-results", "import-results-2",
                                  f"{entry['id']}-2"]
    assert loaded.catalog.figure("import-results-2").value(model="m1", type="a", length="1") == 1.5
    assert loaded.problems == [
        f"Renamed: the figure 'import-results' of {two} has the id of a figure served already; it "
        f"is served as 'import-results-2'. Rename its file (or its catalog id) to choose its id.",
        f"Renamed: the figure '{entry['id']}' of {three} has the id of a figure served already; "
        f"it is served as '{entry['id']}-2'. Rename its file (or its catalog id) to choose its id."]


# ------------------------------------------------------------------------------------- manifest

def cut_at_a_line_boundary(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:len(lines) // 2]), encoding="utf-8")


def test_a_built_in_file_cut_at_a_line_boundary_is_not_served(tmp_path):
    data = copy_data(tmp_path)
    path = data / "figures" / "core-generalization.csv"
    cut_at_a_line_boundary(path)
    assert load_catalog(data).figure("core-generalization").n_cells == 40  # valid, but short
    loaded = load_data(settings(data_dir=data))
    assert loaded.catalog.ids == [i for i in BUILTIN if i != "core-generalization"]
    digest, want = manifest.sha256(path), manifest.read(data)["figures/core-generalization.csv"]
    assert loaded.problems == [
        f"Not served: {path}: the file does not match {data / 'manifest.json'} (it has 40 cells "
        f"where the manifest records 81; its sha256 is {digest[:12]}…, not {want.sha256[:12]}…): "
        f"it was cut short or edited. Restore it, or if the change is intended regenerate the "
        f"manifest with `evalmaps manifest {data}`."]


def test_a_built_in_file_with_a_value_edited_is_not_served(tmp_path):
    data = copy_data(tmp_path)
    path = data / "figures" / "short-to-long.csv"
    path.write_text(path.read_text().replace("77.3", "78.3", 1))
    loaded = load_data(settings(data_dir=data))
    assert loaded.catalog.ids == [i for i in BUILTIN if i != "short-to-long"]
    (problem,) = loaded.problems
    assert problem.startswith(f"Not served: {path}: the file does not match "
                              f"{data / 'manifest.json'} (its sha256 is ")


def test_a_user_folders_own_manifest_flags_a_changed_file_which_is_still_served(tmp_path):
    mine = folder(tmp_path, "mine", **{"a.csv": TIDY, "b.csv": TIDY})
    assert cli(["manifest", str(mine)]) == 0
    (mine / "b.csv").write_text(TIDY.replace("91.5", "92.5"))
    loaded = load_data(settings(mine))
    assert loaded.catalog.ids == [*BUILTIN, "import-a", "import-b"]
    assert loaded.catalog.figure("import-b").value(model="m1", type="a", length="1") == 92.5
    digest, want = manifest.sha256(mine / "b.csv"), manifest.read(mine)["b.csv"]
    assert loaded.problems == [
        f"Changed since its manifest: {mine / 'b.csv'}: its sha256 is {digest[:12]}…, not "
        f"{want.sha256[:12]}…. It is served as it is; if the change is intended, regenerate the "
        f"manifest with `evalmaps manifest {mine}`."]


def test_a_user_folder_without_a_manifest_is_not_checked(tmp_path):
    mine = folder(tmp_path, "mine", **{"a.csv": TIDY})
    assert load_data(settings(mine)).problems == []


def test_load_folder_without_a_problem_list_still_raises_on_a_bad_file(tmp_path):
    mine = folder(tmp_path, "mine", **{"a.csv": TIDY, "broken.csv": BROKEN})
    with pytest.raises(Exception) as info:
        load_folder(mine)
    assert str(info.value).startswith("broken.csv, row 3: this row has 4 fields")


# ------------------------------------------------------------------- links out of a data folder

def leaky(tmp_path: Path) -> Path:
    """A data folder with a good table and ``leak.csv -> ../outside/secret.csv``."""
    outside = folder(tmp_path, "outside", **{"secret.csv": TIDY.replace("91.5", "66.25")})
    mine = folder(tmp_path, "mine", **{"a.csv": TIDY})
    (mine / "leak.csv").symlink_to(Path("..") / outside.name / "secret.csv")
    return mine


def outside_line(path: Path) -> str:
    return (f"Not served: {path}: it is a link that leads outside the data folder, and links out "
            f"of a data folder are not followed. Copy the file into the folder to serve it.")


def test_a_link_out_of_a_data_folder_is_not_served_and_is_named(tmp_path):
    mine = leaky(tmp_path)
    (mine / "inner.csv").symlink_to("a.csv")  # a link that stays inside is served
    loaded = load_data(settings(mine))
    assert loaded.catalog.ids == [*BUILTIN, "import-a", "import-inner"]
    assert loaded.problems == [outside_line(mine / "leak.csv")]
    with pytest.raises(Exception, match="leads outside the data folder"):
        load_folder(mine)  # strict: raises as a bad file does


def test_a_link_out_of_a_folder_of_results_is_not_served(tmp_path):
    qwen, mistral = (next((FIXTURES / "formats" / "evalchemy" / name).glob("*.json"))
                     for name in ("Qwen__Qwen2.5-7B-Instruct", "mistralai__Mistral-7B-Instruct-v0.3"))
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copyfile(mistral, outside / mistral.name)
    mine = tmp_path / "sweep"
    mine.mkdir()
    shutil.copyfile(qwen, mine / qwen.name)
    (mine / "leak.json").symlink_to(outside / mistral.name)
    loaded = load_data(settings(mine))
    (figure,) = [f for f in loaded.catalog if f.id not in BUILTIN]
    assert all("Mistral" not in label for d in figure.spec.dims.values() for label in d.labels)
    assert any("Qwen" in label for d in figure.spec.dims.values() for label in d.labels)
    assert loaded.problems == [outside_line(mine / "leak.json")]


# ------------------------------------------------------------ a catalog field of the wrong type

def imported(tmp_path: Path, capsys, **changes) -> Path:
    """``evalmaps import -o mine/a.csv`` of tidy_small.csv, its .figure.json then edited by
    ``changes``, and a good b.csv beside it."""
    mine = tmp_path / "mine"
    mine.mkdir()
    assert cli(["import", str(FIXTURES / "tidy_small.csv"), "-o", str(mine / "a.csv")]) == 0
    capsys.readouterr()
    entry = mine / "a.figure.json"
    entry.write_text(json.dumps({**json.loads(entry.read_text()), **changes}), encoding="utf-8")
    (mine / "b.csv").write_text(TIDY, encoding="utf-8")
    return mine


@pytest.mark.parametrize("changes, problem", [
    ({"notes": 5}, '"notes" must be a list of texts, not a number.'),
    ({"notes": ["ok", {"a": 1}]}, '"notes" must be a list of texts, and it holds an object.'),
    ({"source": "a paper"}, '"source" must be an object of texts, not a text.'),
    ({"title": ["x"]}, '"title" must be a text or a number, not a list.'),
    ({"facets": "model"}, '"facets" must be a list of dimension names, not a text.'),
    ({"provenance": 3}, '"provenance" must be a text, not a number.'),
])
def test_a_mistyped_field_of_a_figure_json_is_a_problem_and_the_rest_is_served(
        tmp_path, capsys, changes, problem):
    mine = imported(tmp_path, capsys, **changes)
    loaded = load_data(settings(mine))
    assert loaded.catalog.ids == [*BUILTIN, "import-b"]
    assert loaded.problems == [
        f"Not served: {mine / 'a.figure.json'}, figure 'import-tidy-small': {problem} Fix it, or remove it "
        f"to use the default (see data/README.md for the catalog format)."]


def test_a_mistyped_field_of_a_catalog_json_is_a_problem_and_the_rest_is_served(tmp_path):
    data = copy_data(tmp_path)
    raw = json.loads((data / "catalog.json").read_text())
    raw["figures"][0]["notes"] = 5
    raw["figures"][1]["metric"]["unit"] = {"a": 1}
    (data / "catalog.json").write_text(json.dumps(raw), encoding="utf-8")
    loaded = load_data(settings(data_dir=data))
    assert loaded.catalog.ids == BUILTIN[2:]
    first, second = raw["figures"][0]["id"], raw["figures"][1]["id"]
    assert loaded.problems == [
        f"Not served: {data / 'catalog.json'}, figure '{first}': \"notes\" must be a list of "
        f"texts, not a number. Fix it, or remove it to use the default (see data/README.md for "
        f"the catalog format).",
        f"Not served: {data / 'catalog.json'}, figure '{second}': \"unit\" must be a text or a "
        f"number (the unit in metric), not an object. Fix it, or remove it to use the default "
        f"(see data/README.md for the catalog format)."]


def test_the_bundle_command_skips_a_mistyped_figure_json_with_a_warning(tmp_path, capsys):
    mine = imported(tmp_path, capsys, notes=5)
    out = tmp_path / "site"
    assert cli(["bundle", "--data", str(mine), "--figure", "import-b", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert (f"evalmaps: warning: Not served: {mine / 'a.figure.json'}, figure "
            f"'import-tidy-small': "
            f"\"notes\" must be a list of texts, not a number.") in err
    assert (out / "figures" / "import-b.html").is_file()


# ------------------------------------------------------------ what cannot be read is skipped

def unreadable(monkeypatch, *paths: Path) -> None:
    """As if ``paths`` were chmod 000 (the tests run as root, who reads them anyway): opening
    them raises the PermissionError an unprivileged server meets. Nothing else is touched."""
    real = Path.open
    locked = {str(p) for p in paths}

    def open_(self, *args, **kwargs):
        if str(self) in locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", open_)


def loaded_in_time(settings_: Settings, seconds: float = 30):
    """load_data, failing the test (not hanging it) when it does not finish."""
    import threading

    out = {}
    worker = threading.Thread(target=lambda: out.update(loaded=load_data(settings_)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert "loaded" in out, "start-up hung"
    return out["loaded"]


@pytest.mark.parametrize("watch", ["off", "auto"])
def test_an_unreadable_file_a_pipe_and_a_dangling_link_are_named_and_the_rest_served(
        tmp_path, monkeypatch, watch):
    import os

    mine = folder(tmp_path, "mine", **{"a.csv": TIDY, "locked.csv": TIDY})
    os.mkfifo(mine / "pipe.csv")
    (mine / "gone.csv").symlink_to(mine / "nowhere.csv")
    unreadable(monkeypatch, mine / "locked.csv")
    loaded = loaded_in_time(Settings(data_dir=DATA, extra_data=(mine,), cache_dir=None,
                                     store_dir=None, watch=watch))
    assert loaded.catalog.ids == [*BUILTIN, "import-a"]
    assert loaded.problems == [
        f"Not served: {mine / 'gone.csv'}: it is a link to a file that does not exist. Remove "
        f"the link, or restore the file it points to.",
        f"Not served: {mine / 'pipe.csv'}: it is not a regular file (a named pipe, socket or "
        f"device), so it is not read. Write the results to a regular file.",
        f"Not served: {mine / 'locked.csv'}: cannot read the file (Permission denied). Check its "
        f"permissions, or remove it."]


def test_a_catalog_figure_that_cannot_be_read_is_named_and_the_rest_served(tmp_path,
                                                                           monkeypatch):
    import os

    data = copy_data(tmp_path)
    pipe = data / "figures" / "short-to-long.csv"
    pipe.unlink()
    os.mkfifo(pipe)
    locked = data / "figures" / f"{BUILTIN[0]}.csv"
    entry = next(f for f in json.loads((data / "catalog.json").read_text())["figures"]
                 if f["id"] == BUILTIN[0])
    locked = data / entry["file"]
    unreadable(monkeypatch, locked)
    (data / "manifest.json").unlink()
    loaded = loaded_in_time(settings(data_dir=data))
    assert loaded.catalog.ids == [i for i in BUILTIN if i not in ("short-to-long", BUILTIN[0])]
    assert f"Not served: {locked}: cannot read the file (Permission denied). Check its " \
           f"permissions, or remove it." in loaded.problems
    assert f"Not served: {pipe}: the figure file is not a regular file (a named pipe, socket " \
           f"or device), so it is not read. Write the cells to a regular file." in loaded.problems
