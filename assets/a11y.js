/* Accessible names and roles that the third-party widgets do not set themselves (issue 10).
 * - Dash dropdowns: named by their label, then their value ("Model GPT-4o, Llama"), through
 *   aria-labelledby = the label's id + the button's own id (Dash's Dropdown has no aria props).
 * - Dash dropdowns: the button is the tab stop, not a hidden input that passes focus on.
 * - The upload's file input: a name; no autocomplete (meaningless on a file input).
 * - AG Grid: its sticky and full-width row containers are empty role=rowgroup elements,
 *   which must hold rows; while empty they are marked presentational.
 * Runs after each batch of DOM changes (at most once a frame), touching only what differs. */
(function () {
  "use strict";

  function labelDropdowns(root) {
    root.querySelectorAll("button.dash-dropdown[id]").forEach(function (button) {
      const label = document.querySelector('label[for="' + CSS.escape(button.id) + '"]');
      if (!label) { return; }
      if (!label.id) { label.id = button.id + "--label"; }
      // the label, then what the button shows (its value and count spans, which have ids)
      const parts = [label.id];
      button.querySelectorAll(".dash-dropdown-value[id], .dash-dropdown-value-count[id], " +
                              ".dash-dropdown-placeholder[id]").forEach(function (el) {
        parts.push(el.id);
      });
      if (parts.length === 1) { parts.push(button.id); }
      if (parts.some(function (id) { return /\s/.test(id); })) {
        // an id with a space cannot go in an id list: name it with the same words instead
        const text = label.textContent + " " + button.textContent;
        if (button.getAttribute("aria-label") !== text) { button.setAttribute("aria-label", text); }
        return;
      }
      const wanted = parts.join(" ");
      if (button.getAttribute("aria-labelledby") !== wanted) {
        button.setAttribute("aria-labelledby", wanted);
      }
    });
  }

  // Dash's dropdown takes Tab on a hidden aria-hidden input that forwards focus to the button:
  // a focusable element hidden from screen readers. The button itself becomes the tab stop.
  function dropdownTabStops(root) {
    root.querySelectorAll(".dash-dropdown-wrapper > input.dash-dropdown-focus-target")
      .forEach(function (input) {
        const button = input.nextElementSibling;
        if (!button || button.tagName !== "BUTTON" || button.disabled) { return; }
        if (input.tabIndex !== -1) { input.tabIndex = -1; }
        if (button.tabIndex !== 0) { button.tabIndex = 0; }
      });
  }

  function nameUploads(root) {
    root.querySelectorAll(".upload-box input[type=file]").forEach(function (input) {
      if (input.getAttribute("aria-label") !== "Upload a results file") {
        input.setAttribute("aria-label", "Upload a results file");
      }
      if (input.hasAttribute("autocomplete")) { input.removeAttribute("autocomplete"); }
    });
  }

  const ROW_GROUPS = ".ag-full-width-container, .ag-sticky-top-viewport, " +
    ".ag-sticky-top-full-width-container, .ag-sticky-bottom-viewport, " +
    ".ag-sticky-bottom-full-width-container";

  function gridRoles(root) {
    root.querySelectorAll(ROW_GROUPS).forEach(function (el) {
      const hasRows = el.querySelector("[role=row]") !== null;
      const role = hasRows ? "rowgroup" : "presentation";
      if (el.getAttribute("role") !== role) { el.setAttribute("role", role); }
    });
    root.querySelectorAll(".ag-root-wrapper input[autocomplete]").forEach(function (input) {
      input.removeAttribute("autocomplete");
    });
  }

  let scheduled = false;
  function fix() {
    scheduled = false;
    labelDropdowns(document);
    dropdownTabStops(document);
    nameUploads(document);
    gridRoles(document);
  }
  function schedule() {
    if (!scheduled) { scheduled = true; window.requestAnimationFrame(fix); }
  }
  function start() {
    new MutationObserver(schedule).observe(document.body, {
      childList: true, subtree: true, attributes: true, attributeFilter: ["tabindex", "disabled"]});
    schedule();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
