"""Small forms for the check-in desk: what the volunteer searched for, and where to go after a tap."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _

from ..models import Registration
from ..services.desk_search import DeskQuery
from .registration import ConsentFields, RegistrationForm


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


class WalkInForm(ConsentFields, RegistrationForm):
    """A player registered and checked in at the desk: the registration form's rules, contact optional
    (the player is in the hall), no ranking id. Consent is a paper form signed at the desk (by a child's
    parent or guardian), which the volunteer ticks as seen."""

    ranking_id = None
    how = Registration.ConsentHow.PAPER

    def __init__(self, *args, festival, **kwargs):
        super().__init__(*args, festival=festival, **kwargs)
        self.fields["agree"].label = _("The paper consent form to the collection notice is signed.")
        self.fields["agree"].error_messages["required"] = _(
            "A walk-in needs the signed paper consent form. Nothing was saved.")
        self.fields["guardian_agrees"].label = _("For a child: the parent or guardian signed it.")
        contact = self.fields["contact"]
        contact.required = False
        contact.help_text = _("Optional. Without it, the player keeps the personal link shown after this step.")
        self.fields["name"].widget.attrs["autocomplete"] = "off"
        contact.widget.attrs["autocomplete"] = "off"
        self.helper = FormHelper()
        self.helper.form_method = "post"
        self.helper.add_input(Submit("submit", _("Register and check in"), css_class="btn-tap w-100"))

    def clean_contact(self):
        if not self.cleaned_data["contact"].strip():
            return ""
        return super().clean_contact()


class CorrectionForm(RegistrationForm):
    """The desk or the organiser fixes a player's name, school or club, or birth year (the same rules as
    registering); contact and ranking id are not changed here."""

    contact = None
    ranking_id = None
    guardian_name = None
    guardian_contact = None

    def __init__(self, *args, erased: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name"].widget.attrs["autocomplete"] = "off"
        self.fields["birth_year"].help_text = ""
        if erased:  # the player's personal data was erased: the desk does not collect the birth year again
            del self.fields["birth_year"]
        self.helper = FormHelper()
        self.helper.form_tag = False  # the page's form also carries where to go back to
        self.helper.add_input(Submit("submit", _("Save the correction"), css_class="btn-tap w-100"))


class LatePlacesForm(forms.Form):
    """The waiting-list players the desk ticked as present in the hall (ids of the waiting line shown)."""

    registration = forms.TypedMultipleChoiceField(
        coerce=int,
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "required": _("Tick the waiting-list players who are here."),
            "invalid_choice": _("Someone you ticked is no longer on the waiting list. Check the list again."),
        },
    )

    def __init__(self, *args, line, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["registration"].choices = [(str(r.pk), r.player.name) for r in line]
