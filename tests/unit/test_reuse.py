"""components.reuse: the Compare maps' arrays the browser holds are referred to, not sent again,
and what the browser makes from the references is the figure the server built.

The oracle is the server's own full figure: :func:`resolve` (the browser's ``evalmapsLib.compare.assemble``
in Python; the browser test checks the JavaScript against the same figures) must give it back
exactly, and an elided figure must hold no value the browser already has."""

from __future__ import annotations

import numpy as np
import pytest

from components.reuse import annotate, apply, decode, digest, elide, resolve
from evalmaps.analysis.compare import align, compare
from evalmaps.figures.compare import compare_figures
from tests.plotly_render import decode as plain_decode
from tests.unit.test_compare import BENCH_KEYS, DEFAULT_A, DEFAULT_B, lm_eval_pair

OTHER = BENCH_KEYS[2]  # R1-Llama | AMC23: over the same axes as the default pair


def figures(al) -> list[dict]:
    return annotate(compare_figures(al, "shared", True))[0]


def swapped(al):
    return align(al.b, al.a)


def arrays_of(figs: list[dict]) -> list:
    """Every typed array or reference of the figures, in order (figure, trace, field)."""
    return [trace[f] for fig in figs for trace in fig["data"] for f in ("z", "customdata")
            if isinstance(trace.get(f), dict)]


def same_figures(got: list[dict], want: list[dict]) -> None:
    """Equal as the browser draws them: typed arrays by value (NaN equal to NaN, -0 apart from
    +0), everything else exactly."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g["layout"] == w["layout"]
        assert len(g["data"]) == len(w["data"])
        for tg, tw in zip(g["data"], w["data"]):
            assert set(tg) == set(tw)
            for key, value in tw.items():
                if isinstance(value, dict) and "bdata" in value:
                    a, b = plain_decode(tg[key]), plain_decode(value)
                    assert (tg[key]["dtype"], a.shape) == (value["dtype"], b.shape)
                    np.testing.assert_array_equal(a, b)
                    assert (np.signbit(a) == np.signbit(b))[np.isfinite(b)].all()
                else:
                    assert tg[key] == value, key


@pytest.fixture(scope="module")
def default(catalog):
    return compare(catalog, DEFAULT_A, DEFAULT_B)


@pytest.mark.parametrize("pair", ["default", "lm_eval"])
def test_a_swap_sends_no_value_and_draws_the_servers_figures(pair, default):
    al = default if pair == "default" else lm_eval_pair()
    held_figures, held = annotate(compare_figures(al, "shared", True))
    new = figures(swapped(al))
    sent = elide(new, held)
    refs = [a for a in arrays_of(sent) if "reuse" in a]
    # every value, sd/se/n and B - A array is made in the browser; only cell texts travel
    for fig in sent:
        for trace in fig["data"]:
            for field in ("z", "customdata"):
                if isinstance(trace.get(field), dict) and (trace.get("meta") or {}).get("role") != "text":
                    assert "reuse" in trace[field], (fig["layout"]["title"], field)
    ops = sorted({r["op"] for r in refs})
    assert ops == (["neg", "same", "swap01"])  # A and B moved; B - A negated, its A and B columns
    same_figures(resolve(sent, held_figures), new)


def test_lm_eval_pair_has_uncertainty_and_special_traces_that_are_reused_too():
    al = lm_eval_pair()
    held_figures, held = annotate(compare_figures(al, "shared", True))
    sent = elide(figures(swapped(al)), held)
    # B - A: values, customdata (A, B, SE, within) and the special traces' grids
    delta = sent[2]["data"]
    kinds = [(t[f]["op"] if "reuse" in t[f] else "sent") for t in delta
             for f in ("z", "customdata") if isinstance(t.get(f), dict)
             and (t.get("meta") or {}).get("role") != "text"]
    assert kinds[:2] == ["neg", "swap01"] and set(kinds) <= {"neg", "swap01"} and len(kinds) > 2


def test_one_side_changed_reuses_the_other_only(catalog, default):
    held_figures, held = annotate(compare_figures(default, "shared", True))
    new = figures(compare(catalog, DEFAULT_A, OTHER))
    sent = elide(new, held)
    a_arrays = arrays_of([sent[0]])
    assert a_arrays and all(a.get("op") == "same" for a in a_arrays if "reuse" in a)
    assert [a for a in arrays_of([sent[0]]) if "reuse" in a] == [
        {"reuse": new[0]["data"][0]["meta"]["arrays"]["z"], "op": "same"}]
    assert all("reuse" not in a for a in arrays_of(sent[1:]))  # B and B - A are new
    same_figures(resolve(sent, held_figures), new)


def test_nothing_held_or_a_hostile_list_sends_everything(default):
    new = figures(default)
    for held in (None, [], {"a": 1}, "abc", [1, 2.5, None, {"x": 1}], ["0" * 16]):
        sent = elide(new, held)
        assert all("reuse" not in a for a in arrays_of(sent))
        same_figures(sent, new)


def test_annotate_lists_the_digests_the_page_will_hold(default):
    figs, held = annotate(compare_figures(default, "shared", True))
    listed = [d for fig in figs for t in fig["data"]
              for d in ((t.get("meta") or {}).get("arrays") or {}).values()]
    assert held == listed and len(held) == len(set(held))
    for fig in figs:
        for trace in fig["data"]:
            arrays = (trace.get("meta") or {}).get("arrays") or {}
            if (trace.get("meta") or {}).get("role") == "text":
                assert arrays == {}  # rewritten by the browser (evalmapsLib.paint): never a source
            for field, key in arrays.items():
                assert key == digest(decode(trace[field]))


def test_digests_are_of_values_shape_and_dtype():
    a = np.array([[1.5, np.nan], [0.0, -2.0]], dtype=np.float32)
    other_nan = a.copy()
    other_nan.view(np.uint32)[0, 1] = 0xFFC00001  # another NaN's bits: drawn the same
    assert digest(a) == digest(other_nan)
    assert len({digest(a), digest(a.astype(np.float64)), digest(a.reshape(1, 4)),
                digest(a.T.copy()), digest(-a)}) == 5


def test_operations_are_the_browsers():
    z = np.array([[1.5, -0.0, 0.0, np.nan]], dtype=np.float32)
    neg = apply("neg", z)
    assert neg.dtype == np.float32
    np.testing.assert_array_equal(neg, [[-1.5, 0.0, 0.0, np.nan]])
    assert not np.signbit(neg[0, 1:3]).any()  # 0 - x: a zero is +0
    custom = np.arange(12, dtype=float).reshape(1, 3, 4)
    swapped_columns = apply("swap01", custom)
    np.testing.assert_array_equal(swapped_columns[0, :, 0], custom[0, :, 1])
    np.testing.assert_array_equal(swapped_columns[0, :, 1], custom[0, :, 0])
    np.testing.assert_array_equal(swapped_columns[..., 2:], custom[..., 2:])
    with pytest.raises(ValueError):
        apply("rm -rf", z)


def test_a_negative_zero_is_sent_not_made(default):
    """0 - (0 - x) is +0 for x = -0: the browser could not make a -0 (d3 writes it '−0.0'), so
    an array holding one is sent."""
    held_figures, held = annotate(compare_figures(default, "shared", True))
    new = figures(swapped(default))
    trace = new[2]["data"][0]
    z = decode(trace["z"]).copy()
    z[np.isfinite(z) & (z == 0)] = -0.0
    z[0, 0] = -0.0
    from evalmaps.figures.theme import typed
    trace["z"] = typed(z, trace["z"]["dtype"])
    trace["meta"]["arrays"]["z"] = digest(z)
    sent = elide(new, held)
    assert "reuse" not in sent[2]["data"][0]["z"]
