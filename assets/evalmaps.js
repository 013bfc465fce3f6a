/* evalmaps client-side callbacks (served from /assets: no inline script). */
window.dash_clientside = Object.assign({}, window.dash_clientside, {
  evalmaps: {
    /* Nav links keep the current figure: /trends?figure=<id> etc. */
    navLinks: function (search) {
      const links = Array.from(document.querySelectorAll("a.evalmaps-nav"));
      const figure = new URLSearchParams(search || "").get("figure");
      return links.map(function (a) {
        const path = a.getAttribute("data-path") || a.pathname;
        return figure ? path + "?figure=" + encodeURIComponent(figure) : path;
      });
    }
  }
});
