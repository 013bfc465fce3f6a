"""The ``evalmaps`` command.

    evalmaps serve [--port N] [--host H] [--debug] [--data DIR ...]
    evalmaps import PATH [PATH ...] [--format auto|tidy|wide|matrix] [--replicate COL]
                         [-x DIM] [-y DIM] [-o OUT.csv]

A PATH is a file, a folder (searched recursively) or a zip: a table (CSV, Parquet, JSON Lines)
or results written by evaluation tools (lm-evaluation-harness JSON, Inspect logs), which combine
into one figure. What a file is comes from its content.

Errors are one or two sentences on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evalmaps.errors import EvalmapsError
from evalmaps.importers import FORMATS, ImportOptions, import_paths
from evalmaps.settings import Settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalmaps", description="Browse, slice and compare "
                                     "result heatmaps of ML papers.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the dashboard (default http://127.0.0.1:8050)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8050)
    serve.add_argument("--debug", action="store_true", help="Dash debug mode and dev tools")
    serve.add_argument("--data", action="append", default=[], metavar="DIR",
                       help="a folder of CSVs (or CSVs plus catalog.json) to serve next to the "
                            "built-in figures; repeatable")
    imp = sub.add_parser("import", help="turn a results table, or the results files of an "
                         "evaluation tool, into a tidy CSV")
    imp.add_argument("paths", nargs="+", metavar="PATH",
                     help="a file, folder or zip: a CSV, Parquet or JSON Lines table, or "
                          "lm-evaluation-harness results / Inspect logs (many combine into one "
                          "figure)")
    imp.add_argument("--format", choices=FORMATS, default="auto")
    imp.add_argument("--replicate", default=None, metavar="COL",
                     help="column whose rows are replicates to average (default: a column named "
                          "seed/run/...; '' for none)")
    imp.add_argument("-x", default=None, metavar="DIM", help="the x-axis dimension")
    imp.add_argument("-y", default=None, metavar="DIM", help="the y-axis dimension")
    imp.add_argument("-o", "--output", default=None, metavar="OUT.csv",
                     help="write the tidy cells here (default: print a summary)")
    return parser


def serve(args: argparse.Namespace) -> int:
    import app as webapp  # the web layer is only imported to serve

    settings = Settings.from_env(extra_data=tuple(Path(d).resolve() for d in args.data) or None,
                                 debug=args.debug or None)
    app = webapp.create_app(settings)
    print(f"evalmaps: serving {len(app.server.extensions['evalmaps']['catalog'])} figures "
          f"on http://{args.host}:{args.port}/", flush=True)
    # no version check even in debug mode: nothing leaves the machine
    app.run(host=args.host, port=args.port, debug=settings.debug, dev_tools_ui=settings.debug,
            dev_tools_hot_reload=settings.debug, dev_tools_disable_version_check=True)
    return 0


def import_command(args: argparse.Namespace) -> int:
    for path in map(Path, args.paths):
        if not path.exists():
            print(f"evalmaps: {path}: cannot read the file (No such file or directory). Check "
                  f"the path.", file=sys.stderr)
            return 2
    # no size limit: the files are the user's own (the limit is for the browser's uploads)
    imported = import_paths(args.paths, ImportOptions(format=args.format, x=args.x, y=args.y,
                                                      replicate=args.replicate))
    imported.figure()  # validate the result as the app would
    if args.output:
        try:
            imported.write_csv(args.output)  # the to_csv() text, UTF-8
        except OSError as exc:
            print(f"evalmaps: {args.output}: cannot write the file ({exc.strerror}). Check that "
                  f"its folder exists and is writable.", file=sys.stderr)
            return 2
        print(f"evalmaps: wrote {imported.n_cells} cells to {args.output}", file=sys.stderr)
    else:
        print(json.dumps(imported.summary(), indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "serve":
            return serve(args)
        if args.command == "import":
            return import_command(args)
    except EvalmapsError as exc:
        print(f"evalmaps: {exc}", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
