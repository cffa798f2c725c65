"""Loads both demo festivals and the demo accounts in one transaction; safe to run again and again."""

import datetime as dt

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from ..models import Registration
from ..services.audit import Actor, record
from . import busan, hong_kong
from .accounts import PASSWORD, ROLE_ACCOUNTS, SUPERUSER, ensure_accounts, join_staff

DEMO = Actor(label="demo")


def anchor_of(now: dt.datetime, tz, day: dt.date | None = None) -> dt.datetime:
    """The moment the festival's day is laid out around: now to the quarter hour in the festival's zone (on
    `day` if given), so loading again within the quarter hour writes nothing."""
    local = now.astimezone(tz)
    local = local.replace(minute=local.minute - local.minute % 15, second=0, microsecond=0)
    if day is not None:
        local = dt.datetime.combine(day, local.time(), tzinfo=tz)
    return local


def load_demo(*, day: dt.date | None = None, now: dt.datetime | None = None) -> list:
    """The festivals laid out around now (at this time of day on `day`, if given): whatever the hour, one
    event is open for registration, one in check-in, one being played. Returns the festivals.

    Loading again within the quarter hour writes nothing; later it moves the schedules around the new moment
    and leaves every player and registration (and what the newcomer did with them) as it was.
    """
    now = now or timezone.now()
    with transaction.atomic():
        users = ensure_accounts()
        results = [
            busan.build(anchor=anchor_of(now, busan.TZ, day), now=now, actor=DEMO, desk_user=users["desk"]),
            hong_kong.build(anchor=anchor_of(now, hong_kong.TZ, day), now=now, actor=DEMO, desk_user=users["desk"]),
        ]
        festivals = [result["festival"] for result in results]
        join_staff(users, festivals)
        for result in results:
            if result["wrote"]:
                festival = result["festival"]
                record(
                    actor=DEMO, action="demo.loaded", festival=festival, target=festival,
                    after={"day": festival.starts_on.isoformat(), "registrations_created": result["created"]},
                )
    return festivals


def summary_lines(festivals) -> list[str]:
    """What a newcomer needs to start clicking: the festivals, their events and counts, the accounts."""
    status = Registration.Status
    lines = []
    for festival in festivals:
        lines.append(f"{festival.name} ({festival.slug}) — {festival.starts_on:%Y-%m-%d}, {festival.timezone}")
        events = festival.events.annotate(
            registered=Count("registrations", filter=Q(registrations__status=status.REGISTERED)),
            waitlisted=Count("registrations", filter=Q(registrations__status=status.WAITLISTED)),
            withdrawn=Count("registrations", filter=Q(registrations__status=status.WITHDRAWN)),
            checked_in=Count("registrations", filter=Q(registrations__checked_in_at__isnull=False)),
        )
        for event in events:
            starts = timezone.localtime(event.starts_at, festival.tzinfo)
            ends = timezone.localtime(event.ends_at, festival.tzinfo)
            lines.append(
                f"  {event.slug:<14} {starts:%H:%M}–{ends:%H:%M}  {event.registered}/{event.capacity} registered, "
                f"{event.waitlisted} waiting, {event.withdrawn} withdrawn, {event.checked_in} checked in"
            )
    accounts = ", ".join([*ROLE_ACCOUNTS, SUPERUSER])
    lines.append(f"Demo accounts: {accounts} — password “{PASSWORD}” (unchanged if the account already existed)")
    lines.append("Now open http://127.0.0.1:8000/")
    return lines
