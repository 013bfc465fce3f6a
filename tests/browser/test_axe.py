"""axe-core on every page, in the real browser: no critical and no serious violation.

The axe-core script is the one bundled by the ``axe-selenium-python`` package (the ``test``
extra), injected from disk with ``execute_script``: nothing is fetched at run time."""

from __future__ import annotations

from pathlib import Path

import pytest
from dash.testing.wait import until

pytestmark = pytest.mark.browser

PAGES = {
    "/": ".heatmap-graph .main-svg",
    "/trends": ".trends-graph .main-svg",
    "/compare": ".heatmap-graph .main-svg",
    "/data": ".ag-root",
}


def axe_source() -> str:
    axe_selenium_python = pytest.importorskip("axe_selenium_python")
    path = (Path(axe_selenium_python.__file__).parent / "node_modules" / "axe-core"
            / "axe.min.js")
    return path.read_text(encoding="utf-8")


def run_axe(driver, source: str) -> list[dict]:
    """Inject axe and run it on the whole document; its violations (axe.run is async)."""
    driver.execute_script(source)
    driver.set_script_timeout(60)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then(r => done(r.violations)).catch(e => done({error: String(e)}));")
    assert not isinstance(result, dict), result
    return result


def describe(violations: list[dict]) -> str:
    return "\n".join(
        f"{v['impact']}: {v['id']} ({v['help']}): "
        + "; ".join(" ".join(node["target"]) if isinstance(node["target"], list)
                    else str(node["target"]) for node in v["nodes"][:6])
        for v in violations)


def test_axe_finds_nothing_critical_or_serious_on_any_page(dash_duo, dash_app):
    source = axe_source()
    dash_duo.start_server(dash_app)
    dash_duo.wait_for_element(".heatmap-graph .main-svg", timeout=20)
    found = {}
    for path, ready in PAGES.items():
        dash_duo.wait_for_page(url=f"{dash_duo.server_url}{path}")
        dash_duo.wait_for_element(ready, timeout=20)
        # wait for the callbacks to settle (Dash marks the layout while it is loading)
        until(lambda: not dash_duo.driver.find_elements("css selector",
                                                        "[data-dash-is-loading=true]"),
              timeout=20)
        violations = run_axe(dash_duo.driver, source)
        bad = [v for v in violations if v["impact"] in ("critical", "serious")]
        if bad:
            found[path] = describe(bad)
    assert found == {}, "\n\n".join(f"{page}\n{text}" for page, text in found.items())
