"""evalmaps: wires the domain package, the components and the pages into one Dash app.

``gunicorn app:server`` serves it (settings from the environment). ``evalmaps serve`` hands
gunicorn the same name, ``app:server`` (``evalmaps.service.server``), after giving its options'
settings to ``evalmaps.service.settings.serve_with``; with ``--debug`` it runs ``app:app`` under
Flask's development server. The domain package never imports this module.
"""

from __future__ import annotations

import json
import re
from importlib.metadata import version as _version
from pathlib import Path

import dash_bootstrap_components as dbc
import orjson
from dash import ClientsideFunction, Dash, Input, Output, State, clientside_callback, dcc, html
from flask import request
from flask_compress import Compress

from components import dash_internals
from evalmaps.core.runfiles import SITE_ONLY_SCRIPTS, runfile
from evalmaps.figures.theme import TypedArray
from evalmaps.service import live
from evalmaps.service.settings import Settings, served_settings
from evalmaps.service.snapshot import Served, Snapshot
from evalmaps.service.startup import load_data
from evalmaps.service.store import Store, open_store
from evalmaps.service.uploads import Budget, mark_private
from evalmaps.views.state import NAV_RULES, nav_href, rankable
from layouts._first_page import grid_on_demand, inert_grid, page_container, referred_url, titled_index
from layouts._routes import api, bundle_scripts, vendor
from layouts._served import hold_snapshot, served
from layouts._shared import LIVE, NAV_PAGES, UPLOADS, nav_id

HERE = Path(__file__).resolve().parent
# fingerprinted by the installed Bootstrap-Flask version: cached for a year (layouts._routes.bootstrap)
# Dash's assets_ignore: a file name of assets/ that only the static site's pages load
SITE_ONLY = "|".join(f"^{re.escape(name)}$" for name in SITE_ONLY_SCRIPTS)
BOOTSTRAP_CSS = f"/vendor/bootstrap/css/bootstrap.min.css?v={_version('bootstrap-flask')}"


def navbar(url: tuple[str, str] | None = None, rankable_ids: list[str] | None = None) -> dbc.Navbar:
    """The top bar. ``url``: the page's (path, search) when known; its nav links then carry the
    page's slice (``evalmaps.views.state.nav_href``) and the page's link is marked active, as the nav
    callbacks would write them. ``rankable_ids``: the figures Rank offers, which Rank's link
    carries from a page on one of them (the nav element holds them for the browser's links)."""
    path, search = url or (None, "")
    ranked = rankable_ids or []
    nav_pages = [p for _, p in NAV_PAGES]
    links = [dcc.Link(name, href=nav_href(target, search, ranked) if path in nav_pages else target,
                      id=nav_id(target),
                      className="evalmaps-nav active" if target == path else "evalmaps-nav")
             for name, target in NAV_PAGES]
    return dbc.Navbar(dbc.Container([
        dbc.NavbarBrand("evalmaps", href="/"),
        html.Span("result heatmaps of ML papers, browsable", className="navbar-text small me-auto"),
        html.Nav(links, className="d-flex gap-1", **{"data-nav": json.dumps(NAV_RULES),
                                                      "data-rankable": json.dumps(ranked)}),
    ], fluid=True), color="#1f2a44", dark=True, className="evalmaps-navbar py-2")


def create_app(settings: Settings | None = None) -> Dash:
    """Load and validate the data once, then build the app. A bad data file is skipped with a
    problem (logged, on /healthz, in the banner); only an unreadable built-in catalog stops it.

    ``settings``: read once (default: from the environment, :meth:`Settings.from_env`).
    ``settings.extra_data``: the user's folders of results (``evalmaps serve --data DIR``),
    shown next to the built-in figures.
    """
    settings = settings or Settings.from_env()
    loaded = load_data(settings)  # a bad file is skipped; its problem logged and listed
    catalog = loaded.catalog
    app = Dash(
        __name__,
        use_pages=True,
        pages_folder=str(HERE / "layouts"),
        assets_folder=str(runfile("assets")),  # the checkout's, or the wheel's copy
        assets_ignore=SITE_ONLY,  # the static site's own scripts: no live page calls them
        external_stylesheets=[BOOTSTRAP_CSS],
        serve_locally=True,
        title="evalmaps",
        update_title=None,
        # every page's layout also gets the ids of this browser's recent uploads
        routing_callback_inputs={"uploads": State(UPLOADS, "data")},
    )
    app.index_string = app.index_string.replace("<html>", '<html lang="en">', 1)  # screen readers
    titled_index(app)
    if not settings.debug:  # (with debug: Dash's development bundles and hot reload, as they are)
        # before grid_on_demand, whose wrapper Dash calls first: the bundle joins the script tags
        # as grid_on_demand leaves them
        bundle_scripts(app, rewrites=(inert_grid,))
    grid_on_demand(app)
    dash_internals.title_callback_on_change(app)
    dash_internals.load_plotly_up_front()
    dash_internals.drop_legacy_polyfill()
    # what the app serves: one frozen snapshot, swapped whole (evalmaps.service.snapshot)
    app.server.extensions["evalmaps"] = Served(Snapshot(
        catalog, loaded.problems, store=upload_store(settings),
        limits=Budget(settings.max_upload_bytes, settings.upload_seconds,
                      settings.upload_memory_mb), settings=settings))
    # uploads arrive base64-encoded inside a callback request: refuse bodies that cannot hold
    # a file under the limit, server-side (dcc.Upload's own limit is only checked in the browser)
    max_bytes = settings.max_upload_bytes
    app.server.config["EVALMAPS_MAX_UPLOAD_BYTES"] = max_bytes
    app.server.config["MAX_CONTENT_LENGTH"] = max_bytes * 4 // 3 + 2**20
    app.server.json.sort_keys = False  # keep the API's documented key order
    app.server.register_blueprint(api)
    app.server.register_blueprint(vendor)
    state = app.server.extensions["evalmaps"]
    if loaded.live is not None:  # watched folders (evalmaps.service.live): each worker's thread
        live.serve_into(state, loaded.live.snapshot)
        loaded.live.listeners.append(lambda snapshot: live.serve_into(state, snapshot))
        app.server.before_request(loaded.live.ensure_running)
    app.server.before_request(hold_snapshot)  # each request reads one snapshot (layouts._served)
    app.layout = lambda: html.Div([
        dcc.Store(id=UPLOADS, storage_type="local", data=[]),
        # set by assets/evalmaps-live.js; 0, not None, at first: a memory Store whose data is
        # None sets it as it mounts, a change that every callback it feeds is asked to handle
        dcc.Store(id=LIVE, data=0),
        # its links as the nav callbacks would write them; Rank's from the figures served now
        navbar(referred_url(app), rankable(served(state).catalog)),
        *problems_banner(served(state).problems),  # as the data is now (watched folders change)
        page_container(app),  # the first page in it (layouts._first_page)
    ])
    clientside_callback(
        ClientsideFunction(namespace="evalmaps_nav", function_name="active"),
        [Output(nav_id(path), "className") for _, path in NAV_PAGES],
        Input(dash_internals.PAGES_LOCATION, "pathname"),
        prevent_initial_call=True,  # the navbar comes marked (navbar)
    )
    secure_headers(app)
    if not settings.debug:
        dash_internals.hide_versions(app)  # only Dash's dev tools read them
        # Dash Pages would put every page's layout (~170 KB) in each page's config, for a check
        # of callback ids whose result only the dev tools show: with debug only
        app.config.suppress_callback_exceptions = True
    compress(app.server)
    dash_internals.serialise_callbacks_with(callback_json)
    serve_layout_json(app)
    dash_internals.setup_before_any_request(app)
    return app


def upload_store(settings: Settings) -> Store | None:
    """The upload store (None: read-only); a folder that cannot be written stops start-up."""
    if settings.store_dir is None:
        return None
    store = open_store(settings.store_dir, settings.store_max_bytes, settings.store_max_figures)
    store.ensure()
    return store


MAX_BANNER_LINES = 20


def problems_banner(problems: list[str]) -> list:
    """The start-up problems (files not served, ids changed, files changed since their
    manifest) as a dismissable banner above every page: one line of text each, never markup."""
    if not problems:
        return []
    shown = [html.Li(line) for line in problems[:MAX_BANNER_LINES]]
    if len(problems) > MAX_BANNER_LINES:
        shown.append(html.Li(f"… and {len(problems) - MAX_BANNER_LINES} more (see /healthz)."))
    count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
    return [dbc.Alert([
        html.Div(f"Data: {count} at start-up; every other file is served.", className="fw-semibold"),
        html.Ul(shown, className="mb-0 ps-3 text-break evalmaps-problems"),
    ], id="data-problems", color="warning", dismissable=True, className="small mx-3 my-2 py-2")]


STATIC_PREFIXES = ("/_dash-component-suites/", "/assets/", "/vendor/")
NOT_CACHED = "-"


class StaticCache:
    """flask-compress's cache: the compressed bytes of static files (fingerprinted, the same for
    every client), bounded; dynamic responses are compressed afresh and never kept."""

    def __init__(self, max_entries: int = 256) -> None:
        self.entries: dict[str, bytes] = {}
        self.max_entries = max_entries

    def get(self, key: str):
        return self.entries.get(key)

    def set(self, key: str, value: bytes) -> None:
        if not key.endswith(NOT_CACHED) and len(self.entries) < self.max_entries:
            self.entries[key] = value


def _static_key(request) -> str:
    if request.method == "GET" and request.path.startswith(STATIC_PREFIXES):
        return request.full_path
    return NOT_CACHED


def compress(server) -> None:
    """gzip or brotli for every text response (flask-compress), at a level cheap enough for
    callbacks of megabytes; static files are compressed once per worker and kept."""
    server.config.update(
        COMPRESS_ALGORITHM=["br", "gzip"],
        COMPRESS_BR_LEVEL=4,
        COMPRESS_LEVEL=4,
        COMPRESS_MIN_SIZE=1024,
        COMPRESS_MIMETYPES=["text/html", "text/css", "text/plain", "text/csv", "text/javascript",
                            "application/javascript", "application/json", "image/svg+xml"],
        COMPRESS_CACHE_BACKEND=StaticCache,
        COMPRESS_CACHE_KEY=_static_key,
        COMPRESS_STREAMS=False,
    )
    Compress(server)

    @server.after_request
    def static_for_compression(response):  # runs before flask-compress's hook (registered last)
        if request.method == "GET" and request.path.startswith(STATIC_PREFIXES):
            if response.status_code == 200 and response.is_streamed:
                response.direct_passthrough = False  # a file response: read it, so that
                response.set_data(response.get_data())  # it can be compressed (and cached)
            if request.path.startswith("/assets/") and "m" in request.args:
                # fingerprinted by Dash (?m=<mtime>): a changed file gets a new URL
                response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
        return response


def _component_json(obj):
    if type(obj) is TypedArray:  # base64 needs no escaping: written as it is
        return {**obj, "bdata": orjson.Fragment(f'"{obj["bdata"]}"')}
    if hasattr(obj, "to_plotly_json"):  # a Dash component
        return obj.to_plotly_json()
    # other subclasses of dict, list, str and int (OPT_PASSTHROUGH_SUBCLASS) as their base type
    for base in (dict, list, str, int):
        if isinstance(obj, base):
            return base(obj) if base is not str else str.__str__(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


def callback_json(value) -> bytes | str:
    """Callback responses serialised by orjson alone. Dash's own path (plotly's to_json_plotly)
    walks every list in Python and then scans the whole text three times to make it safe inside
    an HTML script tag; a callback response is read with JSON.parse, never embedded, and its
    figures hold megabytes of base64 values. NaN becomes null either way. Typed arrays
    (``theme.TypedArray``) have their base64 written without orjson's scan for characters to
    escape (base64 has none): a third of the time of a million-cell response. Anything orjson
    does not know falls back to Dash's own serialiser. Bytes, as Flask sends them: a response of
    megabytes is not decoded to text only to be encoded again."""
    try:
        return orjson.dumps(value, default=_component_json,
                            option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
                            | orjson.OPT_PASSTHROUGH_SUBCLASS)
    except TypeError:
        return dash_internals.dash_json(value)


def serve_layout_json(app: Dash) -> None:
    """``/_dash-layout`` written by :func:`callback_json`, like callback responses: with the
    first page in it (layouts._first_page), the layout holds the page's figures."""
    def serve_layout():
        response = app.server.response_class(callback_json(app.get_layout()),
                                             mimetype="application/json")
        # it depends on the page that asks (its Referer) and on the uploads flag (a cookie):
        # never reused for another page, by the browser or anything in between
        response.headers["Cache-Control"] = "no-store"
        response.vary.update(("Referer", "Cookie"))
        return response

    dash_internals.serve_layout_with(app, serve_layout)


# evalmaps uses none of these browser features
PERMISSIONS_POLICY = ", ".join(f"{feature}=()" for feature in (
    "camera", "microphone", "geolocation", "payment", "usb", "serial", "magnetometer",
    "gyroscope", "accelerometer"))


def secure_headers(app: Dash) -> None:
    """A strict Content Security Policy: only this origin; inline scripts only by hash.

    Dash inlines a few scripts (its renderer start, clientside functions registered by Dash
    Pages on the first request), so the hashes are taken once that set-up has run. Plotly and Dash
    set inline styles, hence style-src 'unsafe-inline'. No CDN anywhere.
    """
    policy: dict[str, str] = {}

    def header() -> str:
        if not policy:
            directives = {
                "default-src": "'self'",
                "script-src": " ".join(["'self'", *app.csp_hashes()]),
                "style-src": "'self' 'unsafe-inline'",
                "img-src": "'self' data: blob:",
                "font-src": "'self' data:",
                "connect-src": "'self'",
                "object-src": "'none'",
                "base-uri": "'self'",
                "frame-ancestors": "'self'",
                "form-action": "'self'",
            }
            policy["value"] = "; ".join(f"{k} {v}" for k, v in directives.items())
        return policy["value"]

    @app.server.after_request
    def add_headers(response):
        response.headers.setdefault("Content-Security-Policy", header())
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        mark_private(request, response)  # an upload's page or data: Cache-Control private, no-store
        if request.is_secure:  # behind TLS: browsers keep to HTTPS for a year
            response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
        return response


_apps: list[Dash] = []


def get_app() -> Dash:
    """The process's app, built on first use: with the settings ``evalmaps serve`` chose, else
    the environment's (``evalmaps.service.settings.served_settings``)."""
    if not _apps:
        _apps.append(create_app(served_settings()))
    return _apps[0]


def __getattr__(name: str):
    """``app`` and ``server`` (what ``gunicorn app:server`` and ``evalmaps serve`` load by name)
    are built on first use, so importing this module for ``create_app`` builds nothing."""
    if name == "app":
        return get_app()
    if name == "server":
        return get_app().server
    raise AttributeError(f"module 'app' has no attribute {name!r}")


if __name__ == "__main__":
    main_app = get_app()
    main_app.run(debug=main_app.server.extensions["evalmaps"]["settings"].debug)
