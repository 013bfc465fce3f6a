"""The Rank page's figures and texts (issue 38), from ``/api/rank``'s answer
(``RankView.to_dict()``), as plain Plotly dicts and rows (pure: no Dash; the page takes them
from :mod:`components.rank`): the model x model map of B − A per cell, the "where"
map (cells x models, coloured by rank), the ranking table's rows and its CSV, and the sentences
per model.

Every number comes from the answer as it is and is written by :mod:`evalmaps.core.text`: the
numbers of a pair square's hover are written here, on the server (so it reads exactly the
JSON's numbers, in the figure's units), and travel as the square's ``customdata``, its words
once in the cell's hover template; the address of that pair in Compare is made in the browser
from the map's layout (assets/evalmaps-rank.js); the maps are drawn by the one heatmap builder
(:func:`evalmaps.figures.heatmap.heatmap_traces`), so they look, hover and read by keyboard
like every other map. Squares are outlined as Compare outlines cells
(:func:`evalmaps.figures.compare.cell_box`: fixed axis ranges, cell j spanning j/nx..(j+1)/nx
of the axis).
"""

from __future__ import annotations

import math
from urllib.parse import quote_plus, urlencode

import numpy as np

from evalmaps.analysis.compare import ONE_ROW, CompareError, label_grid, label_ref
from evalmaps.core import text as fmt
from evalmaps.core.figure import Figure
from evalmaps.core.labels import label_prefix, without_prefix
from evalmaps.figures import theme
from evalmaps.figures.heatmap import (
    Special,
    TraceSpec,
    heatmap_layout,
    heatmap_traces,
    left_margin,
    panel_height,
    place_bar,
    style_meta,
    tick_label,
)

DELTA_SCALE = "RdBu"  # as Compare's B − A: red, B lower; blue, B higher
RANK_SCALE = "Viridis"
DISTINCT_COLOR = "#111827"
BEST_COLOR = "#111827"
TEST_NAMES = {
    "mcnemar": "exact McNemar test",
    "sign-flip": "exact sign-flip permutation test",
    "sign-flip-normal": "sign-flip permutation test (normal approximation)",
    "unpaired-z": "unpaired z-test of the source's standard errors",
    "clustered": "Wald test on the clustered standard error (Student's t, clusters − 1 df)",
    "none": "no test",
}
SQUARE_PX = 34  # a pair square's width when the map is wider than the page (it scrolls)
MIN_MAP_PX = 300
COLORBAR_PX = 110  # the most a map's colour bar and its title take (its right margin)


def test_name(code) -> str:
    """A test's name as the page writes it ('exact McNemar test ...'); unknown codes as given."""
    if code is None:
        return "no test"
    return TEST_NAMES.get(str(code), str(code))


def p_text(p) -> str:
    """A p value as Compare writes it ('0.00091', '1'); a missing one '—'."""
    return f"{p:.2g}" if fmt.finite(p) else fmt.DASH


def diff_places(figure: Figure, facets: dict) -> int:
    """The decimals of a difference, as Compare writes a paired one: the figure's, at most 3
    (at most 1 for a percentage)."""
    metric = figure.spec.metric_for(facets)
    shown = fmt.shown(metric, 0.0, figure.decimals_for(facets))[1]
    return min(fmt.places(shown), 1 if metric.unit == "%" else 3)


def model_order(labels) -> list[str]:
    """Models in natural order (sizes by size: 70m, 160m, 1b, 1.4b, 12b)."""
    return sorted(labels, key=fmt.natural_key)


def varying(cells: list[dict]) -> list[str]:
    """The dimensions whose label differs between the answer's cells (the ones that name a
    cell); none differ (one cell): all of them."""
    dims = list(cells[0]["labels"]) if cells else []
    moving = [d for d in dims if len({str(c["labels"].get(d)) for c in cells}) > 1]
    return moving or dims


def cell_name(cell: dict, dims: list[str]) -> str:
    """A cell as the page names it: its labels of ``dims``, joined ('biology', 'acc · 143000')."""
    return " · ".join(str(cell["labels"][d]) for d in dims) or "all"


def cell_title(figure: Figure, cell: dict) -> str:
    """A cell with every label and its dimension ('Category biology · Metric accuracy')."""
    spec = figure.spec
    return " · ".join(f"{spec.dims[d].title if d in spec.dims else d} {label}"
                      for d, label in cell["labels"].items()) or "All"


def plural(word: str, n: int) -> str:
    if n == 1:
        return word
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


# --------------------------------------------------------------------------- Compare's address

URL_SAFE = ":(),=/|"  # left as they are in Compare's addresses (labels, cells)


class CompareLinks:
    """The Compare addresses of one cell's pairs: models ``a`` and ``b`` (labels of ``by``) on
    the cell ``labels`` (its other dimensions' labels), with that cell's items open:
    ``a=<figure>:<by>=<a>``, the grid Compare draws two labels on by default (``grid``:
    :func:`compare_grid`, when the caller has it), the dimensions off the grid fixed at the
    cell's labels and ``cell=<row label>|<column label>``; '' where Compare cannot lay the two
    out. The fixed part is written once: a map of 50 models has 2,450 squares."""

    def __init__(self, figure: Figure, by: str, labels: dict, k: int = 1, grid=None) -> None:
        spec = figure.spec
        self.grid = grid or compare_grid(figure, by)
        self.figure_id, self.by = figure.id, by
        self.refs: dict[str, str] = {}
        if self.grid is None:
            return
        on_grid = {self.grid.x} | ({self.grid.y} if self.grid.y != ONE_ROW else set())
        rest = [(dim, str(label)) for dim, label in labels.items()
                if dim not in on_grid and dim != by and len(spec.dims[dim].labels) > 1]
        if k != 1:
            rest.append(("k", str(k)))
        row = ONE_ROW if self.grid.y == ONE_ROW else str(labels.get(self.grid.y, ""))
        rest.append(("cell", f"{row}|{labels.get(self.grid.x, '')}"))
        self.rest = urlencode(rest, safe=URL_SAFE)

    def ref(self, model: str) -> str:
        if model not in self.refs:
            self.refs[model] = quote_plus(label_ref(self.figure_id, self.by, model),
                                          safe=URL_SAFE)
        return self.refs[model]

    def href(self, a: str, b: str) -> str:
        if self.grid is None:
            return ""
        return f"/compare?a={self.ref(a)}&b={self.ref(b)}&{self.rest}"


def compare_grid(figure: Figure, by: str):
    """The grid Compare draws two labels of ``by`` on by default; None where it has none."""
    try:
        return label_grid(figure.spec, by)
    except CompareError:
        return None


# --------------------------------------------------------------------------- the pair map

def oriented(pair: dict, row: str) -> dict:
    """A pair as seen from ``row`` (A, the map's row): B − A, its interval and who was right
    alone, negated and swapped when the answer holds it the other way round; the p values as
    they are (a two-sided test does not care)."""
    if pair["a"] == row:
        return pair
    def neg(v):
        return -v if fmt.finite(v) else v

    return {**pair, "a": pair["b"], "b": pair["a"], "diff": neg(pair.get("diff")),
            "a_mean": pair.get("b_mean"), "b_mean": pair.get("a_mean"),
            "only_in_a": pair.get("only_in_b"), "only_in_b": pair.get("only_in_a"),
            "ci_low": neg(pair.get("ci_high")), "ci_high": neg(pair.get("ci_low")),
            "a_only": pair.get("b_only"), "b_only": pair.get("a_only")}


class PairText:
    """How one cell's squares write their hovers: its metric, decimals and title worked out
    once, each mean written once (every number by :mod:`evalmaps.core.text`)."""

    def __init__(self, figure: Figure, cell: dict, alpha: float) -> None:
        facets = cell["labels"]
        self.metric = figure.spec.metric_for(facets)
        self.decimals = figure.decimals_for(facets)
        self.places = diff_places(figure, facets)
        unit = fmt.difference_unit(self.metric)
        self.unit = f" {unit}" if unit else ""
        self.title = theme.text(cell_title(figure, cell))
        self.alpha = alpha
        self.means = {m["model"]: m["mean"] for m in cell["models"]}
        self.written: dict[float, str] = {}
        self.differences: dict[float, str] = {}
        self.factor = fmt.shown(self.metric, 1.0, self.decimals)[0]  # percent: 100
        self.names: dict[str, str] = {}

    def mean(self, v) -> str:
        if not fmt.finite(v):
            return fmt.DASH
        if v not in self.written:
            self.written[v] = fmt.mean(self.metric, v, self.decimals)
        return self.written[v]

    def signed(self, v) -> str:
        """A difference as ``fmt.signed(fmt.shown(metric, v, decimals)[0], places)`` writes it
        ('+0.012', '-0.012', '0.000': a zero, or a negative written as zero, unsigned), made
        here at a fifth of the cost (a map of 50 models writes 7,350 of them; the unit tests
        hold the two equal)."""
        if v is None or not math.isfinite(v):
            return fmt.DASH
        found = self.differences.get(v)
        if found is None:
            text = f"{v * self.factor:.{self.places}f}"
            if text[0] == "-":
                found = text if text.strip("-0.") else text[1:]
            else:
                found = "+" + text if text.strip("0.") else text
            self.differences[v] = found
        return found

    def name(self, model: str) -> str:
        if model not in self.names:
            self.names[model] = theme.text(model)
        return self.names[model]


def pair_hover(text: PairText, pair: dict) -> str:
    """The hover of one square (row A, column B), every number the answer's: both means, B − A
    with its interval, n, a_only, b_only, the test and both p values."""
    a, b = pair["a"], pair["b"]
    lines = [f"A {text.name(a)} · B {text.name(b)}", text.title,
             f"mean A {text.mean(pair.get('a_mean', text.means.get(a)))} · "
             f"mean B {text.mean(pair.get('b_mean', text.means.get(b)))}"]
    diff = f"B {fmt.MINUS} A {text.signed(pair.get('diff'))}{text.unit}"
    if fmt.finite(pair.get("ci_low")) and fmt.finite(pair.get("ci_high")):
        diff += f" [{text.signed(pair['ci_low'])}, {text.signed(pair['ci_high'])}]"
    lines.append(diff + (f" · n {pair['n']:,} items" if pair.get("n") is not None else ""))
    if pair.get("a_only") is not None and pair.get("b_only") is not None:
        lines.append(f"only A right {pair['a_only']:,} · only B right {pair['b_only']:,}")
    one_side = [f"only in {side} {pair[f'only_in_{side.lower()}']:,}" for side in ("A", "B")
                if pair.get(f"only_in_{side.lower()}")]
    if one_side:
        lines.append(" · ".join(one_side) + " (not in the test)")
    test = pair.get("test")
    if test in (None, "none") or not fmt.finite(pair.get("p")):
        lines.append("no test: " + ("fewer common items than a test needs"
                                    if pair.get("n") else "no items or standard errors to test"))
    else:
        lines.append(f"{test_name(test)}: p {p_text(pair.get('p'))} · "
                     f"BH-adjusted p {p_text(pair.get('p_adjusted'))}")
        lines.append("distinguishable" if distinguishable(pair, text.alpha)
                     else f"not distinguishable (adjusted p ≥ {text.alpha:g})")
    return "<br>".join(lines)


def distinguishable(pair: dict, alpha: float) -> bool:
    if "distinguishable" in pair:
        return bool(pair["distinguishable"])
    p = pair.get("p_adjusted")
    return fmt.finite(p) and p < alpha


def pair_template(text: PairText, test: str | None) -> str:
    """The hover template of a cell's squares (with :func:`pair_data` each writes exactly what
    :func:`pair_hover` writes). ``test``: the one test every drawn pair of the cell had, each
    with its p values, n and counts (the usual cell): the words are in the template, once, and
    a square's customdata holds its names and numbers (the names as written, not ``%{x}``,
    which plotly.js writes as the axis's tick, without the labels' common start); None: a
    square's ``customdata[0]`` holds its whole hover."""
    if test is None:
        return "%{customdata[0]}"
    unit = text.unit.replace("%{", "&#37;{")
    return (f"A %{{customdata[0]}} · B %{{customdata[1]}}<br>{text.title}<br>"
            "mean A %{customdata[2]} · mean B %{customdata[3]}<br>"
            f"B {fmt.MINUS} A %{{customdata[4]}}{unit}%{{customdata[5]}} · "
            "n %{customdata[6]:,.0f} items<br>"
            "only A right %{customdata[7]:,.0f} · only B right %{customdata[8]:,.0f}<br>"
            f"{test_name(test)}: p %{{customdata[9]}} · BH-adjusted p %{{customdata[10]}}<br>"
            "%{customdata[11]}")


def uniform_test(pairs: list[dict]) -> str | None:
    """The test every pair had, where each has its p values, n and the counts of items one
    side alone had right, and no item only one side answered: the cell's squares then share
    :func:`pair_template`'s words. None otherwise."""
    tests = {p.get("test") for p in pairs}
    if len(tests) != 1:
        return None
    (test,) = tests
    if test in (None, "none"):
        return None
    for p in pairs:
        if (not fmt.finite(p.get("p")) or p.get("n") is None or p.get("a_only") is None
                or p.get("b_only") is None or p.get("only_in_a") or p.get("only_in_b")):
            return None
    return test


def pair_data(text: PairText, pairs: list[dict], test: str | None) -> list[tuple[list, list]]:
    """The customdata of each pair's two squares, (row A, column B) and (row B, column A), under
    :func:`pair_template` of ``test``: every number written by :mod:`evalmaps.core.text` as
    :func:`pair_hover` writes it (its integers formatted by the template). One cell's pairs at
    once: a map of 50 models has 2,450 squares."""
    if test is None:
        return [([pair_hover(text, pair)], [pair_hover(text, oriented(pair, pair["b"]))])
                for pair in pairs]
    signed, mean, means, name = text.signed, text.mean, text.means, text.name
    yes, no = "distinguishable", f"not distinguishable (adjusted p ≥ {text.alpha:g})"
    out = []
    for pair in pairs:
        a_mean = mean(pair.get("a_mean", means.get(pair["a"])))
        b_mean = mean(pair.get("b_mean", means.get(pair["b"])))
        diff, low, high = pair.get("diff"), pair.get("ci_low"), pair.get("ci_high")
        p, adjusted = p_text(pair.get("p")), p_text(pair.get("p_adjusted"))
        said = yes if distinguishable(pair, text.alpha) else no
        n, a_only, b_only = pair["n"], pair["a_only"], pair["b_only"]
        if fmt.finite(low) and fmt.finite(high):
            ci, back_ci = f" [{signed(low)}, {signed(high)}]", f" [{signed(-high)}, {signed(-low)}]"
        else:
            ci = back_ci = ""
        a, b = name(pair["a"]), name(pair["b"])
        out.append(([a, b, a_mean, b_mean, signed(diff), ci, n, a_only, b_only, p, adjusted,
                     said],
                    [b, a, b_mean, a_mean, signed(-diff if fmt.finite(diff) else diff), back_ci,
                     n, b_only, a_only, p, adjusted, said]))
    return out


def pair_figure(figure: Figure, answer: dict, cell: dict, models: list[str], k: int = 1,
                heading: str = "") -> dict:
    """A cell's model x model map of B − A (row A, column B), on a diverging scale centred at
    0 (blue: B better), the distinguishable squares outlined. Each square's hover is the
    cell's one template (:func:`pair_template`) filled with the square's numbers (its
    customdata, :func:`pair_data`), so 2,450 squares do not each carry their words; the
    Compare address of square (i, j) is made in the browser from the layout's
    ``meta.evalmaps.rank.compare`` (``/compare?a=<refs[i]>&b=<refs[j]>&<rest>``, as
    :class:`CompareLinks` writes it; None where Compare cannot lay the two out)."""
    by, alpha = answer["by"], answer.get("alpha", 0.05)
    facets = cell["labels"]
    metric = figure.spec.metric_for(facets)
    decimals = figure.decimals_for(facets)
    places = diff_places(figure, facets)
    text = PairText(figure, cell, alpha)
    links = CompareLinks(figure, by, facets, k)
    at = {m: i for i, m in enumerate(models)}
    n = len(models)
    z = np.full((n, n), np.nan)
    drawn, outlined = [], []
    for pair in cell["pairs"]:
        i, j = at.get(pair["a"]), at.get(pair["b"])
        if i is None or j is None:
            continue
        if fmt.finite(pair.get("diff")) and pair.get("n") != 0:
            value = fmt.shown(metric, pair["diff"], decimals)[0]
            z[i, j], z[j, i] = value, -value
            drawn.append((i, j, pair))
        if distinguishable(pair, alpha):
            outlined += [(i, j), (j, i)]
    test = uniform_test([pair for _, _, pair in drawn])
    customdata: list[list] = [[None] * n for _ in range(n)]
    # a square without a value has the hover of its group (Special)
    for (i, j, _), (there, back) in zip(drawn, pair_data(text, [d[2] for d in drawn], test)):
        customdata[i][j], customdata[j][i] = there, back
    bound = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
    bound = bound or 1.0
    same = np.eye(n, dtype=bool)
    missing = ~np.isfinite(z) & ~same
    higher = metric.higher_is_better
    spec = TraceSpec(
        decimals=places, hovertemplate=pair_template(text, test), colorscale=DELTA_SCALE,
        zrange=(-bound, bound), zmid=0, texttemplate=f"%{{z:+.{places}f}}",
        colorbar_title=f"B {fmt.MINUS} A" + ("" if higher else " (blue: B better)"),
        reversescale=not higher, dtype="f8")
    by_title = figure.spec.dims[by].title
    data = heatmap_traces(z, models, models, spec, special=(
        Special(same, f"A %{{y}} · B %{{x}}: the same {theme.text(by_title.lower())}"),
        Special(missing, "A %{y} · B %{x}: no pair to compare (no item both answered)")))
    data[0]["customdata"] = customdata
    prefix = label_prefix(models)
    layout = heatmap_layout(models, models, x_title=f"B ({by_title})", y_title=f"A ({by_title})",
                            heading=heading or theme.text(cell_title(figure, cell)),
                            height=pair_height(n), fixed_range=True,
                            prefixes=(prefix, prefix))
    layout["meta"] = style_meta(data, None)
    place_bar(layout, data)
    layout["meta"]["evalmaps"]["rank"] = {
        "cell": facets,
        "compare": None if links.grid is None else {
            "refs": [links.ref(m) for m in models], "rest": links.rest}}
    if prefix:
        layout["meta"]["evalmaps"]["prefix"] = {"x": prefix, "y": prefix}
    layout["shapes"] = [*gap_lines(data, n, n), *outlines(outlined, n, n, DISTINCT_COLOR,
                                                          "distinguishable")]
    return {"data": data, "layout": layout}


def gap_lines(data: list[dict], ny: int, nx: int) -> list[dict]:
    """Above :data:`SQUEEZE_ROWS` rows, a map's 1 px gaps between squares drawn as one path of
    white lines at the squares' edges instead of by plotly.js: a heatmap with gaps is painted
    pixel by pixel over its whole plot area (50 models: 1,600 px square, each map), one without
    them as an image of a pixel a square, scaled. The traces' gaps are set to 0 here; the map
    looks the same. At a few rows nothing changes."""
    if max(ny, nx) <= SQUEEZE_ROWS or not any(t.get("xgap") or t.get("ygap") for t in data):
        return []
    for trace in data:
        trace["xgap"] = trace["ygap"] = 0
    cuts = "".join(f"M{j / nx:.5f},0V1" for j in range(1, nx))
    cuts += "".join(f"M0,{i / ny:.5f}H1" for i in range(1, ny))
    return [{"type": "path", "xref": "x domain", "yref": "y domain", "path": cuts,
             "line": {"color": "#ffffff", "width": 1}, "layer": "above", "name": "gaps"}]


def pair_height(n: int) -> int:
    """A pair map's height: as a map of n rows at a few models, then about a square's height a
    row (30 px: 50 models take 1,600 px and the page scrolls), never rows squeezed to fit."""
    return max(panel_height(n, n) if n <= SQUEEZE_ROWS else 0, PLOT_ROOM + 30 * n)


SQUEEZE_ROWS = 12
PLOT_ROOM = 129  # a map's margins and a little room (evalmaps.figures.heatmap.panel_height)


def row_room(labels: list[str]) -> int:
    """The px a map's row labels take, as the axis writes them (without the start they share,
    shortened past 28 characters: evalmaps.figures.heatmap)."""
    prefix = label_prefix(labels)
    return left_margin([theme.text(tick_label(without_prefix(str(label), prefix)))
                        for label in labels])


def pair_width(n: int, labels: list[str], right: int = COLORBAR_PX) -> int:
    """The least width of a pair map (px): :data:`SQUARE_PX` a column beside its row labels and
    its right margin (``right``: the figure's, which holds its colour bar), so that a phone,
    or 50 models, scroll sideways instead of squeezing columns."""
    return max(MIN_MAP_PX, row_room(labels) + n * SQUARE_PX + right)


# assets/evalmaps-fit.js, xTicks: a level x label takes about 7.5 px a character and 8 px of
# gap; labels that do not fit level are drawn upright, each taking 7 px a character and 8 px
# below the axis (at most 150), and the chart grows by that room less a level row's 18 px
LEVEL_CHAR_PX, LABEL_GAP_PX, UPRIGHT_CHAR_PX, UPRIGHT_ROOM_PX, LEVEL_ROW_PX = 7.5, 8, 7, 150, 18


def x_label_room(labels: list[str], column_px: float) -> int:
    """The px the browser's fit (assets/evalmaps-fit.js, ``xTicks``) adds to a map's height
    for its x labels when its columns are ``column_px`` wide: 0 while the longest label fits
    level, else the room of upright labels less a level row. Counted as the fit counts them:
    the axis's categories as the layout holds them (escaped), in UTF-16 units (JavaScript's
    ``length``), not the shortened ticks."""
    cats = theme.texts(labels)
    if not cats or column_px <= 0:
        return 0
    chars = max(len(c.encode("utf-16-le")) // 2 for c in cats)
    if math.ceil((chars * LEVEL_CHAR_PX + LABEL_GAP_PX) / column_px) <= 1:
        return 0
    return min(chars * UPRIGHT_CHAR_PX + LABEL_GAP_PX, UPRIGHT_ROOM_PX) - LEVEL_ROW_PX


def outlines(cells, ny: int, nx: int, color: str, name: str) -> list[dict]:
    """The outlines of ``cells`` ((i, j) each) as path shapes in axis-domain fractions (one a
    line: a shape a square would cost plotly.js a redraw of each at 50 models): a dark line on
    a white one, seen on light and on dark squares alike (as Compare's outline of a cell)."""
    if not cells:
        return []
    inset = 0.06  # of a square, each side (evalmaps.figures.compare.cell_box's rectangle)
    xs = {j: (f"{(j + inset) / nx:.5f}", f"{(j + 1 - inset) / nx:.5f}") for _, j in cells}
    ys = {i: (f"{1 - (i + 1 - inset) / ny:.5f}", f"{1 - (i + inset) / ny:.5f}")
          for i, _ in cells}
    path = "".join(f"M{xs[j][0]},{ys[i][0]}H{xs[j][1]}V{ys[i][1]}H{xs[j][0]}Z"
                   for i, j in cells)
    return [{"type": "path", "xref": "x domain", "yref": "y domain", "path": path,
             "line": {"color": line, "width": width}, "fillcolor": "rgba(0,0,0,0)",
             "layer": "above", "name": f"{name}-{part}"}
            for part, line, width in (("halo", "#ffffff", 4), ("line", color, 2))]


# --------------------------------------------------------------------------- the where map

def where_hover(figure: Figure, cell: dict, row: dict, by_title: str) -> str:
    facets = cell["labels"]
    metric = figure.spec.metric_for(facets)
    decimals = figure.decimals_for(facets)
    lines = [f"{theme.text(by_title)} {theme.text(row['model'])}",
             theme.text(cell_title(figure, cell)),
             f"rank {rank_text(row.get('rank'))}" + (
                 f" · 95% rank interval {span_text(row.get('rank_ci'))}"
                 if row.get("rank_ci") else "") + (
                 f" · simultaneous rank set {span_text(row.get('rank_set'))}"
                 if row.get("rank_set") else ""),
             f"mean {fmt.mean(metric, row.get('mean'), decimals)}" + (
                 f" [{interval_text(metric, row['ci'], decimals)}]" if row.get("ci") else "")
             + (f" · n {row['n']:,}" if row.get("n") is not None else "")]
    lines.append("best or tied" if row.get("best_or_tied") else "not best or tied")
    return "<br>".join(lines)


def rank_text(rank) -> str:
    if not fmt.finite(rank):
        return fmt.DASH
    return f"{rank:g}"


def span_text(span) -> str:
    """A rank interval or set: '1–3', or '2' when it is one rank."""
    if not span or len(span) != 2 or not all(fmt.finite(v) for v in span):
        return fmt.DASH
    lo, hi = span
    return f"{lo:g}" if lo == hi else f"{lo:g}–{hi:g}"


def interval_text(metric, ci, decimals: int) -> str:
    if not ci or len(ci) != 2 or not all(fmt.finite(v) for v in ci):
        return fmt.DASH
    return f"{fmt.mean(metric, ci[0], decimals)}, {fmt.mean(metric, ci[1], decimals)}"


def where_figure(figure: Figure, answer: dict, models: list[str]) -> dict:
    """Models (rows, natural order) by cells (columns): each square coloured by the model's rank
    in that cell (1: best) and outlined where it is best or tied."""
    cells = answer["cells"]
    dims = varying(cells)
    names = [cell_name(c, dims) for c in cells]
    at = {m: i for i, m in enumerate(models)}
    z = np.full((len(models), len(cells)), np.nan)
    hover = [["" for _ in cells] for _ in models]
    best = []
    by_title = figure.spec.dims[answer["by"]].title
    for j, cell in enumerate(cells):
        for row in cell["models"]:
            i = at.get(row["model"])
            if i is None:
                continue
            if fmt.finite(row.get("rank")):
                z[i, j] = row["rank"]
            hover[i][j] = where_hover(figure, cell, row, by_title)
            if row.get("best_or_tied"):
                best.append((i, j))
    whole = bool(np.all(np.mod(z[np.isfinite(z)], 1) == 0))
    spec = TraceSpec(
        decimals=0 if whole else 1, hovertemplate="%{customdata[0]}", colorscale=RANK_SCALE,
        zrange=(1, max(len(models), 2)), texttemplate="%{z:.0f}" if whole else "%{z:.1f}",
        colorbar_title="Rank (1: best)", colorbar=rank_ticks(len(models)),
        reversescale=True, scale=None, dtype="f8")
    data = heatmap_traces(z, names, models, spec, special=(
        Special(~np.isfinite(z), f"{theme.text(by_title)} %{{y}} · %{{x}}: not ranked here"),))
    data[0]["customdata"] = [[[hover[i][j]] for j in range(len(cells))]
                             for i in range(len(models))]
    prefix = label_prefix(models)
    title = " · ".join(figure.spec.dims[d].title for d in dims if d in figure.spec.dims)
    layout = heatmap_layout(names, models, x_title=title or "Cell", y_title=by_title,
                            heading="Rank (outlined: best or tied)",
                            height=panel_height(len(models), len(names)), fixed_range=True,
                            prefixes=("", prefix))
    layout["meta"] = style_meta(data, None)
    place_bar(layout, data)
    if prefix:
        layout["meta"]["evalmaps"]["prefix"] = {"x": "", "y": prefix}
    layout["shapes"] = [*gap_lines(data, len(models), len(cells)),
                        *outlines(best, len(models), len(cells), BEST_COLOR, "best-or-tied")]
    return {"data": data, "layout": layout}


def rank_ticks(n: int) -> dict:
    """The where map's colour-bar ticks: each rank up to :data:`RANK_TICKS` models, else rank 1,
    every k-th (k = 5, 10, 20, 50, ...: at most ten labels) and the last, so that 50 models'
    bar is not 50 labels (each one measured by plotly.js as it draws)."""
    if n <= RANK_TICKS:
        return {"dtick": 1, "tick0": 1}
    step = next(k * 10 ** e for e in range(12) for k in (5, 10, 20) if n / (k * 10 ** e) <= 10)
    vals = [1, *range(step, n, step)]
    if n - vals[-1] <= step / 2 and len(vals) > 1:  # the last rank is not crowded by the one before
        vals.pop()
    vals.append(n)
    return {"tickvals": vals, "ticktext": [str(v) for v in vals]}


RANK_TICKS = 20


def where_width(n_cells: int, models: list[str], square: int = SQUARE_PX,
                right: int = COLORBAR_PX) -> int:
    """The least width of the where map (px): its columns keep :data:`SQUARE_PX`; with
    ``square``, its width at that many px a column (:data:`WIDEST_COLUMN_PX`: its most);
    ``right``: the figure's right margin, which holds its colour bar."""
    return max(MIN_MAP_PX, row_room(models) + n_cells * square + right)


WIDEST_COLUMN_PX = 90  # a where map of few cells is not stretched across the page


def sentences(answer: dict, figure: Figure) -> list[str]:
    """One sentence per model, the answer's own ('Mistral-7B is best or tied in 12 of 14
    categories, alone best in 9.'), else made from its counts the same way."""
    cells = answer["cells"]
    dims = varying(cells)
    spec = figure.spec
    noun = (spec.dims[dims[0]].title.lower() if len(dims) == 1 and dims[0] in spec.dims
            else "cell")
    out = []
    for row in answer.get("summary", []):
        n = row.get("cells", len(cells))
        out.append(row.get("sentence") or
                   f"{row['model']} is best or tied in {row.get('best_or_tied', 0)} of {n} "
                   f"{plural(noun, n)}, alone best in {row.get('best', 0)}.")
    return out


# --------------------------------------------------------------------------- the ranking table

def table_rows(answer: dict, dims: list[str] | None = None) -> list[dict]:
    """The ranking table: one row a model a cell, the cell's labels first, every number as
    the answer gives it (intervals split into their ends)."""
    by = answer["by"]
    rows = []
    for cell in answer["cells"]:
        labels = {d: str(v) for d, v in cell["labels"].items() if dims is None or d in dims}
        for m in cell["models"]:
            ci = m.get("ci") or [None, None]
            rank_ci = m.get("rank_ci") or [None, None]
            rank_set = m.get("rank_set") or [None, None]
            rows.append({**labels, by: m["model"], "n": m.get("n"), "mean": m.get("mean"),
                         "ci_low": ci[0], "ci_high": ci[1], "rank": m.get("rank"),
                         "rank_ci_low": rank_ci[0], "rank_ci_high": rank_ci[1],
                         "rank_set_low": rank_set[0], "rank_set_high": rank_set[1],
                         "best_or_tied": bool(m.get("best_or_tied"))})
    return rows
