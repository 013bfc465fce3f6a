"""One panel as a table for a paper: LaTeX (booktabs) or Markdown.

Rows are the panel's y labels and columns its x labels, in the order the view shows them. Each
value is written with the figure's decimals (exactly what the data file holds), followed by
``± se`` where the cell has a standard error (the ``se`` the source gives, else ``sd / sqrt(n)``;
see :mod:`evalmaps.analysis.uncertainty`); a figure with per-item records gives its cells the
standard error of their mean over items, ``sqrt(s² / n)``, or the cluster-robust one over the
items' clusters (``cluster=COL``: :func:`with_item_errors`), with each cell's items ``n`` (and
clusters) said in the notes, or in each cell where they differ. The best value of each column
is bold (ties: all of them): the highest, or the lowest when the metric says
``higher_is_better`` is false. A cell the source does not report is ``--`` in LaTeX and empty
in Markdown: nothing is filled in. Labels are escaped (LaTeX's special characters, Markdown's
table and emphasis characters), so a label is always text. A standard error of 0 that cannot
be right is written as given and marked with a dagger, and the note under the table says why.
Illustrative values say so in the caption.

Pure: no Dash, no Flask. ``to_latex(table_of_view(view))`` from a notebook.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from evalmaps.analysis import uncertainty
from evalmaps.analysis.compare import Alignment, _on
from evalmaps.analysis.slicing import PanelView
from evalmaps.core import text as fmt
from evalmaps.core.errors import EvalmapsError
from evalmaps.core.figure import Metric

FORMATS = {"latex": ("tex", "text/x-tex"), "markdown": ("md", "text/markdown")}
MAX_CELLS = 20_000  # a paper's table is far smaller; above this, narrow the rows or the range


class ExportError(EvalmapsError, ValueError):
    """A table that cannot be made (HTTP 400)."""


@dataclass(frozen=True, eq=False)
class Table:
    """What a table shows: one panel's grid on the labels a view shows."""

    title: str  # the figure's title
    panel: str  # the panel's title ('R1-Llama | AIME24'; 'all' for a figure of one panel)
    row_title: str
    col_title: str
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    values: np.ndarray  # NaN: not reported
    se: np.ndarray | None  # NaN: no standard error
    suspect: np.ndarray  # a standard error of 0 that cannot be right
    decimals: int
    metric: Metric
    provenance: str
    name: str = "table"  # a file name without extension: '<figure>__<panel>'
    min_decimals: int | None = None  # a derived mean's: trailing zeros trimmed down to it
    # from per-item records (with_item_errors): what ± is, each cell's items and clusters
    se_note: str | None = None
    n: np.ndarray | None = None
    clusters: np.ndarray | None = None
    cluster: str | None = None

    @property
    def higher_is_better(self) -> bool:
        return bool(getattr(self.metric, "higher_is_better", True))


def table_of_view(view: PanelView) -> Table:
    spec = view.spec
    se = uncertainty.cell_se(view.se, view.sd, view.n, view.z.shape)
    return Table(
        title=spec.title, panel=view.panel.title,
        row_title=spec.dims[spec.y].title, col_title=spec.dims[spec.x].title,
        rows=tuple(view.y_labels), cols=tuple(view.x_labels), values=view.z,
        se=se if np.isfinite(se).any() else None,
        suspect=uncertainty.suspect(view.z, view.se, view.metric), decimals=view.decimals,
        metric=view.metric, provenance=spec.provenance,
        name=f"{spec.id}__{view.panel.slug}")


def table_of_side(al: Alignment, which: str) -> Table:
    """Compare's A or B, on the common labels its map shows."""
    side, z = (al.a, al.za) if which == "a" else (al.b, al.zb)
    grids = [None if g is None else _on(side, g, al.y.labels, al.x.labels)
             for g in (side.se, side.sd, side.n)]
    se = uncertainty.cell_se(*grids, z.shape)
    figure = side.figure_ids[0] if len(side.figure_ids) == 1 else "compare"
    name = (side.ref.replace(":", "__") if not side.derived
            else f"{figure}__mean-of-{len(side.sources)}-panels")
    return Table(
        title=side.label.split(" — ")[0] if not side.derived else side.label,
        panel=side.short if not side.derived else "all",
        row_title=al.y.title, col_title=al.x.title, rows=tuple(al.y.labels),
        cols=tuple(al.x.labels), values=z, se=se if np.isfinite(se).any() else None,
        suspect=uncertainty.suspect(z, grids[0], side.metric), decimals=side.decimals,
        metric=side.metric, provenance="illustrative" if side.illustrative else side.provenance,
        name=name, min_decimals=side.min_decimals)


def with_item_errors(table: Table, errors: dict, cluster: str | None = None) -> Table:
    """``table`` with the standard errors of its cells' means over their per-item records
    (``errors``: :func:`evalmaps.analysis.uncertainty.item_errors` on the table's grid): the
    clustered one with ``cluster``, where the source gives none, and each cell's items."""
    se = errors["se_clustered"] if cluster is not None else errors["se"]
    given = table.se if table.se is not None else np.full(table.values.shape, np.nan)
    se = np.where(np.isfinite(given), given, np.where(np.isfinite(table.values), se, np.nan))
    note = ("± one cluster-robust standard error of the mean over the cell's items, clustered "
            f"by {cluster} (without a small-sample correction)"
            if cluster is not None else
            "± one standard error of the mean over the cell's items (√(s²/n))")
    return replace(table, se=se if np.isfinite(se).any() else None, se_note=note + ".",
                   n=errors["n"], clusters=errors.get("n_clusters") if cluster is not None
                   else None,
                   cluster=cluster)


def _counts(table: Table) -> tuple[str | None, bool]:
    """What the notes say of the cells' items (and clusters), and whether each cell says its
    own (they differ from cell to cell)."""
    if table.n is None:
        return None, False
    shown = np.isfinite(table.values) & np.isfinite(table.n)
    if not shown.any():
        return None, False
    counts = {int(v) for v in table.n[shown]}
    groups = ({int(v) for v in table.clusters[shown] if np.isfinite(v)}
              if table.clusters is not None else set())
    if len(counts) == 1 and len(groups) <= 1:
        text = f"n = {next(iter(counts)):,} items a cell"
        if groups:
            text += f", in {next(iter(groups)):,} clusters of {table.cluster}"
        return text + ".", False
    what = "items (n)" + (f" and clusters of {table.cluster}" if table.clusters is not None
                          else "")
    return f"In parentheses: each cell's {what}.", True


def best_cells(table: Table) -> np.ndarray:
    """Where each column's best value is (every cell that holds it)."""
    z = table.values
    present = np.isfinite(z)
    out = np.zeros(z.shape, dtype=bool)
    for j in range(z.shape[1]):
        if present[:, j].any():
            column = z[present[:, j], j]
            best = column.max() if table.higher_is_better else column.min()
            out[:, j] = present[:, j] & (z[:, j] == best)
    return out


def _check(table: Table) -> None:
    if table.values.size > MAX_CELLS:
        raise ExportError(f"The panel shows {table.values.size} cells, over the {MAX_CELLS} a "
                          f"table may hold. Narrow the rows or the x range first.")


def _notes(table: Table, missing: str) -> list[str]:
    """The sentences under a table: what bold, ± and the gaps mean, and the source's status."""
    direction = "highest" if table.higher_is_better else "lowest"
    notes = [f"Bold: the best value of each column ({direction})."]
    if table.se is not None:
        notes.append(table.se_note or "± one standard error (as the source gives it, else "
                                      "sd/√n).")
    counts = _counts(table)[0]
    if counts:
        notes.append(counts)
    if table.suspect.any():
        notes.append(f"†: {uncertainty.suspect_note(table.metric, int(table.suspect.sum()))}")
    if not np.isfinite(table.values).all():
        notes.append(f"{missing}: not reported by the source.")
    notes.append(f"Provenance: {table.provenance}.")
    return notes


def _caption(table: Table) -> str:
    """'R1-Llama vs R1-Qwen: Pass@1 ... — R1-Llama. Pass@1.' (and the illustrative flag). A
    panel named by its metric ('arc_challenge | acc', a metric facet) does not name it again:
    only its unit, if it has one."""
    head = table.title if table.panel == "all" else f"{table.title} — {table.panel}"
    flag = " ILLUSTRATIVE values, not results." if table.provenance == "illustrative" else ""
    metric = table.metric
    named = table.panel != "all" and metric.name in [p.strip() for p in table.panel.split("|")]
    what = (f" In {metric.unit}." if metric.unit else "") if named else f" {metric.label}."
    return f"{head}.{what}{flag}"


def _cells(table: Table, value, bold, pm, dagger, missing) -> list[list[str]]:
    best = best_cells(table)
    se_places = fmt.se_places(table.decimals)
    each = _counts(table)[1]
    out = []
    for i in range(len(table.rows)):
        row = []
        for j in range(len(table.cols)):
            v = table.values[i, j]
            if not np.isfinite(v):
                row.append(missing)
                continue
            text = value(fmt.number(v, table.decimals, table.min_decimals))
            if best[i, j]:
                text = bold(text)
            if table.se is not None and np.isfinite(table.se[i, j]):
                text += pm(fmt.number(table.se[i, j], se_places))
                if table.suspect[i, j]:
                    text += dagger
            if each and np.isfinite(table.n[i, j]):
                said = [f"{int(table.n[i, j]):,}"]
                if table.clusters is not None and np.isfinite(table.clusters[i, j]):
                    said.append(f"{int(table.clusters[i, j]):,}")
                text += f" ({'; '.join(said)})"
            row.append(text)
        out.append(row)
    return out


# --------------------------------------------------------------------------- LaTeX

LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                 "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                 "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                 "|": r"\textbar{}"}


def latex_escape(text: str) -> str:
    """Text as LaTeX typesets it literally: every special character escaped."""
    return "".join(LATEX_SPECIAL.get(c, c) for c in str(text).replace("\n", " "))


# About how many characters (at the body's size, with the space between columns) a line of a
# table may hold across a portrait page's text, and across a landscape one's: a wider table is
# set landscape (rotating's sidewaystable), and one wider than that is also scaled to the
# page's width (graphicx's resizebox)
PORTRAIT_CHARS = 85
LANDSCAPE_CHARS = 120
COLUMN_GAP_CHARS = 2


def line_chars(table: Table) -> int:
    """About how many characters a line of the table takes: each column as wide as its widest
    text (header or cell, '0.2329 ± 0.0123'), plus the space between columns."""
    cells = _cells(table, value=lambda t: t, bold=lambda t: t, pm=lambda t: f" ± {t}",
                   dagger="†", missing="--")
    widths = [max([len(str(table.row_title)), *(len(str(r)) for r in table.rows)])]
    for j, col in enumerate(table.cols):
        widths.append(max([len(str(col)), *(len(row[j]) for row in cells)]))
    return sum(w + COLUMN_GAP_CHARS for w in widths)


def page_fit(table: Table) -> str:
    """How a table fits a page: 'portrait', 'landscape' (wider than a portrait page) or
    'scaled' (wider than a landscape page too: landscape, scaled to its width)."""
    chars = line_chars(table)
    if chars <= PORTRAIT_CHARS:
        return "portrait"
    return "landscape" if chars <= LANDSCAPE_CHARS else "scaled"


def _packages(fit: str, n: int) -> list[str]:
    """The comment lines that say which packages a table needs, and why."""
    if fit == "portrait":
        return ["% Made with evalmaps; needs \\usepackage{booktabs}."]
    needs = ("\\usepackage{booktabs}, \\usepackage{rotating} and \\usepackage{graphicx}"
             if fit == "scaled" else "\\usepackage{booktabs} and \\usepackage{rotating}")
    lines = [f"% Made with evalmaps; needs {needs}.",
             "% Too wide for a portrait page: set landscape (rotating's sidewaystable, a page of "
             "its own)" + (", and scaled to the page's width (graphicx's resizebox)"
                           if fit == "scaled" else "") + "."]
    if fit == "scaled":
        lines.append(f"% {n} columns: fewer give larger type (the page's x range; "
                     f"?<dimension>=<label> filters in the API).")
    return lines


def to_latex(table: Table) -> str:
    """A booktabs ``table``: caption, the column dimension over its labels, one line per row.
    A table too wide for a portrait page is set landscape, and scaled to fit when it is wider
    than that too (:func:`page_fit`); the comment at the top names the packages it needs."""
    _check(table)
    n = len(table.cols)
    fit = page_fit(table)
    env = "table" if fit == "portrait" else "sidewaystable"
    cells = _cells(table, value=lambda t: t, bold=lambda t: rf"\textbf{{{t}}}",
                   pm=lambda t: rf" $\pm$ {t}", dagger=r"$^\dagger$", missing="--")
    lines = [
        f"% {latex_escape(_caption(table))}",
        *_packages(fit, n),
        rf"\begin{{{env}}}" + ("[t]" if env == "table" else ""),
        r"\centering",
        rf"\caption{{{latex_escape(_caption(table))}}}",
        *([r"\resizebox{\linewidth}{!}{%"] if fit == "scaled" else []),
        rf"\begin{{tabular}}{{l{'r' * n}}}",
        r"\toprule",
        rf" & \multicolumn{{{n}}}{{c}}{{{latex_escape(table.col_title)}}} \\",
        rf"\cmidrule(lr){{2-{n + 1}}}",
        " & ".join([latex_escape(table.row_title), *map(latex_escape, table.cols)]) + r" \\",
        r"\midrule",
    ]
    for label, row in zip(table.rows, cells):
        lines.append(" & ".join([latex_escape(label), *row]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}" + ("}" if fit == "scaled" else "")]
    notes = " ".join(latex_escape(note).replace("±", r"$\pm$").replace("†", r"$^\dagger$")
                     .replace("√", r"$\surd$").replace("²", r"$^2$")
                     for note in _notes(table, "--"))
    lines += [rf"\par\smallskip{{\footnotesize {notes}}}", rf"\end{{{env}}}"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- Markdown

MARKDOWN_SPECIAL = set("\\`*_[]<>|~#")


def markdown_escape(text: str) -> str:
    """Text as a Markdown table cell shows it literally (GitHub-flavoured Markdown)."""
    return "".join("\\" + c if c in MARKDOWN_SPECIAL else c for c in str(text)).replace("\n", " ")


def to_markdown(table: Table) -> str:
    """A pipe table: header of the column labels, one line per row, then the notes."""
    _check(table)
    cells = _cells(table, value=lambda t: t, bold=lambda t: f"**{t}**", pm=lambda t: f" ± {t}",
                   dagger="†", missing="")
    corner = f"{markdown_escape(table.row_title)} \\\\ {markdown_escape(table.col_title)}"
    lines = [
        f"**{markdown_escape(_caption(table))}**",
        "",
        "| " + " | ".join([corner, *map(markdown_escape, table.cols)]) + " |",
        "| " + " | ".join([":--", *["--:"] * len(table.cols)]) + " |",
    ]
    for label, row in zip(table.rows, cells):
        lines.append("| " + " | ".join([markdown_escape(label), *row]) + " |")
    lines += ["", markdown_escape(" ".join(_notes(table, "Empty")))]
    return "\n".join(lines) + "\n"


def render(table: Table, format: str) -> str:
    if format == "latex":
        return to_latex(table)
    if format == "markdown":
        return to_markdown(table)
    raise ExportError(f"Unknown table format '{fmt.clip(format)}'. Use latex or markdown.")


def filename(table: Table, format: str) -> str:
    return f"{table.name}.{FORMATS[format][0]}"


# --------------------------------------------------------------------------- lists of rows

def list_to_markdown(caption: str, header: list[str], rows: list[list[str]], notes: list[str],
                     numeric_from: int = 1) -> str:
    """A pipe table of rows already written as text (a comparison's cells, one a row): the
    caption in bold, the header, the rows (columns from ``numeric_from`` on right-aligned),
    then the notes; every text escaped as :func:`to_markdown` escapes it."""
    align = [":--" if j < numeric_from else "--:" for j in range(len(header))]
    lines = [f"**{markdown_escape(caption)}**", "",
             "| " + " | ".join(markdown_escape(h) for h in header) + " |",
             "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in rows]
    lines += ["", markdown_escape(" ".join(notes))]
    return "\n".join(lines) + "\n"


def list_to_latex(caption: str, header: list[str], rows: list[list[str]], notes: list[str],
                  numeric_from: int = 1) -> str:
    """A booktabs ``table`` of rows already written as text, as :func:`to_latex` sets a panel:
    landscape, and scaled, when it is too wide for a portrait page (the comment at the top names
    the packages it needs); every text escaped."""
    widths = [max(len(str(h)), *(len(str(r[j])) for r in rows)) if rows else len(str(h))
              for j, h in enumerate(header)]
    chars = sum(w + COLUMN_GAP_CHARS for w in widths)
    fit = ("portrait" if chars <= PORTRAIT_CHARS else
           "landscape" if chars <= LANDSCAPE_CHARS else "scaled")
    env = "table" if fit == "portrait" else "sidewaystable"
    columns = "".join("l" if j < numeric_from else "r" for j in range(len(header)))

    def tex(text: str) -> str:
        return (latex_escape(text).replace("±", r"$\pm$").replace("≥", r"$\geq$")
                .replace("−", "$-$").replace("·", r"$\cdot$").replace("▲", r"$\uparrow$")
                .replace("▼", r"$\downarrow$").replace("√", r"$\surd$"))

    lines = [f"% {latex_escape(caption)}", *_packages(fit, len(header)),
             rf"\begin{{{env}}}" + ("[t]" if env == "table" else ""), r"\centering",
             rf"\caption{{{latex_escape(caption)}}}",
             *([r"\resizebox{\linewidth}{!}{%"] if fit == "scaled" else []),
             rf"\begin{{tabular}}{{{columns}}}", r"\toprule",
             " & ".join(tex(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join(tex(c) for c in row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}" + ("}" if fit == "scaled" else ""),
              rf"\par\smallskip{{\footnotesize {tex(' '.join(notes))}}}", rf"\end{{{env}}}"]
    return "\n".join(lines) + "\n"
