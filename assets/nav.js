/* The nav links: the page being shown marked active, and each link carrying the page's slice.
 * Before Dash starts: the uploads cookie, and the layout and callbacks asked for early.
 *
 * Internal: none. Clientside callbacks: evalmaps_nav.active, evalmaps_nav.navLinks. */
(function () {
  "use strict";

  /* The nav links' classes: the link of the page being shown is marked active. */
  function active(pathname) {
    const links = Array.from(document.querySelectorAll("a.evalmaps-nav"));
    return links.map(function (a) {
      const path = new URL(a.href, window.location.origin).pathname;
      return "evalmaps-nav" + (path === pathname ? " active" : "");
    });
  }

  /* The nav links' hrefs: they carry the page's slice, by the rules the nav element carries
   * (data-nav: evalmaps/views/state.py NAV_RULES, which also writes the first page's links on the
   * server): Browse, Trends and Data share the figure, its facets, rows, the x range, the row
   * order and top N; each page's own keys go only to the pages that read them. Any key that is
   * not one of the named ones is a facet (a dimension's name). Rank's link (rules.rank) carries
   * the page's first figure when Rank can rank it (the nav element's data-rankable), first. */
  function navLinks(search) {
    const nav = document.querySelector("nav[data-nav]");
    const rules = JSON.parse((nav && nav.getAttribute("data-nav")) || "{}");
    const rankable = JSON.parse((nav && nav.getAttribute("data-rankable")) || "[]");
    const owns = rules.own || {}, sliced = rules.sliced || [], named = rules.named || [];
    const params = new URLSearchParams(search || "");
    const figure = params.get("figure");
    const links = Array.from(document.querySelectorAll("a.evalmaps-nav"));
    return links.map(function (a) {
      const path = a.pathname;
      const own = owns[path] || [];
      const out = new URLSearchParams();
      if (path === rules.rank && figure !== null && rankable.indexOf(figure) >= 0) {
        out.append("figure", figure);
      }
      params.forEach(function (value, key) {
        if (own.indexOf(key) >= 0 || (sliced.indexOf(path) >= 0 && named.indexOf(key) < 0)) {
          out.append(key, value);
        }
      });
      const query = out.toString();
      return query ? path + "?" + query : path;
    });
  }

  /* The first page comes in the app's first layout (layouts/_first_page.py), rendered by the
   * server without this browser's own uploads, whose ids live in local storage (the "uploads"
   * store): when there are any, a cookie tells the server (a flag, nothing more) to let Dash
   * Pages render the page with them. This runs before Dash asks for the layout. */
  function uploadsCookie() {
    let recent = [];
    try {
      recent = JSON.parse(window.localStorage.getItem("uploads") || "[]");
    } catch {
      recent = [];
    }
    const some = Array.isArray(recent) && recent.length > 0;
    document.cookie = "evalmaps-uploads=" + (some ? "1" : "") + "; path=/; SameSite=Strict" +
        (some ? "" : "; max-age=0");
  }

  /* Dash asks for the layout and the callbacks only once all the page's scripts have run: ask
   * now (a preload, which Dash's own request then takes), so that the server builds them while
   * the scripts load. After the cookie above, which the layout request must carry. */
  function preload() {
    let prefix = "/";
    try {
      prefix = JSON.parse(document.getElementById("_dash-config").textContent)
        .requests_pathname_prefix || "/";
    } catch {
      prefix = "/";
    }
    ["_dash-layout", "_dash-dependencies"].forEach(function (name) {
      const link = document.createElement("link");
      link.rel = "preload";
      link.as = "fetch";
      link.crossOrigin = "anonymous";  // as Dash's fetch: CORS mode, same-origin credentials
      link.href = prefix + name;
      document.head.appendChild(link);
    });
  }

  const clientside = window.dash_clientside = window.dash_clientside || {};
  clientside.evalmaps_nav = Object.assign(clientside.evalmaps_nav || {},
                                          {active: active, navLinks: navLinks});
  uploadsCookie();
  preload();
})();
