"""The 2015-2016 Hong Kong school final (seed 003), live when the demo is loaded.

The real day's shape, laid out around `anchor` (now, to the quarter hour, in Hong Kong) so the demo has a
round in play at any hour: arrival 70 minutes ago, rules briefing 50 minutes ago (late arrivals are not
admitted after it, R9), play from 40 minutes ago for 90 minutes. 64 pupils, all arrived; check-in closed and
numbers 1–64 given, since tables 1–16 seat by number (R8.2). `load_demo_results` draws and plays the
first games, leaving sheets for the chief referee and tables for the referee.
"""

import datetime as dt
import random
import zoneinfo

from ..models import Event, Festival
from ..services.audit import Actor
from ..services.checkin import assign_numbers
from .build import Entry, ensure_players, ensure_registrations, upsert
from .busan import arrivals
from .people import hong_kong_pupils

SLUG = "hong-kong-2016"
TZ = zoneinfo.ZoneInfo("Asia/Hong_Kong")
PLAYERS = 64
M, DAY = dt.timedelta(minutes=1), dt.timedelta(days=1)


def build(*, anchor: dt.datetime, now: dt.datetime, actor: Actor, desk_user=None) -> dict:
    rng = random.Random(2016)
    anchor = anchor.astimezone(TZ)
    start = anchor - 40 * M
    briefing = start - 10 * M
    arrival = briefing - 20 * M

    festival, festival_wrote = upsert(
        Festival,
        lookup={"slug": SLUG},
        fields={
            "name": "2015-2016 年度魔力橋數字牌遊戲大賽", "venue": "保良局錦泰小學 四樓禮堂",
            "contact": "enquiry@hk-rummikub.example", "timezone": "Asia/Hong_Kong", "languages": ["zh-hant", "en"],
            "starts_on": start.date(), "ends_on": (start + 90 * M).date(),
        },
    )
    event, event_wrote = upsert(
        Event,
        lookup={"festival": festival, "slug": "final"},
        fields={
            "name": "魔力橋大賽 決賽", "game": Event.Game.CLASSIC, "format": Event.Format.HONG_KONG,
            "ruleset": Event.Ruleset.HK_2016, "capacity": 64,
            # A schools' competition: pupils' names are shown masked on public pages (陳*文).
            "public_names": Event.PublicNames.MASKED,
            "starts_at": start, "ends_at": start + 90 * M,
            "registration_opens_at": start - 30 * DAY, "registration_closes_at": start - 7 * DAY,
            "withdrawal_deadline": start - 3 * DAY,
            "checkin_opens_at": arrival, "checkin_closes_at": briefing,
        },
        # The desk closed check-in at the briefing; set once, so a newcomer's reopening survives a reload.
        on_create={"checkin_override": Event.CheckinOverride.CLOSED, "numbering": Event.Numbering.REGISTRATION},
    )

    pupils = hong_kong_pupils(rng, PLAYERS)
    opened = start - 30 * DAY
    seconds = int(dt.timedelta(days=22, hours=9).total_seconds())  # as always: the same seed, the same pupils
    signed_up = [opened + dt.timedelta(seconds=s) for s in sorted(rng.sample(range(seconds), PLAYERS))]
    # Everyone arrived between arrival time and the briefing.
    arrival_times = arrivals(arrival, briefing, PLAYERS)
    rng.shuffle(arrival_times)
    entries = [
        Entry(pupil, created_at, checked_in_at=arrived)
        for pupil, created_at, arrived in zip(pupils, signed_up, arrival_times, strict=True)
    ]
    players = ensure_players(festival, entries)
    created = ensure_registrations(event, entries, players, checked_in_by=desk_user)
    if event.numbers_assigned_at is None and not event.checkin_is_open(now):
        # The real service, so the numbers are exactly what the organiser's button would give.
        event = assign_numbers(event=event, actor=actor, now=min(now, briefing))
    return {
        "festival": festival,
        "wrote": festival_wrote or event_wrote or bool(created),
        "created": {"final": created},
    }
