// The referee's score sheet (and the chief referee's correction, the same entry). Progressive enhancement: the
// pages work without this file.
// - Nothing is lost: every change is kept in localStorage ("rk-sheet|<table>|<game>|<idempotency key>")
//   and restored on load; a draft is dropped only when a page from the server lists it as received
//   (data-drafts-done). A restored draft keeps its idempotency key, so a retry records one sheet.
// - The tile pad fills the seat's tiles field; the server's live check (htmx) does all the judging.
(function () {
  "use strict";
  var PREFIX = "rk-sheet|";
  var MAX_AGE = 14 * 24 * 3600 * 1000;

  function store() {
    try { return window.localStorage; } catch (e) { return null; }
  }
  function read(key) {
    try { return JSON.parse(store().getItem(key)); } catch (e) { return null; }
  }
  function write(key, value) {
    try { store().setItem(key, JSON.stringify(value)); } catch (e) { /* full or private mode: keep going */ }
  }
  function remove(key) {
    try { store().removeItem(key); } catch (e) { /* nothing to do */ }
  }
  function draftKeys() {
    var keys = [], s = store();
    if (!s) { return keys; }
    for (var i = 0; i < s.length; i++) {
      var key = s.key(i);
      if (key && key.indexOf(PREFIX) === 0) { keys.push(key); }
    }
    return keys;
  }

  // Drafts the server has received, and drafts nobody came back to for two weeks.
  function forgetAcknowledged() {
    document.querySelectorAll("[data-drafts-done]").forEach(function (element) {
      element.getAttribute("data-drafts-done").split(/\s+/).forEach(function (key) {
        if (key) { remove(key); }
      });
    });
    var now = Date.now();
    draftKeys().forEach(function (key) {
      var draft = read(key);
      if (!draft || typeof draft.saved !== "number" || now - draft.saved > MAX_AGE) { remove(key); }
    });
  }

  function fields(form) {
    return Array.prototype.filter.call(form.elements, function (el) {
      return el.name && el.name !== "csrfmiddlewaretoken" && el.name !== "idempotency_key" &&
        el.type !== "hidden" && el.type !== "submit" && el.type !== "button";
    });
  }
  // A box of a group (the seats' "Went out" boxes share one name) is kept under its name and value.
  function boxKey(el) {
    return el.getAttribute("value") === null ? el.name : el.name + "=" + el.value;
  }
  function collect(form) {
    var values = {};
    fields(form).forEach(function (el) {
      if (el.type === "radio") { if (el.checked) { values[el.name] = el.value; } }
      else if (el.type === "checkbox") { values[boxKey(el)] = el.checked; }
      else { values[el.name] = el.value; }
    });
    return values;
  }
  function apply(form, values) {
    fields(form).forEach(function (el) {
      var key = el.type === "checkbox" ? boxKey(el) : el.name;
      if (!Object.prototype.hasOwnProperty.call(values, key)) { return; }
      var value = values[key];
      if (el.type === "radio") { el.checked = el.value === value; }
      else if (el.type === "checkbox") { el.checked = value === true; }
      else if (typeof value === "string") { el.value = value; }
    });
  }

  function wentOut(form) {
    var box = form.querySelector('input[name="went_out"]:checked');
    return box ? box.value : "";
  }
  function radioValue(form, name) {
    var checked = form.querySelector('input[type="radio"][name="' + name + '"]:checked');
    return checked ? checked.value : "";
  }

  // Show only what matters for each seat. A seat marked "went out" keeps its rack in view while the rack
  // still holds something: the server refuses a winner with tiles, so the referee must see them to clear them.
  function holdsSomething(form, position) {
    return ["tiles", "rack_value", "jokers"].some(function (name) {
      var el = form.elements["s" + position + "_" + name];
      var value = el ? el.value.trim() : "";
      return value !== "" && value !== "0";
    });
  }
  function updateSeats(form) {
    var out = wentOut(form);
    form.querySelectorAll("[data-seat]").forEach(function (seat) {
      var position = seat.getAttribute("data-seat");
      seat.classList.toggle("is-out", out === position);
      seat.classList.toggle("holds-rack", holdsSomething(form, position));
      var tiles = form.elements["s" + position + "_tiles"];
      var couldOpen = seat.querySelector("[data-could-open]");
      if (couldOpen) {
        couldOpen.hidden = radioValue(form, "s" + position + "_opened") !== "no" || !!(tiles && tiles.value.trim());
      }
    });
  }

  // Returns whether there is something to check at once (a restored draft, or a sheet sent back).
  function setupDraft(form) {
    // The chief referee's correction page keeps no draft: it starts from the recorded sheet, checked at once.
    if (!form.hasAttribute("data-draft-scope")) { return true; }
    var keyInput = form.elements.idempotency_key;
    var prefix = PREFIX + form.getAttribute("data-draft-scope") + "|" + form.getAttribute("data-game") + "|";
    function save() {
      if (keyInput.value) { write(prefix + keyInput.value, {saved: Date.now(), values: collect(form)}); }
    }
    form.addEventListener("input", save);
    form.addEventListener("change", save);
    if (form.hasAttribute("data-restore")) {
      var newest = null;
      draftKeys().forEach(function (key) {
        if (key.indexOf(prefix) !== 0) { return; }
        var draft = read(key);
        if (draft && draft.values && (!newest || draft.saved > newest.draft.saved)) {
          newest = {key: key, draft: draft};
        }
      });
      if (newest) {
        var saved = newest.key.slice(prefix.length);
        if (/^[0-9a-f]{32}$/.test(saved)) { keyInput.value = saved; }
        apply(form, newest.draft.values);
        return true;
      }
      return false;
    }
    return true;  // a sheet the server sent back (mistakes, warnings): check it at once
  }

  function setupChoices(form) {
    form.addEventListener("change", function (event) {
      var target = event.target;
      // One player goes out, and only in a game that ended that way (R4): the choices follow each other, so
      // "Someone went out" never shows beside a game blocked, nor two seats out. (Without this script the
      // rules engine says what does not fit.)
      if (target.name === "end" && target.value !== "went_out") {
        form.querySelectorAll('input[name="went_out"]:checked').forEach(function (box) { box.checked = false; });
      } else if (target.name === "went_out" && target.checked) {
        form.querySelectorAll('input[name="went_out"]:checked').forEach(function (box) {
          if (box !== target) { box.checked = false; }
        });
        var wentOut = form.querySelector('input[name="end"][value="went_out"]');
        if (wentOut && !wentOut.checked) { wentOut.checked = true; wentOut.dispatchEvent(new Event("change", {bubbles: true})); }
      }
      updateSeats(form);
    });
    form.addEventListener("input", function () { updateSeats(form); });
    // "Go" on a phone keyboard moves to the next field instead of sending a half-typed sheet.
    form.addEventListener("keydown", function (event) {
      var el = event.target;
      if (event.key !== "Enter" || el.tagName !== "INPUT" || el.type !== "text") { return; }
      event.preventDefault();
      var inputs = Array.prototype.filter.call(form.querySelectorAll('input[type="text"]'), function (input) {
        return input.offsetParent !== null;
      });
      var next = inputs[inputs.indexOf(el) + 1];
      if (next) { next.focus(); }
    });
  }

  function setupSubmit(form) {
    var buttons = form.querySelectorAll('button[type="submit"]');
    var submit = form.querySelector(".sheet-submit");
    var label = submit ? submit.textContent : "";
    form.addEventListener("submit", function (event) {
      if (form.getAttribute("data-sending")) { event.preventDefault(); return; }
      form.setAttribute("data-sending", "1");
      // After this tick, so the pressed button's name/value still goes with the form.
      window.setTimeout(function () {
        buttons.forEach(function (button) { button.disabled = true; });
        if (submit && submit.getAttribute("data-sending")) { submit.textContent = submit.getAttribute("data-sending"); }
      }, 0);
    });
    // Back from a failed send (or the page restored from the cache), or the sheet kept on the phone to send
    // later (static/js/outbox.js): usable again.
    function usable() {
      form.removeAttribute("data-sending");
      buttons.forEach(function (button) { button.disabled = false; });
      if (submit) { submit.textContent = label; }
    }
    window.addEventListener("pageshow", usable);
    form.addEventListener("outbox:queued", function () { window.setTimeout(usable, 0); });
    // The live check says whether the sheet has mistakes: those block sending until corrected.
    document.body.addEventListener("htmx:afterSwap", function (event) {
      if (!submit || !event.detail || !event.detail.target || event.detail.target.id !== "sheet-check") { return; }
      var check = event.detail.target.querySelector("[data-errors]");
      submit.disabled = !!(check && check.getAttribute("data-errors") !== "0");
    });
    // No connection for the live check: its last answer is out of date, and the sheet sent now waits on the
    // phone until the rules engine checks it on arrival (static/js/outbox.js). Until the next answer, it may go.
    form.addEventListener("outbox:unchecked", function () { if (submit) { submit.disabled = false; } });
  }

  function setupPad(form) {
    var pad = document.getElementById("tile-pad");
    if (!pad) { return; }
    var target = null, toggle = null;
    function close() {
      pad.hidden = true;
      if (toggle) { toggle.setAttribute("aria-expanded", "false"); }
      target = toggle = null;
    }
    form.querySelectorAll(".sheet-pad-toggle").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        if (toggle === button) { close(); return; }
        if (toggle) { toggle.setAttribute("aria-expanded", "false"); }
        var id = button.getAttribute("data-pad-for");
        var slot = form.querySelector('[data-pad-slot="' + id + '"]');
        target = document.getElementById(id);
        toggle = button;
        if (slot) { slot.appendChild(pad); }
        pad.hidden = false;
        button.setAttribute("aria-expanded", "true");
      });
    });
    pad.addEventListener("click", function (event) {
      var key = event.target.closest("button");
      if (!key || !target) { return; }
      var tokens = target.value.trim() ? target.value.trim().split(/[\s,]+/) : [];
      var action = key.getAttribute("data-pad");
      if (action === "close") { var back = toggle; close(); if (back) { back.focus(); } return; }
      if (action === "back") { tokens.pop(); }
      else if (action === "clear") { tokens = []; }
      else if (key.getAttribute("data-tile")) { tokens.push(key.getAttribute("data-tile")); }
      target.value = tokens.join(" ");
      target.dispatchEvent(new Event("input", {bubbles: true}));
    });
  }

  // On a phone, a seat whose entry is complete and shows no problem folds to one line (its name and what was
  // entered) once the referee has moved on; tapping or tabbing into it opens it again, and a problem from the
  // live check opens it at once. Without this script every seat stays open.
  function value(form, position, name) {
    var el = form.elements["s" + position + "_" + name];
    return el && el.value ? el.value.trim() : "";
  }
  function seatSummary(form, seat, position) {
    if (wentOut(form) === position) {
      var label = seat.querySelector('label[for="went-out-' + position + '"]');
      return label ? label.textContent.trim() : "";
    }
    var tiles = value(form, position, "tiles");
    if (tiles) { return tiles.toUpperCase(); }
    var parts = [];
    ["rack_value", "jokers"].forEach(function (name) {
      var el = form.elements["s" + position + "_" + name];
      var label = el ? form.querySelector('label[for="' + el.id + '"]') : null;
      parts.push((label ? label.textContent.trim() + " " : "") + value(form, position, name));
    });
    return parts.join(" · ");
  }
  function seatComplete(form, seat, position) {
    if (seat.querySelector('.sheet-pad-toggle[aria-expanded="true"]')) { return false; }
    if (wentOut(form) === position) { return !holdsSomething(form, position); }
    var racked = value(form, position, "tiles") !== "" ||
      (value(form, position, "rack_value") !== "" && value(form, position, "jokers") !== "");
    var opened = radioValue(form, "s" + position + "_opened");
    var answered = opened === "yes" || value(form, position, "tiles") !== "" ||
      radioValue(form, "s" + position + "_could_open") !== "";
    return racked && answered;
  }
  function fold(form, seat, folded) {
    var position = seat.getAttribute("data-seat");
    var edit = seat.querySelector(".sheet-seat-edit");
    if (folded) { edit.textContent = seatSummary(form, seat, position); }
    seat.classList.toggle("is-folded", folded);
    edit.hidden = !folded;
  }
  // A seat folding moves everything below it up: never between a press and its release, or the release
  // lands on something else and the tap is lost. Work waiting for the pointer runs once its click is done.
  var pointerDown = false;
  var afterRelease = [];
  function released() {
    pointerDown = false;
    window.setTimeout(function () { afterRelease.splice(0).forEach(function (work) { work(); }); }, 0);
  }
  document.addEventListener("pointerdown", function () { pointerDown = true; }, true);
  document.addEventListener("pointerup", released, true);
  document.addEventListener("pointercancel", released, true);
  function afterPointer(work) {
    if (pointerDown) { afterRelease.push(work); } else { window.setTimeout(work, 0); }
  }

  function setupFolding(form) {
    var seats = form.querySelectorAll("fieldset.sheet-seat[data-seat]");
    seats.forEach(function (seat) {
      var legend = seat.querySelector("legend");
      if (!legend) { return; }
      var edit = document.createElement("button");
      edit.type = "button";
      edit.className = "btn btn-link sheet-seat-edit";
      edit.hidden = true;
      legend.appendChild(edit);
      edit.addEventListener("click", function () {
        fold(form, seat, false);
        var first = seat.querySelector('input[name="went_out"]');
        if (first) { first.focus(); }
      });
      // Into the seat (a tap, Tab): open. Out of it with every answer given: fold, whatever an earlier check
      // said (its answer to the new values is on its way). Folding follows only the referee's own moves, never
      // the live check's answer, so a seat never closes under a finger reaching back for it.
      seat.addEventListener("focusin", function (event) {
        if (event.target === edit) { return; }
        fold(form, seat, false);
      });
      seat.addEventListener("focusout", function () { afterPointer(function () { leave(seat); }); });
    });
    function leave(seat) {
      if (seat.contains(document.activeElement)) { return; }
      if (!seat.classList.contains("is-folded") && seatComplete(form, seat, seat.getAttribute("data-seat"))) {
        fold(form, seat, true);
      }
    }
    // The live check's answer opens every folded seat it finds a mistake at (a warning stays folded: the list
    // above the seats shows it, and the seat would open again on every answer).
    document.body.addEventListener("htmx:afterSettle", function () {
      afterPointer(function () {
        seats.forEach(function (seat) {
          if (seat.classList.contains("is-folded") && seat.querySelector(".sheet-seat-check .sheet-problem-error")) {
            fold(form, seat, false);
          }
        });
      });
    });
  }

  function start() {
    forgetAcknowledged();
    document.querySelectorAll("form.sheet-form").forEach(function (form) {
      var pending = setupDraft(form);
      setupChoices(form);
      setupSubmit(form);
      setupPad(form);
      updateSeats(form);
      setupFolding(form);
      // After htmx has set the form up (its own DOMContentLoaded handler runs before this one).
      if (pending && window.htmx) { window.setTimeout(function () { window.htmx.trigger(form, "change"); }, 0); }
    });
  }

  // Deferred scripts run before DOMContentLoaded, htmx sets the page up on it: start after htmx.
  if (document.readyState === "complete") { start(); }
  else { document.addEventListener("DOMContentLoaded", start); }
})();
