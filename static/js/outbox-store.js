// The phone's outbox: the referee's sheets and the desk's check-ins that wait for a connection. They live in
// IndexedDB (database "rk-outbox", one record per item, indexed by queue: "sheet" or "desk") so that the service
// worker can send them by itself (Background Sync) when no page of the app is open. The same file runs in the
// pages (<script src>) and in the service worker (importScripts), and holds the one send function both use:
// - a sheet is posted as the form was, with its idempotency key (the server records it once however often it
//   arrives); it is "sent" only when the game's status (…/status/) holds a sheet with that key — the server
//   answers a refusal with a page or a redirect as well, and a redirect looks alike whatever it means — and is
//   then asked about until the chief referee confirms or returns it;
// - a player's answer to the table's sheet (agree / dispute) is posted with its one-time key, like a check-in;
// - a check-in is posted with its one-time key; the JSON answer (checked in, already checked in by another desk,
//   refused with the reason) is kept for the desk page to show.
// Each item goes under the account that queued it (`account`: its user name, "" for none), never another's:
// before sending, the page it was queued on is fetched again, which says who is signed in now and gives the
// CSRF token to send with (the cookie is HttpOnly). No token and no player's name is ever stored here; what is
// stored besides the queued items — the server's answers, until shown — is deleted when someone signs out.
// Page and worker never send the same queue at the same time (Web Locks where there are some).
(function (root) {
  "use strict";
  if (root.RkOutbox) { return; }  // loaded twice in one page (the sign-out loads it where a page has not)
  var NAME = "rk-outbox", STORE = "items";
  var TAGS = {sheet: "rk-outbox-sheets", desk: "rk-outbox-desk", answer: "rk-outbox-answers"};
  var TOKEN_FIELD = "csrfmiddlewaretoken";
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
  // Every item `change` returns false for is deleted, every other one stored as `change` left it.
  function rewrite(change) {
    return run("readwrite", function (store) {
      var cursor = store.openCursor();
      cursor.onsuccess = function () {
        var at = cursor.result;
        if (!at) { return; }
        var item = at.value;
        if (change(item) === false) { at.delete(); } else { at.update(item); }
        at.continue();
      };
    });
  }

  // What a queued item keeps: never a CSRF token nor a player's name (an older version kept both).
  function withoutSecrets(item) {
    delete item.csrf;
    delete item.name;
    if (typeof item.body === "string" && item.body.indexOf(TOKEN_FIELD) !== -1) {
      var data = new URLSearchParams(item.body);
      data.delete(TOKEN_FIELD);
      item.body = data.toString();
    }
    return item;
  }
  // Whether this phone has an outbox at all (asked without making one, where the browser can tell).
  function exists() {
    var list = root.indexedDB && root.indexedDB.databases;
    if (!list) { return Promise.resolve(Boolean(root.indexedDB)); }
    return root.indexedDB.databases().then(function (found) {
      return found.some(function (database) { return database.name === NAME; });
    }, function () { return true; });
  }
  // Signing out: every answer goes (in `queue`, or in both), the items still waiting to be sent stay.
  function forgetAnswered(queue) {
    return exists().then(function (here) { return here && rewrite(function (item) {
      if (queue && item.queue !== queue) { return true; }
      if (item.state !== "queued") { return false; }
      withoutSecrets(item);
      return true;
    }); });
  }

  // An older version kept the queues in the page's localStorage: moved here on first load, nothing left behind.
  function fromLocalStorage(key, value, page) {
    var parts = key.split("|");
    if (parts[0] === "rk-outbox" && value.url && value.body) {
      value.id = "sheet|" + value.scope + "|" + value.game + "|" + value.key;
      value.queue = "sheet";
      value.page = value.page || value.url;
      return withoutSecrets(value);
    }
    if (parts[0] === "rk-desk" && value.url && value.oneTimeKey) {
      value.id = "desk|" + parts[1] + "|" + value.oneTimeKey;
      value.queue = "desk";
      value.scope = parts[1];
      value.state = "queued";
      value.page = value.page || page;
      return withoutSecrets(value);
    }
    return null;
  }
  function migrate() {
    var local;
    try { local = root.localStorage; } catch (e) { local = null; }
    var keys = [];
    for (var i = 0; local && i < local.length; i++) {
      var key = local.key(i);
      if (key && (key.indexOf("rk-outbox|") === 0 || key.indexOf("rk-desk|") === 0)) { keys.push(key); }
    }
    var page = root.location.pathname;
    var moved = !keys.length ? Promise.resolve() : run("readwrite", function (store) {
      keys.forEach(function (key) {
        var value;
        try { value = JSON.parse(local.getItem(key)); } catch (e) { value = null; }
        var item = value && fromLocalStorage(key, value, page);
        if (item) { store.put(item); }
      });
    }).then(function () { keys.forEach(function (key) { local.removeItem(key); }); });
    return moved.then(function () { return rewrite(withoutSecrets); });
  }

  // --- who sends ------------------------------------------------------------------------------------------
  // The account signed in on the page running this (pages only): its <meta name="signed-in-as">, "" for none.
  function account() {
    var meta = root.document && root.document.querySelector('meta[name="signed-in-as"]');
    return meta ? meta.content : "";
  }
  // An item waits for another account than `who` (an item an older version queued goes with any).
  function heldFor(item, who) {
    return item.state === "queued" && typeof item.account === "string" && item.account !== who;
  }
  var TOKEN = /<meta name="csrf-token" content="([^"]+)"/;
  var SIGNED_IN = /<meta name="signed-in-as" content="([^"]*)"/;
  var ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": "\"", "&#x27;": "'", "&#39;": "'"};
  function unescape(text) {
    return text.replace(/&(amp|lt|gt|quot|#x27|#39);/g, function (entity) { return ENTITIES[entity]; });
  }
  // Who is signed in now and a CSRF token of that session: the page the item was queued on, fetched again.
  function session(page) {
    return root.fetch(page, {credentials: "same-origin", cache: "no-store", headers: {"Accept": "text/html"}})
      .then(function (response) { return response.ok ? response.text() : ""; })
      .then(function (html) {
        var token = TOKEN.exec(html), who = SIGNED_IN.exec(html);
        return token ? {token: token[1], account: who ? unescape(who[1]) : ""} : null;
      });
  }

  // --- sending --------------------------------------------------------------------------------------------
  function post(url, body, accept) {
    return root.fetch(url, {
      method: "POST", body: body, credentials: "same-origin", redirect: "manual", cache: "no-store",
      headers: {"Content-Type": "application/x-www-form-urlencoded", "Accept": accept}
    });
  }
  function isJson(response) {
    return (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
  }

  // What the server holds for the game now, after this item was posted: "sent" (recorded with this item's key,
  // waiting for the chief referee), "confirmed", "returned", "refused" (not recorded: the page says why), or
  // null (a server in trouble: posted again later, recorded once).
  function recorded(item) {
    return root.fetch(item.statusUrl, {credentials: "same-origin", cache: "no-store", redirect: "manual",
                                       headers: {"Accept": "application/json"}})
      .then(function (response) {
        if (response.status >= 500 || response.status === 429) { return null; }
        if (!response.ok || !isJson(response)) { return "refused"; }  // the table is not this one's now
        return response.json().then(function (status) {
          if (status.key !== item.key) { return "refused"; }
          if (status.status === "returned") { item.reason = status.reason; }
          return {submitted: "sent", confirmed: "confirmed", returned: "returned"}[status.status] || "refused";
        });
      });
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
  function sendSheet(item, token) {
    var data = new URLSearchParams(item.body);
    data.set(TOKEN_FIELD, token);
    return post(item.url, data.toString(), "text/html").then(function (response) {
      if (response.status >= 500 || response.status === 429) { return false; }
      // A refusal by redirect left the server's reason for the next page; by a page, its page says it again.
      var answer = response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)
        ? "redirect" : "page";
      return recorded(item).then(function (state) {
        if (!state) { return false; }
        item.state = state;
        item.answer = answer;
        item.sentAt = Date.now();
        return put(item).then(function () { return true; });
      });
    });
  }

  function sendCheckin(item, token) {
    return post(item.url, new URLSearchParams({csrfmiddlewaretoken: token, key: item.oneTimeKey}).toString(),
                "application/json").then(function (response) {
      if (!isJson(response)) { return false; }  // signed out, a server in trouble: kept, tried again later
      return response.json().then(function (answer) {
        item.state = "done";
        item.status = answer.status;
        item.message = answer.message;
        return put(item).then(function () { return true; });
      });
    });
  }

  // A player's answer to the table's sheet (agree / dispute), posted as its form was, with its one-time key; the
  // JSON answer (recorded, or refused with the reason: the sheet changed meanwhile) is kept for the page to show.
  function sendAnswer(item, token) {
    var data = new URLSearchParams(item.body);
    data.set(TOKEN_FIELD, token);
    return post(item.url, data.toString(), "application/json").then(function (response) {
      if (!isJson(response)) { return false; }
      return response.json().then(function (answer) {
        item.state = "done";
        item.status = answer.status;
        item.message = answer.message;
        return put(item).then(function () { return true; });
      });
    });
  }

  var SENDERS = {sheet: sendSheet, desk: sendCheckin, answer: sendAnswer};
  // Sends what waits in `queue` under the account that queued it; resolves with how many items still wait to be
  // sent now (no connection, a server in trouble) — not those waiting for their account to sign in here again.
  function flush(queue) {
    function go() {
      var sessions = {};
      function sessionOf(page) {
        if (!sessions[page]) { sessions[page] = session(page); }
        return sessions[page];
      }
      function send(item) {
        if (item.state === "sent") { return ask(item); }
        if (item.state !== "queued") { return Promise.resolve(true); }
        return sessionOf(item.page || "/").then(function (now) {
          if (!now) { return false; }
          if (heldFor(item, now.account)) { return true; }  // not this session's to send
          return SENDERS[queue](item, now.token);
        });
      }
      return all(queue).then(function (items) {
        var waiting = 0, chain = Promise.resolve();
        items.forEach(function (item) {
          chain = chain.then(function () { return send(item); })
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

  root.RkOutbox = {
    all: all, put: put, remove: remove, migrate: migrate, flush: flush, wake: wake, exists: exists,
    forgetAnswered: forgetAnswered, account: account, heldFor: heldFor, TAGS: TAGS
  };
})(self);
