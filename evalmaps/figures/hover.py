"""The hover text of every map, written once: the words of a cell as a Plotly hover template
('Type %{y} · Length %{x} · Accuracy %{z:.1f}% ± %{customdata[0]:.2f} se'), which the browser
fills from the cell's numbers (its value, and its sd, n and se as ``customdata``), so no per-cell
string is built or sent. The Dash pages' figures and the static bundle's data take them from
here.
"""

from __future__ import annotations

from evalmaps.analysis.slicing import PanelView
from evalmaps.core import text as fmt
from evalmaps.figures import theme


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


def uncertainty_text(decimals: int, columns: dict[str, int], *, sd: bool, n: bool, se: bool,
                     suspect: bool = False, metric=None) -> str:
    """The hover's uncertainty after a value: ' ± %{customdata[2]:.2f} se', ' ± 1.2 sd (n=3)'
    (``columns``: each quantity's place in customdata); ``suspect``: a standard error of 0 that
    cannot be right (see evalmaps.analysis.uncertainty), flagged where it is shown. A metric written as
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


def uncertainty_decimals(decimals: int, names: tuple[str, ...], metric=None) -> tuple[int, ...]:
    """The decimals (in the values' own units) :func:`uncertainty_text` prints each customdata
    column at, for the columns ``names`` ('sd', 'n', 'se', in customdata's order)."""
    shift = 2 if metric is not None and getattr(metric, "percent", False) else 0
    printed = {"se": max(fmt.se_places(decimals) - shift, 0) + shift,
               "sd": max(max(fmt.places(decimals), 1) - shift, 0) + shift, "n": 0}
    return tuple(printed[name] for name in names)


def hover_value(hovertemplate: str, cell_text: str) -> str:
    """The value as the hover writes it, with its unit ('%{z:.1f}%', '%{z:.1f} ms'): the hover
    template from the cell-text template on, up to what follows the value (' ± ...', ' (mean
    ...', a line break). The browser's table and keyboard readout format values with it."""
    at = hovertemplate.find(cell_text)
    if at < 0:
        return cell_text
    rest = hovertemplate[at:]
    ends = [k for k in (rest.find(s, len(cell_text)) for s in (" ±", " (", "<br>", "<extra>"))
            if k >= 0]
    return rest[:min(ends)] if ends else rest


def cell_hover(spec, facets: dict, metric, decimals: int, columns: dict[str, int] | None = None,
               *, log: bool = False, sd: bool = False, n: bool = False, se: bool = False,
               suspect: bool = False) -> str:
    """A present cell's hover, the one wording of every Browse map (the live pages' and the
    static site's): 'Type %{y} · Length %{x} · Accuracy %{z:.1f}%', with ' ± %{customdata[k]}
    se' (flagged when ``suspect``), ' ± ... sd', ' (n=...)' where the cell has them (``columns``:
    each one's place in customdata), ' (lower is better)', then the panel's ``facets`` and the
    illustrative flag. ``metric``: as its values are written (percent or not); ``log``: coloured
    by log10, the value read from ``%{text}``."""
    value = value_template(metric, decimals, field="text" if log else "z")
    extra = uncertainty_text(decimals, columns or {}, sd=sd, n=n, se=se, suspect=suspect,
                             metric=metric)
    return _where(spec, metric) + value + extra + _after(spec, facets, metric)


def missing_hover(spec, facets: dict, metric) -> str:
    """The hover of a cell the source does not report: '... · Accuracy not reported'."""
    return _where(spec, metric) + fmt.NOT_REPORTED + _after(spec, facets, metric)


def _where(spec, metric) -> str:
    return (f"{theme.text(spec.dims[spec.y].title)} %{{y}} · "
            f"{theme.text(spec.dims[spec.x].title)} %{{x}} · {theme.text(metric.name)} ")


def _after(spec, facets: dict, metric) -> str:
    tail = facets_tail(spec, facets)
    return tail if metric.higher_is_better else " (lower is better)" + tail


def facets_tail(spec, facets: dict) -> str:
    """What every hover of a panel ends with: its facets, and the illustrative flag."""
    tail = ""
    facet_line = " · ".join(f"{theme.text(spec.dims[f].title)} {theme.text(v)}"
                            for f, v in facets.items())
    if facet_line:
        tail += "<br>" + facet_line
    if spec.illustrative:
        tail += "<br>" + theme.ILLUSTRATIVE_HOVER
    return tail


def hover_template(view: PanelView, columns: dict[str, int] | None = None, *, sd: bool = False,
                   n: bool = False, se: bool = False, suspect: bool = False) -> tuple[str, str]:
    """(present, missing) hover templates of a view's cells (:func:`cell_hover`,
    :func:`missing_hover`), its metric as shown."""
    facets = view.panel.facets
    return (cell_hover(view.spec, facets, view.shown, view.decimals, columns,
                       log=view.log_scale, sd=sd, n=n, se=se, suspect=suspect),
            missing_hover(view.spec, facets, view.shown))


def hover_tail(view: PanelView) -> str:
    """What every hover of a view's panel ends with (:func:`facets_tail`)."""
    return facets_tail(view.spec, view.panel.facets)


KINDS = ("sd", "n", "se", "suspect")  # what a cell's hover may add, in the key's order


def kind_key(sd: bool, n: bool, se: bool, suspect: bool) -> str:
    """The name of a cell's kind of hover, 'true,false,true,false' (sd, n, se, and a suspect
    se): the static site's pages read a cell's template by it (bundle.js joins the same flags)."""
    return ",".join("true" if flag else "false" for flag in (sd, n, se, suspect and se))


def panel_hovers(spec, facets: dict, metric, decimals: int, columns: dict[str, int],
                 kinds) -> dict:
    """A panel's hover templates for the static site's data, so that its pages compose no hover
    text: ``cells``, by :func:`kind_key`, each kind's [template, template coloured by log10];
    ``missing``; and the value as the hover writes it (``value``, ``logValue``: the cell text of
    a percent and the keyboard readout's). ``kinds``: the (sd, n, se, suspect) flags of the
    panel's cells; the kind of a cell with all of ``columns`` is always there."""
    full = ("sd" in columns, "n" in columns, "se" in columns, False)
    cells = {}
    for kind in (full, *kinds):
        key = kind_key(*kind)
        if key not in cells:
            flags = dict(zip(KINDS, kind))
            cells[key] = [cell_hover(spec, facets, metric, decimals, columns, log=log, **flags)
                          for log in (False, True)]
    return {"cells": cells, "missing": missing_hover(spec, facets, metric),
            "value": value_template(metric, decimals),
            "logValue": value_template(metric, decimals, field="text")}
