/* assets/evalmaps-compare.js: Compare's maps assembled from the server's references to the
 * arrays the page holds (components/reuse.py), then restyled (compareMaps). The expected arrays
 * are made here with typed arrays and Buffer. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, here, spec, withDash, NO_UPDATE} = require("./sandbox");

const A_Z = spec("f4", new Float32Array([1, 2, NaN, 4]), "2, 2");
const B_Z = spec("f4", new Float32Array([5, 6, 7, 8]), "2, 2");
const D_Z = spec("f8", new Float64Array([4, 4, NaN, -0.5]), "2, 2");
// B - A's customdata: A, B, SE, within for each cell
const D_CELLS = [1, 5, 0.1, 1, 2, 6, 0.2, 0, NaN, 7, NaN, 0, 4, 3.5, 0.3, 1];
const D_C = spec("f8", new Float64Array(D_CELLS), "2, 2, 4");

function held() {
  return [
    {data: [{z: A_Z, meta: {arrays: {z: "dA"}}}], layout: {title: {text: "A"}}},
    {data: [{z: B_Z, meta: {arrays: {z: "dB"}}}], layout: {title: {text: "B"}}},
    {data: [{z: D_Z, customdata: D_C, meta: {arrays: {z: "dD", customdata: "dDc"}}},
            {z: [[null]], meta: {}}], layout: {title: {text: "B - A"}}}
  ];
}

/* The server's answer for the swapped pair: A and B trade places, B - A is negated and its
 * hover's A and B columns trade places. */
function swapped() {
  return [
    {data: [{z: {reuse: "dB", op: "same"}, meta: {arrays: {z: "dB"}}}], layout: {title: "A'"}},
    {data: [{z: {reuse: "dA", op: "same"}, meta: {arrays: {z: "dA"}}}], layout: {title: "B'"}},
    {data: [{z: {reuse: "dD", op: "neg"}, customdata: {reuse: "dDc", op: "swap01"},
             hovertemplate: "h", meta: {}}, {z: [[null]], meta: {}}], layout: {title: "B' - A'"}}
  ];
}

/* compareMaps's answer that changes nothing: no_update for the three maps and the URL. */
function assertNothing(got) {
  assert.equal(got.length, 4);
  got.forEach(function (v) { assert.equal(v, NO_UPDATE); });
}

test("assemble: same, neg and swap01 made from the arrays held", function () {
  const assemble = load().evalmapsLib.compare.assemble;
  const got = here(assemble(swapped(), ...held()));
  const negated = new Float64Array([4, 4, NaN, -0.5]).map(function (v) { return 0 - v; });
  const cells = D_CELLS.slice();
  for (let k = 0; k < cells.length; k += 4) {
    cells.splice(k, 2, cells[k + 1], cells[k]);
  }
  assert.deepEqual(got, [
    {data: [{z: B_Z, meta: {arrays: {z: "dB"}}}], layout: {title: "A'"}},
    {data: [{z: A_Z, meta: {arrays: {z: "dA"}}}], layout: {title: "B'"}},
    {data: [{z: spec("f8", negated, "2, 2"), customdata: spec("f8", new Float64Array(cells), "2, 2, 4"),
             hovertemplate: "h", meta: {}}, {z: [[null]], meta: {}}], layout: {title: "B' - A'"}}
  ]);
});

test("assemble: a map not sent is the one held; a trace without references is as sent", function () {
  const assemble = load().evalmapsLib.compare.assemble;
  const maps = held();
  const incoming = [null, {data: null}, swapped()[2]];
  const got = assemble(incoming, ...maps);
  assert.equal(got[0], maps[0]);
  assert.equal(got[1], maps[1]);
  assert.equal(got[2].data[1], incoming[2].data[1]);
});

test("assemble: null when an array is no longer held, or the reference cannot be made", function () {
  const assemble = load().evalmapsLib.compare.assemble;
  const answer = function (ref) { return [{data: [{z: ref}]}, null, null]; };
  assert.equal(assemble(answer({reuse: "gone", op: "same"}), ...held()), null);
  assert.equal(assemble(answer({reuse: "dA", op: "double"}), ...held()), null);
  const vector = held();
  vector[0].data[0].z = spec("f4", new Float32Array([1, 2, 3]));
  assert.equal(assemble(answer({reuse: "dA", op: "swap01"}), ...vector), null);  // no columns
  assert.notEqual(assemble(answer({reuse: "dA", op: "swap01"}), ...held()), null);
  const maps = held();
  maps[0].data[0].meta.arrays = {};  // the page's A lost its digests
  assert.equal(assemble(answer({reuse: "dA", op: "same"}), ...maps), null);
});

test("compareMaps: the assembled maps drawn, the URL left alone", function () {
  const win = load();
  withDash(win, [{prop_id: "compare-incoming.data"}]);
  const got = win.dash_clientside.evalmaps.compareMaps(swapped(), "fixed", true, "uniform",
                                                       "?a=x", "fixed", ...held());
  assert.equal(got.length, 4);
  assert.deepEqual(here(got.slice(0, 3)), here(win.evalmapsLib.compare.assemble(swapped(),
                                                                                ...held())));
  assert.equal(got[3], NO_UPDATE);
});

test("compareMaps: an array missing asks for the maps whole, after this callback", function () {
  const win = load();
  const dc = withDash(win, [{prop_id: "compare-incoming.data"}]);
  const maps = held();
  maps[1].data[0].meta.arrays = {};
  const got = dc.evalmaps.compareMaps(swapped(), "fixed", true, "uniform", "", "fixed", ...maps);
  assertNothing(got);
  assert.deepEqual(dc.props, []);  // not yet
  assert.equal(win.timers.length, 1);
  win.timers[0][0]();
  assert.equal(dc.props.length, 1);
  assert.equal(dc.props[0][0], "compare-stale");
  assert.equal(typeof dc.props[0][1].data, "number");
});

test("compareMaps: a control changed restyles the maps held and writes the URL", function () {
  const win = load();
  const dc = withDash(win, [{prop_id: "compare-color.value"}]);
  const maps = held();
  maps[0].layout.meta = {evalmaps: {ranges: {auto: [1, 4]}, color: "fixed", scale: "uniform",
                                    scales: {uniform: [[0, "#000"], [1, "#fff"]]}}};
  maps[0].data[0].meta.role = "value";
  const got = dc.evalmaps.compareMaps(null, "auto", true, "uniform", "?a=x", "fixed", ...maps);
  assert.deepEqual(here(got[0].data[0]), Object.assign({}, maps[0].data[0], {
    colorscale: [[0, "#000"], [1, "#fff"]], zmin: 1, zmax: 4, zauto: false}));
  assert.equal(got[0].layout.meta.evalmaps.color, "auto");
  assert.equal(got[1], maps[1]);  // no meta: as held
  assert.equal(got[2], maps[2]);
  assert.equal(got[3], "?a=x&color=auto");
});

test("compareMaps: nothing to do, nothing drawn", function () {
  const win = load();
  const dc = withDash(win, []);
  assertNothing(dc.evalmaps.compareMaps(swapped(), "fixed", true, "uniform", "", "fixed",
                                        ...held()));
  dc.callback_context = {triggered: [{prop_id: "compare-incoming.data"}]};
  assertNothing(dc.evalmaps.compareMaps(null, "fixed", true, "uniform", "", "fixed", ...held()));
});
