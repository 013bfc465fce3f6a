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
  const scaled = function (v, places) { return places[2] === 100 ? v * 100 : v; };
  const unit = cells.unit || "";
  const side = function (v, places) {
    return present(v) ? number(scaled(v, places), places[0], places[1]) + unit : "not reported";
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
