"""A figure in a Jupyter notebook: its panels as the heatmaps Browse draws, through the
notebook's rich display (Plotly's ``application/vnd.plotly.v1+json``, which JupyterLab, VS Code
and nbconvert render), with the cells' table as the plain-text fallback.

``evalmaps.read(...)`` returns :class:`evalmaps.service.api.Results`, whose
``_ipython_display_`` names this module by string (as ``evalmaps serve`` names the web app):
the domain package never imports ``components``. ``evalmaps.compare(...)`` returns a
:class:`evalmaps.service.api.ComparisonFrame`, shown as Compare's three maps (A, B and B − A,
on one colour range, outlined where distinguishable) above its table.
"""

from __future__ import annotations

from evalmaps.analysis.slicing import view_ranges, views_for
from evalmaps.figures.compare import compare_figures
from evalmaps.figures.heatmap import heatmap_figure
from evalmaps.views.state import DEFAULT_COMPARE_COLOR, ViewState

PLOTLY_MIME = "application/vnd.plotly.v1+json"
MAX_PANELS = 12  # a notebook cell of heatmaps; Browse (evalmaps.show) has the rest


def panel_figures(figure, max_panels: int = MAX_PANELS) -> list[dict]:
    """The first ``max_panels`` panels of ``figure`` as Browse draws them (the figure's colour
    range, values printed), as Plotly figure dicts."""
    views, empty = views_for(figure, ViewState(figure.id))
    if empty:
        return []
    views = views[:max_panels]
    ranges = view_ranges(figure.spec, views)
    return [heatmap_figure(view, r["figure"], ranges=r, color="figure")
            for view, r in zip(views, ranges)]


def display_figure(results) -> None:
    """Show ``results`` (:class:`evalmaps.service.api.Results`) in the notebook: a line that
    says what it is, then each panel's heatmap."""
    from IPython.display import display

    figures = panel_figures(results.figure)
    display({"text/plain": repr(results)}, raw=True)
    for fig in figures:
        display({PLOTLY_MIME: fig, "text/plain": fig["layout"].get("title", {}).get("text", "")},
                raw=True)
    more = len(results.figure.panels) - len(figures)
    if more > 0:
        display({"text/plain": f"… and {more} more panels: evalmaps.show(...) opens them all."},
                raw=True)


def display_comparison(made, frame) -> None:
    """Show a comparison (:class:`evalmaps.service.api.Comparison` and its rows) in the
    notebook: its sentences, the A, B and B − A maps as Compare draws them (a range shared by A
    and B, values printed), then the table."""
    from IPython.display import display

    view = made.view
    display({"text/plain": "\n".join(view.to_dict()["sentences"])}, raw=True)
    for fig in compare_figures(view.alignment, DEFAULT_COMPARE_COLOR, True):
        display({PLOTLY_MIME: fig,
                 "text/plain": fig["layout"].get("title", {}).get("text", "")}, raw=True)
    display(frame)
