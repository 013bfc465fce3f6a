/* evalmaps/_bundle/*.js: the static bundle's pages. Numbers as Python writes them (the expected
 * texts are Python's own: f"{v:.{d}f}" and repr), the fragment's state, row orders. The tables,
 * CSV, hovers and colour ranges are compared with the live app's code on real data by
 * tests/unit/test_bundle.py. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load} = require("./bundle_sandbox");

/* A value from the sandbox as plain JSON (its arrays have the sandbox's prototypes). */
function plain(v) {
  return JSON.parse(JSON.stringify(v));
}

const FIG = {
  facets: ["model"], y: "window", x: "ratio", provenance: "transcribed",
  dims: {model: {labels: ["A", "B"], title: "Model"},
         window: {labels: ["3000", "2000", "500"], title: "Window"},
         ratio: {labels: ["0.1", "0.2"], numeric: true, numbers: [0.1, 0.2], title: "Ratio"}},
  metric: {name: "Pass@1", unit: "", higher: true, range: [0, 100], fixed: [0, 100]},
  zrange: [40, 60],
  panels: [
    {slug: "a", title: "A", facets: {model: "A"}, z: [50, 51, null, 49, 52.5, 52.5], decimals: 1,
     metric: {name: "Pass@1", unit: "", higher: true, range: [0, 100], fixed: [0, 100]},
     columns: [], extra: {}, has: []},
    {slug: "b", title: "B", facets: {model: "B"}, z: [60, 40, 55, 45, 50, 50], decimals: 1,
     metric: {name: "Pass@1", unit: "", higher: true, range: [0, 100], fixed: [0, 100]},
     columns: [], extra: {}, has: []}
  ]
};

test("pyFixed rounds an exact tie to even, as Python does", function () {
  const T = load().evalmapsBundle.tables;
  const cases = [[1234.5, 0, "1234"], [0.125, 2, "0.12"], [0.375, 2, "0.38"], [2.5, 0, "2"],
                 [-2.5, 0, "-2"], [1.005, 2, "1.00"], [52.25, 1, "52.2"], [-0.0001, 2, "-0.00"]];
  cases.forEach(function (c) { assert.equal(T.pyFixed(c[0], c[1]), c[2], JSON.stringify(c)); });
  assert.equal(T.number(-0.0001, 2), "0.00");
});

test("pyRepr writes a float as Python's repr does", function () {
  const T = load().evalmapsBundle.tables;
  const cases = [[1e-05, "1e-05"], [0.0001, "0.0001"], [52, "52.0"],
                 [0.21416382252559726, "0.21416382252559726"], [1e16, "1e+16"],
                 [123456789012345.6, "123456789012345.6"], [-3, "-3.0"], [5e-324, "5e-324"],
                 [1e300, "1e+300"], [0.1, "0.1"]];
  cases.forEach(function (c) { assert.equal(T.pyRepr(c[0]), c[1], String(c[0])); });
});

test("a spreadsheet formula is neutralised, a negative number is not", function () {
  const T = load().evalmapsBundle.tables;
  assert.equal(T.neutralise("=SUM(A1)"), "'=SUM(A1)");
  assert.equal(T.neutralise("-0.5"), "-0.5");
  assert.equal(T.neutralise("-"), "-");
});

test("the fragment's state round-trips, unknown labels dropped", function () {
  const lib = load().evalmapsBundle.lib;
  const st = lib.parseState("#model=B&model=Z&xmin=0.2&sort=mean&top=2&pct=1&color=shared", FIG);
  assert.deepEqual(plain(st.facets), {model: ["B"]});
  assert.equal(st.xmin, 0.2);
  assert.equal(st.sort, "mean");
  assert.equal(st.top, 2);
  assert.equal(lib.stateHash(st, FIG), "model=B&xmin=0.2&sort=mean&top=2&color=shared&pct=1");
  assert.equal(lib.stateHash(lib.parseState("", FIG), FIG), "");
  assert.equal(lib.parseState("#sort=col:9", FIG).sort, "source");  // no such column
  // most rows shown: the hidden ones are named
  const rows = lib.parseState("#hide=500", FIG);
  assert.deepEqual(plain(rows.rows), ["3000", "2000"]);
  assert.equal(lib.stateHash(rows, FIG), "hide=500");
});

test("views: facets, rows, x range and order as evalmaps.analysis.slicing gives them", function () {
  const lib = load().evalmapsBundle.lib;
  const got = lib.views(FIG, lib.parseState("#model=A&xmin=0.2", FIG)).views;
  assert.equal(got.length, 1);
  assert.deepEqual(plain(got[0].x), ["0.2"]);
  assert.deepEqual(Array.from(got[0].z).map(String), ["51", "49", "52.5"]);
  // mean over both panels, best first; ties keep the source's order
  const mean = lib.views(FIG, lib.parseState("#sort=mean", FIG)).views;
  assert.deepEqual(plain(mean[0].y), ["500", "3000", "2000"]);  // 51.25, 50.25, 49.67
  const top = lib.views(FIG, lib.parseState("#sort=name&top=2", FIG)).views;
  assert.deepEqual(plain(top[0].y), ["500", "3000"]);
  assert.equal(lib.views(FIG, lib.parseState("#model=", FIG)).empty,
               "No panel matches the selection: pick at least one label per facet.");
});

test("natural order: numbers by value, sizes by size", function () {
  const lib = load().evalmapsBundle.lib;
  const labels = ["1.4b", "70m", "12b", "160m", "1b", "a10", "A9"];
  const sorted = labels.slice().sort(function (a, b) {
    return lib.compareKeys(lib.naturalKey(a), lib.naturalKey(b));
  });
  assert.deepEqual(plain(sorted), ["70m", "160m", "1b", "1.4b", "12b", "A9", "a10"]);
});

test("colour ranges: the figure's, the metric's, shared", function () {
  const lib = load().evalmapsBundle.lib;
  const vs = lib.views(FIG, lib.parseState("", FIG)).views;
  assert.deepEqual(plain(lib.colorRange(FIG, vs, vs[0], "figure")), [40, 60]);
  assert.deepEqual(plain(lib.colorRange(FIG, vs, vs[0], "fixed")), [0, 100]);
  assert.deepEqual(plain(lib.colorRange(FIG, vs, vs[0], "shared")), [40, 60]);
  assert.deepEqual(plain(lib.logTicks(0, 1).text), ["1", "2", "5", "10"]);
});

test("panels share one colour range by default, unless each panel is asked its own", function () {
  const lib = load().evalmapsBundle.lib;
  const fig = Object.assign({}, FIG, {zrange: null});  // no range of its own
  const vs = lib.views(fig, lib.parseState("", fig)).views;
  assert.equal(lib.parseState("", fig).color, "figure");
  assert.deepEqual(plain(lib.colorRange(fig, vs, vs[0], "figure")), [40, 60]);  // A's and B's
  assert.deepEqual(plain(lib.colorRange(fig, vs, vs[1], "figure")), [40, 60]);
  assert.equal(lib.parseState("#color=panel", fig).color, "panel");
  assert.deepEqual(plain(lib.colorRange(fig, vs, vs[0], "panel")), null);  // its own extent
});
