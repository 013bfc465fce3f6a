/* plotly.js's private names, all in this one place. plotly.js documents the figure it is given
 * (gd.data, gd.layout), its events and its top-level functions, not what it works out to draw a
 * figure: the layout and traces with every default filled in, the axes' geometry, the number
 * formatter of its hover labels. The maps' overlays, readouts, fitting and keyboard need those;
 * every other module reads them through the accessors here, so that a plotly.js release that
 * renames one breaks this file alone. Each accessor's comment says what it buys.
 *
 * Internal: window.evalmapsLib.plotly. Clientside callbacks: none. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};

  /* Layout as drawn, defaults filled in (null before drawing): buys the drawn size and margins. */
  function fullLayout(gd) {
    return (gd && gd._fullLayout) || null;
  }

  /* Traces as drawn, arrays decoded (null before drawing): buys hover's values; new per drawing. */
  function fullData(gd) {
    return (gd && gd._fullData) || null;
  }

  /* Plot area in px {x, y, left, top, l} (null undrawn): buys overlays placed without a redraw. */
  function plotArea(gd) {
    const fl = fullLayout(gd);
    if (!fl || !fl.xaxis || !fl.yaxis) {
      return null;
    }
    return {x: fl.xaxis._length, y: fl.yaxis._length, left: fl.xaxis._offset,
            top: fl.yaxis._offset, l: fl._size && fl._size.l};
  }

  /* An axis's categories ("x", "y") in drawn order: buys where a category's cell is drawn. */
  function categories(gd, letter) {
    return fullLayout(gd)[letter + "axis"]._categories;
  }

  /* An axis value to px from the plot area's edge: buys a cell's edges (reversed axes too). */
  function toPixel(gd, letter, value) {
    return fullLayout(gd)[letter + "axis"].l2p(value);
  }

  /* The figure's d3 formatter, (spec) => (value) => text: buys numbers as its hover writes them. */
  function numberFormat(gd) {
    return fullLayout(gd)._d3locale.numberFormat;
  }

  /* Plotly's hover label on cell (xval, yval) as a mouse gives it: buys plotly_hover, hoverData. */
  function hover(gd, xval, yval) {
    if (window.Plotly && window.Plotly.Fx) {
      // plotly.js emits plotly_hover only for an event with a target: the plot area's drag layer
      const target = gd.querySelector(".nsewdrag") || gd;
      window.Plotly.Fx.hover(gd, {xval: xval, yval: yval, target: target}, "xy");
    }
  }

  /* Plotly's hover label taken away: buys what the mouse leaving the plot area does. */
  function unhover(gd) {
    if (window.Plotly && window.Plotly.Fx) {
      window.Plotly.Fx.unhover(gd);
    }
  }

  lib.plotly = {
    fullLayout: fullLayout, fullData: fullData, plotArea: plotArea, categories: categories,
    toPixel: toPixel, numberFormat: numberFormat, hover: hover, unhover: unhover
  };
})();
