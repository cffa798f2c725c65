"""The rules of a player's details: what a name, a contact, a birth year … may be, and how each is cleaned.

One definition for every way a player comes in: the registration form and the desk's forms build on
`PlayerFields`, and an imported file's rows (services.imports) and an imported event's players
(scoring.services.import_checks) are checked by it, so they meet the same standard. Here, not in
tournament/forms, because those services need it.
"""

import re
import unicodedata

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, validate_email
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import Player
from .models.registration import contact_key, name_key
from .services.consent import needs_guardian, youngest_without_guardian
from .services.registration import PlayerDetails
from .visible_names import is_invisible, validate_visible_name

OLDEST_BIRTH_YEAR = 1900
PHONE_SHAPE = re.compile(r"\+?[0-9()\- ]+")
PHONE_DIGITS = (7, 15)  # E.164 allows at most 15 digits; shorter than 7 is no reachable number
# Zero-width (non-)joiners are part of correct spelling in some scripts; every other invisible format
# character (bidi overrides …) only serves to make a name look like something it is not.
ALLOWED_FORMAT_CHARACTERS = {"\u200c", "\u200d"}


def _max_length(field: str) -> int:
    return Player._meta.get_field(field).max_length


def _reject_invisible(value: str) -> None:
    for ch in value:
        category = unicodedata.category(ch)
        if category in {"Zl", "Zp"} or (category.startswith("C") and ch not in ALLOWED_FORMAT_CHARACTERS):
            raise ValidationError(_("Please remove control characters and line breaks."), code="control")


def has_letters(name: str) -> bool:
    """Whether a name holds a letter that shows (a Hangul filler is a "letter" that does not)."""
    return any(unicodedata.category(ch).startswith("L") and not is_invisible(ch) for ch in name)


def normalise_contact(value: str, max_length: int) -> str:
    """An e-mail address or a phone number, trimmed; full-width digits and "＠" from a CJK keyboard become
    their ASCII forms."""
    contact = clean_text(unicodedata.normalize("NFKC", value))
    if "@" in contact:
        try:
            validate_email(contact)
        except ValidationError:
            raise ValidationError(_("Please enter a valid e-mail address."), code="email") from None
    else:
        digits = sum(ch.isdigit() for ch in contact)
        if not PHONE_SHAPE.fullmatch(contact) or not PHONE_DIGITS[0] <= digits <= PHONE_DIGITS[1]:
            raise ValidationError(
                _("Please enter an e-mail address or a phone number (7 to 15 digits; + - ( ) and spaces allowed)."),
                code="contact",
            )
    if len(contact_key(contact)) > max_length:
        raise ValidationError(_("This contact is too long."), code="too_long")
    return contact


def clean_text(value: str) -> str:
    """Trimmed, with runs of spaces made one, composed (NFC) so the same letters are stored the same way."""
    value = unicodedata.normalize("NFC", value)
    _reject_invisible(value)
    return " ".join(value.split())


class PlayerFields(forms.Form):
    """A player's details and the rules each one follows (a child's guardian too, with the festival)."""

    name = forms.CharField(
        label=_("Name"),
        max_length=_max_length("name"),
        validators=[validate_visible_name],
        help_text=_("As it should appear on the table lists, in any script (한글, 中文, Latin …)."),
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    contact = forms.CharField(
        label=_("E-mail or phone"),
        max_length=_max_length("contact"),
        help_text=_("Only the organisers see it, to reach you about this festival."),
        widget=forms.TextInput(attrs={"autocomplete": "email"}),
    )
    birth_year = forms.IntegerField(
        label=_("Birth year"),
        help_text=_("Players under 15 do not earn national ranking points (rule R9), so we need your birth year."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "autocomplete": "bday-year"}),
    )
    affiliation = forms.CharField(
        label=_("School or club"), max_length=_max_length("affiliation"), required=False,
        help_text=_("Optional."),
    )
    ranking_id = forms.CharField(
        label=_("National ranking id"), max_length=_max_length("ranking_id"), required=False,
        help_text=_("Optional. It tells the ranking body who you are, if you agree below that your results are "
                    "given to it."),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    # Asked of a child (services.consent.needs_guardian); shown to everyone, so the form works without JavaScript.
    guardian_name = forms.CharField(
        label=_("Parent's or guardian's name"), max_length=_max_length("guardian_name"), required=False,
        validators=[validate_visible_name],
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    guardian_contact = forms.CharField(
        label=_("Parent's or guardian's e-mail or phone"), max_length=_max_length("guardian_contact"),
        required=False, widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )

    def __init__(self, *args, festival=None, **kwargs):
        # With the festival, a child's registration asks for a guardian (its first day and guardian age).
        self.festival = festival
        super().__init__(*args, **kwargs)
        if festival is not None and "guardian_name" in self.fields:
            note = _("Needed only for a player born in %(year)s or later (younger than %(age)s on the first day).") % {
                "year": youngest_without_guardian(festival) + 1, "age": festival.guardian_age}
            self.fields["guardian_name"].help_text = note
        # The current year is read per form, not once at import: a server runs across New Year.
        this_year = timezone.localdate().year
        birth_year = self.fields["birth_year"]
        birth_year.min_value, birth_year.max_value = OLDEST_BIRTH_YEAR, this_year
        birth_year.validators = [
            MinValueValidator(OLDEST_BIRTH_YEAR),
            MaxValueValidator(this_year),
        ]
        birth_year.widget.attrs.update({"min": OLDEST_BIRTH_YEAR, "max": this_year})

    def clean_name(self):
        name = clean_text(self.cleaned_data["name"])
        if not has_letters(name):
            raise ValidationError(_("Please enter a name with letters."), code="no_letters")
        # The identity key is width-folded and may be longer than what was typed (e.g. "㍿").
        if len(name_key(name)) > _max_length("name"):
            raise ValidationError(_("This name is too long."), code="too_long")
        return name

    def clean_contact(self):
        return normalise_contact(self.cleaned_data["contact"], _max_length("contact"))

    def clean_guardian_name(self):
        name = clean_text(self.cleaned_data["guardian_name"])
        if name and not has_letters(name):
            raise ValidationError(_("Please enter a name with letters."), code="no_letters")
        return name

    def clean_guardian_contact(self):
        value = self.cleaned_data["guardian_contact"]
        return normalise_contact(value, _max_length("guardian_contact")) if value.strip() else ""

    def is_child(self) -> bool:
        """Whether the (valid) birth year asks for a guardian; False without a festival or a birth year."""
        return self.festival is not None and needs_guardian(self.festival, self.cleaned_data.get("birth_year"))

    def clean(self):
        data = super().clean()
        if "guardian_name" not in self.fields:
            return data
        if self.is_child():
            for name in ("guardian_name", "guardian_contact"):
                if not data.get(name) and name not in self.errors:
                    self.add_error(name, _("A player younger than %(age)s needs a parent's or guardian's consent: "
                                           "please fill this in.") % {"age": self.festival.guardian_age})
        elif self.festival is not None:
            # An adult's guardian is not asked for, so not kept either (collect no more than needed).
            data["guardian_name"] = data["guardian_contact"] = ""
        return data

    def clean_affiliation(self):
        return clean_text(self.cleaned_data["affiliation"])

    def clean_ranking_id(self):
        return clean_text(self.cleaned_data["ranking_id"])

    def player_details(self) -> PlayerDetails:
        data = self.cleaned_data
        return PlayerDetails(
            name=data["name"],
            contact=data["contact"],
            birth_year=data["birth_year"],
            affiliation=data["affiliation"],
            ranking_id=data.get("ranking_id", ""),
            guardian_name=data.get("guardian_name", ""),
            guardian_contact=data.get("guardian_contact", ""),
        )
