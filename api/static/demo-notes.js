/* The demo page copies the NVLink guide's tables, errors included. demo-audit.json holds what the
   content audit (evals/audit.py, `sizing audit`) flags in them against the catalog; this script
   puts a note beside each flagged cell, so the page never contradicts the widget beside it.
   A note goes only where the cell's text still matches the audited one. */
(function () {
  "use strict";
  var script = document.currentScript;
  var url = new URL("demo-audit.json", script ? script.src : location.href);
  var lang = document.documentElement.lang === "en" ? "en" : "de";
  var label = lang === "en" ? "Correction from our catalog" : "Korrektur laut Katalog";

  function norm(s) { return (s || "").replace(/\s+/g, " ").trim(); }

  function mark(tables, n, i) {
    var table = tables[n.table];
    var row = table && table.tBodies[0] && table.tBodies[0].rows[n.row];
    var cell = row && row.cells[n.col];
    if (!cell || norm(cell.textContent) !== norm(n.cell)) return;
    var note = document.createElement("span");
    note.className = "audit-note";
    note.id = "audit-note-" + i;
    note.setAttribute("role", "note");
    var head = document.createElement("strong");
    head.textContent = label + ": ";
    note.appendChild(head);
    note.appendChild(document.createTextNode(n.note));
    cell.classList.add("audit-flagged");
    var described = cell.getAttribute("aria-describedby");
    cell.setAttribute("aria-describedby", (described ? described + " " : "") + note.id);
    cell.appendChild(note);
  }

  function apply(data) {
    var notes = (data.pages && data.pages[lang]) || [];
    var tables = document.querySelectorAll("main table");
    notes.forEach(function (n, i) { mark(tables, n, i); });
    document.documentElement.setAttribute("data-audit-notes", String(notes.length));
  }

  fetch(url.href, { credentials: "same-origin" })
    .then(function (r) { return r.ok ? r.json() : { pages: {} }; })
    .then(apply)
    .catch(function () { /* the page stays readable without its notes */ });
})();
