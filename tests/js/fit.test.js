/* assets/evalmaps-fit.js: x ticks thinned to fit, the y title kept inside the chart, the cell
 * text's size (meta.size) at the plot area's size, before drawing (prefit) and after (settle). */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, here} = require("./sandbox");

const fit = load().evalmapsLib.fit;
const LABELS = Array.from({length: 40}, function (_, k) { return "label-" + (10 + k); });

test("tickStep: every label while they fit, else every k-th", function () {
  assert.equal(fit.tickStep(["a", "bb", "ccc"], 30), 4);   // (3 * 7.5 + 8) / 10 px a cell
  assert.equal(fit.tickStep(["a", "bb", "ccc"], 300), 1);
  assert.equal(fit.tickStep([2000, 40000], 50), 2);        // numbers: their text's length
  assert.equal(fit.tickStep([], 100), 1);
  assert.equal(fit.tickStep(["x"], 0), 1);
  assert.equal(fit.tickStep(null, 10), 1);
});

test("fitted: category ticks thinned, and back to every one when they fit", function () {
  const narrow = {data: [], layout: {xaxis: {categoryarray: ["a", "bb", "ccc"], dtick: 1}}};
  // 10 px a cell: level labels every 4th; upright (13 px a label) every 2nd
  const thin = here(fit.fitted({x: 30, y: 100}, narrow));
  assert.deepEqual(thin, {data: [], layout: {xaxis: {
    categoryarray: ["a", "bb", "ccc"], dtick: 2, tickmode: "linear", tick0: 0, tickangle: -90}}});
  assert.equal(fit.fitted({x: 300, y: 100}, narrow), null);  // fits as it is
  assert.deepEqual(here(fit.fitted({x: 300, y: 100}, thin)), {data: [], layout: {xaxis: {
    categoryarray: ["a", "bb", "ccc"], dtick: 1, tickmode: "linear", tick0: 0, tickangle: 0}}});
});

test("fitted: a numeric axis labelled at its values keeps the labels that fit, all kept aside", function () {
  const all = {vals: [0, 10, 20, 30, 40], text: ["0", "10", "20", "30", "40"]};
  const fig = {data: [], layout: {xaxis: {tickmode: "array", tickvals: all.vals,
                                          ticktext: all.text}}};
  const thin = here(fit.fitted({x: 40, y: 10}, fig));  // 9 px between values: first and last
  assert.deepEqual(thin, {data: [], layout: {
    xaxis: {tickmode: "array", tickvals: [0, 40], ticktext: ["0", "40"], tickangle: 0},
    meta: {ticks: all}}});
  assert.deepEqual(here(fit.fitted({x: 1000, y: 10}, thin)).layout.xaxis,
                   {tickmode: "array", tickvals: all.vals, ticktext: all.text, tickangle: 0});
});

/* Pythia's checkpoints: 13 of 27 within 3000 of 0 (step 0 drawn at 0.1 on a log axis) */
const STEPS = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 3000, 13000, 23000, 33000,
               43000, 53000, 63000, 73000, 83000, 93000, 103000, 113000, 123000, 133000, 143000];
const STEP_TEXT = STEPS.map(String);
const AT_LOG = STEPS.map(function (s) { return s === 0 ? 0.1 : s; });

test("spacedTicks: uneven steps keep the labels that have room, not every k-th one", function () {
  const shown = function (keep) { return Array.from(keep, function (k) { return STEP_TEXT[k]; }); };
  // linear, 1200 px: the early steps share the left edge; one label there, then the rest
  assert.deepEqual(shown(fit.spacedTicks(STEPS, STEP_TEXT, 1200, false)),
                   ["0", "13000", "23000", "33000", "43000", "53000", "63000", "73000", "83000",
                    "93000", "103000", "113000", "123000", "133000", "143000"]);
  // log, 1200 px: every early step, and late ones spread between 3000 and the last
  assert.deepEqual(shown(fit.spacedTicks(AT_LOG, STEP_TEXT, 1200, true)),
                   ["0", "1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1000",
                    "3000", "23000", "53000", "143000"]);
  // log, a phone (300 px): fewer, spread evenly, never overlapping, the first and the last
  const phone = fit.spacedTicks(AT_LOG, STEP_TEXT, 300, true);
  assert.deepEqual(shown(phone), ["0", "1", "4", "16", "128", "3000", "143000"]);
  assert.deepEqual(shown(fit.spacedTicks(STEPS, STEP_TEXT, 300, false)),
                   ["0", "33000", "73000", "103000", "143000"]);
  const px = function (k) { return (Math.log10(AT_LOG[k]) + 1) / Math.log10(1430000) * 270; };
  for (let i = 1; i < phone.length; i++) {  // neighbours clear each other
    const a = phone[i - 1], b = phone[i];
    assert.ok(px(b) - px(a) >= (STEP_TEXT[a].length + STEP_TEXT[b].length) * 3.75 + 8);
  }
  assert.deepEqual(here(fit.spacedTicks([1, 2], ["1", "2"], 0, false)), [0, 1]);  // no size yet
  assert.deepEqual(here(fit.spacedTicks([5], ["5"], 100, true)), [0]);
});

test("fitted: a log axis is thinned by the labels' logarithms", function () {
  const fig = {data: [], layout: {xaxis: {type: "log", tickmode: "array", tickvals: AT_LOG,
                                          ticktext: STEP_TEXT}}};
  const out = here(fit.fitted({x: 1200, y: 300}, fig)).layout;
  assert.deepEqual(Array.from(out.xaxis.ticktext).slice(0, 13), STEP_TEXT.slice(0, 13));
  assert.equal(out.xaxis.ticktext[out.xaxis.ticktext.length - 1], "143000");
  assert.deepEqual(out.meta.ticks, {vals: AT_LOG, text: STEP_TEXT});
  assert.equal(out.xaxis.type, "log");
});

test("fitted: a line chart's legend goes below its plot on a narrow chart, and back", function () {
  const fig = {data: [], layout: {meta: {legendBelow: 560}, legend: {title: {text: "Model"}}}};
  const phone = here(fit.fitted({x: 200, y: 300, w: 366}, fig)).layout;
  assert.deepEqual(phone.legend, {title: {text: "Model", side: "top"}, orientation: "h",
                                  yref: "container", y: 0, yanchor: "bottom", x: 0,
                                  xanchor: "left"});
  assert.equal(fit.fitted({x: 900, y: 300, w: 1200}, fig), null);  // wide: at the right
  const back = here(fit.fitted({x: 900, y: 300, w: 1200}, {data: [], layout: phone})).layout;
  assert.equal(back.legend.orientation, "v");
  assert.equal(back.legend.title.text, "Model");
  // no meta (a heatmap, a chart without a legend rule): the legend is left alone
  assert.equal(fit.fitted({x: 200, y: 300, w: 366}, {data: [], layout: {legend: {}}}), null);
  // drawn with the legend at the right where it should be below: redrawn
  const gd = {layout: {legend: {}}, data: []};
  assert.equal(fit.fits(gd, {data: [], layout: phone}), false);
  assert.equal(fit.fits({layout: phone, data: []}, {data: [], layout: phone}), true);
});

test("fitted: the y title moves in when the left margin is drawn narrower, and back", function () {
  const fig = {data: [], layout: {annotations: [{name: "x-title", xshift: 0},
                                                {name: "y-title", xshift: -60}]}};
  const moved = here(fit.fitted({x: 100, y: 100, l: 50}, fig));
  assert.deepEqual(moved.layout, {annotations: [{name: "x-title", xshift: 0},
                                                {name: "y-title", xshift: -30}],
                                  meta: {yTitleShift: -60}});
  const back = here(fit.fitted({x: 100, y: 100, l: 100}, moved));
  assert.deepEqual(back.layout.annotations[1], {name: "y-title", xshift: -60});
  assert.equal(fit.fitted({x: 100, y: 100}, fig), null);  // no margin known: left alone
  assert.equal(fit.yTitleShift(moved.layout), -30);
  assert.equal(fit.yTitleShift({}), null);
});

test("fitted: the plot area's size written into the evalmaps meta, and the map painted", function () {
  const fig = {data: [{type: "heatmap", z: [[1]], meta: {role: "value"}}],
               layout: {meta: {evalmaps: {ranges: {fixed: [0, 2]}, color: "fixed", scale: "s",
                                          scales: {s: [[0, "#000"], [1, "#fff"]]},
                                          size: {w: 100, h: 50}}}}};
  assert.equal(fit.fitted({x: 100.4, y: 49.6}, fig), null);  // the same, rounded
  const out = here(fit.fitted({x: 200, y: 50}, fig));
  assert.deepEqual(out.layout.meta.evalmaps.size, {w: 200, h: 50});
  assert.deepEqual(out.data[0], {type: "heatmap", z: [[1]], meta: {role: "value"}, zmin: 0,
                                 zmax: 2, zauto: false, colorscale: [[0, "#000"], [1, "#fff"]]});
});

function categoryFigure(extra) {
  return {data: [{type: "heatmap"}], layout: Object.assign({
    height: 400, margin: {l: 100, r: 20, t: 50, b: 60},
    xaxis: {categoryarray: LABELS}}, extra || {})};
}

test("prefit: the size it will be drawn at, from the chart's width and the figure", function () {
  const gd = {clientWidth: 800, clientHeight: 600};  // not drawn yet
  // 800 - 100 - 20 - 90 (colour bar) = 590 px for 40 labels of 8 characters: level, every 5th
  // would fit; upright (13 px a label), every one
  const fitted = fit.prefit(gd, categoryFigure()).layout;
  assert.deepEqual([fitted.xaxis.dtick, fitted.xaxis.tickangle], [1, -90]);
  assert.equal(fitted.margin.b, 60 + (8 * 7 + 8) - 18);  // room below the axis for the labels
  const wide = fit.prefit(gd, categoryFigure({width: 1200})).layout;  // 990 px: every one
  assert.deepEqual([wide.xaxis.dtick, wide.xaxis.tickangle], [1, -90]);
  const noBar = categoryFigure();
  noBar.data[0].showscale = false;  // 680 px
  assert.equal(fit.prefit(gd, noBar).layout.xaxis.dtick, 1);
  const small = {data: [], layout: {height: 100, xaxis: {categoryarray: ["a"]}}};
  assert.equal(fit.prefit(gd, small), small);  // nothing to change: the figure itself
  assert.equal(fit.prefit({}, categoryFigure({height: undefined})).layout.xaxis.categoryarray,
               LABELS);  // no size known: as it is
  assert.equal(fit.prefit(gd, null), null);
});

test("xTicks: level while they fit, upright before thinning", function () {
  assert.deepEqual(here(fit.xTicks(["a", "bb", "ccc"], 300)), {step: 1, angle: 0, room: 0});
  // 3 labels of 12 characters in 150 px: level needs 98 px each; upright 13
  const three = ["GPQA-Diamond", "AIME24-long-", "AMC23-longer"];
  assert.deepEqual(here(fit.xTicks(three, 150)), {step: 1, angle: -90, room: 12 * 7 + 8});
  // 40 labels in 300 px: upright every 2nd (level, every 10th)
  assert.equal(fit.xTicks(LABELS, 300).step, 2);
  // a very long label: its room is at most 150 px (the label is cut there)
  assert.equal(fit.xTicks(["x".repeat(60), "y".repeat(60)], 40).room, 150);
});

test("fitted: upright labels move the x title down with the margin, and back when level", function () {
  const fig = {data: [], layout: {height: 400, margin: {l: 50, r: 20, t: 64, b: 55},
    annotations: [{name: "x-title", yshift: -33}],
    xaxis: {categoryarray: ["GPQA-Diamond", "AIME24-long-", "AMC23-longer"], dtick: 1}}};
  const up = here(fit.fitted({x: 150, y: 281}, fig));
  const extra = 12 * 7 + 8 - 18;
  assert.deepEqual([up.layout.xaxis.tickangle, up.layout.margin.b, up.layout.annotations[0].yshift,
                    up.layout.height], [-90, 55 + extra, -33 - extra, 400 + extra]);
  assert.deepEqual(up.layout.meta.xRoom, {b: 55, shift: -33, alias: null, h: 400});
  const level = here(fit.fitted({x: 600, y: 281}, up));
  assert.deepEqual([level.layout.xaxis.tickangle, level.layout.margin.b,
                    level.layout.annotations[0].yshift, level.layout.height], [0, 55, -33, 400]);
  // a label longer than its room is cut with an ellipsis (its alias); level again: as given
  const long = {data: [], layout: Object.assign({}, fig.layout, {xaxis: {
    categoryarray: ["a".repeat(40), "b".repeat(40), "c".repeat(40)], dtick: 1}})};
  const cut = here(fit.fitted({x: 150, y: 281}, long)).layout.xaxis.labelalias;
  assert.equal(cut["a".repeat(40)], "a".repeat(19) + "\u2026");
});

/* A chart drawn by plotly.js: its plot area 300 by 290 px from the left margin of 100 px. */
function drawn(layout) {
  return {clientWidth: 800, clientHeight: 600, data: [{type: "heatmap"}], layout: layout,
          _fullLayout: {height: 400, margin: {l: 100, r: 20}, _size: {l: 100},
                        xaxis: {_length: 300, _offset: 100}, yaxis: {_length: 290, _offset: 50}}};
}

test("prefit: a chart drawn at the figure's height and margins: its plot area as drawn", function () {
  // 300 px as drawn (not 590): level every 10th; upright, every 2nd
  assert.equal(fit.prefit(drawn({}), categoryFigure()).layout.xaxis.dtick, 2);
  // other margins: worked out from the width again (800 - 90 - 20 - 90 = 600 px: every one)
  assert.equal(fit.prefit(drawn({}), categoryFigure({margin: {l: 90, r: 20, t: 50, b: 60}}))
    .layout.xaxis.dtick, 1);
});

test("settle: redrawn only when the drawn ticks are off by more than a little", function () {
  const xaxis = function (dtick, angle) {
    return {categoryarray: LABELS, dtick: dtick, tickangle: angle === undefined ? -90 : angle};
  };
  const room = {height: 400 + 46, margin: {l: 100, r: 20, t: 50, b: 60 + 46},
                meta: {xRoom: {b: 60, shift: null, alias: null, h: 400}}};
  assert.equal(fit.settle(drawn(categoryFigure(Object.assign({xaxis: xaxis(2)}, room)).layout)), null);
  assert.equal(fit.settle(drawn(categoryFigure(Object.assign({xaxis: xaxis(1)}, room)).layout))
    .layout.xaxis.dtick, 2);
  // level labels every 10th, as before upright ones: redrawn upright
  assert.equal(fit.settle(drawn(categoryFigure({xaxis: xaxis(10, 0)}).layout)).layout.xaxis.tickangle, -90);
  const notDrawn = drawn(categoryFigure({xaxis: xaxis(5, 0)}).layout);
  delete notDrawn._fullLayout;
  assert.equal(fit.settle(notDrawn), null);
});
