/* assets/evalmaps-typed.js: typed-array specs (evalmaps/figures/theme.py, typed) decoded and encoded.
 * The specs are written here with Buffer, from typed arrays of known values. */
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const {load, here, spec} = require("./sandbox");

const typed = load().evalmapsLib.typed;

test("decode: an f4 matrix, rows of its shape, values as float32 holds them", function () {
  const values = new Float32Array([0.5, -1.25, 3, NaN, 1e-3, 7]);
  const got = here(typed.decode(spec("f4", values, "2, 3")));
  assert.deepEqual(got, [[0.5, -1.25, 3], [NaN, Math.fround(1e-3), 7]]);
});

test("decode: an f8 vector keeps float64's values", function () {
  const values = new Float64Array([0.1, 56.3, -0, Infinity]);
  assert.deepEqual(here(typed.decode(spec("f8", values))), [0.1, 56.3, -0, Infinity]);
});

test("decode: the integer dtypes", function () {
  const cases = [
    ["i1", new Int8Array([-128, -1, 0, 127]), [-128, -1, 0, 127]],
    ["u1", new Uint8Array([0, 1, 200, 255]), [0, 1, 200, 255]],
    ["i2", new Int16Array([-32768, -2, 3, 32767]), [-32768, -2, 3, 32767]],
    ["u2", new Uint16Array([0, 65535, 7, 256]), [0, 65535, 7, 256]],
    ["i4", new Int32Array([-2147483648, -5, 6, 2147483647]), [-2147483648, -5, 6, 2147483647]],
    ["u4", new Uint32Array([0, 4294967295, 9, 65536]), [0, 4294967295, 9, 65536]]
  ];
  cases.forEach(function (c) {
    assert.deepEqual(here(typed.decode(spec(c[0], c[1]))), c[2], c[0]);
    assert.deepEqual(here(typed.decode(spec(c[0], c[1], "2, 2"))), [c[2].slice(0, 2), c[2].slice(2)],
                     c[0] + " as 2 by 2");
  });
});

test("decode: a 3-d shape (a map's customdata: rows, columns, fields)", function () {
  const flat = new Float32Array(Array.from({length: 12}, function (_, k) { return k; }));
  assert.deepEqual(here(typed.decode(spec("f4", flat, "2, 3, 2"))), [
    [[0, 1], [2, 3], [4, 5]],
    [[6, 7], [8, 9], [10, 11]]
  ]);
});

test("decode: no dtype is read as f4, as before", function () {
  const bdata = spec("f4", new Float32Array([2.5, -4])).bdata;
  assert.deepEqual(here(typed.decode({bdata: bdata})), [2.5, -4]);
});

test("decode: plain arrays, typed arrays and nothing come back as they are", function () {
  const list = [[1, 2], [3, null]];
  const view = new Float64Array([1, 2]);
  assert.equal(typed.decode(list), list);
  assert.equal(typed.decode(view), view);
  assert.equal(typed.decode(null), null);
  assert.equal(typed.decode(undefined), undefined);
});

test("valuesOf: a fresh flat copy each time", function () {
  const s = spec("f8", new Float64Array([1, 2, 3, 4]), "2, 2");
  const first = typed.valuesOf(s), second = typed.valuesOf(s);
  assert.equal(first.constructor.name, "Float64Array");
  assert.deepEqual(Array.from(first), [1, 2, 3, 4]);
  first[0] = 99;
  assert.deepEqual(Array.from(second), [1, 2, 3, 4]);
  assert.notEqual(first.buffer, second.buffer);
});

test("base64: Buffer's text for any bytes, past the slice size too", function () {
  const sizes = [0, 1, 2, 3, 0x8000 - 1, 0x8000, 0x8000 * 2 + 5];
  sizes.forEach(function (n) {
    const bytes = new Uint8Array(n);
    for (let k = 0; k < n; k++) {
      bytes[k] = (k * 131 + 7) % 256;
    }
    assert.equal(typed.base64(bytes), Buffer.from(bytes).toString("base64"), "size " + n);
  });
});
