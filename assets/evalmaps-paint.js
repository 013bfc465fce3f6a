/* Heatmap colours and cell text, in the browser. Each heatmap figure carries
 * layout.meta.evalmaps (components.heatmap.style_meta): {ranges: {mode: [lo, hi]}, scales:
 * {uniform: stops, paper: stops} (null: a diverging B - A scale, drawn as given), scale, text:
 * the cell-text template ('' on panels too large to print in), show, chars: the longest cell
 * text, size: {w, h} of the plot area it was fitted to (written by evalmapsLib.fit)}. Value
 * traces (meta.role 'value') get the range and scale; the two text traces (meta.role 'text',
 * black and white) get the values of the cells whose colour their text contrasts more with,
 * chosen as components.theme.text_color does, and a font sized to the cells as drawn: at most
 * 12 px, none under 9 px.
 *
 * Internal: window.evalmapsLib.paint. Clientside callbacks: evalmaps.restyle. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};
  const MAX_PX = 12, MIN_PX = 9, LINE = 1.3;

  /* A CSS colour ('#rgb', '#rrggbb', 'rgb(r, g, b)', 'rgba(...)') as [r, g, b]. */
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

  /* The colour at `t` (0 to 1, clamped) of a colour scale ([[position, colour], ...]). */
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

  /* WCAG 2 relative luminance of [r, g, b] (0 to 1). */
  function luminance(rgb) {
    const lin = rgb.map(function (c) {
      c /= 255;
      return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  }

  /* Whether black text contrasts more than white on [r, g, b]. */
  function dark(rgb) {
    const lum = luminance(rgb);
    return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05);
  }

  /* The font size of the cell text at plot size meta.size ({w, h}), 0 when under MIN_PX. */
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
      const grids = texts.map(function (k) { return lib.typed.decode(data[k].z); });
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
      texts.forEach(function (k) {
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

  /* The figure with `change` merged into its layout.meta.evalmaps (a copy: `fig` as it was). */
  function withMeta(fig, change) {
    const meta = Object.assign({}, fig.layout.meta.evalmaps, change);
    const layout = Object.assign({}, fig.layout, {meta: Object.assign({}, fig.layout.meta,
                                                                      {evalmaps: meta})});
    return Object.assign({}, fig, {layout: layout});
  }

  /* Restyle heatmaps without new data: the colour range mode, the scale and values in cells;
   * the URL's color, labels and scale keys are written too (defaults left out), only when they
   * change. [figures (no_update for a figure without meta), search or no_update]. */
  function restyle(color, showValues, scale, figures, search, defaultColor) {
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
    if (changed) {
      ticksLinks(params);
    }
    return [out, changed ? (query ? "?" + query : "") : dc.no_update];
  }

  /* The labels note's links (layouts/browse.py ticks_link: this view with every label, or back
   * to the overview) kept to the page's query ``params`` as the browser writes it, their own
   * ticks key (data-ticks) set or left off. */
  function ticksLinks(params) {
    document.querySelectorAll("a.ticks-link").forEach(function (a) {
      const own = new URLSearchParams(params);
      if (a.dataset.ticks === "all") {
        own.set("ticks", "all");
      } else {
        own.delete("ticks");
      }
      const url = new URL(a.href), query = own.toString();  // a link's href: absolute
      url.search = query ? "?" + query : "";
      a.setAttribute("href", url.pathname + url.search);
    });
  }

  lib.paint = {
    rgbOf: rgbOf, scaleRgb: scaleRgb, luminance: luminance, dark: dark, fontSize: fontSize,
    paint: paint, withMeta: withMeta, restyle: restyle
  };

  const clientside = window.dash_clientside = window.dash_clientside || {};
  clientside.evalmaps = Object.assign(clientside.evalmaps || {}, {restyle: restyle});
})();
