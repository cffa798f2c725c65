"""Keeping and erasing personal data: the daily erasure after a festival's retention period, a player's own
download and erasure request (issue: players' personal data; R9 for the under-15 rule kept after erasure)."""

import datetime as dt
import json
import re
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from scoring.my_data import my_data
from scoring.results.event import event_results
from scoring.results.season import season_standings
from scoring.simulation import simulate
from tests.clock import fixed_clock
from tests.factories import make_event, make_festival, make_player, make_registration, make_staff, open_event
from tournament.models import AuditEntry, Festival, PendingImport, Player, Registration
from tournament.services.audit import Actor, record
from tournament.services.erasure import erase_festival, erase_player, erasure_due, festivals_due
from tournament.services.registration import correct_player

pytestmark = pytest.mark.django_db

KID_BORN = 2015  # under 15 in the simulated event's year (today's)


def _results(event):
    return [(row.registration.pk, row.place, row.shared, row.ranking_points, row.under_age, row.wins, row.total)
            for row in event_results(event).rows]


@pytest.fixture
def played():
    """A Busan event of 16 played to the end today, with ranking points; distinctive contacts and birth years
    (the under-15 player on the podium), copies of them in the audit log and in an upload waiting for its
    confirmation, and a guardian. Returns (event, secrets: the strings that must disappear, birth years)."""
    event = simulate("busan", 16, seed=5)
    event.ranking_points = [100, 80, 60, 50, 40, 30, 20, 10]
    event.save(update_fields=["ranking_points"])
    rows = event_results(event).rows
    contacts, years = [], []
    for index, row in enumerate(rows):
        player = row.registration.player
        player.contact = f"erase-me-{index}@example.org" if index % 2 else f"010-7777-{index:04d}"
        player.birth_year = KID_BORN if index == 1 else 1961 + index
        player.save()
        contacts += [player.contact, player.contact_key]
        years.append(player.birth_year)
    kid = rows[1].registration.player
    kid.guardian_name, kid.guardian_contact = "Guardian Gwendolyn", "guardian-gwen@example.org"
    kid.save()
    contacts += [kid.guardian_name, kid.guardian_contact]
    # A correction keeps the birth years before and after in the audit log; a note quotes a contact.
    adult = rows[2].registration
    correct_player(registration=adult, name=adult.player.name, affiliation="", birth_year=1999,
                   actor=Actor(label="test"))
    years.append(1999)
    record(actor=Actor(label="test"), action="registration.withdrawn", target=adult, event=event,
           reason=f"phoned from {rows[0].registration.player.contact}")
    organiser = make_staff(event.festival, "organiser")
    PendingImport.objects.create(key="k" * 20, festival=event.festival, uploaded_by=organiser, file_name="a.csv",
                                 rows=[[2, event.slug, "Someone", "upload-only@example.org", "1988", "", ""]])
    contacts.append("upload-only@example.org")
    years.append(1988)
    return event, contacts, years


def _after_retention(event, days=1):
    return erasure_due(event.festival) + dt.timedelta(days=days)


def _database_cells():
    """Every cell of every table, as text (JSON as its text), with where it is."""
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            names = [column[0] for column in cursor.description]
            for row in cursor.fetchall():
                for name, value in zip(names, row, strict=True):
                    if value is None:
                        continue
                    if isinstance(value, bytes | memoryview):
                        value = bytes(value).decode("utf-8", "replace")
                    yield table, name, value if isinstance(value, str | int) else json.dumps(value, default=str)


def _found(secrets, years):
    """Where any of the contacts (as typed and keyed) or birth years are still held in the database: as an
    integer, or as four digits on their own inside any text or JSON."""
    found = []
    year_text = re.compile(r"(?<!\d)(" + "|".join(str(y) for y in years) + r")(?!\d)")
    for table, column, value in _database_cells():
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            # Row ids and foreign keys are counters: on PostgreSQL (sequences never roll back) they reach 1961.
            if value in years and column != "id" and not column.endswith("_id"):
                found.append((table, column, value))
        elif any(secret in value for secret in secrets) or year_text.search(value):
            found.append((table, column, value[:80]))
    return found


def test_erasure_after_retention_leaves_results_and_no_contact_or_birth_year_anywhere(played, monkeypatch):
    event, secrets, years = played
    festival = event.festival
    before = _results(event)
    assert any(row[4] for row in before) and any(row[3] > 0 for row in before)  # an under-15 and points
    year = timezone.localtime(event.starts_at, festival.tzinfo).year
    season = [(p.key, p.total, p.rank) for p in season_standings(year).people]
    assert _found(secrets, years)  # the check finds what is there
    fixed_clock(monkeypatch, _after_retention(event))
    out = StringIO()
    call_command("erase_expired_personal_data", stdout=out)
    assert f"Erased {festival.slug}" in out.getvalue()

    assert _results(event) == before  # places, shared places, ranking points, the under-15 rule (R9)
    after_season = [(p.total, p.rank) for p in season_standings(year).people]
    assert after_season == [(total, rank) for _key, total, rank in season]
    assert _found(secrets, years) == []
    players = Player.objects.filter(festival=festival)
    assert players.count() == 16 and all(p.name for p in players)
    assert not players.exclude(contact="").exists() and not players.filter(birth_year__isnull=False).exists()
    assert not players.filter(personal_data_erased_at__isnull=True).exists()
    assert not PendingImport.objects.exists()
    festival.refresh_from_db()
    assert festival.personal_data_erased_at == timezone.now()
    entry = AuditEntry.objects.get(action="privacy.erased", festival=festival)
    assert entry.after == {"players": 16, "fields": ["contact", "birth_year", "guardian_name", "guardian_contact"],
                           "audit_entries_scrubbed": 2, "pending_imports_deleted": 1, "typed_contacts_scrubbed": 0}
    # The player's download says the same: nothing left to give.
    kid = Player.objects.get(pk=event_results(event).rows[1].registration.player_id)
    text = json.dumps(my_data(kid), default=str)
    assert not any(secret in text for secret in secrets)
    assert not re.search(r"(?<!\d)(" + "|".join(map(str, years)) + r")(?!\d)", text)
    assert json.loads(text)["registrations"][0]["result"]["under_15_no_points"]


def test_nothing_is_erased_before_the_retention_period_ends(played, monkeypatch):
    event, secrets, years = played
    fixed_clock(monkeypatch, _after_retention(event, days=-1))
    call_command("erase_expired_personal_data", stdout=StringIO())
    assert festivals_due() == []
    assert not Player.objects.filter(festival=event.festival, contact="").exists()
    assert not AuditEntry.objects.filter(action="privacy.erased").exists()
    assert Festival.objects.get(pk=event.festival.pk).personal_data_erased_at is None
    assert not PendingImport.objects.exists()  # an upload expires after 12 hours whatever the festival


def test_the_command_is_idempotent_and_a_dry_run_changes_nothing(played, monkeypatch):
    event, secrets, years = played
    fixed_clock(monkeypatch, _after_retention(event))
    before = _found(secrets, years)
    entries = AuditEntry.objects.count()
    out = StringIO()
    call_command("erase_expired_personal_data", "--dry-run", stdout=out)
    assert f"Would erase {event.festival.slug}" in out.getvalue() and "16 players" in out.getvalue()
    assert _found(secrets, years) == before and AuditEntry.objects.count() == entries
    assert Festival.objects.get(pk=event.festival.pk).personal_data_erased_at is None

    call_command("erase_expired_personal_data", stdout=StringIO())
    erased = AuditEntry.objects.count()
    out = StringIO()
    call_command("erase_expired_personal_data", stdout=out)
    assert "Nothing to erase." in out.getvalue()
    assert AuditEntry.objects.count() == erased


def test_two_erased_players_of_one_name_do_not_collide():
    festival = make_festival(retention_days=0)
    event = make_event(festival)
    a = make_registration(event, make_player(festival, name="Kim Minjun", contact="a@example.org")).player
    b = make_registration(make_event(festival), make_player(festival, name="Kim Minjun", contact="b@example.org")).player
    assert erase_festival(festival=festival, now=_after_retention(event)).players == 2
    a.refresh_from_db(), b.refresh_from_db()
    assert a.contact == b.contact == "" and a.contact_key != b.contact_key
    a.save()  # a later save keeps the erased key
    assert Player.objects.get(pk=a.pk).contact_key == a.contact_key


def test_a_festival_without_events_is_due_after_its_last_day():
    festival = make_festival(retention_days=30)
    make_player(festival)
    due = erasure_due(festival)
    assert timezone.localtime(due, festival.tzinfo).date() == festival.ends_on + dt.timedelta(days=31)


# --- The player's own page -------------------------------------------------------------------------------

def test_the_player_downloads_what_the_app_holds_about_them_without_others(client, played):
    event, _secrets, _years = played
    rows = event_results(event).rows
    kid_registration = rows[1].registration
    kid = kid_registration.player
    Registration.objects.filter(pk=kid_registration.pk).update(consent_notice_version=1, consent_by="guardian",
                                                              consent_how="online")
    response = client.get(reverse("player-data", kwargs={"token": kid.token}))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["player"]["contact"] == kid.contact and data["player"]["birth_year"] == KID_BORN
    assert data["player"]["guardian_contact"] == "guardian-gwen@example.org"
    [registration] = data["registrations"]
    assert registration["consent"]["by"] == "guardian" and registration["consent"]["notice_version"] == 1
    assert registration["result"]["place"] == rows[1].place and registration["result"]["under_15_no_points"]
    assert registration["result"]["ranking_points"] == "0"
    text = response.content.decode().replace(kid.affiliation, "")  # their own (a simulated family's name)
    others = [r.registration.player for r in rows if r.registration.player_id != kid.pk]
    assert not any(p.name in text or p.contact in text for p in others)
    assert not any(f'"{user.username}"' in text for user in User.objects.all())  # staff accounts are not named
    assert client.post(reverse("player-data", kwargs={"token": kid.token})).status_code == 405


def test_erasure_on_request_before_the_event_withdraws_and_erases(client):
    event = open_event(capacity=1)
    player = make_registration(event, make_player(event.festival, contact="before@example.org")).player
    waiting = make_registration(event, status=Registration.Status.WAITLISTED)
    url = reverse("player-erase", kwargs={"token": player.token})
    page = client.get(url)
    assert page.status_code == 200 and event.name in page.content.decode()
    assert Player.objects.get(pk=player.pk).contact == "before@example.org"  # the page alone changes nothing
    response = client.post(url, {"confirm": "on"})
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.contact == "" and player.birth_year is None and player.personal_data_erased_at
    assert not player.hidden_in_results
    assert Registration.objects.get(player=player).status == Registration.Status.WITHDRAWN
    assert Registration.objects.get(pk=waiting.pk).status == Registration.Status.REGISTERED  # the line moved up
    entry = AuditEntry.objects.get(action="privacy.erased_on_request")
    assert entry.after["withdrawn"] == [event.slug] and "before@example.org" not in json.dumps(entry.after)
    assert "before@example.org" not in client.get(player.get_absolute_url()).content.decode()
    # Sent again (a phone on bad Wi-Fi): nothing more happens.
    client.post(url, {"confirm": "on"})
    assert AuditEntry.objects.filter(action="privacy.erased_on_request").count() == 1


def test_erasure_on_request_after_the_event_keeps_results_and_may_hide_the_name(client, played):
    event, _secrets, _years = played
    kid = event_results(event).rows[1].registration.player
    before = _results(event)
    response = client.post(reverse("player-erase", kwargs={"token": kid.token}),
                           {"confirm": "on", "hide_in_results": "on"})
    assert response.status_code == 302
    kid.refresh_from_db()
    assert (kid.contact, kid.birth_year, kid.guardian_name, kid.guardian_contact) == ("", None, "", "")
    assert kid.hidden_in_results
    assert _results(event) == before  # still under 15, still no ranking points (R9)
    assert Registration.objects.get(player=kid).status == Registration.Status.REGISTERED
    others = Player.objects.filter(festival=event.festival).exclude(pk=kid.pk)
    assert not others.filter(contact="").exists() and not others.filter(birth_year__isnull=True).exists()


@pytest.mark.parametrize("data", [{}, {"confirm": ""}, {"confirm": "false", "hide_in_results": "on"},
                                  {"hide_in_results": "\x00"}])
def test_an_unconfirmed_erasure_changes_nothing(client, data):
    event = open_event()
    player = make_registration(event).player
    response = client.post(reverse("player-erase", kwargs={"token": player.token}), data)
    assert response.status_code == 400
    assert "Nothing was changed." in response.content.decode()
    assert Player.objects.get(pk=player.pk).contact == player.contact
    assert not AuditEntry.objects.filter(action="privacy.erased_on_request").exists()


@pytest.mark.parametrize("token", ["x" * 64, "short", "A" * 65])
def test_unknown_tokens_get_not_found(client, token):
    assert client.get(reverse("player-data", kwargs={"token": token})).status_code == 404
    assert client.post(reverse("player-erase", kwargs={"token": token}), {"confirm": "on"}).status_code == 404


def test_the_organiser_sees_how_many_registrations_hold_contacts_and_when_they_go(client):
    festival = make_festival(retention_days=90, timezone="Asia/Seoul")
    event = make_event(festival, start=dt.datetime(2030, 11, 2, 23, 0, tzinfo=dt.UTC), hours=1)  # ends 09:00 KST
    make_registration(event), make_registration(event)
    make_registration(event, make_player(festival, contact="", guardian_contact=""))
    client.force_login(make_staff(festival, "organiser"))
    text = client.get(reverse("manage-festival", kwargs={"festival": festival.slug})).content.decode()
    assert "2 registrations hold contact data." in text
    due = timezone.localtime(erasure_due(festival), festival.tzinfo).date()
    assert due == dt.date(2031, 2, 1)  # 3 Nov in Seoul + 90 days
    assert "Jan. 31, 2031" in text or "2031" in text


def test_erase_player_service_is_one_audited_change():
    event = open_event()
    player = make_registration(event).player
    erasure = erase_player(player=player, hide_in_results=False, actor=Actor(label="player link"))
    assert erasure.withdrawn == [event.slug] and erasure.players == 1
    assert erase_player(player=player, hide_in_results=False, actor=Actor(label="player link")) is None
    assert AuditEntry.objects.filter(action="privacy.erased_on_request").count() == 1


def test_an_erased_event_exports_and_imports_with_the_same_results(played):
    from scoring.exports import event_json
    from scoring.services.import_event import import_event
    from tests.scoring.test_import_event import assert_same_event, export_of

    event, secrets, _years = played
    erase_festival(festival=event.festival, now=_after_retention(event))
    before = export_of(event)
    assert all(p["contact"] == "" and p["birth_year"] is None for p in before["players"])
    assert [p["under_age"] for p in before["players"]].count(True) == 1
    imported = import_event(document=event_json(event), festival_slug="moved", actor=Actor(label="test")).event
    assert_same_event(before, export_of(imported), festival="moved")
    points = [(row.place, row.ranking_points, row.under_age) for row in event_results(imported).rows]
    assert points == [(row.place, row.ranking_points, row.under_age) for row in event_results(event).rows]
    assert Player.objects.filter(festival=imported.festival, personal_data_erased_at__isnull=False).count() == 16


def test_the_registrations_export_and_the_desk_take_an_erased_player(client):
    festival = make_festival(retention_days=0)
    event = make_event(festival)
    registration = make_registration(event, make_player(festival, name="Lee Erased", contact="lee@example.org"))
    erase_festival(festival=festival, now=_after_retention(event))
    client.force_login(make_staff(festival, "organiser"))
    csv = client.get(reverse("manage-export", kwargs={"festival": festival.slug, "fmt": "csv"})).content.decode()
    assert "Lee Erased" in csv and "None" not in csv and "lee@example.org" not in csv
    url = reverse("desk-correct", kwargs={"festival": festival.slug, "event": event.slug,
                                          "registration": registration.pk})
    page = client.get(url)
    assert page.status_code == 200 and 'name="birth_year"' not in page.content.decode()
    assert client.post(url, {"name": "Lee Corrected", "affiliation": ""}).status_code == 302
    player = Player.objects.get(pk=registration.player_id)
    assert player.name == "Lee Corrected" and player.birth_year is None and player.contact == ""


def test_a_name_hidden_on_request_leaves_no_cached_public_page_with_it(client, played):
    event, _secrets, _years = played
    kid = event_results(event).rows[1].registration.player
    standings = reverse("public-standings", kwargs={"festival": event.festival.slug, "event": event.slug})
    first = client.get(standings)
    assert kid.name in first.content.decode()  # now stored per version, and in the worker's copy
    client.post(reverse("player-erase", kwargs={"token": kid.token}), {"confirm": "on", "hide_in_results": "on"})
    again = client.get(standings, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert kid.name not in again.content.decode()
