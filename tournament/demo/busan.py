"""The 2014 Busan Board-Game Festival (seed 000), held on the demo day at the real times of day.

루미큐브 대회: check-in 10:30–11:00, play 11:00 until the prizes at 18:10–18:30, withdrawal by the Thursday
before (R9). A Rummikub Word event at 14:00 overlaps it, so nobody may enter both (R9); a children's event
at 09:00–10:30 does not, and some children play both.
"""

import datetime as dt
import random
import zoneinfo

from ..models import Event, Festival, Registration
from .build import Entry, ensure_players, ensure_registrations, upsert
from .people import Person, busan_people, busan_word_players

SLUG = "busan-2014"
TZ = zoneinfo.ZoneInfo("Asia/Seoul")
REGISTERED, WITHDRAWN, WAITLISTED, CHECKED_IN = 128, 6, 9, 67
KIDS_ALSO_IN_RUMMIKUB, WORD_ONLY = 12, 6


def _clock(day: dt.date):
    def at(hour: int, minute: int = 0, *, days: int = 0) -> dt.datetime:
        return dt.datetime.combine(day + dt.timedelta(days=days), dt.time(hour, minute), tzinfo=TZ)

    return at


def _events(festival: Festival, day: dt.date) -> tuple[dict[str, Event], bool]:
    at = _clock(day)
    # The seed's deadline is "by Thursday" before the Saturday festival: the end of the day two days before.
    thursday_night = at(0, days=-1)
    schedules = {
        "rummikub": {
            "name": "루미큐브 대회", "game": Event.Game.CLASSIC, "format": Event.Format.BUSAN,
            "ruleset": Event.Ruleset.WRC_2014, "capacity": 128,
            "starts_at": at(11), "ends_at": at(18, 30),
            "registration_opens_at": at(10, days=-30), "registration_closes_at": at(10, 30),
            "withdrawal_deadline": thursday_night,
            "checkin_opens_at": at(10, 30), "checkin_closes_at": at(11),
        },
        # Registration and withdrawal stay open all day so a newcomer can try both at any hour.
        "rummikub-word": {
            "name": "루미큐브 워드 대회", "game": Event.Game.WORD, "format": Event.Format.BUSAN,
            "ruleset": Event.Ruleset.CASUAL, "capacity": 32,
            "starts_at": at(14), "ends_at": at(16),
            "registration_opens_at": at(10, days=-30), "registration_closes_at": at(0, days=1),
            "withdrawal_deadline": at(0, days=1),
            "checkin_opens_at": at(13, 30), "checkin_closes_at": at(14),
        },
        "rummikub-kids": {
            "name": "어린이 루미큐브 대회", "game": Event.Game.CLASSIC, "format": Event.Format.BUSAN,
            "ruleset": Event.Ruleset.CASUAL, "capacity": 32,
            "starts_at": at(9), "ends_at": at(10, 30),
            "registration_opens_at": at(10, days=-30), "registration_closes_at": at(8, 30),
            "withdrawal_deadline": thursday_night,
            "checkin_opens_at": at(8, 30), "checkin_closes_at": at(9),
        },
    }
    # Check-in of the main event is held open so the desk can be tried at any hour (the organiser can
    # return it to the schedule); set only when the event is first created, never over a newcomer's choice.
    on_create = {"rummikub": {"checkin_override": Event.CheckinOverride.OPEN}}
    events, wrote = {}, False
    for slug, fields in schedules.items():
        events[slug], changed = upsert(
            Event, lookup={"festival": festival, "slug": slug}, fields=fields, on_create=on_create.get(slug)
        )
        wrote = wrote or changed
    return events, wrote


def _spread(rng: random.Random, start: dt.datetime, end: dt.datetime, count: int) -> list[dt.datetime]:
    """`count` distinct sign-up times between start and end, in order, to the second."""
    seconds = int((end - start).total_seconds())
    return [start + dt.timedelta(seconds=s) for s in sorted(rng.sample(range(seconds), count))]


def _rummikub_entries(rng, people: list[Person], at, now) -> list[Entry]:
    """Sign-ups in order: six withdraw before the event fills, the last nine land on the waiting list."""
    times = _spread(rng, at(10, days=-30), at(22, days=-4), len(people))
    full_at = REGISTERED + WITHDRAWN  # index of the first sign-up that found no place
    withdrawn = set(rng.sample(range(full_at), WITHDRAWN))
    registered = [i for i in range(full_at) if i not in withdrawn]
    checked_in = sorted(rng.sample(registered, CHECKED_IN))
    # Checked in over the first 25 minutes of check-in, but never later than now.
    arrivals = {
        i: min(at(10, 30) + dt.timedelta(seconds=22 * n), now - dt.timedelta(seconds=len(checked_in) - n))
        for n, i in enumerate(checked_in)
    }
    entries = []
    for i, (person, created_at) in enumerate(zip(people, times, strict=True)):
        if i in withdrawn:
            left = created_at + (times[full_at] - created_at) * rng.uniform(0.2, 0.9)
            entries.append(Entry(person, created_at, Registration.Status.WITHDRAWN, withdrawn_at=left))
        elif i >= full_at:
            entries.append(Entry(person, created_at, Registration.Status.WAITLISTED))
        else:
            entries.append(Entry(person, created_at, checked_in_at=arrivals.get(i)))
    return entries


def build(*, day: dt.date, now: dt.datetime, desk_user=None) -> dict:
    """Create or update the festival; returns what it wrote, for the audit entry and the summary."""
    rng = random.Random(2014)
    at = _clock(day)
    festival, festival_wrote = upsert(
        Festival,
        lookup={"slug": SLUG},
        fields={
            "name": "2014 부산 보드게임페스티벌", "venue": "월석아트홀 (부산 해운대 센텀시티)",
            "contact": "kodkod@kodkod.co.kr", "timezone": "Asia/Seoul", "languages": ["ko", "en"],
            "starts_on": day, "ends_on": day,
        },
    )
    events, events_wrote = _events(festival, day)

    people = busan_people(rng, REGISTERED + WITHDRAWN + WAITLISTED)
    rummikub = _rummikub_entries(rng, people, at, now)
    withdrawn = [e for e in rummikub if e.status == Registration.Status.WITHDRAWN]
    young = [e for e in rummikub if e.status == Registration.Status.REGISTERED and e.person.age <= 12]
    kids = [Entry(e.person, e.created_at + dt.timedelta(minutes=rng.randint(2, 30)))
            for e in rng.sample(young, KIDS_ALSO_IN_RUMMIKUB)]
    # R9: the Word event overlaps the main event, so only those not (or no longer) in it enter it.
    word = [Entry(e.person, e.withdrawn_at + dt.timedelta(hours=rng.randint(1, 20))) for e in withdrawn]
    word_only = busan_word_players(rng, WORD_ONLY, taken=people)
    word += [Entry(p, t) for p, t in zip(word_only, _spread(rng, at(10, days=-25), at(20, days=-3), WORD_ONLY),
                                         strict=True)]

    players = ensure_players(festival, rummikub + kids + word)
    created = {
        "rummikub": ensure_registrations(events["rummikub"], rummikub, players, checked_in_by=desk_user),
        "rummikub-kids": ensure_registrations(events["rummikub-kids"], kids, players),
        "rummikub-word": ensure_registrations(events["rummikub-word"], word, players),
    }
    return {"festival": festival, "wrote": festival_wrote or events_wrote or any(created.values()), "created": created}
