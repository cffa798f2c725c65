// Progressive enhancement only: the event form works without this file (its "Propose" button asks the server).
// Moving the start time moves check-in and the end by as much, so one change keeps the day's shape (R9).
(function () {
  var start = document.getElementById("id_starts");
  if (!start) { return; }
  var followers = ["id_checkin_opens", "id_checkin_closes", "id_ends"]
    .map(function (id) { return document.getElementById(id); })
    .filter(function (input) { return input; });

  function minutes(value) {
    var match = /^(\d\d):(\d\d)/.exec(value || "");
    return match ? Number(match[1]) * 60 + Number(match[2]) : null;
  }

  function clock(total) {
    total = ((total % 1440) + 1440) % 1440;
    var hours = Math.floor(total / 60), mins = total % 60;
    return (hours < 10 ? "0" : "") + hours + ":" + (mins < 10 ? "0" : "") + mins;
  }

  var before = minutes(start.value);
  function follow() {
    var now = minutes(start.value);
    if (before !== null && now !== null && now !== before) {
      followers.forEach(function (input) {
        var at = minutes(input.value);
        if (at !== null) { input.value = clock(at + now - before); }
      });
    }
    if (now !== null) { before = now; }
  }
  start.addEventListener("input", follow);
  start.addEventListener("change", follow);
})();
