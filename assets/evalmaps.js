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

    /* Nav links carry the page's slice, by the rules the nav element carries (data-nav:
     * evalmaps/state.py NAV_RULES, which also writes the first page's links on the server):
     * Browse, Trends and Data share the figure, its facets, rows, the x range, the row order and
     * top N; each page's own keys go only to the pages that read them. Any key that is not one of
     * the named ones is a facet (a dimension's name). */
    navLinks: function (search) {
      const nav = document.querySelector("nav[data-nav]");
      const rules = JSON.parse((nav && nav.getAttribute("data-nav")) || "{}");
      const owns = rules.own || {}, sliced = rules.sliced || [], named = rules.named || [];
      const params = new URLSearchParams(search || "");
      const links = Array.from(document.querySelectorAll("a.evalmaps-nav"));
      return links.map(function (a) {
        const path = a.pathname;
        const own = owns[path] || [];
        const out = new URLSearchParams();
        params.forEach(function (value, key) {
          if (own.indexOf(key) >= 0 || (sliced.indexOf(path) >= 0 && named.indexOf(key) < 0)) {
            out.append(key, value);
          }
        });
        const query = out.toString();
        return query ? path + "?" + query : path;
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
      // a hover and a relayout can arrive in one call (Dash batches the inputs that changed
      // together): the hover must not be lost behind the relayout
      const hover = triggered.find(function (t) {
        return /\.hoverData$/.test(t.prop_id);
      });
      const first = hover || triggered[0];
      const prop = first.prop_id;
      const dot = prop.lastIndexOf(".");
      let hovered = last;
      let readout = dc.no_update;
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

/* Heatmap colours and cell text, in the browser. Each heatmap figure carries
 * layout.meta.evalmaps (components.heatmap.style_meta): {ranges: {mode: [lo, hi]}, scales:
 * {uniform: stops, paper: stops} (null: a diverging B - A scale, drawn as given), scale, text:
 * the cell-text template ('' on panels too large to print in), show, chars: the longest cell
 * text, size: {w, h} of the plot area it was fitted to (written by evalmaps.prefit)}. Value traces
 * (meta.role 'value') get the range and scale; the two text traces (meta.role 'text', black and
 * white) get the values of the cells whose colour their text contrasts more with, chosen as
 * components.theme.text_color does, and a font sized to the cells as drawn: at most 12 px, none
 * under 9 px. */
(function () {
  const MAX_PX = 12, MIN_PX = 9, LINE = 1.3;

  /* The values of a typed-array spec, flat (a fresh copy: its own buffer). */
  function valuesOf(spec) {
    const bin = atob(spec.bdata);
    const bytes = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) {
      bytes[k] = bin.charCodeAt(k);
    }
    return spec.dtype === "f8" ? new Float64Array(bytes.buffer) : new Float32Array(bytes.buffer);
  }

  function decode(spec) {
    if (!spec || Array.isArray(spec)) {
      return spec;
    }
    if (ArrayBuffer.isView(spec)) {
      return spec;
    }
    const flat = valuesOf(spec);
    const shape = String(spec.shape || flat.length).split(",").map(Number);
    if (shape.length < 2) {
      return Array.from(flat);
    }
    const rows = [];
    for (let i = 0; i < shape[0]; i++) {
      rows.push(Array.from(flat.subarray(i * shape[1], (i + 1) * shape[1])));
    }
    return rows;
  }

  function rgbOf(color) {
    const text = String(color).trim().toLowerCase();
    if (text.charAt(0) === "#") {
      let h = text.slice(1);
      if (h.length === 3) {
        h = h.split("").map(function (c) { return c + c; }).join("");
      }
      return [0, 2, 4].map(function (k) { return parseInt(h.slice(k, k + 2), 16); });
    }
    return text.slice(text.indexOf("(") + 1, text.lastIndexOf(")")).split(",").slice(0, 3)
      .map(Number);
  }

  function scaleRgb(stops, t) {
    t = Math.min(Math.max(t, 0), 1);
    for (let k = 0; k + 1 < stops.length; k++) {
      const s0 = stops[k][0], s1 = stops[k + 1][0];
      if (t <= s1) {
        const f = s1 === s0 ? 0 : (t - s0) / (s1 - s0);
        const a = rgbOf(stops[k][1]), b = rgbOf(stops[k + 1][1]);
        return [0, 1, 2].map(function (c) { return Math.round(a[c] + (b[c] - a[c]) * f); });
      }
    }
    return rgbOf(stops[stops.length - 1][1]).map(Math.round);
  }

  function luminance(rgb) {
    const lin = rgb.map(function (c) {
      c /= 255;
      return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  }

  function dark(rgb) {  /* black text contrasts more than white */
    const lum = luminance(rgb);
    return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05);
  }

  /* The font size of the cell text at plot size `size` ({w, h}), 0 when under MIN_PX. */
  function fontSize(meta, nx, ny, gap) {
    const size = meta.size;
    if (!size || !nx || !ny) {
      return MAX_PX;
    }
    const w = size.w / nx - gap, h = size.h / ny - gap;
    const px = Math.min(MAX_PX, Math.floor(w / (Math.max(meta.chars, 1) * LINE / 2)),
                        Math.floor(h / LINE));
    return px >= MIN_PX ? px : 0;
  }

  /* A figure painted from its meta: range, scale and cell text (see above). */
  function paint(fig) {
    const meta = fig && fig.layout && fig.layout.meta && fig.layout.meta.evalmaps;
    if (!meta) {
      return fig;
    }
    const main = fig.data[0];
    const range = meta.ranges ? meta.ranges[meta.color] || [main.zmin, main.zmax]
      : [main.zmin, main.zmax];
    const stops = meta.scales ? meta.scales[meta.scale] : main.colorscale;
    const texts = [];
    const data = fig.data.map(function (trace, k) {
      const role = trace.meta && trace.meta.role;
      if (role === "value") {
        return Object.assign({}, trace, {colorscale: stops, zmin: range[0], zmax: range[1],
                                         zauto: false});
      }
      if (role === "text") {
        texts.push(k);
      }
      return trace;
    });
    if (texts.length) {
      const grids = texts.map(function (k) { return decode(data[k].z); });
      const ny = grids[0].length, nx = ny ? grids[0][0].length : 0;
      const px = fontSize(meta, nx, ny, main.xgap || 0);
      const lo = range[0], hi = range[1], span = hi - lo;
      const out = grids.map(function () { return []; });
      for (let i = 0; i < ny; i++) {
        const rows = out.map(function (o) { const r = []; o.push(r); return r; });
        for (let j = 0; j < nx; j++) {
          let v = null;
          grids.forEach(function (g) {
            const x = g[i][j];
            if (x !== null && x !== undefined && isFinite(x)) {
              v = x;
            }
          });
          rows[0].push(null);
          rows[1].push(null);
          if (v === null) {
            continue;
          }
          const t = span ? (v - lo) / span : 0.5;
          rows[dark(scaleRgb(stops, t)) ? 0 : 1][j] = v;
        }
      }
      texts.forEach(function (k, n) {
        const black = data[k].meta.color === "#000000";
        data[k] = Object.assign({}, data[k], {
          z: out[black ? 0 : 1],
          texttemplate: meta.show && px ? meta.text : "",
          textfont: Object.assign({}, data[k].textfont, {size: px || MIN_PX})
        });
      });
    }
    return Object.assign({}, fig, {data: data});
  }

  function withMeta(fig, change) {
    const meta = Object.assign({}, fig.layout.meta.evalmaps, change);
    const layout = Object.assign({}, fig.layout, {meta: Object.assign({}, fig.layout.meta,
                                                                      {evalmaps: meta})});
    return Object.assign({}, fig, {layout: layout});
  }

  const ns = window.dash_clientside.evalmaps;
  ns.paint = paint;
  ns.decodeTyped = decode;
  ns.valuesOf = valuesOf;
  ns.textDark = function (color) { return dark(rgbOf(color)); };

  /* Restyle heatmaps without new data: the colour range mode, the scale and values in cells;
   * the URL's color, labels and scale keys are written too (defaults left out), only when they
   * change. */
  ns.restyle = function (color, showValues, scale, figures, search, defaultColor) {
    const dc = window.dash_clientside;
    const out = (figures || []).map(function (fig) {
      const meta = fig && fig.layout && fig.layout.meta && fig.layout.meta.evalmaps;
      if (!meta) {
        return dc.no_update;
      }
      return paint(withMeta(fig, {color: color, show: Boolean(showValues),
                                  scale: meta.scales ? scale || "uniform" : meta.scale}));
    });
    const params = new URLSearchParams(search || "");
    const before = [params.get("color"), params.get("labels"), params.get("scale")];
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
    if (!scale || scale === "uniform") {
      params.delete("scale");
    } else {
      params.set("scale", scale);
    }
    const changed = before[0] !== params.get("color") || before[1] !== params.get("labels") ||
        before[2] !== params.get("scale");
    const query = params.toString();
    return [out, changed ? (query ? "?" + query : "") : dc.no_update];
  };

  /* x tick labels that fit: every label while the cells are wide enough for it, else every
   * k-th one, never overlapping (labels ~7.5 px a character at 12 px, plus a gap). */
  function tickStep(cats, length) {
    if (!cats || !cats.length || !length) {
      return 1;
    }
    const chars = Math.max.apply(null, cats.map(function (c) { return String(c).length; }));
    return Math.max(1, Math.ceil((chars * 7.5 + 8) / (length / cats.length)));
  }

  /* The plot area's size ({x, y} px) and its left margin (l) as drawn, or null before the
   * first drawing. */
  function drawnLengths(gd) {
    const fl = gd && gd._fullLayout;
    return fl && fl.xaxis && fl.yaxis && fl.xaxis._length
      ? {x: fl.xaxis._length, y: fl.yaxis._length, l: fl._size && fl._size.l} : null;
  }

  /* The plot area's size a figure will be drawn at in the chart ``gd``: as drawn when the
   * chart is drawn at the figure's height and margins, else from the chart's width, the
   * figure's height and margins, and about COLORBAR px for a colour bar. */
  const COLORBAR = 90;
  function expectedLengths(gd, fig) {
    const layout = fig.layout, m = layout.margin || {}, fl = gd && gd._fullLayout;
    const drawn = drawnLengths(gd);
    if (drawn && fl.height === layout.height && fl.margin && fl.margin.l === m.l &&
        fl.margin.r === m.r) {
      return drawn;
    }
    const width = layout.width || (gd && gd.clientWidth);
    const height = layout.height || (gd && gd.clientHeight);
    if (!width || !height) {
      return null;
    }
    const bar = (fig.data || []).some(function (t) {
      return t.showscale === true || (t.type === "heatmap" && t.showscale === undefined);
    });
    const side = function (v, d) { return typeof v === "number" ? v : d; };
    return {x: Math.max(width - side(m.l, 80) - side(m.r, 80) - (bar ? COLORBAR : 0), 1),
            y: Math.max(height - side(m.t, 100) - side(m.b, 80), 1)};
  }

  /* A chart fitted to its size: before plotly.js draws a figure (evalmaps.prefit, called
   * from the wrapper of Plotly.newPlot and Plotly.react in export.js) at the size it will be
   * drawn at, so that the first drawing is the last; after a drawing or a resize
   * (evalmaps.settle, from the same wrapper) again at the size as drawn, redrawn only when
   * what is drawn is off: x ticks thinned so that their labels do not overlap, and a heatmap's
   * cell text sized to its cells. */
  ns.prefit = function (gd, fig) {
    if (!fig || !fig.layout || !fig.data) {
      return fig;
    }
    const lengths = expectedLengths(gd, fig);
    return (lengths && fitted(lengths, fig)) || fig;
  };

  /* The chart's drawn figure fitted again at its size as drawn, or null when it fits. */
  ns.settle = function (gd) {
    return refit(gd, {data: gd.data, layout: gd.layout});
  };

  /* ``fig`` fitted to the chart ``gd`` as drawn, or null when what is drawn already fits. */
  function refit(gd, fig) {
    const lengths = drawnLengths(gd);
    const out = lengths && fitted(lengths, fig);
    return out && !fits(gd, out) ? out : null;
  }

  /* Whether the chart as drawn is close enough to ``want`` (the figure fitted at the size as
   * drawn) to be left alone: x labels that do not overlap and are not much sparser than
   * needed, and cell text of the same size. */
  function fits(gd, want) {
    const drawn = gd.layout || {}, dx = drawn.xaxis || {}, wx = want.layout.xaxis || {};
    if (wx.categoryarray) {
      const have = dx.dtick || 1, need = wx.dtick || 1;
      if (have < need || have > Math.ceil(need * 1.25)) {
        return false;
      }
    }
    if (wx.tickmode === "array" && wx.tickvals) {
      const have = (dx.tickvals || []).length, need = wx.tickvals.length;
      if (have > need || have < Math.floor(need * 0.8)) {
        return false;
      }
    }
    const size = function (data) {
      return (data || []).filter(function (t) { return t.meta && t.meta.role === "text"; })
        .map(function (t) { return [t.textfont && t.textfont.size, t.texttemplate]; });
    };
    return JSON.stringify(size(gd.data)) === JSON.stringify(size(want.data)) &&
        yTitleShift(drawn) === yTitleShift(want.layout);
  }

  /* The y axis's title (an annotation: components/heatmap.py, axis_titles) is placed beside
   * the widest row label; where plotly.js draws the left margin narrower than the figure asks
   * (a chart too narrow for its labels), the title moves in to stay inside the chart, over the
   * labels, as plotly.js does with an axis's own title. About the width of the title on its
   * side (a 14 px line): */
  const Y_TITLE_WIDTH = 20;
  function yTitleIndex(layout) {
    return (layout.annotations || []).findIndex(function (a) {
      return a && a.name === "y-title";
    });
  }
  function yTitleShift(layout) {
    const k = yTitleIndex(layout || {});
    return k < 0 ? null : layout.annotations[k].xshift || 0;
  }

  /* ``fig`` fitted to a plot area of ``lengths`` ({x, y} px), or null when nothing changes. */
  function fitted(lengths, fig) {
    let out = fig, changed = false;
    const xaxis = fig.layout.xaxis || {};
    const step = tickStep(xaxis.categoryarray, lengths.x);
    if (xaxis.categoryarray && (xaxis.dtick || 1) !== step) {
      const ticks = step > 1 ? {tickmode: "linear", tick0: 0, dtick: step, tickangle: 0}
        : {dtick: 1, tickangle: 0};
      out = Object.assign({}, out, {layout: Object.assign({}, out.layout, {
        xaxis: Object.assign({}, xaxis, ticks)})});
      changed = true;
    }
    if (xaxis.tickmode === "array" && xaxis.ticktext && xaxis.ticktext.length > 1) {
      /* a numeric axis labelled at its values (Trends): keep every k-th label */
      const all = (fig.layout.meta && fig.layout.meta.ticks) ||
        {vals: xaxis.tickvals, text: xaxis.ticktext};
      const vals = all.vals;
      let gap = Infinity;
      for (let k = 1; k < vals.length; k++) {
        gap = Math.min(gap, Math.abs(vals[k] - vals[k - 1]));
      }
      const span = Math.abs(vals[vals.length - 1] - vals[0]);
      const per = span ? lengths.x * gap / span : lengths.x;
      const chars = Math.max.apply(null, all.text.map(function (c) { return String(c).length; }));
      const every = Math.max(1, Math.ceil((chars * 7.5 + 8) / per));
      const keep = vals.map(function (v, k) { return k; })
        .filter(function (k) { return k % every === 0; });
      if (keep.length !== xaxis.tickvals.length) {
        out = Object.assign({}, out, {layout: Object.assign({}, out.layout, {
          meta: Object.assign({}, out.layout.meta, {ticks: all}),
          xaxis: Object.assign({}, xaxis, {
            tickvals: keep.map(function (k) { return vals[k]; }),
            ticktext: keep.map(function (k) { return all.text[k]; }), tickangle: 0})})});
        changed = true;
      }
    }
    const k = yTitleIndex(out.layout);
    if (k >= 0 && typeof lengths.l === "number") {
      const own = out.layout.meta && typeof out.layout.meta.yTitleShift === "number"
        ? out.layout.meta.yTitleShift : out.layout.annotations[k].xshift || 0;
      const shift = -Math.min(-own, Math.max(Math.round(lengths.l) - Y_TITLE_WIDTH, 0));
      if (shift !== (out.layout.annotations[k].xshift || 0)) {
        const annotations = out.layout.annotations.slice();
        annotations[k] = Object.assign({}, annotations[k], {xshift: shift});
        out = Object.assign({}, out, {layout: Object.assign({}, out.layout, {
          annotations: annotations,
          meta: Object.assign({}, out.layout.meta, {yTitleShift: own})})});
        changed = true;
      }
    }
    const meta = out.layout.meta && out.layout.meta.evalmaps;
    if (meta) {
      const size = {w: Math.round(lengths.x), h: Math.round(lengths.y)};
      if (!meta.size || meta.size.w !== size.w || meta.size.h !== size.h) {
        out = paint(withMeta(out, {size: size}));
        changed = true;
      }
    }
    return changed ? out : null;
  }
})();

/* Compare's maps from the server's answer (components/reuse.py): an array written as
 * {reuse: digest, op} is made from the array with that digest in the maps the page holds (each
 * trace's meta.arrays names its arrays' digests): "same" is that array, "neg" is 0 - x for each
 * value, "swap01" exchanges the first two columns of each cell's customdata. The three figures,
 * or null when the page no longer holds an array they need. */
window.dash_clientside.evalmaps.assemble = function (incoming, a, b, delta) {
  const dc = window.dash_clientside;
  const held = new Map();
  [a, b, delta].forEach(function (fig) {
    ((fig && fig.data) || []).forEach(function (t) {
      const arrays = (t.meta && t.meta.arrays) || {};
      Object.keys(arrays).forEach(function (field) {
        const spec = t[field];
        if (spec && typeof spec.bdata === "string") {
          held.set(arrays[field], spec);
        }
      });
    });
  });
  const valuesOf = dc.evalmaps.valuesOf;
  const base64 = function (bytes) {
    let text = "";
    for (let k = 0; k < bytes.length; k += 0x8000) {
      text += String.fromCharCode.apply(null, bytes.subarray(k, k + 0x8000));
    }
    return btoa(text);
  };
  const make = function (ref) {
    const spec = held.get(ref.reuse);
    if (!spec) {
      return null;
    }
    if (ref.op === "same") {
      return spec;
    }
    const values = valuesOf(spec);
    if (ref.op === "neg") {
      for (let k = 0; k < values.length; k++) {
        values[k] = 0 - values[k];
      }
    } else if (ref.op === "swap01") {
      const shape = String(spec.shape || "").split(",").map(Number);
      const step = shape[shape.length - 1];
      if (!(step >= 2)) {
        return null;
      }
      for (let k = 0; k + 1 < values.length; k += step) {
        const first = values[k];
        values[k] = values[k + 1];
        values[k + 1] = first;
      }
    } else {
      return null;
    }
    const out = {dtype: spec.dtype, bdata: base64(new Uint8Array(values.buffer))};
    if (spec.shape !== undefined) {
      out.shape = spec.shape;
    }
    return out;
  };
  let missing = false;
  const figures = incoming.map(function (fig, k) {
    if (!fig || !fig.data) {
      return [a, b, delta][k];
    }
    return Object.assign({}, fig, {data: fig.data.map(function (t) {
      let copy = t;
      ["z", "customdata"].forEach(function (field) {
        const ref = t[field];
        if (ref && ref.reuse !== undefined) {
          const made = make(ref);
          missing = missing || made === null;
          copy = Object.assign({}, copy);
          copy[field] = made;
        }
      });
      return copy;
    })});
  });
  return missing ? null : figures;
};

/* Compare's maps (layouts/compare.py): the server's new maps (compare-incoming, see assemble;
 * when the page lacks an array, compare-stale asks for them whole: set after this callback, so
 * that Dash starts the server's callback anew instead of dropping it as a loop), and the colour
 * range, scale and values in cells restyled in the browser, with the URL's color, labels and
 * scale keys. [figure A, figure B, figure B - A, search]. */
window.dash_clientside.evalmaps.compareMaps = function (incoming, color, showValues, scale,
                                                        search, defaultColor, a, b, delta) {
  const dc = window.dash_clientside;
  const ns = dc.evalmaps;
  const triggered = ((dc.callback_context && dc.callback_context.triggered) || [])
    .map(function (t) { return t.prop_id; });
  let figures = [a, b, delta], drawn = false, query = dc.no_update;
  if (triggered.indexOf("compare-incoming.data") >= 0 && Array.isArray(incoming) &&
      incoming.length === 3) {
    const made = ns.assemble(incoming, a, b, delta);
    if (made === null) {
      setTimeout(function () { dc.set_props("compare-stale", {data: Date.now()}); }, 0);
      return [dc.no_update, dc.no_update, dc.no_update, dc.no_update];
    }
    figures = made;
    drawn = true;
  }
  if (triggered.some(function (id) { return id !== "compare-incoming.data"; })) {
    const result = ns.restyle(color, showValues, scale, figures, search, defaultColor);
    figures = result[0].map(function (fig, k) { return fig === dc.no_update ? figures[k] : fig; });
    query = result[1];
    drawn = true;
  }
  if (!drawn) {
    return [dc.no_update, dc.no_update, dc.no_update, dc.no_update];
  }
  return figures.concat([query]);
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
 * B − A +3.8', from the B − A map's customdata (A, B, SE, within 1.96 SE; or A and B alone)
 * and `cells` (components.compare.readouts). */
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
    const d = Math.round((b - a) * 1e9) / 1e9;  // as evalmaps.compare rounds away float noise
    const text = number(scaled(d, cells.delta), cells.delta[0], cells.delta[1]);
    delta = ((text.charAt(0) === "-" || Number(text) === 0) ? text : "+" + text) + unit;
    if (cells.lower_better && d !== 0) {
      delta += d < 0 ? " (B better: lower is better)" : " (B worse: lower is better)";
    }
  }
  let line = cells.y_title + " " + cells.y_text[i] + " · " + cells.x_title + " " +
      cells.x_text[j] + " — A " + side(a, cells.a) + " · B " + side(b, cells.b) + " · " +
      cells.minus + " " + delta;
  if (present(se) && present(a) && present(b)) {
    line += " · SE " + number(scaled(se, cells.delta), cells.se, null) + unit + ", " +
        (within ? cells.within : cells.beyond);
  }
  return line;
};

/* The "Filters" toggle (components/filters.py): open or close the page's controls. */
window.dash_clientside.evalmaps.toggleFilters = function (_clicks, isOpen) {
  return [!isOpen, String(!isOpen)];
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
    const text = String(html);
    if (text.indexOf("<") < 0 && text.indexOf("&") < 0) {
      return text;  // no markup, no entity: as it is (most labels; a map has thousands)
    }
    decoder.innerHTML = text.replace(/<extra>[\s\S]*?<\/extra>/gi, "")
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
    /* an axis's title: the annotation named for it (components/heatmap.py, axis_titles), or
     * the axis's own title */
    const title = function (letter) {
      const named = (fl.annotations || []).filter(function (a) {
        return a.name === letter + "-title";
      })[0];
      const axis = fl[letter + "axis"];
      const text = named ? named.text : axis && axis.title && axis.title.text;
      return text ? plain(text) : "";
    };
    const m = {
      full: gd._fullData, x: x, y: y, at: at, lo: lo, hi: hi, gaps: gaps,
      xText: x.map(plain), yText: y.map(plain),
      title: plain((fl.title && fl.title.text) || ""),
      xTitle: title("x"), yTitle: title("y"),
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

  /* The frame's accessible name, for the figure drawn now (once per figure). */
  function name(frame, gd, m) {
    if (frame._evalmapsFull !== gd._fullData) {
      frame._evalmapsFull = gd._fullData;
      frame.setAttribute("aria-label", label(frame, m));
    }
  }

  /* Cell (i, j) becomes the active one: outlined, hovered, announced. */
  function activate(frame, i, j) {
    const gd = graphOf(frame);
    if (!ready(gd)) {
      return;
    }
    const m = model(gd);
    name(frame, gd, m);  // focused before its idle turn came: named now
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
      if (frame._evalmapsFull !== gd._fullData) {
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
    }
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
