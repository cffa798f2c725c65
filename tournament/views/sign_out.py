"""Signing out on a shared phone or laptop: the next person on the device finds nothing of the last one.

Django's sign-out, answered with `Clear-Site-Data: "cache"`: the browser drops its HTTP cache of the site
(and pages kept for the back button). Not "storage": that would also delete the check-ins and sheets still
waiting in the outbox to be sent (IndexedDB), which must stay until the account that queued them sends them.
What the device keeps besides — the service worker's copies of pages, the answered outbox items — the page
deletes before the form is sent, and the service worker when it sees the form go (static/js/offline.js,
static/js/sw.js). The browser honours the header only in a secure context (HTTPS, or loopback); over plain
HTTP there is no service worker either, and every staff and personal page is `no-store` anyway.
"""

from django.contrib.auth.views import LogoutView


class SignOutView(LogoutView):
    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        response["Clear-Site-Data"] = '"cache"'
        return response
