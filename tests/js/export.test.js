/* assets/export.js: Plotly.newPlot and Plotly.react wrapped as plotly.js defines window.Plotly:
 * an SVG button beside the PNG one, each figure fitted before it is drawn and again after (at
 * most twice in a row), and a resize to the chart's own size skipped. A fake plotly.js records
 * what it is asked to draw. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, here} = require("./sandbox");

const LABELS = Array.from({length: 40}, function (_, k) { return "label-" + (10 + k); });

function fakePlotly(calls) {
  const draw = function (name) {
    return function (gd, data, layout, config) {
      calls.push([name, data, layout, config]);
      const figure = Array.isArray(data) ? {data: data, layout: layout} : data;
      gd.data = figure.data;  // as plotly.js keeps what it draws, and what it worked out
      gd.layout = figure.layout;
      gd._fullLayout = Object.assign({}, gd.drawAs, {height: figure.layout.height,
                                                     margin: figure.layout.margin});
      return Promise.resolve(gd);
    };
  };
  return {
    Icons: {disk: "disk"},
    newPlot: draw("newPlot"),
    react: draw("react"),
    Plots: {resize: function (gd) { calls.push(["resize", gd]); return Promise.resolve(gd); }},
    downloadImage: function (gd, options) { calls.push(["downloadImage", options]); }
  };
}

function settled() {
  return new Promise(function (resolve) { setImmediate(resolve); });
}

test("newPlot: the SVG button added, named as the PNG one; its click downloads an SVG", function () {
  const win = load();
  const calls = [];
  win.Plotly = fakePlotly(calls);
  const gd = {clientWidth: 800, clientHeight: 600, drawAs: {width: 640}};
  const config = {toImageButtonOptions: {filename: "fig-a"},
                  modeBarButtonsToAdd: [{name: "evalmapsSvg"}, "drawline"]};
  win.Plotly.newPlot(gd, [], {height: 480}, config);
  const buttons = calls[0][3].modeBarButtonsToAdd;
  assert.equal(buttons.length, 2);  // an old SVG button replaced, others kept
  assert.equal(buttons[0], "drawline");
  assert.deepEqual([buttons[1].name, buttons[1].title, buttons[1].icon],
                   ["evalmapsSvg", "Download plot as SVG", "disk"]);
  buttons[1].click(gd);
  assert.deepEqual(here(calls[1]), ["downloadImage", {format: "svg", filename: "fig-a",
                                                      width: 640, height: 480}]);
  const plain = {displaylogo: false};
  assert.equal(win.evalmapsLib.export.withSvgButton(plain), plain);  // no file name: no button
});

test("newPlot and react: the figure fitted before drawing, and after it when off", async function () {
  const win = load();
  const calls = [];
  win.Plotly = fakePlotly(calls);
  const layout = {height: 400, margin: {l: 100, r: 20, t: 50, b: 60},
                  xaxis: {categoryarray: LABELS}};
  // fitted before the first drawing from the chart's width (590 px: upright, every label),
  // after it at the plot area as drawn (150 px: every 4th)
  const gd = {clientWidth: 800, clientHeight: 600,
              drawAs: {_size: {l: 100}, xaxis: {_length: 150, _offset: 100},
                       yaxis: {_length: 290, _offset: 50}}};
  win.Plotly.react(gd, {data: [{type: "heatmap"}], layout: layout, config: {}});
  assert.equal(calls[0][0], "react");
  assert.equal(calls[0][1].layout.xaxis.dtick, 1);
  await settled();
  assert.equal(calls.length, 2);
  assert.equal(calls[1][0], "react");
  assert.equal(calls[1][2].xaxis.dtick, 4);
  assert.equal(gd._evalmapsSettles, 1);
  await settled();
  assert.equal(calls.length, 2);  // fits now: not drawn again
  assert.deepEqual(here(layout), {height: 400, margin: {l: 100, r: 20, t: 50, b: 60},
                                  xaxis: {categoryarray: LABELS}});  // the caller's, untouched
});

test("Plotly is wrapped once, whenever it is set", function () {
  const win = load();
  const calls = [];
  const plotly = fakePlotly(calls);
  win.Plotly = plotly;
  win.Plotly = plotly;
  assert.equal(win.Plotly, plotly);
  win.Plotly.newPlot({}, [], {}, {});
  assert.equal(calls.length, 1);
});

test("resize: skipped at the chart's own size, done (and fitted) at another", async function () {
  const win = load();
  const calls = [];
  win.Plotly = fakePlotly(calls);
  const gd = {clientWidth: 800, clientHeight: 400, layout: {},
              _fullLayout: {width: 800, height: 400}};
  const same = win.Plotly.Plots.resize(gd);
  assert.equal(await same, gd);
  assert.deepEqual(calls, []);
  gd.clientWidth = 700;
  gd._evalmapsSettles = 2;
  await win.Plotly.Plots.resize(gd);
  assert.equal(calls.length, 1);
  assert.equal(calls[0][0], "resize");
  await settled();
  assert.equal(gd._evalmapsSettles, 0);  // a new size: may be fitted again
  gd.layout = {height: 300};  // a fixed height: only the width counts
  gd.clientWidth = 800;
  gd.clientHeight = 10;
  await win.Plotly.Plots.resize(gd);
  assert.equal(calls.length, 1);
});
