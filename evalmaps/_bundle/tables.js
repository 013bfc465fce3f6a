/* The panel shown as a table for a paper (LaTeX or Markdown) and the figure's tidy CSV, written
 * in the browser exactly as evalmaps.analysis.export and evalmaps.views.payloads.cells_csv
 * write them on the server (tests/unit/test_bundle.py compares both, character for
 * character). Numbers are written as Python writes them: fixed decimals rounded half to even on
 * an exact tie (pyFixed), shortest round-trip digits for a float (pyRepr).
 *
 * Global: window.evalmapsBundle.tables. */
(function () {
  "use strict";
  const B = window.evalmapsBundle = window.evalmapsBundle || {pending: {}, add: function (k, v) {
    this.pending[k] = v;
  }};
  const MAX_DECIMALS = 4, MAX_CELLS = 20000;
  const PORTRAIT_CHARS = 85, LANDSCAPE_CHARS = 120, COLUMN_GAP_CHARS = 2;

  function places(d) {
    return Math.max(0, Math.min(Math.floor(d), MAX_DECIMALS));
  }

  /* Python's f"{v:.{d}f}": the exact binary value rounded, half to even on an exact tie. */
  function pyFixed(v, d) {
    const exact = Math.abs(v).toFixed(Math.min(d + 60, 100));
    const dot = exact.indexOf(".");
    const rest = exact.slice(dot + 1 + d);
    let text = v.toFixed(d);
    if (/^50*$/.test(rest)) {  // an exact tie: JavaScript rounds up, Python to even
      const down = exact.slice(0, dot + 1 + d).replace(/\.$/, "");
      const last = Number(down.charAt(down.length - 1));
      if (last % 2 === 0) {
        text = (v < 0 ? "-" : "") + down;
      }
    }
    return text;
  }

  /* evalmaps.core.text.number */
  function number(v, decimals, least) {
    const d = places(decimals);
    let text = pyFixed(v, d);
    if (least !== null && least !== undefined && least < d && text.indexOf(".") >= 0) {
      const parts = text.split(".");
      let frac = parts[1].replace(/0+$/, "");
      while (frac.length < places(least)) {
        frac += "0";
      }
      text = frac ? parts[0] + "." + frac : parts[0];
    }
    return text.charAt(0) === "-" && Number(text) === 0 ? text.slice(1) : text;
  }

  function seDecimals(d) {
    return Math.min(Math.max(places(d), 1) + 1, MAX_DECIMALS);
  }

  /* Python's repr of a float (str(float)): shortest round-trip digits, exponent below 1e-4 or
   * from 1e16, '.0' on a whole number. */
  function pyRepr(v) {
    if (!isFinite(v)) {
      return v > 0 ? "inf" : v < 0 ? "-inf" : "nan";
    }
    if (v === 0) {
      return Object.is(v, -0) ? "-0.0" : "0.0";
    }
    const e = v.toExponential();  // shortest digits: d.ddde+x
    const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e);
    const sign = m[1], digits = m[2] + (m[3] || ""), exp = Number(m[4]);
    if (exp < -4 || exp >= 16) {
      const mant = digits.length > 1 ? digits.charAt(0) + "." + digits.slice(1) : digits;
      return sign + mant + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
    }
    if (exp < 0) {
      return sign + "0." + "0".repeat(-exp - 1) + digits;
    }
    const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, "0");
    const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : "0";
    return sign + whole + "." + frac;
  }

  /* ------------------------------------------------------------------ CSV */

  const FORMULA = ["=", "+", "-", "@", "\t", "\r"];

  /* evalmaps.core.text.neutralise: a text that already starts with quotes before a formula
   * gets one more, so that no two texts are written alike. */
  function neutralise(text) {
    const bare = text.replace(/^'+/, "");
    if (bare.length > 1 && FORMULA.indexOf(bare.charAt(0)) >= 0) {
      const asNumber = /^\s*[+-]?(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?|inf(inity)?|nan)\s*$/i;
      return asNumber.test(bare) ? text : "'" + text;
    }
    return text;
  }

  function csvField(text) {
    return /[",\n\r]/.test(text) ? "\"" + text.replace(/"/g, "\"\"") + "\"" : text;
  }

  /* evalmaps.views.payloads.cells_csv of every cell of every panel's grid (grid_cells). */
  function figureCsv(fig) {
    const names = fig.facets.concat([fig.y, fig.x]);
    const extras = ["sd", "n", "se"].filter(function (c) {
      return fig.panels.some(function (p) { return p.has.indexOf(c) >= 0; });
    });
    const columns = names.concat(["value"], extras);
    const lines = [columns.concat(["provenance"]).map(function (c) {
      return csvField(neutralise(c));  // a header cell is a cell: neutralised as the values are
    }).join(",")];
    const ys = fig.dims[fig.y].labels, xs = fig.dims[fig.x].labels, nx = xs.length;
    const text = function (v) {
      return v === null || v === undefined ? "" : neutralise(pyRepr(v));
    };
    fig.panels.forEach(function (p) {
      const facets = fig.facets.map(function (f) { return neutralise(String(p.facets[f])); });
      for (let i = 0; i < ys.length; i++) {
        for (let j = 0; j < nx; j++) {
          const k = i * nx + j;
          const row = facets.concat([neutralise(ys[i]), neutralise(xs[j]), text(p.z[k])]);
          extras.forEach(function (c) {
            row.push(text(p.extra[c] ? p.extra[c][k] : null));
          });
          row.push(fig.provenance);
          lines.push(row.map(csvField).join(","));
        }
      }
    });
    return lines.join("\n") + "\n";
  }

  /* ------------------------------------------------------------------ tables */

  /* evalmaps.analysis.export.table_of_view of a view (bundle.js's views()). */
  function tableOf(fig, view) {
    const p = view.panel, n = view.z.length;
    const se = new Float64Array(n).fill(NaN);
    const sd = view.extra.sd, cnt = view.extra.n, given = view.extra.se;
    for (let k = 0; k < n; k++) {
      if (sd && cnt && isFinite(sd[k]) && cnt[k] > 0) {
        se[k] = sd[k] / Math.sqrt(cnt[k]);
      }
      if (given && isFinite(given[k])) {
        se[k] = given[k];
      }
    }
    let anySe = false;
    for (let k = 0; k < n; k++) {
      anySe = anySe || isFinite(se[k]);
    }
    return {title: fig.title, panel: p.title, rowTitle: fig.dims[fig.y].title,
            colTitle: fig.dims[fig.x].title, rows: view.y, cols: view.x, values: view.z,
            se: anySe ? se : null, suspect: view.suspect, decimals: p.decimals,
            higher: p.metric.higher, provenance: fig.provenance, name: fig.id + "__" + p.slug,
            caption: p.caption, suspectNote: p.suspectNote};
  }

  function best(t) {
    const nx = t.cols.length, ny = t.rows.length;
    const out = new Uint8Array(nx * ny);
    for (let j = 0; j < nx; j++) {
      let b = null;
      for (let i = 0; i < ny; i++) {
        const v = t.values[i * nx + j];
        if (isFinite(v) && (b === null || (t.higher ? v > b : v < b))) {
          b = v;
        }
      }
      for (let i = 0; i < ny; i++) {
        out[i * nx + j] = b !== null && t.values[i * nx + j] === b ? 1 : 0;
      }
    }
    return out;
  }

  function check(t) {
    const n = t.rows.length * t.cols.length;
    if (n > MAX_CELLS) {
      throw new Error("The panel shows " + n + " cells, over the " + MAX_CELLS + " a table may " +
                      "hold. Narrow the rows or the x range first.");
    }
  }

  function notes(t, missing) {
    const out = ["Bold: the best value of each column (" + (t.higher ? "highest" : "lowest") + ")."];
    if (t.se) {
      out.push("± one standard error (as the source gives it, else sd/√n).");
    }
    let suspect = 0, gaps = false;
    for (let k = 0; k < t.values.length; k++) {
      suspect += t.suspect[k] ? 1 : 0;
      gaps = gaps || !isFinite(t.values[k]);
    }
    if (suspect) {
      out.push("†: " + t.suspectNote[suspect === 1 ? 0 : 1].replace("999999", String(suspect)));
    }
    if (gaps) {
      out.push(missing + ": not reported by the source.");
    }
    out.push("Provenance: " + t.provenance + ".");
    return out;
  }

  function cells(t, fmt) {
    const b = best(t), nx = t.cols.length, sp = seDecimals(t.decimals);
    return t.rows.map(function (_, i) {
      return t.cols.map(function (__, j) {
        const k = i * nx + j, v = t.values[k];
        if (!isFinite(v)) {
          return fmt.missing;
        }
        let text = number(v, t.decimals, null);
        if (b[k]) {
          text = fmt.bold(text);
        }
        if (t.se && isFinite(t.se[k])) {
          text += fmt.pm(number(t.se[k], sp, null));
          if (t.suspect[k]) {
            text += fmt.dagger;
          }
        }
        return text;
      });
    });
  }

  const LATEX = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#",
                 "_": "\\_", "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}",
                 "^": "\\textasciicircum{}", "<": "\\textless{}", ">": "\\textgreater{}",
                 "|": "\\textbar{}"};

  function latexEscape(text) {
    return Array.from(String(text).replace(/\n/g, " ")).map(function (c) {
      return LATEX[c] || c;
    }).join("");
  }

  function lineChars(t) {
    const c = cells(t, {bold: function (x) { return x; }, pm: function (x) { return " ± " + x; },
                        dagger: "†", missing: "--"});
    const widths = [Math.max.apply(null, [Array.from(String(t.rowTitle)).length].concat(t.rows.map(function (r) {
      return Array.from(String(r)).length;
    })))];
    t.cols.forEach(function (col, j) {
      widths.push(Math.max.apply(null, [Array.from(String(col)).length].concat(c.map(function (row) {
        return Array.from(row[j]).length;
      }))));
    });
    return widths.reduce(function (s, w) { return s + w + COLUMN_GAP_CHARS; }, 0);
  }

  function pageFit(t) {
    const chars = lineChars(t);
    return chars <= PORTRAIT_CHARS ? "portrait" : chars <= LANDSCAPE_CHARS ? "landscape" : "scaled";
  }

  function packages(fit, n) {
    if (fit === "portrait") {
      return ["% Made with evalmaps; needs \\usepackage{booktabs}."];
    }
    const needs = fit === "scaled" ?
      "\\usepackage{booktabs}, \\usepackage{rotating} and \\usepackage{graphicx}" :
      "\\usepackage{booktabs} and \\usepackage{rotating}";
    const lines = ["% Made with evalmaps; needs " + needs + ".",
                   "% Too wide for a portrait page: set landscape (rotating's sidewaystable, a page of " +
                   "its own)" + (fit === "scaled" ?
                     ", and scaled to the page's width (graphicx's resizebox)" : "") + "."];
    if (fit === "scaled") {
      lines.push("% " + n + " columns: fewer give larger type (the page's x range; " +
                 "?<dimension>=<label> filters in the API).");
    }
    return lines;
  }

  function toLatex(t) {
    check(t);
    const n = t.cols.length, fit = pageFit(t);
    const env = fit === "portrait" ? "table" : "sidewaystable";
    const c = cells(t, {bold: function (x) { return "\\textbf{" + x + "}"; },
                        pm: function (x) { return " $\\pm$ " + x; }, dagger: "$^\\dagger$",
                        missing: "--"});
    let lines = ["% " + latexEscape(t.caption)].concat(packages(fit, n), [
      "\\begin{" + env + "}" + (env === "table" ? "[t]" : ""),
      "\\centering",
      "\\caption{" + latexEscape(t.caption) + "}"
    ], fit === "scaled" ? ["\\resizebox{\\linewidth}{!}{%"] : [], [
      "\\begin{tabular}{l" + "r".repeat(n) + "}",
      "\\toprule",
      " & \\multicolumn{" + n + "}{c}{" + latexEscape(t.colTitle) + "} \\\\",
      "\\cmidrule(lr){2-" + (n + 1) + "}",
      [latexEscape(t.rowTitle)].concat(t.cols.map(latexEscape)).join(" & ") + " \\\\",
      "\\midrule"
    ]);
    t.rows.forEach(function (label, i) {
      lines.push([latexEscape(label)].concat(c[i]).join(" & ") + " \\\\");
    });
    lines = lines.concat(["\\bottomrule", "\\end{tabular}" + (fit === "scaled" ? "}" : "")]);
    const ns = notes(t, "--").map(function (note) {
      return latexEscape(note).replace(/±/g, "$\\pm$").replace(/†/g, "$^\\dagger$")
        .replace(/√/g, "$\\surd$");
    }).join(" ");
    lines.push("\\par\\smallskip{\\footnotesize " + ns + "}", "\\end{" + env + "}");
    return lines.join("\n") + "\n";
  }

  const MD = "\\`*_[]<>|~#";

  function markdownEscape(text) {
    return Array.from(String(text)).map(function (c) {
      return MD.indexOf(c) >= 0 ? "\\" + c : c;
    }).join("").replace(/\n/g, " ");
  }

  function toMarkdown(t) {
    check(t);
    const c = cells(t, {bold: function (x) { return "**" + x + "**"; },
                        pm: function (x) { return " ± " + x; }, dagger: "†", missing: ""});
    const corner = markdownEscape(t.rowTitle) + " \\\\ " + markdownEscape(t.colTitle);
    const lines = ["**" + markdownEscape(t.caption) + "**", "",
                   "| " + [corner].concat(t.cols.map(markdownEscape)).join(" | ") + " |",
                   "| " + [":--"].concat(t.cols.map(function () { return "--:"; })).join(" | ") + " |"];
    t.rows.forEach(function (label, i) {
      lines.push("| " + [markdownEscape(label)].concat(c[i]).join(" | ") + " |");
    });
    lines.push("", markdownEscape(notes(t, "Empty").join(" ")));
    return lines.join("\n") + "\n";
  }

  B.tables = {pyFixed: pyFixed, pyRepr: pyRepr, number: number, figureCsv: figureCsv,
              tableOf: tableOf, toLatex: toLatex, toMarkdown: toMarkdown, neutralise: neutralise};
})();
