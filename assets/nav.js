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
})();
