"""components/dash_internals.py holds every use of a private Dash, dcc, dash_table or Plotly name.

One test per hook checks that the installed Dash still has what the hook relies on (the name
exists, with the type, signature or shape the hook expects) and that the hook does what it says;
a failure names the library's version, the private name, what changed and the hook. The last
tests read the app's Python files and fail on a private Dash or Plotly name used anywhere else.
"""

from __future__ import annotations

import ast
import copy
import inspect
import json
import re
from pathlib import Path

import dash
import plotly
import pytest
from dash import dcc, html

from components import dash_internals as di

ROOT = Path(__file__).resolve().parents[2]
DASH = ".".join(dash.__version__.split(".")[:2])
PLOTLY = ".".join(plotly.__version__.split(".")[:2])


def changed(name: str, what: str, hook: str, library: str = f"Dash {DASH}") -> str:
    return f"{library} changed {name}: {what}; see components/dash_internals.py {hook}"


def expect(condition, name: str, what: str, hook: str, library: str = f"Dash {DASH}") -> None:
    if not condition:
        pytest.fail(changed(name, what, hook, library), pytrace=False)


def private(owner, attribute: str, owner_name: str, hook: str):
    """``owner.attribute``, failing with the hook's name when Dash no longer has it."""
    expect(hasattr(owner, attribute), f"{owner_name}.{attribute}", "it is gone", hook)
    return getattr(owner, attribute)


def signature_of(function) -> list[str]:
    return list(inspect.signature(function).parameters)


# ------------------------------------------------------------------------ serialising JSON

SAMPLE = {"figure": {"data": [{"z": [[1.5, float("nan")], [None, 2]]}]},
          "layout": html.Div([dcc.Store(id="s", data={"a": "</script>"}), "text"], id="d")}


def test_dash_json_is_what_dash_writes():
    import dash._utils

    to_json = private(dash._utils, "to_json", "dash._utils", "dash_json")
    expect(signature_of(to_json) == ["value"], "dash._utils.to_json",
           f"its parameters are {signature_of(to_json)}, not (value)", "dash_json")
    expect(to_json(SAMPLE) == di.dash_json(SAMPLE), "dash._utils.to_json",
           "it no longer writes what plotly.io.json.to_json_plotly writes", "dash_json")
    import plotly.io.json as plotly_json

    expect(signature_of(plotly_json.to_json_plotly)[:1] == ["plotly_object"],
           "plotly.io.json.to_json_plotly", "its first parameter", "dash_json",
           f"Plotly {PLOTLY}")
    assert json.loads(di.dash_json(SAMPLE))["figure"]["data"][0]["z"] == [[1.5, None], [None, 2]]


def _calls_global(module, name: str) -> bool:
    """Whether a function of ``module`` (or one nested in it) reads the global ``name``."""
    def codes(code):
        yield code
        for const in code.co_consts:
            if inspect.iscode(const):
                yield from codes(const)

    for value in vars(module).values():
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            if any(name in code.co_names for code in codes(value.__code__)):
                return True
    return False


def test_serialise_callbacks_with_replaces_what_callback_responses_are_written_by(
        dash_app, client, monkeypatch):
    import dash._callback

    from app import callback_json

    private(dash._callback, "to_json", "dash._callback", "serialise_callbacks_with")
    expect(_calls_global(dash._callback, "to_json"), "dash._callback.to_json",
           "no function of dash._callback calls it any more (responses are written by something "
           "else)", "serialise_callbacks_with")
    assert dash._callback.to_json is callback_json  # what the app installed
    written = []

    def recording(value):
        written.append(value)
        return callback_json(value)

    monkeypatch.setattr(dash._callback, "to_json", callback_json)  # restored after the test
    di.serialise_callbacks_with(recording)
    client.get("/")  # Dash Pages registers its callbacks on the first request
    menu = next(d for d in client.get("/_dash-dependencies").get_json()
                if d["inputs"] == [{"id": "compare-mean-figure", "property": "value"}])
    output_id, prop = menu["output"].split("@")[0].rsplit(".", 1)
    response = client.post("/_dash-update-component", content_type="application/json", json={
        "output": menu["output"], "outputs": {"id": output_id, "property": prop},
        "inputs": [{"id": "compare-mean-figure", "property": "value", "value": "short-to-long"}],
        "state": [{**s, "value": None} for s in menu["state"]],
        "changedPropIds": ["compare-mean-figure.value"]})
    assert response.status_code == 200, response.data[:300]
    expect(len(written) == 1 and response.data == callback_json(written[0]),
           "dash._callback.to_json", "a callback response was not written by it",
           "serialise_callbacks_with")


def test_serve_layout_with_answers_dashs_layout_route(dash_app, client):
    route = dash_app.config.routes_pathname_prefix + di.LAYOUT_ROUTE
    rules = {rule.rule: rule.endpoint for rule in dash_app.server.url_map.iter_rules()}
    expect(rules.get(route) == route, f"the endpoint of {route}",
           f"the route's endpoint is {rules.get(route)!r}, not {route!r}", "serve_layout_with")
    view = dash_app.server.view_functions[route]
    # app.serve_layout_json's view, not Dash's
    assert view.__name__ == "serve_layout" and view != dash_app.serve_layout
    response = client.get(route)
    assert response.headers["Cache-Control"] == "no-store"  # the app's view answered


# ------------------------------------------------------------------------ the page's scripts

def _renderer_paths(dependencies) -> list[str]:
    return [path for dependency in dependencies for key in ("relative_package_path", "external_url")
            for listed in (dependency.get(key) or {}).values() for path in listed]


def test_drop_legacy_polyfill_drops_it_from_the_renderers_dependencies(dash_app, monkeypatch):
    import dash._dash_renderer as renderer

    hook = "drop_legacy_polyfill"
    dependencies = private(renderer, "_js_dist_dependencies", "dash._dash_renderer", hook)
    expect(isinstance(dependencies, list) and all(
        isinstance(d, dict) and all(isinstance(v, dict) for k, v in d.items()
                                    if k in ("relative_package_path", "external_url"))
        for d in dependencies), "dash._dash_renderer._js_dist_dependencies",
        "it is not a list of dicts of {mode: [paths]}", hook)
    deps_folder = Path(dash.__file__).parent / "deps"
    expect(any(deps_folder.glob(f"{di.LEGACY_POLYFILL}*.js")), "its renderer dependencies",
           f"no {di.LEGACY_POLYFILL}*.js in dash/deps any more: the hook may be dropped", hook)
    paths = _renderer_paths(dependencies)
    assert paths and not any(di.LEGACY_POLYFILL in p for p in paths)  # the app dropped it
    assert any("react-dom@" in p for p in paths)  # and only it
    pristine = copy.deepcopy(dependencies)
    for dependency in pristine:
        dependency["relative_package_path"]["prod"].insert(0, "deps/polyfill@7.12.1.min.js")
    monkeypatch.setattr(renderer, "_js_dist_dependencies", pristine)
    di.drop_legacy_polyfill()
    assert _renderer_paths(pristine) == paths


def test_load_plotly_up_front_writes_their_tags_with_the_pages(dash_app):
    hook = "load_plotly_up_front"
    scripts = private(dcc, "_js_dist", "dcc", hook)
    paths = {str(s.get("relative_package_path", "")): s for s in scripts if isinstance(s, dict)}
    for chunk in di.UP_FRONT_CHUNKS:
        found = [s for p, s in paths.items() if p.endswith(chunk)]
        expect(found, "dcc._js_dist", f"it lists no {chunk}", hook)
        assert all("async" not in s for s in found), chunk  # the app made it eager
    plotly_js = [s for p, s in paths.items()
                 if s.get("namespace") == "plotly" and p.endswith("plotly.min.js")]
    expect(plotly_js, "dcc._js_dist", "Dash no longer adds plotly.js to it (namespace 'plotly', "
           "package_data/plotly.min.js)", hook)
    assert all("async" not in s for s in plotly_js)
    lazy = [p for p, s in paths.items() if p.endswith("async-markdown.js")]
    assert lazy and "async" in paths[lazy[0]]  # the others stay lazy
    tags = di.page_script_tags(dash_app)
    for name in ("async-graph", "async-dropdown", "async-slider", "async-upload", "plotly"):
        expect(re.search(rf'<script src="[^"]*/{name}[^"]*\.js"></script>', tags),
               "dcc._js_dist", f"{name} is not written with the page's scripts once its entry "
               f"is not async", hook)


def test_page_script_tags_are_the_tags_dash_writes(dash_app):
    hook = "page_script_tags"
    method = private(dash.Dash, "_generate_scripts_html", "Dash", hook)
    expect(signature_of(method) == ["self"], "Dash._generate_scripts_html",
           f"its parameters are {signature_of(method)}, not (self)", hook)
    tags = di.page_script_tags(dash_app)
    expect(isinstance(tags, str) and '<script src="' in tags and "dash_renderer" in tags,
           "Dash._generate_scripts_html", "it no longer returns the page's <script> tags", hook)


# ------------------------------------------------------------------------ the page's config

def test_hide_versions_leaves_them_out_of_the_pages_config(dash_app, client):
    hook = "hide_versions"
    own = private(dash.Dash, "_config", "Dash", hook)
    expect(callable(own) and signature_of(own) == ["self"], "Dash._config",
           "it is not a method of no arguments", hook)
    with dash_app.server.test_request_context("/"):
        full = own(dash_app)  # Dash's own, unwrapped
        shown = dash_app._config()  # as the app wraps it
    expect(isinstance(full, dict) and "url_base_pathname" in full, "Dash._config",
           "it does not return the page's config as a dict", hook)
    missing = [key for key in di.VERSION_KEYS if key not in full]
    expect(not missing, "Dash._config", f"its config has no {missing} any more", hook)
    assert not set(di.VERSION_KEYS) & set(shown)
    assert {k: v for k, v in full.items() if k not in di.VERSION_KEYS and k != "end_id"} == \
        {k: v for k, v in shown.items() if k != "end_id"}  # end_id: a new token each time
    page = client.get("/").get_data(as_text=True)
    config = json.loads(re.search(r'<script id="_dash-config" type="application/json">(.*?)'
                                  r'</script>', page, re.S).group(1))
    expect("dash_version" not in config, "Dash._config",
           "the page's config is not made by it any more", hook)


# ------------------------------------------------------------------------ the first request

def test_setup_before_any_request_runs_dashs_first_request_setup_once(dash_app):
    hook = "setup_before_any_request"
    method = private(dash.Dash, "_setup_server", "Dash", hook)
    expect(signature_of(method) == ["self"], "Dash._setup_server",
           f"its parameters are {signature_of(method)}, not (self)", hook)
    funcs = dash_app.server.before_request_funcs[None]
    dashs = [f for f in funcs if getattr(f, "__func__", None) is method]
    expect(dashs, "Dash._setup_server", "Dash no longer runs it before each request", hook)
    assert funcs[0].__name__ == "setup_once"  # ours first
    with dash_app.server.test_request_context("/"):
        funcs[0]()
        funcs[0]()  # once set up, nothing more
    assert dash_app.callback_map  # the callbacks are the app's


# ------------------------------------------------------------------------ Dash Pages

def test_the_page_container_ids_are_the_routing_and_title_callbacks(client):
    import dash.dash as dash_module

    hook = "PAGES_LOCATION"
    ours = (di.PAGES_LOCATION, di.PAGES_CONTENT, di.PAGES_STORE, di.PAGES_DUMMY)
    theirs = tuple(private(dash_module, f"_ID_{name}", "dash.dash", hook)
                   for name in ("LOCATION", "CONTENT", "STORE", "DUMMY"))
    expect(ours == theirs, "dash.page_container",
           f"its ids {ours} are not the routing callback's {theirs}", hook)
    client.get("/")  # Dash Pages registers its callbacks on the first request
    deps = client.get("/_dash-dependencies").get_json()
    routing = f"..{di.PAGES_CONTENT}.children...{di.PAGES_STORE}.data.."
    router = [d for d in deps if d["output"] == routing]
    expect(len(router) == 1 and [(i["id"], i["property"]) for i in router[0]["inputs"]] == [
        (di.PAGES_LOCATION, "pathname"), (di.PAGES_LOCATION, "search")],
        "Dash Pages' routing callback", f"it does not write {routing} from the location", hook)
    title = [d for d in deps if d["output"] == f"{di.PAGES_DUMMY}.children"]
    expect(len(title) == 1 and title[0]["inputs"] == [{"id": di.PAGES_STORE, "property": "data"}],
           "Dash Pages' title callback", "it does not read the store", hook)


def test_query_arguments_are_what_the_routing_callback_passes():
    import dash._pages

    hook = "query_arguments"
    parse = private(dash._pages, "_parse_query_string", "dash._pages", hook)
    expect(signature_of(parse) == ["search"], "dash._pages._parse_query_string",
           f"its parameters are {signature_of(parse)}, not (search)", hook)
    cases = {"?figure=a&rows=1&rows=2&x=": {"figure": "a", "rows": ["1", "2"], "x": ""},
             "": {}, None: {}, "figure=a": {}, "?a=%2C+b": {"a": ", b"}}
    for search, expected in cases.items():
        expect(di.query_arguments(search) == expected, "dash._pages._parse_query_string",
               f"{search!r} gives {di.query_arguments(search)!r}, not {expected!r}", hook)
    source = inspect.getsource(dash.Dash.enable_pages)
    expect("_parse_query_string(search_)" in source, "Dash.enable_pages",
           "its routing callback no longer passes _parse_query_string's arguments", hook)


def test_page_at_finds_the_page_as_the_routing_callback_does(dash_app):
    import dash._pages

    hook = "page_at"
    find = private(dash._pages, "_path_to_page", "dash._pages", hook)
    expect(signature_of(find) == ["path_id"], "dash._pages._path_to_page",
           f"its parameters are {signature_of(find)}, not (path_id)", hook)
    source = inspect.getsource(dash.Dash.enable_pages)
    expect("_path_to_page(" in source and "self.strip_relative_path(pathname_)" in source,
           "Dash.enable_pages", "its routing callback finds the page another way", hook)
    for path, name in (("/", "Browse"), ("/trends", "Trends"), ("/compare", "Compare"),
                       ("/data", "Data")):
        page, variables = di.page_at(dash_app, path)
        expect(isinstance(page, dict) and page.get("name") == name and variables is None,
               "dash._pages._path_to_page", f"{path} gives {page!r}, {variables!r}", hook)
    expect(di.page_at(dash_app, "/no-such-page") == ({}, None), "dash._pages._path_to_page",
           "a path that is no page does not give ({}, None)", hook)


def test_components_in_yields_every_component_inside_a_tree():
    from dash.development.base_component import Component

    hook = "components_in"
    private(Component, "_traverse", "Component", hook)
    location, store = dcc.Location(id="l"), dcc.Store(id="s")
    tree = html.Div([location, html.Div([store, "text"]), None], id="root")
    found = list(di.components_in(tree))
    inner = tree.children[1]
    expect(len(found) == 5 and [found[0], found[1], found[2]] == [location, inner, store]
           and found[3:] == ["text", None], "Component._traverse",
           f"it yields {found} for a Div of [a Location, a Div of [a Store, 'text'], None]", hook)
    assert list(di.components_in("text")) == [] and list(di.components_in([location])) == []


def test_title_callback_on_change_makes_dash_pages_title_callback_wait(client):
    hook = "title_callback_on_change"
    source = inspect.getsource(dash.Dash.enable_pages)
    expect(di.PAGES_TITLE_JS in source and "self.clientside_callback(" in source,
           "Dash.enable_pages", f"its title callback is no longer '{di.PAGES_TITLE_JS}' "
           "registered through self.clientside_callback", hook)
    client.get("/")
    deps = client.get("/_dash-dependencies").get_json()
    title = [d for d in deps if d["output"] == f"{di.PAGES_DUMMY}.children"]
    expect(len(title) == 1 and title[0]["prevent_initial_call"] is True,
           "Dash Pages' title callback", "it fires at load", hook)


# ------------------------------------------------------------------------ nowhere else

SCANNED = ["app.py", "components", "layouts", "evalmaps"]
HOME = ROOT / "components" / "dash_internals.py"
LIBRARIES = {"dash", "dash_table", "dash_core_components", "dash_html_components",
             "dash_bootstrap_components", "dash_ag_grid", "plotly", "_plotly_utils",
             "_plotly_future_", "_dash_renderer"}

# Private names used outside components/dash_internals.py that this change could not move, each
# with why; a test fails once one is no longer used, so that the entry goes too.
KNOWN_ELSEWHERE: dict[str, str] = {}  # none today


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_members() -> set[str]:
    """The private names of Dash's app and component classes and of Plotly's figures: an
    attribute by one of these names is taken for Dash's or Plotly's, whatever it is read on."""
    from dash.development.base_component import Component
    from plotly.basedatatypes import BaseFigure

    import app as webapp

    names = set()
    for owner in (dash.Dash, Component, BaseFigure, webapp.app):
        names |= {n for n in dir(owner) if _is_private(n)}
    return names


# the rest of the repository: no private name either (Dash Pages' container ids may appear in
# what the tests send and expect); this module is where the hooks' names are checked
ALSO_SCANNED = ["tests", "benchmarks", "scripts", "setup.py", "gunicorn.conf.py"]


def _python_files(entries=tuple(SCANNED)) -> list[Path]:
    files = []
    for entry in entries:
        path = ROOT / entry
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.exists() else []
    return [f for f in files if f not in (HOME, Path(__file__).resolve())]


def private_uses(source: str, members: set[str], page_ids: set[str]) -> list[tuple[int, str]]:
    """(line, what) for each private Dash or Plotly name in a module's source."""
    tree = ast.parse(source)
    found = []
    aliases = set()  # names bound to a library's module or objects
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root in LIBRARIES:
                    aliases.add(alias.asname or root)
                    if any(_is_private(part) for part in alias.name.split(".")):
                        found.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            root = node.module.split(".")[0]
            if root in LIBRARIES:
                aliases |= {alias.asname or alias.name for alias in node.names}
                if any(_is_private(part) for part in node.module.split(".")):
                    found.append((node.lineno, f"from {node.module} import ..."))
                found += [(node.lineno, f"from {node.module} import {alias.name}")
                          for alias in node.names if _is_private(alias.name)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if node.attr in members or (isinstance(base, ast.Name) and base.id in aliases):
                found.append((node.lineno, f".{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr", "delattr") \
                and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                and node.args[1].value in members:
            found.append((node.lineno, f"{node.func.id}(..., {node.args[1].value!r})"))
        elif isinstance(node, ast.Constant) and node.value in page_ids:
            found.append((node.lineno, f"{node.value!r} (Dash Pages' container id)"))
    return found


@pytest.fixture(scope="module")
def uses() -> dict[str, list[tuple[int, str]]]:
    members = _private_members()
    page_ids = {di.PAGES_LOCATION, di.PAGES_CONTENT, di.PAGES_STORE, di.PAGES_DUMMY}
    out = {}
    for path in _python_files():
        found = private_uses(path.read_text(encoding="utf-8"), members, page_ids)
        if found:
            out[path.relative_to(ROOT).as_posix()] = found
    return out


def test_number_test_servers_from_sets_the_next_dash_testing_port():
    from dash.testing.application_runners import BaseDashRunner, ThreadedRunner

    before = BaseDashRunner._next_port
    try:
        di.number_test_servers_from(23456)
        assert BaseDashRunner._next_port == 23456
        # the threaded runner (dash_duo's) takes its port from there when given none
        assert "_next_port" in inspect.getsource(ThreadedRunner.start)
    finally:
        BaseDashRunner._next_port = before


def test_no_private_dash_or_plotly_name_in_tests_benchmarks_or_scripts():
    members = _private_members()
    unexpected = [f"{path.relative_to(ROOT).as_posix()}:{line}: {what}"
                  for path in _python_files(ALSO_SCANNED)
                  for line, what in private_uses(path.read_text(encoding="utf-8"), members, set())]
    assert not unexpected, (
        "private Dash or Plotly names outside components/dash_internals.py (use its hooks):\n"
        + "\n".join(unexpected))


def _known(what: str) -> bool:
    return any(what.startswith((f"from {module} ", f"import {module}"))
               for module in KNOWN_ELSEWHERE)


def test_no_private_dash_or_plotly_name_outside_dash_internals(uses):
    unexpected = [f"{path}:{line}: {what}" for path, found in uses.items()
                  for line, what in found if not _known(what)]
    assert not unexpected, (
        "private Dash or Plotly names outside components/dash_internals.py (add a hook there, "
        "with a test here):\n" + "\n".join(unexpected))


def test_each_known_exception_is_still_used(uses):
    for module, where in KNOWN_ELSEWHERE.items():
        used = [path for path, found in uses.items() for _, what in found
                if what.startswith((f"from {module} ", f"import {module}"))]
        assert used, f"{module} is no longer imported ({where}): drop it from KNOWN_ELSEWHERE"


@pytest.mark.parametrize("source, expected", [
    ("import dash._callback as cb\ncb.to_json = f", ["import dash._callback"]),
    ("from dash._pages import _path_to_page", ["from dash._pages import ...",
                                               "from dash._pages import _path_to_page"]),
    ("from dash.dash import _ID_CONTENT", ["from dash.dash import _ID_CONTENT"]),
    ("from dash import dcc\nx = dcc._js_dist", ["._js_dist"]),
    ("import dash\nx = dash.dash._ID_STORE", ["._ID_STORE"]),
    ("def f(app):\n    return app._config()", ["._config"]),
    ("def f(layout):\n    return layout._traverse()", ["._traverse"]),
    ("def f(app):\n    return getattr(app, '_setup_server')", ["getattr(..., '_setup_server')"]),
    ("x = Input('_pages_location', 'href')", ["'_pages_location' (Dash Pages' container id)"]),
    ("import plotly.io._json", ["import plotly.io._json"]),
    ("from _plotly_utils.colors import sequential", ["from _plotly_utils.colors import ..."]),
    ("class A:\n    def f(self):\n        return self._cache", []),  # not Dash's
    ("from dash import __version__", []),
])
def test_the_scan_finds_private_names(source, expected):
    members = _private_members()
    found = [what for _, what in private_uses(source, members, {"_pages_location"})]
    assert found == expected


# ------------------------------------------------------------------------ the browser's half

PLOTLY_JS_PRIVATE = re.compile(r"\._full(?:Layout|Data)\b|\._d3locale\b|\bPlotly\.Fx\b|"
                               r"\.(?:_length|_offset|_categories)\b")


def test_the_browsers_half_of_the_boundary_is_named_in_one_place():
    """Each asset :data:`~components.dash_internals.IN_THE_BROWSER` names exists, and plotly.js's
    private names are read in assets/evalmaps-plotly-internals.js alone."""
    assets = ROOT / "assets"
    assert all((assets / name).is_file() for name in di.IN_THE_BROWSER)
    elsewhere = [f"{path.name}:{n}" for path in sorted(assets.glob("*.js"))
                 if path.name != "evalmaps-plotly-internals.js"
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if PLOTLY_JS_PRIVATE.search(line)]
    assert not elsewhere, f"plotly.js's private names outside its accessors: {elsewhere}"
    assert PLOTLY_JS_PRIVATE.search("return gd._fullLayout.xaxis._length;")  # the scan sees them
