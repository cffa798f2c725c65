// Forms marked data-busy: once sent, their buttons are disabled and the pressed one shows that the server is
// working (aria-busy), so a second tap cannot send the form twice. Progressive enhancement only: the server
// refuses to do the same work twice anyway.
(function () {
  "use strict";
  function buttons(form) {
    return form.querySelectorAll('button[type="submit"], button:not([type]), input[type="submit"]');
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-busy")) { return; }
    if (form.getAttribute("aria-busy") === "true") { event.preventDefault(); return; }
    if (event.defaultPrevented) { return; }
    form.setAttribute("aria-busy", "true");
    var pressed = event.submitter || buttons(form)[0];
    // After this tick, so the pressed button's name and value still go with the form.
    window.setTimeout(function () {
      buttons(form).forEach(function (button) {
        if (!button.disabled) { button.disabled = true; button.setAttribute("data-busy-disabled", ""); }
      });
      if (!pressed || pressed.tagName !== "BUTTON") { return; }
      pressed.setAttribute("aria-busy", "true");
      pressed.setAttribute("data-idle-label", pressed.textContent);
      var spinner = document.createElement("span");
      spinner.className = "spinner-border spinner-border-sm me-1";
      spinner.setAttribute("aria-hidden", "true");
      var label = document.querySelector('meta[name="busy-label"]');
      pressed.textContent = label ? label.content : pressed.textContent;
      pressed.insertBefore(spinner, pressed.firstChild);
    }, 0);
  });

  // Back to a page kept in the browser's cache: usable again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll('form[data-busy][aria-busy="true"]').forEach(function (form) {
      form.removeAttribute("aria-busy");
      buttons(form).forEach(function (button) {
        if (button.hasAttribute("data-idle-label")) {
          button.textContent = button.getAttribute("data-idle-label");
          button.removeAttribute("data-idle-label");
        }
        button.removeAttribute("aria-busy");
        if (button.hasAttribute("data-busy-disabled")) {
          button.disabled = false;
          button.removeAttribute("data-busy-disabled");
        }
      });
    });
  });
})();
