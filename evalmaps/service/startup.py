"""The data the app serves: the built-in figures and the user's folders, loaded once at start-up.

A bad file does not stop start-up: it is skipped, and every problem (a file not served, a figure
given another id, a file that differs from its manifest) is one line of text, logged (logger
``evalmaps.data``, a warning each), listed by ``/healthz`` and shown in the app's banner. Only a
built-in catalog that cannot be read at all stops start-up (there would be nothing to serve).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from evalmaps.catalog.folders import load_folder, renamed, warn
from evalmaps.catalog.load import load_catalog, unique_id
from evalmaps.core.errors import DataError, not_served
from evalmaps.core.figure import Catalog
from evalmaps.service.settings import Settings

log = logging.getLogger("evalmaps.data")


@dataclass
class Loaded:
    catalog: Catalog
    problems: list[str] = field(default_factory=list)  # one line each, in the order met


def load_data(settings: Settings) -> Loaded:
    """The built-in figures (checked against their manifest: a file that differs is not served),
    then each folder of ``settings.extra_data`` (a figure whose id is taken gets a suffix)."""
    problems: list[str] = []
    catalog = load_catalog(settings.data_dir, cache_dir=settings.cache_dir, problems=problems,
                           manifest_check="refuse")
    taken = set(catalog.ids)
    extra = []
    for folder in settings.extra_data:
        try:
            figures = load_folder(folder, cache_dir=settings.cache_dir, problems=problems)
        except DataError as exc:  # the folder itself: missing, empty, its catalog unreadable
            problems.append(not_served(exc))
            continue
        for figure in figures:
            fid = unique_id(figure.id, taken)
            if fid != figure.id:
                warn(problems, f"Renamed: the figure '{figure.id}' of {folder} has the id of a "
                               f"figure served already; it is served as '{fid}'. Rename its file "
                               f"(or its catalog id) to choose its id.")
                figure = renamed(figure, fid)
            taken.add(fid)
            extra.append(figure)
    for line in problems:
        log.warning(line)
    return Loaded(catalog.with_figures(extra), problems)
