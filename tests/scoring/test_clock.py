"""The referee's clocks (R9): the round clock's rule (scoring/clock.py), its public JSON
(`round-clock`), and the turn timer / round clock on the referee pages, the hall display and the board.
The browser behaviour (countdown, sound, localStorage) is for the Playwright tests (static/js/turn-timer.js)."""

import datetime as dt
import json
import random

import pytest
from django.urls import reverse
from django.utils import timezone

from rules.rulesets import PRESETS, Ruleset
from scoring import clock
from scoring.models import TableLink
from scoring.services.sheets import confirm_sheet, submit_sheet
from tests.factories import make_event, make_staff, released_stage
from tests.scoring.helpers import chief_of, entry_for, key, text
from tournament.models import Draw, Event, Stage
from tournament.schedule import schedule
from tournament.services import draws, seating
from tournament.services.audit import Actor

SEOUL = dt.timezone(dt.timedelta(hours=9))
DAY = dt.datetime(2030, 11, 2, tzinfo=SEOUL)
MINUTE = dt.timedelta(minutes=1)
REFEREE = Actor(label="table link")


def at(hour, minute=0, second=0) -> dt.datetime:
    return DAY.replace(hour=hour, minute=minute, second=second)


def busan_event(**fields) -> Event:
    """An unsaved Busan event starting at 11:00 (R9: rounds of 70 minutes for 3 games, 10 minutes per draw)."""
    values = {"format": Event.Format.BUSAN, "starts_at": at(11), "checkin_opens_at": at(10, 30),
              "checkin_closes_at": at(11), "stage_games": [3, 3, 3], "final_games": 1}
    values.update(fields)
    return Event(**values)


def hk_event() -> Event:
    """An unsaved Hong Kong event: arrival 09:50, briefing 10:10, play from 10:20 (R9)."""
    return Event(format=Event.Format.HONG_KONG, starts_at=at(10, 20), checkin_opens_at=at(9, 50),
                 checkin_closes_at=at(10, 10), rotation_games=3)


def facts(event, number=1, *, advance=Stage.Advance.PER_TABLE, games=3, released_at=None, finished=False):
    stage = Stage(number=number, games=games, advance=advance)
    return clock.facts_for(event, stage, released_at=released_at, finished=finished)


# --------------------------------------------------------------------- the rule, from plain data

def test_turn_length_is_the_rulesets_and_an_unknown_ruleset_gets_the_official_minute_r9():
    assert [clock.turn_seconds(slug) for slug in ("wrc-2014", "hk-2016", "casual")] == [60, 60, 60]
    assert clock.turn_seconds("no-such-rules") == 60
    assert clock.turn_seconds(None) == 60


@pytest.mark.parametrize("format, advance, games, minutes", [
    ("busan", Stage.Advance.PER_TABLE, 3, 70),  # R9: 70 minutes a round of 3 games
    ("busan", Stage.Advance.PER_STAGE, 2, 47),  # 70/3 per game, to the minute (as the timetable plans it)
    ("busan", Stage.Advance.FINAL, 1, 30),  # the final, about 30 minutes
    ("busan", Stage.Advance.FINAL, 4, 120),
    ("hk", Stage.Advance.NONE, 3, 90),  # play 10:20–11:50
    ("hk", Stage.Advance.PLAYOFF, 1, 30),
    ("busan", Stage.Advance.PLAYOFF, 1, 30),
])
def test_stage_length_follows_the_r9_schedule(format, advance, games, minutes):
    assert clock.stage_minutes(format=format, kind=clock.stage_kind(advance), games=games) == minutes


def test_busan_rounds_and_final_start_where_the_timetable_puts_them():
    event = busan_event()
    assert facts(event, 1).planned_start == at(11, 10)  # 11:00 + the draw's 10 minutes
    assert facts(event, 2).planned_start == at(12, 30)  # 12:20 + 10
    assert facts(event, 3).planned_start == at(13, 50)
    final = facts(event, 4, advance=Stage.Advance.FINAL, games=1)
    assert final.planned_start == at(15, 10) and final.minutes == 30
    assert [s.starts for s in schedule(event)][1:] == [at(11, 10), at(12, 30), at(13, 50), at(15, 10)]


def test_a_stage_beyond_the_timetable_and_a_playoff_have_no_planned_start():
    event = busan_event(stage_games=[3])
    assert facts(event, 2).planned_start is None
    assert facts(event, 5, advance=Stage.Advance.PLAYOFF, games=1).planned_start is None


def test_before_the_seating_is_released_the_clock_shows_the_plan_and_counts_nothing():
    round_clock = clock.round_clock(facts(busan_event(), 2), at(12, 0))
    assert round_clock.state == clock.PENDING and round_clock.planned
    assert (round_clock.starts_at, round_clock.ends_at) == (at(12, 30), at(13, 40))
    assert round_clock.remaining(at(12, 0)) is None


def test_a_seating_released_early_starts_the_round_at_its_planned_time():
    stage = facts(busan_event(), 1, released_at=at(10, 55))
    before = clock.round_clock(stage, at(11, 5))
    assert before.state == clock.READY
    assert (before.starts_at, before.ends_at) == (at(11, 10), at(12, 20))
    assert before.until_start(at(11, 5)) == 5 * MINUTE
    assert before.remaining(at(11, 5)) == 70 * MINUTE  # play time not yet touched


def test_a_seating_released_late_gives_the_players_their_full_70_minutes():
    stage = facts(busan_event(), 2, released_at=at(12, 47))
    running = clock.round_clock(stage, at(13, 0))
    assert running.state == clock.RUNNING
    assert (running.starts_at, running.ends_at) == (at(12, 47), at(13, 57))
    assert running.remaining(at(13, 0)) == 57 * MINUTE
    assert running.until_start(at(13, 0)) is None


def test_time_is_called_at_the_end_and_stays_called_until_the_games_are_in():
    stage = facts(busan_event(), 1, released_at=at(11, 0))
    assert clock.round_clock(stage, at(12, 19, 59)).state == clock.RUNNING
    ended = clock.round_clock(stage, at(12, 20))
    assert ended.state == clock.TIME and ended.remaining(at(12, 20)) == dt.timedelta(0)
    assert clock.round_clock(stage, at(14, 0)).remaining(at(14, 0)) == dt.timedelta(0)


def test_a_complete_or_closed_stage_and_an_event_without_stages_have_nothing_to_time():
    done = facts(busan_event(), 1, released_at=at(11, 0), finished=True)
    assert clock.round_clock(done, at(12, 30)).state == clock.IDLE
    assert clock.round_clock(done, at(12, 30)).remaining(at(12, 30)) is None
    assert clock.round_clock(None, at(12, 30)) == clock.NO_CLOCK


def test_hong_kong_plays_from_1020_to_1150_whatever_time_the_first_seating_went_up():
    event = hk_event()
    early = clock.round_clock(facts(event, 1, advance=Stage.Advance.NONE, released_at=at(10, 12)), at(11, 0))
    assert (early.starts_at, early.ends_at, early.state) == (at(10, 20), at(11, 50), clock.RUNNING)
    assert early.remaining(at(11, 0)) == 50 * MINUTE
    late = clock.round_clock(facts(event, 1, advance=Stage.Advance.NONE, released_at=at(10, 31)), at(11, 0))
    assert (late.starts_at, late.ends_at) == (at(10, 31), at(12, 1))


def test_a_playoff_starts_when_its_table_is_released():
    playoff = facts(hk_event(), 2, advance=Stage.Advance.PLAYOFF, games=1, released_at=at(12, 10))
    assert clock.round_clock(playoff, at(12, 15)).ends_at == at(12, 40)


# --------------------------------------------------------------------- clock.json

db = pytest.mark.django_db


def clock_url(event) -> str:
    return reverse("round-clock", kwargs={"festival": event.festival.slug, "event": event.slug})


def get_clock(client, event, **headers):
    return client.get(clock_url(event), **headers)


def running_stage(players=8, *, released_minutes_ago=10) -> Stage:
    """A Busan round 1 whose seating went up `released_minutes_ago`, in an event that began two hours ago."""
    start = timezone.now() - dt.timedelta(hours=2)
    stage = released_stage(players, start=start)
    Draw.objects.filter(stage=stage).update(released_at=timezone.now() - dt.timedelta(minutes=released_minutes_ago))
    return stage


@db
def test_the_clock_is_public_and_counts_down_from_the_release_r9(client):
    stage = running_stage()
    response = get_clock(client, stage.event)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    data = response.json()
    assert (data["state"], data["stage"], data["name"], data["minutes"]) == ("running", 1, "Round 1", 70)
    assert data["ends_at_ms"] - data["starts_at_ms"] == 70 * 60 * 1000
    assert 59 * 60 - 5 <= data["remaining_seconds"] <= 60 * 60
    assert data["server_time_ms"] > data["starts_at_ms"] and int(response["X-Server-Time"]) > 0
    assert "no-cache" in response["Cache-Control"] and response["ETag"].startswith('W/"')
    local_end = timezone.localtime(dt.datetime.fromisoformat(data["ends_at"]), stage.event.festival.tzinfo)
    assert data["ends_local"] == local_end.strftime("%H:%M")


@db
def test_time_is_called_when_the_round_ran_out(client):
    stage = running_stage(released_minutes_ago=75)
    data = get_clock(client, stage.event).json()
    assert data["state"] == "time" and data["remaining_seconds"] == 0


@db
def test_an_event_not_started_and_a_closed_stage_have_no_clock(client):
    event = make_event()
    assert get_clock(client, event).json()["state"] == "idle"
    stage = running_stage()
    Stage.objects.filter(pk=stage.pk).update(closed_at=timezone.now())
    assert get_clock(client, stage.event).json()["state"] == "idle"


@db
def test_the_clock_stops_once_every_game_of_the_stage_is_confirmed(client):
    stage = running_stage(released_minutes_ago=80)
    chief = chief_of(stage.event)
    rng = random.Random(3)
    for game in range(1, stage.games + 1):
        assert get_clock(client, stage.event).json()["state"] == "time"
        for table in seating.game_draw(stage, game).tables.all():
            values = [0] + rng.sample(range(1, 60), table.seats.count() - 1)
            sheet = submit_sheet(stage=stage, game=game, table_number=table.number, accept_warnings=True,
                                 entry=entry_for(stage, game, table.number, values), idempotency_key=key(),
                                 actor=REFEREE, via="link")
            confirm_sheet(sheet=sheet, actor=chief)
    assert get_clock(client, stage.event).json()["state"] == "idle"


@db
def test_a_stage_without_a_released_seating_shows_its_planned_times(client):
    start = timezone.now() + dt.timedelta(hours=1)
    event = released_stage(8, start=start).event
    draw = Draw.objects.get(status=Draw.Status.RELEASED, stage__event=event)
    draws.unrelease_draw(draw=draw, actor=REFEREE, reason="wrong table cards")
    data = get_clock(client, event).json()
    assert data["state"] == "pending" and data["planned"] and data["remaining_seconds"] is None
    assert dt.datetime.fromisoformat(data["starts_at"]) == start + 10 * MINUTE


@db
def test_an_unchanged_clock_answers_304_with_the_server_time(client):
    stage = running_stage()
    first = get_clock(client, stage.event)
    again = get_clock(client, stage.event, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert int(again["X-Server-Time"]) >= int(first["X-Server-Time"])
    Draw.objects.filter(stage=stage).update(released_at=timezone.now() - dt.timedelta(minutes=90))
    changed = get_clock(client, stage.event, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed.json()["state"] == "time"


@db
@pytest.mark.parametrize("path", [
    "/f/nope/nope/clock.json", "/f/nope/nope/clock.json?stage=%00&x=" + "9" * 400, "/f/a%00b/c/clock.json",
    "/f/" + "x" * 300 + "/y/clock.json", "/f/../../clock.json",
])
def test_unknown_and_junk_addresses_are_not_found_never_an_error(client, path):
    assert client.get(path).status_code == 404


@db
def test_the_clock_is_read_only(client):
    stage = running_stage()
    assert client.post(clock_url(stage.event)).status_code == 405
    assert client.put(clock_url(stage.event)).status_code == 405


@db
def test_asking_the_clock_costs_the_same_few_queries_for_8_or_96_players(client, django_assert_num_queries):
    small, large = running_stage(8), running_stage(96)
    get_clock(client, small.event), get_clock(client, large.event)  # warm-up (sessions, content types)
    for stage in (small, large):
        with django_assert_num_queries(5):
            assert get_clock(client, stage.event).status_code == 200


# --------------------------------------------------------------------- on the pages

def table_page(client, stage, table=1, game=None):
    link = TableLink.objects.filter(event=stage.event, table_number=table).first() or TableLink.objects.create(
        event=stage.event, table_number=table)
    return client.get(f"/t/{link.token}/" + (f"stage-{stage.number}/game/{game}/" if game else ""))


@db
def test_the_table_page_has_the_turn_timer_with_the_rulesets_minute_and_the_round_clock(client):
    stage = running_stage()
    page = text(table_page(client, stage))
    assert 'data-turn-seconds="60"' in page and "js/turn-timer.js" in page and "css/timer.css" in page
    assert f'data-storage-key="rk-turn|s{stage.pk}t1|g1"' in page  # the table, not the link's secret
    assert f'data-clock-url="{clock_url(stage.event)}"' in page and 'data-stage="1"' in page
    assert "score unfinished games as blocked (R4)" in page
    seats = [seat.registration.player.name for seat in seating.game_draw(stage, 1).seats.filter(table__number=1)
             .select_related("registration__player").order_by("position")]
    rows = [page.index(f'data-name="{position} · {name}"') for position, name in enumerate(seats, start=1)]
    assert rows == sorted(rows)  # seat 1 first, in seat order


@db
def test_an_event_with_40_second_turns_gets_a_40_second_timer(client, monkeypatch):
    # No preset has 40 s (R9 mentions 40 s and 2 min events): register one as an organiser's ruleset would be.
    monkeypatch.setitem(PRESETS, "quick-40", Ruleset(slug="quick-40", name="Quick", joker_penalty=30, turn_seconds=40))
    stage = released_stage(8, ruleset="quick-40")
    assert 'data-turn-seconds="40"' in text(table_page(client, stage))
    assert 'data-turn-seconds="40"' in text(table_page(client, stage, game=1))
    assert "40 s a turn" in text(table_page(client, stage))


@db
def test_the_table_pages_timer_moves_on_to_the_next_game_once_a_sheet_is_sent(client):
    stage = running_stage()
    submit_sheet(stage=stage, game=1, table_number=1, entry=entry_for(stage, 1, 1, [0, 5, 6, 7]),
                 accept_warnings=True, idempotency_key=key(), actor=REFEREE, via="link")
    page = text(table_page(client, stage))
    assert f'data-storage-key="rk-turn|s{stage.pk}t1|g2"' in page


@db
def test_the_game_page_keeps_the_same_timer_folded_away(client):
    stage = running_stage()
    page = text(table_page(client, stage, game=2))
    assert f'data-storage-key="rk-turn|s{stage.pk}t1|g2"' in page and "data-turn-timer-details" in page
    assert "score unfinished games as blocked (R4)" in page


@db
def test_the_hall_display_and_the_organisers_board_show_the_round_clock(client):
    stage = running_stage()
    event = stage.event
    hall = text(client.get(reverse("public-hall", kwargs={"festival": event.festival.slug, "event": event.slug})))
    assert f'data-clock-url="{clock_url(event)}"' in hall and "round-clock-hall" in hall and "js/turn-timer.js" in hall
    assert "data-rc-banner" not in hall and "data-turn-timer" not in hall  # no referee parts on the projector
    client.force_login(make_staff(event.festival, "organiser"))
    board = text(client.get(reverse("board", kwargs={"festival": event.festival.slug, "event": event.slug})))
    assert f'data-clock-url="{clock_url(event)}"' in board and "round-clock-board" in board


@db
def test_the_clocks_json_is_what_the_script_reads(client):
    """The keys static/js/turn-timer.js uses, so a renamed key fails here rather than on the day."""
    data = json.loads(get_clock(client, running_stage().event).content)
    assert {"state", "stage", "name", "starts_at_ms", "ends_at_ms", "starts_local", "ends_local",
            "poll_seconds"} <= set(data)
