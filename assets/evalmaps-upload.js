/* The Data page's upload (layouts/data.py): an upload over the size limit is refused here,
 * before it is sent (the server refuses it too).
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

  const clientside = window.dash_clientside = window.dash_clientside || {};
  clientside.evalmaps = Object.assign(clientside.evalmaps || {}, {checkUpload: checkUpload});
})();
