"""Changing how names are shown: the organiser's switches in the event form and a player's own request from
their personal page — both audited, and both served at once by the public pages, whose full pages and
fragments are cached per public version (public/live.py, public/cache.py)."""

import json
import random

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from scoring.exports import event_json
from scoring.services.import_event import import_event
from tests.factories import make_event, make_registration, make_staff, released_stage
from tests.scoring.helpers import chief_of, play_game, text
from tests.scoring.test_public_names import named
from tests.tournament.test_festival_forms import edit_data
from tournament.masking import mask_name
from tournament.models import AuditEntry, Event, Player
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db


@pytest.fixture
def playing():
    """Eight players, the first game played: the standings, the hall and the draw show everyone."""
    stage = released_stage(8)
    play_game(stage, 1, chief_of(stage.event), random.Random(8))
    return stage.event, named(stage.event)


def public(event) -> dict[str, str]:
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    return {name: reverse(name, kwargs=kwargs) for name in (
        "public-standings", "public-standings-live", "public-hall", "public-hall-live", "api-standings")}


def organiser(event) -> Client:
    client = Client()
    client.force_login(make_staff(event.festival, "organiser"))
    return client


def edit_url(event) -> str:
    return reverse("manage-event-edit", kwargs={"festival": event.festival.slug, "event": event.slug})


def test_the_organisers_switch_is_audited_and_no_cached_page_keeps_a_full_name(client, playing):
    event, players = playing
    pages = public(event)
    etags = {}
    for name, url in pages.items():  # anonymous phones: pages and fragments rendered once and kept
        response = client.get(url)
        assert players[0].name in text(response), name
        etags[name] = response["ETag"]
    staff = organiser(event)
    response = staff.post(edit_url(event), edit_data(event, public_names="masked", public_affiliations=""))
    assert response.status_code == 302
    event.refresh_from_db()
    assert (event.public_names, event.public_affiliations) == (Event.PublicNames.MASKED, False)
    entry = AuditEntry.objects.get(action="event.updated", event=event)
    assert entry.before == {"public_names": "full", "public_affiliations": True}
    assert entry.after == {"public_names": "masked", "public_affiliations": False}
    for name, url in pages.items():
        response = client.get(url, HTTP_IF_NONE_MATCH=etags[name])
        assert response.status_code == 200, name  # not "unchanged"
        body = text(response)
        assert not any(p.name in body or p.affiliation in body for p in players), name
        assert mask_name(players[0].name) in body, name
    # The form shows the switches as saved.
    form = text(staff.get(edit_url(event)))
    assert 'name="public_names" value="masked"  id="id_public_names_1" required checked' in form


def test_nonsense_for_the_names_switch_is_refused_at_the_field_and_nothing_changes(playing):
    event, _players = playing
    staff = organiser(event)
    response = staff.post(edit_url(event), edit_data(event, public_names="half"))
    assert response.status_code == 200 and "Choose full or masked names." in text(response)
    event.refresh_from_db()
    assert event.public_names == Event.PublicNames.FULL
    assert not AuditEntry.objects.filter(action="event.updated").exists()


def choose(client, player, value):
    return client.post(reverse("player-public-name", kwargs={"token": player.token}), {"masked": value},
                       follow=True)


def test_a_player_asks_for_a_masked_name_from_their_page_and_takes_it_back(client, playing):
    event, players = playing
    player = players[0]
    other_event = make_event(festival=event.festival, slug="other")
    make_registration(other_event, player=player)
    url = public(event)["public-standings"]
    etag = client.get(url)["ETag"]
    assert player.name in text(client.get(url))

    phone = Client()  # the player's own phone, on their personal link
    page = text(choose(phone, player, "yes"))
    assert "Public pages now show your name masked." in page and mask_name(player.name) in page
    player.refresh_from_db()
    assert player.shown_masked
    # One record for each of their events: each event's public version moves.
    assert sorted(AuditEntry.objects.filter(action="player.masked").values_list("event_id", flat=True)) == sorted(
        [event.pk, other_event.pk])
    response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    body = text(response)
    assert player.name not in body and mask_name(player.name) in body and players[1].name in body

    choose(phone, player, "yes")  # again: nothing new to record
    assert AuditEntry.objects.filter(action="player.masked").count() == 2
    page = text(choose(phone, player, "no"))
    assert "Public pages now show your name as the event shows names." in page
    player.refresh_from_db()
    assert not player.shown_masked and AuditEntry.objects.filter(action="player.unmasked").count() == 2
    assert player.name in text(client.get(url))

    staff = organiser(event)
    log = text(staff.get(reverse("manage-event", kwargs={"festival": event.festival.slug, "event": event.slug})))
    assert "Player asked for a masked public name" in log and "Player took back the masked public name" in log


@pytest.mark.parametrize("value", ["", "maybe", "yes\x00", "1" * 500])
def test_nonsense_from_the_personal_page_changes_nothing(playing, value):
    _event, players = playing
    page = text(choose(Client(), players[0], value))
    assert "Choose masked or in full. Nothing was changed." in page
    assert not Player.objects.get(pk=players[0].pk).shown_masked
    assert not AuditEntry.objects.filter(action__startswith="player.").exists()


def test_the_choice_is_only_a_form_on_the_personal_link(client, playing):
    _event, players = playing
    url = reverse("player-public-name", kwargs={"token": players[0].token})
    assert client.get(url).status_code == 302
    assert client.post(reverse("player-public-name", kwargs={"token": "x" * 30}), {"masked": "yes"}).status_code == 404
    assert "Show my name masked" in text(client.get(players[0].get_absolute_url()))


def test_a_korean_page_says_withdrawn_player_in_the_glossarys_words(client, playing):
    event, players = playing
    Player.objects.filter(pk=players[0].pk).update(hidden_in_results=True)
    AuditEntry.objects.create(action="test.names", event=event, festival=event.festival)
    with translation.override("en"):  # the language each request activates is not left to the next test
        client.cookies["django_language"] = "ko"
        body = text(client.get(public(event)["public-standings"]))
        assert "참가 취소자" in body and players[0].name not in body
        client.cookies["django_language"] = "zh-hant"
        assert "已取消報名的參加者" in text(client.get(public(event)["public-standings"]))


def test_the_event_file_keeps_how_names_are_shown_and_older_files_show_them_as_before(playing):
    event, _players = playing
    event.public_names, event.public_affiliations = Event.PublicNames.MASKED, False
    event.save()
    document = json.loads(event_json(event))
    assert (document["event"]["public_names"], document["event"]["public_affiliations"]) == ("masked", False)
    copied = import_event(document=document, festival_slug="moved-masked", actor=Actor(label="import")).event
    assert (copied.public_names, copied.public_affiliations) == (Event.PublicNames.MASKED, False)
    for key in ("public_names", "public_affiliations"):
        del document["event"][key]
    older = import_event(document=document, festival_slug="moved-older", actor=Actor(label="import")).event
    assert (older.public_names, older.public_affiliations) == (Event.PublicNames.FULL, True)
