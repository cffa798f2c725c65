"""A player's day at phone size (360×740), in Korean and Traditional Chinese: the event page leads with the
live status once the draw is out; the personal page shows the seat and the standing, and says "out" with the
place once the player is eliminated (R8.1); "Where do I sit?" tells them the same."""

import random

import pytest
from playwright.sync_api import expect

from scoring.results.event import event_results
from scoring.services import progress
from tests.e2e.test_e2e_public import in_language
from tests.factories import released_stage
from tests.scoring.helpers import chief_of, play_game
from tournament.services import draws, seating

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("lang", ["ko", "zh-Hant"])
def test_event_page_and_personal_pages_in_play_and_out(phone, server, shot, lang):
    code = "ko" if lang == "ko" else "zh_Hant"
    stage = released_stage(8)
    event = stage.event
    chief = chief_of(event)
    play_game(stage, 1, chief, random.Random(3))
    page = phone("player", lang=lang)

    page.goto(server.url("event", festival=event.festival.slug, event=event.slug))
    live = page.locator("#live-status")
    expect(live).to_be_visible()
    seat_link = page.get_by_role("link", name=in_language(code, "Where do I sit?"))
    # The live status and "Where do I sit?" come before the registration details.
    assert live.bounding_box()["y"] < page.get_by_text(in_language(code, "Withdraw by")).bounding_box()["y"]
    assert seat_link.bounding_box()["y"] < 740
    shot(page, f"event-page-live-{lang}")

    registration = seating.seats(seating.game_draw(stage, 1))[0].registration
    page.goto(server.url(registration.player.get_absolute_url()))
    expect(page.get_by_text(in_language(code, "Standing now"))).to_be_visible()
    shot(page, f"personal-page-in-play-{lang}")

    for game in range(2, stage.games + 1):
        play_game(stage, game, chief, random.Random(game))
    if not progress.advancement(stage).resolved:
        progress.draw_lots_at_cut(stage=stage, actor=chief, seed=1)
    final = progress.close_stage(stage=stage, actor=chief)
    draws.release_draw(draw=draws.draft_draw(stage=final, actor=chief, seed=3), actor=chief)
    out = next(row for row in event_results(event).rows if row.stage == stage)
    told = in_language(code, "Out after %(stage)s — place %(place)s", stage=in_language(code, "Round %(number)s", number=1),
                       place=out.place)
    page.goto(server.url(out.registration.player.get_absolute_url()))
    expect(page.get_by_text(told)).to_be_visible()
    shot(page, f"personal-page-out-{lang}")

    page.goto(server.url("public-seat", festival=event.festival.slug, event=event.slug)
              + "?q=" + out.registration.player.name)
    expect(page.get_by_text(told)).to_be_visible()
    shot(page, f"seat-search-out-{lang}")
