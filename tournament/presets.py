"""What a new event starts from: a preset per format fills every value the format needs, and the plan and the
day's times are proposed from the expected number of players and one start time. The organiser may change
any of it afterwards; nothing here is a rule of play.

- *Busan elimination* (R8.1): rounds of tables of 4, the top two of each table advance, the top 4 of the last
  round play a one-game final. The number of rounds is proposed so that the last round has at most 32 players
  (eight tables), as Busan 2014's 128 → 64 → 32 → final 4. Check-in 10:30–11:00, play from 11:00 (R9).
- *Hong Kong move-up* (R8.2): 3 games, the top two of each table move up a table after every game; places by
  wins, then average points. Arrival 09:50, briefing 10:10 (check-in closes), play 10:20 (R9).
- *Rummikub Word* (R10): the elimination plan with Word's game; check-in 13:30–14:00, play from 14:00.

Proposals start from now: the preset's start on the first festival day still to come, else (the festival's
last day is today) from the next half hour. Registration opens now and closes at the end of the day before;
the withdrawal deadline is the end of the day two days before (R9: Busan's "by Thursday" before the
Saturday). A deadline that would already have passed moves to when check-in closes, the latest registration
can close (`Event.registration_is_open`). A festival whose days are all over keeps the preset's times: saving
times in the past asks the organiser to confirm them (services.festivals).
"""

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .formats import busan
from .formats.strategy import BUSAN, format_named
from .formats.tables import table_sizes
from .models import Event
from .schedule import generated

LAST_ROUND_PLAYERS = 32  # Busan 2014's round 3 ("32강"): eight tables, the top 4 go to the final
MAX_ROUNDS = 6
MAX_PLAYERS = 5000


@dataclass(frozen=True)
class Preset:
    key: str
    name: str
    description: str
    slug: str  # the short name in links proposed when the event's name makes none (a Korean name)
    game: str
    format: str
    ruleset: str
    capacity: int
    start: dt.time
    checkin_minutes: int  # check-in opens this long before the start
    checkin_closes_minutes: int  # … and closes this long before it (Hong Kong: the briefing)
    games: int = 3  # per round (Busan) or in all (Hong Kong)


PRESETS = {
    preset.key: preset
    for preset in (
        Preset("busan", gettext_lazy("Busan elimination"),
               gettext_lazy("Rounds of tables of 4; the top two of each table advance; the top 4 of the last round "
                            "play the final."),
               "elimination", Event.Game.CLASSIC, Event.Format.BUSAN, Event.Ruleset.WRC_2014, 128,
               dt.time(11, 0), 30, 0),
        Preset("hk", gettext_lazy("Hong Kong move-up"),
               gettext_lazy("Games at tables of 4; after every game the top two of each table move up a table; "
                            "places by wins, then average points."),
               "move-up", Event.Game.CLASSIC, Event.Format.HONG_KONG, Event.Ruleset.HK_2016, 64,
               dt.time(10, 20), 30, 10),
        Preset("word", gettext_lazy("Rummikub Word"),
               gettext_lazy("Rummikub Word at tables of 4, played as an elimination."),
               "word", Event.Game.WORD, Event.Format.BUSAN, Event.Ruleset.CASUAL, 32, dt.time(14, 0), 30, 0),
    )
}


def preset_for_format(format: str, game: str = Event.Game.CLASSIC) -> Preset:
    if game == Event.Game.WORD:
        return PRESETS["word"]
    return PRESETS[format_named(format).preset]


def proposed_stage_games(players: int, games: int = 3) -> list[int]:
    """Enough rounds, each halving the field, that the last one has at most 32 players (128 → 3 rounds)."""
    rounds, left = 1, max(players, 1)
    while left > LAST_ROUND_PLAYERS and rounds < MAX_ROUNDS:
        left = -(-left // 2)
        rounds += 1
    return [games] * rounds


def plan_line(*, format: str, players: int, stage_games=(), final_games: int = 1, rotation_games: int = 3) -> str:
    """The plan in one line: "128 → 64 → 32 → final 4" (elimination) or the tables and games (move-up)."""
    if not isinstance(players, int) or not 1 <= players <= MAX_PLAYERS:
        return ""
    if not format_named(format).eliminates:
        return _("%(players)s players at %(tables)s tables, %(games)s games; after each game the top two of each "
                 "table move up a table") % {"players": players, "tables": len(table_sizes(players)),
                                             "games": rotation_games}
    if not stage_games:
        return ""
    try:
        stages = busan.plan(players, BUSAN.settings(list(stage_games), final_games))
    except ValueError:
        return ""
    steps = [str(stage.players) for stage in stages if not stage.is_final]
    return " → ".join([*steps, _("final %(players)s") % {"players": stages[-1].players}])


def at(day: dt.date, time: dt.time, tz) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, time), tz)


def day_times(*, format: str, day: dt.date, start: dt.time, tz, stage_games, final_games: int,
              rotation_games: int, checkin_minutes: int | None = None,
              checkin_closes_minutes: int | None = None) -> dict:
    """The day's times from one start time: check-in before it, the end when the generated timetable ends
    (rounded up to five minutes)."""
    preset = preset_for_format(format)
    before = preset.checkin_minutes if checkin_minutes is None else checkin_minutes
    closes_before = preset.checkin_closes_minutes if checkin_closes_minutes is None else checkin_closes_minutes
    starts_at = at(day, start, tz)
    minute = dt.timedelta(minutes=1)
    values = {
        "starts_at": starts_at,
        "checkin_opens_at": starts_at - before * minute,
        "checkin_closes_at": starts_at - closes_before * minute,
    }
    plan = Event(format=format, stage_games=list(stage_games), final_games=final_games,
                 rotation_games=rotation_games, ends_at=starts_at, **values)
    last = max(slot.ends for slot in generated(plan))
    values["ends_at"] = last + (-(last.minute % 5) % 5) * minute
    return values


# A start proposed from now leaves at least this long before check-in opens, and falls on the half hour.
LEAD = dt.timedelta(minutes=10)
STEP_MINUTES = 30


def upcoming(*, days, start: dt.time, checkin_minutes: int, tz, now: dt.datetime) -> tuple[dt.date, dt.time]:
    """The day and start to propose: the first of `days` (in order) on which check-in, opening `checkin_minutes`
    before `start`, is still to come; else, when today is one of `days`, today from the next half hour (with
    check-in before it); else the first day at `start` (all of them are over: an event of the past)."""
    days = list(days)
    before = dt.timedelta(minutes=checkin_minutes)
    for day in days:
        if at(day, start, tz) - before > now:
            return day, start
    local = timezone.localtime(now, tz)
    if local.date() in days:
        soon = (local + LEAD).replace(second=0, microsecond=0)
        opens = soon + dt.timedelta(minutes=-soon.minute % STEP_MINUTES)
        starts = opens + before
        if starts.date() == local.date():
            return local.date(), starts.time()
    return days[0], start


def deadlines(*, day: dt.date, tz, now: dt.datetime, checkin_closes_at: dt.datetime,
              starts_at: dt.datetime, opens: dt.datetime | None = None) -> dict:
    """Registration from now (or `opens`) until the end of the day before; withdrawal until the end of two days
    before. One that would be over already (an event today or tomorrow) is check-in's close instead, and
    withdrawal is never after play starts."""
    opens = opens or now.replace(second=0, microsecond=0)
    since = max(opens, now)
    closes = at(day - dt.timedelta(days=1), dt.time(23, 59), tz)
    if closes <= since or closes > checkin_closes_at:
        closes = checkin_closes_at
    if closes <= opens:  # an event already held (entered afterwards): registration ran before it
        opens = closes - dt.timedelta(days=30)
    withdrawal = at(day - dt.timedelta(days=2), dt.time(23, 59), tz)
    if withdrawal <= since:
        withdrawal = closes
    return {"registration_opens_at": opens, "registration_closes_at": closes,
            "withdrawal_deadline": min(withdrawal, starts_at)}


def festival_days(first: dt.date, last: dt.date) -> list[dt.date]:
    return [first + dt.timedelta(days=n) for n in range((last - first).days + 1)]


def event_values(preset: Preset, *, days, tz, now: dt.datetime, players: int | None = None) -> dict:
    """Every model value of a new event from the preset, on the first of `days` (the festival's, in the
    festival's time zone `tz`) it can still be held from `now` (`upcoming`)."""
    day, start = upcoming(days=days, start=preset.start, checkin_minutes=preset.checkin_minutes, tz=tz, now=now)
    players = players or preset.capacity
    stage_games = proposed_stage_games(players, preset.games)
    values = {
        "game": preset.game, "format": preset.format, "ruleset": preset.ruleset, "capacity": preset.capacity,
        "stage_games": stage_games, "final_games": 1, "rotation_games": preset.games,
        "first_seating": Event.FirstSeating.BY_NUMBER, "numbering": Event.Numbering.REGISTRATION,
        "ranking_points": [], "under_15_no_points": True, "tiebreaks": [],
        "public_draw": True, "public_standings": True, "public_scores": True,
        "public_names": Event.PublicNames.FULL, "public_affiliations": True,
        "avoid_same_affiliation": True, "avoid_repeat_opponents": True, "spread_seeds": True,
        "walk_ins": True, "sheets_by": Event.SheetsBy.REFEREES, "agreement_minutes": 5,
    }
    values |= day_times(format=preset.format, day=day, start=start, tz=tz, stage_games=stage_games,
                        final_games=1, rotation_games=preset.games)
    values |= deadlines(day=day, tz=tz, now=now, checkin_closes_at=values["checkin_closes_at"],
                        starts_at=values["starts_at"])
    return values
