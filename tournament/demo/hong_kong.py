"""The 2015-2016 Hong Kong school final (seed 003), held on the demo day at the real times of day.

Arrival 09:50, rules briefing 10:10 (late arrivals are not admitted after it, R9), play 10:20–11:50.
64 pupils, all arrived; check-in closed and numbers 1–64 given, since tables 1–16 seat by number (R8.2).
"""

import datetime as dt
import random
import zoneinfo

from ..models import Event, Festival
from ..services.audit import Actor
from ..services.checkin import assign_numbers
from .build import Entry, ensure_players, ensure_registrations, upsert
from .people import hong_kong_pupils

SLUG = "hong-kong-2016"
TZ = zoneinfo.ZoneInfo("Asia/Hong_Kong")
PLAYERS = 64


def build(*, day: dt.date, now: dt.datetime, actor: Actor, desk_user=None) -> dict:
    rng = random.Random(2016)

    def at(hour: int, minute: int = 0, *, days: int = 0) -> dt.datetime:
        return dt.datetime.combine(day + dt.timedelta(days=days), dt.time(hour, minute), tzinfo=TZ)

    festival, festival_wrote = upsert(
        Festival,
        lookup={"slug": SLUG},
        fields={
            "name": "2015-2016 年度魔力橋數字牌遊戲大賽", "venue": "保良局錦泰小學 四樓禮堂",
            "contact": "", "timezone": "Asia/Hong_Kong", "languages": ["zh-hant", "en"],
            "starts_on": day, "ends_on": day,
        },
    )
    event, event_wrote = upsert(
        Event,
        lookup={"festival": festival, "slug": "final"},
        fields={
            "name": "魔力橋大賽 決賽", "game": Event.Game.CLASSIC, "format": Event.Format.HONG_KONG,
            "ruleset": Event.Ruleset.HK_2016, "capacity": 64,
            "starts_at": at(10, 20), "ends_at": at(11, 50),
            "registration_opens_at": at(9, days=-30), "registration_closes_at": at(18, days=-7),
            "withdrawal_deadline": at(18, days=-3),
            "checkin_opens_at": at(9, 50), "checkin_closes_at": at(10, 10),
        },
        # The desk closed check-in at the briefing; set once, so a newcomer's reopening survives a reload.
        on_create={"checkin_override": Event.CheckinOverride.CLOSED, "numbering": Event.Numbering.REGISTRATION},
    )

    pupils = hong_kong_pupils(rng, PLAYERS)
    seconds = int((at(18, days=-8) - at(9, days=-30)).total_seconds())
    signed_up = [at(9, days=-30) + dt.timedelta(seconds=s) for s in sorted(rng.sample(range(seconds), PLAYERS))]
    # Everyone arrived between 09:50 and the briefing at 10:10 (never later than now).
    arrivals = [
        min(at(9, 50) + dt.timedelta(seconds=18 * n), now - dt.timedelta(seconds=PLAYERS - n)) for n in range(PLAYERS)
    ]
    rng.shuffle(arrivals)
    entries = [
        Entry(pupil, created_at, checked_in_at=arrived)
        for pupil, created_at, arrived in zip(pupils, signed_up, arrivals, strict=True)
    ]
    players = ensure_players(festival, entries)
    created = ensure_registrations(event, entries, players, checked_in_by=desk_user)
    if event.numbers_assigned_at is None and not event.checkin_is_open(now):
        # The real service, so the numbers are exactly what the organiser's button would give.
        event = assign_numbers(event=event, actor=actor, now=min(now, at(10, 10)))
    return {
        "festival": festival,
        "wrote": festival_wrote or event_wrote or bool(created),
        "created": {"final": created},
    }
