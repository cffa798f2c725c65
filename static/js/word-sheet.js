// Rummikub Word sheet: "add turn" without a page reload. Optional — without JavaScript the
// form's "More turn rows" button re-renders the page with more rows. Scores come from the server only.
(function () {
  "use strict";
  function init() {
    var list = document.querySelector("[data-word-turns]");
    var more = document.querySelector(".word-more-rows");
    var form = list && list.closest("form");
    var count = form && form.querySelector("input[name=rows]");
    if (!list || !more || !count) return;
    var add = document.createElement("button");
    add.type = "button";
    add.className = more.className;
    add.textContent = more.textContent;
    more.hidden = true;
    more.parentNode.insertBefore(add, more);
    add.addEventListener("click", function () {
      var rows = list.querySelectorAll("[data-turn]");
      var last = rows[rows.length - 1];
      var old = Number(last.getAttribute("data-turn"));
      var index = old + 1;
      var row = last.cloneNode(true);
      row.setAttribute("data-turn", String(index));
      row.querySelectorAll("[name],[id],[for]").forEach(function (el) {
        ["name", "id", "for"].forEach(function (attr) {
          var value = el.getAttribute(attr);
          if (value) el.setAttribute(attr, value.replace("t" + old + "_", "t" + index + "_"));
        });
        if (el.type === "checkbox") el.checked = false;
        else if (el.tagName === "INPUT") el.value = "";
      });
      row.querySelectorAll(".text-danger").forEach(function (el) { el.remove(); });
      var label = row.querySelector("label");
      if (label) label.textContent = label.textContent.replace(String(old + 1), String(index + 1));
      // The next player in seat order after the last row's player.
      var select = row.querySelector("select");
      var previous = last.querySelector("select");
      if (select && previous) select.selectedIndex = (previous.selectedIndex + 1) % select.options.length;
      list.appendChild(row);
      count.value = String(index + 1);
      var words = row.querySelector("input[type=text]");
      if (words) words.focus();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
