"""A zip of results: its files (by :data:`~evalmaps.readers.base.SUFFIXES`, no hidden or macOS
resource files), each then read by the reader its content calls for. Nothing is extracted to
disk."""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePosixPath

from evalmaps.readers.base import DEFAULT_MAX_BYTES, SUFFIXES, ImportFailed, Probe, Reading

# every member of a zip, on every path (uploads, the CLI, data folders): what one member may
# expand to, and how much more than its compressed bytes (a results file compresses 5-20x; a
# decompression bomb, one row repeated millions of times, hundreds of times)
MAX_MEMBER_BYTES = 512 * 2**20
MAX_RATIO = 100
UNZIPPED_FACTOR = 10  # an upload's zip may unzip to this many times the upload limit


def unzipped_limit(max_bytes: int | None) -> int | None:
    """What an upload's zip may expand to, all its files together: its own stated limit,
    :data:`UNZIPPED_FACTOR` times the upload limit (None: no limit)."""
    return None if max_bytes is None else UNZIPPED_FACTOR * max_bytes
RATIO_FROM = 2**20  # small members may compress better than that: not checked below 1 MB

NAME = "zip"
DESCRIBES = "a zip of these"


def sniff(probe: Probe) -> bool:
    return probe.zip_names is not None


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    return Reading(NAME, file, members=members(probe.data, file, max_bytes))


def members(data: bytes, name: str, max_bytes: int | None) -> list[tuple[str, bytes]]:
    """A zip of results -> its files (name inside the zip, bytes); nothing is extracted.
    ``max_bytes``: what all the files together may expand to (an upload's
    :func:`unzipped_limit`; None: no limit)."""
    return list(each_member(io.BytesIO(data), name, max_bytes))


def each_member(opened, name: str, max_bytes: int | None):
    """:func:`members` of a zip opened as a file (seekable), each member read only when asked
    for: one member's bytes in memory at a time. Every member's size is checked before the
    first is read."""
    try:
        archive = zipfile.ZipFile(opened)
        if "[Content_Types].xml" in archive.namelist():
            raise ImportFailed("the file is an office document (a spreadsheet workbook?), not a "
                               "table. Export it as CSV (comma-separated, UTF-8) and try again.",
                               file=name)
        infos = [i for i in archive.infolist() if not i.is_dir()
                 and PurePosixPath(i.filename).suffix.lower() in SUFFIXES
                 and not PurePosixPath(i.filename).name.startswith((".", "__MACOSX"))
                 and "__MACOSX" not in i.filename]
        for info in infos:
            _bounded(info, name)
        if max_bytes is not None and sum(i.file_size for i in infos) > max_bytes:
            raise ImportFailed(f"the zip unzips to {sum(i.file_size for i in infos) / 2**20:,.1f} "
                               f"MB, over the {max_bytes / 2**20:g} MB an upload may unzip to. "
                               "Upload fewer files at a time, or serve the folder with evalmaps "
                               "serve --data.", file=name)
        for info in sorted(infos, key=lambda i: i.filename):
            yield f"{name}/{info.filename}", archive.read(info)
    except ImportFailed:
        raise
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError):
        raise ImportFailed("the zip file is damaged or uses an unsupported compression. Zip the "
                           "files again.", file=name) from None


def _bounded(info: zipfile.ZipInfo, name: str) -> None:
    """Refuse a member that would expand past :data:`MAX_MEMBER_BYTES`, or past
    :data:`MAX_RATIO` times its compressed size (a decompression bomb), before reading it. The
    sizes are the zip's own; zipfile stops reading a member at its stated size and checks its
    CRC, so a member cannot expand past what is checked here."""
    size, packed = info.file_size, max(info.compress_size, 1)
    if size > MAX_MEMBER_BYTES:
        raise ImportFailed(f"the zip's member {info.filename} expands to {size / 2**20:,.0f} MB, "
                           f"over the {MAX_MEMBER_BYTES // 2**20} MB limit for one file. Split "
                           f"it, or give it unzipped.", file=name)
    if size > RATIO_FROM and size / packed > MAX_RATIO:
        raise ImportFailed(f"the zip's member {info.filename} expands {size / packed:,.0f} times "
                           f"(to {size / 2**20:,.0f} MB), over the limit of {MAX_RATIO} times: "
                           f"it looks like a decompression bomb. Give the file unzipped if it is "
                           f"real.", file=name)
