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


def theme_colours() -> set[str]:
    """Every colour of the theme (its constants and the scales the static site draws with),
    spaces left out ('rgb(103,0,31)'), lowercased."""
    from evalmaps.figures import theme

    found: set[str] = set()

    def walk(value):
        if isinstance(value, str):
            if value.startswith("#") or value.startswith("rgb"):
                found.add(value.replace(" ", "").lower())
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    walk([v for k, v in vars(theme).items() if k.isupper()])
    walk(theme.browser_theme())
    return found


def literal_colours(path: Path) -> set[str]:
    import re

    text = path.read_text(encoding="utf-8").lower()
    return {m.replace(" ", "") for m in
            re.findall(r"#[0-9a-f]{6}\b|#[0-9a-f]{3}\b|rgba?\([0-9., ]+\)", text)}


def test_the_static_sites_code_copies_no_colour_of_the_theme():
    """The theme is written once (evalmaps.figures.theme): the static site's pages read it from
    their data (browser_theme), so neither bundle.js nor the code that writes the site holds one
    of its colours."""
    colours = theme_colours()
    assert {"#e9ecef", "#b45309", "#212529", "#440154", "rgb(103,0,31)"} <= colours
    for path in (ROOT / "evalmaps" / "_bundle" / "bundle.js",
                 ROOT / "evalmaps" / "service" / "bundle.py"):
        assert literal_colours(path) & colours == set(), path


def test_a_copied_theme_colour_would_be_found(tmp_path):
    copy = tmp_path / "bundle.js"
    copy.write_text('const MISSING_COLOR = "#E9ECEF";\nconst RED = "rgb(103, 0, 31)";\n')
    assert literal_colours(copy) & theme_colours() == {"#e9ecef", "rgb(103,0,31)"}


def test_the_static_sites_data_carries_the_theme(catalog):
    from evalmaps.figures import heatmap, theme
    from evalmaps.service import bundle

    figure = next(iter(catalog))
    assert bundle.figure_data(figure)["theme"] == theme.browser_theme()
    assert bundle.figure_data(figure)["limits"] == heatmap.browser_limits()
    assert theme.browser_theme()["uniform"][0] == [0.0, "#440154"]


def toy_spec(illustrative: bool = False):
    from types import SimpleNamespace

    dims = {"type": SimpleNamespace(title="Type"), "length": SimpleNamespace(title="Length <b>"),
            "model": SimpleNamespace(title="Model")}
    return SimpleNamespace(dims=dims, y="type", x="length", illustrative=illustrative)


def toy_metric(higher: bool = True, percent: bool = False, unit: str = "%"):
    from types import SimpleNamespace

    return SimpleNamespace(name="Accuracy", unit=unit, percent=percent, higher_is_better=higher)


def test_a_cells_hover_is_worded_as_by_hand():
    from evalmaps.figures.hover import cell_hover, missing_hover

    spec, facets = toy_spec(), {"model": "Qwen"}
    assert cell_hover(spec, facets, toy_metric(), 1) == \
        "Type %{y} · Length &lt;b&gt; %{x} · Accuracy %{z:.1f}%<br>Model Qwen"
    assert cell_hover(spec, facets, toy_metric(higher=False), 1, {"se": 1, "n": 0},
                      log=True, se=True, n=True, suspect=True) == (
        "Type %{y} · Length &lt;b&gt; %{x} · Accuracy %{text:.1f}%"
        " ± %{customdata[1]:.2f} se (a standard error of 0 inside the metric's range cannot be"
        " right) (n=%{customdata[0]:.0f}) (lower is better)<br>Model Qwen")
    assert missing_hover(toy_spec(illustrative=True), {}, toy_metric(higher=False)) == \
        ("Type %{y} · Length &lt;b&gt; %{x} · Accuracy not reported (lower is better)"
         "<br><b>ILLUSTRATIVE value, not a result</b>")


def test_a_panels_hovers_hold_each_kind_of_cell_it_has():
    from evalmaps.figures.hover import cell_hover, kind_key, panel_hovers

    spec, metric, columns = toy_spec(), toy_metric(), {"sd": 0, "se": 1}
    assert kind_key(True, False, False, True) == "true,false,false,false"  # no se: not suspect
    got = panel_hovers(spec, {}, metric, 2, columns,
                       {(True, False, True, True), (False, False, False, False)})
    assert sorted(got["cells"]) == ["false,false,false,false", "true,false,true,false",
                                    "true,false,true,true"]
    assert got["cells"]["true,false,true,true"] == [
        cell_hover(spec, {}, metric, 2, columns, log=log, sd=True, se=True, suspect=True)
        for log in (False, True)]
    assert got["cells"]["false,false,false,false"][0] == \
        "Type %{y} · Length &lt;b&gt; %{x} · Accuracy %{z:.2f}%"
    assert got["value"] == "%{z:.2f}%" and got["logValue"] == "%{text:.2f}%"


def test_the_static_sites_code_copies_no_limit_of_the_heatmap():
    """What a map draws at which size (values in cells, gaps, unreported cells' traces) is
    evalmaps.figures.heatmap's: bundle.js reads it from the data (browser_limits)."""
    from evalmaps.figures import heatmap

    code = (ROOT / "evalmaps" / "_bundle" / "bundle.js").read_text(encoding="utf-8")
    limits = heatmap.browser_limits()
    assert limits["gapsNote"].startswith("Above 10,000 cells") and limits["gapsNote"] not in code
    for name in ("MAX_TEXT_ROWS", "MAX_TEXT_COLUMNS", "MAX_GAP_CELLS", "MAX_GAP_TRACE_CELLS"):
        assert name not in code
        assert f"= {getattr(heatmap, name)}" not in code.replace(",", "")
