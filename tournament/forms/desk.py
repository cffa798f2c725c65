"""Small forms for the check-in desk: what the volunteer searched for, and where to go after a tap."""

from django import forms
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _

from ..services.checkin import DeskQuery


class DeskSearchForm(forms.Form):
    q = forms.CharField(
        label=_("Name, player number or personal link"),
        required=False,
        max_length=200,
        error_messages={"max_length": _("That is too long for a name, a number or a link. Please shorten it.")},
    )

    def query(self) -> DeskQuery:
        """The parsed query; empty when the form is invalid (the template shows the form's error)."""
        if not self.is_valid():
            return DeskQuery()
        return DeskQuery.parse(self.cleaned_data["q"])

    @property
    def text(self) -> str:
        return self.cleaned_data.get("q", "") if self.is_valid() else ""


class DeskActionForm(forms.Form):
    """A check-in or undo tap. `next` brings the volunteer back to where they tapped (desk search, missing
    list, or a player's personal page opened by scanning their QR code)."""

    next = forms.CharField(required=False, max_length=2000)

    def safe_next(self, request) -> str:
        """`next` if it stays on this site, else ''. Never an open redirect."""
        if not self.is_valid():
            return ""
        target = self.cleaned_data["next"]
        # Only a path: redirect() would take a bare word for a URL name ("xxx" → NoReverseMatch, a 500).
        if target.startswith("/") and url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return target
        return ""
