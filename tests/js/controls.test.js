/* The small callbacks: the upload's size check (evalmaps-upload.js), the Filters toggle
 * (evalmaps-filters.js) and /data's filtered count (a11y.js). */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, here, withDash, NO_UPDATE} = require("./sandbox");

test("checkUpload: sent under the limit, refused over it with a message", function () {
  const win = load();
  withDash(win);
  const check = win.dash_clientside.evalmaps.checkUpload;
  const small = "data:text/csv;base64," + Buffer.from("a,b\n1,22\n").toString("base64");  // 9 bytes
  assert.deepEqual(here(check(small, "f.csv", 9)), [{name: "f.csv", contents: small}, ""]);
  assert.deepEqual(here(check(small, "f.csv", 8)),
                   [null, "f.csv: the file is 0.0 MB, over the 0.0 MB limit. Split it, or " +
                    "serve the folder with evalmaps serve --data."]);
  const big = "data:text/csv;base64," + "A".repeat(2796204);  // 2,097,153 bytes
  assert.deepEqual(here(check(big, "big.csv", 1048576)),
                   [null, "big.csv: the file is 2.0 MB, over the 1.0 MB limit. Split it, or " +
                    "serve the folder with evalmaps serve --data."]);
  const none = check(null, "f.csv", 8);
  assert.equal(none[0], NO_UPDATE);
  assert.equal(none[1], "");
});

test("toggleFilters: open and closed, with aria-expanded", function () {
  const toggle = load().dash_clientside.evalmaps.toggleFilters;
  assert.deepEqual(here(toggle(1, false)), [true, "true"]);
  assert.deepEqual(here(toggle(2, true)), [false, "false"]);
  assert.deepEqual(here(toggle(null, undefined)), [true, "true"]);
});

test("filteredCount: said only while the grid's filters hide cells", function () {
  const count = load().dash_clientside.evalmaps_a11y.filteredCount;
  assert.equal(count([1, 2], [1, 2, 3]), "2 of 3 cells shown: the table is filtered.");
  assert.equal(count([], [1]), "0 of 1 cells shown: the table is filtered.");
  assert.equal(count([1, 2], [1, 2]), "");
  assert.equal(count(null, null), "");
});
