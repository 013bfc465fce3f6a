/* assets/evalmaps-live.js: which figures a page asks for, the note of what changed, and the
 * poller: If-None-Match sent back, a 304 redraws nothing, a new version redraws once and says
 * so, a hidden tab asks for nothing. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load} = require("./sandbox");

const live = load().evalmapsLib.live;

const BEFORE = {id: "import-sweep", version: "a", n_cells: 10,
  dims: [{name: "model", labels: ["pythia-70m"]}, {name: "step", labels: ["1000", "2000"]}]};
const AFTER = {id: "import-sweep", version: "b", n_cells: 22,
  dims: [{name: "model", labels: ["pythia-70m", "pythia-1.4b"]},
         {name: "step", labels: ["1000", "2000", "33000"]}]};

test("paths: the figures the page drew, each once; none before it is drawn", function () {
  assert.deepEqual([...live.paths({versions: {"import-sweep": "a"}})], ["/api/figures/import-sweep"]);
  assert.deepEqual([...live.paths({versions: {f1: "1", f2: "1"}})], ["/api/figures/f1", "/api/figures/f2"]);
  assert.deepEqual([...live.paths({versions: {"a b": "1"}})], ["/api/figures/a%20b"]);
  assert.deepEqual([...live.paths({versions: {}})], []);  // Compare of two means: nothing to ask
  assert.deepEqual([...live.paths(null)], []);  // not drawn yet
});

test("describe: the cells gained and the new labels, in one sentence", function () {
  assert.equal(live.describe(BEFORE, AFTER), "12 new cells: pythia-1.4b, step 33000.");
  assert.equal(live.describe(AFTER, BEFORE), "12 cells removed.");
  assert.equal(live.describe(BEFORE, BEFORE), null);
  assert.equal(live.describe({figures: [BEFORE]}, {figures: [AFTER, {id: "x", version: "1"}]}),
               "12 new cells: pythia-1.4b, step 33000 (import-sweep).");
  const one = Object.assign({}, BEFORE, {version: "c", n_cells: 11});
  assert.equal(live.describe(BEFORE, one), "1 new cell.");
});

function fakeDoc() {
  const made = [];
  return {
    visibilityState: "visible",
    made: made,
    body: {appendChild: function (el) { made.push(el); }},
    getElementById: function (id) { return made.find(function (el) { return el.id === id; }) || null; },
    createElement: function () {
      const attrs = {};
      return {setAttribute: function (k, v) { attrs[k] = v; }, attrs: attrs};
    }
  };
}

function server(answers) {
  const asked = [];
  function fetchFn(path, options) {
    asked.push({path: path, etag: options.headers["If-None-Match"] || null});
    const body = answers.shift();
    return Promise.resolve(body === null
      ? {status: 304, headers: {get: function () { return null; }}}
      : {status: 200, headers: {get: function () { return '"' + body.version + '"'; }},
         json: function () { return Promise.resolve(body); }});
  }
  return {fetchFn: fetchFn, asked: asked};
}

function plain(x) {  // an object from the sandbox's realm, comparable here
  return JSON.parse(JSON.stringify(x));
}

function page(versions) {  // what the page drew, as its hidden .evalmaps-live-drawn says
  const shown = {versions: versions};
  return {shown: shown, drawn: function () { return shown; }};
}

test("poller: a baseline, a 304 that redraws nothing, a new version redrawn and told once", async function () {
  const doc = fakeDoc();
  const srv = server([BEFORE, null, AFTER, null, null]);
  const asked = [];
  const drawn = page({"import-sweep": "a"});
  const check = live.poller(doc, srv.fetchFn, function (v) { asked.push(plain(v)); }, drawn.drawn);
  assert.equal(await check(), false);  // the baseline: what the page drew
  assert.equal(await check(), false);  // 304
  assert.equal(await check(), true);   // a new version: a redraw asked for
  drawn.shown.versions["import-sweep"] = "b";  // the page drew it
  assert.equal(await check(), false);
  assert.equal(await check(), false);
  assert.deepEqual(asked, [{versions: {"import-sweep": "b"}, n: 1}]);
  assert.deepEqual(srv.asked.map(function (a) { return a.etag; }),
                   [null, '"a"', '"a"', '"b"', '"b"']);
  const el = doc.getElementById("evalmaps-live-note");
  assert.equal(el.textContent, "12 new cells: pythia-1.4b, step 33000.");
  assert.equal(el.attrs["aria-live"], "polite");
  assert.equal(el.attrs.role, "status");
});

test("poller: a redraw served by a worker behind is asked again, a few times at most", async function () {
  const doc = fakeDoc();
  const srv = server([BEFORE, AFTER, null, null, null, null, null, null, null]);
  const asked = [];
  const drawn = page({"import-sweep": "a"});  // never drawn at "b": every redraw hit a worker behind
  const check = live.poller(doc, srv.fetchFn, function (v) { asked.push(v.n); }, drawn.drawn);
  for (let i = 0; i < 9; i++) {
    await check();
  }
  assert.deepEqual(asked, [1, 2, 3, 4, 5]);
});

test("poller: two workers that disagree for a moment: one note, no redraw back", async function () {
  const doc = fakeDoc();
  const notes = [];
  const el0 = {setAttribute: function () {}};
  Object.defineProperty(el0, "textContent", {set: function (t) { notes.push(t); }, get: function () { return notes[notes.length - 1]; }});
  doc.getElementById = function () { return el0; };
  // a worker ahead, one behind, the one ahead again, then the one behind catches up (304s)
  const srv = server([BEFORE, AFTER, BEFORE, AFTER, null, null]);
  const asked = [];
  const drawn = page({"import-sweep": "a"});
  const check = live.poller(doc, srv.fetchFn, function (v) {
    asked.push(v.versions["import-sweep"]);
    drawn.shown.versions["import-sweep"] = v.versions["import-sweep"];  // drawn as asked
  }, drawn.drawn);
  for (let i = 0; i < 6; i++) {
    await check();
  }
  assert.deepEqual(notes, ["12 new cells: pythia-1.4b, step 33000."]);
  assert.deepEqual(asked, ["b"]);
});

test("poller: the page drawn at a version the poller never saw is drawn again at the newest", async function () {
  const doc = fakeDoc();
  const srv = server([AFTER, null]);
  const asked = [];
  const check = live.poller(doc, srv.fetchFn, function (v) { asked.push(plain(v.versions)); },
                            page({"import-sweep": "old"}).drawn);
  assert.equal(await check(), true);
  assert.deepEqual(asked, [{"import-sweep": "b"}]);
});

test("poller: a version newer than the page drew, at the first check: redrawn and told", async function () {
  const doc = fakeDoc();
  const srv = server([AFTER]);
  const asked = [];
  const drawn = {versions: {"import-sweep": "a"}, cells: {"import-sweep": 10}};
  const check = live.poller(doc, srv.fetchFn, function (v) { asked.push(plain(v.versions)); },
                            function () { return drawn; });
  assert.equal(await check(), true);
  assert.deepEqual(asked, [{"import-sweep": "b"}]);
  assert.equal(doc.getElementById("evalmaps-live-note").textContent, "12 new cells.");
});

test("poller: a hidden tab asks for nothing", async function () {
  const doc = fakeDoc();
  doc.visibilityState = "hidden";
  const srv = server([BEFORE]);
  const check = live.poller(doc, srv.fetchFn, function () {}, page({"import-sweep": "a"}).drawn);
  assert.equal(await check(), false);
  assert.deepEqual(srv.asked, []);
});

test("poller: a figure answered 404 (its files removed) is asked for no more", async function () {
  const doc = fakeDoc();
  const asked = [];
  function fetchFn(path) {
    asked.push(path);
    return Promise.resolve({status: 404, headers: {get: function () { return null; }}});
  }
  const drawn = page({"import-sweep": "a"});
  const check = live.poller(doc, fetchFn, function () { throw new Error("no redraw"); }, drawn.drawn);
  assert.equal(await check(), false);
  assert.equal(await check(), false);
  assert.equal(await check(), false);
  assert.deepEqual(asked, ["/api/figures/import-sweep"]);  // one 404 in the console, not three
});
