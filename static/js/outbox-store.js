// The phone's outbox: the referee's sheets and the desk's check-ins that wait for a connection. They live in
// IndexedDB (database "rk-outbox", one record per item, indexed by queue: "sheet" or "desk") so that the service
// worker can send them by itself (Background Sync) when no page of the app is open. The same file runs in the
// pages (<script src>) and in the service worker (importScripts), and holds the one send function both use:
// - a sheet is posted as the form was, with its idempotency key (the server records it once however often it
//   arrives), then asked about at …/status/ until the chief referee confirms or returns it;
// - a check-in is posted with its one-time key; the JSON answer (checked in, already checked in by another desk,
//   refused with the reason) is kept for the desk page to show.
// CSRF: the token sent is the page's form token (the cookie is HttpOnly); a 403 (token rotated by a new sign-in,
// cookie lost) fetches the page again for a fresh token from <meta name="csrf-token"> and tries once more.
// Page and worker never send the same queue at the same time (Web Locks where there are some).
(function (root) {
  "use strict";
  var NAME = "rk-outbox", STORE = "items";
  var TAGS = {sheet: "rk-outbox-sheets", desk: "rk-outbox-desk"};
  var opening = null;

  function db() {
    if (!opening) {
      opening = new Promise(function (resolve, reject) {
        var request = root.indexedDB.open(NAME, 1);
        request.onupgradeneeded = function () {
          request.result.createObjectStore(STORE, {keyPath: "id"}).createIndex("queue", "queue");
        };
        request.onsuccess = function () { resolve(request.result); };
        request.onerror = function () { opening = null; reject(request.error); };
      });
    }
    return opening;
  }
  // One transaction; resolves, once it has committed, with the result of the request `work` returns.
  function run(mode, work) {
    return db().then(function (database) {
      return new Promise(function (resolve, reject) {
        var tx = database.transaction(STORE, mode), result;
        var request = work(tx.objectStore(STORE));
        if (request) { request.onsuccess = function () { result = request.result; }; }
        tx.oncomplete = function () { resolve(result); };
        tx.onerror = tx.onabort = function () { reject(tx.error); };
      });
    });
  }
  function all(queue) {
    return run("readonly", function (store) { return store.index("queue").getAll(queue); })
      .then(function (items) { return (items || []).sort(function (a, b) { return a.saved - b.saved; }); });
  }
  function put(item) { return run("readwrite", function (store) { return store.put(item); }); }
  function remove(id) { return run("readwrite", function (store) { return store.delete(id); }); }

  // An older version kept the queues in the page's localStorage: moved here on first load, nothing left behind.
  function fromLocalStorage(key, value, page) {
    var parts = key.split("|");
    if (parts[0] === "rk-outbox" && value.url && value.body) {
      value.id = "sheet|" + value.scope + "|" + value.game + "|" + value.key;
      value.queue = "sheet";
      value.page = value.page || value.url;
      return value;
    }
    if (parts[0] === "rk-desk" && value.url && value.oneTimeKey) {
      value.id = "desk|" + parts[1] + "|" + value.oneTimeKey;
      value.queue = "desk";
      value.scope = parts[1];
      value.state = "queued";
      value.page = value.page || page;
      return value;
    }
    return null;
  }
  function migrate() {
    var local;
    try { local = root.localStorage; } catch (e) { local = null; }
    if (!local) { return Promise.resolve(); }
    var keys = [];
    for (var i = 0; i < local.length; i++) {
      var key = local.key(i);
      if (key && (key.indexOf("rk-outbox|") === 0 || key.indexOf("rk-desk|") === 0)) { keys.push(key); }
    }
    if (!keys.length) { return Promise.resolve(); }
    var page = root.location.pathname;
    return run("readwrite", function (store) {
      keys.forEach(function (key) {
        var value;
        try { value = JSON.parse(local.getItem(key)); } catch (e) { value = null; }
        var item = value && fromLocalStorage(key, value, page);
        if (item) { store.put(item); }
      });
    }).then(function () { keys.forEach(function (key) { local.removeItem(key); }); });
  }

  // --- sending --------------------------------------------------------------------------------------------
  function post(url, body, accept) {
    return root.fetch(url, {
      method: "POST", body: body, credentials: "same-origin", redirect: "manual", cache: "no-store",
      headers: {"Content-Type": "application/x-www-form-urlencoded", "Accept": accept}
    });
  }
  var TOKEN = /<meta name="csrf-token" content="([^"]+)"/;
  function freshToken(page) {
    return root.fetch(page, {credentials: "same-origin", cache: "no-store", headers: {"Accept": "text/html"}})
      .then(function (response) { return response.ok ? response.text() : ""; })
      .then(function (html) { var found = TOKEN.exec(html); return found ? found[1] : null; });
  }
  // `send(item)` answers with the server's response; a 403 is tried once more with a fresh token.
  function withToken(item, send, setToken) {
    return send(item).then(function (response) {
      if (response.status !== 403 || !item.page) { return response; }
      return freshToken(item.page).then(function (token) {
        if (!token) { return response; }
        setToken(item, token);
        return send(item);
      });
    });
  }

  function sheetBody(item) { return post(item.url, item.body, "text/html"); }
  function sheetToken(item, token) {
    var data = new URLSearchParams(item.body);
    data.set("csrfmiddlewaretoken", token);
    item.body = data.toString();
  }
  // The server's answer to a sheet: "sent" (recorded: a redirect to the table), "refused" (its page says why:
  // the page posts it again as a form to show it), or null (a server in trouble: try again later).
  function arrived(response) {
    if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) { return "sent"; }
    if (response.status >= 500 || response.status === 429) { return null; }
    return "refused";
  }
  function ask(item) {  // where a sent sheet is now
    return root.fetch(item.statusUrl, {credentials: "same-origin", cache: "no-store", headers: {"Accept": "application/json"}})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (status) {
        if (!status) { return false; }
        var mine = status.key === item.key;
        if (status.status === "submitted" && mine) { return true; }
        if (status.status === "confirmed" && mine) { item.state = "confirmed"; }
        else if (status.status === "returned" && mine) { item.state = "returned"; item.reason = status.reason; }
        else { item.state = "refused"; }
        return put(item).then(function () { return true; });
      });
  }
  // Resolves true when the item has its answer, false when it must wait for a later try; rejects offline.
  function sendSheet(item) {
    if (item.state === "sent") { return ask(item); }
    if (item.state !== "queued") { return Promise.resolve(true); }
    return withToken(item, sheetBody, sheetToken).then(function (response) {
      var state = arrived(response);
      if (!state) { return false; }
      item.state = state;
      item.sentAt = Date.now();
      return put(item).then(function () { return true; });
    });
  }

  function checkinBody(item) {
    return post(item.url, new URLSearchParams({csrfmiddlewaretoken: item.csrf, key: item.oneTimeKey}).toString(),
                "application/json");
  }
  function checkinToken(item, token) { item.csrf = token; }
  function sendCheckin(item) {
    if (item.state !== "queued") { return Promise.resolve(true); }
    return withToken(item, checkinBody, checkinToken).then(function (response) {
      if ((response.headers.get("Content-Type") || "").indexOf("application/json") !== 0) {
        return false;  // signed out, a server in trouble: kept, tried again later
      }
      return response.json().then(function (answer) {
        item.state = "done";
        item.status = answer.status;
        item.message = answer.message;
        return put(item).then(function () { return true; });
      });
    });
  }

  var SENDERS = {sheet: sendSheet, desk: sendCheckin};
  // Sends what waits in `queue`; resolves with how many items still wait (no connection, a server in trouble).
  function flush(queue) {
    function go() {
      return all(queue).then(function (items) {
        var waiting = 0, chain = Promise.resolve();
        items.forEach(function (item) {
          chain = chain.then(function () { return SENDERS[queue](item); })
            .then(function (done) { if (!done) { waiting++; } }, function () { waiting++; });
        });
        return chain.then(function () { return waiting; });
      });
    }
    var locks = root.navigator && root.navigator.locks;
    return locks ? locks.request(NAME + "-" + queue, go) : go();
  }

  // A page that queued something asks for Background Sync: the worker sends it even if the page is closed.
  // Without it (iOS Safari) the page sends on `online`, when shown again and on a timer.
  function wake(queue) {
    var workers = root.navigator && root.navigator.serviceWorker;
    if (!workers) { return Promise.resolve(false); }
    return workers.ready.then(function (registration) {
      return registration.sync ? registration.sync.register(TAGS[queue]).then(function () { return true; }) : false;
    }).catch(function () { return false; });
  }

  root.RkOutbox = {all: all, put: put, remove: remove, migrate: migrate, flush: flush, wake: wake, TAGS: TAGS};
})(self);
