/* evalmaps client-side callbacks (served from /assets: no inline script). */
window.dash_clientside = Object.assign({}, window.dash_clientside, {
  evalmaps: {
    /* Nav links keep the current figure: /trends?figure=<id> etc. */
    /* An upload over the size limit is refused here, before it is sent (the server refuses
     * it too). Returns [raw upload for the server, error message]. */
    checkUpload: function (contents, filename, maxBytes) {
      if (!contents) {
        return [window.dash_clientside.no_update, ""];
      }
      const b64 = contents.slice(contents.indexOf(",") + 1);
      const bytes = Math.floor(b64.length * 3 / 4);
      if (bytes > maxBytes) {
        const mb = function (n) { return (n / 1048576).toFixed(1); };
        return [null, filename + ": the file is " + mb(bytes) + " MB, over the " +
                mb(maxBytes) + " MB limit. Split it, or serve the folder with evalmaps serve --data."];
      }
      return [{name: filename, contents: contents}, ""];
    },

    navLinks: function (search) {
      const links = Array.from(document.querySelectorAll("a.evalmaps-nav"));
      const figure = new URLSearchParams(search || "").get("figure");
      return links.map(function (a) {
        const path = a.getAttribute("data-path") || a.pathname;
        return figure ? path + "?figure=" + encodeURIComponent(figure) : path;
      });
    },

    /* Compare view, linked hover. A hover on any of the three maps (A, B, B - A) outlines the
     * same cell in the other two and fills the readout with that cell's preformatted line; a
     * relayout (resize) re-places the outlines. The outlines are overlay divs placed from
     * Plotly's axis geometry (the maps' ranges are fixed: cell j spans j/nx..(j+1)/nx of the x
     * axis, row i from the top i/ny..(i+1)/ny of the y axis), so no map is redrawn and the
     * hovered map keeps its hover label. `cells`: {x: [...], y: [...], text: [[...]]}, the maps'
     * category labels and what compareReadout needs; `last`: the last hovered cell {i, j,
     * source}. */
    compareHover: function (hoverA, hoverB, hoverDelta, relA, relB, relDelta, cells, last) {
      const dc = window.dash_clientside;
      const skip = [dc.no_update, dc.no_update, dc.no_update, dc.no_update, dc.no_update];
      const triggered = (dc.callback_context && dc.callback_context.triggered) || [];
      if (!cells || !triggered.length) {
        return skip;
      }
      const prop = triggered[0].prop_id;
      const dot = prop.lastIndexOf(".");
      let hovered = last;
      let readout = dc.no_update;
      if (prop.slice(dot + 1) === "hoverData") {
        const points = (triggered[0].value && triggered[0].value.points) || [];
        if (!points.length) {
          return skip;
        }
        const j = cells.x.indexOf(String(points[0].x));
        const i = cells.y.indexOf(String(points[0].y));
        if (i < 0 || j < 0) {
          return skip;
        }
        hovered = {i: i, j: j, source: JSON.parse(prop.slice(0, dot)).panel};
        readout = window.dash_clientside.evalmaps.compareReadout(cells, i, j);
      } else if (!hovered) {
        return skip;
      }
      const nx = cells.x.length, ny = cells.y.length;
      const place = function (side) {
        if (side === hovered.source) {
          return {display: "none"};
        }
        const id = JSON.stringify({panel: side, type: "compare-heatmap"});
        const host = document.getElementById(id);
        const gd = host && host.querySelector(".js-plotly-plot");
        const fl = gd && gd._fullLayout;
        if (!fl || !fl.xaxis || !fl.yaxis) {
          return {display: "none"};
        }
        const frame = host.parentElement.getBoundingClientRect();
        const plot = gd.getBoundingClientRect();
        const w = fl.xaxis._length / nx, h = fl.yaxis._length / ny;
        return {
          display: "block",
          left: (plot.left - frame.left + fl.xaxis._offset + hovered.j * w) + "px",
          top: (plot.top - frame.top + fl.yaxis._offset + hovered.i * h) + "px",
          width: w + "px",
          height: h + "px"
        };
      };
      return [place("a"), place("b"), place("delta"), readout,
              hovered === last ? dc.no_update : hovered];
    }
  }
});

/* Restyle heatmaps without new data: the colour range mode and values in cells. Each figure
 * carries layout.meta.evalmaps = {ranges: {mode: [lo, hi] or null}, text: cell template or ''}
 * (components.heatmap.style_meta); traces that draw values (those with a texttemplate) get the
 * new zmin/zmax and texttemplate, gap traces stay as they are. The URL's color/labels keys are
 * written too (defaults left out), only when they change. */
window.dash_clientside.evalmaps.restyle = function (color, showValues, figures, search,
                                                    defaultColor) {
  const dc = window.dash_clientside;
  const out = (figures || []).map(function (fig) {
    const meta = fig && fig.layout && fig.layout.meta && fig.layout.meta.evalmaps;
    if (!meta) {
      return dc.no_update;
    }
    const range = meta.ranges ? meta.ranges[color] : undefined;
    const data = fig.data.map(function (trace) {
      if (!("texttemplate" in trace)) {
        return trace;  // a gap: drawn in the missing colour whatever the mode
      }
      const styled = Object.assign({}, trace, {texttemplate: showValues ? meta.text : ""});
      if (range !== undefined) {
        if (range) {
          styled.zmin = range[0];
          styled.zmax = range[1];
          styled.zauto = false;
        } else {
          delete styled.zmin;
          delete styled.zmax;
          styled.zauto = true;
        }
      }
      return styled;
    });
    return Object.assign({}, fig, {data: data});
  });
  const params = new URLSearchParams(search || "");
  const before = [params.get("color"), params.get("labels")];
  if (color === defaultColor) {
    params.delete("color");
  } else {
    params.set("color", color);
  }
  if (showValues) {
    params.delete("labels");
  } else {
    params.set("labels", "off");
  }
  const changed = before[0] !== params.get("color") || before[1] !== params.get("labels");
  const query = params.toString();
  return [out, changed ? (query ? "?" + query : "") : dc.no_update];
};

/* The same for maps given one by one (Compare's A, B and B - A): [figure, ..., search]. */
window.dash_clientside.evalmaps.restyleEach = function (color, showValues, search, defaultColor) {
  const figures = Array.prototype.slice.call(arguments, 4);
  const result = window.dash_clientside.evalmaps.restyle(color, showValues, figures, search,
                                                         defaultColor);
  return result[0].concat([result[1]]);
};

/* Numbers as evalmaps.formats writes them: `decimals` places, trailing zeros trimmed down to
 * `least` when given; -0.0 is 0.0. */
window.dash_clientside.evalmaps.number = function (value, decimals, least) {
  let text = value.toFixed(decimals);
  if (least !== null && least !== undefined && least < decimals && text.indexOf(".") >= 0) {
    const parts = text.split(".");
    let frac = parts[1].replace(/0+$/, "");
    while (frac.length < least) {
      frac += "0";
    }
    text = frac ? parts[0] + "." + frac : parts[0];
  }
  return (text.charAt(0) === "-" && Number(text) === 0) ? text.slice(1) : text;
};

/* The compare readout of cell (i, j): 'Local Window Size 2000 · Ratio 0.4 — A 52.5 · B 56.3 ·
 * B − A +3.8', from the B − A map's customdata (A, B, SE, within 1.96 SE) and `cells`
 * (components.compare.readouts). */
window.dash_clientside.evalmaps.compareReadout = function (cells, i, j) {
  const number = window.dash_clientside.evalmaps.number;
  const id = JSON.stringify({panel: "delta", type: "compare-heatmap"});
  const host = document.getElementById(id);
  const gd = host && host.querySelector(".js-plotly-plot");
  const custom = gd && gd._fullData && gd._fullData[0] && gd._fullData[0].customdata;
  if (!custom || !custom[i]) {
    return "";
  }
  const cell = custom[i][j];
  const present = function (v) { return v !== null && v !== undefined && isFinite(v); };
  const side = function (v, places) {
    return present(v) ? number(v, places[0], places[1]) : "not reported";
  };
  const a = cell[0], b = cell[1], se = cell[2], within = cell[3];
  let delta = "not comparable";
  if (present(a) && present(b)) {
    const d = Math.round((b - a) * 1e9) / 1e9;  // as evalmaps.compare rounds away float noise
    const text = number(d, cells.delta[0], cells.delta[1]);
    delta = (text.charAt(0) === "-" || Number(text) === 0) ? text : "+" + text;
  }
  let line = cells.y_title + " " + cells.y_text[i] + " · " + cells.x_title + " " +
      cells.x_text[j] + " — A " + side(a, cells.a) + " · B " + side(b, cells.b) + " · " +
      cells.minus + " " + delta;
  if (present(se) && present(a) && present(b)) {
    line += " · SE " + number(se, cells.se, null) + ", " + (within ? cells.within : cells.beyond);
  }
  return line;
};

/* ---- Heatmaps read without a mouse (issue 10): evalmaps.keys ----
 * Every map sits in a focusable frame (.heatmap-keys, components/keyboard.py). Everything here
 * reads the figure the browser already holds (gd._fullData: x, y, z, customdata, hovertemplate;
 * layout.meta.evalmaps.value: the hover's value template), so nothing is sent:
 * - the frame's accessible name: title, axes, value range, cells missing (rewritten whenever
 *   Plotly draws another figure into it);
 * - focus (by keyboard) makes the top-left cell active; arrows move it, Home/End go to the row's
 *   ends (Ctrl: the first/last cell), PageUp/PageDown move by PAGE_ROWS rows. The active cell is
 *   outlined by an overlay (.heatmap-cursor, placed from Plotly's axes like compareHover's
 *   outlines: the figure is not redrawn) and gets Plotly's own hover label (Fx.hover, which also
 *   drives Compare's linked outlines and readout through hoverData);
 * - the frame's polite live region says the cell as its hover does, lines joined by ' · ';
 * - the "Table" toggle shows the map as an HTML table, values as the hover writes them.
 * Numbers go through the figure's own d3 formatter (gd._fullLayout._d3locale), the one its
 * hover labels use. */
window.dash_clientside.evalmaps.keys = (function () {
  const PAGE_ROWS = 10;
  const MAX_TABLE_CELLS = 10000;  // a bigger DOM table would stall the page
  const SEP = " · ";
  const decoder = document.createElement("textarea");

  function graphOf(frame) {
    return frame.querySelector(".js-plotly-plot");
  }

  function ready(gd) {
    return !!(gd && gd._fullLayout && gd._fullLayout.xaxis && gd._fullLayout.yaxis &&
              gd._fullData && gd._fullData.length && gd._fullData[0].type === "heatmap" &&
              gd._fullData[0].x && gd._fullData[0].y);
  }

  /* Plotly's pseudo-HTML as plain text: <extra> dropped, <br> a line break, tags stripped,
   * entities decoded (a textarea's content is never parsed as markup). */
  function plain(html) {
    decoder.innerHTML = String(html).replace(/<extra>[\s\S]*?<\/extra>/gi, "")
      .replace(/<br\s*\/?>/gi, "\n").replace(/<[^>]*>/g, "");
    return decoder.value;
  }

  function present(v) {
    return v !== null && v !== undefined && typeof v === "number" && isFinite(v);
  }

  /* A hovertemplate filled for one cell: %{x}, %{y}, %{z:spec}, %{customdata[k]:spec}. */
  function fill(template, cell, format) {
    return String(template).replace(/%\{([^\s%{}:]*)(?::([^}]*))?\}/g, function (all, field, spec) {
      let v;
      if (field === "x" || field === "y" || field === "z") {
        v = cell[field];
      } else {
        const k = /^customdata\[(\d+)\]$/.exec(field);
        v = k && cell.customdata ? cell.customdata[Number(k[1])] : undefined;
      }
      if (v === undefined || v === null) {
        return all;
      }
      return (spec && typeof v === "number") ? format(spec)(v) : String(v);
    });
  }

  function rows(a) {
    return a ? Array.prototype.slice.call(a) : [];
  }

  /* What the keyboard and the table need of a drawn map, worked out once per figure: labels,
   * titles, the value range and gaps, and for each cell the trace that draws it (the last with
   * a value there: the sparse traces of gaps and special hovers sit on top of the main one,
   * which is blank there). Typed arrays, no object per cell: a map may hold a million cells. */
  function model(gd) {
    if (gd._evalmapsKeys && gd._evalmapsKeys.full === gd._fullData) {
      return gd._evalmapsKeys;
    }
    const fl = gd._fullLayout;
    const main = gd._fullData[0];
    const x = rows(main.x).map(String), y = rows(main.y).map(String);
    const nx = x.length, ny = y.length;
    const xi = new Map(x.map(function (v, j) { return [v, j]; }));
    const yi = new Map(y.map(function (v, i) { return [v, i]; }));
    const owner = new Int32Array(nx * ny).fill(-1);  // the trace drawing a cell, -1: none
    const slotR = new Int32Array(nx * ny);  // where in that trace: its row (grids), or n
    const slotC = new Int32Array(nx * ny);  // its column (grids)
    const traces = gd._fullData;
    const grids = traces.map(function (t) {
      return !!(t.z && t.z.length && t.z[0] !== null && typeof t.z[0] === "object");
    });
    const values = traces.map(function (t) {  // gap traces draw no value (components.heatmap)
      return "texttemplate" in ((gd.data && gd.data[t.index]) || {});
    });
    traces.forEach(function (t, k) {
      if (t.type !== "heatmap" || !t.z) {
        return;
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
    const title = function (axis) {
      return axis && axis.title && axis.title.text ? plain(axis.title.text) : "";
    };
    const m = {
      full: gd._fullData, x: x, y: y, at: at, lo: lo, hi: hi, gaps: gaps,
      xText: x.map(plain), yText: y.map(plain),
      title: plain((fl.title && fl.title.text) || ""),
      xTitle: title(fl.xaxis), yTitle: title(fl.yaxis),
      valueTemplate: meta.value || (main.meta && main.meta.texttemplate) || "%{z}",
      format: fl._d3locale.numberFormat
    };
    gd._evalmapsKeys = m;
    return m;
  }

  function valueText(m, z) {
    return plain(fill(m.valueTemplate, {z: z}, m.format));
  }

  /* The cell as its hover says it, on one line; `missing` when no trace draws it. */
  function cellText(m, i, j, missing) {
    const o = m.at(i, j);
    if (!o) {
      return m.yTitle + " " + m.yText[i] + SEP + m.xTitle + " " + m.xText[j] + SEP + missing;
    }
    const cell = {x: m.x[j], y: m.y[i], z: o.z, customdata: o.customdata};
    return plain(fill(o.trace.hovertemplate || "", cell, m.format)).split("\n")
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
    return m.title + ". Rows: " + m.yTitle + ", " + m.y.length + " (" + ends(m.yText) + "); " +
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
    const fl = gd._fullLayout, xa = fl.xaxis, ya = fl.yaxis;
    const c = xa._categories.indexOf(m.x[j]), r = ya._categories.indexOf(m.y[i]);
    if (c < 0 || r < 0) {
      cursor.hidden = true;
      return;
    }
    const outer = frame.getBoundingClientRect(), plot = gd.getBoundingClientRect();
    const x0 = xa.l2p(c - 0.5), x1 = xa.l2p(c + 0.5);
    const y0 = ya.l2p(r - 0.5), y1 = ya.l2p(r + 0.5);
    cursor.style.left = (plot.left - outer.left + xa._offset + Math.min(x0, x1)) + "px";
    cursor.style.top = (plot.top - outer.top + ya._offset + Math.min(y0, y1)) + "px";
    cursor.style.width = Math.abs(x1 - x0) + "px";
    cursor.style.height = Math.abs(y1 - y0) + "px";
    cursor.hidden = false;
    cursor.setAttribute("data-cell", i + "," + j);
  }

  function liveRegion(frame) {
    return frame.parentElement && frame.parentElement.querySelector(":scope > .heatmap-live");
  }

  /* Cell (i, j) becomes the active one: outlined, hovered, announced. */
  function activate(frame, i, j) {
    const gd = graphOf(frame);
    if (!ready(gd)) {
      return;
    }
    const m = model(gd);
    i = Math.max(0, Math.min(m.y.length - 1, i));
    j = Math.max(0, Math.min(m.x.length - 1, j));
    frame._evalmapsCell = {i: i, j: j};
    place(frame, gd, m, i, j);
    const cursor = frame.querySelector(".heatmap-cursor");
    if (cursor && cursor.scrollIntoView) {
      cursor.scrollIntoView({block: "nearest", inline: "nearest", behavior: "instant"});
    }
    const fl = gd._fullLayout;
    const c = fl.xaxis._categories.indexOf(m.x[j]), r = fl.yaxis._categories.indexOf(m.y[i]);
    if (window.Plotly && window.Plotly.Fx) {
      // as a mouse over the plot area would (Plotly emits plotly_hover, hence Dash's
      // hoverData, only for an event with a target): Compare's linked outlines and readout
      const target = gd.querySelector(".nsewdrag") || gd;
      window.Plotly.Fx.hover(gd, {xval: c, yval: r, target: target}, "xy");
    }
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
    if (gd && gd._fullLayout && window.Plotly && window.Plotly.Fx) {
      window.Plotly.Fx.unhover(gd);
    }
  }

  function frameOf(target) {
    return target && target.classList && target.classList.contains("heatmap-keys") ? target : null;
  }

  /* The map as an HTML table: a caption, the x title over the column headers (th scope=col),
   * a row header per row (th scope=row), values as the hover writes them. */
  function buildTable(holder, frame) {
    const gd = graphOf(frame);
    holder.textContent = "";
    if (!ready(gd)) {
      return;
    }
    const m = model(gd);
    const missing = frame.getAttribute("data-missing") || "not reported";
    const n = m.x.length * m.y.length;
    if (n > MAX_TABLE_CELLS) {
      const note = document.createElement("p");
      note.className = "small text-muted mb-0 p-2";
      note.textContent = "This map has " + n.toLocaleString("en") + " cells, more than a table " +
        "here shows (" + MAX_TABLE_CELLS.toLocaleString("en") + "). Narrow the rows or the " +
        "range, or get every cell from the API (/api/figures/<id>/cells?format=csv).";
      holder.appendChild(note);
      holder._evalmapsFull = gd._fullData;
      return;
    }
    const el = function (tag, text, attrs) {
      const node = document.createElement(tag);
      if (text !== undefined && text !== null) {
        node.textContent = text;
      }
      Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
      return node;
    };
    const table = el("table", null, {"class": "table table-sm table-bordered heatmap-data-table"});
    table.appendChild(el("caption", m.title + ": rows " + m.yTitle + ", columns " + m.xTitle));
    const head = el("thead");
    const top = el("tr");
    top.appendChild(el("td"));
    top.appendChild(el("th", m.xTitle, {scope: "colgroup", colspan: String(m.x.length)}));
    head.appendChild(top);
    const second = el("tr");
    second.appendChild(el("th", m.yTitle, {scope: "col"}));
    m.xText.forEach(function (text) { second.appendChild(el("th", text, {scope: "col"})); });
    head.appendChild(second);
    table.appendChild(head);
    const body = el("tbody");
    m.yText.forEach(function (text, i) {
      const tr = el("tr");
      tr.appendChild(el("th", text, {scope: "row"}));
      m.x.forEach(function (_, j) {
        const o = m.at(i, j);
        const has = o && o.value;
        tr.appendChild(el("td", has ? valueText(m, o.z) : missing,
                          has ? {} : {"class": "heatmap-missing"}));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    holder.appendChild(table);
    // a region that may scroll sideways: reachable (and scrollable) by keyboard
    holder.setAttribute("tabindex", "0");
    holder.setAttribute("role", "region");
    holder.setAttribute("aria-label", "Table: " + m.title);
    holder._evalmapsFull = gd._fullData;
  }

  function tableOf(button) {
    return button.parentElement && button.parentElement.querySelector(":scope > .heatmap-table");
  }

  function frameNear(node) {
    return node.parentElement && node.parentElement.querySelector(":scope > .heatmap-keys");
  }

  /* Whenever Plotly draws (a new figure, a restyle, a resize): names, open tables and the
   * active outline follow. One pass per animation frame, whatever the number of mutations. */
  function refresh() {
    document.querySelectorAll(".heatmap-keys").forEach(function (frame) {
      const gd = graphOf(frame);
      if (!ready(gd)) {
        return;
      }
      const m = model(gd);
      if (frame._evalmapsFull !== gd._fullData) {
        frame._evalmapsFull = gd._fullData;
        frame.setAttribute("aria-label", label(frame, m));
      }
      const holder = frame.parentElement && frame.parentElement.querySelector(
        ":scope > .heatmap-table");
      if (holder && !holder.hidden && holder._evalmapsFull !== gd._fullData) {
        buildTable(holder, frame);
      }
      const cell = frame._evalmapsCell;
      if (cell) {
        if (cell.i >= m.y.length || cell.j >= m.x.length) {
          activate(frame, cell.i, cell.j);  // fewer rows or columns now: clamped
        } else {
          place(frame, gd, m, cell.i, cell.j);
        }
      }
    });
  }

  let pending = false;
  function schedule() {
    if (!pending) {
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        refresh();
      });
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
    document.addEventListener("click", function (e) {
      const button = e.target.closest && e.target.closest(".heatmap-table-toggle");
      if (!button) {
        return;
      }
      const holder = tableOf(button), frame = frameNear(button);
      if (!holder || !frame) {
        return;
      }
      const open = holder.hidden;
      if (open) {
        buildTable(holder, frame);
      }
      holder.hidden = !open;
      button.setAttribute("aria-expanded", open ? "true" : "false");
      button.classList.toggle("active", open);
    });
    schedule();
  }

  if (document.body) {
    start();
  } else {
    document.addEventListener("DOMContentLoaded", start);
  }
  return {model: model, cellText: cellText, label: label, refresh: refresh};
})();
