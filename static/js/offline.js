// Offline-first pages (progressive enhancement: a browser without service workers behaves as before).
// - A page that carries <meta name="offline-worker"> registers the service worker (static/js/sw.js) and asks
//   it to keep the pages listed in data-offline-prefetch (the table page: its games' sheets) for a dropped Wi-Fi.
// - Signing out deletes the staff and table caches before the sign-out is sent; any page seen signed out
//   deletes the staff cache too (a session that ended elsewhere).
// - Pages marked data-offline-asof say, when shown without a connection, when they were made.
(function () {
  "use strict";
  var STAFF = /^rk-(staff|table)-/;

  function dropCaches(pattern) {
    if (!window.caches) { return Promise.resolve(); }
    return window.caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) { return pattern.test(name); })
        .map(function (name) { return window.caches.delete(name); }));
    }).catch(function () { /* nothing to clear */ });
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

  function setupSignOut() {
    document.querySelectorAll("form[data-sign-out]").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        if (!window.caches || form.getAttribute("data-cleared")) { return; }
        event.preventDefault();
        dropCaches(STAFF).then(function () {
          form.setAttribute("data-cleared", "1");
          HTMLFormElement.prototype.submit.call(form);
        });
      });
    });
    if (document.querySelector('meta[name="signed-out"]')) { dropCaches(/^rk-staff-/); }
  }

  // "as of 14:32 — no connection" on a page shown from the phone's cache: the time this phone last had the page
  // from the server (noted on every online visit), in the festival's time zone.
  var SEEN = "rk-seen|";
  function seenAt(path, when) {
    try {
      if (when) { window.localStorage.setItem(SEEN + path, String(when)); return when; }
      return Number(window.localStorage.getItem(SEEN + path)) || 0;
    } catch (e) { return 0; }
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
    if (navigator.onLine !== false) { seenAt(location.pathname, Date.now()); }
    function update() {
      var offline = navigator.onLine === false;
      var time = note.querySelector("[data-asof-time]");
      var seen = seenAt(location.pathname);
      var text = seen ? clock(seen, note.getAttribute("data-time-zone") || undefined) : "";
      if (offline && time && text) { time.textContent = text; }
      note.hidden = !offline;
    }
    window.addEventListener("online", function () { update(); location.reload(); });
    window.addEventListener("offline", update);
    update();
  }

  function start() {
    setupSignOut();
    register();
    setupAsOf();
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); }
  else { start(); }
})();
