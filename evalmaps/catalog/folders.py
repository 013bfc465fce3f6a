"""A user's data folder: its own catalog.json (like data/), or else every table in it imported
as one figure each, or else (no tables) the evaluation tools' results in it as one figure.
Through the cache when one is given; two files that would have one id are told apart."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from evalmaps.catalog import cache, columnar, items, manifest
from evalmaps.catalog.imports import (
    Found,
    figure_of,
    finish_sources,
    import_bytes,
    read_source,
)
from evalmaps.catalog.load import (
    catalog_figures,
    check_manifest,
    folder_manifest,
    load_catalog,
    load_figure,
    parse_spec,
    unique_id,
)
from evalmaps.core.errors import DataError
from evalmaps.core.figure import Figure, short_slug
from evalmaps.core.problems import STRICT, Problems
from evalmaps.readers.base import SUFFIXES, ImportFailed, ImportOptions, parse_json

SIDECAR = ".figure.json"  # <name>.figure.json beside <name>.csv: its catalog entry
ITEMS = ".items"  # <name>.items/ beside <name>.csv: its per-item records (scores.parquet, ...)


def sidecar(path: Path) -> Path:
    """Where the catalog entry of the table ``path`` is kept, when it has one (``evalmaps
    import -o`` writes it, so that what the import knew is served as it was)."""
    return path.with_name(path.stem + SIDECAR)


def write_import(imported, out: Path) -> Path:
    """An import as a data folder's file: the tidy cells at ``out`` and its catalog entry beside
    them (:func:`sidecar`), so that ``evalmaps serve --data <out's folder>`` serves the figure
    exactly as imported: its metrics' names, units, ranges and directions, dimension titles and
    label order. Returns the entry's path."""
    out = Path(out)
    spec = {**imported.spec, "file": out.name}
    if imported.items is not None:  # the per-item records beside the cells
        folder = out.with_name(out.stem + ITEMS)
        items.save(folder, figure_dims(spec), imported.items)
        spec["items"] = folder.name
    imported.write_csv(out)
    entry = sidecar(out)
    entry.write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return entry


def _import_file(path, cache_dir, options: ImportOptions = ImportOptions()) -> Figure:
    """One file of a data folder (CSV or Parquet) -> its figure, through the cache if given.
    A table with a catalog entry beside it (:func:`sidecar`) is loaded as that entry says;
    another is read with the folder's table ``options`` (``serve --data DIR --item ...``), which
    are part of the cache key."""
    entry = sidecar(path)
    if entry.is_file():
        return _load_with_entry(path, entry, cache_dir)
    data = read_file(path)
    parquet = path.suffix.lower() == ".parquet"
    if parquet and options.format == "auto":
        options = dataclasses.replace(options, format="tidy")
    key = None
    if cache_dir is not None:
        key = cache.key("import", path.suffix.lower(), path.name,
                        json.dumps(options.to_dict()), data)
        hit = cache.load(cache_dir, key)
        if hit is not None and isinstance(hit.meta.get("spec"), dict):
            spec = parse_spec(hit.meta["spec"], where=f"import of {path.name}")
            figure = Figure(spec, hit.cells, hit.decimals)
            if not hit.meta.get("items"):
                return figure
            if items.attach(figure, Path(cache_dir) / f"{key}{ITEMS}").items is not None:
                return figure  # else the records are gone from the cache: import again
    (imported,) = import_bytes(data, path.name, options, max_bytes=None)
    del data  # the import holds what it needs: free the file's bytes before building the figure
    figure = with_items(figure_of(imported), imported, cache_dir, key)
    if key is not None:
        cache.store(cache_dir, key, figure.cells, figure.decimals,
                    {"spec": imported.spec, "items": imported.items is not None})
    return figure


def figure_dims(spec: dict) -> list[str]:
    """An import's catalog entry's dims in the cells' order: facets, y, x."""
    return [*spec["facets"], spec["y"], spec["x"]]


def with_items(figure: Figure, imported, cache_dir, key: str | None = None) -> Figure:
    """``figure`` with the import's per-item records kept where a data folder's figure keeps
    them: in the cache (``<key>.items``, keyed by content: by the records' own when no key is
    given), or, without a cache, in a temporary folder of this process."""
    if imported.items is None:
        return figure
    dims = list(figure.spec.dim_names)
    if cache_dir is not None:
        key = key or cache.key("items", json.dumps(dims), items.digest(imported.items))
        folder = Path(cache_dir) / f"{key}{ITEMS}"
        if items.attach(figure, folder).items is not None:
            return figure
        try:
            figure.items = items.save(folder, dims, imported.items)
            return figure
        except OSError:
            pass  # a cache that cannot be written is no cache
    import os
    import tempfile
    import weakref

    folder = tempfile.mkdtemp(prefix="evalmaps-items-")
    figure.items = items.save(folder, dims, imported.items)
    # the folder lasts as long as the records that read it (no request is reading them then):
    # a watched file read again, or deleted, leaves no folder behind; nor does the process
    weakref.finalize(figure.items, _remove_own, folder, os.getpid())
    return figure


def _remove_own(folder: str, pid: int) -> None:
    """Remove the temporary folder of per-item records made by the process ``pid``, when this
    is it: a forked worker's copy of a figure read before the fork (at start-up) is not the
    only one, and the folder is left to the process that made it."""
    import os
    import shutil

    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)


def _load_with_entry(path: Path, entry: Path, cache_dir) -> Figure:
    try:
        raw = json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ImportFailed(f"the catalog entry {entry.name} beside it cannot be read ({exc}). "
                           f"Import the results again, or remove it to import the table as it "
                           f"is.", file=str(path)) from None
    if not isinstance(raw, dict):
        raise ImportFailed(f"the catalog entry {entry.name} beside it is not a JSON object. "
                           f"Import the results again, or remove it.", file=str(path))
    spec = parse_spec({**raw, "file": path.name}, where=str(entry))
    # the table beside its entry is evalmaps' own, written for spreadsheets: read back exactly
    return load_figure(spec, path, cache_dir, neutralised=True)


def load_folder(folder, cache_dir: str | Path | None = None,
                problems: Problems = STRICT,
                options: ImportOptions = ImportOptions()) -> list[Figure]:
    """A user's folder: its own catalog.json (like data/), or else every *.csv and *.parquet
    imported (auto-detected CSV format; Parquet: tidy). No size limit: files on disk are the
    user's own. ``cache_dir``: where validated cells are kept between start-ups (None: none).

    ``problems``: strict (the default), and a bad file raises its ImportFailed; a
    :class:`~evalmaps.core.problems.Problems` collector, and a bad file is skipped with one line
    added. Either way two files that would have one id get ``-2``, ``-3``, ... with a warning
    (in ``problems``, else logged). A folder's own ``manifest.json`` is checked:
    a file that does not match it is served with a warning (:mod:`evalmaps.catalog.manifest`).
    ``options``: how its tables are read, as ``evalmaps import`` reads them with the same options
    (a catalog.json folder's figures say it all themselves)."""
    folder = Path(folder)
    if folder.is_file():
        raise ImportFailed(f"--data takes a folder, and this is a file. To serve one file, put it "
                           f"in a folder of its own (mkdir my-data && mv {folder.name} my-data/) "
                           f"and give --data my-data.", file=str(folder))
    if not folder.is_dir():
        raise ImportFailed("the data folder does not exist. Give the path of a folder of CSV "
                           "files.", file=str(folder))
    if (folder / "catalog.json").exists():
        return list(load_catalog(folder, cache_dir=cache_dir, problems=problems,
                                 manifest_check="flag"))
    with columnar.lean_memory():
        return _load_files(folder, cache_dir, problems, options=options)


def inside(folder: Path, path: Path) -> bool:
    """Whether ``path``, its links followed, is in ``folder`` (itself resolved): a data folder
    serves only what is in it. A link that leads out of it (``leak.csv -> ../outside/x.csv``),
    or a loop of links, is not followed (as the bundle writer never writes outside its folder)."""
    try:
        root, target = Path(folder).resolve(), Path(path).resolve()
    except (OSError, RuntimeError):  # a loop of links
        return False
    return root in target.parents


def outside_error(path: Path) -> DataError:
    """The problem of a file found in a data folder that is a link leading out of it. (A
    catalog.json names its files itself, anywhere: its author chose them.)"""
    return DataError("it is a link that leads outside the data folder, and links out of a data "
                     "folder are not followed. Copy the file into the folder to serve it.",
                     file=str(path))


def _servable(folder: Path, paths, skipped: list[DataError] | None) -> list[Path]:
    """``paths`` without what cannot be served as a file of ``folder``: links that lead out
    of it (:func:`inside`), links to nothing, and what is not a regular file. Their problems
    are added to ``skipped`` (when given) for the problems list."""
    kept = []
    for path in paths:
        why = (outside_error(path) if not inside(folder, path)
               else _not_regular(path))
        if why is None:
            kept.append(path)
        elif skipped is not None:
            skipped.append(why)
    return kept


def _not_regular(path: Path) -> DataError | None:
    """The problem of a file of a data folder that cannot be read as one, or None: a link to
    nothing, or not a regular file (a named pipe would hang the read; a socket or device is no
    table)."""
    if path.is_file():
        return None
    if path.is_symlink() and not path.exists():
        return DataError("it is a link to a file that does not exist. Remove the link, or "
                         "restore the file it points to.", file=str(path))
    return DataError("it is not a regular file (a named pipe, socket or device), so it is not "
                     "read. Write the results to a regular file.", file=str(path))


def _data_files(folder: Path, skipped: list[DataError] | None = None) -> list[Path]:
    """The folder's tables; when it has none of its own and holds no results files, the tables
    in its subfolders (a download that keeps its data one folder down). What cannot be served
    as a file (:func:`_servable`) is left out (its problem added to ``skipped`` when given)."""
    files = _servable(folder, sorted([*folder.glob("*.csv"), *folder.glob("*.parquet")]),
                      skipped)
    if not files and not _harness_folder(folder):
        files = _servable(folder, sorted(
            p for p in [*folder.rglob("*.csv"), *folder.rglob("*.parquet")]
            if not any(part.startswith(".") for part in p.relative_to(folder).parts)), skipped)
    if not files and not _harness_folder(folder):
        raise ImportFailed("the data folder holds no .csv files and no catalog.json.",
                           file=str(folder))
    return files


def _harness_folder(folder: Path) -> bool:
    """A folder of evaluation tools' results (no tables): it loads as one figure."""
    return any(p.suffix.lower() in (".json", ".eval", ".zip") for p in folder.rglob("*"))


def harness_files(folder: Path, skipped: list[DataError] | None = None) -> list[Path]:
    """The files of a folder of evaluation tools' results, as an import of the folder reads
    them: every results file below it, in order of path, hidden ones left out, and what cannot
    be served as a file (:func:`_servable`: its problem added to ``skipped`` when given)."""
    return _servable(folder, sorted(p for p in folder.rglob("*") if not p.is_dir()
                                    and p.suffix.lower() in SUFFIXES
                                    and not p.name.startswith(".")), skipped)


def read_file(path: Path) -> bytes:
    """A data folder's file, whole; one that cannot be read (its permissions, removed
    meanwhile, an I/O error) is an ImportFailed naming it, so that it is skipped as a bad file
    is, never a traceback that stops start-up or a watched folder's updates."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ImportFailed(f"cannot read the file ({exc.strerror or exc}). Check its "
                           f"permissions, or remove it.", file=str(path)) from None


def read_harness_file(path: Path, options: ImportOptions = ImportOptions()) -> Found:
    """One file of a folder of results, read (:func:`evalmaps.catalog.imports.read_source`). A
    ``.json`` that does not parse (cut short, or still being written) is a DataError naming it,
    not a file skipped as "not results"."""
    return read_harness_bytes(path, read_file(path), options)


def read_harness_bytes(path: Path, data: bytes, options: ImportOptions = ImportOptions()) -> Found:
    """:func:`read_harness_file` of the file's bytes, read already."""
    found = read_source(path.as_posix(), data, True, options, None)
    if path.suffix.lower() == ".json" and not found.readings and parse_json(data) is None:
        raise ImportFailed("the file is not valid JSON: it was cut short or is still being "
                           "written. Write it again whole, or remove it.", file=str(path))
    return found


def harness_figures(folder: Path, founds: list[Found], cache_dir=None,
                    options: ImportOptions = ImportOptions()) -> list[Figure]:
    """A folder of results' figures, one per tool, from its files' :func:`read_harness_file`
    (in :func:`harness_files`' order). The id comes from the folder's name (one tool), or its
    name and the tool's: not from how many files it holds, so it stays as a sweep grows.
    ``options``: how the tables among them are read (per-item tables: one figure, as an import
    of the folder with the same options makes it)."""
    merged = Found()
    for found in founds:
        merged.readings += found.readings
        merged.tables += found.tables
        merged.given += found.given
        merged.skipped += found.skipped
    imports = finish_sources(merged, folder.as_posix(), options, None,
                             by_tool=True)
    base = "import-" + (short_slug(folder.resolve().name) or "results")
    figures = []
    for imported in imports:
        imported.spec["id"] = base if len(imports) == 1 else f"{base}-{short_slug(imported.format)}"
        figures.append(with_items(figure_of(imported), imported, cache_dir))
    return figures


def _load_files(folder: Path, cache_dir, problems: Problems = STRICT,
                read=None, options: ImportOptions = ImportOptions(),
                combine=None) -> list[Figure]:
    """``read``: how one file is read (None: as it is); a watched folder's keeps what it read
    (:mod:`evalmaps.service.live`). It returns None for a file not to be served yet; with
    ``combine``, what the results files' reads gave is put together by ``combine(gave)``. Tables
    that ``options`` name per-item records are read together, as ``evalmaps import DIR`` reads
    them (one file per model, ``--set model={file}``, is ONE figure), not a figure each."""
    skipped: list[DataError] = []  # links out, pipes, ...: named in the problems, never read
    try:
        files = _data_files(folder, skipped)
        together = not files or options.per_item  # read together (per-item tables too): one per tool
        if together:
            files = files or harness_files(folder, skipped)
    finally:
        _report_skipped(skipped, problems)
    if together:
        founds = []
        for path in files:
            try:
                found = read(path) if read is not None else read_harness_file(path, options)
            except DataError as exc:
                problems.not_served(exc)
                continue
            if found is not None:
                founds.append(found)
        if not founds and read is not None:
            return []  # a watched folder whose first results are still to come
        try:
            if combine is not None:  # a watched folder's: what ``read`` gave, put together
                return combine(founds)
            return harness_figures(folder, founds, cache_dir, options)
        except DataError as exc:
            problems.not_served(exc)
            return []
    expected = folder_manifest(folder, "flag", problems)
    figures, where = [], {}  # where: figure id -> the file it came from
    for path in files:
        try:
            figure = read(path) if read is not None else _import_file(path, cache_dir, options)
            if figure is None:
                continue
            if expected is not None:
                check_manifest(expected, folder, path, figure, "flag", problems)
        except DataError as exc:
            problems.not_served(exc)
            continue
        fid = unique_id(figure.id, where)
        if fid != figure.id:  # 'My Results.csv' and 'my-results.csv'; runs.csv and runs.parquet
            problems.warn(f"Renamed: the files {where[figure.id]} and {path.name} in {folder} "
                          f"would both be the figure '{figure.id}'; {path.name} is served as "
                          f"'{fid}'. Rename one of them to choose its id.")
            figure = renamed(figure, fid)
        where[fid] = path.name
        figures.append(figure)
    return figures


def _report_skipped(skipped: list[DataError], problems: Problems = STRICT) -> None:
    """The files of a data folder that cannot be served as files, each a problem (strict
    ``problems``: the first raises, as a bad file does)."""
    for exc in skipped:
        problems.not_served(exc)


def folder_files(folder: Path) -> list[tuple[Path, Figure]]:
    """Every file of a data folder with its figure, loaded strictly (the first bad file raises)
    and without a manifest check: what ``evalmaps manifest`` records."""
    folder = Path(folder)
    if (folder / "catalog.json").exists():
        return catalog_figures(folder)[0]
    with columnar.lean_memory():
        return [(path, _import_file(path, None)) for path in _data_files(folder)]


def write_manifest(folder: Path) -> Path:
    """Load the folder strictly (every file must validate) and write its manifest.json."""

    folder = Path(folder)
    counts = {manifest.key(folder, path): figure.n_cells for path, figure in folder_files(folder)}
    out = folder / manifest.MANIFEST
    out.write_text(json.dumps(manifest.build(folder, counts), indent=2, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    return out


def renamed(figure: Figure, figure_id: str) -> Figure:
    """The same figure under another id (with its per-item records)."""
    out = Figure(dataclasses.replace(figure.spec, id=figure_id), figure.cells, figure.decimals)
    out.items = figure.items
    return out
