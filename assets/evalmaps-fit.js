/* A chart fitted to its size: before plotly.js draws a figure (prefit, called from the wrapper
 * of Plotly.newPlot and Plotly.react in export.js) at the size it will be drawn at, so that the
 * first drawing is the last; after a drawing or a resize (settle, from the same wrapper) again
 * at the size as drawn, redrawn only when what is drawn is off: x ticks thinned so that their
 * labels do not overlap, the y axis's title kept inside the chart, a heatmap's cell text sized
 * to its cells (evalmapsLib.paint), and a line chart's legend below its plot on a narrow chart
 * (a phone: layout.meta.legendBelow, evalmaps/figures/trends.py).
 *
 * Internal: window.evalmapsLib.fit. Clientside callbacks: none. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};

  /* x tick labels that fit: every label while the cells are wide enough for it, else every
   * k-th one, never overlapping (labels ~7.5 px a character at 12 px, plus a gap). */
  function tickStep(cats, length) {
    if (!cats || !cats.length || !length) {
      return 1;
    }
    const chars = Math.max.apply(null, cats.map(function (c) { return String(c).length; }));
    return Math.max(1, Math.ceil((chars * 7.5 + 8) / (length / cats.length)));
  }

  /* x labels that are all shown where they can be: level while they fit; else upright (a label
   * then takes a line's height across the axis, UPRIGHT_LINE px, not its length), so every one
   * is shown while the cells are that wide; thinned only past that. {step, angle, room}: room
   * is the px upright labels take below the axis (their length, at most UPRIGHT_ROOM; a
   * longer one is cut there, whole in the hover), which the chart grows by. */
  const UPRIGHT_LINE = 13, UPRIGHT_ROOM = 150, LEVEL_ROW = 18;
  function xTicks(cats, length) {
    const level = tickStep(cats, length);
    if (level === 1 || !cats || !cats.length || !length) {
      return {step: level, angle: 0, room: 0};
    }
    const chars = Math.max.apply(null, cats.map(function (c) { return String(c).length; }));
    return {step: Math.min(level, Math.max(1, Math.ceil(cats.length * UPRIGHT_LINE / length))),
            angle: -90, room: Math.min(Math.ceil(chars * 7) + 8, UPRIGHT_ROOM)};
  }
  const UPRIGHT_CHARS = Math.floor((UPRIGHT_ROOM - 8) / 7);

  /* The ticks of a numeric axis labelled at its values whose labels do not overlap, as indices
   * into ``vals`` (in axis order; ``text`` their labels): the first and the last, then, again
   * and again between two kept ones, the label nearest the middle that clears both, so that the
   * kept labels spread evenly over the axis. Placed on ``length`` px linearly, or by their
   * logarithms on a ``log`` axis; SPAN_USED of it, as the axis pads its range. Uneven labels
   * (training steps 0, 1, 2, 4, ..., 3000, 13000, ..., 143000) keep the ones that have room,
   * not every k-th one by the tightest gap. */
  const SPAN_USED = 0.9;
  function spacedTicks(vals, text, length, log) {
    const at = vals.map(function (v) { return log ? Math.log10(v) : v; });
    const lo = Math.min.apply(null, at), hi = Math.max.apply(null, at);
    if (!(hi > lo) || !length || at.some(function (a) { return !isFinite(a); })) {
      return vals.map(function (v, k) { return k; });
    }
    const px = at.map(function (a) { return (a - lo) / (hi - lo) * length * SPAN_USED; });
    const half = function (k) { return (String(text[k]).length * 7.5 + 8) / 2; };
    const clear = function (a, b) { return Math.abs(px[b] - px[a]) >= half(a) + half(b); };
    const end = vals.length - 1;
    const keep = clear(0, end) ? [0, end] : [0];
    const between = function (a, b) {
      const mid = (px[a] + px[b]) / 2;
      let best = -1;
      for (let k = a + 1; k < b; k++) {
        if (clear(a, k) && clear(k, b) &&
            (best < 0 || Math.abs(px[k] - mid) < Math.abs(px[best] - mid))) {
          best = k;
        }
      }
      if (best >= 0) {
        keep.push(best);
        between(a, best);
        between(best, b);
      }
    };
    if (keep.length === 2) {
      between(0, end);
    }
    return keep.sort(function (a, b) { return a - b; });
  }

  /* The plot area's size ({x, y} px), its left margin (l) and the chart's width (w) as drawn,
   * or null before the first drawing. All from plotly.js's own record of the drawing: reading
   * the chart's size from the page would make the browser lay the whole page out again, once
   * a chart, while charts are still being drawn. */
  function drawnLengths(gd) {
    const area = lib.plotly.plotArea(gd), fl = area && lib.plotly.fullLayout(gd);
    return area && area.x ? {x: area.x, y: area.y, l: area.l, w: fl.width} : null;
  }

  /* The plot area's size a figure will be drawn at in the chart ``gd``: as drawn when the
   * chart is drawn at the figure's height and margins, else from the chart's width, the
   * figure's height and margins, and about COLORBAR px for a colour bar that the right margin
   * does not already hold (the figures evalmaps builds give it its room: meta.evalmaps.bar). */
  const COLORBAR = 90;
  function expectedLengths(gd, fig) {
    const layout = fig.layout, m = layout.margin || {}, fl = lib.plotly.fullLayout(gd);
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
    const meta = (layout.meta && layout.meta.evalmaps) || {};
    const bar = !meta.bar && (fig.data || []).some(function (t) {
      return t.showscale === true || (t.type === "heatmap" && t.showscale === undefined);
    });
    const side = function (v, d) { return typeof v === "number" ? v : d; };
    return {x: Math.max(width - side(m.l, 80) - side(m.r, 80) - (bar ? COLORBAR : 0), 1),
            y: Math.max(height - side(m.t, 100) - side(m.b, 80), 1), w: width};
  }

  /* The figure fitted before plotly.js draws it in the chart ``gd``: ``fig`` itself when
   * nothing changes (or its size is not known yet). */
  function prefit(gd, fig) {
    if (!fig || !fig.layout || !fig.data) {
      return fig;
    }
    const lengths = expectedLengths(gd, fig);
    const out = (lengths && fitted(lengths, fig)) || fig;
    reserve(gd, out);
    return out;
  }

  /* A chart that the browser skips while far from the screen (its graph's style: CSS
   * content-visibility with the content's intrinsic size, as layouts/rank.py reserves it) is
   * given the height of the figure it is about to be drawn at, where the server could not know
   * it (a pair map beside others: its width, hence its labels' room, is the screen's), so that
   * it does not change height when it comes near. Writes only (no layout read). */
  const INTRINSIC = /^auto (\d+(?:\.\d+)?)px auto (\d+(?:\.\d+)?)px$/;
  function reserve(gd, fig) {
    const style = gd && gd.parentElement && gd.parentElement.style;
    const size = style && INTRINSIC.exec(style.containIntrinsicSize || "");
    const height = fig.layout.height;
    if (!size || typeof height !== "number" || Number(size[2]) === height) {
      return;
    }
    const frame = parseFloat(style.minHeight) - Number(size[2]);  // border and padding
    style.containIntrinsicSize = "auto " + size[1] + "px auto " + height + "px";
    if (isFinite(frame)) {
      style.minHeight = (height + frame) + "px";
    }
  }

  /* The chart's drawn figure fitted again at its size as drawn, or null when it fits. */
  function settle(gd) {
    return refit(gd, {data: gd.data, layout: gd.layout});
  }

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
      if (have < need || have > Math.ceil(need * 1.25) ||
          (dx.tickangle || 0) !== (wx.tickangle || 0)) {
        return false;
      }
    }
    if (wx.tickmode === "array" && wx.tickvals) {
      const have = (dx.tickvals || []).length, need = wx.tickvals.length;
      if (have > need || have < Math.floor(need * 0.8)) {
        return false;
      }
    }
    if (legendSide(drawn.legend) !== legendSide(want.layout.legend)) {
      return false;
    }
    const size = function (data) {
      return (data || []).filter(function (t) { return t.meta && t.meta.role === "text"; })
        .map(function (t) { return [t.textfont && t.textfont.size, t.texttemplate]; });
    };
    return JSON.stringify(size(gd.data)) === JSON.stringify(size(want.data)) &&
        yTitleShift(drawn) === yTitleShift(want.layout);
  }

  /* The y axis's title (an annotation: evalmaps/figures/heatmap.py, axis_titles) is placed beside
   * the widest row label; where plotly.js draws the left margin narrower than the figure asks
   * (a chart too narrow for its labels), the title moves in to stay inside the chart, over the
   * labels, as plotly.js does with an axis's own title. About the width of the title on its
   * side (a 14 px line): */
  const Y_TITLE_WIDTH = 20;
  /* An axis title's annotation ("x-title" or "y-title", evalmaps/figures/heatmap.py axis_titles):
   * its index, and how far it is shifted (the y title sideways, the x title down). */
  function titleIndex(layout, name) {
    return ((layout || {}).annotations || []).findIndex(function (a) {
      return a && a.name === name;
    });
  }
  function titleShift(layout, name, key) {
    const k = titleIndex(layout, name);
    return k < 0 ? null : layout.annotations[k][key] || 0;
  }
  function yTitleIndex(layout) { return titleIndex(layout, "y-title"); }
  function yTitleShift(layout) { return titleShift(layout, "y-title", "xshift"); }
  function xTitleIndex(layout) { return titleIndex(layout, "x-title"); }
  function xTitleShift(layout) { return titleShift(layout, "x-title", "yshift"); }

  /* Upright labels longer than their room cut with an ellipsis (plotly.js's labelalias; a
   * label's own alias, its shared start left off, is cut the same way); level ones as given. */
  function cutAliases(cats, own, angle) {
    if (!angle) {
      return own || null;
    }
    const alias = Object.assign({}, own || {});
    let cut = false;
    cats.forEach(function (c) {
      const text = String(alias[c] !== undefined ? alias[c] : c);
      if (text.length > UPRIGHT_CHARS) {
        alias[c] = text.slice(0, UPRIGHT_CHARS - 1) + "\u2026";
        cut = true;
      }
    });
    return cut || own ? alias : null;
  }

  /* A line chart's legend: at the right of its plot (plotly.js's place), or below it, in rows,
   * where the chart is narrower than its layout.meta.legendBelow px (a phone: a legend at the
   * right would take half the plot's width). */
  const LEGEND_BELOW = {orientation: "h", yref: "container", y: 0, yanchor: "bottom", x: 0,
                        xanchor: "left"};
  const LEGEND_RIGHT = {orientation: "v", yref: "paper", y: 1, yanchor: "auto", x: 1.02,
                        xanchor: "left"};
  function legendSide(legend) {
    return legend && legend.orientation === "h" ? "below" : "right";
  }

  /* ``fig`` fitted to a plot area of ``lengths`` ({x, y} px, l: the left margin drawn, w: the
   * chart's width), or null when nothing changes. */
  function fitted(lengths, fig) {
    let out = fig, changed = false;
    const below = fig.layout.meta && fig.layout.meta.legendBelow;
    if (below && lengths.w) {
      const side = lengths.w < below ? "below" : "right";
      if (side !== legendSide(fig.layout.legend)) {
        const legend = Object.assign({}, fig.layout.legend,
                                     side === "below" ? LEGEND_BELOW : LEGEND_RIGHT);
        // the title on a row of its own: beside the entries it pushes the last one out
        legend.title = Object.assign({}, legend.title, {side: "top"});
        out = Object.assign({}, out, {layout: Object.assign({}, out.layout, {legend: legend})});
        changed = true;
      }
    }
    const xaxis = fig.layout.xaxis || {};
    if (xaxis.categoryarray) {
      // the height, bottom margin and x title as the figure gave them (kept aside once moved):
      // upright labels take their room below the plot, and the chart grows by it
      const base = (fig.layout.meta && fig.layout.meta.xRoom) ||
        {b: (fig.layout.margin || {}).b, shift: xTitleShift(fig.layout),
         alias: xaxis.labelalias || null, h: fig.layout.height};
      const extraNow = typeof base.b === "number" && fig.layout.margin &&
        typeof fig.layout.margin.b === "number" ? fig.layout.margin.b - base.b : 0;
      const want = xTicks(xaxis.categoryarray, lengths.x);
      const extra = want.angle ? want.room - LEVEL_ROW : 0;
      if ((xaxis.dtick || 1) !== want.step || (xaxis.tickangle || 0) !== want.angle ||
          extra !== extraNow) {
        const ticks = want.step > 1 ? {tickmode: "linear", tick0: 0, dtick: want.step,
                                       tickangle: want.angle}
          : {dtick: 1, tickangle: want.angle};
        const axis = Object.assign({}, xaxis, ticks);
        const alias = cutAliases(xaxis.categoryarray, base.alias, want.angle);
        if (alias) {
          axis.labelalias = alias;
        } else {
          delete axis.labelalias;
        }
        const layout = Object.assign({}, out.layout, {xaxis: axis});
        if (typeof base.b === "number" && typeof base.h === "number" &&
            (want.angle || fig.layout.meta && fig.layout.meta.xRoom)) {
          layout.margin = Object.assign({}, layout.margin, {b: base.b + extra});
          layout.height = base.h + extra;
          layout.meta = Object.assign({}, layout.meta, {xRoom: base});
          const k = xTitleIndex(layout);
          if (k >= 0) {
            layout.annotations = layout.annotations.slice();
            layout.annotations[k] = Object.assign({}, layout.annotations[k],
                                                  {yshift: (base.shift || 0) - extra});
          }
        }
        out = Object.assign({}, out, {layout: layout});
        changed = true;
      }
    }
    if (xaxis.tickmode === "array" && xaxis.ticktext && xaxis.ticktext.length > 1) {
      /* a numeric axis labelled at its values (Trends), linear or log: the labels that fit */
      const all = (fig.layout.meta && fig.layout.meta.ticks) ||
        {vals: xaxis.tickvals, text: xaxis.ticktext};
      const vals = all.vals;
      const keep = spacedTicks(vals, all.text, lengths.x, xaxis.type === "log");
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
        out = lib.paint.paint(lib.paint.withMeta(out, {size: size}));
        changed = true;
      }
    }
    return changed ? out : null;
  }

  lib.fit = {
    prefit: prefit, settle: settle, fitted: fitted, fits: fits, tickStep: tickStep,
    xTicks: xTicks,
    spacedTicks: spacedTicks,
    expectedLengths: expectedLengths, yTitleShift: yTitleShift
  };
})();
