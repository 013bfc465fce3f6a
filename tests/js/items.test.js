/* assets/evalmaps-items.js: Enter on the keyboard's active cell of Compare's B − A hands its
 * labels to Dash (compare-items-open); on any other map, or with no active cell, nothing. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, element, fakeDocument} = require("./sandbox");

function page() {
  const doc = fakeDocument();
  const props = [];
  const win = load({names: ["evalmaps-items.js"], document: doc, window: {
    dash_clientside: {set_props: function (id, value) { props.push([id, value]); }},
    Date: {now: function () { return 7; }}
  }});
  win.evalmapsLib.keys = {
    ready: function () { return true; },
    model: function () { return {y: ["math", "law"], x: ["test"]}; }
  };
  const onKey = doc.listeners.filter(function (l) { return l[0] === "keydown"; })[0][1];
  return {win: win, props: props, onKey: onKey};
}

function frame(panel, cell) {
  const graph = element({id: JSON.stringify({panel: panel, type: "compare-heatmap"})});
  const gd = element({});
  const f = element({classList: {contains: function (c) { return c === "heatmap-keys"; }},
                     found: {"[id*='compare-heatmap']": graph, ".js-plotly-plot": gd}});
  f._evalmapsCell = cell;
  return f;
}

function key(target, name) {
  const e = {key: name, target: target, defaultPrevented: false,
             preventDefault: function () { e.defaultPrevented = true; }};
  return e;
}

test("Enter on B − A's active cell opens its items", function () {
  const p = page();
  const e = key(frame("delta", {i: 1, j: 0}), "Enter");
  p.onKey(e);
  assert.equal(e.defaultPrevented, true);
  assert.deepEqual(JSON.parse(JSON.stringify(p.props)),
                   [["compare-items-open", {data: {y: "law", x: "test", t: 7}}]]);
});

test("Enter on map A, another key, or no active cell: nothing", function () {
  const p = page();
  p.onKey(key(frame("a", {i: 0, j: 0}), "Enter"));
  p.onKey(key(frame("delta", {i: 0, j: 0}), "ArrowDown"));
  p.onKey(key(frame("delta", null), "Enter"));
  p.onKey(key(frame("delta", {i: 5, j: 0}), "Enter"));
  assert.deepEqual(p.props, []);
});
