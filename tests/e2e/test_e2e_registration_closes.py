"""In a real browser at phone size (360×740): the public page of an event played to the end offers neither
registration nor the waiting list, although its own registration close is still to come (R9: registration
closes with check-in at the latest), and counts only the players who held the places — in English, Korean and
Hong Kong Chinese. The organiser's page says how many registered players did not come."""

import datetime as dt
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from scoring.simulation.play import simulate
from tests.factories import make_registration, make_staff
from tournament.models import Event, Player

LANGUAGES = ["en", "ko", "zh-Hant-HK"]


@pytest.fixture
def finished():
    """A Hong Kong event of 16 played to the end; its registration close is tomorrow, and two registered
    players never came."""
    event = simulate("hk", 16, 5)
    Event.objects.filter(pk=event.pk).update(registration_opens_at=timezone.now() - dt.timedelta(days=30),
                                             registration_closes_at=timezone.now() + dt.timedelta(days=1))
    for _ in range(2):
        make_registration(event)
    event.refresh_from_db()
    return event


def _counts_only_the_places_held(page):
    """Every "N of M places" on the page names 16 and 16, in any language: not the 18 who registered.
    (Only the count, not the whole page: a time such as 13:18 on it is no count.)"""
    expect(page.locator("main [data-places]").first).to_be_visible()
    texts = page.locator("main [data-places]").all_inner_texts()
    assert all(sorted(re.findall(r"\d+", text)) == ["16", "16"] for text in texts), texts


def test_a_finished_event_s_public_page_offers_no_registration_and_counts_the_places_held(
        phone, server, shot, sign_in, finished):
    event = finished
    register = server.url("event-register", festival=event.festival.slug, event=event.slug)
    for lang in LANGUAGES:
        visitor = phone(f"visitor-{lang}", lang=lang)
        visitor.goto(server.url("event", festival=event.festival.slug, event=event.slug))
        expect(visitor.locator("[data-registration=over]")).to_be_visible()
        expect(visitor.locator(f"a[href='{register.removeprefix(server.root)}']")).to_have_count(0)
        _counts_only_the_places_held(visitor)
        if lang == "en":
            expect(visitor.locator("main")).to_contain_text("16 of 16 places taken by players checked in")
            expect(visitor.locator("main")).not_to_contain_text("waiting list")
        assert visitor.evaluate("document.documentElement.scrollWidth") <= 360
        visitor.locator("[data-registration=over]").scroll_into_view_if_needed()
        shot(visitor, f"finished-event-{lang}")

        visitor.goto(register)
        expect(visitor.locator("[data-registration=over]")).to_be_visible()
        expect(visitor.locator("input[name=birth_year]")).to_have_count(0)
        shot(visitor, f"finished-event-register-{lang}")

        visitor.goto(server.url("festival", festival=event.festival.slug))
        _counts_only_the_places_held(visitor)
        shot(visitor, f"finished-festival-{lang}")

        organiser = phone(f"organiser-{lang}", lang=lang)
        sign_in(organiser, make_staff(event.festival, "organiser"), next_url=f"/manage/{event.festival.slug}/")
        counts = organiser.locator("main .card").first
        expect(counts).to_contain_text("16/16")
        expect(counts.locator("[data-absent]")).to_contain_text("2")
        assert organiser.evaluate("document.documentElement.scrollWidth") <= 360
        shot(organiser, f"finished-event-organiser-{lang}")
    assert Player.objects.filter(registrations__event=event).count() == 18
