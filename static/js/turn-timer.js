// The referee's clocks (R9): the turn timer on the table/game pages, and the round clock on the hall
// display, the organiser's board and every referee page. Markup: templates/scoring/clock/.
//
// Turn timer. One tap starts the next player's turn (seats in seat order, seat 1 first). The time left is always
// worked out from a stored deadline and the current time, never by counting ticks, and the state is kept in
// localStorage: a locked screen, a sleeping phone, a reload or a lost network all resume correctly. When a turn
// runs out: a beep (Web Audio), a vibration, and one more time-out for that seat (R9: 3 penalty tiles).
// Round clock. Polls the event's clock.json (~30 s, ETag) and counts down in the browser from the server's
// deadline, corrected by the server's clock (X-Server-Time); at the end, referee pages show "Time!".
//
// For tests: window.TurnTimer (start, next, back, pause, resume, reset, undoTimeout, state, render) and
// window.RoundClock (poll, state, render); both read the time through their replaceable `now` function,
// e.g. `TurnTimer.now = function () { return fakeMs; }`.
(function () {
  "use strict";
  var PREFIX = "rk-turn|";
  var MAX_AGE = 3 * 24 * 3600 * 1000;  // timers nobody came back to for three days are forgotten
  var TAP_GAP = 700;                   // a second tap within this many ms is a bounce, not the next player
  var FRESH_ALERT = 5000;              // a turn found expired after longer (phone asleep) is shown, not beeped
  var TICK = 250;

  function store() {
    try { return window.localStorage; } catch (e) { return null; }
  }
  function read(key) {
    try { return JSON.parse(store().getItem(key)); } catch (e) { return null; }
  }
  function write(key, value) {
    try { store().setItem(key, JSON.stringify(value)); } catch (e) { /* full or private mode: keep going */ }
  }
  function forgetOld(now) {
    var s = store(), old = [];
    if (!s) { return; }
    for (var i = 0; i < s.length; i++) {
      var key = s.key(i);
      if (key && key.indexOf(PREFIX) === 0) {
        var value = read(key);
        if (!value || typeof value.saved !== "number" || now - value.saved > MAX_AGE) { old.push(key); }
      }
    }
    old.forEach(function (key) { try { s.removeItem(key); } catch (e) { /* nothing to do */ } });
  }
  function fill(text, values) {
    return String(text || "").replace(/\{(\w+)\}/g, function (all, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : all;
    });
  }
  // 1:05, 0:09; past zero "−0:04". Whole seconds rounded up, so a fresh minute shows 1:00 and 0:00 means over.
  function clockText(ms) {
    var over = ms < 0;
    var seconds = over ? Math.floor(-ms / 1000) : Math.ceil(ms / 1000);
    var hours = Math.floor(seconds / 3600), minutes = Math.floor(seconds / 60) % 60, rest = seconds % 60;
    var text = (hours ? hours + ":" + (minutes < 10 ? "0" : "") : "") + minutes + ":" + (rest < 10 ? "0" : "") + rest;
    return (over && seconds ? "\u2212" : "") + text;
  }

  // ------------------------------------------------------------------------------------------ turn timer

  var TurnTimer = window.TurnTimer = {
    now: function () { return Date.now(); }
  };

  var root = null, labels = {}, names = [], key = "", turnMs = 60000, state = null;
  var lastTap = -Infinity, lastSaid = null, audio = null, wakeLock = null;

  function fresh() {
    return {v: 1, phase: "idle", seat: 0, turns: 0, deadline: null, left: null, length: turnMs, expired: false,
            timeouts: names.map(function () { return 0; }), sound: state ? state.sound : true, saved: 0};
  }
  // Take the stored state when it differs from ours (first load, or another tab — the game page — moved on).
  function load() {
    var saved = read(key);
    if (state && (!saved || saved.saved === state.saved)) { return; }
    state = fresh();
    if (saved && saved.v === 1 && Array.isArray(saved.timeouts) && /^(idle|running|paused)$/.test(saved.phase)) {
      Object.keys(state).forEach(function (name) {
        if (Object.prototype.hasOwnProperty.call(saved, name)) { state[name] = saved[name]; }
      });
      // The seating may have changed size (a withdrawal): keep what still fits.
      state.timeouts = names.map(function (n, i) { return Number(saved.timeouts[i]) || 0; });
      if (!(state.seat >= 0 && state.seat < names.length)) { state.seat = 0; }
    }
  }
  function save() {
    state.saved = TurnTimer.now();
    write(key, state);
  }
  function remaining() {
    if (state.phase === "running") { return state.deadline - TurnTimer.now(); }
    if (state.phase === "paused") { return state.left; }
    return turnMs;
  }

  // Sound needs an AudioContext created (or resumed) by a tap; every button tap does that.
  function wakeAudio() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) { return; }
    try {
      if (!audio) { audio = new Context(); }
      if (audio.state === "suspended") { audio.resume(); }
    } catch (e) { audio = null; }
  }
  function beep() {
    if (!audio || !state.sound) { return; }
    try {
      var start = audio.currentTime + 0.02;
      for (var i = 0; i < 3; i++) {
        var osc = audio.createOscillator(), gain = audio.createGain(), at = start + i * 0.3;
        osc.type = "square";
        osc.frequency.value = 880;
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(0.4, at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.22);
        osc.connect(gain);
        gain.connect(audio.destination);
        osc.start(at);
        osc.stop(at + 0.25);
      }
    } catch (e) { /* no sound: the screen and the vibration still tell */ }
  }
  function alertRunOut() {
    beep();
    if (navigator.vibrate) { try { navigator.vibrate([400, 150, 400, 150, 400]); } catch (e) { /* ignore */ } }
  }
  // Keep the screen on while a turn runs (where the browser allows it); the timer is right without it too.
  function keepAwake(on) {
    if (!("wakeLock" in navigator)) { return; }
    if (on && !wakeLock && !document.hidden) {
      navigator.wakeLock.request("screen").then(function (lock) {
        wakeLock = lock;
        lock.addEventListener("release", function () { wakeLock = null; });
      }).catch(function () { wakeLock = null; });
    } else if (!on && wakeLock) {
      wakeLock.release().catch(function () { /* already released */ });
      wakeLock = null;
    }
  }

  // Notice a turn that ran out (perhaps while the phone slept): count it once, and alert if it just happened.
  function update() {
    if (!state || state.phase !== "running" || state.expired) { return; }
    var late = TurnTimer.now() - state.deadline;
    if (late < 0) { return; }
    state.expired = true;
    state.timeouts[state.seat] = (state.timeouts[state.seat] || 0) + 1;
    save();
    if (late <= FRESH_ALERT) { alertRunOut(); }
    say(fill(labels.saidTime, {name: names[state.seat]}));
  }

  function beginTurn(seat) {
    state.seat = seat;
    state.phase = "running";
    state.turns += 1;
    state.length = turnMs;
    state.deadline = TurnTimer.now() + turnMs;
    state.left = null;
    state.expired = false;
    lastSaid = null;
    save();
    say(fill(labels.saidStart, {name: names[seat], seconds: Math.round(turnMs / 1000)}));
  }
  function bounced() {
    var now = TurnTimer.now();
    if (now - lastTap < TAP_GAP) { return true; }
    lastTap = now;
    return false;
  }

  function say(text) {
    var region = root && root.querySelector("[data-tt-said]");
    if (region) { region.textContent = text; }
  }
  // Spoken at the start, then at 30 (turns of a minute or more) and 10 seconds left, and at the end.
  function announce(ms) {
    if (state.phase !== "running" || ms <= 0) { return; }
    var seconds = Math.ceil(ms / 1000);
    var marks = [30, 10].filter(function (mark) { return mark < turnMs / 1000 && (mark !== 30 || turnMs >= 60000); });
    for (var i = 0; i < marks.length; i++) {
      if (seconds <= marks[i] && seconds > marks[i] - 2 && lastSaid !== marks[i]) {
        lastSaid = marks[i];
        say(fill(labels.saidLeft, {seconds: marks[i]}));
      }
    }
  }

  function render() {
    if (!root) { return; }
    update();
    var ms = remaining(), n = names.length, next = (state.seat + 1) % n;
    var started = state.phase !== "idle";
    var display = root.querySelector("[data-tt-display]");
    display.textContent = clockText(ms);
    root.classList.toggle("is-running", state.phase === "running");
    root.classList.toggle("is-paused", state.phase === "paused");
    root.classList.toggle("is-expired", started && ms <= 0);
    root.querySelector("[data-tt-who]").textContent = !started ? labels.ready
      : fill(labels.turn, {name: names[state.seat]}) + (state.phase === "paused" ? " · " + labels.paused : "") +
        (state.expired ? " · " + labels.over : "");
    var nextButton = root.querySelector('[data-tt-action="next"]');
    nextButton.textContent = started ? labels.next : labels.start;
    root.querySelector("[data-tt-up-next]").textContent = started ? fill(labels.upNext, {name: names[next]}) : "";
    var pause = root.querySelector('[data-tt-action="pause"]');
    pause.textContent = state.phase === "paused" ? labels.resume : labels.pause;
    pause.setAttribute("aria-pressed", state.phase === "paused" ? "true" : "false");
    pause.disabled = !started;
    root.querySelector('[data-tt-action="back"]').disabled = !started;
    var alertBox = root.querySelector("[data-tt-alert]");
    alertBox.hidden = !(started && state.expired);
    alertBox.textContent = started && state.expired ? fill(labels.saidTime, {name: names[state.seat]}) : "";
    root.querySelectorAll("[data-tt-seat]").forEach(function (row) {
      var i = Number(row.getAttribute("data-tt-seat"));
      row.classList.toggle("is-turn", started && i === state.seat);
      if (started && i === state.seat) { row.setAttribute("aria-current", "true"); } else { row.removeAttribute("aria-current"); }
      row.querySelector("[data-tt-count]").textContent = String(state.timeouts[i] || 0);
    });
    root.querySelector("[data-tt-sound]").checked = state.sound !== false;
    announce(ms);
    keepAwake(state.phase === "running");
  }

  function act(fn) {
    return function () {
      if (!root || !state) { return null; }
      load();
      fn.apply(null, arguments);
      render();
      return TurnTimer.state();
    };
  }
  function resume() {
    if (state.phase !== "paused") { return; }
    state.deadline = TurnTimer.now() + state.left;
    state.left = null;
    state.phase = "running";
    save();
  }

  TurnTimer.start = act(function () {
    if (state.phase === "idle") { beginTurn(state.seat); } else { resume(); }
  });
  TurnTimer.next = act(function () {
    if (bounced()) { return; }
    if (state.phase === "idle") { beginTurn(state.seat); } else { beginTurn((state.seat + 1) % names.length); }
  });
  TurnTimer.back = act(function () {
    if (state.phase === "idle") { return; }
    beginTurn((state.seat - 1 + names.length) % names.length);
  });
  TurnTimer.pause = act(function () {
    if (state.phase !== "running") { return; }
    state.left = state.deadline - TurnTimer.now();
    state.deadline = null;
    state.phase = "paused";
    save();
  });
  TurnTimer.resume = act(resume);
  TurnTimer.reset = act(function () {
    state = fresh();
    lastSaid = null;
    save();
  });
  TurnTimer.undoTimeout = act(function (seat) {
    if (state.timeouts[seat] > 0) { state.timeouts[seat] -= 1; save(); }
  });
  TurnTimer.render = function () { render(); };
  TurnTimer.state = function () {
    if (!root || !state) { return null; }
    update();
    return {phase: state.phase, seat: state.seat, seats: names.slice(), turns: state.turns,
            remainingMs: remaining(), expired: state.expired, timeouts: state.timeouts.slice(),
            turnSeconds: Math.round(turnMs / 1000), key: key};
  };

  function setUpTurnTimer() {
    root = document.querySelector("[data-turn-timer]");
    if (!root) { return; }
    var data = root.dataset;
    labels = {start: data.labelStart, next: data.labelNext, turn: data.labelTurn, upNext: data.labelUpNext,
              ready: data.labelReady, paused: data.labelPaused, pause: data.labelPause, resume: data.labelResume,
              over: data.labelOver, resetConfirm: data.labelResetConfirm, saidStart: data.labelSaidStart,
              saidLeft: data.labelSaidLeft, saidTime: data.labelSaidTime};
    var seconds = parseInt(data.turnSeconds, 10);
    turnMs = (seconds > 0 && seconds <= 3600 ? seconds : 60) * 1000;
    key = PREFIX + (data.storageKey || "").replace(/^rk-turn\|/, "");
    names = Array.prototype.map.call(root.querySelectorAll("[data-tt-seat]"), function (row) {
      return row.getAttribute("data-name");
    });
    if (!names.length) { root = null; return; }
    forgetOld(TurnTimer.now());
    load();
    root.addEventListener("click", function (event) {
      var button = event.target.closest("[data-tt-action]");
      if (!button || button.disabled) { return; }
      wakeAudio();
      var action = button.getAttribute("data-tt-action");
      if (action === "next") { TurnTimer.next(); }
      else if (action === "back") { TurnTimer.back(); }
      else if (action === "pause") { if (state.phase === "paused") { TurnTimer.resume(); } else { TurnTimer.pause(); } }
      else if (action === "reset") { if (window.confirm(labels.resetConfirm)) { TurnTimer.reset(); } }
      else if (action === "undo-timeout") { TurnTimer.undoTimeout(Number(button.getAttribute("data-seat-index"))); }
    });
    root.querySelector("[data-tt-sound]").addEventListener("change", function (event) {
      state.sound = event.target.checked;
      if (state.sound) { wakeAudio(); }
      save();
    });
    window.addEventListener("storage", function (event) {
      if (event.key === key) { load(); render(); }
    });
    root.hidden = false;
    var details = document.querySelector("[data-turn-timer-details]");
    if (details) {
      details.hidden = false;
      if (state.phase !== "idle") { details.open = true; }
    }
    render();
    setInterval(render, TICK);
  }

  // ------------------------------------------------------------------------------------------ round clock

  var RoundClock = window.RoundClock = {
    now: function () { return Date.now(); }
  };
  var clocks = [], clockData = null, offset = 0, etag = null, offline = false, pollMs = 30000, polling = false;

  function serverNow() { return RoundClock.now() + offset; }

  function clockPhase(data, now) {
    if (!data || data.state === "idle") { return "idle"; }
    if (data.state === "pending" || data.starts_at_ms === null || data.ends_at_ms === null) { return "pending"; }
    if (now < data.starts_at_ms) { return "ready"; }
    return now < data.ends_at_ms ? "running" : "time";
  }

  function renderClock(area) {
    var data = clockData, now = serverNow(), phase = clockPhase(data, now);
    var labelsOf = area.dataset, stage = labelsOf.stage ? Number(labelsOf.stage) : null;
    if (stage !== null && data && data.stage !== stage) { phase = "idle"; }  // another stage's clock
    var box = area.querySelector("[data-rc-clock]");
    box.hidden = phase === "idle";
    area.classList.toggle("is-time", phase === "time");
    area.classList.toggle("is-ready", phase === "ready");
    var banner = area.querySelector("[data-rc-banner]");
    if (banner) { banner.hidden = phase !== "time"; }
    if (phase === "idle") { return; }
    area.querySelector("[data-rc-name]").textContent = data.name;
    var what = {pending: labelsOf.labelPending, ready: labelsOf.labelReady, running: labelsOf.labelRunning,
                time: labelsOf.labelTime}[phase];
    area.querySelector("[data-rc-what]").textContent = what;
    var time = area.querySelector("[data-rc-time]");
    time.textContent = phase === "ready" ? clockText(data.starts_at_ms - now)
      : phase === "running" ? clockText(data.ends_at_ms - now) : phase === "time" ? "0:00" : "";
    time.hidden = phase === "pending";
    var end = area.querySelector("[data-rc-end]");
    if (phase === "pending") {
      end.textContent = data.starts_local ? fill(labelsOf.labelPlanned, {start: data.starts_local, end: data.ends_local}) : "";
    } else {
      end.textContent = fill(phase === "time" ? labelsOf.labelEnded : labelsOf.labelEnds, {time: data.ends_local});
    }
    var note = area.querySelector("[data-rc-offline]");
    note.hidden = !offline;
    note.textContent = offline ? labelsOf.labelOffline : "";
  }
  function renderClocks() { clocks.forEach(renderClock); }

  // One request at a time; the server's time (header, on 304s too) corrects this device's clock.
  RoundClock.poll = function () {
    if (!clocks.length || polling || !window.fetch) { return Promise.resolve(null); }
    polling = true;
    var sent = RoundClock.now(), headers = {"Accept": "application/json"};
    if (etag) { headers["If-None-Match"] = etag; }
    return fetch(clocks[0].dataset.clockUrl, {cache: "no-store", credentials: "same-origin", headers: headers})
      .then(function (response) {
        var received = RoundClock.now(), server = Number(response.headers.get("X-Server-Time"));
        if (server > 0) { offset = server - (sent + received) / 2; }
        if (response.status === 304) { return clockData; }
        if (!response.ok) { throw new Error(String(response.status)); }
        etag = response.headers.get("ETag");
        return response.json();
      })
      .then(function (data) {
        clockData = data;
        offline = false;
        if (data && data.poll_seconds > 0) { pollMs = data.poll_seconds * 1000; }
      })
      .catch(function () { offline = clockData !== null; })
      .then(function () { polling = false; renderClocks(); return clockData; });
  };
  RoundClock.render = renderClocks;
  RoundClock.state = function () {
    var now = serverNow();
    return {phase: clockPhase(clockData, now), data: clockData, offsetMs: offset, offline: offline,
            remainingMs: clockData && clockData.ends_at_ms !== null ? clockData.ends_at_ms - now : null};
  };

  function setUpRoundClock() {
    clocks = Array.prototype.slice.call(document.querySelectorAll("[data-round-clock]"));
    if (!clocks.length) { return; }
    RoundClock.poll();
    var lastPoll = RoundClock.now();
    setInterval(function () {
      renderClocks();
      // Hidden tabs skip their polls (battery, server); coming back polls at once (below).
      if (!document.hidden && RoundClock.now() - lastPoll >= pollMs) {
        lastPoll = RoundClock.now();
        RoundClock.poll();
      }
    }, 1000);
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) { lastPoll = RoundClock.now(); RoundClock.poll(); }
    });
  }

  // ------------------------------------------------------------------------------------------ both

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { if (wakeLock) { keepAwake(false); } return; }
    if (root) { load(); render(); }
    renderClocks();
  });
  window.addEventListener("pageshow", function () { if (root) { load(); render(); } renderClocks(); });

  function setUp() { setUpTurnTimer(); setUpRoundClock(); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", setUp); } else { setUp(); }
}());
