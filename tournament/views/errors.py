"""Error pages in the user's language, inside the normal layout."""

from django.shortcuts import render
from django.utils.translation import gettext as _


def _error(request, status: int, title: str, message: str):
    return render(request, "error.html", {"title": title, "message": message}, status=status)


def bad_request(request, exception=None):
    return _error(request, 400, _("Bad request"), _("The request could not be understood. Please go back and try again."))


def permission_denied(request, exception=None):
    return _error(request, 403, _("Not allowed"), _("You do not have permission to do this. Sign in with an account that does."))


def page_not_found(request, exception=None):
    return _error(request, 404, _("Not found"), _("There is no such page. The link may be wrong or no longer valid."))


def server_error(request):
    return _error(request, 500, _("Something went wrong"), _("Please try again in a moment. If it happens again, tell the organiser."))


def rate_limited(request, exception=None):
    return _error(request, 429, _("Too many requests"), _("Too many attempts from this connection. Please wait a minute and try again."))


def csrf_failure(request, reason=""):
    """Django's own page styles itself inline, which the Content-Security-Policy blocks, and is English only."""
    return _error(request, 403, _("The form has expired"),
                  _("This page was open too long or was sent from elsewhere. Go back, reload the page and try again."))
