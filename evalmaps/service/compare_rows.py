"""A comparison as rows, one per cell: what ``evalmaps compare`` prints and writes and what
:func:`evalmaps.compare` returns, read from the one view model behind ``/api/compare``
(:class:`evalmaps.views.models.CompareView`). Nothing here computes a statistic: each number
is the view's, written out.

A row has the cell's dimension labels, then the paired test's numbers where the view made it
(``paired`` in ``/api/compare``: ``n, a_mean, b_mean, diff, ci_low, ci_high, p, p_adjusted,
test, a_only, b_only``); where it did not (a side without per-item records), ``a_mean``,
``b_mean`` and ``diff`` are the cell's values (``a``, ``b``, ``delta``), ``test`` is ``"se"``
where both sides give a standard error (then ``se`` and ``distinguishable`` are the view's:
``|B − A| ≥ 1.96 SE``) and empty where nothing can be judged.
"""

from __future__ import annotations

import pandas as pd

from evalmaps.analysis import compare as comparing
from evalmaps.analysis import export
from evalmaps.analysis import paired as paired_stats
from evalmaps.core import text as fmt
from evalmaps.views.models import CompareView

COLUMNS = ("n", "a_mean", "b_mean", "diff", "ci_low", "ci_high", "p", "p_adjusted", "test",
           "a_only", "b_only", "se", "distinguishable")
SE_TEST = "se"  # the test column of a cell judged by standard errors, not on its items


def dims_of(view: CompareView) -> list[str]:
    """The dimensions a cell is named by: the grid's rows and columns (only the columns for a
    grid of one row)."""
    al = view.alignment
    return [al.x.name] if al.y.name == comparing.ONE_ROW else [al.y.name, al.x.name]


def row_of(cell: dict, dims: list[str]) -> dict:
    """One cell of ``/api/compare`` as a row (the module's docstring)."""
    row = {d: cell[d] for d in dims}
    paired = cell.get("paired")
    if paired is not None:
        row.update({name: paired[name] for name in COLUMNS[:11]})
        row["se"] = paired.get("se_diff")
        row["distinguishable"] = (paired["p_adjusted"] is not None
                                  and paired["p_adjusted"] < paired_stats.ALPHA)
        return row
    judged = cell.get("distinguishable") is not None
    row.update({"n": None, "a_mean": cell["a"], "b_mean": cell["b"], "diff": cell["delta"],
                "ci_low": None, "ci_high": None, "p": None, "p_adjusted": None,
                "test": SE_TEST if judged else None, "a_only": None, "b_only": None,
                "se": cell.get("se"), "distinguishable": cell.get("distinguishable")})
    return row


def rows(view: CompareView, payload: dict | None = None) -> list[dict]:
    """Every common cell of the view as a row, in the page's order (rows top to bottom)."""
    payload = payload or view.to_dict()
    dims = dims_of(view)
    return [row_of(cell, dims) for cell in payload["cells"]]


def frame(view: CompareView, payload: dict | None = None) -> pd.DataFrame:
    """:func:`rows` as a DataFrame: the dimension columns, then :data:`COLUMNS` (missing
    numbers are NaN; ``n``, ``a_only`` and ``b_only`` are nullable integers)."""
    out = pd.DataFrame(rows(view, payload), columns=[*dims_of(view), *COLUMNS])
    for name in ("n", "a_only", "b_only"):
        out[name] = out[name].astype("Int64")
    for name in ("a_mean", "b_mean", "diff", "ci_low", "ci_high", "p", "p_adjusted", "se"):
        out[name] = out[name].astype("float64")
    out["distinguishable"] = out["distinguishable"].astype("boolean")
    out["test"] = out["test"].astype("object")
    return out


# --------------------------------------------------------------------------- the CI gate

def is_worse(row: dict, higher_is_better: bool, alpha: float, min_diff: float = 0.0) -> bool:
    """Whether B is distinguishably worse than A at a cell: the paired test's adjusted p below
    ``alpha``, or, for a cell judged by standard errors, the view's ``distinguishable``; the
    difference in the metric's worse direction and at least ``min_diff`` in size."""
    diff = row["diff"]
    if diff is None or (diff >= 0 if higher_is_better else diff <= 0) or abs(diff) < min_diff:
        return False
    if row["test"] == SE_TEST:
        return bool(row["distinguishable"])
    return row["p_adjusted"] is not None and row["p_adjusted"] < alpha


def is_better(row: dict, higher_is_better: bool, alpha: float, min_diff: float = 0.0) -> bool:
    flipped = {**row, "diff": None if row["diff"] is None else -row["diff"]}
    return is_worse(flipped, higher_is_better, alpha, min_diff)


def judged(row: dict) -> bool:
    """Whether the cell has a test that can call it (paired, or standard errors)."""
    return row["test"] == SE_TEST or row["p"] is not None


# --------------------------------------------------------------------------- as text

def texts(view: CompareView, rows_: list[dict], alpha: float = paired_stats.ALPHA,
          min_diff: float = 0.0) -> tuple[list[str], list[list[str]]]:
    """The rows written as the page writes their numbers: each side's value with its decimals,
    a difference and its interval with the paired test's places, p to two significant digits,
    and a mark: ``▲`` where B is distinguishably better, ``▼`` where worse (adjusted p below
    ``alpha``, or ``|B − A| ≥ 1.96 SE``; differences under ``min_diff`` are not marked)."""
    al = view.alignment
    dims = dims_of(view)
    titles = [al.y.title if d == al.y.name else al.x.title for d in dims]
    header = [*titles, "A", "B", "B − A", "95% CI", "n", "A only", "B only", "test", "p",
              "p adj.", ""]
    places = comparing.paired_places(al)
    scale = al.a.metric.scale if al.a.metric.percent else 1
    up = al.higher_is_better

    def signed(value):
        return "" if value is None else fmt.signed(value * scale, places)

    def count(value):
        return "" if value is None else f"{value:,}"

    def p_text(value):
        return "" if value is None else f"{value:.2g}"

    out = []
    for row in rows_:
        interval = ("" if row["ci_low"] is None
                    else f"[{signed(row['ci_low'])}, {signed(row['ci_high'])}]")
        if row["test"] == SE_TEST and row["se"] is not None:  # no interval: its standard error
            interval = f"SE {fmt.number(row['se'] * scale, fmt.se_places(al.decimals))}"
        mark = ("▲" if is_better(row, up, alpha, min_diff) else
                "▼" if is_worse(row, up, alpha, min_diff) else "")
        out.append([*(str(row[d]) for d in dims), al.a.format(row["a_mean"]),
                    al.b.format(row["b_mean"]), signed(row["diff"]), interval, count(row["n"]),
                    count(row["a_only"]), count(row["b_only"]), row["test"] or "",
                    p_text(row["p"]), p_text(row["p_adjusted"]), mark])
    return header, out


def legend(view: CompareView, alpha: float, min_diff: float) -> str:
    """What the marks mean, in one line."""
    al = view.alignment
    better = "higher" if al.higher_is_better else "lower"
    least = f", by at least {min_diff:g}" if min_diff else ""
    return (f"▲/▼: B distinguishably better/worse than A ({better} is better; adjusted p < "
            f"{alpha:g}, or |B − A| ≥ 1.96 SE where a cell has no per-item test{least}).")


def heading(view: CompareView, files: bool = False) -> str:
    """'A: <label>' and 'B: <label>' on two lines, as the page's titles name them (``files``:
    two files made one figure, named by their labels alone)."""
    al = view.alignment
    if files:
        return f"A: {al.a.short}\nB: {al.b.short}"
    return f"A: {al.a.label}\nB: {al.b.label}"


def markdown(view: CompareView, payload: dict, rows_: list[dict], alpha: float,
             min_diff: float, files: bool = False) -> str:
    """A pipe table for a pull request: the heading, the rows, the view's sentences and what
    the marks mean (:func:`evalmaps.analysis.export.list_to_markdown`)."""
    header, body = texts(view, rows_, alpha, min_diff)
    return export.list_to_markdown(heading(view, files).replace("\n", "; "), header, body,
                                   [*payload["sentences"], legend(view, alpha, min_diff)],
                                   numeric_from=len(dims_of(view)))


def latex(view: CompareView, payload: dict, rows_: list[dict], alpha: float,
          min_diff: float, files: bool = False) -> str:
    """A booktabs table for a paper (:func:`evalmaps.analysis.export.list_to_latex`)."""
    header, body = texts(view, rows_, alpha, min_diff)
    return export.list_to_latex(heading(view, files).replace("\n", "; "), header, body,
                                [*payload["sentences"], legend(view, alpha, min_diff)],
                                numeric_from=len(dims_of(view)))
