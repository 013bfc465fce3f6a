"""Estimators over an item's samples that every layer shares.

``pass_at_k``: the unbiased estimator of pass@k from n samples of which c are right (Chen et al.,
2021, "Evaluating Large Language Models Trained on Code"): 1 - C(n-c, k) / C(n, k), the chance
that k samples drawn without replacement from the n include a right one. Computed as the product
1 - prod_{i=n-c+1..n} (1 - k/i), which stays exact in floating point where the binomials
overflow.
"""

from __future__ import annotations

import numpy as np


def pass_at_k(n, c, k: int) -> np.ndarray:
    """Unbiased pass@k per item, from its samples ``n`` and right samples ``c`` (arrays or
    numbers). ``k`` must be at least 1 and at most every item's n."""
    n = np.asarray(n, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    if n.size and int(n.min()) < k:
        raise ValueError(f"pass@{k} needs at least {k} samples of every item; one has {int(n.min())}")
    if n.size and (int(c.min()) < 0 or bool((c > n).any())):
        raise ValueError("a right-sample count is below 0 or above the item's samples")
    out = np.ones(np.broadcast(n, c).shape, dtype=np.float64)
    n_b, c_b = np.broadcast_arrays(n, c)
    fails = n_b - c_b
    sure = fails < k  # fewer wrong samples than k: every draw of k holds a right one
    width = int(c_b.max()) if c_b.size else 0
    if width:
        # prod over i in (n-c, n] of (1 - k/i): the chance that all k draws are wrong
        steps = np.arange(1, width + 1)
        i = fails[..., None] + steps  # n-c+1 .. n-c+width
        terms = np.where(steps <= c_b[..., None], 1.0 - k / i, 1.0)
        out = 1.0 - np.prod(terms, axis=-1)
    out = np.where(c_b == 0, 0.0, out)
    return np.where(sure & (c_b > 0), 1.0, out)
