"""The compare view's pieces: the A, B and B - A heatmaps (:mod:`evalmaps.figures.compare`,
re-exported here; its docstring says how the maps are drawn), the summary card, the panel menus
and, when A and B are two labels of a dimension, the menus of its grid.
"""

from __future__ import annotations

from collections.abc import Sequence

import dash_bootstrap_components as dbc
from dash import dcc, html

from components.controls import dom_id, panel_label
from components.provenance import provenance_badge
from evalmaps.analysis import paired as paired_stats
from evalmaps.analysis.compare import (  # noqa: F401 - paired_text, power_text: the pages' lines
    ONE_ROW,
    PAIRED_NAMES,
    Alignment,
    ComparePanel,
    LabelGrid,
    averageable,
    color_range,
    compatible,
    delta_range,
    detect_floor,
    from_panel,
    label_ref,
    paired_places,
    paired_text,
    paired_unit,
    power_kind,
    power_lines,
    power_text,
    sentences,
    where_of,
)
from evalmaps.core import text as fmt
from evalmaps.core.figure import Catalog, Figure
from evalmaps.figures.compare import *  # noqa: F403 - the maps, for the page
from evalmaps.figures.compare import DELTA_TITLE, PAIRED_TESTS
from evalmaps.views.transitions import AVERAGED, BY_PANELS

# --------------------------------------------------------------------------- summary

def _at(al: Alignment, cell: dict | None) -> str:
    return where_of(al, cell) if cell else ""


def summary_card(al: Alignment, numbers: dict) -> dbc.Card:
    """Over the common cells: means, B higher in k of n, the largest gain and loss, each side's
    highest cell."""
    a_dec, b_dec = al.a.base_decimals, al.b.base_decimals
    gain, loss = numbers["largest_gain"], numbers["largest_loss"]

    def change(cell, none):
        if not cell:
            return html.Td(none, className="text-muted")
        return html.Td([html.Strong(al.format_delta(cell["delta"])), f" at {_at(al, cell)} ",
                        html.Span(f"(A {al.a.format(cell['a'])}, B {al.b.format(cell['b'])})",
                                  className="text-muted")])

    def best(side, cell):
        return html.Td([html.Strong(side.format(cell["value"])), f" at {_at(al, cell)}"])

    n = numbers["n_common"]
    ma, mb = al.a.metric, al.b.metric
    delta_v, delta_d = fmt.shown(ma, numbers["mean_delta"], al.min_decimals)
    rows = [
        html.Tr([html.Th("Mean"),
                 html.Td(fmt.mean_number(*fmt.shown(ma, numbers["mean_a"], a_dec)),
                         id="compare-mean-a"),
                 html.Td(fmt.mean_number(*fmt.shown(mb, numbers["mean_b"], b_dec)),
                         id="compare-mean-b"),
                 html.Td(fmt.signed(delta_v, *fmt.mean_places(delta_d)),
                         id="compare-mean-delta")]),
    ]
    table = html.Table([
        html.Thead(html.Tr([html.Th(""), html.Th("A"), html.Th("B"), html.Th(DELTA_TITLE)])),
        html.Tbody(rows)], className="table table-sm mb-2 compare-means")
    up = al.higher_is_better
    better, worse = ("higher", "lower") if up else ("better (lower)", "worse (higher)")
    best_word = "Highest" if up else "Best (lowest)"
    facts = [
        html.Tr([html.Th("B higher" if up else "B better"), html.Td(
            f"in {numbers['b_better']} of {n} cells" + (
                f" ({numbers['equal']} equal, {numbers['b_worse']} {worse})" if numbers["equal"]
                else f" ({numbers['b_worse']} {worse})")
            + ("" if up else "; lower is better"), id="compare-higher")]),
        html.Tr([html.Th("Largest gain"), change(gain, f"none: B is never {better}")]),
        html.Tr([html.Th("Largest loss"), change(loss, f"none: B is never {worse}")]),
        html.Tr([html.Th(f"{best_word} A"), best(al.a, numbers["best_a"])]),
        html.Tr([html.Th(f"{best_word} B"), best(al.b, numbers["best_b"])]),
    ]
    if numbers.get("paired_cells"):
        few = numbers.get("paired_untested", 0)
        m = numbers["paired_cells"] - few
        tests = " and ".join(PAIRED_NAMES[PAIRED_TESTS.index(t)]
                             + (f" (clustered by {al.cluster})" if t == "clustered" else "")
                             for t in numbers["paired_tests"])
        at_k = f", pass@{numbers['k']}" if numbers.get("k", 1) > 1 else ""
        facts.insert(1, html.Tr([html.Th("Paired"), html.Td(
            f"B better in {numbers['b_sig_better_paired']} of {m} cells (paired, FDR 5%), "
            f"worse in {numbers['b_sig_worse_paired']}: {tests} on the items both answered"
            f"{at_k}, Benjamini-Hochberg over the map; dotted outline on B − A where not "
            "distinguishable" + (f"; {few} with fewer than {paired_stats.MIN_ITEMS} items in "
                                 "common, not tested" if few else "")
            + (f"; {n - m - few} cells without items in common" if m + few < n else ""),
            id="compare-paired")]))
    elif numbers["n_with_se"]:
        m = numbers["n_with_se"]
        facts.insert(1, html.Tr([html.Th("Significantly"), html.Td(
            f"B significantly {better} in {numbers['b_sig_better']} of {m} cells, {worse} in "
            f"{numbers['b_sig_worse']}; {numbers['n_indistinct']} not distinguishable (within "
            f"1.96 SE, dotted outline on B − A)" + (f"; {n - m} without a standard error"
                                                    if m < n else ""),
            id="compare-significance")]))
    else:  # said, not left unsaid: why significance cannot be judged here
        facts.insert(1, html.Tr([html.Th("Significance"), html.Td(
            f"Cannot be judged from this data: {numbers['no_significance']}.",
            id="compare-significance", className="text-muted")]))
    return dbc.Card([
        dbc.CardHeader(f"Summary over the {n} common cell{'s' * (n != 1)}",
                       className="fw-semibold"),
        dbc.CardBody([table, html.Table(html.Tbody(facts),
                                        className="table table-sm mb-0 compare-facts")]),
    ], id="compare-summary-card", className="h-100")


def sides_card(al: Alignment) -> dbc.Card:
    """What A and B are: their full labels, provenance and the panels behind a derived side."""
    def item(name: str, side: ComparePanel):
        body = [html.Strong(f"{name}: "), side.label,
                provenance_badge("illustrative" if side.illustrative else side.provenance)]
        if side.grid is not None:
            body.append(html.Div(_label_note(side), className="small text-muted"))
        elif side.derived:
            body.append(html.Div(["Cell-wise mean of ", html.Code(", ".join(side.sources)),
                                  "; defined only where all of them report a value."],
                                 className="small text-muted"))
        return html.Li(body, className="mb-1")

    counts = (f"{al.n_common} common cell{'s' * (al.n_common != 1)} compared "
              f"({len(al.y.labels)} × {len(al.x.labels)} common labels; A reports {al.a.n_cells} "
              f"cells, B {al.b.n_cells}).")
    return dbc.Card([
        dbc.CardHeader("A and B", className="fw-semibold"),
        dbc.CardBody([html.Ul([item("A", al.a), item("B", al.b)], className="list-unstyled mb-2"),
                      html.Div(counts, id="compare-counts", className="small")]),
    ], className="h-100")


def _label_note(side: ComparePanel) -> str:
    """What a label's grid is made of: 'The figure's cells of Model 1.4b with Metric acc, by Task
    and Training step.' or '... averaged over Task (each value the mean of the cells given, up
    to 65; no standard error).'"""
    grid = side.grid
    axes = f"by {side.y.title} and {side.x.title}" if grid.y else f"by {side.x.title}"
    fixed = [f"{title} {label}" for title, label in side.facets[1:]]
    text = (f"The figure's cells of {side.facets[0][0]} {side.facets[0][1]}"
            + (f" with {', '.join(fixed)}" if fixed else "") + f", {axes}")
    if side.n_averaged is not None:
        shown = side.n_averaged[side.n_averaged > 0]
        low, high = (int(shown.min()), int(shown.max())) if shown.size else (0, 0)
        count = f"{low}" if low == high else f"{low} to {high}"
        text += (f", averaged over {side.averaged_over}: each value is the mean of the "
                 f"{count} cells given (of {side.of_averaged}), with no standard error")
    return text + "."


def sentences_block(al: Alignment, numbers: dict) -> html.P:
    """The sentences over the maps. Why significance cannot be judged (the last, where no cell
    has a standard error) shows from tablet width up: on a phone the summary card says it, and
    the first map stays in the first screen."""
    said = sentences(al, numbers)
    if numbers["n_with_se"] or numbers.get("paired_cells"):
        return html.P(" ".join(said), id="compare-sentences", className="lead-sm")
    return html.P([" ".join(said[:-1]), html.Span(" " + said[-1], className="d-none d-md-inline")],
                  id="compare-sentences", className="lead-sm")


# --------------------------------------------------------------------------- menus

def panel_options(catalog: Catalog, figure_id: str, against: ComparePanel | None = None,
                  extra: Sequence[ComparePanel] = (), keep: Sequence[str] = ()) -> list[dict]:
    """The panels of one figure (the figure menu beside names it), then any derived sides in
    use, then the panels of ``keep`` from other figures ('Figure title — panel title': the mean
    menu's picks stay picked while it lists another figure). With ``against``, panels sharing
    no cell with it are disabled. One figure at a time: a menu of every panel of every figure
    (Pythia's 127 and the rest) took the browser longer to index than the maps took to draw."""
    options = []
    figure = catalog.figure(figure_id) if figure_id in catalog else None
    for panel in figure.panels.values() if figure is not None else ():
        option = {"label": panel.title, "value": panel.key}
        if against is not None and not compatible(against, from_panel(figure, panel)):
            option["label"] += " (no common cells with A)"
            option["disabled"] = True
        options.append(option)
    seen = {o["value"] for o in options}
    for side in extra:
        if side.ref not in seen:
            options.append({"label": side.label, "value": side.ref})
            seen.add(side.ref)
    for key in keep:
        other, _, slug = key.partition(":")
        fig = catalog.figure(other) if other in catalog else None
        if key not in seen and fig is not None and slug in fig.panels:
            options.append({"label": panel_label(fig, fig.panels[slug]), "value": key})
            seen.add(key)
    return options


# --------------------------------------------------------------------------- labels of a dimension

def by_options(figure: Figure | None) -> list[dict]:
    """What A and B can be: panels, or two labels of one of the figure's dimensions (those with
    more than one label): 'Panels', 'Model (8 labels)', ..."""
    options = [{"label": "Panels", "value": BY_PANELS}]
    if figure is not None:
        spec = figure.spec
        options += [{"label": f"{dim.title} ({len(dim.labels)} labels)", "value": name}
                    for name, dim in spec.dims.items() if len(dim.labels) > 1]
    return options


def label_options(figure: Figure, dim: str) -> list[dict]:
    """The labels of a dimension as a side's menu lists them (values: label references)."""
    return [{"label": fmt.bidi_marked(label), "value": label_ref(figure.id, dim, label)}
            for label in figure.spec.dims[dim].labels]


def axis_options(figure: Figure, dim: str, rows: bool) -> list[dict]:
    """The dimensions the grid's rows (``rows``: with 'One row') or columns can be: every one
    but the compared one."""
    spec = figure.spec
    options = [{"label": "One row", "value": ""}] if rows else []
    return options + [{"label": spec.dims[d].title, "value": d} for d in spec.dim_names
                      if d != dim]


def rest_value(grid: LabelGrid, dim: str) -> str:
    """A rest menu's value: '=<label>' (fixed) or 'mean' (averaged)."""
    return AVERAGED if dim in grid.averaged else "=" + dict(grid.fixed)[dim]


def rest_id(dim: str) -> dict:
    return {"type": "compare-rest", "dim": dim}


def rest_menus(figure: Figure, grid: LabelGrid) -> list:
    """One menu per dimension neither compared nor on an axis: a label it is fixed at, or the
    mean over all its labels (unless they are different metrics)."""
    spec = figure.spec
    menus = []
    for dim in [*dict(grid.fixed), *grid.averaged]:
        labels = spec.dims[dim].labels
        options = [{"label": label, "value": "=" + label} for label in labels]
        if averageable(spec, dim):  # not over labels that are different metrics
            options.insert(0, {"label": f"Mean over all {len(labels)}", "value": AVERAGED})
        menus.append(dbc.Col([
            dbc.Label(spec.dims[dim].title, html_for=dom_id(rest_id(dim)),
                      className="small fw-semibold mb-1"),
            dcc.Dropdown(id=rest_id(dim), options=options, value=rest_value(grid, dim),
                         clearable=False, searchable=True)], md=3, className="mb-2"))
    return menus
