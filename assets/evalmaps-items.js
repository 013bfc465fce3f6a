/* Compare's items panel (layouts/_compare_items.py): Enter on a cell of B − A opens its items,
 * as a click on it does. The keyboard's active cell (evalmapsLib.keys: the frame's
 * _evalmapsCell, labels from the drawn figure's model) is handed to Dash through
 * `compare-items-open`, which the panel's clientside callback writes into the URL.
 *
 * Internal: window.evalmapsLib.items. Clientside callbacks: none (it listens to the page). */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};

  /* Whether a keyboard frame holds the B − A map of Compare. */
  function isDelta(frame) {
    const graph = frame && frame.querySelector("[id*='compare-heatmap']");
    if (!graph) {
      return false;
    }
    try {
      return JSON.parse(graph.id).panel === "delta";
    } catch {  // not a JSON id: not a map of Compare
      return false;
    }
  }

  /* The labels {y, x} of the frame's active cell, or null. */
  function activeCell(frame) {
    const cell = frame._evalmapsCell;
    const gd = frame.querySelector(".js-plotly-plot");
    if (!cell || !gd || !lib.keys || !lib.keys.ready(gd)) {
      return null;
    }
    const m = lib.keys.model(gd);
    if (cell.i >= m.y.length || cell.j >= m.x.length) {
      return null;
    }
    return {y: m.y[cell.i], x: m.x[cell.j]};
  }

  function onKey(e) {
    if (e.key !== "Enter" || e.altKey || e.metaKey || e.ctrlKey) {
      return;
    }
    const frame = e.target && e.target.classList && e.target.classList.contains("heatmap-keys")
      ? e.target : null;
    if (!frame || !isDelta(frame)) {
      return;
    }
    const cell = activeCell(frame);
    const dc = window.dash_clientside;
    if (!cell || !dc || !dc.set_props) {
      return;
    }
    e.preventDefault();
    dc.set_props("compare-items-open", {data: {y: cell.y, x: cell.x, t: Date.now()}});
  }

  document.addEventListener("keydown", onKey);
  lib.items = {isDelta: isDelta, activeCell: activeCell};
})();
