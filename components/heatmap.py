"""Heatmap figures for panel views: one Plotly figure per panel.

Hover and cell texts are preformatted strings (``customdata``/``text``) built from the data with
the figure's own number of decimals, so what a user reads is exactly what the data file holds.
Labels are HTML-escaped: Plotly renders a few tags in texts, and user labels must show as text.
"""

from __future__ import annotations

from html import escape

import numpy as np
import plotly.graph_objects as go

from evalmaps.slicing import PanelView

MISSING_COLOR = "#e9ecef"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"


def cell_texts(view: PanelView) -> np.ndarray:
    """The value printed in each cell ('' where missing), with the figure's decimals."""
    d = view.decimals
    return np.array([[("" if not np.isfinite(v) else f"{v:.{d}f}") for v in row] for row in view.z],
                    dtype=object)


def value_text(metric, value: float, decimals: int, sd: float | None = None,
               n: float | None = None) -> str:
    """'Pass@1 52.5 ± 1.2 sd (n=3)' (plain text; 'not reported' for a missing value)."""
    text = f"{metric.name} {metric.format(value, decimals)}"
    if np.isfinite(value) and sd is not None and np.isfinite(sd):
        text += f" ± {sd:.{max(decimals, 1)}f} sd"
    if np.isfinite(value) and n is not None and np.isfinite(n):
        text += f" (n={int(n)})"
    return text


def add_illustrative_label(fig: go.Figure) -> None:
    """The on-figure label of made-up values (seed 002): above the plot, in amber."""
    fig.add_annotation(text="ILLUSTRATIVE values, not results", xref="paper", yref="paper",
                       x=0.5, y=1.0, yanchor="bottom", showarrow=False,
                       font=dict(size=11, color="#b45309"))


def hover_texts(view: PanelView) -> np.ndarray:
    """'Type u · Length 3 · Accuracy 87.3%' per cell; 'not reported' for missing cells."""
    spec = view.spec
    ytitle, xtitle = escape(spec.dims[spec.y].title), escape(spec.dims[spec.x].title)
    metric = spec.metric
    facet_line = " · ".join(f"{escape(spec.dims[f].title)} {escape(v)}"
                            for f, v in view.panel.facets.items())
    tail = ""
    if facet_line:
        tail += "<br>" + facet_line
    if spec.illustrative:
        tail += "<br><b>ILLUSTRATIVE value, not a result</b>"
    out = np.empty(view.z.shape, dtype=object)
    for i, ylab in enumerate(view.y_labels):
        for j, xlab in enumerate(view.x_labels):
            text = value_text(metric, view.z[i, j], view.decimals,
                              None if view.sd is None else view.sd[i, j],
                              None if view.n is None else view.n[i, j])
            out[i, j] = f"{ytitle} {escape(ylab)} · {xtitle} {escape(xlab)} · {escape(text)}{tail}"
    return out


def panel_height(n_rows: int) -> int:
    return int(min(max(150 + 38 * n_rows, 260), 720))


def heatmap_figure(view: PanelView, zrange: tuple[float, float] | None, *,
                   show_labels: bool = True, show_colorbar: bool = True,
                   title: str | None = None) -> go.Figure:
    spec = view.spec
    metric = spec.metric
    trace = go.Heatmap(
        z=view.z.astype(np.float32),
        x=[escape(label) for label in view.x_labels],
        y=[escape(label) for label in view.y_labels],
        text=cell_texts(view),
        texttemplate="%{text}" if show_labels else "",
        customdata=hover_texts(view),
        hovertemplate="%{customdata}<extra></extra>",
        hoverongaps=True,
        colorscale=[list(stop) for stop in spec.colorscale] if isinstance(spec.colorscale, tuple)
        else spec.colorscale,
        zmin=zrange[0] if zrange else None,
        zmax=zrange[1] if zrange else None,
        xgap=1,
        ygap=1,
        showscale=show_colorbar,
        colorbar=dict(title=dict(text=escape(metric.label), side="right"), thickness=14),
    )
    fig = go.Figure(trace)
    heading = escape(title if title is not None else view.title)
    fig.update_layout(
        title=dict(text=heading, x=0.02, xanchor="left", y=0.98, yanchor="top", font=dict(size=15)),
        font=dict(family=FONT, size=12, color="#212529"),
        margin=dict(l=70, r=20, t=64, b=55),
        height=panel_height(len(view.y_labels)),
        plot_bgcolor=MISSING_COLOR,
        paper_bgcolor="white",
        hoverlabel=dict(bgcolor="white", font=dict(family=FONT, size=13)),
    )
    fig.update_xaxes(title_text=escape(spec.dims[spec.x].title), type="category", showgrid=False,
                     tickmode="linear" if len(view.x_labels) > 0 else "auto")
    fig.update_yaxes(title_text=escape(spec.dims[spec.y].title), type="category", showgrid=False,
                     autorange="reversed")
    if spec.illustrative:
        add_illustrative_label(fig)
    return fig


# Buttons no chart of ours shows: Plotly's "Share chart" uploads the chart to Plotly Cloud
# (nothing may leave the machine), and selections mean nothing on these charts.
NEVER_BUTTONS = ["sendChartToCloud", "select2d", "lasso2d", "autoScale2d", "toggleSpikelines",
                 "hoverClosestCartesian", "hoverCompareCartesian"]
ZOOM_BUTTONS = ["zoom2d", "pan2d", "zoomIn2d", "zoomOut2d"]


def graph_config(figure_id: str, panel_key: str, *, zoom: bool = False) -> dict:
    """Modebar config: no Plotly logo, no cloud, image export named after the figure and panel.

    Heatmaps of a few labelled cells need only export and reset; line charts keep zoom.
    """
    return {
        "displaylogo": False,
        "showSendToCloud": False,
        "toImageButtonOptions": {"format": "png", "filename": f"{figure_id}__{panel_key}", "scale": 2},
        "modeBarButtonsToRemove": NEVER_BUTTONS + ([] if zoom else ZOOM_BUTTONS),
    }
