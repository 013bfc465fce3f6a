"""The x range holds only labels: a handle between two labels (a key step, a typed URL) is
narrowed to the labels inside the range, so the URL never carries a number that is no label."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from evalmaps.views.state import parse_state, snap_range, state_from_controls

BENCH = "dynts-r1-llama-benchmarks"  # ratio 0.1 0.2 0.3 0.4 0.5


@pytest.mark.parametrize("lo, hi, expected", [
    (0.105, 0.5, (0.2, 0.5)),   # ArrowRight from 0.1 by the slider's own step
    (0.1, 0.495, (0.1, 0.4)),
    (0.15, 0.35, (0.2, 0.3)),
    (0.2, 0.2, (0.2, 0.2)),
    (0.21, 0.29, None),         # no label inside
])
def test_snap_range_keeps_the_labels_inside(lo, hi, expected):
    assert snap_range((0.1, 0.2, 0.3, 0.4, 0.5), lo, hi) == expected


def test_url_between_labels_reads_as_the_labels_inside(catalog):
    state = parse_state(parse_qs(f"figure={BENCH}&xmin=0.105&xmax=0.45"), catalog)
    assert state.x_range == (0.2, 0.4)
    assert "xmin=0.2&xmax=0.4" in state.to_query()


def test_url_range_holding_no_label_shows_the_axis_and_says_so(catalog):
    state = parse_state(parse_qs(f"figure={BENCH}&xmin=0.21&xmax=0.29"), catalog)
    assert state.x_range is None
    assert state.problems == ("The ratio range 0.21 to 0.29 holds no ratio; showing all of it.",)


def test_slider_between_labels_writes_labels(catalog):
    figure = catalog.figure(BENCH)
    state = state_from_controls(figure, {}, None, [0.105, 0.5], None, None)
    assert state.x_range == (0.2, 0.5)
    assert "xmin=0.2&xmax=0.5" in state.to_query()
    # both handles between the same two labels: the label nearest the middle
    assert state_from_controls(figure, {}, None, [0.21, 0.27], None, None).x_range == (0.2, 0.2)


@pytest.mark.parametrize("fid, labelled", [
    # training steps 0, 1, 2, 4, ... 143000: not a pile of labels at the left end
    ("pythia-zero-shot", ["0", "23000", "53000", "83000", "113000", "143000"]),
    ("short-to-long", [str(n) for n in range(5, 20)]),  # every one fits
    ("core-generalization", ["0", "2", "4", "6", "8", "10", "12", "14", "16", "19"]),
])
def test_slider_labels_marks_that_do_not_touch(catalog, fid, labelled):
    from components.controls import MARK_CHAR_PX, MARK_GAP_PX, SLIDER_PX, x_range_control

    dim = catalog.figure(fid).spec.dims[catalog.figure(fid).spec.x]
    slider = x_range_control("x", dim, None).children
    shown = [label for label in slider.marks.values() if label]
    assert shown == labelled
    assert len(slider.marks) == len(dim.labels)  # a mark (a stop) for every label still
    numbers = [n for n, label in slider.marks.items() if label]
    span = max(dim.numbers) - min(dim.numbers)
    for (a, la), (b, lb) in zip(zip(numbers, shown), zip(numbers[1:], shown[1:])):
        apart = (b - a) / span * SLIDER_PX
        assert apart >= (len(la) + len(lb)) / 2 * MARK_CHAR_PX + MARK_GAP_PX / 2, (la, lb)


def test_a_long_axis_gets_a_few_marks_and_every_label_stays_reachable():
    """1000 columns gave the slider 1000 marks: Dash's slider refuses more than 500 with a
    console error ('Slider: Too many marks (1000) provided'), twice. A long axis gets marks at
    its labelled labels only (at most MAX_MARKS), and its step when evenly spaced."""
    from components.controls import MAX_MARKS, MAX_STOPS, x_range_control
    from evalmaps.core.figure import Dim

    dim = Dim("x", "X", tuple(str(i) for i in range(1000)))
    slider = x_range_control("x", dim, None).children
    assert 3 <= len(slider.marks) <= MAX_MARKS
    assert all(slider.marks.values())  # each mark labelled
    assert {0, 999} <= set(slider.marks) and slider.step == 1
    assert slider.allow_direct_input is False  # no number boxes narrowing it (Dash's, with a step)
    assert (slider.min, slider.max, slider.value) == (0, 999, [0, 999])
    # unevenly spaced (checkpoints): marks at labels, the handles snap to them
    steps = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, *range(1000, 144000, 1000)]
    uneven = x_range_control("x", Dim("step", "Step", tuple(map(str, steps))), None).children
    assert len(uneven.marks) <= MAX_MARKS and uneven.step is None
    assert {0, 143000} <= set(uneven.marks)
    assert all(str(int(n)) == label for n, label in uneven.marks.items())
    # up to MAX_STOPS labels every one is a stop, as before
    short = Dim("x", "X", tuple(str(i) for i in range(MAX_STOPS)))
    assert len(x_range_control("x", short, None).children.marks) == MAX_STOPS


@pytest.mark.parametrize("n", [51, 120, 1000, 5000])
def test_no_slider_has_more_than_max_marks(n):
    from components.controls import MAX_MARKS, slider_marks

    numbers = [i * 0.5 for i in range(n)]
    marks, step = slider_marks(numbers, [f"{x:g}" for x in numbers])
    assert len(marks) <= MAX_MARKS and step == 0.5
    numbers = list(reversed(numbers))  # out of order: every k-th
    marks, step = slider_marks(numbers, [f"{x:g}" for x in numbers])
    assert len(marks) <= MAX_MARKS and step is None


def test_a_categorical_axis_shows_no_disabled_slider_but_says_why(catalog):
    """Issue 37 (a new user, 10): MMLU-Pro's x (its metric, a name) showed a greyed-out range
    slider. The slider stays for the callbacks, hidden; a note says why there is no range."""
    from dash import dcc

    from components.controls import x_range_control

    spec = catalog.figure("mmlu-pro").spec
    dim = spec.dims[spec.x]
    assert not dim.numeric
    wrapper = x_range_control("browse-xrange", dim, None)
    slot, note = wrapper.children
    assert isinstance(slot.children, dcc.RangeSlider) and slot.children.id == "browse-xrange"
    assert slot.hidden is True  # not drawn
    assert "categorical" in note.children and "no range" in note.children
