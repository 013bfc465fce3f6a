"""HTTP routes beside the Dash pages: the JSON/CSV API, vendored static assets and a health check.

Thin: each route parses the request, calls :mod:`evalmaps.api`, and serialises. Errors are JSON
with a one-sentence message; the server never answers 500 with a traceback.
"""

from __future__ import annotations

from pathlib import Path

import dash
import flask_bootstrap
from dash.exceptions import DependencyException
from flask import Blueprint, Response, current_app, jsonify, request, send_from_directory

from evalmaps import api as payloads
from evalmaps.errors import MAX_QUOTED, EvalmapsError, UnknownFigure
from evalmaps.formats import clip

api = Blueprint("evalmaps_api", __name__)
vendor = Blueprint("evalmaps_vendor", __name__)

BOOTSTRAP_DIR = Path(flask_bootstrap.__file__).resolve().parent / "static" / "bootstrap5"


def _catalog():
    return current_app.extensions["evalmaps"]["catalog"]


def _query() -> dict[str, list[str]]:
    return {key: request.args.getlist(key) for key in request.args}


def error(status: int, message: str):
    response = jsonify({"error": message, "status": status})
    response.status_code = status
    return response


@api.get("/api/figures")
def figures():
    return jsonify(payloads.figures_payload(_catalog()))


@api.get("/api/figures/<figure_id>")
def figure(figure_id: str):
    return jsonify(payloads.figure_summary(_catalog().figure(figure_id)))


@api.get("/api/figures/<figure_id>/cells")
def cells(figure_id: str):
    fig = _catalog().figure(figure_id)
    query = _query()
    fmt = (query.pop("format", None) or ["json"])[0]
    if fmt not in ("json", "csv", "latex", "markdown"):
        return error(400, f"Unknown format '{clip(fmt, MAX_QUOTED)}'. Use format=json, csv, "
                          f"latex or markdown.")
    if fmt in ("latex", "markdown"):  # one panel as a table for a paper
        text, name, mimetype = payloads.table_payload(fig, query, fmt)
        return Response(text, mimetype=mimetype,
                        headers={"Content-Disposition": f"attachment; filename={name}"})
    payload = payloads.cells_payload(fig, query)
    if fmt == "csv":
        return Response(payloads.cells_csv(fig, payload["cells"]), mimetype="text/csv",
                        headers={"Content-Disposition": f"attachment; filename={fig.id}.csv"})
    return jsonify(payload)


@api.get("/api/figures/<figure_id>/trends")
def trends(figure_id: str):
    """Per-line statistics and observation sentences of a slice (same filters as /cells)."""
    return jsonify(payloads.trends_payload(_catalog().figure(figure_id), _query()))


@api.get("/api/compare")
def compare():
    """Two panels' common cells, B - A and the summary (see evalmaps.compare for references)."""
    return jsonify(payloads.compare_payload(_catalog(), _query()))


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
        if current_app.extensions["evalmaps"]["settings"].debug:
            return None
        return error(404, f"There is no route {path}.")
    if request.method != "GET" or path.startswith(SERVED_PREFIXES):
        return None
    pages = {page["path"] for page in dash.page_registry.values()}
    if path in pages or path.rstrip("/") in pages:
        return None
    index = current_app.view_functions[_index_endpoint()]
    return Response(index(path=path.lstrip("/")), status=404, mimetype="text/html")


def _index_endpoint() -> str:
    """The endpoint Dash serves its page shell from, for any path."""
    for rule in current_app.url_map.iter_rules():
        if rule.rule == "/<path:path>":
            return rule.endpoint
    raise LookupError("Dash's catch-all page route is missing")


@api.get("/healthz")
def health():
    return jsonify({"status": "ok", "figures": len(_catalog())})


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
