/* Open pages follow a watched data folder (evalmaps.service.live): every POLL_MS, while the tab
 * is visible, the page asks for the figures it drew (/api/figures/<id> of each figure its
 * hidden .evalmaps-live-drawn names) with If-None-Match, so that while nothing changed the
 * answer is a 304 with no body. A hidden tab does not ask; it asks at once when shown.
 * A figure with a new version: a polite note says once what changed ("12 new cells:
 * pythia-1.4b, step 33000"), to screen readers too, and while the page's drawn version (its
 * hidden .evalmaps-live-drawn, layouts/_shared.py) differs, the store "live-version" is set: the
 * pages' sync callbacks draw the URL's view again in place (slice, colour range, keyboard focus
 * and open table stay as they are; the menus list new labels; a figure whose shape changed gets
 * its page built again, layouts/_shared.py reshape: the user's place is kept, see keep). No
 * request for a figure that did not change; short polls, not a connection held open
 * (gunicorn's threads stay free).
 * A figure that answers 404 (its files removed) is not asked for again (each 404 is a console
 * error): the page says so once, then checks the list of figures (/api/figures, an ETag and a
 * 304 while nothing changed) every GONE_MS, then GONE_MAX_MS, and when the figure is listed
 * again asks for it, says it is back and redraws.
 *
 * Internal: window.evalmapsLib.live. Clientside callbacks: none. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};
  const POLL_MS = 3000;  // 20 open tabs: about 7 checks a second, each a 304
  const NOTE_ID = "evalmaps-live-note";
  const MAX_NAMED = 4;
  const REGRESS_MS = 10000;  // an older version again within this: a worker behind
  const MAX_ASKS = 5;  // redraws asked for one version at most
  const NOTE_MS = 12000;  // the note shows this long
  const GONE_MS = 6000;  // a figure gone: the list of figures checked after this, then
  const GONE_MAX_MS = 9000;  // at most this apart (back within this + POLL_MS, < 15 s)
  const LIST = "/api/figures";
  const KEEP_MS = 15000;  // a rebuilt page: its user's place kept if it is drawn within this
  const SETTLE_MS = 1500;  // and watched this long after (a chart's modebar drawn anew)
  const WAITING = "waiting";  // drawn by a page waiting for a watched figure's first file
  //                             (layouts/_shared.py waiting_page): followed as a figure gone;
  //                             when it comes, the page is loaded again for its URL

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
    if (el._evalmapsFade && typeof clearTimeout === "function") {
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
  function poller(doc, fetchFn, redraw, drawn, clock) {
    const known = {};  // path -> etag
    const gone = {};  // path -> {id, wait, next}: answered 404 (its files removed): not asked
    //                   for again (the browser logs its 404 once); the list of figures is
    //                   checked for it at ``next``, ``wait`` apart (GONE_MS .. GONE_MAX_MS)
    const back = {};  // figure id -> true: listed again after it was gone: its note says so
    const latest = {};  // figure id -> its newest summary
    const replaced = {};  // figure id + version -> when a newer one came
    const asks = {};  // figure id + version -> redraws asked for it
    let busy = false;
    let count = 0;
    const drawnNow = drawn || function () { return drawnIn(doc); };
    const timeNow = clock || Date.now;

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
        const returned = back[f.id];
        const arrived = drew === WAITING;  // its first file: not "back"
        delete back[f.id];
        if (was && was.version === f.version) {
          if (returned) {
            parts.push("the figure's files are back, as they were.");
          }
          return;
        }
        if (was && now - (replaced[f.id + "\u0000" + f.version] || -Infinity) < REGRESS_MS) {
          return;  // a worker behind
        }
        latest[f.id] = f;
        if (was) {
          replaced[f.id + "\u0000" + was.version] = now;
          const text = describe(was, f) || "its cells changed.";
          parts.push((arrived ? "the figure " + f.id + " has arrived: " : returned ? "the figure is back: " : "") +
                     (summaries(body).length > 1 ? text.replace(/\.$/, " (" + f.id + ").") : text));
        } else if (returned) {
          parts.push("the figure is back.");
        }
      });
      return parts;
    }

    function askRedraw() {  // the figures drawn at another version than the newest
      const shown = drawnNow();
      const versions = shown && shown.versions ? shown.versions : {};
      const want = {};
      let stale = false;
      let waited = false;  // a figure the page waited for has come: the page is loaded again
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
          waited = waited || versions[id] === WAITING;
        }
      });
      if (stale) {
        count += 1;
        redraw(waited ? {versions: want, n: count, reload: true} : {versions: want, n: count});
      }
      return stale;
    }

    function check() {
      if (busy || doc.visibilityState === "hidden") {
        return Promise.resolve(false);
      }
      busy = true;
      const said = [];  // figures gone in this check: said once
      const began = timeNow();
      return listed(began).then(function () {
        const todo = paths(drawnNow()).filter(function (path) { return !gone[path]; });
        return Promise.all(todo.map(function (path) {
          return ask(path, began, said);
        }));
      }).then(function (bodies) {
        busy = false;
        const now = timeNow();
        const one = Object.keys((drawnNow() || {}).versions || {}).length === 1;
        let parts = said.length ? [(one ? "the figure's files are gone" : "the files of " +
                                    said.join(", ") + " are gone") + ": the page shows what " +
                                   "it drew, and follows them if they come back."] : [];
        bodies.filter(Boolean).forEach(function (body) { parts = parts.concat(take(body, now)); });
        const asked = askRedraw();
        if (parts.length) {
          const text = parts.join(" ");
          note(doc, text.charAt(0).toUpperCase() + text.slice(1));
        }
        return asked;
      });
    }
    /* ``path`` asked with the ETag last seen there: {status, body}, the body (and the new
     * ETag, kept) only with a 200; a 304 says it is unchanged. */
    function conditional(path) {
      const headers = known[path] ? {"If-None-Match": known[path]} : {};
      return fetchFn(path, {headers: headers, cache: "no-store", credentials: "same-origin"})
        .then(function (response) {
          if (response.status !== 200) {
            return {status: response.status, body: null};
          }
          return response.json().then(function (body) {
            known[path] = response.headers.get("ETag");
            return {status: 200, body: body};
          });
        });
    }
    function ask(path, now, said) {  // a figure's summary if it changed, else null
      return conditional(path).then(function (got) {
        if (got.status === 404) {  // not (or no longer) there
          const id = decodeURIComponent(path.slice(LIST.length + 1));
          gone[path] = {id: id, wait: GONE_MS, next: now + GONE_MS};
          if (latest[id]) {
            said.push(id);
          }
        }
        return got.body;
      }).catch(function () { return null; });
    }

    /* The figures gone whose turn it is: listed again (asked for in this check) or not yet
     * (checked again later, up to GONE_MAX_MS apart). */
    function listed(now) {
      const due = Object.keys(gone).filter(function (path) { return gone[path].next <= now; });
      if (!due.length) {
        return Promise.resolve();
      }
      return conditional(LIST).then(function (got) { return got.body; })
        .catch(function () { return null; }).then(function (body) {
          const ids = {};
          summaries(body).forEach(function (f) { ids[f.id] = true; });
          due.forEach(function (path) {
            const was = gone[path];
            if (ids[was.id]) {
              delete gone[path];
              delete known[path];  // asked afresh: a figure back as it was answers 200, not 304
              back[was.id] = true;
            } else {
              was.wait = Math.min(GONE_MAX_MS, was.wait + POLL_MS);
              was.next = now + was.wait;
            }
          });
        });
    }
    return check;
  }

  /* The user's place across a redraw (``keys``: evalmapsLib.keys, where and goTo): taken as a
   * redraw is asked for (``before(request)``), and, once the page says it drew the versions
   * asked for, given back (``after()``, called until it answers true) if focus was lost: a
   * page built again for a figure's new shape (layouts/_shared.py reshape) has new elements.
   * A redraw in place keeps focus itself: nothing to do, once it stayed SETTLE_MS (a chart's
   * modebar may be drawn anew a moment later: its button focused again). Given up after
   * KEEP_MS. */
  function keeper(doc, keys, drawn, clock) {
    let kept = null;  // {place, versions, until, drawn: when the page drew them}
    const timeNow = clock || Date.now;
    const drawnNow = drawn || function () { return drawnIn(doc); };
    function before(request) {
      const place = keys && keys.where(doc);
      if (!kept && place) {
        kept = {place: place, versions: request.versions, until: timeNow() + KEEP_MS};
      } else if (kept) {
        kept.versions = request.versions;
      }
      return !!kept;
    }
    function after() {
      if (!kept) {
        return true;
      }
      const shown = (drawnNow() || {}).versions || {};
      const done = Object.keys(kept.versions).every(function (id) {
        return shown[id] === kept.versions[id];
      });
      const active = doc.activeElement;
      const now = timeNow();
      if (done && kept.drawn === undefined) {
        kept.drawn = now;
      }
      if (now > kept.until || (done && active && active !== doc.body &&
                               now - kept.drawn >= SETTLE_MS)) {
        kept = null;  // focus stayed (or too late to move it)
      } else if (done && (!active || active === doc.body) && keys.goTo(doc, kept.place)) {
        kept = null;
      }
      return kept === null;
    }
    return {before: before, after: after};
  }

  function start() {
    const keep = keeper(document, lib.keys);
    let keeping = null;
    const check = poller(document, window.fetch.bind(window), function (request) {
      if (request.reload) {  // a page that waited for the figure has none of its controls
        window.setTimeout(function () { window.location.reload(); }, 1500);  // (note read)
        return;
      }
      const clientside = window.dash_clientside;
      if (keep.before(request) && !keeping) {
        keeping = window.setInterval(function () {
          if (keep.after()) {
            window.clearInterval(keeping);
            keeping = null;
          }
        }, 200);
      }
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

  lib.live = {paths: paths, describe: describe, poller: poller, keeper: keeper, POLL_MS: POLL_MS,
              GONE_MS: GONE_MS, GONE_MAX_MS: GONE_MAX_MS};
  if (typeof document !== "undefined" && document.addEventListener) {
    document.addEventListener("DOMContentLoaded", start);
  }
})();
