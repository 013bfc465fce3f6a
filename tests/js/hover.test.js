/* assets/evalmaps-hover.js: Compare's readout line of a cell, and the linked hover's outlines
 * placed from the maps' geometry as drawn, on a fake page of three drawn maps. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, element, fakeDocument, here, withDash, NO_UPDATE} = require("./sandbox");

const ID = {
  a: '{"panel":"a","type":"compare-heatmap"}',
  b: '{"panel":"b","type":"compare-heatmap"}',
  delta: '{"panel":"delta","type":"compare-heatmap"}'
};

/* A map's host element in its frame, holding a chart (graph div). */
function host(gd, frame) {
  return element({parentElement: element({rect: frame}), found: {".js-plotly-plot": gd}});
}

/* The page: A and B drawn (plot areas 200 by 100 px at 80, 30 in their charts), B - A's
 * traces drawn with `custom` as its customdata, its axes not yet. */
function page(custom) {
  const drawnAxes = {xaxis: {_length: 200, _offset: 80}, yaxis: {_length: 100, _offset: 30}};
  const gdA = element({rect: {left: 20, top: 20}, _fullLayout: drawnAxes});
  const gdB = element({rect: {left: 20, top: 520}, _fullLayout: drawnAxes});
  const gdD = element({rect: {left: 20, top: 1020}, _fullLayout: {xaxis: {}},
                       _fullData: [{customdata: custom}]});
  const byId = {};
  byId[ID.a] = host(gdA, {left: 10, top: 10});
  byId[ID.b] = host(gdB, {left: 10, top: 500});
  byId[ID.delta] = host(gdD, {left: 10, top: 1000});
  return fakeDocument({byId: byId});
}

const PERCENT = {
  x: ["2000", "4000"], y: ["0.2", "0.4"], x_text: ["2000", "4000"], y_text: ["0.2", "0.4"],
  x_title: "Local Window Size", y_title: "Ratio", a: [1, null, 100, "%"], b: [1, null, 100, "%"],
  delta: [1, null, 100], se: 2, minus: "B − A", within: "within noise", beyond: "beyond noise",
  unit: " points", lower_better: false
};

/* A, B (fractions), the SE of B − A in shown units (percentage points), within */
const CUSTOM = [
  [[0.5, 0.5, 1, 1], [NaN, 0.5, NaN, 0]],
  [[0.525, 0.563, 1.2, 1], [0.4, 0.3, 2, 0]]
];

test("compareReadout: A, B, B − A with its sign, SE within or beyond noise", function () {
  const readout = load({document: page(CUSTOM)}).evalmapsLib.hover.compareReadout;
  assert.equal(readout(PERCENT, 1, 0), "Ratio 0.4 · Local Window Size 2000 — A 52.5% · B 56.3% · " +
               "B − A +3.8 points · SE 1.20 points, within noise");
  assert.equal(readout(PERCENT, 1, 1), "Ratio 0.4 · Local Window Size 4000 — A 40.0% · B 30.0% · " +
               "B − A -10.0 points · SE 2.00 points, beyond noise");
  assert.equal(readout(PERCENT, 0, 0), "Ratio 0.2 · Local Window Size 2000 — A 50.0% · B 50.0% · " +
               "B − A 0.0 points · SE 1.00 points, within noise");  // no sign on zero
  assert.equal(readout(PERCENT, 0, 1), "Ratio 0.2 · Local Window Size 4000 — A not reported · " +
               "B 50.0% · B − A not comparable");
});

test("compareReadout: a grid of one row names the column alone", function () {
  const readout = load({document: page(CUSTOM)}).evalmapsLib.hover.compareReadout;
  const oneRow = Object.assign({}, PERCENT, {y: ["all"], y_text: [""], y_title: ""});
  assert.equal(readout(oneRow, 0, 0), "Local Window Size 2000 — A 50.0% · B 50.0% · " +
               "B − A 0.0 points · SE 1.00 points, within noise");
});

test("compareReadout: lower is better, units, trimmed decimals, A and B alone", function () {
  const cells = Object.assign({}, PERCENT, {a: [2, 1, null, " ms"], b: [2, 1, null, " ms"],
                                            delta: [2, 1, null], unit: "", lower_better: true});
  const custom = [[[3.2, 2.9], [1.25, 1.5]], [[2, 2], [null, 1]]];
  const readout = load({document: page(custom)}).evalmapsLib.hover.compareReadout;
  assert.equal(readout(cells, 0, 0), "Ratio 0.2 · Local Window Size 2000 — A 3.2 ms · B 2.9 ms · " +
               "B − A -0.3 (B better: lower is better)");
  assert.equal(readout(cells, 0, 1), "Ratio 0.2 · Local Window Size 4000 — A 1.25 ms · " +
               "B 1.5 ms · B − A +0.25 (B worse: lower is better)");
  assert.equal(readout(cells, 1, 0), "Ratio 0.4 · Local Window Size 2000 — A 2.0 ms · B 2.0 ms · " +
               "B − A 0.0");
  assert.equal(readout(cells, 1, 1), "Ratio 0.4 · Local Window Size 4000 — A not reported · " +
               "B 1.0 ms · B − A not comparable");
});

test("compareReadout: nothing before B − A is drawn", function () {
  assert.equal(load().evalmapsLib.hover.compareReadout(PERCENT, 0, 0), "");
  assert.equal(load({document: page([])}).evalmapsLib.hover.compareReadout(PERCENT, 0, 0), "");
});

const HOVER_A = {prop_id: ID.a + ".hoverData", value: {points: [{x: 2000, y: "0.4"}]}};
const RELAYOUT_B = {prop_id: ID.b + ".relayoutData", value: {autosize: true}};

test("compareHover: a hover on A outlines the cell on B, fills the readout", function () {
  const win = load({document: page(CUSTOM)});
  const dc = withDash(win, [RELAYOUT_B, HOVER_A]);  // a batched relayout does not hide it
  const out = dc.evalmaps.compareHover(null, null, null, null, null, null, PERCENT, null);
  assert.deepEqual(here(out), [
    {display: "none"},  // the map hovered keeps its own hover label
    // B: its chart 10, 20 px into its frame, the plot area 80, 30 px into it, cells 100 by 50
    {display: "block", left: "90px", top: "100px", width: "100px", height: "50px"},
    {display: "none"},  // B − A's axes not drawn yet
    "Ratio 0.4 · Local Window Size 2000 — A 52.5% · B 56.3% · B − A +3.8 points · SE 1.20 points, " +
      "within noise",
    {i: 1, j: 0, source: "a"}
  ]);
});

test("compareHover: a relayout re-places the last cell's outlines, nothing else", function () {
  const win = load({document: page(CUSTOM)});
  const dc = withDash(win, [RELAYOUT_B]);
  const last = {i: 0, j: 1, source: "delta"};
  const out = dc.evalmaps.compareHover(null, null, null, null, null, null, PERCENT, last);
  assert.deepEqual(here(out.slice(0, 2)), [  // A's chart is 10 px into its frame, B's 20 px
    {display: "block", left: "190px", top: "40px", width: "100px", height: "50px"},
    {display: "block", left: "190px", top: "50px", width: "100px", height: "50px"}
  ]);
  assert.deepEqual(here(out[2]), {display: "none"});
  assert.equal(out[3], NO_UPDATE);
  assert.equal(out[4], NO_UPDATE);
});

test("compareHover: nothing to outline, nothing changed", function () {
  const win = load({document: page(CUSTOM)});
  const dc = withDash(win, [RELAYOUT_B]);
  const call = function (cells, last) {
    const out = dc.evalmaps.compareHover(null, null, null, null, null, null, cells, last);
    assert.equal(out.length, 5);
    out.forEach(function (v) { assert.equal(v, NO_UPDATE); });
  };
  call(PERCENT, null);  // a relayout before any hover
  call(null, {i: 0, j: 0, source: "a"});  // no cells yet
  dc.callback_context = {triggered: []};
  call(PERCENT, null);
  dc.callback_context = {triggered: [{prop_id: ID.a + ".hoverData", value: {points: []}}]};
  call(PERCENT, null);
  dc.callback_context = {triggered: [{prop_id: ID.a + ".hoverData",
                                      value: {points: [{x: 9999, y: "0.4"}]}}]};
  call(PERCENT, null);  // a label the maps do not have
});

test("compareReadout: the paired test, where a cell has one, instead of the SE", function () {
  const cells = Object.assign({}, PERCENT, {
    paired: {places: 1, unit: " points",
             tests: ["exact McNemar", "exact sign-flip", "sign-flip, normal approx.", "no test"]}});
  // A, B, SE, within, then n, diff, interval (shown units), p, adjusted p, test
  const custom = [
    [[0.35, 0.775, NaN, NaN, 40, 42.5, 20, 62.5, 0.000911, 0.00547, 0],
     [0.5, 0.525, NaN, NaN, 30, 2.5, -6.7, 13.3, 0.5512, 0.62, 1]],
    [[0.5, 0.5, 1, 1, NaN, NaN, NaN, NaN, NaN, NaN, NaN],
     [0.4, 0.4, NaN, NaN, 30, 0, -3.3, 3.3, 1, 1, 0]]
  ];
  const readout = load({document: page(custom)}).evalmapsLib.hover.compareReadout;
  assert.equal(readout(cells, 0, 0), "Ratio 0.2 · Local Window Size 2000 — A 35.0% · B 77.5% · " +
               "B − A +42.5 points · paired, 40 items: +42.5 points [+20.0, +62.5], p = 0.00091 " +
               "(adjusted 0.0055, exact McNemar: distinguishable)");
  assert.equal(readout(cells, 0, 1), "Ratio 0.2 · Local Window Size 4000 — A 50.0% · B 52.5% · " +
               "B − A +2.5 points · paired, 30 items: +2.5 points [-6.7, +13.3], p = 0.55 " +
               "(adjusted 0.62, exact sign-flip: not distinguishable)");
  // an untested cell keeps its SE test
  assert.equal(readout(cells, 1, 0), "Ratio 0.4 · Local Window Size 2000 — A 50.0% · B 50.0% · " +
               "B − A 0.0 points · SE 1.00 points, within noise");
  assert.equal(readout(cells, 1, 1), "Ratio 0.4 · Local Window Size 4000 — A 40.0% · B 40.0% · " +
               "B − A 0.0 points · paired, 30 items: 0.0 points [-3.3, +3.3], p = 1 " +
               "(adjusted 1, exact McNemar: not distinguishable)");
  // too few items for any test: no interval, no p, and the readout says why
  custom[1][1] = [0.4, 0.6, NaN, NaN, 4, 20, NaN, NaN, NaN, NaN, 3];
  const few = load({document: page(custom)}).evalmapsLib.hover.compareReadout;
  assert.equal(few(cells, 1, 1), "Ratio 0.4 · Local Window Size 4000 — A 40.0% · B 60.0% · " +
               "B − A +20.0 points · paired, 4 items: +20.0 points (no test: too few items to test)");
});
