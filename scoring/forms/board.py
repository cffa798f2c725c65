"""Small forms for the chief referee's and organiser's pages: they only parse; the services decide."""

from django import forms
from django.utils.translation import gettext_lazy as _

MAX_NUMBER = 999

class BoardFilterForm(forms.Form):
    """Which stage and game the board shows; nonsense is ignored (the current ones are shown instead)."""

    stage = forms.IntegerField(required=False, min_value=1, max_value=MAX_NUMBER)
    game = forms.IntegerField(required=False, min_value=1, max_value=MAX_NUMBER)
    warnings = forms.BooleanField(required=False, label=_("Only sheets with warnings"))


class ReturnForm(forms.Form):
    reason = forms.CharField(
        label=_("Why does the sheet go back to the referee?"), max_length=1000,
        widget=forms.Textarea(attrs={"rows": 2, "class": "form-control"}),
    )


class TableForm(forms.Form):
    table = forms.IntegerField(min_value=1, max_value=MAX_NUMBER)


class RefereeForm(TableForm):
    referee = forms.IntegerField(min_value=1, max_value=2**31 - 1, label=_("Referee"))


class LinkForm(forms.Form):
    link = forms.IntegerField(min_value=1, max_value=2**63 - 1)
