"""The desk on the morning (R9): check-in until it closes, then player numbers for the draw (R8.2)."""

import random
import secrets

from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..models import Event, Registration
from . import guardian
from .audit import Actor, record
from .confirmation import Blocker, Group, Preview
from .errors import ServiceError
from .locking import lock_event, lock_registration, lock_rows


def checkin_closed_message(event: Event, now=None) -> str:
    """Why nobody can be checked in now: before check-in opens the desk is early and is told when it opens (in
    the festival's zone, with the day if not today); after it closes, or closed by the organiser, arrivals are
    late (R9)."""
    now = now or timezone.now()
    if event.checkin_override != Event.CheckinOverride.CLOSED and now < event.checkin_opens_at:
        zone = event.festival.tzinfo
        opens = timezone.localtime(event.checkin_opens_at, zone)
        time = opens.strftime("%H:%M")
        if opens.date() == timezone.localtime(now, zone).date():
            return _("Check-in opens at %(time)s.") % {"time": time}
        return _("Check-in opens on %(day)s at %(time)s.") % {"day": date_format(opens, "SHORT_DATE_FORMAT"),
                                                               "time": time}
    return _("Check-in for this event is closed; late arrivals cannot be admitted.")


def admit(*, event: Event, registration: Registration, actor: Actor, now) -> bool:
    """Check a locked registration in (R9); False if it already was. The caller holds the event lock and
    records the change: the one rule for every way in (a tap, a walk-in (services.walk_in), a tap queued
    offline)."""
    if not event.checkin_is_open(now):
        raise ServiceError(checkin_closed_message(event, now), code="closed")
    if registration.status == Registration.Status.WAITLISTED:
        raise ServiceError(
            _("%(name)s is on the waiting list and has no place, so cannot be checked in.")
            % {"name": registration.player.name},
            code="waitlisted",
        )
    if registration.status != Registration.Status.REGISTERED:
        raise ServiceError(
            _("%(name)s has withdrawn from this event and cannot be checked in.") % {"name": registration.player.name},
            code="withdrawn",
        )
    if registration.is_checked_in:
        return False
    if registration.waits_for_guardian:
        raise ServiceError(guardian_missing_message(registration), code="guardian")
    # Late places can leave more players registered than places (R9): after check-in reopens, one who did not
    # come on time finds the places taken by those who did.
    taken = Registration.objects.filter(event=event, status=Registration.Status.REGISTERED,
                                        checked_in_at__isnull=False).count()
    if taken >= event.capacity:
        raise ServiceError(
            _("All %(capacity)s places are taken by players already checked in; %(name)s cannot be checked in.")
            % {"capacity": event.capacity, "name": registration.player.name}, code="full")
    registration.checked_in_at = now
    registration.checked_in_by = actor.user
    registration.save(update_fields=["checked_in_at", "checked_in_by"])
    return True


def guardian_missing_message(registration: Registration) -> str:
    return _("The parent or guardian of %(name)s has not agreed yet: they sign the paper consent form at the desk, "
             "then tick that they signed and check in.") % {"name": registration.player.name}


def check_in(*, registration: Registration, actor: Actor, now=None, guardian_signed: bool = False) -> Registration:
    """One tap at the desk. Checking in someone already checked in changes nothing (two desks, one player).
    `guardian_signed`: the desk saw a child's guardian sign the paper consent form (services.guardian); recorded
    with the check-in, in the same transaction."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(registration.event_id)
        registration = lock_registration(registration, "player")
        if guardian_signed and registration.status == Registration.Status.REGISTERED and event.checkin_is_open(now):
            guardian.agree_on_paper(registration, event=event, actor=actor, now=now)
        if admit(event=event, registration=registration, actor=actor, now=now):
            record(actor=actor, action="checkin.in", target=registration, event=event,
                   after={"checked_in": now.isoformat()})
    return registration


def undo_check_in(*, registration: Registration, actor: Actor, now=None) -> Registration:
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(registration.event_id)
        registration = lock_registration(registration, "player")
        if not event.checkin_is_open(now):
            raise ServiceError(_("Check-in is closed; ask the organiser to reopen it first."), code="closed")
        if not registration.is_checked_in:
            return registration
        if registration.number is not None:
            raise ServiceError(
                _("%(name)s already has player number %(number)s, which stays; their check-in cannot be undone.")
                % {"name": registration.player.name, "number": registration.number}, code="numbered")
        before = {"checked_in": registration.checked_in_at.isoformat()}
        registration.checked_in_at = None
        registration.checked_in_by = None
        registration.save(update_fields=["checked_in_at", "checked_in_by"])
        record(actor=actor, action="checkin.undone", target=registration, event=event, before=before)
    return registration


def _attendance(event: Event) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(id, name) of the registered players checked in, and of those not checked in, by name (one query)."""
    rows = (Registration.objects.filter(event=event, status=Registration.Status.REGISTERED)
            .order_by("player__name_key", "id").values_list("id", "player__name", "checked_in_at"))
    checked_in = [(pk, name) for pk, name, at in rows if at is not None]
    missing = [(pk, name) for pk, name, at in rows if at is None]
    return checked_in, missing


def _open_under(event: Event, override: str, now) -> bool:
    """Whether check-in would be open under `override` (the event itself is not changed)."""
    saved = event.checkin_override
    event.checkin_override = override
    try:
        return event.checkin_is_open(now)
    finally:
        event.checkin_override = saved


def checkin_preview(*, event: Event, override: str, now=None, renumber: bool = False) -> Preview:
    """What setting check-in to `override` does now. Closing it (by hand, or by going back to a schedule whose
    time has passed) shuts everyone not checked in out of the event (R9): that asks for a confirmation."""
    now = now or timezone.now()
    open_now, blockers = event.checkin_is_open(now), []
    if override not in Event.CheckinOverride.values:
        blockers.append(Blocker("invalid", _("Unknown check-in setting.")))
        return Preview(title=_("Check-in"), blockers=blockers, needed=False)
    open_after = _open_under(event, override, now)
    if not open_now and open_after and event.numbers_assigned_at:
        return _reopen_preview(event, override, blockers, renumber)
    closing = open_now and not open_after or (
        override == Event.CheckinOverride.CLOSED and event.checkin_override != override)
    if not closing:
        return Preview(title=_("Check-in"), blockers=blockers, needed=False)
    checked_in, missing = _attendance(event)
    lines = [
        ngettext("%(count)s player checked in will play.", "%(count)s players checked in will play.",
                 len(checked_in)) % {"count": len(checked_in)},
        ngettext("%(count)s registered player not checked in will not be able to play.",
                 "%(count)s registered players not checked in will not be able to play.",
                 len(missing)) % {"count": len(missing)},
        _("Late arrivals are refused from now on. Until player numbers are assigned you can reopen check-in."),
    ]
    groups = [Group(_("Not checked in"), [name for _pk, name in missing])] if missing else []
    return Preview(title=_("Close check-in"), lines=lines, groups=groups, blockers=blockers,
                   facts=["checkin", event.pk, override, open_now, open_after, [pk for pk, _n in checked_in],
                          [pk for pk, _n in missing]])


def _reopen_preview(event: Event, override: str, blockers: list[Blocker], renumber: bool) -> Preview:
    """Reopening check-in after numbering (R8.2): allowed until the first round is set up for its draw. By
    default the numbers given stay and players checked in from now are numbered after them once check-in
    closes again; or, the organiser's choice, every number is cleared and everyone is numbered afresh."""
    if event.stages.exists():
        blockers.append(Blocker("numbered", _("The first round is already set up; check-in cannot be reopened.")))
    numbered = Registration.objects.filter(event=event, number__isnull=False).count()
    if renumber:
        lines = [
            ngettext("The %(count)s player number already given is cleared.",
                     "The %(count)s player numbers already given are cleared.", numbered) % {"count": numbered},
            _("When you close check-in again and assign numbers, every checked-in player is numbered again from "
              "1. The first draw waits until then."),
        ]
        return Preview(title=_("Reopen check-in and renumber everyone"), lines=lines, blockers=blockers,
                       facts=["reopen", event.pk, override, numbered, str(event.numbers_assigned_at), "renumber"])
    lines = [
        ngettext("The %(count)s player number already given stays as it is.",
                 "The %(count)s player numbers already given stay as they are.", numbered) % {"count": numbered},
        _("Players checked in from now get the next numbers (from %(next)s on) when you close check-in again "
          "and assign numbers. The first draw waits until then.") % {"next": numbered + 1},
    ]
    return Preview(title=_("Reopen check-in"), lines=lines, blockers=blockers,
                   facts=["reopen", event.pk, override, numbered, str(event.numbers_assigned_at)])


def set_checkin_override(*, event: Event, override: str, actor: Actor, expect: str | None = None,
                         now=None, renumber: bool = False) -> Event:
    """The organiser closes check-in early, reopens it, or returns to the schedule. `expect`: the state of
    `checkin_preview` the organiser confirmed (a closing needs it; see services.confirmation). `renumber`:
    reopening after numbering clears every number given, so all are numbered afresh (R8.2)."""
    if override not in Event.CheckinOverride.values:
        raise ServiceError(_("Unknown check-in setting."), code="invalid")
    with transaction.atomic():
        event = lock_event(event)
        before = event.checkin_override
        if before == override:  # the same tap again (a phone sending twice): nothing to record
            return event
        now = now or timezone.now()
        checkin_preview(event=event, override=override, now=now, renumber=renumber).require(expect)
        reopening = bool(event.numbers_assigned_at) and not event.checkin_is_open(now) and _open_under(
            event, override, now)
        if renumber and not reopening:
            raise ServiceError(_("Renumbering is only possible when reopening check-in after numbers were "
                                 "assigned."), code="renumber")
        event.checkin_override = override
        changed = {"override": override}
        before = {"override": before}
        if reopening:
            # The numbers given stay; numbering is due again, for the newcomers only (assign_numbers).
            before["numbers_assigned_at"] = event.numbers_assigned_at.isoformat()
            event.numbers_assigned_at = changed["numbers_assigned_at"] = None
            if renumber:
                before["numbers"] = _numbered(event)
                changed["numbers_cleared"] = Registration.objects.filter(
                    event=event, number__isnull=False).update(number=None)
        event.save(update_fields=["checkin_override", "numbers_assigned_at"])
        record(actor=actor, action="checkin.override", target=event, event=event, before=before, after=changed)
    return event


def _numbered(event: Event) -> dict[int, int]:
    """Registration id → number of the players already numbered (kept when check-in was reopened)."""
    return dict(Registration.objects.filter(event=event, number__isnull=False).values_list("id", "number"))


def numbering_order(registration_ids: list[int], *, method: str, seed: int | None) -> list[int]:
    """Plain data in, plain data out: the order in which checked-in players get numbers 1, 2, 3 …

    `registration_ids` must be in registration order. At random, the stored seed reproduces the order.
    """
    if method == Event.Numbering.RANDOM:
        shuffled = list(registration_ids)
        random.Random(seed).shuffle(shuffled)
        return shuffled
    return list(registration_ids)


def numbering_blockers(event: Event, *, now=None) -> list[Blocker]:
    """Why the players cannot be numbered now (the event page shows them beside the button)."""
    if event.numbers_assigned_at:
        return [Blocker("numbered", _("Player numbers are already assigned."))]
    if event.checkin_is_open(now or timezone.now()):
        return [Blocker("open", _("Close check-in before assigning player numbers."))]
    return []


def numbering_preview(*, event: Event, method: str | None = None, now=None) -> Preview:
    """What numbering the players does (R8.2): who gets a number, who does not, and that it is done once."""
    method = method or event.numbering
    blockers = numbering_blockers(event, now=now)
    if method not in Event.Numbering.values:
        blockers.append(Blocker("invalid", _("Unknown numbering method.")))
        return Preview(title=_("Assign player numbers"), blockers=blockers)
    checked_in, missing = _attendance(event)
    label = Event.Numbering(method).label
    kept = _numbered(event)
    if kept:
        newcomers = len(checked_in) - len(kept)
        first = max(kept.values()) + 1
        # One number is not a range: Korean and Chinese have one plural form, so one newcomer needs its own
        # sentence ("65번", not "65번부터 65번까지").
        lines = [
            ngettext("%(count)s player keeps the number already given.",
                     "%(count)s players keep the numbers already given.", len(kept)) % {"count": len(kept)},
            _("One newcomer gets number %(first)s (%(method)s).") % {"first": first, "method": label}
            if newcomers == 1 else
            ngettext("%(count)s newcomer gets number %(first)s (%(method)s).",
                     "%(count)s newcomers get numbers %(first)s to %(last)s (%(method)s).", newcomers)
            % {"count": newcomers, "first": first, "last": first + newcomers - 1, "method": label},
        ]
    else:
        lines = [
            _("One checked-in player gets number 1 (%(method)s).") % {"method": label}
            if len(checked_in) == 1 else
            ngettext("%(count)s checked-in player gets number 1 (%(method)s).",
                     "%(count)s checked-in players get numbers 1 to %(count)s (%(method)s).",
                     len(checked_in)) % {"count": len(checked_in), "method": label},
        ]
    lines.append(_("The numbers do not change afterwards. Until the first round is set up, check-in can be "
                   "reopened; newcomers are then numbered after them."))
    if missing:
        lines.append(ngettext("%(count)s registered player did not check in: no number, and cannot play.",
                              "%(count)s registered players did not check in: no number, and cannot play.",
                              len(missing)) % {"count": len(missing)})
    return Preview(title=_("Assign player numbers"), lines=lines, blockers=blockers,
                   groups=[Group(_("Not checked in"), [name for _pk, name in missing])] if missing else [],
                   facts=["numbers", event.pk, method, [pk for pk, _n in checked_in], sorted(kept.items())])


def assign_numbers(*, event: Event, actor: Actor, method: str | None = None, seed: int | None = None, now=None,
                   expect: str | None = None) -> Event:
    """R8.2: once check-in is closed, number the checked-in players (registration order or a seeded draw).
    `expect`: the state of `numbering_preview` the organiser confirmed (services.confirmation)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(event)
        method = method or event.numbering
        numbering_preview(event=event, method=method, now=now).require(expect)
        if method == Event.Numbering.RANDOM and seed is None:
            seed = secrets.randbits(48)
        # After check-in was reopened the numbers given stay: only newcomers are numbered, after them (R8.2).
        after = max(_numbered(event).values(), default=0)
        checked_in = list(
            lock_rows(Registration.objects.filter(event=event, status=Registration.Status.REGISTERED,
                                                  checked_in_at__isnull=False, number__isnull=True))
            .order_by("created_at", "id")
            .values_list("id", flat=True)
        )
        order = numbering_order(checked_in, method=method, seed=seed)
        updates = [Registration(id=reg_id, number=number) for number, reg_id in enumerate(order, start=after + 1)]
        Registration.objects.bulk_update(updates, ["number"], batch_size=500)
        event.numbering = method
        event.numbering_seed = seed if method == Event.Numbering.RANDOM else None
        event.numbers_assigned_at = now
        if event.checkin_override != Event.CheckinOverride.CLOSED:
            event.checkin_override = Event.CheckinOverride.CLOSED
        event.save(update_fields=["numbering", "numbering_seed", "numbers_assigned_at", "checkin_override"])
        record(actor=actor, action="checkin.numbered", target=event, event=event,
               after={"method": method, "seed": seed, "players": len(order), "first": after + 1})
    return event
