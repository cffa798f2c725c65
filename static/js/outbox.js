// The referee's outbox: a sheet sent without a connection waits on the phone and goes by itself when the
// connection returns. Progressive enhancement: without service workers the form posts as it always did.
// - "Send" posts the sheet with fetch; no answer (no connection) puts it in localStorage
//   ("rk-outbox|<table>|<game>|<idempotency key>") with the form's fields as sent, and the page says so.
// - Queued sheets are sent again on `online`, when the page becomes visible, on a timer, and when the service
//   worker's Background Sync says the connection is back. The idempotency key makes the server record one
//   sheet however often it arrives (scoring/services/sheets.py).
// - After sending, the phone asks the sheet's status (…/status/) until the chief referee confirms or returns it.
// - A sheet the server did not accept on arrival (a mistake the rules engine found, a changed draw) is posted
//   again as an ordinary form when its game page is opened: the server's page shows why, with the sheet filled.
// All the words shown come from the page (data- attributes of [data-outbox], translated by the templates).
(function () {
  "use strict";
  var PREFIX = "rk-outbox|";
  var RETRY_MS = 20000;
  var busy = false;
  var panel = null;

  function store() { try { return window.localStorage; } catch (e) { return null; } }
  function read(key) { try { return JSON.parse(store().getItem(key)); } catch (e) { return null; } }
  function write(key, value) { try { store().setItem(key, JSON.stringify(value)); } catch (e) { /* full */ } }
  function remove(key) { try { store().removeItem(key); } catch (e) { /* nothing */ } }
  function entries() {
    var found = [], s = store();
    if (!s) { return found; }
    for (var i = 0; i < s.length; i++) {
      var key = s.key(i);
      if (key && key.indexOf(PREFIX) === 0) {
        var value = read(key);
        if (value && value.url) { found.push({key: key, value: value}); } else { remove(key); }
      }
    }
    return found;
  }
  function label(name) { return panel ? panel.getAttribute("data-label-" + name) || "" : ""; }

  function render() {
    if (!panel) { return; }
    var scope = panel.getAttribute("data-outbox");
    panel.querySelectorAll("[data-outbox-game]").forEach(function (line) {
      var game = line.getAttribute("data-outbox-game");
      var entry = entries().filter(function (e) {
        return e.value.scope === scope && String(e.value.game) === game;
      }).sort(function (a, b) { return b.value.saved - a.value.saved; })[0];
      if (!entry) { line.hidden = true; line.textContent = ""; line.removeAttribute("data-state"); return; }
      var state = entry.value.state;
      line.textContent = label(state) + (entry.value.reason ? " " + entry.value.reason : "");
      line.setAttribute("data-state", state);
      line.className = "alert " + ({queued: "alert-warning", sent: "alert-info", confirmed: "alert-success"}[state] ||
        "alert-danger") + " outbox-line";
      line.hidden = false;
      if (state === "confirmed" || state === "returned") {  // said once; the server's pages say it from now on
        entry.value.shown = (entry.value.shown || 0) + 1;
        if (entry.value.shown > 1) { remove(entry.key); } else { write(entry.key, entry.value); }
      }
    });
  }

  function post(entry) {
    return fetch(entry.url, {
      method: "POST", body: entry.body, credentials: "same-origin", redirect: "manual",
      headers: {"Content-Type": "application/x-www-form-urlencoded"}
    });
  }
  function arrived(response) {  // the server's answer to a sheet: recorded (a redirect to the table) or not
    if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) { return "sent"; }
    if (response.status >= 500 || response.status === 429) { return null; }  // try again later
    return "refused";
  }

  // The sheet as the server should see it again: an ordinary form post, so its page shows why it was refused.
  function replay(entry) {
    remove(entry.key);
    var form = document.createElement("form");
    form.method = "post";
    form.setAttribute("action", entry.value.url);
    new URLSearchParams(entry.value.body).forEach(function (value, name) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      form.appendChild(input);
    });
    document.body.appendChild(form);
    HTMLFormElement.prototype.submit.call(form);
  }

  function here(entry) {
    return panel && panel.hasAttribute("data-outbox-page") && entry.value.scope === panel.getAttribute("data-outbox") &&
      String(entry.value.game) === panel.getAttribute("data-outbox-page");
  }

  function ask(entry) {  // where a sent sheet is now
    return fetch(entry.value.statusUrl, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (status) {
        if (!status) { return; }
        var mine = status.key === entry.value.key;
        if (status.status === "confirmed" && mine) { entry.value.state = "confirmed"; }
        else if (status.status === "returned" && mine) { entry.value.state = "returned"; entry.value.reason = status.reason; }
        else if (status.status !== "submitted" || !mine) { entry.value.state = "refused"; }
        write(entry.key, entry.value);
      }).catch(function () { /* no connection: ask later */ });
  }

  function flush() {
    if (busy || navigator.onLine === false) { return; }
    var work = entries().filter(function (e) { return ["queued", "sent", "refused"].indexOf(e.value.state) !== -1; });
    if (!work.length) { return; }
    busy = true;
    var chain = Promise.resolve();
    work.forEach(function (entry) {
      chain = chain.then(function () {
        if (entry.value.state === "refused") {
          if (here(entry)) { replay(entry); }
          return null;
        }
        if (entry.value.state === "sent") { return ask(entry); }
        return post(entry.value).then(function (response) {
          var state = arrived(response);
          if (!state) { return null; }
          entry.value.state = state;
          write(entry.key, entry.value);
          if (state === "refused" && here(entry)) { replay(entry); }
          return null;
        }, function () { /* still no connection */ });
      });
    });
    chain.then(function () { busy = false; render(); }, function () { busy = false; render(); });
  }

  // "Send" on a sheet form marked data-outbox: through fetch, queued when there is no answer.
  function queue(form, body) {
    var key = form.elements.idempotency_key.value;
    var scope = form.getAttribute("data-outbox-scope"), game = form.getAttribute("data-outbox-sheet");
    write(PREFIX + scope + "|" + game + "|" + key, {
      scope: scope, game: game, key: key, url: form.getAttribute("action"), body: body, state: "queued", saved: Date.now(),
      statusUrl: form.getAttribute("data-status-url")
    });
    try {
      navigator.serviceWorker.ready.then(function (registration) {
        if (registration.sync) { return registration.sync.register("rk-outbox"); }
        return null;
      }).catch(function () { /* no Background Sync (iOS): the timer and `online` do it */ });
    } catch (e) { /* idem */ }
    render();
    form.removeAttribute("data-sending");
    form.dispatchEvent(new CustomEvent("outbox:queued", {bubbles: true}));
    if (panel) { panel.scrollIntoView({block: "nearest"}); }
  }

  function setupForm(form) {
    form.addEventListener("submit", function (event) {
      var submitter = event.submitter;
      if (!submitter || submitter.value !== "submit" || form.getAttribute("data-sending")) { return; }
      event.preventDefault();  // sheet.js marks the form as sending (this listener runs first: capture)
      var data = new URLSearchParams(new FormData(form));
      data.set("action", "submit");
      var body = data.toString();
      if (navigator.onLine === false) { window.setTimeout(function () { queue(form, body); }, 0); return; }
      fetch(form.getAttribute("action"), {
        method: "POST", body: body, credentials: "same-origin", redirect: "manual",
        headers: {"Content-Type": "application/x-www-form-urlencoded"}
      }).then(function (response) {
        var state = arrived(response);
        if (state === "sent") { location.assign(form.getAttribute("data-table-url")); return; }
        // Not recorded (a refusal, a mistake): the ordinary post again, so the server's page says why.
        var action = document.createElement("input");
        action.type = "hidden";
        action.name = "action";
        action.value = "submit";
        form.appendChild(action);
        HTMLFormElement.prototype.submit.call(form);
      }, function () { queue(form, body); });
    }, true);
  }

  function setupOfflineCheck() {
    var note = document.querySelector("[data-offline-check]");
    if (!note) { return; }
    function show(offline) { note.hidden = !offline; }
    document.body.addEventListener("htmx:sendError", function () { show(true); });
    document.body.addEventListener("htmx:afterRequest", function (event) {
      if (event.detail && event.detail.successful) { show(false); }
    });
    window.addEventListener("offline", function () { show(true); });
    show(navigator.onLine === false);
  }

  function start() {
    panel = document.querySelector("[data-outbox]");
    if (!("serviceWorker" in navigator) || !window.fetch) { return; }
    document.querySelectorAll("form.sheet-form[data-outbox-form]").forEach(setupForm);
    setupOfflineCheck();
    render();
    flush();
    window.addEventListener("online", flush);
    document.addEventListener("visibilitychange", function () { if (!document.hidden) { flush(); } });
    window.setInterval(flush, RETRY_MS);
    navigator.serviceWorker.addEventListener("message", function (event) {
      if (event.data && event.data.type === "flush") { flush(); }
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); }
  else { start(); }
})();
