"""What the control-character checks on labels cost (issue 11), on a million cells.

A 1000 x 1000 tidy CSV is imported (``figure_of(import_bytes(...))``) and loaded as a catalog
figure (``load_catalog``) with the checks, and with them switched off (monkeypatched away: the
floor), interleaved in the same run, 7 times each; medians and their ratio. Also the import's
check alone (``_refuse_controls`` on the read table). Run:  python benchmarks/control_chars.py
"""
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout
import numpy as np

from evalmaps.catalog import columnar
from evalmaps.catalog import shaping as table
from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.catalog.load import load_catalog
from evalmaps.readers import csvfile, fastcsv
from evalmaps.readers.base import ImportOptions

rng = np.random.default_rng(11)
n = 1000 * 1000
vals = np.char.mod("%.1f", rng.uniform(0, 100, n))
w = np.repeat([str(100 * (i + 1)) for i in range(1000)], 1000)
r = np.tile([f"{j / 1000:.3f}" for j in range(1000)], 1000)
text = "model,window,ratio,value\n" + "\n".join(f"M,{a},{b},{c}" for a, b, c in zip(w, r, vals)) + "\n"
data = text.encode()
d = Path(tempfile.mkdtemp()); (d / "big.csv").write_bytes(data)
(d / "catalog.json").write_text(json.dumps({"figures": [{"id": "big", "file": "big.csv", "title": "b",
  "metric": {"name": "A", "range": [0, 100]}, "x": "ratio", "y": "window", "facets": ["model"],
  "dims": {"model": {"labels": ["M"]}, "window": {"labels": sorted(set(w), key=float)},
           "ratio": {"labels": sorted(set(r), key=float)}}, "provenance": "published"}]}))
imp = lambda: figure_of(import_bytes(data, "big.csv", ImportOptions(format="tidy"), max_bytes=None)[0])
cat = lambda: load_catalog(d)
orig_first, orig_re = columnar.first_control, fastcsv.CONTROL_RE
class Never:
    def search(self, text): return None
def checks(enabled):
    columnar.first_control = orig_first if enabled else (lambda col: -1)
    fastcsv.CONTROL_RE = orig_re if enabled else Never()
imp(); cat()  # warm-up
times = {(k, e): [] for k in ("imp", "cat") for e in (True, False)}
for _ in range(7):  # interleaved: on, off, on, off ...
    for e in (True, False):
        checks(e)
        for k, fn in (("imp", imp), ("cat", cat)):
            t = time.perf_counter(); fn(); times[(k, e)].append(time.perf_counter() - t)
checks(True)
on = (statistics.median(times[("imp", True)]), statistics.median(times[("cat", True)]))
off = (statistics.median(times[("imp", False)]), statistics.median(times[("cat", False)]))
for name, a, b in (("import 1e6 cells", on[0], off[0]), ("load_catalog 1e6 cells", on[1], off[1])):
    print(f"{name}: with checks {a:.3f} s, without {b:.3f} s, ratio {a / b:.3f}")
frame, _ = csvfile._read_table(None, "big.csv", data)  # the file is ASCII
ts = []
for _ in range(5):
    t = time.perf_counter(); table._refuse_controls(frame, "big.csv"); ts.append(time.perf_counter() - t)
print(f"_refuse_controls on the 1e6-row table: {statistics.median(ts)*1000:.1f} ms; whole import {on[0]:.3f} s")
shutil.rmtree(d)
