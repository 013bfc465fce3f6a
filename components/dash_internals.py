"""Every use of a private name of Dash, dcc or Plotly (Python), in one place.

Each hook below buys something measured (its docstring says what, and how it was measured) by
reaching past Dash's public API. A Dash minor release may rename or reshape any of them without
notice; ``tests/unit/test_dash_internals.py`` checks, one test per hook, that the installed Dash
still has what the hook relies on (and fails naming the hook), and that no other module of the
app uses a private Dash or Plotly name. pyproject.toml pins Dash to the minor versions tested.

Which hooks stay, what each buys measured with and without it (``benchmarks/boundary.py``), and
which Dash 4 means were weighed against each: docs/architecture.md, "The Dash boundary". What
the browser does to the same end is named in :data:`IN_THE_BROWSER`.

Most of them change Dash's behaviour for the whole process (every app in it), as they did where
they were before: the app applies them once, in ``app.create_app``.

Hooks that need no private name any more are here too where they stand for Dash's own behaviour
(:func:`dash_json`, the page container's ids): the module is where to look when Dash changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import dash
import dash._callback
import dash._dash_renderer
import dash._pages
from dash import dcc
from dash.development.base_component import Component
from plotly.io.json import to_json_plotly

# assets/<file>: what it makes Dash or plotly.js do less (or sooner), and what of theirs it
# relies on; the browser's half of the boundary (docs/architecture.md, "The Dash boundary")
IN_THE_BROWSER = {
    "lazy.js": "dcc's lazy menus, sliders, graphs and drops resolved before the first page "
               "renders (their code comes with the page: load_plotly_up_front); AG Grid's "
               "stand-in until its code loads (layouts._first_page.grid_on_demand). Relies on "
               "window.dash_core_components and window.dash_ag_grid as Dash finds components.",
    "export.js": "Plotly.newPlot and Plotly.react wrapped, so that a figure is fitted to its "
                 "chart before plotly.js draws it (evalmapsLib.fit.prefit in evalmaps-fit.js): "
                 "drawn once, not drawn and then fitted and drawn again.",
    "evalmaps-plotly-internals.js": "every private name of plotly.js (gd._fullLayout, the "
                                    "axes' geometry, Plotly.Fx), read by the overlays, the "
                                    "fitting and the keyboard.",
    "nav.js": "Dash's /_dash-layout and /_dash-dependencies asked for while the scripts load "
              "(a preload Dash's own fetch then takes).",
}

# ------------------------------------------------------------------------ serialising JSON


def dash_json(value) -> str:
    """What Dash writes for ``value`` (a layout, a callback response), as text: Dash's own
    serialiser is plotly's public ``plotly.io.json.to_json_plotly`` with its defaults (this was
    the private ``dash._utils.to_json``, which only calls it). The fallback of the app's own
    serialiser, and what the tests compare it with."""
    return to_json_plotly(value)


def serialise_callbacks_with(to_json: Callable[[object], bytes | str]) -> None:
    """Callback responses written by ``to_json`` instead of Dash's serialiser (private:
    ``dash._callback.to_json``, which Dash's callback dispatch calls for every response).
    Dash's path walks every list in Python and then scans the whole text three times; with
    ``app.callback_json`` (orjson) a Browse callback at 1e6 cells went from 80 ms to 13 ms in
    process (commit db5d0c2, issue 8). For the whole process."""
    dash._callback.to_json = to_json


LAYOUT_ROUTE = "_dash-layout"  # Dash's route (and Flask endpoint) for the app's layout


def serve_layout_with(app: dash.Dash, view: Callable[[], object]) -> None:
    """``/_dash-layout`` answered by ``view`` instead of ``Dash.serve_layout``: Dash registers
    its bound method under its own endpoint name (``routes_pathname_prefix`` +
    :data:`LAYOUT_ROUTE`) when the app is built, so assigning ``app.serve_layout`` afterwards
    changes nothing. With the first page in it (``layouts._first_page``) the layout holds the
    page's figures, which ``app.callback_json`` writes as it writes callback responses."""
    app.server.view_functions[app.config.routes_pathname_prefix + LAYOUT_ROUTE] = view


# ------------------------------------------------------------------------ the page's scripts

LEGACY_POLYFILL = "polyfill@"  # @babel/polyfill 7 (core-js 2), in Dash's renderer dependencies


def drop_legacy_polyfill() -> None:
    """Dash's renderer brings @babel/polyfill (core-js 2, 97 KB) for browsers of IE 11's age
    (private: ``dash._dash_renderer._js_dist_dependencies``, the renderer's script list): every
    page paid for evaluating it (30 to 60 ms here) before its first map (commit 0b50371). The
    browsers evalmaps serves need none of it. The one global it provides that the bundles use,
    ``regeneratorRuntime`` (their lazy-component loaders run it, after the page's scripts), is
    defined by dash-bootstrap-components' bundle, which loads before them; the browser tests
    fail on any console error, so a bundle that found it missing would fail them. For the whole
    process."""
    for dependency in dash._dash_renderer._js_dist_dependencies:
        for key in ("relative_package_path", "external_url"):
            paths = dependency.get(key) or {}
            for mode, listed in paths.items():
                paths[mode] = [p for p in listed if LEGACY_POLYFILL not in p]


# the lazy chunks the pages render in their first paint: dcc's menus, sliders, graphs and the
# Data page's file drop (26 KB)
UP_FRONT_CHUNKS = ("async-dropdown.js", "async-slider.js", "async-graph.js", "async-upload.js")


def load_plotly_up_front() -> None:
    """plotly.js and dcc's menu, slider, graph and upload code with the page's first scripts
    (private: ``dcc._js_dist``, dcc's script list, to which each ``Dash()`` appends plotly.js;
    commit bd48ce3). Dash registers them as async resources, fetched and run only once the
    first such component mounts, after the layout and the page's callbacks: every page here
    draws graphs and menus, so waiting for them only delays the first paint, and each
    placeholder drawn meanwhile (a menu's, a slider's) is replaced by a taller control that
    pushes the page down (layout shift). ``assets/lazy.js`` then resolves their React.lazy
    wrappers before the first page renders. The other chunks (markdown, mathjax, date
    pickers...) stay lazy. For the whole process; run it after the app is built (plotly.js is
    appended then)."""
    for script in dcc._js_dist:
        path = script.get("relative_package_path", "")
        if (script.get("namespace") == "plotly" and path.endswith("plotly.min.js")) or \
                path.endswith(UP_FRONT_CHUNKS):
            script.pop("async", None)


def page_script_tags(app: dash.Dash) -> str:
    """The script tags Dash writes in a page, as Dash writes them (private:
    ``Dash._generate_scripts_html``). ``layouts._routes.scripts`` makes a page's one-file bundle from
    them when a worker is asked for a bundle before it has written a page: the bundle brought
    plotly.js ~15 ms earlier and Compare's paint ~25 ms sooner (commit ef43109, A/B, medians
    of 17)."""
    return app._generate_scripts_html()  # noqa: SLF001


# ------------------------------------------------------------------------ the page's config

VERSION_KEYS = ("dash_version", "python_version", "dash_version_url", "ddk_version",
                "plotly_version")


def hide_versions(app: dash.Dash, keys: tuple[str, ...] = VERSION_KEYS) -> None:
    """The page's Dash config (the ``_dash-config`` script of every page) without ``keys``: by
    default the Python, Dash and Plotly versions, which only Dash's dev tools read; nothing else
    needs to know what the server runs (commit 589680b, issue 11). Private: ``Dash._config``,
    the method that makes that config, wrapped on this app."""
    config = app._config  # noqa: SLF001

    def without_versions():
        out = config()
        for key in keys:
            out.pop(key, None)
        return out

    app._config = without_versions  # noqa: SLF001


# ------------------------------------------------------------------------ the first request


def setup_before_any_request(app: dash.Dash) -> None:
    """Dash moves the registered callbacks into the app in a hook of the first request (private:
    ``Dash._setup_server``), which marks itself done before it has copied them: in a gthread
    worker, requests that arrive with the first one could find no callback (a 400 'names no
    server callback' from ``layouts._routes.callback_envelope``, a few in every load test after a worker
    restart; commit 9ba2e49, ``test_first_requests`` fails on the race). This hook runs first
    and lets one request do it while the others wait."""
    lock = threading.Lock()
    done = threading.Event()

    def setup_once():
        if not done.is_set():
            with lock:
                if not done.is_set():
                    app._setup_server()  # noqa: SLF001
                    done.set()

    app.server.before_request_funcs.setdefault(None, []).insert(0, setup_once)


# ------------------------------------------------------------------------ Dash Pages


def _container_ids() -> tuple[str, str, str, str]:
    """(location, content, store, dummy): the ids of the four components of Dash Pages' public
    ``dash.page_container`` (a Location, a Div, a Store, a Div), which are the ids its routing
    and title callbacks read and write (Dash's private ``dash.dash._ID_*`` constants)."""
    children = list(dash.page_container.children)
    kinds = [type(child).__name__ for child in children]
    if kinds != ["Location", "Div", "Store", "Div"]:
        raise ImportError(f"Dash {dash.__version__} changed dash.page_container: its children "
                          f"are {kinds}; see components/dash_internals.py PAGES_LOCATION")
    return tuple(child.id for child in children)


PAGES_LOCATION, PAGES_CONTENT, PAGES_STORE, PAGES_DUMMY = _container_ids()
"""Dash Pages' container ids ('_pages_location', ...). The first page comes inside the app's
first layout in a container with these ids (``layouts._first_page``), so that no routing callback
fires before the first paint (commit 02f4da7: about 0.1-0.2 s before the first map on 8 maps of
200x100); the pages navigate by writing the location's ``href``."""


def query_arguments(search: str | None) -> dict:
    """The keyword arguments Dash Pages' routing callback gives a page's layout for a URL's
    query string (private: ``dash._pages._parse_query_string``): the first page, rendered in the
    app's first layout, gets exactly what the routing callback would pass (commit 02f4da7)."""
    return dash._pages._parse_query_string(search)


def page_at(app: dash.Dash, path: str) -> tuple[dict | None, dict | None]:
    """(the Dash Pages page at ``path``, its path variables), as the routing callback finds it
    (private: ``dash._pages._path_to_page``, over ``app.strip_relative_path``); ({}, None) when
    no page is there. The first page, its title and whether it shows a grid are looked up as
    Dash Pages would (commits 02f4da7, dde9b3e, 89814c7)."""
    return dash._pages._path_to_page(app.strip_relative_path(path))


def components_in(layout) -> Iterator:
    """Everything inside a layout tree, depth first: each component and each of its other
    children (texts, numbers, None), not the root itself (private: ``Component._traverse``; no
    public method yields the components themselves). The first page's own locations are given
    the URL before it is sent, so that none reports it as it mounts (each report fired a sync
    callback: a round trip that changed nothing, commit 02f4da7). A value that is not a
    component has nothing inside."""
    if not isinstance(layout, Component):
        return iter(())
    return layout._traverse()  # noqa: SLF001


PAGES_TITLE_JS = "document.title = data.title"  # the body of Dash Pages' title callback


def title_callback_on_change(app: dash.Dash) -> None:
    """Dash Pages' title callback (``document.title = data.title`` on its store) fires when the
    store changes, not at load: the page's HTML has the title already (``_first_page.
    titled_index``). Dash Pages registers it on the first request through
    ``app.clientside_callback``, which this wraps on this app to add
    ``prevent_initial_call=True`` to that one callback. Three clientside callbacks fired at every
    load (nav links, active mark, title): Dash's bookkeeping for them ran between the last map
    drawn and the frame that shows it, about 30-50 ms on Compare (commit dde9b3e)."""
    register = app.clientside_callback

    def clientside_callback(function, *args, **kwargs):
        if isinstance(function, str) and PAGES_TITLE_JS in function:
            kwargs["prevent_initial_call"] = True
        return register(function, *args, **kwargs)

    app.clientside_callback = clientside_callback


# ------------------------------------------------------------------------ the test suite


def number_test_servers_from(port: int) -> None:
    """Number the ports of dash[testing]'s servers (``dash_duo``'s app, one per test) from
    ``port`` in this process: dash[testing] counts them from 8050 in every process, so under
    pytest-xdist two workers' tests would ask for the same port, and a test's browser could be
    served by the other worker's app. The suite's conftest gives each worker a range of its own.
    Reaches ``BaseDashRunner._next_port`` (dash.testing.application_runners): it buys a suite
    on every core (pytest-xdist), measured in docs/testing.md."""
    from dash.testing.application_runners import BaseDashRunner

    BaseDashRunner._next_port = port
