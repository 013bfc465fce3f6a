"""The ``evalmaps`` command: ``evalmaps serve [--port N] [--host H] [--debug]``."""

from __future__ import annotations

import argparse
import sys

from evalmaps.errors import EvalmapsError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalmaps", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the dashboard (default http://127.0.0.1:8050)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8050)
    serve.add_argument("--debug", action="store_true", help="Dash debug mode and dev tools")
    return parser


def serve(args: argparse.Namespace) -> int:
    import app as webapp  # the web layer is only imported to serve; it loads the data once

    app = webapp.app
    print(f"evalmaps: serving {len(app.server.extensions['evalmaps']['catalog'])} figures "
          f"on http://{args.host}:{args.port}/", flush=True)
    # no version check even in debug mode: nothing leaves the machine
    app.run(host=args.host, port=args.port, debug=args.debug, dev_tools_ui=args.debug,
            dev_tools_hot_reload=args.debug, dev_tools_disable_version_check=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "serve":
            return serve(args)
    except EvalmapsError as exc:
        print(f"evalmaps: {exc}", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
