/* assets/nav.js: the nav links' hrefs by the rules the nav element carries (the rules below are
 * evalmaps/views/state.py's NAV_RULES), the active link, and what runs before Dash starts: the
 * uploads cookie and the early requests for the layout and the callbacks. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, element, fakeDocument, here} = require("./sandbox");

const RULES = {
  own: {"/": ["color", "labels"], "/trends": ["transpose", "overlay", "threshold", "logx"],
        "/compare": ["a", "b", "color", "labels"], "/data": []},
  sliced: ["/", "/trends", "/data"],
  named: ["color", "labels", "transpose", "overlay", "threshold", "logx", "a", "b", "format"]
};
const PATHS = ["/", "/trends", "/compare", "/data"];

function navPage(rules) {
  const links = PATHS.map(function (path) {
    return element({pathname: path, href: path + "?figure=old"});
  });
  const found = {"a.evalmaps-nav": links};
  if (rules) {
    found["nav[data-nav]"] = element({attrs: {"data-nav": JSON.stringify(rules)}});
  }
  return fakeDocument({found: found});
}

test("navLinks: each page gets the shared slice and its own keys", function () {
  const nav = load({document: navPage(RULES)}).dash_clientside.evalmaps_nav;
  const search = "?figure=x&color=fixed&overlay=1&a=p:q&labels=off&k=v w&format=csv";
  assert.deepEqual(here(nav.navLinks(search)), [
    "/?figure=x&color=fixed&labels=off&k=v+w",
    "/trends?figure=x&overlay=1&k=v+w",
    "/compare?color=fixed&a=p%3Aq&labels=off",
    "/data?figure=x&k=v+w"
  ]);
  assert.deepEqual(here(nav.navLinks("")), PATHS);
  assert.deepEqual(here(nav.navLinks(null)), PATHS);
  assert.deepEqual(here(nav.navLinks("?a=1&a=2&d=3")), ["/?d=3", "/trends?d=3", "/compare?a=1&a=2",
                                                        "/data?d=3"]);  // repeated keys kept
});

test("navLinks: Rank's link carries the page's first figure when Rank can rank it", function () {
  const paths = ["/", "/rank"];
  const links = paths.map(function (path) { return element({pathname: path, href: path}); });
  const rules = Object.assign({}, RULES, {own: Object.assign({}, RULES.own, {"/rank": ["by"]}),
                                          named: RULES.named.concat(["by"]), rank: "/rank"});
  const page = function (rankable) {
    const attrs = {"data-nav": JSON.stringify(rules)};
    if (rankable) {
      attrs["data-rankable"] = JSON.stringify(rankable);
    }
    return fakeDocument({found: {"a.evalmaps-nav": links, "nav[data-nav]": element({attrs: attrs})}});
  };
  const nav = load({document: page(["toy", "a b"])}).dash_clientside.evalmaps_nav;
  assert.deepEqual(here(nav.navLinks("?by=m&figure=toy&m=1")), ["/?figure=toy&m=1", "/rank?figure=toy&by=m"]);
  assert.deepEqual(here(nav.navLinks("?figure=a+b&figure=toy")), ["/?figure=a+b&figure=toy", "/rank?figure=a+b"]);
  assert.deepEqual(here(nav.navLinks("?figure=other&by=m")), ["/?figure=other", "/rank?by=m"]);
  const none = load({document: page(null)}).dash_clientside.evalmaps_nav;  // no list: Rank's default
  assert.deepEqual(here(none.navLinks("?figure=toy")), ["/?figure=toy", "/rank"]);
});

test("navLinks: without rules on the page, bare links", function () {
  const nav = load({document: navPage(null)}).dash_clientside.evalmaps_nav;
  assert.deepEqual(here(nav.navLinks("?figure=x&color=fixed")), PATHS);
});

test("active: the link of the page shown", function () {
  const nav = load({document: navPage(RULES)}).dash_clientside.evalmaps_nav;
  assert.deepEqual(here(nav.active("/trends")), ["evalmaps-nav", "evalmaps-nav active",
                                                 "evalmaps-nav", "evalmaps-nav"]);
  assert.deepEqual(here(nav.active("/nowhere")), ["evalmaps-nav", "evalmaps-nav", "evalmaps-nav",
                                                  "evalmaps-nav"]);
});

/* nav.js run on a page with `stored` as the "uploads" local storage and `config` as Dash's
 * config: the cookie it sets, and the hrefs of the preloads it adds. */
function startup(stored, config) {
  const document = fakeDocument(config ? {byId: {"_dash-config": {textContent: config}}} : {});
  const added = [];
  document.head = {appendChild: function (link) { added.push(link); }};
  load({document: document, names: ["nav.js"],
        window: {localStorage: {getItem: function () { return stored; }}}});
  return {cookie: document.cookie, preloads: added.map(function (link) {
    return [link.rel, link.as, link.crossOrigin, link.href];
  })};
}

test("startup: a cookie when this browser keeps uploads, cleared otherwise", function () {
  assert.equal(startup('["u1"]').cookie, "evalmaps-uploads=1; path=/; SameSite=Strict");
  const cleared = "evalmaps-uploads=; path=/; SameSite=Strict; max-age=0";
  assert.equal(startup("[]").cookie, cleared);
  assert.equal(startup(null).cookie, cleared);
  assert.equal(startup("not json").cookie, cleared);
  assert.equal(startup('{"u1": 1}').cookie, cleared);
});

test("startup: the layout and callbacks preloaded under Dash's path prefix", function () {
  assert.deepEqual(startup(null, '{"requests_pathname_prefix": "/app/"}').preloads, [
    ["preload", "fetch", "anonymous", "/app/_dash-layout"],
    ["preload", "fetch", "anonymous", "/app/_dash-dependencies"]
  ]);
  assert.deepEqual(startup(null).preloads.map(function (p) { return p[3]; }),
                   ["/_dash-layout", "/_dash-dependencies"]);  // no config: the root
  assert.deepEqual(startup(null, "{}").preloads.map(function (p) { return p[3]; }),
                   ["/_dash-layout", "/_dash-dependencies"]);
});
