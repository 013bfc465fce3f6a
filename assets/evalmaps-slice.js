/* A figure sliced in the browser: the panels a view shows (facets, rows, x range), their row
 * order (natural, by mean, by a column; top N), their colour ranges (fixed, figure, shared, own;
 * log10) and the log colour bar's ticks. evalmaps.analysis.slicing is the reference (each
 * function names the Python it follows); tests/unit/test_slice_js.py runs both on the same views
 * and compares. The static site's pages load it (evalmaps bundle ships this file); the live
 * pages slice on the server and leave it out (evalmaps.core.runfiles.SITE_ONLY_SCRIPTS). It
 * reads a figure as the site's data writes it (evalmaps.service.bundle.figure_data).
 *
 * Internal: window.evalmapsLib.slice. Clientside callbacks: none. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};

  function finite(v) {
    return v !== null && v !== undefined && typeof v === "number" && isFinite(v);
  }

  /* The label of natural order (evalmaps.core.text.natural_key): numbers by value, model sizes
   * by size, text by its letters regardless of case. */
  const SIZES = {k: 1e3, m: 1e6, b: 1e9, t: 1e12};
  function naturalKey(label) {
    const key = [];
    const re = /(\d+(?:\.\d+)?)([kmbt](?![a-z]))?|\D+/gi;
    let m;
    const text = String(label);
    while ((m = re.exec(text)) !== null) {
      if (m[1] === undefined) {
        key.push([1, 0, m[0].toLowerCase()]);
      } else {
        key.push([0, Number(m[1]) * (SIZES[(m[2] || "").toLowerCase()] || 1), ""]);
      }
    }
    return key;
  }

  function compareKeys(a, b) {
    for (let k = 0; k < Math.min(a.length, b.length); k++) {
      for (let p = 0; p < 3; p++) {
        if (a[k][p] < b[k][p]) {
          return -1;
        }
        if (a[k][p] > b[k][p]) {
          return 1;
        }
      }
    }
    return a.length - b.length;
  }

  /* Indices from the highest value down; missing last; ties in the source's order. */
  function descending(values) {
    const idx = values.map(function (_, i) { return i; });
    return idx.sort(function (i, j) {
      const a = finite(values[i]) ? -values[i] : Infinity;
      const b = finite(values[j]) ? -values[j] : Infinity;
      return a < b ? -1 : a > b ? 1 : i - j;
    });
  }

  function means(grids, ny) {  // grids: [{z: Float64Array, nx}]: each row's mean over them all
    const out = [];
    for (let i = 0; i < ny; i++) {
      let sum = 0, count = 0;
      grids.forEach(function (g) {
        for (let j = 0; j < g.nx; j++) {
          const v = g.z[i * g.nx + j];
          if (finite(v)) {
            sum += v;
            count += 1;
          }
        }
      });
      out.push(count ? sum / count : NaN);
    }
    return out;
  }

  /* evalmaps.analysis.slicing.row_scores: higher is better. */
  function rowScores(vs) {
    const ny = vs[0].y.length;
    const dirs = vs.map(function (v) { return v.metric.higher; });
    if (dirs.every(function (d) { return d === dirs[0]; })) {
      const m = means(vs, ny);
      return dirs[0] ? m : m.map(function (v) { return -v; });
    }
    const ranks = vs.map(function (v) {
      const z = v.metric.higher ? v.z : v.z.map(function (x) { return -x; });
      const m = means([{z: z, nx: v.nx}], ny);
      const order = descending(m);
      const rank = new Float64Array(ny).fill(NaN);
      order.forEach(function (i, k) { rank[i] = finite(m[i]) ? k + 1 : NaN; });
      return {z: rank, nx: 1};
    });
    return means(ranks, ny).map(function (v) { return -v; });
  }

  /* evalmaps.analysis.slicing.row_order: indices into vs[0].y. */
  function rowOrder(vs, sort, top, fig) {
    const labels = vs[0].y;
    let order = labels.map(function (_, i) { return i; });
    if (top !== null) {
      order = descending(rowScores(vs)).slice(0, top).sort(function (a, b) { return a - b; });
    }
    const colon = sort.indexOf(":");
    const kind = colon < 0 ? sort : sort.slice(0, colon);
    if (kind === "name") {
      const keys = labels.map(naturalKey);
      order = order.slice().sort(function (a, b) { return compareKeys(keys[a], keys[b]); });
    } else if (kind === "mean") {
      const scores = rowScores(vs);
      order = descending(order.map(function (i) { return scores[i]; }))
        .map(function (k) { return order[k]; });
    } else if (kind === "col") {
      const yAll = fig.dims[fig.y].labels, xAll = fig.dims[fig.x].labels;
      const j = xAll.indexOf(sort.slice(colon + 1)), nx = xAll.length;
      const values = order.map(function (i) {
        const r = yAll.indexOf(labels[i]);
        let sum = 0, count = 0;
        vs.forEach(function (v) {
          const val = v.panel.z[r * nx + j];
          if (finite(val)) {
            sum += v.metric.higher ? val : -val;
            count += 1;
          }
        });
        return count ? sum / count : NaN;
      });
      order = descending(values).map(function (k) { return order[k]; });
    }
    return order;
  }

  function isFraction(panel) {
    return !!panel.fraction;
  }

  /* The panels a state shows, sliced (rows, x range) and ordered: [{panel, y, x, z, extra,
   * yi, xi, ...}], or {empty: why}. */
  function views(fig, state) {
    const chosen = fig.facets.map(function (f) { return state.facets[f] || fig.dims[f].labels; });
    const panels = fig.panels.filter(function (p) {
      return fig.facets.every(function (f, k) { return chosen[k].indexOf(p.facets[f]) >= 0; });
    });
    if (!panels.length) {
      return {empty: "No panel matches the selection: pick at least one label per facet."};
    }
    const yAll = fig.dims[fig.y].labels, xdim = fig.dims[fig.x];
    let yi = yAll.map(function (_, i) { return i; });
    if (state.rows) {
      yi = yi.filter(function (i) { return state.rows.indexOf(yAll[i]) >= 0; });
    }
    let xi = xdim.labels.map(function (_, j) { return j; });
    if (xdim.numeric && (state.xmin !== null || state.xmax !== null)) {
      const a = state.xmin === null ? -Infinity : state.xmin;
      const b = state.xmax === null ? Infinity : state.xmax;
      const lo = Math.min(a, b), hi = Math.max(a, b);
      xi = xi.filter(function (j) { return xdim.numbers[j] >= lo && xdim.numbers[j] <= hi; });
    }
    if (!yi.length) {
      return {empty: "No rows selected: pick rows in the Rows menu."};
    }
    if (!xi.length) {
      return {empty: "The x range holds no column: widen it."};
    }
    const nxAll = xdim.labels.length;
    let out = panels.map(function (p) {
      const pick = function (flat) {
        const z = new Float64Array(yi.length * xi.length);
        yi.forEach(function (i, r) {
          xi.forEach(function (j, c) {
            const v = flat[i * nxAll + j];
            z[r * xi.length + c] = v === null ? NaN : v;
          });
        });
        return z;
      };
      const pct = state.pct && isFraction(p);
      const extra = {};
      p.columns.forEach(function (name) { extra[name] = pick(p.extra[name]); });
      const suspect = new Uint8Array(yi.length * xi.length);
      (p.suspect || []).forEach(function (flat) {
        const r = yi.indexOf(Math.floor(flat / nxAll)), c = xi.indexOf(flat % nxAll);
        if (r >= 0 && c >= 0) {
          suspect[r * xi.length + c] = 1;
        }
      });
      return {panel: p, y: yi.map(function (i) { return yAll[i]; }),
              x: xi.map(function (j) { return xdim.labels[j]; }),
              yi: yi.slice(), nx: xi.length, z: pick(p.z), extra: extra, suspect: suspect,
              metric: p.metric, shown: pct ? p.metricPct : p.metric,
              hover: pct ? p.hoverPct : p.hover, pct: pct};
    });
    if (state.sort !== "source" || state.top !== null) {
      const order = rowOrder(out, state.sort, state.top, fig);
      out = out.map(function (v) {
        const nx = v.nx;
        const take = function (z, Kind) {
          const t = new Kind(order.length * nx);
          order.forEach(function (i, r) {
            for (let c = 0; c < nx; c++) {
              t[r * nx + c] = z[i * nx + c];
            }
          });
          return t;
        };
        const extra = {};
        Object.keys(v.extra).forEach(function (k) { extra[k] = take(v.extra[k], Float64Array); });
        return Object.assign({}, v, {y: order.map(function (i) { return v.y[i]; }),
                                     yi: order.map(function (i) { return v.yi[i]; }),
                                     z: take(v.z, Float64Array), extra: extra,
                                     suspect: take(v.suspect, Uint8Array)});
      });
    }
    out.forEach(function (v) {
      v.range = finiteRange(v.z);
      v.logNote = null;
      if (state.zscale === "log") {
        if (v.metric.range) {
          v.logNote = "ranged";
        } else if (v.range && v.range[0] <= 0) {
          v.logNote = "Log colours are off for " + v.panel.title + ": it shows a value of 0 or " +
            "less, and only values above 0 have a logarithm. Narrow the rows or the range, or " +
            "use linear colours.";
        }
      }
      v.log = state.zscale === "log" && v.logNote === null;
    });
    return {views: out};
  }

  /* ------------------------------------------------------------------ colour ranges */

  /* evalmaps.figures.heatmap.finite_range: [lowest, highest] finite value of ``values`` (an
   * array or typed array of numbers, or of rows of them; null and NaN are gaps), null when
   * there is none. */
  function finiteRange(values) {
    let lo = Infinity, hi = -Infinity;
    const add = function (v) {
      if (finite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    };
    for (let k = 0; k < values.length; k++) {
      const v = values[k];
      if (v !== null && typeof v === "object") {
        for (let j = 0; j < v.length; j++) {
          add(v[j]);
        }
      } else {
        add(v);
      }
    }
    return lo <= hi ? [lo, hi] : null;
  }

  /* evalmaps.figures.heatmap.extent: a map's own colour range, the range plotly.js would pick
   * (:func:`finiteRange`), a single value widened by 0.5 each way; null when no value is
   * there. */
  function extent(values) {
    const r = finiteRange(values);
    if (r === null) {
      return null;
    }
    return r[0] < r[1] ? r : [r[0] - 0.5, r[1] + 0.5];
  }

  function sameScale(a, b) {
    return a.name === b.name && a.unit === b.unit && a.higher === b.higher;
  }

  function sameMetric(a, b) {
    return sameScale(a, b) && JSON.stringify(a.range) === JSON.stringify(b.range);
  }

  function flatRange(metric, value) {
    const f = metric.fixed;
    if (f && f[0] <= value && value <= f[1] && f[0] < f[1]) {
      return f.slice();
    }
    return [value - 0.5, value + 0.5];
  }

  /* evalmaps.analysis.slicing.color_range and view_ranges: a view's range for a mode (null:
   * its own extent). */
  function colorRange(fig, all, view, mode) {
    const metric = view.metric;
    let r = null;
    if (mode === "fixed") {
      r = metric.fixed ? metric.fixed.slice() : null;
    } else if (mode === "figure" && fig.zrange && sameMetric(metric, fig.metric)) {
      r = fig.zrange.slice();
    } else if (mode === "shared" || mode === "figure") {
      const present = all.filter(function (v) { return v.range && sameScale(v.metric, metric); });
      if (present.length) {
        const lo = Math.min.apply(null, present.map(function (v) { return v.range[0]; }));
        const hi = Math.max.apply(null, present.map(function (v) { return v.range[1]; }));
        r = lo < hi ? [lo, hi] : flatRange(metric, lo);
      }
    }
    if (view.range && view.range[0] === view.range[1] && metric.fixed && r === null) {
      r = flatRange(metric, view.range[0]);
    }
    if (view.log) {
      if (r === null) {
        return null;
      }
      let lo = r[0];
      const hi = r[1];
      if (lo <= 0) {
        lo = view.range ? view.range[0] : hi;
      }
      if (hi <= 0 || lo <= 0) {
        return null;
      }
      const a = Math.log10(lo), b = Math.log10(hi);
      return a < b ? [a, b] : [a - 0.5, b + 0.5];
    }
    return r;
  }

  /* evalmaps.figures.heatmap.log_ticks: ticks of a log10 colour bar, labelled in the metric's units. */
  function logTicks(lo, hi) {
    const steps = hi - lo < 3 ? [1, 2, 5] : [1];
    let vals = [], text = [];
    for (let k = Math.floor(lo); k <= Math.ceil(hi); k++) {
      steps.forEach(function (s) {
        const v = s * Math.pow(10, k), at = Math.log10(v);
        if (lo - 1e-9 <= at && at <= hi + 1e-9) {
          vals.push(at);
          text.push(String(Number(v.toPrecision(6))));
        }
      });
    }
    if (vals.length < 2) {
      vals = [lo, hi];
      text = [Number(Math.pow(10, lo).toPrecision(3)).toString(),
              Number(Math.pow(10, hi).toPrecision(3)).toString()];
    }
    return {vals: vals, text: text};
  }

  lib.slice = {finite: finite, naturalKey: naturalKey, compareKeys: compareKeys,
               descending: descending, rowScores: rowScores, rowOrder: rowOrder,
               isFraction: isFraction, views: views, finiteRange: finiteRange,
               extent: extent, colorRange: colorRange, logTicks: logTicks};
})();
