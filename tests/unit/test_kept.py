"""evalmaps.core.kept.Kept: the one bounded LRU behind a cell's items, Compare's paired grids
and the Rank answers, checked against a hand-worked sequence and a plain reference model."""

from __future__ import annotations

import threading
from collections import OrderedDict

from hypothesis import given
from hypothesis import strategies as st

from evalmaps.core.kept import Kept


def test_a_hand_worked_sequence_of_weighed_values():
    kept = Kept(10, weigh=len)
    assert kept.put("a", "xxxx") and kept.put("b", "xxx") and kept.put("c", "xx")
    assert (len(kept), kept.size) == (3, 9)
    assert kept.get("a") == "xxxx"  # a is now the most recently used: b is the oldest
    assert kept.put("d", "xxx")  # 12 > 10: b (3) goes, 9 left
    assert kept.get("b") is None and kept.size == 9
    assert [k for k in ("a", "c", "d") if kept.get(k) is not None] == ["a", "c", "d"]
    assert not kept.put("e", "x" * 11)  # heavier than the whole limit: not kept, nothing drops
    assert kept.get("e") is None and kept.size == 9
    assert kept.put("a", "x")  # replaced: its old weight is taken off
    assert kept.size == 6
    kept.drop("c")
    assert kept.size == 4 and kept.get("c") is None
    kept.clear()
    assert (len(kept), kept.size) == (0, 0)


@given(st.lists(st.tuples(st.sampled_from("get put drop".split()), st.integers(0, 6),
                          st.integers(1, 5)), max_size=60), st.integers(1, 12))
def test_it_behaves_as_a_plain_ordered_dict_model(steps, limit):
    kept, model = Kept(limit, weigh=lambda v: v), OrderedDict()
    for op, key, weight in steps:
        if op == "get":
            expected = model.get(key)
            if expected is not None:
                model.move_to_end(key)
            assert kept.get(key) == expected
        elif op == "put":
            stored = kept.put(key, weight)
            assert stored == (weight <= limit)
            if stored:
                model.pop(key, None)
                model[key] = weight
                while sum(model.values()) > limit:
                    model.popitem(last=False)
        else:
            kept.drop(key)
            model.pop(key, None)
        assert kept.size == sum(model.values()) <= limit and len(kept) == len(model)


def test_threads_keep_the_weight_exact():
    kept = Kept(50)

    def work(offset):
        for i in range(2000):
            kept.put((offset, i % 70), i)
            kept.get((offset, (i * 7) % 70))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert kept.size == len(kept) == 50
