"""Registering for an event, withdrawing, and the waiting list (R9)."""

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Case, Count, F, IntegerField, OuterRef, Q, QuerySet, Subquery, When
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from ..models import Event, Festival, Player, Registration
from ..models.registration import name_key
from . import guardian
from .audit import Actor, record
from .consent import Consent, check_consent, ranking_answer, stamp, stamp_ranking
from .consent import carry as carry_consent
from .consent import snapshot as consent_snapshot
from .errors import ServiceError
from .identity import own_players, same_person, stored_person
from .locking import lock_event, lock_player, lock_registration, lock_rows


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


def find_clash(*, player: Player, event: Event, also: Iterable[Player] = ()) -> Event | None:
    """R9: the player's (or `also`'s: other records of the same person) other active registration at the same
    time as `event`, if any."""
    others = Event.objects.filter(
        registrations__player__in=[player, *also],
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


def closed_message(event: Event, now=None) -> str:
    """Why nobody can register now: check-in is over (R9: it closes registration too), or outside its window."""
    if event.checkin_has_closed(now):
        return _("Registration for this event has closed: check-in is over.")
    return _("Registration for this event is not open.")


def _new_player(*, festival, details: PlayerDetails) -> Player:
    return Player.objects.create(
        festival=festival,
        name=details.name,
        contact=details.contact,
        birth_year=details.birth_year,
        affiliation=details.affiliation,
        ranking_id=details.ranking_id,
        guardian_name=details.guardian_name,
        guardian_contact=details.guardian_contact,
    )


def _find_or_create_player(*, festival, details: PlayerDetails) -> tuple[Player, bool]:
    """Staff ways in (an import, a walk-in): the stored person with this name and contact, never changed (details
    that differ are refused, services.identity), else a new player; (player, created)."""
    player = stored_person(festival=festival, details=details)
    if player is not None:
        return player, False
    return _new_player(festival=festival, details=details), True


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
        player = registration.player
        answered = stamp_ranking(player, agrees=consent.ranking, festival=player.festival, now=now)
        if answered:
            player.save(update_fields=answered)
        guardian.on_consent(registration, consent=consent, now=now)  # a child's guardian is asked to agree


def _place(*, event: Event, player: Player, now, also: list[Player] = ()) -> tuple[Registration, dict | None]:
    """Add `player` to `event` (a place or the waiting list); (registration, its state before or None).
    `also`: other records of the same person, whose registrations count too (R9). The event row must be
    locked by the caller, who records the change."""
    clash = find_clash(player=player, event=event, also=also)
    if clash is not None:
        raise ServiceError(clash_message(clash), code="clash")
    registration = Registration.objects.filter(event=event, player=player).first()
    entered = Registration.objects.filter(event=event, player__in=also, status__in=Registration.ACTIVE).exists()
    if entered or (registration is not None and registration.is_active):
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
           version: int | None = None, also: list[Player] = ()) -> Registration:
    registration, before = _place(event=event, player=player, now=now, also=also)
    _record_consent(registration, consent=consent, version=version, now=now)
    record(actor=actor, action=action, target=registration, event=event, before=before,
           after=_snapshot(registration) | ranking_answer(consent))
    return registration


def register(*, event: Event, details: PlayerDetails, actor: Actor, now=None, by_organiser: bool = False,
             consent: Consent | None = None, own_tokens: Collection[str] = ()) -> Registration:
    """A player enters an event: a place while there are places, else the waiting list; refused outside
    registration's window and once check-in has closed (`Event.registration_is_open`).

    Who (services.identity): the public form never matches a stored person. It makes a new player holding
    exactly `details`, so it answers alike whether or not someone with those details exists. `own_tokens`:
    the personal links the caller already holds (the browser's own); a player among them with the same name
    and contact is this person, so a clash or a second entry with their registrations is refused (R9).
    `by_organiser` (the organiser's import; any time, not only while registration is open): the stored person
    with this name and contact is entered, unchanged; details that differ are refused (code "details_differ").
    The returned registration carries `player_is_new`.

    `consent` (services.consent): who agreed to the festival's collection notice and how; a child without a
    guardian's consent is refused. Stored with the notice's version.
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            event = lock_event(event)
            if not by_organiser and not event.registration_is_open(now):
                raise ServiceError(closed_message(event, now), code="closed")
            version = _consent_version(event=event, details=details, consent=consent)
            if by_organiser:
                player, created = _find_or_create_player(festival=event.festival, details=details)
                also = same_person(player)
            else:
                also = own_players(festival=event.festival, name=details.name, contact=details.contact,
                                   tokens=own_tokens)
                player, created = _new_player(festival=event.festival, details=details), True
            registration = _enter(event=event, player=player, actor=actor, now=now, action="registration.created",
                                  consent=consent, version=version, also=also)
            registration.player_is_new = created
            return registration
    except IntegrityError:
        # Two identical requests raced past the checks above; the database kept exactly one.
        raise ServiceError(_("This registration already exists."), code="duplicate") from None


def current_agreement(player: Player, festival: Festival) -> Registration | None:
    """The player's latest registration that agreed to the festival's notice as it is now, if any."""
    return (Registration.objects.filter(player_id=player.pk, consent_notice_version=festival.privacy_notice_version)
            .order_by("-consented_at").first())


def needs_details_again(player: Player) -> bool:
    """Whether the player's contact and birth year must be given again before entering anything: erased (on
    request, or after the retention period), so without them R9's under-15 rule could not be applied."""
    return player.personal_data_erased_at is not None or player.birth_year is None


def _store_details_again(*, player: Player, details: PlayerDetails, actor: Actor, event: Event) -> None:
    """The erased contact, birth year and guardian given again from the player's own page (their name, school
    or club and ranking id were kept). The audit entry names the fields, not their values."""
    player.contact, player.birth_year = details.contact, details.birth_year
    player.guardian_name, player.guardian_contact = details.guardian_name, details.guardian_contact
    player.personal_data_erased_at = None
    fields = ["contact", "birth_year", "guardian_name", "guardian_contact"]
    player.save(update_fields=[*fields, "contact_key", "personal_data_erased_at"])
    record(actor=actor, action="player.details_given_again", target=player, event=event, after={"fields": fields})


def register_existing_player(*, event: Event, player: Player, actor: Actor, now=None,
                             consent: Consent | None = None, details_again: PlayerDetails | None = None
                             ) -> Registration:
    """From the player's own page: enter one more event of the same festival.

    An agreement to the festival's collection notice as it is now covers the new event too: the registration
    keeps it (its time and who gave it). Without one — the notice changed since, or none was ever recorded —
    the player (a child's guardian) agrees again with `consent`, or nothing is entered (code
    "consent_needed"). The same checks as registering apply (services.consent).

    After the player's personal data was erased (`needs_details_again`), the contact, birth year and a child's
    guardian are given again (`details_again`; its name, school or club and ranking id are not used) with a
    fresh agreement, and stored with the entry; without them nothing is entered (code "details_needed")."""
    now = now or timezone.now()
    if player.festival_id != event.festival_id:
        raise ServiceError(_("This event belongs to another festival."), code="other_festival")
    try:
        with transaction.atomic():
            event = lock_event(event)
            if not event.registration_is_open(now):
                raise ServiceError(closed_message(event, now), code="closed")
            festival = Festival.objects.get(pk=event.festival_id)
            player = lock_player(player)
            again = needs_details_again(player)
            earlier = None if again else current_agreement(player, festival)
            given = consent is not None and (details_again is not None or not again)
            version = None
            if earlier is None and given:
                person = details_again if again else player
                version = check_consent(festival=festival, birth_year=person.birth_year,
                                        guardian_name=person.guardian_name,
                                        guardian_contact=person.guardian_contact, consent=consent)
                if again:
                    _store_details_again(player=player, details=details_again, actor=actor, event=event)
            registration = _enter(event=event, player=player, actor=actor, now=now, action="registration.created",
                                  consent=consent if earlier is None and given else None, version=version)
            if earlier is not None:
                guardian.carry(registration, agreed=earlier, now=now)
            if earlier is None and not given:
                # Nothing else stands in the way (a clash, a second entry are refused above): the player gives
                # what is missing first. Raised inside the transaction, so nothing of this entry is kept.
                if again:
                    raise ServiceError(_("Your contact and birth year were erased. To enter this event, give them "
                                         "again and agree to the festival's collection notice."),
                                       code="details_needed")
                raise ServiceError(_("To enter this event, read the festival's collection notice and agree to "
                                     "it."), code="consent_needed")
            if earlier is not None:
                registration.save(update_fields=carry_consent(registration, agreed=earlier))
            return registration
    except IntegrityError:
        raise ServiceError(_("This registration already exists."), code="duplicate") from None


def _promote_from_waiting_list(*, event: Event, actor: Actor, now) -> Registration | None:
    nxt = (
        lock_rows(Registration.objects.filter(event=event, status=Registration.Status.WAITLISTED))
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
        registration = lock_registration(registration)
        if not registration.is_active:
            raise ServiceError(_("This registration is already withdrawn."), code="withdrawn")
        if not by_organiser and not event.withdrawal_is_open(now):
            raise ServiceError(
                _("The withdrawal deadline (%(deadline)s) has passed. Please tell the organiser.")
                % {"deadline": date_format(timezone.localtime(event.withdrawal_deadline), "DATETIME_FORMAT")},
                code="deadline",
            )
        if registration.is_checked_in and not by_organiser:
            raise ServiceError(_("You are already checked in, so you cannot withdraw here: please tell the desk."), code="checked_in")
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


def enter_walk_in(*, event: Event, player: Player, now,
                  consent: Consent | None = None) -> tuple[Registration, dict | None]:
    """The registration half of a walk-in (services.walk_in): `player` is the person the desk chose, or the one
    just made. The clash, capacity and consent rules of `register` apply to that person as stored (a child's
    guardian is theirs, R9). The caller holds the event lock, checks in, and records the one audit entry."""
    version = None
    if consent is not None:
        festival = Festival.objects.get(pk=event.festival_id)  # read inside the transaction: the current notice
        version = check_consent(festival=festival, birth_year=player.birth_year, guardian_name=player.guardian_name,
                                guardian_contact=player.guardian_contact, consent=consent)
    registration, before = _place(event=event, player=player, now=now)
    _record_consent(registration, consent=consent, version=version, now=now)
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
            player = lock_player(registration.player_id)
            before = _identity(player)
            player.name, player.affiliation, player.birth_year = name, affiliation, birth_year
            if _identity(player) == before:
                return player
            # Into another record's name and contact is most likely a slip; without a contact two records of
            # one name are different people (the desk chose so at the walk-in), and a correction may match.
            same = Player.objects.filter(festival_id=player.festival_id, name_key=name_key(name),
                                         contact_key=player.contact_key).exclude(pk=player.pk)
            if player.contact_key and same.exists():
                raise ServiceError(_("Another player with this name and the same contact already exists."),
                                   code="duplicate")
            player.save(update_fields=["name", "name_key", "affiliation", "birth_year"])
            record(actor=actor, action="player.corrected", target=player, event=event, before=before,
                   after=_identity(player))
            return player
    except IntegrityError:
        raise ServiceError(_("Another player with this name and the same contact already exists."),
                           code="duplicate") from None
