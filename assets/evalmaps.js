/* evalmaps client-side callbacks (served from /assets: no inline script). */
window.dash_clientside = Object.assign({}, window.dash_clientside, {
  evalmaps: {
    /* Nav links keep the current figure: /trends?figure=<id> etc. */
    /* An upload over the size limit is refused here, before it is sent (the server refuses
     * it too). Returns [raw upload for the server, error message]. */
    checkUpload: function (contents, filename, maxBytes) {
      if (!contents) {
        return [window.dash_clientside.no_update, ""];
      }
      const b64 = contents.slice(contents.indexOf(",") + 1);
      const bytes = Math.floor(b64.length * 3 / 4);
      if (bytes > maxBytes) {
        const mb = function (n) { return (n / 1048576).toFixed(1); };
        return [null, filename + ": the file is " + mb(bytes) + " MB, over the " +
                mb(maxBytes) + " MB limit. Split it, or serve the folder with evalmaps serve --data."];
      }
      return [{name: filename, contents: contents}, ""];
    },

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
