// Registration form: the guardian's fields are shown to everyone without JavaScript; with it they appear only
// while the birth year typed may make the player younger than the festival's guardian age (the server decides
// in any case, services/consent.py).
(function () {
  "use strict";
  function setUp() {
    var group = document.getElementById("guardian-fields");
    var year = document.querySelector("input[name='birth_year']");
    if (!group || !year) return;
    var from = parseInt(group.getAttribute("data-guardian-from"), 10);
    if (isNaN(from)) return;
    // A field with an error stays visible, whatever the year says.
    var hasError = group.querySelector(".is-invalid") !== null;
    function update() {
      var value = parseInt(year.value, 10);
      group.hidden = !(hasError || (!isNaN(value) && value >= from));
    }
    year.addEventListener("input", update);
    update();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
