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

/* A server whose figure is gone, then back: its answers by path (304 to an ETag that still
 * holds, as the real one); the list of figures holds the figure only while ``state.there``. */
function goneServer(state) {
  const asked = [];
  function fetchFn(path, options) {
    asked.push({path: path, etag: options.headers["If-None-Match"] || null, at: state.now});
    if (path === "/api/figures") {
      const etag = state.there ? '"with"' : '"without"';
      if (options.headers["If-None-Match"] === etag) {
        return Promise.resolve({status: 304, headers: {get: function () { return etag; }}});
      }
      const body = {figures: [{id: "other", version: "1"}].concat(state.there ? [state.figure] : [])};
      return Promise.resolve({status: 200, headers: {get: function () { return etag; }},
                              json: function () { return Promise.resolve(body); }});
    }
    if (!state.there) {
      return Promise.resolve({status: 404, headers: {get: function () { return null; }}});
    }
    const version = '"' + state.figure.version + '"';
    if (options.headers["If-None-Match"] === version) {  // as the server answers (layouts/_routes.py)
      return Promise.resolve({status: 304, headers: {get: function () { return version; }}});
    }
    return Promise.resolve({status: 200, headers: {get: function () { return version; }},
                            json: function () { return Promise.resolve(state.figure); }});
  }
  return {fetchFn: fetchFn, asked: asked};
}

test("poller: a figure gone is looked for in the list, slower and slower; back: told and redrawn", async function () {
  const doc = fakeDoc();
  const state = {now: 0, there: true, figure: BEFORE};
  const srv = goneServer(state);
  const asked = [];
  const drawn = page({"import-sweep": "a"});
  const check = live.poller(doc, srv.fetchFn, function (v) { asked.push(plain(v.versions)); },
                            drawn.drawn, function () { return state.now; });
  await check();  // the baseline
  state.there = false;  // its files removed
  const at = [];
  for (state.now = 3000; state.now <= 60000; state.now += live.POLL_MS) {
    await check();
  }
  const figureAsks = srv.asked.filter(function (a) { return a.path === "/api/figures/import-sweep"; });
  assert.equal(figureAsks.length, 2);  // the baseline and the one 404: never again while gone
  const lists = srv.asked.filter(function (a) { return a.path === "/api/figures"; });
  lists.forEach(function (a) { at.push(a.at); });
  // first after GONE_MS, then further apart, never more than GONE_MAX_MS
  assert.equal(at[0], 3000 + 6000);
  const gaps = at.slice(1).map(function (t, k) { return t - at[k]; });
  assert.ok(gaps.every(function (g) { return g <= live.GONE_MAX_MS; }), String(gaps));
  assert.ok(gaps[0] >= live.GONE_MS && gaps[gaps.length - 1] === live.GONE_MAX_MS, String(gaps));
  assert.deepEqual(lists.slice(1).map(function (a) { return a.etag; }),
                   lists.slice(1).map(function () { return '"without"'; }));  // 304s
  assert.equal(doc.getElementById("evalmaps-live-note").textContent,
               "The figure's files are gone: the page shows what it drew, and follows them if they come back.");
  assert.deepEqual(asked, []);  // nothing to redraw while gone
  // back, with a new version: seen within GONE_MAX_MS + POLL_MS, told and redrawn
  state.there = true;
  state.figure = AFTER;
  const since = state.now;
  while (!asked.length) {
    state.now += live.POLL_MS;
    await check();
    assert.ok(state.now - since <= live.GONE_MAX_MS + live.POLL_MS, "back within 12 s");
  }
  assert.deepEqual(asked, [{"import-sweep": "b"}]);
  assert.equal(doc.getElementById("evalmaps-live-note").textContent,
               "The figure is back: 12 new cells: pythia-1.4b, step 33000.");
  drawn.shown.versions["import-sweep"] = "b";
  const before = srv.asked.length;
  state.now += live.POLL_MS;
  await check();  // followed as before: the figure asked for with its ETag, no list
  assert.deepEqual(srv.asked.slice(before).map(function (a) { return [a.path, a.etag]; }),
                   [["/api/figures/import-sweep", '"b"']]);
});

test("poller: a figure back as it was: said so, nothing redrawn", async function () {
  const doc = fakeDoc();
  const state = {now: 0, there: true, figure: BEFORE};
  const srv = goneServer(state);
  const check = live.poller(doc, srv.fetchFn, function () { throw new Error("no redraw"); },
                            page({"import-sweep": "a"}).drawn, function () { return state.now; });
  await check();
  state.there = false;
  state.now = 3000;
  await check();
  state.there = true;
  for (state.now = 6000; state.now <= 12000; state.now += 3000) {
    await check();
  }
  assert.equal(doc.getElementById("evalmaps-live-note").textContent,
               "The figure's files are back, as they were.");
});

test("keeper: the user's place taken before a redraw, given back once the page is drawn", function () {
  const body = {};
  const doc = {body: body, activeElement: {id: "x"}};
  const placed = [];
  const keys = {where: function () { return {cell: {model: "70m", step: "0"}, map: true}; },
                goTo: function (d, place) { placed.push(place); return true; }};
  let now = 0;
  const drawn = page({"import-sweep": "a"});
  const keep = live.keeper(doc, keys, drawn.drawn, function () { return now; });
  assert.equal(keep.before({versions: {"import-sweep": "b"}, n: 1}), true);
  doc.activeElement = body;  // the page built again: focus on nothing
  assert.equal(keep.after(), false);  // not drawn at "b" yet
  drawn.shown.versions["import-sweep"] = "b";
  assert.equal(keep.after(), true);
  assert.deepEqual(plain(placed), [{cell: {model: "70m", step: "0"}, map: true}]);
  // a redraw in place: focus stays where it was, nothing moved (watched a while: a chart's
  // modebar drawn anew a moment later loses it, and gets it back)
  doc.activeElement = {id: "y"};
  keep.before({versions: {"import-sweep": "c"}, n: 2});
  drawn.shown.versions["import-sweep"] = "c";
  assert.equal(keep.after(), false);
  now += 500;
  doc.activeElement = body;
  assert.equal(keep.after(), true);
  assert.equal(placed.length, 2);
  doc.activeElement = {id: "y"};
  keep.before({versions: {"import-sweep": "c2"}, n: 3});
  drawn.shown.versions["import-sweep"] = "c2";
  assert.equal(keep.after(), false);
  now += 1500;
  assert.equal(keep.after(), true);
  assert.equal(placed.length, 2);
  // focus on nothing before: nothing to keep; too late: given up
  doc.activeElement = body;
  const none = live.keeper(doc, {where: function () { return null; }}, drawn.drawn);
  assert.equal(none.before({versions: {"import-sweep": "d"}}), false);
  const late = live.keeper(doc, keys, drawn.drawn, function () { return now; });
  late.before({versions: {"import-sweep": "e"}});
  now += 16000;
  assert.equal(late.after(), true);
  assert.equal(placed.length, 2);
});
