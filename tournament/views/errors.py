"""Error pages in the user's language, inside the normal layout."""

from urllib.parse import urlencode

from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

PERSONAL_LINKS = "/p/"  # tournament/urls.py: every page of a player's personal link


def _error(request, status: int, title: str, message: str, *, links=()):
    """`links`: (label, url) of where to go from here; the start page when none is given."""
    links = list(links) or [(_("Back to the start page"), reverse("home"))]
    return render(request, "error.html", {"title": title, "message": message, "links": links}, status=status)


def bad_request(request, exception=None):
    return _error(request, 400, _("Bad request"), _("The request could not be understood. Please go back and try again."))


def permission_denied(request, exception=None):
    """Signed in: which account is refused, and My work, where its own pages are; signed out: the sign-in page,
    coming back here."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return _error(request, 403, _("Not allowed"), _(
            "You are signed in as %(username)s, and this account may not do this here. If it should, ask the "
            "festival's organiser for the role.") % {"username": user.get_username()},
            links=[(_("My work"), reverse("manage-home"))])
    return _error(request, 403, _("Not allowed"), _("Sign in with an account that may do this."),
                  links=[(_("Sign in"), f"{reverse('login')}?{urlencode({'next': request.get_full_path()})}"),
                         (_("Back to the start page"), reverse("home"))])


def page_not_found(request, exception=None):
    if request.path.startswith(PERSONAL_LINKS):
        # A player's own page (tournament/views/player.py): the link was mistyped, cut short or is not theirs.
        return _error(request, 404, _("This personal link does not work"), _(
            "There is no such page: the link may be mistyped or cut short. Ask the desk for your link; they find "
            "you by name and show it again."))
    return _error(request, 404, _("Not found"), _("There is no such page. The link may be wrong or no longer valid."))


def server_error(request):
    return _error(request, 500, _("Something went wrong"), _("Please try again in a moment. If it happens again, tell the organiser."))


def rate_limited(request, exception=None):
    return _error(request, 429, _("Too many requests"), _("Too many attempts from this connection. Please wait a minute and try again."))


def csrf_failure(request, reason=""):
    """Django's own page styles itself inline, which the Content-Security-Policy blocks, and is English only."""
    return _error(request, 403, _("The form has expired"),
                  _("This page was open too long or was sent from elsewhere. Go back, reload the page and try again."))
