"""HTTP routes beside the Dash pages: the JSON/CSV API, vendored static assets (Bootstrap, the
page's scripts in one file) and a health check.

With the pages in ``layouts/``: like a page, a route is what the server answers at a URL, built
from the domain (:mod:`evalmaps.views`) and ``components``; it is the top layer, imported only by
``app.py``, which registers its blueprints. The leading underscore keeps Dash Pages from taking
it for a page.

Thin: each route parses the request, makes the view of :mod:`evalmaps.views` (or calls
:mod:`evalmaps.views.payloads`), and serialises; each page has a JSON twin (``/compare.json``).
Errors are JSON with a one-sentence message; the server never answers 500 with a traceback.
"""

from __future__ import annotations

import hashlib
import json
import pkgutil
import re
from pathlib import Path
from urllib.parse import urlsplit

import dash
import flask_bootstrap
from dash.exceptions import CallbackException, DependencyException
from dash.fingerprint import check_fingerprint
from flask import Blueprint, Response, current_app, jsonify, request, send_from_directory

from components import dash_internals
from evalmaps.core.errors import MAX_QUOTED, EvalmapsError, UnknownFigure
from evalmaps.core.text import clip
from evalmaps.service import budget
from evalmaps.service.store import STORED_ID_IN
from evalmaps.views import (
    BrowseView,
    CompareView,
    ItemsView,
    RankOverview,
    RankView,
    TrendsView,
    payloads,
)
from evalmaps.views import items as items_view
from layouts._served import catalog_for, served

api = Blueprint("evalmaps_api", __name__)
vendor = Blueprint("evalmaps_vendor", __name__)

BOOTSTRAP_DIR = Path(flask_bootstrap.__file__).resolve().parent / "static" / "bootstrap5"


def _catalog(*figure_ids):
    """The built-in catalog, plus the stored uploads named in ``figure_ids`` (found by id)."""
    return catalog_for(list(figure_ids))


def _query() -> dict[str, list[str]]:
    return {key: request.args.getlist(key) for key in request.args}


def error(status: int, message: str):
    response = jsonify({"error": message, "status": status})
    response.status_code = status
    return response


def _versioned(response, etag: str):
    """A response that a client may ask again with ``If-None-Match``: 304 (no body) while the
    data is the same (watched folders: evalmaps.service.live)."""
    response.set_etag(etag)
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


@api.get("/api/figures")
def figures():
    snapshot = served()  # the list and its versions from one snapshot (a swap may come between)
    payload = payloads.figures_payload(_catalog())
    for summary in payload["figures"]:
        summary["version"] = snapshot.version_of(summary["id"])
    every = ",".join(f"{f['id']}={f['version']}" for f in payload["figures"])
    return _versioned(jsonify(payload), hashlib.sha256(every.encode()).hexdigest()[:16])


@api.get("/api/figures/<figure_id>")
def figure(figure_id: str):
    version = served().version_of(figure_id)
    if request.if_none_match.contains(version) and figure_id in _catalog(figure_id):
        return _versioned(Response(status=200), version)  # unchanged: 304, nothing built
    summary = payloads.figure_summary(_catalog(figure_id).figure(figure_id))
    return _versioned(jsonify({**summary, "version": version}), version)


@api.get("/api/figures/<figure_id>/cells")
def cells(figure_id: str):
    """Every cell of a figure's slice (``/browse.json?figure=<id>``); ``format=csv``, ``latex``
    or ``markdown`` too."""
    query = _query()
    fig = items_view.figure_at_query(_catalog(figure_id).figure(figure_id), query)  # k: pass@k
    fmt = (query.pop("format", None) or ["json"])[0]
    if fmt not in ("json", "csv", "latex", "markdown"):
        return error(400, f"Unknown format '{clip(fmt, MAX_QUOTED)}'. Use format=json, csv, "
                          f"latex or markdown.")
    if fmt in ("latex", "markdown"):  # one panel as a table for a paper
        text, name, mimetype = payloads.table_payload(fig, query, fmt)
        return Response(text, mimetype=mimetype,
                        headers={"Content-Disposition": f"attachment; filename={name}"})
    view = BrowseView.of_figure(fig, query)
    if fmt == "csv":
        return Response(payloads.cells_csv(fig, list(view.cells)), mimetype="text/csv",
                        headers={"Content-Disposition": f"attachment; filename={fig.id}.csv"})
    return jsonify(view.to_dict())


@api.get("/api/figures/<figure_id>/trends")
def trends(figure_id: str):
    """Per-line statistics and observation sentences of a slice (``/trends.json?figure=<id>``)."""
    query = {**_query(), "figure": [figure_id]}
    return jsonify(TrendsView.from_query(_catalog(figure_id), query).to_dict())


def _compare_catalog(query):
    """The catalog with the stored uploads a compare query names (by id, in any of its values)."""
    return _catalog(*STORED_ID_IN.findall(" ".join(v[:200] for values in query.values()
                                                   for v in values)))


@api.get("/api/compare")
def compare():
    """Two panels' common cells, B - A and the summary (``/compare.json``)."""
    query = _query()
    return jsonify(CompareView.from_query(_compare_catalog(query), query).to_dict())


@api.get("/api/compare/items")
def compare_items():
    """One cell's items on A and B (``/compare/items.json``); ``format=csv`` as the cells API."""
    query = _query()
    fmt = (query.pop("format", None) or ["json"])[0]
    if fmt not in ("json", "csv"):
        return error(400, f"Unknown format '{clip(fmt, MAX_QUOTED)}'. Use format=json or csv.")
    payload = items_view.items_payload(_compare_catalog(query), query, csv=fmt == "csv")
    if fmt == "csv":
        return Response(items_view.items_csv(payload), mimetype="text/csv",
                        headers={"Content-Disposition":
                                 f"attachment; filename={items_view.csv_name(payload)}"})
    return jsonify(payload)


def _rank():
    """The Rank answer of the request's query: JSON, or with ``format=csv`` (one row per cell
    and model) or ``format=csv-pairs`` (one row per cell and pair) a CSV download."""
    query = _query()
    view = RankView.from_query(_catalog(*_figure_ids(query)), query)
    fmt = (query.get("format") or ["json"])[0]
    if fmt in ("csv", "csv-pairs"):
        pairs = fmt == "csv-pairs"
        return Response(view.pairs_csv() if pairs else view.models_csv(), mimetype="text/csv",
                        headers={"Content-Disposition":
                                 f"attachment; filename={view.csv_name(pairs)}"})
    return jsonify(view.to_dict())


@api.get("/api/rank")
def rank():
    """Many models ranked per cell, every pair tested (``/rank.json``)."""
    return _rank()


# --------------------------------------------------------------------------- JSON twins

# Every page path has a JSON twin that takes the same query string and answers its view's JSON
# (evalmaps.views.models), as Datasette's /<db>.json does: /compare?a=..&b=.. is shown by the
# page and answered by /compare.json?a=..&b=..; Browse, at /, answers at /browse.json. The /api
# routes above are their aliases (docs/api.md).
TWINS = ("/browse.json", "/trends.json", "/compare.json", "/compare/items.json", "/rank.json",
         "/rank/overview.json")


def _figure_ids(query) -> list[str]:
    return query.get("figure", [])[:1]


@api.get("/browse.json")
def browse_json():
    """Browse's JSON twin (``/?figure=..`` -> ``/browse.json?figure=..``): the slice's cells."""
    query = _query()
    return jsonify(BrowseView.from_query(_catalog(*_figure_ids(query)), query).to_dict())


@api.get("/trends.json")
def trends_json():
    """Trends' JSON twin: the slice's line statistics, points and sentences."""
    query = _query()
    return jsonify(TrendsView.from_query(_catalog(*_figure_ids(query)), query).to_dict())


@api.get("/compare.json")
def compare_json():
    """Compare's JSON twin: A and B aligned, the summary and sentences."""
    query = _query()
    return jsonify(CompareView.from_query(_compare_catalog(query), query).to_dict())


@api.get("/rank.json")
def rank_json():
    """Rank's JSON twin (``/rank?figure=..`` -> ``/rank.json?figure=..``)."""
    return _rank()


@api.get("/rank/overview.json")
@api.get("/api/rank/overview")
def rank_overview_json():
    """Where each model is best across every figure that ranks: the section of ``/rank`` that
    names no figure (:class:`evalmaps.views.rank.RankOverview`)."""
    return jsonify(RankOverview.from_query(_catalog(), _query()).to_dict())


@api.get("/compare/items.json")
def compare_items_json():
    """The JSON twin of Compare's open items list (``/compare?..&cell=<row>|<column>``)."""
    query = _query()
    return jsonify(ItemsView.from_query(_compare_catalog(query), query).to_dict())


@api.get("/api")
@api.get("/api/")
@api.get("/api/<path:rest>")
def unknown_api_route(rest: str = ""):
    return error(404, f"There is no API route /api/{clip(rest, MAX_QUOTED)}. See /api/figures.")


# What the server answers besides the pages: Dash's own routes, assets, the API, the health check.
SERVED_PREFIXES = ("/_dash-", "/assets/", "/vendor/", "/api", "/healthz", "/_favicon.ico")
DEV_ONLY = ("/_reload-hash",)  # Dash's hot-reload poll: only with debug on


@api.before_app_request
def known_paths_only():
    """Unknown paths answer 404: the app's own page (its 'not found' view) for a browser, JSON
    under /api; Dash's development endpoints answer 404 unless debug is on."""
    path = request.path
    if path in DEV_ONLY:
        if served().settings.debug:
            return None
        return error(404, f"There is no route {path}.")
    if request.method != "GET" or path.startswith(SERVED_PREFIXES) or path in TWINS:
        return None
    pages = {page["path"] for page in dash.page_registry.values()}
    if path in pages or path.rstrip("/") in pages:
        return None
    index = current_app.view_functions[_index_endpoint()]
    return Response(index(path=path.lstrip("/")), status=404, mimetype="text/html")


CALLBACK_PATH = "/_dash-update-component"


@api.before_app_request
def callback_envelope():
    """A callback request whose envelope does not fit the app gets a 400 JSON error before Dash
    reads it (Dash would fail on it with a 500): the body must be a JSON object naming one of the
    app's callbacks, with lists of inputs and state, each an ``{id, property}`` object (or a list
    of them for a pattern-matching input)."""
    if request.path != CALLBACK_PATH or request.method != "POST":
        return None
    try:
        body = request.get_json(silent=True)
    except RecursionError:  # nested too deep for the parser (silent covers ValueError only)
        body = None
        problem = f"it is nested more than {MAX_DEPTH} levels deep"
    else:
        problem = (f"it is nested more than {MAX_DEPTH} levels deep" if too_deep(body)
                   else envelope_problem(body, dash.get_app().callback_map))
    if problem:
        return error(400, f"This is not a callback request of this app: {problem}. Reload the "
                          f"page.")
    return None


# how deep a callback request's JSON may nest: our pages send a few levels (a pattern-matching
# input's list of {id, property, value}, a value that is a list of rows of dicts); a deeper
# body is refused before any code walks it recursively
MAX_DEPTH = 64


def too_deep(body, limit: int = MAX_DEPTH) -> bool:
    """Whether ``body`` (parsed JSON) nests lists and objects more than ``limit`` deep; walked
    without recursion."""
    stack = [(body, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, (dict, list)))
    return False


def _prop(item) -> bool:
    return (isinstance(item, dict) and isinstance(item.get("property"), str)
            and isinstance(item.get("id"), (str, dict)))


def _props(items, optional: bool = False) -> bool:
    if items is None and optional:
        return True
    return isinstance(items, list) and all(
        _prop(i) or (isinstance(i, list) and all(_prop(j) for j in i)) for i in items)


def envelope_problem(body, callbacks) -> str | None:
    """Why a callback request's body does not fit the app (a few words), or None."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    output = body.get("output")
    if not isinstance(output, str) or "callback" not in callbacks.get(output, {}):
        return "it names no server callback of this app"
    outputs = body.get("outputs")
    if not (_prop(outputs) or _props(outputs)):
        return "its outputs are malformed"
    if not _props(body.get("inputs")):
        return "its inputs are malformed"
    if not _props(body.get("state"), optional=True):
        return "its state is malformed"
    changed = body.get("changedPropIds", [])
    if not isinstance(changed, list) or not all(isinstance(c, str) for c in changed):
        return "its changedPropIds are malformed"
    callback = callbacks[output]
    if len(body["inputs"]) != len(callback.get("inputs", [])) or \
            len(body.get("state") or []) != len(callback.get("state", [])):
        return "its inputs do not match the callback"
    for item in [*body["inputs"], *(body.get("state") or [])]:
        for one in item if isinstance(item, list) else [item]:
            if one["property"] in LOCATION_PROPS and not (
                    one.get("value") is None or isinstance(one.get("value"), str)):
                return f"its {one['property']} is not text"
    return None


# a browser's location (dcc.Location) is text: Dash Pages' own routing callback reads these
LOCATION_PROPS = ("pathname", "search", "hash", "href")


LARGE_BODY = 2**20


@api.teardown_app_request
def release_large_bodies(exc=None):
    """After a request with a large body (an upload), give the freed memory back to the system:
    otherwise each worker's resident memory stays at its largest upload."""
    if (request.content_length or 0) > LARGE_BODY:
        budget.release_memory()


def _index_endpoint() -> str:
    """The endpoint Dash serves its page shell from, for any path."""
    for rule in current_app.url_map.iter_rules():
        if rule.rule == "/<path:path>":
            return rule.endpoint
    raise LookupError("Dash's catch-all page route is missing")


@api.get("/healthz")
def health():
    """Always "ok" while the server serves; ``problems``: what start-up could not serve as it
    is (one line each: a file skipped, an id given a suffix, a file changed since its manifest)."""
    return jsonify({"status": "ok", "figures": len(_catalog()),
                    "problems": list(served().problems)})


@api.app_errorhandler(UnknownFigure)
def unknown_figure(exc: UnknownFigure):
    return error(404, str(exc))


@api.app_errorhandler(EvalmapsError)
def bad_request(exc: EvalmapsError):
    return error(400, str(exc))


@api.app_errorhandler(404)
def not_found(exc):
    if request.path.startswith("/api/"):
        return error(404, f"There is no API route {request.path}. See /api/figures.")
    return exc


@api.app_errorhandler(413)
def too_large(exc):
    limit = current_app.config.get("EVALMAPS_MAX_UPLOAD_BYTES", 0) / 2**20
    return error(413, f"The request is too large: files may be at most {limit:g} MB. Split the "
                      f"file, or serve its folder with evalmaps serve --data.")


@api.app_errorhandler(DependencyException)
def unknown_script(exc):
    """A component-suite path Dash does not serve: 404, without Dash's list of every path."""
    return error(404, f"There is no script or style sheet at {clip(request.path, MAX_QUOTED)}.")


@api.app_errorhandler(CallbackException)
def callback_mismatch(exc):
    """Outputs that are not the callback's (a request not made by this app's pages)."""
    return error(400, "This is not a callback request of this app: its outputs do not match the "
                      "callback. Reload the page.")


@api.app_errorhandler(405)
def not_allowed(exc):
    return error(405, f"{request.method} is not allowed on {request.path}.")


@api.app_errorhandler(Exception)
def unexpected(exc: Exception):
    if hasattr(exc, "code") and isinstance(getattr(exc, "code"), int):
        return exc  # an HTTPException: Flask renders it
    current_app.logger.exception("unexpected error on %s", request.path)
    return error(500, "The server could not handle this request. "
                 "If it persists, report it with the URL.")


@vendor.get("/vendor/bootstrap/<path:filename>")
def bootstrap(filename: str):
    """Bootstrap 5 CSS from the installed Bootstrap-Flask package: no CDN."""
    fingerprinted = "v" in request.args  # the app links it with ?v=<Bootstrap-Flask version>
    return send_from_directory(BOOTSTRAP_DIR, filename,
                               max_age=31536000 if fingerprinted else 86400)


# ----------------------------------------------------------------------- a page's scripts in one

SCRIPT_TAG = re.compile(r'<script src="([^"]+)"></script>\n?')
PLOTLY_JS = "/_dash-component-suites/plotly/"  # plotly.js stays a file of its own
BUNDLE_ROUTE = "/vendor/scripts/"
BUNDLES: dict[str, bytes] = {}  # "dash_renderer.<digest>.js" -> the scripts it joins, in order
_JOINED: dict[str, str] = {}  # Dash's script tags -> the tags with the bundle in their place


def bundle_scripts(app: dash.Dash, rewrites=()) -> None:
    """The scripts a page loads, but plotly.js, as one file
    (``/vendor/scripts/dash_renderer.<digest>.js``).

    Dash writes about twenty script tags (React, the renderer, the component libraries, dcc's
    chunks, the app's assets), each read from the browser's HTTP cache on its own. Chromium here
    delivers them about 30 ms later than the same bytes as one file, and plotly.js, which every
    map waits for, with them: on a static page of plotly.js and those files, plotly.js arrived at
    92 ms beside the seventeen files and at 64 ms beside them joined (48 ms alone). The file joins
    the same files' bytes, in Dash's order, each run as if loaded from its own URL
    (:func:`_as_loaded_from`). plotly.js (4.8 MB) still loads beside it, as before. The name is
    the digest of the bytes: cached for a year, like Dash's fingerprinted files.

    ``rewrites``: what the index wrappers installed after this one do to Dash's tags (Dash calls
    the last installed first; AG Grid's tag left inert on most pages:
    ``layouts._first_page.inert_grid``). This joins the tags as the page writes them, and a
    worker asked for a bundle before it has written a page makes each one a page may name:
    from Dash's tags as they are, and as each rewrite leaves them."""
    interpolate = app.interpolate_index

    def interpolate_index(**kwargs):
        kwargs["scripts"] = _joined(app, kwargs.get("scripts", ""))
        return interpolate(**kwargs)

    app.interpolate_index = interpolate_index
    app.server.config["EVALMAPS_SCRIPT_REWRITES"] = (lambda tags: tags, *rewrites)


def _joined(app: dash.Dash, scripts: str) -> str:
    """``scripts`` (Dash's tags) with the local ones but plotly.js's replaced by one tag, where
    the first of them was; the bundle registered in :data:`BUNDLES`. Made once for each set of
    tags (a page's are the same every time)."""
    if scripts not in _JOINED:
        _JOINED[scripts] = _join(app, scripts)
    return _JOINED[scripts]


def _join(app: dash.Dash, scripts: str) -> str:
    found = [(match, _script_bytes(app, match.group(1))) for match in SCRIPT_TAG.finditer(scripts)
             if PLOTLY_JS not in match.group(1)]
    found = [(match, data) for match, data in found if data is not None]
    if len(found) < 2:
        return scripts
    bundle = b"".join(_as_loaded_from(match.group(1), data) for match, data in found) + RESTORED
    # named after Dash's renderer, which it holds: Dash refuses to write a page whose scripts
    # name none ("Missing item dash-renderer in index")
    name = f"dash_renderer.{hashlib.sha256(bundle).hexdigest()[:20]}.js"
    BUNDLES.setdefault(name, bundle)  # (two threads making it at once make the same bytes)
    out, at = [], 0
    for k, (match, _) in enumerate(found):
        out.append(scripts[at:match.start()])
        if k == 0:
            out.append(f'<script src="{BUNDLE_ROUTE}{name}"></script>\n')
        at = match.end()
    out.append(scripts[at:])
    return "".join(out)


SOURCE_MAP = re.compile(rb"^//# sourceMappingURL=.*$", re.MULTILINE)
# before each file of a bundle: document.currentScript is a script element of the file's URL
LOADED_FROM = ("(function () {{ var s = document.createElement('script'); s.src = {src}; "
               "Object.defineProperty(document, 'currentScript', {{configurable: true, "
               "get: function () {{ return s; }}}}); }})();\n")
RESTORED = b"delete document.currentScript;\n"  # after the last: the document's own again


def _as_loaded_from(src: str, data: bytes) -> bytes:
    """A file's bytes in the bundle, run as if loaded from its own ``src``: webpack's bundles
    (dcc, AG Grid) fetch their lazy chunks from the folder of ``document.currentScript``, which
    here is the bundle's; so that folder is the file's own while it runs (:data:`LOADED_FROM`,
    and :data:`RESTORED` after the last file). Its source-map comment is left out (it would
    apply to the whole bundle)."""
    return (LOADED_FROM.format(src=json.dumps(src)).encode() + SOURCE_MAP.sub(b"", data) +
            b"\n;\n")


def _script_bytes(app: dash.Dash, src: str) -> bytes | None:
    """The bytes Dash serves at ``src`` (a component suite's file or an asset), or None for a
    URL it does not serve from this app's files."""
    path = urlsplit(src).path
    prefix = app.config.requests_pathname_prefix
    if not path.startswith(prefix):
        return None
    rest = path[len(prefix):]
    if rest.startswith("_dash-component-suites/"):
        package, _, fingerprinted = rest[len("_dash-component-suites/"):].partition("/")
        in_package, _ = check_fingerprint(fingerprinted)
        if in_package not in app.registered_paths.get(package, ()):
            return None
        return pkgutil.get_data(package, in_package)
    if rest.startswith("assets/"):
        folder = Path(app.config.assets_folder).resolve()
        file = (folder / rest[len("assets/"):]).resolve()
        return file.read_bytes() if file.is_file() and folder in file.parents else None
    return None


@vendor.get(BUNDLE_ROUTE + "<name>")
def scripts(name: str):
    """A bundle of the page's scripts (:func:`bundle_scripts`). A worker that has written no
    page yet makes its bundles first, from Dash's own script tags; once made, a name it does not
    know costs a look-up, not a bundle."""
    if name not in BUNDLES:
        app = dash.get_app()
        tags = dash_internals.page_script_tags(app)  # the tags Dash writes in a page
        for rewrite in current_app.config.get("EVALMAPS_SCRIPT_REWRITES", ()):
            _joined(app, rewrite(tags))
    bundle = BUNDLES.get(name)
    if bundle is None:
        return error(404, f"There is no script bundle {clip(name, MAX_QUOTED)}. Reload the page.")
    response = Response(bundle, mimetype="text/javascript")
    response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    return response
