// The desk's outbox: a check-in tapped without a connection is kept on the phone with a one-time key
// ("rk-desk|<festival>/<event>|<key>" in localStorage), counted as "waiting to send (3)", and sent when the
// connection returns (`online`, the page becoming visible, a timer). The server checks a player in once
// whatever arrives twice, and says when another desk got there first or check-in closed meanwhile
// (tournament/services/queued_checkin.py); the desk shows what it says. Without service workers, or online,
// the desk taps as before (htmx, or plain forms).
(function () {
  "use strict";
  var PREFIX = "rk-desk|";
  var RETRY_MS = 20000;
  var panel = document.querySelector("[data-desk-outbox]");
  if (!panel || !("serviceWorker" in navigator) || !window.fetch) { return; }
  var scope = PREFIX + panel.getAttribute("data-desk-outbox") + "|";
  var busy = false;

  function store() { try { return window.localStorage; } catch (e) { return null; } }
  function queued() {
    var found = [], s = store();
    if (!s) { return found; }
    for (var i = 0; i < s.length; i++) {
      var key = s.key(i);
      if (key && key.indexOf(scope) === 0) {
        try { found.push({key: key, value: JSON.parse(s.getItem(key))}); } catch (e) { s.removeItem(key); }
      }
    }
    return found;
  }
  function newKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function render() {
    var waiting = queued();
    var line = panel.querySelector("[data-desk-waiting]");
    line.textContent = panel.getAttribute("data-label-waiting").replace("#", String(waiting.length));
    line.hidden = waiting.length === 0;
    waiting.forEach(function (entry) {  // the tapped rows say they wait
      var form = document.querySelector('form[data-queue-url="' + entry.value.url + '"]');
      var row = form ? form.closest("li") || form.parentNode : null;
      if (row && !row.querySelector("[data-desk-queued]")) {
        var note = document.createElement("div");
        note.className = "alert alert-warning py-1 px-2 mt-2 mb-0 small";
        note.setAttribute("data-desk-queued", "");
        note.textContent = panel.getAttribute("data-label-row");
        form.querySelectorAll("button").forEach(function (button) { button.hidden = true; });
        row.appendChild(note);
      }
    });
  }
  function report(message, ok) {
    var item = document.createElement("li");
    item.className = "alert py-2 mb-1 " + (ok ? "alert-success" : "alert-danger");
    item.setAttribute("data-desk-report", ok ? "ok" : "problem");
    item.textContent = message;
    panel.querySelector("[data-desk-reports]").appendChild(item);
  }

  function flush() {
    if (busy || navigator.onLine === false) { return; }
    var waiting = queued();
    if (!waiting.length) { return; }
    busy = true;
    var chain = Promise.resolve();
    waiting.forEach(function (entry) {
      chain = chain.then(function () {
        var body = new URLSearchParams({csrfmiddlewaretoken: entry.value.csrf, key: entry.value.oneTimeKey});
        return fetch(entry.value.url, {method: "POST", body: body, credentials: "same-origin", redirect: "manual",
                                       headers: {"Accept": "application/json"}})
          .then(function (response) {
            var json = (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
            if (!json) { return null; }  // signed out, a server in trouble: keep it and try again later
            return response.json().then(function (answer) {
              store().removeItem(entry.key);
              var ok = answer.status === "checked_in";
              report(answer.message, ok);
              var form = document.querySelector('form[data-queue-url="' + entry.value.url + '"]');
              var note = form && form.closest("li") ? form.closest("li").querySelector("[data-desk-queued]") : null;
              if (note) {  // the row says what happened; the next search or reload shows it as the server has it
                note.className = "alert py-1 px-2 mt-2 mb-0 small " + (ok ? "alert-success" : "alert-danger");
                note.textContent = answer.message;
              }
            });
          }, function () { /* still no connection */ });
      });
    });
    chain.then(function () { busy = false; render(); });
  }

  // A tap on "Check in" with no connection: kept here instead of lost (htmx would fail, a form show an error).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-queue-url]") || navigator.onLine !== false) { return; }
    event.preventDefault();
    event.stopPropagation();  // htmx listens on the form: this tap is not sent now
    var csrf = form.querySelector('input[name="csrfmiddlewaretoken"]');
    var oneTimeKey = newKey();
    try {
      store().setItem(scope + oneTimeKey, JSON.stringify({
        url: form.getAttribute("data-queue-url"), name: form.getAttribute("data-name"), oneTimeKey: oneTimeKey,
        csrf: csrf ? csrf.value : "", saved: Date.now()
      }));
    } catch (e) { return; }
    render();
  }, true);

  render();
  flush();
  window.addEventListener("online", flush);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) { flush(); } });
  window.setInterval(flush, RETRY_MS);
})();
