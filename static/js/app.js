// Progressive enhancement only: every page works without this file.
// Parts of pages that poll (marked data-poll) skip their requests while the tab is hidden,
// to spare phones' batteries and the server; the next tick after the tab returns refreshes them.
document.addEventListener("htmx:beforeRequest", function (event) {
  var element = event.detail && event.detail.elt;
  if (document.hidden && element && element.closest("[data-poll]")) {
    event.preventDefault();
  }
});
// htmx sends the CSRF token taken from the page's <meta name="csrf-token">.
document.addEventListener("htmx:configRequest", function (event) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) { event.detail.headers["X-CSRFToken"] = meta.content; }
});
