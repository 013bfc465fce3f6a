/* assets/evalmaps-rank.js: Enter on the keyboard's active square of a Rank pair map sends Dash
 * Pages' location to that square's Compare address (made from the map's layout: the models'
 * refs and the cell's part of the query, meta.evalmaps.rank.compare); on another map, the
 * diagonal, a square without a value (no pair), a map Compare cannot lay out, another key, or
 * with no active square, nothing. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, element, fakeDocument} = require("./sandbox");

const HREF = "/compare?a=f:model=x&b=f:model=y&cell=biology|accuracy";
const COMPARE = {refs: ["f:model=x", "f:model=y"], rest: "cell=biology|accuracy"};

/* A drawn pair map of models x and y: its layout's Compare part (``compare``), square (1, 0)
 * without a value (no pair), the diagonal nobody's. */
function drawn(compare) {
  return element({layout: {meta: {evalmaps: {rank: {cell: {}, compare: compare}}}}});
}

function model() {
  return {y: ["x", "y"], x: ["x", "y"], at: function (i, j) {
    return i === j ? null : {value: i === 0, customdata: i === 0 ? ["x", "y"] : undefined};
  }};
}

function page(compare) {
  const doc = fakeDocument();
  const props = [];
  const win = load({names: ["evalmaps-rank.js"], document: doc, window: {
    dash_clientside: {set_props: function (id, value) { props.push([id, value]); }}
  }});
  win.evalmapsLib.keys = {ready: function () { return true; }, model: model};
  const onKey = doc.listeners.filter(function (l) { return l[0] === "keydown"; })[0][1];
  return {win: win, props: props, onKey: onKey,
          frame: function (type, cell) { return frame(type, cell, compare); }};
}

function frame(type, cell, compare) {
  const graph = element({id: JSON.stringify({panel: "0", type: type})});
  const gd = drawn(compare === undefined ? COMPARE : compare);
  const found = {".js-plotly-plot": gd};
  if (type === "rank-pairs") {
    found["[id*='rank-pairs']"] = graph;
  }
  const f = element({classList: {contains: function (c) { return c === "heatmap-keys"; }},
                     found: found});
  f._evalmapsCell = cell;
  return f;
}

function key(target, name) {
  const e = {key: name, target: target, defaultPrevented: false,
             preventDefault: function () { e.defaultPrevented = true; }};
  return e;
}

test("Enter on a pair square opens that pair in Compare", function () {
  const p = page();
  const e = key(p.frame("rank-pairs", {i: 0, j: 1}), "Enter");
  p.onKey(e);
  assert.equal(e.defaultPrevented, true);
  assert.deepEqual(JSON.parse(JSON.stringify(p.props)), [["_pages_location", {href: HREF}]]);
});

test("Enter on the where map, the diagonal, a square without an address, or another key: nothing",
     function () {
       const p = page();
       p.onKey(key(frame("rank-where", {i: 0, j: 1}), "Enter"));
       p.onKey(key(frame("rank-pairs", {i: 0, j: 0}), "Enter"));
       p.onKey(key(frame("rank-pairs", {i: 1, j: 0}), "Enter"));
       p.onKey(key(frame("rank-pairs", {i: 0, j: 1}), "ArrowDown"));
       p.onKey(key(frame("rank-pairs", null), "Enter"));
       p.onKey(key(frame("rank-pairs", {i: 5, j: 0}), "Enter"));
       p.onKey(key(frame("rank-pairs", {i: 0, j: 1}, null), "Enter"));  // Compare cannot
       assert.deepEqual(p.props, []);
     });

test("a click on a pair square: its Compare address, read from the drawn map", function () {
  const gd = drawn(COMPARE);
  const host = element({found: {".js-plotly-plot": gd}});
  const doc = fakeDocument({byId: {[JSON.stringify({panel: "1", type: "rank-pairs"})]: host}});
  const win = load({names: ["evalmaps-rank.js"], document: doc, window: {
    dash_clientside: {no_update: "NO", callback_context: {
      triggered_id: {panel: "1", type: "rank-pairs"}}}
  }});
  win.evalmapsLib.keys = {
    ready: function (g) { return g === gd; },
    model: model
  };
  const click = win.dash_clientside.evalmaps.rankPairClick;
  const at = function (x, y) { return {points: [{x: x, y: y}]}; };
  assert.equal(click([null, at("y", "x")]), HREF);  // row x (A), column y (B)
  assert.equal(click([null, at("x", "x")]), "NO");  // the diagonal
  assert.equal(click([null, at("x", "y")]), "NO");  // row y, column x: no pair
  assert.equal(click([null, at("zz", "x")]), "NO");  // no such label
  assert.equal(click([null, null]), "NO");
});
