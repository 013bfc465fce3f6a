"""The shared look of every chart: one Plotly template (as vizro does), the colours, the modebar.

Figures are plain dicts (no ``go.Figure`` validation on hot paths) whose ``layout.template`` is
:data:`TEMPLATE`; a builder sets only what is its own (title, axes, height).
"""

from __future__ import annotations

import base64
from functools import lru_cache
from html import escape

import numpy as np

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
TEXT_COLOR = "#212529"
MISSING_COLOR = "#e9ecef"  # a cell the source does not report
ILLUSTRATIVE_COLOR = "#b45309"
ILLUSTRATIVE_LABEL = "ILLUSTRATIVE values, not results"
ILLUSTRATIVE_HOVER = "<b>ILLUSTRATIVE value, not a result</b>"

TEMPLATE = {
    "layout": {
        "font": {"family": FONT, "size": 12, "color": TEXT_COLOR},
        "title": {"x": 0.02, "xanchor": "left", "yanchor": "top", "font": {"size": 15}},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "hoverlabel": {"bgcolor": "white", "font": {"family": FONT, "size": 13}},
        "xaxis": {"showgrid": False, "zeroline": False, "automargin": True},
        "yaxis": {"showgrid": False, "zeroline": False, "automargin": True},
    }
}


def text(label: object) -> str:
    """A label as Plotly shows it: its pseudo-HTML tags escaped (a label is shown as typed,
    never as markup; quotes stay quotes). ``%{`` would start a template variable: broken up."""
    return escape(str(label), quote=False).replace("%{", "%\u200b{")


def texts(labels) -> list[str]:
    return list(_texts(tuple(labels)))


@lru_cache(maxsize=512)
def _texts(labels: tuple) -> tuple[str, ...]:
    """Axis labels are escaped once per label set, not once per callback."""
    return tuple(text(label) for label in labels)


def typed(values: np.ndarray, dtype: str = "f4") -> dict:
    """A numpy array as a Plotly typed-array spec (base64): plotly.js decodes it in the browser,
    with no per-value JSON. NaN stays NaN (a gap)."""
    array = np.ascontiguousarray(values, dtype=np.dtype(dtype).newbyteorder("<"))
    spec = {"dtype": dtype, "bdata": base64.b64encode(array.tobytes()).decode("ascii")}
    if array.ndim > 1:
        spec["shape"] = ", ".join(str(n) for n in array.shape)
    return spec


@lru_cache(maxsize=256)
def panel_dtype(panel, decimals: int) -> str:
    """:func:`exact_dtype` of a whole panel, worked out once (any slice of a panel that float32
    keeps exact is kept exact too)."""
    return exact_dtype(panel.z, decimals)


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


def illustrative_annotation() -> dict:
    """The on-figure label of made-up values (seed 002): above the plot, in amber."""
    return {"text": ILLUSTRATIVE_LABEL, "xref": "paper", "yref": "paper", "x": 0.5, "y": 1.0,
            "yanchor": "bottom", "showarrow": False,
            "font": {"size": 11, "color": ILLUSTRATIVE_COLOR}}


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
