"""What a phone or laptop may keep of the site: nothing personal, nothing of staff, except the copies the
service worker keeps for a dropped hall Wi-Fi — and those only until someone signs out.

The service worker (static/js/sw.js) keeps a page only when its answer is marked neither `no-store` nor
`private`. Every staff page answers `no-store, private` (middleware.NoStoreForStaffMiddleware), every personal
page too (`never_cache`), and the public pages `private` (they carry the visitor's CSRF token): on their own
the worker keeps none of them. The pages made to work offline (OFFLINE_PAGES) answer the worker's own request
for an offline copy — it says `Offline-Copy: keep`, and fetches past the browser's HTTP cache — with
`Cache-Control: no-cache`: the worker may keep that copy, and revalidates it on every visit with a connection.
Everyone else asking for those pages (the browser itself, a proxy) still gets `no-store`, so the only copy
is the worker's, which signing out deletes (static/js/offline.js, and the worker itself on the sign-out).

A personal page is never an offline page: whoever opens it (the desk, with its buttons; the player), it
answers `no-store` and the worker does not keep it.
"""

from django.utils.cache import patch_vary_headers

OFFLINE_COPY = "Offline-Copy"
# The URL names of the pages kept for a dropped Wi-Fi; static/js/sw.js's RULES name the same addresses
# (tests/test_what_a_device_keeps.py holds them together).
OFFLINE_PAGES = frozenset({
    "referee-link-table", "referee-link-game",  # the table card's link
    "referee-table", "referee-game",  # a signed-in referee's own table
    "desk", "desk-missing",  # the desk's check-in lists
    "public-standings", "public-standings-stage", "public-player",  # what players read in the hall
})


def asks_for_offline_copy(request) -> bool:
    return request.method == "GET" and request.headers.get(OFFLINE_COPY) == "keep"


class OfflineCopyMiddleware:
    """Answers the service worker's request for the offline copy of an offline page as storable
    (`no-cache`). Outside NoStoreForStaffMiddleware, so it has the last word on that one answer; a refusal,
    a redirect or an error is never an offline copy."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        if match is None or match.url_name not in OFFLINE_PAGES:
            return response
        patch_vary_headers(response, (OFFLINE_COPY,))
        if asks_for_offline_copy(request) and response.status_code == 200:
            response.headers.pop("Expires", None)  # never_cache's, which says "stale now" to any cache that reads it
            response["Cache-Control"] = "no-cache"
        return response
