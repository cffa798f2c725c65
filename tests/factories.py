"""Plain functions that build real objects for tests (no mocks)."""

import datetime as dt
import itertools

from django.contrib.auth.models import User
from django.utils import timezone

from tournament.models import Event, Festival, Player, Registration, StaffRole

_counter = itertools.count(1)

# A fixed "now" for tests: the event day of the demo festival, 09:00 in Seoul.
SEOUL = dt.timezone(dt.timedelta(hours=9))
EVENT_DAY = dt.datetime(2030, 11, 2, 9, 0, tzinfo=SEOUL)


def make_festival(**fields) -> Festival:
    n = next(_counter)
    defaults = {
        "slug": f"festival-{n}",
        "name": f"Festival {n}",
        "venue": "Centum Art Hall",
        "starts_on": EVENT_DAY.date(),
        "ends_on": EVENT_DAY.date(),
    }
    defaults.update(fields)
    return Festival.objects.create(**defaults)


def make_event(festival=None, *, start=None, hours=7, **fields) -> Event:
    """An event on EVENT_DAY at 11:00 by default: registration open now, check-in 10:30–11:00."""
    festival = festival or make_festival()
    n = next(_counter)
    start = start or EVENT_DAY.replace(hour=11)
    defaults = {
        "festival": festival,
        "slug": f"event-{n}",
        "name": f"Event {n}",
        "capacity": 128,
        "starts_at": start,
        "ends_at": start + dt.timedelta(hours=hours),
        "registration_opens_at": start - dt.timedelta(days=30),
        "registration_closes_at": start - dt.timedelta(hours=1),
        "withdrawal_deadline": start - dt.timedelta(days=2),
        "checkin_opens_at": start - dt.timedelta(minutes=30),
        "checkin_closes_at": start,
    }
    defaults.update(fields)
    return Event.objects.create(**defaults)


def open_event(festival=None, *, days_ahead=10, hours=3, **fields) -> Event:
    """An event `days_ahead` days from now: registration open and withdrawal allowed right now (for views,
    which use the real clock; withdrawals close 2 days before the start)."""
    start = timezone.now() + dt.timedelta(days=days_ahead)
    return make_event(festival, start=start.replace(microsecond=0), hours=hours, **fields)


def make_player(festival, **fields) -> Player:
    n = next(_counter)
    defaults = {"name": f"Player {n}", "contact": f"player{n}@example.org", "birth_year": 1990, "affiliation": ""}
    defaults.update(fields)
    return Player.objects.create(festival=festival, **defaults)


def make_registration(event, player=None, **fields) -> Registration:
    player = player or make_player(event.festival)
    fields.setdefault("queued_at", timezone.now())
    return Registration.objects.create(event=event, player=player, **fields)


def agreed(festival) -> dict:
    """A registration's fields for an online agreement, by the player, to the festival's notice as it is now."""
    return {"consent_notice_version": festival.privacy_notice_version, "consented_at": timezone.now(),
            "consent_by": Registration.ConsentBy.PLAYER, "consent_how": Registration.ConsentHow.ONLINE}


def make_staff(festival, role: str, username: str | None = None, password: str = "pw-for-tests-only") -> User:
    """A user holding `role` at the festival."""
    user = User.objects.create_user(username=username or f"{role.replace(' ', '-')}-{next(_counter)}", password=password)
    StaffRole.objects.create(festival=festival, user=user, role=role)
    return user


SCHOOLS = ["해운대초", "센텀중", "부산국제고", "동백클럽", "광안초", "수영중", "", ""]


def ready_event(players: int, **fields):
    """An event with `players` checked-in players numbered in registration order (R8.2); check-in closed."""
    from tournament.services.audit import Actor
    from tournament.services.checkin import assign_numbers

    event = make_event(checkin_override=Event.CheckinOverride.CLOSED, **fields)
    now = timezone.now()
    for i in range(players):
        player = make_player(event.festival, affiliation=SCHOOLS[i % len(SCHOOLS)])
        make_registration(event, player, checked_in_at=now)
    assign_numbers(event=event, actor=Actor(label="test"))
    event.refresh_from_db()
    return event


def released_stage(players: int, seed: int = 1, **fields):
    """`ready_event` with its first stage drawn and released."""
    from tournament.services import draws
    from tournament.services.audit import Actor

    event = ready_event(players, **fields)
    actor = Actor(label="test")
    stage = draws.start_event(event=event, actor=actor)
    draws.release_draw(draw=draws.draft_draw(stage=stage, actor=actor, seed=seed), actor=actor)
    return stage
