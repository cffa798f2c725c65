"""Score-sheet validation: stable codes, seats, errors apart from warnings; never an exception."""

import pytest

from rules.record import SeatRecord, TableRecord
from rules.rulesets import get_ruleset
from rules.tiles import parse_tiles
from rules.validation import validate

WRC = get_ruleset("wrc-2014")
HK = get_ruleset("hk-2016")
NEVER_OPENED_CANNOT = "R1 R2 B5 B9 K11 Y3 Y4 R7 B12 K2 K6 Y10 R13 J"
NEVER_OPENED_CAN = "K9 K10 J R1 R2 B5 B7 K2 K6 Y3 Y5 Y12 B13 R4"


def s(
    n, value=None, *, player=None, out=False, tiles=None, jokers=None, opened=True, could=None, knocked=False
):
    return SeatRecord(
        n,
        player,
        out,
        tuple(parse_tiles(tiles, check_counts=False)) if tiles is not None else None,
        value,
        jokers,
        opened,
        could,
        knocked,
    )


def codes(end, *seats, ruleset=WRC):
    return [(p.code, p.seat, p.severity) for p in validate(ruleset, TableRecord(end, seats))]


def test_a_good_sheet_has_no_problems():
    assert codes("went_out", s(1, out=True), s(2, 10), s(3, tiles="R5 J")) == []
    assert codes("blocked", s(1, 10), s(2, 12)) == []


def test_a_knocked_over_rack_under_rules_without_that_penalty_is_an_error_at_its_seat():
    found = codes("went_out", s(1, out=True), s(2, 10, knocked=True), s(3, 4))
    assert found == [("no_knocked_rack_rule", 2, "error")]
    assert codes("went_out", s(1, out=True, knocked=True), s(2, 10)) == [("no_knocked_rack_rule", 1, "error")]
    assert codes("went_out", s(1, out=True), s(2, 10, knocked=True), ruleset=HK) == []



@pytest.mark.parametrize(
    "end, seats, expected",
    [
        ("went_out", [s(1, 5), s(2, 6)], ("no_one_went_out", None)),
        ("went_out", [s(1, out=True), s(2, out=True), s(3, 4)], ("several_went_out", 1)),
        ("blocked", [s(1, out=True), s(2, 4)], ("went_out_in_blocked_game", 1)),
        ("time", [s(1, out=True), s(2, 4)], ("went_out_in_blocked_game", 1)),
        ("went_out", [s(1, out=True, tiles="R5"), s(2, 4)], ("winner_holds_tiles", 1)),
        ("went_out", [s(1, 3, out=True), s(2, 4)], ("winner_holds_tiles", 1)),
        ("went_out", [s(1, out=True), s(2, tiles="R5 R5"), s(3, tiles="R5")], ("too_many_copies", None)),
        ("went_out", [s(1, out=True), s(2, tiles="J J"), s(3, 1, jokers=1)], ("too_many_jokers", None)),
        ("went_out", [s(1, out=True), s(2, -3)], ("rack_value_negative", 2)),
        ("went_out", [s(1, out=True), s(2, 729)], ("rack_value_too_high", 2)),
        ("went_out", [s(1, out=True), s(2, 10, jokers=3)], ("jokers_out_of_range", 2)),
        ("went_out", [s(1, out=True), s(2, 11, tiles="R5 B5")], ("rack_value_mismatch", 2)),
        ("went_out", [s(1, out=True), s(2, tiles="R5 J", jokers=0)], ("jokers_mismatch", 2)),
        ("went_out", [s(1, out=True)], ("too_few_players", None)),
        ("went_out", [s(1, out=True)] + [s(i, 5) for i in range(2, 6)], ("too_many_players", None)),
        ("went_out", [s(1, out=True), s(1, 5)], ("duplicate_seat", 1)),
        ("went_out", [s(1, out=True, player="A"), s(2, 5, player="A")], ("duplicate_player", None)),
        ("went_out", [s(1, out=True), s(7, 5)], ("bad_seat_number", 7)),
        (
            "went_out",
            [s(1, out=True), s(2, tiles=NEVER_OPENED_CAN, opened=False, could=False)],
            ("marked_could_not_open_but_can", 2),
        ),
        (
            "went_out",
            [s(1, out=True), s(2, tiles=NEVER_OPENED_CANNOT, opened=False, could=True)],
            ("marked_could_open_but_cannot", 2),
        ),
        (
            "went_out",
            [s(1, out=True), s(2, 12, opened=False, could=True)],
            ("marked_could_open_but_cannot", 2),
        ),
        ("went_out", [s(1, out=True), s(2, 90, opened=False)], ("could_open_missing", 2)),
        ("went_out", [s(1, out=True), s(2)], ("rack_missing", 2)),
    ],
)
def test_errors(end, seats, expected):
    found = codes(end, *seats)
    assert (*expected, "error") in found


@pytest.mark.parametrize(
    "end, seats, expected",
    [
        ("went_out", [s(1, out=True), s(2, 150)], ("high_rack_value", 2)),
        ("went_out", [s(1, out=True), s(2, tiles="R1 R2", opened=False)], ("never_opened_small_rack", 2)),
        ("went_out", [s(1, out=True, knocked=True), s(2, 5)], ("conduct_penalty_on_winner", 1)),
        ("went_out", [s(1, out=True, opened=False), s(2, 5)], ("winner_not_opened", 1)),
        ("blocked", [s(1, 0), s(2, 5)], ("empty_rack_in_blocked_game", 1)),
        ("went_out", [s(1, out=True), s(2, tiles="")], ("loser_empty_rack", 2)),
    ],
)
def test_warnings(end, seats, expected):
    found = codes(end, *seats, ruleset=HK)  # the rules with a knocked-over-rack penalty, for its warning
    assert (*expected, "warning") in found
    assert all(sev == "warning" for _, _, sev in found)


def test_time_void_warning_only_when_setting_is_off():
    off = WRC.with_changes(time_called_scores_as_blocked=False)
    assert codes("time", s(1, 4), s(2, 5), ruleset=off) == [("time_game_void", None, "warning")]
    assert codes("time", s(1, 4), s(2, 5)) == []


def test_errors_come_before_warnings_and_messages_are_plain_text():
    problems = validate(WRC, TableRecord("went_out", (s(1, 150), s(2, 5))))
    assert [p.severity for p in problems] == ["error", "warning"]
    assert all(isinstance(p.message, str) and p.message for p in problems)
    assert problems[0].to_dict()["code"] == "no_one_went_out"


def test_invalid_tile_counts_in_one_rack_do_not_crash_the_solver():
    found = codes("went_out", s(1, out=True), s(2, tiles="R5 R5 R5 J J J", opened=False, could=False))
    assert ("too_many_copies", None, "error") in found and ("too_many_jokers", None, "error") in found
