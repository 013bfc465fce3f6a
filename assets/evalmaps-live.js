/* Open pages follow a watched data folder (evalmaps.service.live): every POLL_MS, while the tab
 * is visible, the page asks for the figures it shows (/api/figures/<id>, the URL's figure, a
 * and b; the whole list when it names none) with If-None-Match, so that while nothing changed
 * the answer is a 304 with no body. A hidden tab does not ask; it asks at once when shown.
 * A figure with a new version: the page's sync callback draws its view again in place (the
 * store "live-version", an input of the sliced pages' callbacks: slice, colour range, keyboard
 * focus and open table stay as they are) and a polite note says once what changed ("12 new
 * cells: pythia-1.4b, step 33000"), to screen readers too. No request for a figure that did
 * not change; short polls, not a connection held open (gunicorn's threads stay free).
 *
 * Internal: window.evalmapsLib.live. Clientside callbacks: none. */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};
  const POLL_MS = 2000;
  const NOTE_ID = "evalmaps-live-note";
  const MAX_NAMED = 4;

  /* The API paths to ask for the figures a page's query string names. */
  function paths(search) {
    const query = new URLSearchParams(search || "");
    const ids = [];
    query.getAll("figure").concat(query.getAll("a"), query.getAll("b")).forEach(function (v) {
      const id = String(v).split(":")[0];
      if (id && ids.indexOf(id) < 0) {
        ids.push(id);
      }
    });
    if (!ids.length) {
      return ["/api/figures"];
    }
    return ids.map(function (id) { return "/api/figures/" + encodeURIComponent(id); });
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
      (f.dims || []).forEach(function (d) {
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

  function note(doc, text) {
    let el = doc.getElementById(NOTE_ID);
    if (!el) {
      el = doc.createElement("div");
      el.id = NOTE_ID;
      el.setAttribute("role", "status");
      el.setAttribute("aria-live", "polite");
      el.className = "evalmaps-live-note small text-muted";
      doc.body.appendChild(el);
    }
    el.textContent = text;  // text, never markup
  }

  /* One poller per page load: ``fetchFn`` and ``redraw(version)`` given (tests pass fakes). */
  function poller(doc, fetchFn, redraw, where) {
    const known = {};  // path -> {etag, body}
    let busy = false;
    function check() {
      if (busy || doc.visibilityState === "hidden") {
        return Promise.resolve(false);
      }
      busy = true;
      const todo = paths(where().search);
      return Promise.all(todo.map(function (path) {
        const had = known[path];
        const headers = had && had.etag ? {"If-None-Match": had.etag} : {};
        return fetchFn(path, {headers: headers, cache: "no-store", credentials: "same-origin"})
          .then(function (response) {
            if (response.status !== 200) {
              return null;  // 304: unchanged; 404: not (or no longer) there
            }
            return response.json().then(function (body) {
              known[path] = {etag: response.headers.get("ETag"), body: body};
              return had ? {before: had.body, after: body} : null;
            });
          }).catch(function () { return null; });
      })).then(function (changes) {
        busy = false;
        const changed = changes.filter(Boolean);
        if (!changed.length) {
          return false;
        }
        const text = changed.map(function (c) { return describe(c.before, c.after); })
          .filter(Boolean).join(" ");
        redraw(changed.map(function (c) {
          return summaries(c.after).map(function (f) { return f.version; }).join(",");
        }).join("|"));
        if (text) {
          note(doc, text.charAt(0).toUpperCase() + text.slice(1));
        }
        return true;
      });
    }
    return check;
  }

  function start() {
    const check = poller(document, window.fetch.bind(window), function (version) {
      const clientside = window.dash_clientside;
      if (clientside && clientside.set_props) {
        clientside.set_props("live-version", {data: version});
      }
    }, function () { return window.location; });
    check();
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
