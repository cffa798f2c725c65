"""The player's choice of a masked public name (their personal page)."""

from django import forms
from django.utils.translation import gettext_lazy as _


class MaskedNameForm(forms.Form):
    masked = forms.TypedChoiceField(
        choices=[("yes", _("masked")), ("no", _("in full"))], coerce=lambda value: value == "yes",
        error_messages={"required": _("Choose masked or in full."), "invalid_choice": _("Choose masked or in full.")})
