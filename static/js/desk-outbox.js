// The desk's outbox: a check-in tapped without a connection is kept on the phone with a one-time key (IndexedDB,
// static/js/outbox-store.js), counted as "waiting to send (3)", and sent when the connection returns: by the
// service worker's Background Sync even with the page closed (Chromium), and by the page on `online`, when it
// becomes visible and on a timer (browsers without Background Sync: iOS). The server checks a player in once
// whatever arrives twice, and says when another desk got there first or check-in closed meanwhile
// (tournament/services/queued_checkin.py); the desk shows what it said, when the page is open or next opened.
// Without service workers, or online, the desk taps as before (htmx, or plain forms).
// A check-in goes only under the account that queued it. Queued by another account (who signed out before it
// could be sent), it is said so here — sign in as them to send it — and this account may discard it, told so.
(function () {
  "use strict";
  var RETRY_MS = 20000;
  var outbox = window.RkOutbox;
  var panel = document.querySelector("[data-desk-outbox]");
  if (!panel || !("serviceWorker" in navigator) || !window.fetch || !outbox || !window.indexedDB) { return; }
  var scope = panel.getAttribute("data-desk-outbox");
  var account = outbox.account();
  var busy = false, again = false;
  var reported = {};

  function mine() {
    return outbox.all("desk").then(function (items) {
      return items.filter(function (item) { return item.scope === scope; });
    });
  }
  function newKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  function rowOf(url) {
    var form = document.querySelector('form[data-queue-url="' + url + '"]');
    return {form: form, row: form ? form.closest("li") || form.parentNode : null};
  }

  function showQueued(item) {  // the tapped row says it waits
    var found = rowOf(item.url);
    if (!found.row || found.row.querySelector("[data-desk-queued]")) { return; }
    var note = document.createElement("div");
    note.className = "alert alert-warning py-1 px-2 mt-2 mb-0 small";
    note.setAttribute("data-desk-queued", "");
    note.textContent = panel.getAttribute("data-label-row");
    found.form.querySelectorAll("button").forEach(function (button) { button.hidden = true; });
    found.row.appendChild(note);
  }
  // The server's answer, by this page or by the service worker: said once, then dropped from the outbox (the
  // next search or reload shows the player as the server has them).
  function report(item) {
    if (reported[item.id]) { return null; }
    reported[item.id] = true;
    var ok = item.status === "checked_in";
    var line = document.createElement("li");
    line.className = "alert py-2 mb-1 " + (ok ? "alert-success" : "alert-danger");
    line.setAttribute("data-desk-report", ok ? "ok" : "problem");
    line.textContent = item.message;
    panel.querySelector("[data-desk-reports]").appendChild(line);
    var note = rowOf(item.url).row;
    note = note ? note.querySelector("[data-desk-queued]") : null;
    if (note) {
      note.className = "alert py-1 px-2 mt-2 mb-0 small " + (ok ? "alert-success" : "alert-danger");
      note.textContent = item.message;
    }
    return outbox.remove(item.id);
  }

  function held(items) {  // queued under other accounts: {account: how many}
    var by = {};
    items.forEach(function (item) {
      if (outbox.heldFor(item, account)) { by[item.account] = (by[item.account] || 0) + 1; }
    });
    return by;
  }
  function say(name, by) {
    return Object.keys(by).map(function (who) {
      return panel.getAttribute("data-label-" + name).split("{account}").join(who)
        .split("{count}").join(String(by[who]));
    }).join(" ");
  }
  function showHeld(by) {
    var box = panel.querySelector("[data-desk-held-box]");
    if (box.getAttribute("data-discarded")) { return; }  // the notice of what was discarded stays
    panel.querySelector("[data-desk-held]").textContent = say("held", by);
    box.hidden = Object.keys(by).length === 0;
  }
  function discardHeld() {
    var box = panel.querySelector("[data-desk-held-box]");
    return mine().then(function (items) {
      var others = items.filter(function (item) { return outbox.heldFor(item, account); });
      var by = held(others);
      return Promise.all(others.map(function (item) { return outbox.remove(item.id); })).then(function () {
        box.setAttribute("data-discarded", "1");
        box.querySelector("[data-desk-held]").textContent = say("discarded", by);
        box.querySelector("[data-desk-held-discard]").hidden = true;
      });
    }).catch(function () { /* no IndexedDB */ });
  }

  function render() {
    return mine().then(function (items) {
      var waiting = items.filter(function (item) {
        return item.state === "queued" && !outbox.heldFor(item, account);
      });
      var line = panel.querySelector("[data-desk-waiting]");
      line.textContent = panel.getAttribute("data-label-waiting").replace("#", String(waiting.length));
      line.hidden = waiting.length === 0;
      waiting.forEach(showQueued);
      showHeld(held(items));
      var answered = items.filter(function (item) { return item.state === "done" && !reported[item.id]; });
      return Promise.all(answered.map(report)).then(function () {
        // The search's rows show those players as the server has them now (desk-search.js asks again).
        if (answered.length) { document.dispatchEvent(new CustomEvent("desk:reported")); }
      });
    }).catch(function () { /* no IndexedDB: nothing to show */ });
  }

  function flush() {
    if (navigator.onLine === false) { return; }
    if (busy) { again = true; return; }  // asked during a flush: once more after it (something new may wait)
    busy = true;
    again = false;
    function done() { return render().then(function () { busy = false; if (again) { flush(); } }); }
    outbox.flush("desk").then(done, done);
  }

  // A tap on "Check in" with no connection: kept here instead of lost (htmx would fail, a form show an error).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-queue-url]") || navigator.onLine !== false) { return; }
    event.preventDefault();
    event.stopPropagation();  // htmx listens on the form: this tap is not sent now
    var oneTimeKey = newKey();
    outbox.put({  // no token (fetched when sent) and no name (the row and the server's answer say it)
      id: "desk|" + scope + "|" + oneTimeKey, queue: "desk", scope: scope, state: "queued",
      url: form.getAttribute("data-queue-url"), oneTimeKey: oneTimeKey, page: location.pathname, saved: Date.now(),
      account: account
    }).then(function () {
      outbox.wake("desk");  // Background Sync: sent by the service worker, even once this page is closed
      return render();
    }).catch(function () { /* no IndexedDB (a private window of an old browser): nothing kept */ });
  }, true);

  panel.querySelector("[data-desk-held-discard]").addEventListener("click", discardHeld);
  document.addEventListener("desk:rows", render);  // rows put on the page by the offline search (desk-search.js)
  outbox.migrate().catch(function () { /* nothing to move */ }).then(function () {
    render();
    flush();
  });
  window.addEventListener("online", flush);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) { flush(); } });
  window.setInterval(flush, RETRY_MS);
  navigator.serviceWorker.addEventListener("message", function (event) {
    var type = event.data && event.data.type;
    if (type === "outbox") { render(); }  // the service worker sent the outbox
    else if (type === "flush") { flush(); }  // an older service worker: the page sends
  });
})();
