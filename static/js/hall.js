// Hall display: show one slide (a screenful of standings or tables) at a time and move on every
// few seconds, with no interaction. htmx refreshes the slides (see hall.html); the cycle carries on across
// refreshes. Without this file every slide shows one after the other, the standings first.
(function () {
  "use strict";
  var SECONDS_PER_SLIDE = 10;
  var index = 0;
  document.documentElement.classList.add("hall-js");

  function show() {
    var slides = document.querySelectorAll("#hall .hall-slide");
    if (!slides.length) { return; }
    index = index % slides.length;
    for (var i = 0; i < slides.length; i++) {
      slides[i].classList.toggle("is-current", i === index);
    }
  }

  document.addEventListener("DOMContentLoaded", show);
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.target && event.target.id === "hall") { show(); }
  });
  setInterval(function () { index += 1; show(); }, SECONDS_PER_SLIDE * 1000);
}());
