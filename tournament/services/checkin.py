"""The desk on the morning (R9): check-in until it closes, then player numbers for the draw (R8.2)."""

import random
import secrets

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Event, Registration
from .audit import Actor, record
from .errors import ServiceError


def check_in(*, registration: Registration, actor: Actor, now=None) -> Registration:
    """One tap at the desk. Checking in someone already checked in changes nothing (two desks, one player)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = Event.objects.select_for_update().get(pk=registration.event_id)
        registration = Registration.objects.select_for_update().select_related("player").get(pk=registration.pk)
        if not event.checkin_is_open(now):
            raise ServiceError(_("Check-in for this event is closed; late arrivals cannot be admitted."), code="closed")
        if registration.status != Registration.Status.REGISTERED:
            raise ServiceError(
                _("%(name)s is not registered for a place (%(status)s).")
                % {"name": registration.player.name, "status": registration.get_status_display()},
                code="not_registered",
            )
        if registration.is_checked_in:
            return registration
        registration.checked_in_at = now
        registration.checked_in_by = actor.user
        registration.save(update_fields=["checked_in_at", "checked_in_by"])
        record(actor=actor, action="checkin.in", target=registration, event=event, after={"checked_in": now.isoformat()})
    return registration


def undo_check_in(*, registration: Registration, actor: Actor, now=None) -> Registration:
    now = now or timezone.now()
    with transaction.atomic():
        event = Event.objects.select_for_update().get(pk=registration.event_id)
        registration = Registration.objects.select_for_update().get(pk=registration.pk)
        if not event.checkin_is_open(now):
            raise ServiceError(_("Check-in is closed; ask the organiser to reopen it first."), code="closed")
        if not registration.is_checked_in:
            return registration
        before = {"checked_in": registration.checked_in_at.isoformat()}
        registration.checked_in_at = None
        registration.checked_in_by = None
        registration.save(update_fields=["checked_in_at", "checked_in_by"])
        record(actor=actor, action="checkin.undone", target=registration, event=event, before=before)
    return registration


def set_checkin_override(*, event: Event, override: str, actor: Actor) -> Event:
    """The organiser closes check-in early, reopens it, or returns to the schedule."""
    if override not in Event.CheckinOverride.values:
        raise ServiceError(_("Unknown check-in setting."), code="invalid")
    with transaction.atomic():
        event = Event.objects.select_for_update().get(pk=event.pk)
        if override == Event.CheckinOverride.OPEN and event.numbers_assigned_at:
            raise ServiceError(
                _("Player numbers are already assigned; check-in cannot be reopened."), code="numbered"
            )
        before = event.checkin_override
        event.checkin_override = override
        event.save(update_fields=["checkin_override"])
        record(actor=actor, action="checkin.override", target=event, event=event, before={"override": before},
               after={"override": override})
    return event


def numbering_order(registration_ids: list[int], *, method: str, seed: int | None) -> list[int]:
    """Plain data in, plain data out: the order in which checked-in players get numbers 1, 2, 3 …

    `registration_ids` must be in registration order. At random, the stored seed reproduces the order.
    """
    if method == Event.Numbering.RANDOM:
        shuffled = list(registration_ids)
        random.Random(seed).shuffle(shuffled)
        return shuffled
    return list(registration_ids)


def assign_numbers(*, event: Event, actor: Actor, method: str | None = None, seed: int | None = None, now=None) -> Event:
    """R8.2: once check-in is closed, number the checked-in players (registration order or a seeded draw)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = Event.objects.select_for_update().get(pk=event.pk)
        if event.checkin_is_open(now):
            raise ServiceError(_("Close check-in before assigning player numbers."), code="open")
        if event.numbers_assigned_at:
            raise ServiceError(_("Player numbers are already assigned."), code="numbered")
        method = method or event.numbering
        if method not in Event.Numbering.values:
            raise ServiceError(_("Unknown numbering method."), code="invalid")
        if method == Event.Numbering.RANDOM and seed is None:
            seed = secrets.randbits(48)
        checked_in = list(
            Registration.objects.select_for_update()
            .filter(event=event, status=Registration.Status.REGISTERED, checked_in_at__isnull=False)
            .order_by("created_at", "id")
            .values_list("id", flat=True)
        )
        order = numbering_order(checked_in, method=method, seed=seed)
        updates = [Registration(id=reg_id, number=number) for number, reg_id in enumerate(order, start=1)]
        Registration.objects.bulk_update(updates, ["number"], batch_size=500)
        event.numbering = method
        event.numbering_seed = seed if method == Event.Numbering.RANDOM else None
        event.numbers_assigned_at = now
        if event.checkin_override != Event.CheckinOverride.CLOSED:
            event.checkin_override = Event.CheckinOverride.CLOSED
        event.save(update_fields=["numbering", "numbering_seed", "numbers_assigned_at", "checkin_override"])
        record(actor=actor, action="checkin.numbered", target=event, event=event,
               after={"method": method, "seed": seed, "players": len(order)})
    return event
