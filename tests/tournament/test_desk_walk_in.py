"""The desk's exceptions of a real morning (R9): walk-ins registered and checked in in one step, a player's
details corrected (desk and organiser), and a lost personal link shown again with its QR code."""

from urllib.parse import unquote

import pytest
from django.urls import reverse

from tests.factories import make_event, make_player, make_registration, make_staff
from tests.tournament.test_festival_forms import edit_data
from tournament.models import AuditEntry, Event, Player, Registration
from tournament.permissions import DESK, REFEREE
from tournament.services import ServiceError
from tournament.services.audit import Actor
from tournament.services.registration import PlayerDetails, correct_player
from tournament.services.walk_in import PersonChoice, walk_in

# The organiser reopened check-in, so it is open whatever the wall clock says (tests run on any day).
pytestmark = pytest.mark.event_of(checkin_override=Event.CheckinOverride.OPEN)

WALK_IN = {"name": "이서연", "affiliation": "해운대고등학교", "birth_year": "2008", "contact": "", "agree": "on"}


def desk_url(event, name, **extra):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **extra})


def counts():
    return Player.objects.count(), Registration.objects.count(), AuditEntry.objects.count()


@pytest.fixture
def desk_user(event):
    return make_staff(event.festival, DESK)


@pytest.fixture
def desk_client(client, desk_user):
    client.force_login(desk_user)
    return client


@pytest.fixture
def reg(event):
    return make_registration(event, make_player(event.festival, name="김민준", affiliation="부산중학교", birth_year=2011))


def details(**fields) -> PlayerDetails:
    values = {"name": "이서연", "contact": "", "birth_year": 2008, "affiliation": "해운대고등학교"}
    return PlayerDetails(**(values | fields))


# --- Walk-ins: the service ------------------------------------------------------------------------------------


def test_a_walk_in_is_registered_and_checked_in_with_one_audit_entry(event, desk_user):
    registration = walk_in(event=event, details=details(), actor=Actor(user=desk_user))
    registration.refresh_from_db()
    assert registration.status == Registration.Status.REGISTERED
    assert registration.checked_in_at is not None and registration.checked_in_by == desk_user
    entry = AuditEntry.objects.get()
    assert entry.action == "registration.walk_in" and entry.before is None
    assert entry.after["status"] == "registered" and entry.after["checked_in"]


@pytest.mark.event_of(checkin_override=Event.CheckinOverride.OPEN, capacity=2)
def test_a_walk_in_beyond_the_places_goes_on_the_waiting_list_not_checked_in(event, desk_user):
    for _ in range(2):
        make_registration(event)
    registration = walk_in(event=event, details=details(), actor=Actor(user=desk_user))
    assert registration.status == Registration.Status.WAITLISTED and registration.checked_in_at is None
    assert AuditEntry.objects.get().after["status"] == "waitlisted"


@pytest.mark.parametrize("change, code", [
    ({"walk_ins": False}, "no_walk_ins"),
    ({"checkin_override": Event.CheckinOverride.CLOSED}, "closed"),
])
def test_a_walk_in_is_refused_when_not_allowed_or_check_in_is_closed_and_nothing_changes(event, desk_user, change,
                                                                                          code):
    Event.objects.filter(pk=event.pk).update(**change)
    before = counts()
    with pytest.raises(ServiceError) as refusal:
        walk_in(event=event, details=details(), actor=Actor(user=desk_user))
    assert refusal.value.code == code
    assert counts() == before


def test_a_walk_in_already_registered_is_refused_and_nothing_changes(event, desk_user):
    first = walk_in(event=event, details=details(), actor=Actor(user=desk_user))
    before = counts()
    # The same name again: not entered until the desk says who it is; that same person is refused a second entry.
    with pytest.raises(ServiceError) as refusal:
        walk_in(event=event, details=details(name="이 서연"), actor=Actor(user=desk_user))
    assert refusal.value.code == "choose"
    with pytest.raises(ServiceError) as refusal:
        walk_in(event=event, details=details(name="이 서연"), actor=Actor(user=desk_user),
                choice=PersonChoice(player_id=first.player_id, seen=frozenset({first.player_id})))
    assert refusal.value.code == "duplicate"
    assert counts() == before


# --- Walk-ins: the desk pages -----------------------------------------------------------------------------------


def test_the_desk_registers_a_walk_in_and_shows_their_personal_link(desk_client, event):
    assert "Walk-in: register and check in" in desk_client.get(desk_url(event, "desk")).content.decode()
    response = desk_client.post(desk_url(event, "desk-walk-in"), WALK_IN)
    registration = Registration.objects.get(player__name="이서연")
    assert response.status_code == 302
    assert response["Location"] == desk_url(event, "desk-link", registration=registration.pk)
    assert registration.checked_in_at is not None and registration.player.contact == ""
    html = desk_client.get(response["Location"]).content.decode()
    assert "is registered and checked in" in html
    assert "<svg" in html and registration.player.token in html


@pytest.mark.parametrize("field, value", [
    ("name", "   "), ("name", "1234"), ("name", "Kim\u202eMin"), ("birth_year", "1800"), ("birth_year", "abc"),
    ("birth_year", "3000"), ("contact", "not a contact"), ("affiliation", "x" * 300),
])
def test_bad_walk_in_input_is_shown_at_its_field_and_nothing_changes(desk_client, event, field, value):
    before = counts()
    response = desk_client.post(desk_url(event, "desk-walk-in"), WALK_IN | {field: value})
    assert response.status_code == 200 and response.context["form"].errors[field]
    assert counts() == before


def test_walk_ins_not_allowed_hide_the_button_and_refuse_the_post(desk_client, event):
    Event.objects.filter(pk=event.pk).update(walk_ins=False)
    assert "Walk-in: register and check in" not in desk_client.get(desk_url(event, "desk")).content.decode()
    assert "does not allow walk-ins" in desk_client.get(desk_url(event, "desk-walk-in")).content.decode()
    before = counts()
    response = desk_client.post(desk_url(event, "desk-walk-in"), WALK_IN)
    assert response.status_code == 200 and "does not allow walk-ins" in response.content.decode()
    assert counts() == before


def test_the_organiser_switches_walk_ins_off_in_the_event_form(client, event):
    from tournament.permissions import ORGANISER

    client.force_login(make_staff(event.festival, ORGANISER))
    assert Event._meta.get_field("walk_ins").default is True
    response = client.post(desk_url(event, "manage-event-edit"), edit_data(event, walk_ins=""))
    assert response.status_code == 302
    event.refresh_from_db()
    assert event.walk_ins is False
    assert AuditEntry.objects.get(action="event.updated").after == {"walk_ins": False}


# --- Permissions: only the desk and the organiser; refused requests change nothing ---------------------------


@pytest.mark.parametrize("name, method", [("desk-walk-in", "get"), ("desk-walk-in", "post"), ("desk-link", "get"),
                                          ("desk-correct", "get"), ("desk-correct", "post")])
def test_referees_and_strangers_are_refused_and_nothing_changes(client, event, reg, name, method):
    kwargs = {} if name == "desk-walk-in" else {"registration": reg.pk}
    url = desk_url(event, name, **kwargs)
    data = WALK_IN if name == "desk-walk-in" else {"name": "Changed", "birth_year": "2000", "affiliation": ""}
    before = counts()
    response = getattr(client, method)(url, data if method == "post" else None)
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    client.force_login(make_staff(event.festival, REFEREE))
    assert getattr(client, method)(url, data if method == "post" else None).status_code == 403
    other = make_event()
    client.force_login(make_staff(other.festival, DESK))
    assert getattr(client, method)(url, data if method == "post" else None).status_code == 403
    assert counts() == before
    assert Player.objects.get(pk=reg.player_id).name == "김민준"


def test_a_registration_of_another_event_is_not_found(desk_client, event):
    other = make_registration(make_event(event.festival, slug="other", name="Other"))
    for name in ("desk-link", "desk-correct"):
        assert desk_client.get(desk_url(event, name, registration=other.pk)).status_code == 404


# --- Lost link -----------------------------------------------------------------------------------------------


def test_the_desk_finds_a_player_and_shows_their_qr_and_link(desk_client, event, reg):
    html = desk_client.get(desk_url(event, "desk"), {"q": "민준"}).content.decode()
    link_url = desk_url(event, "desk-link", registration=reg.pk)
    assert link_url in html
    response = desk_client.get(link_url)
    html = response.content.decode()
    assert response.status_code == 200 and response["Cache-Control"].startswith("max-age=0")
    assert f"http://testserver/p/{reg.player.token}/" in html and "<svg" in html
    assert "김민준" in html


# --- Corrections -----------------------------------------------------------------------------------------------


def test_correct_player_is_audited_before_and_after(event, reg, desk_user):
    player = correct_player(registration=reg, name="김민중", affiliation="부산중", birth_year=2012,
                            actor=Actor(user=desk_user))
    assert (player.name, player.name_key, player.affiliation, player.birth_year) == ("김민중", "김민중", "부산중", 2012)
    entry = AuditEntry.objects.get()
    assert entry.action == "player.corrected" and entry.event == event
    assert entry.before == {"name": "김민준", "affiliation": "부산중학교", "birth_year": 2011}
    assert entry.after == {"name": "김민중", "affiliation": "부산중", "birth_year": 2012}
    # The same values again: nothing to record.
    correct_player(registration=reg, name="김민중", affiliation="부산중", birth_year=2012, actor=Actor(user=desk_user))
    assert AuditEntry.objects.count() == 1


def test_a_correction_into_another_players_identity_is_refused(event, reg, desk_user):
    other = make_player(event.festival, name="박지훈", contact=reg.player.contact)
    before = counts()
    with pytest.raises(ServiceError) as refusal:
        correct_player(registration=reg, name="박 지훈", affiliation="", birth_year=2011, actor=Actor(user=desk_user))
    assert refusal.value.code == "duplicate" and counts() == before
    assert Player.objects.get(pk=reg.player_id).name == "김민준" and other.name == "박지훈"


def test_the_desk_corrects_a_name_from_the_players_row(desk_client, event, reg):
    url = desk_url(event, "desk-correct", registration=reg.pk)
    html = desk_client.get(desk_url(event, "desk"), {"q": "민준"}).content.decode()
    assert url in html
    form = desk_client.get(url).context["form"]
    assert form.initial == {"name": "김민준", "affiliation": "부산중학교", "birth_year": 2011}
    response = desk_client.post(url, {"name": "  김민중 ", "affiliation": "부산중학교", "birth_year": "2011"})
    # Back to the desk's search for the new name (the old one would find nobody).
    assert response.status_code == 302 and unquote(response["Location"]) == desk_url(event, "desk") + "?q=김민중"
    assert Player.objects.get(pk=reg.player_id).name == "김민중"
    assert "are corrected" in desk_client.get(response["Location"]).content.decode()


def test_the_organiser_corrects_from_the_registrations_list_and_returns_there(organiser_client, event, reg):
    manage_url = desk_url(event, "manage-event")
    html = organiser_client.get(manage_url).content.decode()
    assert desk_url(event, "desk-correct", registration=reg.pk) in html
    response = organiser_client.post(desk_url(event, "desk-correct", registration=reg.pk),
                                     {"name": "김민준", "affiliation": "", "birth_year": "2010",
                                      "next": manage_url + "#registrations"})
    assert response["Location"] == manage_url + "#registrations"
    player = Player.objects.get(pk=reg.player_id)
    assert (player.affiliation, player.birth_year) == ("", 2010)


@pytest.mark.parametrize("field, value", [
    ("name", ""), ("name", "!!!"), ("name", "a\nb"), ("birth_year", "1899"), ("birth_year", ""),
    ("affiliation", "x" * 300),
])
def test_bad_corrections_are_shown_at_their_field_and_nothing_changes(desk_client, event, reg, field, value):
    before = counts()
    data = {"name": "김민중", "affiliation": "", "birth_year": "2011"} | {field: value}
    response = desk_client.post(desk_url(event, "desk-correct", registration=reg.pk), data)
    assert response.status_code == 200 and response.context["form"].errors[field]
    assert counts() == before and Player.objects.get(pk=reg.player_id).name == "김민준"


@pytest.mark.parametrize("next_url", ["https://evil.example/", "//evil.example/", "manage-event", "javascript:x"])
def test_a_correction_never_redirects_off_the_site(desk_client, event, reg, next_url):
    response = desk_client.post(desk_url(event, "desk-correct", registration=reg.pk),
                                {"name": "김민중", "affiliation": "", "birth_year": "2011", "next": next_url})
    assert response.status_code == 302 and response["Location"].startswith(desk_url(event, "desk"))


# --- Query counts ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [3, 150])
def test_the_new_desk_pages_use_a_constant_number_of_queries(desk_client, event, reg, size,
                                                             django_assert_max_num_queries):
    for n in range(size):
        make_registration(event, make_player(event.festival, name=f"선수 {n}"))
    with django_assert_max_num_queries(7):
        desk_client.get(desk_url(event, "desk"), {"q": "선수"})
    for name in ("desk-link", "desk-correct"):
        with django_assert_max_num_queries(7):
            desk_client.get(desk_url(event, name, registration=reg.pk))
    with django_assert_max_num_queries(6):
        desk_client.get(desk_url(event, "desk-walk-in"))


def test_a_correction_into_a_namesake_without_a_contact_is_allowed(event, desk_user):
    """Two walk-ins without a contact share a name only: the desk recorded them as different people."""
    make_player(event.festival, name="김민준", contact="")
    typo = make_registration(event, make_player(event.festival, name="김민쥰", contact=""))
    player = correct_player(registration=typo, name="김민준", affiliation="", birth_year=2012,
                            actor=Actor(user=desk_user))
    assert player.name == "김민준"
