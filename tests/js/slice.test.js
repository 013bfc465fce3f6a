/* assets/evalmaps-slice.js's colour extent (evalmapsLib.slice.finiteRange and extent), shared by
 * the slicing (a view's range) and the static site's maps (a map's own colour range): hand-worked
 * cases of evalmaps.figures.heatmap.finite_range and extent. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load} = require("./bundle_sandbox");

const S = load().evalmapsLib.slice;

function plain(v) {
  return JSON.parse(JSON.stringify(v));
}

test("a finite range skips gaps, in flat, typed and row-by-row values", () => {
  assert.deepEqual(plain(S.finiteRange([3, null, -1, NaN, 2.5])), [-1, 3]);
  assert.deepEqual(plain(S.finiteRange(new Float64Array([NaN, 0.25, 0.75]))), [0.25, 0.75]);
  assert.deepEqual(plain(S.finiteRange([new Float64Array([NaN, 7]), [null, -2], []])), [-2, 7]);
  assert.deepEqual(plain(S.finiteRange([Infinity, -Infinity, 4])), [4, 4]);
  assert.equal(S.finiteRange([null, NaN]), null);
  assert.equal(S.finiteRange([]), null);
});

test("the own extent widens a single value by 0.5 and is null without values", () => {
  assert.deepEqual(plain(S.extent([[1, 2], [null, 5]])), [1, 5]);
  assert.deepEqual(plain(S.extent([[52.5], [52.5, null]])), [52, 53]);
  assert.equal(S.extent([[null], []]), null);
});

test("a view's range is the finite range of its sliced values", () => {
  const fig = {
    facets: [], y: "w", x: "r", provenance: "transcribed",
    dims: {w: {labels: ["1", "2"], title: "W"},
           r: {labels: ["a", "b"], title: "R"}},
    metric: {name: "m", unit: "", higher: true, range: null, fixed: null},
    panels: [{slug: "p", title: "P", facets: {}, z: [4, null, -3, 9], decimals: 1,
              metric: {name: "m", unit: "", higher: true, range: null, fixed: null},
              columns: [], extra: {}, has: []}]
  };
  const got = S.views(fig, {facets: {}, rows: null, xmin: null, xmax: null, sort: "natural",
                            top: null, zscale: "linear"});
  assert.deepEqual(plain(got.views[0].range), [-3, 9]);
});
