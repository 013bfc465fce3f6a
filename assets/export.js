/* Every heatmap's modebar exports PNG (Plotly's camera button) and SVG (the button added here),
 * both named after the figure and panel (config.toImageButtonOptions.filename, set in Python).
 * Dash cannot send a JavaScript click handler in a figure's config, so the SVG button is added
 * when Plotly draws: Plotly.newPlot/react are wrapped the moment plotly.js defines window.Plotly.
 */
(function () {
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
        window.Plotly.downloadImage(gd, {format: "svg", filename: opts.filename,
                                         width: gd._fullLayout.width,
                                         height: gd._fullLayout.height});
      }
    });
    return Object.assign({}, config, {modeBarButtonsToAdd: extra});
  }

  function patch(Plotly) {
    if (!Plotly || Plotly.__evalmapsExport) {
      return Plotly;
    }
    ["newPlot", "react"].forEach(function (name) {
      const original = Plotly[name];
      Plotly[name] = function (gd, data, layout, config) {
        if (data && !Array.isArray(data) && typeof data === "object" && "data" in data) {
          data = Object.assign({}, data, {config: withSvgButton(data.config)});
        } else {
          config = withSvgButton(config);
        }
        return original.call(this, gd, data, layout, config);
      };
    });
    Plotly.__evalmapsExport = true;
    return Plotly;
  }

  let current = patch(window.Plotly);
  Object.defineProperty(window, "Plotly", {
    configurable: true,
    get: function () { return current; },
    set: function (value) { current = patch(value); }
  });
})();
