/* Open pages follow a watched data folder (evalmaps.service.live): every POLL_MS, while the tab
 * is visible, the page asks for the figures it drew (/api/figures/<id> of each figure its
 * hidden .evalmaps-live-drawn names) with If-None-Match, so that while nothing changed the
 * answer is a 304 with no body. A hidden tab does not ask; it asks at once when shown.
 * A figure with a new version: a polite note says once what changed ("12 new cells:
 * pythia-1.4b, step 33000"), to screen readers too, and while the page's drawn version (its
 * hidden .evalmaps-live-drawn, layouts/_shared.py) differs, the store "live-version" is set: the
 * pages' sync callbacks draw the URL's view again in place (slice, colour range, keyboard focus
 * and open table stay as they are; the menus list new labels; a figure whose shape changed gets
 * its page built again, layouts/_shared.py reshape). No request for a figure that did
 * not change; short polls, not a connection held open (gunicorn's threads stay free).
 *
 * Internal: window.evalmapsLib.live. Clientside callbacks: none. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};
  const POLL_MS = 3000;  // 20 open tabs: about 7 checks a second, each a 304
  const NOTE_ID = "evalmaps-live-note";
  const MAX_NAMED = 4;
  const REGRESS_MS = 10000;  // an older version again within this: a worker behind
  const MAX_ASKS = 5;
  const NOTE_MS = 12000;  // the note shows this long  // redraws asked for one version at most

  /* The API paths to ask for the figures a page drew (``drawn``: its .evalmaps-live-drawn,
   * layouts/_shared.py live_drawn): none before the page is drawn, and never a figure the URL
   * names that the page could not show (a 404, which the browser logs as an error). */
  function paths(drawn) {
    if (!drawn || !drawn.versions) {
      return [];
    }
    return Object.keys(drawn.versions).map(function (id) {
      return "/api/figures/" + encodeURIComponent(id);
    });
  }

  function summaries(body) {
    if (!body) {
      return [];
    }
    return body.figures ? body.figures : [body];
  }

  /* What changed between two answers, as one sentence (null: nothing to say): the cells
   * gained or lost and the labels that are new. */
  function describe(before, after) {
    const old = {};
    summaries(before).forEach(function (f) { old[f.id] = f; });
    const parts = [];
    summaries(after).forEach(function (f) {
      const was = old[f.id];
      if (!was || was.version === f.version) {
        return;
      }
      const gained = (f.n_cells || 0) - (was.n_cells || 0);
      const known = {};
      (was.dims || []).forEach(function (d) {
        (d.labels || []).forEach(function (l) { known[d.name + "\u0000" + l] = true; });
      });
      const fresh = [];
      (was.dims ? f.dims || [] : []).forEach(function (d) {  // labels: only against known ones
        (d.labels || []).forEach(function (l) {
          if (!known[d.name + "\u0000" + l]) {
            fresh.push(d.name === "step" || /^\d+$/.test(l) ? d.name + " " + l : String(l));
          }
        });
      });
      const named = fresh.slice(0, MAX_NAMED).join(", ") + (fresh.length > MAX_NAMED ? ", …" : "");
      let text;
      if (gained > 0) {
        text = gained + " new cell" + (gained === 1 ? "" : "s");
      } else if (gained < 0) {
        text = -gained + " cell" + (gained === -1 ? "" : "s") + " removed";
      } else {
        text = "cells changed";
      }
      parts.push(text + (named ? ": " + named : "") + (summaries(after).length > 1 ? " (" + f.id + ")" : ""));
    });
    return parts.length ? parts.join("; ") + "." : null;
  }

  /* The note, fixed at the foot of the window (evalmaps.css), said once per change. */
  function note(doc, text) {
    let el = doc.getElementById(NOTE_ID);
    if (!el) {
      el = doc.createElement("div");
      el.id = NOTE_ID;
      el.setAttribute("role", "status");
      el.setAttribute("aria-live", "polite");
      el.className = "evalmaps-live-note";
      doc.body.appendChild(el);
    }
    el.textContent = text;  // text, never markup
    el.className = "evalmaps-live-note";
    if (el._evalmapsFade) {
      clearTimeout(el._evalmapsFade);
    }
    if (typeof setTimeout === "function") {  // faded from sight later; still read as it is
      el._evalmapsFade = setTimeout(function () { el.className = "evalmaps-live-note is-old"; },
                                    NOTE_MS);
    }
  }

  /* What the page drew (layouts/_shared.py live_drawn): {versions: {id: version}, shape}. */
  function drawnIn(doc) {
    const el = doc.querySelector && doc.querySelector(".evalmaps-live-drawn");
    try {
      return el ? JSON.parse(el.textContent) : null;
    } catch {
      return null;
    }
  }

  /* One poller per page load: ``fetchFn``, ``redraw(request)`` (sets the store "live-version")
   * given, ``drawn()`` (what the page drew; default: read from
   * ``doc``); tests pass fakes.
   * Two workers (or hosts) may disagree for a moment: an answer with a version this page saw
   * replaced less than REGRESS_MS ago is a worker behind, not a change (no note, no redraw).
   * Each new version is told once. While what the page drew differs from the newest version,
   * a redraw is asked for once a check, at most MAX_ASKS times for one version (a redraw served
   * by a worker behind draws the old version: asked again). */
  function poller(doc, fetchFn, redraw, drawn) {
    const known = {};  // path -> etag
    const gone = {};  // path -> true: answered 404 (its files removed): asked no more, so the
    //                   browser logs its 404 once, not at every check; the page says why
    const latest = {};  // figure id -> its newest summary
    const replaced = {};  // figure id + version -> when a newer one came
    const asks = {};  // figure id + version -> redraws asked for it
    let busy = false;
    let count = 0;
    const drawnNow = drawn || function () { return drawnIn(doc); };

    function take(body, now) {  // the figures of an answer: the sentence of what changed
      const parts = [];
      const shown = drawnNow() || {};
      summaries(body).forEach(function (f) {
        let was = latest[f.id];
        const drew = (shown.versions || {})[f.id];
        const drewCells = (shown.cells || {})[f.id];
        if (!was && drew !== undefined && drew !== f.version && typeof drewCells === "number") {
          // changed since the page was drawn: told against what it drew
          was = {id: f.id, version: drew, n_cells: drewCells};
        }
        if (was && was.version === f.version) {
          return;
        }
        if (was && now - (replaced[f.id + "\u0000" + f.version] || -Infinity) < REGRESS_MS) {
          return;  // a worker behind
        }
        latest[f.id] = f;
        if (was) {
          replaced[f.id + "\u0000" + was.version] = now;
          const text = describe(was, f);
          if (text) {
            parts.push(summaries(body).length > 1 ? text.replace(/\.$/, " (" + f.id + ").") : text);
          }
        }
      });
      return parts;
    }

    function askRedraw() {  // the figures drawn at another version than the newest
      const shown = drawnNow();
      const versions = shown && shown.versions ? shown.versions : {};
      const want = {};
      let stale = false;
      Object.keys(versions).forEach(function (id) {
        const now = latest[id];
        if (!now) {
          return;
        }
        want[id] = now.version;
        const key = id + "\u0000" + now.version;
        if (now.version !== versions[id] && (asks[key] || 0) < MAX_ASKS) {
          asks[key] = (asks[key] || 0) + 1;
          stale = true;
        }
      });
      if (stale) {
        count += 1;
        redraw({versions: want, n: count});
      }
      return stale;
    }

    function check() {
      if (busy || doc.visibilityState === "hidden") {
        return Promise.resolve(false);
      }
      busy = true;
      const todo = paths(drawnNow()).filter(function (path) { return !gone[path]; });
      return Promise.all(todo.map(function (path) {
        const headers = known[path] ? {"If-None-Match": known[path]} : {};
        return fetchFn(path, {headers: headers, cache: "no-store", credentials: "same-origin"})
          .then(function (response) {
            if (response.status === 404) {
              gone[path] = true;  // not (or no longer) there
            }
            if (response.status !== 200) {
              return null;  // 304: unchanged
            }
            return response.json().then(function (body) {
              known[path] = response.headers.get("ETag");
              return body;
            });
          }).catch(function () { return null; });
      })).then(function (bodies) {
        busy = false;
        const now = Date.now();
        let parts = [];
        bodies.filter(Boolean).forEach(function (body) { parts = parts.concat(take(body, now)); });
        const asked = askRedraw();
        if (parts.length) {
          const text = parts.join(" ");
          note(doc, text.charAt(0).toUpperCase() + text.slice(1));
        }
        return asked;
      });
    }
    return check;
  }

  function start() {
    const check = poller(document, window.fetch.bind(window), function (request) {
      const clientside = window.dash_clientside;
      if (clientside && clientside.set_props) {
        clientside.set_props("live-version", {data: request});
      }
    });
    // the baseline, once the page is drawn: at its first idle moment, so that its request and
    // answer wait for the maps plotly.js is still drawing (the page's first paint)
    const idle = window.requestIdleCallback ?
      function (f) { window.requestIdleCallback(f, {timeout: 2000}); } :
      function (f) { window.setTimeout(f, 0); };
    const first = window.setInterval(function () {
      if (drawnIn(document)) {
        window.clearInterval(first);
        idle(check);
      }
    }, 200);
    window.setInterval(check, POLL_MS);  // another view's figures: asked for afresh (paths)
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") {
        check();
      }
    });
  }

  lib.live = {paths: paths, describe: describe, poller: poller, POLL_MS: POLL_MS};
  if (typeof document !== "undefined" && document.addEventListener) {
    document.addEventListener("DOMContentLoaded", start);
  }
})();
