"""evalmaps.analysis.export: one panel as a LaTeX (booktabs) or Markdown table, compared as whole texts
on small hand-made figures: best per column in bold (highest, or lowest for a lower-is-better
metric), ± se where a cell has one, gaps never filled, labels escaped, suspect standard errors
marked."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import pytest

from evalmaps.analysis.compare import align, from_panel
from evalmaps.analysis.export import (
    MAX_CELLS,
    ExportError,
    best_cells,
    filename,
    latex_escape,
    markdown_escape,
    render,
    table_of_side,
    table_of_view,
    to_latex,
    to_markdown,
)
from evalmaps.analysis.slicing import views_for
from evalmaps.catalog.load import parse_spec, validate_cells
from evalmaps.core.figure import Figure, Metric
from evalmaps.views.state import ViewState


def lm_eval_figure(fid="t", values=None) -> Figure:
    """Two tasks x two models of accuracies (0-1) with lm-eval's standard errors: one missing
    cell, one se of 0 for 0.5 (cannot be right), one se of 0 for 1.0 (can be), one without se;
    labels with LaTeX and Markdown specials."""
    rows = values or [
        ("a", "arc_easy", "pythia-70m", "0.4364", "0.0102"),
        ("a", "arc_easy", "pythia_1.4b", "0.6170", "0.0100"),
        ("a", "hellaswag & co", "pythia-70m", "0.5", "0"),
        ("a", "hellaswag & co", "pythia_1.4b", "1.0", "0"),
        ("a", "50%|*x*", "pythia-70m", "0.2500", ""),
    ]
    frame = pd.DataFrame(rows, columns=["f", "task", "model", "value", "se"])
    spec = parse_spec({
        "id": fid, "file": "t.csv", "title": "Zero-shot {acc} #1",
        "metric": {"name": "acc", "range": [0, 1]},
        "x": "model", "y": "task", "facets": ["f"], "provenance": "imported",
        "dims": {"f": {"labels": ["a"]},
                 "task": {"title": "Task", "labels": ["arc_easy", "hellaswag & co", "50%|*x*"]},
                 "model": {"title": "Model_size", "labels": ["pythia-70m", "pythia_1.4b"]}},
    }, where="test")
    cells, decimals = validate_cells(frame, spec, file="t.csv")
    return Figure(spec, cells, decimals)


def table(fig=None):
    fig = fig or lm_eval_figure()
    views, _ = views_for(fig, ViewState(fig.id))
    return table_of_view(views[0])


def test_latex_whole_text():
    assert to_latex(table()) == r"""% Zero-shot \{acc\} \#1 — a. acc.
% Made with evalmaps; needs \usepackage{booktabs}.
\begin{table}[t]
\centering
\caption{Zero-shot \{acc\} \#1 — a. acc.}
\begin{tabular}{lrr}
\toprule
 & \multicolumn{2}{c}{Model\_size} \\
\cmidrule(lr){2-3}
Task & pythia-70m & pythia\_1.4b \\
\midrule
arc\_easy & 0.4364 $\pm$ 0.0102 & 0.6170 $\pm$ 0.0100 \\
hellaswag \& co & \textbf{0.5000} $\pm$ 0.0000$^\dagger$ & \textbf{1.0000} $\pm$ 0.0000 \\
50\%\textbar{}*x* & 0.2500 & -- \\
\bottomrule
\end{tabular}
\par\smallskip{\footnotesize Bold: the best value of each column (highest). $\pm$ one standard error (as the source gives it, else sd/$\surd$n). $^\dagger$: 1 cell gives a standard error of 0 for a value strictly between 0 and 1: that cannot be right (only a value at an end of the range has no sampling error), so those standard errors are flagged and not used for significance or bands. --: not reported by the source. Provenance: imported.}
\end{table}
"""


def test_markdown_whole_text():
    assert to_markdown(table()) == r"""**Zero-shot {acc} \#1 — a. acc.**

| Task \\ Model\_size | pythia-70m | pythia\_1.4b |
| :-- | --: | --: |
| arc\_easy | 0.4364 ± 0.0102 | 0.6170 ± 0.0100 |
| hellaswag & co | **0.5000** ± 0.0000† | **1.0000** ± 0.0000 |
| 50%\|\*x\* | 0.2500 |  |

Bold: the best value of each column (highest). ± one standard error (as the source gives it, else sd/√n). †: 1 cell gives a standard error of 0 for a value strictly between 0 and 1: that cannot be right (only a value at an end of the range has no sampling error), so those standard errors are flagged and not used for significance or bands. Empty: not reported by the source. Provenance: imported.
"""


@dataclass(frozen=True)
class LowerMetric(Metric):
    higher_is_better: bool = False


def test_lower_is_better_bolds_the_lowest_and_ties_are_all_bold():
    t = table()
    lower = replace(t, metric=LowerMetric("perplexity", range=(0, 1)))
    np.testing.assert_array_equal(best_cells(t), [[False, False], [True, True], [False, False]])
    np.testing.assert_array_equal(best_cells(lower), [[False, True], [False, False],
                                                      [True, False]])
    tied = replace(t, values=np.array([[0.5, 1.0], [0.5, np.nan], [0.2, np.nan]]))
    np.testing.assert_array_equal(best_cells(tied), [[True, True], [True, False], [False, False]])
    assert "Bold: the best value of each column (lowest)." in to_markdown(lower)


def test_no_se_no_plus_minus_and_sd_over_root_n_counts_as_se():
    fig = lm_eval_figure(values=[("a", "arc_easy", "pythia-70m", "0.4364", "")])
    text = to_markdown(table(fig))
    assert "±" not in text and "| arc\\_easy | **0.4364** |  |" in text
    # sd and n (replicates): se = sd / sqrt(n) = 0.02 / 2
    frame = pd.DataFrame({"f": ["a"], "y": ["r"], "x": ["1"], "value": ["52.5"], "sd": ["2.0"],
                          "n": ["4"]})
    spec = parse_spec({"id": "r", "file": "r.csv", "metric": {"name": "Pass@1"}, "x": "x",
                       "y": "y", "facets": ["f"], "provenance": "uploaded",
                       "dims": {"f": {"labels": ["a"]}, "y": {"labels": ["r"]},
                                "x": {"labels": ["1"]}}}, where="test")
    cells, decimals = validate_cells(frame, spec, file="r.csv")
    assert "| r | **52.5** ± 1.00 |" in to_markdown(table(Figure(spec, cells, decimals)))


def test_escaping():
    assert latex_escape(r"a\b_c&d%e$f#g{h}i~j^k<l>m|n") == (
        r"a\textbackslash{}b\_c\&d\%e\$f\#g\{h\}i\textasciitilde{}j\textasciicircum{}k"
        r"\textless{}l\textgreater{}m\textbar{}n")
    assert markdown_escape("<b>x</b> | *y* _z_ ~w~ `v`") == (
        r"\<b\>x\</b\> \| \*y\* \_z\_ \~w\~ \`v\`")


def test_file_names_formats_and_limits():
    t = table()
    assert (filename(t, "latex"), filename(t, "markdown")) == ("t__a.tex", "t__a.md")
    with pytest.raises(ExportError, match="Unknown table format 'html'. Use latex or markdown."):
        render(t, "html")
    big = replace(t, values=np.zeros((MAX_CELLS + 1, 1)), rows=("r",) * (MAX_CELLS + 1),
                  cols=("c",), se=None, suspect=np.zeros((MAX_CELLS + 1, 1), dtype=bool))
    with pytest.raises(ExportError, match="over the 20000 a table may hold. Narrow the rows"):
        to_latex(big)


def test_illustrative_tables_say_so(catalog):
    fig = catalog.figure("acemath-training-progress")
    views, _ = views_for(fig, ViewState(fig.id))
    assert "ILLUSTRATIVE values, not results." in to_latex(table_of_view(views[0])).splitlines()[0]


def test_compare_side_tables_are_the_maps_common_labels():
    """B's table on the labels both figures list (its map's), its gaps empty."""
    a, b = lm_eval_figure("la"), lm_eval_figure("lb", values=[
        ("a", "arc_easy", "pythia-70m", "0.45", "0.01"),
        ("a", "hellaswag & co", "pythia-70m", "0.55", "0.02")])
    al = align(from_panel(a, a.panels["a"]), from_panel(b, b.panels["a"]))
    assert to_markdown(table_of_side(al, "b")) == r"""**Zero-shot {acc} \#1 — a. acc.**

| Task \\ Model\_size | pythia-70m | pythia\_1.4b |
| :-- | --: | --: |
| arc\_easy | 0.45 ± 0.010 |  |
| hellaswag & co | **0.55** ± 0.020 |  |
| 50%\|\*x\* |  |  |

Bold: the best value of each column (highest). ± one standard error (as the source gives it, else sd/√n). Empty: not reported by the source. Provenance: imported.
"""
    assert filename(table_of_side(al, "a"), "latex") == "la__a.tex"


def pythia_table(catalog, **query):
    from evalmaps.views.state import parse_state

    state = parse_state({"figure": ["pythia-zero-shot"], **{k: [v] for k, v in query.items()}},
                        catalog)
    views, _ = views_for(catalog.figure("pythia-zero-shot"), state)
    return table_of_view(views[0])


def test_a_panel_named_by_its_metric_does_not_name_it_twice(catalog):
    """Pythia's panels are 'arc_challenge | acc' (metric is a facet): the caption read
    '... arc_challenge | acc. acc.'."""
    t = pythia_table(catalog)
    caption = (r"\caption{Pythia zero-shot accuracy over training steps, by model size, one panel "
               r"per task (acc and acc\_norm, with se) — arc\_challenge \textbar{} acc.}")
    assert caption in to_latex(t)
    assert to_markdown(t).splitlines()[0].endswith(r"— arc\_challenge \| acc.**")
    # a unit is still said; a panel not named by its metric names it (the figures above)
    with_unit = replace(t, metric=replace(t.metric, unit="%"))
    assert r"\textbar{} acc. In \%.}" in to_latex(with_unit)
    assert r"\caption{Zero-shot \{acc\} \#1 — a. acc.}" in to_latex(table())


def test_a_table_too_wide_for_a_portrait_page_is_set_landscape(catalog):
    """27 training steps with standard errors fit no page: landscape (rotating's
    sidewaystable), scaled to the page's width (graphicx), each package named in a comment,
    and the comment says the x range narrows it. Five columns fit a landscape page; the small
    tables above stay portrait."""
    wide = to_latex(pythia_table(catalog))
    assert wide.splitlines()[1:4] == [
        r"% Made with evalmaps; needs \usepackage{booktabs}, \usepackage{rotating} and "
        r"\usepackage{graphicx}.",
        "% Too wide for a portrait page: set landscape (rotating's sidewaystable, a page of its "
        "own), and scaled to the page's width (graphicx's resizebox).",
        "% 27 columns: fewer give larger type (the page's x range; ?<dimension>=<label> "
        "filters in the API)."]
    assert r"\begin{sidewaystable}" in wide and wide.rstrip().endswith(r"\end{sidewaystable}")
    assert "\\resizebox{\\linewidth}{!}{%\n\\begin{tabular}" in wide
    assert "\\end{tabular}}\n" in wide
    assert wide.count("{") - wide.count(r"\{") == wide.count("}") - wide.count(r"\}")
    narrow = to_latex(pythia_table(catalog, xmin="103000"))
    assert r"\usepackage{booktabs} and \usepackage{rotating}." in narrow
    assert r"\begin{sidewaystable}" in narrow and r"\resizebox" not in narrow
    assert "{lrrrrr}" in narrow  # the x range's five columns
    small = to_latex(table())
    assert r"\begin{table}[t]" in small and "sidewaystable" not in small
