"""An upload's two limits (issue 37, a new user 2): the upload limit counts the bytes sent (a 3.9
MB zip was refused as "21.8 MB", its unzipped size), and what a zip may unzip to is a limit of
its own, ten times the upload limit, stated in its refusal."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from evalmaps.catalog.imports import import_bytes
from evalmaps.readers.base import ImportFailed
from evalmaps.readers.zipped import UNZIPPED_FACTOR

MB = 2**20


def zipped_table(rows: int) -> tuple[bytes, int]:
    """A zip of one tidy CSV of ``rows`` rows (model, task, step, value): the zip's bytes and
    the CSV's size."""
    rng = np.random.default_rng(0)
    lines = ["model,task,step,value"]
    values = rng.integers(0, 8, size=rows)  # eighths: a table compresses well, as results do
    lines += [f"m{i % 3},task-with-a-long-name-{(i // 3) % 40},{i // 120},{v / 8}"
              for i, v in enumerate(values)]
    text = ("\n".join(lines) + "\n").encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("results/table.csv", text)
    return buf.getvalue(), len(text)


def test_a_zip_under_the_limit_that_unzips_past_it_is_read():
    data, unzipped = zipped_table(60_000)
    limit = MB
    assert len(data) < limit < unzipped < UNZIPPED_FACTOR * limit
    imported = import_bytes(data, "results.zip", max_bytes=limit)[0]
    assert imported.dims["model"] == ["m0", "m1", "m2"] and len(imported.tidy) == 60_000


def test_a_zip_that_unzips_past_its_own_limit_is_refused_saying_so():
    data, unzipped = zipped_table(60_000)
    limit = unzipped // (UNZIPPED_FACTOR + 1)  # the zip is sent, but unzips past 10x
    assert len(data) < limit
    with pytest.raises(ImportFailed, match=r"over the [0-9.]+ MB an upload may unzip to"):
        import_bytes(data, "results.zip", max_bytes=limit)[0]


def test_what_is_sent_is_what_the_upload_limit_counts():
    data, _ = zipped_table(60_000)
    with pytest.raises(ImportFailed, match="MB limit"):
        import_bytes(data, "results.zip", max_bytes=len(data) - 1)[0]


def test_an_uploads_texts_count_at_their_expanded_size():
    """Issue 37, red team 3: a 1.8 KB Parquet upload expanded to 114 MB of texts (the store's
    quota counts compressed bytes); the texts now count against what an upload may expand to."""
    pd = pytest.importorskip("pandas")
    text = "z" * 200_000
    frame = pd.DataFrame({"item": [f"q{i}" for i in range(60)], "score": [1.0] * 60,
                          "model": ["m"] * 60, "prompt": [text] * 60})
    buf = io.BytesIO()
    frame.to_parquet(buf, compression="zstd")
    data = buf.getvalue()
    limit = MB  # the upload limit: what it may unzip to is ten times that, 10 MB
    assert len(data) < 64 * 1024 and 60 * len(text) > UNZIPPED_FACTOR * limit
    with pytest.raises(ImportFailed, match=r"texts come to 11\.\d MB, over the 10 MB"):
        import_bytes(data, "records.parquet", max_bytes=limit)[0]
    small = pd.DataFrame(frame.assign(prompt=["short"] * 60))
    buf = io.BytesIO()
    small.to_parquet(buf)
    assert import_bytes(buf.getvalue(), "records.parquet", max_bytes=limit)[0].items is not None
