"""The day's timetable a player needs (R9), planned from the event's times alone: no play data needed.

The public event page shows it, and the round clock (scoring/clock.py) reads each stage's planned start and
length from it.
"""

import datetime as dt
from dataclasses import dataclass

from django.utils.translation import gettext as _

from .models import Event


@dataclass(frozen=True)
class Slot:
    label: str
    starts: dt.datetime
    ends: dt.datetime | None = None


# R9: Busan — each round 70 minutes for 3 games, 10 minutes per draw, the final about 30 minutes;
# Hong Kong — play 10:20–11:50 for 3 games (30 minutes a game), scoring until 15 minutes after.
BUSAN_MINUTES_PER_GAME = 70 / 3
BUSAN_DRAW_MINUTES = 10
BUSAN_FINAL_MINUTES_PER_GAME = 30
HK_MINUTES_PER_GAME = 30
HK_SCORING_MINUTES = 15


def schedule(event: Event) -> list[Slot]:
    """The timetable a player needs on the day (R9), planned from the event's start time."""
    minutes = dt.timedelta(minutes=1)
    if event.format == Event.Format.HONG_KONG:
        play_ends = event.starts_at + HK_MINUTES_PER_GAME * event.rotation_games * minutes
        return [
            Slot(_("Arrival and check-in"), event.checkin_opens_at, event.checkin_closes_at),
            Slot(_("Rules briefing (no admission after it starts)"), event.checkin_closes_at, event.starts_at),
            Slot(_("Play: %(games)s games") % {"games": event.rotation_games}, event.starts_at, play_ends),
            Slot(_("Scoring"), play_ends, play_ends + HK_SCORING_MINUTES * minutes),
        ]
    slots = [Slot(_("Check-in"), event.checkin_opens_at, event.checkin_closes_at)]
    at = event.starts_at
    for number, games in enumerate(event.stage_games, start=1):
        at += BUSAN_DRAW_MINUTES * minutes  # the draw for the round
        ends = at + round(BUSAN_MINUTES_PER_GAME * games) * minutes
        slots.append(Slot(_("Round %(number)s: %(games)s games") % {"number": number, "games": games}, at, ends))
        at = ends
    at += BUSAN_DRAW_MINUTES * minutes
    ends = at + BUSAN_FINAL_MINUTES_PER_GAME * event.final_games * minutes
    slots.append(Slot(_("Final"), at, ends))
    return slots
