/* assets/evalmaps-keys.js: what the keyboard and the table read of a drawn map (model), the
 * frame's accessible name (label) and a cell as its hover says it (cellText), on a fake chart
 * as plotly.js leaves it: a value trace, a cell-text layer (not cells) and a gap trace. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, element} = require("./sandbox");

const HOVER = "Ratio %{y}<br>Size %{x}<br>%{z:.1f}%<br>seeds %{customdata[0]}<extra></extra>";

function chart() {
  const x = ["2000", "4000", "8000"], y = ["0.2", "0.4"];
  return {
    data: [{meta: {role: "value"}}, {meta: {role: "text"}}, {meta: {}}],
    layout: {meta: {evalmaps: {value: "%{z:.1f}%"}}},
    _fullLayout: {
      title: {text: "Accuracy by size"},
      annotations: [{name: "x-title", text: "Local Window Size"}, {name: "y-title", text: "Ratio"}],
      xaxis: {title: {text: "not this one"}}, yaxis: {},
      _d3locale: {numberFormat: function (spec) {
        return function (v) { return v.toFixed(Number(/\d+/.exec(spec)[0])); };
      }}
    },
    _fullData: [
      {type: "heatmap", index: 0, x: x, y: y, z: [[50, 52.5, null], [60, null, 70]],
       customdata: [[[1], [2], [3]], [[4], [5], [6]]], hovertemplate: HOVER},
      {type: "heatmap", index: 1, x: x, y: y, z: [[99, 99, 99], [99, 99, 99]],
       hovertemplate: "text layer"},
      {type: "heatmap", index: 2, x: ["8000"], y: ["0.2"], z: [0],
       hovertemplate: "Ratio %{y}<br>Size %{x}<br>not reported: failed run<extra></extra>"}
    ]
  };
}

test("model: labels, titles, the value range and gaps of the cells as drawn", function () {
  const keys = load().evalmapsLib.keys;
  const gd = chart();
  assert.equal(keys.ready(gd), true);
  const m = keys.model(gd);
  assert.deepEqual(Array.from(m.x), ["2000", "4000", "8000"]);
  assert.deepEqual(Array.from(m.y), ["0.2", "0.4"]);
  assert.deepEqual([m.title, m.xTitle, m.yTitle, m.lo, m.hi, m.gaps, m.valueTemplate],
                   ["Accuracy by size", "Local Window Size", "Ratio", 50, 70, 2, "%{z:.1f}%"]);
  assert.equal(m.at(1, 1), null);  // no trace draws it
  assert.equal(m.at(0, 2).trace, gd._fullData[2]);  // the gap trace, over the blank value
  assert.equal(m.at(0, 2).value, false);
  assert.equal(m.at(1, 2).z, 70);
  assert.deepEqual(Array.from(m.at(1, 2).customdata), [6]);
  assert.equal(keys.model(gd), m);  // once per drawing
  gd._fullData = gd._fullData.slice();
  assert.notEqual(keys.model(gd), m);
});

test("label: the frame's accessible name", function () {
  const keys = load().evalmapsLib.keys;
  const gd = chart();
  const frame = element({attrs: {"data-missing": "not reported"}});
  assert.equal(keys.label(frame, keys.model(gd)),
               "Heatmap Accuracy by size. Rows: Ratio, 2 (0.2 to 0.4); columns: Local Window " +
               "Size, 3 (2000 to 8000). Values 50.0% to 70.0%; 2 of 6 cells not reported. Arrow " +
               "keys, Home, End, Page Up and Page Down move between cells.");
  const blank = chart();
  blank._fullData = [Object.assign({}, blank._fullData[0], {x: ["2000"], y: ["0.2"], z: [[null]]})];
  assert.equal(keys.label(element(), keys.model(blank)),
               "Heatmap Accuracy by size. Rows: Ratio, 1 (0.2); columns: Local Window Size, 1 " +
               "(2000). No values; 1 of 1 cell not reported. Arrow keys, Home, End, Page Up and " +
               "Page Down move between cells.");
});

test("cellText: a cell as its hover says it, one line", function () {
  const keys = load().evalmapsLib.keys;
  const m = keys.model(chart());
  assert.equal(keys.cellText(m, 0, 1, "not reported"), "Ratio 0.2 · Size 4000 · 52.5% · seeds 2");
  assert.equal(keys.cellText(m, 0, 2, "not reported"),
               "Ratio 0.2 · Size 8000 · not reported: failed run");
  assert.equal(keys.cellText(m, 1, 1, "missing"), "Ratio 0.4 · Local Window Size 4000 · missing");
});

test("a table leaves off the start every label shares, and its caption says it once", function () {
  const keys = load().evalmapsLib.keys;
  const gd = chart();
  const full = ["EleutherAI/pythia-v1.1-70m", "EleutherAI/pythia-v1.1-160m"];
  gd._fullData = gd._fullData.map(function (t) { return Object.assign({}, t, {y: full}); });
  gd._fullData[2] = Object.assign({}, gd._fullData[2], {y: [full[0]]});
  gd.layout.meta.evalmaps.prefix = {x: "", y: "EleutherAI/pythia-v1.1-"};
  const m = keys.model(gd);
  assert.deepEqual(Array.from(m.yHead), ["70m", "160m"]);
  assert.deepEqual(Array.from(m.xHead), ["2000", "4000", "8000"]);
  assert.equal(keys.caption(m), "Accuracy by size: rows Ratio (each EleutherAI/pythia-v1.1-\u2026), " +
               "columns Local Window Size");
  // the readout says each cell as its hover does: the whole name
  assert.equal(keys.cellText(m, 1, 0, "not reported"),
               "Ratio EleutherAI/pythia-v1.1-160m · Size 2000 · 60.0% · seeds 4");
  // without a prefix: the labels as they are
  const plainChart = keys.model(chart());
  assert.deepEqual(Array.from(plainChart.yHead), ["0.2", "0.4"]);
  assert.equal(keys.caption(plainChart), "Accuracy by size: rows Ratio, columns Local Window Size");
});

test("ready: only a drawn heatmap", function () {
  const keys = load().evalmapsLib.keys;
  const bar = chart();
  bar._fullData = [{type: "bar", x: [1], y: [1]}];
  const undrawn = chart();
  delete undrawn._fullLayout;
  assert.equal(keys.ready(bar), false);
  assert.equal(keys.ready(undrawn), false);
  assert.equal(keys.ready(null), false);
});

test("follow: the active cell found by its labels in a map drawn anew", function () {
  const keys = load().evalmapsLib.keys;
  const m = {x: ["0", "1000", "2000"], y: ["70m", "160m", "410m"]};
  // a row came in above it: the same labels, one row down
  assert.deepEqual(Array.from(keys.follow(m, {i: 0, j: 1, y: "160m", x: "1000"})), [1, 1]);
  // its column is gone: its place then (activate clamps it to the map)
  assert.deepEqual(Array.from(keys.follow(m, {i: 2, j: 4, y: "410m", x: "5000"})), [2, 4]);
  // no labels kept (a cell made active before): its place
  assert.deepEqual(Array.from(keys.follow(m, {i: 1, j: 0})), [1, 0]);
});

test("where and goTo: focus on nothing is no place; a chart's button by its chart and title", function () {
  const keys = load().evalmapsLib.keys;
  const body = {};
  assert.equal(keys.where({body: body, activeElement: body}), null);
  const graph = {id: '{"panel":"a","type":"trends-chart"}'};
  const button = {getAttribute: function (name) { return name === "data-title" ? "Zoom" : null; },
                  closest: function (sel) { return sel === ".dash-graph[id]" ? graph : null; }};
  const place = keys.where({body: body, activeElement: button});
  assert.deepEqual(JSON.parse(JSON.stringify(place)), {id: graph.id, title: "Zoom"});
  // the page drawn anew: the new button of the same chart gets focus
  let focused = null;
  const fresh = {tabIndex: 0, focus: function () { focused = "fresh"; },
                 getAttribute: function () { return "Zoom"; }};
  const other = {tabIndex: 0, focus: function () { focused = "other"; },
                 getAttribute: function () { return "Pan"; }};
  const host = {tabIndex: -1, querySelectorAll: function () { return [other, fresh]; }};
  const doc = {querySelectorAll: function () { return []; },
               getElementById: function (id) { return id === graph.id ? host : null; }};
  assert.equal(keys.goTo(doc, place), true);
  assert.equal(focused, "fresh");
  assert.equal(keys.goTo(doc, {id: "gone", title: "Zoom"}), false);  // not drawn (yet)
});
