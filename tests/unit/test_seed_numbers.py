"""Independent hand transcription of every number the seed figure descriptions give.

The seed texts (/work/shared/seeds/) are the specification of the built-in figures.
The literals below were typed from those texts by hand, NOT copied from the project's
data files or scripts, so that they can check the shipped data: every seed number
must be present and exact, and no cell the seeds do not give may exist.

Keys of each transcription are tuples of labels in the order of the matching ``*_DIMS``.
"""

import math

import pytest

from evalmaps.catalog.load import load_catalog

# --------------------------------------------------------------------------------------
# Seed 000: "Baseline - Core Generalization - Qwen-2.5B" (accuracy %, type x length).
# Each row starts at length 0 and runs as far as the seed lists it.
# --------------------------------------------------------------------------------------
CORE_ID = "core-generalization"
CORE_DIMS = ("model", "type", "length")
CORE_MODEL = "Qwen-2.5B"
CORE_TYPES = ("h", "~", "m", "4", "u", "o", ">")
CORE_LENGTHS = tuple(str(n) for n in range(20))
CORE_ROWS = {
    "h": [96.7, 96.3, 95.3, 87.7, 83.0, 82.0, 86.0, 86.0, 83.7],
    "~": [100.0, 99.7, 99.3, 98.7, 98.0, 99.3, 99.3, 97.3, 97.7],
    "m": [98.0, 94.0, 95.7, 89.7, 86.0, 88.3, 90.3, 86.7, 89.3, 86.0,
          90.0, 89.0, 90.0, 90.0, 89.0, 90.0, 89.0, 86.0, 89.7],
    "4": [98.3, 96.3, 91.0, 91.7, 92.0, 91.0, 92.3, 92.7, 90.7],
    "u": [80.3, 84.3, 81.3, 87.3, 85.7, 89.0, 90.0, 85.0, 87.3, 86.0, 89.7],
    "o": [100.0, 99.3, 99.7, 99.0, 100.0, 98.3, 99.3, 98.3, 98.7, 97.7,
          98.7, 98.3, 97.7],
    ">": [99.7, 98.7, 98.0, 96.0, 95.7, 95.0, 92.3, 91.0, 84.7, 82.7, 87.3],
}
CORE = {
    (CORE_MODEL, t, str(length)): v
    for t, row in CORE_ROWS.items()
    for length, v in enumerate(row)
}

# --------------------------------------------------------------------------------------
# Seed 001: "Baseline - Short-to-Long - Qwen-2.5 7B" (accuracy %, type x length).
# Each type covers five consecutive lengths starting at the given one.
# --------------------------------------------------------------------------------------
S2L_ID = "short-to-long"
S2L_DIMS = ("model", "type", "length")
S2L_MODEL = "Qwen-2.5 7B"
S2L_ROWS = {  # type: (first length, values)
    "1": (5, [77.3, 69.7, 67.0, 54.7, 46.3]),
    "2": (6, [98.3, 99.0, 98.3, 98.0, 97.7]),
    "3": (14, [85.3, 84.7, 87.0, 75.3, 77.7]),
    "4": (7, [85.3, 83.3, 82.3, 78.7, 63.3]),
    "5": (14, [76.3, 76.7, 68.7, 65.0, 58.0]),
    "6": (13, [99.0, 96.7, 98.3, 97.0, 96.3]),
    "7": (9, [90.7, 86.3, 74.3, 68.0, 66.0]),
}
S2L = {
    (S2L_MODEL, t, str(first + i)): v
    for t, (first, row) in S2L_ROWS.items()
    for i, v in enumerate(row)
}

# --------------------------------------------------------------------------------------
# Seed 003: DynTS, R1-Llama Pass@1 per benchmark, window x ratio.
# Only ratios 0.1 and 0.5 are given; values listed for windows 500, 1000, 2000, 3000.
# ("GPQA D" in the seed is stored as "GPQA-Diamond".)
# --------------------------------------------------------------------------------------
BENCH_ID = "dynts-r1-llama-benchmarks"
BENCH_DIMS = ("model", "benchmark", "window", "ratio")
BENCH_MODEL = "R1-Llama"
BENCH_BENCHMARKS = ("AIME24", "AIME25", "AMC23", "GPQA-Diamond")
BENCH_WINDOWS = ("500", "1000", "2000", "3000")
BENCH_RATIOS = ("0.1", "0.2", "0.3", "0.4", "0.5")
BENCH_ROWS = {  # (benchmark, ratio): values for windows 500, 1000, 2000, 3000
    ("AIME24", "0.1"): [43.7, 49.3, 47.3, 45.3],
    ("AIME24", "0.5"): [42.7, 46.0, 43.3, 46.7],
    ("AIME25", "0.1"): [25.3, 26.7, 24.0, 27.3],
    ("AIME25", "0.5"): [26.7, 30.7, 26.7, 28.7],
    ("AMC23", "0.1"): [85.5, 87.0, 84.0, 87.5],
    ("AMC23", "0.5"): [86.0, 86.0, 86.0, 86.5],
    ("GPQA-Diamond", "0.1"): [44.1, 45.8, 45.1, 44.2],
    ("GPQA-Diamond", "0.5"): [44.9, 45.4, 47.4, 46.5],
}
BENCH = {
    (BENCH_MODEL, b, w, r): v
    for (b, r), row in BENCH_ROWS.items()
    for w, v in zip(BENCH_WINDOWS, row, strict=True)
}

# --------------------------------------------------------------------------------------
# Seed 004: DynTS, R1-Llama vs R1-Qwen Pass@1, window (rows 3000, 2000, 1000, 500 top to
# bottom) x ratio (0.1 .. 0.5 left to right). Full 4x5 grids.
# --------------------------------------------------------------------------------------
LVQ_ID = "dynts-llama-vs-qwen"
LVQ_DIMS = ("model", "window", "ratio")
LVQ_WINDOWS = ("3000", "2000", "1000", "500")
LVQ_RATIOS = ("0.1", "0.2", "0.3", "0.4", "0.5")
LVQ_ROWS = {  # (model, window): values for ratios 0.1 .. 0.5
    ("R1-Llama", "3000"): [49.1, 50.1, 50.6, 50.7, 51.4],
    ("R1-Llama", "2000"): [49.5, 51.7, 52.8, 52.5, 50.9],
    ("R1-Llama", "1000"): [49.9, 52.7, 51.0, 51.9, 51.7],
    ("R1-Llama", "500"): [49.8, 52.1, 50.7, 50.8, 51.7],
    ("R1-Qwen", "3000"): [53.9, 53.9, 53.2, 54.4, 53.8],
    ("R1-Qwen", "2000"): [52.4, 51.9, 54.6, 56.3, 53.7],
    ("R1-Qwen", "1000"): [52.2, 54.4, 53.8, 53.3, 53.0],
    ("R1-Qwen", "500"): [51.5, 51.8, 52.0, 54.3, 54.6],
}
LVQ = {
    (m, w, r): v
    for (m, w), row in LVQ_ROWS.items()
    for r, v in zip(LVQ_RATIOS, row, strict=True)
}

# figure id -> (dim names in key order, transcription)
TRANSCRIBED = {
    CORE_ID: (CORE_DIMS, CORE),
    S2L_ID: (S2L_DIMS, S2L),
    BENCH_ID: (BENCH_DIMS, BENCH),
    LVQ_ID: (LVQ_DIMS, LVQ),
}
ILLUSTRATIVE_ID = "acemath-training-progress"


def test_transcription_sizes():
    """Guards the transcription itself against a dropped or duplicated row."""
    assert len(CORE) == 9 + 9 + 19 + 9 + 11 + 13 + 11 == 81
    assert len(S2L) == 7 * 5
    assert len(BENCH) == 4 * 2 * 4
    assert len(LVQ) == 2 * 4 * 5


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _all_cells():
    for fid, (dims, table) in TRANSCRIBED.items():
        for key, value in table.items():
            yield pytest.param(fid, dims, key, value, id=f"{fid}[{','.join(key)}]")


def _close(a, b):
    return math.isclose(a, b, rel_tol=0.0, abs_tol=1e-9)


# 1. Every seed number is present and exact. -------------------------------------------

@pytest.mark.parametrize("fid,dims,key,expected", list(_all_cells()))
def test_seed_value_present_and_exact(catalog, fid, dims, key, expected):
    got = catalog.figure(fid).value(**dict(zip(dims, key, strict=True)))
    assert got is not None, f"{fid} {dict(zip(dims, key))}: seed gives {expected}, data has no cell"
    assert _close(float(got), expected), f"{fid} {dict(zip(dims, key))}: seed {expected}, data {got}"


# 2. No invented cells. ------------------------------------------------------------------

@pytest.mark.parametrize("fid", list(TRANSCRIBED))
def test_present_cells_are_exactly_the_transcription(catalog, fid):
    dims, table = TRANSCRIBED[fid]
    cells = catalog.figure(fid).cells
    assert set(cells.columns) == set(dims) | {"value"}
    present = {}
    for row in cells.itertuples(index=False):
        rec = row._asdict()
        key = tuple(str(rec[d]) for d in dims)
        assert key not in present, f"duplicate cell {key}"
        present[key] = float(rec["value"])
    invented = sorted(set(present) - set(table))
    missing = sorted(set(table) - set(present))
    assert not invented, f"cells not given by the seed: {invented}"
    assert not missing, f"seed cells absent from data: {missing}"
    wrong = {k: (table[k], present[k]) for k in table if not _close(table[k], present[k])}
    assert not wrong, f"(seed, data) differ: {wrong}"


ABSENT = [
    # seed 000: type 'h' stops at length 8; no type reaches length 19
    (CORE_ID, dict(model=CORE_MODEL, type="h", length="9")),
    *[(CORE_ID, dict(model=CORE_MODEL, type=t, length="19")) for t in CORE_TYPES],
    # seed 000: first length past the end of each row
    *[(CORE_ID, dict(model=CORE_MODEL, type=t, length=str(len(row))))
      for t, row in CORE_ROWS.items()],
    # seed 001: just outside each type's five lengths
    *[(S2L_ID, dict(model=S2L_MODEL, type=t, length=str(first + k)))
      for t, (first, _) in S2L_ROWS.items() for k in (-1, 5) if 5 <= first + k <= 19],
    # seed 003: ratios 0.2, 0.3, 0.4 are not given for any benchmark or window
    *[(BENCH_ID, dict(model=BENCH_MODEL, benchmark=b, window=w, ratio=r))
      for b in BENCH_BENCHMARKS for w in BENCH_WINDOWS for r in ("0.2", "0.3", "0.4")],
]


@pytest.mark.parametrize(
    "fid,coords", [pytest.param(f, c, id=f"{f}[{','.join(c.values())}]") for f, c in ABSENT]
)
def test_cell_not_given_by_seed_is_missing(catalog, fid, coords):
    assert catalog.figure(fid).value(**coords) is None


def test_amc23_highest_89_is_not_a_cell(catalog):
    """Seed 003 names a highest AMC23 value of ~89.0 whose cell it does not give."""
    cells = catalog.figure(BENCH_ID).cells
    amc = cells[cells["benchmark"].astype(str) == "AMC23"]["value"].astype(float)
    assert not any(_close(v, 89.0) for v in amc)


# 3. Label order and axes. -------------------------------------------------------------

@pytest.mark.parametrize(
    "fid,dim,labels",
    [
        (CORE_ID, "type", CORE_TYPES),  # seed: "Y-axis Markers: h, ~, m, 4, u, o, >"
        (CORE_ID, "length", CORE_LENGTHS),  # seed: "X-axis Markers: 0, 1, ..., 19"
        (CORE_ID, "model", (CORE_MODEL,)),
        (S2L_ID, "type", tuple("1234567")),  # seed: "numbered 1 through 7 from top to bottom"
        (S2L_ID, "length", tuple(str(n) for n in range(5, 20))),  # "from 5 to 19"
        (S2L_ID, "model", (S2L_MODEL,)),
        (BENCH_ID, "ratio", BENCH_RATIOS),
        (BENCH_ID, "model", (BENCH_MODEL,)),
        (LVQ_ID, "window", LVQ_WINDOWS),  # seed: "top to bottom: 3000, 2000, 1000, 500"
        (LVQ_ID, "ratio", LVQ_RATIOS),  # seed: "left to right: 0.1, ..., 0.5"
        (LVQ_ID, "model", ("R1-Llama", "R1-Qwen")),
    ],
    ids=lambda p: p if isinstance(p, str) else None,
)
def test_dim_labels_in_display_order(catalog, fid, dim, labels):
    assert tuple(catalog.figure(fid).spec.dims[dim].labels) == labels


@pytest.mark.parametrize(
    "dim,labels",
    [("benchmark", set(BENCH_BENCHMARKS)), ("window", set(BENCH_WINDOWS))],
)
def test_seed_003_label_sets(catalog, dim, labels):
    # the seed does not say which way round these run, so only the set is checked
    assert set(catalog.figure(BENCH_ID).spec.dims[dim].labels) == labels


@pytest.mark.parametrize(
    "fid,x,y",
    [
        (CORE_ID, "length", "type"),
        (S2L_ID, "length", "type"),
        (BENCH_ID, "ratio", "window"),
        (LVQ_ID, "ratio", "window"),
    ],
)
def test_axes_follow_seed(catalog, fid, x, y):
    spec = catalog.figure(fid).spec
    assert (spec.x, spec.y) == (x, y)
    assert {spec.x, spec.y, *spec.facets} == set(spec.dims)


# 4. Provenance. -----------------------------------------------------------------------

@pytest.mark.parametrize(
    "fid,provenance",
    [(fid, "transcribed") for fid in TRANSCRIBED] + [(ILLUSTRATIVE_ID, "illustrative")],
)
def test_provenance(catalog, fid, provenance):
    assert catalog.figure(fid).spec.provenance == provenance
