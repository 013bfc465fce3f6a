/* Numbers and texts as the maps write them: numbers as evalmaps.core.text writes them on the
 * server, hover templates filled for one cell, Plotly's pseudo-HTML as plain text.
 *
 * Internal: window.evalmapsLib.format. Clientside callbacks: none. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};

  /* Numbers as evalmaps.core.text writes them: `decimals` places, trailing zeros trimmed down to
   * `least` when given; -0.0 is 0.0. */
  function number(value, decimals, least) {
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
  }

  /* A hovertemplate filled for one cell ({x, y, z, customdata}): %{x}, %{y}, %{z:spec},
   * %{customdata[k]:spec}; a number with a spec through `format` (a d3 formatter: spec =>
   * value => text); a field the cell lacks stays as written. */
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

  let decoder = null;  // a textarea: its content is never parsed as markup

  /* Plotly's pseudo-HTML as plain text: <extra> dropped, <br> a line break, tags stripped,
   * entities decoded. */
  function plain(html) {
    const text = String(html);
    if (text.indexOf("<") < 0 && text.indexOf("&") < 0) {
      return text;  // no markup, no entity: as it is (most labels; a map has thousands)
    }
    decoder = decoder || document.createElement("textarea");
    decoder.innerHTML = text.replace(/<extra>[\s\S]*?<\/extra>/gi, "")
      .replace(/<br\s*\/?>/gi, "\n").replace(/<[^>]*>/g, "");
    return decoder.value;
  }

  lib.format = {number: number, fill: fill, plain: plain};
})();
