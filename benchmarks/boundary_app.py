"""The app with some of its Dash hooks switched off, for ``benchmarks/boundary.py`` only.

    EVALMAPS_BENCH_WITHOUT=bundle,polyfill gunicorn benchmarks.boundary_app:server

``EVALMAPS_BENCH_WITHOUT`` is read here and nowhere else: the app itself has no such switch.
Each name in :data:`HOOKS` undoes one of the ways evalmaps makes Dash or Plotly do less than
they do by default (docs/architecture.md, "The Dash boundary"), by replacing the function that
installs it with one that does nothing before the app is built, or, for the browser's side, by
serving a copy of ``assets/`` with the hook's line taken out. Everything else is the app as
``gunicorn app:server`` serves it.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

import dash

import app as web
from components import dash_internals
from evalmaps.core.runfiles import runfile

ENV = "EVALMAPS_BENCH_WITHOUT"


def _nothing(*_args, **_kwargs) -> None:
    return None


def _python(owner, *names):
    def off() -> None:
        for name in names:
            setattr(owner, name, _nothing)
    return off


def _eager_loading() -> None:
    """Dash's own means instead of ``load_plotly_up_front``: ``Dash(eager_loading=True)``,
    every async chunk of every component library with the page's scripts."""
    web.Dash = functools.partial(dash.Dash, eager_loading=True)
    dash_internals.load_plotly_up_front = _nothing


def _first_page() -> None:
    web.page_container = lambda app: dash.page_container  # Dash Pages' empty container
    web.referred_url = lambda app: None  # and the navbar as Dash Pages' callbacks fill it


# assets/<file>: (the text that installs the hook, what it becomes)
ASSET_EDITS = {
    # dcc's lazy menus, sliders, graphs and drops resolved only when the page first renders one
    "lazy-resolve": ("lazy.js", 'document.addEventListener("DOMContentLoaded", '
                                'resolveLazyComponents);', ""),
    # a figure drawn as it comes, then fitted (and drawn again) once drawn
    "prefit": ("export.js", "if (!lib.fit || !fig || !fig.layout) {", "if (true) {"),
    # the layout and the callbacks asked for once Dash's scripts have run, not while they load
    "preload": ("nav.js", "  uploadsCookie();\n  preload();", "  uploadsCookie();"),
}

HOOKS = {
    "serialiser": _python(dash_internals, "serialise_callbacks_with"),
    "layout-json": _python(web, "serve_layout_json"),
    "first-page": _first_page,
    "title": lambda: (_python(web, "titled_index")(),
                      _python(dash_internals, "title_callback_on_change")()),
    "bundle": _python(web, "bundle_scripts"),
    "grid-on-demand": _python(web, "grid_on_demand"),
    "up-front": _python(dash_internals, "load_plotly_up_front"),
    "eager-loading": _eager_loading,  # up-front, by Dash's public option
    "polyfill": _python(dash_internals, "drop_legacy_polyfill"),
    **{name: None for name in ASSET_EDITS},
}


def assets_without(names: set[str]) -> Path:
    """A copy of ``assets/`` with the browser-side hooks ``names`` taken out (in a temporary
    folder removed when the server ends)."""
    top = tempfile.mkdtemp(prefix="evalmaps-bench-assets-")
    master = os.getpid()  # not when a gunicorn worker (a fork) exits
    atexit.register(lambda: os.getpid() == master and shutil.rmtree(top, ignore_errors=True))
    folder = Path(top) / "assets"
    shutil.copytree(runfile("assets"), folder)
    for name in names:
        file, installs, becomes = ASSET_EDITS[name]
        text = (folder / file).read_text(encoding="utf-8")
        if text.count(installs) != 1:
            raise RuntimeError(f"{ENV}={name}: assets/{file} no longer holds {installs!r} once")
        (folder / file).write_text(text.replace(installs, becomes), encoding="utf-8")
    return folder


def without(names: set[str]) -> None:
    unknown = names - set(HOOKS)
    if unknown:
        raise SystemExit(f"{ENV}: unknown hook {', '.join(sorted(unknown))}; "
                         f"choose from {', '.join(HOOKS)}")
    for name in names - set(ASSET_EDITS):
        HOOKS[name]()
    in_browser = names & set(ASSET_EDITS)
    if in_browser:
        folder = assets_without(in_browser)
        web.runfile = lambda name: folder if name == "assets" else runfile(name)


without({n.strip() for n in os.environ.get(ENV, "").split(",") if n.strip()})
server = web.get_app().server
