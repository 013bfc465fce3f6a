"""The Data page's download of a large slice (issue 37, red team 10): 380,000 rows shown in the
grid are written in a few seconds of CPU (it took 20 s), through the real callback, with every
number from the figure and the grid's order kept."""

from __future__ import annotations

import io
import time

import numpy as np
import pandas as pd

from evalmaps.catalog.imports import import_bytes
from evalmaps.service import uploads
from tests.integration.dash_calls import call, outputs


def big_sweep() -> pd.DataFrame:
    """100 models x 380 tasks x 10 shots: 380,000 cells with an sd and an n each."""
    rng = np.random.default_rng(37)
    models, tasks, shots = 100, 380, 10
    value = rng.integers(0, 10_000, models * tasks * shots) / 100
    return pd.DataFrame({
        "model": np.repeat([f"m{i}" for i in range(models)], tasks * shots),
        "task": np.tile(np.repeat([f"t{j}" for j in range(tasks)], shots), models),
        "shot": np.tile([f"s{k}" for k in range(shots)], models * tasks),
        "value": value, "sd": value / 8, "n": rng.integers(1, 9, len(value))})


def test_a_download_of_380000_rows_is_fast_and_exact(dash_app, client):
    sweep = big_sweep()
    buf = io.StringIO()
    sweep.to_csv(buf, index=False)
    imported = import_bytes(buf.getvalue().encode(), "sweep.csv", max_bytes=None)[0]
    store = dash_app.server.extensions["evalmaps"]["store"]
    fid = store.put(uploads.upload_spec(imported.spec), imported.to_csv(for_spreadsheets=False),
                    "sweep.csv")
    order = np.random.default_rng(1).permutation(len(sweep))  # the grid's sort: any order
    shown = sweep.iloc[order]
    rows = shown[["model", "task", "shot"]].to_dict("records")
    rows[5:5] = [{"model": "m1", "task": "t1", "shot": "s99"}, 7]  # not a cell; not a row
    start = time.process_time()
    response = call(client, "data-download.data", {"data-download-button.n_clicks": 1},
                    state={"data-grid.virtualRowData": rows, "data-rendered-figure.data": fid,
                           "uploads.data": [fid]})
    cpu = time.process_time() - start
    assert response.status_code == 200
    content = outputs(response)["data-download.data"]["content"]
    expected = ["model,task,shot,value,sd,n,provenance"] + [
        f"{m},{t},{s},{v!r},{sd!r},{float(n)!r},uploaded"
        for m, t, s, v, sd, n in shown.itertuples(index=False)]
    assert content.splitlines() == expected
    assert cpu < 8, f"{cpu:.1f} s of CPU for 380,000 rows"
