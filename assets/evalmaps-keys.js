/* Heatmaps read without a mouse (issue 10).
 * Every map sits in a focusable frame (.heatmap-keys, components/keyboard.py). Everything here
 * reads the figure the browser already holds (the traces as drawn: x, y, z, customdata,
 * hovertemplate; layout.meta.evalmaps.value: the hover's value template), so nothing is sent:
 * - the frame's accessible name: title, axes, value range, cells missing (rewritten whenever
 *   Plotly draws another figure into it);
 * - focus (by keyboard) makes the top-left cell active; arrows move it, Home/End go to the row's
 *   ends (Ctrl: the first/last cell), PageUp/PageDown move by PAGE_ROWS rows. The active cell is
 *   outlined by an overlay (.heatmap-cursor, placed from Plotly's axes like compareHover's
 *   outlines: the figure is not redrawn) and gets Plotly's own hover label (Fx.hover, which also
 *   drives Compare's linked outlines and readout through hoverData);
 * - the frame's polite live region says the cell as its hover does, lines joined by ' · ';
 * - the "Table" toggle shows the map as an HTML table (evalmaps-table.js).
 * Numbers go through the figure's own d3 formatter, the one its hover labels use. Plotly's
 * drawn figure is read through evalmapsLib.plotly.
 *
 * Internal: window.evalmapsLib.keys. Clientside callbacks: none (it listens to the page). */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};
  const PAGE_ROWS = 10;
  const SEP = " · ";

  function graphOf(frame) {
    return frame.querySelector(".js-plotly-plot");
  }

  /* Whether ``gd`` holds a drawn heatmap (its axes and first trace as drawn). */
  function ready(gd) {
    const fl = lib.plotly.fullLayout(gd), full = lib.plotly.fullData(gd);
    return !!(gd && fl && fl.xaxis && fl.yaxis && full && full.length &&
              full[0].type === "heatmap" && full[0].x && full[0].y);
  }

  function present(v) {
    return v !== null && v !== undefined && typeof v === "number" && isFinite(v);
  }

  function rows(a) {
    return a ? Array.prototype.slice.call(a) : [];
  }

  /* What the keyboard and the table need of a drawn map, worked out once per figure: labels,
   * titles, the value range and gaps, and for each cell the trace that draws it (the last with
   * a value there: the sparse traces of gaps and special hovers sit on top of the main one,
   * which is blank there). Typed arrays, no object per cell: a map may hold a million cells. */
  function model(gd) {
    const traces = lib.plotly.fullData(gd);
    if (gd._evalmapsKeys && gd._evalmapsKeys.full === traces) {
      return gd._evalmapsKeys;
    }
    const fl = lib.plotly.fullLayout(gd);
    const main = traces[0];
    const x = rows(main.x).map(String), y = rows(main.y).map(String);
    const nx = x.length, ny = y.length;
    const xi = new Map(x.map(function (v, j) { return [v, j]; }));
    const yi = new Map(y.map(function (v, i) { return [v, i]; }));
    const owner = new Int32Array(nx * ny).fill(-1);  // the trace drawing a cell, -1: none
    const slotR = new Int32Array(nx * ny);  // where in that trace: its row (grids), or n
    const slotC = new Int32Array(nx * ny);  // its column (grids)
    const grids = traces.map(function (t) {
      return !!(t.z && t.z.length && t.z[0] !== null && typeof t.z[0] === "object");
    });
    const roleOf = function (t) {  // components.heatmap: "value", "text" (cell text) or none (gaps)
      const meta = ((gd.data && gd.data[t.index]) || {}).meta;
      return meta && meta.role;
    };
    const values = traces.map(function (t) { return roleOf(t) === "value"; });
    traces.forEach(function (t, k) {
      if (t.type !== "heatmap" || !t.z || roleOf(t) === "text") {
        return;  // the cell-text layers repeat the values over them: not the cells themselves
      }
      const z = t.z;
      const rowOf = rows(t.y).map(function (v) { const i = yi.get(String(v)); return i === undefined ? -1 : i; });
      const colOf = rows(t.x).map(function (v) { const j = xi.get(String(v)); return j === undefined ? -1 : j; });
      if (grids[k]) {
        for (let r = 0; r < z.length; r++) {
          const row = z[r], i = rowOf[r];
          if (!row || i === undefined || i < 0) {
            continue;
          }
          for (let c = 0; c < row.length; c++) {
            const j = colOf[c];
            if (j !== undefined && j >= 0 && present(row[c])) {
              owner[i * nx + j] = k;
              slotR[i * nx + j] = r;
              slotC[i * nx + j] = c;
            }
          }
        }
      } else {  // columns: x[n], y[n], z[n]
        for (let n = 0; n < z.length; n++) {
          const i = rowOf[n], j = colOf[n];
          if (i !== undefined && j !== undefined && i >= 0 && j >= 0 && present(z[n])) {
            owner[i * nx + j] = k;
            slotR[i * nx + j] = n;
          }
        }
      }
    });
    const at = function (i, j) {  // {trace, z (null for a gap), customdata, value} or null
      const k = owner[i * nx + j];
      if (k < 0) {
        return null;
      }
      const t = traces[k], r = slotR[i * nx + j], c = slotC[i * nx + j];
      if (!grids[k]) {
        return {trace: t, z: values[k] ? t.z[r] : null, customdata: undefined, value: values[k]};
      }
      return {trace: t, z: values[k] ? t.z[r][c] : null, value: values[k],
              customdata: t.customdata && t.customdata[r] ? t.customdata[r][c] : undefined};
    };
    let lo = Infinity, hi = -Infinity, gaps = 0;
    for (let p = 0; p < nx * ny; p++) {
      const k = owner[p];
      if (k < 0 || !values[k]) {
        gaps += 1;
        continue;
      }
      const v = grids[k] ? traces[k].z[slotR[p]][slotC[p]] : traces[k].z[slotR[p]];
      if (v < lo) {
        lo = v;
      }
      if (v > hi) {
        hi = v;
      }
    }
    if (gaps === nx * ny) {
      lo = hi = null;
    }
    const meta = (gd.layout && gd.layout.meta && gd.layout.meta.evalmaps) || {};
    /* an axis's title: the annotation named for it (evalmaps/figures/heatmap.py, axis_titles), or
     * the axis's own title */
    const title = function (letter) {
      const named = (fl.annotations || []).filter(function (a) {
        return a.name === letter + "-title";
      })[0];
      const axis = fl[letter + "axis"];
      const text = named ? named.text : axis && axis.title && axis.title.text;
      return text ? lib.format.plain(text) : "";
    };
    const prefix = meta.prefix || {};
    const xText = x.map(lib.format.plain), yText = y.map(lib.format.plain);
    const m = {
      full: traces, x: x, y: y, at: at, lo: lo, hi: hi, gaps: gaps,
      xText: xText, yText: yText,
      xPrefix: prefix.x || "", yPrefix: prefix.y || "",
      xHead: xText.map(function (t) { return cut(t, prefix.x); }),
      yHead: yText.map(function (t) { return cut(t, prefix.y); }),
      title: lib.format.plain((fl.title && fl.title.text) || ""),
      xTitle: title("x"), yTitle: title("y"),
      valueTemplate: meta.value || (main.meta && main.meta.texttemplate) || "%{z}",
      format: lib.plotly.numberFormat(gd)
    };
    gd._evalmapsKeys = m;
    return m;
  }

  /* A label without the start every label of its axis shares (evalmaps/figures/heatmap.py leaves it
   * off the ticks too: layout.meta.evalmaps.prefix), never emptied. */
  function cut(text, prefix) {
    return prefix && text.length > prefix.length && text.indexOf(prefix) === 0
      ? text.slice(prefix.length) : text;
  }

  /* An axis's title in the table's caption, with the start its labels share, said once. */
  function titled(title, prefix) {
    return prefix ? title + " (each " + prefix + "\u2026)" : title;
  }

  /* The table's caption: the map's title, then its rows and columns, each with the start
   * its labels share (the headers leave it off). */
  function caption(m) {
    return m.title + ": rows " + titled(m.yTitle, m.yPrefix) + ", columns " +
      titled(m.xTitle, m.xPrefix);
  }

  function valueText(m, z) {
    return lib.format.plain(lib.format.fill(m.valueTemplate, {z: z}, m.format));
  }

  /* The cell as its hover says it, on one line; `missing` when no trace draws it. */
  function cellText(m, i, j, missing) {
    const o = m.at(i, j);
    if (!o) {
      return m.yTitle + " " + m.yText[i] + SEP + m.xTitle + " " + m.xText[j] + SEP + missing;
    }
    const cell = {x: m.x[j], y: m.y[i], z: o.z, customdata: o.customdata};
    return lib.format.plain(lib.format.fill(o.trace.hovertemplate || "", cell, m.format))
      .split("\n")
      .filter(function (line) { return line.trim(); }).join(SEP);
  }

  function label(frame, m) {
    const missing = frame.getAttribute("data-missing") || "not reported";
    const lo = m.lo, hi = m.hi, gaps = m.gaps;
    const n = m.x.length * m.y.length;
    const ends = function (labels) {
      return labels.length > 1 ? labels[0] + " to " + labels[labels.length - 1] : labels[0];
    };
    const values = lo === null ? "No values" :
      "Values " + valueText(m, lo) + " to " + valueText(m, hi);
    return "Heatmap " + m.title + ". Rows: " + m.yTitle + ", " + m.y.length + " (" + ends(m.yText) + "); " +
      "columns: " + m.xTitle + ", " + m.x.length + " (" + ends(m.xText) + "). " +
      values + "; " + gaps + " of " + n + " cell" + (n === 1 ? "" : "s") + " " + missing + ". " +
      "Arrow keys, Home, End, Page Up and Page Down move between cells.";
  }

  /* The overlay over cell (i, j), in the frame's coordinates. */
  function place(frame, gd, m, i, j) {
    const cursor = frame.querySelector(".heatmap-cursor");
    if (!cursor) {
      return;
    }
    const P = lib.plotly;
    const c = P.categories(gd, "x").indexOf(m.x[j]), r = P.categories(gd, "y").indexOf(m.y[i]);
    if (c < 0 || r < 0) {
      cursor.hidden = true;
      return;
    }
    const outer = frame.getBoundingClientRect(), plot = gd.getBoundingClientRect();
    const area = P.plotArea(gd);
    const x0 = P.toPixel(gd, "x", c - 0.5), x1 = P.toPixel(gd, "x", c + 0.5);
    const y0 = P.toPixel(gd, "y", r - 0.5), y1 = P.toPixel(gd, "y", r + 0.5);
    cursor.style.left = (plot.left - outer.left + area.left + Math.min(x0, x1)) + "px";
    cursor.style.top = (plot.top - outer.top + area.top + Math.min(y0, y1)) + "px";
    cursor.style.width = Math.abs(x1 - x0) + "px";
    cursor.style.height = Math.abs(y1 - y0) + "px";
    cursor.hidden = false;
    cursor.setAttribute("data-cell", i + "," + j);
  }

  function liveRegion(frame) {
    return frame.parentElement && frame.parentElement.querySelector(":scope > .heatmap-live");
  }

  /* The frame's accessible name, for the figure drawn now (once per figure). */
  function name(frame, gd, m) {
    const full = lib.plotly.fullData(gd);
    if (frame._evalmapsFull !== full) {
      frame._evalmapsFull = full;
      frame.setAttribute("aria-label", label(frame, m));
    }
  }

  /* Cell (i, j) becomes the active one: outlined, hovered, announced (``quiet``: the same
   * cell again after a redraw, not announced nor scrolled to; the hover, and with it Compare's
   * outlines and readout, says its value as drawn now). The cell is kept by its labels. */
  function activate(frame, i, j, quiet) {
    const gd = graphOf(frame);
    if (!ready(gd)) {
      return;
    }
    const m = model(gd);
    name(frame, gd, m);  // focused before its idle turn came: named now
    i = Math.max(0, Math.min(m.y.length - 1, i));
    j = Math.max(0, Math.min(m.x.length - 1, j));
    frame._evalmapsCell = {i: i, j: j, y: m.y[i], x: m.x[j]};
    frame._evalmapsCellOf = m.full;
    place(frame, gd, m, i, j);
    const cursor = frame.querySelector(".heatmap-cursor");
    if (quiet) {
      lib.plotly.hover(gd, lib.plotly.categories(gd, "x").indexOf(m.x[j]),
                       lib.plotly.categories(gd, "y").indexOf(m.y[i]));
      return;
    }
    if (cursor && cursor.scrollIntoView) {
      cursor.scrollIntoView({block: "nearest", inline: "nearest", behavior: "instant"});
    }
    const P = lib.plotly;
    const c = P.categories(gd, "x").indexOf(m.x[j]), r = P.categories(gd, "y").indexOf(m.y[i]);
    // as a mouse over the plot area would (hence Dash's hoverData): Compare's linked outlines
    // and readout
    P.hover(gd, c, r);
    const live = liveRegion(frame);
    if (live) {
      live.textContent = cellText(m, i, j, frame.getAttribute("data-missing") || "not reported");
    }
  }

  function deactivate(frame) {
    frame._evalmapsCell = null;
    const cursor = frame.querySelector(".heatmap-cursor");
    if (cursor) {
      cursor.hidden = true;
    }
    const gd = graphOf(frame);
    if (gd && lib.plotly.fullLayout(gd)) {
      lib.plotly.unhover(gd);
    }
  }

  function frameOf(target) {
    return target && target.classList && target.classList.contains("heatmap-keys") ? target : null;
  }

  /* Whenever Plotly draws (a new figure, a restyle, a resize): names, open tables and the
   * active outline follow. One pass per animation frame, whatever the number of mutations;
   * in idle time (``deadline``), maps are named one by one until the idle period is spent. */
  function refresh(deadline) {
    const frames = document.querySelectorAll(".heatmap-keys");
    let named = 0;  // maps named in this pass
    for (let k = 0; k < frames.length; k++) {
      const frame = frames[k], gd = graphOf(frame);
      if (!ready(gd)) {
        continue;
      }
      const full = lib.plotly.fullData(gd);
      if (frame._evalmapsFull !== full) {
        if (deadline && named && deadline.timeRemaining() < 1) {
          schedule();  // idle time is up: the other maps in the next idle period
          return;
        }
        named += 1;
      }
      if (!gd._evalmapsHooked && gd.on) {  // a relayout (the cell text fitted to the drawn
        gd._evalmapsHooked = true;         // size) moves cells without adding nodes
        gd.on("plotly_afterplot", schedule);
      }
      const m = model(gd);
      name(frame, gd, m);
      const holder = frame.parentElement && frame.parentElement.querySelector(
        ":scope > .heatmap-table");
      if (holder && !holder.hidden && holder._evalmapsFull !== full && lib.table) {
        lib.table.build(holder, frame);  // an open table follows (evalmaps-table.js)
      }
      const cell = frame._evalmapsCell;
      if (cell && frame._evalmapsCellOf !== m.full) {  // another figure (a live redraw): the
        const at = follow(m, cell);                     // same cell by its labels, hovered again
        activate(frame, at[0], at[1], true);
      } else if (cell) {
        place(frame, gd, m, cell.i, cell.j);
      }
    }
  }

  /* Where a cell kept by its labels is in the map ``m``: [i, j] (a label gone: its place
   * then, clamped by activate). */
  function follow(m, cell) {
    const i = cell.y === undefined ? -1 : m.y.indexOf(cell.y);
    const j = cell.x === undefined ? -1 : m.x.indexOf(cell.x);
    return [i < 0 ? cell.i : i, j < 0 ? cell.j : j];
  }

  /* The frame's panel (its data-coords, components/keyboard.py: {facets, y, x}, the names of
   * its row and column dimensions) and the active cell: the cell's label in every dimension. */
  function coordsOf(frame) {
    let said = null;
    try {
      said = JSON.parse(frame.getAttribute("data-coords") || "null");
    } catch {
      said = null;
    }
    const cell = frame._evalmapsCell;
    if (!said || !cell || cell.x === undefined) {
      return null;
    }
    const out = Object.assign({}, said.facets || {});
    out[said.y] = cell.y;
    out[said.x] = cell.x;
    return out;
  }

  /* Where the user is, to be found again on a page built anew (evalmaps-live.js): the focused
   * map's active cell by its labels ({cell}), or the focused element by its chart's id (else
   * the nearest id around it) and its own title ({id, title}: a chart's modebar button, whose
   * own ids are new with each drawing); null: focus on nothing. */
  function where(doc) {
    const el = doc.activeElement;
    if (!el || el === doc.body || !el.closest) {
      return null;
    }
    const frame = el.closest(".heatmap-keys");
    if (frame) {
      return {cell: coordsOf(frame), map: true};
    }
    const host = el.closest(".dash-graph[id]") || (el.id ? el : el.closest("[id]"));
    return host ? {id: host.id, title: el.getAttribute("data-title")} : null;
  }

  /* Focus back where ``spot`` (see where) was: the map holding the same cell (its facets and
   * both its labels), that cell active; else the element of the same id and title; else, for
   * a map, the first map. Whether focus was put somewhere (false: the page is not drawn yet). */
  function goTo(doc, spot) {
    const frames = Array.prototype.slice.call(doc.querySelectorAll(".heatmap-keys"));
    const cell = spot && spot.cell;
    if (spot && spot.map) {
      const drawn = frames.filter(function (f) { return ready(graphOf(f)); });
      if (!drawn.length) {
        return false;
      }
      for (let k = 0; cell && k < drawn.length; k++) {
        const frame = drawn[k];
        let said = null;
        try {
          said = JSON.parse(frame.getAttribute("data-coords") || "null");
        } catch {
          said = null;
        }
        const facets = (said && said.facets) || {};
        if (!said || !Object.keys(facets).every(function (d) { return cell[d] === facets[d]; })) {
          continue;
        }
        const m = model(graphOf(frame));
        const i = m.y.indexOf(cell[said.y]), j = m.x.indexOf(cell[said.x]);
        if (i >= 0 && j >= 0) {
          frame._evalmapsPointer = Date.now();  // not a keyboard visit's top-left cell
          frame.focus();
          activate(frame, i, j);
          return true;
        }
      }
      drawn[0].focus();  // the cell is gone: the map, its top-left cell active
      return true;
    }
    const host = spot && spot.id ? doc.getElementById(spot.id) : null;
    if (!host) {
      return false;
    }
    const named = spot.title ? Array.prototype.slice.call(host.querySelectorAll("[data-title]"))
      .filter(function (el) { return el.getAttribute("data-title") === spot.title; })[0] : null;
    const target = named || host;
    if (target.tabIndex < 0) {
      return false;
    }
    target.focus();
    return true;
  }

  /* One pass per frame while a cell is outlined (the outline follows a redraw at once), else
   * when the browser is idle (within 300 ms): naming a map reads all its cells, which would
   * hold up the first paint of the next ones. */
  let pending = false;
  function schedule() {
    if (pending) {
      return;
    }
    pending = true;
    let waited = false;
    const afterFrame = function () {  // idle time after the next frame is on screen
      window.requestAnimationFrame(function () {
        setTimeout(function () { window.requestIdleCallback(run, {timeout: 300}); }, 0);
      });
    };
    const run = function (deadline) {
      if (deadline && deadline.didTimeout && !waited) {
        // the wait ran out during a long task (a map being drawn): that map is not on screen
        // yet, and reading its cells now would hold up the frame that shows it
        waited = true;
        afterFrame();
        return;
      }
      pending = false;
      refresh(deadline && deadline.timeRemaining ? deadline : null);
    };
    const outlined = document.querySelector(".heatmap-keys .heatmap-cursor:not([hidden])");
    if (!outlined && window.requestIdleCallback) {
      afterFrame();
    } else {
      window.requestAnimationFrame(run);
    }
  }

  function start() {
    new MutationObserver(schedule).observe(document.body, {childList: true, subtree: true});
    window.addEventListener("resize", schedule);
    // a click on a map focuses its frame: that is no keyboard visit, so no cell is made active
    document.addEventListener("pointerdown", function (e) {
      const frame = e.target.closest && e.target.closest(".heatmap-keys");
      if (frame) {
        frame._evalmapsPointer = Date.now();
      }
    }, true);
    document.addEventListener("focusin", function (e) {
      const frame = frameOf(e.target);
      if (frame && !(frame._evalmapsPointer && Date.now() - frame._evalmapsPointer < 1000)) {
        activate(frame, 0, 0);
      }
    });
    document.addEventListener("focusout", function (e) {
      const frame = frameOf(e.target);
      if (frame) {
        deactivate(frame);
      }
    });
    document.addEventListener("keydown", function (e) {
      const frame = frameOf(e.target);
      if (!frame || e.altKey || e.metaKey) {
        return;
      }
      const gd = graphOf(frame);
      if (!ready(gd)) {
        return;
      }
      const m = model(gd);
      const cell = frame._evalmapsCell;
      const at = cell || {i: 0, j: 0};
      const moves = {
        ArrowLeft: [at.i, at.j - 1], ArrowRight: [at.i, at.j + 1],
        ArrowUp: [at.i - 1, at.j], ArrowDown: [at.i + 1, at.j],
        Home: [e.ctrlKey ? 0 : at.i, 0],
        End: [e.ctrlKey ? m.y.length - 1 : at.i, m.x.length - 1],
        PageUp: [at.i - PAGE_ROWS, at.j], PageDown: [at.i + PAGE_ROWS, at.j]
      };
      if (!(e.key in moves)) {
        return;
      }
      e.preventDefault();  // no page scroll
      const to = cell ? moves[e.key] : [0, 0];  // the first key after a click: the top-left
      activate(frame, to[0], to[1]);
    });
    schedule();
  }

  if (document.body) {
    start();
  } else {
    document.addEventListener("DOMContentLoaded", start);
  }
  lib.keys = {ready: ready, model: model, cellText: cellText, label: label, caption: caption,
              valueText: valueText, graphOf: graphOf, refresh: refresh, follow: follow,
              where: where, goTo: goTo};
})();
