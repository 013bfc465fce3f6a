"""Trends on one's own results (issue "Own results, end to end"): Pythia's lm-eval sweep, built
in and imported (model labels 'EleutherAI/pythia-v1.1-<size>', steps 0..143000, fractions).
The axis over training steps (log x, its rule and its ticks), the threshold on the metric's own
scale, differences in the metric's terms, labels without their shared prefix, one colour per
line, one number of decimals per table column."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import parse_qs

from components.trends import PALETTE, line_figure
from evalmaps.analysis.slicing import views_for
from evalmaps.core.figure import Figure
from evalmaps.views.state import parse_state

PYTHIA = "pythia-zero-shot"
SIZES = ("70m", "160m", "410m", "1b-bf16", "1.4b", "2.8b", "6.9b", "12b")
STEPS = ("0", "1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1000", "3000",
         "13000", "23000", "33000", "43000", "53000", "63000", "73000", "83000", "93000",
         "103000", "113000", "123000", "133000", "143000")
PREFIX = "EleutherAI/pythia-v1.1-"


def pythia_views(catalog, query: str = "", figure: Figure | None = None):
    """The views /trends?figure=pythia-zero-shot&<query> shows (one panel: arc_challenge, acc)."""
    figure = figure or catalog.figure(PYTHIA)
    views, empty = views_for(figure, parse_state({"figure": figure.id, **parse_qs(query)},
                                                 catalog))
    assert empty is None
    return views


def imported(catalog) -> Figure:
    """The built-in Pythia figure as an import names its models: 'EleutherAI/pythia-v1.1-70m'."""
    figure = catalog.figure(PYTHIA)
    spec = figure.spec
    model = spec.dims["model"]
    renamed = replace(model, labels=tuple(PREFIX + label for label in model.labels))
    return replace(figure, spec=replace(spec, dims={**spec.dims, "model": renamed}))


# --------------------------------------------------------------------------- colours

def test_pythia_draws_eight_lines_in_eight_colours(catalog):
    (view,) = pythia_views(catalog)
    lines = [t for t in line_figure([view])["data"] if t.get("mode") == "lines+markers"]
    colours = {t["name"]: t["line"]["color"] for t in lines}
    assert list(colours) == list(SIZES)
    assert list(colours.values()) == list(PALETTE[:8])  # 70m and 12b shared one blue
