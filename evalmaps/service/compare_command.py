"""``evalmaps compare A B``: B against A from the terminal and in CI (docs/cli.md).

The comparison is :func:`evalmaps.service.api.compare_view`'s, the one view model behind
``/api/compare``; this module only writes it out (:mod:`evalmaps.service.compare_rows`) and
judges the gate. Exit codes: 0, 1 where ``--fail-if-worse`` finds B distinguishably worse than
A in some cell, 2 for a usage or input error (one sentence on stderr).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from evalmaps.analysis import paired as paired_stats
from evalmaps.core import text as fmt
from evalmaps.core.errors import EvalmapsError
from evalmaps.readers.base import ImportOptions
from evalmaps.service import compare_rows
from evalmaps.service.api import compare_view


class GateError(EvalmapsError):
    """--fail-if-worse where no cell can be judged."""


def _pairs(values: list[str], option: str) -> dict[str, str]:
    out = {}
    for value in values:
        dim, sep, label = value.partition("=")
        if not sep or not dim.strip():
            raise GateError(f"{option} takes DIM=LABEL (a dimension and one of its labels "
                            f"joined by '='), not '{fmt.clip(value)}'.")
        out[dim.strip()] = label
    return out


def compare_command(args: argparse.Namespace, options: ImportOptions) -> int:
    """Run ``evalmaps compare`` with its parsed ``args`` and table ``options``; the exit code."""
    alpha = paired_stats.ALPHA if args.alpha is None else args.alpha
    made = compare_view(args.a, args.b, data=args.data, k=args.k,
                        fix=_pairs(args.fix, "--fix"), ydim=args.ydim, xdim=args.xdim,
                        avg=args.avg, options=options)
    view = made.view
    payload = view.to_dict()
    rows = compare_rows.rows(view, payload)
    up = view.alignment.higher_is_better
    worse = [row for row in rows if compare_rows.is_worse(row, up, alpha, args.min_diff)]
    if args.fail_if_worse and not any(compare_rows.judged(row) for row in rows):
        why = payload["summary"]["no_significance"] or "no cell has a test"
        raise GateError(f"--fail-if-worse cannot judge any cell: {why}. Compare results with "
                        f"per-item records (--item) or standard errors.")
    for line in [*made.problems, *payload["warnings"]]:
        print(f"evalmaps: warning: {line}", file=sys.stderr)
    out = sys.stdout
    if args.format == "json":
        out.write(json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    elif args.format == "csv":
        out.write(_csv(compare_rows.frame(view, payload)))
    elif args.format == "markdown":
        out.write(compare_rows.markdown(view, payload, rows, alpha, args.min_diff,
                                           made.files))
    elif args.format == "latex":
        out.write(compare_rows.latex(view, payload, rows, alpha, args.min_diff,
                                           made.files))
    else:
        _table(view, payload, rows, alpha, args.min_diff, out, made)
    if not args.fail_if_worse:
        return 0
    dims = compare_rows.dims_of(view)
    if worse:
        where = ", ".join(" · ".join(str(row[d]) for d in dims) for row in worse[:6])
        more = f" and {len(worse) - 6} more" if len(worse) > 6 else ""
        print(f"evalmaps: B is distinguishably worse than A in {len(worse)} of {len(rows)} "
              f"cells ({where}{more}).", file=sys.stderr)
        return 1
    print(f"evalmaps: B is not distinguishably worse than A in any of {len(rows)} cells.",
          file=sys.stderr)
    return 0


def _csv(frame) -> str:
    """The rows as CSV: numbers as Python writes them (every digit), text that would start a
    spreadsheet formula neutralised, as the API's CSV."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([fmt.neutralise(str(c)) for c in frame.columns])
    for row in frame.astype(object).itertuples(index=False, name=None):
        writer.writerow(["" if _missing(v) else fmt.neutralise(v) if isinstance(v, str)
                         else repr(v) if isinstance(v, float) else str(v) for v in row])
    return buffer.getvalue()


def _missing(value) -> bool:
    import pandas as pd

    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _table(view, payload: dict, rows: list[dict], alpha: float, min_diff: float, out,
           made) -> None:
    """The terminal's table: rich's where stdout is a terminal and rich is installed (it fits
    the terminal's width, folding what does not), else plain aligned columns."""
    header, body = compare_rows.texts(view, rows, alpha, min_diff)
    summary = " ".join(payload["sentences"])
    legend = compare_rows.legend(view, alpha, min_diff)
    files = made.files
    fixed = ""
    if made.fixed:
        fixed = "Fixed: " + ", ".join(f"{d}={label}" for d, label in made.fixed) + \
                " (--fix DIM=LABEL for another)"
    if out.isatty():
        try:
            from rich.console import Console
            from rich.table import Table
            from rich.text import Text
        except ImportError:
            pass
        else:
            console = Console(file=out, highlight=False)  # texts as given: no markup
            table = Table(title=Text(compare_rows.heading(view, files).replace("\n", "   ")),
                          caption=Text(legend), show_lines=False)
            dims = len(compare_rows.dims_of(view))
            for j, name in enumerate(header):
                table.add_column(Text(name), justify="left" if j < dims else "right",
                                 overflow="fold")
            for row in body:
                style = "green" if row[-1] == "▲" else "red" if row[-1] == "▼" else None
                table.add_row(*map(Text, row), style=style)
            console.print(table)
            if fixed:
                console.print(Text(fixed))
            console.print(Text(summary))
            return
    # not a terminal (a pipe, a CI log): columns as wide as their texts
    widths = [max(len(h), *(len(r[j]) for r in body)) for j, h in enumerate(header)]
    dims = len(compare_rows.dims_of(view))

    def line(cells):
        return "  ".join(c.ljust(w) if j < dims else c.rjust(w)
                         for j, (c, w) in enumerate(zip(cells, widths))).rstrip()

    text = [compare_rows.heading(view, files), "", line(header), line(["-" * w for w in widths])]
    text += [line(row) for row in body]
    text += ["", *([fixed] if fixed else []), legend, summary]
    out.write("\n".join(text) + "\n")
