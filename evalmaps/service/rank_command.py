"""``evalmaps rank A B C ...``: many models ranked in every cell, from the terminal (docs/cli.md).

The ranking is :func:`evalmaps.service.api.rank_view`'s, the one view model behind
``/api/rank`` (:class:`evalmaps.views.rank.RankView`); this module only writes it out. Exit 0,
or 2 for a usage or input error (one sentence on stderr).
"""

from __future__ import annotations

import argparse
import sys

from evalmaps.analysis import export
from evalmaps.core import text as fmt
from evalmaps.core.errors import EvalmapsError
from evalmaps.readers.base import ImportOptions
from evalmaps.service.api import rank_view
from evalmaps.views.rank import RankView


class RankOptionError(EvalmapsError):
    """A ``--keep`` that is not DIM=LABEL."""


def _keep(values: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for value in values:
        dim, sep, label = value.partition("=")
        if not sep or not dim.strip():
            raise RankOptionError(f"--keep takes DIM=LABEL (a dimension and one of its labels "
                                  f"joined by '='), not '{fmt.clip(value)}'.")
        out.setdefault(dim.strip(), []).append(label)
    return out


def texts(view: RankView, payload: dict) -> tuple[list[str], list[list[str]]]:
    """One row per cell and model, as text: the cell's labels, the model, its mean with the
    figure's decimals and its 95% interval, n, the rank, the marginal rank interval, the
    simultaneous rank set, and ``best`` (alone best) or ``best or tied``."""
    spec = view.figure.spec
    dims = list(payload["cells"][0]["labels"]) if payload["cells"] else []
    by = payload["by"]
    title = {d: spec.dims[d].title for d in spec.dims}
    header = [*(title.get(d, d) for d in dims), title.get(by, by), "mean", "95% CI", "n",
              "rank", "rank CI", "rank set", ""]
    decimals = view.figure.decimals

    def number(value):
        return "" if value is None else fmt.number(value, decimals)

    def span(pair):
        if not pair:
            return ""
        return str(pair[0]) if pair[0] == pair[1] else f"{pair[0]}–{pair[1]}"

    rows = []
    for cell in payload["cells"]:
        for m in cell["models"]:
            ci = f"[{number(m['ci'][0])}, {number(m['ci'][1])}]" if m["ci"] else ""
            mark = "best" if m["best"] else "best or tied" if m["best_or_tied"] else ""
            rows.append([*(str(cell["labels"][d]) for d in dims), str(m["model"]),
                         number(m["mean"]), ci, "" if m["n"] is None else f"{m['n']:,}",
                         str(m["rank"]), span(m["rank_ci"]), span(m["rank_set"]), mark])
    return header, rows


def notes(payload: dict) -> list[str]:
    """The answer's sentences, one per model, and what its intervals are."""
    return [*(s["sentence"] for s in payload["summary"]),
            *(f"{name}: {payload[key]}." for name, key in (("95% CI", "ci"),
                                                          ("rank CI", "rank_interval"),
                                                          ("rank set", "rank_set"))
              if payload.get(key))]


def rank_command(args: argparse.Namespace, options: ImportOptions) -> int:
    """Run ``evalmaps rank`` with its parsed ``args`` and table ``options``; the exit code."""
    made = rank_view(*args.sides, data=args.data, by=args.by, k=args.k, keep=_keep(args.keep),
                     options=options)
    view = made.view
    payload = view.to_dict()
    for line in [*made.problems, *payload["warnings"]]:
        print(f"evalmaps: warning: {line}", file=sys.stderr)
    out = sys.stdout
    if args.format == "json":
        import json

        out.write(json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        return 0
    if args.format == "csv":
        out.write(view.models_csv())  # /api/rank?format=csv
        return 0
    header, rows = texts(view, payload)
    caption = (f"{len(payload['models'])} results ranked in every cell"
               if made.files and len(args.sides) > 1 else
               f"{view.figure.spec.title}: {payload['by']} ranked in every cell")
    dims = len(header) - 8
    if args.format == "markdown":
        out.write(export.list_to_markdown(caption, header, rows, notes(payload), dims + 1))
        return 0
    if args.format == "latex":
        out.write(export.list_to_latex(caption, header, rows, notes(payload), dims + 1))
        return 0
    if out.isatty():
        try:
            from rich.console import Console
            from rich.table import Table
            from rich.text import Text
        except ImportError:
            pass
        else:
            console = Console(file=out, highlight=False)  # texts as given: no markup
            table = Table(title=Text(caption))
            for j, name in enumerate(header):
                table.add_column(Text(name), justify="left" if j <= dims else "right",
                                 overflow="fold")
            for row in rows:
                table.add_row(*map(Text, row), style="green" if row[-1] else None)
            console.print(table)
            for line in notes(payload):
                console.print(Text(line))
            return 0
    widths = [max(len(h), *(len(r[j]) for r in rows)) if rows else len(h)
              for j, h in enumerate(header)]

    def line(cells):
        return "  ".join(c.ljust(w) if j <= dims or j == len(header) - 1 else c.rjust(w)
                         for j, (c, w) in enumerate(zip(cells, widths))).rstrip()

    text = [caption, "", line(header), line(["-" * w for w in widths]),
            *(line(row) for row in rows), "", *notes(payload)]
    out.write("\n".join(text) + "\n")
    return 0
