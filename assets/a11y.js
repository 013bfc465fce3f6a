/* Accessible names and roles that the third-party widgets do not set themselves (issue 10).
 * - Dash dropdowns: named by their label, then their value ("Model GPT-4o, Llama"), through
 *   aria-labelledby = the label's id + the button's own id (Dash's Dropdown has no aria props).
 * - Dash dropdowns: the button is the tab stop, not a hidden input that passes focus on.
 * - The upload's file input: a name; no autocomplete (meaningless on a file input).
 * - The x-range slider: arrow keys, PageUp/PageDown and Home/End go from label to label.
 * - AG Grid: its sticky and full-width row containers are empty role=rowgroup elements,
 *   which must hold rows; while empty they are marked presentational.
 * Runs after each batch of DOM changes (at most once a frame), touching only what differs.
 * And /data's count of the cells the grid's filters show.
 *
 * Internal: none. Clientside callbacks: evalmaps_a11y.filteredCount. */
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

  // The x-range slider's keys go from label to label (Dash's slider steps by a fraction of the
  // axis when its step is None, landing between labels): the value is set with set_props.
  const STEP_KEYS = {ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1};
  function sliderKeys(event) {
    const thumb = event.target;
    if (!thumb || thumb.getAttribute("role") !== "slider") { return; }
    const box = thumb.closest(".xrange-slider");
    if (!box || !window.dash_clientside || !window.dash_clientside.set_props) { return; }
    const numbers = JSON.parse(box.getAttribute("data-numbers"));
    const n = numbers.length;
    let move = STEP_KEYS[event.key];
    if (event.key === "PageUp" || event.key === "PageDown") {
      move = (event.key === "PageUp" ? 1 : -1) * Math.max(1, Math.round(n / 10));
    }
    if (move === undefined && event.key !== "Home" && event.key !== "End") { return; }
    if (move !== undefined && event.shiftKey) { move *= Math.max(1, Math.round(n / 10)); }
    const thumbs = Array.from(box.querySelectorAll("[role=slider]"));
    const which = thumbs.indexOf(thumb);
    if (which < 0 || thumbs.length !== 2) { return; }
    const nearest = function (v) {
      let best = 0;
      numbers.forEach(function (x, i) { if (Math.abs(x - v) < Math.abs(numbers[best] - v)) { best = i; } });
      return best;
    };
    const at = thumbs.map(function (t) { return nearest(parseFloat(t.getAttribute("aria-valuenow"))); });
    let i = event.key === "Home" ? 0 : event.key === "End" ? n - 1 : at[which] + move;
    // the handles do not cross: the low one stops at the high one and back
    i = which === 0 ? Math.max(0, Math.min(i, at[1])) : Math.min(n - 1, Math.max(i, at[0]));
    event.preventDefault();
    event.stopPropagation();
    at[which] = i;
    window.dash_clientside.set_props(box.getAttribute("data-slider"),
                                     {value: [numbers[at[0]], numbers[at[1]]]});
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
    document.addEventListener("keydown", sliderKeys, true);
    new MutationObserver(schedule).observe(document.body, {
      childList: true, subtree: true, attributes: true, attributeFilter: ["tabindex", "disabled"]});
    schedule();
  }

  /* /data: the count follows the grid's filters ("12 of 40 cells shown: the table is
   * filtered"). */
  function filteredCount(shown, all) {
    const n = (shown || []).length, total = (all || []).length;
    if (n === total) { return ""; }
    return n + " of " + total + " cells shown: the table is filtered.";
  }

  const clientside = window.dash_clientside = window.dash_clientside || {};
  clientside.evalmaps_a11y = Object.assign(clientside.evalmaps_a11y || {},
                                           {filteredCount: filteredCount});

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
