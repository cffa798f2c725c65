"""In a real browser at 360×740: the public form says that someone registered before enters more events from
their personal page, and answers a stranger typing a registered player's details like anyone else; after
"Erase my data" the personal page asks for the contact and birth year again before entering another event."""

from playwright.sync_api import expect

from tests.factories import agreed, make_festival, make_player, make_registration, make_staff, open_event
from tournament.models import Player, Registration
from tournament.permissions import ORGANISER
from tournament.services.audit import Actor
from tournament.services.erasure import erase_player


def test_a_stranger_typing_a_registered_player_s_details_gets_a_new_player_s_page(phone, server, shot, sign_in):
    festival = make_festival()
    event = open_event(festival, name="Open")
    existing = make_registration(event, make_player(festival, name="Kim Minjun", contact="010-4444-5555")).player
    page = phone("stranger")
    page.goto(server.url("event-register", festival=festival.slug, event=event.slug))
    expect(page.locator("[data-registered-before]")).to_contain_text("personal page")
    shot(page, "form-with-registered-before-note")
    page.fill("#id_name", "Kim Minjun")
    page.fill("#id_contact", "+82 10 4444 5555")
    page.fill("#id_birth_year", "1990")
    page.check("#id_agree")
    with page.expect_navigation():
        page.locator("main form [type=submit]").click()

    expect(page.locator(".alert-success")).to_contain_text("You are registered.")
    new = Player.objects.exclude(pk=existing.pk).get()
    assert page.url.endswith(new.get_absolute_url()) and existing.token not in page.content()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    # The organiser sees both as possible duplicates of each other.
    organiser = sign_in(phone("organiser"), make_staff(festival, ORGANISER))
    organiser.goto(server.url("manage-event", festival=festival.slug, event=event.slug) + "#registrations")
    notes = organiser.locator("[data-possible-duplicate]")
    expect(notes).to_have_count(2)
    expect(notes.first).to_contain_text(f"player #{new.pk} (this event)")
    notes.first.scroll_into_view_if_needed()
    shot(organiser, "organiser-sees-possible-duplicates")


def test_after_erasing_their_data_a_player_gives_contact_and_birth_year_again_to_enter(phone, server, shot):
    festival = make_festival()
    first, second = open_event(festival, name="첫 종목", days_ahead=20), open_event(festival, name="둘째 종목")
    player = make_player(festival, name="김민준", contact="010-2345-6789", birth_year=1990)
    make_registration(first, player, **agreed(festival))
    erase_player(player=player, hide_in_results=False, actor=Actor(label="player link"))
    page = phone("player", lang="ko")
    page.goto(server.root + player.get_absolute_url())
    with page.expect_navigation():
        page.locator(f"form[action$='/enter/{second.slug}/'] button").click()

    expect(page.locator("[data-details-again]")).to_contain_text("김민준")
    expect(page.locator("#id_name")).to_have_count(0)
    shot(page, "asked-again")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.fill("#id_contact", "010-2345-6789")
    page.fill("#id_birth_year", "1990")
    page.check("#id_agree")
    with page.expect_navigation():
        page.locator("main form [type=submit]").click()

    expect(page.locator(".alert-success")).to_contain_text("둘째 종목")
    shot(page, "entered")
    player.refresh_from_db()
    assert (player.contact, player.birth_year) == ("010-2345-6789", 1990)
    assert Registration.objects.filter(event=second, player=player).exists()
