"""Idempotent building blocks: create what is missing, bring the schedule up to date, touch nothing else.

Registrations are states, never deleted (DESIGN.md); a registration that already exists keeps whatever the
newcomer did to it (checked in, withdrawn …) when the demo is loaded again.
"""

import datetime as dt
from dataclasses import dataclass

from ..models import Player, Registration
from ..models.registration import contact_key, name_key
from ..services.consent import needs_guardian
from .people import Person, guardian_name


def upsert(model, *, lookup: dict, fields: dict, on_create: dict | None = None):
    """Create the row, or bring `fields` up to date (`on_create` only for a new row). Returns (row, wrote)."""
    row = model.objects.filter(**lookup).first()
    if row is None:
        return model.objects.create(**lookup, **fields, **(on_create or {})), True
    changed = [name for name, value in fields.items() if getattr(row, name) != value]
    for name in changed:
        setattr(row, name, fields[name])
    if changed:
        row.save(update_fields=changed)
    return row, bool(changed)


@dataclass(frozen=True)
class Entry:
    """One registration as the demo wants it when it is first created."""

    person: Person
    created_at: dt.datetime
    status: str = Registration.Status.REGISTERED
    withdrawn_at: dt.datetime | None = None
    checked_in_at: dt.datetime | None = None


def _key(person: Person, festival) -> tuple[str, str]:
    return name_key(person.name), contact_key(person.contact, festival.phone_region)


def ensure_players(festival, entries: list[Entry]) -> dict[tuple[str, str], Player]:
    """The festival's players for these entries, keyed like the Player identity (name_key, contact_key)."""
    existing = {(p.name_key, p.contact_key): p for p in Player.objects.filter(festival=festival)}
    year = festival.starts_on.year
    new, first_seen = [], {}
    for entry in sorted(entries, key=lambda e: e.created_at):
        key = _key(entry.person, festival)
        if key in existing or key in first_seen:
            continue
        first_seen[key] = entry.created_at
        person = entry.person
        # A child registers with a guardian (the family's phone is the contact given for both).
        child = needs_guardian(festival, person.birth_year(year))
        # bulk_create skips Player.save(), which is where the identity keys are normally computed.
        new.append(
            Player(
                festival=festival, name=person.name, name_key=key[0], contact=person.contact, contact_key=key[1],
                birth_year=person.birth_year(year), affiliation=person.affiliation, ranking_id=person.ranking_id,
                guardian_name=guardian_name(person) if child else "", guardian_contact=person.contact if child else "",
                # Where the festival names a ranking body, the players with a ranking id agreed to it.
                results_to_ranking=bool(person.ranking_id) if festival.ranking_recipient else None,
                results_to_ranking_at=entry.created_at if festival.ranking_recipient and person.ranking_id else None,
            )
        )
    if not new:
        return existing
    Player.objects.bulk_create(new, batch_size=500)
    players = {(p.name_key, p.contact_key): p for p in Player.objects.filter(festival=festival)}
    # created_at is auto_now_add, so the real sign-up times can only be written after the insert.
    fresh = [players[key] for key in first_seen]
    for player in fresh:
        player.created_at = first_seen[(player.name_key, player.contact_key)]
    Player.objects.bulk_update(fresh, ["created_at"], batch_size=500)
    return players


def ensure_registrations(event, entries: list[Entry], players: dict, *, checked_in_by=None) -> int:
    """Create the missing registrations of `event` in registration order; returns how many were created."""
    taken = set(Registration.objects.filter(event=event).values_list("player_id", flat=True))
    wanted = {}
    for entry in sorted(entries, key=lambda e: e.created_at):
        player = players[_key(entry.person, event.festival)]
        if player.pk not in taken and player.pk not in wanted:
            wanted[player.pk] = entry
    if not wanted:
        return 0
    guardians = dict(Player.objects.filter(pk__in=wanted).values_list("pk", "guardian_name"))
    Registration.objects.bulk_create(
        [
            Registration(
                event=event, player_id=player_id, status=entry.status, queued_at=entry.created_at,
                withdrawn_at=entry.withdrawn_at, checked_in_at=entry.checked_in_at,
                checked_in_by=checked_in_by if entry.checked_in_at else None,
                # Registered online, agreeing to the festival's collection notice (a guardian for a child).
                consent_notice_version=event.festival.privacy_notice_version, consented_at=entry.created_at,
                consent_how=Registration.ConsentHow.ONLINE,
                consent_by=(Registration.ConsentBy.GUARDIAN if guardians[player_id]
                            else Registration.ConsentBy.PLAYER),
            )
            for player_id, entry in wanted.items()
        ],
        batch_size=500,
    )
    # Registration order (waiting list, player numbers) is created_at order: write the real times.
    fresh = list(Registration.objects.filter(event=event, player_id__in=wanted))
    for registration in fresh:
        registration.created_at = wanted[registration.player_id].created_at
    Registration.objects.bulk_update(fresh, ["created_at"], batch_size=500)
    return len(fresh)
