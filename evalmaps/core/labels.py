"""The start every label of a dimension shares, which views may leave out.

Imported results often name each model in full: ``EleutherAI/pythia-v1.1-70m``,
``EleutherAI/pythia-v1.1-160m``, ... The shared ``EleutherAI/pythia-v1.1-`` then takes most of
an axis and says nothing that tells two rows apart. :func:`label_prefix` finds it, cut at a
separator (:data:`SEPARATORS`) so that what is left is a whole word (``70m``, never ``0m`` of
``pythia-v1.1-70m`` and ``pythia-v1.1-160m``), and only when it is long enough to be worth
leaving out (:data:`MIN_PREFIX_CHARS`: ``R1-`` of ``R1-Llama`` and ``R1-Qwen`` stays). No label
is ever left empty. The views say the prefix once (a hover, a table's title) and show the rest.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import lru_cache

SEPARATORS = "/-_ :"
# shorter shared starts stay on the labels: they take little room and are often part of the
# name ('R1-Llama', 'gpt-4o')
MIN_PREFIX_CHARS = 8


def label_prefix(labels: Iterable[str]) -> str:
    """The start every label shares, up to and with its last separator, leaving every label a
    non-empty rest; '' when there is none of at least :data:`MIN_PREFIX_CHARS` characters, or
    fewer than two distinct labels."""
    return _prefix(tuple(str(label) for label in labels))


@lru_cache(maxsize=512)
def _prefix(texts: tuple[str, ...]) -> str:
    """:func:`label_prefix` of a dimension's labels, worked out once per label set."""
    if len(set(texts)) < 2:
        return ""
    common = os.path.commonprefix(texts)
    shortest = min(len(t) for t in texts)
    for end in range(len(common), MIN_PREFIX_CHARS - 1, -1):
        # a cut after a separator that leaves something of the shortest label
        if common[end - 1] in SEPARATORS and end < shortest:
            # a start of separators only is no prefix ('-' of '-1' and '-2' is a sign)
            return common[:end] if common[:end].strip(SEPARATORS) else ""
    return ""


def without_prefix(label: str, prefix: str) -> str:
    """``label`` without ``prefix`` (as it is when it does not start with it, or would be left
    empty)."""
    label = str(label)
    if prefix and label.startswith(prefix) and len(label) > len(prefix):
        return label[len(prefix):]
    return label


def shortened(labels: Iterable[str]) -> tuple[str, list[str]]:
    """(the shared prefix, each label without it)."""
    texts = [str(label) for label in labels]
    prefix = label_prefix(texts)
    return prefix, [without_prefix(t, prefix) for t in texts]
