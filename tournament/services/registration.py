"""Registering for an event, withdrawing, and the waiting list (R9)."""

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Case, Count, F, IntegerField, OuterRef, Q, QuerySet, Subquery, When
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from ..models import Event, Festival, Player, Registration
from ..models.registration import contact_key, name_key
from . import guardian
from .audit import Actor, record
from .consent import Consent, check_consent, stamp
from .consent import carry as carry_consent
from .consent import snapshot as consent_snapshot
from .errors import ServiceError
from .locking import lock_event


@dataclass(frozen=True)
class PlayerDetails:
    name: str
    contact: str
    birth_year: int
    affiliation: str = ""
    ranking_id: str = ""
    guardian_name: str = ""
    guardian_contact: str = ""


# Waiting-list order: when the player joined the line (rows written without `queued_at` fall back to the
# registration time, so SQLite and PostgreSQL sort them alike), then the id.
IN_LINE_SINCE = Coalesce(F("queued_at"), F("created_at"))


def with_waiting_position(registrations: QuerySet) -> QuerySet:
    """Annotate `waiting_position` (1 = next to be promoted) on waiting-list registrations; None otherwise.

    One correlated subquery, so a page listing many registrations still costs one query.
    """
    ahead_or_same = (
        Registration.objects.filter(event=OuterRef("event"), status=Registration.Status.WAITLISTED)
        .annotate(line=IN_LINE_SINCE)
        .filter(Q(line__lt=OuterRef("line")) | Q(line=OuterRef("line"), id__lte=OuterRef("id")))
        .order_by()
        .values("event")
        .annotate(n=Count("id"))
        .values("n")
    )
    return registrations.annotate(line=IN_LINE_SINCE).annotate(
        waiting_position=Case(
            When(status=Registration.Status.WAITLISTED, then=Subquery(ahead_or_same)),
            default=None,
            output_field=IntegerField(),
        )
    )


def waiting_position(registration: Registration) -> int | None:
    """Place in the waiting line of a waiting-list registration (1 = next); None for any other status."""
    if registration.status != Registration.Status.WAITLISTED:
        return None
    return with_waiting_position(Registration.objects.filter(pk=registration.pk)).get().waiting_position


def _snapshot(registration: Registration) -> dict:
    snapshot = {
        "status": registration.status,
        "number": registration.number,
        "checked_in": registration.checked_in_at.isoformat() if registration.checked_in_at else None,
    }
    if registration.consent_how:
        snapshot["consent"] = consent_snapshot(registration)
    if registration.guardian_check:
        snapshot["guardian"] = guardian.snapshot(registration)
    return snapshot


def find_clash(*, player: Player, event: Event) -> Event | None:
    """R9: the player's other active registration at the same time as `event`, if any."""
    others = Event.objects.filter(
        registrations__player=player,
        registrations__status__in=Registration.ACTIVE,
        starts_at__lt=event.ends_at,
        ends_at__gt=event.starts_at,
    ).exclude(pk=event.pk)
    return others.first()


def clash_message(other: Event) -> str:
    return _("You are already entered in “%(event)s” (%(start)s–%(end)s), which runs at the same time.") % {
        "event": other.name,
        "start": date_format(timezone.localtime(other.starts_at), "TIME_FORMAT"),
        "end": date_format(timezone.localtime(other.ends_at), "TIME_FORMAT"),
    }


def _find_or_create_player(*, festival, details: PlayerDetails) -> tuple[Player, bool]:
    """The same person (festival + normalised name + normalised contact) is one Player; (player, created)."""
    player = Player.objects.filter(
        festival=festival, name_key=name_key(details.name), contact_key=contact_key(details.contact)
    ).first()
    created = player is None
    if created:
        player = Player.objects.create(
            festival=festival,
            name=details.name,
            contact=details.contact,
            birth_year=details.birth_year,
            affiliation=details.affiliation,
            ranking_id=details.ranking_id,
            guardian_name=details.guardian_name,
            guardian_contact=details.guardian_contact,
        )
    elif details.guardian_name and not (player.guardian_name or player.guardian_contact):
        # A child registered before without a guardian (before notices existed): the guardian is added, never
        # replaced by whoever types the child's name and contact.
        player.guardian_name, player.guardian_contact = details.guardian_name, details.guardian_contact
        player.save(update_fields=["guardian_name", "guardian_contact"])
    return player, created


def _consent_version(*, event: Event, details: PlayerDetails, consent: Consent | None) -> int | None:
    """The notice version to store, after the checks of services.consent; None when no consent is recorded
    (registrations made by code: demo data, archives)."""
    if consent is None:
        return None
    festival = Festival.objects.get(pk=event.festival_id)  # read inside the transaction: the current notice
    return check_consent(festival=festival, birth_year=details.birth_year, guardian_name=details.guardian_name,
                         guardian_contact=details.guardian_contact, consent=consent)


def _record_consent(registration: Registration, *, consent: Consent | None, version: int | None, now) -> None:
    if consent is not None:
        registration.save(update_fields=stamp(registration, consent=consent, version=version, now=now))
        guardian.on_consent(registration, consent=consent, now=now)  # a child's guardian is asked to agree


def _place(*, event: Event, player: Player, now) -> tuple[Registration, dict | None]:
    """Add `player` to `event` (a place or the waiting list); (registration, its state before or None).
    The event row must be locked by the caller, who records the change."""
    clash = find_clash(player=player, event=event)
    if clash is not None:
        raise ServiceError(clash_message(clash), code="clash")
    registration = Registration.objects.filter(event=event, player=player).first()
    if registration is not None and registration.is_active:
        raise ServiceError(_("%(name)s is already registered for this event.") % {"name": player.name}, code="duplicate")
    taken = Registration.objects.filter(event=event, status=Registration.Status.REGISTERED).count()
    status = Registration.Status.REGISTERED if taken < event.capacity else Registration.Status.WAITLISTED
    if registration is None:
        before = None
        registration = Registration.objects.create(event=event, player=player, status=status, queued_at=now)
    else:
        # Withdrawn earlier and back again: the same registration changes state, its history stays in the log.
        before = _snapshot(registration)
        registration.status = status
        registration.queued_at = now
        registration.withdrawn_at = None
        registration.promoted_at = None
        registration.save(update_fields=["status", "queued_at", "withdrawn_at", "promoted_at"])
    return registration, before


def _enter(*, event: Event, player: Player, actor: Actor, now, action: str, consent: Consent | None = None,
           version: int | None = None) -> Registration:
    registration, before = _place(event=event, player=player, now=now)
    _record_consent(registration, consent=consent, version=version, now=now)
    record(actor=actor, action=action, target=registration, event=event, before=before, after=_snapshot(registration))
    return registration


def register(*, event: Event, details: PlayerDetails, actor: Actor, now=None, by_organiser: bool = False,
             consent: Consent | None = None) -> Registration:
    """A player enters an event: a place while there are places, else the waiting list.

    The returned registration carries `player_is_new`: False when the details matched a player who already
    existed. The public form must then not reveal that player's personal link (anyone can type a name and a
    contact), see tournament/views/registration.py.

    `consent` (services.consent): who agreed to the festival's collection notice and how; a child without a
    guardian's consent is refused. Stored with the notice's version.
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            event = lock_event(event)
            if not by_organiser and not event.registration_is_open(now):
                raise ServiceError(_("Registration for this event is not open."), code="closed")
            version = _consent_version(event=event, details=details, consent=consent)
            player, created = _find_or_create_player(festival=event.festival, details=details)
            registration = _enter(event=event, player=player, actor=actor, now=now, action="registration.created",
                                  consent=consent, version=version)
            registration.player_is_new = created
            return registration
    except IntegrityError:
        # Two identical requests raced past the checks above; the database kept exactly one.
        raise ServiceError(_("This registration already exists."), code="duplicate") from None


def current_agreement(player: Player, festival: Festival) -> Registration | None:
    """The player's latest registration that agreed to the festival's notice as it is now, if any."""
    return (Registration.objects.filter(player_id=player.pk, consent_notice_version=festival.privacy_notice_version)
            .order_by("-consented_at").first())


def register_existing_player(*, event: Event, player: Player, actor: Actor, now=None,
                             consent: Consent | None = None) -> Registration:
    """From the player's own page: enter one more event of the same festival.

    An agreement to the festival's collection notice as it is now covers the new event too: the registration
    keeps it (its time and who gave it). Without one — the notice changed since, or none was ever recorded —
    the player (a child's guardian) agrees again with `consent`, or nothing is entered (code
    "consent_needed"). The same checks as registering apply (services.consent)."""
    now = now or timezone.now()
    if player.festival_id != event.festival_id:
        raise ServiceError(_("This event belongs to another festival."), code="other_festival")
    try:
        with transaction.atomic():
            event = lock_event(event)
            if not event.registration_is_open(now):
                raise ServiceError(_("Registration for this event is not open."), code="closed")
            festival = Festival.objects.get(pk=event.festival_id)
            earlier = current_agreement(player, festival)
            version = None
            if earlier is None and consent is not None:
                version = check_consent(festival=festival, birth_year=player.birth_year,
                                        guardian_name=player.guardian_name,
                                        guardian_contact=player.guardian_contact, consent=consent)
            registration = _enter(event=event, player=player, actor=actor, now=now, action="registration.created",
                                  consent=consent if earlier is None else None, version=version)
            if earlier is not None:
                guardian.carry(registration, agreed=earlier, now=now)
            if earlier is None and consent is None:
                # Nothing else stands in the way (a clash, a second entry are refused above): the player agrees
                # first. Raised inside the transaction, so nothing of this entry is kept.
                raise ServiceError(_("To enter this event, read the festival's collection notice and agree to "
                                     "it."), code="consent_needed")
            if earlier is not None:
                registration.save(update_fields=carry_consent(registration, agreed=earlier))
            return registration
    except IntegrityError:
        raise ServiceError(_("This registration already exists."), code="duplicate") from None


def _promote_from_waiting_list(*, event: Event, actor: Actor, now) -> Registration | None:
    nxt = (
        Registration.objects.select_for_update(of=("self",))
        .filter(event=event, status=Registration.Status.WAITLISTED)
        .order_by(IN_LINE_SINCE.asc(), "id")
        .first()
    )
    if nxt is None:
        return None
    before = _snapshot(nxt)
    nxt.status = Registration.Status.REGISTERED
    nxt.promoted_at = now
    nxt.save(update_fields=["status", "promoted_at"])
    guardian.on_promoted(nxt, now=now)  # a child still waiting for the guardian: the place is held from now
    record(actor=actor, action="registration.promoted", target=nxt, event=event, before=before, after=_snapshot(nxt))
    return nxt


def withdraw(*, registration: Registration, actor: Actor, now=None, by_organiser: bool = False, reason: str = "") -> Registration:
    """R9: a player withdraws until the deadline (the organiser at any time); the freed place goes to the
    first on the waiting list until check-in closes. After that a freed place is a late place
    (services.late_places): only a waiting-list player present in the hall can use it."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(registration.event_id)
        registration = Registration.objects.select_for_update(of=("self",)).get(pk=registration.pk)
        if not registration.is_active:
            raise ServiceError(_("This registration is already withdrawn."), code="withdrawn")
        if not by_organiser and not event.withdrawal_is_open(now):
            raise ServiceError(
                _("The withdrawal deadline (%(deadline)s) has passed. Please tell the organiser.")
                % {"deadline": date_format(timezone.localtime(event.withdrawal_deadline), "DATETIME_FORMAT")},
                code="deadline",
            )
        if registration.is_checked_in and not by_organiser:
            raise ServiceError(_("You are already checked in. Please tell the desk."), code="checked_in")
        freed_place = registration.status == Registration.Status.REGISTERED
        before = _snapshot(registration)
        registration.status = Registration.Status.WITHDRAWN
        registration.withdrawn_at = now
        registration.save(update_fields=["status", "withdrawn_at"])
        record(
            actor=actor, action="registration.withdrawn", target=registration, event=event,
            before=before, after=_snapshot(registration), reason=reason,
        )
        if freed_place and not event.checkin_has_closed(now):
            _promote_from_waiting_list(event=event, actor=actor, now=now)
    return registration


def fill_free_places(*, event: Event, actor: Actor, now=None) -> list[Registration]:
    """The organiser added places: the waiting list moves up, in line order, until they are taken.

    For a service that already holds the event's lock (editing the event's capacity)."""
    now = now or timezone.now()
    taken = Registration.objects.filter(event=event, status=Registration.Status.REGISTERED).count()
    promoted = []
    for _place in range(max(event.capacity - taken, 0)):
        registration = _promote_from_waiting_list(event=event, actor=actor, now=now)
        if registration is None:
            break
        promoted.append(registration)
    return promoted


def enter_walk_in(*, event: Event, details: PlayerDetails, now,
                  consent: Consent | None = None) -> tuple[Registration, dict | None]:
    """The registration half of a walk-in (services.checkin.walk_in): the same identity, clash, capacity and
    consent rules as `register`. The caller holds the event lock, checks in, and records the one audit entry."""
    version = _consent_version(event=event, details=details, consent=consent)
    player, created = _find_or_create_player(festival=event.festival, details=details)
    registration, before = _place(event=event, player=player, now=now)
    _record_consent(registration, consent=consent, version=version, now=now)
    registration.player_is_new = created
    return registration, before


def registration_snapshot(registration: Registration) -> dict:
    return _snapshot(registration)


def promote_from_waiting_list(*, event: Event, actor: Actor, now) -> Registration | None:
    """The first in line gets a freed place; for a service holding the event's lock (services.guardian_release)."""
    return _promote_from_waiting_list(event=event, actor=actor, now=now)


def _identity(player: Player) -> dict:
    return {"name": player.name, "affiliation": player.affiliation, "birth_year": player.birth_year}


def correct_player(*, registration: Registration, name: str, affiliation: str, birth_year: int | None,
                   actor: Actor) -> Player:
    """The desk or the organiser fixes a typo in a player's name, school or club, or birth year (the values
    come cleaned by the registration form's rules). The player is one person across the festival's events."""
    try:
        with transaction.atomic():
            event = lock_event(registration.event_id)
            player = Player.objects.select_for_update().get(pk=registration.player_id)
            before = _identity(player)
            player.name, player.affiliation, player.birth_year = name, affiliation, birth_year
            if _identity(player) == before:
                return player
            same = Player.objects.filter(festival_id=player.festival_id, name_key=name_key(name),
                                         contact_key=player.contact_key).exclude(pk=player.pk)
            if same.exists():
                raise ServiceError(_("Another player with this name and the same contact already exists."),
                                   code="duplicate")
            player.save(update_fields=["name", "name_key", "affiliation", "birth_year"])
            record(actor=actor, action="player.corrected", target=player, event=event, before=before,
                   after=_identity(player))
            return player
    except IntegrityError:
        raise ServiceError(_("Another player with this name and the same contact already exists."),
                           code="duplicate") from None
