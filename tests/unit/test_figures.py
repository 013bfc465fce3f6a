"""evalmaps.figures: the one figure builder. Its modules are pure (no Dash, Plotly or Flask is
imported with them), and the Dash layer's ``components`` hand out the very same builders and
constants, never copies of them."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ("heatmap", "hover", "theme", "trends", "compare")
# each Dash-side module and the figure modules whose names it hands to the pages
WRAPPERS = {"components.heatmap": ("heatmap", "hover"), "components.theme": ("theme",),
            "components.trends": ("trends",), "components.compare": ("compare",)}


def test_the_figure_modules_import_no_dash_plotly_or_flask():
    code = ("import sys\n"
            + "".join(f"import evalmaps.figures.{name}\n" for name in FIGURES)
            + "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
              "('dash', 'plotly', '_plotly_utils', 'flask', 'components', 'layouts', 'app'))\n"
              "print(' '.join(bad))\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ""


def own_names(module) -> dict:
    """The public functions, classes and upper-case constants a module defines itself."""
    out = {}
    for name, value in vars(module).items():
        if name.startswith("_"):
            continue
        if getattr(value, "__module__", None) == module.__name__ or (
                name.isupper() and not callable(value)):
            out[name] = value
    return out


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_components_hand_out_the_figure_builders_themselves(wrapper):
    dash_side = importlib.import_module(wrapper)
    checked = 0
    for name in WRAPPERS[wrapper]:
        figures = importlib.import_module(f"evalmaps.figures.{name}")
        for attr, value in own_names(figures).items():
            if attr.isupper() and attr in vars(dash_side) and not callable(value):
                assert getattr(dash_side, attr) == value, f"{wrapper}.{attr}"
            elif getattr(value, "__module__", None) == figures.__name__:
                assert getattr(dash_side, attr) is value, f"{wrapper}.{attr} is a copy"
            checked += 1
    assert checked >= 10


def test_a_copied_builder_would_be_caught(monkeypatch):
    """The check above fails when a wrapper defines its own builder of the same name."""
    import components.heatmap as dash_side

    def heatmap_figure(*args, **kwargs):  # a copy: same name, another object
        return {}

    monkeypatch.setattr(dash_side, "heatmap_figure", heatmap_figure)
    with pytest.raises(AssertionError, match="is a copy"):
        test_components_hand_out_the_figure_builders_themselves("components.heatmap")
