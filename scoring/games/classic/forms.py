"""The classic game's forms (R4–R6): the referee's score sheet, and the chief referee's correction (the same
sheet plus a reason).

They only parse what was typed (numbers are numbers, choices are choices, the players are the ones seated at
this table); whether the sheet makes sense is `entry.judge`'s job — the live check and the submit use that
same judgement, so no rule lives here or in JavaScript.
"""

from django import forms
from django.utils.translation import gettext_lazy as _

from ...forms.common import KEY_PATTERN, NumberInput, TapRadio, reason_field
from ...models import ScoreSheet
from .entry import Entry, SeatEntry

YES, NO = "yes", "no"
# Generous bounds: a form error for nonsense, rules/ judges the rest (e.g. a value over 728, 3 jokers).
MAX_RACK_VALUE = 999
MAX_JOKERS = 9


def _seat_fields(seat, knocked_rack: bool) -> dict[str, forms.Field]:
    name = seat.registration.player.name
    fields = {
        "registration": forms.IntegerField(widget=forms.HiddenInput, min_value=1, max_value=2**31 - 1,
                                           error_messages={"required": _("The seats are incomplete; reload the page.")}),
        "tiles": forms.CharField(
            label=_("Tiles on %(name)s's rack") % {"name": name}, required=False, max_length=400, strip=True,
            widget=forms.TextInput(attrs={"class": "form-control form-control-lg sheet-tiles", "autocomplete": "off",
                                          "autocapitalize": "characters", "spellcheck": "false",
                                          "placeholder": _("e.g. R5 B13 J")}),
        ),
        "rack_value": forms.IntegerField(label=_("Rack value"), required=False, min_value=0,
                                         max_value=MAX_RACK_VALUE, widget=NumberInput()),
        "jokers": forms.IntegerField(label=_("Jokers"), required=False, min_value=0, max_value=MAX_JOKERS,
                                     widget=NumberInput()),
        "opened": forms.ChoiceField(label=_("Had opened?"), choices=[(YES, _("Yes")), (NO, _("No"))],
                                    initial=YES, widget=TapRadio),
        "could_open": forms.ChoiceField(
            label=_("Could have opened?"), required=False, widget=TapRadio,
            choices=[(YES, _("Yes")), (NO, _("No")), ("", _("—"))],
        ),
    }
    if knocked_rack:  # only under rules that have the penalty (R5.3); a box sent anyway is no field, so ignored
        fields["conduct_penalty"] = forms.BooleanField(
            label=_("Knocked over the rack (conduct penalty)"), required=False,
            widget=forms.CheckboxInput(attrs={"class": "form-check-input"}))
    return fields


class SheetForm(forms.Form):
    """`seats` are the table's Seat rows for the game, in seat order; fields are named s<seat>_<field>.
    `knocked_rack`: whether the event's rules have a knocked-over-rack penalty (the box is offered then)."""

    idempotency_key = forms.RegexField(regex=KEY_PATTERN, widget=forms.HiddenInput, required=False,
                                       error_messages={"invalid": _("This form is damaged; reload the page.")})
    end = forms.ChoiceField(label=_("How did the game end?"), choices=ScoreSheet.End.choices,
                            widget=TapRadio, error_messages={"required": _("Choose how the game ended.")})
    # One box per seat card: each one a Tab stop (a radio group is one), and untapped again for "nobody". Two
    # ticked, or one in a blocked game, are the rules engine's problems to show (R4), not a form error.
    went_out = forms.MultipleChoiceField(label=_("Who went out?"), required=False,
                                         widget=forms.CheckboxSelectMultiple)
    accept_warnings = forms.BooleanField(label=_("I checked the warnings: the sheet is right."), required=False,
                                         widget=forms.CheckboxInput(attrs={"class": "form-check-input"}))

    def __init__(self, *args, seats, knocked_rack, require_key=True, **kwargs):
        super().__init__(*args, **kwargs)
        self.seats = list(seats)
        self.require_key = require_key
        # "" is what the old single choice sent for nobody (a draft or page from before): still nobody.
        self.fields["went_out"].choices = [("", _("Nobody"))] + [
            (str(seat.position), seat.registration.player.name) for seat in self.seats
        ]
        for seat in self.seats:
            for name, field in _seat_fields(seat, knocked_rack).items():
                self.fields[self.seat_field(seat.position, name)] = field
            self.initial.setdefault(self.seat_field(seat.position, "registration"), seat.registration_id)
            self.initial.setdefault(self.seat_field(seat.position, "opened"), YES)

    @staticmethod
    def seat_field(position: int, name: str) -> str:
        return f"s{position}_{name}"

    def seat_rows(self) -> list[dict]:
        """Per seat: the Seat and its bound fields by short name, for the template."""
        return [
            {"seat": seat, "position": seat.position,
             "fields": {name: self[self.seat_field(seat.position, name)] for name in _FIELD_NAMES
                        if self.seat_field(seat.position, name) in self.fields},
             "went_out_checked": str(seat.position) in self.went_out_values()}
            for seat in self.seats
        ]

    def went_out_values(self) -> set[str]:
        value = self["went_out"].value() or []
        return {str(v) for v in ([value] if isinstance(value, str | int) else value) if str(v)}

    def clean_went_out(self):
        return [value for value in self.cleaned_data.get("went_out") or [] if value]

    def clean_idempotency_key(self):
        key = self.cleaned_data.get("idempotency_key") or ""
        if self.require_key and not key:
            raise forms.ValidationError(_("This form is damaged; reload the page."))
        return key

    def clean(self):
        cleaned = super().clean()
        for seat in self.seats:
            entered = cleaned.get(self.seat_field(seat.position, "registration"))
            if entered is not None and entered != seat.registration_id:
                # The form was made for another seating (a redraw) or tampered with: never guess.
                raise forms.ValidationError(
                    _("The players at this table have changed since this page was opened; reload the page."),
                    code="seating")
        return cleaned

    def entry(self) -> Entry:
        data = self.cleaned_data
        out = set(data.get("went_out") or [])
        lines = []
        for seat in self.seats:
            def value(name, position=seat.position):
                return data.get(self.seat_field(position, name))

            tiles = value("tiles") or ""
            opened = value("opened") != NO
            could_open = {YES: True, NO: False}.get(value("could_open") or "")
            lines.append(SeatEntry(
                position=seat.position, registration_id=seat.registration_id,
                went_out=str(seat.position) in out, tiles=tiles, rack_value=value("rack_value"),
                jokers=value("jokers"),
                opened=opened,
                # "Could have opened?" only matters for a player who never opened and whose tiles are not given.
                could_open=None if opened or tiles else could_open,
                conduct_penalty=bool(value("conduct_penalty")),
            ))
        return Entry(end=data["end"], seats=tuple(lines))


_FIELD_NAMES = ("registration", "tiles", "rack_value", "jokers", "opened", "could_open", "conduct_penalty")


def initial_from_sheet(sheet: ScoreSheet) -> dict:
    """A returned sheet's values, so the referee corrects it instead of typing it again."""
    initial = {"end": sheet.end, "went_out": []}
    for line in sheet.seats.all():
        if line.went_out:
            initial["went_out"].append(str(line.position))
        prefix = f"s{line.position}_"
        initial.update({
            prefix + "registration": line.registration_id,
            prefix + "tiles": line.tiles,
            prefix + "rack_value": None if line.tiles else line.rack_value,
            prefix + "jokers": None if line.tiles or line.went_out else line.jokers,
            prefix + "opened": YES if line.opened else NO,
            prefix + "could_open": "" if line.could_open is None or line.tiles else (YES if line.could_open else NO),
            prefix + "conduct_penalty": line.conduct_penalty,
        })
    return initial


class SheetCorrectionForm(SheetForm):
    """The chief referee's correction of a confirmed sheet: the referee's entry (same fields, tile pad, live
    check) plus why it is corrected."""

    reason = reason_field()


COLOURS = (("R", "red"), ("B", "blue"), ("Y", "yellow"), ("K", "black"))


def tile_pad() -> list[dict]:
    """The tile pad's keys: one group per colour, numbers 1–13 in two rows."""
    names = {"red": _("red"), "blue": _("blue"), "yellow": _("yellow"), "black": _("black")}
    return [
        {"code": code, "css": css, "name": names[css],
         "rows": [[{"token": f"{code}{n}", "label": n,
                    "aria": _("%(colour)s %(number)s") % {"colour": names[css], "number": n}}
                   for n in numbers] for numbers in (range(1, 8), range(8, 14))]}
        for code, css in COLOURS
    ]
