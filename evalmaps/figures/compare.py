"""Compare's maps, as plain dicts: the A, B and B - A heatmaps (and the power map).

A and B share one colour scale (A's), one (zmin, zmax) and one colour bar (on B); B - A has a
diverging scale centred at 0 with its own bar. Hover and cell texts are Plotly templates the
browser fills from the values (each side's decimals); labels are shown as typed. Axis ranges are
fixed, so cell (i, j) spans the axis-domain fractions j/nx..(j+1)/nx and (rows top to bottom)
1-(i+1)/ny..1-i/ny: the linked hover's outline (``evalmaps.compareHover`` in
assets/evalmaps-hover.js, an overlay over the map, not a Plotly shape, so the hovered map is never
redrawn) and, on B - A, the dotted outlines of cells whose difference is within 1.96 standard
errors (not distinguishable) are placed that way.
"""


from __future__ import annotations

import numpy as np

from evalmaps.analysis import paired as paired_stats
from evalmaps.analysis import power, uncertainty
from evalmaps.analysis.compare import (
    ONE_ROW,
    PAIRED_NAMES,
    Alignment,
    ComparePanel,
    color_range,
    delta_range,
    detect_floor,
    paired_places,
    paired_unit,
    power_kind,
    power_lines,
)
from evalmaps.analysis.slicing import COLOR_MODES
from evalmaps.core import text as fmt
from evalmaps.figures import theme
from evalmaps.figures.heatmap import (
    TRANSPARENT,
    Special,
    TraceSpec,
    heatmap_layout,
    heatmap_traces,
    panel_height,
    place_bar,
    scale_ticks,
    style_meta,
    uncertainty_data,
)
from evalmaps.figures.hover import uncertainty_decimals, uncertainty_text, value_template

DELTA_COLORSCALE = theme.DELTA_SCALE  # red: B lower, white: equal, blue: B higher
DELTA_TITLE = f"B {fmt.MINUS} A"
INDISTINCT_COLOR = "#374151"
WITHIN = "within 1.96 SE: not distinguishable"
BEYOND = "beyond 1.96 SE: distinguishable"
PAIRED_TESTS = paired_stats.TESTS  # the test column's codes (0, 1, 2, 3)
# n, diff, ci_low, ci_high (shown units), p, p adjusted, test code; the SE used (clustered where
# the map is), the mde (shown units), the items the difference needs, the clusters
PAIRED_COLUMNS = 11


def _paired_data(al: Alignment) -> np.ndarray:
    """The paired columns of B − A's customdata (NaN where a cell was not tested)."""
    out = np.full((*al.delta.shape, PAIRED_COLUMNS), np.nan)
    scale = al.a.metric.scale if al.a.metric.percent else 1
    def of(v, times=1):
        return np.nan if v is None else v * times

    for (i, j), r in al.paired.items():
        se = r.se_diff_clustered if r.se_diff_clustered is not None else r.se_diff
        out[i, j] = (r.n, r.diff * scale, of(r.ci_low, scale), of(r.ci_high, scale), of(r.p),
                     of(r.p_adjusted), PAIRED_TESTS.index(r.test), of(se, scale),
                     of(r.mde, scale), of(r.items_needed),
                     r.n_clusters if r.se_diff_clustered is not None else np.nan)
    return out


def power_template(al: Alignment, kind) -> str:
    """A cell's error bar and power as B − A's hover writes them, a line each
    (:func:`evalmaps.analysis.compare.power_lines`, from the customdata's paired columns); ""
    for a cell without an mde (``kind`` None)."""
    if kind is None:
        return ""
    places = paired_places(al)
    fields = {"diff": f"%{{customdata[5]:+.{places}f}}", "se": f"%{{customdata[11]:.{places}f}}",
              "mde": f"%{{customdata[12]:.{places}f}}", "needed": "%{customdata[13]:,.0f}",
              "g": "%{customdata[14]:,.0f}", "n": "%{customdata[4]:,.0f}"}
    return "".join("<br>" + theme.text(line).format(**fields)
                   for line in power_lines(al, kind))


# --------------------------------------------------------------------------- hover templates

def _where(al: Alignment) -> str:
    column = f"{theme.text(al.x.title)} %{{x}}"
    return column if al.y.name == ONE_ROW else f"{theme.text(al.y.title)} %{{y}} · {column}"


def _side_value(side: ComparePanel, field: str = "z") -> str:
    return value_template(side.metric, side.decimals, field=field,
                          trim=side.min_decimals is not None)


def side_hovers(al: Alignment, which: str
                ) -> tuple[str, str, np.ndarray | None, list[Special], str]:
    """(present, missing) hover templates of A or B, their customdata, the groups of cells
    with a hover of their own (lacking some of the side's sd, n or se, or a suspect se), and
    the customdata's dtype (float32 where that is exact at the decimals the hover prints):
    'Local Window Size %{y} · Ratio %{x}<br>Pass@1 %{z:.1f} ± %{customdata[0]:.2f} se<br>A:
    R1-Llama' (short lines: the maps are narrow, and a long hover label would run off the map)."""
    side = al.a if which == "a" else al.b
    head = f"{_where(al)}<br>{theme.text(side.metric.name)} "
    tail = f"<br>{which.upper()}: {theme.text(side.short)}"
    if side.illustrative:
        tail += "<br>" + theme.ILLUSTRATIVE_HOVER
    if side.n_panels is not None:
        total = len(side.sources)
        present = f"{head}{_side_value(side)} (mean of {total} panels, derived){tail}"
        missing = (f"{head}{fmt.NOT_REPORTED}<br>%{{customdata[0]:.0f}} of {total} panels "
                   f"report it; a mean needs all{tail}")
        counts = np.take(np.take(side.n_panels, _index(side.y, al.y.labels), 0),
                         _index(side.x, al.x.labels), 1)
        return present, missing, counts[..., None].astype(float), [], "f4"  # whole counts
    if side.n_averaged is not None:  # a label's cells averaged over other dimensions
        total = side.of_averaged
        present = (f"{head}{_side_value(side)}<br>mean of %{{customdata[0]:.0f}} of {total} "
                   f"cells (over {theme.text(side.averaged_over)}), derived{tail}")
        missing = f"{head}{fmt.NOT_REPORTED}: no cell to average{tail}"
        counts = _on_common(al, side, side.n_averaged)
        return present, missing, counts[..., None].astype(float), [], "f4"  # whole counts
    z = al.za if which == "a" else al.zb
    grids = {name: None if getattr(side, name) is None else
             _on_common(al, side, getattr(side, name)) for name in ("sd", "n", "se")}

    def template(columns, **flags):
        return (f"{head}{_side_value(side)}"
                f"{uncertainty_text(side.decimals, columns, metric=side.metric, **flags)}{tail}")

    full, data, groups, names = uncertainty_data(
        np.isfinite(z), grids["sd"], grids["n"], grids["se"],
        uncertainty.suspect(z, grids["se"], side.metric), template)
    dtype = "f8" if data is None else theme.exact_columns_dtype(
        data, uncertainty_decimals(side.decimals, names, side.metric))
    return full, f"{head}{fmt.NOT_REPORTED}{tail}", data, groups, dtype


def _index(dim, labels) -> list[int]:
    index = dim.index()
    return [index[label] for label in labels]


def _on_common(al: Alignment, side: ComparePanel, grid: np.ndarray) -> np.ndarray:
    return np.take(np.take(grid, _index(side.y, al.y.labels), 0), _index(side.x, al.x.labels), 1)


def delta_template(al: Alignment, field: str = "z") -> str:
    """B − A's d3 template: in the metric's terms ('%{z:+.1f}', '%{z:+.1f} ms'); for fractions
    written as percent the difference is in percentage points, its values already scaled
    (:func:`delta_scale`): '%{z:+.1f} points', never '+3.8%' beside '+3.3 points'."""
    metric = al.a.metric
    trim = "~" if al.min_decimals != al.decimals else ""
    if metric.percent:
        return f"%{{{field}:+.{fmt.places(al.decimals - metric.shift)}{trim}f}}{paired_unit(al)}"
    return value_template(None, al.decimals, signed=True, trim=bool(trim), field=field)


def delta_scale(al: Alignment) -> float:
    """What B − A, its range and its SE are multiplied by on the map: 100 for fractions
    written as percent (percentage points), else 1."""
    return al.a.metric.scale if al.a.metric.percent else 1


def delta_hovers(al: Alignment, field: str = "z") -> tuple[str, list[Special], np.ndarray]:
    """'Local Window Size %{y} · Ratio %{x}<br>B − A +3.8<br>A 52.5 · B 56.3<br>SE ...': the
    template of a compared cell, the groups with their own (not comparable; within 1.96 SE),
    and the customdata (A, B, SE, within 1.96 SE; A and B alone when no cell has a standard
    error), typed by :func:`delta_data_dtype`."""
    where = _where(al)
    values = (f"<br>A {_side_value(al.a, 'customdata[0]')} · "
              f"B {_side_value(al.b, 'customdata[1]')}")
    pct = al.a.metric.percent
    delta = delta_template(al, field)  # the value of B − A: z, or a column of the power map's
    direction = "" if al.higher_is_better else " (lower is better: − means B better)"
    head = f"{where}<br>{DELTA_TITLE} {delta}{direction}{values}"
    se_places = se_decimals(al)
    se = (f"<br>SE %{{customdata[2]:.{max(se_places - 2, 0)}f}}{paired_unit(al)}" if pct
          else f"<br>SE %{{customdata[2]:.{se_places}f}}")  # (in points: scaled, as B − A)
    has_se = al.se is not None and np.isfinite(al.se).any()
    present = head + (se + f", {BEYOND}" if has_se else "")
    special = []
    tested = np.zeros(al.delta.shape, dtype=bool)
    for i, j in al.paired or {}:
        tested[i, j] = True
    if al.paired:
        places, unit = paired_places(al), paired_unit(al)

        def shown(k):
            return f"%{{customdata[{k}]:+.{places}f}}"

        line = (f"<br>paired, %{{customdata[4]:.0f}} items:<br>{shown(5)}{unit} "
                f"[{shown(6)}, {shown(7)}], p = %{{customdata[8]:.2~g}}"
                f"<br>adjusted p = %{{customdata[9]:.2~g}} (FDR)")
        codes = np.full(al.delta.shape, -1)
        kinds = {}  # how each cell's power is said: its cells
        for (i, j), r in al.paired.items():
            codes[i, j] = PAIRED_TESTS.index(r.test)
            kinds.setdefault(power_kind(al, r), np.zeros(al.delta.shape, dtype=bool))[i, j] = True
        none = PAIRED_TESTS.index("none")

        def add(mask, template):  # a group per way its power is said
            for kind, cells in kinds.items():
                if (mask & cells).any():
                    special.append(Special(mask & cells, template + power_template(al, kind),
                                           value=True))

        few = tested & (codes == none)
        if few.any():
            add(few, f"{head}<br>paired, %{{customdata[4]:.0f}} items: "
                     f"{shown(5)}{unit}<br>too few items for any test to "
                     f"reach p < 0.05 (it needs {paired_stats.MIN_ITEMS}): not tested")
        for code, name in enumerate(PAIRED_NAMES):
            if code == none:
                continue
            for same, verdict in ((True, "not distinguishable"), (False, "distinguishable")):
                mask = tested & (codes == code) & (al.paired_indistinct == same)
                if mask.any():
                    add(mask, f"{head}{line}, {verdict}<br>{name}")
    if has_se:
        no_se = np.isfinite(al.delta) & ~np.isfinite(al.se) & ~tested
        special.append(Special(no_se, head, value=True))
        special.append(Special(al.indistinct & np.isfinite(al.delta) & ~tested,
                               head + se + f", {WITHIN}", value=True))
    elif al.paired and len(al.paired) < al.n_common:  # no test there: the hover says so
        special.append(Special(np.isfinite(al.delta) & ~tested,
                               head + "<br>no items in common, no standard error: not tested",
                               value=True))
        present = head
    a_missing, b_missing = ~np.isfinite(al.za), ~np.isfinite(al.zb)
    for mask, who in ((a_missing & ~b_missing, "A"), (b_missing & ~a_missing, "B"),
                      (a_missing & b_missing, "A and B")):
        special.append(Special(mask, f"{where}<br>{DELTA_TITLE} not comparable<br>"
                                     f"{who} not reported"))
    if not has_se and not al.paired:  # the hovers and the readout read A and B alone
        return present, special, np.stack([al.za, al.zb], axis=-1)
    se_grid = al.se * delta_scale(al) if has_se else np.full(al.delta.shape, np.nan)
    within = np.where(np.isfinite(se_grid) & np.isfinite(al.delta), al.indistinct, np.nan)
    columns = np.stack([al.za, al.zb, se_grid, within.astype(float)], axis=-1)
    if al.paired:  # then A, B, SE, within, and the paired test's (see PAIRED_COLUMNS)
        columns = np.concatenate([columns, _paired_data(al)], axis=-1)
    return present, special, columns


def se_decimals(al: Alignment) -> int:
    """The decimals B − A's standard error is printed at (in the values' own units)."""
    return max(fmt.places(al.decimals), 1) + 1


def value_dtypes(al: Alignment) -> tuple[str, str]:
    """A's and B's values on the common cells as float32 or float64 (:func:`theme.exact_dtype`
    at each side's decimals): the A and B maps' values and B − A's first two customdata
    columns, worked out once."""
    return theme.exact_dtype(al.za, al.a.decimals), theme.exact_dtype(al.zb, al.b.decimals)


def delta_data_dtype(al: Alignment, columns: int, values: tuple[str, str]) -> str:
    """The dtype of B − A's customdata (A, B, SE, within; the first ``columns``): float32 when
    A and B are (``values``: :func:`value_dtypes`) and so is the SE at the decimals it is
    printed at; "within" is 0 or 1."""
    if "f8" in values or columns > 4:  # p-values are not exact in float32
        return "f8"
    return "f4" if columns == 2 else theme.exact_dtype(al.se, se_decimals(al))


def readouts(al: Alignment) -> dict:
    """What the linked hover's readout needs to write a cell's line in the browser
    (``evalmaps.compareHover``): the category labels as the maps' axes hold them, the labels
    and titles as text, and each side's decimals, scale and unit as its hover writes them
    ('52.5%', '3.2 ms'). The values are the B − A map's own (its customdata: A, B, SE, within
    1.96 SE, or A and B alone), so nothing is sent twice."""
    def places(side: ComparePanel) -> list:
        shift = side.metric.shift
        return [fmt.places(side.decimals - shift),
                None if side.min_decimals is None else max(side.min_decimals - shift, 0),
                side.metric.scale,
                "%" if side.metric.percent else fmt.with_unit("", side.metric.unit)]

    one_row = al.y.name == ONE_ROW  # the readout names the column alone
    floor = detect_floor(al)
    return {"x": theme.texts(al.x.labels), "y": theme.texts(al.y.labels),
            "x_text": list(al.x.labels), "y_text": [""] if one_row else list(al.y.labels),
            "x_title": al.x.title, "y_title": al.y.title,
            "a": places(al.a), "b": places(al.b),
            "delta": [fmt.places(al.decimals - al.a.metric.shift),
                      max(al.min_decimals - al.a.metric.shift, 0)
                      if al.min_decimals != al.decimals else None, al.a.metric.scale],
            "se": max(se_decimals(al) - al.a.metric.shift, 0),  # customdata: shown units
            "minus": DELTA_TITLE, "within": WITHIN, "beyond": BEYOND,
            "paired": {"places": paired_places(al), "unit": paired_unit(al),
                       "tests": list(PAIRED_NAMES), "cluster": al.cluster,
                       "few": power.FEW_CLUSTERS,  # fewer: 't with G − 1 df'
                       # the difference the items should detect (shown units), in words
                       "floor": None if floor is None else [floor[0] * delta_scale(al),
                                                            floor[1]]}
            if al.paired else None,
            # B − A and its SE: percentage points of fractions written as percent
            "unit": paired_unit(al) if al.a.metric.percent else "",
            "lower_better": not al.higher_is_better}


# --------------------------------------------------------------------------- figures

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


def _layout(al: Alignment, heading: str, right: int, illustrative: bool = False,
            every: bool = False) -> dict:
    # fixed ranges (y reversed: first label on top), so that cell j spans the domain fractions
    # j/nx to (j+1)/nx: the outlines are placed that way
    return heatmap_layout(al.x.labels, al.y.labels, x_title=al.x.title, y_title=al.y.title,
                          heading=heading,
                          height=panel_height(len(al.y.labels), len(al.x.labels), every),
                          illustrative=illustrative, fixed_range=True, right=right, every=every)


def side_figure(al: Alignment, which: str, zrange: tuple[float, float], *,
                show_values: bool = True, showscale: bool = False,
                dtype: str | None = None, every: bool = False) -> dict:
    """A or B on the common labels, with A's colour scale and the shared (zmin, zmax).
    ``dtype``: its values' (:func:`value_dtypes`), when the caller has it; ``every``
    (``ticks=all``): every row and column labelled (:func:`compare_figures`)."""
    side, grid = (al.a, al.za) if which == "a" else (al.b, al.zb)
    present, missing, customdata, groups, data_dtype = side_hovers(al, which)
    text = value_template(side.metric if side.metric.percent else None, side.decimals,
                          trim=side.min_decimals is not None)
    ranges = {mode: color_range(al, mode) for mode in COLOR_MODES}
    title = f"{al.a.metric.label} (A and B)"
    if not al.higher_is_better:
        title += " · lower is better"
    drawn = TraceSpec(
        decimals=side.decimals, hovertemplate=present, colorscale=al.a.colorscale,
        zrange=zrange, texttemplate=text, show_values=show_values, showscale=showscale,
        colorbar_title=title,
        colorbar=scale_ticks(al.a.metric.percent, side.decimals,
                             [zrange, *ranges.values()]),
        reversescale=not al.higher_is_better, dtype=dtype, customdata_dtype=data_dtype)
    data = heatmap_traces(grid, al.x.labels, al.y.labels, drawn, customdata=customdata,
                          special=(Special(~np.isfinite(grid), missing), *groups))
    tag = " (mean)" if side.n_averaged is not None else " (derived)" if side.derived else ""
    layout = _layout(al, f"{which.upper()} · {side.short}{tag}", right=20,
                     illustrative=side.illustrative, every=every)
    layout["meta"] = style_meta(data, ranges)
    # A, drawn without a bar, keeps B's room for it: their squares line up
    place_bar(layout, data, ranges.values(), reserve=True)
    return {"data": data, "layout": layout}


POWER_COLORSCALE = "YlOrRd"  # light: small differences detected; red: the items are too few
POWER_TITLE = "mde"  # its colour bar: the smallest B − A its items detect


def mde_grid(al: Alignment) -> np.ndarray:
    """Each paired cell's mde in shown units (percentage points of fractions written as
    percent); NaN where a cell has none (no items in common, fewer than 2)."""
    out = np.full(al.delta.shape, np.nan)
    for (i, j), r in (al.paired or {}).items():
        if r.mde is not None:
            out[i, j] = r.mde * delta_scale(al)
    return out


def power_figure(al: Alignment, *, show_values: bool = True, every: bool = False) -> dict:
    """The power map: B − A's cells coloured by the smallest difference their items detect
    (the mde: 2.8 SE, 80% power at the 5% level; the clustered SE where the map is clustered),
    from 0 (light) to the largest (red), so a benchmark too small to tell A and B apart shows
    red. Hovers as B − A's (the difference read from a column of its own); a common cell
    without items in common is drawn as not reported, and says why."""
    mde = mde_grid(al)
    has = np.isfinite(mde)
    times = delta_scale(al)
    field = f"customdata[{4 + PAIRED_COLUMNS}]"  # B − A itself, after the hovers' columns
    present, special, customdata = delta_hovers(al, field)
    customdata = np.concatenate([customdata, (al.delta * times)[..., None]], axis=-1)
    special = [Special(g.mask & has, g.hovertemplate, value=True) if g.value else g
               for g in special]
    common = np.isfinite(al.delta)
    special.append(Special(common & ~has, f"{_where(al)}<br>{DELTA_TITLE} "
                                          f"{delta_template(al, field)}<br>no items in common on "
                                          "both sides: no power to show"))
    places = paired_places(al)
    top = float(np.nanmax(mde)) if has.any() and np.nanmax(mde) > 0 else 1.0
    unit = paired_unit(al)
    drawn = TraceSpec(
        decimals=places, hovertemplate=present, colorscale=POWER_COLORSCALE,
        zrange=(0.0, top), texttemplate=f"%{{z:.{places}f}}", show_values=show_values,
        colorbar_title=POWER_TITLE + (f" ({unit.strip()})" if unit else ""),
        colorbar=scale_ticks(False, places, [(0.0, top)]), customdata_dtype="f8",
        scale=None)  # its own scale, whatever A and B are drawn with
    data = heatmap_traces(np.round(mde, places + 6), al.x.labels, al.y.labels, drawn,
                          customdata=customdata, special=tuple(special))
    # every paired cell has a hover group of its own, so the main trace may hold no value, and
    # plotly.js draws no colour bar for it: the first group's trace carries the bar then
    grouped = np.zeros(has.shape, dtype=bool)
    for group in special:
        grouped |= group.mask
    groups = [t for t in data[1:] if (t.get("meta") or {}).get("role") == "value"]
    if groups and not (has & ~grouped).any():
        groups[0].update(showscale=True, colorbar=data[0]["colorbar"])
        data[0]["showscale"] = False
    layout = _layout(al, f"{DELTA_TITLE}: power (mde)", right=20, every=every)
    layout["meta"] = style_meta(data, None)
    place_bar(layout, data)
    ny, nx = al.delta.shape
    layout["shapes"] = [_outline(int(i), int(j), ny, nx) for i, j in zip(*np.nonzero(al.outlined))]
    return {"data": data, "layout": layout}


def delta_figure(al: Alignment, *, show_values: bool = True,
                 values: tuple[str, str] | None = None, every: bool = False) -> dict:
    """B - A on a diverging scale centred at 0 (symmetric range); NaN where either is missing.
    ``values``: :func:`value_dtypes`, when the caller has them."""
    times = delta_scale(al)  # percentage points of fractions written as percent
    lo, hi = (v * times for v in delta_range(al))
    present, special, customdata = delta_hovers(al)
    pct = al.a.metric.percent
    places = al.decimals - al.a.metric.shift
    text = delta_template(al).removesuffix(paired_unit(al)) if pct else delta_template(al)
    drawn = TraceSpec(
        decimals=places, hovertemplate=present, colorscale=DELTA_COLORSCALE,
        zrange=(lo, hi), zmid=0, texttemplate=text, show_values=show_values,
        colorbar_title=DELTA_TITLE + (" (points)" if pct else "")
        + ("" if al.higher_is_better else " (blue: B better)"),
        colorbar=scale_ticks(False, places, [(lo, hi)]),
        reversescale=not al.higher_is_better,  # blue is always B better
        customdata_dtype=delta_data_dtype(al, customdata.shape[-1],
                                          values or value_dtypes(al)))
    delta = np.round(al.delta * times, max(places, 0) + 6) if pct else al.delta
    data = heatmap_traces(delta, al.x.labels, al.y.labels, drawn, customdata=customdata,
                          special=tuple(special))
    layout = _layout(al, DELTA_TITLE, right=20, every=every)
    layout["meta"] = style_meta(data, None)  # its own range, whatever A and B use
    place_bar(layout, data)
    ny, nx = al.delta.shape
    layout["shapes"] = [_outline(int(i), int(j), ny, nx) for i, j in zip(*np.nonzero(al.outlined))]
    return {"data": data, "layout": layout}


def compare_figures(al: Alignment, color: str, show_values: bool,
                    power: bool = False, every: bool = False) -> tuple[dict, ...]:
    """A, B and B − A (``power``: the power map, :func:`power_figure`, where cells were
    paired). ``every`` (``ticks=all``): each as tall as its rows a label high, a tick at every
    row and column (:func:`~evalmaps.figures.heatmap.panel_height`), and the three with the
    same margins (the widest colour bar's room), so that drawn at one width (at least
    :func:`~evalmaps.figures.heatmap.every_label_width`) their squares line up."""
    zrange = color_range(al, color)
    values = value_dtypes(al)
    third = (power_figure(al, show_values=show_values, every=every) if power and al.paired else
             delta_figure(al, show_values=show_values, values=values, every=every))
    figures = (side_figure(al, "a", zrange, show_values=show_values, dtype=values[0],
                           every=every),
               side_figure(al, "b", zrange, show_values=show_values, showscale=True,
                           dtype=values[1], every=every),
               third)
    if every:
        margins = [f["layout"].setdefault("margin", {}) for f in figures]
        for side in ("l", "r"):
            widest = max(int(m.get(side, 80)) for m in margins)
            for m in margins:
                m[side] = widest
    return figures


# --------------------------------------------------------------------------- the static site

def _browser_hover(present: str, special, customdata: np.ndarray | None,
                   z: np.ndarray) -> dict:
    """A map's hover as the static site's Compare page reads it: its ``templates`` (the
    present cells' first, then each :class:`Special` group's, as the live map's traces carry
    them), ``which`` template each cell takes (rows top to bottom), the values ``z`` the live
    map holds and the ``customdata`` they read (None where missing; customdata absent when the
    templates read none)."""
    templates = [present + "<extra></extra>"]
    which = np.zeros(z.shape, dtype=int)
    for group in special:
        if group.mask.any():
            templates.append(group.hovertemplate + "<extra></extra>")
            which[group.mask] = len(templates) - 1
    out = {"templates": templates, "which": which.tolist(),
           "z": [[None if v != v else float(v) for v in row] for row in z]}
    if customdata is not None:
        out["customdata"] = [[[None if v != v else float(v) for v in cell] for cell in row]
                             for row in customdata]
    return out


def browser_hovers(al: Alignment) -> dict:
    """The hover of A, B and B − A for the static site's Compare page (``a``, ``b``, ``delta``:
    :func:`_browser_hover`), made by the functions the live maps' hovers are made by
    (:func:`side_hovers`, :func:`delta_hovers`), so the site composes no hover text;
    ``colorscale``: the hover maps' (transparent, over the values). B − A's templates read the
    difference from a customdata column of its own (in shown units, as the live map's ``z``):
    the site's B − A map holds it in the values' own units (a fraction, not points), and its
    power switch recolours it by the mde while the hover keeps B − A."""
    out = {}
    for which in ("a", "b"):
        present, missing, customdata, groups, _ = side_hovers(al, which)
        grid = al.za if which == "a" else al.zb
        out[which] = _browser_hover(present, (Special(~np.isfinite(grid), missing), *groups),
                                    customdata, grid)
    columns = delta_hovers(al)[2].shape[-1]
    present, special, customdata = delta_hovers(al, f"customdata[{columns}]")
    customdata = np.concatenate([customdata, (al.delta * delta_scale(al))[..., None]], axis=-1)
    out["delta"] = _browser_hover(present, special, customdata, al.delta)
    out["colorscale"] = TRANSPARENT  # the hover's maps are drawn over the values, unseen
    return out
