/* The Rank page's pair maps (layouts/rank.py): Enter on a square opens that pair in Compare on
 * that cell, as a click on it does. The keyboard's active cell (evalmapsLib.keys: the frame's
 * _evalmapsCell) gives the square; its address is the square's customdata[1], written by the
 * server (components/rank.py, pair_figure). Dash Pages' location takes it, so the page changes
 * as a link would change it.
 *
 * Internal: window.evalmapsLib.rank. Clientside callbacks: none (it listens to the page). */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};
  const LOCATION = "_pages_location";  // components.dash_internals.PAGES_LOCATION

  /* Whether a keyboard frame holds a pair map of the Rank page. */
  function isPairs(frame) {
    return !!(frame && frame.querySelector("[id*='rank-pairs']"));
  }

  /* The Compare address of the frame's active square, or null (none active, the diagonal). */
  function hrefOf(frame) {
    const cell = frame._evalmapsCell;
    const gd = frame.querySelector(".js-plotly-plot");
    if (!cell || !gd || !lib.keys || !lib.keys.ready(gd)) {
      return null;
    }
    const m = lib.keys.model(gd);
    if (cell.i >= m.y.length || cell.j >= m.x.length) {
      return null;
    }
    const at = m.at(cell.i, cell.j);
    const data = at && at.customdata;
    return data && data[1] ? String(data[1]) : null;
  }

  function onKey(e) {
    if (e.key !== "Enter" || e.altKey || e.metaKey || e.ctrlKey) {
      return;
    }
    const frame = e.target && e.target.classList && e.target.classList.contains("heatmap-keys")
      ? e.target : null;
    if (!frame || !isPairs(frame)) {
      return;
    }
    const href = hrefOf(frame);
    const dc = window.dash_clientside;
    if (!href || !dc || !dc.set_props) {
      return;
    }
    e.preventDefault();
    dc.set_props(LOCATION, {href: href});
  }

  document.addEventListener("keydown", onKey);
  lib.rank = {isPairs: isPairs, hrefOf: hrefOf};
})();
