/* The pages of a static bundle (evalmaps bundle, evalmaps/service/bundle.py): a figure's page
 * (Browse without a server) and a Compare page, drawn from the data script the page loads
 * (data/<name>.js calls evalmapsBundle.add(name, {...})). The view's state is in the URL's
 * fragment (#model=R1-Qwen&xmin=0.2): a link reopens it, back and forward work.
 *
 * What the live app writes from Python comes in the data, worked out with the same code when
 * the bundle is made (hover templates, tables, CSV, Compare's numbers); slicing, row order and
 * colour ranges are assets/evalmaps-slice.js's (evalmapsLib.slice, with evalmaps.analysis.slicing
 * as its reference; tested in tests/js/bundle.test.js and tests/unit/test_slice_js.py). The
 * keyboard readout and the Table toggle are the live app's (assets/evalmaps-keys.js,
 * assets/evalmaps-table.js), numbers are written by assets/evalmaps-format.js.
 *
 * Global: window.evalmapsBundle (add, lib). */
(function () {
  "use strict";
  const B = window.evalmapsBundle = window.evalmapsBundle || {pending: {}, add: function (k, v) {
    this.pending[k] = v;
  }};
  const MAX_PANELS = 24;  // panels drawn at once (narrow the menus for the others)
  // The theme's colours, scales, fonts and sizes are evalmaps.figures.theme's, in each page's
  // data (its "theme": browser_theme()), and so are the sizes that decide what a map draws (its
  // "limits": evalmaps.figures.heatmap.browser_limits()), never copied here: the uniform scale (Viridis) and
  // B - A's (plotly.py's RdBu: red, B lower; plotly.js's own "RdBu" runs the other way) come
  // as explicit stops.

  /* ------------------------------------------------------------------ state (the fragment) */

  function finiteOr(text, fallback) {
    const v = text === null || text === "" ? NaN : Number(text);
    return isFinite(v) ? v : fallback;
  }

  /* The view's state from a fragment ('#model=R1-Qwen&xmin=0.2'); unknown labels are left out. */
  function parseState(hash, fig) {
    const q = new URLSearchParams(String(hash || "").replace(/^#/, ""));
    const pick = function (name, labels) {
      if (!q.has(name)) {
        return null;
      }
      const wanted = q.getAll(name).filter(function (v) { return v !== ""; });
      return labels.filter(function (l) { return wanted.indexOf(l) >= 0; });
    };
    const facets = {};
    const named = fig.facets.some(function (f) { return q.has(f); });
    fig.facets.forEach(function (f) {
      facets[f] = named ? pick(f, fig.dims[f].labels) : (fig.defaultFacets || {})[f] || null;
    });
    const ylabels = fig.dims[fig.y].labels;
    let rows = pick("rows", ylabels);
    if (rows === null && q.has("hide")) {
      const hidden = q.getAll("hide");
      rows = ylabels.filter(function (l) { return hidden.indexOf(l) < 0; });
    }
    const sort = q.get("sort") || "source";
    const top = finiteOr(q.get("top"), null);
    const okSort = sort === "source" || sort === "name" || sort === "mean" ||
      (sort.indexOf("col:") === 0 && fig.dims[fig.x].labels.indexOf(sort.slice(4)) >= 0);
    const color = q.get("color");
    return {
      facets: facets, rows: rows,
      xmin: finiteOr(q.get("xmin"), null), xmax: finiteOr(q.get("xmax"), null),
      sort: okSort ? sort : "source",
      top: top !== null && top >= 1 ? Math.floor(top) : null,
      color: color === "fixed" || color === "shared" || color === "panel" ? color : "figure",
      labels: q.get("labels") !== "off",
      scale: q.get("scale") === "paper" ? "paper" : "uniform",
      pct: q.get("pct") === "1",
      zscale: q.get("zscale") === "log" ? "log" : "linear"
    };
  }

  /* The fragment of a state, defaults left out (the live app's query order). */
  function stateHash(state, fig) {
    const q = new URLSearchParams();
    const big = Object.keys(fig.defaultFacets || {}).length > 0;  // all its labels: said
    fig.facets.forEach(function (f) {
      const labels = state.facets[f] || (big ? fig.dims[f].labels : null);
      if (labels) {
        if (labels.length) {
          labels.forEach(function (l) { q.append(f, l); });
        } else {
          q.append(f, "");
        }
      }
    });
    if (state.rows) {
      const all = fig.dims[fig.y].labels;
      if (state.rows.length > all.length / 2) {
        all.forEach(function (l) {
          if (state.rows.indexOf(l) < 0) {
            q.append("hide", l);
          }
        });
      } else if (state.rows.length) {
        state.rows.forEach(function (l) { q.append("rows", l); });
      } else {
        q.append("rows", "");
      }
    }
    if (state.xmin !== null) {
      q.append("xmin", String(state.xmin));
    }
    if (state.xmax !== null) {
      q.append("xmax", String(state.xmax));
    }
    if (state.sort !== "source") {
      q.append("sort", state.sort);
    }
    if (state.top !== null) {
      q.append("top", String(state.top));
    }
    if (!state.labels) {
      q.append("labels", "off");
    }
    if (state.color !== "figure") {
      q.append("color", state.color);
    }
    if (state.scale !== "uniform") {
      q.append("scale", state.scale);
    }
    if (state.pct) {
      q.append("pct", "1");
    }
    if (state.zscale !== "linear") {
      q.append("zscale", state.zscale);
    }
    return q.toString().replace(/\+/g, "%20");
  }

  /* ------------------------------------------------------------------ slicing */

  // slicing, row order and colour ranges are assets/evalmaps-slice.js's (evalmapsLib.slice,
  // shared with the live app; evalmaps.analysis.slicing is its reference in the tests)
  const S = window.evalmapsLib.slice;
  const finite = S.finite, naturalKey = S.naturalKey, compareKeys = S.compareKeys;
  const descending = S.descending, rowScores = S.rowScores, rowOrder = S.rowOrder;
  const isFraction = S.isFraction, views = S.views, colorRange = S.colorRange;
  const logTicks = S.logTicks;

  /* ------------------------------------------------------------------ traces */

  /* A cell's hover template: written in Python (evalmaps.figures.hover.panel_hovers, the live
   * maps' own wording), one per kind of cell ('true,false,true,false': has sd, n, se, a suspect
   * se), plain or coloured by log10; never composed here. */
  function hoverOf(parts, key, log) {
    return parts.cells[key][log ? 1 : 0] + "<extra></extra>";
  }

  function stops(fig, scale, reverse) {
    let s = scale === "paper" ? fig.colorscale : fig.theme.uniform;
    if (typeof s === "string") {
      return s;  // a named scale: plotly.js resolves it (reversescale below)
    }
    if (reverse) {
      s = s.slice().reverse().map(function (st) { return [1 - st[0], st[1]]; });
    }
    return s;
  }

  /* A view's figure: the values, the gaps ('not reported') and the cells whose hover lacks
   * some of the panel's sd, n or se (evalmaps.figures.heatmap.panel_traces), and the layout. */
  function panelFigure(fig, view, zrange, state, width) {
    const ny = view.y.length, nx = view.nx, parts = view.hover;
    const T = fig.theme, L = fig.limits;
    // the categories as Plotly shows them: a label is text, never markup (esc, as the live app's
    // evalmaps.figures.theme.texts)
    const X = view.x.map(esc), Y = view.y.map(esc);
    const cols = view.panel.columns;
    const decimals = view.panel.decimals;  // its metric's (bundle.panel_data)
    const places = Math.max(0, Math.min(decimals, 4));
    const log = view.log;
    const cell = view.pct ? (log ? parts.logValue : parts.value) :
      (log ? "%{text:." + places + "f}" : "%{z:." + places + "f}");
    const full = {se: cols.indexOf("se") >= 0, sd: cols.indexOf("sd") >= 0,
                  n: cols.indexOf("n") >= 0, suspect: false};
    const fullKey = [full.sd, full.n, full.se, false].join();
    const groups = {};
    const main = [], text = [], custom = cols.length ? [] : null;
    const gapsBg = nx * ny > L.gapTraceCells;
    const gaps = {x: [], y: []};
    const gap = Math.max(nx, ny) <= L.gapCells ? 1 : 0;
    for (let i = 0; i < ny; i++) {
      const row = new Float64Array(nx).fill(NaN);
      const trow = log ? new Float64Array(nx).fill(NaN) : null;
      const crow = custom ? [] : null;
      for (let j = 0; j < nx; j++) {
        const k = i * nx + j, v = view.z[k];
        if (crow) {
          crow.push(cols.map(function (name) { const e = view.extra[name][k]; return finite(e) ? e : null; }));
        }
        if (!finite(v)) {
          gaps.x.push(X[j]);
          gaps.y.push(Y[i]);
          continue;
        }
        const has = {sd: full.sd && finite(view.extra.sd[k]), n: full.n && finite(view.extra.n[k]),
                     se: full.se && finite(view.extra.se[k]), suspect: !!view.suspect[k]};
        const key = [has.sd, has.n, has.se, has.suspect && has.se].join();
        const shown = log ? Math.log10(v) : v;
        if (key === fullKey) {
          row[j] = shown;
          if (trow) {
            trow[j] = v;
          }
        } else {
          (groups[key] = groups[key] || {cells: []}).cells.push([i, j, shown, v]);
        }
      }
      main.push(row);
      if (trow) {
        text.push(trow);
      }
      if (crow) {
        custom.push(crow);
      }
    }
    const reverse = !view.metric.higher;
    const colorscale = stops(fig, state.scale, reverse);
    let lo, hi;
    if (zrange) {
      lo = zrange[0];
      hi = zrange[1];
    } else {  // its own extent (evalmapsLib.slice.extent), over every cell shown; [0, 1] for none
      const own = S.extent(main.concat(Object.keys(groups).map(function (g) {
        return groups[g].cells.map(function (c) { return c[2]; });
      })));
      lo = own ? own[0] : 0;
      hi = own ? own[1] : 1;
    }
    const readable = ny <= L.textRows && nx <= L.textColumns;
    const colorbar = {title: {text: view.shown.label + (log ? " (log)" : ""), side: "right"},
                      thickness: 14};
    if (log) {
      const ticks = logTicks(lo, hi);
      colorbar.tickvals = ticks.vals;
      colorbar.ticktext = ticks.text;
    } else if (view.pct) {
      colorbar.tickformat = ".4~%";
    }
    const named = typeof colorscale === "string";
    const common = {colorscale: colorscale, zmin: lo, zmax: hi, xgap: gap, ygap: gap,
                    hoverongaps: false, reversescale: named && reverse};
    const traces = [];
    const first = Object.assign({
      type: "heatmap", x: X, y: Y, z: main,
      hovertemplate: hoverOf(parts, fullKey, log),
      meta: {role: "value"}, showscale: true, colorbar: colorbar
    }, common);
    if (custom) {
      first.customdata = custom;
    }
    if (log) {
      first.text = text;
    }
    // the cell text sized to the cells as drawn (at most 12 px), none under 9 px (as
    // assets/evalmaps-paint.js does for the live maps); ``width``: the map's width in px
    const plotW = Math.max((width || 800) - layoutLeft(view) - 100, 100);
    const plotH = Math.min(Math.max(150 + 38 * ny, 260), 720) - 119;
    const big = view.range ? Math.max(Math.abs(view.range[0]), Math.abs(view.range[1])) : 0;
    const chars = String(Math.round(view.pct ? big * 100 : big)).length +
      (places - (view.pct ? 2 : 0) > 0 ? places - (view.pct ? 2 : 0) + 1 : 0) +
      (view.pct ? 1 : 0) + (view.range && view.range[0] < 0 ? 1 : 0);
    const px = Math.min(12, Math.floor(Math.min(plotW / nx / (chars * 0.62 + 0.6), plotH / ny * 0.8)));
    if (readable && state.labels && px >= 9) {
      first.texttemplate = cell;
      first.textfont = {size: px};
    }
    traces.push(first);
    if (!gapsBg && gaps.x.length) {
      const blankX = X.concat(Y.map(function () { return X[0]; }));
      const blankY = X.map(function () { return Y[0]; }).concat(Y);
      traces.push({
        type: "heatmap", x: blankX.concat(gaps.x), y: blankY.concat(gaps.y),
        z: blankX.map(function () { return null; }).concat(gaps.x.map(function () { return 0; })),
        hovertemplate: parts.missing + "<extra></extra>", hoverongaps: false, showscale: false,
        zmin: 0, zmax: 1, colorscale: [[0, T.missing], [1, T.missing]], xgap: gap, ygap: gap
      });
    }
    Object.keys(groups).forEach(function (key) {
      const g = groups[key];
      let ni = 0, nj = 0;
      g.cells.forEach(function (c) { ni = Math.max(ni, c[0] + 1); nj = Math.max(nj, c[1] + 1); });
      const z = [], cd = [], tx = [];
      for (let i = 0; i < ni; i++) {
        z.push(new Array(nj).fill(null));
        cd.push(new Array(nj).fill(null).map(function () { return cols.map(function () { return null; }); }));
        tx.push(new Array(nj).fill(null));
      }
      g.cells.forEach(function (c) {
        z[c[0]][c[1]] = c[2];
        cd[c[0]][c[1]] = custom[c[0]][c[1]];
        tx[c[0]][c[1]] = c[3];
      });
      const t = Object.assign({
        type: "heatmap", x: X.slice(0, nj), y: Y.slice(0, ni), z: z, customdata: cd,
        hovertemplate: hoverOf(parts, key, log),
        showscale: false, meta: {role: "value"}
      }, common);
      if (log) {
        t.text = tx;
      }
      if (first.texttemplate) {
        t.texttemplate = cell;
        t.textfont = first.textfont;
      }
      traces.push(t);
    });
    const heading = view.panel.title + (view.metric.higher ? "" : " · lower is better");
    const layout = {
      title: {text: esc(heading), x: 0.02, xanchor: "left", y: 0.98, font: {size: T.titleSize}},
      font: T.font,
      height: Math.min(Math.max(150 + 38 * ny, 260), 720),
      margin: {l: layoutLeft(view), r: 20, t: 64, b: 55},
      xaxis: {type: "category", title: {text: esc(fig.dims[fig.x].title)}, tickangle: 0,
              showgrid: false, fixedrange: true},
      yaxis: {type: "category", title: {text: esc(fig.dims[fig.y].title)}, autorange: "reversed",
              showgrid: false, fixedrange: true},
      plot_bgcolor: gapsBg ? T.missing : "white", paper_bgcolor: "white",
      hoverlabel: {bgcolor: "white", font: {size: T.hoverSize}},
      annotations: fig.illustrative ? [{text: T.illustrative.label, xref: "paper", yref: "paper",
                                        x: 0.5, y: 1.0, yanchor: "bottom", showarrow: false,
                                        font: {size: T.illustrative.size,
                                               color: T.illustrative.color}}] : [],
      meta: {evalmaps: {value: log ? parts.logValue : parts.value}}
    };
    // tick labels thinned to fit (the live maps: assets/evalmaps-fit.js)
    const xChars = Math.max.apply(null, view.x.map(function (l) { return String(l).length; }));
    const xStep = Math.ceil(nx / Math.max(Math.floor(plotW / (xChars * 7 + 10)), 1));
    if (xStep > 1) {
      layout.xaxis.tickmode = "array";
      layout.xaxis.tickvals = X.filter(function (_, j) { return j % xStep === 0; });
    }
    const yStep = Math.ceil(ny / Math.max(Math.floor(plotH / 15), 1));
    if (yStep > 1) {
      layout.yaxis.tickmode = "array";
      layout.yaxis.tickvals = Y.filter(function (_, i) { return i % yStep === 0; });
    }
    return {data: traces, layout: layout};
  }

  function layoutLeft(view) {
    return leftFor(view.y);
  }

  /* Room for row labels (their widest, about 7 px a character, at most 28 characters) and the
   * axis title, as evalmaps.figures.heatmap.left_margin gives the live maps. */
  function leftFor(labels) {
    const widest = Math.max.apply(null, labels.map(function (l) { return String(l).length; }).concat([1]));
    return Math.max(50, Math.ceil(Math.min(widest, 28) * 7) + 36);
  }

  /* evalmaps.figures.theme.text: bidirectional controls written out ([U+202E]), tags escaped, the
   * '%' of '%{' an entity (Plotly shows it as '%'; nothing is inserted into the label). */
  function esc(text) {
    return String(text)
      .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, function (c) {
        return "[U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + "]";
      })
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/%\{/g, "&#37;{");
  }

  function config(name, theme) {
    const P = window.Plotly;
    const svg = {name: "Download plot as SVG", icon: P && P.Icons ? P.Icons.disk : undefined,
                 click: function (gd) {
                   P.downloadImage(gd, {format: "svg", filename: name});
                 }};
    return {displaylogo: false, responsive: true, modeBarButtonsToRemove: theme.hideButtons,
            modeBarButtonsToAdd: [svg], scrollZoom: false,
            toImageButtonOptions: {format: "png", filename: name, scale: 2}};
  }

  /* ------------------------------------------------------------------ the DOM */

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") {
        node.textContent = attrs[k];
      } else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) {
        node.setAttribute(k, attrs[k] === true ? "" : attrs[k]);
      }
    });
    (children || []).forEach(function (c) { if (c) { node.appendChild(c); } });
    return node;
  }

  function download(name, text, type) {
    const url = URL.createObjectURL(new Blob([text], {type: type}));
    const a = el("a", {href: url, download: name});
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  function provenanceCard(fig) {
    const items = [["Provenance", fig.provenance], ["Metric", fig.metric.label],
                   ["Cells", fig.nCells.toLocaleString("en")]];
    (fig.sourceRows || []).forEach(function (row) { items.push(row); });
    const dl = el("dl", {"class": "provenance-card"});
    items.forEach(function (it) {
      dl.appendChild(el("dt", {text: it[0]}));
      dl.appendChild(el("dd", {text: it[1]}));
    });
    const card = el("section", {"class": "card", "aria-label": "Provenance"},
                    [el("h2", {text: "Where the numbers come from"}), dl]);
    (fig.notes || []).forEach(function (n) { card.appendChild(el("p", {"class": "note", text: n})); });
    return card;
  }

  function multiSelect(id, label, labels, chosen) {
    const select = el("select", {id: id, multiple: true, size: String(Math.min(labels.length, 6)),
                                 "aria-label": label});
    labels.forEach(function (l) {
      const o = el("option", {value: l, text: l});
      o.selected = !chosen || chosen.indexOf(l) >= 0;
      select.appendChild(o);
    });
    return el("label", {"class": "control"}, [el("span", {text: label}), select]);
  }

  function selectOne(id, label, options, value) {
    const select = el("select", {id: id, "aria-label": label});
    options.forEach(function (o) {
      const opt = el("option", {value: o[0], text: o[1]});
      opt.selected = o[0] === value;
      select.appendChild(opt);
    });
    return el("label", {"class": "control"}, [el("span", {text: label}), select]);
  }

  function controls(fig, state) {
    const form = el("form", {id: "controls", "class": "controls", "aria-label": "View"});
    fig.facets.forEach(function (f) {
      if (fig.dims[f].labels.length > 1) {
        form.appendChild(multiSelect("facet-" + f, fig.dims[f].title, fig.dims[f].labels,
                                     state.facets[f]));
      }
    });
    form.appendChild(multiSelect("rows", "Rows (" + fig.dims[fig.y].title + ")",
                                 fig.dims[fig.y].labels, state.rows));
    const xdim = fig.dims[fig.x];
    if (xdim.numeric) {
      const nums = xdim.numbers;
      const range = el("fieldset", {"class": "control"}, [el("legend", {text: xdim.title + " range"})]);
      range.appendChild(el("input", {id: "xmin", type: "number", step: "any", "aria-label": "From",
                                     value: state.xmin === null ? String(Math.min.apply(null, nums)) : String(state.xmin)}));
      range.appendChild(el("input", {id: "xmax", type: "number", step: "any", "aria-label": "To",
                                     value: state.xmax === null ? String(Math.max.apply(null, nums)) : String(state.xmax)}));
      form.appendChild(range);
    }
    form.appendChild(selectOne("sort", "Row order", [["source", "As the source"], ["name", "Name"],
      ["mean", "Mean (best first)"]].concat(xdim.labels.map(function (l) {
      return ["col:" + l, xdim.title + " " + l + " (best first)"];
    })), state.sort));
    form.appendChild(el("label", {"class": "control"}, [el("span", {text: "Top N rows"}),
      el("input", {id: "top", type: "number", min: "1", step: "1", value: state.top === null ? "" : String(state.top)})]));
    form.appendChild(selectOne("color", "Colour range", [["figure", "Figure"], ["fixed", "Metric's range"],
                                                         ["shared", "Shared"], ["panel", "Each panel its own"]], state.color));
    form.appendChild(selectOne("scale", "Colour scale", [["uniform", "Uniform (viridis)"], ["paper", "As in the paper"]],
                               state.scale));
    const check = function (id, text, on) {
      const box = el("input", {id: id, type: "checkbox"});
      box.checked = on;
      return el("label", {"class": "control check"}, [box, el("span", {text: text})]);
    };
    form.appendChild(check("labels", "Values in cells", state.labels));
    if (fig.panels.some(isFraction)) {
      form.appendChild(check("pct", "Fractions as percent", state.pct));
    }
    if (fig.panels.some(function (p) { return !p.metric.range; })) {
      form.appendChild(check("zscale", "Log colours", state.zscale === "log"));
    }
    return form;
  }

  function readControls(fig, form) {
    const chosen = function (select) {
      const all = Array.prototype.map.call(select.options, function (o) { return o.value; });
      const on = Array.prototype.filter.call(select.options, function (o) { return o.selected; })
        .map(function (o) { return o.value; });
      return on.length === all.length ? null : on;
    };
    const value = function (id) { const n = form.querySelector("#" + id); return n ? n.value : null; };
    const checked = function (id) { const n = form.querySelector("#" + id); return !!(n && n.checked); };
    const facets = {};
    fig.facets.forEach(function (f) {
      const s = form.querySelector("#facet-" + CSS.escape(f));
      facets[f] = s ? chosen(s) : null;
    });
    const nums = fig.dims[fig.x].numbers;
    let xmin = finiteOr(value("xmin"), null), xmax = finiteOr(value("xmax"), null);
    if (nums && xmin !== null && xmin <= Math.min.apply(null, nums)) {
      xmin = null;  // from the axis's start: the default
    }
    if (nums && xmax !== null && xmax >= Math.max.apply(null, nums)) {
      xmax = null;
    }
    const top = finiteOr(value("top"), null);
    return {facets: facets, rows: chosen(form.querySelector("#rows")), xmin: xmin, xmax: xmax,
            sort: value("sort") || "source", top: top !== null && top >= 1 ? Math.floor(top) : null,
            color: value("color") || "figure", labels: checked("labels"),
            scale: value("scale") || "uniform", pct: checked("pct"),
            zscale: checked("zscale") ? "log" : "linear"};
  }

  function panelFrame(name) {
    const gd = el("div", {"class": "bundle-graph"});
    const frame = el("div", {"class": "heatmap-keys", tabindex: "0", role: "application",
                             "aria-label": "Heatmap " + name + ". Arrow keys, Home, End, Page Up and Page Down move between cells.",
                             "data-missing": "not reported"},
                     [gd, el("div", {"class": "heatmap-cursor", hidden: true})]);
    const holder = el("div", {"class": "heatmap-panel"}, [
      frame,
      el("div", {"class": "visually-hidden heatmap-live", role: "status", "aria-live": "polite",
                 "aria-atomic": "true"}),
      el("button", {type: "button", "class": "btn heatmap-table-toggle", title: "Show this map as a table",
                    "aria-expanded": "false", "aria-label": "Table of " + name, text: "Table"}),
      el("div", {"class": "heatmap-table", hidden: true})
    ]);
    return {holder: holder, gd: gd};
  }

  function exportsBox(fig, shown) {
    const T = B.tables;
    const box = el("section", {"class": "card exports", "aria-label": "Downloads"},
                   [el("h2", {text: "Downloads"})]);
    const csv = el("button", {type: "button", "class": "btn", id: "csv",
                              text: "The figure's cells (tidy CSV)"});
    csv.addEventListener("click", function () {
      download(fig.id + ".csv", T.figureCsv(fig), "text/csv");
    });
    box.appendChild(el("p", {}, [csv]));
    const pick = selectOne("table-panel", "Table of the panel", shown.map(function (v) {
      return [v.panel.slug, v.panel.title];
    }), shown.length ? shown[0].panel.slug : "");
    const pre = el("pre", {id: "table-text", "class": "table-text", hidden: true});
    const show = function (format) {
      const slug = pick.querySelector("select").value;
      const view = shown.filter(function (v) { return v.panel.slug === slug; })[0];
      if (!view) {
        return;
      }
      const t = T.tableOf(fig, view);
      let text;
      try {
        text = format === "latex" ? T.toLatex(t) : T.toMarkdown(t);
      } catch (e) {
        pre.textContent = e.message;
        pre.hidden = false;
        return;
      }
      pre.textContent = text;
      pre.hidden = false;
      download(t.name + (format === "latex" ? ".tex" : ".md"), text,
               format === "latex" ? "text/x-tex" : "text/markdown");
    };
    const latex = el("button", {type: "button", "class": "btn", id: "latex", text: "LaTeX"});
    const md = el("button", {type: "button", "class": "btn", id: "markdown", text: "Markdown"});
    latex.addEventListener("click", function () { show("latex"); });
    md.addEventListener("click", function () { show("markdown"); });
    box.appendChild(pick);
    box.appendChild(el("p", {"class": "note", text: "The panel as shown: its rows, order and range."}));
    box.appendChild(el("div", {}, [latex, md]));
    box.appendChild(pre);
    return box;
  }

  function renderFigure(main, fig) {
    main.textContent = "";
    main.appendChild(el("h1", {text: fig.title}));
    if (fig.illustrative) {
      main.appendChild(el("p", {"class": "flag", text: fig.theme.illustrative.label + ": the source describes these results without numbers."}));
    }
    const state = parseState(location.hash, fig);
    const form = controls(fig, state);
    const panels = el("div", {id: "panels", "class": "panels"});
    const notes = el("div", {id: "notes", "class": "notes", role: "status"});
    const side = el("div", {"class": "side"}, [provenanceCard(fig)]);
    main.appendChild(el("div", {"class": "layout"}, [form, el("div", {"class": "maps"}, [notes, panels]), side]));
    const draw = function () {
      const st = parseState(location.hash, fig);
      const got = views(fig, st);
      panels.textContent = "";
      notes.textContent = "";
      const old = side.querySelector(".exports");
      if (old) {
        old.remove();
      }
      if (got.empty) {
        notes.appendChild(el("p", {"class": "empty", text: got.empty}));
        return;
      }
      const all = got.views;
      const shown = all.slice(0, MAX_PANELS);
      if (all.length > shown.length) {
        notes.appendChild(el("p", {text: all.length + " panels match; the first " + MAX_PANELS +
                                   " are drawn: narrow the menus to see the others."}));
      }
      if (all.some(function (v) { return !v.metric.higher; })) {
        notes.appendChild(el("p", {text: "Lower is better for some panels: their colour scale is reversed."}));
      }
      all.filter(function (v) { return v.logNote && v.logNote !== "ranged"; }).slice(0, 2)
        .forEach(function (v) { notes.appendChild(el("p", {text: v.logNote})); });
      if (st.zscale === "log" && all.some(function (v) { return v.logNote === "ranged"; })) {
        notes.appendChild(el("p", {text: "Log colours are for metrics without a range: the others keep linear colours."}));
      }
      if (shown[0].y.length * shown[0].nx > fig.limits.gapTraceCells) {
        notes.appendChild(el("p", {text: fig.limits.gapsNote}));
      }
      side.appendChild(exportsBox(fig, shown));
      shown.forEach(function (v) {
        const zr = colorRange(fig, all, v, st.color);
        const made = panelFrame(v.panel.title);
        made.holder.setAttribute("data-panel", v.panel.slug);
        panels.appendChild(made.holder);
        const f = panelFigure(fig, v, zr, st, made.gd.clientWidth);
        window.Plotly.newPlot(made.gd, f.data, f.layout, config(fig.id + "__" + v.panel.slug, fig.theme));
      });
    };
    let written = null;  // the fragment the menus wrote: they already show it
    form.addEventListener("change", function () {
      const hash = stateHash(readControls(fig, form), fig);
      if (hash !== location.hash.replace(/^#/, "")) {
        written = hash;
        location.hash = hash;  // a new history entry; hashchange draws
      }
    });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    window.addEventListener("hashchange", function () {
      if (location.hash.replace(/^#/, "") !== written) {  // a link, back or forward
        const fresh = controls(fig, parseState(location.hash, fig));
        form.replaceChildren.apply(form, Array.prototype.slice.call(fresh.childNodes));
      }
      written = null;
      draw();
    });
    draw();
  }

  /* ------------------------------------------------------------------ Compare */

  function renderCompare(main, data) {
    const api = data.api, f = data.format;
    const number = window.evalmapsLib.format.number;
    main.textContent = "";
    main.appendChild(el("h1", {text: data.short[0] + " vs " + data.short[1]}));
    main.appendChild(el("p", {"class": "lead", text: "A: " + api.a.label + " · B: " + api.b.label}));
    const ys = api.dims.y.labels, xs = api.dims.x.labels;
    const yShown = ys.map(esc), xShown = xs.map(esc);  // as Plotly shows them: text, never markup
    const yn = api.dims.y.name, xn = api.dims.x.name;
    const at = {};
    api.cells.forEach(function (c) { at[c[yn] + "\u0000" + c[xn]] = c; });
    const side = function (v, s) {
      if (!finite(v)) {
        return "not reported";
      }
      const shift = s.percent ? 2 : 0;
      return number(s.percent ? v * 100 : v, Math.max(s.decimals - shift, 0),
                    s.min === null ? null : Math.max(s.min - shift, 0)) + (s.unit || "");
    };
    const sideA = f.a, sideB = f.b;
    // a cell's call: the paired test's (adjusted p) where it was made, else the standard errors'
    const distinct = function (c) {
      if (c.paired && data.paired) {
        return c.paired.p_adjusted !== null && c.paired.p_adjusted < data.paired.alpha;
      }
      return c.distinguishable === true;
    };
    // the readout line of cell (i, j): worded by the live page's own function
    // (evalmapsLib.hover.readout, evalmaps-hover.js) from the same numbers, the B − A map's
    // customdata (without the difference browser_hovers adds at its end) and
    // evalmaps.figures.compare.readouts, so the line reads as the app's
    const readoutOf = function (i, j) {
      const row = data.hover.delta.customdata[i][j];
      return window.evalmapsLib.hover.readout(data.readout, row.slice(0, row.length - 1), i, j);
    };
    const grid = function (key) {
      return ys.map(function (y) {
        return xs.map(function (x) {
          const c = at[y + "\u0000" + x];
          return c && finite(c[key]) ? c[key] : null;
        });
      });
    };
    const texts = function (key, s) {
      return ys.map(function (y) {
        return xs.map(function (x) {
          const c = at[y + "\u0000" + x];
          return c ? side(c[key], s) : "not reported";
        });
      });
    };
    const readout = el("p", {id: "compare-readout", "class": "readout", role: "status",
                             "aria-live": "polite", text: "Hover a cell, or focus a map and use the arrow keys."});
    const maps = el("div", {"class": "compare-maps"});
    main.appendChild(maps);
    main.appendChild(readout);
    const sum = el("section", {"class": "card", id: "compare-summary", "aria-label": "Summary"},
                   [el("h2", {text: "Summary"})]);
    const ul = el("ul", {id: "compare-sentences"});
    api.sentences.forEach(function (s) { ul.appendChild(el("li", {text: s})); });
    sum.appendChild(ul);
    const tested = api.cells.some(function (c) { return c.paired && data.paired; });
    const withSe = api.cells.some(function (c) { return finite(c.se); });
    if (tested || withSe) {
      sum.appendChild(el("p", {"class": "note", id: "compare-outlines", text: "Outlined on B \u2212 A: " +
        (tested ? "distinguishable by the paired test on the items both answered (Benjamini-Hochberg adjusted p < 0.05)" +
                  (withSe ? "; elsewhere by the standard errors (|B \u2212 A| \u2265 1.96 SE)" : "")
                : "distinguishable by the standard errors (|B \u2212 A| \u2265 1.96 SE)") + "."}));
    }
    (api.warnings || []).forEach(function (w) { sum.appendChild(el("p", {"class": "note", text: w})); });
    // the numbers behind the sentences, as /api/compare gives them, folded away
    const dl = el("dl", {"class": "provenance-card summary-numbers"});
    Object.keys(api.summary).forEach(function (k) {
      dl.appendChild(el("dt", {text: k}));
      dl.appendChild(el("dd", {"data-key": k, text: JSON.stringify(api.summary[k])}));
    });
    sum.appendChild(el("details", {"class": "summary-numbers"},
                       [el("summary", {text: "The numbers, as /api/compare gives them"}), dl]));
    main.appendChild(sum);
    const outlines = [];
    const made = [["a", "A: " + data.short[0], grid("a"), texts("a", sideA)],
                  ["b", "B: " + data.short[1], grid("b"), texts("b", sideB)],
                  ["delta", "B \u2212 A", grid("delta"), null]].map(function (m) {
      const frame = panelFrame(m[1]);
      frame.holder.setAttribute("data-map", m[0]);
      maps.appendChild(frame.holder);
      const dz = m[2];
      const isDelta = m[0] === "delta";
      const range = isDelta ? data.deltaRange : data.range;
      const trace = {type: "heatmap", x: xShown, y: yShown, z: dz, hoverongaps: false,
                     colorscale: isDelta ? data.theme.delta : data.theme.uniform,
                     zmin: range[0], zmax: range[1], meta: {role: "value"}, xgap: 1, ygap: 1,
                     reversescale: !isDelta && !f.higher,
                     colorbar: {title: {text: isDelta ? "B \u2212 A" + (f.higher ? "" : " (blue: B better)") :
                       esc(api.a.metric.name), side: "right"}, thickness: 14}};
      if (!isDelta) {
        trace.text = m[3].map(function (row) { return row.map(esc); });
      }
      // the hover: a transparent map over the values per hover template, holding the values of
      // the cells that take it (plotly.js has one template per heatmap trace); the templates and
      // the numbers they read are written in Python (evalmaps.figures.compare.browser_hovers,
      // the live maps' own), so no hover word is composed here. A cell drawn blank here
      // though its side has a value (A's and B's maps hold the common cells) takes no hover.
      trace.hoverinfo = "skip";
      const hover = data.hover[m[0]];
      const overlays = [];
      hover.templates.forEach(function (template, k) {
        let cells = 0, values = 0;
        const z = hover.which.map(function (row, i) {  // the values (what %{z} reads), 0 in gaps
          return row.map(function (w, j) {
            const v = hover.z[i][j];
            if (w !== k || (finite(v) && !finite(dz[i][j]))) {
              return null;
            }
            cells += 1;
            values += finite(v) ? 1 : 0;
            return finite(v) ? v : 0;
          });
        });
        if (cells > 0) {
          overlays.push({type: "heatmap", x: xShown, y: yShown, z: z, customdata: hover.customdata,
                         hovertemplate: template, hoverongaps: false, showscale: false,
                         colorscale: data.hover.colorscale, zmin: 0, zmax: 1,
                         xgap: 1, ygap: 1,
                         // the keyboard's cells (evalmaps-keys.js): values, or gaps ("not reported")
                         meta: values ? {role: "value"} : {}});
        }
      });
      if (xs.length <= data.limits.textColumns && ys.length <= data.limits.textRows) {
        trace.texttemplate = isDelta ? "%{z:+." + Math.max(f.delta[0] - (sideA.percent ? 2 : 0), 0) + (sideA.percent ? "%" : "f") + "}" : "%{text}";
      }
      const shapes = [];
      if (isDelta) {
        api.cells.forEach(function (c) {
          if (distinct(c)) {
            const i = ys.indexOf(c[yn]), j = xs.indexOf(c[xn]);
            shapes.push({type: "rect", xref: "x", yref: "y", x0: j - 0.5, x1: j + 0.5,
                         y0: i - 0.5, y1: i + 0.5, line: {color: "#000", width: 2}});
          }
        });
      }
      const layout = {title: {text: esc(m[1]), x: 0.02, xanchor: "left", font: {size: 14}},
                      height: Math.min(Math.max(150 + 38 * ys.length, 260), 600),
                      margin: {l: leftFor(ys), r: 20, t: 56, b: 50}, shapes: shapes,
                      xaxis: {type: "category", title: {text: esc(api.dims.x.title)}, fixedrange: true},
                      yaxis: {type: "category", title: {text: esc(api.dims.y.title)}, autorange: "reversed", fixedrange: true},
                      meta: {evalmaps: {value: "%{z}"}}};
      const plotW = Math.max(frame.gd.clientWidth - 90 - 100, 80);
      const xChars = Math.max.apply(null, xs.map(function (l) { return String(l).length; }));
      const xStep = Math.ceil(xs.length / Math.max(Math.floor(plotW / (xChars * 7 + 10)), 1));
      layout.xaxis.tickangle = 0;
      if (xStep > 1) {
        layout.xaxis.tickmode = "array";
        layout.xaxis.tickvals = xShown.filter(function (_, j) { return j % xStep === 0; });
      }
      window.Plotly.newPlot(frame.gd, [trace].concat(overlays), layout, config("compare-" + m[0], data.theme));
      const outline = el("div", {"class": "compare-outline", hidden: true});
      frame.holder.querySelector(".heatmap-keys").appendChild(outline);
      outlines.push({key: m[0], gd: frame.gd, outline: outline, frame: frame.holder.querySelector(".heatmap-keys")});
      return frame;
    });
    if (data.power) {
      main.insertBefore(powerSwitch(data, made[2].gd, ys, xs), maps);
    }
    const P = window.evalmapsLib.plotly;
    const place = function (hovered) {
      outlines.forEach(function (o) {
        if (o.key === hovered.source) {
          o.outline.hidden = true;
          return;
        }
        const area = P.plotArea(o.gd);
        if (!area) {
          return;
        }
        const outer = o.frame.getBoundingClientRect(), plot = o.gd.getBoundingClientRect();
        const w = area.x / xs.length, h = area.y / ys.length;
        Object.assign(o.outline.style, {left: (plot.left - outer.left + area.left + hovered.j * w) + "px",
                                        top: (plot.top - outer.top + area.top + hovered.i * h) + "px",
                                        width: w + "px", height: h + "px"});
        o.outline.hidden = false;
      });
    };
    outlines.forEach(function (o) {
      o.gd.on("plotly_hover", function (ev) {
        const p = ev.points && ev.points[0];
        if (!p) {
          return;
        }
        const i = yShown.indexOf(String(p.y)), j = xShown.indexOf(String(p.x));
        if (i < 0 || j < 0) {
          return;
        }
        readout.textContent = readoutOf(i, j);
        place({i: i, j: j, source: o.key});
      });
    });
    return made;
  }

  /* The power map's numbers (issue 39): each cell's mde in shown units (null where none), the
   * colour range's top, as the app's power=1 colours B − A. */
  function powerGrid(power, ys, xs) {
    let top = 0;
    const z = ys.map(function (y) {
      return xs.map(function (x) {
        const c = power.cells[y + "\u0000" + x];
        if (!c || !finite(c.mde)) {
          return null;
        }
        top = Math.max(top, c.mde);
        return c.mde;
      });
    });
    return {z: z, top: top > 0 ? top : 1};
  }

  /* The Power map switch over B − A's map ``gd`` (URL fragment ``power=1``): on, the map is
   * coloured by each cell's mde (light: small differences detected; red: too few items); off,
   * by B − A again. The hover and readout keep B − A. */
  function powerSwitch(data, gd, ys, xs) {
    const input = el("input", {type: "checkbox", id: "compare-power"});
    const box = el("label", {"class": "check", "for": "compare-power"},
                   [input, document.createTextNode(" Power map (B \u2212 A): colour each cell " +
                    "by the smallest difference its items detect (mde)")]);
    const grid = powerGrid(data.power, ys, xs);
    const trace = gd.data[0];
    const plain = {z: [trace.z], colorscale: [trace.colorscale], zmin: [trace.zmin],
                   zmax: [trace.zmax], "colorbar.title.text": [trace.colorbar.title.text]};
    const mde = {z: [grid.z], colorscale: [data.power.colorscale], zmin: [0], zmax: [grid.top],
                 "colorbar.title.text": [data.power.title]};
    if (trace.texttemplate !== undefined) {  // values in cells: the mde's, then B − A's again
      plain.texttemplate = [trace.texttemplate];
      mde.texttemplate = ["%{z:." + data.power.places + "f}"];
    }
    const draw = function () {
      window.Plotly.restyle(gd, input.checked ? mde : plain, [0]);
    };
    input.checked = new URLSearchParams(window.location.hash.slice(1)).get("power") === "1";
    if (input.checked) {
      draw();
    }
    input.addEventListener("change", function () {
      const q = new URLSearchParams(window.location.hash.slice(1));
      if (input.checked) {
        q.set("power", "1");
      } else {
        q.delete("power");
      }
      window.history.replaceState(null, "", "#" + q.toString());
      draw();
    });
    return el("p", {"class": "power-switch"}, [box]);
  }

  /* ------------------------------------------------------------------ start */

  function start() {
    const main = document.getElementById("bundle-figure");
    const cmp = document.getElementById("bundle-compare");
    if (main) {
      const fig = B.pending[main.getAttribute("data-figure")];
      if (fig) {
        renderFigure(main, fig);
      }
    } else if (cmp) {
      const data = B.pending[cmp.getAttribute("data-compare")];
      if (data) {
        renderCompare(cmp, data);
      }
    }
  }

  B.lib = {parseState: parseState, stateHash: stateHash, views: views, rowOrder: rowOrder,
           rowScores: rowScores, naturalKey: naturalKey, compareKeys: compareKeys,
           descending: descending, colorRange: colorRange, logTicks: logTicks,
           panelFigure: panelFigure};
  if (typeof document !== "undefined" && document.addEventListener) {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", start);
    } else {
      start();
    }
  }
})();
