"""What a browser shows for a figure dict, computed in Python: the tests' oracle for figures
whose hover and cell texts are Plotly templates filled in by plotly.js.

- :func:`decode` turns a typed-array spec (``{"dtype", "bdata", "shape"}``) back into numpy;
- :func:`fill` fills a template (``%{y} · %{z:.1f}%``, ``%{customdata[0]:.2f}``) the way plotly.js
  does for the d3 formats evalmaps uses (``.Nf``, ``+.Nf``, ``.N~f``);
- :func:`heatmap_cell` reads one cell of a heatmap figure (several traces: the dense values and
  sparse overlays) as the browser would: the trace that draws it, its z, hover and cell text.

The browser tests hover real cells and read the same strings, which keeps this oracle honest.
"""

from __future__ import annotations

import base64
import re

import numpy as np

_FIELD = re.compile(r"%\{([a-z]+)(?:\[(\d+)\])?(?::([^}]*))?\}")


def decode(value):
    """A typed-array spec as a numpy array; lists pass through as arrays (None -> NaN)."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            array = array.reshape([int(n) for n in str(value["shape"]).split(",")])
        return array
    return np.array([np.nan if v is None else v for v in value], dtype=float) \
        if value and not isinstance(value[0], (list, dict)) else np.asarray(value, dtype=float)


def d3(value, spec: str) -> str:
    """The d3-format subset used here: [+].N[~]f."""
    if spec == "":
        return str(value)
    match = re.fullmatch(r"(\+)?\.(\d+)(~)?f", spec)
    assert match, f"unsupported d3 format {spec!r}"
    sign, places, trim = match.groups()
    value = float(value)
    if value != value:
        return "NaN"
    text = f"{value:.{int(places)}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    if sign and not text.startswith("-"):
        text = "+" + text
    return text


def fill(template: str, point: dict) -> str:
    """A hover or text template filled for one point (``z``, ``x``, ``y``, ``customdata``...)."""
    def one(match: re.Match) -> str:
        name, index, spec = match.group(1), match.group(2), match.group(3) or ""
        value = point[name]
        if index is not None:
            value = value[int(index)]
        if spec:
            return d3(value, spec)
        return str(value)
    return _FIELD.sub(one, template).replace("<extra></extra>", "")


def _cells(trace: dict):
    """(y label, x label) -> (z, customdata) of every cell a heatmap trace draws."""
    z = decode(trace["z"])
    custom = trace.get("customdata")
    custom = decode(custom) if isinstance(custom, dict) else custom
    out = {}
    if z.ndim == 2:  # dense: rows are y, columns x
        for i, y in enumerate(trace["y"]):
            for j, x in enumerate(trace["x"]):
                if np.isfinite(z[i, j]):
                    out[(y, x)] = (float(z[i, j]), None if custom is None else custom[i][j])
    else:  # sparse: one point per (x, y)
        for k, (y, x) in enumerate(zip(trace["y"], trace["x"])):
            if z[k] is None or z[k] != z[k]:
                continue  # a blank point (evalmaps.figures.heatmap._pad): draws nothing
            out[(y, x)] = (float(z[k]), None if custom is None else custom[k])
    return out


def heatmap_cell(figure: dict, y: str, x: str) -> dict:
    """What the browser shows at cell (y, x) (labels as the traces hold them): ``z``,
    ``hover`` and ``text`` ('' when no value is printed), and which trace draws it. The last
    trace drawing a cell is on top, as in plotly.js; the text traces (meta role 'text':
    transparent, no hover) only give the text (:func:`text_ink`: in which colour)."""
    found = None
    text = ""
    for k, trace in enumerate(figure["data"]):
        cells = _cells(trace)
        if (y, x) not in cells:
            continue
        if (trace.get("meta") or {}).get("role") == "text":
            point = {"z": cells[(y, x)][0], "x": x, "y": y}
            template = trace.get("texttemplate", "")
            text = fill(template, point) if template else ""
            continue
        found = (k, trace, *cells[(y, x)])
    assert found is not None, f"no trace draws the cell ({y}, {x})"
    k, trace, z, custom = found
    point = {"z": z, "x": x, "y": y, "customdata": custom}
    gap = (trace.get("meta") or {}).get("role") != "value"  # a gap trace draws no value
    return {"trace": k, "z": None if gap else z, "hover": fill(trace["hovertemplate"], point),
            "text": text}


def text_ink(figure: dict, y: str, x: str) -> str | None:
    """The colour of the text printed in cell (y, x), None when it has none."""
    ink = None
    for trace in figure["data"]:
        if (trace.get("meta") or {}).get("role") == "text" and trace.get("texttemplate") \
                and (y, x) in _cells(trace):
            ink = trace["textfont"]["color"]
    return ink


def point_hover(trace: dict, k: int) -> str:
    """The hover of point k of a scatter trace, as the browser fills it."""
    point = {"x": trace["x"][k], "y": trace["y"][k], "text": (trace.get("text") or [""] * (k + 1))[k]}
    return fill(trace["hovertemplate"], point)
