"""The public registration form and the player's withdraw confirmation."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import HTML, Div, Layout, Submit
from django import forms
from django.utils.html import escape
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from ..models import Player, Registration
from ..registration_fields import PlayerFields
from ..services.consent import Consent, guardian_refusal, needs_guardian, youngest_without_guardian
from ..services.registration import PlayerDetails


class RegistrationForm(PlayerFields):
    """The player's details on a page: their rules (tournament.registration_fields) and a send button."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_method = "post"
        self.helper.add_input(Submit("submit", _("Register"), css_class="btn-tap w-100"))


class EraseMyDataForm(forms.Form):
    """The player's erasure request, confirmed without JavaScript: the box must be ticked."""

    confirm = forms.BooleanField(label=_("Yes, erase my data"), required=True)
    hide_in_results = forms.BooleanField(
        label=_("Also show me as “withdrawn player” instead of my name in public results"), required=False)


class ConsentFields(forms.Form):
    """The agreement to the festival's collection notice, and a child's guardian's. Mixed into a form that
    asks for the player's details (RegistrationForm); `how` is Registration.ConsentHow."""

    how = Registration.ConsentHow.ONLINE
    agree = forms.BooleanField(
        label=_("I have read the collection notice above and agree to the collection and use of these personal "
                "data."),
        error_messages={"required": _("Without agreement to the collection notice, the registration cannot be "
                                      "taken. Nothing was saved.")},
    )
    guardian_agrees = forms.BooleanField(
        label=_("For a child: I am the player's parent or guardian, and I agree on their behalf."),
        required=False,
    )
    # Separate and optional (PIPA art. 17): only when the festival names a ranking body (`offer_ranking`).
    ranking_agrees = forms.BooleanField(required=False)

    def offer_ranking(self, label: str = "") -> None:
        """Ask the separate question about the ranking body, or drop it when the festival names none."""
        recipient = self.festival.ranking_recipient
        if not recipient:
            del self.fields["ranking_agrees"]
            if "ranking_id" in self.fields:
                self.fields["ranking_id"].help_text = _("Optional.")
            return
        self.fields["ranking_agrees"].label = (label or _(
            "Optional: I agree that my name, birth year, school or club, ranking id, places and ranking points are "
            "given to %(recipient)s for its ranking (see “Giving results to a third party”).")) % {
            "recipient": recipient}

    def clean(self):
        data = super().clean()
        if self.is_child():
            if not data.get("guardian_agrees"):
                self.add_error("guardian_agrees", _("A parent or guardian must agree for a player younger than "
                                                    "%(age)s.") % {"age": self.festival.guardian_age})
            if any(name in self.errors for name in ("guardian_name", "guardian_contact", "guardian_agrees")):
                self.add_error(None, guardian_refusal(self.festival))
        return data

    def given_consent(self, *, notice_version: int | None = None) -> Consent:
        by = Registration.ConsentBy.GUARDIAN if self.is_child() else Registration.ConsentBy.PLAYER
        ranking = self.cleaned_data.get("ranking_agrees", False) if "ranking_agrees" in self.fields else None
        return Consent(by=by, how=self.how, notice_version=notice_version, language=get_language(),
                       ranking=ranking)


class ReadNoticeFields(ConsentFields):
    """The agreement, with the version of the notice the person read: sent back with the form, so a notice
    changed meanwhile is read again (services.consent.check_consent). `self.festival` is set by the form."""

    notice_version = forms.IntegerField(widget=forms.HiddenInput, min_value=1, max_value=2**31 - 1, error_messages={
        code: _("Please reload the page and try again.") for code in ("required", "invalid", "min_value", "max_value")})

    def read_current_notice(self) -> None:
        self.fields["notice_version"].initial = self.festival.privacy_notice_version

    def clean(self):
        data = super().clean()
        if "notice_version" in self.errors:
            # A hidden field's error shows nowhere: say it on the form, and send the form back with the version
            # shown on the page and the agreement to give again, so that agreeing and sending it works.
            del self.errors["notice_version"]
            self.add_error(None, _("This form could not tell which version of the collection notice you read. "
                                   "Please read the notice, tick your agreement again and send the form."))
            self.data = self.data.copy()
            self.data[self.add_prefix("notice_version")] = str(self.festival.privacy_notice_version)
            for name in ("agree", "guardian_agrees", "ranking_agrees"):
                self.data.pop(self.add_prefix(name), None)
        return data

    def given_consent(self, **kwargs) -> Consent:
        return super().given_consent(notice_version=self.cleaned_data["notice_version"])


class PublicRegistrationForm(ReadNoticeFields, RegistrationForm):
    """The public form: the player's details and their agreement to the notice they read."""

    def __init__(self, *args, festival, **kwargs):
        super().__init__(*args, festival=festival, **kwargs)
        self.read_current_notice()
        self.offer_ranking()
        self.fields["guardian_name"].help_text = ""  # the note above the guardian's fields says it
        first_child_year = youngest_without_guardian(festival) + 1
        self.helper.layout = Layout(
            "name", "contact", "birth_year", "affiliation", "ranking_id",
            # Shown to all without JavaScript; static/js/guardian.js hides it while the birth year needs none.
            Div(HTML(f'<p class="small text-body-secondary mb-2">{guardian_note(festival)}</p>'),
                "guardian_name", "guardian_contact", "guardian_agrees",
                css_class="border rounded p-2 mb-3", css_id="guardian-fields",
                data_guardian_from=str(first_child_year)),
            "agree", *(["ranking_agrees"] if "ranking_agrees" in self.fields else []), "notice_version",
        )


class EnterAgainForm(ReadNoticeFields):
    """Entering one more event from the personal page once the festival's notice needs agreeing to again: the
    agreement (a child's guardian's, with the guardian the player registered with) and the version read."""

    def __init__(self, *args, player: Player, **kwargs):
        super().__init__(*args, **kwargs)
        self.player, self.festival = player, player.festival
        self.read_current_notice()
        self.offer_ranking()
        if "ranking_agrees" in self.fields:
            self.fields["ranking_agrees"].initial = bool(player.results_to_ranking)
        if not self.is_child():
            del self.fields["guardian_agrees"]

    def is_child(self) -> bool:
        return needs_guardian(self.festival, self.player.birth_year)


class DetailsAgainForm(ReadNoticeFields, RegistrationForm):
    """Entering one more event from the personal page after the player's data was erased: the contact, birth
    year and a child's guardian again (the registration form's rules), with the agreement to the notice. The
    name, school or club and ranking id were kept, so they are not asked."""

    def __init__(self, *args, player: Player, **kwargs):
        super().__init__(*args, festival=player.festival, **kwargs)
        self.player = player
        for kept in ("name", "affiliation", "ranking_id"):
            del self.fields[kept]
        self.read_current_notice()
        self.offer_ranking()
        if "ranking_agrees" in self.fields:
            self.fields["ranking_agrees"].initial = bool(player.results_to_ranking)

    def details_again(self) -> PlayerDetails:
        data, player = self.cleaned_data, self.player
        return PlayerDetails(name=player.name, contact=data["contact"], birth_year=data["birth_year"],
                             affiliation=player.affiliation, ranking_id=player.ranking_id,
                             guardian_name=data.get("guardian_name", ""),
                             guardian_contact=data.get("guardian_contact", ""))


def guardian_note(festival) -> str:
    return escape(_("A player born in %(year)s or later may be younger than %(age)s on the festival's first day: "
                    "then a parent or guardian gives their name and contact and agrees.")
                  % {"year": youngest_without_guardian(festival) + 1, "age": festival.guardian_age})


class WithdrawForm(forms.Form):
    """Confirmation without JavaScript: the box must be ticked."""

    confirm = forms.BooleanField(label=_("Yes, withdraw me"), required=True)
