"""The pages' sync callbacks take their inputs in groups (Dash's flexible callback signatures,
``layouts._shared.group``): each group's values are checked by name at the boundary, as a
callback's own arguments are."""

from __future__ import annotations

import inspect
import json

import pytest
from dash import Input, State
from dash.exceptions import PreventUpdate

from layouts._shared import boundary, group


def test_a_group_is_named_as_no_input_is():
    from layouts._shared import GROUPS, INPUTS

    assert all(INPUTS[name] == "group" for name in GROUPS)


def test_a_group_needs_a_kind_for_each_name():
    assert group(search=Input("a", "search"), _swap=Input("b", "n_clicks"))
    with pytest.raises(TypeError, match="no boundary kind for input 'nonsense'"):
        group(nonsense=State("a", "data"))
    with pytest.raises(TypeError, match="'slicing'"):  # no group in a group
        group(slicing=State("a", "data"))


def test_the_boundary_checks_each_value_of_a_group():
    @boundary
    def sync(search, showing):
        return search, showing

    good = {"a": "x:y", "pct": True, "mean": ["a", "b"], "color": None}
    assert sync("?a=1", showing=good) == ("?a=1", good)
    for bad in ({**good, "pct": "yes"}, {**good, "mean": [1]}, {**good, "a": 3}, ["x:y"], None):
        with pytest.raises(PreventUpdate):
            sync("?a=1", showing=bad)


def test_the_sync_callbacks_take_a_few_groups(dash_app):
    from layouts import browse, compare, data, trends

    signatures = {page.__name__.rsplit(".", 1)[1]: list(inspect.signature(page.sync).parameters)
                  for page in (browse, compare, data, trends)}
    assert signatures == {"browse": ["slicing", "display", "drawn", "map_ids"],
                          "compare": ["search", "showing", "pressed", "held", "uploads", "live"],
                          "data": ["slicing"],
                          "trends": ["slicing", "chart", "pct", "drawn", "map_ids"]}


@pytest.mark.parametrize("page, inputs, state", [
    ("browse", ["browse-loc.search", "browse-facet.value", "browse-rows.value",
                "browse-xrange.value", "browse-sort.value", "browse-top.value", "live-version.data",
                "browse-pct.value", "browse-log.value", "browse-k.value"],
     ["browse-facet.id", "browse-rendered-figure.data", "uploads.data", "live-drawn.children",
      "browse-color.value", "browse-labels.value", "browse-scale.value", "browse-drawn.data",
      "browse-heatmap.id"]),
    ("trends", ["trends-loc.search", "trends-facet.value", "trends-rows.value",
                "trends-xrange.value", "trends-sort.value", "trends-top.value", "live-version.data",
                "trends-transpose.value", "trends-overlay.value", "trends-threshold.value",
                "trends-logx.value", "trends-k.value", "trends-pct.value"],
     ["trends-facet.id", "trends-rendered-figure.data", "uploads.data", "live-drawn.children",
      "trends-drawn.data", "trends-chart.id"]),
    ("data", ["data-loc.search", "data-facet.value", "data-rows.value", "data-xrange.value",
              "data-sort.value", "data-top.value", "live-version.data"],
     ["data-facet.id", "data-rendered-figure.data", "uploads.data", "live-drawn.children"]),
])
def test_the_sliced_pages_send_their_inputs_in_the_order_they_did(client, page, inputs, state):
    """Grouping the arguments left the callbacks' inputs and state as the browser sends them."""
    client.get("/")
    deps = client.get("/_dash-dependencies").get_json()
    sync = [d for d in deps if d["inputs"] and d["inputs"][0]["id"] == f"{page}-loc"
            and f"{page}-loc.search" in d["output"] and "nav-" not in d["output"]]
    assert len(sync) == 1

    def names(items):
        return [f"{json.loads(i['id'])['type'] if i['id'].startswith('{') else i['id']}."
                f"{i['property']}" for i in items]

    assert names(sync[0]["inputs"]) == inputs
    assert names(sync[0]["state"]) == state
