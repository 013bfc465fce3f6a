/* The nav link of the page being shown is marked active. */
window.dash_clientside = Object.assign({}, window.dash_clientside, {
  evalmaps_nav: {
    active: function (pathname) {
      const links = Array.from(document.querySelectorAll("a.evalmaps-nav"));
      return links.map(function (a) {
        const path = new URL(a.href, window.location.origin).pathname;
        return "evalmaps-nav" + (path === pathname ? " active" : "");
      });
    }
  }
});

/* The first page comes in the app's first layout (layouts/_first_page.py), rendered by the server
 * without this browser's own uploads, whose ids live in local storage (the "uploads" store): when
 * there are any, a cookie tells the server (a flag, nothing more) to let Dash Pages render the
 * page with them. This runs before Dash asks for the layout. */
(function () {
  let recent = [];
  try {
    recent = JSON.parse(window.localStorage.getItem("uploads") || "[]");
  } catch (e) {
    recent = [];
  }
  const some = Array.isArray(recent) && recent.length > 0;
  document.cookie = "evalmaps-uploads=" + (some ? "1" : "") + "; path=/; SameSite=Strict" +
      (some ? "" : "; max-age=0");
  /* Dash asks for the layout and the callbacks only once all the page's scripts have run: ask
   * now (a preload, which Dash's own request then takes), so that the server builds them while
   * the scripts load. After the cookie above, which the layout request must carry. */
  let prefix = "/";
  try {
    prefix = JSON.parse(document.getElementById("_dash-config").textContent)
      .requests_pathname_prefix || "/";
  } catch (e) {
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
})();
