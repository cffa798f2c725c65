// The service worker (served at /sw.js by tournament/views/offline.py, so its scope is the whole site). It
// keeps what a table's phone, the desk and the players need through a dropped hall Wi-Fi, and nothing else:
// - the referee's table link pages (/t/<token>/ and its games' sheets) and a signed-in referee's own table
//   pages (/referee/<stage>/<table>/…), the desk's check-in page, the standings and personal pages: from the
//   network when there is one (and kept), from the cache when there is none;
// - the site's static files (their names change with their content in production): from the cache first.
// Never cached: anything but a GET, htmx fragments, redirects, errors, and every other page (the organiser's,
// the chief referee's board). Caches are named by version (?v=…, a hash of the assets): a new version drops
// the old caches. Signing out deletes the staff and table caches (static/js/offline.js).
"use strict";

// The outbox store and its send function, shared with the pages; the view serving this file names its address.
importScripts(self.RK_OUTBOX_STORE || "/static/js/outbox-store.js");

var VERSION = new URL(self.location.href).searchParams.get("v") || "0";
var CACHES = {
  static: "rk-static-" + VERSION,
  table: "rk-table-" + VERSION,   // the table link's pages: no account, the card's holder
  staff: "rk-staff-" + VERSION,   // signed-in pages: the referee's own tables, the desk
  public: "rk-public-" + VERSION  // standings and personal pages
};
var RULES = [
  [/^\/static\//, "static"],
  [/^\/t\/[A-Za-z0-9_-]{16,64}\/(stage-\d+\/game\/\d+\/)?$/, "table"],
  [/^\/referee\/\d+\/\d+\/(game\/\d+\/)?$/, "staff"],
  [/^\/desk\/[-\w]+\/[-\w]+\/(missing\/)?$/, "staff"],
  [/^\/f\/[-\w]+\/[-\w]+\/standings\/(\d+\/)?$/, "public"],
  [/^\/f\/[-\w]+\/[-\w]+\/player\/\d+\/$/, "public"],
  [/^\/p\/[A-Za-z0-9_-]+\/$/, "public"]
];

function cacheFor(url) {
  if (url.origin !== self.location.origin) { return null; }
  for (var i = 0; i < RULES.length; i++) {
    if (RULES[i][0].test(url.pathname)) { return RULES[i][1]; }
  }
  return null;
}

function keep(name, request, response) {
  // Only whole pages and files that answered plainly: a redirect or an error page is not the page.
  if (!response || response.status !== 200 || response.type !== "basic" || response.redirected) { return response; }
  var copy = response.clone();
  caches.open(CACHES[name]).then(function (cache) { return cache.put(request, copy); });
  return response;
}

self.addEventListener("install", function () { self.skipWaiting(); });

self.addEventListener("activate", function (event) {
  var current = Object.keys(CACHES).map(function (kind) { return CACHES[kind]; });
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name.indexOf("rk-") === 0 && current.indexOf(name) === -1;
    }).map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET" || request.headers.get("HX-Request")) { return; }
  var url = new URL(request.url);
  var name = cacheFor(url);
  if (!name) { return; }
  if (name === "static") {
    event.respondWith(caches.match(request).then(function (hit) {
      return hit || fetch(request).then(function (response) { return keep(name, request, response); });
    }));
    return;
  }
  // Pages: the network first (the newest state of the table, the desk, the standings), the cache without one.
  event.respondWith(fetch(request).then(function (response) {
    return keep(name, url.href, response);
  }, function (error) {
    return caches.match(url.href, {ignoreSearch: true}).then(function (hit) {
      if (hit) { return hit; }
      var table = url.pathname.match(/^\/t\/[^/]+\//);  // a game never opened here: its table instead
      if (table) { return caches.match(url.origin + table[0]).then(function (page) { return page || Promise.reject(error); }); }
      return Promise.reject(error);
    });
  }));
});

// A page asks to keep pages it will need offline (the table page: its games' sheets), with their assets.
var ASSET = /(?:src|href)="(\/static\/[^"]+)"/g;
function prefetch(address) {
  var url = new URL(address, self.location.origin);
  var name = cacheFor(url);
  if (!name) { return Promise.resolve(); }
  return fetch(url.href, {credentials: "same-origin"}).then(function (response) {
    if (response.status !== 200 || response.redirected) { return null; }
    keep(name, url.href, response.clone());
    if (name === "static" || (response.headers.get("Content-Type") || "").indexOf("text/html") !== 0) { return null; }
    return response.text().then(function (html) {
      var assets = [], match;
      ASSET.lastIndex = 0;
      while ((match = ASSET.exec(html)) !== null) { assets.push(match[1].replace(/&amp;/g, "&")); }
      return caches.open(CACHES.static).then(function (cache) {
        return Promise.all(assets.map(function (asset) {
          return cache.match(asset).then(function (hit) { return hit || cache.add(asset).catch(function () {}); });
        }));
      });
    });
  }).catch(function () { /* offline: what is cached stays */ });
}

self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type === "prefetch" && Array.isArray(data.urls)) {
    var done = Promise.all(data.urls.slice(0, 20).map(prefetch));
    event.waitUntil(done.then(function () {
      if (event.source) { event.source.postMessage({type: "prefetched"}); }
    }));
  }
});

// Background Sync (Chromium, Android): the connection is back. The worker sends the outbox itself
// (static/js/outbox-store.js, shared with the pages), so a sheet or a check-in queued offline goes even when no
// page of the app is open; the answers wait in IndexedDB for the pages to show. Still waiting (no connection
// after all, a server in trouble): the promise fails, and the browser tries again later. Open pages are told
// to show the new state. "rk-outbox" is the tag older pages registered.
var QUEUES = {"rk-outbox-sheets": ["sheet"], "rk-outbox-desk": ["desk"], "rk-outbox": ["sheet", "desk"]};
self.addEventListener("sync", function (event) {
  var queues = QUEUES[event.tag];
  if (!queues) { return; }
  event.waitUntil(Promise.all(queues.map(self.RkOutbox.flush)).then(function (waiting) {
    return self.clients.matchAll({type: "window"}).then(function (clients) {
      clients.forEach(function (client) { client.postMessage({type: "outbox"}); });
      if (waiting.some(function (count) { return count > 0; })) { throw new Error("still waiting to send"); }
    });
  }));
});
