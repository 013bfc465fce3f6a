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
