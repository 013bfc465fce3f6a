"""components.keyboard builds the frame around every map as the JSON of its html components
(no Dash component objects: their construction was most of a many-panel callback's own time).
That JSON must be what Dash's own html components send, with props they accept."""

from __future__ import annotations

import json

import pytest
from dash import dcc, html

from components.dash_internals import dash_json as to_json
from components.keyboard import keyboard_map


def rebuilt(node):
    """The same tree with every html node made by Dash's own html components (which refuse
    a prop they do not have)."""
    if isinstance(node, list):
        return [rebuilt(child) for child in node]
    if isinstance(node, dict) and node.get("namespace") == "dash_html_components":
        props = dict(node["props"])
        children = rebuilt(props.pop("children"))
        return getattr(html, node["type"])(children, **props)
    return node


@pytest.mark.parametrize("kw", [{}, {"live": False, "missing": "not comparable",
                                     "className": "compare-map"}])
def test_the_frame_is_what_dash_html_components_send(kw):
    graph = dcc.Graph(id={"type": "g", "panel": "a"}, figure={"data": []})
    overlay = html.Div(id="mark", className="compare-mark")
    ours = keyboard_map(graph, overlay, name="Map <b>A</b>", **kw)
    theirs = rebuilt(ours)
    assert isinstance(theirs, html.Div)
    assert json.loads(to_json(ours)) == json.loads(to_json(theirs))
    text = json.dumps(json.loads(to_json(ours)))
    assert text.count('"type": "Graph"') == 1 and text.count('"id": "mark"') == 1
    assert ('heatmap-live' in text) == kw.get("live", True)
    assert '"aria-label": "Heatmap Map <b>A</b>. Arrow keys' in text
