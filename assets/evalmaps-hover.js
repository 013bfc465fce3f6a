/* Compare view, linked hover. A hover on any of the three maps (A, B, B - A) outlines the same
 * cell in the other two and fills the readout with that cell's line; a relayout (resize)
 * re-places the outlines. The outlines are overlay divs placed from Plotly's axis geometry (the
 * maps' ranges are fixed: cell j spans j/nx..(j+1)/nx of the x axis, row i from the top
 * i/ny..(i+1)/ny of the y axis), so no map is redrawn and the hovered map keeps its hover label.
 *
 * A map drawn again (a watched figure's new version, evalmaps-live.js) with the last hovered
 * cell still in it: that cell is hovered again (by its labels), so the outlines and the
 * readout say it as drawn now; the keyboard's active cell does the same (evalmapsLib.keys).
 *
 * The readout's line (readout) is the static site's Compare page's too: evalmaps bundle ships
 * this file, whose Dash callback is then never called.
 *
 * Internal: window.evalmapsLib.hover. Clientside callbacks: evalmaps.compareHover. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};

  /* The chart (plotly.js's graph div) of Compare's map `panel` ("a", "b", "delta"), and the
   * element that holds it, or null. */
  function chartOf(panel) {
    const host = document.getElementById(JSON.stringify({panel: panel, type: "compare-heatmap"}));
    const gd = host && host.querySelector(".js-plotly-plot");
    return gd ? {host: host, gd: gd} : null;
  }

  /* The compare readout of cell (i, j) of the live page: the line readout() writes from the
   * B − A map's customdata as drawn; "" before the map is drawn. */
  function compareReadout(cells, i, j) {
    const chart = chartOf("delta");
    const full = chart && lib.plotly.fullData(chart.gd);
    const custom = full && full[0] && full[0].customdata;
    if (!custom || !custom[i]) {
      return "";
    }
    return readout(cells, custom[i][j], i, j);
  }

  /* The compare readout line of cell (i, j): 'Local Window Size 2000 · Ratio 0.4 — A 52.5 ·
   * B 56.3 · B − A +3.8', from `cell`, the cell's row of the B − A map's customdata (A, B, SE,
   * within 1.96 SE, the paired test's columns; or A and B alone:
   * evalmaps.figures.compare.delta_hovers), and `cells` (evalmaps.figures.compare.readouts).
   * The one place the line is worded: the live page's readout and the static site's Compare
   * page's (evalmaps/_bundle/bundle.js, from the same customdata and readouts in its data). */
  function readout(cells, cell, i, j) {
    const number = lib.format.number;
    const present = function (v) { return v !== null && v !== undefined && isFinite(v); };
    const scaled = function (v, places) { return places[2] === 100 ? v * 100 : v; };
    const unit = cells.unit || "";
    const side = function (v, places) {  // with the side's unit, as its hover writes it
      const suffix = places[3] === undefined ? unit : places[3];
      return present(v) ? number(scaled(v, places), places[0], places[1]) + suffix :
        "not reported";
    };
    const a = cell[0], b = cell[1], se = cell[2], within = cell[3];
    let delta = "not comparable";
    if (present(a) && present(b)) {
      const d = Math.round((b - a) * 1e9) / 1e9;  // as evalmaps.analysis.compare rounds away float noise
      const text = number(scaled(d, cells.delta), cells.delta[0], cells.delta[1]);
      delta = ((text.charAt(0) === "-" || Number(text) === 0) ? text : "+" + text) + unit;
      if (cells.lower_better && d !== 0) {
        delta += d < 0 ? " (B better: lower is better)" : " (B worse: lower is better)";
      }
    }
    // a grid of one row (two labels of a dimension, nothing left for the rows): no row name
    const row = cells.y_title || cells.y_text[i] ?
      cells.y_title + " " + cells.y_text[i] + " · " : "";
    let line = row + cells.x_title + " " + cells.x_text[j] + " — A " + side(a, cells.a) +
        " · B " + side(b, cells.b) + " · " + cells.minus + " " + delta;
    const paired = cells.paired;
    if (paired && cell.length > 10 && present(cell[4])) {
      // the paired test (evalmaps.figures.compare.PAIRED_COLUMNS): n, diff, interval (shown units),
      // p, adjusted p, test; 'paired, 30 items: +3.3 points [-6.7, +13.3], p = 0.55'
      const signed = function (v) {
        const text = number(v, paired.places, null);
        return (text.charAt(0) === "-" || Number(text) === 0) ? text : "+" + text;
      };
      const sig = function (p) { return String(Number(p.toPrecision(2))); };
      line += " · paired, " + cell[4] + " items: " + signed(cell[5]) + paired.unit;
      line += !present(cell[8]) ? " (" + paired.tests[cell[10]] + ": too few items to test)" :
          " [" + signed(cell[6]) + ", " + signed(cell[7]) + "], p = " + sig(cell[8]) +
          " (adjusted " + sig(cell[9]) + ", " + paired.tests[cell[10]] + ": " +
          (cell[9] < 0.05 ? "distinguishable" : "not distinguishable") + ")";
      if (cell.length > 14 && present(cell[12])) {
        // its error bar and power, as evalmaps.analysis.compare.power_text writes them: the SE
        // used (clustered where the map is), the mde, the items needed, the clusters
        const fixed = function (v) { return number(v, paired.places, null); };
        const count = function (v) { return Math.round(v).toLocaleString("en-US"); };
        const clustered = present(cell[14]);
        const blind = paired.floor !== null && cell[12] > paired.floor[0] + 1e-9;
        line += " · " + cells.minus + " = " + signed(cell[5]) + " ± " + fixed(cell[11]) +
            paired.unit + " (SE, " + (clustered ? "clustered by " + paired.cluster + ", " +
            // few clusters: Student's t at G - 1 df (evalmaps.analysis.power.few_clusters)
            (cell[14] < paired.few ? "only " + count(cell[14]) + " clusters: t with " +
              count(cell[14] - 1) + " df" : count(cell[14]) + " clusters") :
            paired.cluster ? "not clustered: one cluster, no clustered test" :
            "not clustered") + "); the smallest difference these " + count(cell[4]) +
            " items detect is " + fixed(cell[12]) + paired.unit +
            (blind ? ", too few to detect " + paired.floor[1] + ";" : ";") +
            (present(cell[13]) ? " this one needs " + count(cell[13]) + " items" :
              " B and A do not differ on these items");
      }
    } else if (present(se) && present(a) && present(b)) {
      // the SE column is in shown units already (percentage points: evalmaps.figures.compare)
      line += " · SE " + number(se, cells.se, null) + unit + ", " +
          (within ? cells.within : cells.beyond);
    }
    return line;
  }

  /* The style of map `side`'s outline over cell `hovered` ({i, j, source}) of an nx by ny map:
   * hidden on the hovered map itself and on a map not drawn yet. */
  function outline(side, hovered, nx, ny) {
    if (side === hovered.source) {
      return {display: "none"};
    }
    const chart = chartOf(side);
    const area = chart && lib.plotly.plotArea(chart.gd);
    if (!area) {
      return {display: "none"};
    }
    const frame = chart.host.parentElement.getBoundingClientRect();
    const plot = chart.gd.getBoundingClientRect();
    const w = area.x / nx, h = area.y / ny;
    return {
      display: "block",
      left: (plot.left - frame.left + area.left + hovered.j * w) + "px",
      top: (plot.top - frame.top + area.top + hovered.i * h) + "px",
      width: w + "px",
      height: h + "px"
    };
  }

  /* The cell last hovered ({source, x, y}: its map and labels; ``full``: that map's traces
   * when it was hovered), hovered again when its map is drawn anew (see again); null once the
   * pointer leaves the map. */
  let pointed = null;

  /* After map ``side`` is drawn: the cell last hovered on it, hovered again if the map drew
   * other traces since (a new figure) and no map has a keyboard's active cell (that one is
   * hovered again by evalmapsLib.keys). Whether it was. */
  function again(side) {
    const chart = chartOf(side);
    const full = chart && lib.plotly.fullData(chart.gd);
    if (!pointed || pointed.source !== side || !full || pointed.full === full ||
        document.querySelector(".compare-map .heatmap-keys:focus")) {
      return false;
    }
    pointed.full = full;
    const c = lib.plotly.categories(chart.gd, "x").indexOf(pointed.x);
    const r = lib.plotly.categories(chart.gd, "y").indexOf(pointed.y);
    if (c < 0 || r < 0) {
      return false;
    }
    lib.plotly.hover(chart.gd, c, r);
    return true;
  }

  function follow(side) {
    const chart = chartOf(side);
    if (chart && !chart.gd._evalmapsAgain && chart.gd.on) {
      chart.gd._evalmapsAgain = true;
      chart.gd.on("plotly_afterplot", function () { again(side); });
      // the pointer left the map: a redraw after that (a menu, Swap) hovers nothing again
      chart.gd.on("plotly_unhover", function () {
        if (pointed && pointed.source === side) {
          pointed = null;
        }
      });
    }
  }

  /* The maps' hovers and relayouts: [outline A, outline B, outline B - A, readout, hovered].
   * `cells`: {x: [...], y: [...], ...}, the maps' category labels and what compareReadout
   * needs; `last`: the last hovered cell {i, j, source}. */
  function compareHover(hoverA, hoverB, hoverDelta, relA, relB, relDelta, cells, last) {
    const dc = window.dash_clientside;
    const skip = [dc.no_update, dc.no_update, dc.no_update, dc.no_update, dc.no_update];
    const triggered = (dc.callback_context && dc.callback_context.triggered) || [];
    if (!cells || !triggered.length) {
      return skip;
    }
    // a hover and a relayout can arrive in one call (Dash batches the inputs that changed
    // together): the hover must not be lost behind the relayout
    const hover = triggered.find(function (t) {
      return /\.hoverData$/.test(t.prop_id);
    });
    const first = hover || triggered[0];
    const prop = first.prop_id;
    const dot = prop.lastIndexOf(".");
    let hovered = last;
    let line = dc.no_update;
    if (prop.slice(dot + 1) === "hoverData") {
      const points = (first.value && first.value.points) || [];
      if (!points.length) {
        return skip;
      }
      const j = cells.x.indexOf(String(points[0].x));
      const i = cells.y.indexOf(String(points[0].y));
      if (i < 0 || j < 0) {
        return skip;
      }
      hovered = {i: i, j: j, source: JSON.parse(prop.slice(0, dot)).panel};
      line = compareReadout(cells, i, j);
      const chart = chartOf(hovered.source);
      pointed = {source: hovered.source, x: cells.x[j], y: cells.y[i],
                 full: chart && lib.plotly.fullData(chart.gd)};
      follow(hovered.source);
    } else if (!hovered) {
      return skip;
    }
    const nx = cells.x.length, ny = cells.y.length;
    return [outline("a", hovered, nx, ny), outline("b", hovered, nx, ny),
            outline("delta", hovered, nx, ny), line, hovered === last ? dc.no_update : hovered];
  }

  lib.hover = {compareReadout: compareReadout, readout: readout, outline: outline, again: again};

  const clientside = window.dash_clientside = window.dash_clientside || {};
  clientside.evalmaps = Object.assign(clientside.evalmaps || {}, {compareHover: compareHover});
})();
