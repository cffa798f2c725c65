// A seated player's answer to the table's sheet (agree / dispute): sent with fetch, and kept on the phone when
// there is no connection (IndexedDB, static/js/outbox-store.js, queue "answer"), then sent when it returns — by
// the service worker's Background Sync, and by this page on `online`, when shown again and on a timer. The
// one-time key in the form makes the server record it once however often it arrives. What the server said
// (recorded; or refused: the sheet was corrected meanwhile, so it is looked at again) is shown, then the page
// is loaded again to show the table's answers as they stand. Without JavaScript the form posts as ever.
(function () {
  "use strict";
  var RETRY_MS = 20000;
  var outbox = window.RkOutbox;
  var form = document.querySelector("form[data-answer-form]");
  if (!form || !outbox || !window.indexedDB || !window.fetch || !window.URLSearchParams) { return; }
  var queued = form.querySelector("[data-answer-queued]");
  var reply = form.querySelector("[data-answer-reply]");
  var page = location.pathname;

  function say(text, ok) {
    reply.textContent = text;
    reply.className = "alert small mt-2 mb-0 " + (ok ? "alert-info" : "alert-danger");
    reply.hidden = false;
  }
  function mine() {
    return outbox.all("answer").then(function (items) {
      return items.filter(function (item) { return item.page === page; });
    });
  }
  function render() {
    return mine().then(function (items) {
      var waiting = items.filter(function (item) { return item.state === "queued"; });
      queued.hidden = waiting.length === 0;
      var done = items.filter(function (item) { return item.state === "done"; })[0];
      if (!done) { return; }
      say(done.message, done.status !== "refused");
      return outbox.remove(done.id).then(function () {
        window.setTimeout(function () { location.reload(); }, 1500);
      });
    }).catch(function () { /* no IndexedDB */ });
  }
  function keep(data) {
    data.delete("csrfmiddlewaretoken");  // a token of this session is fetched when it is sent, never kept
    return outbox.put({
      id: "answer|" + data.get("key"), queue: "answer", state: "queued", url: form.getAttribute("action"),
      body: data.toString(), page: page, saved: Date.now(), account: outbox.account()
    }).then(function () {
      outbox.wake("answer");
      return render();
    });
  }
  function flush() {
    if (navigator.onLine === false) { return; }
    outbox.flush("answer").then(render, render);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var data = new URLSearchParams(new FormData(form));
    if (event.submitter && event.submitter.name) { data.set(event.submitter.name, event.submitter.value); }
    form.querySelectorAll("button").forEach(function (button) { button.disabled = true; });
    function release() { form.querySelectorAll("button").forEach(function (button) { button.disabled = false; }); }
    if (navigator.onLine === false) { keep(data).then(release, release); return; }
    fetch(form.getAttribute("action"), {
      method: "POST", body: data.toString(), credentials: "same-origin", redirect: "manual",
      headers: {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
    }).then(function (response) {
      if ((response.headers.get("Content-Type") || "").indexOf("application/json") !== 0) {
        HTMLFormElement.prototype.submit.call(form);  // signed out, a server in trouble: the ordinary post
        return;
      }
      return response.json().then(function (answer) {
        say(answer.message, answer.status !== "refused");
        window.setTimeout(function () { location.reload(); }, 1500);
      });
    }, function () { keep(data).then(release, release); });
  });

  render().then(flush);
  window.addEventListener("online", flush);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) { flush(); } });
  window.setInterval(flush, RETRY_MS);
  if (navigator.serviceWorker) {
    navigator.serviceWorker.addEventListener("message", function (event) {
      if (event.data && event.data.type === "outbox") { render(); }
    });
  }
})();
