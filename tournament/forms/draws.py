from django import forms
from django.utils.translation import gettext_lazy as _

MAX_SEED = 2**31 - 1


class DrawForm(forms.Form):
    seed = forms.IntegerField(
        label=_("Seed (optional)"), required=False, min_value=0, max_value=MAX_SEED,
        help_text=_("Leave empty for a fresh random draw; enter a stored seed to reproduce a draw."),
    )


class SwapForm(forms.Form):
    first = forms.TypedChoiceField(label=_("Player"), coerce=int)
    second = forms.TypedChoiceField(label=_("swaps seats with"), coerce=int)

    def __init__(self, *args, seats=(), **kwargs):
        super().__init__(*args, **kwargs)
        choices = [("", "—")] + [
            (seat.registration_id, f"{seat.registration.number or '–'} · {seat.registration.player.name} ("
             + _("table %(number)s") % {"number": seat.table.number} + ")")
            for seat in sorted(seats, key=lambda s: (s.registration.number or 0, s.registration.player.name))
        ]
        self.fields["first"].choices = choices
        self.fields["second"].choices = choices

    def clean(self):
        data = super().clean()
        if data.get("first") is not None and data.get("first") == data.get("second"):
            raise forms.ValidationError(_("Choose two different players to swap."))
        return data


class UnreleaseForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=500, widget=forms.TextInput)
