"""Call a Dash callback the way the browser does: a POST to /_dash-update-component.

This goes through the real server path (request size limit, JSON decoding, the callback, its
serialisation), not a direct function call.
"""

from __future__ import annotations

import json


def _split_outputs(output: str) -> list[dict]:
    if output.startswith(".."):
        parts = output[2:-2].split("...")
    else:
        parts = [output]
    return [{"id": p.rsplit(".", 1)[0], "property": p.rsplit(".", 1)[1]} for p in parts]


def find_callback(client, output_fragment: str) -> dict:
    client.get("/")  # Dash Pages registers its callbacks on the first request
    for dep in client.get("/_dash-dependencies").get_json():
        if output_fragment in dep["output"]:
            return dep
    raise AssertionError(f"no callback outputs {output_fragment}")


def call(client, output_fragment: str, inputs: dict, state: dict | None = None,
         changed: list[str] | None = None, headers: dict | None = None):
    """POST one callback; ``inputs``/``state`` map 'id.prop' to values. Returns the response."""
    return client.post("/_dash-update-component",
                       data=callback_body(client, output_fragment, inputs, state, changed),
                       content_type="application/json", headers=headers or {})


def callback_body(client, output_fragment: str, inputs: dict, state: dict | None = None,
                  changed: list[str] | None = None) -> str:
    """The JSON body the browser POSTs to /_dash-update-component for one callback."""
    dep = find_callback(client, output_fragment)
    state = state or {}

    def spec(items, values):
        return [{"id": i["id"], "property": i["property"],
                 "value": values.get(f"{i['id']}.{i['property']}")} for i in items]

    body = {
        "output": dep["output"],
        "outputs": _split_outputs(dep["output"]) if dep["output"].startswith("..")
        else _split_outputs(dep["output"])[0],
        "inputs": spec(dep["inputs"], inputs),
        "state": spec(dep["state"], state),
        "changedPropIds": changed if changed is not None else list(inputs)[:1],
    }
    return json.dumps(body)


def outputs(response) -> dict:
    """{'id.prop': value} of a callback response."""
    payload = response.get_json()["response"]
    return {f"{cid}.{prop}": value for cid, props in payload.items() for prop, value in props.items()}


def find(node, component_id):
    """The serialised component with this id in a layout tree (None when absent)."""
    if isinstance(node, dict):
        if node.get("props", {}).get("id") == component_id:
            return node
        children = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    return next((hit for child in children if (hit := find(child, component_id))), None)
