"""Erasing players' personal data: a festival's after its retention period, or one player's when they ask.

Erased: the contact (and its identity key), the birth year and a guardian's name and contact, wherever the app
copied them: the players, the values audit entries recorded (a correction keeps before/after birth years),
and uploaded files waiting for the organiser's confirmation. Names, registrations and results stay as the
event's record. R9's "under 15" is stored on each registration first, so results and ranking points do not
change once the birth year is gone. Backups on disk are outside the database: docs/privacy.md.
"""

import datetime as dt
import json
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import CharField, Max, Q, Value
from django.db.models.functions import Cast, Coalesce, Concat
from django.utils import timezone

from ..formats.ranking import is_under_age
from ..models import AuditEntry, ConductRecord, Festival, PendingImport, Player, Registration
from ..models.registration import contact_key, erased_contact_key
from ..typed_contacts import without_contacts
from .audit import SYSTEM, Actor, record
from .imports.pending import KEPT_FOR
from .locking import lock_festival, lock_festival_events, lock_player, lock_rows
from .registration import withdraw

# What is erased on the player, and the keys under which audit entries may have recorded the same values.
PERSONAL_FIELDS = ("contact", "birth_year", "guardian_name", "guardian_contact")
AUDIT_KEYS = frozenset({*PERSONAL_FIELDS, "contact_key"})
ERASED_TEXT = "[erased]"
# Entries about a person, whose values under AUDIT_KEYS are theirs (a festival's "contact" is the organiser's).
PERSONAL_TARGETS = frozenset({"player", "registration"})
# Shorter strings are too likely to occur by chance in other text (a two-letter name inside a word).
MIN_NEEDLE = 3

HOLDS_PERSONAL_DATA = (~Q(contact="") | Q(birth_year__isnull=False) | ~Q(guardian_name="")
                       | ~Q(guardian_contact="") | Q(personal_data_erased_at__isnull=True))
HOLDS_CONTACT = ~Q(player__contact="") | ~Q(player__guardian_contact="")


@dataclass
class Erasure:
    """What one erasure did (or, in a dry run, would do): counts only, never the data."""

    festival: Festival
    players: int = 0
    audit_entries: int = 0
    pending_imports: int = 0
    withdrawn: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {"players": self.players, "fields": list(PERSONAL_FIELDS), "audit_entries_scrubbed": self.audit_entries,
                "pending_imports_deleted": self.pending_imports}


def last_end(festival: Festival) -> dt.datetime:
    """When the festival's last event ended (without events: the end of its last day, in its zone)."""
    ends = getattr(festival, "last_event_end", None)
    if ends is None and not hasattr(festival, "last_event_end"):
        ends = festival.events.aggregate(end=Max("ends_at"))["end"]
    if ends is None:
        ends = dt.datetime.combine(festival.ends_on + dt.timedelta(days=1), dt.time(), tzinfo=festival.tzinfo)
    return ends


def erasure_due(festival: Festival) -> dt.datetime:
    return last_end(festival) + dt.timedelta(days=festival.retention_days)


def festivals_due(*, now=None) -> list[Festival]:
    """Festivals past their retention period that still hold something to erase (a second run finds none)."""
    now = now or timezone.now()
    festivals = Festival.objects.annotate(last_event_end=Max("events__ends_at")).order_by("pk")
    due = [f for f in festivals if erasure_due(f) <= now]
    with_data = set(Player.objects.filter(HOLDS_PERSONAL_DATA, festival__in=due).values_list("festival", flat=True))
    with_files = set(PendingImport.objects.filter(festival__in=due).values_list("festival", flat=True))
    return [f for f in due if f.personal_data_erased_at is None or f.pk in with_data | with_files]


def registrations_holding_contact(festival: Festival) -> int:
    """For the organiser: how many registrations still hold a contact (the player's or a guardian's)."""
    return Registration.objects.filter(HOLDS_CONTACT, event__festival=festival).count()


def erase_festival(*, festival: Festival, actor: Actor = SYSTEM, now=None, dry_run: bool = False) -> Erasure | None:
    """Erase the personal data of every player of a festival past its retention period; one audit record.

    None when there is nothing (left) to erase or the period has not ended. A dry run does everything, counts,
    and rolls back."""
    now = now or timezone.now()
    with transaction.atomic():
        festival = lock_festival(festival)
        lock_festival_events(festival)
        if erasure_due(festival) > now:
            return None
        players = list(lock_rows(Player.objects.filter(HOLDS_PERSONAL_DATA, festival=festival)))
        files = PendingImport.objects.filter(festival=festival)
        if festival.personal_data_erased_at is not None and not players and not files.exists():
            return None
        erasure = Erasure(festival=festival, players=len(players))
        needles = _needles(players)
        erasure.audit_entries = _scrub_audit(_festival_entries(festival), needles,
                                             keys=lambda entry: entry.target_type in PERSONAL_TARGETS)
        erasure.pending_imports = files.delete()[0]
        typed = _scrub_typed_contacts(festival)
        _erase_players(Player.objects.filter(HOLDS_PERSONAL_DATA, festival=festival), now=now)
        festival.personal_data_erased_at = now
        festival.save(update_fields=["personal_data_erased_at"])
        record(actor=actor, action="privacy.erased", target=festival, festival=festival,
               after={**erasure.summary(), "typed_contacts_scrubbed": typed},
               reason=f"retention_days={festival.retention_days}")
        if dry_run:
            transaction.set_rollback(True)
    return erasure


def erase_player(*, player: Player, hide_in_results: bool, actor: Actor, now=None) -> Erasure | None:
    """A player asks from their personal page: their registrations for events that have not started are
    withdrawn (the withdrawal service, so the waiting list moves up); their contact, birth year and guardian's
    details are erased; on request their name is shown as "withdrawn player" in public results. None when
    asked again with nothing left to do."""
    now = now or timezone.now()
    with transaction.atomic():
        lock_festival_events(player.festival_id)
        player = lock_player(player)
        upcoming = [r for r in player.registrations.select_related("event").order_by("event__starts_at", "pk")
                    if r.is_active and r.event.starts_at > now]
        holds = Player.objects.filter(HOLDS_PERSONAL_DATA, pk=player.pk).exists()
        if not holds and not upcoming and (player.hidden_in_results or not hide_in_results):
            return None  # asked again: nothing left to do, nothing recorded
        erasure = Erasure(festival=player.festival, players=1)
        for registration in upcoming:
            # An erasure is honoured after the withdrawal deadline too: no one can be kept registered.
            withdraw(registration=registration, actor=actor, now=now, by_organiser=True,
                     reason="personal data erasure requested")
            erasure.withdrawn.append(registration.event.slug)
        needles = _needles([player])
        own = AuditEntry.objects.filter(Q(target_type="player", target_id=player.pk)
                                        | Q(target_type="registration", target_id__in=player.registrations.values("pk")))
        erasure.audit_entries = _scrub_audit(own, needles, keys=lambda entry: True)
        erasure.audit_entries += _scrub_audit(
            AuditEntry.objects.filter(festival=player.festival).exclude(pk__in=own.values("pk")), needles,
            keys=lambda entry: False)
        erasure.pending_imports = _delete_files_naming(player.festival, needles, _contact_keys(player))
        _erase_players(Player.objects.filter(pk=player.pk), now=now)
        player.refresh_from_db()
        if hide_in_results and not player.hidden_in_results:
            player.hidden_in_results = True
            player.save(update_fields=["hidden_in_results"])
            # Each event's own record moves its public version, so no page cached with the name is served again.
            for registration in player.registrations.select_related("event").order_by("event_id"):
                record(actor=actor, action="player.hidden_in_results", target=player, event=registration.event,
                       after={"hidden_in_results": True})
        record(actor=actor, action="privacy.erased_on_request", target=player, festival=player.festival,
               after={**erasure.summary(), "withdrawn": erasure.withdrawn, "hidden_in_results": player.hidden_in_results})
    return erasure


def delete_expired_files(*, now=None) -> int:
    """Uploads never confirmed nor discarded hold contacts too; the daily run clears the expired ones."""
    now = now or timezone.now()
    return PendingImport.objects.filter(created_at__lt=now - KEPT_FOR).delete()[0]


def _erase_players(players, *, now) -> None:
    """Set-wise updates of the `players` queryset (a few queries however many): R9's answer first, then the
    data."""
    registrations = (Registration.objects.filter(player__in=players, under_age__isnull=True)
                     .select_related("event__festival", "player"))
    young = {True: [], False: []}
    for registration in registrations:
        year = timezone.localtime(registration.event.starts_at, registration.event.festival.tzinfo).year
        young[is_under_age(year, registration.player.birth_year)].append(registration.pk)
    for answer, pks in young.items():
        Registration.objects.filter(pk__in=pks).update(under_age=answer)
    # The name a guardian typed when agreeing, and the link to the guardian's page, go with the guardian.
    Registration.objects.filter(player__in=players).update(guardian_checked_name="", guardian_token_hash="",
                                                             guardian_previous_token_hash="")
    players.update(
        contact="", guardian_name="", guardian_contact="", birth_year=None,
        contact_key=Concat(Value(erased_contact_key("")), Cast("pk", CharField())),
        personal_data_erased_at=Coalesce("personal_data_erased_at", Value(now)),
    )


def _needles(players) -> list[str]:
    """The strings to find in free text: contacts as typed and as keyed (a phone's digits), guardians' names."""
    found = set()
    typed = Registration.objects.filter(player__in=[p.pk for p in players]).exclude(guardian_checked_name="")
    for value in typed.values_list("guardian_checked_name", flat=True):
        if len(value.strip()) >= MIN_NEEDLE:
            found.add(value.strip())
    for player in players:
        for value in (player.contact, player.contact_key, player.guardian_name, player.guardian_contact):
            if len(value.strip()) >= MIN_NEEDLE and not value.startswith("erased:"):
                found.add(value.strip())
    return sorted(found, key=len, reverse=True)


def _festival_entries(festival: Festival):
    players = Player.objects.filter(festival=festival).values("pk")
    return AuditEntry.objects.filter(Q(festival=festival) | Q(event__festival=festival)
                                     | Q(target_type="player", target_id__in=players))


def _scrub_audit(entries, needles: list[str], *, keys) -> int:
    """Blank the personal values audit entries recorded (under the personal keys, where `keys(entry)`; and any
    text holding one of `needles`). Returns how many entries changed; the entries and their other values stay."""
    changed = []
    fields = ("pk", "target_type", "before", "after", "reason")
    for entry in entries.only(*fields).order_by("pk").iterator(chunk_size=500):
        by_key = keys(entry)
        before, after = _scrub(entry.before, needles, by_key), _scrub(entry.after, needles, by_key)
        reason = _scrub(entry.reason, needles, by_key)
        if (before, after, reason) != (entry.before, entry.after, entry.reason):
            entry.before, entry.after, entry.reason = before, after, reason
            changed.append(entry)
    AuditEntry.objects.bulk_update(changed, ["before", "after", "reason"], batch_size=500)
    return len(changed)


def _scrub(value, needles, keys):
    if isinstance(value, dict):
        return {k: (None if keys and k in AUDIT_KEYS and v is not None else _scrub(v, needles, keys))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, needles, keys) for v in value]
    if isinstance(value, str):
        for needle in needles:
            if needle in value:
                value = value.replace(needle, ERASED_TEXT)
        return value
    return value


def _contact_keys(player: Player) -> set[str]:
    """The player's and their guardian's contacts as keyed, to find them however an upload spells them."""
    region = player.festival.phone_region
    keys = {contact_key(value, region) for value in (player.contact, player.guardian_contact) if value}
    return {key for key in keys if len(key) >= MIN_NEEDLE}


def _delete_files_naming(festival: Festival, needles: list[str], keys: set[str]) -> int:
    """Uploads holding one of `needles` as text, or a cell that is one of the contact `keys` spelled another way
    ("010 4444 5555", full-width digits, "+82 10-…")."""
    region = festival.phone_region

    def names(rows) -> bool:
        text = json.dumps(rows, ensure_ascii=False)
        return any(n in text for n in needles) or any(
            contact_key(cell, region) in keys for row in rows for cell in row if isinstance(cell, str))

    pks = [upload.pk for upload in PendingImport.objects.filter(festival=festival).only("pk", "rows")
           if names(upload.rows)]
    return PendingImport.objects.filter(pk__in=pks).delete()[0]


# --- contacts typed into free text, at the end of retention -------------------------------------------------

# Free text staff write about a festival's players, where a contact may have been typed (a parent's number in a
# conduct note): name -> (the festival's rows, the field). scoring adds a score sheet's reason from its
# AppConfig.ready (tournament never imports scoring). tests/tournament/test_retention_fields.py classifies
# every field.
TYPED_TEXT = {
    "conduct note": (lambda festival: ConductRecord.objects.filter(event__festival=festival), "note"),
    "audit reason": (_festival_entries, "reason"),
}


def scrub_typed_text(name: str, rows_of, field_name: str) -> None:
    """Register another free-text field whose typed contacts go at the end of retention."""
    TYPED_TEXT[name] = (rows_of, field_name)


def _scrub_typed_contacts(festival: Festival) -> int:
    """Every e-mail address and phone number typed into the festival's free text replaced by ERASED_TEXT;
    how many rows changed."""
    changed = 0
    for rows_of, name in TYPED_TEXT.values():
        rows = rows_of(festival).exclude(**{name: ""}).only("pk", name)
        scrubbed = []
        for row in rows.order_by("pk").iterator(chunk_size=500):
            text = getattr(row, name)
            setattr(row, name, without_contacts(text, ERASED_TEXT))
            if getattr(row, name) != text:
                scrubbed.append(row)
        rows.model.objects.bulk_update(scrubbed, [name], batch_size=500)
        changed += len(scrubbed)
    return changed
