"""Plotly's named colour scales (lowercased, as ``plotly.colors.named_colorscales()`` lists them;
each also has a reversed ``<name>_r``), so that a catalog's ``colorscale`` is checked without
importing plotly into the domain. tests/unit/test_loading.py checks the list against the
installed plotly."""

NAMED_COLORSCALES = frozenset({
    "aggrnyl", "agsunset", "algae", "amp", "armyrose", "balance", "blackbody", "bluered",
    "blues", "blugrn", "bluyl", "brbg", "brwnyl", "bugn", "bupu", "burg", "burgyl", "cividis",
    "curl", "darkmint", "deep", "delta", "dense", "earth", "edge", "electric", "emrld", "fall",
    "geyser", "gnbu", "gray", "greens", "greys", "haline", "hot", "hsv", "ice", "icefire",
    "inferno", "jet", "magenta", "magma", "matter", "mint", "mrybm", "mygbm", "oranges", "orrd",
    "oryel", "oxy", "peach", "phase", "picnic", "pinkyl", "piyg", "plasma", "plotly3",
    "portland", "prgn", "pubu", "pubugn", "puor", "purd", "purp", "purples", "purpor",
    "rainbow", "rdbu", "rdgy", "rdpu", "rdylbu", "rdylgn", "redor", "reds", "solar", "spectral",
    "speed", "sunset", "sunsetdark", "teal", "tealgrn", "tealrose", "tempo", "temps", "thermal",
    "tropic", "turbid", "turbo", "twilight", "viridis", "ylgn", "ylgnbu", "ylorbr", "ylorrd"
})
