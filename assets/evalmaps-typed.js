/* Typed arrays as the server sends them (evalmaps/figures/theme.py, typed): {dtype, bdata: base64 of
 * the little-endian values, shape: "rows, columns[, ...]" when more than one dimension}, the
 * spec plotly.js decodes itself. Read here where the browser works on the values before drawing
 * (cell text, Compare's assembled maps).
 *
 * Internal: window.evalmapsLib.typed. Clientside callbacks: none. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};

  /* plotly.js's dtypes; the server writes f4 and f8. Any other: read as f4. */
  const TYPES = {
    f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array,
    u2: Uint16Array, i1: Int8Array, u1: Uint8Array, u1c: Uint8ClampedArray
  };

  /* The values of a typed-array spec, flat (a fresh copy: its own buffer). */
  function valuesOf(spec) {
    const bin = atob(spec.bdata);
    const bytes = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) {
      bytes[k] = bin.charCodeAt(k);
    }
    const Type = Object.prototype.hasOwnProperty.call(TYPES, spec.dtype) ? TYPES[spec.dtype]
      : Float32Array;
    return new Type(bytes.buffer);
  }

  /* The shape's first dimension as arrays of the rest: rows of columns (of cells' columns). */
  function nest(flat, shape, at) {
    if (shape.length === 1) {
      return Array.from(flat.subarray(at, at + shape[0]));
    }
    const step = shape.slice(1).reduce(function (a, b) { return a * b; }, 1);
    const out = [];
    for (let i = 0; i < shape[0]; i++) {
      out.push(nest(flat, shape.slice(1), at + i * step));
    }
    return out;
  }

  /* A spec as plain (nested) arrays of its shape; plain arrays and typed arrays as they are. */
  function decode(spec) {
    if (!spec || Array.isArray(spec)) {
      return spec;
    }
    if (ArrayBuffer.isView(spec)) {
      return spec;
    }
    const flat = valuesOf(spec);
    const shape = String(spec.shape || flat.length).split(",").map(Number);
    if (shape.length < 2) {
      return Array.from(flat);
    }
    return nest(flat, shape, 0);
  }

  /* Bytes as base64 (in slices: String.fromCharCode takes so many arguments at most). */
  function base64(bytes) {
    let text = "";
    for (let k = 0; k < bytes.length; k += 0x8000) {
      text += String.fromCharCode.apply(null, bytes.subarray(k, k + 0x8000));
    }
    return btoa(text);
  }

  lib.typed = {valuesOf: valuesOf, decode: decode, base64: base64};
})();
