/* A heatmap as an HTML table (issue 10): the "Table" toggle beside each map's frame
 * (components/keyboard.py) shows the map as a table, values as the hover writes them, read
 * from the figure the browser already holds through evalmapsLib.keys (its model of a drawn
 * map); an open table is built again when the map is drawn again (evalmapsLib.keys.refresh).
 *
 * Internal: window.evalmapsLib.table. Clientside callbacks: none (it listens to the page). */
(function () {
  "use strict";
  const lib = window.evalmapsLib = window.evalmapsLib || {};
  const keys = lib.keys;
  const MAX_TABLE_CELLS = 10000;  // a bigger DOM table would stall the page

  /* The map as an HTML table: a caption, the x title over the column headers (th scope=col),
   * a row header per row (th scope=row), values as the hover writes them. */
  function build(holder, frame) {
    const gd = keys.graphOf(frame);
    holder.textContent = "";
    if (!keys.ready(gd)) {
      return;
    }
    const m = keys.model(gd);
    const missing = frame.getAttribute("data-missing") || "not reported";
    const n = m.x.length * m.y.length;
    if (n > MAX_TABLE_CELLS) {
      const note = document.createElement("p");
      note.className = "small text-muted mb-0 p-2";
      note.textContent = "This map has " + n.toLocaleString("en") + " cells, more than a table " +
        "here shows (" + MAX_TABLE_CELLS.toLocaleString("en") + "). Narrow the rows or the " +
        "range, or get every cell from the API (/api/figures/<id>/cells?format=csv).";
      holder.appendChild(note);
      holder._evalmapsFull = lib.plotly.fullData(gd);
      return;
    }
    const el = function (tag, text, attrs) {
      const node = document.createElement(tag);
      if (text !== undefined && text !== null) {
        node.textContent = text;
      }
      Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
      return node;
    };
    const table = el("table", null, {"class": "table table-sm table-bordered heatmap-data-table"});
    table.appendChild(el("caption", keys.caption(m)));
    const head = el("thead");
    const top = el("tr");
    top.appendChild(el("td"));
    top.appendChild(el("th", m.xTitle, {scope: "colgroup", colspan: String(m.x.length)}));
    head.appendChild(top);
    const second = el("tr");
    second.appendChild(el("th", m.yTitle, {scope: "col"}));
    m.xHead.forEach(function (text) { second.appendChild(el("th", text, {scope: "col"})); });
    head.appendChild(second);
    table.appendChild(head);
    const body = el("tbody");
    m.yHead.forEach(function (text, i) {
      const tr = el("tr");
      tr.appendChild(el("th", text, {scope: "row"}));
      m.x.forEach(function (_, j) {
        const o = m.at(i, j);
        const has = o && o.value;
        tr.appendChild(el("td", has ? keys.valueText(m, o.z) : missing,
                          has ? {} : {"class": "heatmap-missing"}));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    holder.appendChild(table);
    // a region that may scroll sideways: reachable (and scrollable) by keyboard
    holder.setAttribute("tabindex", "0");
    holder.setAttribute("role", "region");
    holder.setAttribute("aria-label", "Table: " + m.title);
    holder._evalmapsFull = lib.plotly.fullData(gd);
  }

  function tableOf(button) {
    return button.parentElement && button.parentElement.querySelector(":scope > .heatmap-table");
  }

  function frameNear(node) {
    return node.parentElement && node.parentElement.querySelector(":scope > .heatmap-keys");
  }

  function start() {
    document.addEventListener("click", function (e) {
      const button = e.target.closest && e.target.closest(".heatmap-table-toggle");
      if (!button) {
        return;
      }
      const holder = tableOf(button), frame = frameNear(button);
      if (!holder || !frame) {
        return;
      }
      const open = holder.hidden;
      if (open) {
        build(holder, frame);
      }
      holder.hidden = !open;
      button.setAttribute("aria-expanded", open ? "true" : "false");
      button.classList.toggle("active", open);
    });
  }

  if (document.body) {
    start();
  } else {
    document.addEventListener("DOMContentLoaded", start);
  }
  lib.table = {build: build};
})();
