"""Standard errors of cells: which one a cell has, and which ones cannot be right.

A cell's standard error is the ``se`` the source gives (lm-evaluation-harness's ``acc_stderr``,
Inspect's ``stderr``) where there is one, else ``sd / sqrt(n)`` when the cell carries a standard
deviation over ``n`` replicates (``n`` > 0). Nothing else is assumed: a cell with neither has no
standard error, and nothing is computed for it.

A standard error of 0 for a value strictly inside the metric's range (an accuracy of 0.62 on a
0-1 scale) cannot be right: only a value at an end of the range (every item right, or every item
wrong) can have no sampling error. Such a value is *suspect*: it is shown as the source gives it,
flagged, and never used to call a difference significant. A metric without a declared range gives
no way to tell, so nothing is flagged there. (Negative standard errors are refused when the data
is loaded.)

Pure numpy: no Dash or Plotly.
"""

from __future__ import annotations

import numpy as np

from evalmaps.analysis import power
from evalmaps.analysis.paired import bootstrap_mean_interval, item_values, seed_of_items, wilson
from evalmaps.core import text as fmt
from evalmaps.core.figure import Figure, Metric

Z_95 = 1.96  # |B - A| < 1.96 SE: not distinguishable at the 5% level (two-sided, normal)
Z_WILSON = 1.959963984540054  # the Wilson interval's z (evalmaps.analysis.paired.Z_95)


def cell_se(se: np.ndarray | None, sd: np.ndarray | None, n: np.ndarray | None,
            shape: tuple[int, ...]) -> np.ndarray:
    """Each cell's standard error: ``se`` where given, else ``sd / sqrt(n)`` (``n`` > 0), else
    NaN. Suspect values are not removed here (see :func:`usable_se`)."""
    out = np.full(shape, np.nan)
    if sd is not None and n is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(np.isfinite(sd) & (n > 0), sd / np.sqrt(np.where(n > 0, n, 1)), np.nan)
    if se is not None:
        out = np.where(np.isfinite(se), se, out)
    return out


def suspect(z: np.ndarray, se: np.ndarray | None, metric: Metric) -> np.ndarray:
    """Where a given ``se`` is 0 for a value strictly inside the metric's range."""
    if se is None or metric.range is None:
        return np.zeros(z.shape, dtype=bool)
    lo, hi = metric.range
    with np.errstate(invalid="ignore"):
        return np.isfinite(z) & (se == 0) & (z > lo) & (z < hi)


def usable_se(z: np.ndarray, se: np.ndarray | None, sd: np.ndarray | None,
              n: np.ndarray | None, metric: Metric) -> np.ndarray:
    """:func:`cell_se` without the suspect values (NaN there): what significance may use.

    A standard error of 0 from a finite sample is not certainty (5 of 5 right does not make the
    share exactly 1): where the cell's ``n`` is known and the metric has a range, it is
    replaced by the Wilson interval's half-width over 1.96 (of the share ``(z - lo) / (hi -
    lo)`` of ``n``, in the metric's units); elsewhere it is not used (NaN)."""
    out = cell_se(se, sd, n, z.shape)
    out = np.where(suspect(z, se, metric), np.nan, out)
    zero = np.isfinite(out) & (out == 0)
    if not zero.any():
        return out
    wilson_se = np.full(z.shape, np.nan)
    if n is not None and metric.range is not None:
        bottom, top = metric.range
        width = top - bottom
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.clip((z - bottom) / width, 0.0, 1.0)
            known = np.isfinite(n) & (n > 0)
            size = np.where(known, n, 0)
            lo, hi = wilson(share * size, size)
            wilson_se = np.where(known, (hi - lo) * width / (2 * Z_WILSON), np.nan)
    return np.where(zero, wilson_se, out)


def range_text(metric: Metric) -> str:
    lo, hi = metric.range
    return f"{fmt.plain(lo)} and {fmt.plain(hi)}"


def suspect_note(metric: Metric, count: int, where: str = "") -> str:
    """'3 cells give a standard error of 0 for a value strictly between 0 and 1: that cannot
    be right (only a value at an end of the range has no sampling error), so those standard
    errors are flagged and not used for significance.'"""
    cells, verb = ("cell", "gives") if count == 1 else ("cells", "give")
    return (f"{count} {cells}{where} {verb} a standard error of 0 for a value strictly between "
            f"{range_text(metric)}: that cannot be right (only a value at an end of the range "
            "has no sampling error), so those standard errors are flagged and not used for "
            "significance or bands.")


def figure_notes(figure: Figure) -> list[str]:
    """The figure's standard-error warnings, for its notes and provenance box (none: [])."""
    counts: dict[Metric, int] = {}
    for p in figure.panels.values():
        if p.se is not None:
            metric = figure.spec.metric_for(p.facets)
            counts[metric] = counts.get(metric, 0) + int(suspect(p.z, p.se, metric).sum())
    return [suspect_note(metric, count) for metric, count in counts.items() if count]


# --------------------------------------------------------------------------- intervals

def se_interval(z: np.ndarray, se: np.ndarray, metric: Metric,
                critical=Z_95) -> tuple[np.ndarray, np.ndarray]:
    """A 95% interval from a standard error that never leaves the metric's range: z ± 1.96 se
    (``critical`` se: a clustered one's Student's t quantile, per cell) where that stays within
    it; where it would not (a value near 0 or 100%), the Wilson interval of the share ``(z -
    lo) / (hi - lo)`` with the effective number of items ``n = p(1 - p) / se²`` that the
    standard error implies (in the metric's units again). NaN where there is no value or
    standard error."""
    z = np.asarray(z, dtype=float)
    se = np.asarray(se, dtype=float)
    lo, hi = z - critical * se, z + critical * se
    if metric.range is None:
        return lo, hi
    bottom, top = metric.range
    width = top - bottom
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        outside = np.isfinite(z) & np.isfinite(se) & ((lo < bottom) | (hi > top))
        p = np.clip((z - bottom) / width, 0.0, 1.0)
        share_se = se / width
        n_eff = np.where(share_se > 0, p * (1 - p) / np.where(share_se > 0, share_se, 1) ** 2, 0)
        w_lo, w_hi = wilson(p * n_eff, n_eff)
    # a share of 0 or 1 (no spread), or a standard error too small to tell: the value itself
    usable = (n_eff > 0) & np.isfinite(w_lo) & np.isfinite(w_hi)
    w_lo = np.where(usable, bottom + w_lo * width, z)
    w_hi = np.where(usable, bottom + w_hi * width, z)
    return np.where(outside, w_lo, lo), np.where(outside, w_hi, hi)


def item_intervals(items, fixed: dict, by: tuple[str, str], y_labels, x_labels, k: int = 1
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's 95% interval from its per-item records (``items``:
    :class:`evalmaps.catalog.items.ItemRecords`; one query for the grid), of the statistic drawn
    at ``k``: the Wilson interval of the share right where every score is 0 or 1 with one sample
    per item and k = 1, else the bootstrap percentile interval of the mean of each item's score
    (its mean over samples at k = 1, its unbiased pass@k at k > 1; seeded from the items' ids).
    Both stay within the scores' range. NaN where a cell has no items."""
    shape = (len(y_labels), len(x_labels))
    lo, hi = np.full(shape, np.nan), np.full(shape, np.nan)
    cells = items.cells(fixed, by)
    for i, y in enumerate(y_labels):
        for j, x in enumerate(x_labels):
            cell = cells.get((y, x))
            if cell is None or not len(cell):
                continue
            if k == 1 and cell.binary and bool((cell.n == 1).all()):
                a, b = wilson(cell.total.sum(), len(cell))
                lo[i, j], hi[i, j] = float(a), float(b)
            else:
                lo[i, j], hi[i, j] = bootstrap_mean_interval(item_values(cell, k),
                                                             seed_of_items(cell.items))
    return lo, hi


VARIANCE_PARTS = ("var_within", "var_between", "within_share")


def item_errors(items, fixed: dict, by: tuple[str, ...], y_labels, x_labels, k: int = 1,
                cluster: str | None = None) -> dict[str, np.ndarray]:
    """Each cell's standard errors from its per-item records (one query for the grid), of
    each item's score at ``k`` (:func:`evalmaps.analysis.paired.item_values`): ``se``
    (``sqrt(s² / n)``) and, with ``cluster`` (a column the records keep), ``se_clustered`` and
    ``n_clusters`` (:mod:`evalmaps.analysis.power`), ``n`` its items; at k = 1 where items have
    several samples, ``var_within``, ``var_between`` and ``within_share`` (:func:`~evalmaps.analysis.power.
    variance_parts`). NaN where a cell has no items, or too few (fewer than 2 items; fewer than
    2 clusters; an item of one sample)."""
    shape = (len(y_labels), len(x_labels))
    out = {"se": np.full(shape, np.nan), "n": np.full(shape, np.nan)}
    if cluster is not None:
        out["se_clustered"], out["n_clusters"] = np.full(shape, np.nan), np.full(shape, np.nan)
    cells = items.cells(fixed, by, cluster)
    for i, y in enumerate(y_labels):
        for j, x in enumerate(x_labels):
            cell = cells.get((y, x) if len(by) == 2 else (x,))  # a grid of one row: by x
            if cell is None or not len(cell):
                continue
            values = item_values(cell, k)
            out["n"][i, j] = len(values)
            se = power.se(values)
            out["se"][i, j] = np.nan if se is None else se
            parts = None if k != 1 or cell.squares is None else \
                power.variance_parts(cell.n, cell.total, cell.squares)
            if parts is not None:
                for name, value in zip(VARIANCE_PARTS, parts):
                    out.setdefault(name, np.full(shape, np.nan))[i, j] = value
            if cluster is not None:
                clustered, groups = power.clustered_se(values, cell.clusters)
                out["se_clustered"][i, j] = np.nan if clustered is None else clustered
                out["n_clusters"][i, j] = groups
    return out


def with_item_se(figure: Figure, views: list, k: int = 1, cluster: str | None = None,
                 made: dict | None = None) -> list:
    """``views`` with each cell's standard error from the figure's per-item records where the
    source gives none (:func:`item_errors` at ``k``: of the mean over items, clustered by the
    items' column ``cluster`` when given): what Browse's hover writes as ``± se``. The views
    as they are for a figure without items. ``made``: each view's :func:`item_errors` already
    made, by panel key."""
    from dataclasses import replace

    records = getattr(figure, "items", None)
    if records is None:
        return views
    spec = figure.spec
    out = []
    for view in views:
        errors = made[view.panel.key] if made is not None else item_errors(
            records, dict(view.panel.facets), (spec.y, spec.x), view.y_labels, view.x_labels, k,
            cluster)
        se = errors["se_clustered"] if cluster is not None else errors["se"]
        if view.se is not None:
            se = np.where(np.isfinite(view.se), view.se, se)
        out.append(replace(view, se=se))
    return out


def cluster_intervals(view, items, k: int, cluster: str) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's 95% interval from the clustered standard error of its mean over items:
    ``z ± t_0.975 se_clustered`` within the metric's range (:func:`se_interval`), with Student's
    t at ``n_clusters - 1`` degrees of freedom (:func:`evalmaps.analysis.power.critical`); NaN
    where a cell has fewer than 2 clusters."""
    spec = view.spec
    errors = item_errors(items, dict(view.panel.facets), (spec.y, spec.x), view.y_labels,
                         view.x_labels, k, cluster)
    return se_interval(view.z, errors["se_clustered"], view.metric,
                       clustered_critical(errors["n_clusters"]))


def clustered_critical(n_clusters) -> np.ndarray:
    """Each cell's 95% half-width in clustered standard errors: Student's t's 97.5th
    percentile at ``n_clusters - 1`` degrees of freedom; NaN below 2 clusters."""
    g = np.asarray(n_clusters, dtype=np.float64)
    out = np.full(g.shape, np.nan)
    for count in np.unique(g[np.isfinite(g) & (g >= 2)]):
        out[g == count] = power.critical(int(count))
    return out


def view_intervals(view, items=None, k: int = 1, cluster: str | None = None, *,
                   item_interval: tuple[np.ndarray, np.ndarray] | None = None,
                   clustered: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's 95% interval of a panel view (:class:`evalmaps.analysis.slicing.PanelView`):
    from its items where the figure keeps them (``items``, at ``k``: :func:`item_intervals`),
    else from its usable standard error (:func:`se_interval`); NaN where there is neither; with
    ``cluster``, from the items' clustered standard error (:func:`cluster_intervals`). The
    interval of the value drawn, which Trends' bands and its JSON both give.
    ``item_interval``: the items' intervals already made (``clustered``: by a cluster), instead
    of ``items``."""
    se = usable_se(view.z, view.se, view.sd, view.n, view.metric)
    lo, hi = se_interval(view.z, se, view.metric)
    if item_interval is None and items is not None:
        clustered = cluster is not None
        spec = view.spec
        item_interval = (cluster_intervals(view, items, k, cluster) if clustered else
                         item_intervals(items, dict(view.panel.facets), (spec.y, spec.x),
                                        view.y_labels, view.x_labels, k))
    if item_interval is not None and clustered:
        return item_interval
    if item_interval is not None:
        ilo, ihi = item_interval
        have = np.isfinite(ilo) & np.isfinite(ihi)
        lo, hi = np.where(have, ilo, lo), np.where(have, ihi, hi)
    return lo, hi
