"""Form pieces the score-sheet forms of every game share: the one-time key, phone-friendly inputs."""

import uuid

from django import forms

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
