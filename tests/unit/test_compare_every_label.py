"""Issue 37, labels lost, on Compare: ``ticks=all`` labels every row and column of A, B and
B − A. The key is read by CompareState (and kept by the page's transitions, as no control sets
it), echoed by CompareView and ``/compare.json``; the three maps are a label high a row, with
a tick at every row and column, and share their margins so that drawn at one width their
squares line up. The default (no key) is unchanged. Numbers are worked by hand in comments."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from evalmaps.analysis.compare import align, resolve
from evalmaps.core.figure import Catalog
from evalmaps.figures.compare import compare_figures
from evalmaps.figures.heatmap import every_label_width
from tests.every_label_fixture import column_names, row_names, wide_pair_figure

ROWS, COLS = 60, 50


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    figure = wide_pair_figure(tmp_path_factory.mktemp("pair"), ROWS, COLS)
    catalog = Catalog([figure])
    return catalog, align(resolve(catalog, "widepair:base"), resolve(catalog, "widepair:tuned"))


def _y_ticks(fig: dict) -> list[str]:
    """The row labels a figure asks plotly.js to write: all (a tick every row: linear, dtick 1)
    or those of an array of ticks."""
    axis, labels = fig["layout"]["yaxis"], list(fig["layout"]["yaxis"]["categoryarray"])
    if axis.get("tickmode") == "array":
        return list(axis["ticktext"])
    assert axis.get("tickmode") == "linear" and axis.get("dtick") == 1 and axis["tick0"] == 0
    return labels


@pytest.mark.parametrize("power", [False, True])
def test_the_three_maps_label_every_row_and_column_and_line_up(pair, power):
    _, al = pair
    default = compare_figures(al, "shared", True, power)
    every = compare_figures(al, "shared", True, power, every=True)
    # the default overview: 720 px (more than 40 columns), one row in two labelled
    # (720 - 119 = 601 px of plot for 60 rows of 15 px: ceil(900 / 601) = 2)
    for fig in default:
        assert fig["layout"]["height"] == 720
        assert _y_ticks(fig) == row_names(ROWS)[::2]
    # ticks=all: 119 + 10 + 15 * 60 = 1029 px, a tick at every row and every column
    for fig in every:
        assert fig["layout"]["height"] == 1029
        assert _y_ticks(fig) == row_names(ROWS)
        xaxis = fig["layout"]["xaxis"]
        assert xaxis["tickmode"] == "linear" and list(xaxis["categoryarray"]) == \
            column_names(COLS)
    # the same margins on all three (the widest bar's room): the same plot at the same width,
    # so A's, B's and B − A's columns line up; and each still holds its own colour bar
    margins = [(f["layout"]["margin"]["l"], f["layout"]["margin"]["r"]) for f in every]
    assert len(set(margins)) == 1
    left, r = margins[0]
    assert r == max(f["layout"]["margin"]["r"] for f in default)
    assert all(r >= f["layout"]["margin"]["r"] for f in default)
    assert left == default[0]["layout"]["margin"]["l"]
    # at least 15 px a column beside the margins: l + r + 750
    widths = {every_label_width(f["layout"], COLS) for f in every}
    assert widths == {left + r + 15 * COLS}
    # the data drawn is the same, key or not (only the layout changes)
    for a, b in zip(default, every):
        assert a["data"] == b["data"]


def test_the_default_maps_keep_their_own_margins(pair):
    """No key: B − A's right margin is its own bar's (unchanged), A keeps B's room."""
    from evalmaps.figures.compare import delta_figure, side_figure

    _, al = pair
    a, b, delta = compare_figures(al, "shared", True)
    assert a["layout"]["margin"]["r"] == b["layout"]["margin"]["r"]
    alone = [side_figure(al, "a", (0.0, 1.0)), delta_figure(al)]
    assert delta["layout"]["margin"] == alone[1]["layout"]["margin"]
    assert a["layout"]["margin"] == alone[0]["layout"]["margin"]


def _parse(catalog, query: str):
    from evalmaps.views.state import parse_compare_state

    return parse_compare_state(parse_qs(query.lstrip("?"), keep_blank_values=True), catalog)


@pytest.mark.parametrize("query, ticks, problem", [
    ("figure=widepair", "auto", None),
    ("figure=widepair&ticks=all", "all", None),
    ("figure=widepair&ticks=auto", "auto", None),
    ("figure=widepair&ticks=sideways", "auto", "ticks=sideways is not all or auto"),
    ("a=widepair:tuned&b=widepair:base&color=fixed&labels=off&ticks=all", "all", None),
])
def test_compare_state_reads_ticks_and_writes_it_back(pair, query, ticks, problem):
    catalog, _ = pair
    state = _parse(catalog, query)
    assert state.ticks == ticks
    assert [p.split(";")[0] for p in state.problems] == ([problem] if problem else [])
    search = state.to_query(("widepair:base", "widepair:tuned"))
    assert ("ticks=all" in search) == (ticks == "all") and "ticks=auto" not in search
    again = _parse(catalog, search)
    assert again == state.__class__(**{**state.__dict__, "problems": ()})


def test_the_pages_transitions_keep_ticks(pair):
    """No control sets ticks: the state the controls show takes it from the page (the store
    the maps were drawn with), a swap or a menu keeps it, and the URL still says it."""
    from evalmaps.views.transitions import same_view, shown_state, swapped

    catalog, _ = pair
    default = ("widepair:base", "widepair:tuned")
    showing = {"a": "widepair:base", "b": "widepair:tuned", "color": "shared",
               "show_values": True, "scale": "uniform", "pct": False, "k": 1, "cluster": "",
               "power": False, "ydim": None, "xdim": None, "rest": [], "rest_ids": []}
    plain = shown_state(catalog, showing, default)
    shown = shown_state(catalog, {**showing, "ticks": "all"}, default)
    assert plain.ticks == "auto" and shown.ticks == "all"
    moved = swapped(shown).state
    assert (moved.a, moved.b, moved.ticks) == ("widepair:tuned", "widepair:base", "all")
    assert parse_qs(moved.to_query(default).lstrip("?"))["ticks"] == ["all"]
    # the address names ticks=all and the page drew the overview (a back step): not the same
    # view, so it is drawn again; the same key on both: the same view
    url = _parse(catalog, "ticks=all")
    assert not same_view(url, plain, showing)
    assert same_view(url, shown, showing)
    assert same_view(_parse(catalog, ""), plain, showing)


def test_the_json_twin_echoes_ticks_beside_the_same_cells(pair):
    from evalmaps.views import CompareView
    from evalmaps.views.models import BadQuery

    catalog, _ = pair
    plain = CompareView.from_query(catalog, {"figure": ["widepair"]}).to_dict()
    every = CompareView.from_query(catalog, {"figure": ["widepair"], "ticks": ["all"]}).to_dict()
    assert "ticks" not in plain and every["ticks"] == "all"
    assert every["url"] == "/compare?ticks=all" and plain["url"] == "/compare"
    assert {k: v for k, v in every.items() if k not in ("ticks", "url")} == \
        {k: v for k, v in plain.items() if k != "url"}
    assert CompareView.from_query(catalog, {"figure": ["widepair"],
                                            "ticks": ["auto"]}).to_dict() == plain
    for bad in (["sideways"], ["all", "auto"]):
        with pytest.raises(BadQuery, match="ticks must be all"):
            CompareView.from_query(catalog, {"figure": ["widepair"], "ticks": bad})


def test_a_dimension_named_ticks_is_a_label_on_compare(tmp_path):
    """Two labels of a dimension of a figure with a dimension ``ticks``: ``?ticks=`` fixes
    that dimension at a label (the key is not reserved), and no ticks=all is read."""
    import json

    from evalmaps.catalog.load import load_catalog
    from evalmaps.views import CompareView
    from evalmaps.views.transitions import ticks_kept

    (tmp_path / "catalog.json").write_text(json.dumps({"figures": [{
        "id": "t", "file": "t.csv", "title": "t", "metric": {"name": "Accuracy"},
        "x": "x", "y": "y", "facets": ["ticks", "model"], "provenance": "imported",
        "dims": {"ticks": {"labels": ["all", "few"]}, "model": {"labels": ["m1", "m2"]},
                 "y": {"labels": ["a"]}, "x": {"labels": ["1"]}}}]}))
    (tmp_path / "t.csv").write_text("ticks,model,y,x,value\nall,m1,a,1,5\nfew,m1,a,1,6\n"
                                    "all,m2,a,1,7\nfew,m2,a,1,9\n")
    catalog = load_catalog(tmp_path)
    query = "a=t:model=m1&b=t:model=m2&ticks=few"
    state = _parse(catalog, query)
    assert state.ticks == "auto" and state.fixed == (("ticks", "few"),) and not state.problems
    view = CompareView.from_query(catalog, parse_qs(query)).to_dict()
    assert "ticks" not in view and view["grid"]["fixed"] == {"ticks": "few"}
    assert [c["b"] - c["a"] for c in view["cells"]] == [3]
    assert ticks_kept(catalog, state.__class__(**{**state.__dict__, "ticks": "all"})) == state


def test_the_nav_links_carry_ticks_to_compare_and_browse():
    """Browse's and Compare's own key: the nav links to either page keep it, to the others
    not (Trends, Data and Rank read no ticks)."""
    from evalmaps.views.state import nav_href

    search = "?a=widepair%3Abase&b=widepair%3Atuned&ticks=all"
    assert nav_href("/compare", search) == \
        "/compare?a=widepair%3Abase&b=widepair%3Atuned&ticks=all"
    assert nav_href("/", "?figure=wide&ticks=all") == "/?figure=wide&ticks=all"
    assert "ticks" not in nav_href("/trends", "?figure=wide&ticks=all")
    assert "ticks" not in nav_href("/data", "?figure=wide&ticks=all")
