"""The heatmap trace builder (Browse, Compare) and the Browse panel figure, as plain dicts.

Values travel as typed arrays (float32 when that keeps them exact at the figure's decimals, else
float64), and the browser formats them: cell text and hover are Plotly templates with the
figure's decimals and unit (``%{z:.1f}%``), so no per-cell string is built or sent and what a
user reads is exactly what the data file holds. ``sd``, ``n`` and ``se`` (a standard error the
source gives) travel as typed ``customdata``.

Cells that need another hover line (a cell the source does not report, a cell without the
figure's ``sd`` or ``se``, a standard error of 0 that cannot be right) are drawn by small sparse
traces on top, listing only those cells: a gap reads 'not reported', never a made-up number.
Above :data:`MAX_GAP_TRACE_CELLS` cells, unreported cells are the plot's background in the same
grey, with no hover (:func:`gaps_note` says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import product

import numpy as np

from evalmaps.analysis import uncertainty
from evalmaps.analysis.slicing import PanelView
from evalmaps.core import text as fmt
from evalmaps.core.labels import label_prefix, without_prefix
from evalmaps.figures import theme
from evalmaps.figures.hover import hover_template, hover_value, uncertainty_decimals, value_template
from evalmaps.figures.theme import colorscale_of, reversed_stops

# Values are printed in cells only while cells are large enough to read them; gaps between
# cells are drawn only while cells are large enough for a gap not to hide them.
MAX_TEXT_ROWS = 40
MAX_TEXT_COLUMNS = 36
MAX_GAP_CELLS = 60
# Above this many cells (100 x 100) a panel's unreported cells are drawn by the plot's
# background (the missing colour), not by a trace of their own. Each such trace costs a map's
# first paint about as much as a second small map: its cells are turned into a grid the size of
# the panel (170 ms at 1000 x 1000; Compare's three maps of 200 x 100 painted in 633 against
# 673 ms without them, medians of 15), for a hover on cells a few pixels across. The keyboard
# readout still says them, and a narrower slice brings their hover back. No gaps are drawn
# between cells this small (MAX_GAP_CELLS), so the background shows only where a cell is
# missing.
MAX_GAP_TRACE_CELLS = 10_000
# Cell text is sized to the cells in the browser (evalmapsLib.paint in assets/evalmaps-paint.js, at the
# size each map is drawn at): at most 12 px, and hidden where it would be under 9 px.
MAX_TEXT_PX = 12


@dataclass(frozen=True)
class Special:
    """Cells drawn by a sparse trace of their own, with their own hover template.

    ``value=False``: the cells are drawn in the missing colour, not by value."""

    mask: np.ndarray
    hovertemplate: str
    value: bool = False


def readable(n_rows: int, n_cols: int) -> bool:
    """Whether a panel may print values in its cells at all (its text traces are sent). Where
    they are sent, the browser sizes the text to the cells as drawn and hides it below
    9 px (the browser's limit) (a phone shows a 20-column panel without values)."""
    return n_rows <= MAX_TEXT_ROWS and n_cols <= MAX_TEXT_COLUMNS


def gaps_as_background(n_rows: int, n_cols: int) -> bool:
    """Whether a panel this size draws its unreported cells by the plot's background (see
    :data:`MAX_GAP_TRACE_CELLS`): they have no hover of their own then."""
    return n_rows * n_cols > MAX_GAP_TRACE_CELLS


def gaps_note(n_rows: int, n_cols: int) -> str | None:
    """What a hover does not say on a panel whose gaps are its background (None: it says it)."""
    if not gaps_as_background(n_rows, n_cols):
        return None
    return (f"Above {MAX_GAP_TRACE_CELLS:,} cells a panel's grey cells have no hover: the "
            f"keyboard readout says them, and narrowing the rows or the range brings their "
            f"hover back.")


def browser_limits() -> dict:
    """The sizes that decide what a map draws, as the static site's pages read them from their
    data (bundle.js keeps no copy): values printed in cells up to ``textRows`` rows and
    ``textColumns`` columns, gaps between cells up to ``gapCells`` a side, unreported cells
    drawn by a trace of their own up to ``gapTraceCells`` cells (past it, ``gapsNote`` says
    so)."""
    return {"textRows": MAX_TEXT_ROWS, "textColumns": MAX_TEXT_COLUMNS,
            "gapCells": MAX_GAP_CELLS, "gapTraceCells": MAX_GAP_TRACE_CELLS,
            "gapsNote": gaps_note(MAX_GAP_TRACE_CELLS + 1, 1)}


def prefix_note(spec) -> str | None:
    """What the axes and menus leave off: the start every row (or column) label shares, said
    once (None: nothing is left off)."""
    parts = []
    for axis, prefix in zip((spec.x, spec.y), axis_prefixes(spec)):
        if prefix:
            parts.append(f"{spec.dims[axis].title} labels are shown without “{prefix}”, "
                         f"the start they all share")
    if not parts:
        return None
    return "; ".join(parts) + " (the hover gives each name whole)."


NARROW_COLUMNS = 24  # past this many columns a phone's map has columns narrower than a line
LABELS_LINK = "Label every row and column (the page scrolls)"  # the note's link (ticks=all)
OVERVIEW_LINK = "Back to the overview"  # the note's link under ticks=all (the key left off)


def labels_note(n_rows: int, n_cols: int, every: bool = False) -> str | None:
    """Which axis labels a panel this size leaves off, on purpose, why, and where each is read
    (None: every label is shown). By default, rows past the map's height are labelled every
    k-th (:func:`row_step`: a map of more than :data:`TALL_COLUMNS` columns is a 720 px
    overview; one of fewer stops growing at :data:`MAX_HEIGHT`); columns narrower than a line
    of text (a phone, or a wide map) are labelled every k-th by the browser
    (``evalmapsLib.fit``); the page then links to ``ticks=all`` (:data:`LABELS_LINK`).

    ``every`` (``ticks=all``): every row and column is labelled, the map as tall as its rows
    and, where its columns are narrower than a line, wider than the screen (it scrolls
    sideways), up to :data:`MAX_EVERY_ROWS` rows and :data:`MAX_EVERY_COLUMNS` columns; the
    note says so (None where the default leaves nothing off) and what is still thinned past
    those."""
    if every:
        if labels_note(n_rows, n_cols) is None:
            return None
        parts = []
        step = row_step(n_rows, panel_height(n_rows, n_cols, every=True))
        if step > 1:
            parts.append(f"one row in {step} is labelled even so ({n_rows:,} rows: the map "
                         f"stops growing at {MAX_EVERY_ROWS:,} rows a label high)")
        if every_columns_thinned(n_cols):
            parts.append(f"columns are labelled every few even so ({n_cols:,} columns: the "
                         f"map stops widening at {COLUMN_PX * MAX_EVERY_COLUMNS:,} px, "
                         f"narrower than a line a column)")
        if not parts:
            return ("Every row and column is labelled: the map is as tall as its rows and, "
                    "where its columns would be narrower than a line, wider than the screen "
                    "(it scrolls sideways).")
        text = " and ".join(parts)
        return (text[0].upper() + text[1:] + ": hover a cell, read the map by keyboard or "
                "open its table for every name.")
    parts = []
    step = row_step(n_rows, panel_height(n_rows, n_cols))
    if step > 1:
        why = (f"a map of more than {TALL_COLUMNS} columns is kept to a "
               f"{panel_height(n_rows, n_cols):,} px overview" if n_cols > TALL_COLUMNS
               else f"the map stops growing at {MAX_HEIGHT:,} px")
        parts.append(f"one row in {step} is labelled ({n_rows:,} rows: {why})")
    if n_cols > NARROW_COLUMNS:
        parts.append("columns narrower than a line of text (on a phone, or many columns) are "
                     "labelled every few")
    if not parts:
        return None
    text = " and ".join(parts)
    return (text[0].upper() + text[1:] + ": hover a cell, read the map by keyboard or open its "
            "table for every name, or narrow the rows or the range to label each one.")


def values_note(n_rows: int, n_cols: int) -> str | None:
    """Why values are not printed in the cells of a panel this size (None: they are)."""
    if readable(n_rows, n_cols):
        return None
    return (f"Values are not printed in cells above {MAX_TEXT_ROWS} rows or {MAX_TEXT_COLUMNS} "
            f"columns (too small to read): hover a cell, or narrow the rows or the range.")


PERCENT_TICKS = ".4~%"  # colour-bar and axis ticks of a fraction shown as percent: 0.25 -> 25%
WHOLE_TICKS_SPAN = 10  # a whole-number metric coloured over at most this span is ticked at each unit


def scale_ticks(percent: bool, decimals: int, spans) -> dict:
    """The colour bar's tick settings: percent ticks for a fraction shown as percent; for a metric
    written with no decimals (counts such as AlpacaEval's n_total) whose colour ranges (every
    ``(lo, hi)`` of ``spans`` that the page may switch to) are all narrow, a tick at each whole
    number, where Plotly would otherwise pick values the metric never takes (804.2)."""
    if percent:
        return {"tickformat": PERCENT_TICKS}
    bounds = [r for r in spans if r is not None]
    if decimals == 0 and bounds and all(
            np.isfinite(r[0]) and np.isfinite(r[1]) and r[1] - r[0] <= WHOLE_TICKS_SPAN
            for r in bounds):
        return {"dtick": 1, "tick0": 0}
    return {}


# ----------------------------------------------------------------- the colour bar's room
# plotly.js draws a colour bar in the chart's right margin (components/colorbar/draw.js): at
# x = 1, anchored left, it takes two pads, the bar, its tick labels and its title. Where that
# is wider than the margin the figure gives, plotly.js widens the margin and draws the whole
# chart a second time (Plots.doAutoMargin: about a third of a map's drawing, and most of the
# colour bar's cost on the Rank page). The figures give the bar its room at once.
BAR_PAD, BAR_THICKNESS = 10, 14  # plotly.js's xpad (each side of the bar) and the bar's width
BAR_FIXED_PX = 2 * BAR_PAD + BAR_THICKNESS + 4  # with the gap from the bar to its labels
BAR_TITLE_PX = 32  # the title, one line turned beside the labels, and its gap
BAR_SLACK_PX = 8  # fonts differ by a few px between machines: a margin too narrow draws twice
BAR_STEPS = 10  # plotly.js's finest automatic step: about a tenth of the bar's range


def nice_step(span: float) -> float:
    """The least of 1, 2 and 5 times a power of ten at or above ``span``."""
    if not span > 0 or not math.isfinite(span):
        return 1.0
    power = 10.0 ** math.floor(math.log10(span))
    return next((k * power for k in (1, 2, 5) if k * power >= span * (1 - 1e-9)), 10 * power)


def bar_labels(colorbar: dict, spans) -> list[str]:
    """Tick labels at least as wide as the widest the colour bar may write over any colour range
    of ``spans`` ((lo, hi) each): its own tick texts where it has them, else the numbers at
    each range's ends written at its step (``dtick``, or plotly.js's finest automatic one), as
    percent where it ticks so; plotly.js's minus sign."""
    if colorbar.get("ticktext"):
        return [str(t) for t in colorbar["ticktext"]]
    percent = colorbar.get("tickformat") == PERCENT_TICKS
    out = []
    for lo, hi in spans:
        if not (math.isfinite(lo) and math.isfinite(hi)):
            continue
        step = colorbar.get("dtick") or nice_step((hi - lo) / BAR_STEPS)
        places = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
        if percent:
            places = max(0, places - 2)
        for v in (lo, hi):
            shown = abs(v) * (100 if percent else 1)
            text = f"{shown:.{places}f}" + ("%" if percent else "")
            out.append(("\u2212" if v < 0 else "") + text)
    return out or ["0.00"]


def bar_room(trace: dict, spans=()) -> int:
    """The px the colour bar of ``trace`` takes right of the plot area (its pads, the bar, its
    widest tick label and its title), over its own range and ``spans``: an estimate that errs
    wide (:func:`theme.label_px`), so that plotly.js keeps the margin."""
    ranges = [(float(trace["zmin"]), float(trace["zmax"]))] \
        if trace.get("zmin") is not None and trace.get("zmax") is not None else []
    ranges += [(float(lo), float(hi)) for lo, hi in (r for r in spans if r)]
    labels = bar_labels(trace.get("colorbar") or {}, ranges)
    title = ((trace.get("colorbar") or {}).get("title") or {}).get("text")
    return math.ceil(BAR_FIXED_PX + theme.label_px(labels) + (BAR_TITLE_PX if title else 0)
                     + BAR_SLACK_PX)


def place_bar(layout: dict, traces: list[dict], spans=(), reserve: bool = False) -> None:
    """The layout's right margin the room of the colour bar of ``traces`` (the trace that
    shows it, drawn at x = 1 anchored left: :func:`heatmap_traces`; :func:`bar_room`; at least
    the margin it had), so that plotly.js draws the chart once. ``reserve``: the room of the
    first trace's bar even where none is shown (a map beside one with the same bar lines its
    squares up with it). The layout's meta says the margin holds the bar (``evalmaps.bar``,
    for the browser's fit)."""
    shown = [t for t in traces if t.get("showscale")]
    source = shown[0] if shown else (traces[0] if reserve and traces else None)
    if source is None:
        return
    margin = layout.setdefault("margin", {})
    margin["r"] = max(int(margin.get("r", 0)), bar_room(source, spans))
    layout.setdefault("meta", {}).setdefault("evalmaps", {})["bar"] = True


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


@dataclass(frozen=True)
class TraceSpec:
    """How :func:`heatmap_traces` draws a map's values (every map on every page goes through it).

    ``decimals``: the places values are printed with. ``hovertemplate`` formats a present cell
    (``%{y}``, ``%{x}``, ``%{z:...}``, ``%{customdata[k]}``). ``colorscale``: the source's own
    scale; ``zrange``: (zmin, zmax), None for the values' own extent; ``zmid``: the centre of a
    diverging scale (B - A). ``texttemplate``: the cell text (default: the value with
    ``decimals``); ``show_values``: whether it is shown. ``showscale``, ``colorbar_title``,
    ``colorbar``: the colour bar, and more of its settings (ticks). ``scale``: which scale is
    drawn, ``'uniform'`` (theme.UNIFORM_SCALE) or ``'paper'`` (the source's), both carried for
    the browser to switch; None: ``colorscale`` only (a diverging B - A scale).
    ``reversescale``: the colour scale runs the other way (a metric where lower is better: good
    keeps its colour; the stops are reversed, so the browser's contrast rule sees what is
    drawn). ``dtype``: the values' typed-array dtype (default: float32 where that keeps them
    exact at ``decimals``, :func:`evalmaps.figures.theme.exact_dtype`). ``customdata_dtype``: 'f4'
    where the caller knows float32 keeps every customdata column exact at the decimals it is
    printed at (:func:`evalmaps.figures.theme.exact_columns_dtype`)."""

    decimals: int
    hovertemplate: str
    colorscale: str | list
    zrange: tuple[float, float] | None
    zmid: float | None = None
    texttemplate: str | None = None
    show_values: bool = True
    showscale: bool = True
    colorbar_title: str = ""
    colorbar: dict | None = None
    scale: str | None = theme.DEFAULT_SCALE
    reversescale: bool = False
    dtype: str | None = None
    customdata_dtype: str = "f8"


def heatmap_traces(z: np.ndarray, x_labels, y_labels, spec: TraceSpec, *,
                   customdata: np.ndarray | None = None, text: np.ndarray | None = None,
                   special: tuple[Special, ...] = (), bounds=False) -> list[dict]:
    """One dense heatmap trace of the values, a sparse trace per :class:`Special` group, and
    (panels small enough to print values in) two text traces on top, drawn as ``spec`` says.

    ``z``: rows top to bottom; NaN = missing. ``customdata``: (rows, cols, k), what the hover
    template reads as ``%{customdata[k]}``. ``text``: the values the templates show as
    ``%{text}`` when ``z`` is not them (colours by log10: ``z`` holds the logarithms, ``text``
    the values). ``bounds``: :func:`finite_range` of ``z``, when the caller has it.

    Cell text is drawn by two transparent heatmaps over the values, one in black and one in
    white, each holding the values of the cells whose colour that text contrasts more with
    (:func:`evalmaps.figures.theme.text_color`): at least 4.5:1 in every cell. They take no hover.
    """
    ny, nx = z.shape
    x, y = theme.texts(x_labels), theme.texts(y_labels)
    if gaps_as_background(ny, nx):  # heatmap_layout draws them (its plot_bgcolor)
        special = tuple(group for group in special if group.value)
    taken = np.zeros(z.shape, dtype=bool)
    for group in special:
        taken |= group.mask
    if bounds is False:  # one pass for the colour range and the cell text's width
        bounds = finite_range(z)
    gap = 1 if max(nx, ny) <= MAX_GAP_CELLS else 0
    text_on = readable(ny, nx)
    cell_text = spec.texttemplate or f"%{{z:.{fmt.places(spec.decimals)}f}}"
    zmid, colorscale = spec.zmid, spec.colorscale
    # a diverging scale (B - A) is drawn as given, whatever the choice
    scale = None if zmid is not None else spec.scale
    turn = reversed_stops if spec.reversescale else (lambda stops: stops)
    scales = None if scale is None else {
        "uniform": turn(colorscale_of(theme.UNIFORM_SCALE)),
        "paper": turn(colorscale_of(colorscale))}
    stops = turn(colorscale_of(colorscale)) if scales is None else scales[scale]
    lo, hi = spec.zrange if spec.zrange else extent(z, bounds=bounds)
    dtype = spec.dtype or theme.exact_dtype(z, spec.decimals)
    main = {
        "type": "heatmap",
        "z": theme.typed(z, dtype, blank=taken if taken.any() else None),
        "x": x, "y": y,
        "colorscale": stops,
        "zmin": lo, "zmax": hi,
        "hovertemplate": spec.hovertemplate + "<extra></extra>",
        "hoverongaps": False,
        "meta": {"role": "value", "texttemplate": cell_text, "show": bool(spec.show_values),
                 "chars": text_chars(z, spec.decimals, cell_text, bounds=bounds),
                 "scale": scale, "scales": scales,
                 "value": hover_value(spec.hovertemplate, cell_text)},
        "xgap": gap, "ygap": gap,
        "showscale": spec.showscale,
        # at the plot area's right edge, in the room the layout's margin gives it (place_bar)
        "colorbar": {"title": {"text": theme.text(spec.colorbar_title), "side": "right"},
                     "thickness": BAR_THICKNESS, "x": 1, "xanchor": "left", "xpad": BAR_PAD,
                     **(spec.colorbar or {})},
    }
    if text is not None:
        main["text"] = _number_list(np.where(taken, np.nan, text))
    if zmid is not None:
        main["zmid"] = zmid
    if customdata is not None:
        main["customdata"] = theme.typed(customdata, spec.customdata_dtype)
    traces = [main]
    for group in special:
        rows, cols = cells_of(group.mask)
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
                         customdata=theme.typed(data, spec.customdata_dtype))
            if text is not None and group.value:
                shown = np.full((ni, nj), np.nan)
                shown[rows, cols] = text[rows, cols]
                trace["text"] = _number_list(shown)
        else:
            # blank points first, one at each x label (on the first row) and one at each y
            # label (on the first column): the trace's grid is then the axes' whole grid, evenly
            # spaced, which plotly.js draws as one image of a pixel per cell (its fast path)
            # instead of painting an image the size of the plot; the group's cells come after
            # the blanks, so a cell on the first row or column keeps its value
            blank = [None] * (nx + ny)
            trace.update(x=[*x, *[x[0]] * ny, *(x[j] for j in cols.tolist())],
                         y=[*[y[0]] * nx, *y, *(y[i] for i in rows.tolist())],
                         z=[*blank, *values.tolist()])
            if text is not None and group.value:
                trace["text"] = [*blank, *_number_list(text[rows, cols])]
        if group.value:
            trace.update(colorscale=stops, zmin=lo, zmax=hi, meta={"role": "value"})
            if zmid is not None:
                trace["zmid"] = zmid
        else:
            trace.update(zmin=0, zmax=1,
                         colorscale=[[0, theme.MISSING_COLOR], [1, theme.MISSING_COLOR]])
        traces.append(trace)
    if text_on:
        traces += text_traces(z, x, y, stops, (lo, hi), cell_text if spec.show_values else "",
                              dtype, zmid, text=text)
    return traces


TRANSPARENT = [[0, "rgba(0,0,0,0)"], [1, "rgba(0,0,0,0)"]]


def finite_range(z: np.ndarray) -> tuple[float, float] | None:
    """The lowest and highest finite value (None when there is none), in one pass each:
    ``fmin``/``fmax`` skip NaN; only an infinite value needs the finite cells picked out."""
    if z.size == 0:
        return None
    lo, hi = float(np.fmin.reduce(z, axis=None)), float(np.fmax.reduce(z, axis=None))
    if np.isfinite(lo) and np.isfinite(hi):
        return lo, hi
    finite = z[np.isfinite(z)]
    return (float(finite.min()), float(finite.max())) if finite.size else None


def cells_of(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero`` of a 2-d mask (rows, columns; row-major order), from the flat indices: a
    tenth of the time on a million cells."""
    return np.divmod(np.flatnonzero(mask), mask.shape[1])


def extent(z: np.ndarray, *, bounds=False) -> tuple[float | None, float | None]:
    """The min and max of the present values (None, None when there are none): the range
    plotly.js would pick itself, made explicit so that the text colours follow the same one.
    ``bounds``: :func:`finite_range` of ``z``, when worked out already."""
    bounds = finite_range(z) if bounds is False else bounds
    if bounds is None:
        return None, None
    lo, hi = bounds
    return (lo, hi) if lo < hi else (lo - 0.5, hi + 0.5)


def text_chars(z: np.ndarray, decimals: int, template: str, *, bounds=False) -> int:
    """The most characters a cell's text has (for the browser to size the text to the cells).
    ``bounds``: :func:`finite_range` of ``z``, when worked out already."""
    bounds = finite_range(z) if bounds is False else bounds
    if bounds is None:
        return 1
    places = fmt.places(decimals)
    longest = max(len(f"{bounds[0]:.{places}f}"), len(f"{bounds[1]:.{places}f}"))
    return longest + (1 if "%{z:+" in template else 0)


def normalised(z: np.ndarray, zrange, zmid: float | None = None) -> np.ndarray:
    """Where each value falls on the colour scale (0-1), as plotly.js maps it."""
    lo, hi = zrange
    if lo is None or hi is None:
        return np.full(z.shape, 0.5)
    if zmid is not None:  # plotly.js centres the range on zmid
        half = max(abs(hi - zmid), abs(zmid - lo))
        lo, hi = zmid - half, zmid + half
    span = hi - lo
    return np.clip((z - lo) / span, 0, 1) if span else np.full(z.shape, 0.5)


def dark_text(z: np.ndarray, stops: list, zrange, zmid: float | None = None) -> np.ndarray:
    """The cells whose text is black (else white): the one of the two that contrasts more with
    the cell's colour. False where a value is missing."""
    t = normalised(z, zrange, zmid)
    out = np.zeros(z.shape, dtype=bool)
    present = np.isfinite(z)
    for index in zip(*np.nonzero(present)):
        out[index] = theme.text_color(theme.scale_rgb(stops, float(t[index]))) == theme.TEXT_DARK
    return out


def text_traces(z: np.ndarray, x: list, y: list, stops: list, zrange, template: str,
                dtype: str, zmid: float | None = None,
                text: np.ndarray | None = None) -> list[dict]:
    """The cell text: a transparent heatmap in black over the cells that take black text, and
    one in white over the others (values only, no strings; no hover). ``text``: the values a
    ``%{text}`` template writes, when ``z`` is not them (log10 colours)."""
    dark = dark_text(z, stops, zrange, zmid)
    present = np.isfinite(z)
    out = []
    for color, mask in ((theme.TEXT_DARK, dark), (theme.TEXT_LIGHT, present & ~dark)):
        trace = {
            "type": "heatmap", "x": x, "y": y,
            "z": theme.typed(np.where(mask, z, np.nan), dtype),
            "colorscale": TRANSPARENT, "zmin": 0, "zmax": 1, "showscale": False,
            "hoverinfo": "skip", "texttemplate": template,
            "textfont": {"color": color, "size": MAX_TEXT_PX},
            "meta": {"role": "text", "color": color},
        }
        if text is not None:
            trace["text"] = _number_list(np.where(mask, text, np.nan))
        out.append(trace)
    return out


def apply_scale(figure: dict, scale: str) -> dict:
    """A heatmap figure drawn with the other scale choice (``'uniform'`` or ``'paper'``): its
    value traces recoloured and its cell text's colours chosen anew. A figure with no choice of
    scale (B - A) is returned as it is."""
    main = figure["data"][0]
    scales = main.get("meta", {}).get("scales")
    if not scales or scale not in scales or main["meta"].get("scale") == scale:
        return figure
    stops = scales[scale]
    data = []
    for trace in figure["data"]:
        role = (trace.get("meta") or {}).get("role")
        if role == "value":
            trace = {**trace, "colorscale": stops}
        data.append(trace)
    data[0] = {**data[0], "meta": {**main["meta"], "scale": scale}}
    texts = [k for k, t in enumerate(data) if (t.get("meta") or {}).get("role") == "text"]
    if texts:
        values = np.fmax(*(theme.decoded(data[k]["z"]).astype(float) for k in texts))
        dark = dark_text(values, stops, (main["zmin"], main["zmax"]), main.get("zmid"))
        present = np.isfinite(values)
        for k, mask in zip(texts, (dark, present & ~dark)):
            data[k] = {**data[k], "z": theme.typed(np.where(mask, values, np.nan),
                                                   data[k]["z"]["dtype"])}
    meta = figure["layout"].get("meta", {}).get("evalmaps")
    layout = figure["layout"]
    if meta is not None:
        layout = {**layout, "meta": {"evalmaps": {**meta, "scale": scale}}}
    return {**figure, "data": data, "layout": layout}


def _number_list(values: np.ndarray) -> list:
    """Numbers as JSON lists, None where missing (a ``text`` array: typed arrays are for data)."""
    return [[None if v != v else float(v) for v in row] for row in values] if values.ndim == 2 \
        else [None if v != v else float(v) for v in values]


def heatmap_layout(x_labels, y_labels, *, x_title: str, y_title: str, heading: str,
                   height: int, illustrative: bool = False, fixed_range: bool = False,
                   right: int = 20, prefixes: tuple[str, str] = ("", ""),
                   every: bool = False) -> dict:
    """Axes (categorical, the source's order, first row on top), title and height.
    ``prefixes``: the start every x and every y label shares (evalmaps.core.labels), left off
    the tick labels; the hover, which reads the traces' labels, gives them whole. ``every``
    (``ticks=all``): a tick at every column, however many (the browser thins none that has
    room: evalmapsLib.fit)."""
    x, y = theme.texts(x_labels), theme.texts(y_labels)
    nx, ny = len(x), len(y)
    xaxis = {"type": "category", "categoryorder": "array", "categoryarray": x}
    yaxis = {"type": "category", "categoryorder": "array", "categoryarray": y}
    if fixed_range:  # cell j spans j/nx..(j+1)/nx of the axis: outlines are placed that way
        xaxis.update(autorange=False, range=[-0.5, nx - 0.5])
        yaxis.update(autorange=False, range=[ny - 0.5, -0.5])
    else:
        yaxis["autorange"] = "reversed"
    if nx <= 60 or every:
        xaxis.update(tickmode="linear" if nx else "auto")
    # margins from the labels' widths, not plotly.js's automargin (which measures every tick
    # label and draws the chart twice); x labels stay level (the browser thins them to fit:
    # evalmaps.fit)
    xaxis.update(automargin=False, tickangle=0)
    yaxis.update(automargin=False)
    x_cut, y_cut = prefixes
    if x_cut:  # the ticks' own text, whatever ticks the browser keeps (evalmaps.fit thins them)
        xaxis["labelalias"] = {full: theme.text(without_prefix(label, x_cut))
                               for full, label in zip(x, map(str, x_labels))}
    shown_y = y
    step = row_step(ny, height)
    if y_cut or step > 1 or any(len(str(label)) > MAX_TICK_CHARS for label in y_labels):
        # a long row label (a checkpoint's path) is shortened on the axis, so that it leaves
        # room for the cells, and the start every row shares is left off; the hover, the
        # table and the keyboard readout give it whole
        shown_y = [theme.text(tick_label(without_prefix(str(label), y_cut)))
                   for label in y_labels]
        # every row labelled where the rows are a line high; past that every k-th, never
        # printed over one another (the hover, the table and the readout name every row;
        # labels_note says so under the map)
        yaxis.update(tickmode="array", tickvals=y[::step], ticktext=shown_y[::step])
    elif every and ny:  # a tick at every row, not plotly.js's own choice of a few
        yaxis.update(tickmode="linear", tick0=0, dtick=1)
    layout = {
        "template": theme.TEMPLATE,
        "title": theme.title(heading),
        "margin": {"l": left_margin(shown_y), "r": right, "t": 64, "b": 55},
        "annotations": axis_titles(x_title, y_title, shown_y),
        "height": height,
        # unreported cells of a large panel are the background showing through (no gaps
        # between cells are drawn at that size: the background shows nowhere else)
        "plot_bgcolor": theme.MISSING_COLOR if gaps_as_background(ny, nx) else "white",
        "xaxis": xaxis,
        "yaxis": yaxis,
    }
    if illustrative:
        layout["annotations"].append(theme.illustrative_annotation())
    return layout


def axis_titles(x_title: str, y_title: str, shown_y: list[str]) -> list[dict]:
    """The axes' titles, as annotations named "x-title" and "y-title" beside the tick labels:
    placed from the labels' estimated widths (as the margins are), not measured. plotly.js
    measures every tick label of an axis that has a title of its own, to keep the title clear
    of them: one forced layout per label, about 30 ms on Compare's first map."""
    out = []
    if str(x_title):
        out.append({"name": "x-title", "text": theme.text(x_title), "xref": "paper",
                    "yref": "paper", "x": 0.5, "y": 0, "yanchor": "top",
                    "yshift": -X_TITLE_DROP, "showarrow": False,
                    "font": {"size": AXIS_TITLE_SIZE}})
    if str(y_title):
        gap = max(int(np.ceil(theme.label_px(shown_y))) + Y_TITLE_GAP, Y_TITLE_MIN)
        out.append({"name": "y-title", "text": theme.text(y_title), "xref": "paper",
                    "yref": "paper", "x": 0, "y": 0.5, "xanchor": "right", "xshift": -gap,
                    "textangle": -90, "showarrow": False, "font": {"size": AXIS_TITLE_SIZE}})
    return out


AXIS_TITLE_SIZE = 14  # plotly.js's axis title at a 12 px font (1.2 times it)
X_TITLE_DROP = 33  # px from the x axis to its title's top (about where plotly.js puts it)
Y_TITLE_GAP, Y_TITLE_MIN = 5, 28  # px from the widest y tick label to the title (at least 28)

MAX_TICK_CHARS = 28


def tick_label(label: str) -> str:
    """A row label as the axis shows it: whole up to :data:`MAX_TICK_CHARS` characters, else
    its start and its end around an ellipsis ('/home/cs…examples/dog_steer.csv')."""
    if len(label) <= MAX_TICK_CHARS:
        return label
    return label[:8] + "\u2026" + label[-(MAX_TICK_CHARS - 9):]


def left_margin(y_labels: list[str]) -> int:
    """Room for the y tick labels (their widest, as drawn at 12 px) and the axis title."""
    return max(50, int(np.ceil(theme.label_px(y_labels))) + 36)


ROW_PX = 15  # the height of a row label (12 px text and a gap)
PLOT_MARGINS = 119  # a map's top and bottom margins (64 + 55)
MAX_HEIGHT = 3600  # the tallest map (229 rows a label high): past it rows are thinner


TALL_COLUMNS = 40  # maps of at most this many columns grow to label every row

# ticks=all: every row and column labelled. A row is a label high (ROW_PX) and a column a line
# wide (COLUMN_PX: an upright label, 13 px in evalmapsLib.fit, and a gap), up to 1,000 of each
# (a map about 15,000 px tall or wide); past that, labelled every k-th even so.
COLUMN_PX = 15
UPRIGHT_LINE_PX = 13  # evalmapsLib.fit labels every column at least this wide (UPRIGHT_LINE)
MAX_EVERY_ROWS = 1000
MAX_EVERY_COLUMNS = 1000


def panel_height(n_rows: int, n_cols: int = 1, every: bool = False) -> int:
    """A map's height: 38 px a row up to 720 px; then, for a map of at most
    :data:`TALL_COLUMNS` columns (a leaderboard's shape: many systems, few benchmarks), a
    label's height a row (the page scrolls to read them all) up to :data:`MAX_HEIGHT`. A map of
    many rows and many columns keeps 720 px, an overview at a glance, its rows labelled every
    k-th (:func:`row_step`). ``every`` (``ticks=all``): a label's height a row whatever the
    columns, up to :data:`MAX_EVERY_ROWS` rows."""
    short = int(min(max(150 + 38 * n_rows, 260), 720))
    if every:
        return max(short, PLOT_MARGINS + 10 + ROW_PX * min(n_rows, MAX_EVERY_ROWS))
    if n_cols > TALL_COLUMNS:
        return short
    return max(short, int(min(PLOT_MARGINS + 10 + ROW_PX * n_rows, MAX_HEIGHT)))


def row_step(n_rows: int, height: int) -> int:
    """Every k-th row label, so that the labels shown are at least a label's height apart."""
    plot = max(height - PLOT_MARGINS, 1)
    return max(1, int(np.ceil(n_rows * ROW_PX / plot)))


def every_columns_thinned(n_cols: int) -> bool:
    """Whether a ``ticks=all`` map's columns are labelled every few even so: past
    :data:`MAX_EVERY_COLUMNS` columns they share its widest plot, and where that gives each
    less than an upright line (:data:`UPRIGHT_LINE_PX`), the browser thins them (1,154 columns
    and more)."""
    return n_cols * UPRIGHT_LINE_PX > COLUMN_PX * MAX_EVERY_COLUMNS


def every_label_width(layout: dict, n_cols: int) -> int:
    """The narrowest chart (px, as plotly.js draws it) that gives each of ``n_cols`` columns a
    line's width (:data:`COLUMN_PX`, up to :data:`MAX_EVERY_COLUMNS` columns) beside the
    layout's margins (the row labels', and the colour bar's: :func:`place_bar`): the least
    width of a ``ticks=all`` map, which scrolls sideways where the screen is narrower."""
    margin = layout.get("margin") or {}
    return (int(margin.get("l", 80)) + int(margin.get("r", 80))
            + COLUMN_PX * min(n_cols, MAX_EVERY_COLUMNS))


# --------------------------------------------------------------------------- Browse panels

def uncertainty_data(present: np.ndarray, sd: np.ndarray | None, n: np.ndarray | None,
                     se: np.ndarray | None, suspect: np.ndarray,
                     template) -> tuple[str, np.ndarray | None, list[Special], tuple[str, ...]]:
    """The hover of present cells with the uncertainty they carry: (the template of a cell with
    all of it, the customdata (rows, cols, k) with ``sd``, ``n``, ``se`` as the figure has them,
    the :class:`Special` groups of cells that lack some of it or carry a suspect ``se``, and the
    customdata's columns by name). ``template(columns, sd=, n=, se=, suspect=)`` writes a
    hover."""
    grids = {name: grid for name, grid in (("sd", sd), ("n", n), ("se", se))
             if grid is not None and bool(np.isfinite(grid[present]).any())}
    columns = {name: k for k, name in enumerate(grids)}
    if not grids:
        return template(columns, sd=False, n=False, se=False), None, [], ()
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
    return full, customdata, special, tuple(grids)


def panel_traces(view: PanelView, zrange: tuple[float, float] | None, *,
                 show_values: bool = True, showscale: bool = True,
                 scale: str = theme.DEFAULT_SCALE, ranges: list | None = None,
                 counts: np.ndarray | None = None) -> list[dict]:
    """A Browse panel's traces: its values, its gaps ('not reported'), and any cells whose hover
    lacks some of the figure's sd, n or se, or flags a standard error of 0 that cannot be
    right. The panel's own metric (:attr:`PanelView.metric`) names the colour bar, writes the
    values (as percent when asked and a fraction) and, where lower is better, reverses the
    colour scale; coloured by log10 (``zrange`` then in log10 units), the colour bar is
    labelled in the metric's units and the hover shows the value."""
    spec = view.spec
    present = view.present
    suspect = uncertainty.suspect(view.z, view.se, view.metric)

    def template(columns, **flags):
        return hover_template(view, columns, **flags)[0]

    full, customdata, groups, names = uncertainty_data(present, view.sd, view.n, view.se,
                                                       suspect, template)
    uncertain = names
    if counts is not None and bool(np.isfinite(counts[present]).any()):
        full, customdata, groups, names = with_item_counts(full, customdata, groups, names,
                                                           counts)
    _, missing = hover_template(view)
    shown = view.shown
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
    else:  # the range drawn, or the values' own (worked out once per view: value_range)
        colorbar = scale_ticks(shown.percent, view.decimals,
                               [zrange or view.value_range, *(ranges or [])])
    title = shown.label + (" (log)" if view.log_scale else "")
    # the panel's own grids (a standard error from its items is the view's alone: float64)
    data_dtype = theme.panel_columns_dtype(
        view.panel, uncertain, uncertainty_decimals(view.decimals, uncertain, shown)) \
        if uncertain and all(getattr(view.panel, name) is not None for name in uncertain) \
        else "f8"
    drawn = TraceSpec(
        decimals=view.decimals, hovertemplate=full, colorscale=spec.colorscale, zrange=zrange,
        texttemplate=cell, show_values=show_values, showscale=showscale, colorbar_title=title,
        colorbar=colorbar, scale=scale, reversescale=not view.higher_is_better,
        dtype="f8" if view.log_scale else theme.panel_dtype(view.panel, view.decimals),
        customdata_dtype=data_dtype)
    return heatmap_traces(z, view.x_labels, view.y_labels, drawn, customdata=customdata,
                          text=text, special=(Special(~present, missing), *groups),
                          bounds=False if view.log_scale else view.value_range)


def with_item_counts(full: str, customdata: np.ndarray | None, groups: list, names: tuple,
                     counts: np.ndarray) -> tuple[str, np.ndarray, list, tuple]:
    """The hover of cells made from per-item records, with their item and sample counts:
    '<br>Items 12,032 · samples per item: up to 1' (customdata's two last columns)."""
    at = len(names)
    line = (f"<br>Items %{{customdata[{at}]:,.0f}} · samples per item: up to "
            f"%{{customdata[{at + 1}]:,.0f}}")
    data = counts if customdata is None else np.concatenate([customdata, counts], axis=-1)
    return (full + line, data, [replace(g, hovertemplate=g.hovertemplate + line)
                                if g.value else g for g in groups],
            (*names, "items", "samples"))


def _finite_bounds(z: np.ndarray) -> tuple[float, float]:
    values = z[np.isfinite(z)]
    if not values.size:
        return 0.0, 1.0
    lo, hi = float(values.min()), float(values.max())
    return (lo, hi) if lo < hi else (lo - 0.5, hi + 0.5)


def style_meta(traces: list[dict], ranges: dict | None, color: str | None = None) -> dict:
    """What the browser needs to restyle a heatmap without new data (``evalmaps.restyle``), to
    size its cell text to the cells as drawn (``evalmaps.fit``) and to read it without a mouse
    (``evalmapsLib.keys``): its colour range per mode (a mode that lets the panel scale itself: its
    own extent), its scales (uniform and as in the paper) and the one drawn, the cell-text
    template ('' while the panel is too large to print in), whether values are shown, the
    longest cell text's length, and the hover's value template (``hover_value``)."""
    main = traces[0]
    own = main["meta"]
    readable_cells = readable(len(main["y"]), len(main["x"]))
    meta = {"text": own["texttemplate"] if readable_cells else "", "show": own["show"],
            "color": color, "value": own["value"],
            "chars": own["chars"], "scale": own["scale"], "scales": own["scales"]}
    if ranges is not None:
        meta["ranges"] = {mode: list(r) if r else [main["zmin"], main["zmax"]]
                          for mode, r in ranges.items()}
    return {"evalmaps": meta}


def heatmap_figure(view: PanelView, zrange: tuple[float, float] | None, *,
                   show_values: bool = True, ranges: dict | None = None,
                   scale: str = theme.DEFAULT_SCALE, color: str | None = None,
                   counts: np.ndarray | None = None, every: bool = False) -> dict:
    """A Browse panel as a Plotly figure dict. ``ranges``: the colour range of each colour
    mode, for the browser to switch between; ``color``: the mode drawn; ``counts``: each
    cell's items and most samples per item (rows, cols, 2; NaN: none), said in its hover;
    ``every`` (``ticks=all``): as tall as its rows a label high (:func:`panel_height`; its
    least width is :func:`every_label_width`)."""
    spec = view.spec
    data = panel_traces(view, zrange, show_values=show_values, scale=scale,
                        ranges=list((ranges or {}).values()), counts=counts)
    prefixes = axis_prefixes(spec)
    layout = heatmap_layout(view.x_labels, view.y_labels, x_title=spec.dims[spec.x].title,
                            y_title=spec.dims[spec.y].title,
                            heading=view.title + ("" if view.higher_is_better
                                                  else " · lower is better"),
                            height=panel_height(len(view.y_labels), len(view.x_labels), every),
                            illustrative=spec.illustrative, prefixes=prefixes, every=every)
    layout["meta"] = style_meta(data, ranges, color)
    place_bar(layout, data, (ranges or {}).values())
    if any(prefixes):  # the table of the map (evalmapsLib.keys) leaves them off too, once said
        layout["meta"]["evalmaps"]["prefix"] = dict(zip("xy", prefixes))
    return {"data": data, "layout": layout}


def axis_prefixes(spec) -> tuple[str, str]:
    """The start every x and every y label of a figure shares (evalmaps.core.labels): from the
    dimensions' labels, so it stays the same whichever rows and range are shown."""
    return label_prefix(spec.dims[spec.x].labels), label_prefix(spec.dims[spec.y].labels)
