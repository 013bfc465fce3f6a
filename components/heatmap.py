"""The heatmap trace builder (Browse, Compare) and the Browse panel figure, as plain dicts.

Values travel as typed arrays (float32 when that keeps them exact at the figure's decimals, else
float64), and the browser formats them: cell text and hover are Plotly templates with the
figure's decimals and unit (``%{z:.1f}%``), so no per-cell string is built or sent and what a
user reads is exactly what the data file holds. ``sd``, ``n`` and ``se`` (a standard error the
source gives) travel as typed ``customdata``.

Cells that need another hover line (a cell the source does not report, a cell without the
figure's ``sd`` or ``se``, a standard error of 0 that cannot be right) are drawn by small sparse traces on top, listing only those cells: a gap reads
'not reported', never a made-up number.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np
from plotly.colors import get_colorscale

from components import theme
from evalmaps import formats as fmt
from evalmaps import stderr
from evalmaps.slicing import PanelView

# Values are printed in cells only while cells are large enough to read them; gaps between
# cells are drawn only while cells are large enough for a gap not to hide them.
MAX_TEXT_ROWS = 40
MAX_TEXT_COLUMNS = 36
MAX_GAP_CELLS = 60


@dataclass(frozen=True)
class Special:
    """Cells drawn by a sparse trace of their own, with their own hover template.

    ``value=False``: the cells are drawn in the missing colour, not by value."""

    mask: np.ndarray
    hovertemplate: str
    value: bool = False


def readable(n_rows: int, n_cols: int) -> bool:
    """Whether a panel's cells are large enough to print values in."""
    return n_rows <= MAX_TEXT_ROWS and n_cols <= MAX_TEXT_COLUMNS


def values_note(n_rows: int, n_cols: int) -> str | None:
    """Why values are not printed in the cells of a panel this size (None: they are)."""
    if readable(n_rows, n_cols):
        return None
    return (f"Values are not printed in cells above {MAX_TEXT_ROWS} rows or {MAX_TEXT_COLUMNS} "
            f"columns (too small to read): hover a cell, or narrow the rows or the range.")


@lru_cache(maxsize=64)
def _named_scale(name: str) -> tuple:
    return tuple(tuple(stop) for stop in get_colorscale(name))


def colorscale_of(scale) -> list:
    """Explicit stops. A name is resolved as plotly.py defines it (Python's 'RdBu' runs red to
    blue; plotly.js's own runs blue to red, so a bare name would flip the scale)."""
    stops = _named_scale(scale) if isinstance(scale, str) else scale
    return [list(stop) for stop in stops]


def value_template(metric, decimals: int, *, signed: bool = False, trim: bool = False,
                   field: str = "z") -> str:
    """The d3 template of a value: '%{z:.1f}%'; ``trim``: trailing zeros dropped (derived).
    A metric written as percent (``metric.percent``) is formatted by d3's '%' (the browser
    multiplies by 100: the data stays exact): '%{z:.2%}' for a fraction with 4 decimals."""
    if metric is not None and getattr(metric, "percent", False):
        spec = f"{'+' if signed else ''}.{fmt.places(decimals - 2)}{'~' if trim else ''}%"
        return f"%{{{field}:{spec}}}"
    spec = f"{'+' if signed else ''}.{fmt.places(decimals)}{'~' if trim else ''}f"
    return fmt.with_unit(f"%{{{field}:{spec}}}", metric.unit if metric else "")


PERCENT_TICKS = ".4~%"  # colour-bar and axis ticks of a fraction shown as percent: 0.25 -> 25%
LOG_STEPS = (1, 2, 5)


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[str]]:
    """Colour-bar ticks of a log10 scale from ``lo`` to ``hi`` (log10 units): at 1, 2, 5 x 10^k
    when the range spans less than three decades, else at powers of 10; labelled in the
    original units ('2', '50', '1000')."""
    steps = LOG_STEPS if hi - lo < 3 else (1,)
    vals, text = [], []
    for k in range(int(np.floor(lo)), int(np.ceil(hi)) + 1):
        for step in steps:
            v = step * 10.0 ** k
            at = float(np.log10(v))
            if lo - 1e-9 <= at <= hi + 1e-9:
                vals.append(at)
                text.append(f"{v:g}")
    if len(vals) < 2:  # a narrow range: its ends
        vals = [lo, hi]
        text = [f"{10 ** lo:.3g}", f"{10 ** hi:.3g}"]
    return vals, text


def heatmap_traces(z: np.ndarray, x_labels, y_labels, *, decimals: int, hovertemplate: str,
                   colorscale, zrange: tuple[float, float] | None, zmid: float | None = None,
                   customdata: np.ndarray | None = None, special: tuple[Special, ...] = (),
                   show_values: bool = True, texttemplate: str | None = None,
                   showscale: bool = True, colorbar_title: str = "",
                   dtype: str | None = None, reversescale: bool = False,
                   text: np.ndarray | None = None, colorbar: dict | None = None) -> list[dict]:
    """One dense heatmap trace of the values, plus a sparse trace per :class:`Special` group.

    ``z``: rows top to bottom; NaN = missing. ``hovertemplate`` formats a present cell
    (``%{y}``, ``%{x}``, ``%{z:...}``, ``%{customdata[k]}``); ``customdata``: (rows, cols, k).
    ``texttemplate``: the cell text (default: the value with ``decimals``). ``reversescale``:
    the colour scale runs the other way (a metric where lower is better: good keeps its
    colour). ``text``: the values the templates show as ``%{text}`` when ``z`` is not them
    (colours by log10: ``z`` holds the logarithms, ``text`` the values). ``colorbar``: more
    colour-bar settings (ticks).
    """
    ny, nx = z.shape
    x, y = theme.texts(x_labels), theme.texts(y_labels)
    dense = z
    taken = np.zeros(z.shape, dtype=bool)
    for group in special:
        taken |= group.mask
    if taken.any():
        dense = np.where(taken, np.nan, z)
    gap = 1 if max(nx, ny) <= MAX_GAP_CELLS else 0
    text_on = show_values and readable(ny, nx)
    cell_text = texttemplate or f"%{{z:.{fmt.places(decimals)}f}}"
    lo, hi = zrange if zrange else (None, None)
    main = {
        "type": "heatmap",
        "z": theme.typed(dense, dtype or theme.exact_dtype(z, decimals)),
        "x": x, "y": y,
        "colorscale": colorscale_of(colorscale),
        "zmin": lo, "zmax": hi,
        "hovertemplate": hovertemplate + "<extra></extra>",
        "hoverongaps": False,
        "texttemplate": cell_text if text_on else "",
        "meta": {"texttemplate": cell_text},
        "xgap": gap, "ygap": gap,
        "showscale": showscale,
        "colorbar": {"title": {"text": theme.text(colorbar_title), "side": "right"},
                     "thickness": 14, **(colorbar or {})},
    }
    if reversescale:
        main["reversescale"] = True
    if text is not None:
        main["text"] = _number_list(np.where(taken, np.nan, text))
    if zmid is not None:
        main["zmid"] = zmid
    if customdata is not None:
        main["customdata"] = theme.typed(customdata, "f8")
    traces = [main]
    for group in special:
        rows, cols = np.nonzero(group.mask)
        if rows.size == 0:
            continue
        trace = {
            "type": "heatmap",
            "hovertemplate": group.hovertemplate + "<extra></extra>",
            "hoverongaps": False, "xgap": gap, "ygap": gap, "showscale": False,
        }
        values = z[rows, cols] if group.value else np.zeros(rows.size)
        if customdata is not None and "customdata" in group.hovertemplate:
            # with hover data: a grid from the axes' first labels to the group's last row and
            # column, blank (NaN) but for the group's cells; plotly.js does not match a sparse
            # trace's customdata to its cells on category axes
            ni, nj = int(rows.max()) + 1, int(cols.max()) + 1
            grid = np.full((ni, nj), np.nan)
            grid[rows, cols] = values
            data = np.full((ni, nj, customdata.shape[-1]), np.nan)
            data[rows, cols] = customdata[rows, cols]
            trace.update(x=x[:nj], y=y[:ni], z=theme.typed(grid, "f8"),
                         customdata=theme.typed(data, "f8"))
            if text is not None and group.value:
                shown = np.full((ni, nj), np.nan)
                shown[rows, cols] = text[rows, cols]
                trace["text"] = _number_list(shown)
        else:
            trace.update(x=[x[j] for j in cols], y=[y[i] for i in rows], z=values.tolist())
            if text is not None and group.value:
                trace["text"] = _number_list(text[rows, cols])
            if rows.min() > 0 or cols.min() > 0:
                # a blank point at the first labels: plotly.js sizes a sparse trace's grid from
                # the axes' first categories but its bounds from its own first cell, so a trace
                # whose cells share one label that is not the first would land elsewhere
                trace.update(x=[*trace["x"], x[0]], y=[*trace["y"], y[0]],
                             z=[*trace["z"], None])
                if "text" in trace:
                    trace["text"] = [*trace["text"], None]
        if group.value:
            trace.update(colorscale=main["colorscale"], zmin=lo, zmax=hi,
                         texttemplate=main["texttemplate"])
            if reversescale:
                trace["reversescale"] = True
            if zmid is not None:
                trace["zmid"] = zmid
        else:
            trace.update(zmin=0, zmax=1,
                         colorscale=[[0, theme.MISSING_COLOR], [1, theme.MISSING_COLOR]])
        traces.append(trace)
    return traces


def _number_list(values: np.ndarray) -> list:
    """Numbers as JSON lists, None where missing (a ``text`` array: typed arrays are for data)."""
    return [[None if v != v else float(v) for v in row] for row in values] if values.ndim == 2 \
        else [None if v != v else float(v) for v in values]


def heatmap_layout(x_labels, y_labels, *, x_title: str, y_title: str, heading: str,
                   height: int, illustrative: bool = False, fixed_range: bool = False,
                   right: int = 20) -> dict:
    """Axes (categorical, the source's order, first row on top), title and height."""
    x, y = theme.texts(x_labels), theme.texts(y_labels)
    nx, ny = len(x), len(y)
    xaxis = {"title": {"text": theme.text(x_title)}, "type": "category",
             "categoryorder": "array", "categoryarray": x}
    yaxis = {"title": {"text": theme.text(y_title)}, "type": "category",
             "categoryorder": "array", "categoryarray": y}
    if fixed_range:  # cell j spans j/nx..(j+1)/nx of the axis: outlines are placed that way
        xaxis.update(autorange=False, range=[-0.5, nx - 0.5])
        yaxis.update(autorange=False, range=[ny - 0.5, -0.5])
    else:
        yaxis["autorange"] = "reversed"
    if nx <= 60:
        xaxis.update(tickmode="linear" if nx else "auto")
    layout = {
        "template": theme.TEMPLATE,
        "title": theme.title(heading),
        "margin": {"l": 70, "r": right, "t": 64, "b": 55},
        "height": height,
        "plot_bgcolor": "white",
        "xaxis": xaxis,
        "yaxis": yaxis,
    }
    if illustrative:
        layout["annotations"] = [theme.illustrative_annotation()]
    return layout


def panel_height(n_rows: int) -> int:
    return int(min(max(150 + 38 * n_rows, 260), 720))


# --------------------------------------------------------------------------- Browse panels

def uncertainty_text(decimals: int, columns: dict[str, int], *, sd: bool, n: bool, se: bool,
                     suspect: bool = False, metric=None) -> str:
    """The hover's uncertainty after a value: ' ± %{customdata[2]:.2f} se', ' ± 1.2 sd (n=3)'
    (``columns``: each quantity's place in customdata); ``suspect``: a standard error of 0 that
    cannot be right (see evalmaps.stderr), flagged where it is shown. A metric written as
    percent writes them as percent too (d3's '%')."""
    pct = metric is not None and getattr(metric, "percent", False)
    kind, shift = ("%", 2) if pct else ("f", 0)
    extra = ""
    if se:
        places = max(fmt.se_places(decimals) - shift, 0)
        extra += f" ± %{{customdata[{columns['se']}]:.{places}{kind}}} se"
        if suspect:
            extra += f" ({SUSPECT_HOVER})"
    if sd:
        places = max(max(fmt.places(decimals), 1) - shift, 0)
        extra += f" ± %{{customdata[{columns['sd']}]:.{places}{kind}}} sd"
    if n:
        extra += f" (n=%{{customdata[{columns['n']}]:.0f}})"
    return extra


SUSPECT_HOVER = "a standard error of 0 inside the metric's range cannot be right"


def uncertainty_data(present: np.ndarray, sd: np.ndarray | None, n: np.ndarray | None,
                     se: np.ndarray | None, suspect: np.ndarray,
                     template) -> tuple[str, np.ndarray | None, list[Special]]:
    """The hover of present cells with the uncertainty they carry: (the template of a cell with
    all of it, the customdata (rows, cols, k) with ``sd``, ``n``, ``se`` as the figure has them,
    and the :class:`Special` groups of cells that lack some of it or carry a suspect ``se``).
    ``template(columns, sd=, n=, se=, suspect=)`` writes a hover."""
    grids = {name: grid for name, grid in (("sd", sd), ("n", n), ("se", se))
             if grid is not None and bool(np.isfinite(grid[present]).any())}
    columns = {name: k for k, name in enumerate(grids)}
    if not grids:
        return template(columns, sd=False, n=False, se=False), None, []
    customdata = np.stack(list(grids.values()), axis=-1)
    ok = {name: np.isfinite(grid) for name, grid in grids.items()}
    full = template(columns, **{name: name in grids for name in ("sd", "n", "se")})
    special = []
    flags = [ok.get(name) for name in ("sd", "n", "se")]
    for key in product((True, False), repeat=4):
        with_sd, with_n, with_se, bad = key
        if bad and not with_se:
            continue
        group = present.copy()
        for flag, want in zip(flags, key[:3]):
            if flag is None:
                if want:
                    group[:] = False  # the figure has none of it: no cell has it
            else:
                group &= flag == want
        group &= suspect == bad
        if key == (*(f is not None for f in flags), False) or not group.any():
            continue  # the main trace's own cells
        special.append(Special(group, template(columns, sd=with_sd and "sd" in grids,
                                               n=with_n and "n" in grids,
                                               se=with_se and "se" in grids, suspect=bad),
                               value=True))
    return full, customdata, special


def hover_template(view: PanelView, columns: dict[str, int] | None = None, *, sd: bool = False,
                   n: bool = False, se: bool = False, suspect: bool = False) -> tuple[str, str]:
    """(present, missing) hover templates: 'Type %{y} · Length %{x} · Accuracy %{z:.1f}%',
    with ' ± %{customdata[k]} se', ' ± ... sd', ' (n=...)' where the cell has them."""
    spec = view.spec
    metric = view.shown
    where = (f"{theme.text(spec.dims[spec.y].title)} %{{y}} · "
             f"{theme.text(spec.dims[spec.x].title)} %{{x}} · {theme.text(metric.name)} ")
    value = value_template(metric, view.decimals, field="text" if view.log_scale else "z")
    extra = uncertainty_text(view.decimals, columns or {}, sd=sd, n=n, se=se, suspect=suspect,
                             metric=metric)
    tail = hover_tail(view)
    if not view.higher_is_better:
        tail = " (lower is better)" + tail
    return where + value + extra + tail, where + fmt.NOT_REPORTED + tail


def hover_tail(view: PanelView) -> str:
    """What every hover of a panel ends with: its facets, and the illustrative flag."""
    spec = view.spec
    tail = ""
    facet_line = " · ".join(f"{theme.text(spec.dims[f].title)} {theme.text(v)}"
                            for f, v in view.panel.facets.items())
    if facet_line:
        tail += "<br>" + facet_line
    if spec.illustrative:
        tail += "<br>" + theme.ILLUSTRATIVE_HOVER
    return tail


def panel_traces(view: PanelView, zrange: tuple[float, float] | None, *,
                 show_values: bool = True, showscale: bool = True,
                 ranges: list | None = None) -> list[dict]:
    """A Browse panel's traces: its values, its gaps ('not reported'), and any cells whose hover
    lacks some of the figure's sd, n or se, or flags a standard error of 0 that cannot be
    right. The panel's own metric (:attr:`PanelView.metric`) names the colour bar, writes the
    values (as percent when asked and a fraction) and, where lower is better, reverses the
    colour scale; coloured by log10 (``zrange`` then in log10 units), the colour bar is
    labelled in the metric's units and the hover shows the value."""
    spec = view.spec
    present = view.present
    suspect = stderr.suspect(view.z, view.se, view.metric)

    def template(columns, **flags):
        return hover_template(view, columns, **flags)[0]

    full, customdata, groups = uncertainty_data(present, view.sd, view.n, view.se, suspect,
                                                template)
    _, missing = hover_template(view)
    shown = view.shown
    colorbar = {"tickformat": PERCENT_TICKS} if shown.percent else {}
    z, text, cell = view.z, None, None
    if shown.percent:
        cell = value_template(shown, view.decimals, field="text" if view.log_scale else "z")
    if view.log_scale:
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.log10(view.z)
        text = view.z
        cell = cell or f"%{{text:.{fmt.places(view.decimals)}f}}"
        spans = [r for r in (zrange, *(ranges or [])) if r] + [_finite_bounds(z)]
        vals, labels = log_ticks(min(r[0] for r in spans), max(r[1] for r in spans))
        colorbar = {"tickvals": vals, "ticktext": labels}
    title = shown.label + (" (log)" if view.log_scale else "")
    return heatmap_traces(
        z, view.x_labels, view.y_labels, decimals=view.decimals, hovertemplate=full,
        colorscale=spec.colorscale, zrange=zrange, customdata=customdata,
        special=(Special(~present, missing), *groups), show_values=show_values,
        texttemplate=cell,
        showscale=showscale, colorbar_title=title,
        dtype="f8" if view.log_scale else theme.panel_dtype(view.panel, view.decimals),
        reversescale=not view.higher_is_better, text=text, colorbar=colorbar)


def _finite_bounds(z: np.ndarray) -> tuple[float, float]:
    values = z[np.isfinite(z)]
    if not values.size:
        return 0.0, 1.0
    lo, hi = float(values.min()), float(values.max())
    return (lo, hi) if lo < hi else (lo - 0.5, hi + 0.5)


def style_meta(traces: list[dict], ranges: dict | None) -> dict:
    """What the browser needs to restyle a heatmap without new data (``evalmaps.restyle``):
    its colour range per mode, and the cell-text template values switch on ('' while the cells
    are too small to print in)."""
    main = traces[0]
    readable_cells = readable(len(main["y"]), len(main["x"]))
    meta = {"text": main["meta"]["texttemplate"] if readable_cells else ""}
    if ranges is not None:
        meta["ranges"] = {mode: list(r) if r else None for mode, r in ranges.items()}
    return {"evalmaps": meta}


def heatmap_figure(view: PanelView, zrange: tuple[float, float] | None, *,
                   show_values: bool = True, ranges: dict | None = None) -> dict:
    """A Browse panel as a Plotly figure dict. ``ranges``: the colour range of each colour
    mode, for the browser to switch between."""
    spec = view.spec
    data = panel_traces(view, zrange, show_values=show_values,
                        ranges=list((ranges or {}).values()))
    layout = heatmap_layout(view.x_labels, view.y_labels, x_title=spec.dims[spec.x].title,
                            y_title=spec.dims[spec.y].title,
                            heading=view.title + ("" if view.higher_is_better
                                                  else " · lower is better"),
                            height=panel_height(len(view.y_labels)),
                            illustrative=spec.illustrative)
    layout["meta"] = style_meta(data, ranges)
    return {"data": data, "layout": layout}
