"""The staff forms: the organiser invites, renews, withdraws and removes; the invited person answers."""

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import SetPasswordMixin, UsernameField
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.utils.translation import gettext_lazy as _

from ..models import StaffRole
from ..visible_names import validate_visible_name

ID = {"min_value": 1, "max_value": 2**31 - 1}


class InviteStaffForm(forms.Form):
    identifier = forms.CharField(
        label=_("Username or e-mail"), max_length=254,
        help_text=_("They get an invitation link to give them: someone with an account signs in and accepts, "
                    "someone without makes their own."),
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "none", "spellcheck": "false"}),
    )
    role = forms.ChoiceField(label=_("Role"), choices=StaffRole.Role.choices, initial=StaffRole.Role.REFEREE)


class StaffRoleForm(forms.Form):
    """One person's role, for removing it."""

    user = forms.IntegerField(**ID)
    role = forms.ChoiceField(choices=StaffRole.Role.choices)


class StaffPersonForm(forms.Form):
    user = forms.IntegerField(**ID)


class InvitationForm(forms.Form):
    """One of the festival's invitations, to renew or withdraw; or one addressed to me, to answer."""

    invitation = forms.IntegerField(**ID)


class NewAccountForm(SetPasswordMixin, forms.Form):
    """A newcomer's own account, made from an invitation link: a username and the password twice."""

    username = UsernameField(label=_("Username"), max_length=150,
                             help_text=_("Letters, digits and @ . + - _ only; you sign in with it."),
                             validators=[UnicodeUsernameValidator(), validate_visible_name],
                             widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}))
    password1, password2 = SetPasswordMixin.create_password_fields()

    def clean(self):
        self.validate_passwords()
        self.validate_password_for_user(get_user_model()(username=self.cleaned_data.get("username", "")))
        return super().clean()


class FirstPasswordForm(SetPasswordMixin, forms.Form):
    """The first password of an account the festival made before invitations existed."""

    password1, password2 = SetPasswordMixin.create_password_fields()

    def __init__(self, user, *args, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)

    def clean(self):
        self.validate_passwords()
        self.validate_password_for_user(self.user)
        return super().clean()
