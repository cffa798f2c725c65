from django.utils import timezone
from django.utils.cache import patch_cache_control


class ResetTimezoneMiddleware:
    """Each request starts in the site's time zone; views switch to their festival's zone.

    Without this, a zone activated by one request would stay active for the next one on the same worker.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


# Staff pages and downloads (manage/, desk/, the referees' table links and accounts, sign-in, the admin).
STAFF_PATHS = ("/manage/", "/desk/", "/t/", "/referee/", "/accounts/", "/admin/")


class NoStoreForStaffMiddleware:
    """Whatever answers under STAFF_PATHS — page, fragment, download, refusal — is never stored: it holds
    contacts, exports and table links that a shared laptop's cache or a proxy must not keep."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path_info.startswith(STAFF_PATHS):
            patch_cache_control(response, no_store=True, private=True)
        return response
