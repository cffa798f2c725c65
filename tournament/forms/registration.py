"""The public registration form and the player's withdraw confirmation."""

import re
import unicodedata

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, validate_email
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ..models import Player
from ..models.registration import contact_key, name_key
from ..services.registration import PlayerDetails

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


def clean_text(value: str) -> str:
    """Trimmed, with runs of spaces made one, composed (NFC) so the same letters are stored the same way."""
    value = unicodedata.normalize("NFC", value)
    _reject_invisible(value)
    return " ".join(value.split())


class RegistrationForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=_max_length("name"),
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
        help_text=_("Optional. If you have one, your results count toward your ranking."),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The current year is read per form, not once at import: a server runs across New Year.
        this_year = timezone.localdate().year
        birth_year = self.fields["birth_year"]
        birth_year.min_value, birth_year.max_value = OLDEST_BIRTH_YEAR, this_year
        birth_year.validators = [
            MinValueValidator(OLDEST_BIRTH_YEAR),
            MaxValueValidator(this_year),
        ]
        birth_year.widget.attrs.update({"min": OLDEST_BIRTH_YEAR, "max": this_year})
        self.helper = FormHelper()
        self.helper.form_method = "post"
        self.helper.add_input(Submit("submit", _("Register"), css_class="btn-tap w-100"))

    def clean_name(self):
        name = clean_text(self.cleaned_data["name"])
        if not any(unicodedata.category(ch).startswith("L") for ch in name):
            raise ValidationError(_("Please enter a name with letters."), code="no_letters")
        # The identity key is width-folded and may be longer than what was typed (e.g. "㍿").
        if len(name_key(name)) > _max_length("name"):
            raise ValidationError(_("This name is too long."), code="too_long")
        return name

    def clean_contact(self):
        # Full-width digits and "＠" from a CJK keyboard become their ASCII forms.
        contact = clean_text(unicodedata.normalize("NFKC", self.cleaned_data["contact"]))
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
        if len(contact_key(contact)) > _max_length("contact"):
            raise ValidationError(_("This contact is too long."), code="too_long")
        return contact

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
        )


class EraseMyDataForm(forms.Form):
    """The player's erasure request, confirmed without JavaScript: the box must be ticked."""

    confirm = forms.BooleanField(label=_("Yes, erase my data"), required=True)
    hide_in_results = forms.BooleanField(
        label=_("Also show me as “withdrawn player” instead of my name in public results"), required=False)


class WithdrawForm(forms.Form):
    """Confirmation without JavaScript: the box must be ticked."""

    confirm = forms.BooleanField(label=_("Yes, withdraw me"), required=True)
