"""The day's timetable as the organiser edits it: one row per slot (tournament/schedule.py).

The planned slots (rounds, the final, Hong Kong's briefing, play and scoring) keep their kind and number, so
the round clock still finds them; their names are written by the app, in each reader's language. Rows the
organiser adds (a lunch break, the prize-giving) have a typed name and may be removed. Times are times of the
event's day, in the festival's time zone (an event that runs past midnight puts the early times on the next
day).
"""

import datetime as dt

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ..festival_time import festival_moment
from ..formats import format_of
from ..models import Event
from ..registration_fields import clean_text
from ..schedule import (
    BRIEFING,
    CHECKIN,
    KINDS,
    LABEL_LENGTH,
    MAX_SLOTS,
    OTHER,
    ROUND,
    Slot,
    label,
    problem,
    schedule,
)
from ..visible_names import validate_visible_name
from .festival import time_input

SPARE_ROWS = 2


class SlotForm(forms.Form):
    kind = forms.ChoiceField(choices=[(kind, kind) for kind in KINDS if kind != CHECKIN], widget=forms.HiddenInput,
                             error_messages={"invalid_choice": _("Unknown kind of slot.")})
    number = forms.IntegerField(min_value=0, max_value=99, required=False, widget=forms.HiddenInput)
    label = forms.CharField(label=_("What"), max_length=LABEL_LENGTH, required=False, validators=[validate_visible_name],
                            widget=forms.TextInput(attrs={"class": "form-control"}))
    starts = forms.TimeField(label=_("From"), required=False, widget=time_input({"class": "form-control"}))
    ends = forms.TimeField(label=_("Until"), required=False, widget=time_input({"class": "form-control"}))
    remove = forms.BooleanField(label=_("Remove"), required=False,
                                widget=forms.CheckboxInput(attrs={"class": "form-check-input"}))

    def clean_label(self):
        return clean_text(self.cleaned_data["label"] or "")


def allowed(event: Event, kind: str, number: int) -> bool:
    """The planned slots this event's format has (any number of added ones)."""
    return kind == OTHER or format_of(event).has_slot(kind, number, event.stage_games)


class BaseSlotFormSet(forms.BaseFormSet):
    def __init__(self, *args, event: Event, **kwargs):
        self.event = event
        self.slots: list[Slot] = []
        super().__init__(*args, **kwargs)

    def moment(self, time: dt.time | None, kind: str) -> dt.datetime | None:
        """The instant a slot's time of day means (ValidationError for a time the clocks skip or repeat)."""
        if time is None:
            return None
        tz = self.event.festival.tzinfo
        starts = timezone.localtime(self.event.starts_at, tz)
        day = starts.date()
        runs_past_midnight = timezone.localtime(self.event.ends_at, tz).date() > day
        if runs_past_midnight and time < starts.time() and kind not in (BRIEFING, CHECKIN):
            day += dt.timedelta(days=1)
        return festival_moment(day, time, tz)

    def clean(self):
        if any(self.errors):
            return
        seen = set()
        for form in self.forms:
            data = form.cleaned_data
            if not data:
                continue
            kind, number, typed = data["kind"], data.get("number") or 0, data.get("label", "")
            spare = kind == OTHER and not typed and data.get("starts") is None and data.get("ends") is None
            if spare or (data.get("remove") and kind == OTHER):
                continue
            if data.get("remove"):
                form.add_error("remove", _("Only added slots can be removed."))
                continue
            number = number if kind == ROUND else 0
            if not allowed(self.event, kind, number) or (kind != OTHER and (kind, number) in seen):
                form.add_error(None, _("This slot is not in the event's plan any more; generate the schedule "
                                       "again."))
                continue
            seen.add((kind, number))
            if kind == OTHER and not typed:
                form.add_error("label", _("Say what happens in this slot."))
                continue
            times = {}
            for name in ("starts", "ends"):
                try:
                    times[name] = self.moment(data.get(name), kind)
                except forms.ValidationError as error:
                    form.add_error(name, error)
            if len(times) < 2:
                continue
            slot = Slot(label(self.event, kind, number, typed), times["starts"], times["ends"], kind, number)
            found = problem(self.event, slot)
            if found is not None:
                form.add_error(*found)
                continue
            self.slots.append(slot)
        if not self.slots and not any(form.errors for form in self.forms):
            raise forms.ValidationError(_("A schedule needs at least one slot."))


SlotFormSet = forms.formset_factory(SlotForm, formset=BaseSlotFormSet, extra=0, max_num=MAX_SLOTS,
                                    validate_max=True, absolute_max=MAX_SLOTS)


def initial_rows(event: Event) -> list[dict]:
    """The rows the editor starts with: the timetable in force (without check-in) and spare rows to add to."""
    tz = timezone.get_current_timezone()
    rows = [{"kind": slot.kind, "number": slot.number, "label": slot.label if slot.kind == OTHER else "",
             "starts": timezone.localtime(slot.starts, tz).time(),
             "ends": timezone.localtime(slot.ends, tz).time() if slot.ends else None}
            for slot in schedule(event) if slot.kind != CHECKIN]
    return rows + [{"kind": OTHER}] * SPARE_ROWS


def row_labels(event: Event, formset) -> list[str]:
    """The name each row shows (the planned slots' names are the app's)."""
    names = []
    for form in formset.forms:
        kind = form["kind"].value()
        number = form["number"].value()
        number = int(number) if str(number or "").isdecimal() and len(str(number)) < 3 else 0
        names.append(label(event, kind, number) if kind in KINDS and kind != OTHER else "")
    return names
