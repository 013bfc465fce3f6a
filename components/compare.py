"""The compare view's pieces: the A, B and B - A heatmaps, the summary card, the panel menus.

A and B share one colour scale (A's), one (zmin, zmax) and one colour bar (on B); B - A has a
diverging scale centred at 0 with its own bar. Hover and cell texts are preformatted from the
data (each side's decimals), labels HTML-escaped. Axis ranges are fixed, so cell (i, j) spans the
axis-domain fractions j/nx..(j+1)/nx and (rows top to bottom) 1-(i+1)/ny..1-i/ny: the linked
hover's outline (``evalmaps.compareHover`` in assets/evalmaps.js, an overlay over the map, not a
Plotly shape, so the hovered map is never redrawn) and, on B - A, the dotted outlines of cells
whose difference is within two standard errors (not distinguishable) are placed that way.
"""

from __future__ import annotations

from html import escape

import dash_bootstrap_components as dbc
import numpy as np
import plotly.graph_objects as go
from dash import html

from components.heatmap import FONT, MISSING_COLOR, panel_height
from components.provenance import BADGE
from evalmaps.compare import (Alignment, ComparePanel, color_range, compatible, delta_range,
                              format_mean, format_signed, from_panel, sentences, where_of)
from evalmaps.model import Catalog

DELTA_COLORSCALE = "RdBu"  # red: B lower, white: equal, blue: B higher
MINUS = "\u2212"
DELTA_TITLE = f"B {MINUS} A"
INDISTINCT_COLOR = "#374151"


# --------------------------------------------------------------------------- hover texts

def _where(al: Alignment, i: int, j: int, sep: str = " · ") -> str:
    return f"{al.y.title} {al.y.labels[i]}{sep}{al.x.title} {al.x.labels[j]}"


def _value_lines(side: ComparePanel, y_label: str, x_label: str) -> list[str]:
    """A side's value at a cell, as hover lines (plain text): 'Pass@1 52.5 ± 1.2 sd (n=3)';
    a derived mean adds how many panels are behind it."""
    yi, xi = side.y.index()[y_label], side.x.index()[x_label]
    v = side.z[yi, xi]
    value = f"{side.metric.name} {side.format(v)}"
    if side.sd is not None and np.isfinite(v) and np.isfinite(side.sd[yi, xi]):
        value += f" ± {side.sd[yi, xi]:.{max(side.decimals, 1)}f} sd"
    if side.n is not None and np.isfinite(v) and np.isfinite(side.n[yi, xi]):
        value += f" (n={int(side.n[yi, xi])})"
    if side.n_panels is None:
        return [value]
    k, total = int(side.n_panels[yi, xi]), len(side.sources)
    if np.isfinite(v):
        return [f"{value} (mean of {total} panels, derived)"]
    return [value, f"{k} of {total} panels report it; a mean needs all"]


def side_hover(al: Alignment, which: str) -> np.ndarray:
    """'Local Window Size 2000 · Ratio 0.4<br>Pass@1 52.5<br>A: R1-Llama' (short lines: the
    maps are narrow, and a long hover label would run off the map)."""
    side, grid = (al.a, al.za) if which == "a" else (al.b, al.zb)
    tail = [f"{which.upper()}: {side.short}"]
    out = np.empty(grid.shape, dtype=object)
    for i, ylab in enumerate(al.y.labels):
        for j, xlab in enumerate(al.x.labels):
            lines = [_where(al, i, j), *_value_lines(side, ylab, xlab), *tail]
            text = "<br>".join(escape(line) for line in lines)
            if side.illustrative:
                text += "<br><b>ILLUSTRATIVE value, not a result</b>"
            out[i, j] = text
    return out


def _se_text(al: Alignment, i: int, j: int) -> str:
    if al.se is None or not np.isfinite(al.se[i, j]) or not np.isfinite(al.delta[i, j]):
        return ""
    se = f"{al.se[i, j]:.{max(al.decimals, 1) + 1}f}"
    if al.indistinct[i, j]:
        return f"SE {se}, within 2 SE: not distinguishable"
    return f"SE {se}, beyond 2 SE: distinguishable"


def _missing_side(al: Alignment, i: int, j: int) -> str:
    gone = [name for name, grid in (("A", al.za), ("B", al.zb)) if not np.isfinite(grid[i, j])]
    return " and ".join(gone) + " not reported"


def delta_hover(al: Alignment) -> np.ndarray:
    """'Local Window Size 2000 · Ratio 0.4<br>B − A +3.8<br>A 52.5 · B 56.3<br>SE ...'."""
    out = np.empty(al.delta.shape, dtype=object)
    for i in range(len(al.y.labels)):
        for j in range(len(al.x.labels)):
            d = al.delta[i, j]
            head = f"{escape(_where(al, i, j))}<br>{DELTA_TITLE} "
            if not np.isfinite(d):
                out[i, j] = head + f"not comparable<br>{_missing_side(al, i, j)}"
                continue
            text = (head + f"{al.format_delta(d)}<br>A {escape(al.a.format(al.za[i, j]))} · "
                    f"B {escape(al.b.format(al.zb[i, j]))}")
            se = _se_text(al, i, j)
            out[i, j] = text + (f"<br>{se}" if se else "")
    return out


def readouts(al: Alignment) -> dict:
    """What the linked hover needs, per cell: the escaped category labels (as the maps' axes
    hold them) and the readout line (plain text: Dash renders it as text)."""
    lines = []
    for i in range(len(al.y.labels)):
        row = []
        for j in range(len(al.x.labels)):
            text = (f"{_where(al, i, j)} — A {al.a.format(al.za[i, j])} · "
                    f"B {al.b.format(al.zb[i, j])} · "
                    f"{DELTA_TITLE} {al.format_delta(al.delta[i, j])}")
            se = _se_text(al, i, j)
            row.append(text + (f" · {se}" if se else ""))
        lines.append(row)
    return {"x": [escape(label) for label in al.x.labels],
            "y": [escape(label) for label in al.y.labels], "text": lines}


# --------------------------------------------------------------------------- figures

def _cell_texts(grid: np.ndarray, fmt) -> np.ndarray:
    return np.array([["" if not np.isfinite(v) else fmt(v) for v in row] for row in grid],
                    dtype=object)


def cell_box(i: int, j: int, ny: int, nx: int, inset: float = 0.0) -> dict:
    """A cell's rectangle in axis-domain fractions (0-1; rows top to bottom). Domain fractions,
    not data coordinates: Plotly would read a category such as '0.4' in a shape as a number."""
    return dict(xref="x domain", yref="y domain",
                x0=(j + inset) / nx, x1=(j + 1 - inset) / nx,
                y0=1 - (i + 1 - inset) / ny, y1=1 - (i + inset) / ny)


def _outline(i: int, j: int, ny: int, nx: int) -> dict:
    return dict(type="rect", **cell_box(i, j, ny, nx, inset=0.08), layer="above",
                line=dict(color=INDISTINCT_COLOR, width=1.5, dash="dot"),
                fillcolor="rgba(0,0,0,0)", name="not-distinguishable")


def _layout(fig: go.Figure, al: Alignment, title: str, right: int) -> None:
    fig.update_layout(
        title=dict(text=title, x=0.02, xanchor="left", y=0.98, yanchor="top", font=dict(size=15)),
        font=dict(family=FONT, size=12, color="#212529"),
        margin=dict(l=70, r=right, t=64, b=55),
        height=panel_height(len(al.y.labels)),
        plot_bgcolor=MISSING_COLOR,
        paper_bgcolor="white",
        hoverlabel=dict(bgcolor="white", font=dict(family=FONT, size=13)),
    )
    # fixed ranges (y reversed: first label on top), so that cell j spans the domain fractions
    # j/nx to (j+1)/nx: the outlines are placed that way
    fig.update_xaxes(title_text=escape(al.x.title), type="category", showgrid=False,
                     tickmode="linear", autorange=False, range=[-0.5, len(al.x.labels) - 0.5])
    fig.update_yaxes(title_text=escape(al.y.title), type="category", showgrid=False,
                     autorange=False, range=[len(al.y.labels) - 0.5, -0.5])


def _colorscale(side: ComparePanel):
    scale = side.colorscale
    return [list(stop) for stop in scale] if isinstance(scale, tuple) else scale


def side_figure(al: Alignment, which: str, zrange: tuple[float, float], *, show_labels: bool = True,
                show_colorbar: bool = False) -> go.Figure:
    """A or B on the common labels, with A's colour scale and the shared (zmin, zmax)."""
    side, grid = (al.a, al.za) if which == "a" else (al.b, al.zb)
    trace = go.Heatmap(
        z=grid.astype(np.float32),
        x=[escape(label) for label in al.x.labels],
        y=[escape(label) for label in al.y.labels],
        text=_cell_texts(grid, side.format),
        texttemplate="%{text}" if show_labels else "",
        customdata=side_hover(al, which),
        hovertemplate="%{customdata}<extra></extra>",
        hoverongaps=True,
        colorscale=_colorscale(al.a),
        zmin=zrange[0], zmax=zrange[1],
        xgap=1, ygap=1,
        showscale=show_colorbar,
        colorbar=dict(title=dict(text=escape(al.a.metric.label) + " (A and B)", side="right"),
                      thickness=14),
    )
    fig = go.Figure(trace)
    tag = " (derived)" if side.derived else ""
    _layout(fig, al, f"{which.upper()} · {escape(side.short)}{tag}",
            right=20 if show_colorbar else 100)
    if side.illustrative:
        fig.add_annotation(text="ILLUSTRATIVE values, not results", xref="paper", yref="paper",
                           x=0.5, y=1.0, yanchor="bottom", showarrow=False,
                           font=dict(size=11, color="#b45309"))
    return fig


def delta_figure(al: Alignment, *, show_labels: bool = True) -> go.Figure:
    """B - A on a diverging scale centred at 0 (symmetric range); NaN where either is missing."""
    lo, hi = delta_range(al)
    x = [escape(label) for label in al.x.labels]
    y = [escape(label) for label in al.y.labels]
    trace = go.Heatmap(
        z=al.delta.astype(np.float32), x=x, y=y,
        text=_cell_texts(al.delta, al.format_delta),
        texttemplate="%{text}" if show_labels else "",
        customdata=delta_hover(al),
        hovertemplate="%{customdata}<extra></extra>",
        hoverongaps=True,
        colorscale=DELTA_COLORSCALE, reversescale=False, zmin=lo, zmax=hi, zmid=0,
        xgap=1, ygap=1,
        colorbar=dict(title=dict(text=DELTA_TITLE, side="right"), thickness=14),
    )
    fig = go.Figure(trace)
    _layout(fig, al, DELTA_TITLE, right=20)
    ny, nx = al.delta.shape
    for i, j in zip(*np.nonzero(al.indistinct)):
        fig.add_shape(**_outline(int(i), int(j), ny, nx))
    return fig


def compare_figures(al: Alignment, color: str, show_labels: bool) -> tuple[go.Figure, ...]:
    zrange = color_range(al, color)
    return (side_figure(al, "a", zrange, show_labels=show_labels),
            side_figure(al, "b", zrange, show_labels=show_labels, show_colorbar=True),
            delta_figure(al, show_labels=show_labels))


# --------------------------------------------------------------------------- summary

def _at(al: Alignment, cell: dict | None) -> str:
    return where_of(al, cell) if cell else ""


def summary_card(al: Alignment, numbers: dict) -> dbc.Card:
    """Over the common cells: means, B higher in k of n, the largest gain and loss, each side's
    highest cell."""
    a_dec, b_dec = al.a.base_decimals, al.b.base_decimals
    gain, loss = numbers["largest_gain"], numbers["largest_loss"]

    def change(cell, none):
        if not cell:
            return html.Td(none, className="text-muted")
        return html.Td([html.Strong(al.format_delta(cell["delta"])), f" at {_at(al, cell)} ",
                        html.Span(f"(A {al.a.format(cell['a'])}, B {al.b.format(cell['b'])})",
                                  className="text-muted")])

    def best(side, cell):
        return html.Td([html.Strong(side.format(cell["value"])), f" at {_at(al, cell)}"])

    n = numbers["n_common"]
    rows = [
        html.Tr([html.Th("Mean"),
                 html.Td(format_mean(numbers["mean_a"], a_dec), id="compare-mean-a"),
                 html.Td(format_mean(numbers["mean_b"], b_dec), id="compare-mean-b"),
                 html.Td(format_signed(numbers["mean_delta"], al.min_decimals + 2, al.min_decimals),
                         id="compare-mean-delta")]),
    ]
    table = html.Table([
        html.Thead(html.Tr([html.Th(""), html.Th("A"), html.Th("B"), html.Th(DELTA_TITLE)])),
        html.Tbody(rows)], className="table table-sm mb-2 compare-means")
    facts = [
        html.Tr([html.Th("B higher"), html.Td(
            f"in {numbers['b_higher']} of {n} cells" + (
                f" ({numbers['equal']} equal, {numbers['b_lower']} lower)" if numbers["equal"]
                else f" ({numbers['b_lower']} lower)"), id="compare-higher")]),
        html.Tr([html.Th("Largest gain"), change(gain, "none: B is never higher")]),
        html.Tr([html.Th("Largest loss"), change(loss, "none: B is never lower")]),
        html.Tr([html.Th("Highest A"), best(al.a, numbers["best_a"])]),
        html.Tr([html.Th("Highest B"), best(al.b, numbers["best_b"])]),
    ]
    if numbers["n_with_se"]:
        facts.append(html.Tr([html.Th("Within 2 SE"), html.Td(
            f"{numbers['n_indistinct']} of {numbers['n_with_se']} cells with a standard error: "
            "not distinguishable (dotted outline on B − A)")]))
    return dbc.Card([
        dbc.CardHeader(f"Summary over the {n} common cell{'s' * (n != 1)}",
                       className="fw-semibold"),
        dbc.CardBody([table, html.Table(html.Tbody(facts),
                                        className="table table-sm mb-0 compare-facts")]),
    ], id="compare-summary-card", className="h-100")


def side_badge(side: ComparePanel) -> dbc.Badge:
    provenance = "illustrative" if side.illustrative else side.provenance
    text, color = BADGE.get(provenance, (provenance, "secondary"))
    return dbc.Badge(text, color=color, className="provenance-badge ms-2",
                     text_color="dark" if color == "warning" else None)


def sides_card(al: Alignment) -> dbc.Card:
    """What A and B are: their full labels, provenance and the panels behind a derived side."""
    def item(name: str, side: ComparePanel):
        body = [html.Strong(f"{name}: "), side.label, side_badge(side)]
        if side.derived:
            body.append(html.Div(["Cell-wise mean of ", html.Code(", ".join(side.sources)),
                                  "; defined only where all of them report a value."],
                                 className="small text-muted"))
        return html.Li(body, className="mb-1")

    counts = (f"{al.n_common} common cell{'s' * (al.n_common != 1)} compared "
              f"({len(al.y.labels)} × {len(al.x.labels)} common labels; A reports {al.a.n_cells} "
              f"cells, B {al.b.n_cells}).")
    return dbc.Card([
        dbc.CardHeader("A and B", className="fw-semibold"),
        dbc.CardBody([html.Ul([item("A", al.a), item("B", al.b)], className="list-unstyled mb-2"),
                      html.Div(counts, id="compare-counts", className="small")]),
    ], className="h-100")


def sentences_block(al: Alignment, numbers: dict) -> html.P:
    return html.P(" ".join(sentences(al, numbers)), id="compare-sentences", className="lead-sm")


# --------------------------------------------------------------------------- menus

def panel_options(catalog: Catalog, against: ComparePanel | None = None,
                  extra: list[ComparePanel] = ()) -> list[dict]:
    """'Figure title — panel title' for every panel of every figure (uploads included), then any
    derived sides in use. With ``against``, panels sharing no cell with it are disabled."""
    options = []
    for figure in catalog:
        tag = " (illustrative)" if figure.spec.illustrative and "ILLUSTRATIVE" not in \
            figure.spec.title else ""
        for panel in figure.panels.values():
            option = {"label": f"{figure.spec.title}{tag} — {panel.title}",
                      "value": panel.global_key}
            if against is not None and not compatible(against, from_panel(figure, panel)):
                option["label"] += " (no common cells with A)"
                option["disabled"] = True
            options.append(option)
    seen = {o["value"] for o in options}
    for side in extra:
        if side.ref not in seen:
            options.append({"label": side.label, "value": side.ref})
            seen.add(side.ref)
    return options
