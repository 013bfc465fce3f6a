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
