// The referee's outbox: a sheet sent without a connection waits on the phone and goes by itself when the
// connection returns. Progressive enhancement: without service workers the form posts as it always did.
// - "Send" posts the sheet with fetch; no answer (no connection) keeps it in the phone's outbox (IndexedDB,
//   static/js/outbox-store.js) with the form's fields as sent, and the page says so.
// - Queued sheets are sent by the service worker's Background Sync, even with the page closed (Chromium), and
//   by the page on `online`, when it becomes visible and on a timer (browsers without Background Sync: iOS).
//   Both use the same send function; the idempotency key makes the server record one sheet however often it
//   arrives (scoring/services/sheets.py).
// - After sending, the phone asks the sheet's status (…/status/) until the chief referee confirms or returns it.
// - A sheet the server did not accept on arrival (a mistake the rules engine found, a changed draw) is posted
//   again as an ordinary form when its game page is opened: the server's page shows why, with the sheet filled
//   (refused by a redirect, that page is opened: the server's message says why). It is never shown as sent: only
//   the game's status holding its key says it arrived.
// - A sheet goes only under the account that queued it (or none): queued under another, it says so and waits.
// All the words shown come from the page (data- attributes of [data-outbox], translated by the templates).
(function () {
  "use strict";
  var RETRY_MS = 20000;
  var outbox = window.RkOutbox;
  var busy = false, again = false;
  var panel = null;

  function label(name) { return panel ? panel.getAttribute("data-label-" + name) || "" : ""; }

  function render() {
    if (!panel) { return Promise.resolve(); }
    var scope = panel.getAttribute("data-outbox");
    return outbox.all("sheet").then(function (items) {
      var changes = [];
      panel.querySelectorAll("[data-outbox-game]").forEach(function (line) {
        var game = line.getAttribute("data-outbox-game");
        var item = items.filter(function (i) { return i.scope === scope && String(i.game) === game; })
          .sort(function (a, b) { return b.saved - a.saved; })[0];
        if (!item) { line.hidden = true; line.textContent = ""; line.removeAttribute("data-state"); return; }
        var state = item.state;
        if (outbox.heldFor(item, outbox.account())) {  // queued under another account: not sent from here
          state = "held";
          line.textContent = label(item.account ? "held" : "held-signed-out").split("{account}").join(item.account);
        } else {
          line.textContent = label(state) + (item.reason ? " " + item.reason : "");
        }
        line.setAttribute("data-state", state);
        line.className = "alert " + ({queued: "alert-warning", held: "alert-warning", sent: "alert-info",
          confirmed: "alert-success"}[state] || "alert-danger") + " outbox-line";
        line.hidden = false;
        if (state === "confirmed" || state === "returned") {  // said once; the server's pages say it from now on
          item.shown = (item.shown || 0) + 1;
          changes.push(item.shown > 1 ? outbox.remove(item.id) : outbox.put(item));
        }
      });
      return Promise.all(changes);
    }).catch(function () { /* no IndexedDB: nothing to show */ });
  }

  // The sheet as the server should see it again: an ordinary form post, so its page shows why it was refused.
  // Refused by a redirect, the server has already put its reason on the next page: that page, once (the
  // sheet's draft stays on the phone, static/js/sheet.js).
  function replay(item) {
    return outbox.remove(item.id).then(function () {
      if (item.answer === "redirect") {
        location.replace(item.page || location.pathname);
        return;
      }
      var token = document.querySelector('meta[name="csrf-token"]');
      var fields = new URLSearchParams(item.body);
      if (token) { fields.set("csrfmiddlewaretoken", token.content); }
      var form = document.createElement("form");
      form.method = "post";
      form.setAttribute("action", item.url);
      fields.forEach(function (value, name) {
        var input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        input.value = value;
        form.appendChild(input);
      });
      document.body.appendChild(form);
      HTMLFormElement.prototype.submit.call(form);
    });
  }

  function here(item) {
    return panel && panel.hasAttribute("data-outbox-page") && item.scope === panel.getAttribute("data-outbox") &&
      String(item.game) === panel.getAttribute("data-outbox-page");
  }

  // What the outbox holds now (sent by this page or by the service worker): shown, and a refused sheet of this
  // game posted again as a form.
  function update() {
    return outbox.all("sheet").then(function (items) {
      var refused = items.filter(function (i) { return i.state === "refused" && here(i); })[0];
      return refused ? replay(refused) : render();
    }).catch(function () { /* no IndexedDB */ });
  }

  function flush() {
    if (navigator.onLine === false) { return; }
    if (busy) { again = true; return; }  // asked during a flush: once more after it (something new may wait)
    busy = true;
    again = false;
    function done() { return update().then(function () { busy = false; if (again) { flush(); } }); }
    outbox.flush("sheet").then(done, done);
  }

  // "Send" on a sheet form marked data-outbox: through fetch, queued when there is no answer.
  function queue(form, body) {
    var key = form.elements.idempotency_key.value;
    var scope = form.getAttribute("data-outbox-scope"), game = form.getAttribute("data-outbox-sheet");
    var fields = new URLSearchParams(body);
    fields.delete("csrfmiddlewaretoken");  // a token of this session is fetched when it is sent, never kept
    outbox.put({
      id: "sheet|" + scope + "|" + game + "|" + key, queue: "sheet", scope: scope, game: game, key: key,
      url: form.getAttribute("action"), body: fields.toString(), state: "queued", saved: Date.now(),
      statusUrl: form.getAttribute("data-status-url"), page: location.pathname, account: outbox.account()
    }).then(function () {
      outbox.wake("sheet");  // Background Sync: sent by the service worker, even once this page is closed
      return render();
    }).then(function () {
      if (panel) { panel.scrollIntoView({block: "nearest"}); }
    }).catch(function () { /* no IndexedDB (a private window of an old browser): nothing kept */ });
    form.removeAttribute("data-sending");
    form.dispatchEvent(new CustomEvent("outbox:queued", {bubbles: true}));
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
      fetch(form.getAttribute("action"), {  // the sheet just filled: on success the table page, as a form would
        method: "POST", body: body, credentials: "same-origin", redirect: "manual",
        headers: {"Content-Type": "application/x-www-form-urlencoded"}
      }).then(function (response) {
        if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
          location.assign(form.getAttribute("data-table-url"));
          return;
        }
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

  // The live check without a connection. Its last answer is out of date: what it said at the seats is cleared,
  // its verdict hidden, and the rest of it marked so (the page's [data-check-stale] line), without what it said
  // of the seats changed since. The sheet may be sent whatever that answer said: it waits here and the rules engine checks it when it
  // arrives (static/js/sheet.js hears "outbox:unchecked" and lets "Send" be pressed). When the connection
  // returns the check runs again, and its answer replaces all of it.
  function setupOfflineCheck() {
    var note = document.querySelector("[data-offline-check]");
    var form = note && note.closest("form.sheet-form[data-outbox-form]");
    if (!form) { return; }
    var staleNote = form.querySelector("[data-check-stale]");
    var check = document.querySelector(form.getAttribute("hx-target"));
    var offline = false;
    var changes = 0, asked = 0;
    var changed = {};  // seat → the change it was last changed by

    function seatOf(element) {
      var seat = element.closest && element.closest("fieldset[data-seat]");
      return seat ? seat.getAttribute("data-seat") : null;
    }
    function drop(position) {  // what the last answer listed about a seat changed since
      if (!check) { return; }
      check.querySelectorAll("[data-seats]").forEach(function (line) {
        if (line.getAttribute("data-seats").split(/\s+/).indexOf(position) !== -1) { line.remove(); }
      });
      marked();
    }
    function marked() {  // "out of date" only above something the last answer said
      if (staleNote) { staleNote.hidden = !(check && check.querySelector(".sheet-problem:not(.sheet-verdict), table")); }
    }
    function lost() {
      note.hidden = false;
      if (check) { check.classList.add("sheet-check-stale"); }
      form.querySelectorAll(".sheet-seat-check").forEach(function (at) { at.textContent = ""; });
      Object.keys(changed).forEach(drop);
      marked();
      offline = true;
      form.dispatchEvent(new CustomEvent("outbox:unchecked", {bubbles: true}));
    }
    function answered() {
      note.hidden = true;
      if (staleNote) { staleNote.hidden = true; }
      if (check) { check.classList.remove("sheet-check-stale"); }
      Object.keys(changed).forEach(function (position) {
        if (changed[position] <= asked) { delete changed[position]; }
      });
      offline = false;
    }
    function ours(event) { return event.detail && event.detail.elt === form; }

    ["input", "change"].forEach(function (type) {
      form.addEventListener(type, function (event) {
        var position = seatOf(event.target);
        if (!position) { return; }
        changed[position] = ++changes;
        if (offline) { drop(position); }
      });
    });
    document.body.addEventListener("htmx:beforeRequest", function (event) { if (ours(event)) { asked = changes; } });
    document.body.addEventListener("htmx:sendError", function (event) { if (ours(event)) { lost(); } });
    document.body.addEventListener("htmx:afterRequest", function (event) {
      if (ours(event) && event.detail.successful) { answered(); }
    });
    window.addEventListener("offline", lost);
    window.addEventListener("online", function () {
      if (offline && window.htmx) { window.htmx.trigger(form, "change"); }
    });
    if (navigator.onLine === false) { lost(); }
  }

  function start() {
    panel = document.querySelector("[data-outbox]");
    if (!("serviceWorker" in navigator) || !window.fetch || !outbox || !window.indexedDB) { return; }
    document.querySelectorAll("form.sheet-form[data-outbox-form]").forEach(setupForm);
    setupOfflineCheck();
    outbox.migrate().catch(function () { /* nothing to move */ }).then(function () {
      render();
      flush();
    });
    window.addEventListener("online", flush);
    document.addEventListener("visibilitychange", function () { if (!document.hidden) { flush(); } });
    window.setInterval(flush, RETRY_MS);
    navigator.serviceWorker.addEventListener("message", function (event) {
      var type = event.data && event.data.type;
      if (type === "outbox") { update(); }  // the service worker sent the outbox
      else if (type === "flush") { flush(); }  // an older service worker: the page sends
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); }
  else { start(); }
})();
