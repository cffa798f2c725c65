"""The format strategy (tournament.formats.strategy): what differs between Busan (R8.1) and Hong Kong (R8.2),
asked of `format_of(event)` with plain data."""

import datetime as dt
from decimal import Decimal as D
from types import SimpleNamespace

import pytest

from tournament.formats import BUSAN, FORMATS, HONG_KONG, busan, format_named, format_of
from tournament.formats.ranking import AVERAGE, TOTAL, SeatResult
from tournament.formats.strategy import (
    BRIEFING,
    FINAL,
    PLAY,
    PLAYOFF,
    ROUND,
    SCORING,
    PlannedSlot,
)

START = dt.datetime(2014, 5, 10, 11, 0, tzinfo=dt.UTC)
MINUTE = dt.timedelta(minutes=1)


def event(format, **fields):
    values = {"format": format, "stage_games": [3, 3, 3], "final_games": 1, "rotation_games": 3,
              "starts_at": START, "checkin_opens_at": START - 30 * MINUTE, "checkin_closes_at": START - 10 * MINUTE}
    return SimpleNamespace(**{**values, **fields})


def stages(*advances):
    return [SimpleNamespace(number=n, advance=a) for n, a in enumerate(advances, start=1)]


def test_each_event_format_value_has_its_strategy():
    from tournament.models import Event, Stage

    assert set(FORMATS) == set(Event.Format.values)
    assert {format_of(event(value)).key for value in Event.Format.values} == set(Event.Format.values)
    # The strategy reads the models' values as plain strings.
    assert (busan.FINAL, "none", "playoff") == (Stage.Advance.FINAL, Stage.Advance.NONE, Stage.Advance.PLAYOFF)
    assert Event.FirstSeating.BY_NUMBER == "number"


def test_an_unknown_or_missing_format_is_busan_the_models_default():
    assert format_named(None) is BUSAN
    assert format_named("") is BUSAN
    assert format_named("no-such-format") is BUSAN


# --- Busan 2014 elimination (R8.1) ----------------------------------------------------------------------------

def test_busan_seats_a_stage_once_for_all_its_games_r8_1():
    fmt = format_of(event("busan"))
    assert fmt is BUSAN and fmt.key == "busan" and fmt.preset == "busan"
    assert not fmt.each_game_anew and fmt.eliminates
    assert [fmt.draw_game(game) for game in (1, 2, 3)] == [1, 1, 1]
    assert fmt.games_of_draw(1, 3) == [1, 2, 3]
    assert fmt.movement_note == ""  # nobody moves between the games of a round
    assert not fmt.seats_by_number(stage_number=1, first_seating="number")  # always a computer draw


def test_busan_starts_with_the_first_round_of_its_plan_r8_1():
    first = BUSAN.first_stage(event("busan"), 128)
    assert (first.number, first.name, first.games, first.advance, first.k) == (1, "Round 1", 3, busan.PER_TABLE, 2)
    final_only = BUSAN.first_stage(event("busan", final_games=2), 4)  # four players: the final alone
    assert (final_only.name, final_only.games, final_only.advance) == ("Final", 2, busan.FINAL)
    settings = BUSAN.settings([3, 2], 1)
    assert [(s.games, s.advance, s.k) for s in settings.stages] == [(3, busan.PER_TABLE, 2), (2, busan.PER_STAGE, 4)]


def test_busan_places_are_decided_by_the_final_r8_1():
    played = stages("table", "table", "stage", "final", "playoff")
    assert BUSAN.deciding_stage(played) is played[3]
    assert BUSAN.deciding_stage(stages("table")) is None  # the final is not created yet
    results = [SeatResult(1, 1, D(30), True, 1), SeatResult(2, 1, D(-10), False, 1),
               SeatResult(3, 1, D(-20), False, 1), SeatResult(4, 1, D(0), False, 1)]
    assert [r.player_id for r in BUSAN.final_ranked([1, 2, 3, 4], results, TOTAL)] == [1, 4, 2, 3]


def test_busan_timetable_has_a_slot_per_round_then_the_final_r9():
    assert BUSAN.planned_slots(event("busan", stage_games=[3, 2], final_games=1)) == [
        PlannedSlot(ROUND, START + 10 * MINUTE, START + 80 * MINUTE, 1),  # 10 minutes' draw, 70 for 3 games
        PlannedSlot(ROUND, START + 90 * MINUTE, START + 137 * MINUTE, 2),  # 2 games: 47 minutes
        PlannedSlot(FINAL, START + 147 * MINUTE, START + 177 * MINUTE),
    ]
    assert BUSAN.has_slot(ROUND, 2, [3, 3]) and BUSAN.has_slot(FINAL, 0, [3, 3])
    assert not BUSAN.has_slot(ROUND, 3, [3, 3]) and not BUSAN.has_slot(PLAY, 0, [3, 3])
    assert BUSAN.checkin_label == "Check-in"


@pytest.mark.parametrize("kind, games, minutes, slot", [
    (ROUND, 3, 70, (ROUND, 2)), (ROUND, 2, 47, (ROUND, 2)), (FINAL, 1, 30, (FINAL, 0)), (FINAL, 4, 120, (FINAL, 0)),
    (PLAYOFF, 1, 30, None), (ROUND, 0, 23, (ROUND, 2)),
])
def test_busan_clock_lengths_and_where_a_stage_starts_in_the_timetable_r9(kind, games, minutes, slot):
    assert BUSAN.stage_minutes(kind, games) == minutes
    assert BUSAN.timetable_slot(kind, 2) == slot


# --- Hong Kong 2016 move up a table (R8.2) ----------------------------------------------------------------------

def test_hong_kong_seats_every_game_anew_from_the_game_before_r8_2():
    fmt = format_of(event("hk"))
    assert fmt is HONG_KONG and fmt.key == "hk" and fmt.preset == "hk"
    assert fmt.each_game_anew and not fmt.eliminates
    assert [fmt.draw_game(game) for game in (1, 2, 3)] == [1, 2, 3]
    assert fmt.games_of_draw(2, 3) == [2]
    assert fmt.movement_note == "The top two of the last table move up to table 1."
    assert fmt.seats_by_number(stage_number=1, first_seating="number")  # players 1–4 at table 1 …
    assert not fmt.seats_by_number(stage_number=1, first_seating="random")
    assert not fmt.seats_by_number(stage_number=2, first_seating="number")


def test_hong_kong_plays_one_stage_that_decides_the_places_r8_2():
    first = HONG_KONG.first_stage(event("hk", rotation_games=4), 64)
    assert (first.number, first.name, first.games, first.advance, first.k) == (1, "Round 1", 4, "none", 0)
    played = stages("none", "playoff", "playoff")
    assert HONG_KONG.deciding_stage(played) is played[0]  # a playoff orders tied players only (R7)
    assert HONG_KONG.deciding_stage([]) is None
    results = [SeatResult(1, 1, D(30), True, 1), SeatResult(2, 1, D(-30), False, 1),
               SeatResult(1, 1, D(-10), False, 2), SeatResult(2, 2, D(5), True, 2), SeatResult(3, 2, D(40), True, 1)]
    # One win each, then average points: 3 +40 in one game, 1 +10 and 2 −12.5 over two.
    assert [r.player_id for r in HONG_KONG.final_ranked([1, 2, 3], results, AVERAGE)] == [3, 1, 2]


def test_hong_kong_timetable_is_briefing_play_and_scoring_r9():
    assert HONG_KONG.planned_slots(event("hk", rotation_games=3)) == [
        PlannedSlot(BRIEFING, START - 10 * MINUTE, START),
        PlannedSlot(PLAY, START, START + 90 * MINUTE),  # 10:20–11:50 for 3 games
        PlannedSlot(SCORING, START + 90 * MINUTE, START + 105 * MINUTE),
    ]
    assert all(HONG_KONG.has_slot(kind, 0, []) for kind in (BRIEFING, PLAY, SCORING))
    assert not HONG_KONG.has_slot(ROUND, 1, [3]) and not HONG_KONG.has_slot(FINAL, 0, [3])
    assert HONG_KONG.checkin_label == "Arrival and check-in"


@pytest.mark.parametrize("kind, games, minutes, slot", [
    (ROUND, 3, 90, (PLAY, 0)), (ROUND, 4, 120, (PLAY, 0)), (PLAYOFF, 1, 30, None),
])
def test_hong_kong_clock_lengths_and_where_play_starts_in_the_timetable_r9(kind, games, minutes, slot):
    assert HONG_KONG.stage_minutes(kind, games) == minutes
    assert HONG_KONG.timetable_slot(kind, 1) == slot
