"""Form pieces the score-sheet forms of every game share: the one-time key, phone-friendly inputs."""

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

KEY_PATTERN = r"^[0-9a-f]{32}$"


def new_key() -> str:
    """A one-time key for a form a phone may send twice: the service records it once."""
    return uuid.uuid4().hex


class NumberInput(forms.TextInput):
    """A phone's numeric keypad, without the browser's spinner and wheel quirks of type=number."""

    def __init__(self, attrs=None):
        super().__init__({"inputmode": "numeric", "pattern": "[0-9]*", "autocomplete": "off",
                          "class": "form-control form-control-lg sheet-number", **(attrs or {})})


class TapRadio(forms.RadioSelect):
    """Radios drawn as big toggle buttons (Bootstrap's btn-check + a label styled as a button)."""

    def __init__(self, attrs=None, choices=()):
        super().__init__({"class": "btn-check", **(attrs or {})}, choices)


def checkbox() -> forms.CheckboxInput:
    return forms.CheckboxInput(attrs={"class": "form-check-input"})


def reason_field() -> forms.CharField:
    """Why a confirmed sheet is corrected (kept with the new version and in the audit log)."""
    return forms.CharField(label=_("Reason for the correction"), max_length=1000,
                           widget=forms.Textarea(attrs={"rows": 2, "class": "form-control"}))
