"""evalmaps.core.labels.label_prefix: the start every label shares, cut at a separator, that a
list of labels (Trends' legend, table and axes) can go without."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmaps.core.labels import MIN_PREFIX_CHARS
from evalmaps.core.labels import SEPARATORS as PREFIX_SEPARATORS
from evalmaps.core.labels import label_prefix as shared_prefix

PYTHIA = [f"EleutherAI/pythia-v1.1-{size}" for size in
          ("70m", "160m", "410m", "1b-bf16", "1.4b", "2.8b", "6.9b", "12b")]


@pytest.mark.parametrize("labels, expected", [
    (PYTHIA, "EleutherAI/pythia-v1.1-"),
    (["EleutherAI/pythia-70m", "EleutherAI/pythia-160m-deduped"], "EleutherAI/pythia-"),
    (["org/model_a", "org/model_b"], "org/model_"),
    (["task one", "task two"], "task "),
    (["mmlu:math", "mmlu:law"], "mmlu:"),
    # the shared start cut back to its last separator, never inside a word
    (["EleutherAI/pythia-1b", "EleutherAI/pythia-1.4b"], "EleutherAI/pythia-"),
    (["llama-7b", "llama-13b"], "llama-"),
    # a label that is the whole shared start keeps its last word
    (["gpt-4", "gpt-4-turbo"], "gpt-"),
    (["a/b", "a/b/c"], "a/"),
    (["a-", "a-b"], ""),  # the only cut would leave "a-" empty
])
def test_the_prefix_is_cut_at_a_separator(labels, expected):
    # a shared start shorter than MIN_PREFIX_CHARS stays on the labels ('R1-', 'gpt-')
    assert shared_prefix(labels) == (expected if len(expected) >= MIN_PREFIX_CHARS else "")


@pytest.mark.parametrize("labels", [
    [],
    ["EleutherAI/pythia-v1.1-70m"],  # one label: nothing to tell apart
    ["EleutherAI/x", "EleutherAI/x"],  # repeats of one label
    ["70m", "160m", "12b"],  # nothing shared
    ["pythia70m", "pythia160m"],  # shared, but no separator to cut at
    ["-1", "-2", "-10"],  # a sign, not a word
    ["0.1", "0.2"],  # numbers
    ["R1-Llama", "Qwen"],
    ["/", "/a"],
])
def test_nothing_to_cut(labels):
    assert shared_prefix(labels) == ""


def test_labels_may_be_numbers():
    assert shared_prefix([1000, 2000]) == ""


@given(st.lists(st.text(alphabet="ab-/_ 1", max_size=8), max_size=6))
def test_every_label_starts_with_it_and_keeps_a_word(labels):
    prefix = shared_prefix(labels)
    if not prefix:
        return
    assert len(set(labels)) >= 2
    assert prefix[-1] in PREFIX_SEPARATORS
    assert prefix.strip(PREFIX_SEPARATORS)  # a word, not separators only
    for label in labels:
        assert label.startswith(prefix) and label[len(prefix):]  # never empty
