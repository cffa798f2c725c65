"""Consent to the festival's collection notice (Korea's PIPA, Hong Kong's PDPO) at every way in: the public
form, a walk-in at the desk, a file import; and a child's parent or guardian.

Festivals of these tests start on 2030-11-02 unless said otherwise, with the default guardian age 14: a player
born in 2016 or later may be younger than 14 on the first day, so needs a guardian.
"""

import datetime as dt
import html
import re

import pytest
import tablib
from django.urls import reverse
from django.utils import timezone, translation

from tests.factories import make_event, make_festival, make_player, make_registration, make_staff, open_event
from tests.tournament.test_festival_forms import festival_data
from tests.tournament.test_imports import confirm, csv_bytes, preview, row_html
from tournament.models import AuditEntry, Event, Player, Registration
from tournament.permissions import DESK
from tournament.services import ServiceError
from tournament.services.audit import Actor
from tournament.services.consent import Consent, needs_guardian
from tournament.services.imports import exporting, importing, reading
from tournament.services.registration import PlayerDetails, register, register_existing_player
from tournament.services.walk_in import walk_in

pytestmark = pytest.mark.django_db

By, How = Registration.ConsentBy, Registration.ConsentHow
ADULT = {"name": "김민준", "contact": "minjun@example.kr", "birth_year": "2000", "affiliation": "", "ranking_id": "",
         "agree": "on", "notice_version": "1"}
GUARDIAN = {"guardian_name": "김엄마", "guardian_contact": "010-9876-5432", "guardian_agrees": "on"}


def twelve_year_old_born(festival) -> str:
    return str(festival.starts_on.year - 12)


def register_url(event):
    return reverse("event-register", kwargs={"festival": event.festival.slug, "event": event.slug})


def text(response) -> str:
    return html.unescape(response.content.decode())


def stored() -> tuple[int, int]:
    return Player.objects.count(), Registration.objects.count()


# --- who is a child ----------------------------------------------------------------------------------------


def test_a_birth_year_that_may_be_under_the_guardian_age_on_the_first_day_needs_a_guardian():
    festival = make_festival(starts_on=dt.date(2026, 5, 1), ends_on=dt.date(2026, 5, 2))
    # Born 2012: 14 on the first day if the birthday has passed, else 13: may be a child, so asked.
    assert needs_guardian(festival, 2012) and needs_guardian(festival, 2014) and needs_guardian(festival, 2026)
    # Born 2011: 15 or 14, never under 14.
    assert not needs_guardian(festival, 2011) and not needs_guardian(festival, 1990)
    assert not needs_guardian(festival, None)  # an erased birth year asks nothing
    festival.guardian_age = 16
    assert needs_guardian(festival, 2010) and not needs_guardian(festival, 2009)


# --- the public form ---------------------------------------------------------------------------------------


def test_the_notice_is_shown_before_the_form_with_an_unticked_agreement(client):
    event = open_event(make_festival(contact="info@busan-festival.kr", retention_days=60))
    page = text(client.get(register_url(event)))
    notice, form = page.index('id="collection-notice"'), page.index('name="agree"')
    assert notice < form
    assert "info@busan-festival.kr" in page and "Until 60 days after the festival's last event" in page
    assert "checked" not in re.search(r'<input type="checkbox" name="agree"[^>]*>', page).group(0)
    assert 'name="notice_version" value="1"' in page
    # Without JavaScript the guardian's fields are simply there, with the note saying when they are needed.
    group = re.search(r'<div id="guardian-fields"[^>]*>', page).group(0)
    assert "hidden" not in group and 'data-guardian-from="2016"' in group
    assert "A player born in 2016 or later may be younger than 14" in page


@pytest.mark.parametrize(("language", "headings"), [
    ("ko", ("개인정보처리자", "수집·이용 목적", "수집 항목", "보유 및 이용 기간", "동의를 거부할 권리", "만 14세 미만")),
    # The PDPO says 改正 (改正資料要求) and 自願提供 for what one may leave out.
    ("zh-hant", ("收集目的", "資料轉移", "查閱及改正資料的權利", "自願提供")),
])
def test_the_default_notice_speaks_each_law_s_language(client, language, headings):
    event = open_event()
    client.cookies["django_language"] = language
    page = text(client.get(register_url(event)))
    for heading in headings:
        assert heading in page


def test_an_adult_agrees_online_and_the_registration_keeps_the_notice_version(client):
    event = open_event()
    before = timezone.now()
    response = client.post(register_url(event), ADULT | GUARDIAN)  # guardian fields of an adult are dropped
    assert response.status_code == 302
    registration = Registration.objects.get()
    assert (registration.consent_notice_version, registration.consent_by, registration.consent_how) == (
        1, By.PLAYER, How.ONLINE)
    assert registration.consented_at >= before
    assert (registration.player.guardian_name, registration.player.guardian_contact) == ("", "")
    entry = AuditEntry.objects.get(action="registration.created")
    assert entry.after["consent"] == {"notice_version": 1, "by": "player", "how": "online"}


def test_without_the_agreement_nothing_is_saved(client):
    response = client.post(register_url(open_event()), {k: v for k, v in ADULT.items() if k != "agree"})
    assert response.status_code == 200
    assert "Without agreement to the collection notice" in text(response)
    assert stored() == (0, 0)


def test_a_twelve_year_old_is_refused_without_a_guardian_and_accepted_with_one(client):
    event = open_event()
    child = ADULT | {"name": "김하늘", "birth_year": twelve_year_old_born(event.festival)}
    response = client.post(register_url(event), child)
    assert response.status_code == 200
    assert "register with a parent's or guardian's consent" in text(response)
    assert set(response.context["form"].errors) >= {"guardian_name", "guardian_contact", "guardian_agrees"}
    assert stored() == (0, 0)
    # The guardian's name and contact without the guardian's own agreement: still refused.
    response = client.post(register_url(event), child | {k: v for k, v in GUARDIAN.items() if k != "guardian_agrees"})
    assert response.status_code == 200 and "guardian_agrees" in response.context["form"].errors
    assert stored() == (0, 0)

    response = client.post(register_url(event), child | GUARDIAN)
    assert response.status_code == 302
    registration = Registration.objects.get()
    assert (registration.player.guardian_name, registration.player.guardian_contact) == ("김엄마", "010-9876-5432")
    assert (registration.consent_by, registration.consent_how, registration.consent_notice_version) == (
        By.GUARDIAN, How.ONLINE, 1)


@pytest.mark.parametrize(("field", "value"), [
    ("birth_year", "abc"), ("birth_year", "1899"), ("birth_year", "30000"), ("birth_year", "-2018"),
    ("birth_year", "2018.5"), ("guardian_contact", "call my mum"), ("guardian_contact", "12"),
    ("guardian_name", "1234"), ("guardian_name", "Kim\u202eLee"), ("guardian_name", "x" * 101),
    ("notice_version", "abc"), ("notice_version", "0"), ("notice_version", "9" * 30),
])
def test_nonsense_is_answered_with_a_message_and_nothing_is_saved(client, field, value):
    event = open_event()
    child = ADULT | GUARDIAN | {"birth_year": twelve_year_old_born(event.festival), field: value}
    response = client.post(register_url(event), child)
    assert response.status_code == 200
    assert response.context["form"].errors
    assert stored() == (0, 0)


def test_an_edit_of_the_notice_raises_its_version_and_is_audited(organiser_client, festival, client):
    url = reverse("manage-festival-edit", kwargs={"festival": festival.slug})
    data = festival_data(name=festival.name, slug=festival.slug, starts_on="2030-11-02")
    response = organiser_client.post(url, data | {"privacy_notice": "Our own notice.\r\nSecond line.",
                                                  "guardian_age": "13", "retention_days": "30"})
    assert response.status_code == 302
    festival.refresh_from_db()
    assert (festival.privacy_notice, festival.privacy_notice_version) == ("Our own notice.\nSecond line.", 2)
    assert (festival.guardian_age, festival.retention_days) == (13, 30)
    entry = AuditEntry.objects.filter(action="festival.updated").latest("id")
    assert entry.before["privacy_notice_version"] == 1 and entry.after["privacy_notice_version"] == 2
    assert entry.after["privacy_notice"] == "Our own notice.\nSecond line."
    # Saving again without a change to the text keeps the version.
    organiser_client.post(url, data | {"privacy_notice": "Our own notice.\nSecond line.", "guardian_age": "13",
                                       "retention_days": "30"})
    festival.refresh_from_db()
    assert festival.privacy_notice_version == 2

    event = open_event(festival)
    page = text(client.get(register_url(event)))
    assert "Our own notice.<br>Second line." in page and 'name="notice_version" value="2"' in page
    # A form read before the edit is asked again, with the new notice; nothing is saved meanwhile.
    response = client.post(register_url(event), ADULT | {"notice_version": "1"})
    assert response.status_code == 200 and "was changed while you were reading it" in text(response)
    assert 'name="notice_version" value="2"' in text(response)
    assert stored() == (0, 0)
    assert client.post(register_url(event), ADULT | {"notice_version": "2"}).status_code == 302
    assert Registration.objects.get().consent_notice_version == 2


@pytest.mark.parametrize(("field", "value"), [
    ("guardian_age", "-1"), ("guardian_age", "abc"), ("guardian_age", "99"), ("retention_days", "-5"),
    ("retention_days", "1e9"), ("privacy_notice", "Bad \x00 text"), ("privacy_notice", "x" * 5001),
])
def test_bad_personal_data_settings_are_refused(organiser_client, festival, field, value):
    url = reverse("manage-festival-edit", kwargs={"festival": festival.slug})
    response = organiser_client.post(url, festival_data(name=festival.name, slug=festival.slug) | {field: value})
    assert response.status_code == 200 and field in response.context["form"].errors
    festival.refresh_from_db()
    assert (festival.guardian_age, festival.retention_days, festival.privacy_notice_version) == (14, 90, 1)


# --- the services ------------------------------------------------------------------------------------------


def test_the_service_refuses_a_child_without_a_guardian_whatever_the_form(festival):
    event = open_event(festival)
    child = PlayerDetails(name="Kid", contact="kid@example.org", birth_year=2018)
    with pytest.raises(ServiceError) as refused:
        register(event=event, details=child, actor=Actor(label="t"), consent=Consent(by=By.PLAYER, how=How.ONLINE))
    assert refused.value.code == "guardian"
    with pytest.raises(ServiceError):  # the guardian said to agree, but nobody named
        register(event=event, details=child, actor=Actor(label="t"), consent=Consent(by=By.GUARDIAN, how=How.ONLINE))
    assert stored() == (0, 0)


def test_entering_another_event_from_the_personal_page_keeps_the_earlier_agreement(festival):
    first, second = open_event(festival), open_event(festival, days_ahead=11)
    details = PlayerDetails(name="Anna", contact="anna@example.org", birth_year=1999)
    registration = register(event=first, details=details, actor=Actor(label="t"),
                            consent=Consent(by=By.PLAYER, how=How.ONLINE, notice_version=1))
    other = register_existing_player(event=second, player=registration.player, actor=Actor(label="t"))
    other.refresh_from_db()
    assert (other.consent_notice_version, other.consented_at, other.consent_how) == (
        1, registration.consented_at, How.ONLINE)


def test_once_the_notice_changed_entering_another_event_asks_for_agreement_again(festival):
    first, second = open_event(festival), open_event(festival, days_ahead=11)
    details = PlayerDetails(name="Anna", contact="anna@example.org", birth_year=1999)
    registration = register(event=first, details=details, actor=Actor(label="t"),
                            consent=Consent(by=By.PLAYER, how=How.ONLINE, notice_version=1))
    festival.privacy_notice_version = 2
    festival.save(update_fields=["privacy_notice_version"])
    audits = AuditEntry.objects.count()
    with pytest.raises(ServiceError) as asked:
        register_existing_player(event=second, player=registration.player, actor=Actor(label="t"))
    assert asked.value.code == "consent_needed"
    assert not Registration.objects.filter(event=second).exists() and AuditEntry.objects.count() == audits
    with pytest.raises(ServiceError) as changed:  # read version 1, while version 2 is the notice now
        register_existing_player(event=second, player=registration.player, actor=Actor(label="t"),
                                 consent=Consent(by=By.PLAYER, how=How.ONLINE, notice_version=1))
    assert changed.value.code == "notice_changed"
    other = register_existing_player(event=second, player=registration.player, actor=Actor(label="t"),
                                     consent=Consent(by=By.PLAYER, how=How.ONLINE, notice_version=2))
    other.refresh_from_db()
    assert (other.consent_notice_version, other.consent_by, other.consent_how) == (2, By.PLAYER, How.ONLINE)
    assert other.consented_at > registration.consented_at


def test_a_child_entering_another_event_needs_the_guardians_agreement_again(festival):
    first, second = open_event(festival), open_event(festival, days_ahead=11)
    child = PlayerDetails(name="Kid", contact="kid@example.org", birth_year=int(twelve_year_old_born(festival)),
                          guardian_name="Parent", guardian_contact="parent@example.org")
    registration = register(event=first, details=child, actor=Actor(label="t"),
                            consent=Consent(by=By.GUARDIAN, how=How.ONLINE))
    festival.privacy_notice_version += 1
    festival.save(update_fields=["privacy_notice_version"])
    with pytest.raises(ServiceError) as refused:
        register_existing_player(event=second, player=registration.player, actor=Actor(label="t"),
                                 consent=Consent(by=By.PLAYER, how=How.ONLINE))
    assert refused.value.code == "guardian"
    other = register_existing_player(event=second, player=registration.player, actor=Actor(label="t"),
                                     consent=Consent(by=By.GUARDIAN, how=How.ONLINE))
    assert other.consent_by == By.GUARDIAN


def test_the_personal_page_shows_the_notice_and_enters_once_the_player_agrees(client, festival):
    first, second = open_event(festival), open_event(festival, name="Pairs", days_ahead=11)
    player = make_player(festival)
    make_registration(first, player)  # before consent was recorded: nothing agreed to yet
    url = reverse("player-enter", kwargs={"token": player.token, "event": second.slug})
    for language, lead in (("ko", "수집"), ("zh-hant", "收集")):
        with translation.override(language):
            asked = client.post(url, HTTP_ACCEPT_LANGUAGE=language)
        assert asked.status_code == 200 and lead in text(asked)
    asked = client.post(url)
    assert 'id="collection-notice"' in text(asked) and 'name="agree"' in text(asked)
    assert "guardian_agrees" not in text(asked)  # an adult agrees for themselves
    assert not Registration.objects.filter(event=second).exists()
    unticked = client.post(url, {"notice_version": str(festival.privacy_notice_version)})
    assert "Without agreement to the collection notice" in text(unticked)
    stale = client.post(url, {"notice_version": "99", "agree": "on"})
    assert "changed while you were reading it" in text(stale)
    for nonsense in ({"notice_version": "x", "agree": "on"}, {"notice_version": "-1", "agree": "on"}):
        assert client.post(url, nonsense).status_code == 200
    assert not Registration.objects.filter(event=second).exists()
    entered = client.post(url, {"notice_version": str(festival.privacy_notice_version), "agree": "on"})
    assert entered.status_code == 302
    registration = Registration.objects.get(event=second, player=player)
    assert (registration.consent_notice_version, registration.consent_by) == (
        festival.privacy_notice_version, By.PLAYER)


def test_a_childs_entry_from_the_personal_page_asks_the_guardian(client, festival):
    second = open_event(festival, days_ahead=11)
    player = make_player(festival, birth_year=int(twelve_year_old_born(festival)), guardian_name="Parent",
                         guardian_contact="parent@example.org")
    url = reverse("player-enter", kwargs={"token": player.token, "event": second.slug})
    assert 'name="guardian_agrees"' in text(client.post(url))
    data = {"notice_version": str(festival.privacy_notice_version), "agree": "on"}
    assert "A parent or guardian must agree" in text(client.post(url, data))
    assert client.post(url, {**data, "guardian_agrees": "on"}).status_code == 302
    assert Registration.objects.get(event=second, player=player).consent_by == By.GUARDIAN


# --- the desk ----------------------------------------------------------------------------------------------


@pytest.fixture
def desk_client(client, event):
    client.force_login(make_staff(event.festival, DESK))
    return client


def walk_in_url(event, name="desk-walk-in"):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug})


@pytest.mark.event_of(checkin_override=Event.CheckinOverride.OPEN)
def test_at_the_desk_a_twelve_year_old_needs_the_guardian_s_paper_form(desk_client, event):
    child = {"name": "이하늘", "contact": "", "birth_year": twelve_year_old_born(event.festival),
             "affiliation": "", "agree": "on"}
    response = desk_client.post(walk_in_url(event), child)
    assert response.status_code == 200 and "register with a parent's or guardian's consent" in text(response)
    assert stored() == (0, 0)
    response = desk_client.post(walk_in_url(event), {k: v for k, v in child.items() if k != "agree"} | GUARDIAN)
    assert response.status_code == 200 and "needs the signed paper consent form" in text(response)
    assert stored() == (0, 0)

    response = desk_client.post(walk_in_url(event), child | GUARDIAN)
    assert response.status_code == 302
    registration = Registration.objects.get()
    assert registration.checked_in_at is not None
    assert (registration.consent_by, registration.consent_how, registration.consent_notice_version) == (
        By.GUARDIAN, How.PAPER, 1)
    assert registration.player.guardian_name == "김엄마"
    # The desk's row says who agreed and how.
    page = text(desk_client.get(walk_in_url(event, "desk") + "?q=이하늘"))
    assert "Consent: a parent or guardian, on a paper form at the desk (notice version 1)" in page
    assert "guardian: 김엄마" in page


@pytest.mark.event_of(checkin_override=Event.CheckinOverride.OPEN)
def test_the_walk_in_service_records_the_paper_form(event, desk):
    registration = walk_in(event=event, details=PlayerDetails(name="A", contact="", birth_year=1980), actor=desk,
                           consent=Consent(by=By.PLAYER, how=How.PAPER))
    registration.refresh_from_db()
    assert (registration.consent_by, registration.consent_how) == (By.PLAYER, How.PAPER)
    assert AuditEntry.objects.get(action="registration.walk_in").after["consent"]["how"] == "paper"


# --- imports -----------------------------------------------------------------------------------------------

HEADER = ["event", "name", "contact", "birth_year", "affiliation", "ranking_id", "guardian_name", "guardian_contact"]


def test_an_import_refuses_a_child_s_row_without_a_guardian_and_needs_the_organiser_s_declaration(
        organiser_client, festival, event):
    kid = twelve_year_old_born(festival)
    rows = [["open", "김하늘", "sky@example.kr", kid, "", "", "", ""],
            ["open", "이바다", "sea@example.kr", kid, "", "", "이엄마", "mum@example.kr"],
            ["open", "박어른", "adult@example.kr", "1990", "", "", "", ""]]
    url, page = preview(organiser_client, festival, csv_bytes(rows, header=HEADER))
    assert "A player younger than 14 needs a parent" in row_html(page, 2)
    assert "A player younger than 14" not in row_html(page, 3)
    # The organiser declares nothing: nothing is imported.
    seen = re.search(r'name="seen" value="([^"]*)"', text(page)).group(1)
    response = organiser_client.post(url, {"action": "valid", "seen": seen})
    assert response.status_code == 200 and "tick the box that says you hold every player's consent" in text(response)
    assert stored() == (0, 0)

    response = confirm(organiser_client, url, action="valid")
    assert response.status_code == 302
    consents = dict(Registration.objects.values_list("player__name", "consent_by"))
    assert consents == {"이바다": By.GUARDIAN, "박어른": By.PLAYER}
    assert set(Registration.objects.values_list("consent_how", "consent_notice_version")) == {(How.IMPORT, 1)}
    assert Player.objects.get(name="이바다").guardian_contact == "mum@example.kr"


def test_the_import_service_refuses_without_the_declaration(festival, event):
    rows = [[2, "open", "A", "a@example.org", "1990", "", "", "", ""]]
    with pytest.raises(importing.ImportRefused) as refused:
        importing.import_registrations(festival=festival, rows=rows, actor=Actor(label="t"), file_name="f.csv",
                                       consent_held=False)
    assert refused.value.code == "consent" and stored() == (0, 0)


def test_rows_kept_before_the_guardian_columns_existed_are_still_read(festival, event):
    rows = [[2, "open", "A", "a@example.org", "1990", "", ""]]  # the earlier seven cells
    result = importing.import_registrations(festival=festival, rows=rows, actor=Actor(label="t"), file_name="f.csv",
                                            consent_held=True)
    assert result.total == 1


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_an_export_with_a_guardian_imports_again_with_the_guardian(festival, event, fmt):
    kid = make_player(festival, name="김하늘", contact="sky@example.kr", birth_year=2018, guardian_name="김엄마",
                      guardian_contact="010-9876-5432")
    make_registration(event, kid)
    content = exporting.export_registrations(festival=festival, fmt=fmt)
    fresh = make_festival(starts_on=festival.starts_on, ends_on=festival.ends_on)
    make_event(fresh, slug="open", name="Open")  # the same short name as the exported event
    with translation.override("ko"):
        parsed = reading.read_registrations_file(name=f"x.{fmt}", content=content)
    importing.import_registrations(festival=fresh, rows=parsed.rows, actor=Actor(label="t"), file_name="x",
                                   consent_held=True)
    again = Player.objects.get(festival=fresh)
    assert (again.guardian_name, again.guardian_contact, again.birth_year) == ("김엄마", "010-9876-5432", 2018)
    assert Registration.objects.get(player=again).consent_by == By.GUARDIAN


def test_korean_guardian_headers_are_understood(organiser_client, festival, event):
    header = ["종목", "이름", "연락처", "출생연도", "보호자 이름", "보호자 연락처"]
    rows = [["open", "김하늘", "sky@example.kr", twelve_year_old_born(festival), "김엄마", "010-9876-5432"]]
    parsed = reading.read_registrations_file(name="k.csv", content=tablib.Dataset(*rows, headers=header)
                                             .export("csv").encode())
    assert parsed.rows[0][-2:] == ["김엄마", "010-9876-5432"]
