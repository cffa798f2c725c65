"""Forms of the conduct pages (R9): they only parse; `scoring.services.conduct` decides."""

import re

from django import forms
from django.utils.translation import gettext_lazy as _

from tournament.models import ConductRecord, Registration, Stage

from ..services.conduct import MAX_NOTE
from .common import KEY_PATTERN, new_key

Kind = ConductRecord.Kind
MAX_NUMBER = 99_999
NOTE = forms.Textarea(attrs={"rows": 2})

ACTIONS = {
    "warning": (Kind.WARNING,),
    "disqualify": (Kind.DISQUALIFIED,),
    "leave": (Kind.WITHDREW, Kind.FORFEIT),
}


class ConductForm(forms.Form):
    """Who, what, when (round and game, optional) and what happened."""

    number = forms.IntegerField(label=_("Player number"), min_value=1, max_value=MAX_NUMBER)
    kind = forms.ChoiceField(label=_("What"), choices=Kind.choices, widget=forms.RadioSelect)
    stage = forms.IntegerField(label=_("Round"), required=False, min_value=1, max_value=999)
    game = forms.IntegerField(label=_("Game"), required=False, min_value=1, max_value=99)
    note = forms.CharField(label=_("What happened"), max_length=MAX_NOTE, widget=NOTE)
    # One key per form shown: the same form sent twice (poor Wi-Fi, a double tap) is recorded once.
    key = forms.CharField(widget=forms.HiddenInput, required=False, max_length=64)

    def __init__(self, *args, event, action: str = "warning", **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.fields["key"].initial = new_key()
        self.event = event
        self.action = action if action in ACTIONS else "warning"
        kinds = ACTIONS[self.action]
        self.fields["kind"].choices = [(k.value, k.label) for k in kinds]
        if len(kinds) == 1:
            self.fields["kind"].widget = forms.HiddenInput()
            self.fields["kind"].initial = kinds[0].value
        for name in ("number", "stage", "game", "note"):
            widget = self.fields[name].widget
            widget.attrs["class"] = "form-control"
            if name != "note":
                widget.attrs["inputmode"] = "numeric"
        self.registration = None
        self.stage_obj = None

    def clean_number(self):
        value = self.cleaned_data["number"]
        self.registration = (Registration.objects.select_related("player")
                             .filter(event=self.event, number=value).first())
        if self.registration is None:
            raise forms.ValidationError(_("No player has this number in this event."))
        return value

    def clean_stage(self):
        value = self.cleaned_data.get("stage")
        if value is None:
            return None
        self.stage_obj = Stage.objects.filter(event=self.event, number=value).first()
        if self.stage_obj is None:
            raise forms.ValidationError(_("This event has no such round."))
        return value

    def clean(self):
        cleaned = super().clean()
        if not re.fullmatch(KEY_PATTERN, cleaned.get("key") or ""):
            self.add_error(None, _("This form is out of date. Reload the page and try again."))
        game = cleaned.get("game")
        if game is not None and self.stage_obj is not None and game > self.stage_obj.games:
            self.add_error("game", _("That game is not part of the round."))
        if game is not None and cleaned.get("stage") is None and "stage" not in self.errors:
            self.add_error("stage", _("Say which round the game was in."))
        return cleaned


class KeepPlayingForm(forms.Form):
    """The chief referee decides not to disqualify after a third warning."""

    number = forms.IntegerField(min_value=1, max_value=MAX_NUMBER, widget=forms.HiddenInput())
    note = forms.CharField(label=_("Why the player keeps playing"), max_length=MAX_NOTE, widget=NOTE)
