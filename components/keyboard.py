"""A heatmap read without a mouse: the focusable frame around a map, its live region and its
"Table" toggle. What they do is client side (``evalmapsLib.keys`` in assets/evalmaps-keys.js,
the table in assets/evalmaps-table.js): the frame
gets its full accessible name (title, axes, value range, cells missing) from the figure the
browser holds, arrow keys move an outlined active cell and announce it as the hover writes it,
and the toggle shows the map as an HTML table built from the same figure (nothing is sent).

``role="application"``, not ``role="img"``: screen readers (NVDA, JAWS) keep arrow keys for
their own reading cursor over an image, so the cells could not be stepped through; an
application region hands the keys to the page. Its name starts with "Heatmap" (no
``aria-roledescription``: axe 3, which the browser tests run, rejects it). The table is the
browse-mode alternative.
"""

from __future__ import annotations

import json

from evalmaps.core import text as fmt

KEYS_HINT = "Arrow keys, Home, End, Page Up and Page Down move between cells."


def _html(tag: str, children=None, **props) -> dict:
    """An html component as the JSON Dash sends for it (``to_plotly_json``): the frame around
    every map is rebuilt with each callback's maps, and Dash's component classes validate each
    keyword on construction (about 20 µs a component, most of a many-panel callback's own
    time besides the values). Only for the fixed markup here, with no id: every prop is a
    literal of this module."""
    return {"props": {"children": children, **props}, "type": tag,
            "namespace": "dash_html_components"}


def keyboard_map(graph, *overlays, name: str, live: bool = True,
                 missing: str = fmt.NOT_REPORTED, className: str = "",
                 coords: dict | None = None) -> dict:
    """``graph`` (a dcc.Graph) in a focusable frame with the active-cell outline and any
    ``overlays`` (placed over the map), a polite live region (``live=False``: the page has its
    own, such as Compare's readout), and the "Table" toggle with its (empty) table. ``name``:
    the accessible name until the browser writes the full one; ``missing``: what the table and
    readout say for a cell without a value; ``coords``: where the map's cells are in its
    figure (:func:`map_coords`), so that a page built again for a figure's new shape finds the
    active cell again (``evalmapsLib.keys.goTo``). The markup around ``graph`` is built as the
    JSON of its html components (:func:`_html`)."""
    frame = _html("Div", [graph, *overlays, _html("Div", className="heatmap-cursor", hidden=True)],
                  className="heatmap-keys", tabIndex="0", role="application",
                  **{"aria-label": f"Heatmap {name}. {KEYS_HINT}", "data-missing": missing,
                     **({"data-coords": json.dumps(coords)} if coords else {})})
    parts = [frame]
    if live:
        parts.append(_html("Div", className="visually-hidden heatmap-live", role="status",
                           **{"aria-live": "polite", "aria-atomic": "true"}))
    parts += [
        _html("Button", "Table", type="button", className="btn btn-sm btn-outline-secondary "
              "heatmap-table-toggle", title="Show this map as a table",
              **{"aria-expanded": "false", "aria-label": f"Table of {name}"}),
        _html("Div", className="heatmap-table", hidden=True),
    ]
    return _html("Div", parts, className=f"heatmap-panel {className}".strip())


def map_coords(facets: dict, y: str, x: str) -> dict:
    """A map's place in its figure: its panel's facets ({dimension: label}) and the names of
    the dimensions of its rows (``y``) and columns (``x``)."""
    return {"facets": {str(k): str(v) for k, v in facets.items()}, "y": y, "x": x}
