"""Plain functions that build real objects for tests (no mocks)."""

import datetime as dt
import itertools

from django.contrib.auth.models import Group, User
from django.utils import timezone

from tournament.models import Event, Festival, Player, Registration

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


def make_player(festival, **fields) -> Player:
    n = next(_counter)
    defaults = {"name": f"Player {n}", "contact": f"player{n}@example.org", "birth_year": 1990, "affiliation": ""}
    defaults.update(fields)
    return Player.objects.create(festival=festival, **defaults)


def make_registration(event, player=None, **fields) -> Registration:
    player = player or make_player(event.festival)
    fields.setdefault("queued_at", timezone.now())
    return Registration.objects.create(event=event, player=player, **fields)


def make_staff(festival, role: str, username: str | None = None, password: str = "pw-for-tests-only") -> User:
    """A user in the role's group and on the festival's staff."""
    user = User.objects.create_user(username=username or f"{role.replace(' ', '-')}-{next(_counter)}", password=password)
    user.groups.add(Group.objects.get(name=role))
    festival.staff.add(user)
    return user
