/* assets/evalmaps-format.js: numbers as evalmaps.core.text writes them, hover templates filled for
 * one cell, Plotly's pseudo-HTML as plain text. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load} = require("./sandbox");

test("number: decimals, trailing zeros trimmed down to least, no negative zero", function () {
  const number = load().evalmapsLib.format.number;
  const cases = [
    [[0.5, 2], "0.50"],                 // no least: every place
    [[0.5, 3, 1], "0.5"],               // 0.500 trimmed to one place
    [[2, 3, 0], "2"],                   // 2.000 trimmed to none: no point
    [[2.1, 3, 2], "2.10"],              // trimmed to "1", padded back to two places
    [[123.456, 2, 1], "123.46"],        // nothing to trim
    [[1.005, 2], "1.00"],               // 1.005 is 1.00499999... as a double (Python agrees)
    [[1234.5, 0], "1235"],              // a tie goes up
    [[-1.5, 1], "-1.5"],
    [[-0.0001, 2], "0.00"],             // -0.00 is 0.00
    [[-0.04, 1, 0], "0"],               // -0.0 trimmed to -0: 0
    [[1.1, 2, 2], "1.10"],              // least = decimals: no trimming
    [[3, 0, 0], "3"],
    [[0.25, 3, null], "0.250"]          // null: no least
  ];
  cases.forEach(function (c) {
    assert.equal(number.apply(null, c[0]), c[1], JSON.stringify(c[0]));
  });
});

test("fill: a hover template filled for one cell, numbers through the formatter", function () {
  const fill = load().evalmapsLib.format.fill;
  const format = function (spec) { return function (v) { return "<" + spec + "|" + v + ">"; }; };
  const template = "%{y} · %{x}<br>Value: %{z:.1f}<br>Seeds %{customdata[1]:d} of " +
    "%{customdata[0]}<br>%{customdata[5]} %{customdata[2]:.2f}<extra></extra>";
  const cell = {x: "2000", y: "0.4", z: 52.25, customdata: [3, 2, "n/a"]};
  assert.equal(fill(template, cell, format),
               "0.4 · 2000<br>Value: <.1f|52.25><br>Seeds <d|2> of 3<br>%{customdata[5]} " +
               "n/a<extra></extra>");
  assert.equal(fill("%{z:.1f} %{customdata[0]}", {x: "a", y: "b", z: null}, format),
               "%{z:.1f} %{customdata[0]}");
});

test("plain: text without markup is not parsed at all", function () {
  const win = load();
  win.document.createElement = function () { throw new Error("parsed"); };
  const plain = win.evalmapsLib.format.plain;
  assert.equal(plain("Local Window Size"), "Local Window Size");
  assert.equal(plain(2000), "2000");
});

test("plain: <extra> dropped, <br> a line break, tags stripped, entities decoded", function () {
  const win = load();
  const made = [];
  win.document.createElement = function (tag) {  // a textarea that decodes a few entities
    made.push(tag);
    return {innerHTML: "", get value() {
      return this.innerHTML.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    }};
  };
  const plain = win.evalmapsLib.format.plain;
  assert.equal(plain("A &amp; B<br>x<sub>2</sub> &lt; 3<extra>trace 0</extra>"),
               "A & B\nx2 < 3");
  assert.equal(plain("<b>one</b><BR />two<br/>three<EXTRA>\nhidden</EXTRA>"), "one\ntwo\nthree");
  assert.deepEqual(made, ["textarea"]);  // one element, kept
});
