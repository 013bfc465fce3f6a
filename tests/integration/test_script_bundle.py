"""A page's scripts but plotly.js come as one file (layouts._routes.bundle_scripts): the same files Dash
would have written a tag for, in the same order, each run as if loaded from its own URL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from components.dash_internals import page_script_tags
from evalmaps.core.runfiles import SITE_ONLY_SCRIPTS
from evalmaps.service import bundle as site
from layouts import _routes as routes
from layouts._first_page import ON_DEMAND, inert_grid

TAG = re.compile(r'<script( type="[^"]*"[^>]*)? src="([^"]+)"></script>')
_BEFORE, _AFTER = (part.replace("{{", "{").replace("}}", "}").encode()
                   for part in routes.LOADED_FROM.split("{src}"))
PART = re.compile(re.escape(_BEFORE) + rb'"([^"]+)"' + re.escape(_AFTER))
END = routes.RESTORED
PAGES = ["/", "/?figure=short-to-long", "/compare", "/trends", "/data", "/no-such-page"]


def script_tags(html: str) -> list[tuple[str, str]]:
    """(type attributes, src) of a page's script tags with a src, in order."""
    return [(typed or "", src) for typed, src in TAG.findall(html)]


def parts(bundle: bytes) -> list[tuple[str, bytes]]:
    """The bundle's files: (the URL each runs as, its bytes as joined)."""
    assert bundle.endswith(END)
    marks = list(PART.finditer(bundle))
    assert marks and marks[0].start() == 0
    ends = [m.start() for m in marks[1:]] + [len(bundle) - len(END)]
    out = []
    for mark, end in zip(marks, ends):
        body = bundle[mark.end():end]
        assert body.endswith(b"\n;\n")
        out.append((mark.group(1).decode(), body[:-len(b"\n;\n")]))
    return out


def bundle_of(client, path: str) -> tuple[str, bytes]:
    tags = [src for typed, src in script_tags(client.get(path).get_data(as_text=True))
            if src.startswith(routes.BUNDLE_ROUTE)]
    assert len(tags) == 1, tags
    response = client.get(tags[0])
    assert response.status_code == 200
    return tags[0], response.data


@pytest.mark.parametrize("path", PAGES)
def test_a_page_loads_one_bundle_and_plotly_js(client, dash_app, path):
    """The page's script tags: the bundle, where Dash's first script was, then AG Grid's inert
    tag on the pages that show no grid, then plotly.js. Nothing else is fetched to run."""
    html = client.get(path).get_data(as_text=True)
    tags = script_tags(html)
    plotly = [src for _, src in tags if src.startswith("/_dash-component-suites/plotly/")]
    assert len(plotly) == 1 and plotly[0].endswith(".min.js")
    grid = [(typed, src) for typed, src in tags if "/dash_ag_grid/" in src]
    bundle = [src for _, src in tags if src.startswith(routes.BUNDLE_ROUTE)]
    assert len(bundle) == 1 and re.fullmatch(r"/vendor/scripts/dash_renderer\.[0-9a-f]{20}\.js",
                                             bundle[0])
    if grid:  # a page without a grid: its tag inert, for assets/lazy.js
        assert len(grid) == 1 and f'type="{ON_DEMAND}"' in grid[0][0]
        assert tags == [("", bundle[0]), grid[0], ("", plotly[0])]
    else:  # Trends and Data: AG Grid in the bundle
        assert path.startswith(("/trends", "/data"))
        assert tags == [("", bundle[0]), ("", plotly[0])]
    assert html.index(bundle[0]) < html.index('id="_dash-renderer"')  # Dash's start comes after


@pytest.mark.parametrize("path", ["/compare", "/data"])
def test_the_bundle_joins_the_files_dash_would_load_in_their_order(client, dash_app, path):
    """Its files are the ones Dash writes a tag for (AG Grid's left inert where the page shows
    no grid), but plotly.js, in Dash's order, each byte for byte as Dash serves it at its own
    URL, but for its source-map comment."""
    _, bundle = bundle_of(client, path)
    dash_tags = page_script_tags(dash_app)
    written = dash_tags if path == "/data" else inert_grid(dash_tags)
    expected = [src for typed, src in script_tags(written)
                if not typed and "/plotly/" not in src]
    joined = parts(bundle)
    assert [src for src, _ in joined] == expected
    assert any("dash_renderer" in src for src in expected)
    assets = sorted(path.name for path in Path(dash_app.config.assets_folder).glob("*.js")
                    if path.name not in SITE_ONLY_SCRIPTS)
    assert len(assets) > 5  # the app's own scripts but the site's, in the order of their names
    assert [src.split("?")[0].rsplit("/", 1)[1] for src in expected
            if src.startswith("/assets/")] == assets
    assert any("/dash_ag_grid/" in src for src in expected) == (path == "/data")
    for src, body in joined:
        served = client.get(src)
        assert served.status_code == 200, src
        assert body == routes.SOURCE_MAP.sub(b"", served.data), src
    assert not routes.SOURCE_MAP.search(bundle)


def test_the_bundle_is_cached_for_a_year_and_compressed(client):
    name, bundle = bundle_of(client, "/compare")
    response = client.get(name, headers={"Accept-Encoding": "br"})
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response.headers["Content-Type"].startswith("text/javascript")
    assert response.headers["Content-Encoding"] == "br"
    assert len(response.data) < len(bundle) // 3


def test_a_worker_that_has_written_no_page_makes_the_bundle_asked_for(client):
    """gunicorn's other worker may get the bundle's request: it makes every bundle a page may
    name from Dash's own tags, the same bytes under the same name."""
    names = {path: bundle_of(client, path) for path in ("/compare", "/data")}
    routes.BUNDLES.clear()  # as a worker starts
    routes._JOINED.clear()
    first, bundle = names["/compare"]
    assert client.get(first).data == bundle  # made: both pages' bundles
    assert set(routes.BUNDLES) == {src.rsplit("/", 1)[1] for src, _ in names.values()}
    for src, bundle in names.values():
        assert client.get(src).data == bundle


def test_an_unknown_bundle_is_a_404_with_a_message(client):
    response = client.get("/vendor/scripts/dash_renderer.0123456789abcdef0123.js")
    assert response.status_code == 404
    assert response.get_json() == {
        "error": "There is no script bundle dash_renderer.0123456789abcdef0123.js. Reload the "
                 "page.", "status": 404}


def test_unknown_names_cost_a_look_up_not_a_bundle(client, monkeypatch):
    """A client asking for made-up bundle names makes the server read and join no file."""
    bundle_of(client, "/compare")
    bundle_of(client, "/data")
    joins = []
    monkeypatch.setattr(routes, "_join", lambda *args: joins.append(args))
    for k in range(5):
        assert client.get(f"/vendor/scripts/dash_renderer.{k:020d}.js").status_code == 404
    assert joins == []


def test_the_static_sites_own_scripts_are_left_out_of_the_live_pages(client, dash_app, tmp_path):
    """The scripts only the static site calls (evalmaps.core.runfiles.SITE_ONLY_SCRIPTS: its
    in-browser slicing) are in no live page, neither as a tag nor in the bundle, while the
    site made by ``evalmaps bundle`` ships each and its pages load it."""
    assert SITE_ONLY_SCRIPTS and all((Path(dash_app.config.assets_folder) / name).is_file()
                                     for name in SITE_ONLY_SCRIPTS)
    for path in PAGES:
        html = client.get(path).get_data(as_text=True)
        _, joined = bundle_of(client, path)
        loaded = [src for _, src in script_tags(html)] + [src for src, _ in parts(joined)]
        assert any(src.split("?")[0].endswith("/evalmaps-keys.js") for src in loaded), path
        for name in SITE_ONLY_SCRIPTS:
            assert not [src for src in loaded if src.split("?")[0].endswith("/" + name)], path
            assert name not in html, path
    catalog = dash_app.server.extensions["evalmaps"]["catalog"]
    figure = next(iter(catalog))
    files = dict(site.site_files([figure], []))
    page = files[f"figures/{site.file_names([figure])[figure.id]}.html"].decode()
    for name in SITE_ONLY_SCRIPTS:
        assert f"assets/{name}" in files
        assert f'src="../assets/{name}"' in page
