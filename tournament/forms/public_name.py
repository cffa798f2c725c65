"""The player's own choices on their personal page: a masked public name, results given to a ranking body."""

from django import forms
from django.utils.translation import gettext_lazy as _


class MaskedNameForm(forms.Form):
    masked = forms.TypedChoiceField(
        choices=[("yes", _("masked")), ("no", _("in full"))], coerce=lambda value: value == "yes",
        error_messages={"required": _("Choose masked or in full."), "invalid_choice": _("Choose masked or in full.")})


class RankingAgreementForm(forms.Form):
    agrees = forms.TypedChoiceField(
        choices=[("yes", _("agree")), ("no", _("withdraw the agreement"))], coerce=lambda value: value == "yes",
        error_messages={"required": _("Choose to agree or to withdraw."),
                        "invalid_choice": _("Choose to agree or to withdraw.")})
