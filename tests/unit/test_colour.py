"""Colour (issue 10): the default scale, cell-text contrast, the diverging scale in greyscale and
trend-line colours under colour-vision deficiencies. Every cell of every built-in figure is
checked, in both scales and every colour-range mode."""

from __future__ import annotations

import numpy as np
import pytest

from evalmaps.analysis.compare import align, default_pair, resolve
from evalmaps.analysis.slicing import COLOR_MODES, color_range, views_for
from evalmaps.figures import theme
from evalmaps.figures.compare import DELTA_COLORSCALE, compare_figures
from evalmaps.figures.heatmap import apply_scale, heatmap_figure, normalised
from evalmaps.figures.theme import colorscale_of
from evalmaps.figures.trends import DASHES, PALETTE, SYMBOLS, line_color, line_dash, line_symbol
from evalmaps.views.state import ViewState
from tests.plotly_render import decode

BUILT_IN = ["core-generalization", "short-to-long", "acemath-training-progress",
            "dynts-r1-llama-benchmarks", "dynts-llama-vs-qwen"]


def lab_lightness(rgb) -> float:
    """CIELAB L* (0-100) of an sRGB colour."""
    y = theme.luminance(rgb)
    return 116 * (y ** (1 / 3) if y > 216 / 24389 else (24389 / 27 * y + 16) / 116) - 16


def cells_and_ink(fig: dict):
    """(value, drawn cell colour, text colour) of every cell with text, as plotly.js draws it:
    the cell's colour from the value trace's scale and range, the text's from its trace."""
    main = fig["data"][0]
    stops, lo, hi = main["colorscale"], main["zmin"], main["zmax"]
    out = []
    for trace in fig["data"]:
        if (trace.get("meta") or {}).get("role") != "text":
            continue
        z = decode(trace["z"])
        for value in z[np.isfinite(z)]:
            t = float(normalised(np.array([value]), (lo, hi), main.get("zmid"))[0])
            out.append((float(value), theme.scale_rgb(stops, t),
                        theme.rgb_of(trace["textfont"]["color"])))
    return out


def all_browse_figures(catalog):
    for fid in BUILT_IN:
        figure = catalog.figure(fid)
        views, _ = views_for(figure, ViewState(fid))
        ranges = {mode: color_range(figure.spec, views, mode) for mode in COLOR_MODES}
        for view in views:
            for mode in COLOR_MODES:
                for scale in theme.SCALE_CHOICES:
                    yield (fid, view.panel.slug, mode, scale), view, heatmap_figure(
                        view, ranges[mode], ranges=ranges, scale=scale, color=mode)


def test_every_cell_text_contrasts_at_least_4_5_to_1(catalog):
    """WCAG AA for every cell of the five built-in figures, every panel, colour mode and
    scale (the issue found 100 of 192 AceMath cells and all 40 Llama vs Qwen cells under)."""
    checked, worst = 0, 21.0
    for key, view, fig in all_browse_figures(catalog):
        cells = cells_and_ink(fig)
        assert len(cells) == view.n_cells, key  # every reported cell has its text
        for value, cell, ink in cells:
            ratio = theme.contrast(cell, ink)
            worst = min(worst, ratio)
            assert ratio >= 4.5, (key, value, cell, ink, ratio)
        checked += len(cells)
    assert checked > 2000 and worst >= 4.5


def test_compare_maps_text_contrast_in_both_scales(catalog):
    a, b = default_pair(catalog)
    al = align(resolve(catalog, a, "A"), resolve(catalog, b, "B"))
    for mode in COLOR_MODES:
        for fig in compare_figures(al, mode, True):
            for scale in theme.SCALE_CHOICES:
                cells = cells_and_ink(apply_scale(fig, scale))
                assert len(cells) == int(np.isfinite(al.za).sum()) or len(cells) == int(
                    np.isfinite(al.delta).sum())
                assert min(theme.contrast(c, i) for _, c, i in cells) >= 4.5


def test_the_rule_picks_the_better_of_black_and_white():
    # a mid grey: white gives 3.9:1, black 5.3:1
    assert theme.text_color((128, 128, 128)) == theme.TEXT_DARK
    assert theme.text_color((68, 1, 84)) == theme.TEXT_LIGHT  # viridis' dark end
    assert theme.text_color((253, 231, 37)) == theme.TEXT_DARK  # its yellow end
    # the worst case of the better one, over every grey and every stop of the scales used
    greys = [(v, v, v) for v in range(256)]
    best = [max(theme.contrast(c, (0, 0, 0)), theme.contrast(c, (255, 255, 255))) for c in greys]
    assert min(best) >= 4.5
    assert all(theme.contrast(c, theme.rgb_of(theme.text_color(c))) == pytest.approx(b)
               for c, b in zip(greys, best))


def test_plotlys_auto_text_colour_would_fail():
    """Why the text is chosen here: plotly.js's own choice (#444 on light cells, by brightness
    over 128) gives under 4.5:1 on mid colours such as this viridis teal."""
    teal = theme.scale_rgb(colorscale_of("Viridis"), 0.5)
    brightness = (teal[0] * 299 + teal[1] * 587 + teal[2] * 114) / 1000
    plotly_ink = (0x44,) * 3 if brightness > 128 else (255, 255, 255)
    assert theme.contrast(teal, plotly_ink) < 4.5
    assert theme.contrast(teal, theme.rgb_of(theme.text_color(teal))) >= 4.5


def test_default_scale_lightness_rises_evenly():
    """Viridis: CIELAB L* rises monotonically end to end (no value looks like another in
    greyscale), unlike the four-benchmark figure's own scale (21 up to 63, back to 24)."""
    def lightness(scale):
        stops = colorscale_of(scale)
        return [lab_lightness(theme.scale_rgb(stops, t)) for t in np.linspace(0, 1, 101)]

    uniform = lightness(theme.UNIFORM_SCALE)
    assert all(b > a for a, b in zip(uniform, uniform[1:]))
    paper = lightness([list(s) for s in
                       [[0.0, "#08306b"], [0.35, "#2171b5"], [0.65, "#41ab5d"], [1.0, "#00441b"]]])
    assert not all(b > a for a, b in zip(paper, paper[1:]))  # the test can fail


def test_diverging_scale_lightness_falls_from_the_centre():
    """B − A in greyscale: L* highest at 0 and falling monotonically towards both ends."""
    stops = colorscale_of(DELTA_COLORSCALE)
    ts = np.linspace(0, 1, 201)
    light = [lab_lightness(theme.scale_rgb(stops, t)) for t in ts]
    centre = 100
    assert all(a <= b for a, b in zip(light[:centre], light[1:centre + 1]))  # rising to 0
    assert all(a >= b for a, b in zip(light[centre:], light[centre + 1:]))  # falling after
    assert light[centre] > 90 and light[0] < 30 and light[-1] < 30


def test_figures_keep_their_paper_colours_as_in_the_paper(catalog):
    for fid in BUILT_IN:
        figure = catalog.figure(fid)
        views, _ = views_for(figure, ViewState(fid, scale="paper"))
        fig = heatmap_figure(views[0], None, scale="paper")
        values = [t for t in fig["data"] if (t.get("meta") or {}).get("role") == "value"]
        assert [tuple(tuple(s) for s in t["colorscale"]) for t in values] == \
            [figure.spec.colorscale] * len(values)


# --------------------------------------------------------------------------- trend lines

# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB
CVD = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}


def _lab(rgb):
    lin = np.array([c / 255 for c in rgb])
    lin = np.where(lin <= 0.04045, lin / 12.92, ((lin + 0.055) / 1.055) ** 2.4)
    return _lab_linear(lin)


def _lab_linear(lin):
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ lin / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _seen(hex_color: str, matrix) -> np.ndarray:
    lin = np.array([c / 255 for c in theme.rgb_of(hex_color)])
    lin = np.where(lin <= 0.04045, lin / 12.92, ((lin + 0.055) / 1.055) ** 2.4)
    return _lab_linear(np.clip(np.array(matrix) @ lin, 0, 1))


def closest_pair(palette, matrix) -> float:
    seen = [_seen(c, matrix) for c in palette]
    return min(float(np.linalg.norm(seen[i] - seen[j]))
               for i in range(len(seen)) for j in range(i + 1, len(seen)))


@pytest.mark.parametrize("kind", [None, *CVD])
def test_trend_colours_stay_apart_under_colour_vision_deficiencies(kind):
    matrix = np.eye(3) if kind is None else CVD[kind]
    assert closest_pair(PALETTE, matrix) >= 12  # CIE76 ΔE between the two closest colours


def test_the_old_palette_would_fail():
    """Tableau 10 (the previous palette): types 3 and 5 (#e15759, #59a14f) merge under
    deuteranopia."""
    assert float(np.linalg.norm(_seen("#e15759", CVD["deuteranopia"])
                                - _seen("#59a14f", CVD["deuteranopia"]))) < 12


def test_twelve_lines_have_twelve_colours():
    """Pythia's eight models (70m and 12b shared one blue with seven colours) and up to a
    dozen lines: one colour each."""
    assert len(PALETTE) == len(set(PALETTE)) == 12
    assert [line_color(k) for k in range(12)] == list(PALETTE)
    assert line_color(12) == line_color(0)


def test_lines_differ_by_more_than_colour():
    styles = [(line_color(k), line_dash(k), line_symbol(k)) for k in range(420)]
    assert len(set(styles)) == 420
    for k in range(1, 420):  # neighbouring lines never share a dash or a marker
        assert line_dash(k) != line_dash(k - 1) and line_symbol(k) != line_symbol(k - 1)
    assert len(DASHES) > 1 and len(SYMBOLS) > 1


# --------------------------------------------------------------------------- the URL key

def test_scale_is_kept_in_the_url(catalog):
    from evalmaps.views.state import CompareState, parse_compare_state, parse_state
    fid = "dynts-llama-vs-qwen"
    state = parse_state({"figure": fid, "scale": "paper"}, catalog)
    assert (state.scale, state.problems) == ("paper", ())
    assert state.to_query() == f"?figure={fid}&scale=paper"
    assert ViewState(fid).to_query() == f"?figure={fid}"  # the default is left out
    bad = parse_state({"figure": fid, "scale": "rainbow"}, catalog)
    assert (bad.scale, bad.problems) == ("uniform", (
        "Colour scale 'rainbow' is unknown (uniform or paper); using the uniform scale.",))
    compare = parse_compare_state({"scale": "paper"}, catalog)
    assert compare.scale == "paper" and compare.to_query(default_pair(catalog)) == "?scale=paper"
    assert CompareState("x", "y").to_query(("x", "y")) == ""


def one_cell_figure(value: str, metric_name: str, metric_range):
    from evalmaps.catalog.imports import figure_of, import_bytes
    from evalmaps.readers.base import ImportOptions

    csv = f"model,task,value\nopenai/gpt-4o,mmlu,{value}\n".encode()
    options = ImportOptions(format="tidy", x="task", y="model", metric=metric_name, unit="",
                            metric_range=metric_range)
    return figure_of(import_bytes(csv, "one.csv", options)[0])


@pytest.mark.parametrize("value", ["0.0", "0.4", "1.0"])
def test_one_value_of_a_metric_with_a_range_is_coloured_on_that_range(value):
    """One uploaded Inspect log: one cell, an accuracy, and a colour bar from -0.5 to 0.5 (the
    value +- 0.5). A metric with a range colours by it when there is one value only, in every
    colour mode."""
    from evalmaps.analysis.slicing import view_ranges

    figure = one_cell_figure(value, "accuracy", (0.0, 1.0))
    views, _ = views_for(figure, ViewState(figure.id))
    (ranges,) = view_ranges(figure.spec, views)
    assert ranges == {mode: (0.0, 1.0) for mode in COLOR_MODES}
    fig = heatmap_figure(views[0], ranges["figure"], ranges=ranges)
    assert (fig["data"][0]["zmin"], fig["data"][0]["zmax"]) == (0.0, 1.0)
    assert fig["layout"]["meta"]["evalmaps"]["ranges"]["figure"] == [0.0, 1.0]


def test_one_value_without_a_metric_range_keeps_a_range_around_it():
    from evalmaps.analysis.slicing import view_ranges

    figure = one_cell_figure("12.5", "perplexity", None)
    views, _ = views_for(figure, ViewState(figure.id))
    (ranges,) = view_ranges(figure.spec, views)
    assert ranges == {mode: (12.0, 13.0) for mode in COLOR_MODES}  # the value +- 0.5
    fig = heatmap_figure(views[0], None, ranges=ranges)
    assert (fig["data"][0]["zmin"], fig["data"][0]["zmax"]) == (12.0, 13.0)


def two_model_figure():
    """Two panels of fractions on different spans, as an import of two models gives (issue 37:
    O1-Mini over 0.31-1, O1-Preview over 0-0.96), and no colour range of the figure's own."""
    from evalmaps.catalog.imports import figure_of, import_bytes
    from evalmaps.readers.base import ImportOptions

    rows = [("O1-Mini", "a", "x", 0.31), ("O1-Mini", "a", "y", 1.0), ("O1-Mini", "b", "x", 0.5),
            ("O1-Preview", "a", "x", 0.0), ("O1-Preview", "a", "y", 0.96),
            ("O1-Preview", "b", "x", 0.4)]
    csv = "model,task,split,value\n" + "".join(f"{m},{t},{s},{v}\n" for m, t, s, v in rows)
    options = ImportOptions(format="tidy", x="split", y="task", metric="accuracy", unit="",
                            metric_range=None)
    return figure_of(import_bytes(csv.encode(), "two.csv", options)[0])


def test_panels_of_one_figure_share_one_colour_range_by_default(catalog):
    """Issue 37 (a new user, 6): by default every panel of a figure is coloured on one range
    (the catalog's own zrange where it gives one, else the range of the panels shown); each panel
    on its own range only when asked (color=panel), and every mode a URL names still works."""
    from evalmaps.analysis.slicing import view_ranges
    from evalmaps.views.state import parse_state

    figure = two_model_figure()
    assert figure.spec.zrange is None and len(figure.panels) == 2
    state = ViewState(figure.id)
    assert state.color == "figure" and "color" not in state.to_query()
    views, _ = views_for(figure, state)
    ranges = view_ranges(figure.spec, views)
    assert [r["figure"] for r in ranges] == [(0.0, 1.0), (0.0, 1.0)]
    assert [r["shared"] for r in ranges] == [(0.0, 1.0), (0.0, 1.0)]
    # asked otherwise: each panel its own extent, written out for the browser to switch to
    assert [r["panel"] for r in ranges] == [(0.31, 1.0), (0.0, 0.96)]
    drawn = heatmap_figure(views[0], ranges[0]["figure"], ranges=ranges[0], color="figure")
    assert drawn["layout"]["meta"]["evalmaps"]["ranges"]["panel"] == [0.31, 1.0]
    # a built-in figure with a range of its own keeps it
    dynts = catalog.figure("dynts-llama-vs-qwen")
    own = view_ranges(dynts.spec, views_for(dynts, ViewState(dynts.id))[0])
    assert {r["figure"] for r in own} == {(49, 57)}
    # URLs that name a mode keep it
    for mode in COLOR_MODES:
        parsed = parse_state({"figure": "dynts-llama-vs-qwen", "color": mode}, catalog)
        assert parsed.color == mode and not parsed.problems


def test_a_log_colour_range_of_one_value_spans_a_decade_and_holds_a_tick():
    """One perplexity of 605.5 is given the range 605.05-606.05 (the value +- 0.5), which on a
    log scale holds no tick of the colour bar (200, 500, 1000 fell outside it): a log range
    narrower than a tenth of a decade is widened to half a decade either side."""
    import math

    from evalmaps.analysis.slicing import log_range

    figure = one_cell_figure("605.5", "perplexity", None)
    views, _ = views_for(figure, ViewState(figure.id))
    lo, hi = log_range(views[0], (605.0, 606.0))
    assert hi - lo == pytest.approx(1.0) and lo < math.log10(500) < hi
    assert log_range(views[0], (100.0, 1000.0)) == (2.0, 3.0)
