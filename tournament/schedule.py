"""The day's timetable a player needs (R9): generated from the event's times and plan, or as the organiser
edited it (`Event.timetable`). No play data needed.

The public event page shows it, and the round clock (scoring/clock.py) reads each stage's planned start from it
by the slot's kind and number (round 2, the final, Hong Kong's play), so an edited timetable keeps the clock
right. The check-in slot is always the event's own check-in window (never stored: one source of truth), and
labels of the planned slots are written when shown, in the reader's language; only a slot the organiser added
keeps the label typed.
"""

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .formats.strategy import (
    BRIEFING,
    CHECKIN,
    FINAL,
    OTHER,
    PLAY,
    ROUND,
    SCORING,
    format_of,
)
from .models import Event

KINDS = (CHECKIN, BRIEFING, ROUND, FINAL, PLAY, SCORING, OTHER)
# Slots that may come before the event's start (the briefing ends as play starts); all others lie inside it.
BEFORE_START = (CHECKIN, BRIEFING)
MAX_SLOTS = 30
LABEL_LENGTH = 100


@dataclass(frozen=True)
class Slot:
    label: str
    starts: dt.datetime
    ends: dt.datetime | None = None
    kind: str = OTHER
    number: int = 0  # the round's number (kind ROUND); 0 otherwise


def label(event: Event, kind: str, number: int = 0, typed: str = "") -> str:
    """What a slot is called, in the current language; an added slot keeps its typed label."""
    if kind == CHECKIN:
        return _(format_of(event).checkin_label)
    if kind == BRIEFING:
        return _("Rules briefing (no admission after it starts)")
    if kind == PLAY:
        return ngettext("Play: %(games)s game", "Play: %(games)s games", event.rotation_games) % {
            "games": event.rotation_games}
    if kind == SCORING:
        return _("Scoring")
    if kind == FINAL:
        return _("Final")
    if kind == ROUND:
        games = event.stage_games[number - 1] if 0 < number <= len(event.stage_games) else None
        if games is None:
            return _("Round %(number)s") % {"number": number}
        return ngettext("Round %(number)s: %(games)s game", "Round %(number)s: %(games)s games", games) % {
            "number": number, "games": games}
    return typed


def _slot(event: Event, kind: str, starts, ends, number: int = 0, typed: str = "") -> Slot:
    return Slot(label(event, kind, number, typed), starts, ends, kind, number)


def checkin_slot(event: Event) -> Slot:
    return _slot(event, CHECKIN, event.checkin_opens_at, event.checkin_closes_at)


def generated(event: Event) -> list[Slot]:
    """The timetable planned from the event's start time and its plan: each format's slots and lengths (R9) are
    the format's (tournament.formats.strategy)."""
    return [checkin_slot(event), *(_slot(event, slot.kind, slot.starts, slot.ends, slot.number)
                                   for slot in format_of(event).planned_slots(event))]


def _moment(text) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return moment if timezone.is_aware(moment) else None


def stored(event: Event) -> list[Slot]:
    """The edited slots (without check-in), in time order; an unreadable row is left out, never a crash."""
    slots = []
    for row in event.timetable if isinstance(event.timetable, list) else []:
        if not isinstance(row, dict) or row.get("kind") not in KINDS or row.get("kind") == CHECKIN:
            continue
        starts, ends = _moment(row.get("starts")), _moment(row.get("ends"))
        number = row.get("number") if type(row.get("number")) is int else 0
        if starts is not None:
            slots.append(_slot(event, row["kind"], starts, ends, number, str(row.get("label", ""))[:LABEL_LENGTH]))
    return sorted(slots, key=lambda slot: slot.starts)


def schedule(event: Event) -> list[Slot]:
    """The timetable a player needs on the day: the organiser's edited one, else the generated one."""
    if event.timetable:
        return [checkin_slot(event), *stored(event)]
    return generated(event)


def is_edited(event: Event) -> bool:
    return bool(event.timetable)


def as_json(slots: list[Slot]) -> list[dict]:
    """What `Event.timetable` stores: every slot but check-in, times in UTC; labels only for added slots."""
    return [
        {"kind": slot.kind, "number": slot.number, "label": slot.label if slot.kind == OTHER else "",
         "starts": slot.starts.astimezone(dt.UTC).isoformat(), "ends": slot.ends.astimezone(dt.UTC).isoformat()}
        for slot in sorted(slots, key=lambda slot: slot.starts) if slot.kind != CHECKIN and slot.ends is not None
    ]


def shifted(timetable: list, delta: dt.timedelta) -> list:
    """The stored timetable moved by `delta` (the event's start moved): every slot keeps its length."""
    out = []
    for row in timetable if isinstance(timetable, list) else []:
        if not isinstance(row, dict):
            continue
        starts, ends = _moment(row.get("starts")), _moment(row.get("ends"))
        if starts is None or ends is None:
            continue
        out.append({**row, "starts": (starts + delta).isoformat(), "ends": (ends + delta).isoformat()})
    return out


def _hhmm(moment: dt.datetime) -> str:
    return date_format(timezone.localtime(moment), "TIME_FORMAT")


def problem(event: Event, slot: Slot) -> tuple[str, str] | None:
    """(field, message) when the slot cannot be in the event's timetable: no times, an end not after its
    start ("14:30–14:30"), or outside the event's times (check-in and the briefing may come before the start)."""
    if slot.starts is None or slot.ends is None:
        return ("starts" if slot.starts is None else "ends"), _("Give the start and the end of this slot.")
    if slot.ends <= slot.starts:
        return "ends", _("The end must be after the start.")
    earliest = min(event.checkin_opens_at, event.starts_at) if slot.kind in BEFORE_START else event.starts_at
    if slot.starts < earliest or slot.ends > event.ends_at:
        field = "starts" if slot.starts < earliest else "ends"
        return field, _("Outside the event's times (%(start)s–%(end)s): change the slot or the event's times.") % {
            "start": _hhmm(earliest), "end": _hhmm(event.ends_at)}
    return None


def first_problem(event: Event, slots: list[Slot]) -> str | None:
    """The first slot that does not fit the event, as a sentence naming it; None when they all fit."""
    for slot in slots:
        found = problem(event, slot)
        if found is not None:
            return f"{slot.label}: {found[1]}"
    return None
