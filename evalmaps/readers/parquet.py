"""Parquet (``PAR1``): a tidy table, every column read as the text of its values (numbers in
their shortest round-trip form), as its CSV would read."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

from evalmaps.core.errors import DataError
from evalmaps.readers import fastcsv
from evalmaps.readers.base import DEFAULT_MAX_BYTES, ImportFailed, Probe, Reading, check_header

NAME = "parquet"
DESCRIBES = "Parquet"
TABLE = True  # its file is one table


def sniff(probe: Probe) -> bool:
    return probe.data[:4] == b"PAR1"


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    """The file's table of texts (its shape is tidy unless the import's options say otherwise)."""
    names, columns = read_parquet_texts(probe.data, file)
    head = [str(h).strip() for h in names]
    if len(head) < 2:
        raise ImportFailed("the file has one column only. A tidy file needs one column per "
                           "dimension and a 'value' column.", file=file)
    if not columns or len(columns[0]) == 0:
        raise ImportFailed("the file has a header but no data rows. Add one row per result.",
                           file=file)
    check_header(head, file)
    frame = pd.DataFrame({h: pd.Series(fastcsv.strip(c).to_pandas(), dtype="str")
                          for h, c in zip(head, columns)})
    return Reading(NAME, file, table=frame, shape="tidy")


def read_parquet_texts(data: bytes, file: str) -> tuple[list[str], list]:
    """A Parquet file's column names and its columns as texts (numbers in their shortest
    round-trip form), as a CSV would give them; a clear DataError when it cannot be read."""
    import io

    import pyarrow.parquet as pq  # only when a Parquet file is read

    try:
        table = pq.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise DataError(f"the file cannot be read as Parquet ({exc}). Write it again as Parquet, "
                        f"or give a CSV file.", file=file) from None
    try:
        names, arrays = fastcsv.parquet_texts(table)
    except fastcsv.ParquetColumnError as exc:
        raise DataError(f"the column holds values of type {exc.type_name}; a column may hold text "
                        f"or numbers only. Store it as text.", file=file, column=exc.column) from None
    return [str(c).strip() for c in names], arrays
