/* assets/evalmaps-menus.js: a character typed on an open menu's option goes to the menu's
 * search box (Dash focuses the selected option of a one-value menu, such as the Figure menu). */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, element} = require("./sandbox");

/* An open menu: its search box and one option (the focused one), and what happened to them. */
function openMenu(value) {
  const log = [];
  const search = element({value: value || "", disabled: false,
                          focus: function () { log.push("focus"); },
                          dispatchEvent: function (e) { log.push(e.type + ":" + search.value); }});
  const menu = element({found: {"input.dash-dropdown-search": search}});
  const option = element({closest: function (s) {
    return s === ".dash-dropdown-content" ? menu : null;
  }});
  search.closest = option.closest;
  return {search: search, option: option, log: log};
}

function keydown(target, key, extra) {
  const e = Object.assign({key: key, target: target, defaultPrevented: false,
                           preventDefault: function () { e.defaultPrevented = true; }}, extra);
  return e;
}

function menus() {
  class FakeEvent { constructor(type) { this.type = type; } }
  return load({names: ["evalmaps-menus.js"], window: {Event: FakeEvent}}).evalmapsLib.menus;
}

test("a character typed on an option goes to the search box", function () {
  const lib = menus();
  const m = openMenu("py");
  const e = keydown(m.option, "t");
  assert.equal(lib.typeToSearch(e), true);
  assert.equal(e.defaultPrevented, true);
  assert.equal(m.search.value, "pyt");
  assert.deepEqual(m.log, ["focus", "input:pyt"]);
});

test("keys the menu keeps: space, arrows, Enter, shortcuts, and typing in the box", function () {
  const lib = menus();
  const m = openMenu("");
  [keydown(m.option, " "), keydown(m.option, "ArrowDown"), keydown(m.option, "Enter"),
   keydown(m.option, "c", {ctrlKey: true}), keydown(m.option, "v", {metaKey: true}),
   keydown(m.search, "p"), keydown(m.option, "p", {defaultPrevented: true})]
    .forEach(function (e) {
      assert.equal(lib.typeToSearch(e), false, e.key);
    });
  assert.equal(m.search.value, "");
  assert.deepEqual(m.log, []);
});

test("outside a menu, or a menu without a search box: nothing", function () {
  const lib = menus();
  const outside = element({closest: function () { return null; }});
  assert.equal(lib.typeToSearch(keydown(outside, "a")), false);
  const bare = element({closest: function () { return element(); }});
  assert.equal(lib.typeToSearch(keydown(bare, "a")), false);
  assert.equal(lib.typeToSearch(keydown(null, "a")), false);
});
