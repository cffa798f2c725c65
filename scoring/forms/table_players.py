"""The small forms of a table whose players keep its sheet: only parsing; scoring/services/table_sheets.py
decides."""

from django import forms
from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

from ..models import SheetAnswer
from .common import new_key

SEAT_CODE = RegexValidator(r"\A[0-9]{4}\Z", _("A seat code is the 4 digits printed at your seat on the table card."))
KEY = RegexValidator(r"\A[A-Za-z0-9_-]{8,64}\Z", _("This form is out of date: open the sheet again."))


def seat_code_field() -> forms.CharField:
    return forms.CharField(
        label=_("Your seat code"), max_length=4, validators=[SEAT_CODE],
        help_text=_("From the table card: the 4 digits at your seat."),
        error_messages={"required": _("Type your seat code from the table card.")},
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off", "pattern": "[0-9]{4}",
                                      "class": "form-control seat-code"}))


class AnswerForm(forms.Form):
    """A seated player's answer to the version of the sheet they saw."""

    sheet = forms.IntegerField(min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput)
    version = forms.IntegerField(min_value=1, max_value=32767, widget=forms.HiddenInput)
    answer = forms.ChoiceField(choices=[("agree", _("Agree")), ("dispute", _("Dispute"))],
                               error_messages={"invalid_choice": _("Agree or dispute."),
                                               "required": _("Agree or dispute.")})
    reason = forms.CharField(
        label=_("What is wrong?"), required=False, max_length=SheetAnswer._meta.get_field("reason").max_length,
        widget=forms.TextInput(attrs={"class": "form-control", "autocomplete": "off"}),
        help_text=_("A few words for the referee, e.g. “seat 3 had a joker left”."))
    key = forms.CharField(validators=[KEY], widget=forms.HiddenInput)

    def __init__(self, *args, asks_seat_code: bool = False, sheet=None, **kwargs):
        if sheet is not None:
            kwargs.setdefault("initial", {"sheet": sheet.pk, "version": sheet.version, "key": new_key()})
        super().__init__(*args, **kwargs)
        if asks_seat_code:
            self.fields["seat_code"] = seat_code_field()

    def clean(self):
        data = super().clean()
        if data.get("answer") == "dispute" and not (data.get("reason") or "").strip():
            self.add_error("reason", _("Say briefly what is wrong with the sheet."))
        return data
