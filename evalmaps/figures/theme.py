"""The shared look of every chart: one Plotly template (as vizro does), the colours and colour
scales, the fonts and sizes, the modebar.

Figures are plain dicts (no ``go.Figure`` validation on hot paths) whose ``layout.template`` is
:data:`TEMPLATE`; a builder sets only what is its own (title, axes, height).
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape

import numpy as np
import pybase64

from evalmaps.core import colorscales
from evalmaps.core.text import bidi_marked

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
TEXT_COLOR = "#212529"
MISSING_COLOR = "#e9ecef"  # a cell the source does not report
ILLUSTRATIVE_COLOR = "#b45309"
ILLUSTRATIVE_LABEL = "ILLUSTRATIVE values, not results"
ILLUSTRATIVE_HOVER = "<b>ILLUSTRATIVE value, not a result</b>"

FONT_SIZE, TITLE_SIZE, HOVER_SIZE, NOTE_SIZE = 12, 15, 13, 11  # px: text, titles, hover, notes

TEMPLATE = {
    "layout": {
        "font": {"family": FONT, "size": FONT_SIZE, "color": TEXT_COLOR},
        "title": {"x": 0.02, "xanchor": "left", "yanchor": "top", "font": {"size": TITLE_SIZE}},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "hoverlabel": {"bgcolor": "white", "font": {"family": FONT, "size": HOVER_SIZE}},
        "xaxis": {"showgrid": False, "zeroline": False, "automargin": True},
        "yaxis": {"showgrid": False, "zeroline": False, "automargin": True},
    }
}


def text(label: object) -> str:
    """A label as Plotly shows it: its pseudo-HTML tags escaped (a label is shown as typed,
    never as markup; quotes stay quotes); its bidirectional controls written out
    (:func:`evalmaps.core.text.bidi_marked`). ``%{`` would start a template variable: its
    ``%`` is written as the entity ``&#37;``, which Plotly shows as ``%`` (an inserted
    character would be copied with the label)."""
    return escape(bidi_marked(str(label)), quote=False).replace("%{", "&#37;{")


def texts(labels) -> list[str]:
    return list(_texts(tuple(labels)))


@lru_cache(maxsize=512)
def _texts(labels: tuple) -> tuple[str, ...]:
    """Axis labels are escaped once per label set, not once per callback."""
    return tuple(text(label) for label in labels)


# Advance widths of a sans-serif at 12 px (DejaVu Sans, the widest of the fonts FONT may give),
# for sizing margins to labels without measuring them in the browser.
_NARROW = {**dict.fromkeys(".,:;!|' ", 3.9), **dict.fromkeys("ijlI", 3.6),
           **dict.fromkeys("-()[]ftr", 4.9), **dict.fromkeys("mwMW", 11.8)}
_UPPER_PX, _LOWER_PX, _DIGIT_PX, _OTHER_PX = 8.7, 7.3, 7.7, 8.5


def char_px(ch: str) -> float:
    if ch in _NARROW:
        return _NARROW[ch]
    if ch.isdigit():
        return _DIGIT_PX
    if ch.isupper():
        return _UPPER_PX
    if ch.islower():
        return _LOWER_PX
    return _OTHER_PX


def label_px(labels) -> float:
    """The width in px of the widest label at 12 px (an estimate that errs wide); labels are
    Plotly texts (escaped): an entity counts as one character."""
    return _label_px(tuple(labels))


@lru_cache(maxsize=512)
def _label_px(labels: tuple) -> float:
    widest = 0.0
    for label in labels:
        plain = re.sub(r"&[a-z]+;|&#\d+;", "W", str(label))
        widest = max(widest, sum(char_px(ch) for ch in plain))
    return widest


class TypedArray(dict):
    """A Plotly typed-array spec, as :func:`typed` makes it: a plain dict to every reader. Its
    ``bdata`` is base64, which never needs escaping in JSON, so the callback serialiser
    (``app.callback_json``) writes it as it is instead of scanning megabytes for characters to
    escape."""

    __slots__ = ()


def typed(values: np.ndarray, dtype: str = "f4", blank: np.ndarray | None = None) -> TypedArray:
    """A numpy array as a Plotly typed-array spec (base64): plotly.js decodes it in the browser,
    with no per-value JSON. NaN stays NaN (a gap). ``blank``: cells sent as NaN (written into
    the converted copy: ``values`` is left as it is)."""
    kind = np.dtype(dtype).newbyteorder("<")
    if blank is None:
        array = np.ascontiguousarray(values, dtype=kind)
    else:
        array = np.array(values, dtype=kind, order="C", copy=True)
        np.copyto(array, np.nan, where=blank)
    # pybase64 (SIMD) writes the same text as base64.b64encode, 20 times as fast
    spec = TypedArray(dtype=dtype, bdata=pybase64.b64encode_as_string(array))
    if array.ndim > 1:
        spec["shape"] = ", ".join(str(n) for n in array.shape)
    return spec


def decoded(spec: dict) -> np.ndarray:
    """A typed-array spec (:func:`typed`'s) as a numpy array of its dtype (little-endian) and
    shape; read-only, over the decoded bytes."""
    flat = np.frombuffer(pybase64.b64decode(spec["bdata"]),
                         dtype=np.dtype(spec["dtype"]).newbyteorder("<"))
    shape = spec.get("shape")
    return flat.reshape([int(n) for n in str(shape).split(",")]) if shape else flat


@lru_cache(maxsize=256)
def panel_dtype(panel, decimals: int) -> str:
    """:func:`exact_dtype` of a whole panel, worked out once (any slice of a panel that float32
    keeps exact is kept exact too)."""
    return exact_dtype(panel.z, decimals)


@lru_cache(maxsize=256)
def panel_columns_dtype(panel, names: tuple[str, ...], decimals: tuple[int, ...]) -> str:
    """:func:`exact_columns_dtype` of a panel's whole ``sd``, ``n`` or ``se`` grids (``names``,
    in customdata's order), worked out once, as :func:`panel_dtype`."""
    return exact_columns_dtype(np.stack([getattr(panel, name) for name in names], axis=-1),
                               decimals)


def exact_dtype(values: np.ndarray, decimals: int) -> str:
    """'f4' when float32 keeps every value exact at ``decimals`` decimals (the hover and the
    cells print them so), else 'f8'. 56.3 as float32 is 56.29999923…: '56.3' at one decimal."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return "f4"
    if np.abs(finite).max() >= 1e6:
        return "f8"
    back = finite.astype(np.float32).astype(np.float64)
    return "f4" if np.array_equal(np.round(back, decimals), np.round(finite, decimals)) else "f8"


def exact_columns_dtype(values: np.ndarray, decimals) -> str:
    """'f4' when float32 keeps every column ``k`` of ``values`` (..., k) exact at ``decimals[k]``
    decimals (:func:`exact_dtype`), else 'f8'."""
    if values.shape[-1] != len(decimals):
        raise ValueError(f"{values.shape[-1]} columns, {len(decimals)} decimals")
    return "f4" if all(exact_dtype(values[..., k], d) == "f4"
                       for k, d in enumerate(decimals)) else "f8"


def illustrative_annotation() -> dict:
    """The on-figure label of made-up values (seed 002): above the plot, in amber."""
    return {"text": ILLUSTRATIVE_LABEL, "xref": "paper", "yref": "paper", "x": 0.5, "y": 1.0,
            "yanchor": "bottom", "showarrow": False,
            "font": {"size": NOTE_SIZE, "color": ILLUSTRATIVE_COLOR}}


def title(heading: str, y: float = 0.98) -> dict:
    return {"text": text(heading), "y": y}


# Buttons no chart of ours shows: Plotly's "Share chart" uploads the chart to Plotly Cloud
# (nothing may leave the machine), and selections mean nothing on these charts.
NEVER_BUTTONS = ["sendChartToCloud", "select2d", "lasso2d", "autoScale2d", "toggleSpikelines",
                 "hoverClosestCartesian", "hoverCompareCartesian"]
ZOOM_BUTTONS = ["zoom2d", "pan2d", "zoomIn2d", "zoomOut2d"]


def graph_config(figure_id: str, panel_slug: str, *, zoom: bool = False) -> dict:
    """Modebar config: no Plotly logo, no cloud, image export named after the figure and panel.

    Heatmaps of a few labelled cells need only export and reset; line charts keep zoom.
    """
    return {
        "displaylogo": False,
        "showSendToCloud": False,
        "toImageButtonOptions": {"format": "png", "filename": f"{figure_id}__{panel_slug}",
                                 "scale": 2},
        "modeBarButtonsToRemove": NEVER_BUTTONS + ([] if zoom else ZOOM_BUTTONS),
    }


# --------------------------------------------------------------------------- colour

# The default sequential scale: perceptually uniform (lightness rises evenly from end to end) and
# readable under every common colour-vision deficiency. A figure's own scale stays one click away
# as "as in the paper" (query key ``scale=paper``).
UNIFORM_SCALE = "Viridis"
DELTA_SCALE = "RdBu"  # a difference B - A: red, B lower; white, equal; blue, B higher
SCALE_CHOICES = ("uniform", "paper")
DEFAULT_SCALE = "uniform"
TEXT_DARK = "#000000"
TEXT_LIGHT = "#ffffff"


def rgb_of(color: str) -> tuple[float, float, float]:
    """'#rgb', '#rrggbb', 'rgb(r, g, b)' or 'rgba(r, g, b, a)' as (r, g, b) in 0-255."""
    text = color.strip().lower()
    if text.startswith("#"):
        hexes = text[1:]
        if len(hexes) == 3:
            hexes = "".join(c * 2 for c in hexes)
        return tuple(float(int(hexes[i:i + 2], 16)) for i in (0, 2, 4))  # type: ignore
    inside = text[text.index("(") + 1:text.rindex(")")]
    parts = [float(p) for p in inside.split(",")[:3]]
    return parts[0], parts[1], parts[2]


def scale_rgb(stops: list, t: float) -> tuple[float, float, float]:
    """The colour plotly.js draws at ``t`` (0-1, clamped) of a scale of explicit stops: each
    channel interpolated linearly between the two stops around ``t``, then rounded."""
    t = min(max(t, 0.0), 1.0)
    for (s0, c0), (s1, c1) in zip(stops, stops[1:]):
        if t <= s1:
            f = 0.0 if s1 == s0 else (t - s0) / (s1 - s0)
            a, b = rgb_of(c0), rgb_of(c1)
            return tuple(float(round(a[k] + (b[k] - a[k]) * f)) for k in range(3))  # type: ignore
    return tuple(float(round(c)) for c in rgb_of(stops[-1][1]))  # type: ignore


def luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0-255 channels)."""
    def lin(c: float) -> float:
        c /= 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(rgb_a, rgb_b) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((luminance(rgb_a), luminance(rgb_b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_color(rgb) -> str:
    """Black or white, whichever contrasts more with a cell of colour ``rgb``: never under 4.58:1
    (the worst case is a cell of luminance 0.18, where both reach it). evalmapsLib.paint in
    assets/evalmaps-paint.js applies the same rule in the browser."""
    lum = luminance(rgb)
    return TEXT_DARK if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else TEXT_LIGHT


@lru_cache(maxsize=64)
def _named_scale(name: str) -> tuple:
    return tuple(tuple(stop) for stop in colorscales.stops(name))


def colorscale_of(scale) -> list:
    """Explicit stops. A name is resolved as plotly.py defines it (Python's 'RdBu' runs red to
    blue; plotly.js's own runs blue to red, so a bare name would flip the scale)."""
    stops = _named_scale(scale) if isinstance(scale, str) else scale
    return [list(stop) for stop in stops]


def reversed_stops(stops: list) -> list:
    """A colour scale run the other way ([[0, a], [1, b]] -> [[0, b], [1, a]])."""
    return [[round(1 - float(t), 10), color] for t, color in reversed(stops)]


def browser_theme() -> dict:
    """The theme as the static site's pages read it (``evalmaps bundle``: each data script
    carries it, and evalmaps/_bundle/bundle.js draws with it instead of copies of its own): the
    fonts and sizes, the missing and illustrative colours, the uniform and B - A scales as
    explicit stops, and the modebar's buttons left out."""
    return {"font": {"family": FONT, "size": FONT_SIZE, "color": TEXT_COLOR},
            "titleSize": TITLE_SIZE, "hoverSize": HOVER_SIZE, "missing": MISSING_COLOR,
            "illustrative": {"label": ILLUSTRATIVE_LABEL, "color": ILLUSTRATIVE_COLOR,
                             "size": NOTE_SIZE},
            "uniform": colorscale_of(UNIFORM_SCALE), "delta": colorscale_of(DELTA_SCALE),
            "hideButtons": NEVER_BUTTONS + ZOOM_BUTTONS}
