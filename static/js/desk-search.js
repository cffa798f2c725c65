// The desk's search without a connection. The server searches (htmx swaps its answer into the results); with no
// connection that answer never comes, and the previous search's players would stay on screen as if they were
// this one's. Instead the results say there is no connection, and show the players matching the search in what
// the phone keeps: the list of who is missing (the service worker's copy of that page, static/js/sw.js), with
// the time it was kept. Their "Check in" waits on the phone (static/js/desk-outbox.js). When the connection
// returns, the search runs again on the server, and again once the check-ins that waited have arrived.
// All the words shown come from the page (data- attributes of [data-desk-offline-search], translated by the
// template). Without this script (or without JavaScript) the search is an ordinary form, as before.
(function () {
  "use strict";
  var results = document.querySelector("[data-desk-offline-search]");
  var form = document.querySelector('form[role="search"]');
  var input = form && form.querySelector('input[name="q"]');
  if (!results || !input) { return; }
  var asked = 0;  // each search offline: only the last one's answer is shown
  var shown = false;  // the results say "no connection"

  function label(name) { return results.getAttribute("data-label-" + name) || ""; }
  function fill(text, values) {
    Object.keys(values).forEach(function (name) { text = text.split("{" + name + "}").join(values[name]); });
    return text;
  }
  // As the server reads a name (tournament/models/registration.py, name_key): width-folded, case-folded, no spaces.
  function key(text) { return text.normalize("NFKC").toLowerCase().replace(/\s+/g, ""); }

  // The list of who is missing as the phone keeps it: its rows and when the server made that copy.
  function keptList() {
    if (!window.caches) { return Promise.resolve(null); }
    var address = new URL(results.getAttribute("data-desk-offline-search"), location.href).href;
    return window.caches.match(address, {ignoreSearch: true}).then(function (copy) {
      if (!copy) { return null; }
      var made = Date.parse(copy.headers.get("Date") || "") || 0;
      return copy.text().then(function (html) {
        var page = new DOMParser().parseFromString(html, "text/html");
        return {made: made, rows: Array.prototype.slice.call(page.querySelectorAll("#desk-missing > li[data-name-key]"))};
      });
    }).catch(function () { return null; });
  }
  function clock(ms) {
    try {
      return new Intl.DateTimeFormat("en-GB", {hour: "2-digit", minute: "2-digit", hourCycle: "h23",
        timeZone: results.getAttribute("data-time-zone") || undefined}).format(new Date(ms));
    } catch (e) { return ""; }
  }
  function matches(row, typed) {
    var folded = typed.normalize("NFKC").trim();
    var number = /^#?([0-9]{1,9})$/.exec(folded);
    if (number && row.getAttribute("data-number") === String(Number(number[1]))) { return true; }
    var wanted = key(number ? number[1] : typed);
    return wanted !== "" && (row.getAttribute("data-name-key") || "").indexOf(wanted) !== -1;
  }
  function line(className, text) {
    var p = document.createElement("p");
    p.className = className;
    p.textContent = text;
    return p;
  }

  function searchKept() {
    var mine = ++asked;
    var typed = input.value.trim();
    return keptList().then(function (kept) {
      if (mine !== asked) { return; }
      var found = kept ? kept.rows.filter(function (row) { return matches(row, typed); }) : [];
      var limit = Number(results.getAttribute("data-limit")) || 30;
      var parts = [];
      var say = kept ? fill(label("offline-kept"), {time: clock(kept.made)}) : label("offline-none");
      var note = line("alert alert-warning py-2", say);
      note.setAttribute("role", "status");
      note.setAttribute("data-desk-offline", kept ? "kept" : "none");
      parts.push(note);
      if (kept && typed && !found.length) {
        parts.push(line("", fill(label("nobody"), {query: typed})));
      } else if (found.length) {
        var list = document.createElement("ul");
        list.className = "list-group";
        found.slice(0, limit).forEach(function (row) { list.appendChild(document.importNode(row, true)); });
        parts.push(list);
        if (found.length > limit) { parts.push(line("small text-body-secondary mt-2", label("more"))); }
      }
      results.replaceChildren.apply(results, parts);
      shown = true;
      if (window.htmx) { window.htmx.process(results); }
      // The desk's outbox marks the rows whose check-in already waits on this phone.
      document.dispatchEvent(new CustomEvent("desk:rows"));
    });
  }

  function ours(event) {
    var element = event.detail && event.detail.elt;
    return !!(element && element.closest && element.closest('form[role="search"]') === form);
  }
  // Known to be offline: no request (it would only fail), the phone's own list at once.
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    if (ours(event) && navigator.onLine === false) {
      event.preventDefault();
      searchKept();
    }
  });
  document.body.addEventListener("htmx:sendError", function (event) { if (ours(event)) { searchKept(); } });
  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (ours(event) && event.detail.successful) { asked++; shown = false; }  // the server's answer stands
  });
  function again() { if (window.htmx && navigator.onLine !== false) { window.htmx.trigger(input, "search"); } }
  window.addEventListener("online", function () { if (shown) { again(); } });
  // Check-ins tapped offline have arrived: their rows, as the server has them now.
  document.addEventListener("desk:reported", function () { if (input.value.trim()) { again(); } });
  // Opened without a connection: the worker's copy of this page answers another search, made at another time.
  // This address's search, in what the phone keeps.
  if (navigator.onLine === false) {
    var typed = new URLSearchParams(location.search).get("q");
    if (typed !== null) { input.value = typed; }
    searchKept();
  }
})();
