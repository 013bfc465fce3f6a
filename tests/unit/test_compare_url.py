"""Compare's URL when A and B are two labels of a dimension (evalmaps.views.state): the grid's
keys (ydim, xdim, avg, <dim>=<label>) round-trip, defaults are left out, what names nothing
falls back with a note, and today's panel keys read as before."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalmaps.analysis.compare import averageable, label_grid, label_ref
from evalmaps.catalog.load import load_catalog
from evalmaps.core.names import QUERY_KEYS, RESERVED_NAMES
from evalmaps.views.state import CompareState, nav_href, parse_compare_state

CATALOG = load_catalog()
PYTHIA = "pythia-zero-shot"
A14, B28 = label_ref(PYTHIA, "model", "1.4b"), label_ref(PYTHIA, "model", "2.8b")
PAIR = f"a={A14}&b={B28}"


def parse(query: str) -> CompareState:
    return parse_compare_state(parse_qs(query.lstrip("?"), keep_blank_values=True), CATALOG)


def test_the_grid_keys_are_query_keys_and_so_reserved():
    for key in ("ydim", "xdim", "avg"):
        assert key in QUERY_KEYS and key in RESERVED_NAMES
    assert "x" not in RESERVED_NAMES and "y" not in RESERVED_NAMES  # common column names


@pytest.mark.parametrize("query, grid", [
    # the defaults: task by step, metric at its first label (acc): nothing more in the URL
    (PAIR, (None, None, (), ())),
    (PAIR + "&metric=acc_norm", (None, None, (("metric", "acc_norm"),), ())),
    (PAIR + "&ydim=metric&avg=task", ("metric", None, (), ("task",))),
    (PAIR + "&ydim=&avg=task", ("", None, (), ("task",))),  # one row
    (PAIR + "&xdim=task", (None, "task", (), ())),  # step takes the rows: the default's swap
    (PAIR + "&ydim=step&xdim=metric&task=wsc", ("step", "metric", (("task", "wsc"),), ())),
])
def test_the_url_round_trips(query, grid):
    state = parse(query)
    assert state.problems == ()
    assert (state.ydim, state.xdim, state.fixed, state.averaged) == grid
    assert state.to_query() == "?" + query
    assert parse(state.to_query()) == state


def test_defaults_are_left_out_of_the_url():
    state = parse(PAIR + "&ydim=task&xdim=step&metric=acc")  # all of it the default
    assert state.to_query() == "?" + PAIR and state.problems == ()


def test_what_names_nothing_falls_back_and_says_so():
    state = parse(f"a={A14}&b=dynts-llama-vs-qwen:r1-qwen&ydim=model&metric=nope&avg=metric")
    assert (state.a, state.b) == (A14, B28)  # B: the label after A's
    assert state.problems == (
        "A and B must both be labels of model in figure 'pythia-zero-shot' (or both panels); "
        "showing pythia-zero-shot:model=2.8b as B instead.",
        "The rows cannot be chosen so: Model is the dimension compared; using the default.",
        "'nope' is not a label of metric; using acc.",
        "Metric cannot be averaged over: its labels are different metrics (acc, acc_norm); it "
        "is fixed at one label.",
    )
    assert state.to_query() == "?" + PAIR
    state = parse(f"a={PYTHIA}:model=13b&b={B28}")
    assert state.a == label_ref(PYTHIA, "model", "1.4b")  # the label before B's
    assert state.problems == (
        "A: '13b' is not a label of model in figure 'pythia-zero-shot'. Use one of: 70m, 160m, "
        "410m, 1b-bf16, 1.4b, 2.8b, 6.9b, 12b. Showing pythia-zero-shot:model=1.4b as A "
        "instead.",)


def test_one_side_given_as_a_label_gets_the_next_label_silently():
    state = parse(f"a={A14}")
    assert (state.b, state.problems) == (B28, ())


def test_panels_read_as_before_and_ignore_the_grid_keys_with_a_note():
    state = parse("a=dynts-llama-vs-qwen:r1-qwen&b=dynts-llama-vs-qwen:r1-llama&ydim=model")
    assert (state.a, state.b, state.ydim, state.labels) == (
        "dynts-llama-vs-qwen:r1-qwen", "dynts-llama-vs-qwen:r1-llama", None, False)
    assert state.problems == ("ydim, xdim and avg lay out two labels of a dimension "
                              "(a=<figure>:<dimension>=<label>); A and B are panels, so they "
                              "are ignored.",)
    mean = ("mean(dynts-r1-llama-benchmarks:r1-llama-aime24,"
            "dynts-r1-llama-benchmarks:r1-llama-aime25)")
    state = parse(f"a={mean}&b=dynts-llama-vs-qwen:r1-llama")
    assert state.a == mean and state.problems == ()
    assert state.to_query() == f"?a={mean}&b=dynts-llama-vs-qwen:r1-llama"


def test_a_label_with_a_slash_stays_readable_in_the_url():
    state = CompareState("import-x:model=EleutherAI/pythia-1.4b", "import-x:model=EleutherAI/b")
    assert state.to_query() == ("?a=import-x:model=EleutherAI/pythia-1.4b"
                                "&b=import-x:model=EleutherAI/b")
    assert CompareState("f:task=a&b+c", "f:task=x").to_query() == "?a=f:task=a%26b%2Bc&b=f:task=x"


def test_nav_links_carry_the_grid_to_compare_only():
    search = f"?{PAIR}&ydim=metric&avg=task&metric=acc&color=fixed"
    assert nav_href("/compare", search) == (
        "/compare?a=pythia-zero-shot%3Amodel%3D1.4b&b=pythia-zero-shot%3Amodel%3D2.8b"
        "&ydim=metric&avg=task&color=fixed")
    assert "ydim" not in nav_href("/", search) and "avg" not in nav_href("/trends", search)


@st.composite
def grids(draw):
    """A query of two labels of a dimension of the Pythia figure, with any grid choices."""
    spec = CATALOG.figure(PYTHIA).spec
    dim = draw(st.sampled_from(list(spec.dims)))
    labels = spec.dims[dim].labels
    a, b = draw(st.sampled_from(labels)), draw(st.sampled_from(labels))
    others = [d for d in spec.dims if d != dim]
    x = draw(st.sampled_from(others))
    y = draw(st.sampled_from(["", *[d for d in others if d != x]]))
    query = {"a": [label_ref(PYTHIA, dim, a)], "b": [label_ref(PYTHIA, dim, b)],
             "ydim": [y], "xdim": [x]}
    for d in others:
        if d in (x, y):
            continue
        if averageable(spec, d) and draw(st.booleans()):
            query.setdefault("avg", []).append(d)
        else:
            query[d] = [draw(st.sampled_from(spec.dims[d].labels))]
    return query


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=grids())
def test_any_grid_round_trips_through_its_url(query):
    state = parse_compare_state(query, CATALOG)
    assert state.problems == ()
    again = parse(state.to_query())
    assert again == state
    # the grid the URL names is the one asked for
    y, x = query["ydim"][0], query["xdim"][0]
    dim = query["a"][0].partition(":")[2].partition("=")[0]
    grid = label_grid(CATALOG.figure(PYTHIA).spec, dim, **again.grid_args())
    assert (grid.y, grid.x) == (y, x)
    assert set(grid.averaged) == set(query.get("avg", []))
    assert dict(grid.fixed) == {d: query[d][0] for d in dict(grid.fixed)}


def test_browses_panel_colour_mode_is_not_comparess():
    """Compare draws A and B on one range: ``color=panel`` (Browse's "each map its own") is
    not one of its modes, so it falls back to the shared range and says so, rather than
    reading as a mode it silently is not."""
    state = parse(PAIR + "&color=panel")
    assert state.color == "shared"
    assert state.problems == ("Colour mode 'panel' is not one of this page's (figure, fixed, "
                              "shared); using a range shared by A and B.",)
    assert parse(PAIR + "&color=fixed").color == "fixed"
