"""The prefix every label of a dimension shares (evalmaps.core.labels): cut at a separator,
long enough to be worth leaving out, never leaving a label empty."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmaps.core.labels import (
    MIN_PREFIX_CHARS,
    SEPARATORS,
    label_prefix,
    shortened,
    without_prefix,
)

PYTHIA = ["EleutherAI/pythia-v1.1-70m", "EleutherAI/pythia-v1.1-160m",
          "EleutherAI/pythia-v1.1-410m", "EleutherAI/pythia-v1.1-1b-bf16",
          "EleutherAI/pythia-v1.1-1.4b", "EleutherAI/pythia-v1.1-2.8b",
          "EleutherAI/pythia-v1.1-6.9b", "EleutherAI/pythia-v1.1-12b"]


def test_the_pythia_models_lose_their_shared_start():
    prefix, rest = shortened(PYTHIA)
    assert prefix == "EleutherAI/pythia-v1.1-"
    assert rest == ["70m", "160m", "410m", "1b-bf16", "1.4b", "2.8b", "6.9b", "12b"]


@pytest.mark.parametrize("labels, prefix", [
    # cut at the last separator, not inside a word: '1b' and '12b' share '1', which stays
    (["models/pythia-1b", "models/pythia-12b"], "models/pythia-"),
    (["crows_pairs_english", "crows_pairs_french"], "crows_pairs_"),
    (["hendrycksTest-anatomy", "hendrycksTest-astronomy"], "hendrycksTest-"),
    (["my results 1", "my results 2"], "my results "),
    # every separator counts: the last one before the labels differ
    (["org/team_model-a", "org/team_model-b"], "org/team_model-"),
    # a label that is all prefix keeps it: the cut goes back to an earlier separator
    (["openai/gpt-4o-mini", "openai/gpt-4o-mini-2024"], "openai/gpt-4o-"),
    (["lab/models/base", "lab/models/base-chat", "lab/models/base-code"], "lab/models/"),
    # short shared starts stay: part of the name
    (["R1-Llama", "R1-Qwen"], ""),
    (["gpt-4o", "gpt-4.1"], ""),
    # no separator in the shared start, or nothing shared
    (["pythia70m", "pythia160m"], ""),
    (["0.1", "0.2", "0.3"], ""),
    (["arc_easy", "lambada_openai"], ""),
    # one label (or one repeated) has nothing to tell apart
    (["EleutherAI/pythia-v1.1-70m"], ""),
    (["EleutherAI/pythia-v1.1-70m"] * 3, ""),
    ([], ""),
])
def test_prefix_rules(labels, prefix):
    assert label_prefix(labels) == prefix


def test_a_label_equal_to_a_longer_shared_start_is_never_emptied():
    labels = ["results/run-a/", "results/run-a/x", "results/run-a/y"]
    prefix, rest = shortened(labels)
    assert prefix == "results/run-"  # not 'results/run-a/': the first label would be empty
    assert rest == ["a/", "a/x", "a/y"]


def test_without_prefix_leaves_other_labels_alone():
    assert without_prefix("EleutherAI/pythia-v1.1-70m", "EleutherAI/pythia-v1.1-") == "70m"
    assert without_prefix("other", "EleutherAI/pythia-v1.1-") == "other"
    assert without_prefix("EleutherAI/", "EleutherAI/") == "EleutherAI/"  # never empty
    assert without_prefix("x", "") == "x"


label_text = st.text(alphabet="ab/-_ .1", max_size=12)


@given(st.lists(label_text, min_size=0, max_size=6))
def test_any_labels_keep_a_nonempty_rest_and_a_prefix_ending_at_a_separator(labels):
    prefix, rest = shortened(labels)
    assert prefix == "" or (prefix[-1] in SEPARATORS and len(prefix) >= MIN_PREFIX_CHARS)
    for label, short in zip(labels, rest):
        assert prefix + short == label if prefix else short == label
        assert short or not label
    # distinct labels stay distinct
    assert len(set(rest)) == len(set(labels))
