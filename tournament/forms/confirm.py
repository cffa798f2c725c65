"""The confirmation an action that cannot be undone carries back (tournament.services.confirmation)."""

from django import forms


class ConfirmForm(forms.Form):
    """`confirm` is the state of what the page showed; anything else is no confirmation."""

    confirm = forms.RegexField(regex=r"^[0-9a-f]{1,64}$", required=False, max_length=64)

    def expect(self) -> str:
        return self.cleaned_data.get("confirm") or "" if self.is_valid() else ""
