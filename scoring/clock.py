"""The referee's clocks (R9), computed from plain data: no database, no request.

Turn timer: the turn length is the ruleset's `turn_seconds` (R9: one minute in the official rules; some events
use 40 s or 2 min). The countdown itself runs in the browser (static/js/turn-timer.js).

Round clock — the rule, for both formats:
- A stage's LENGTH is planned from R9 by the event's format (`tournament.formats.strategy`, which plans the
  timetable too): a Busan preliminary round takes 70 minutes per 3 games (rounded to the minute), the Busan
  final 30 minutes a game, a Hong Kong stage 30 minutes a game (10:20–11:50 for 3 games), a playoff game (a tie
  on prize places, R7) 30 minutes.
- The round STARTS when its seating is released (the released draw of its first game), but never before its
  planned start in the event's timetable (`tournament.schedule`): a draw released early, say during the
  briefing, does not eat into play time; a draw released late gives the players their full time.
  A playoff has no slot in the timetable: it starts when its draw is released.
- It ENDS `length` after it starts. At the end "time" is called (R4: unfinished games are scored as blocked,
  ruleset `time_called_scores_as_blocked`) — until every game of the stage is confirmed or the stage closes.

The states, in order: "idle" (nothing to time: no stage, or the stage is complete or closed), "pending" (no
seating released yet; the planned times, if any, are given), "ready" (released, the start is still ahead),
"running", "time".
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from rules.errors import UnknownRulesetError
from rules.rulesets import get_ruleset
from tournament.formats.strategy import FINAL, PLAYOFF, ROUND, format_named
from tournament.models import Stage
from tournament.schedule import Slot, schedule

DEFAULT_TURN_SECONDS = 60  # R9: one minute per turn (official rules)

IDLE, PENDING, READY, RUNNING, TIME = "idle", "pending", "ready", "running", "time"


def turn_seconds(ruleset_slug: str) -> int:
    """Seconds per turn of the event's ruleset (R9); the official minute when the ruleset is unknown."""
    try:
        return get_ruleset(ruleset_slug).turn_seconds
    except UnknownRulesetError:
        return DEFAULT_TURN_SECONDS


def stage_kind(advance: str) -> str:
    """ROUND, FINAL or PLAYOFF from a Stage.advance value."""
    return {Stage.Advance.FINAL: FINAL, Stage.Advance.PLAYOFF: PLAYOFF}.get(advance, ROUND)


def stage_minutes(*, format: str, kind: str, games: int) -> int:
    """The planned length of a stage of `games` games (R9), as the event's format plans it."""
    return format_named(format).stage_minutes(kind, games)


def planned_start(slots: list[Slot], *, format: str, kind: str, number: int) -> dt.datetime | None:
    """Where the stage's play begins in the timetable `tournament.schedule.schedule(event)` gives, found by the
    slot's kind (the organiser may have edited the timetable, added breaks or moved slots).

    Hong Kong: the play slot. Busan: round `number`'s slot, or the final's. A playoff, or a stage the timetable
    does not have: None."""
    wanted = format_named(format).timetable_slot(kind, number)
    return next((slot.starts for slot in slots if (slot.kind, slot.number) == wanted), None)


@dataclass(frozen=True)
class StageFacts:
    """What the round clock needs to know about the event's current stage."""

    number: int
    name: str
    minutes: int
    planned_start: dt.datetime | None
    released_at: dt.datetime | None  # when the seating of its first game was released; None: not yet
    finished: bool  # every game confirmed, or the stage closed


def facts_for(event, stage, *, released_at: dt.datetime | None, finished: bool) -> StageFacts:
    """The facts from an Event and its Stage (attributes only, no queries) and what the database said."""
    kind = stage_kind(stage.advance)
    return StageFacts(
        number=stage.number,
        name=str(stage.display_name),
        minutes=stage_minutes(format=event.format, kind=kind, games=stage.games),
        planned_start=planned_start(schedule(event), format=event.format, kind=kind, number=stage.number),
        released_at=released_at,
        finished=finished or stage.closed_at is not None,
    )


@dataclass(frozen=True)
class RoundClock:
    state: str
    stage: int | None = None
    name: str = ""
    minutes: int = 0
    starts_at: dt.datetime | None = None
    ends_at: dt.datetime | None = None
    planned: bool = False  # the times are the timetable's plan (the seating is not released yet)

    def remaining(self, now: dt.datetime) -> dt.timedelta | None:
        """Play time left at `now` (zero once time is called); None when nothing is being timed."""
        if self.state in (IDLE, PENDING) or self.ends_at is None:
            return None
        return max(self.ends_at - max(now, self.starts_at), dt.timedelta(0))

    def until_start(self, now: dt.datetime) -> dt.timedelta | None:
        if self.starts_at is None or self.state != READY:
            return None
        return max(self.starts_at - now, dt.timedelta(0))


NO_CLOCK = RoundClock(IDLE)


def round_clock(facts: StageFacts | None, now: dt.datetime) -> RoundClock:
    """The round clock of a stage at `now` (the rule is in the module's docstring)."""
    if facts is None:
        return NO_CLOCK
    length = dt.timedelta(minutes=facts.minutes)
    common = {"stage": facts.number, "name": facts.name, "minutes": facts.minutes}
    if facts.finished:
        return RoundClock(IDLE, **common)
    if facts.released_at is None:
        starts = facts.planned_start
        return RoundClock(PENDING, starts_at=starts, ends_at=starts + length if starts else None, planned=True,
                          **common)
    starts = max(facts.released_at, facts.planned_start) if facts.planned_start else facts.released_at
    ends = starts + length
    state = READY if now < starts else RUNNING if now < ends else TIME
    return RoundClock(state, starts_at=starts, ends_at=ends, **common)
