"""A zip of a results folder that holds several figures (two tools' results, several tables),
uploaded through the real callback path: each figure is kept, with the very table that
``evalmaps import`` writes for it, and the Data page lists them all with their links."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pandas as pd
import pandas.testing as pd_testing
import pytest

from evalmaps.service import cli
from tests.integration.dash_calls import call, outputs
from tests.integration.test_upload_callback import keep, preview

EXTERNAL = Path(__file__).resolve().parents[2].parent / "shared" / "external"


def zipped(folder: Path) -> bytes:
    """A folder as a user zips it: its files under the folder's name."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                z.write(path, path.relative_to(folder.parent).as_posix())
    return buffer.getvalue()


def imported_by_cli(folder: Path, out: Path) -> list[tuple[dict, pd.DataFrame]]:
    """What ``evalmaps import FOLDER -o OUT/x.csv`` writes: each figure's entry and table."""
    out.mkdir()
    assert cli.main(["import", str(folder), "-o", str(out / "x.csv")]) == 0
    written = []
    for entry_path in sorted(out.glob("*.figure.json"), key=lambda p: p.stat().st_mtime_ns):
        entry = json.loads(entry_path.read_text(encoding="utf-8"))
        written.append((entry, pd.read_csv(out / entry["file"], dtype=str, keep_default_na=False)))
    return written


def test_a_zip_of_the_evalplus_folder_keeps_both_tools_figures(client, dash_app, tmp_path):
    folder = EXTERNAL / "evalplus"
    if not folder.exists():
        pytest.skip(f"{folder} is absent: tests of real tool output skipped")
    expected = imported_by_cli(folder, tmp_path / "cli")
    assert [(e["file"], e["title"]) for e, _ in expected] == [
        ("x-evalplus.csv", "results.json"),
        ("x-evalperf.csv", "evalplus (2 EvalPerf results files)")]
    # an upload names the files it found after the zip, as the user named it
    titles = ["results.json", "evalplus.zip (2 EvalPerf results files)"]

    out = preview(client, "evalplus.zip", zipped(folder))
    card = json.dumps(out["data-upload-status.children"])
    assert "holds 2 figures" in card and "Alert" not in card
    for title in titles:
        assert json.dumps(title) in card
    # each figure keeps the axes read from its files: none chosen for all of them
    assert (out["data-x.options"], out["data-x.value"], out["data-y.value"]) == ([], None, None)
    kept = keep(client, out["data-pending.data"], recent=["upload-older-0123456789abcdef"])
    fids = kept["uploads.data"][1:]
    assert kept["uploads.data"][0] == "upload-older-0123456789abcdef" and len(fids) == 2
    assert kept["_pages_location.href"] == f"/data?figure={fids[0]}"
    assert kept["data-kept.data"] == fids

    store = dash_app.server.extensions["evalmaps"]["store"]
    for fid, title, (_, table) in zip(fids, titles, expected):
        stored = pd.read_csv(store.folder(fid) / "cells.csv", dtype=str,
                             keep_default_na=False)
        pd_testing.assert_frame_equal(stored, table)  # the whole table, as the CLI wrote it
        spec = client.get(f"/api/figures/{fid}").get_json()
        assert (spec["title"], spec["provenance"]) == (title, "uploaded")
        assert client.get(f"/?figure={fid}").status_code == 200

    # the Data page, rendered anew on the first figure, lists both with their links
    response = call(client, "data-kept-list.children", {"data-kept.data": fids},
                    state={"uploads.data": kept["uploads.data"]})
    assert response.status_code == 200, response.data[:300]
    listed = json.dumps(outputs(response)["data-kept-list.children"])
    for fid, title in zip(fids, titles):
        assert json.dumps(title) in listed
        assert f'"/?figure={fid}"' in listed  # its Browse link
        assert f'"http://localhost/?figure={fid}"' in listed  # its link to share
