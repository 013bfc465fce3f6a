/* Compare's maps (layouts/compare.py) assembled in the browser from the server's answer
 * (components/reuse.py) and the maps the page holds, then restyled (evalmapsLib.paint).
 *
 * Internal: window.evalmapsLib.compare. Clientside callbacks: evalmaps.compareMaps. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};

  /* An array written as {reuse: digest, op} is made from the array with that digest in the maps
   * the page holds (each trace's meta.arrays names its arrays' digests): "same" is that array,
   * "neg" is 0 - x for each value, "swap01" exchanges the first two columns of each cell's
   * customdata. The three figures, or null when the page no longer holds an array they need. */
  function assemble(incoming, a, b, delta) {
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
    const make = function (ref) {
      const spec = held.get(ref.reuse);
      if (!spec) {
        return null;
      }
      if (ref.op === "same") {
        return spec;
      }
      const values = lib.typed.valuesOf(spec);
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
      const out = {dtype: spec.dtype, bdata: lib.typed.base64(new Uint8Array(values.buffer))};
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
  }

  /* Compare's maps: the server's new maps (compare-incoming, see assemble; when the page lacks
   * an array, compare-stale asks for them whole: set after this callback, so that Dash starts
   * the server's callback anew instead of dropping it as a loop), and the colour range, scale
   * and values in cells restyled in the browser, with the URL's color, labels and scale keys.
   * [figure A, figure B, figure B - A, search]. */
  function compareMaps(incoming, color, showValues, scale, search, defaultColor, a, b, delta) {
    const dc = window.dash_clientside;
    const triggered = ((dc.callback_context && dc.callback_context.triggered) || [])
      .map(function (t) { return t.prop_id; });
    let figures = [a, b, delta], drawn = false, query = dc.no_update;
    if (triggered.indexOf("compare-incoming.data") >= 0 && Array.isArray(incoming) &&
        incoming.length === 3) {
      const made = assemble(incoming, a, b, delta);
      if (made === null) {
        setTimeout(function () { dc.set_props("compare-stale", {data: Date.now()}); }, 0);
        return [dc.no_update, dc.no_update, dc.no_update, dc.no_update];
      }
      figures = made;
      drawn = true;
    }
    if (triggered.some(function (id) { return id !== "compare-incoming.data"; })) {
      const result = lib.paint.restyle(color, showValues, scale, figures, search, defaultColor);
      figures = result[0].map(function (fig, k) {
        return fig === dc.no_update ? figures[k] : fig;
      });
      query = result[1];
      drawn = true;
    }
    if (!drawn) {
      return [dc.no_update, dc.no_update, dc.no_update, dc.no_update];
    }
    return figures.concat([query]);
  }

  lib.compare = {assemble: assemble};

  const clientside = window.dash_clientside = window.dash_clientside || {};
  clientside.evalmaps = Object.assign(clientside.evalmaps || {}, {compareMaps: compareMaps});
})();
