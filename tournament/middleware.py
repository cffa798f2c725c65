from dataclasses import asdict

from csp.constants import HEADER
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as BaseCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
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
    contacts, exports and table links that a shared laptop's cache or a proxy must not keep. (One answer
    excepted: the service worker's offline copy of a page made to work offline, tournament/device.py.)"""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path_info.startswith(STAFF_PATHS):
            patch_cache_control(response, no_store=True, private=True)
        return response


class CSPMiddleware(BaseCSPMiddleware):
    """django-csp, building the policy once instead of per response: it is the same for every response that
    uses no nonce and no per-view override (the project uses neither; any that does gets django-csp's own
    handling). Built anew when the settings object changes (tests override it)."""

    _built: tuple = (None, "")

    def process_response(self, request, response):
        if (settings.DEBUG or getattr(request, "_csp_nonce", None) is not None
                or any(hasattr(response, name) for name in _CSP_OVERRIDES)
                or getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None)):
            return super().process_response(request, response)
        config = getattr(settings, "CONTENT_SECURITY_POLICY", None)
        built_for, policy = CSPMiddleware._built
        if built_for is not config or config is None:
            policy = build_policy(**asdict(self.get_policy_parts(request, response)))
            CSPMiddleware._built = (config, policy)
        prefixes = tuple((config or {}).get("EXCLUDE_URL_PREFIXES", None) or ())
        if (policy and HEADER not in response and not getattr(response, "_csp_exempt", False)
                and not request.path_info.startswith(prefixes)):
            response[HEADER] = policy
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response


_CSP_OVERRIDES = ("_csp_config", "_csp_update", "_csp_replace", "_csp_config_ro", "_csp_update_ro",
                  "_csp_replace_ro")
