"""The data the app serves: the built-in figures and the user's folders, loaded at start-up
(and, while the server runs, again where a watched folder changes: :mod:`evalmaps.service.live`).

A bad file does not stop start-up: it is skipped, and every problem (a file not served, a figure
given another id, a file that differs from its manifest) is one line of text, logged (logger
``evalmaps.data``, a warning each), listed by ``/healthz`` and shown in the app's banner. Only a
built-in catalog that cannot be read at all stops start-up (there would be nothing to serve).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from evalmaps.catalog.folders import load_folder, renamed
from evalmaps.catalog.load import load_catalog, unique_id
from evalmaps.core.errors import DataError
from evalmaps.core.figure import Catalog
from evalmaps.core.problems import Problems
from evalmaps.service import live as live_folders
from evalmaps.service.objects import is_url
from evalmaps.service.settings import Settings

log = logging.getLogger("evalmaps.data")


@dataclass
class Loaded:
    catalog: Catalog
    problems: list[str] = field(default_factory=list)  # one line each, in the order met
    live: live_folders.Live | None = None  # the watched folders (None: not watched)


def assemble(builtin: Catalog, per_folder, problems: Problems) -> Catalog:
    """The built-in figures, then each folder's (``per_folder``: (folder, figures) pairs); a
    figure whose id is taken gets a suffix, with a warning added to ``problems``."""
    taken = set(builtin.ids)
    extra = []
    for folder, figures in per_folder:
        for figure in figures:
            fid = unique_id(figure.id, taken)
            if fid != figure.id:
                problems.warn(f"Renamed: the figure '{figure.id}' of {folder} has the id of a "
                              f"figure served already; it is served as '{fid}'. Rename its file "
                              f"(or its catalog id) to choose its id.")
                figure = renamed(figure, fid)
            taken.add(fid)
            extra.append(figure)
    return builtin.with_figures(extra)


def load_data(settings: Settings) -> Loaded:
    """The built-in figures (checked against their manifest: a file that differs is not served),
    then each folder of ``settings.extra_data`` (a figure whose id is taken gets a suffix).
    With ``settings.watch`` on, the folders are read through :class:`live.Live`, which keeps
    them up to date once :meth:`live.Live.ensure_running` is called in the serving process."""
    problems = Problems()
    builtin = load_catalog(settings.data_dir, cache_dir=settings.cache_dir, problems=problems,
                           manifest_check="refuse")
    if settings.watch != "off" and settings.extra_data:
        return _load_watched(settings, builtin, problems)
    per_folder = []
    for folder in settings.extra_data:
        try:
            local = _copied(folder, settings) if is_url(folder) else folder
            per_folder.append((folder, load_folder(local, cache_dir=settings.cache_dir,
                                                   problems=problems,
                                                   options=settings.data_options)))
        except DataError as exc:  # the folder itself: missing, empty, its catalog unreadable
            problems.not_served(exc)
    catalog = assemble(builtin, per_folder, problems)
    for line in problems:
        log.warning(line)
    return Loaded(catalog, list(problems))


def _load_watched(settings: Settings, builtin: Catalog, startup: Problems) -> Loaded:
    """The folders read through a :class:`live.Live`: its first snapshot is start-up's data."""
    def put_together(per_folder, problems):
        lines = Problems([*startup, *problems])
        return assemble(builtin, per_folder, lines), list(lines)

    def report(snapshot):  # every problem new since the last snapshot, logged once
        for line in snapshot.problems:
            if line not in reported:
                log.warning(line)
        reported.clear()
        reported.update(snapshot.problems)

    reported: set[str] = set()
    watched = live_folders.Live(
        [_reader(folder, settings) for folder in settings.extra_data],
        put_together, report, mode=settings.watch)
    watched.refresh(initial=True)
    snapshot = watched.snapshot
    return Loaded(snapshot.catalog, snapshot.problems, watched)


def _copied(url: str, settings: Settings) -> Path:
    """A data folder on object storage (``s3://``), copied to this host to be read once."""
    from evalmaps.service.prefixes import local_folder

    return local_folder(url, settings.cache_dir)


def _reader(folder: Path | str, settings: Settings) -> live_folders.FolderReader:
    """A watched data folder's reader: a folder's, or an object store prefix's (polled)."""
    if not is_url(folder):
        return live_folders.FolderReader(folder, settings.cache_dir, settings.data_options)
    from evalmaps.service.prefixes import PrefixReader

    return PrefixReader(folder, settings.cache_dir, settings.data_options)
