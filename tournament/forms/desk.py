"""Small forms for the check-in desk: what the volunteer searched for, and where to go after a tap."""

import dataclasses
import re

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Layout, Submit
from django import forms
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _

from ..models import Registration
from ..services.consent import needs_guardian
from ..services.desk_search import DeskQuery
from ..services.registration import PlayerDetails
from ..services.walk_in import NEW_PERSON, PersonChoice, WalkInMatch, walk_in_matches
from .registration import ConsentFields, RegistrationForm

NEW = "new"  # the walk-in's `person`: a new person, not one of the stored players of that name
_ID = re.compile(r"[0-9]{1,12}")


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
    parent or guardian), which the volunteer ticks as seen.

    When the typed name is the name of stored players of the festival (`matches`, services.walk_in), the form
    is shown again with them as choices, everything typed kept: `person` is one of their ids or "new", `seen`
    the ids of the matches shown. The age rules then follow the person chosen (a stored child needs a guardian
    whatever birth year was typed)."""

    ranking_id = None
    how = Registration.ConsentHow.PAPER
    # Rendered by the template beside the matches (tournament/desk/_walk_in_matches.html).
    person = forms.CharField(required=False, max_length=20)
    seen = forms.CharField(required=False, max_length=2000, widget=forms.HiddenInput)

    def __init__(self, *args, event, **kwargs):
        super().__init__(*args, festival=event.festival, **kwargs)
        self.event = event
        self.matches: list[WalkInMatch] = []
        self.chosen: WalkInMatch | None = None
        self.fields["agree"].label = _("The paper consent form to the collection notice is signed.")
        self.fields["agree"].error_messages["required"] = _(
            "A walk-in needs the signed paper consent form. Nothing was saved.")
        self.fields["guardian_agrees"].label = _("For a child: the parent or guardian signed it.")
        self.offer_ranking(_("Optional: the paper form also agrees that results are given to %(recipient)s for "
                             "its ranking."))
        contact = self.fields["contact"]
        contact.required = False
        contact.help_text = _("Optional. Without it, the player keeps the personal link shown after this step.")
        self.fields["name"].widget.attrs["autocomplete"] = "off"
        contact.widget.attrs["autocomplete"] = "off"
        self.helper = FormHelper()
        self.helper.form_tag = False  # the page's form also carries the choice between the matches
        self.helper.layout = Layout(*(name for name in self.fields if name not in ("person", "seen")))
        self.helper.add_input(Submit("submit", _("Register and check in"), css_class="btn-tap w-100"))

    def given_consent(self, **kwargs):
        consent = super().given_consent(**kwargs)
        # An unticked box at the desk means the paper did not say: a person chosen from the stored ones keeps
        # the answer they gave before.
        return dataclasses.replace(consent, ranking=True if consent.ranking else None)

    def clean_contact(self):
        if not self.cleaned_data["contact"].strip():
            return ""
        return super().clean_contact()

    def clean_seen(self) -> frozenset[int]:
        # Sent back by the form as it was shown; anything else is a list nobody saw (then shown again).
        ids = self.cleaned_data["seen"].split(",") if self.cleaned_data["seen"] else []
        if not all(_ID.fullmatch(value) for value in ids):
            return frozenset({-1})
        return frozenset(int(value) for value in ids)

    def clean(self):
        if "name" in self.cleaned_data:
            self.matches = walk_in_matches(event=self.event, details=self._typed())
            self._choose()
        return super().clean()

    def _typed(self) -> PlayerDetails:
        data = self.cleaned_data
        return PlayerDetails(name=data["name"], contact=data.get("contact", ""), birth_year=data.get("birth_year"),
                             affiliation=data.get("affiliation", ""), guardian_name=data.get("guardian_name", ""),
                             guardian_contact=data.get("guardian_contact", ""))

    def _choose(self) -> None:
        person, seen = self.cleaned_data.get("person", ""), self.cleaned_data.get("seen", frozenset())
        if not self.matches and not person:
            return
        if person and seen != self.seen_now:
            self.add_error("person", forms.ValidationError(
                _("The players stored under this name changed meanwhile: nothing was saved. Check them and choose "
                  "again."), code="changed"))
        elif not person:
            self.add_error("person", forms.ValidationError(
                _("Nothing is saved yet: choose one of them, or a new person."), code="required"))
        elif person != NEW:
            self.chosen = next((m for m in self.matches if str(m.player.pk) == person), None)
            if self.chosen is None:
                self.add_error("person", forms.ValidationError(
                    _("Choose one of the players shown, or a new person."), code="invalid_choice"))

    @property
    def seen_now(self) -> frozenset[int]:
        return frozenset(match.player.pk for match in self.matches)

    @property
    def seen_value(self) -> str:
        """The hidden field's value: the ids of the matches shown now (not the ones sent back)."""
        return ",".join(str(match.player.pk) for match in self.matches)

    @property
    def person_value(self) -> str:
        """The radio to show ticked: the desk's choice, else the player with the typed contact."""
        person = self.data.get("person", "")
        if person == NEW or any(str(match.player.pk) == person for match in self.matches):
            return person
        return next((str(match.player.pk) for match in self.matches if match.same_contact), "")

    def is_child(self) -> bool:
        if self.chosen is not None:
            return needs_guardian(self.festival, self.chosen.player.birth_year)
        return super().is_child()

    def person_choice(self) -> PersonChoice:
        """The desk's choice for services.walk_in (the form is valid)."""
        if not self.matches and not self.cleaned_data["person"]:
            return NEW_PERSON
        return PersonChoice(player_id=self.chosen.player.pk if self.chosen else None, seen=self.cleaned_data["seen"])


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
