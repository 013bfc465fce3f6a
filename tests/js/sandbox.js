/* The app's browser scripts (assets/*.js) loaded into a sandbox for the unit tests: a node:vm
 * context whose global object is `window`, with a fake `document` (nothing in it unless a test
 * puts it there) and only the web APIs the scripts use. Not a test file itself (node --test
 * runs *.test.js). */
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const ROOT = path.join(__dirname, "..", "..");
const ASSETS = path.join(ROOT, "assets");

/* The asset scripts' names in the order Dash serves them (its own: sorted names). */
function assetNames() {
  return fs.readdirSync(ASSETS).filter(function (name) { return name.endsWith(".js"); }).sort();
}

function assetSource(name) {
  return fs.readFileSync(path.join(ASSETS, name), "utf8");
}

/* A fake element: attributes, a class list, children found by a selector map. */
function element(props) {
  const attrs = Object.assign({}, (props && props.attrs) || {});
  const found = (props && props.found) || {};
  const el = Object.assign({
    style: {},
    hidden: false,
    getAttribute: function (name) { return name in attrs ? attrs[name] : null; },
    setAttribute: function (name, value) { attrs[name] = String(value); },
    hasAttribute: function (name) { return name in attrs; },
    removeAttribute: function (name) { delete attrs[name]; },
    querySelector: function (selector) { return found[selector] || null; },
    querySelectorAll: function (selector) { return found[selector] || []; },
    getBoundingClientRect: function () {
      return Object.assign({left: 0, top: 0, width: 0, height: 0}, (props && props.rect) || {});
    }
  }, props || {});
  delete el.attrs;
  delete el.found;
  delete el.rect;
  return el;
}

/* A fake document: `byId` (id: element) and `found` (selector: element, or a list for
 * querySelectorAll); the scripts' startup work waits for a DOMContentLoaded that never comes. */
function fakeDocument(options) {
  const byId = (options && options.byId) || {};
  const found = (options && options.found) || {};
  const listeners = [];
  return {
    readyState: "loading",
    body: null,
    cookie: "",
    head: {appendChild: function () {}},
    listeners: listeners,
    addEventListener: function (type, fn) { listeners.push([type, fn]); },
    getElementById: function (id) { return byId[id] || null; },
    querySelector: function (selector) {
      const hit = found[selector];
      return (Array.isArray(hit) ? hit[0] : hit) || null;
    },
    querySelectorAll: function (selector) {
      const hit = found[selector];
      return Array.isArray(hit) ? hit : hit ? [hit] : [];
    },
    createElement: function (tag) {
      const el = element({tagName: String(tag).toUpperCase(), innerHTML: ""});
      Object.defineProperty(el, "value", {get: function () { return el.innerHTML; }});
      return el;  // a textarea's value: its content as text (no entity decoded here)
    }
  };
}

/* The sandbox's `window` after running the asset scripts `names` (default: all, in Dash's
 * order) in it. `options.document`: the fake document; `options.window`: more globals. */
function load(options) {
  const opts = options || {};
  const timers = [];
  const sandbox = Object.assign({
    console: console,
    URL: URL,
    URLSearchParams: URLSearchParams,
    atob: atob,
    btoa: btoa,
    setTimeout: function (fn, ms) { timers.push([fn, ms]); return timers.length; },
    localStorage: {getItem: function () { return null; }},
    location: {origin: "http://127.0.0.1:8050"},
    timers: timers
  }, opts.window || {});
  sandbox.document = opts.document || fakeDocument();
  sandbox.window = sandbox;
  vm.createContext(sandbox);
  (opts.names || assetNames()).forEach(function (name) {
    vm.runInContext(assetSource(name), sandbox, {filename: path.join(ASSETS, name)});
  });
  return sandbox;
}

/* The sandbox's no_update (the renderer defines it; a marker here). */
const NO_UPDATE = {noUpdate: true};

/* A sandbox whose dash_clientside has what Dash's renderer adds: no_update, a callback context
 * of `triggered` prop ids ([{prop_id, value}]) and set_props (recorded in `props`). */
function withDash(win, triggered) {
  const dc = win.dash_clientside;
  dc.no_update = NO_UPDATE;
  dc.callback_context = {triggered: triggered || []};
  dc.props = [];
  dc.set_props = function (id, props) { dc.props.push([id, props]); };
  return dc;
}

/* A value made in the sandbox, as one made here (vm contexts have their own Array, Object...:
 * assert.deepStrictEqual would tell them apart). */
function here(value) {
  return structuredClone(value);
}

/* A typed-array spec as the server writes it (evalmaps/figures/theme.py, typed), from values as a
 * typed array of this realm: the bytes through Buffer, independently of the scripts' own
 * encoder. */
function spec(dtype, values, shape) {
  const bytes = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  const out = {dtype: dtype, bdata: bytes.toString("base64")};
  if (shape) {
    out.shape = shape;
  }
  return out;
}

module.exports = {
  ROOT: ROOT, ASSETS: ASSETS, assetNames: assetNames, assetSource: assetSource, element: element,
  fakeDocument: fakeDocument, load: load, withDash: withDash, here: here, spec: spec,
  NO_UPDATE: NO_UPDATE
};
