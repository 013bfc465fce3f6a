"""The names the URL reads: every query key a page or API route takes, and the columns of a tidy
file that are not dimensions. A dimension may not take one of these names (:data:`RESERVED_NAMES`):
the data model checks it when a figure loads, and :mod:`evalmaps.views.state` reads the keys."""

from __future__ import annotations

# Every query key a page or API route reads: key -> (where, meaning). docs/api.md documents each
# (tests/unit/test_docs.py checks it); a dimension may not be named like one.
QUERY_KEYS: dict[str, tuple[str, str]] = {
    "figure": ("/, /trends, /data, /compare", "the figure shown"),
    "rows": ("/, /trends, /data", "the rows (y labels) shown; repeated; empty means none"),
    "hide": ("/, /trends, /data", "the rows hidden (when most are shown); repeated"),
    "xmin": ("/, /trends, /data", "the low end of the x range (numeric x axes)"),
    "xmax": ("/, /trends, /data", "the high end of the x range"),
    "sort": ("/, /trends, /data", "row order: source, name, mean, or col:<x label>"),
    "top": ("/, /trends, /data", "only the N rows with the highest mean"),
    "color": ("/, /compare", "colour range: figure, fixed (the metric's range, e.g. 0-100 or "
                             "0-1) or shared (per metric)"),
    "pct": ("/, /trends, /compare", "1: fractions (metrics in 0-1) written as percent; the API "
                                    "stays raw"),
    "zscale": ("/", "colours: linear (default) or log (metrics without a range, values > 0)"),
    "labels": ("/, /compare", "values printed in cells: on (default) or off"),
    "ticks": ("/, /compare", "axis labels: auto (default: thinned where they do not fit, the "
                             "note under the map says which) or all (every row and column "
                             "labelled; the page scrolls)"),
    "scale": ("/, /compare", "colour scale: uniform (default: viridis, perceptually uniform and "
                             "colour-vision-safe) or paper (the source's own scale)"),
    "transpose": ("/trends, trends API", "1: one line per column, against y"),
    "overlay": ("/trends", "1: all panels in one chart"),
    "threshold": ("/trends, trends API", "the level of 'first below' (default: 80% of the "
                                         "metric's range)"),
    "logx": ("/trends", "1: the lines' axis on a log scale (0 is drawn apart, left of the "
                        "smallest positive label); 0: linear; absent: log where the labels span "
                        "orders of magnitude and crowd near 0"),
    "a": ("/compare, compare API", "panel A: a panel key, mean(<key>,...) or a label of a "
                                   "dimension, <figure>:<dim>=<label>"),
    "b": ("/compare, compare API", "panel B"),
    "ydim": ("/compare, compare API", "A and B labels of a dimension: the grid's rows (a "
                                      "dimension; empty: one row)"),
    "xdim": ("/compare, compare API", "A and B labels of a dimension: the grid's columns"),
    "avg": ("/compare, compare API", "A and B labels of a dimension: a dimension averaged over; "
                                     "repeated"),
    "cell": ("/compare", "the cell whose items are open: <row label>|<column label>"),
    "which": ("/compare, compare items API", "the cell's items listed: a_only, b_only, both, "
                                             "neither or all (default)"),
    "q": ("/compare, compare items API", "the open cell's items that hold this text (ids, "
                                         "scores, texts)"),
    "k": ("/, /trends, /compare, cells, trends, compare and compare items API",
          "pass@k where items have several samples (1 to n; default 1)"),
    "format": ("cells API, rank API", "json (default), csv, or latex or markdown (one panel as "
                                      "a table); rank: csv or csv-pairs"),
    "by": ("/rank, rank API", "the dimension ranked (default: model)"),
    "cluster": ("/, /trends, /compare, cells, trends and compare API",
                "standard errors clustered by this column of the per-item records (an import's "
                "--cluster COL)"),
    "power": ("/compare", "1: B − A coloured by the smallest difference each cell's items detect "
                          "(mde, 80% power at the 5% level), where both sides keep per-item "
                          "records"),
}
CELL_COLUMNS = ("value", "sd", "n", "se")  # columns of a tidy file that are not dimensions
# ``k`` is not reserved: results of pass@k (bigcode, lighteval) have a dimension k of their own.
# Where a figure has one, ?k= is its label, and pass@k of items is not offered there.
# ``by`` (the dimension /rank ranks) is not reserved either: a figure may have a dimension named
# "by"; in the rank API ?by= always names the dimension ranked.
# ``ticks`` (Browse and Compare: every axis label, issue 37) is not reserved either, so that no folder that
# loads today stops loading: in a figure with a dimension "ticks", ?ticks= is its label.
SHARED_KEYS = frozenset({"k", "by", "ticks"})
RESERVED_NAMES = (frozenset(QUERY_KEYS) - SHARED_KEYS) | frozenset(CELL_COLUMNS)
