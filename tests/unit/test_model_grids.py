"""evalmaps.core.figure: a figure's panels as dense grids."""

from __future__ import annotations

import numpy as np

from tests.unit.test_compare import make_figure


def test_panels_are_the_same_grids_whatever_the_order_of_their_cells():
    """evalmaps.core.figure builds a panel whose cells come row by row, every cell given, by
    reshaping its values, and any other by placing each cell: the grids must not tell them
    apart (values, sd and n; a cell not given is NaN)."""
    y, x = ("3000", "2000", "1000", "500"), ("0.1", "0.2", "0.3", "0.4", "0.5")
    values = {(yl, xl): (round(10 * i + 0.5 * j, 1), round(0.1 * (i + j), 2), 3 + i)
              for i, yl in enumerate(y) for j, xl in enumerate(x)}
    in_order = dict(values)
    shuffled = dict(sorted(values.items(), key=lambda kv: (kv[0][1], kv[0][0]), reverse=True))
    gap = {k: v for k, v in values.items() if k != ("2000", "0.3")}
    fig = make_figure("orders", {"in-order": in_order, "shuffled": shuffled, "gap": gap},
                      y=y, x=x)
    expected = {name: np.array([[values[(yl, xl)][k] for xl in x] for yl in y], dtype=float)
                for k, name in enumerate(("value", "sd", "n"))}
    for slug in ("in-order", "shuffled", "gap"):
        panel = fig.panels[slug]
        for name, grid in (("value", panel.z), ("sd", panel.sd), ("n", panel.n)):
            want = expected[name].copy()
            if slug == "gap":
                want[1, 2] = np.nan
            np.testing.assert_array_equal(grid, want, err_msg=f"{slug} {name}")
            assert grid.dtype == np.float64
            assert not np.shares_memory(grid, fig.cells[name].to_numpy())  # a grid of its own
