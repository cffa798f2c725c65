"""A player who did not register arrives at the desk (R9): entered and checked in in one step.

A name is no identity (김민준 is common), and a walk-in often has no contact: a walk-in never silently becomes a
person already stored. When the typed name is the name of stored players of the festival, the desk is shown
them (`walk_in_matches`: what identifies each) and chooses one of them or a new person (`PersonChoice`). The
service refuses a walk-in whose choice was not made against the matches as they are now. The chosen person's
stored details stand: what was typed never overwrites them, and the age rules (a child's guardian, under 15 no
ranking points) follow the person actually entered.
"""

from collections import defaultdict
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Event, Player, Registration
from ..models.registration import contact_key, name_key
from .audit import Actor, record
from .checkin import admit, checkin_closed_message
from .consent import Consent, needs_guardian, ranking_answer
from .errors import ServiceError
from .locking import lock_event, lock_rows
from .registration import PlayerDetails, enter_walk_in, registration_snapshot

# The stored details the desk compares with what was typed, in the order it sees them.
COMPARED = ("birth_year", "affiliation", "contact", "guardian")


@dataclass(frozen=True)
class WalkInMatch:
    """A stored player of the festival with the typed name, and what identifies them to the desk."""

    player: Player
    events: list[str]  # the festival's events they are entered in (a place or the waiting list)
    same_contact: bool  # a contact was typed and it is theirs: likely this person, still to be confirmed
    differences: tuple[str, ...]  # of COMPARED: where the stored details differ from what was typed


@dataclass(frozen=True)
class PersonChoice:
    """The desk's answer: `player_id`, one of the matches it was shown (`seen`, their ids), or None for a new
    person. With no match stored, a new person without anything seen."""

    player_id: int | None
    seen: frozenset[int]


NEW_PERSON = PersonChoice(player_id=None, seen=frozenset())


def _namesakes(event: Event, name: str):
    # A player whose personal data was erased is not offered: nothing is left to recognise them by, and their
    # record stays as it was (a walk-in is then a new person).
    return Player.objects.filter(festival_id=event.festival_id, name_key=name_key(name),
                                 personal_data_erased_at__isnull=True).order_by("id")


def _differences(player: Player, details: PlayerDetails, region: str | None) -> tuple[str, ...]:
    differs = {
        "birth_year": player.birth_year != details.birth_year,
        "affiliation": name_key(player.affiliation) != name_key(details.affiliation),
        "contact": contact_key(player.contact, region) != contact_key(details.contact, region),
        "guardian": (name_key(player.guardian_name), contact_key(player.guardian_contact, region))
        != (name_key(details.guardian_name), contact_key(details.guardian_contact, region)),
    }
    return tuple(field for field in COMPARED if differs[field])


def walk_in_matches(*, event: Event, details: PlayerDetails) -> list[WalkInMatch]:
    """The stored players of the festival with the typed name (normalised as `name_key`), with or without a
    contact; the one with the typed contact first. Read only; two queries."""
    players = list(_namesakes(event, details.name))
    if not players:
        return []
    entered = defaultdict(list)
    rows = (Registration.objects.filter(player__in=players, status__in=Registration.ACTIVE)
            .order_by("event__starts_at", "event__name").values_list("player_id", "event__name"))
    for player_id, event_name in rows:
        entered[player_id].append(event_name)
    # Phone numbers are read in the festival's country, as the stored keys were (010-… is +8210… in Korea).
    region = event.festival.phone_region
    typed = contact_key(details.contact, region)
    matches = [WalkInMatch(player=p, events=entered[p.pk], same_contact=bool(typed) and p.contact_key == typed,
                           differences=_differences(p, details, region)) for p in players]
    return sorted(matches, key=lambda match: not match.same_contact)


def _person(*, event: Event, details: PlayerDetails, choice: PersonChoice) -> tuple[Player, dict]:
    """The person the walk-in is, as the desk chose against the matches stored now; (player, the audit's
    account of the choice). The caller holds the event lock."""
    matches = list(lock_rows(_namesakes(event, details.name)))
    shown = frozenset(player.pk for player in matches)
    if choice.seen != shown:
        if choice.seen:
            raise ServiceError(_("The players stored under this name changed meanwhile: nothing was saved. Check "
                                 "them and choose again."), code="choose")
        raise ServiceError(_("A player named %(name)s is already stored at this festival: choose whether the "
                             "walk-in is that person or a new person.") % {"name": details.name}, code="choose")
    account = {"matches_shown": sorted(shown)}
    if choice.player_id is None:
        player = Player.objects.create(
            festival_id=event.festival_id, name=details.name, contact=details.contact, birth_year=details.birth_year,
            affiliation=details.affiliation, ranking_id=details.ranking_id, guardian_name=details.guardian_name,
            guardian_contact=details.guardian_contact)
        return player, {"match": "new", "player": player.pk} | account
    player = next((match for match in matches if match.pk == choice.player_id), None)
    if player is None:
        raise ServiceError(_("Choose one of the players shown, or a new person."), code="choose")
    account = {"match": "existing", "player": player.pk} | account
    if needs_guardian(event.festival, player.birth_year) and not (player.guardian_name or player.guardian_contact):
        # A child stored before guardians were asked for: the guardian who signed at the desk is added (never
        # one replaced); the other stored details stand.
        player.guardian_name, player.guardian_contact = details.guardian_name, details.guardian_contact
        player.save(update_fields=["guardian_name", "guardian_contact"])
        account["guardian_added"] = True
    return player, account


def walk_in(*, event: Event, details: PlayerDetails, actor: Actor, now=None, consent: Consent | None = None,
            choice: PersonChoice = NEW_PERSON) -> Registration:
    """Enter and check in a walk-in, if the organiser allows walk-ins and check-in is open; beyond the places
    they go on the waiting list, not checked in. `choice`: who the walk-in is (see the module). The clash,
    capacity and consent rules of registering (services.registration) apply to that person: the desk records
    who signed the paper consent form (a child's guardian). One audit entry says whether the walk-in was a
    chosen stored person or a new one."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            event = lock_event(event)
            if not event.walk_ins:
                raise ServiceError(_("The organiser does not allow walk-ins for this event."), code="no_walk_ins")
            if not event.checkin_is_open(now):
                raise ServiceError(checkin_closed_message(event, now), code="closed")
            player, person = _person(event=event, details=details, choice=choice)
            registration, before = enter_walk_in(event=event, player=player, now=now, consent=consent)
            if registration.status == Registration.Status.REGISTERED:
                admit(event=event, registration=registration, actor=actor, now=now)
            record(actor=actor, action="registration.walk_in", target=registration, event=event, before=before,
                   after=registration_snapshot(registration) | {"person": person} | ranking_answer(consent))
            return registration
    except IntegrityError:
        raise ServiceError(_("This registration already exists."), code="duplicate") from None
