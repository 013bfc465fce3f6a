/* The Data page's upload (layouts/data.py): an upload over the size limit is refused here,
 * before it is sent (the server refuses it too).
 *
 * "Keep it on this server and open it" opens the figure at the top of the page: the page is
 * scrolled up as the button is pressed (Dash Pages swaps the page's content in place, which
 * would keep the Data page's scroll): it listens to the page's clicks.
 *
 * Internal: none. Clientside callbacks: evalmaps.checkUpload. */
(function () {
  "use strict";

  /* [raw upload for the server ({name, contents}), error message]. */
  function checkUpload(contents, filename, maxBytes) {
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
  }

  /* click: the Keep button scrolls the page to its top, where the figure is about to open. */
  function keepOpensAtTop(event) {
    const button = event.target && event.target.closest && event.target.closest("#data-add");
    if (button && !button.disabled) {
      window.scrollTo({top: 0, left: 0, behavior: "instant"});
    }
  }

  const clientside = window.dash_clientside = window.dash_clientside || {};
  clientside.evalmaps = Object.assign(clientside.evalmaps || {}, {checkUpload: checkUpload});

  function start() {
    document.addEventListener("click", keepOpensAtTop);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
