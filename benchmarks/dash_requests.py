"""Build callback requests the way the Dash renderer does, from the app's own layout and
dependency list (nothing hard-coded but the ids the issue names).

The page content of Dash Pages comes from the routing callback, which the renderer fires when
``_pages_location`` mounts and reports the URL; this module does the same (POST with the
location's pathname and search), then reads the component props of the rendered page.
"""

from __future__ import annotations

import json
from typing import Any, Callable
from urllib.parse import urlsplit

import orjson

WILDCARDS = ("ALL", "MATCH", "ALLSMALLER")


def split_output(output: str) -> list[tuple[str, str]]:
    """'..a.x...b.y..' or 'a.x' -> [(id, prop), ...]; ids may be JSON (pattern-matching)."""
    parts = output[2:-2].split("...") if output.startswith("..") else [output]
    return [tuple(part.rsplit(".", 1)) for part in parts]  # type: ignore[misc]


def parse_id(raw: str) -> str | dict:
    return json.loads(raw) if raw.startswith("{") else raw


def walk(node: Any, found: dict[str, dict], types: dict[str, str]) -> None:
    """Collect {canonical id: props} (and component types) of every component with an id."""
    if isinstance(node, list):
        for child in node:
            walk(child, found, types)
        return
    if not isinstance(node, dict) or "props" not in node:
        return
    props = node["props"] or {}
    if "id" in props:
        key = canonical(props["id"])
        found[key] = props
        types[key] = node.get("type", "")
    for value in props.values():
        if isinstance(value, (dict, list)):
            walk(value, found, types)


def is_pattern(raw: str) -> bool:
    """A wildcard id ({"type": ..., "panel": ALL}); a dict id of fixed values is one component."""
    cid = parse_id(raw)
    return isinstance(cid, dict) and any(isinstance(v, list) for v in cid.values())


def canonical(cid: str | dict) -> str:
    return json.dumps(cid, sort_keys=True, separators=(",", ":")) if isinstance(cid, dict) else cid


def matches(pattern: dict, cid: Any) -> bool:
    if not isinstance(cid, dict) or set(cid) != set(pattern):
        return False
    return all(isinstance(v, list) and v and v[0] in WILDCARDS or cid[k] == v
               for k, v in pattern.items())


class Page:
    """The components of the app shell plus one rendered page: ids, props and types."""

    def __init__(self, url: str):
        self.url = url
        parts = urlsplit(url)
        self.location = {"pathname": parts.path or "/",
                         "search": f"?{parts.query}" if parts.query else "",
                         "hash": f"#{parts.fragment}" if parts.fragment else "",
                         "href": url}
        self.props: dict[str, dict] = {}
        self.types: dict[str, str] = {}

    def add(self, layout: Any) -> None:
        walk(layout, self.props, self.types)

    def ids_matching(self, raw: str) -> list[str | dict]:
        pattern = parse_id(raw)
        if isinstance(pattern, dict):
            return [json.loads(k) for k in self.props if k.startswith("{")
                    and matches(pattern, json.loads(k))]
        return [pattern] if pattern in self.props else []

    def value(self, cid: str | dict, prop: str) -> Any:
        """What the renderer would send: the prop as laid out; a Location reports the URL."""
        key = canonical(cid)
        if self.types.get(key) == "Location" and prop in self.location:
            return self.location[prop]
        if prop == "id":
            return cid
        return self.props.get(key, {}).get(prop)

    def spec(self, items: list[dict]) -> list:
        out: list = []
        for item in items:
            raw, prop = item["id"], item["property"]
            if is_pattern(raw):  # pattern-matching: a list of the matching components
                out.append([{"id": cid, "property": prop, "value": self.value(cid, prop)}
                            for cid in self.ids_matching(raw)])
            else:
                cid = parse_id(raw)
                out.append({"id": cid, "property": prop, "value": self.value(cid, prop)})
        return out

    def outputs(self, output: str) -> list | dict:
        outs: list = []
        for raw, prop in split_output(output):
            if is_pattern(raw):
                outs.append([{"id": cid, "property": prop} for cid in self.ids_matching(raw)])
            else:
                outs.append({"id": parse_id(raw), "property": prop.split("@")[0]})
        return outs if output.startswith("..") else outs[0]


def find_dependency(dependencies: list[dict], fragment: str) -> dict:
    for dep in dependencies:
        if fragment in [f"{i}.{p}" for i, p in split_output(dep["output"])] \
                and not dep.get("clientside_function"):
            return dep
    raise LookupError(f"no server callback has the output {fragment}")


def body(page: Page, dep: dict, changed: list[str]) -> bytes:
    return orjson.dumps({
        "output": dep["output"],
        "outputs": page.outputs(dep["output"]),
        "inputs": page.spec(dep["inputs"]),
        "state": page.spec(dep.get("state", [])),
        "changedPropIds": changed,
    })


def response_outputs(raw: bytes) -> dict[str, Any]:
    """{'id.prop': value} of a callback response."""
    payload = orjson.loads(raw)["response"]
    return {f"{cid}.{prop}": value for cid, props in payload.items() for prop, value in props.items()}


def rendered_page(get: Callable[[str], bytes], post: Callable[[str, bytes], bytes],
                  url: str) -> tuple[Page, list[dict]]:
    """The app shell plus the page Dash Pages' routing callback renders for ``url`` (as the
    renderer gets it: POST with the location's pathname and search), and the dependency list."""
    get(url)  # Dash Pages registers its routing callback on the first request
    page = Page(url)
    page.add(orjson.loads(get("/_dash-layout")))
    dependencies = orjson.loads(get("/_dash-dependencies"))
    routing = find_dependency(dependencies, "_pages_content.children")
    changed = [f"{i['id']}.{i['property']}" for i in routing["inputs"]
               if page.types.get(i["id"]) == "Location"]
    content = response_outputs(post("/_dash-update-component", body(page, routing, changed)))
    page.add(content["_pages_content.children"])
    return page, dependencies


def browse_request(get: Callable[[str], bytes], post: Callable[[str, bytes], bytes],
                   figure_id: str) -> tuple[bytes, Page]:
    """The POST body of the browse callback (outputs include browse-graphs.children) for
    ``/?figure=<id>``, triggered by the rows menu (browse-rows.value, every row): a slicing
    change, which draws every panel again. (The page's first heatmaps come with the page
    itself, from the routing callback; the paint measurement covers that.)

    ``get(path)`` and ``post(path, body)`` return response bodies (they raise on failure).
    """
    page, dependencies = rendered_page(get, post, f"/?figure={figure_id}")
    for needed in ("browse-loc", "browse-rendered-figure"):
        if needed not in page.props:
            raise LookupError(f"the rendered browse page has no component '{needed}'")
    if page.props["browse-rendered-figure"].get("data") != figure_id:
        raise LookupError(f"the browse page rendered figure "
                          f"{page.props['browse-rendered-figure'].get('data')!r}, not {figure_id!r}")
    browse = find_dependency(dependencies, "browse-graphs.children")
    return body(page, browse, ["browse-rows.value"]), page


def compare_request(get: Callable[[str], bytes], post: Callable[[str, bytes], bytes],
                    query: str) -> tuple[bytes, bytes, Page]:
    """POST bodies of Compare's sync callback for ``/compare?<query>``, triggered by the swap
    button: as the page sends it (with the digests of the maps it holds, ``compare-held``), and
    as a page holding nothing would (the maps whole)."""
    page, dependencies = rendered_page(get, post, f"/compare?{query}")
    if not page.props.get("compare-held", {}).get("data"):
        raise LookupError("the rendered compare page holds no maps (compare-held is empty)")
    sync = find_dependency(dependencies, "compare-incoming.data")
    held = body(page, sync, ["compare-swap.n_clicks"])
    page.props["compare-held"] = {**page.props["compare-held"], "data": []}
    whole = body(page, sync, ["compare-swap.n_clicks"])
    return held, whole, page


def figures_in(value: Any) -> list[dict]:
    """Every Plotly figure (a dcc.Graph's ``figure`` prop) inside a layout fragment."""
    found: list[dict] = []

    def visit(node: Any) -> None:
        if isinstance(node, list):
            for child in node:
                visit(child)
        elif isinstance(node, dict):
            props = node.get("props")
            if isinstance(props, dict):
                if isinstance(props.get("figure"), dict):
                    found.append(props["figure"])
                for v in props.values():
                    if isinstance(v, (dict, list)):
                        visit(v)

    visit(value)
    return found


def envelope(dep: dict, values: dict[str, Any], changed: list[str] | None = None) -> bytes:
    """The POST body of one callback with plain ids: ``values`` by 'id.prop' (None elsewhere);
    ``changed`` defaults to the first value's key. Output props lose their '@...' suffix (an
    allow_duplicate output), as the renderer sends them."""
    def item(entry: dict) -> dict:
        return {"id": parse_id(entry["id"]), "property": entry["property"],
                "value": values.get(f"{entry['id']}.{entry['property']}")}

    outs = [{"id": parse_id(cid), "property": prop.split("@")[0]}
            for cid, prop in split_output(dep["output"])]
    return orjson.dumps({
        "output": dep["output"],
        "outputs": outs if dep["output"].startswith("..") else outs[0],
        "inputs": [item(i) for i in dep["inputs"]],
        "state": [item(s) for s in dep.get("state", [])],
        "changedPropIds": changed if changed is not None else list(values)[:1],
    })
