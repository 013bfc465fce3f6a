/* evalmaps client-side helpers (served from /assets, no inline script).
 *
 * syncUrl: a page's canonical query string goes into the address bar without a reload, and the
 * nav links carry the current figure. Back/forward: the page is reloaded from its URL, which is
 * the whole state, so history always reopens exactly the view it recorded.
 */
window.dash_clientside = Object.assign({}, window.dash_clientside, {
  evalmaps: {
    syncUrl: function (data) {
      if (!data || !data.search) {
        return window.dash_clientside.no_update;
      }
      if (window.location.search !== data.search) {
        const url = window.location.pathname + data.search;
        if (data.replace) {
          window.history.replaceState(window.history.state, "", url);
        } else {
          window.history.pushState({evalmaps: true}, "", url);
        }
      }
      const q = "?figure=" + encodeURIComponent(data.figure);
      return data.nav.map(function (path) { return path + q; });
    }
  }
});

window.addEventListener("popstate", function () {
  window.location.reload();
});
