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
    imported = import_bytes(data, "results.zip", max_bytes=limit)
    assert imported.dims["model"] == ["m0", "m1", "m2"] and len(imported.tidy) == 60_000


def test_a_zip_that_unzips_past_its_own_limit_is_refused_saying_so():
    data, unzipped = zipped_table(60_000)
    limit = unzipped // (UNZIPPED_FACTOR + 1)  # the zip is sent, but unzips past 10x
    assert len(data) < limit
    with pytest.raises(ImportFailed, match=r"over the [0-9.]+ MB an upload may unzip to"):
        import_bytes(data, "results.zip", max_bytes=limit)


def test_what_is_sent_is_what_the_upload_limit_counts():
    data, _ = zipped_table(60_000)
    with pytest.raises(ImportFailed, match="MB limit"):
        import_bytes(data, "results.zip", max_bytes=len(data) - 1)
