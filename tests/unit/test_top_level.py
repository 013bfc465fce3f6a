"""Issue 40: the Python API's names are the only public names at the package's top level
(docs/api.md); the rest stays internal, and a name the top level once gave says where it lives."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import evalmaps

ROOT = Path(__file__).resolve().parents[2]
API = ["EvalmapsError", "compare", "rank", "read", "show"]
MOVED = ["Catalog", "DataError", "Dim", "Figure", "FigureSpec", "Metric", "Panel", "Problems",
         "Settings", "UnknownFigure", "UnknownPanel", "load_catalog"]


def test_the_top_level_is_the_api():
    assert sorted(evalmaps.__all__) == API
    namespace: dict = {}
    exec("from evalmaps import *", namespace)  # noqa: S102 - a fixed statement
    assert sorted(k for k in namespace if not k.startswith("__")) == API


def test_every_api_name_is_documented_and_typed():
    api_doc = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for name in API:
        assert f"evalmaps.{name}" in api_doc, name
        value = getattr(evalmaps, name)
        if callable(value) and not isinstance(value, type):
            hints = value.__annotations__
            assert "return" in hints, name  # typed
            assert value.__doc__ and value.__doc__.strip(), name


@pytest.mark.parametrize("name", MOVED)
def test_an_internal_name_says_where_it_lives(name):
    with pytest.raises(AttributeError) as raised:
        getattr(evalmaps, name)
    message = str(raised.value)
    match = re.search(r"'from ([\w.]+) import (\w+)'", message)
    assert match and match.group(2) == name, message
    assert "docs/api.md" in message
    assert getattr(importlib.import_module(match.group(1)), name) is not None  # the advice works


def test_an_unknown_name_is_a_plain_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        evalmaps.nothing_here  # noqa: B018


def test_importing_the_package_imports_no_layer():
    """The names load when first used: ``import evalmaps`` alone pulls in neither pandas nor a
    layer of its own."""
    code = ("import sys, evalmaps; "
            "print(sorted(m for m in sys.modules if m.startswith('evalmaps.') or m == 'pandas'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=60, check=True).stdout
    assert out.strip() == "[]"
