"""The guardian's agreement on the link's page, and the desk's tick that the guardian signed on paper."""

import unicodedata

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from ..models import Registration
from ..registration_fields import clean_text
from .desk import DeskActionForm


class GuardianAgreementForm(forms.Form):
    name = forms.CharField(
        label=_("Your name"), max_length=Registration._meta.get_field("guardian_checked_name").max_length,
        help_text=_("Kept with your agreement, as the record that you gave it."),
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
        error_messages={"required": _("Write your name: it is kept as the record of your agreement.")},
    )
    agree = forms.BooleanField(
        error_messages={"required": _("Tick the box to agree. Nothing was recorded.")},
    )
    # Separate and optional: only when the festival names a ranking body (services.consent.stamp_ranking).
    ranking_agrees = forms.BooleanField(required=False)

    def __init__(self, *args, player, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["agree"].label = _(
            "I am the parent or guardian of %(player)s. I have read the collection notice above and agree to the "
            "collection and use of their personal data and to their registration.") % {"player": player.name}
        recipient = player.festival.ranking_recipient
        if recipient:
            self.fields["ranking_agrees"].label = _(
                "Optional: I also agree that their name, birth year, school or club, ranking id, places and ranking "
                "points are given to %(recipient)s for its ranking (see “Giving results to a third party”).") % {
                "recipient": recipient}
            self.fields["ranking_agrees"].initial = bool(player.results_to_ranking)
        else:
            del self.fields["ranking_agrees"]

    def ranking(self) -> bool | None:
        return self.cleaned_data.get("ranking_agrees", False) if "ranking_agrees" in self.fields else None

    def clean_name(self):
        name = clean_text(self.cleaned_data["name"])
        if not any(unicodedata.category(ch).startswith("L") for ch in name):
            raise ValidationError(_("Please enter a name with letters."), code="no_letters")
        return name


class GuardianSignedForm(DeskActionForm):
    """The desk saw the guardian sign the paper consent form (a child waiting for the guardian)."""

    signed = forms.BooleanField(
        label=_("The parent or guardian signed the paper consent form"),
        error_messages={"required": _("Tick that the parent or guardian signed the paper consent form. Nothing "
                                      "was changed.")},
    )
