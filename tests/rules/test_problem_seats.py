"""Table-wide problems name the seats they come from, and the numbers and tiles they are about, so a sheet can
mark each of those seats and say it in any language (R1: two jokers and two copies of each tile in a set)."""

from rules.record import SeatRecord, TableRecord
from rules.rulesets import get_ruleset
from rules.tiles import parse_tiles
from rules.validation import validate

WRC = get_ruleset("wrc-2014")


def seat(n, value=None, *, tiles=None, jokers=None, out=False, player=None):
    return SeatRecord(n, player or f"p{n}", out,
                      tuple(parse_tiles(tiles, check_counts=False)) if tiles is not None else None, value, jokers)


def problem(code, end, *seats):
    found = [p for p in validate(WRC, TableRecord(end, seats)) if p.code == code]
    assert len(found) == 1, found
    return found[0]


def test_three_jokers_at_two_seats_mark_those_two_seats():
    # R1: a set has two jokers; seat 2 holds two (tiles), seat 4 one (counted): one of them is wrong.
    found = problem("too_many_jokers", "went_out",
                    seat(1, out=True), seat(2, tiles="R5 J J"), seat(3, 10, jokers=0), seat(4, 7, jokers=1))
    assert found.seat is None and found.seats == (2, 4)
    assert found.params == {"count": 3}
    assert found.to_dict()["seats"] == [2, 4]


def test_a_seat_with_an_impossible_joker_count_is_its_own_problem_not_part_of_the_table_count():
    # Seat 3 "holds" 3 jokers: jokers_out_of_range there (R1); the table count leaves it out.
    problems = validate(WRC, TableRecord("blocked", (seat(1, 5, jokers=1), seat(2, 6, jokers=1), seat(3, 7, jokers=3))))
    assert [(p.code, p.seat) for p in problems] == [("jokers_out_of_range", 3)]


def test_a_third_copy_of_a_tile_marks_every_seat_holding_it_and_names_the_tile():
    found = problem("too_many_copies", "blocked",
                    seat(1, tiles="R5 B6"), seat(2, tiles="R5"), seat(3, tiles="K1"), seat(4, tiles="R5 R5"))
    assert found.seats == (1, 2, 4)
    assert found.params == {"tile": "R5", "count": 4}


def test_a_player_seated_twice_marks_both_seats():
    found = problem("duplicate_player", "blocked", seat(1, 5, player="kim"), seat(2, 6, player="kim"))
    assert found.seats == (1, 2)


def test_seat_problems_keep_their_numbers_as_parameters():
    found = problem("rack_value_mismatch", "blocked", seat(1, 12, tiles="R5 B6"), seat(2, 3))
    assert (found.seat, found.params) == (1, {"entered": 12, "counted": 11})


def test_problems_without_seats_or_numbers_keep_the_old_record_shape():
    found = problem("no_one_went_out", "went_out", seat(1, 5), seat(2, 6))
    assert found.to_dict() == {"code": "no_one_went_out", "seat": None, "message": found.message, "severity": "error"}
