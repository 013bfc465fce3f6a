/* Menus that say "type to search" search as you type, whichever element of the open menu has
 * the focus. Dash's Dropdown focuses the selected option when a one-value menu opens (the
 * Figure menu), so keys went to that option and typing did nothing; a multi-value menu (Rows)
 * focuses its search box. Here a character typed on an open menu's option goes to the menu's
 * search box, which takes the focus, as in the Rows menu. Space still picks the option; the
 * arrow keys still move between options.
 *
 * Internal: window.evalmapsLib.menus. Clientside callbacks: none (it listens to the page). */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};

  /* An input's value as typed: through the element's own setter and an input event, so that
   * React (Dash's Dropdown) takes it as the search text. */
  function type(input, value) {
    const proto = window.HTMLInputElement && window.HTMLInputElement.prototype;
    const own = proto && Object.getOwnPropertyDescriptor(proto, "value");
    if (own && own.set) {
      own.set.call(input, value);
    } else {
      input.value = value;
    }
    input.dispatchEvent(new window.Event("input", {bubbles: true}));
  }

  /* keydown (capture): a printable character on an open menu, elsewhere than in its search
   * box, goes to the search box. Returns whether it did. */
  function typeToSearch(event) {
    const key = event.key;
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey ||
        typeof key !== "string" || key.length !== 1 || key === " ") {
      return false;
    }
    const target = event.target;
    const menu = target && target.closest && target.closest(".dash-dropdown-content");
    const search = menu && menu.querySelector("input.dash-dropdown-search");
    if (!search || search === target || search.disabled) {
      return false;
    }
    event.preventDefault();
    search.focus();
    type(search, (search.value || "") + key);
    return true;
  }

  lib.menus = {typeToSearch: typeToSearch};

  function start() {
    document.addEventListener("keydown", typeToSearch, true);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
