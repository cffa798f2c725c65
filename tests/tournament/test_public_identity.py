"""Which stored person a form means (R9): the public form never matches one — it makes a new player holding
what was typed and answers alike whether or not someone with those details exists; staff ways in (the
organiser's import, the desk's walk-in) match by name and contact but never change the stored person; the
organiser's list and the desk's search show possible duplicates."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import make_festival, make_player, make_registration, make_staff, open_event
from tournament.models import Player, Registration
from tournament.permissions import DESK, ORGANISER
from tournament.services.audit import Actor
from tournament.services.consent import Consent
from tournament.services.registration import PlayerDetails
from tournament.services.walk_in import PersonChoice, walk_in
from tournament.views.registration import PLAYER_TOKENS_SESSION_KEY

pytestmark = pytest.mark.django_db

ADULT = {"name": "김민준", "contact": "010-4444-5555", "birth_year": "1990", "affiliation": "", "ranking_id": "",
         "agree": "on", "notice_version": "1"}
# What a stranger types to pass the adult off as a child with a made-up guardian.
AS_CHILD = {**ADULT, "contact": "+82 10 4444 5555", "birth_year": "2020", "guardian_name": "Made Up",
            "guardian_contact": "made-up@example.org", "guardian_agrees": "on"}


def register_url(event):
    return reverse("event-register", kwargs={"festival": event.festival.slug, "event": event.slug})


def answer(client, event, data) -> tuple[int, str, list[str]]:
    """What the public form answers, with the personal link made neutral: status, the page it leads to, its
    messages."""
    response = client.post(register_url(event), data)
    new = Player.objects.order_by("-pk").first()
    location = response.get("Location", "").replace(new.token, "<new>") if new else ""
    page = client.get(response["Location"]) if response.status_code == 302 else response
    messages = [str(m) for m in page.context["messages"]] if page.context else []
    return response.status_code, location, messages


@pytest.fixture
def adult():
    """An adult registered for a morning event; two more events, one at the same time, one the next day."""
    festival = make_festival()
    morning = open_event(festival, name="Morning open")
    player = make_player(festival, name="김민준", contact="010-4444-5555", birth_year=1990)
    make_registration(morning, player)
    return {"festival": festival, "player": player, "morning": morning,
            "same_time": open_event(festival, name="Same time cup"),
            "next_day": open_event(festival, name="Next day cup", days_ahead=11)}


def test_typing_someone_s_details_never_changes_them_nor_enters_them(client, adult):
    player = adult["player"]
    before = Player.objects.filter(pk=player.pk).values().get()

    for event in (adult["next_day"], adult["same_time"], adult["morning"]):
        client.logout()  # each from another browser: one browser's own entries at the same time clash (R9)
        response = client.post(register_url(event), AS_CHILD)
        assert response.status_code == 302

    assert Player.objects.filter(pk=player.pk).values().get() == before  # no guardian, no other birth year
    assert list(player.registrations.values_list("event", flat=True)) == [adult["morning"].pk]
    made = Player.objects.exclude(pk=player.pk)
    assert made.count() == 3
    assert {(p.birth_year, p.guardian_name, p.contact) for p in made} == {(2020, "Made Up", "+82 10 4444 5555")}
    assert not any(player.token in token for token in client.session.get(PLAYER_TOKENS_SESSION_KEY, []))


@pytest.mark.parametrize("where", ["next_day", "same_time", "morning"])
def test_the_answer_is_the_same_whether_or_not_the_person_exists(client, adult, where):
    festival = adult["festival"]
    nobody = {**ADULT, "name": "Nobody Here", "contact": "nobody@example.org"}

    existing = answer(client, adult[where], ADULT)
    client.logout()  # another browser
    absent = answer(client, adult[where], nobody)

    assert existing == absent == (302, "/p/<new>/", ["You are registered."])
    assert Player.objects.filter(festival=festival, name="김민준").count() == 2


def test_the_form_tells_someone_registered_before_to_use_their_personal_page(client, adult):
    page = client.get(register_url(adult["next_day"])).content.decode()
    assert "Already registered at this festival?" in page and "personal page" in page


def test_this_browser_holding_the_link_is_still_refused_a_clash_and_a_second_entry(client, adult):
    client.get(adult["player"].get_absolute_url())  # the browser has opened this person's page

    clash = client.post(register_url(adult["same_time"]), AS_CHILD)
    twice = client.post(register_url(adult["morning"]), ADULT)

    assert "Morning open" in " ".join(clash.context["form"].non_field_errors())
    assert "already registered" in " ".join(twice.context["form"].non_field_errors())
    assert Player.objects.count() == 1 and Registration.objects.count() == 1


def _duplicate_notes(html: str) -> list[str]:
    return [" ".join(note.split()) for note in re.findall(r"data-possible-duplicate[^>]*>(.*?)</", html, re.S)]


def test_the_organiser_and_the_desk_see_a_possible_duplicate_with_its_events(client, adult):
    festival, player, morning = adult["festival"], adult["player"], adult["morning"]
    client.post(register_url(adult["same_time"]), {**ADULT, "contact": "+82 10 4444 5555"})
    copy = Player.objects.exclude(pk=player.pk).get()

    client.force_login(make_staff(festival, ORGANISER))
    listed = client.get(reverse("manage-event", kwargs={"festival": festival.slug, "event": morning.slug}))
    notes = _duplicate_notes(listed.content.decode())
    assert len(notes) == 1 and f"player #{copy.pk}" in notes[0] and "Same time cup" in notes[0]
    assert "at the same time" in notes[0]

    client.force_login(make_staff(festival, DESK))
    found = client.get(reverse("desk-search", kwargs={"festival": festival.slug, "event": adult["same_time"].slug}),
                       {"q": "민준"}, HTTP_HX_REQUEST="true")
    notes = _duplicate_notes(found.content.decode())
    assert any(f"player #{player.pk}" in note and "Morning open" in note for note in notes)


def test_the_organiser_s_list_costs_the_same_queries_with_one_or_many_duplicates(client, adult):
    festival, morning = adult["festival"], adult["morning"]
    client.force_login(make_staff(festival, ORGANISER))
    url = reverse("manage-event", kwargs={"festival": festival.slug, "event": morning.slug})

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    make_registration(adult["next_day"], make_player(festival, name="김민준", contact="01044445555"))
    one = queries()
    for n in range(4):
        make_registration(morning, make_player(festival, name=f"Twin {n}", contact=f"t{n}@example.org"))
        make_registration(adult["next_day"], make_player(festival, name=f"Twin {n}", contact=f"T{n}@example.org"))
    assert queries() == one


# --- staff ways in: they match, and never change the stored person --------------------------------------


def test_a_walk_in_the_desk_says_is_the_stored_person_enters_them_unchanged(adult):
    """The desk chooses the stored person (services.walk_in): the typed details never change them."""
    player, event = adult["player"], adult["next_day"]
    desk = Actor(user=make_staff(adult["festival"], DESK))
    event.walk_ins = True
    event.checkin_override = event.CheckinOverride.OPEN
    event.save()
    made_up = PlayerDetails(name="김 민준", contact="+82 10 4444 5555", birth_year=2020, guardian_name="Made Up",
                            guardian_contact="made-up@example.org")
    registration = walk_in(event=event, details=made_up, actor=desk, consent=Consent(by="guardian", how="paper"),
                           choice=PersonChoice(player_id=player.pk, seen=frozenset({player.pk})))
    assert registration.player_id == player.pk
    player.refresh_from_db()
    assert (player.birth_year, player.guardian_name, player.guardian_contact) == (1990, "", "")


def test_an_import_enters_the_stored_person_and_refuses_a_row_that_would_change_them(client, adult):
    festival, player = adult["festival"], adult["player"]
    later = open_event(festival, name="Later cup", days_ahead=13)
    client.force_login(make_staff(festival, ORGANISER))
    header = "event,name,contact,birth_year,affiliation,ranking_id\n"
    rows = (f"{adult['next_day'].slug},김민준,+82 10 4444 5555,1990,,\n"
            f"{later.slug},김민준,010 4444 5555,2001,,\n"
            f"{adult['same_time'].slug},김민준,010 4444-5555,1990,,\n")
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = client.post(reverse("manage-import", kwargs={"festival": festival.slug}),
                         {"file": SimpleUploadedFile("players.csv", (header + rows).encode())})
    preview = client.get(upload["Location"]).content.decode()

    def row(line):
        return re.search(rf'<tr id="row-{line}" class="([^"]*)">(.*?)</tr>', preview, re.S).group(0)

    assert "table-danger" not in row(2)
    assert "table-danger" in row(3) and f"#{player.pk}" in row(3) and "birth year" in row(3)
    assert "table-danger" in row(4) and "Morning open" in row(4)  # the stored person's clash (R9)

    seen = re.search(r'name="seen" value="([^"]*)"', preview).group(1)
    client.post(upload["Location"], {"action": "valid", "seen": seen, "consent_held": "on"})
    assert Player.objects.filter(festival=festival).count() == 1
    assert set(player.registrations.values_list("event__name", flat=True)) == {"Morning open", "Next day cup"}
    assert Player.objects.get(pk=player.pk).birth_year == 1990
