"""Issue 37, labels lost: every label readable, or the page thins them on purpose and says so.

``ticks=all`` on Browse labels every row and column: the map a label's height a row whatever its
columns, at least a line's width a column (its frame scrolls sideways on a narrower screen), up
to 1,000 of each. By default the note under a thinned map says which labels are left off and
why (the reason true for the map's shape), and links to ``ticks=all``. Numbers are worked by
hand in each test's comments."""

from __future__ import annotations

import pytest

from evalmaps.figures.heatmap import (
    COLUMN_PX,
    MAX_EVERY_COLUMNS,
    MAX_EVERY_ROWS,
    PLOT_MARGINS,
    ROW_PX,
    every_label_width,
    heatmap_layout,
    labels_note,
    panel_height,
    row_step,
)


def test_every_label_heights_and_steps_by_hand():
    # 60 rows x 50 columns, the default: more than 40 columns keeps the 720 px overview
    # (150 + 38 * 60 = 2430, capped at 720); 720 - 119 = 601 px of plot for 60 rows of 15 px
    # (900 px): one row in ceil(900 / 601) = 2
    assert panel_height(60, 50) == 720 and row_step(60, 720) == 2
    # ticks=all: 119 + 10 + 15 * 60 = 1029 px, its 910 px of plot hold 60 rows of 15: every row
    assert panel_height(60, 50, every=True) == 1029 and row_step(60, 1029) == 1
    # a few rows: never shorter than the default (150 + 38 * 4 = 302 > 129 + 60)
    assert panel_height(4, 50, every=True) == panel_height(4, 50) == 302
    # the cap: 1,000 rows a label high, 129 + 15,000 = 15,129 px; 1,500 rows then take
    # 22,500 px in 15,010: one row in 2
    assert panel_height(1000, 3, every=True) == 15129 == panel_height(1500, 3, every=True)
    assert row_step(1000, 15129) == 1 and row_step(1500, 15129) == 2
    # every=False is today's map, unchanged
    assert panel_height(300, 10) == 3600 and panel_height(200, 100) == 720
    assert PLOT_MARGINS + 10 + ROW_PX * MAX_EVERY_ROWS == 15129


def test_the_line_a_column_is_the_browsers():
    """The width under which the browser thins upright column labels (evalmapsLib.fit's
    UPRIGHT_LINE) is the one the note counts with, and a ticks=all column is wider."""
    import re
    from pathlib import Path

    from evalmaps.figures.heatmap import UPRIGHT_LINE_PX

    fit = (Path(__file__).parents[2] / "assets" / "evalmaps-fit.js").read_text()
    assert int(re.search(r"const UPRIGHT_LINE = (\d+)", fit).group(1)) == UPRIGHT_LINE_PX
    assert COLUMN_PX > UPRIGHT_LINE_PX


def test_every_label_width_by_hand():
    # the row labels' margin, the colour bar's, and 15 px a column
    assert COLUMN_PX == 15
    assert every_label_width({"margin": {"l": 90, "r": 100}}, 50) == 90 + 100 + 750 == 940
    assert every_label_width({"margin": {"l": 50, "r": 20}}, 1) == 85
    # past 1,000 columns the width stops (15,000 px of plot): the browser thins them there
    assert every_label_width({"margin": {"l": 90, "r": 100}}, 1200) == 90 + 100 + 15000
    assert every_label_width({"margin": {"l": 90, "r": 100}}, MAX_EVERY_COLUMNS) == 15190


def test_every_row_and_column_has_a_tick_under_ticks_all():
    rows, cols = [f"m{i}" for i in range(60)], [f"task-{j}" for j in range(70)]
    layout = heatmap_layout(cols, rows, x_title="x", y_title="y", heading="h",
                            height=panel_height(60, 70, every=True), every=True)
    # a tick at every row and every column (70 > 60: plotly.js would choose its own few)
    assert layout["yaxis"]["tickmode"] == "linear" and layout["yaxis"]["dtick"] == 1
    assert layout["xaxis"]["tickmode"] == "linear"
    default = heatmap_layout(cols, rows, x_title="x", y_title="y", heading="h",
                             height=panel_height(60, 70))
    assert default["yaxis"]["tickvals"] == rows[::2] and "tickmode" not in default["xaxis"]
    # rows thinned even so past the cap: every k-th, as the note says
    many = [f"m{i}" for i in range(1500)]
    capped = heatmap_layout(cols, many, x_title="x", y_title="y", heading="h",
                            height=panel_height(1500, 70, every=True), every=True)
    assert capped["yaxis"]["tickvals"] == many[::2]


def test_the_note_gives_the_true_reason_for_a_wide_map():
    """60 rows x 50 columns: thinned because a map of more than 40 columns is an overview,
    not because it would be taller than 3,600 px (900 px of rows would not be)."""
    note = labels_note(60, 50)
    assert note.startswith("One row in 2 is labelled (60 rows: a map of more than 40 columns "
                           "is kept to a 720 px overview) and columns narrower than a line")
    assert "3,600" not in note
    # a leaderboard's shape past 229 rows: it stops growing at 3,600 px (that is the reason)
    assert labels_note(300, 10).startswith("One row in 2 is labelled (300 rows: the map stops "
                                           "growing at 3,600 px)")
    assert labels_note(200, 10) is None and labels_note(14, 14) is None


def test_the_note_under_ticks_all_says_what_is_still_thinned():
    # nothing thinned by default: nothing to say either way
    assert labels_note(14, 14, every=True) is None
    said = labels_note(60, 50, every=True)
    assert said.startswith("Every row and column is labelled") and "scrolls sideways" in said
    assert labels_note(1500, 50, every=True).startswith(
        "One row in 2 is labelled even so (1,500 rows: the map stops growing at 1,000 rows")
    both = labels_note(1500, 1200, every=True)
    assert "1,200 columns: the map stops widening at 15,000 px, narrower than a line" in both
    # 15,000 px of plot give 1,153 columns 13.01 px each, an upright line: every one labelled;
    # 1,154 get 12.998 px: the browser thins them (evalmapsLib.fit's UPRIGHT_LINE, 13 px)
    assert labels_note(60, 1153, every=True).startswith("Every row and column is labelled")
    assert labels_note(60, 1154, every=True).startswith("Columns are labelled every few even so")


@pytest.mark.parametrize("query, ticks, problem", [
    ({}, "auto", None),
    ({"ticks": ["all"]}, "all", None),
    ({"ticks": ["auto"]}, "auto", None),
    ({"ticks": ["sideways"]}, "auto", "ticks=sideways is not all or auto"),
])
def test_the_page_reads_ticks_and_writes_it_back(query, ticks, problem, tmp_path):
    from evalmaps.core.figure import Catalog
    from evalmaps.views.state import parse_state
    from tests.every_label_fixture import wide_figure

    figure = wide_figure(tmp_path, 6, 5)
    state = parse_state({"figure": [figure.id], **query}, Catalog([figure]))
    assert state.ticks == ticks
    assert [p.split(";")[0] for p in state.problems if p.startswith("ticks=")] == \
        ([problem] if problem else [])
    again = parse_state(dict(_pairs(state.to_query())), Catalog([figure]))
    assert again.ticks == ticks and ("ticks=all" in state.to_query()) == (ticks == "all")


def _pairs(search: str) -> dict:
    from urllib.parse import parse_qs

    return parse_qs(search.lstrip("?"), keep_blank_values=True)


def test_the_view_model_echoes_ticks_and_refuses_what_it_is_not(tmp_path):
    from evalmaps.core.figure import Catalog
    from evalmaps.views import BrowseView
    from evalmaps.views.models import BadQuery
    from evalmaps.views.state import parse_state
    from tests.every_label_fixture import wide_figure

    figure = wide_figure(tmp_path, 6, 5)
    catalog = Catalog([figure])
    plain = BrowseView.from_query(catalog, {"figure": [figure.id]}).to_dict()
    every = BrowseView.from_query(catalog, {"figure": [figure.id], "ticks": ["all"]}).to_dict()
    assert "ticks" not in plain and every["ticks"] == "all"
    assert {k: v for k, v in every.items() if k != "ticks"} == plain  # the same cells
    assert BrowseView.from_query(catalog, {"figure": [figure.id],
                                           "ticks": ["auto"]}).to_dict() == plain
    # the page's state and the JSON agree
    state = parse_state({"figure": [figure.id], "ticks": ["all"]}, catalog)
    assert BrowseView.of_state(figure, state).to_dict() == every
    for bad in (["sideways"], ["all", "auto"]):
        with pytest.raises(BadQuery, match="ticks must be all"):
            BrowseView.from_query(catalog, {"figure": [figure.id], "ticks": bad})


def test_a_dimension_named_ticks_keeps_its_name_and_its_labels(tmp_path):
    """``ticks`` is not reserved (no folder that loads today stops loading): in a figure with a
    dimension ``ticks``, ``?ticks=`` picks its labels, and the page offers no ``ticks=all``."""
    import json

    from evalmaps.catalog.load import load_catalog
    from evalmaps.views import BrowseView
    from evalmaps.views.state import parse_state

    (tmp_path / "catalog.json").write_text(json.dumps({"figures": [{
        "id": "t", "file": "t.csv", "title": "t", "metric": {"name": "Accuracy"},
        "x": "x", "y": "y", "facets": ["ticks"], "provenance": "imported",
        "dims": {"ticks": {"labels": ["all", "few"]}, "y": {"labels": ["a"]},
                 "x": {"labels": ["1"]}}}]}))
    (tmp_path / "t.csv").write_text("ticks,y,x,value\nall,a,1,5\nfew,a,1,6\n")
    catalog = load_catalog(tmp_path)
    state = parse_state({"figure": ["t"], "ticks": ["few"]}, catalog)
    assert state.facets == {"ticks": ("few",)} and state.ticks == "auto" and not state.problems
    view = BrowseView.from_query(catalog, {"figure": ["t"], "ticks": ["all"]}).to_dict()
    assert "ticks" not in view and [c["value"] for c in view["cells"]] == [5]
