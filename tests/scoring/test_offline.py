"""What a table's phone needs to work through a dropped Wi-Fi: the service worker at the site root, the table
link's web app manifest, and a game's sheet status for the phone's outbox (R9: confirmed by the chief referee;
a sheet sent twice with one idempotency key is recorded once)."""

import pytest
from django.test import Client

from scoring.models import ScoreSheet
from scoring.services.sheets import confirm_sheet, return_sheet
from tests.scoring.helpers import chief_of, key
from tests.scoring.test_referee_views import link_url, sheet_data

pytestmark = pytest.mark.django_db


def test_the_service_worker_is_served_at_the_root_for_the_whole_site_and_never_from_a_cache(client):
    response = client.get("/sw.js?v=anything")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert "no-cache" in response["Cache-Control"]
    assert b"addEventListener(\"fetch\"" in response.content
    assert client.post("/sw.js").status_code == 405


def test_the_worker_imports_the_outbox_it_shares_with_the_pages_by_its_static_address(client):
    """The worker sends the queued sheets and check-ins itself (Background Sync) with the pages' own send
    function: static/js/outbox-store.js, at the address the static files storage gives it (hashed in production)."""
    from django.templatetags.static import static

    body = client.get("/sw.js?v=anything").content.decode()
    code = [line for line in body.splitlines() if line.strip() and not line.startswith("//")]
    assert code[0] == '"use strict";'  # still the first statement: the address comes after it
    assert code[1] == f'self.RK_OUTBOX_STORE = "{static("js/outbox-store.js")}";'
    assert code[2] == 'self.RK_SIGN_OUT = "/accounts/logout/";'  # seen sent, the worker clears what it keeps
    assert "importScripts(self.RK_OUTBOX_STORE" in body


def test_table_pages_name_the_worker_with_the_app_version_and_the_link_as_an_installable_app(client, link):
    page = client.get(link_url(link)).content.decode()
    assert 'name="offline-worker" content="/sw.js?v=' in page
    assert f'rel="manifest" href="/t/{link.token}/manifest.webmanifest"' in page
    # The sheets still to enter are kept on the phone.
    assert f'data-offline-prefetch="{link_url(link, 1)}' in page

    manifest = client.get(f"/t/{link.token}/manifest.webmanifest")
    assert manifest["Content-Type"] == "application/manifest+json"
    app = manifest.json()
    assert app["name"] == f"{link.event.name} · Table 1" and app["short_name"] == "Table 1"
    assert app["start_url"] == app["scope"] == link_url(link)
    assert {icon["sizes"] for icon in app["icons"]} == {"192x192", "512x512", "any"}
    assert "no-store" in manifest["Cache-Control"]  # it names the table's secret link


def test_a_public_page_does_not_register_the_worker(client, stage):
    festival, event = stage.event.festival, stage.event
    assert b"offline-worker" not in client.get(f"/f/{festival.slug}/{event.slug}/").content


def test_an_unknown_link_has_neither_manifest_nor_status(client, link):
    assert client.get("/t/" + "x" * 32 + "/manifest.webmanifest").status_code == 404
    assert client.get("/t/" + "x" * 32 + "/stage-1/game/1/status/").status_code == 404
    assert client.get(f"/t/{link.token}/stage-1/game/99/status/").status_code == 404


def test_the_status_follows_a_sheet_from_sent_to_confirmed_or_returned_with_its_reason(client, stage, link):
    status = link_url(link, 1) + "status/"
    assert client.get(status).json() == {"status": "none"}

    idem = key()
    data = sheet_data(stage, 1, 1, [0, 12, 20, 9], idem=idem)
    client.post(link_url(link, 1), data)
    client.post(link_url(link, 1), data)  # the outbox sent it again (a lost answer): one sheet
    [sheet] = ScoreSheet.objects.filter(stage=stage, game=1)
    assert client.get(status).json() == {"status": "submitted", "key": idem, "reason": ""}

    return_sheet(sheet=sheet, actor=chief_of(stage.event), reason="Seat 3 counted twice")
    assert client.get(status).json() == {"status": "returned", "key": idem, "reason": "Seat 3 counted twice"}

    second = key()
    client.post(link_url(link, 1), sheet_data(stage, 1, 1, [0, 12, 20, 9], idem=second))
    newest = ScoreSheet.objects.get(idempotency_key=second)
    confirm_sheet(sheet=newest, actor=chief_of(stage.event))
    assert client.get(status).json() == {"status": "confirmed", "key": second, "reason": ""}


def test_a_signed_in_referees_table_has_a_status_but_no_app_of_its_own(stage):
    from scoring.services.links import assign_tables
    from tests.factories import make_staff
    from tournament.services.audit import Actor

    referee = make_staff(stage.event.festival, "referee")
    assign_tables(event=stage.event, first=1, last=1, referee=referee, actor=Actor(label="organiser"))
    client = Client()
    client.force_login(referee)
    page = client.get(f"/referee/{stage.pk}/1/").content.decode()
    assert "offline-worker" in page and 'rel="manifest"' not in page
    assert client.get(f"/referee/{stage.pk}/1/game/1/status/").json() == {"status": "none"}
    assert Client().get(f"/referee/{stage.pk}/1/game/1/status/").status_code == 302  # signed out: sign in


def test_the_board_shows_how_long_ago_each_table_was_last_heard_from(client, stage, link, chief):
    from datetime import timedelta

    from django.utils import timezone

    from scoring.models import TableLink
    from scoring.services.links import heard_from

    board = f"/manage/{stage.event.festival.slug}/{stage.event.slug}/board/"
    client.force_login(chief)
    assert "not heard from yet" in client.get(board).content.decode()

    Client().get(link_url(link))  # the table's phone opens its page
    link.refresh_from_db()
    first = link.last_contact_at
    assert first is not None
    heard_from(link=link, now=first + timedelta(seconds=10))  # within the half minute: nothing written
    link.refresh_from_db()
    assert link.last_contact_at == first

    TableLink.objects.filter(pk=link.pk).update(last_contact_at=timezone.now() - timedelta(minutes=7))
    row = client.get(board).content.decode().split('data-table="1"')[1].split("</li>")[0]
    assert "heard from 7" in row and "minutes ago" in row


def test_the_standings_and_a_players_page_name_the_worker_and_their_time_for_a_reading_offline(client, stage):
    festival, event = stage.event.festival, stage.event
    for url in (f"/f/{festival.slug}/{event.slug}/standings/", f"/f/{festival.slug}/{event.slug}/player/1/"):
        page = client.get(url).content.decode()
        assert 'name="offline-worker"' in page, url
        assert "data-offline-asof data-time-zone=" in page and "As of <span data-asof-time>" in page, url
        assert "— no connection" in page and " hidden>" in page.split("data-offline-asof")[1][:80], url
