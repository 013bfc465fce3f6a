/* The asset scripts as modules: one definition style, no order between them at definition
 * time, callbacks apart from helpers (each dash_clientside namespace holds exactly the
 * functions the Python callbacks name), and plotly.js's private names read in one file. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const {ROOT, load, assetNames, assetSource} = require("./sandbox");

const INTERNALS = "evalmaps-plotly-internals.js";
const SKIP = new Set(["tests", "node_modules", "build", "dist", "docs", "benchmarks"]);

/* The Python files of the app (not its tests), for the callbacks they name. */
function pythonFiles(dir) {
  return fs.readdirSync(dir, {withFileTypes: true}).flatMap(function (entry) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return entry.name.startsWith(".") || entry.name.startsWith("_") || SKIP.has(entry.name)
        ? [] : pythonFiles(full);
    }
    return entry.name.endsWith(".py") ? [full] : [];
  });
}

/* "namespace.function" for each ClientsideFunction(namespace=..., function_name=...). */
function pythonCallbacks() {
  const out = new Set();
  pythonFiles(ROOT).forEach(function (file) {
    const text = fs.readFileSync(file, "utf8");
    const calls = text.match(/ClientsideFunction\([^)]*\)/g) || [];
    calls.forEach(function (call) {
      const ns = /namespace\s*=\s*["']([^"']+)["']/.exec(call);
      const fn = /function_name\s*=\s*["']([^"']+)["']/.exec(call);
      assert.ok(ns && fn, file + ": " + call);
      out.add(ns[1] + "." + fn[1]);
    });
  });
  return out;
}

/* "namespace.function" for each function on window.dash_clientside after loading `names`. */
function clientsideFunctions(win) {
  const out = new Set();
  Object.keys(win.dash_clientside || {}).forEach(function (ns) {
    Object.keys(win.dash_clientside[ns]).forEach(function (fn) {
      assert.equal(typeof win.dash_clientside[ns][fn], "function", ns + "." + fn);
      out.add(ns + "." + fn);
    });
  });
  return out;
}

test("the clientside namespaces hold exactly the callbacks the Python code names", function () {
  const python = pythonCallbacks();
  assert.ok(python.size >= 8, Array.from(python).join(", "));  // found at all
  assert.deepEqual(Array.from(clientsideFunctions(load())).sort(), Array.from(python).sort());
});

test("no script needs another loaded before it: any order defines the same", function () {
  const names = assetNames();
  const shape = function (win) {
    return {
      lib: Object.keys(win.evalmapsLib).sort().map(function (m) {
        return m + ": " + Object.keys(win.evalmapsLib[m]).sort().join(" ");
      }),
      clientside: Array.from(clientsideFunctions(win)).sort()
    };
  };
  const want = shape(load());
  assert.ok(want.lib.length >= 9, want.lib.join("; "));
  const orders = [names.slice().reverse(), names.slice(3).concat(names.slice(0, 3)),
                  names.slice().sort(function (a, b) { return a.length - b.length; })];
  orders.forEach(function (order) {
    const win = load({names: order});
    assert.deepEqual(shape(win), want, order.join(", "));
    // and they work together, whatever the order: restyle paints through evalmapsLib.typed
    assert.equal(win.evalmapsLib.format.number(-0.04, 1, 0), "0");
  });
});

/* A script's code without its comments (none of the scripts has a comment marker in a string
 * but "//" in no URL: checked by the style test). */
function code(source) {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
}

test("plotly.js's private names are read in the internals module only", function () {
  const PRIVATE = /\._(?!evalmaps)[A-Za-z]\w*|\.l2p\b|\bFx\b/g;
  const seen = {};
  assetNames().forEach(function (name) {
    seen[name] = code(assetSource(name)).match(PRIVATE) || [];
  });
  const outside = Object.keys(seen).filter(function (name) {
    return name !== INTERNALS && seen[name].length;
  });
  assert.deepEqual(outside.map(function (name) { return name + ": " + seen[name].join(" "); }), []);
  assert.deepEqual(Array.from(new Set(seen[INTERNALS])).sort(), [
    "._categories", "._d3locale", "._fullData", "._fullLayout", "._length", "._offset", "._size",
    ".l2p", "Fx"
  ]);
});

test("every script: a comment saying what it holds, then one strict-mode IIFE", function () {
  assetNames().forEach(function (name) {
    const source = assetSource(name);
    const head = new RegExp("^/\\* [\\s\\S]*?\n \\*\n \\* Internal: [^\n]*\\. Clientside callbacks: " +
                            "[^\n]*\\*/\n\\(function \\(\\) \\{\n {2}\"use strict\";\n");
    assert.match(source, head, name);
    assert.ok(source.endsWith("\n})();\n"), name);
    assert.equal((source.match(/^\(function \(\) \{$/gm) || []).length, 1, name);
    const outside = source.split("\n").filter(function (line) {
      return line && !line.startsWith("  ") && !/^(\/\*| \*|\(function \(\) \{$|\}\)\(\);$)/.test(line);
    });
    assert.deepEqual(outside, [], name + ": code outside the IIFE");
  });
});

test("the callbacks' namespaces are named in each script's header", function () {
  const win = load();
  assetNames().forEach(function (name) {
    const header = /Clientside callbacks: ([^\n]*)\*\//.exec(assetSource(name))[1];
    const own = load({names: [name]});
    const defined = Array.from(clientsideFunctions(own)).sort();
    const named = header.startsWith("none") ? [] : header.replace(/\.\s*$/, "").split(/,\s*/)
      .map(function (s) { return s.trim(); }).sort();
    assert.deepEqual(defined, named, name);
    defined.forEach(function (fn) {
      assert.ok(clientsideFunctions(win).has(fn));
    });
  });
});
