"""In a real browser at 360×740, in Korean: a player downloads their data and erases it from their personal
page, before the event (a withdrawal too); the page works without JavaScript."""

import json

from playwright.sync_api import expect

from tests.factories import make_player, make_registration, open_event
from tournament.models import AuditEntry, Player, Registration


def test_a_player_downloads_and_erases_their_data_in_korean(phone, server, shot):
    event = open_event(name="어린이부")
    registration = make_registration(event, make_player(event.festival, name="김민준", contact="010-2345-6789",
                                                         birth_year=2016, guardian_name="김보호",
                                                         guardian_contact="010-9876-5432"))
    player = registration.player
    page = phone("player", lang="ko")
    page.goto(server.root + player.get_absolute_url())
    expect(page.locator("#my-data")).to_have_text("내 개인정보")
    with page.expect_download() as download:
        page.get_by_role("link", name="내 개인정보 내려받기(JSON)").click()
    data = json.loads(open(download.value.path(), encoding="utf-8").read())
    assert data["player"]["contact"] == "010-2345-6789" and data["player"]["guardian_name"] == "김보호"
    assert data["registrations"][0]["event"] == event.slug

    # The person's own request is 삭제 (PIPA art. 36); 파기 is the end of the retention period (art. 21).
    page.get_by_role("link", name="내 개인정보 삭제").click()
    expect(page.locator("main")).to_contain_text("어린이부")  # the event it withdraws from
    shot(page, "confirm")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.get_by_role("button", name="내 개인정보 삭제").click()  # not ticked: nothing changes
    expect(page.locator(".alert-danger, .alert-error").first).to_contain_text("변경된 내용은 없습니다")
    assert Player.objects.get(pk=player.pk).contact == "010-2345-6789"

    page.get_by_label("네, 내 개인정보를 삭제합니다").check()
    page.get_by_role("button", name="내 개인정보 삭제").click()
    expect(page.locator(".alert-success")).to_contain_text("삭제되었습니다")
    expect(page.locator("[data-erased]")).to_be_visible()
    shot(page, "erased")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    player.refresh_from_db()
    assert (player.contact, player.birth_year, player.guardian_name, player.guardian_contact) == ("", None, "", "")
    assert Registration.objects.get(pk=registration.pk).status == Registration.Status.WITHDRAWN
    assert AuditEntry.objects.filter(action="privacy.erased_on_request", target_id=player.pk).exists()
