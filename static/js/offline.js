// Offline-first pages (progressive enhancement: a browser without service workers behaves as before).
// - A page that carries <meta name="offline-worker"> registers the service worker (static/js/sw.js) and asks
//   it to keep the pages listed in data-offline-prefetch (the table page: its games' sheets) for a dropped Wi-Fi.
// - Signing out on a shared phone or laptop leaves nothing for the next person: every cache of the site, every
//   answered outbox item (static/js/outbox-store.js) and what an older version noted of the pages seen are
//   deleted before the sign-out is sent (the worker does it again when it sees the sign-out go, and the server
//   clears the browser's HTTP cache). Check-ins and sheets not sent yet stay on the phone, to be sent under the
//   account that queued them: the first tap on "Sign out" says so, the second signs out.
// - Any page seen signed out drops the staff pages and the desk's answers too (a session that ended elsewhere).
// - Pages marked data-offline-asof say, when shown without a connection, when they were made: the time of the
//   copy the phone keeps (its Date), so no list of the pages seen is kept anywhere else.
(function () {
  "use strict";
  var SEEN = "rk-seen|";  // an older version's list of the pages seen, in localStorage

  function dropCaches(pattern) {
    if (!window.caches) { return Promise.resolve(); }
    return window.caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) { return pattern.test(name); })
        .map(function (name) { return window.caches.delete(name); }));
    }).catch(function () { /* nothing to clear */ });
  }
  function forgetSeen() {
    try {
      var local = window.localStorage, old = [];
      for (var i = 0; i < local.length; i++) {
        if ((local.key(i) || "").indexOf(SEEN) === 0) { old.push(local.key(i)); }
      }
      old.forEach(function (key) { local.removeItem(key); });
    } catch (e) { /* no localStorage */ }
  }
  function tellWorker(message) {
    var worker = "serviceWorker" in navigator && navigator.serviceWorker.controller;
    if (worker) { worker.postMessage(message); }
  }

  function register() {
    var meta = document.querySelector('meta[name="offline-worker"]');
    if (!meta || !("serviceWorker" in navigator)) { return; }
    navigator.serviceWorker.register(meta.content, {scope: "/"}).catch(function () { /* stays online-only */ });
    var urls = [location.pathname];
    document.querySelectorAll("[data-offline-prefetch]").forEach(function (element) {
      element.getAttribute("data-offline-prefetch").split(/\s+/).forEach(function (url) { if (url) { urls.push(url); } });
    });
    document.querySelectorAll('script[src^="/"], link[rel="stylesheet"][href^="/"], link[rel="icon"][href^="/"]')
      .forEach(function (element) { urls.push(element.getAttribute("src") || element.getAttribute("href")); });
    navigator.serviceWorker.ready.then(function (registration) {
      if (registration.active && navigator.onLine !== false) {
        registration.active.postMessage({type: "prefetch", urls: urls});
      }
    });
  }

  // --- signing out ------------------------------------------------------------------------------------------
  // The outbox's store: loaded by the pages that queue; loaded here for the sign-out of any other page.
  function outboxStore(form) {
    var address = form.getAttribute("data-outbox-store");
    if (window.RkOutbox || !address || !window.indexedDB) { return Promise.resolve(window.RkOutbox || null); }
    return new Promise(function (resolve) {
      var script = document.createElement("script");
      script.src = address;
      script.onload = function () { resolve(window.RkOutbox || null); };
      script.onerror = function () { resolve(null); };
      document.head.appendChild(script);
    });
  }
  function unsent(outbox) {  // what this account queued and has not sent yet
    var account = outbox.account();
    return outbox.exists().then(function (here) {
      return here ? Promise.all([outbox.all("sheet"), outbox.all("desk")]) : [[], []];
    }).then(function (queues) {
      return queues[0].concat(queues[1]).filter(function (item) {
        return item.state === "queued" && !outbox.heldFor(item, account);
      }).length;
    }).catch(function () { return 0; });
  }
  function forgetDevice(outbox) {
    tellWorker({type: "forget"});  // it also stops keeping the copies it is fetching now
    forgetSeen();
    return Promise.all([dropCaches(/./), outbox ? outbox.forgetAnswered().catch(function () {}) : null]);
  }
  function sayUnsent(form, count) {
    var note = document.querySelector("[data-sign-out-held]");
    if (!note) {
      note = document.createElement("p");
      note.className = "alert alert-warning";
      note.setAttribute("role", "alert");
      note.setAttribute("data-sign-out-held", "");
      var main = document.querySelector("main") || document.body;
      main.insertBefore(note, main.firstChild);
    }
    note.textContent = form.getAttribute("data-label-held").split("{count}").join(String(count));
    note.scrollIntoView({block: "nearest"});
  }
  function setupSignOut() {
    document.querySelectorAll("form[data-sign-out]").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        if (form.getAttribute("data-cleared")) { return; }
        event.preventDefault();
        if (form.getAttribute("data-busy")) { return; }
        form.setAttribute("data-busy", "1");
        outboxStore(form).then(function (outbox) {
          var told = form.getAttribute("data-told-unsent");
          return (outbox && !told ? unsent(outbox) : Promise.resolve(0)).then(function (count) {
            if (count > 0) {  // said once; the next tap signs out
              form.setAttribute("data-told-unsent", "1");
              sayUnsent(form, count);
              return;
            }
            return forgetDevice(outbox).then(function () {
              form.setAttribute("data-cleared", "1");
              HTMLFormElement.prototype.submit.call(form);
            });
          });
        }).then(function () { form.removeAttribute("data-busy"); });
      });
    });
    if (document.querySelector('meta[name="signed-out"]')) {
      tellWorker({type: "signed-out"});
      dropCaches(/^rk-staff-/);
    }
  }

  // --- "as of 14:32 — no connection" -------------------------------------------------------------------------
  // On a page shown from the phone's cache: when the server made the copy the phone keeps (its Date), in the
  // festival's time zone.
  function keptAt() {
    if (!window.caches) { return Promise.resolve(0); }
    return window.caches.match(location.href, {ignoreSearch: true}).then(function (copy) {
      return copy ? Date.parse(copy.headers.get("Date") || "") || 0 : 0;
    }).catch(function () { return 0; });
  }
  function clock(ms, zone) {
    try {
      return new Intl.DateTimeFormat("en-GB", {hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: zone})
        .format(new Date(ms));
    } catch (e) { return ""; }
  }
  function setupAsOf() {
    var note = document.querySelector("[data-offline-asof]");
    if (!note) { return; }
    function update() {
      var offline = navigator.onLine === false;
      note.hidden = !offline;
      if (!offline) { return; }
      keptAt().then(function (made) {
        var time = note.querySelector("[data-asof-time]");
        var text = made ? clock(made, note.getAttribute("data-time-zone") || undefined) : "";
        if (time && text) { time.textContent = text; }
      });
    }
    window.addEventListener("online", function () { update(); location.reload(); });
    window.addEventListener("offline", update);
    update();
  }

  function start() {
    forgetSeen();
    setupSignOut();
    register();
    setupAsOf();
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); }
  else { start(); }
})();
