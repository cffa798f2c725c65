"""The Rummikub Word forms (R10): the referee's sheet, turn by turn then jokers left per player, and the
chief referee's correction (the same rows plus why).

Without JavaScript the form shows `rows` turn rows (12 at first) and a "more rows" button that re-renders it
with more; word-sheet.js adds rows in place. Only parsing here: rules.word judges (`entry.judge`).
"""

from django import forms
from django.utils.translation import gettext_lazy as _

from ...forms.common import KEY_PATTERN, NumberInput, TapRadio, reason_field
from ...models import ScoreSheet
from .entry import MAX_WORDS_TEXT, WordEntry, entry_from_form

FIRST_ROWS = 12
MORE_ROWS = 8
MAX_ROWS = 300  # a long 4-player game has ~100 turns; more is a damaged or hostile form
MAX_JOKERS = 9  # generous: rules.word says 0–2 with a clear message


def clamp_rows(value) -> int:
    try:
        rows = int(value)
    except (TypeError, ValueError):
        return FIRST_ROWS
    return min(max(rows, 1), MAX_ROWS)


def _check(label):
    return forms.BooleanField(label=label, required=False, widget=forms.CheckboxInput(attrs={"class": "form-check-input"}))


class WordSheetForm(forms.Form):
    """Turn rows are t<i>_seat / t<i>_words / t<i>_drew / t<i>_used_all; jokers left are j<seat>_jokers."""

    idempotency_key = forms.RegexField(regex=KEY_PATTERN, widget=forms.HiddenInput, required=False,
                                       error_messages={"invalid": _("This form is damaged; reload the page.")})
    rows = forms.IntegerField(widget=forms.HiddenInput, required=False)
    end = forms.ChoiceField(label=_("How did the game end?"), choices=ScoreSheet.End.choices, widget=TapRadio,
                            initial=ScoreSheet.End.WENT_OUT,
                            error_messages={"required": _("Choose how the game ended.")})
    accept_warnings = _check(_("I checked the warnings: the sheet is right."))

    def __init__(self, data=None, *, seats, rows=FIRST_ROWS, require_key=True, **kwargs):
        super().__init__(data, **kwargs)
        self.seats = list(seats)
        self.require_key = require_key
        self.row_count = clamp_rows(data.get("rows") if data is not None else self.initial.get("rows", rows))
        self.initial.setdefault("rows", self.row_count)
        self.initial.setdefault("end", ScoreSheet.End.WENT_OUT)
        choices = [(str(s.position), f"{s.position} · {s.registration.player.name}") for s in self.seats]
        for i in range(self.row_count):
            self.fields[f"t{i}_seat"] = forms.TypedChoiceField(
                label=_("Player"), choices=choices, coerce=int, required=False,
                widget=forms.Select(attrs={"class": "form-select word-seat"}))
            self.fields[f"t{i}_words"] = forms.CharField(
                label=_("Words formed"), required=False, max_length=MAX_WORDS_TEXT, strip=True,
                widget=forms.TextInput(attrs={"class": "form-control word-words", "autocomplete": "off",
                                              "autocapitalize": "characters", "spellcheck": "false",
                                              "placeholder": _("e.g. LAP CHIP EAR")}))
            self.fields[f"t{i}_drew"] = _check(_("Drew"))
            self.fields[f"t{i}_used_all"] = _check(_("Used all tiles"))
            if self.seats:  # default: the next player in seat order (seat 1 plays first)
                self.initial.setdefault(f"t{i}_seat", str(self.seats[i % len(self.seats)].position))
        for seat in self.seats:
            self.fields[f"j{seat.position}_jokers"] = forms.IntegerField(
                label=_("Jokers left: %(name)s") % {"name": seat.registration.player.name}, required=False,
                min_value=0, max_value=MAX_JOKERS, widget=NumberInput())
            self.initial.setdefault(f"j{seat.position}_jokers", 0)

    def turn_rows(self) -> list[dict]:
        return [{"index": i, "number": i + 1, "seat": self[f"t{i}_seat"], "words": self[f"t{i}_words"],
                 "drew": self[f"t{i}_drew"], "used_all": self[f"t{i}_used_all"]} for i in range(self.row_count)]

    def joker_rows(self) -> list[dict]:
        return [{"seat": s, "position": s.position, "field": self[f"j{s.position}_jokers"]} for s in self.seats]

    def clean_idempotency_key(self):
        key = self.cleaned_data.get("idempotency_key") or ""
        if self.require_key and not key:
            raise forms.ValidationError(_("This form is damaged; reload the page."))
        return key

    def entry(self) -> WordEntry:
        return entry_from_form(self.cleaned_data, self.seats, self.row_count)


def more_rows_data(data, seats):
    """The POST with MORE_ROWS extra rows, each defaulting to the next player in seat order."""
    data = data.copy()
    rows = clamp_rows(data.get("rows"))
    more = min(rows + MORE_ROWS, MAX_ROWS)
    for i in range(rows, more):
        if seats:
            data[f"t{i}_seat"] = str(seats[i % len(seats)].position)
    data["rows"] = str(more)
    return data


def initial_from_word_sheet(sheet: ScoreSheet) -> dict:
    """A returned Word sheet's turns and jokers, so the referee corrects it instead of typing it again."""
    turns = list(sheet.word_turns.all())
    initial = {"end": sheet.end, "rows": max(FIRST_ROWS, len(turns) + 4)}
    for i, turn in enumerate(turns):
        initial.update({f"t{i}_seat": str(turn.position), f"t{i}_words": turn.words, f"t{i}_drew": turn.drew,
                        f"t{i}_used_all": turn.used_all_tiles})
    for line in sheet.seats.all():
        initial[f"j{line.position}_jokers"] = line.jokers
    return initial


class WordCorrectionForm(WordSheetForm):
    """The chief referee's correction of a confirmed Word sheet: the same turn rows and jokers, plus why."""

    reason = reason_field()
