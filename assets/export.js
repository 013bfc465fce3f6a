/* Every heatmap's modebar exports PNG (Plotly's camera button) and SVG (the button added here),
 * both named after the figure and panel (config.toImageButtonOptions.filename, set in Python).
 * Dash cannot send a JavaScript click handler in a figure's config, so the SVG button is added
 * when Plotly draws: Plotly.newPlot/react are wrapped the moment plotly.js defines window.Plotly.
 * The same wrapper fits each figure to its chart before it is drawn, and again after it is
 * drawn or resized when it is off (evalmapsLib.fit).
 *
 * Internal: window.evalmapsLib.export. Clientside callbacks: none. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};

  function withSvgButton(config) {
    const opts = config && config.toImageButtonOptions;
    if (!opts || !opts.filename) {
      return config;
    }
    const extra = (config.modeBarButtonsToAdd || []).filter(function (b) {
      return !(b && b.name === "evalmapsSvg");
    });
    extra.push({
      name: "evalmapsSvg",
      title: "Download plot as SVG",
      icon: window.Plotly.Icons.disk,
      click: function (gd) {
        const drawn = lib.plotly.fullLayout(gd);
        window.Plotly.downloadImage(gd, {format: "svg", filename: opts.filename,
                                         width: drawn.width, height: drawn.height});
      }
    });
    return Object.assign({}, config, {modeBarButtonsToAdd: extra});
  }

  /* The figure fitted to the chart before it is drawn (evalmapsLib.fit.prefit: x ticks
   * thinned, cell text sized), so that plotly.js draws it once. */
  function prefit(gd, fig) {
    if (!lib.fit || !fig || !fig.layout) {
      return fig;
    }
    try {
      const out = lib.fit.prefit(gd, fig);
      return {data: out.data, layout: out.layout};
    } catch (e) {
      console.error("evalmapsLib.fit.prefit", e);  // drawn unfitted; fitted after the drawing
      return fig;
    }
  }

  /* After a drawing or a resize: the chart fitted again at its size as drawn, when the size
   * it was fitted for before drawing was off, or it changed (evalmapsLib.fit.settle). */
  const MAX_SETTLES = 2;  // redraws in a row: a chart whose fit moves its own size stops here
  let settling = false;
  function settle(gd) {
    const again = lib.fit && lib.plotly.fullLayout(gd) ? lib.fit.settle(gd) : null;
    if (again && (gd._evalmapsSettles || 0) < MAX_SETTLES) {
      gd._evalmapsSettles = (gd._evalmapsSettles || 0) + 1;
      settling = true;
      try {
        window.Plotly.react(gd, again.data, again.layout);
      } finally {
        settling = false;
      }
    }
  }

  function patch(Plotly) {
    if (!Plotly || Plotly.__evalmapsExport) {
      return Plotly;
    }
    ["newPlot", "react"].forEach(function (name) {
      const original = Plotly[name];
      Plotly[name] = function (gd, data, layout, config) {
        const div = typeof gd === "string" ? document.getElementById(gd) : gd;
        if (div && !settling) {
          div._evalmapsSettles = 0;  // a new figure: it may be fitted again after drawing
        }
        if (data && !Array.isArray(data) && typeof data === "object" && "data" in data) {
          data = Object.assign({}, data, prefit(div, data), {config: withSvgButton(data.config)});
        } else {
          const fig = prefit(div, {data: data, layout: layout});
          data = fig.data;
          layout = fig.layout;
          config = withSvgButton(config);
        }
        const drawn = original.call(this, gd, data, layout, config);
        if (div && drawn && drawn.then) {
          drawn.then(function () { settle(div); });
        }
        return drawn;
      };
    });
    /* A resize to the size the chart already has changes nothing: it is not redrawn (Dash's
     * Graph asks for one after every first drawing, and plotly.js would draw it all again). */
    const resize = Plotly.Plots.resize;
    Plotly.Plots.resize = function (gd) {
      const div = typeof gd === "string" ? document.getElementById(gd) : gd;
      const fl = lib.plotly.fullLayout(div), own = div && div.layout;
      if (fl && own && !own.width && Math.round(div.clientWidth) === fl.width &&
          (own.height || Math.round(div.clientHeight) === fl.height)) {
        return Promise.resolve(div);
      }
      const resized = resize.apply(this, arguments);
      if (div && resized && resized.then) {  // a new size: ticks and cell text fitted to it
        resized.then(function () {
          div._evalmapsSettles = 0;
          settle(div);
        }, function () {});
      }
      return resized;
    };
    Plotly.__evalmapsExport = true;
    return Plotly;
  }

  lib.export = {withSvgButton: withSvgButton, patch: patch};

  let current = patch(window.Plotly);
  Object.defineProperty(window, "Plotly", {
    configurable: true,
    get: function () { return current; },
    set: function (value) { current = patch(value); }
  });
})();
