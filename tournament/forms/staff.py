"""The organiser's staff page: add a person in a role, remove a role, make a set-password link."""

from django import forms
from django.utils.translation import gettext_lazy as _

from ..models import StaffRole


class AddStaffForm(forms.Form):
    identifier = forms.CharField(
        label=_("Username or e-mail"), max_length=254,
        help_text=_("Someone without an account gets one, with a link to set their password."),
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "none", "spellcheck": "false"}),
    )
    role = forms.ChoiceField(label=_("Role"), choices=StaffRole.Role.choices, initial=StaffRole.Role.REFEREE)


class StaffRoleForm(forms.Form):
    """One person's role, for removing it."""

    user = forms.IntegerField(min_value=1, max_value=2**31 - 1)
    role = forms.ChoiceField(choices=StaffRole.Role.choices)


class StaffPersonForm(forms.Form):
    user = forms.IntegerField(min_value=1, max_value=2**31 - 1)
