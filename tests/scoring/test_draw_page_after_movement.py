"""The organiser's draw page of a Hong Kong event (R8.2) after the top two of each table have moved up: it
shows the seating players need now (the next game's), not game 1's; print and table cards follow it.
Found by the browser test tests/e2e/test_e2e_day_hk.py."""

import pytest
from django.urls import reverse

from scoring.services.sheets import confirm_sheet, submit_sheet
from tests.factories import make_staff, released_stage
from tests.scoring.helpers import entry_for, key
from tournament.models import Draw, Event
from tournament.services import seating
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db


def test_after_movement_the_draw_page_shows_the_next_games_seating(client):
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    festival = stage.event.festival
    chief = Actor(user=make_staff(festival, "chief referee"))
    for table in (1, 2):  # seat 1 goes out; seats 2–4 hold 5, 9 and 14: seats 1 and 2 move up
        sheet = submit_sheet(stage=stage, game=1, table_number=table, entry=entry_for(stage, 1, table, [0, 5, 9, 14]),
                             accept_warnings=False, idempotency_key=key(), actor=Actor(label="link"), via="link")
        confirm_sheet(sheet=sheet, actor=chief)
    moved = seating.game_draw(stage, 2)
    assert moved.method == Draw.Method.MOVEMENT
    movers = {seat.registration.player.name for seat in seating.seats(seating.game_draw(stage, 1), table=1)[:2]}

    client.force_login(make_staff(festival, "organiser"))
    kwargs = {"festival": festival.slug, "event": stage.event.slug}
    page = client.get(reverse("manage-draws", kwargs=kwargs))
    assert page.status_code == 200
    assert page.context["draw"] == moved
    table_two = dict(page.context["tables"])[2]
    assert movers <= {seat.registration.player.name for seat in table_two}
    html = page.content.decode()
    assert "Top two move up a table" in html and "game 2" in html
    assert "Seated from the confirmed results of game 1" in html and "Every constraint is met." not in html
    assert reverse("draw-print", kwargs={**kwargs, "draw": moved.pk}) in html
    assert reverse("draw-cards", kwargs={**kwargs, "draw": moved.pk}) in html
