"""The 2014 Busan Board-Game Festival (seed 000), built around the moment the demo is loaded.

A newcomer may open the demo at any hour, so the day is laid out relative to `anchor` (now, to the quarter
hour, in Seoul) rather than at the real festival's times of day, keeping the real festival's shape:
루미큐브 대회 is in check-in now (opened half an hour ago, about half the players in; play starts in an hour
and runs 7½ hours; withdrawal by the Thursday before, R9). The Rummikub Word event starts two hours later and
overlaps it, so nobody may enter both (R9): it is the event open for registration. The children's event
played earlier does not overlap the main event, and some children play both; `load_demo_results` plays it.
"""

import datetime as dt
import random
import zoneinfo

from ..models import Event, Festival, Registration
from ..services.audit import Actor
from ..services.checkin import assign_numbers
from .build import Entry, ensure_players, ensure_registrations, upsert
from .people import Person, busan_people, busan_word_players

SLUG = "busan-2014"
TZ = zoneinfo.ZoneInfo("Asia/Seoul")
REGISTERED, WITHDRAWN, WAITLISTED, CHECKED_IN = 128, 6, 9, 67
KIDS_ALSO_IN_RUMMIKUB, WORD_ONLY = 12, 6
H, M = dt.timedelta(hours=1), dt.timedelta(minutes=1)


def _schedules(anchor: dt.datetime) -> dict[str, dict]:
    day = anchor.date()
    # The seed's deadline is "by Thursday" before the Saturday festival: the end of the day two days before.
    thursday_night = dt.datetime.combine(day - dt.timedelta(days=1), dt.time(0), tzinfo=TZ)
    month_before = anchor - dt.timedelta(days=30)
    main_start = anchor + H
    word_start = anchor + 3 * H
    kids_start = anchor - 3 * H
    return {
        "rummikub": {
            "name": "루미큐브 대회", "game": Event.Game.CLASSIC, "format": Event.Format.BUSAN,
            "ruleset": Event.Ruleset.WRC_2014, "capacity": 128,
            "starts_at": main_start, "ends_at": main_start + 7 * H + 30 * M,
            "registration_opens_at": month_before, "registration_closes_at": anchor - 30 * M,
            "withdrawal_deadline": thursday_night,
            "checkin_opens_at": anchor - 30 * M, "checkin_closes_at": main_start,
        },
        "rummikub-word": {
            "name": "루미큐브 워드 대회", "game": Event.Game.WORD, "format": Event.Format.BUSAN,
            "ruleset": Event.Ruleset.CASUAL, "capacity": 32,
            "starts_at": word_start, "ends_at": word_start + 2 * H,
            "registration_opens_at": month_before, "registration_closes_at": word_start - 30 * M,
            "withdrawal_deadline": word_start - 30 * M,
            "checkin_opens_at": word_start - 30 * M, "checkin_closes_at": word_start,
        },
        "rummikub-kids": {
            "name": "어린이 루미큐브 대회", "game": Event.Game.CLASSIC, "format": Event.Format.BUSAN,
            "ruleset": Event.Ruleset.CASUAL, "capacity": 32,
            "starts_at": kids_start, "ends_at": kids_start + 90 * M,
            "registration_opens_at": month_before, "registration_closes_at": kids_start - 30 * M,
            "withdrawal_deadline": thursday_night,
            "checkin_opens_at": kids_start - 30 * M, "checkin_closes_at": kids_start,
        },
    }


def _events(festival: Festival, anchor: dt.datetime) -> tuple[dict[str, Event], bool]:
    events, wrote = {}, False
    for slug, fields in _schedules(anchor).items():
        events[slug], changed = upsert(Event, lookup={"festival": festival, "slug": slug}, fields=fields)
        wrote = wrote or changed
    return events, wrote


def _spread(rng: random.Random, start: dt.datetime, end: dt.datetime, count: int) -> list[dt.datetime]:
    """`count` distinct sign-up times between start and end, in order, to the second."""
    seconds = int((end - start).total_seconds())
    return [start + dt.timedelta(seconds=s) for s in sorted(rng.sample(range(seconds), count))]


def arrivals(opened: dt.datetime, now: dt.datetime, count: int) -> list[dt.datetime]:
    """`count` check-in times from `opened` on, about 20 s apart, all before `now`."""
    step = min(22.0, max((now - opened).total_seconds(), count) / (count + 1))
    return [opened + dt.timedelta(seconds=step * (n + 1)) for n in range(count)]


def _rummikub_entries(rng, people: list[Person], anchor, now) -> list[Entry]:
    """Sign-ups in order: six withdraw before the event fills, the last nine land on the waiting list."""
    # Spans as long as they always were, so the same seed picks the same people as in older demo databases.
    start = anchor - dt.timedelta(days=30)
    times = _spread(rng, start, start + dt.timedelta(days=26, hours=12), len(people))
    full_at = REGISTERED + WITHDRAWN  # index of the first sign-up that found no place
    withdrawn = set(rng.sample(range(full_at), WITHDRAWN))
    registered = [i for i in range(full_at) if i not in withdrawn]
    checked_in = sorted(rng.sample(registered, CHECKED_IN))
    arrived = dict(zip(checked_in, arrivals(anchor - 30 * M, now, len(checked_in)), strict=True))
    entries = []
    for i, (person, created_at) in enumerate(zip(people, times, strict=True)):
        if i in withdrawn:
            left = created_at + (times[full_at] - created_at) * rng.uniform(0.2, 0.9)
            entries.append(Entry(person, created_at, Registration.Status.WITHDRAWN, withdrawn_at=left))
        elif i >= full_at:
            entries.append(Entry(person, created_at, Registration.Status.WAITLISTED))
        else:
            entries.append(Entry(person, created_at, checked_in_at=arrived.get(i)))
    return entries


def build(*, anchor: dt.datetime, now: dt.datetime, actor: Actor, desk_user=None) -> dict:
    """Create or update the festival; returns what it wrote, for the audit entry and the summary."""
    rng = random.Random(2014)
    anchor = anchor.astimezone(TZ)
    schedules = _schedules(anchor)
    first = min(s["starts_at"] for s in schedules.values()).date()
    last = max(s["ends_at"] for s in schedules.values()).date()
    festival, festival_wrote = upsert(
        Festival,
        lookup={"slug": SLUG},
        fields={
            "name": "2014 부산 보드게임페스티벌", "venue": "월석아트홀 (부산 해운대 센텀시티)",
            "contact": "kodkod@kodkod.co.kr", "timezone": "Asia/Seoul", "languages": ["ko", "en"],
            "starts_on": first, "ends_on": last,
            # Seed 000: results count toward the Korean ranking, which the notice names as the third party.
            "ranking_recipient": "루미큐브 한국랭킹 (코리아보드게임즈)", "ranking_recipient_keeps": "랭킹을 공개하는 동안",
        },
    )
    events, events_wrote = _events(festival, anchor)

    people = busan_people(rng, REGISTERED + WITHDRAWN + WAITLISTED)
    rummikub = _rummikub_entries(rng, people, anchor, now)
    withdrawn = [e for e in rummikub if e.status == Registration.Status.WITHDRAWN]
    young = [e for e in rummikub if e.status == Registration.Status.REGISTERED and e.person.age <= 12]
    # The children's event is over: every child checked in during its check-in.
    kids_checkin = events["rummikub-kids"].checkin_opens_at
    kids = [Entry(e.person, e.created_at + dt.timedelta(minutes=rng.randint(2, 30)), checked_in_at=arrived)
            for e, arrived in zip(rng.sample(young, KIDS_ALSO_IN_RUMMIKUB),
                                  arrivals(kids_checkin, kids_checkin + 25 * M, KIDS_ALSO_IN_RUMMIKUB), strict=True)]
    # R9: the Word event overlaps the main event, so only those not (or no longer) in it enter it.
    word = [Entry(e.person, e.withdrawn_at + dt.timedelta(hours=rng.randint(1, 20))) for e in withdrawn]
    word_only = busan_word_players(rng, WORD_ONLY, taken=people)
    word_opened = anchor - dt.timedelta(days=25)
    sign_ups = _spread(rng, word_opened, word_opened + dt.timedelta(days=22, hours=10), WORD_ONLY)
    word += [Entry(p, t) for p, t in zip(word_only, sign_ups, strict=True)]

    players = ensure_players(festival, rummikub + kids + word)
    created = {
        "rummikub": ensure_registrations(events["rummikub"], rummikub, players, checked_in_by=desk_user),
        "rummikub-kids": ensure_registrations(events["rummikub-kids"], kids, players, checked_in_by=desk_user),
        "rummikub-word": ensure_registrations(events["rummikub-word"], word, players),
    }
    kids_event = events["rummikub-kids"]
    if (kids_event.numbers_assigned_at is None and not kids_event.checkin_is_open(now)
            and kids_event.registrations.filter(checked_in_at__isnull=False).exists()):
        # Numbered as the organiser's button would; `load_demo_results` then plays the event.
        assign_numbers(event=kids_event, actor=actor, now=min(now, kids_event.starts_at))
    return {"festival": festival, "wrote": festival_wrote or events_wrote or any(created.values()), "created": created}
