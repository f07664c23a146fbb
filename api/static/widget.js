/*! gpuserver.io sizing assistant chat widget. No build step, no framework.
 *
 *   <script src="https://…/static/widget.js" data-api="https://…" data-lang="de" defer></script>
 *
 * data-api   base URL of the sizing API (default: where this script came from)
 * data-lang  "de" or "en" (default: the page's <html lang>)
 * data-open  "true" to open the panel on load
 *
 * Safety: answer and question text is never inserted as HTML. Markdown is rendered by escaping
 * everything first and then turning a tiny subset (bold, italics, code, lists, tables, http(s)
 * links, [n] citation markers) into markup.
 */
(function () {
  "use strict";
  if (window.SizingWidget) return;

  var script = document.currentScript || document.querySelector('script[src*="widget.js"]');
  var scriptUrl = new URL(script ? script.src : "/static/widget.js", location.href);
  var API = ((script && script.getAttribute("data-api")) || scriptUrl.origin).replace(/\/+$/, "");
  var LANG = ((script && script.getAttribute("data-lang")) || document.documentElement.lang || "de")
    .slice(0, 2).toLowerCase() === "en" ? "en" : "de";
  var STORE_KEY = "sizing-widget:" + API;
  var MAX_TURNS = 12;
  // A question plus a pasted output or e-mail (issue 26: `nvidia-smi topo -m`, `all_reduce_perf`,
  // logs): SIZING_MAX_QUESTION_CHARS + SIZING_MAX_PASTED_CHARS by default; the server checks
  // both limits and says which one a message is over.
  var MAX_CHARS = 22000;

  var T = {
    de: {
      open: "Sizing-Assistent öffnen", close: "Chat schließen", title: "Sizing-Assistent",
      subtitle: "Mit Quellen aus den Guides und Katalogpreisen",
      reset: "Neue Unterhaltung", placeholder: "Frage stellen, z. B. „Brauche ich NVLink?“",
      send: "Senden", input: "Ihre Frage", sources: "Quellen", prices: "Preise", details: "Details",
      pasted: "Eingefügt: {n} Zeichen",
      month: "Monat", placeholderPrice: "Platzhalterpreis", followUps: "Weiterfragen",
      up: "Hilfreich", down: "Nicht hilfreich", thanks: "Danke für Ihr Feedback!",
      why: "Was war nicht gut?", more: "Was hätten Sie gebraucht? (optional)", sendWhy: "Absenden",
      reasons: { wrong: "Falsch", unclear: "Unklar", too_long: "Zu lang", missed_question: "Frage verfehlt" },
      thinking: "Denke nach …", working: "Arbeite daran …", failed: "Die Antwort konnte nicht geladen werden.",
      again: "Erneut senden", queued: "Server nicht erreichbar: Ihr Feedback wird gesendet, sobald er wieder antwortet.",
      lost: "Ihr Feedback konnte nicht gespeichert werden.",
      offline: "Der Assistent ist gerade nicht erreichbar.", retry: "Bitte in {s} s erneut versuchen.",
      hello: "Hallo! Ich helfe bei der Wahl des passenden GPU-Servers: Passt ein Modell auf eine Karte, brauche ich NVLink, was kostet ein Knoten?",
      log: "Unterhaltung", you: "Sie", bot: "Assistent",
      starters: ["Brauche ich NVLink?", "Passt Llama 3.3 70B auf eine Karte?", "Was kostet 4 × A100 SXM4?"],
      chart: "Preis und Geschwindigkeit", chartX: "$ pro Monat", chartY: "Tokens/s (eine Anfrage)",
      chartTable: "Konfigurationen, die es tragen", configuration: "Konfiguration", link: "Verbindung",
      recommended: "empfohlen", pick: "Für diesen Knoten neu beantworten",
      tools: {
        search_guides: "Durchsuche die Guides …", fit_check: "Prüfe den Katalog …",
        cheapest_fit: "Prüfe den Katalog …", price_quote: "Suche Preise heraus …",
        throughput_estimate: "Schätze die Geschwindigkeit …", memory_need: "Berechne den Speicher …",
        capacity_check: "Prüfe die Kapazität …", check: "Prüfe die Zahlen, überarbeite die Antwort …"
      }
    },
    en: {
      open: "Open the sizing assistant", close: "Close chat", title: "Sizing assistant",
      subtitle: "With guide sources and catalog prices",
      reset: "New conversation", placeholder: "Ask, e.g. “Do I need NVLink?”",
      send: "Send", input: "Your question", sources: "Sources", prices: "Prices", details: "Details",
      pasted: "Pasted: {n} characters",
      month: "month", placeholderPrice: "placeholder price", followUps: "Follow-up questions",
      up: "Helpful", down: "Not helpful", thanks: "Thanks for your feedback!",
      why: "What was wrong?", more: "What did you need? (optional)", sendWhy: "Send",
      reasons: { wrong: "Wrong", unclear: "Unclear", too_long: "Too long", missed_question: "Missed my question" },
      thinking: "Thinking …", working: "Working on it …", failed: "The answer could not be loaded.",
      again: "Retry", queued: "The server cannot be reached: your feedback will be sent when it answers again.",
      lost: "Your feedback could not be saved.",
      offline: "The assistant cannot be reached right now.", retry: "Please try again in {s} s.",
      hello: "Hi! I help you pick the right GPU server: does a model fit on one card, do I need NVLink, what does a node cost?",
      log: "Conversation", you: "You", bot: "Assistant",
      starters: ["Do I need NVLink?", "Does Llama 3.3 70B fit on one card?", "What will 4 x A100 SXM4 cost?"],
      chart: "Price and speed", chartX: "$ per month", chartY: "tokens/s (one request)",
      chartTable: "Configurations that hold it", configuration: "Configuration", link: "Link",
      recommended: "recommended", pick: "Answer again for this node",
      tools: {
        search_guides: "Searching the guides …", fit_check: "Checking the catalog …",
        cheapest_fit: "Checking the catalog …", price_quote: "Looking up prices …",
        throughput_estimate: "Estimating the speed …", memory_need: "Computing the memory …",
        capacity_check: "Checking the capacity …", check: "Checking the figures, revising the answer …"
      }
    }
  }[LANG];

  // ---------------------------------------------------------------- safe Markdown subset
  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function inline(raw, cites) {
    var keep = [];
    function hold(html) { keep.push(html); return "\u0000" + (keep.length - 1) + "\u0000"; }
    var s = esc(String(raw).replace(/\u0000/g, ""));
    s = s.replace(/`([^`]+)`/g, function (_, code) { return hold("<code>" + code + "</code>"); });
    s = s.replace(/\[([^\]\u0000]+)\]\((https?:\/\/[^\s()\u0000]+)\)/g, function (_, label, url) {
      return hold('<a href="' + url + '" target="_blank" rel="noopener noreferrer">' + label + "</a>");
    });
    s = s.replace(/\[(\d{1,2})\]/g, function (m, n) {
      var c = cites && cites[n];
      if (!c || !/^https?:\/\//.test(c.url)) return hold('<sup class="sw-cite">[' + n + "]</sup>");
      return hold('<a class="sw-cite" href="' + esc(c.url) + '" target="_blank" rel="noopener noreferrer" title="' +
        esc(c.title + " – " + c.section) + '">[' + n + "]</a>");
    });
    s = s.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
    s = s.replace(/(^|[^\w*])\*([^*\s](?:[^*]*[^*\s])?)\*(?!\w)/g, "$1<em>$2</em>");
    s = s.replace(/(^|[^\w])_([^_\s](?:[^_]*[^_\s])?)_(?!\w)/g, "$1<em>$2</em>");
    return s.replace(/\u0000(\d+)\u0000/g, function (_, i) { return keep[+i]; });
  }

  function renderMarkdown(text, cites) {
    var lines = String(text).replace(/\r\n?/g, "\n").split("\n");
    var out = [], para = [], list = null, i = 0;
    function flushPara() { if (para.length) { out.push("<p>" + para.join("<br>") + "</p>"); para = []; } }
    function flushList() { if (list) { out.push("<" + list.tag + ">" + list.items.join("") + "</" + list.tag + ">"); list = null; } }
    while (i < lines.length) {
      var line = lines[i], m;
      if (/^\s*```/.test(line)) {
        flushPara(); flushList();
        var code = [];
        for (i++; i < lines.length && !/^\s*```/.test(lines[i]); i++) code.push(lines[i]);
        out.push("<pre><code>" + esc(code.join("\n")) + "</code></pre>");
        i++; continue;
      }
      if (/^\s*\|.*\|\s*$/.test(line)) {
        flushPara(); flushList();
        var rows = [];
        for (; i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i]); i++) rows.push(lines[i]);
        var html = "", head = true;
        rows.forEach(function (row) {
          var cells = row.trim().replace(/^\||\|$/g, "").split("|");
          if (cells.every(function (c) { return /^\s*:?-{2,}:?\s*$/.test(c); })) { head = false; return; }
          var tag = head && !html ? "th" : "td";
          html += "<tr>" + cells.map(function (c) { return "<" + tag + ">" + inline(c.trim(), cites) + "</" + tag + ">"; }).join("") + "</tr>";
        });
        out.push('<div class="sw-table"><table>' + html + "</table></div>");
        continue;
      }
      if ((m = /^\s*[-*•]\s+(.*)$/.exec(line)) || (m = /^\s*\d+[.)]\s+(.*)$/.exec(line))) {
        flushPara();
        var tagName = /^\s*\d/.test(line) ? "ol" : "ul";
        if (list && list.tag !== tagName) flushList();
        if (!list) list = { tag: tagName, items: [] };
        list.items.push("<li>" + inline(m[1], cites) + "</li>");
        i++; continue;
      }
      if (/^\s*>/.test(line)) {
        flushPara(); flushList();
        var quote = [];
        for (; i < lines.length && /^\s*>/.test(lines[i]); i++) quote.push(inline(lines[i].replace(/^\s*>\s?/, ""), cites));
        out.push("<blockquote>" + quote.join("<br>") + "</blockquote>");
        continue;
      }
      if ((m = /^\s*#{1,6}\s+(.*)$/.exec(line))) {
        flushPara(); flushList();
        out.push('<p class="sw-h">' + inline(m[1], cites) + "</p>");
        i++; continue;
      }
      if (/^\s*$/.test(line)) { flushPara(); flushList(); i++; continue; }
      flushList();
      para.push(inline(line, cites));
      i++;
    }
    flushPara(); flushList();
    return out.join("");
  }

  function formatUsd(value) {
    var n = Number(value);
    var digits = Math.round(n) === n ? 0 : 2;
    return "$" + n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: 2 });
  }

  // ---------------------------------------------------------------- DOM helpers
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), attrs[k]);
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  var ICONS = {
    chat: "M20 2H4c-1.1 0-2 .9-2 2v18l4-4h14c1.1 0 2-.9 2-2V4c0-1.1-.9-2-2-2z",
    send: "M2.01 21 23 12 2.01 3 2 10l15 2-15 2z",
    up: "M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z",
    down: "M15 3H6c-.83 0-1.54.5-1.84 1.22l-3.02 7.05c-.09.23-.14.47-.14.73v2c0 1.1.9 2 2 2h6.31l-.95 4.57-.03.32c0 .41.17.79.44 1.06L9.83 23l6.59-6.59c.36-.36.58-.86.58-1.41V5c0-1.1-.9-2-2-2zm4 0v12h4V3h-4z"
  };
  function icon(name) {
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    svg.setAttribute("class", "sw-svg");
    var path = document.createElementNS(ns, "path");
    path.setAttribute("d", ICONS[name]);
    path.setAttribute("fill", "currentColor");
    svg.appendChild(path);
    return svg;
  }

  function safeUrl(url) { return /^https?:\/\//i.test(url || "") ? url : null; }

  function link(url, text, cls) {
    var href = safeUrl(url);
    if (!href) return el("span", { text: text, class: cls || "" });
    return el("a", { href: href, text: text, target: "_blank", rel: "noopener noreferrer", class: cls || "" });
  }

  // ---------------------------------------------------------------- state
  function load() {
    try { return JSON.parse(localStorage.getItem(STORE_KEY)) || {}; } catch (e) { return {}; }
  }
  var state = load();
  state.turns = Array.isArray(state.turns) ? state.turns : [];
  function save() {
    state.turns = state.turns.slice(-MAX_TURNS);
    try { localStorage.setItem(STORE_KEY, JSON.stringify(state)); } catch (e) { /* private mode */ }
  }

  // ---------------------------------------------------------------- build the widget
  var host = el("div", { id: "sizing-widget", "data-lang": LANG });
  var root = host.attachShadow ? host.attachShadow({ mode: "open" }) : host;
  var css = el("link", { rel: "stylesheet", href: new URL("widget.css", scriptUrl).href });

  var launcher = el("button", {
    class: "sw-launcher", type: "button", "aria-label": T.open, "aria-expanded": "false",
    "aria-controls": "sw-panel", title: T.title
  });
  launcher.appendChild(icon("chat"));
  launcher.appendChild(el("span", { class: "sw-launcher-text", text: T.title }));

  var log = el("div", { class: "sw-log", role: "log", "aria-live": "polite", "aria-label": T.log, tabindex: "0" });
  var input = el("textarea", {
    class: "sw-input", rows: "1", placeholder: T.placeholder, "aria-label": T.input, maxlength: String(MAX_CHARS)
  });
  var sendBtn = el("button", { class: "sw-send", type: "submit", "aria-label": T.send, title: T.send });
  sendBtn.appendChild(icon("send"));
  var form = el("form", { class: "sw-form" }, [input, sendBtn]);
  var closeBtn = el("button", { class: "sw-icon", type: "button", "aria-label": T.close, title: T.close, text: "✕" });
  var resetBtn = el("button", { class: "sw-icon", type: "button", "aria-label": T.reset, title: T.reset, text: "↺" });
  var panel = el("div", {
    class: "sw-panel", id: "sw-panel", role: "dialog", "aria-modal": "true", "aria-label": T.title, hidden: ""
  }, [
    el("div", { class: "sw-header" }, [
      el("div", { class: "sw-heading" }, [
        el("div", { class: "sw-title", text: T.title }),
        el("div", { class: "sw-subtitle", text: T.subtitle })
      ]),
      resetBtn, closeBtn
    ]),
    log,
    form
  ]);
  root.appendChild(css);
  root.appendChild(panel);
  root.appendChild(launcher);

  function setOpen(open) {
    panel.hidden = !open;
    launcher.setAttribute("aria-expanded", String(open));
    launcher.classList.toggle("sw-hidden", open);
    state.open = open; save();
    if (open) { input.focus(); log.scrollTop = log.scrollHeight; } else { launcher.focus(); }
  }
  launcher.addEventListener("click", function () { setOpen(true); });
  closeBtn.addEventListener("click", function () { setOpen(false); });
  resetBtn.addEventListener("click", function () {
    state = { turns: [], open: true }; save(); renderAll(); input.focus();
  });
  panel.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { e.preventDefault(); setOpen(false); }
    else if (e.key === "Tab") trapFocus(e);
  });

  // A modal dialog keeps the focus: Tab after the last control goes to the first, Shift+Tab
  // before the first to the last (Escape closes it and gives the focus back to the launcher).
  function trapFocus(e) {
    var items = Array.prototype.filter.call(
      panel.querySelectorAll('button:not([disabled]), a[href], textarea, input, [tabindex]:not([tabindex="-1"])'),
      function (n) { return n.getClientRects().length > 0; });
    if (!items.length) return;
    var active = root.activeElement || document.activeElement;
    var first = items[0], last = items[items.length - 1];
    if (e.shiftKey && (active === first || !panel.contains(active))) { e.preventDefault(); last.focus(); }
    else if (!e.shiftKey && (active === last || !panel.contains(active))) { e.preventDefault(); first.focus(); }
  }
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); submit(); }
  });
  input.addEventListener("input", autosize);
  form.addEventListener("submit", function (e) { e.preventDefault(); submit(); });

  function autosize() {
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight, 120) + "px";
  }

  // ---------------------------------------------------------------- rendering turns
  function intro() {
    var box = el("div", { class: "sw-msg sw-bot sw-intro" }, [el("p", { text: T.hello })]);
    var chips = el("div", { class: "sw-chips" });
    T.starters.forEach(function (q) { chips.appendChild(chip(q)); });
    box.appendChild(chips);
    return box;
  }

  function chip(text) {
    return el("button", { class: "sw-chip", type: "button", text: text, onclick: function () { ask(text); } });
  }

  // ---------------------------------------------------------------- the reading as chips
  // What was understood, under the newest answer: a row of buttons. A chip becomes a select or a
  // number field; applying it re-answers from the edited reading ({session_id, reading}), with no
  // re-parse. Labels follow the answer's language. Older answers keep their chips, disabled.
  var R = {
    de: { model: "Modell", precision: "Präzision", users: "Nutzer", concurrent_sequences: "Gleichzeitig",
      context_tokens: "Kontext", configurations: "Hardware", budget_usd_per_month: "Budget",
      output_tokens: "Ausgabe", toWrite: "Token zu schreiben",
      change: "ändern", add: "hinzufügen", apply: "Übernehmen", cancel: "Abbrechen", assumed: "angenommen",
      lead: "Verstanden", month: "Monat", people: "Nutzer", atOnce: "gleichzeitig", context: "Kontext" },
    en: { model: "Model", precision: "Precision", users: "Users", concurrent_sequences: "At once",
      context_tokens: "Context", configurations: "Hardware", budget_usd_per_month: "Budget",
      output_tokens: "Output", toWrite: "tokens to write",
      change: "change", add: "add", apply: "Apply", cancel: "Cancel", assumed: "assumed",
      lead: "Understood", month: "month", people: "users", atOnce: "at once", context: "context" }
  };
  var FIELDS = ["model", "precision", "users", "concurrent_sequences", "context_tokens", "output_tokens", "configurations", "budget_usd_per_month"];
  var ADDABLE = ["precision", "users", "context_tokens", "budget_usd_per_month"];
  var STEP = { users: "1", concurrent_sequences: "1", context_tokens: "1", output_tokens: "1", budget_usd_per_month: "any" };
  var optionsFor = {}, editSeq = 0;

  function readingOptions(lang) {  // the catalog's models, precisions, configurations (cached)
    if (!optionsFor[lang]) {
      optionsFor[lang] = fetch(API + "/api/reading/options?lang=" + lang).then(function (res) {
        if (!res.ok) throw new Error(String(res.status));
        return res.json();
      });
      optionsFor[lang].catch(function () { delete optionsFor[lang]; });
    }
    return optionsFor[lang];
  }

  function named(list, id, key) {
    var hit = (list || []).filter(function (o) { return o.id === id; })[0];
    return hit ? hit[key] : id;
  }

  function chipText(field, r, lang, opts) {
    var v = r[field], L = R[lang], loc = lang === "de" ? "de-DE" : "en-US";
    function n(x) { return Number(x).toLocaleString(loc, { maximumFractionDigits: 0 }); }
    if (field === "model") return named(opts && opts.models, v, "name");
    if (field === "precision") return String(v).toUpperCase();
    if (field === "users") return n(v) + " " + L.people;
    if (field === "concurrent_sequences") return n(v) + " " + L.atOnce;
    if (field === "context_tokens") {
      var k = v >= 1000 && v % 1000 === 0 ? v / 1000 + "k" : v % 1024 === 0 ? v / 1024 + "k" : n(v);
      return k + " " + L.context;
    }
    if (field === "output_tokens") return n(v) + " " + L.toWrite;
    if (field === "configurations") {
      return v.map(function (id) { return named(opts && opts.configurations, id, "label"); }).join(" / ");
    }
    return "≤ " + (r.budget_currency === "EUR" ? "€" : "$") + n(v) + "/" + L.month;
  }

  function setChip(b, field, r, lang, opts) {
    var L = R[lang];
    if (b.classList.contains("sw-add")) {
      b.textContent = "+ " + L[field];
      b.setAttribute("aria-label", L[field] + ": " + L.add);
      return;
    }
    var text = chipText(field, r, lang, opts);
    if ((r.assumed || []).indexOf(field) >= 0) text += " (" + L.assumed + ")";
    b.textContent = text;
    b.setAttribute("aria-label", L[field] + ": " + text + " – " + L.change);
  }

  function readingRow(turn) {
    var a = turn.answer || {}, r = a.reading;
    if (!r) return null;
    var lang = a.language === "en" ? "en" : "de";
    var held = FIELDS.filter(function (f) { return r[f] != null && !(Array.isArray(r[f]) && !r[f].length); });
    if (!held.length && !(a.choices || []).length) return null;
    var lead = (a.understood || "").split(":")[0] || R[lang].lead;
    var row = el("div", { class: "sw-reading", role: "group", "aria-label": a.understood || lead },
      [held.length ? el("span", { class: "sw-label sw-rlead", text: lead }) : null]);
    row._turn = turn;
    function add(field, extra) {
      var b = el("button", { type: "button", class: "sw-rchip" + extra, "data-field": field });
      b.addEventListener("click", function () { if (!busy) editChip(b, field, r, lang, turn); });
      setChip(b, field, r, lang, null);
      row.appendChild(b);
    }
    held.forEach(function (f) { add(f, ""); });
    if (r.model) ADDABLE.forEach(function (f) { if (held.indexOf(f) < 0) add(f, " sw-add"); });
    (a.choices || []).forEach(function (c) {
      row.appendChild(el("button", { type: "button", class: "sw-chip sw-choice", text: c.label, onclick: function () {
        if (!busy) ask("✎ " + c.label, { session_id: a.session_id, reading: c.reading });
      } }));
    });
    if (r.model || (r.configurations || []).length) {
      readingOptions(lang).then(function (opts) {
        row.querySelectorAll(".sw-rchip").forEach(function (b) {
          setChip(b, b.getAttribute("data-field"), r, lang, opts);
        });
      }).catch(function () { /* the ids stay */ });
    }
    return row;
  }

  // Only the newest answer of the conversation can be changed: the server re-answers the
  // session's last question.
  function refreshChips() {
    var last = null;
    state.turns.forEach(function (t) { if (t.answer) last = t; });
    log.querySelectorAll(".sw-reading").forEach(function (row) {
      var stale = busy || row._turn !== last;
      row.classList.toggle("sw-stale", row._turn !== last);
      row.querySelectorAll("button").forEach(function (b) { b.disabled = stale; });
    });
  }

  function editChip(chipBtn, field, r, lang, turn) {
    var L = R[lang], id = "sw-edit-" + (++editSeq), number = STEP[field], control;
    if (number) {
      control = el("input", { type: "number", min: "1", step: number, inputmode: "numeric",
        value: r[field] == null ? "" : String(r[field]) });
    } else {
      control = el("select", { disabled: "" });
      var now = field === "configurations" ? (r[field] || [])[0] : r[field];
      if (now) control.appendChild(el("option", { value: now, text: chipBtn.textContent }));
      readingOptions(lang).then(function (opts) {
        var list = field === "precision" ? opts.precisions.map(function (p) { return { id: p, name: p.toUpperCase() }; })
          : field === "model" ? opts.models
          : opts.configurations.map(function (c) { return { id: c.id, name: c.label + " – " + formatUsd(c.usd_per_month) + "/" + L.month }; });
        control.textContent = "";
        list.forEach(function (o) { control.appendChild(el("option", { value: o.id, text: o.name })); });
        if (now) control.value = now;
        control.disabled = false;
      }).catch(function () { cancel(); });
    }
    control.id = id;
    var form = el("form", { class: "sw-edit" }, [
      el("label", { for: id, text: L[field] }), control,
      el("button", { type: "submit", class: "sw-apply", text: "✓", "aria-label": L.apply, title: L.apply }),
      el("button", { type: "button", class: "sw-cancel", text: "✕", "aria-label": L.cancel, title: L.cancel, onclick: cancel })
    ]);
    function cancel() { if (form.parentNode) { form.parentNode.replaceChild(chipBtn, form); chipBtn.focus(); } }
    form.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); cancel(); }
    });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      if (busy || control.disabled) return;
      if (number && !control.checkValidity()) { control.reportValidity(); return; }
      var raw = control.value, value;
      if (number) value = raw === "" ? null : Number(raw);
      else value = field === "configurations" ? [raw] : raw;
      var old = field === "configurations" ? (r[field] || [])[0] : r[field];
      if (raw === (old == null ? "" : String(old))) { cancel(); return; }
      var shown = value == null ? "–" : number ? chipText(field, (function () { var c = {}; c[field] = value; return c; })(), lang)
        : control.options[control.selectedIndex].text;
      var reading = {};
      reading[field] = value;
      form.parentNode.replaceChild(chipBtn, form);  // this answer keeps its reading, disabled
      ask("✎ " + L[field] + ": " + shown, { session_id: (turn.answer || {}).session_id, reading: reading });
    });
    chipBtn.parentNode.replaceChild(form, chipBtn);
    control.focus();
  }

  // A link to a section of the page being read (the cited guide is this page: its canonical
  // URL, or its address) scrolls there instead of opening a tab.
  function pageUrl() {
    var canonical = document.querySelector('link[rel="canonical"]');
    return (canonical && canonical.href) || location.href;
  }
  function bare(url) { return String(url).split("#")[0].replace(/\/+$/, ""); }
  function onThisPage(href) {
    var hash = String(href).split("#")[1];
    if (!hash || bare(href) !== bare(pageUrl())) return null;
    return document.getElementById(decodeURIComponent(hash));
  }
  log.addEventListener("click", function (e) {
    var a = e.target && e.target.closest ? e.target.closest("a[href]") : null;
    var target = a && onThisPage(a.href);
    if (!target) return;
    e.preventDefault();
    target.scrollIntoView({ behavior: "smooth", block: "start" });
    if (history.replaceState) history.replaceState(null, "", "#" + target.id);
  });

  function citeMap(citations) {
    var map = {};
    (citations || []).forEach(function (c) { map[String(c.n)] = c; });
    return map;
  }

  // Shown at once on send, until the answer is complete (every mode). A polite live region: in
  // LLM mode its text follows the tool that runs ("Prüfe den Katalog …"), see progressText.
  function typing(label) {
    return el("p", { class: "sw-typing", role: "status", "aria-live": "polite" }, [
      el("span", { class: "sw-dots", "aria-hidden": "true" }, [el("i"), el("i"), el("i")]),
      el("span", { class: "sw-typing-text", text: label || T.thinking })
    ]);
  }

  // A progress event (LLM mode: a tool call started or finished) in the widget's language; a
  // tool that finished keeps its text until the next one starts or the answer's text arrives
  // (a fast tool would otherwise flash by unseen).
  function progressText(data) {
    return T.tools[data.tool] || T.working;
  }

  // A finished answer: its short summary first, then what was understood (chips), prices and
  // the thumbs, all within a phone's first screen; the whole answer and its sources sit behind
  // "Details" (issue 26). An answer without a summary (older stored turns) is shown whole.
  function renderAnswer(body, turn, pending) {
    var a = turn.answer || {};
    body.textContent = "";
    var cites = citeMap(a.citations || turn.citations);
    var text = el("div", { class: "sw-md" });
    text.innerHTML = renderMarkdown(a.answer || turn.partial || "", cites);
    var short = !pending && a.summary;
    var details = null;
    if (short) {
      var summary = el("div", { class: "sw-md sw-summary" });
      summary.innerHTML = renderMarkdown(a.summary, cites);
      body.appendChild(summary);
      details = el("details", { class: "sw-details" }, [el("summary", { text: T.details }), text]);
    } else {
      body.appendChild(text);
    }
    if (pending) { body.appendChild(typing(turn.progress)); return; }
    var row = readingRow(turn);
    if (row) body.appendChild(row);
    if (a.notice) body.appendChild(el("p", { class: "sw-notice", text: a.notice }));
    if (a.prices && a.prices.length) {
      var list = el("ul", { class: "sw-prices", "aria-label": T.prices });
      a.prices.forEach(function (p) {
        var item = el("li", { class: "sw-price" }, [
          link(p.url, p.label, "sw-price-label"),
          el("span", { class: "sw-amount", text: formatUsd(p.usd_per_month) + "/" + T.month })
        ]);
        if (p.placeholder) item.appendChild(el("span", { class: "sw-badge", text: T.placeholderPrice }));
        list.appendChild(item);
      });
      body.appendChild(el("div", { class: "sw-section" }, [el("div", { class: "sw-label", text: T.prices }), list]));
    }
    if (a.citations && a.citations.length) {
      var sources = el("ol", { class: "sw-sources", "aria-label": T.sources });
      a.citations.forEach(function (c) {
        sources.appendChild(el("li", { value: String(c.n) }, [
          el("span", { class: "sw-n", "aria-hidden": "true", text: c.n + "." }),
          link(c.url, c.title + " – " + c.section, "sw-source")
        ]));
      });
      (details || body).appendChild(el("div", { class: "sw-section" }, [el("div", { class: "sw-label", text: T.sources }), sources]));
    }
    if (a.message_id) body.appendChild(feedbackBar(turn));
    var chart = chartNode(turn);  // below the thumbs: the first screen holds summary to 👍/👎
    if (chart) body.appendChild(chart);
    if (details) body.appendChild(details);
    if (a.follow_ups && a.follow_ups.length) {
      var chips = el("div", { class: "sw-chips", role: "group", "aria-label": T.followUps });
      a.follow_ups.forEach(function (q) { chips.appendChild(chip(q)); });
      body.appendChild(chips);
    }
  }

  // ---------------------------------------------------------------- a picture of the choice
  // `answer.chart` (fit, cheapest, comparison answers): the configurations that hold the job as
  // points of monthly price (x) against tokens/s (y), NVLink filled, PCIe hollow, the
  // recommended one ringed and named. Inline SVG, no library. A point is a button: it answers
  // again for that node. Screen readers get the same figures as a table.
  var SVG = "http://www.w3.org/2000/svg";
  function svgEl(tag, attrs, children) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function chartNode(turn) {
    var a = turn.answer || {}, c = a.chart;
    if (!c || !c.points || !c.points.length) return null;
    var W = 300, H = 170, L = 44, R = 12, TOP = 10, B = 34;
    var xs = c.points.map(function (p) { return Number(p.usd_per_month); });
    var ys = c.points.map(function (p) { return Number(p.tokens_per_s); });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs), y1 = Math.max.apply(null, ys);
    if (x1 === x0) { x0 = x0 * 0.9; x1 = x1 * 1.1 || 1; }
    function px(v) { return L + (v - x0) / (x1 - x0) * (W - L - R); }
    function py(v) { return H - B - (y1 ? v / y1 : 0) * (H - B - TOP); }
    var svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, class: "sw-chart-svg", role: "group",
      "aria-label": T.chart + ": " + (c.model_name || "") });
    svg.appendChild(svgEl("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "sw-axis" }));
    svg.appendChild(svgEl("line", { x1: L, y1: TOP, x2: L, y2: H - B, class: "sw-axis" }));
    function label(x, y, text, anchor, cls) {
      var t = svgEl("text", { x: x, y: y, "text-anchor": anchor || "middle", class: cls || "sw-tick", "aria-hidden": "true" });
      t.textContent = text;
      svg.appendChild(t);
    }
    label(px(x0), H - B + 13, formatUsd(Math.round(x0)), "start");
    label(px(x1), H - B + 13, formatUsd(Math.round(x1)), "end");
    label(W / 2, H - 4, T.chartX, "middle", "sw-axis-label");
    label(L - 4, TOP + 8, String(Math.round(y1)), "end");
    label(L - 4, H - B, "0", "end");
    var yl = svgEl("text", { x: 10, y: (H - B) / 2, "text-anchor": "middle", class: "sw-axis-label",
      transform: "rotate(-90 10 " + (H - B) / 2 + ")", "aria-hidden": "true" });
    yl.textContent = T.chartY;
    svg.appendChild(yl);
    var rows = [];
    c.points.forEach(function (p) {
      var x = px(Number(p.usd_per_month)), y = py(Number(p.tokens_per_s));
      var name = p.label + ": " + formatUsd(p.usd_per_month) + "/" + T.month + ", " + p.tokens_per_s +
        " tokens/s, " + (p.link === "nvlink" ? "NVLink" : "PCIe") + (p.recommended ? " (" + T.recommended + ")" : "");
      var g = svgEl("g", { class: "sw-pt sw-pt-" + p.link + (p.recommended ? " sw-pt-rec" : ""), role: "button",
        tabindex: "0", "aria-label": name + " – " + T.pick, "data-configuration": p.configuration });
      var title = svgEl("title"); title.textContent = name; g.appendChild(title);
      if (p.recommended) g.appendChild(svgEl("circle", { cx: x, cy: y, r: 9, class: "sw-pt-ring" }));
      g.appendChild(svgEl("circle", { cx: x, cy: y, r: p.recommended ? 5.5 : 4.5, class: "sw-pt-dot" }));
      function pick() {
        if (busy) return;
        ask("✎ " + p.label, { session_id: a.session_id, reading: { configurations: [p.configuration] } });
      }
      g.addEventListener("click", pick);
      g.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); }
      });
      svg.appendChild(g);
      if (p.recommended) label(Math.min(Math.max(x, L + 40), W - R - 40), y - 12, p.label, "middle", "sw-pt-name");
      rows.push(el("tr", { class: p.recommended ? "sw-row-rec" : "" }, [
        el("th", { scope: "row", text: p.label + (p.recommended ? " (" + T.recommended + ")" : "") }),
        el("td", { text: formatUsd(p.usd_per_month) }),
        el("td", { text: String(p.tokens_per_s) }),
        el("td", { text: p.link === "nvlink" ? "NVLink" : "PCIe" })
      ]));
    });
    var legend = el("p", { class: "sw-legend", "aria-hidden": "true" }, [
      el("span", { class: "sw-key sw-key-nvlink", text: "NVLink" }),
      el("span", { class: "sw-key sw-key-pcie", text: "PCIe" }),
      el("span", { class: "sw-key sw-key-rec", text: T.recommended })
    ]);
    var table = el("table", { class: "sw-chart-table" }, [
      el("caption", { text: T.chartTable + " – " + (c.model_name || "") }),
      el("thead", {}, [el("tr", {}, [
        el("th", { scope: "col", text: T.configuration }), el("th", { scope: "col", text: T.chartX }),
        el("th", { scope: "col", text: T.chartY }), el("th", { scope: "col", text: T.link })
      ])]),
      el("tbody", {}, rows)
    ]);
    var box = el("figure", { class: "sw-section sw-chart" }, [el("figcaption", { class: "sw-label", text: T.chart })]);
    box.appendChild(svg);
    box.appendChild(legend);
    box.appendChild(el("div", { class: "sw-sr-only" }, [table]));  // a table has no 1 px box
    return box;
  }

  function feedbackBar(turn) {
    var bar = el("div", { class: "sw-feedback", "data-message-id": (turn.answer || {}).message_id || "" });
    var status = el("span", { class: "sw-thanks", role: "status", text: turn.rating ? T.thanks : "" });
    ["up", "down"].forEach(function (rating) {
      var b = el("button", {
        class: "sw-vote", type: "button", "aria-label": T[rating], title: T[rating],
        "aria-pressed": String(turn.rating === rating), "data-rating": rating
      });
      b.appendChild(icon(rating));
      b.addEventListener("click", function () {
        var vote = feedbackOf(turn, rating);
        sendFeedback(vote).then(function (result) {
          if (result === "rejected") { status.textContent = T.lost; return; }
          turn.rating = rating;
          if (result === "queued") queueFeedback(vote);
          save();
          bar.querySelectorAll(".sw-vote").forEach(function (x) {
            x.setAttribute("aria-pressed", String(x.getAttribute("data-rating") === rating));
          });
          status.textContent = result === "queued" ? T.queued : T.thanks;
          var open = bar.querySelector(".sw-why");
          if (open) open.parentNode.removeChild(open);
          if (rating === "down" && result !== "queued") bar.appendChild(whyForm(turn, status));
        });
      });
      bar.appendChild(b);
    });
    bar.appendChild(status);
    return bar;
  }

  // After a 👎: what was wrong (a few reasons and a text box), sent as the same vote again with
  // `reasons` and `comment` (POST /api/feedback replaces the vote, keeps one row).
  function whyForm(turn, status) {
    var boxes = Object.keys(T.reasons).map(function (key) {
      var box = el("input", { type: "checkbox", value: key });
      return el("label", { class: "sw-reason" }, [box, document.createTextNode(" " + T.reasons[key])]);
    });
    var text = el("textarea", { class: "sw-more", rows: "2", maxlength: "2000", "aria-label": T.more, placeholder: T.more });
    var form = el("form", { class: "sw-why" }, [
      el("fieldset", {}, [el("legend", { text: T.why })].concat(boxes)),
      text,
      el("button", { type: "submit", class: "sw-chip", text: T.sendWhy })
    ]);
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var vote = feedbackOf(turn, "down");
      vote.reasons = Array.prototype.filter.call(form.querySelectorAll("input"), function (x) { return x.checked; })
        .map(function (x) { return x.value; });
      var said = text.value.trim();
      if (said) vote.comment = said;
      sendFeedback(vote).then(function (result) {
        if (result === "rejected") { status.textContent = T.lost; return; }
        if (result === "queued") queueFeedback(vote);
        if (form.parentNode) form.parentNode.removeChild(form);
        status.textContent = result === "queued" ? T.queued : T.thanks;
      });
    });
    return form;
  }

  // A long paste in a question (tool output, a log, an e-mail) is folded behind its size, so
  // the answer below it stays in view; the prose before it is shown as asked.
  var PASTE_LINE = /^\s*(```|#|>|-{5,}|GPU\d|NIC\d)|\t|\S {3,}\S/;
  function pasteOf(q) {
    if (q.length < 600) return null;
    var lines = q.split("\n"), i = 0;
    while (i < lines.length && !PASTE_LINE.test(lines[i])) i++;
    var paste = lines.slice(i).join("\n");
    if (paste.length < 300) return null;
    return { prose: lines.slice(0, i).join("\n").trim(), paste: paste };
  }

  function userNode(turn) {
    var parts = pasteOf(turn.q);
    var kids = [el("p", { text: parts ? parts.prose : turn.q })];
    if (parts) {
      var size = parts.paste.length.toLocaleString(LANG === "de" ? "de-DE" : "en-US");
      kids.push(el("details", { class: "sw-paste" }, [
        el("summary", { text: T.pasted.replace("{n}", size) }), el("pre", { text: parts.paste })
      ]));
    }
    return el("div", { class: "sw-msg sw-user" + (turn.edit ? " sw-adjust" : ""), "aria-label": T.you },
      kids);
  }

  function turnNodes(turn) {
    var q = userNode(turn);
    var body = el("div", { class: "sw-msg sw-bot", "aria-label": T.bot });
    if (turn.error) showError(body, turn, q);
    else renderAnswer(body, turn);
    return [q, body];
  }

  // A failed question is never lost: the error says why and offers to send it again.
  function showError(body, turn, q) {
    body.textContent = "";
    body.appendChild(el("p", { class: "sw-error", role: "alert", text: turn.error }));
    body.appendChild(el("button", {
      class: "sw-retry", type: "button", text: T.again, onclick: function () {
        if (busy) return;
        state.turns = state.turns.filter(function (t) { return t !== turn; });
        if (q.parentNode) q.parentNode.removeChild(q);
        if (body.parentNode) body.parentNode.removeChild(body);
        if (input.value.trim() === turn.q) { input.value = ""; autosize(); }
        save();
        ask(turn.q, turn.edit);
      }
    }));
  }

  function renderAll() {
    log.textContent = "";
    log.appendChild(intro());
    state.turns.forEach(function (t) { turnNodes(t).forEach(function (n) { log.appendChild(n); }); });
    refreshChips();
    log.scrollTop = log.scrollHeight;
  }

  // ---------------------------------------------------------------- talking to the API
  var busy = false;

  function submit() {
    var q = input.value.trim();
    if (q) ask(q);
  }

  function errorText(status, body, headers) {
    if (status === 429) {
      var s = headers.get("Retry-After") || "10";
      return T.retry.replace("{s}", s);
    }
    var msg = body && body.error && body.error.message;
    if (msg && status >= 400 && status < 500) return msg;
    return status === 503 ? T.offline : T.failed;
  }

  // A question, or (`edit`: {session_id, reading}) a change to the newest answer's reading.
  function ask(question, edit) {
    if (busy) return;
    busy = true; sendBtn.disabled = true;
    if (!edit) { input.value = ""; autosize(); }
    var turn = { q: question, partial: "", citations: [] };
    if (edit) turn.edit = edit;
    state.turns.push(turn);
    refreshChips();
    var q = userNode(turn);
    var body = el("div", { class: "sw-msg sw-bot sw-pending", "aria-label": T.bot, "aria-busy": "true" },
      [typing()]);
    log.appendChild(q); log.appendChild(body);
    log.scrollTop = log.scrollHeight;

    var scheduled = false;
    function follow() {  // keep the question in view: follow the answer until it fills the log
      log.scrollTop = Math.min(log.scrollHeight - log.clientHeight, q.offsetTop - 8);
    }
    function paint() {
      if (scheduled) return;
      scheduled = true;
      requestAnimationFrame(function () {
        scheduled = false;
        if (turn.answer) return;
        renderAnswer(body, turn, true);
        follow();
      });
    }
    function finish(error) {
      if (error) {
        turn.error = error;
        showError(body, turn, q);
        if (!edit && !input.value.trim()) { input.value = question; autosize(); }  // the question stays
      }
      body.classList.remove("sw-pending"); body.removeAttribute("aria-busy");
      delete turn.partial; delete turn.citations; delete turn.progress;
      save();
      busy = false; sendBtn.disabled = false;
      refreshChips();
      follow();
      input.focus({ preventScroll: true });
    }
    function showProgress(label) {  // in place: the live region stays, so it is announced
      turn.progress = label;
      var shown = body.querySelector(".sw-typing-text");
      if (shown) shown.textContent = label || T.thinking;
    }
    function onEvent(type, data) {
      if (type === "progress") { if (data.stage === "started" && !turn.partial) showProgress(progressText(data)); }
      else if (type === "token") { if (turn.progress) showProgress(null); turn.partial += data.text || ""; paint(); }
      else if (type === "reset") { turn.partial = ""; turn.citations = []; paint(); showProgress(T.tools.check); }
      else if (type === "citation" && data.citation) { turn.citations.push(data.citation); paint(); }
      else if (type === "done" && data.answer) {
        turn.answer = data.answer;
        state.session_id = data.answer.session_id;
        renderAnswer(body, turn);
        finish(null);
        flushFeedback();  // the server answers again: send what was queued while it was down
        return true;
      } else if (type === "error") { finish(data.message || T.failed); return true; }
      return false;
    }

    fetch(API + "/api/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "text/event-stream" },
      body: JSON.stringify(edit ? edit : { message: question, session_id: state.session_id || null, language: LANG })
    }).then(function (res) {
      if (!res.ok) {
        return res.json().catch(function () { return null; }).then(function (b) {
          finish(errorText(res.status, b, res.headers));
        });
      }
      if (!res.body || !res.body.getReader) {
        return res.text().then(function (text) { readSse(text, onEvent, true); });
      }
      var reader = res.body.getReader(), decoder = new TextDecoder(), buffer = "", ended = false;
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) {
            buffer += decoder.decode();
            if (!ended) ended = readSse(buffer + "\n\n", onEvent, true).ended;
            if (!ended) finish(T.failed);
            return;
          }
          buffer += decoder.decode(chunk.value, { stream: true });
          var r = readSse(buffer, onEvent, false);
          buffer = r.rest;
          if (r.ended) { ended = true; reader.cancel().catch(function () {}); return; }
          return pump();
        });
      }
      return pump();
    }).catch(function () { if (busy) finish(T.offline); });
  }

  // Parse complete SSE events out of `text`; returns the unparsed rest.
  function readSse(text, onEvent, final) {
    var normalized = text.replace(/\r\n?/g, "\n");
    var blocks = normalized.split("\n\n");
    var rest = final ? "" : blocks.pop();
    var ended = false;
    blocks.forEach(function (block) {
      if (ended || !block.trim()) return;
      var type = "message", data = [];
      block.split("\n").forEach(function (line) {
        if (!line || line.charAt(0) === ":") return;
        var idx = line.indexOf(":");
        var name = idx < 0 ? line : line.slice(0, idx);
        var value = idx < 0 ? "" : line.slice(idx + 1).replace(/^ /, "");
        if (name === "event") type = value;
        else if (name === "data") data.push(value);
      });
      if (!data.length) return;
      var payload;
      try { payload = JSON.parse(data.join("\n")); } catch (e) { return; }
      ended = onEvent(type, payload) || ended;
    });
    return { rest: rest, ended: ended };
  }

  function feedbackOf(turn, rating) {
    var a = turn.answer || {};
    return { session_id: a.session_id, message_id: a.message_id, rating: rating };
  }

  // "sent"; "queued" when the server cannot be reached (network, 5xx): kept and sent later;
  // "rejected" when the server said no (4xx).
  function sendFeedback(vote) {
    return fetch(API + "/api/feedback", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(vote)
    }).then(function (res) {
      return res.ok ? "sent" : res.status >= 500 || res.status === 429 ? "queued" : "rejected";
    }).catch(function () { return "queued"; });
  }

  function queueFeedback(vote) {
    state.feedback_queue = (state.feedback_queue || []).filter(function (v) {
      return v.message_id !== vote.message_id;
    }).concat([vote]);
    save();
  }

  function flushFeedback() {
    (state.feedback_queue || []).forEach(function (vote) {
      sendFeedback(vote).then(function (result) {
        if (result === "queued") return;
        state.feedback_queue = (state.feedback_queue || []).filter(function (v) { return v !== vote; });
        save();
        var bar = log.querySelector('.sw-feedback[data-message-id="' + vote.message_id + '"] .sw-thanks');
        if (bar) bar.textContent = result === "sent" ? T.thanks : T.lost;
      });
    });
  }
  window.addEventListener("online", flushFeedback);

  // ---------------------------------------------------------------- start
  function mount() {
    // first in the page: the launcher is the first stop of the Tab key (it is fixed on screen,
    // so its place in the document does not move it)
    document.body.insertBefore(host, document.body.firstChild);
    renderAll();
    flushFeedback();
    if (state.open || (script && script.getAttribute("data-open") === "true")) {
      panel.hidden = false;
      launcher.setAttribute("aria-expanded", "true");
      launcher.classList.add("sw-hidden");
      log.scrollTop = log.scrollHeight;
    }
  }
  if (document.body) mount(); else document.addEventListener("DOMContentLoaded", mount);

  // A small public handle: open/close/ask from the host page; renderMarkdown for tests.
  window.SizingWidget = {
    open: function () { setOpen(true); },
    close: function () { setOpen(false); },
    ask: function (q) { setOpen(true); ask(String(q)); },
    renderMarkdown: renderMarkdown
  };
})();
