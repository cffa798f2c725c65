"""A child's place held for the guardian's agreement goes to the waiting list when the hold is over
(services.guardian); run by `manage.py release_guardian_holds` every few minutes.

The rules:
- Only while check-in has not closed: after that a freed place is a late place (services.late_places), and a
  child not checked in has no place to give anyway.
- Only when someone else waits for it. With nobody on the waiting list the child keeps the place (nobody
  gains from an empty one), still waiting for the guardian; the next run after someone joins the line frees it.
- The child goes to the **end** of the waiting line, as if joining it now. At its head, the next freed place
  would go straight back to a child whose guardian has not answered, with a new hold, again and again, ahead
  of players who are ready to play; at the end, the child keeps a chance like anyone who joins now, and moves
  up like anyone else. The guardian may still agree: the child then keeps their place in the line.
- The first in line gets the place, by the same promotion as a withdrawal (services.registration), and the
  guardian gets an e-mail saying what happened, with a new link.
"""

import datetime as dt

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from ..models import Event, Registration
from . import guardian
from .audit import SYSTEM, Actor, record
from .locking import lock_event, lock_rows
from .registration import IN_LINE_SINCE, promote_from_waiting_list, registration_snapshot

S = Registration.Status


def _due(now):
    return Registration.objects.filter(status=S.REGISTERED, guardian_check=Registration.GuardianCheck.WAITING,
                                       guardian_held_until__lte=now)


def release_expired_holds(*, now=None, actor: Actor = SYSTEM) -> list[Registration]:
    """Every event's holds that are over, one event (one transaction, one lock) at a time."""
    now = now or timezone.now()
    released = []
    for event_id in sorted(set(_due(now).values_list("event_id", flat=True))):
        released += release_event_holds(event=event_id, now=now, actor=actor)
    return released


def release_event_holds(*, event: Event | int, now=None, actor: Actor = SYSTEM) -> list[Registration]:
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(event)
        if event.checkin_has_closed(now):
            return []
        due = list(lock_rows(_due(now).filter(event=event)).select_related("player")
                   .order_by("guardian_held_until", "id"))
        released = []
        for registration in due:
            waiting = Registration.objects.filter(event=event, status=S.WAITLISTED).exclude(
                pk__in=[r.pk for r in released])
            if not waiting.exists():
                break  # nobody needs the place: the child keeps it
            before = registration_snapshot(registration)
            registration.event = event
            registration.status = S.WAITLISTED
            registration.queued_at = _end_of_line(event, now)
            registration.promoted_at = None
            registration.save(update_fields=["status", "queued_at", "promoted_at"])
            record(actor=actor, action="registration.guardian_hold_over", target=registration, event=event,
                   before=before, after=registration_snapshot(registration))
            promote_from_waiting_list(event=event, actor=actor, now=now)
            guardian.on_released(registration, now=now)
            released.append(registration)
    return released


def _end_of_line(event: Event, now) -> dt.datetime:
    """Behind everyone in the line now, whatever the clocks of the requests that queued them said."""
    last = (Registration.objects.filter(event=event, status=S.WAITLISTED).annotate(line=IN_LINE_SINCE)
            .aggregate(last=Max("line"))["last"])
    return now if last is None or last < now else last + dt.timedelta(microseconds=1)
