"""What a shared phone or laptop may keep of the site, as the server says it (static/js/sw.js obeys).

Every staff page and every personal page answers `no-store, private`: no browser cache keeps it. The service
worker keeps a page for a dropped Wi-Fi only if the answer says it may (neither no-store nor private), and the
server says so only for the pages made to work offline — the table's, the desk's check-in lists, the standings
and the public player pages — and only to the worker asking for its offline copy (`Offline-Copy: keep`, fetched
past the browser's HTTP cache). A personal page is never one of them, whoever opens it. Signing out clears the
browser's HTTP cache (Clear-Site-Data) and the page clears what the worker and the outbox keep.
"""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from scoring.services.links import ensure_links
from tests.factories import make_event, make_player, make_registration, make_staff, released_stage
from tournament.device import OFFLINE_COPY, OFFLINE_PAGES
from tournament.models import Event
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db
ASKED = {"HTTP_OFFLINE_COPY": "keep"}  # what the service worker sends for its offline copy


def directives(response) -> set[str]:
    return {part.strip() for part in response.get("Cache-Control", "").split(",") if part.strip()}


def never_stored(response) -> bool:
    return {"no-store", "private"} <= directives(response)


def storable_offline(response) -> bool:
    return response.status_code == 200 and directives(response) == {"no-cache"}


@pytest.fixture
def desk_event():
    event = make_event(checkin_override=Event.CheckinOverride.OPEN)
    registration = make_registration(event, make_player(event.festival, name="김민준"))
    return event, registration


@pytest.fixture
def volunteer(desk_event):
    return make_staff(desk_event[0].festival, "desk")


@pytest.fixture
def desk_client(volunteer):
    client = Client()
    client.force_login(volunteer)
    return client


def desk_pages(event) -> list[str]:
    where = {"festival": event.festival.slug, "event": event.slug}
    return [reverse("desk", kwargs=where), reverse("desk-missing", kwargs=where)]


def test_a_personal_page_opened_by_the_desk_is_never_stored_not_even_as_an_offline_copy(desk_event, desk_client):
    _event, registration = desk_event
    page = registration.player.get_absolute_url()
    for client in (desk_client, Client()):  # the desk, with its check-in buttons; the player
        for asked in ({}, ASKED):
            response = client.get(page, **asked)
            assert response.status_code == 200
            assert never_stored(response), (asked, response["Cache-Control"])


def test_the_desks_check_in_lists_are_storable_only_as_the_workers_offline_copy(desk_event, desk_client):
    event, _registration = desk_event
    for page in desk_pages(event):
        assert never_stored(desk_client.get(page)), page  # the browser's own cache never keeps them
        copy = desk_client.get(page, **ASKED)
        assert storable_offline(copy), (page, copy["Cache-Control"])
        assert OFFLINE_COPY in copy["Vary"]


def test_no_offline_copy_of_a_refusal_or_a_redirect(desk_event):
    event, _registration = desk_event
    outsider = Client()
    outsider.force_login(make_staff(make_event().festival, "desk"))  # a desk volunteer of another festival
    for page in desk_pages(event):
        signed_out = Client().get(page, **ASKED)
        assert signed_out.status_code == 302 and never_stored(signed_out), page
        refused = outsider.get(page, **ASKED)
        assert refused.status_code == 403 and never_stored(refused), page


def test_the_table_the_standings_and_a_players_public_page_are_storable_as_the_workers_offline_copy():
    stage = released_stage(4)
    event = stage.event
    link = ensure_links(event=event, actor=Actor(label="organiser"))[0]
    where = {"festival": event.festival.slug, "event": event.slug}
    pages = [
        reverse("referee-link-table", kwargs={"token": link.token}),
        reverse("referee-link-game", kwargs={"token": link.token, "stage": 1, "game": 1}),
        reverse("public-standings", kwargs=where),
        reverse("public-standings-stage", kwargs={**where, "stage": 1}),
        reverse("public-player", kwargs={**where, "number": 1}),
    ]
    for page in pages:
        ordinary = Client().get(page)
        assert ordinary.status_code == 200 and "private" in directives(ordinary), page
        assert storable_offline(Client().get(page, **ASKED)), page


def test_a_signed_in_referees_table_pages_are_storable_as_the_workers_offline_copy():
    from scoring.services.links import assign_tables

    stage = released_stage(4)
    referee = make_staff(stage.event.festival, "referee")
    assign_tables(event=stage.event, first=1, last=1, referee=referee, actor=Actor(label="organiser"))
    client = Client()
    client.force_login(referee)
    for page in (reverse("referee-table", kwargs={"stage_id": stage.pk, "table": 1}),
                 reverse("referee-game", kwargs={"stage_id": stage.pk, "table": 1, "game": 1})):
        assert never_stored(client.get(page)), page
        assert storable_offline(client.get(page, **ASKED)), page


# --- the worker's own list of what it keeps, against the server's ------------------------------------------

def worker_rules() -> list[re.Pattern]:
    """The address patterns of static/js/sw.js's RULES (JavaScript regular expression literals)."""
    source = (Path(settings.BASE_DIR) / "static" / "js" / "sw.js").read_text()
    block = source.split("var RULES = [", 1)[1].split("];", 1)[0]
    return [re.compile(literal.replace("\\/", "/")) for literal in re.findall(r"\[/(.+?)/, \"\w+\"\]", block)]


def test_the_worker_asks_for_offline_copies_only_of_pages_the_server_lets_it_keep(desk_event):
    event, registration = desk_event
    link_token = "A" * 32
    where = {"festival": event.festival.slug, "event": event.slug}
    kept = {
        "desk": reverse("desk", kwargs=where), "desk-missing": reverse("desk-missing", kwargs=where),
        "referee-link-table": reverse("referee-link-table", kwargs={"token": link_token}),
        "referee-link-game": reverse("referee-link-game", kwargs={"token": link_token, "stage": 1, "game": 2}),
        "referee-table": reverse("referee-table", kwargs={"stage_id": 3, "table": 4}),
        "referee-game": reverse("referee-game", kwargs={"stage_id": 3, "table": 4, "game": 1}),
        "public-standings": reverse("public-standings", kwargs=where),
        "public-standings-stage": reverse("public-standings-stage", kwargs={**where, "stage": 2}),
        "public-player": reverse("public-player", kwargs={**where, "number": 7}),
    }
    assert set(kept) == set(OFFLINE_PAGES)
    rules = worker_rules()
    assert len(rules) >= 5
    for name, path in kept.items():
        assert any(rule.search(path) for rule in rules), (name, path)
    token = registration.player.token
    never = [reverse("player-page", kwargs={"token": token}), reverse("player-data", kwargs={"token": token}),
             reverse("player-erase", kwargs={"token": token}), reverse("manage-home"),
             reverse("desk-walk-in", kwargs=where)]
    for path in never:
        assert not any(rule.search(path) for rule in rules), path


# --- signing out ------------------------------------------------------------------------------------------

def test_signing_out_clears_the_browsers_cache_but_leaves_the_outbox_to_the_page(desk_event, desk_client):
    response = desk_client.post(reverse("logout"))
    assert response.status_code == 302 and response["Location"] == reverse("home")
    # "storage" would also delete the check-ins and sheets still waiting to be sent (IndexedDB): the page clears
    # the rest itself (static/js/offline.js), keeping those.
    assert response["Clear-Site-Data"] == '"cache"'
    assert never_stored(response)
    assert "_auth_user_id" not in desk_client.session
    assert desk_client.get(reverse("logout")).status_code == 405  # a link cannot sign anyone out


def test_every_page_says_who_is_signed_in_and_the_sign_out_form_what_it_needs(desk_event, desk_client, volunteer):
    event, _registration = desk_event
    page = desk_client.get(desk_pages(event)[1]).content.decode()
    username = volunteer.get_username()
    assert f'<meta name="signed-in-as" content="{username}">' in page
    form = page.split("data-sign-out", 1)[1].split(">", 1)[0]
    assert 'data-outbox-store="/static/js/outbox-store.js"' in form
    assert f"They stay here and are sent when {username} signs in on this phone again." in form
    anonymous = Client().get(reverse("home")).content.decode()
    assert 'name="signed-in-as"' not in anonymous and '<meta name="signed-out" content="1">' in anonymous
