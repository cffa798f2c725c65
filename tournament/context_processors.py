"""Template context the project adds to Django's."""

from django.urls import reverse

from .views.offline import offline_version

# Where a page stored for many visitors (public/live.py) holds the CSRF token; each answer puts the
# visitor's own token there. Letters and digits only, as a real token, so escaping leaves it unchanged.
CSRF_PLACEHOLDER = "csrfPlaceholder0sharedPage0notAToken"


def csrf_placeholder(request):
    """The placeholder instead of the token while such a page is rendered (after Django's own csrf
    processor, so it wins); nothing otherwise."""
    if getattr(request, "csrf_placeholder", False):
        return {"csrf_token": CSRF_PLACEHOLDER}
    return {}


def offline_context(request) -> dict:
    """Context processor: the worker's address, with the version that names its caches."""
    return {"offline_worker": f"{reverse('service-worker')}?v={offline_version()}"}
