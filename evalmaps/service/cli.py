"""The ``evalmaps`` command.

    evalmaps serve [--port N] [--host H] [--workers N] [--debug] [--data DIR ...]
                   [--item COL] [--correct PRED=REF] [--set DIM=LABEL ...] [--drop COL ...]
                   [--rename DIM:OLD=NEW ...]
                   [--store DIR | --no-store]
    evalmaps import PATH [PATH ...] [--format auto|tidy|wide|matrix|leaderboard]
                         [--replicate COL] [-x DIM] [-y DIM] [-o OUT.csv]
                         [--item COL] [--correct PRED=REF] [--set DIM=LABEL|DIM={file}]
                         [--drop COL ...] [--rename DIM:OLD=NEW ...] [--cluster COL]
    evalmaps compare A B [--format table|json|csv|markdown|latex] [--fail-if-worse]
                         [--alpha P] [--min-diff X] [-k K] [--data DIR ...]
                         [--fix DIM=LABEL ...] [--ydim DIM] [--xdim DIM] [--avg DIM ...]
                         [--item COL] [--correct PRED=REF] [--set DIM=LABEL ...] ...
                    B against A as the Compare page and /api/compare give it (docs/cli.md)
    evalmaps rank RESULTS [RESULTS ...] [--by DIM] [--keep DIM=LABEL ...] [-k K] [--format ...]
                    many models ranked in every cell, as /api/rank gives it (docs/cli.md)
    evalmaps manifest [DIR]     (re)write DIR/manifest.json (default: the built-in data/)
    evalmaps bundle [--data DIR ... [--item COL] [--correct PRED=REF] [--set DIM=LABEL ...]]
                    [--figure ID ...] [--compare A B ...] [--cluster COL] -o SITE/ [--force]
                    a static site of the figures (docs/bundle.md)

A PATH is a file, a folder (searched recursively) or a zip: a table (CSV, Parquet, JSON Lines)
or results written by evaluation tools (evalmaps.readers lists them), which combine into one
figure per tool. What a file is comes from its content. -o writes OUT.csv and, beside it,
OUT.figure.json, the figure's catalog entry that serve --data reads.

Errors are one or two sentences on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
from pathlib import Path

from evalmaps.catalog.folders import write_import
from evalmaps.catalog.imports import figure_of, import_paths
from evalmaps.catalog.shaping import FORMATS
from evalmaps.core.errors import EvalmapsError
from evalmaps.core.figure import slugify
from evalmaps.readers.base import ImportOptions
from evalmaps.service.objects import is_url
from evalmaps.service.settings import Settings, resolved


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalmaps", description="Browse, slice and compare "
                                     "result heatmaps of ML papers.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the dashboard under gunicorn, with the settings "
                           "of gunicorn.conf.py (default http://127.0.0.1:8050)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    serve.add_argument("--port", type=port_number, default=None,
                       help="the port (default: $PORT, else 8050)")
    serve.add_argument("--workers", type=positive_int, default=None, metavar="N",
                       help="gunicorn worker processes (default: $WEB_CONCURRENCY, else 2)")
    serve.add_argument("--debug", action="store_true",
                       help="Flask's development server with Dash's debug mode and dev tools, "
                            "instead of gunicorn")
    serve.add_argument("--data", action="append", default=[], metavar="DIR",
                       help="a folder of CSVs (or CSVs plus catalog.json) to serve next to the "
                            "built-in figures, or an s3://bucket/folder URL; repeatable")
    add_table_options(serve, serving=True)
    store = serve.add_mutually_exclusive_group()
    store.add_argument("--store", default=None, metavar="DIR",
                       help="where uploads are kept: a folder or an s3://bucket/prefix URL "
                            "(default: EVALMAPS_STORE, else the user's data folder); processes "
                            "that name the same store share it")
    store.add_argument("--no-store", action="store_true",
                       help="read-only: keep no uploads (the Data page's upload is off)")
    imp = sub.add_parser("import", help="turn a results table, or the results files of an "
                         "evaluation tool, into a tidy CSV")
    imp.add_argument("paths", nargs="+", metavar="PATH",
                     help="a file, folder or zip: a CSV, Parquet or JSON Lines table, or the "
                          "results files of an evaluation tool (lm-eval, Inspect, lighteval, "
                          "HELM, ...; many combine into one figure per tool)")
    imp.add_argument("--format", choices=FORMATS, default="auto")
    imp.add_argument("--replicate", default=None, metavar="COL",
                     help="column whose rows are replicates to average (default: a column named "
                          "seed/run/...; '' for none)")
    imp.add_argument("--percent", action="store_true",
                     help="the values are percentages even if every one lies between 0 and 1 "
                          "(else such a table is read as fractions)")
    imp.add_argument("-x", default=None, metavar="DIM", help="the x-axis dimension")
    imp.add_argument("-y", default=None, metavar="DIM", help="the y-axis dimension")
    add_table_options(imp)
    imp.add_argument("-o", "--output", default=None, metavar="OUT.csv",
                     help="write the tidy cells here, and the figure's catalog entry beside them "
                          "(OUT.figure.json), so that serve --data <its folder> serves it as "
                          "imported (default: print a summary)")
    add_compare_parser(sub)
    add_rank_parser(sub)
    man = sub.add_parser("manifest", help="write DIR/manifest.json: the sha256 and cell count of "
                                          "every figure file, checked at start-up")
    man.add_argument("dir", nargs="?", default=None,
                     help="a data folder (default: the built-in data/)")
    bundle = sub.add_parser("bundle", help="write a static site of the figures that works from "
                            "file:// and any static host (docs/bundle.md)")
    bundle.add_argument("--data", action="append", default=[], metavar="DIR",
                        help="a folder of results to bundle next to the built-in figures; "
                             "repeatable")
    add_table_options(bundle, serving=True)
    bundle.add_argument("--figure", action="append", default=[], metavar="ID",
                        help="a figure to bundle (repeatable; default: every figure)")
    bundle.add_argument("--compare", action="append", nargs=2, default=[], metavar=("A", "B"),
                        help="a Compare page of two panels (keys as /api/figures lists them, or "
                             "mean(...)); repeatable (default: the catalog's own comparison, "
                             "R1-Llama against R1-Qwen for the built-in figures)")
    bundle.add_argument("-o", "--output", required=True, metavar="SITE",
                        help="the folder to write the site into (new or empty)")
    bundle.add_argument("--force", action="store_true",
                        help="write into a folder that is not empty")
    return parser


COMPARE_FORMATS = ("table", "json", "csv", "markdown", "latex")


def add_compare_parser(sub) -> None:
    """``evalmaps compare A B``: its options; a usage error is one line on stderr, exit 2."""
    cmp = sub.add_parser(
        "compare", help="B against A, one row per cell, as the Compare page and /api/compare "
                        "give it; --fail-if-worse makes it a CI gate (docs/cli.md)",
        description="Compare B against A: two results files, folders or zips (what evalmaps "
                    "import takes), or two FIGURE:PANEL keys of --data folders or built-in "
                    "figures. Exit 0, 1 (--fail-if-worse: B is distinguishably worse "
                    "somewhere) or 2 (a usage or input error).")
    cmp.add_argument("a", metavar="A", help="the baseline: a file, folder or zip, or a key "
                     "FIGURE:PANEL, mean(KEY,KEY,...) or FIGURE:DIM=LABEL")
    cmp.add_argument("b", metavar="B", help="the one compared against A, named as A is")
    cmp.add_argument("--format", choices=COMPARE_FORMATS, default="table",
                     help="table (default: for the terminal), json (/api/compare's answer), csv "
                          "(one row per cell), markdown or latex (a table for a pull request "
                          "or a paper)")
    cmp.add_argument("--fail-if-worse", action="store_true",
                     help="exit 1 when B is distinguishably worse than A in some cell "
                          "(adjusted p < --alpha, in the metric's direction)")
    cmp.add_argument("--alpha", type=probability, default=None, metavar="P",
                     help="the adjusted p below which a cell is distinguishable (default 0.05, "
                          "the page's)")
    cmp.add_argument("--min-diff", type=non_negative, default=0.0, metavar="X",
                     help="differences smaller than X (in the metric's units, as the diff "
                          "column) are not called worse or better (default 0)")
    cmp.add_argument("-k", type=positive_k, default=1, metavar="K",
                     help="pass@k where the items have several samples (default 1)")
    cmp.add_argument("--data", action="append", default=[], metavar="DIR",
                     help="a folder of results whose figures' panels A and B may name "
                          "(repeatable; the built-in figures are always there)")
    cmp.add_argument("--fix", action="append", default=[], metavar="DIM=LABEL",
                     help="two labels of a dimension: the label another dimension is fixed at "
                          "(default: its first; repeatable)")
    cmp.add_argument("--ydim", default=None, metavar="DIM",
                     help="two labels of a dimension: the rows ('' for one row)")
    cmp.add_argument("--xdim", default=None, metavar="DIM",
                     help="two labels of a dimension: the columns")
    cmp.add_argument("--avg", action="append", default=[], metavar="DIM",
                     help="two labels of a dimension: a dimension averaged over (repeatable)")
    add_table_options(cmp)
    cmp.error = _one_line_error("compare")


def add_rank_parser(sub) -> None:
    """``evalmaps rank A B C ...``: its options; a usage error is one line on stderr, exit 2."""
    rank = sub.add_parser(
        "rank", help="many models ranked in every cell, with the best-or-tied set, as "
                     "/api/rank gives it (docs/cli.md)",
        description="Rank two or more results files, folders or zips (what evalmaps import "
                    "takes; each one model or checkpoint), or the models of one figure of "
                    "--data folders or the built-in figures, named by its id. Exit 0, or 2 (a "
                    "usage or input error).")
    rank.add_argument("sides", nargs="+", metavar="RESULTS",
                      help="two or more files, folders or zips, or one figure's id")
    rank.add_argument("--format", choices=("table", "json", "csv", "markdown", "latex"),
                      default="table",
                      help="table (default), json (/api/rank's answer), csv (one row per cell "
                           "and model, as /api/rank?format=csv), markdown or latex")
    rank.add_argument("--by", default=None, metavar="DIM",
                      help="the dimension ranked (default: the one the files differ in, or "
                           "the figure's model)")
    rank.add_argument("--keep", action="append", default=[], metavar="DIM=LABEL",
                      help="keep only these labels of a dimension (repeatable; on --by, the "
                           "models ranked)")
    rank.add_argument("-k", type=positive_k, default=1, metavar="K",
                      help="pass@k where the items have several samples (default 1)")
    rank.add_argument("--data", action="append", default=[], metavar="DIR",
                      help="a folder of results whose figure is ranked by its id (repeatable)")
    add_table_options(rank)
    rank.error = _one_line_error("rank")


def _one_line_error(command: str):
    """An argparse error handler that says the problem in one line and exits 2."""
    def error(message: str):
        print(f"evalmaps: {command}: {message.rstrip('.')}. See evalmaps {command} --help.",
              file=sys.stderr)
        sys.exit(2)

    return error


def _number_option(text: str, cast, ok, what: str):
    """``text`` as ``cast`` reads it when ``ok`` holds of it, else an argparse error that says
    what to give (``what``: "a level: give a number between 0 and 1, ..."). One place for the
    numeric options' checks."""
    try:
        value = cast(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise argparse.ArgumentTypeError(f"'{text[:20]}' is not {what}")
    return value


def probability(text: str) -> float:
    return _number_option(text, float, lambda v: 0 < v < 1,
                          "a level: give a number between 0 and 1, such as 0.05")


def non_negative(text: str) -> float:
    return _number_option(text, float, lambda v: 0 <= v < float("inf"),
                          "a difference: give a number of 0 or more, in the metric's units")


def positive_k(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text[:20]}' is not a k: give a whole number of at "
                                         f"least 1")
    return int(text)


def add_table_options(parser: argparse.ArgumentParser, serving: bool = False) -> None:
    """--item, --correct, --set, --drop and --rename (:class:`ImportOptions`' table options):
    import's, and
    serve --data's for the plain tables of its folders."""
    where = "the --data folders' tables are " if serving else ""
    parser.add_argument("--item", default=None, metavar="COL",
                        help=f"{where}per-item records: the column of each item's id (default: "
                             f"'item')")
    parser.add_argument("--correct", default=None, metavar="PRED=REF",
                        help="per-item records: an item is right when the column PRED equals "
                             "the column REF (as text; an empty PRED is wrong), instead of a "
                             "'score' column")
    parser.add_argument("--set", action="append", default=[], metavar="DIM=LABEL", dest="fixed",
                        help="per-item records: add a dimension every row of a file shares, "
                             "such as --set model=Llama-2-7B (repeatable); {file} stands for "
                             "the name of the file the rows come from without its extensions, "
                             "so a folder of one file per model is one figure: --set "
                             "model={file}")
    parser.add_argument("--drop", action="append", default=[], metavar="COL",
                        help="per-item records: leave the column COL out of the dimensions "
                             "(repeatable), such as a property of each item that the import "
                             "would otherwise make an axis")
    parser.add_argument("--rename", action="append", default=[], metavar="DIM:OLD=NEW",
                        help="per-item records: show the label OLD of the dimension DIM as NEW "
                             "(repeatable), such as --rename "
                             "model:model_outputs_Llama-2-7b-hf_5shots=Llama-2-7B for a model "
                             "named by --set model={file}")
    parser.add_argument("--cluster", default=None, metavar="COL",
                        help="per-item records: the column that groups the items (a passage, "
                             "a source data set, such as MMLU-Pro's src), kept with the records "
                             "so that standard errors can be clustered by it (cluster=COL in "
                             "the URL and the API)")


def table_options(args: argparse.Namespace, **others) -> ImportOptions:
    """The import options of ``args``' table options (``others``: the rest, as given)."""
    return ImportOptions.parse(args.item, args.correct, args.fixed, args.drop, args.rename,
                               args.cluster, **others)


def given_options(args: argparse.Namespace) -> ImportOptions | None:
    """The table options for the --data folders' tables, None when none is given (the
    environment's EVALMAPS_DATA_OPTIONS then stand)."""
    options = table_options(args)
    return options if options.table_options else None


def check_data_options(settings: Settings) -> None:
    if settings.data_options.table_options and not settings.extra_data:
        raise UsageError("--item, --correct and --set (EVALMAPS_DATA_OPTIONS) say how the tables "
                         "of --data folders are read, and no --data folder was given. Give "
                         "--data DIR, or leave them out.")


def bundle_command(args: argparse.Namespace) -> int:
    from evalmaps.service.bundle import write_site
    from evalmaps.service.startup import load_data

    for folder in args.data:
        if not is_url(folder) and not Path(folder).is_dir():
            raise UsageError(f"--data {folder}: not a folder. Give a folder of results, or an "
                             f"s3://bucket/folder URL.")
    options = table_options(args)
    if not args.data:  # --cluster alone clusters the Compare pages; it reads no tables
        options = dataclasses.replace(options, cluster=None)
    settings = Settings.from_env(extra_data=tuple(resolved(d, "--data") for d in args.data)
                                 or None,
                                 data_options=options if options.table_options else None)
    check_data_options(settings)
    loaded = load_data(settings)
    for line in loaded.problems:
        print(f"evalmaps: warning: {line}", file=sys.stderr)
    done = write_site(loaded.catalog, Path(args.output), args.figure or None,
                      [tuple(pair) for pair in args.compare] or None, force=args.force,
                      cluster=args.cluster)  # the Compare pages clustered, as compare's
    print(f"evalmaps: wrote {len(done.figures)} figure pages and {done.compares} compare pages "
          f"({done.bytes / 1e6:.1f} MB) to {done.out}; open {done.out / 'index.html'}",
          file=sys.stderr)
    return 0


class UsageError(EvalmapsError):
    """Options that do not go together, or a bad value from the environment."""


def port_number(text: str) -> int:
    return _number_option(text, int, lambda v: 0 < v < 65536,
                          "a port: give a number from 1 to 65535")


def positive_int(text: str) -> int:
    return _number_option(text, int, lambda v: v >= 1,
                          "a number of workers: give a whole number of at least 1")


def manifest_command(args: argparse.Namespace) -> int:
    from evalmaps.catalog.folders import write_manifest
    from evalmaps.catalog.resources import default_data_dir

    folder = Path(args.dir) if args.dir else default_data_dir()
    if not folder.is_dir():
        print(f"evalmaps: {folder}: not a folder. Give the data folder to write the manifest of.",
              file=sys.stderr)
        return 2
    out = write_manifest(folder)
    print(f"evalmaps: wrote {out}", file=sys.stderr)
    return 0


def serve(args: argparse.Namespace) -> int:
    """Build the app once (bad data or settings stop here, with one message), then serve it:
    gunicorn with gunicorn.conf.py's settings, or Flask's development server with ``--debug``.
    The web app is named, never imported here: gunicorn loads ``app:server``
    (:data:`evalmaps.service.server.WEB_APP`), built with these options' settings."""
    from evalmaps.service.server import DASH_APP, WEB_APP, Production, web_app
    from evalmaps.service.settings import serve_with

    if args.debug and args.workers is not None:
        raise UsageError("--workers applies to gunicorn, which --debug does not use. Leave out "
                         "one of them.")
    port = args.port
    if port is None:
        text = os.environ.get("PORT", "").strip()
        try:
            port = port_number(text) if text else 8050
        except argparse.ArgumentTypeError:
            raise UsageError(f"PORT={text[:20]} is not a port: give a number from 1 to 65535, "
                             f"or --port.") from None
    settings = Settings.from_env(extra_data=tuple(resolved(d, "--data") for d in args.data)
                                 or None,
                                 data_options=given_options(args),
                                 debug=args.debug or None,
                                 store_dir=resolved(args.store, "--store") if args.store else None)
    check_data_options(settings)
    if args.no_store:
        settings = dataclasses.replace(settings, store_dir=None)
    serve_with(settings)  # the app loaded by name below is built with these
    server = web_app(WEB_APP)  # built here, once: gunicorn's import of the same name reuses it
    host = f"[{args.host}]" if ":" in args.host and not args.host.startswith("[") else args.host
    print(f"evalmaps: serving {len(server.extensions['evalmaps']['catalog'])} figures "
          f"on http://{host}:{port}/", flush=True)
    if settings.debug:
        # no version check even in debug mode: nothing leaves the machine
        web_app(DASH_APP).run(host=args.host, port=port, debug=True, dev_tools_ui=True,
                              dev_tools_hot_reload=True, dev_tools_disable_version_check=True)
        return 0
    Production(WEB_APP, bind=f"{host}:{port}", workers=args.workers).run()
    return 0


def import_command(args: argparse.Namespace) -> int:
    for path in map(Path, args.paths):
        if not path.exists():
            print(f"evalmaps: {path}: cannot read the file (No such file or directory). Check "
                  f"the path.", file=sys.stderr)
            return 2
    # no size limit: the files are the user's own (the limit is for the browser's uploads)
    options = table_options(args, format=args.format, x=args.x, y=args.y,
                            replicate=args.replicate, guess_fractions=not args.percent)
    figures = import_paths(args.paths, options, by_tool=True)  # one figure per tool
    for imported in figures:
        figure_of(imported)  # validate the result as the app would
        for warning in imported.warnings:
            print(f"evalmaps: warning: {warning}", file=sys.stderr)
    if not args.output:
        summaries = [imported.summary() for imported in figures]
        print(json.dumps(summaries[0] if len(summaries) == 1 else summaries, indent=2))
        return 0
    out = Path(args.output)
    if out.suffix.lower() != ".csv":
        raise UsageError(f"-o takes the path of a .csv file to write (such as "
                         f"my-data/{out.name or 'results'}.csv); '{args.output}' does not end "
                         f"in .csv.")
    formats = [imported.format for imported in figures]
    for imported in figures:
        # files of several tools: one file each, named after the tool (tables: after the table)
        suffix = (imported.format if formats.count(imported.format) == 1
                  else slugify(Path(imported.spec["file"]).stem))
        target = out if len(figures) == 1 else out.with_name(f"{out.stem}-{suffix}.csv")
        try:
            entry = write_import(imported, target)  # the cells and what the import knew
        except OSError as exc:
            print(f"evalmaps: {target}: cannot write the file ({exc.strerror}). Check that "
                  f"its folder exists and is writable.", file=sys.stderr)
            return 2
        print(f"evalmaps: wrote {imported.n_cells} cells to {target} and the figure's "
              f"catalog entry to {entry}; serve them with: evalmaps serve --data {out.parent}",
              file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "serve":
            return serve(args)
        if args.command == "import":
            return import_command(args)
        if args.command == "manifest":
            return manifest_command(args)
        if args.command == "bundle":
            return bundle_command(args)
        if args.command == "compare":
            from evalmaps.service.compare_command import compare_command

            return compare_command(args, table_options(args))
        if args.command == "rank":
            from evalmaps.service.rank_command import rank_command

            return rank_command(args, table_options(args))
    except EvalmapsError as exc:
        print(f"evalmaps: {exc}", file=sys.stderr)
        return 2
    return 1


PIPE_CLOSED = 141  # 128 + SIGPIPE: what a shell reports for a tool whose reader left early


def run(argv: list[str] | None = None) -> None:
    """The console script (``evalmaps``): :func:`main`, its output flushed, then the process
    ended with main's exit code at once. A one-shot command skips the interpreter's teardown,
    where a native thread pool (pyarrow's or DuckDB's, apache/arrow#34314) now and then aborts
    the process ("terminate called without an active exception", SIGABRT) after every line was
    written: a CI gate must get the 0, 1 or 2 it was given. A reader that leaves early
    (``| head``) ends it with :data:`PIPE_CLOSED`, no traceback. ``serve`` ends as Python does."""
    words = sys.argv[1:] if argv is None else argv
    try:
        code = main(argv)
    except BrokenPipeError:  # the reader left early (| head): no traceback, the shell's code
        code = PIPE_CLOSED  # for a command a closed pipe ends, as any Unix tool's
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # what is left unsaid
    if words[:1] == ["serve"]:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a reader that left (| head); a closed stream
            pass
    logging.shutdown()
    os._exit(code)


if __name__ == "__main__":
    run()
