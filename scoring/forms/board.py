"""Small forms for the chief referee's and organiser's pages: they only parse; the services decide."""

import uuid

from django import forms
from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

from ..models import ScoreSheet
from ..services.records import Entry, SeatEntry

MAX_NUMBER = 999
KEY_FORMAT = RegexValidator(r"^[A-Za-z0-9_-]{8,64}$", _("This form has expired; open it again."))


def new_key() -> str:
    return uuid.uuid4().hex


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


CHECKBOX = forms.CheckboxInput(attrs={"class": "form-check-input"})
COULD_OPEN = [("", _("not asked")), ("yes", _("yes")), ("no", _("no"))]


class CorrectionForm(forms.Form):
    """The referee's entry fields for every seat of a confirmed sheet, plus why it is corrected.

    Per seat: tiles (notation) or the counted value and jokers; whether the player had opened, could have
    opened, and a conduct penalty. rules/ judges the whole sheet in the service."""

    end = forms.ChoiceField(label=_("How the game ended"), choices=ScoreSheet.End.choices, widget=forms.RadioSelect)
    went_out = forms.TypedChoiceField(label=_("Who went out"), coerce=int, required=False, empty_value=None)
    reason = forms.CharField(label=_("Reason for the correction"), max_length=1000,
                             widget=forms.Textarea(attrs={"rows": 2}))
    accept_warnings = forms.BooleanField(label=_("I have checked the warnings: the sheet is right"), required=False,
                                         widget=forms.CheckboxInput(attrs={"class": "form-check-input"}))
    key = forms.CharField(widget=forms.HiddenInput, validators=[KEY_FORMAT], max_length=64)

    def __init__(self, *args, seats=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.seats = list(seats)  # tournament Seat rows, in seat order
        self.fields["went_out"].choices = [("", _("nobody"))] + [
            (seat.position, f"{seat.position}. {seat.registration.player.name}") for seat in self.seats
        ]
        for seat in self.seats:
            p = seat.position
            self.fields[f"s{p}_tiles"] = forms.CharField(label=_("Tiles left"), max_length=400, required=False)
            self.fields[f"s{p}_rack_value"] = forms.IntegerField(
                label=_("Rack value"), min_value=0, max_value=MAX_NUMBER, required=False)
            self.fields[f"s{p}_jokers"] = forms.IntegerField(label=_("Jokers"), min_value=0, max_value=9,
                                                             required=False)
            self.fields[f"s{p}_opened"] = forms.BooleanField(label=_("Had opened"), required=False, widget=CHECKBOX)
            self.fields[f"s{p}_could_open"] = forms.ChoiceField(
                label=_("Could have opened (only if never opened)"), choices=COULD_OPEN, required=False,
                widget=forms.Select(attrs={"class": "form-select"}))
            self.fields[f"s{p}_conduct"] = forms.BooleanField(label=_("Knocked-over rack"), required=False,
                                                              widget=CHECKBOX)

    @classmethod
    def initial_from(cls, sheet: ScoreSheet, sheet_seats) -> dict:
        initial = {"end": sheet.end, "key": new_key(), "went_out": None}
        for line in sheet_seats:
            p = line.position
            if line.went_out:
                initial["went_out"] = p
            initial.update({
                f"s{p}_tiles": line.tiles, f"s{p}_rack_value": line.rack_value,
                f"s{p}_jokers": line.jokers if line.rack_value is not None else None,
                f"s{p}_opened": line.opened, f"s{p}_conduct": line.conduct_penalty,
                f"s{p}_could_open": {True: "yes", False: "no"}.get(line.could_open, ""),
            })
        return initial

    def seat_rows(self):
        """(seat, its bound fields) in seat order, for the template."""
        names = ("tiles", "rack_value", "jokers", "opened", "could_open", "conduct")
        return [(seat, {name: self[f"s{seat.position}_{name}"] for name in names}) for seat in self.seats]

    def entry(self) -> Entry:
        data = self.cleaned_data
        out = data.get("went_out")
        lines = []
        for seat in self.seats:
            p = seat.position
            lines.append(SeatEntry(
                position=p, registration_id=seat.registration_id, went_out=out == p,
                tiles=data.get(f"s{p}_tiles") or "", rack_value=data.get(f"s{p}_rack_value"),
                jokers=data.get(f"s{p}_jokers"), opened=bool(data.get(f"s{p}_opened")),
                could_open={"yes": True, "no": False}.get(data.get(f"s{p}_could_open") or ""),
                conduct_penalty=bool(data.get(f"s{p}_conduct")),
            ))
        return Entry(end=data["end"], seats=tuple(lines))
