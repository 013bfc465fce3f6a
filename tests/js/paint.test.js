/* assets/evalmaps-paint.js: colours, the black-or-white choice of cell text (as
 * evalmaps.figures.theme.text_color makes it: the luminances below are the server's), the cell text's
 * size and a figure painted from its meta; restyle's figures and URL. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, here, spec, withDash, NO_UPDATE, fakeDocument} = require("./sandbox");

test("rgbOf: hex, short hex, rgb() and rgba()", function () {
  const rgbOf = load().evalmapsLib.paint.rgbOf;
  assert.deepEqual(here(rgbOf("#fff")), [255, 255, 255]);
  assert.deepEqual(here(rgbOf("#1F77B4")), [31, 119, 180]);
  assert.deepEqual(here(rgbOf(" rgb(10, 20, 30) ")), [10, 20, 30]);
  assert.deepEqual(here(rgbOf("rgba(1,2,3,0.5)")), [1, 2, 3]);
});

test("scaleRgb: between stops, clamped at the ends", function () {
  const scaleRgb = load().evalmapsLib.paint.scaleRgb;
  const stops = [[0, "#000000"], [0.5, "rgb(255,0,0)"], [1, "#ffffff"]];
  assert.deepEqual(here(scaleRgb(stops, 0.25)), [128, 0, 0]);  // 127.5 rounds up
  assert.deepEqual(here(scaleRgb(stops, 0.75)), [255, 128, 128]);
  assert.deepEqual(here(scaleRgb(stops, -1)), [0, 0, 0]);
  assert.deepEqual(here(scaleRgb(stops, 2)), [255, 255, 255]);
  assert.deepEqual(here(scaleRgb([[0, "#000"], [0.5, "#000"], [0.5, "#fff"], [1, "#fff"]], 0.5)),
                   [0, 0, 0]);  // the first stop at a repeated position
});

test("luminance and dark: the server's values and choices (evalmaps.figures.theme)", function () {
  const paint = load().evalmapsLib.paint;
  const server = [  // rgb, theme.luminance, theme.text_color is black
    [[255, 255, 255], 1.0, true], [[0, 0, 0], 0.0, false],
    [[128, 128, 128], 0.21586050011389923, true], [[64, 64, 64], 0.05126945837404324, false],
    [[31, 119, 180], 0.1678024547961944, false], [[200, 30, 90], 0.13946091949542677, false],
    [[117, 117, 117], 0.17788841598362912, false], [[118, 118, 118], 0.18116424424986022, true]
  ];
  server.forEach(function (c) {
    assert.ok(Math.abs(paint.luminance(c[0]) - c[1]) < 1e-12, JSON.stringify(c));
    assert.equal(paint.dark(c[0]), c[2], JSON.stringify(c));
  });
});

test("fontSize: at most 12 px, 0 under 9 px, 12 px before the size is known", function () {
  const fontSize = load().evalmapsLib.paint.fontSize;
  assert.equal(fontSize({size: {w: 400, h: 200}, chars: 4}, 10, 5, 1), 12);
  assert.equal(fontSize({size: {w: 300, h: 200}, chars: 5}, 10, 10, 0), 9);  // 30 px / 3.25
  assert.equal(fontSize({size: {w: 200, h: 100}, chars: 4}, 10, 10, 0), 0);  // 7 px
  assert.equal(fontSize({size: {w: 24, h: 300}, chars: 0}, 1, 10, 0), 12);   // chars: at least 1
  assert.equal(fontSize({size: {w: 20, h: 300}, chars: 8}, 1, 10, 0), 0);
  assert.equal(fontSize({chars: 40}, 10, 10, 0), 12);
  assert.equal(fontSize({size: {w: 10, h: 10}, chars: 40}, 0, 10, 0), 12);
});

const GREYS = [[0, "#000000"], [1, "#ffffff"]];
const INVERTED = [[0, "#ffffff"], [1, "#000000"]];

/* A 2 by 2 map: values 0, 0.5 / 0.3, 1; its cell text split between a black and a white text
 * trace as the server sent it (the last finite value of a cell counts), and a gap trace. */
function figure() {
  return {
    data: [
      {type: "heatmap", z: [[0, 0.5], [0.3, 1]], zmin: 0, zmax: 1, colorscale: "Viridis",
       meta: {role: "value"}},
      {type: "heatmap", z: spec("f4", new Float32Array([0, 0.5, NaN, 1]), "2, 2"),
       meta: {role: "text", color: "#000000"}, textfont: {family: "Inter", size: 1}},
      {type: "heatmap", z: spec("f4", new Float32Array([NaN, NaN, 0.25, NaN]), "2, 2"),
       meta: {role: "text", color: "#ffffff"}, textfont: {family: "Inter", size: 1}},
      {type: "heatmap", z: [[null, null], [null, null]], meta: {}}
    ],
    layout: {title: {text: "t"}, meta: {ticks: 1, evalmaps: {
      ranges: {fixed: [0, 1], auto: [0.2, 0.8]}, scales: {uniform: GREYS, paper: INVERTED},
      scale: "uniform", color: "fixed", text: "%{z:.1f}", show: true, chars: 3,
      size: {w: 200, h: 100}}}}
  };
}

test("paint: range and scale on the value trace, each cell's text on its contrast's trace", function () {
  const fig = figure();
  const got = here(load().evalmapsLib.paint.paint(fig));
  const want = figure();
  want.data[0] = Object.assign(want.data[0], {colorscale: GREYS, zmin: 0, zmax: 1, zauto: false});
  // 0: a black cell (white text); 0.5: grey 128 (black); 0.25: grey 64 (white); 1: white (black)
  want.data[1] = Object.assign(want.data[1], {z: [[null, 0.5], [null, 1]],
                                               texttemplate: "%{z:.1f}",
                                               textfont: {family: "Inter", size: 12}});
  want.data[2] = Object.assign(want.data[2], {z: [[0, null], [0.25, null]],
                                               texttemplate: "%{z:.1f}",
                                               textfont: {family: "Inter", size: 12}});
  assert.deepEqual(got, want);
  assert.deepEqual(fig, figure());  // the figure given is left as it was
});

test("paint: a figure without evalmaps meta comes back as it is", function () {
  const paint = load().evalmapsLib.paint.paint;
  const fig = {data: [{z: [[1]]}], layout: {}};
  assert.equal(paint(fig), fig);
  assert.equal(paint(null), null);
});

test("restyle: the figures restyled and the URL's color, labels and scale keys", function () {
  const win = load();
  withDash(win);
  const restyle = win.dash_clientside.evalmaps.restyle;
  assert.equal(restyle, win.evalmapsLib.paint.restyle);
  const out = restyle("auto", false, "paper", [figure(), {data: [], layout: {}}],
                      "?figure=x&color=fixed", "fixed");
  assert.equal(out[0][1], NO_UPDATE);  // no meta: not restyled
  assert.equal(out[1], "?figure=x&color=auto&labels=off&scale=paper");
  const want = figure();
  Object.assign(want.layout.meta.evalmaps, {color: "auto", show: false, scale: "paper"});
  // range 0.2 to 0.8 on white to black: 0, 0.25 and 0.5 light (black text), 1 black (white)
  want.data[0] = Object.assign(want.data[0], {colorscale: INVERTED, zmin: 0.2, zmax: 0.8,
                                              zauto: false});
  want.data[1] = Object.assign(want.data[1], {z: [[0, 0.5], [0.25, null]], texttemplate: "",
                                              textfont: {family: "Inter", size: 12}});
  want.data[2] = Object.assign(want.data[2], {z: [[null, null], [null, 1]], texttemplate: "",
                                              textfont: {family: "Inter", size: 12}});
  assert.deepEqual(here(out[0][0]), want);
});

test("restyle: the URL written only when it changes, defaults left out", function () {
  const win = load();
  withDash(win);
  const restyle = win.dash_clientside.evalmaps.restyle;
  assert.equal(restyle("fixed", true, "uniform", [], "?figure=x", "fixed")[1], NO_UPDATE);
  assert.equal(restyle("fixed", true, null, [], "?color=auto&labels=off&scale=paper", "fixed")[1],
               "");
  assert.equal(restyle("auto", true, "uniform", null, "", "fixed")[1], "?color=auto");
});

test("restyle: the labels note's links keep the query the browser writes, their ticks key own",
     function () {
  const link = function (ticks, href) {
    return {dataset: {ticks: ticks}, href: href,
            setAttribute: function (name, value) { this[name] = value; }};
  };
  const all = link("all", "http://127.0.0.1:8050/app/?figure=x&ticks=all");
  const back = link("auto", "http://127.0.0.1:8050/app/?figure=x");
  const win = load({document: fakeDocument({found: {"a.ticks-link": [all, back]}})});
  withDash(win);
  const restyle = win.dash_clientside.evalmaps.restyle;
  assert.equal(restyle("auto", false, "uniform", [], "?figure=x&ticks=all", "figure")[1],
               "?figure=x&ticks=all&color=auto&labels=off");
  assert.equal(all.href, "/app/?figure=x&ticks=all&color=auto&labels=off");
  assert.equal(back.href, "/app/?figure=x&color=auto&labels=off");
  // nothing written when the query stays as it is
  all.href = "http://127.0.0.1:8050/app/?figure=x&ticks=all";
  restyle("auto", false, "uniform", [], "?figure=x&color=auto&labels=off", "figure");
  assert.equal(all.href, "http://127.0.0.1:8050/app/?figure=x&ticks=all");
});
