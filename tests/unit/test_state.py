"""View state <-> query string: round trips, short defaults, and forgiving parsing."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from evalmaps.views.state import ViewState, parse_state, state_from_controls

QWEN = "dynts-llama-vs-qwen"
BENCH = "dynts-r1-llama-benchmarks"
CORE = "core-generalization"
ACE = "acemath-training-progress"


def query_of(state: ViewState) -> dict[str, list[str]]:
    return parse_qs(state.to_query()[1:], keep_blank_values=True)


def round_trip(state: ViewState, catalog) -> ViewState:
    return parse_state(query_of(state), catalog)


STATES = [
    ViewState(QWEN),
    ViewState(CORE),
    ViewState(QWEN, {"model": ("R1-Qwen",)}, rows=("2000", "500"), x_range=(0.2, 0.4),
              color="shared", show_values=False),
    ViewState(BENCH, {"benchmark": ("AIME24", "AMC23", "GPQA-Diamond")}),
    ViewState(ACE, {"benchmark": ("Math 500", "Average")}, rows=("32b",), color="fixed"),
    ViewState(CORE, rows=(), show_values=False),
    ViewState(CORE, x_range=(3.0, 5.0)),
    ViewState(CORE, x_range=(0.0, 5.0), rows=("~", ">")),
]


@pytest.mark.parametrize("state", STATES, ids=lambda s: s.to_query())
def test_round_trip(catalog, state):
    back = round_trip(state, catalog)
    assert back == state
    assert back.problems == ()


def test_repeated_facet_labels_in_query(catalog):
    q = query_of(ViewState(BENCH, {"benchmark": ("AIME24", "AMC23")}, rows=("3000", "500")))
    assert q == {"figure": [BENCH], "benchmark": ["AIME24", "AMC23"], "rows": ["3000", "500"]}


@pytest.mark.parametrize("state", [ViewState("x"), ViewState("x", {}, None, None, "figure", True)])
def test_defaults_are_omitted(state):
    assert state.to_query() == "?figure=x"


@pytest.mark.parametrize("state, expected", [
    (ViewState("x", rows=()), "?figure=x&rows="),
    (ViewState("x", x_range=(0.2, 0.4)), "?figure=x&xmin=0.2&xmax=0.4"),
    (ViewState("x", color="shared", show_values=False), "?figure=x&color=shared&labels=off"),
    (ViewState("x", {"model": ("R1 Qwen",)}), "?figure=x&model=R1+Qwen"),
])
def test_non_defaults_are_written(state, expected):
    assert state.to_query() == expected


def test_extra_keys(catalog):
    assert ViewState("x").to_query({"a": "p", "b": ["q", "r"]}) == "?figure=x&a=p&b=q&b=r"


def test_unknown_figure_falls_back_to_first(catalog):
    state = parse_state({"figure": "no-such-figure"}, catalog)
    assert state.figure == catalog.ids[0]
    assert len(state.problems) == 1 and "no-such-figure" in state.problems[0]


def test_no_figure_uses_default_then_first(catalog):
    assert parse_state({}, catalog) == ViewState(catalog.ids[0])
    assert parse_state({}, catalog, default_figure=QWEN) == ViewState(QWEN)


def test_unknown_facet_labels_dropped_with_problem(catalog):
    state = parse_state({"figure": QWEN, "model": ["R1-Qwen", "GPT-9"]}, catalog)
    assert state.facets == {"model": ("R1-Qwen",)}
    assert len(state.problems) == 1 and "GPT-9" in state.problems[0]


def test_only_unknown_facet_labels_keep_all(catalog):
    state = parse_state({"figure": QWEN, "model": "GPT-9"}, catalog)
    assert state.facets == {} and "GPT-9" in state.problems[0]


def test_unknown_colour_mode_dropped_with_problem(catalog):
    state = parse_state({"figure": QWEN, "color": "rainbow"}, catalog)
    assert state.color == "figure" and "rainbow" in state.problems[0]


def test_unknown_rows_dropped_with_problem(catalog):
    state = parse_state({"figure": QWEN, "rows": ["2000", "bogus"]}, catalog)
    assert state.rows == ("2000",)
    assert any("bogus" in p for p in state.problems)


@pytest.mark.parametrize("query", [
    {"model": ["R1-Qwen", "R1-Llama"]},
    {"rows": ["500", "1000", "2000", "3000"]},
    {"xmin": "0.1", "xmax": "0.5"},
    {"xmin": "0", "xmax": "9"},       # wider than the axis: clamped to the full range
    {"color": "figure", "labels": "on"},
])
def test_full_selections_collapse_to_default(catalog, query):
    state = parse_state({"figure": QWEN, **query}, catalog)
    assert state == ViewState(QWEN)
    assert state.to_query() == f"?figure={QWEN}"


@pytest.mark.parametrize("rows", ["", [""]])
def test_empty_rows_means_no_rows(catalog, rows):
    assert parse_state({"figure": QWEN, "rows": rows}, catalog).rows == ()


def test_rows_keep_catalog_order(catalog):
    assert parse_state({"figure": QWEN, "rows": ["500", "2000"]}, catalog).rows == ("2000", "500")


@pytest.mark.parametrize("query, x_range", [
    ({"xmin": "0.4", "xmax": "0.2"}, (0.2, 0.4)),
    ({"xmin": "0.2"}, (0.2, 0.5)),
    ({"xmax": "0.3"}, (0.1, 0.3)),
    ({"xmin": "abc", "xmax": "0.3"}, (0.1, 0.3)),
    ({"xmin": "abc"}, None),
    ({"xmin": ""}, None),
])
def test_x_range_parsing(catalog, query, x_range):
    assert parse_state({"figure": QWEN, **query}, catalog).x_range == x_range


@pytest.mark.parametrize("value, labels", [("off", False), ("on", True), (["off"], False)])
def test_labels_parsing(catalog, value, labels):
    assert parse_state({"figure": QWEN, "labels": value}, catalog).show_values is labels


def test_str_and_list_values_are_equivalent(catalog):
    as_str = {"figure": QWEN, "model": "R1-Qwen", "rows": "500", "xmin": "0.2", "color": "shared"}
    as_list = {k: [v] for k, v in as_str.items()}
    assert parse_state(as_str, catalog) == parse_state(as_list, catalog) == ViewState(
        QWEN, {"model": ("R1-Qwen",)}, rows=("500",), x_range=(0.2, 0.5), color="shared")


# ------------------------------------------------------------------------- from controls


def test_controls_full_selections_collapse(catalog):
    fig = catalog.figure(BENCH)
    state = state_from_controls(fig, {"model": ["R1-Llama"],
                                      "benchmark": ["AMC23", "AIME24", "AIME25", "GPQA-Diamond"]},
                                rows=["500", "1000", "2000", "3000"], x_range=[0.1, 0.5],
                                color=None, show_values=None)
    assert state == ViewState(BENCH)


def test_controls_narrowed_selection(catalog):
    fig = catalog.figure(BENCH)
    state = state_from_controls(fig, {"benchmark": ["AMC23", "AIME24"]}, rows=["500", "3000"],
                                x_range=[0.4, 0.2], color="shared", show_values=False)
    assert state == ViewState(BENCH, {"benchmark": ("AIME24", "AMC23")}, rows=("3000", "500"),
                              x_range=(0.2, 0.4), color="shared", show_values=False)
    assert round_trip(state, catalog) == state


def test_controls_no_rows(catalog):
    state = state_from_controls(catalog.figure(QWEN), {}, rows=[], x_range=None, color="fixed",
                                show_values=True)
    assert state.rows == () and round_trip(state, catalog) == state


def test_controls_empty_facet_selection_round_trips(catalog):
    state = state_from_controls(catalog.figure(QWEN), {"model": []}, rows=None, x_range=None,
                                color=None, show_values=None)
    assert state.facets == {"model": ()}
    assert round_trip(state, catalog) == state


def test_non_numeric_xmin_is_reported(catalog):
    state = parse_state({"figure": QWEN, "xmin": "abc"}, catalog)
    assert state.x_range is None and any("xmin=abc" in p for p in state.problems)


def test_range_is_swapped_before_clamping(catalog):
    state = parse_state({"figure": "core-generalization", "xmin": "100", "xmax": "5"}, catalog)
    assert state.x_range == (5, 19)
    outside = parse_state({"figure": "core-generalization", "xmin": "100", "xmax": "200"}, catalog)
    assert outside.x_range is None and any("outside the axis" in p for p in outside.problems)


def test_many_panel_figures_open_on_their_first_panel(tmp_path):
    """A published table can give fifty panels: the default view is one, the URL says which."""
    import json as _json

    from evalmaps.catalog.load import load_catalog
    from evalmaps.views.state import MAX_DEFAULT_PANELS

    models = [f"m{i}" for i in range(MAX_DEFAULT_PANELS + 1)]
    (tmp_path / "catalog.json").write_text(_json.dumps({"figures": [{
        "id": "many", "file": "many.csv", "title": "many", "metric": {"name": "Accuracy"},
        "x": "x", "y": "y", "facets": ["model"], "provenance": "imported",
        "dims": {"model": {"labels": models}, "y": {"labels": ["a"]}, "x": {"labels": ["1"]}}}]}))
    (tmp_path / "many.csv").write_text("model,y,x,value\n" + "".join(f"{m},a,1,5\n" for m in models))
    many = load_catalog(tmp_path)
    state = parse_state({"figure": "many"}, many)
    assert state.facets == {"model": ("m0",)}
    assert state.to_query() == "?figure=many&model=m0"
    everything = state_from_controls(many.figure("many"), {"model": models}, None, None, None, None)
    assert everything.facets == {"model": tuple(models)}  # explicit: "all" is not the default here
    assert round_trip(everything, many) == everything


def test_most_rows_are_written_as_the_rows_hidden(catalog):
    """At thousands of rows a URL must stay short: a selection of most rows names the rest."""
    figure = catalog.figure("short-to-long")
    ylabels = figure.spec.dims[figure.spec.y].labels  # 1..7
    most = ViewState("short-to-long", rows=("1", "2", "3", "5", "6", "7"))
    assert most.to_query(y_labels=ylabels) == "?figure=short-to-long&hide=4"
    assert parse_state({"figure": "short-to-long", "hide": "4"}, catalog) == most
    few = ViewState("short-to-long", rows=("2", "4"))
    assert few.to_query(y_labels=ylabels) == "?figure=short-to-long&rows=2&rows=4"
    assert parse_state({"figure": "short-to-long", "hide": ["4", "nope"]}, catalog).problems == (
        "Unknown type row(s) nope ignored.",)


# --------------------------------------------------------------------------- nav links

BROWSE_QUERY = ("?figure=dynts-r1-llama-benchmarks&benchmark=AIME24&benchmark=AMC23&xmin=0.2"
                "&labels=off&color=fixed&a=x&format=csv&overlay=1&sort=mean")


@pytest.mark.parametrize("path, expected", [
    ("/", "/?figure=dynts-r1-llama-benchmarks&benchmark=AIME24&benchmark=AMC23&xmin=0.2"
          "&labels=off&color=fixed&sort=mean"),
    ("/trends", "/trends?figure=dynts-r1-llama-benchmarks&benchmark=AIME24&benchmark=AMC23"
                "&xmin=0.2&overlay=1&sort=mean"),
    ("/data", "/data?figure=dynts-r1-llama-benchmarks&benchmark=AIME24&benchmark=AMC23"
              "&xmin=0.2&sort=mean"),
    ("/compare", "/compare?labels=off&color=fixed&a=x"),
    ("/nowhere", "/nowhere"),  # not a nav page: nothing carried
])
def test_nav_links_carry_each_page_its_keys(path, expected):
    from evalmaps.views.state import nav_href

    assert nav_href(path, BROWSE_QUERY) == expected


@pytest.mark.parametrize("search, expected", [
    ("", "/data"),
    (None, "/data"),
    ("?", "/data"),
    ("figure=x", "/data?figure=x"),  # with or without its "?"
    ("?model=R1+Llama&rows=a%26b&rows=", "/data?model=R1+Llama&rows=a%26b&rows="),
    ("?rows", "/data?rows="),  # a key with no "=": an empty value, as URLSearchParams reads it
    ("?task=%7E*-._%20%C3%A9%2F:", "/data?task=%7E*-._+%C3%A9%2F%3A"),  # URLSearchParams' encoding
    ("?a=1&&rows=2", "/data?rows=2"),  # empty pairs skipped; a is Compare's
])
def test_nav_links_write_queries_as_the_browser_does(search, expected):
    from evalmaps.views.state import nav_href

    assert nav_href("/data", search) == expected


@pytest.mark.parametrize("path, expected", [
    ("/rank", "/rank?by=model&cluster=src"),
    ("/", "/?figure=toy&model=m1&cluster=src"),
    ("/trends", "/trends?figure=toy&model=m1&cluster=src"),
    ("/compare", "/compare?cluster=src"),
    ("/data", "/data?figure=toy&model=m1"),  # Data reads no cluster=
])
def test_nav_links_carry_cluster_to_the_pages_that_read_it(path, expected):
    """cluster= (issue 39) goes to Browse, Trends, Compare and Rank, which all read it."""
    from evalmaps.views.state import nav_href

    assert nav_href(path, "?figure=toy&by=model&model=m1&cluster=src") == expected


@pytest.mark.parametrize("search, rankable_ids, expected", [
    ("?figure=toy&model=m1&cluster=src", ["other", "toy"], "/rank?figure=toy&cluster=src"),
    ("?figure=toy&model=m1&cluster=src", ["other"], "/rank?cluster=src"),  # Rank's default
    ("?figure=toy&model=m1&cluster=src", [], "/rank?cluster=src"),
    ("?cluster=src&by=model&figure=toy", ["toy"], "/rank?figure=toy&cluster=src&by=model"),
    ("?figure=a%20b&figure=toy", ["a b", "toy"], "/rank?figure=a+b"),  # the first figure
    ("?figure=toy&figure=a", ["a"], "/rank"),  # the first figure only: not rankable
    ("?a=toy%3Ax&b=toy%3Ay", ["toy"], "/rank"),  # Compare names no figure
])
def test_ranks_nav_link_carries_the_figure_when_rank_can_rank_it(search, rankable_ids, expected):
    """Rank takes one figure of those it can rank: its link carries the page's (first) figure
    when Rank can rank it, else none, for Rank's default; no other page's link changes."""
    from evalmaps.views.state import nav_href

    assert nav_href("/rank", search, rankable_ids) == expected
    assert nav_href("/", search, rankable_ids) == nav_href("/", search)
    assert nav_href("/trends", search, rankable_ids) == nav_href("/trends", search)

