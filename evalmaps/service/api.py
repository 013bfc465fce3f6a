"""The Python API: :func:`read` and :func:`compare` (``evalmaps.read``, ``evalmaps.compare``), and
what ``evalmaps compare`` shares with them.

A side of a comparison is what ``evalmaps import`` takes (a file, a folder, a zip; read with the
same table options ``item``, ``correct``, ``set``, ``drop``, ``rename``), a figure :func:`read`
returned, or a reference into the catalog: a panel key ``FIGURE:PANEL``, ``mean(...)`` or a
label ``FIGURE:DIM=LABEL`` of the built-in figures and of ``data`` folders (read as ``evalmaps
serve --data`` reads them). Two imports are made one figure
(:func:`evalmaps.catalog.pairs.pair_imports`); either way the comparison is the one view model
behind ``/api/compare`` (:class:`evalmaps.views.models.CompareView`), so its numbers are the
page's.
"""

from __future__ import annotations

import os
import pkgutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from evalmaps.analysis import compare as comparing
from evalmaps.catalog.folders import with_items
from evalmaps.catalog.imported import Imported
from evalmaps.catalog.imports import figure_of, import_paths
from evalmaps.catalog.pairs import merge_imports, pair_imports, side_names
from evalmaps.core.errors import EvalmapsError
from evalmaps.core.figure import Catalog, Figure
from evalmaps.readers.base import ImportOptions
from evalmaps.service import compare_rows
from evalmaps.views.models import CompareView
from evalmaps.views.rank import RankView

__all__ = ["Results", "compare", "rank", "read", "show"]

PathLike = str | os.PathLike
NOTEBOOK = "components.notebook:display_figure"  # a figure's display in a notebook
NOTEBOOK_COMPARISON = "components.notebook:display_comparison"  # a comparison's


class SideError(EvalmapsError, ValueError):
    """A side of a comparison that names nothing readable, or two sides that do not go
    together (a file and a panel key)."""


@dataclass(frozen=True, eq=False)
class Results:
    """A figure read from results files (:func:`read`): its tidy ``cells`` and its per-item
    ``items`` as DataFrames; ``figure`` is the validated figure the app would show."""

    figure: Figure
    source: str  # the path it was read from
    imported: Imported = field(repr=False)

    @property
    def cells(self) -> pd.DataFrame:
        """One row per cell the results give: the dimension columns (text), ``value``, and
        ``se``, ``sd``, ``n`` where the source gives them."""
        return self.figure.cells.copy()

    @property
    def items(self) -> pd.DataFrame | None:
        """The per-item records: the dimension columns, ``item``, ``sample`` and ``score`` (one
        row per item and sample), or None when the results have none."""
        if self.figure.items is None:
            return None
        return pd.read_parquet(self.figure.items.scores_path)

    @property
    def dims(self) -> dict[str, list[str]]:
        """Each dimension's labels, facets first, then the rows' and the columns'."""
        spec = self.figure.spec
        return {d: list(spec.dims[d].labels) for d in spec.dim_names}

    def _ipython_display_(self) -> None:
        """In a notebook: its panels' heatmaps as Browse draws them (:data:`NOTEBOOK`, named by
        string as ``evalmaps serve`` names the web app: the domain never imports it)."""
        pkgutil.resolve_name(NOTEBOOK)(self)

    def __repr__(self) -> str:
        spec = self.figure.spec
        shape = " × ".join(f"{d} ({len(spec.dims[d].labels)})" for d in spec.dim_names)
        items = "no per-item records" if self.figure.items is None else "per-item records"
        return (f"<evalmaps.Results {self.source!r}: {self.figure.n_cells} cells of "
                f"{spec.metric.name}, {shape}; {items}>")


def table_options(item: str | None = None, correct: str | tuple[str, str] | None = None,
                  set: Mapping[str, str] | Iterable[str] | None = None,
                  drop: Iterable[str] = (), rename: Iterable[str] = (),
                  cluster: str | None = None) -> ImportOptions:
    """The table options as ``evalmaps import`` parses them: ``correct`` as ``"pred=answer"``
    or ``("pred", "answer")``, ``set`` as ``{"model": "{file}"}`` or ``["model={file}"]``,
    ``rename`` as ``["model:old=new"]``, ``cluster`` the column that groups the items. A bad
    one is an error that says what to give."""
    if isinstance(correct, tuple):
        correct = "=".join(correct)
    fixed = ([f"{k}={v}" for k, v in set.items()] if isinstance(set, Mapping)
             else list(set or []))
    return ImportOptions.parse(item, correct, fixed, list(drop), list(rename), cluster)


def _import(path: PathLike, options: ImportOptions) -> Imported:
    path = Path(path)
    if not path.exists():
        raise SideError(f"{path}: cannot read the file (No such file or directory). Check the "
                        f"path.")
    (imported,) = import_paths([path], options)
    return imported


def read(path: PathLike, *, item: str | None = None,
         correct: str | tuple[str, str] | None = None,
         set: Mapping[str, str] | Iterable[str] | None = None, drop: Iterable[str] = (),
         rename: Iterable[str] = ()) -> Results:
    """The results at ``path`` (a file, a folder or a zip, as ``evalmaps import`` takes them)
    as one figure. ``item``, ``correct``, ``set``, ``drop``, ``rename``: ``evalmaps import``'s
    ``--item``, ``--correct``, ``--set``, ``--drop``, ``--rename`` for per-item tables
    (:func:`table_options`). Bad files raise :class:`evalmaps.EvalmapsError` with a message
    that says what to fix."""
    return read_with(path, table_options(item, correct, set, drop, rename))


def read_with(path: PathLike, options: ImportOptions) -> Results:
    """:func:`read` with the table options parsed."""
    imported = _import(path, options)
    figure = with_items(figure_of(imported), imported, cache_dir=None)
    return Results(figure, str(path), imported)


Side = PathLike | Results


def is_reference(side: object) -> bool:
    """Whether a side names a panel, a mean or a label of the catalog rather than a path: it is
    no existing path and reads as ``FIGURE:PANEL``, ``mean(...)`` or ``FIGURE:DIM=LABEL``."""
    if not isinstance(side, str) or Path(side).exists():
        return False
    if comparing.is_label_ref(side):
        return True
    try:
        comparing.parse_ref(side)
    except comparing.CompareError:
        return False
    return True


def catalog_of(data: Sequence[PathLike], options: ImportOptions) -> tuple[Catalog, list[str]]:
    """The built-in figures and the ``data`` folders' (as ``evalmaps serve --data`` reads them,
    with the table options for their tables), and the problems met (a file not served, a
    figure renamed: one line each)."""
    from evalmaps.service.objects import is_url
    from evalmaps.service.settings import Settings, resolved
    from evalmaps.service.startup import load_data

    for folder in data:
        if not is_url(str(folder)) and not Path(folder).is_dir():
            raise SideError(f"--data {folder}: not a folder. Give a folder of results, or an "
                            f"s3://bucket/folder URL.")
    settings = Settings.from_env(extra_data=tuple(resolved(str(d), "--data") for d in data)
                                 or None,
                                 data_options=options if options.table_options else None,
                                 watch="off")
    loaded = load_data(settings)
    return loaded.catalog, list(loaded.problems)


def compare_query(a_ref: str, b_ref: str, k: int = 1, fix: Mapping[str, str] | None = None,
                  ydim: str | None = None, xdim: str | None = None,
                  avg: Iterable[str] = (), cluster: str | None = None) -> dict[str, list[str]]:
    """The ``/api/compare`` query of these choices (what the page's address would hold)."""
    query = {"a": [a_ref], "b": [b_ref]}
    if k != 1:
        query["k"] = [str(k)]
    if cluster:
        query["cluster"] = [cluster]
    for dim, label in (fix or {}).items():
        query[dim] = [label]
    if ydim is not None:
        query["ydim"] = [ydim]
    if xdim is not None:
        query["xdim"] = [xdim]
    if avg:
        query["avg"] = list(avg)
    return query


@dataclass(frozen=True, eq=False)
class Comparison:
    """The view of A against B, the ``/api/compare`` query it answers, and the problems met
    reading ``data`` folders."""

    view: CompareView
    query: dict[str, list[str]]
    problems: tuple[str, ...] = ()
    files: bool = False  # A and B are files made one figure (else references into a catalog)
    # two labels of a dimension: the dimensions of several labels fixed at one, and that label
    fixed: tuple[tuple[str, str], ...] = ()


def _made(catalog: Catalog, query: dict, problems=(), files: bool = False) -> Comparison:
    """The view of ``query`` on ``catalog``, with the dimensions its grid fixes that have
    other labels to pick (``--fix``)."""
    view = CompareView.from_query(catalog, query)
    grid = view.alignment.a.grid
    fixed = ()
    if grid is not None:
        spec = catalog.figure(view.alignment.a.figure_ids[0]).spec
        fixed = tuple((d, label) for d, label in grid.fixed if len(spec.dims[d].labels) > 1)
    return Comparison(view, query, tuple(problems), files, fixed)


def compare_view(a: Side, b: Side, *, data: Sequence[PathLike] = (), k: int = 1,
                 fix: Mapping[str, str] | None = None, ydim: str | None = None,
                 xdim: str | None = None, avg: Iterable[str] = (),
                 options: ImportOptions = ImportOptions()) -> Comparison:
    """The view of A against B (the module's docstring): two references into the catalog of
    the built-in figures and ``data``, or two paths or :func:`read` figures, made one figure."""
    refs = [is_reference(side) for side in (a, b)]
    for name, side, ref in (("A", a, refs[0]), ("B", b, refs[1])):
        if not ref and not isinstance(side, Results) and not Path(side).exists():
            raise SideError(f"{name}: {side}: no such file, folder or zip, and not a key of a "
                            f"panel (FIGURE:PANEL, as evalmaps serve's /api/figures lists "
                            f"them). Check the path or the key.")
    if refs[0] != refs[1]:
        raise SideError("A names " + ("a panel and B a file" if refs[0] else
                                      "a file and B a panel") +
                        ": give both as files (folders, zips) or both as FIGURE:PANEL keys of "
                        "--data folders or built-in figures.")
    if refs[0]:
        catalog, problems = catalog_of(data, options)
        query = compare_query(str(a), str(b), k, fix, ydim, xdim, avg, options.cluster)
        return _made(catalog, query, problems)
    if data:
        raise SideError("--data folders are read for FIGURE:PANEL keys; A and B are files. "
                        "Leave out --data, or name panels of its figures.")
    sides = [side.imported if isinstance(side, Results) else _import(side, options)
             for side in (a, b)]
    names = side_names(*(side.source if isinstance(side, Results) else str(side)
                         for side in (a, b)))
    paired = pair_imports(sides[0], sides[1], names)
    query = compare_query(paired.a_ref, paired.b_ref, k, fix, ydim, xdim, avg, options.cluster)
    return _made(Catalog([paired.figure]), query, files=True)


class ComparisonFrame(pd.DataFrame):
    """What :func:`compare` returns: a pandas DataFrame (one row per cell) that, shown in a
    notebook, draws the comparison as Compare does, its A, B and B − A maps above the table
    (:data:`NOTEBOOK_COMPARISON`, named by string: the domain never imports ``components``).
    Anything made from it (a selection, a sort) is a plain DataFrame."""

    _metadata = ["_comparison"]

    @property
    def _constructor(self):
        return pd.DataFrame

    def _ipython_display_(self) -> None:
        pkgutil.resolve_name(NOTEBOOK_COMPARISON)(self._comparison, pd.DataFrame(self))


def compare(a: Side, b: Side, *, data: Sequence[PathLike] = (), k: int = 1,
            fix: Mapping[str, str] | None = None, ydim: str | None = None,
            xdim: str | None = None, avg: Iterable[str] = (), item: str | None = None,
            correct: str | tuple[str, str] | None = None,
            set: Mapping[str, str] | Iterable[str] | None = None, drop: Iterable[str] = (),
            rename: Iterable[str] = (), cluster: str | None = None) -> pd.DataFrame:
    """B against A, one row per common cell: the dimension columns, then ``n, a_mean, b_mean,
    diff, ci_low, ci_high, p, p_adjusted, test, a_only, b_only`` (``/api/compare``'s paired
    block), ``se`` and ``distinguishable`` (:mod:`evalmaps.service.compare_rows`).

    ``a`` and ``b``: paths (a file, folder or zip, read with the table options ``item``,
    ``correct``, ``set``, ``drop``, ``rename``, ``cluster``: then every paired cell's errors and
    tests are clustered by that column, as ``/api/compare?cluster=COL``), :func:`read` figures,
    or references into the built-in figures and the ``data`` folders (``FIGURE:PANEL``,
    ``mean(...)``, ``FIGURE:DIM=LABEL``). ``k``: pass@k; ``fix``, ``ydim``, ``xdim``, ``avg``:
    the grid of two labels of a dimension, as ``/api/compare``'s ``<dim>=<label>``, ``ydim``,
    ``xdim``, ``avg``.
    ``frame.attrs`` holds the view's ``summary``, ``sentences``, ``warnings`` and the ``query``
    ``/api/compare`` answers with the same numbers. In a notebook the frame shows as the three
    maps of Compare above its table (:class:`ComparisonFrame`)."""
    options = table_options(item, correct, set, drop, rename, cluster)
    made = compare_view(a, b, data=data, k=k, fix=fix, ydim=ydim, xdim=xdim, avg=avg,
                        options=options)
    payload = made.view.to_dict()
    out = ComparisonFrame(compare_rows.frame(made.view, payload))
    out._comparison = made
    out.attrs.update(summary=payload["summary"], sentences=payload["sentences"],
                     warnings=[*made.problems, *payload["warnings"]], query=made.query)
    return out


# --------------------------------------------------------------------------- rank

@dataclass(frozen=True, eq=False)
class Ranked:
    """The Rank view of many files made one figure, or of a figure of the catalog, the
    ``/api/rank`` query it answers, and the problems met reading ``data`` folders."""

    view: RankView
    query: dict[str, list[str]]
    problems: tuple[str, ...] = ()
    files: bool = False


def rank_view(*sides: Side, data: Sequence[PathLike] = (), by: str | None = None, k: int = 1,
              keep: Mapping[str, str | Iterable[str]] | None = None,
              options: ImportOptions = ImportOptions()) -> Ranked:
    """The Rank view (``/api/rank``) of two or more paths (or :func:`read` figures), made one
    figure whose compared dimension is ranked (``by`` defaults to it), of one path (a folder of
    several models' results) or of one figure id of the built-in figures and ``data`` folders
    (``by`` defaults to Rank's). ``keep``: the labels
    kept of a dimension (``/api/rank``'s ``<dimension>=<label>``, repeatable)."""
    query: dict[str, list[str]] = {}
    if k != 1:
        query["k"] = [str(k)]
    if options.cluster:  # imported with --cluster COL: ranked clustered by it
        query["cluster"] = [options.cluster]
    for dim, labels in (keep or {}).items():
        query[dim] = [labels] if isinstance(labels, str) else list(labels)
    if not sides:
        raise SideError("Rank results files (folders, zips), or one figure of --data folders "
                        "or the built-in figures by its id.")
    if len(sides) == 1 and not isinstance(sides[0], Results) and not Path(sides[0]).exists():
        catalog, problems = catalog_of(data, options)
        query = {"figure": [str(sides[0])], **({"by": [by]} if by else {}), **query}
        return Ranked(RankView.from_query(catalog, query), query, tuple(problems))
    if data:
        raise SideError("--data folders are read for a figure's id; these are files. Leave "
                        "out --data, or rank a figure of its folders by its id.")
    if len(sides) == 1:  # one import of many models (a folder with --set model={file})
        figure = sides[0] if isinstance(sides[0], Results) else read_with(sides[0], options)
        query = {"figure": [figure.figure.id], **({"by": [by]} if by else {}), **query}
        return Ranked(RankView.from_query(Catalog([figure.figure]), query), query, files=True)
    for side in sides:
        if not isinstance(side, Results) and not Path(side).exists():
            raise SideError(f"{side}: no such file, folder or zip. Check the path (a figure "
                            f"is ranked alone: give its id as the only argument).")
    imports = [side.imported if isinstance(side, Results) else _import(side, options)
               for side in sides]
    names = side_names(*(side.source if isinstance(side, Results) else str(side)
                         for side in sides))
    merged = merge_imports(imports, names)
    query = {"figure": [merged.figure.id], "by": [by or merged.dim], **query}
    return Ranked(RankView.from_query(Catalog([merged.figure]), query), query, files=True)


RANK_COLUMNS = ("n", "mean", "se", "ci_low", "ci_high", "rank", "rank_ci_low", "rank_ci_high",
                "rank_set_low", "rank_set_high", "best_or_tied", "best")


def rank_frame(view: RankView, payload: dict | None = None) -> pd.DataFrame:
    """One row per cell and model of the Rank answer: the cell's labels, the model (a column
    named as the dimension ranked), then :data:`RANK_COLUMNS`, the answer's numbers."""
    payload = payload or view.to_dict()
    by = payload["by"]
    rows = []
    dims: list[str] = []
    for cell in payload["cells"]:
        dims = list(cell["labels"])
        for m in cell["models"]:
            ci, rank_ci, rank_set = (m["ci"] or [None, None], m["rank_ci"] or [None, None],
                                     m["rank_set"] or [None, None])
            rows.append({**cell["labels"], by: m["model"], "n": m["n"], "mean": m["mean"],
                         "se": m.get("se"), "ci_low": ci[0], "ci_high": ci[1], "rank": m["rank"],
                         "rank_ci_low": rank_ci[0], "rank_ci_high": rank_ci[1],
                         "rank_set_low": rank_set[0], "rank_set_high": rank_set[1],
                         "best_or_tied": m["best_or_tied"], "best": m["best"],
                         **({"se_clustered": m["se_clustered"], "n_clusters": m["n_clusters"]}
                            if payload.get("cluster") else {})})
    clustered = ("se_clustered", "n_clusters") if payload.get("cluster") else ()
    out = pd.DataFrame(rows, columns=[*dims, by, *RANK_COLUMNS, *clustered])
    if clustered:
        out["n_clusters"] = out["n_clusters"].astype("Int64")
        out["se_clustered"] = out["se_clustered"].astype("float64")
    for name in ("n", "rank", "rank_ci_low", "rank_ci_high", "rank_set_low", "rank_set_high"):
        out[name] = out[name].astype("Int64")
    for name in ("mean", "se", "ci_low", "ci_high"):
        out[name] = out[name].astype("float64")
    return out


def rank(*sides: Side, data: Sequence[PathLike] = (), by: str | None = None, k: int = 1,
         keep: Mapping[str, str | Iterable[str]] | None = None, item: str | None = None,
         correct: str | tuple[str, str] | None = None,
         set: Mapping[str, str] | Iterable[str] | None = None, drop: Iterable[str] = (),
         rename: Iterable[str] = (), cluster: str | None = None) -> pd.DataFrame:
    """Many models ranked in every cell, as ``/api/rank`` ranks them: one row per cell and
    model with the cell's labels, the model, then ``n, mean, ci_low, ci_high, rank,
    rank_ci_low, rank_ci_high, rank_set_low, rank_set_high, best_or_tied, best``; with
    ``cluster`` (the items' column: files imported with ``--cluster COL``, as
    ``/api/rank?cluster=COL``) also ``se_clustered`` and ``n_clusters``, the intervals and
    tests clustered and the rank intervals from a cluster bootstrap.

    ``sides``: two or more paths (read with the table options and made one figure, each a label
    of the dimension ranked) or :func:`read` figures, or one figure id of the built-in figures
    and the ``data`` folders. ``by``: the dimension ranked; ``k``: pass@k; ``keep``: labels
    kept (``{"model": ["a", "b"]}``). ``frame.attrs`` holds the answer's ``summary`` (a sentence
    per model), ``pairs`` (every pair tested, a DataFrame), ``warnings`` and the ``query``."""
    options = table_options(item, correct, set, drop, rename, cluster)
    made = rank_view(*sides, data=data, by=by, k=k, keep=keep, options=options)
    payload = made.view.to_dict()
    out = rank_frame(made.view, payload)
    pairs = [{**cell["labels"], **pair} for cell in payload["cells"] for pair in cell["pairs"]]
    out.attrs.update(summary=payload["summary"], pairs=pd.DataFrame(pairs),
                     warnings=[*made.problems, *payload["warnings"]], query=made.query)
    return out


# --------------------------------------------------------------------------- the app, inline

_SHOWN: list[tuple[str, object]] = []  # what this process's app serves, and the app


def show(figure_or_path: Results | PathLike | None = None, *, port: int | None = None,
         height: int = 650, item: str | None = None,
         correct: str | tuple[str, str] | None = None,
         set: Mapping[str, str] | Iterable[str] | None = None, drop: Iterable[str] = (),
         rename: Iterable[str] = ()) -> str:
    """Run the whole app on a free local port (``port``: that one) with ``figure_or_path`` (a
    :func:`read` figure, or a path read with the table options) beside the built-in figures:
    inline in a notebook (Dash's Jupyter mode, ``height`` pixels high), else Flask's server in
    the foreground. Returns the app's URL, and says it. The app of a process is built once: a
    second call with other results is an :class:`EvalmapsError` that says to restart the
    kernel."""
    import tempfile

    from evalmaps.catalog.folders import write_import
    from evalmaps.service.server import DASH_APP, web_app
    from evalmaps.service.settings import Settings, serve_with

    if isinstance(figure_or_path, Results):
        results = figure_or_path
    elif figure_or_path is not None:
        results = read_with(figure_or_path, table_options(item, correct, set, drop, rename))
    else:
        results = None
    key = "" if results is None else results.source
    if _SHOWN and _SHOWN[0][0] != key:
        raise SideError("evalmaps.show runs one app a process, and it serves other results. "
                        "Restart the kernel to show these.")
    if not _SHOWN:
        extra = None
        if results is not None:
            folder = Path(tempfile.mkdtemp(prefix="evalmaps-show-"))
            write_import(results.imported, folder / f"{results.figure.id}.csv")
            extra = (folder,)
        serve_with(Settings.from_env(extra_data=extra, store_dir=None, watch="off"))
        _SHOWN.append((key, web_app(DASH_APP)))
    app = _SHOWN[0][1]
    port = port or _free_port()
    path = "" if results is None else f"?figure={results.figure.id}"
    url = f"http://127.0.0.1:{port}/{path}"
    print(f"evalmaps: the app is at {url}", flush=True)
    app.run(host="127.0.0.1", port=port, jupyter_mode="inline", jupyter_height=height,
            dev_tools_disable_version_check=True)
    return url


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
