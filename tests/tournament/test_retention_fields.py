"""What the end of a festival's retention period does to every field that could hold something about a person
(docs/privacy.md): each concrete field of the player, registration, conduct and audit models, and of every
model of tournament and scoring that holds text (found here, not listed by hand), is classified as
"erased", "scrubbed" (contacts typed into it are removed) or "kept, because …". A new field fails the first
test until someone decides; the second holds the app to what the classification says."""

import datetime as dt
import json
from dataclasses import dataclass

import pytest
from django.apps import apps
from django.db import models

from scoring.models import ScoreSheet, SheetAnswer
from scoring.simulation import simulate
from tests.factories import make_staff
from tournament.models import AuditEntry, ConductRecord, PendingImport, Player, Registration
from tournament.services.audit import Actor, record
from tournament.services.erasure import ERASED_TEXT, PERSONAL_FIELDS, erase_festival, erasure_due
from tournament.typed_contacts import without_contacts

pytestmark = pytest.mark.django_db

ERASED, SCRUBBED, KEPT = "erased", "scrubbed", "kept, because "

ROW = KEPT + "it is the row's id or its link to another row, not something said about a person"
WHEN = KEPT + "it says when something happened at the festival, not who someone is"
SETTING = KEPT + "it is an organiser's setting of the festival or event, about no player"
PLAY = KEPT + "it is the event's record of play, which stays (docs/privacy.md: results stay)"
WRITTEN_BY_APP = KEPT + "the app writes it from fixed values (a code, a key, a count, a version), never typed text"
STAFF = KEPT + "it names a staff account, which is outside the players' retention period"
ORGANISERS_TEXT = KEPT + "the organiser writes it for the public about the festival, not about a player"
RECORD = KEPT + "names, schools or clubs, ranking ids and results are the event's record (docs/privacy.md)"
TYPED_CONTACTS = SCRUBBED + ": e-mail addresses and phone numbers typed into it are replaced by [erased]"

CLASSIFICATION = {
    "tournament.Player": {
        "id": ROW, "festival": ROW, "name": RECORD, "affiliation": RECORD, "ranking_id": RECORD,
        "name_key": KEPT + "it is the name, folded to find the same name twice; the name stays",
        "contact": ERASED, "contact_key": ERASED + ": replaced by a key derived from the row's id",
        "birth_year": ERASED + " (the under-15 answer is kept on each registration first)",
        "guardian_name": ERASED, "guardian_contact": ERASED,
        "token": KEPT + "it is a random key of the personal page, derived from nothing personal",
        "shown_masked": KEPT + "it is the player's own choice of how the name shows, which stays with the name",
        "hidden_in_results": KEPT + "it is the player's own choice to hide the name, which stays with the name",
        "results_to_ranking": KEPT + "it is the proof of the separate agreement to give results to a ranking body",
        "results_to_ranking_at": KEPT + "it is the proof of when that agreement was given or withdrawn",
        "personal_data_erased_at": WHEN, "created_at": WHEN,
    },
    "tournament.Registration": {
        "id": ROW, "event": ROW, "player": ROW, "status": PLAY, "number": PLAY, "seed_rank": PLAY,
        "under_age": PLAY, "created_at": WHEN, "queued_at": WHEN, "checked_in_at": WHEN, "withdrawn_at": WHEN,
        "promoted_at": WHEN, "checked_in_by": STAFF,
        "consent_notice_version": KEPT + "it is the proof of consent: which notice, when, by whom, how",
        "consented_at": KEPT + "it is the proof of consent", "consent_by": KEPT + "it is the proof of consent",
        "consent_how": KEPT + "it is the proof of consent",
        "guardian_check": KEPT + "it is the proof that the guardian's agreement was checked, and how",
        "guardian_checked_at": KEPT + "it is the proof that the guardian's agreement was checked",
        "guardian_checked_name": ERASED, "guardian_token_hash": ERASED, "guardian_previous_token_hash": ERASED,
        "guardian_language": WRITTEN_BY_APP, "guardian_link_sent_at": WHEN, "guardian_held_until": WHEN,
    },
    "tournament.ConductRecord": {
        "id": ROW, "event": ROW, "registration": ROW, "stage": ROW, "kind": PLAY, "game": PLAY,
        "note": TYPED_CONTACTS, "created_at": WHEN, "created_by": STAFF,
        "request_key": WRITTEN_BY_APP,
    },
    "tournament.AuditEntry": {
        "id": ROW, "festival": ROW, "event": ROW, "target_id": ROW, "at": WHEN, "actor": STAFF,
        "actor_label": KEPT + "it is 'anonymous', 'system' or a label the code gives, never what someone typed",
        "action": WRITTEN_BY_APP, "target_type": WRITTEN_BY_APP,
        "before": SCRUBBED + ": the personal values recorded about players and registrations are blanked, and "
                  "the erased contacts and guardians' names are replaced wherever quoted; the other values are "
                  "structured values the app recorded (settings, counts, the organiser's public contact)",
        "after": SCRUBBED + ": as `before`",
        "reason": TYPED_CONTACTS + ", and the erased contacts and guardians' names wherever quoted",
    },
    "tournament.StaffInvitation": {
        "id": ROW, "festival": ROW, "account": ROW, "made_by": ROW, "answered_by": ROW,
        "role": WRITTEN_BY_APP, "status": WRITTEN_BY_APP, "token_hash": WRITTEN_BY_APP,
        "identifier": STAFF, "identifier_key": STAFF,
        "made_at": WHEN, "expires_at": WHEN, "answered_at": WHEN,
    },
    "tournament.Festival": {
        "id": ROW, "slug": ORGANISERS_TEXT, "name": ORGANISERS_TEXT, "venue": ORGANISERS_TEXT,
        "contact": KEPT + "it is the organisers' own contact, shown to players on purpose",
        "privacy_notice": ORGANISERS_TEXT, "starts_on": SETTING, "ends_on": SETTING, "languages": SETTING,
        "timezone": SETTING, "guardian_hold_days": SETTING, "privacy_notice_version": SETTING, "guardian_age": SETTING, "retention_days": SETTING,
        "ranking_recipient": ORGANISERS_TEXT, "ranking_recipient_keeps": ORGANISERS_TEXT,
        "personal_data_erased_at": WHEN, "created_at": WHEN,
    },
    "tournament.Event": {
        "id": ROW, "festival": ROW, "slug": ORGANISERS_TEXT, "name": ORGANISERS_TEXT,
        **{name: SETTING for name in (
            "game", "format", "ruleset", "capacity", "starts_at", "ends_at", "registration_opens_at",
            "registration_closes_at", "withdrawal_deadline", "checkin_opens_at", "checkin_closes_at",
            "checkin_override", "numbering", "stage_games", "final_games", "rotation_games", "first_seating",
            "avoid_same_affiliation", "avoid_repeat_opponents", "spread_seeds", "walk_ins", "sheets_by",
            "agreement_minutes", "public_draw",
            "public_standings", "public_scores", "public_names", "public_affiliations", "ranking_points",
            "under_15_no_points", "tiebreaks")},
        "timetable": SETTING + " (slot names the organiser typed: 'Lunch', 'Prize-giving')",
        "numbering_seed": PLAY, "numbers_assigned_at": WHEN, "late_places_opened_at": WHEN,
    },
    "tournament.Stage": {
        "id": ROW, "event": ROW, "number": PLAY, "games": PLAY, "advance": PLAY, "advance_count": PLAY,
        "name": ORGANISERS_TEXT, "closed_at": WHEN,
    },
    "tournament.Draw": {
        "id": ROW, "stage": ROW, "game": PLAY, "status": PLAY, "method": PLAY, "seed": PLAY, "swaps": PLAY,
        "algorithm_version": WRITTEN_BY_APP, "constraints": WRITTEN_BY_APP,
        "violations": PLAY + " (registration ids and the schools or clubs that met)",
        "created_at": WHEN, "released_at": WHEN, "created_by": STAFF,
    },
    "tournament.Lot": {
        "id": ROW, "stage": ROW, "purpose": PLAY, "game": PLAY, "table_number": PLAY,
        "players": PLAY + " (registration ids)", "numbers": PLAY + " (registration ids and numbers)",
        "seed": WRITTEN_BY_APP, "created_at": WHEN, "created_by": STAFF,
    },
    "tournament.PendingImport": {
        name: ERASED + ": the whole upload is deleted (and every upload after 12 hours)"
        for name in ("id", "key", "festival", "uploaded_by", "file_name", "rows", "encoding", "ignored_columns",
                     "skipped_withdrawn", "created_at")
    },
    "scoring.TableLink": {
        "id": ROW, "event": ROW, "table_number": PLAY, "token": WRITTEN_BY_APP, "created_at": WHEN,
        "revoked_at": WHEN, "last_contact_at": WHEN, "seat_codes": WRITTEN_BY_APP,
    },
    "scoring.ScoreSheet": {
        "id": ROW, "stage": ROW, "draw": ROW, "corrects": ROW, "game": PLAY, "table_number": PLAY, "version": PLAY,
        "status": PLAY, "end": PLAY, "warnings": PLAY + " (the codes of the warnings the referee accepted)",
        "idempotency_key": WRITTEN_BY_APP, "submitted_at": WHEN, "decided_at": WHEN, "submitted_by": STAFF,
        "decided_by": STAFF, "submitted_via": STAFF + " (or the table link that sent it)",
        "reason": TYPED_CONTACTS, "entered_by_seat": PLAY,
    },
    "scoring.SheetAnswer": {
        "id": ROW, "sheet": ROW, "registration": ROW, "position": PLAY, "answer": PLAY, "answered_at": WHEN,
        "via": WRITTEN_BY_APP, "idempotency_key": WRITTEN_BY_APP,
        "reason": TYPED_CONTACTS + " (a player's few words disputing a sheet)",
    },
    "scoring.SheetSeat": {
        "id": ROW, "sheet": ROW, "registration": ROW,
        **{name: PLAY for name in ("position", "went_out", "tiles", "rack_value", "jokers", "opened", "could_open",
                                   "conduct_penalty", "penalty", "score", "win")},
    },
    "scoring.WordTurn": {
        "id": ROW, "sheet": ROW,
        **{name: PLAY for name in ("index", "position", "words", "drew", "used_all_tiles", "points")},
    },
}
# Named in the task whether or not they hold text.
ALWAYS = {"tournament.Player", "tournament.Registration", "tournament.ConductRecord", "tournament.AuditEntry"}


def _holds_text(field) -> bool:
    """A field a person's words could end up in: any text or JSON, except a choice among fixed codes."""
    return isinstance(field, models.TextField | models.JSONField) or (
        isinstance(field, models.CharField) and not field.choices)


def models_to_classify() -> dict[str, type]:
    found = {}
    for app in ("tournament", "scoring"):
        for model in apps.get_app_config(app).get_models():
            label = model._meta.label
            if label in ALWAYS or any(_holds_text(field) for field in model._meta.concrete_fields):
                found[label] = model
    return found


def test_every_field_that_could_hold_something_about_a_person_is_classified():
    models_found = models_to_classify()
    assert ALWAYS <= models_found.keys()
    assert models_found.keys() == CLASSIFICATION.keys(), "classify the new model's fields, or drop a removed one"
    missing, stale = [], []
    for label, model in models_found.items():
        fields = {field.name for field in model._meta.concrete_fields}
        missing += [f"{label}.{name}" for name in sorted(fields - CLASSIFICATION[label].keys())]
        stale += [f"{label}.{name}" for name in sorted(CLASSIFICATION[label].keys() - fields)]
    assert not missing, f"say what the retention erasure does with: {', '.join(missing)}"
    assert not stale, f"no such fields any more: {', '.join(stale)}"
    for label, fields in CLASSIFICATION.items():
        for name, what in fields.items():
            assert what.startswith((ERASED, SCRUBBED, KEPT)), (label, name)
            assert not what.startswith(KEPT) or len(what) > len(KEPT) + 10, f"{label}.{name}: kept, because what?"


# --- the app does what the classification says ----------------------------------------------------------

TYPED = ["010-9876-5432", "+852 9123 4567", "9123 4567", "07400 123456", "mum.kim@example.org", "아빠＠example.kr"]
NOT_CONTACTS = ["table 12", "game 3", "14:30", "2030-11-02", "120 points", "round 2 of 3"]


def _note() -> str:
    return ("Left early with a parent (" + ", ".join(TYPED) + ") — " + "; ".join(NOT_CONTACTS) + ".")


@dataclass
class Written:
    event: object
    conduct: ConductRecord
    sheet: ScoreSheet
    registered: list[str]  # the players' own contacts and guardians' names, as registered


@pytest.fixture
def written():
    """A played event whose conduct note, a sheet's reason and the audit log quote contacts typed by staff
    (nobody's registered contact: those are erased by value), and an upload waiting."""
    event = simulate("busan", 8, seed=3)
    festival = event.festival
    registration = event.registrations.first()
    chief = make_staff(festival, "chief referee")
    conduct = ConductRecord.objects.create(event=event, registration=registration, kind=ConductRecord.Kind.WARNING,
                                           note=_note(), created_by=chief)
    record(actor=Actor(user=chief), action="conduct.warning", target=conduct, event=event, reason=_note())
    sheet = ScoreSheet.objects.filter(stage__event=event).first()
    ScoreSheet.objects.filter(pk=sheet.pk).update(reason=_note())
    # A guardian agreed from the e-mailed link: the typed name and the link's hashes go with the guardian.
    Registration.objects.filter(pk=registration.pk).update(
        guardian_checked_name="김보호", guardian_token_hash="a" * 64, guardian_previous_token_hash="b" * 64)
    PendingImport.objects.create(key="p" * 20, festival=festival, uploaded_by=chief, file_name="late.csv",
                                 rows=[[2, event.slug, "Late", "late@example.org", "1990", "", ""]])
    registered = [value for player in Player.objects.filter(festival=festival)
                  for value in (player.contact, player.guardian_name, player.guardian_contact) if value]
    assert registered
    return Written(event, conduct, sheet, registered)


def test_after_retention_erased_fields_are_empty_and_scrubbed_ones_hold_no_contact(written):
    event = written.event
    assert erase_festival(festival=event.festival, now=erasure_due(event.festival) + dt.timedelta(days=1))
    checked = set()
    for label, fields in CLASSIFICATION.items():
        for name, what in fields.items():
            if what.startswith(KEPT):
                continue
            assert label in ROWS_OF, f"{label}.{name}: say here how to find the festival's rows"
            rows = ROWS_OF[label](event.festival)
            if label == "tournament.PendingImport":
                assert not rows.exists()
                continue
            for value in rows.values_list(name, flat=True):
                text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                if what.startswith(ERASED):
                    assert value in ("", None) or (name == "contact_key" and value.startswith("erased:")), (
                        label, name, value)
                    continue
                assert not any(value in text for value in written.registered), (label, name, text)
                if what.startswith(TYPED_CONTACTS):
                    assert not any(contact in text for contact in TYPED), (label, name, text)
                    assert without_contacts(text, ERASED_TEXT) == text, (label, name, text)
            checked.add(f"{label}.{name}")
    assert {"tournament.ConductRecord.note", "scoring.ScoreSheet.reason", "tournament.AuditEntry.reason",
            "tournament.Player.contact"} <= checked
    # Only the contacts went: the rest of what staff wrote stays.
    written.conduct.refresh_from_db()
    written.sheet.refresh_from_db()
    note = written.conduct.note
    assert note.count(ERASED_TEXT) == len(TYPED) and all(words in note for words in NOT_CONTACTS)
    assert AuditEntry.objects.get(action="conduct.warning", target_id=written.conduct.pk).reason == note
    assert written.sheet.reason == note


ROWS_OF = {
    "tournament.Player": lambda festival: Player.objects.filter(festival=festival),
    "tournament.Registration": lambda festival: Registration.objects.filter(event__festival=festival),
    "tournament.ConductRecord": lambda festival: ConductRecord.objects.filter(event__festival=festival),
    "tournament.AuditEntry": lambda festival: AuditEntry.objects.filter(festival=festival),
    "tournament.PendingImport": lambda festival: PendingImport.objects.filter(festival=festival),
    "scoring.ScoreSheet": lambda festival: ScoreSheet.objects.filter(stage__event__festival=festival),
    "scoring.SheetAnswer": lambda festival: SheetAnswer.objects.filter(sheet__stage__event__festival=festival),
}


def test_before_retention_ends_the_notes_are_as_written(written):
    festival = written.event.festival
    assert erase_festival(festival=festival, now=erasure_due(festival) - dt.timedelta(days=1)) is None
    written.conduct.refresh_from_db()
    assert written.conduct.note == _note()


@pytest.mark.parametrize(("text", "expected"), [
    ("call 010-1234-5678 or kim@example.org.", "call [erased] or [erased]."),
    ("HK mobile 9123 4567, landline (02) 123-4567", "HK mobile [erased], landline [erased]"),
    ("０１０-１２３４-５６７８", "[erased]"),
    ("Taipei 0912-345-678", "Taipei [erased]"),
    ("on 2030-11-02 at 14:30, table 12, 120-35, players 1-16, id 12345678", None),
    ("", None),
])
def test_typed_contacts_are_found_and_nothing_else(text, expected):
    assert without_contacts(text, ERASED_TEXT) == (text if expected is None else expected)


def test_every_player_field_classified_erased_is_what_the_command_erases():
    erased = {name for name, what in CLASSIFICATION["tournament.Player"].items() if what.startswith(ERASED)}
    assert erased == {*PERSONAL_FIELDS, "contact_key"}
    assert {field.name for field in Player._meta.concrete_fields} >= erased
