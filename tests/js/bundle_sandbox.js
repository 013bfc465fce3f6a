/* The bundle's page scripts (evalmaps/_bundle/*.js) in a node:vm context, with the data scripts
 * a site holds: for tests/js/bundle.test.js and tests/unit/test_bundle.py (which runs
 * `node tests/js/bundle_sandbox.js SITE REQUEST.json` and reads the answer's JSON). Not a test
 * file itself. */
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const OWN = path.join(__dirname, "..", "..", "evalmaps", "_bundle");
const ASSETS = path.join(__dirname, "..", "..", "assets");

function load(dataFiles) {
  const window = {URLSearchParams: URLSearchParams, console: console};
  window.window = window;
  const context = vm.createContext(window);
  // the live app's scripts the pages load first (evalmaps.service.bundle.SHARED_SCRIPTS)
  for (const name of ["evalmaps-slice.js"]) {
    vm.runInContext(fs.readFileSync(path.join(ASSETS, name), "utf8"), context, {filename: name});
  }
  for (const name of ["tables.js", "bundle.js"]) {
    vm.runInContext(fs.readFileSync(path.join(OWN, name), "utf8"), context, {filename: name});
  }
  for (const file of dataFiles || []) {
    vm.runInContext(fs.readFileSync(file, "utf8"), context, {filename: file});
  }
  return window;
}

/* A request: {"figure": id, "file": data script, "views": [fragment, ...]} -> {"csv": text,
 * "views": [{"panels": [{"slug", "latex", "markdown", "hover": [...]}]}]}. */
function answer(request) {
  const w = load([request.file]);
  const B = w.evalmapsBundle, T = B.tables, fig = B.pending[request.figure];
  const out = {csv: request.csv ? T.figureCsv(fig) : null, views: []};
  for (const hash of request.views) {
    const st = B.lib.parseState(hash, fig);
    const got = B.lib.views(fig, st);
    if (got.empty) {
      out.views.push({empty: got.empty});
      continue;
    }
    out.views.push({hash: B.lib.stateHash(st, fig), panels: got.views.map(function (v) {
      const t = T.tableOf(fig, v);
      const f = B.lib.panelFigure(fig, v, B.lib.colorRange(fig, got.views, v, st.color), st);
      return {slug: v.panel.slug, y: v.y, x: v.x, latex: T.toLatex(t), markdown: T.toMarkdown(t),
              templates: f.data.map(function (tr) { return tr.hovertemplate; }),
              zmin: f.data[0].zmin, zmax: f.data[0].zmax};
    })});
  }
  return out;
}

module.exports = {load: load, answer: answer};

if (require.main === module) {
  const request = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  process.stdout.write(JSON.stringify(answer(request)));
}
