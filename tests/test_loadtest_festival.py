"""The load test's festival mode (issue 31): the plan `loadtest.prepare --festival` builds, on the test database —
four events live with their tables and links, Word sheets the Word entry form and the rules accept, the desks'
arrivals registered and not checked in with check-in open — and the wrk phones' spread over the events."""

import pytest

from loadtest import pollers
from loadtest.freshness import Record, delays_of_all, load_all, save_all
from loadtest.prepare import build_festival, festival_report


@pytest.fixture(scope="module")
def plan(django_db_setup, django_db_blocker):
    from django.db import transaction

    with django_db_blocker.unblock(), transaction.atomic():  # rolled back after the module: nothing stays
        yield build_festival(seed=31)
        transaction.set_rollback(True)


@pytest.mark.django_db
def test_the_festival_has_four_events_live_at_once(plan):
    events = {event["key"]: event for event in plan["events"]}
    assert {key: (len(e["players"]), len(e["tables"])) for key, e in events.items()} == {
        "main": (128, 32), "word": (64, 16), "kids": (64, 16), "final": (64, 16)}
    assert events["main"]["festival"] == events["word"]["festival"] == events["kids"]["festival"]
    assert events["final"]["festival"] != events["main"]["festival"] and events["final"]["seated_by_confirmation"]
    assert all(len({table["token"] for table in e["tables"]}) == len(e["tables"]) for e in events.values())
    assert [chief["events"] for chief in plan["chiefs"]] == [["main", "kids"], ["word", "final"]]
    assert len(events["word"]["word_sheets"]) == 16 * events["word"]["games"]
    report = festival_report(plan)
    assert report["totals"]["games_with_sheets"] == 0 and report["checked_in"] == 0


@pytest.mark.django_db
def test_the_word_sheets_pass_the_word_entry_form_and_the_rules(plan):
    from scoring.games import game_of
    from scoring.games.word.forms import WordSheetForm
    from scoring.models import TableLink
    from tournament.services import seating

    event = next(e for e in plan["events"] if e["key"] == "word")
    table = event["tables"][0]
    link = TableLink.objects.select_related("event").get(token=table["token"])
    stage = link.event.stages.get(number=event["stage"])
    seats = seating.seats(seating.game_draw(stage, 1), table=table["number"])
    data = {**event["word_sheets"][f"{table['token']}/1"], "idempotency_key": "a" * 32}
    form = WordSheetForm(data, seats=seats)
    assert form.is_valid(), form.errors
    assert not game_of(link.event).judge(link.event, seats, form.entry()).errors


@pytest.mark.django_db
def test_the_desks_arrivals_wait_with_check_in_open(plan):
    from tournament.models import Event

    afternoon = Event.objects.get(festival__slug=plan["desk"]["festival"], slug=plan["desk"]["event"])
    assert afternoon.checkin_is_open()
    assert len(plan["desk"]["arrivals"]) == 64
    assert not afternoon.registrations.filter(checked_in_at__isnull=False).exists()
    assert len(plan["desk"]["accounts"]) == 2


def test_wrk_phones_spread_over_every_event():
    plan = {"events": [{"festival": "f", "event": "a", "players": [1, 2]}, {"festival": "g", "event": "b", "players": [3]}]}
    assert pollers.events_spec(plan) == "/f/f/a/|1,2;/f/g/b/|3"
    assert pollers.events_spec({"festival": "f", "event": "a", "players": [5]}) == "/f/f/a/|5"


def test_freshness_per_event_joins_the_events(tmp_path):
    a = Record('"A"', [(10.0, '"B"')], [(1, 9.0, '"A"'), (1, 12.0, '"B"')])
    b = Record('"X"', [(20.0, '"Y"')], [(2, 19.0, '"X"'), (2, 23.0, '"Y"')])
    save_all({"main": a, "word": b}, tmp_path / "f.json", sent=[["main", 1, 1]])
    result = delays_of_all(load_all(tmp_path / "f.json"))
    assert sorted(result["phone"]) == [2.0, 3.0] and result["unseen"] == 0
