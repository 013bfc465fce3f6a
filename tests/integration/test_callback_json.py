"""app.callback_json: callback responses serialised by orjson alone say exactly what Dash's
own serialiser says."""

from __future__ import annotations

import json

import numpy as np

from app import callback_json
from components.dash_internals import dash_json as dash_to_json


def test_a_real_browse_response_serialises_the_same(dash_app, catalog):
    from evalmaps.views.state import parse_state
    from layouts.browse import graphs

    with dash_app.server.test_request_context("/"):
        for figure in catalog:
            response = {"multi": True, "response": {
                "browse-graphs": {"children": graphs(figure, parse_state(
                    {"figure": figure.id}, catalog))["graphs"]}}}
            assert json.loads(callback_json(response)) == json.loads(dash_to_json(response))


def test_numbers_nan_and_numpy():
    value = {"a": [1.5, float("nan"), None], "b": np.array([1.0, np.nan]), "c": {"d": "</script>"}}
    ours = json.loads(callback_json(value))
    assert ours == {"a": [1.5, None, None], "b": [1.0, None], "c": {"d": "</script>"}}
    assert ours == json.loads(dash_to_json(value))


def test_what_orjson_cannot_write_falls_back_to_dash():
    import decimal

    value = {"d": decimal.Decimal("1.5")}  # orjson refuses a Decimal; plotly's encoder writes it
    assert json.loads(callback_json(value)) == json.loads(dash_to_json(value)) == {"d": 1.5}


def test_typed_arrays_and_subclasses_are_written_as_plain_json():
    import base64
    import collections
    import enum

    import orjson

    from evalmaps.figures.theme import TypedArray, typed

    class Kind(str, enum.Enum):
        A = "a"

    values = np.array([[1.5, np.nan, 3.25], [0.1, 2.0, -7.0]])
    spec = typed(values)
    assert type(spec) is TypedArray
    counted = collections.Counter({"x": 2})
    value = {"z": spec, "o": collections.OrderedDict(b=[1, 2]), "k": Kind.A, "c": counted,
             "n": [typed(np.arange(3.0), "f8")]}
    plain = {"z": dict(spec), "o": {"b": [1, 2]}, "k": "a", "c": {"x": 2},
             "n": [dict(typed(np.arange(3.0), "f8"))]}
    assert callback_json(value) == orjson.dumps(plain)  # the same bytes
    written = json.loads(callback_json(value))["z"]
    assert written == {"dtype": "f4", "shape": "2, 3", "bdata": base64.b64encode(
        values.astype("<f4").tobytes()).decode("ascii")}
