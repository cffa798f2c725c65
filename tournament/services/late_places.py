"""Late places (R9): check-in has closed and places are empty (players who registered and did not come).

Until check-in closes a freed place goes to the first on the waiting list by itself (services.registration).
After that only someone in the hall can use a place, so the organiser opens "late places" and the desk gives
them to waiting-list players present, in waiting-list order, until player numbers are assigned (R8.2).

"In waiting-list order" when the first in line is not in the hall: the software cannot know who is present,
so the desk calls the waiting list in order and ticks the players who answer. The places go to the ticked
players in line order (never in the order they were ticked); a player not ticked is passed over for these
places only and stays on the waiting list (a later request may still give them a place left over). Ticking
more players than there are places is refused, naming the first in line who would get them, so a player
behind someone present can never take that person's place.
"""

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..models import Event, Registration
from .audit import Actor, record
from .confirmation import Blocker, refuse
from .errors import ServiceError
from .locking import lock_event, lock_rows
from .registration import IN_LINE_SINCE, registration_snapshot

S = Registration.Status


@dataclass
class LatePlaces:
    """What the organiser's page and the desk show: empty places, who waits, and what blocks opening them."""

    empty: int
    waiting: int
    opened: bool
    blockers: list[Blocker] = field(default_factory=list)

    @property
    def shown(self) -> bool:
        """Worth mentioning: check-in is over, numbers not given yet, and places are empty."""
        return self.empty > 0 and not any(b.code in ("open", "numbered") for b in self.blockers)

    @property
    def usable(self) -> bool:
        """The desk may give late places now."""
        return self.opened and not self.blockers


def _counts(event: Event) -> tuple[int, int]:
    """(empty places, players waiting) in one query: empty = places minus players checked in."""
    counts = Registration.objects.filter(event=event).aggregate(
        checked_in=Count("id", filter=Q(status=S.REGISTERED, checked_in_at__isnull=False)),
        waiting=Count("id", filter=Q(status=S.WAITLISTED)),
    )
    return max(event.capacity - counts["checked_in"], 0), counts["waiting"]


def _blockers(event: Event, empty: int, waiting: int, now) -> list[Blocker]:
    blockers = []
    if event.numbers_assigned_at:
        blockers.append(Blocker("numbered", _("Player numbers are already assigned: no more late places.")))
    elif not event.checkin_has_closed(now):
        blockers.append(Blocker("open", _("Check-in has not closed: the waiting list still moves up by itself.")))
    if empty <= 0:
        blockers.append(Blocker("full", _("No place is empty.")))
    if waiting <= 0:
        blockers.append(Blocker("nobody", _("Nobody is on the waiting list.")))
    return blockers


def late_places(event: Event, *, now=None, checked_in: int | None = None, waiting: int | None = None) -> LatePlaces:
    """`checked_in` and `waiting` from counts the page already has (the desk's) save a query."""
    if checked_in is None or waiting is None:
        empty, waiting = _counts(event)
    else:
        empty = max(event.capacity - checked_in, 0)
    return LatePlaces(empty=empty, waiting=waiting, opened=event.late_places_opened_at is not None,
                      blockers=_blockers(event, empty, waiting, now or timezone.now()))


def waiting_line(event: Event) -> list[Registration]:
    """The waiting list in line order (1 = first), with players (one query)."""
    line = list(Registration.objects.filter(event=event, status=S.WAITLISTED).select_related("player")
                .order_by(IN_LINE_SINCE.asc(), "id"))
    for position, registration in enumerate(line, start=1):
        registration.waiting_position = position
    return line


def open_late_places(*, event: Event, actor: Actor, now=None) -> Event:
    """The organiser lets the desk give the empty places to waiting-list players present (audited once)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(event)
        if event.late_places_opened_at is not None:  # a second tap changes nothing
            return event
        state = late_places(event, now=now)
        refuse(state.blockers)
        event.late_places_opened_at = now
        event.save(update_fields=["late_places_opened_at"])
        record(actor=actor, action="checkin.late_places", target=event, event=event,
               after={"empty": state.empty, "waiting": state.waiting})
    return event


def give_late_places(*, event: Event, registration_ids: list[int], actor: Actor, now=None) -> list[Registration]:
    """The desk gives late places to the waiting-list players it ticked as present: each gets a place and is
    checked in at once (they are at the desk). All of them or, refused, none (see the module's note)."""
    now = now or timezone.now()
    wanted = set(registration_ids)
    if not wanted:
        raise ServiceError(_("Tick the waiting-list players who are here."), code="empty")
    with transaction.atomic():
        event = lock_event(event)
        if event.late_places_opened_at is None:
            raise ServiceError(_("The organiser has not opened late places for this event."), code="not_opened")
        empty, waiting = _counts(event)
        refuse([b for b in _blockers(event, empty, waiting, now) if b.code in ("numbered", "open", "full")])
        line = list(lock_rows(Registration.objects.filter(event=event, status=S.WAITLISTED))
                    .select_related("player").order_by(IN_LINE_SINCE.asc(), "id"))
        chosen = [r for r in line if r.pk in wanted]  # line order, whatever order they were ticked in
        if len(chosen) < len(wanted):
            raise ServiceError(_("Someone you ticked is no longer on the waiting list. Check the list again."),
                               code="stale")
        if len(chosen) > empty:
            raise ServiceError(
                ngettext("Only %(count)s place is empty: in waiting-list order it goes to %(names)s. Untick the "
                         "others.",
                         "Only %(count)s places are empty: in waiting-list order they go to %(names)s. Untick the "
                         "others.", empty) % {"count": empty, "names": ", ".join(r.player.name for r in chosen[:empty])},
                code="too_many")
        unagreed = [r.player.name for r in chosen if r.waits_for_guardian]
        if unagreed:
            # A child's place needs the guardian's agreement first (services.guardian): the desk's row records it.
            raise ServiceError(_("The parent or guardian of %(names)s has not agreed yet: record their signed paper "
                                 "form on the desk's row first.") % {"names": ", ".join(unagreed)}, code="guardian")
        for registration in chosen:
            before = registration_snapshot(registration)
            registration.status = S.REGISTERED
            registration.promoted_at = registration.checked_in_at = now
            registration.checked_in_by = actor.user
            registration.save(update_fields=["status", "promoted_at", "checked_in_at", "checked_in_by"])
            record(actor=actor, action="checkin.late_place", target=registration, event=event, before=before,
                   after=registration_snapshot(registration))
    return chosen
