/* The Rank page's pair maps (layouts/rank.py): Enter on a square opens that pair in Compare on
 * that cell, as a click on it does. The keyboard's active cell (evalmapsLib.keys: the frame's
 * _evalmapsCell) gives the square; its address is made from the map's layout, as the server
 * writes it (components/rank.py, pair_figure: meta.evalmaps.rank.compare, the models' refs in
 * the map's order and the cell's part of the query). Dash Pages' location takes it, so the page
 * changes as a link would change it.
 *
 * A click on a square does the same through Dash (evalmaps.rankPairClick: dcc.Graph's clickData
 * names the square by its labels; a heatmap's customdata is not in it).
 *
 * Internal: window.evalmapsLib.rank. Clientside callbacks: evalmaps.rankPairClick. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};
  const LOCATION = "_pages_location";  // components.dash_internals.PAGES_LOCATION

  /* Whether a keyboard frame holds a pair map of the Rank page. */
  function isPairs(frame) {
    return !!(frame && frame.querySelector("[id*='rank-pairs']"));
  }

  /* The Compare address of square (i, j) of the drawn map ``gd`` (row A, column B):
   * ``/compare?a=<refs[i]>&b=<refs[j]>&<rest>``; null for the diagonal, a square without a
   * value (no pair), outside the map, or a cell Compare cannot lay out. */
  function hrefAt(gd, i, j) {
    if (!gd || !lib.keys || !lib.keys.ready(gd) || i === j) {
      return null;
    }
    const m = lib.keys.model(gd);
    if (i < 0 || j < 0 || i >= m.y.length || j >= m.x.length) {
      return null;
    }
    const at = m.at(i, j);
    const meta = ((gd.layout || {}).meta || {}).evalmaps || {};
    const compare = meta.rank && meta.rank.compare;
    if (!at || !at.value || !compare || !compare.refs[i] || !compare.refs[j]) {
      return null;
    }
    return "/compare?a=" + compare.refs[i] + "&b=" + compare.refs[j] + "&" + compare.rest;
  }

  /* The Compare address of the frame's active square, or null (none active, the diagonal). */
  function hrefOf(frame) {
    const cell = frame._evalmapsCell;
    return cell ? hrefAt(frame.querySelector(".js-plotly-plot"), cell.i, cell.j) : null;
  }

  /* Clientside callback: the Compare address of the square clicked on a pair map (its place
   * among the maps is its id's panel), for Dash Pages' location; else no update. */
  function rankPairClick(clicks) {
    const dc = window.dash_clientside;
    const which = dc.callback_context && dc.callback_context.triggered_id;
    const click = which && clicks ? clicks[Number(which.panel)] : null;
    const point = click && click.points && click.points[0];
    const host = which && document.getElementById(JSON.stringify({panel: which.panel,
                                                                   type: which.type}));
    if (!point || !host) {
      return dc.no_update;
    }
    const gd = host.querySelector(".js-plotly-plot") || host;
    const m = lib.keys && lib.keys.ready(gd) ? lib.keys.model(gd) : null;
    const href = m ? hrefAt(gd, m.y.indexOf(String(point.y)), m.x.indexOf(String(point.x)))
      : null;
    return href || dc.no_update;
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
  lib.rank = {isPairs: isPairs, hrefOf: hrefOf, hrefAt: hrefAt};
  const clientside = window.dash_clientside = window.dash_clientside || {};
  clientside.evalmaps = Object.assign(clientside.evalmaps || {}, {rankPairClick: rankPairClick});
})();
