// The service worker (served at /sw.js by tournament/views/offline.py, so its scope is the whole site). It
// keeps what a table's phone, the desk and the players need through a dropped hall Wi-Fi, and nothing else:
// - the referee's table link pages (/t/<token>/ and its games' sheets) and a signed-in referee's own table
//   pages (/referee/<stage>/<table>/…), the desk's check-in pages, the standings and the public player pages:
//   from the network when there is one (and kept), from the cache when there is none;
// - the site's static files (their names change with their content in production): from the cache first.
// What it keeps, the server allows: a page is asked for as an "offline copy" (`Offline-Copy: keep`, past the
// browser's HTTP cache) and kept only if its answer is marked neither no-store nor private — the server marks
// only those pages so, and only for this request (tournament/device.py). A personal page (/p/…) is never kept:
// whoever opens it, it is no-store. Never kept either: anything but a GET, htmx fragments, redirects, errors.
// Caches are named by version (?v=…, a hash of the assets): a new version drops the old caches.
// Signing out deletes every cache and every answered outbox item: the page asks this worker to (static/js/
// offline.js), and the worker does it again when it sees the sign-out sent; a page seen signed out drops the
// staff pages and the desk's answers (a session that ended elsewhere). Copies still on their way when that
// happens are not kept.
"use strict";

// The outbox store and its send function, shared with the pages; the view serving this file names its address,
// and the sign-out's.
importScripts(self.RK_OUTBOX_STORE || "/static/js/outbox-store.js");

var VERSION = new URL(self.location.href).searchParams.get("v") || "0";
var CACHES = {
  static: "rk-static-" + VERSION,
  table: "rk-table-" + VERSION,   // the table link's pages: no account, the card's holder
  staff: "rk-staff-" + VERSION,   // signed-in pages: the referee's own tables, the desk
  public: "rk-public-" + VERSION  // the standings and the public player pages
};
var RULES = [
  [/^\/static\//, "static"],
  [/^\/t\/[A-Za-z0-9_-]{16,64}\/(stage-\d+\/game\/\d+\/)?$/, "table"],
  [/^\/referee\/\d+\/\d+\/(game\/\d+\/)?$/, "staff"],
  [/^\/desk\/[-\w]+\/[-\w]+\/(missing\/)?$/, "staff"],
  [/^\/f\/[-\w]+\/[-\w]+\/standings\/(\d+\/|all\/)?$/, "public"],
  [/^\/f\/[-\w]+\/[-\w]+\/player\/\d+\/$/, "public"]
];
var OFFLINE_COPY = "Offline-Copy";

function cacheFor(url) {
  if (url.origin !== self.location.origin) { return null; }
  for (var i = 0; i < RULES.length; i++) {
    if (RULES[i][0].test(url.pathname)) { return RULES[i][1]; }
  }
  return null;
}

// Only whole pages and files that answered plainly (a redirect or an error page is not the page), and only
// what the server lets a device keep.
var NOT_KEPT = /(^|[\s,])(no-store|private)\s*($|[,=])/i;
function storable(response) {
  return Boolean(response) && response.status === 200 && response.type === "basic" && !response.redirected &&
    !NOT_KEPT.test(response.headers.get("Cache-Control") || "");
}

// Each sign-out starts a new generation: a copy fetched before it is not kept after it.
var generation = 0;

function keep(name, key, response, since) {
  if (!storable(response) || since !== generation) { return Promise.resolve(); }
  var copy = response.clone();
  return caches.open(CACHES[name]).then(function (cache) {
    return since === generation ? cache.put(key, copy) : null;
  }).catch(function () { /* full: the page still works online */ });
}

// A page as the server lets this worker keep it (never through, nor into, the browser's HTTP cache).
function offlineCopy(request) {
  var headers = new Headers(request.headers);
  headers.set(OFFLINE_COPY, "keep");
  return fetch(new Request(request, {headers: headers, cache: "no-store"}));
}

function forget() {
  generation++;
  return caches.keys().then(function (names) {
    return Promise.all(names.map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.RkOutbox.forgetAnswered(); }).catch(function () { /* nothing kept */ });
}

// A page seen signed out: the session ended (here or elsewhere); the staff pages and the desk's answers go.
// (Every public page is seen signed out: the copies being fetched, of such pages, stay.)
function forgetStaff() {
  return caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) { return name.indexOf("rk-staff-") === 0; })
      .map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.RkOutbox.forgetAnswered("desk"); }).catch(function () { /* nothing kept */ });
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
  var url = new URL(request.url);
  if (request.method === "POST" && url.origin === self.location.origin && url.pathname === self.RK_SIGN_OUT) {
    event.waitUntil(forget());  // the page has done it already, unless it had no time to: the request goes on
    return;
  }
  if (request.method !== "GET" || request.headers.get("HX-Request")) { return; }
  var name = cacheFor(url);
  if (!name) { return; }
  var since = generation;
  if (name === "static") {
    event.respondWith(caches.match(request).then(function (hit) {
      return hit || fetch(request).then(function (response) {
        event.waitUntil(keep(name, request, response, since));
        return response;
      });
    }));
    return;
  }
  // Pages: the network first (the newest state of the table, the desk, the standings), the cache without one.
  event.respondWith(offlineCopy(request).then(function (response) {
    event.waitUntil(keep(name, url.href, response, since));
    return response;
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
  var since = generation;
  var asked = name === "static" ? fetch(url.href, {credentials: "same-origin"})
    : offlineCopy(new Request(url.href, {credentials: "same-origin"}));
  return asked.then(function (response) {
    if (!storable(response)) { return null; }
    return keep(name, url.href, response.clone(), since).then(function () {
      var html = (response.headers.get("Content-Type") || "").indexOf("text/html") === 0;
      return name !== "static" && html ? response.text() : null;
    });
  }).then(function (html) {
    if (!html) { return null; }
    var assets = [], match;
    ASSET.lastIndex = 0;
    while ((match = ASSET.exec(html)) !== null) { assets.push(match[1].replace(/&amp;/g, "&")); }
    return caches.open(CACHES.static).then(function (cache) {
      return Promise.all(assets.map(function (asset) {
        return cache.match(asset).then(function (hit) {
          return hit || fetch(asset).then(function (response) { return keep("static", asset, response, since); });
        });
      }));
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
  } else if (data.type === "forget") {  // signing out
    event.waitUntil(forget().then(function () {
      if (event.ports && event.ports[0]) { event.ports[0].postMessage({type: "forgotten"}); }
    }));
  } else if (data.type === "signed-out") {
    event.waitUntil(forgetStaff());
  }
});

// Background Sync (Chromium, Android): the connection is back. The worker sends the outbox itself
// (static/js/outbox-store.js, shared with the pages), so a sheet or a check-in queued offline goes even when no
// page of the app is open — each under the account that queued it, never another's; the answers wait in
// IndexedDB for the pages to show. Still waiting (no connection after all, a server in trouble): the promise
// fails, and the browser tries again later. Open pages are told to show the new state. "rk-outbox" is the tag
// older pages registered.
var QUEUES = {"rk-outbox-sheets": ["sheet"], "rk-outbox-desk": ["desk"], "rk-outbox-answers": ["answer"],
              "rk-outbox": ["sheet", "desk"]};
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
