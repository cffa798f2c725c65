"""One-game playoffs for prize-place ties (R7, R8.2): created from the results page, played and confirmed
like any other table, their result orders the tied players only and counts in nobody's wins or points."""

import pytest
from django.urls import reverse

from scoring.results.actions import draw_place_lot
from scoring.results.event import event_results
from scoring.results.placing import PLAYOFF
from scoring.services.playoff import create_playoff
from scoring.standings import event_standings
from tests.factories import make_festival, make_staff
from tests.scoring.helpers import chief_of, confirm, hong_kong, played_busan_final, seated
from tournament.formats.draw import draw_seat_orders
from tournament.models import AuditEntry, Draw, Lot, Stage, StageEntry
from tournament.services import ServiceError, seating

pytestmark = pytest.mark.django_db


def tied_hong_kong(tables=1):
    """Hong Kong, one game: every table blocked on penalties 5, 5, 10, 20 → its first two seats win +10 each
    (R6), so the first two seats of every table share place 1."""
    stage = hong_kong(4 * tables)
    chief = chief_of(stage.event)
    for table in range(1, tables + 1):
        confirm(stage, [5, 5, 10, 20], chief=chief, table=table, end="blocked")
    return stage, chief


def playoff_url(event, name="results-playoff"):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug})


def snapshot(event):
    results = {row.registration.id: (row.wins, row.total, row.games) for row in event_results(event).rows}
    standings = {line.player: (line.wins, line.total, line.games) for line in event_standings(event).lines}
    return results, standings


def test_prize_tie_creates_a_released_one_table_playoff_with_a_stored_seed_r7(client):
    stage, _chief = tied_hong_kong()
    event = stage.event
    tied = sorted(seated(stage)[:2])
    assert [(t.place, sorted(r.id for r in t.registrations)) for t in event_results(event).prize_ties] == [(1, tied)]
    client.force_login(make_staff(event.festival, "organiser"))
    response = client.post(playoff_url(event), {"place": 1})
    assert response.status_code == 302
    playoff = Stage.objects.get(event=event, advance=Stage.Advance.PLAYOFF)
    assert (playoff.games, playoff.name, playoff.number) == (1, "Playoff", 2)
    assert sorted(StageEntry.objects.filter(stage=playoff).values_list("registration_id", flat=True)) == tied
    draw = Draw.objects.get(stage=playoff)
    assert draw.is_released and draw.method == Draw.Method.PLAYOFF and draw.tables.count() == 1
    assert tuple(seated(playoff)) == draw_seat_orders([tied], draw.seed)[0]
    assert seating.game_draw(playoff, 1) == draw  # the referee pages find it (Hong Kong: draw.game == game)
    entry = AuditEntry.objects.get(action="playoff.created")
    assert entry.after["players"] == tied and entry.after["seed"] == draw.seed
    results = event_results(event)
    assert results.pending_playoffs == [playoff] and results.prize_ties[0].pending_playoff == playoff
    again = client.post(playoff_url(event), {"place": 1}, follow=True).content.decode()
    assert "already waiting for its result" in again
    lot = client.post(playoff_url(event, "results-lot"), {"place": 1}, follow=True).content.decode()
    assert "waiting for its result" in lot
    assert Stage.objects.filter(advance=Stage.Advance.PLAYOFF).count() == 1
    assert not Lot.objects.filter(purpose=Lot.Purpose.PLACE).exists()


def test_confirmed_playoff_orders_those_players_only_and_changes_nobodys_wins_or_points_r7():
    stage, chief = tied_hong_kong()
    event = stage.event
    before = snapshot(event)
    playoff = create_playoff(event=event, place=1, actor=chief, seed=11)
    order = seated(playoff)
    confirm(playoff, [0, 25], chief=chief)  # playoff seat 1 goes out and wins
    results = event_results(event)
    assert results.settled and not results.pending_playoffs
    rows = results.rows
    assert [(row.registration.id, row.place, row.decided_by) for row in rows[:2]] == [
        (order[0], 1, PLAYOFF), (order[1], 2, PLAYOFF)]
    assert [row.registration.id for row in rows[2:]] == seated(stage)[2:]  # the others keep their places
    assert snapshot(event) == before  # the playoff game counts in nobody's wins, points or games


def test_a_level_playoff_leaves_the_tie_for_another_playoff_or_a_lot_r7():
    stage, chief = tied_hong_kong()
    event = stage.event
    playoff = create_playoff(event=event, place=1, actor=chief, seed=3)
    confirm(playoff, [7, 7], chief=chief, end="blocked")  # both win, both 0
    results = event_results(event)
    assert results.final and not results.pending_playoffs
    assert [t.place for t in results.prize_ties] == [1]
    second = create_playoff(event=event, place=1, actor=chief, seed=4)
    assert second.number == 3


def test_busan_final_tie_can_also_go_to_a_playoff_r8_1():
    stage, seats = played_busan_final((5, 5, 10, 20), end="blocked")
    chief = chief_of(stage.event)
    playoff = create_playoff(event=stage.event, place=1, actor=chief, seed=8)
    assert seating.game_draw(playoff, 1) is not None  # Busan: the stage's game-1 draw
    confirm(playoff, [0, 3], chief=chief)
    assert [row.registration.id for row in event_results(stage.event).rows[:2]] == seated(playoff)


def test_more_tied_players_than_a_table_seats_are_refused_and_a_lot_decides_instead():
    stage, chief = tied_hong_kong(tables=3)  # six players share place 1
    with pytest.raises(ServiceError) as refused:
        create_playoff(event=stage.event, place=1, actor=chief)
    assert refused.value.code == "too_many"
    assert not Stage.objects.filter(advance=Stage.Advance.PLAYOFF).exists()
    lot = draw_place_lot(event=stage.event, place=1, actor=chief, seed=5)
    assert sorted(lot.numbers.values()) == [1, 2, 3, 4, 5, 6]
    assert [row.place for row in event_results(stage.event).rows[:6]] == [1, 2, 3, 4, 5, 6]


def test_no_playoff_before_the_final_stage_is_complete_or_without_a_tie():
    stage = hong_kong(8)
    chief = chief_of(stage.event)
    confirm(stage, [5, 5, 10, 20], chief=chief, end="blocked")  # table 2 not played yet
    with pytest.raises(ServiceError) as early:
        create_playoff(event=stage.event, place=1, actor=chief)
    assert early.value.code == "not_final"
    confirm(stage, [0, 1, 2, 3], chief=chief, table=2)
    with pytest.raises(ServiceError) as none:
        create_playoff(event=stage.event, place=3, actor=chief)
    assert none.value.code == "no_tie"


def test_ties_below_the_prize_places_are_shared_not_played_off():
    stage = hong_kong(8)
    chief = chief_of(stage.event)
    confirm(stage, [0, 9, 20, 30], chief=chief, table=1)  # winner +59
    confirm(stage, [0, 9, 20, 31], chief=chief, table=2)  # winner +60
    results = event_results(stage.event)
    assert [row.place for row in results.rows] == [1, 2, 3, 3, 5, 5, 7, 8]
    assert [(t.place, t.prize) for t in results.ties] == [(3, True), (5, False)]
    with pytest.raises(ServiceError) as refused:
        create_playoff(event=stage.event, place=5, actor=chief)
    assert refused.value.code == "not_prize"
    assert create_playoff(event=stage.event, place=3, actor=chief, seed=1).entries.count() == 2


@pytest.mark.parametrize("role", [None, "desk", "referee", "other organiser"])
def test_only_the_festivals_organiser_or_chief_referee_creates_playoffs(client, role):
    stage, _chief = tied_hong_kong()
    event = stage.event
    if role == "other organiser":
        client.force_login(make_staff(make_festival(), "organiser"))
    elif role:
        client.force_login(make_staff(event.festival, role))
    for name in ("results-playoff", "results-lot"):
        response = client.post(playoff_url(event, name), {"place": 1})
        assert response.status_code == (302 if role is None else 403)
    assert not Stage.objects.filter(advance=Stage.Advance.PLAYOFF).exists()
    assert not Lot.objects.filter(purpose=Lot.Purpose.PLACE).exists()


def test_chief_referee_creates_a_playoff_from_the_results_page(client):
    stage, _chief = tied_hong_kong()
    client.force_login(make_staff(stage.event.festival, "chief referee"))
    page = client.post(playoff_url(stage.event), {"place": 1}, follow=True).content.decode()
    assert "A playoff table for place 1 is drawn and released" in page
    assert "A playoff is waiting for its confirmed sheet" in page
    assert Stage.objects.filter(advance=Stage.Advance.PLAYOFF).count() == 1


def test_playoff_is_recorded_by_the_actor():
    stage, chief = tied_hong_kong()
    create_playoff(event=stage.event, place=1, actor=chief, seed=1)
    assert Draw.objects.get(method=Draw.Method.PLAYOFF).created_by == chief.user
