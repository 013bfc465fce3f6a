/* The "Filters" toggle (components/filters.py): open or close the page's controls, with no
 * round trip.
 *
 * Internal: none. Clientside callbacks: evalmaps.toggleFilters. */
(function () {
  "use strict";

  /* [open, aria-expanded]. */
  function toggleFilters(_clicks, isOpen) {
    return [!isOpen, String(!isOpen)];
  }

  const clientside = window.dash_clientside = window.dash_clientside || {};
  clientside.evalmaps = Object.assign(clientside.evalmaps || {}, {toggleFilters: toggleFilters});
})();
