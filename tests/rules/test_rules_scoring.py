"""R4-R6 game scoring, with every worked example of RULES.md."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import InvalidSheetError
from rules.record import SeatRecord, TableRecord
from rules.rulesets import get_ruleset
from rules.scoring import score_game, split_blocked
from rules.tiles import parse_tiles

WRC, HK, CASUAL = get_ruleset("wrc-2014"), get_ruleset("hk-2016"), get_ruleset("casual")


def seat(
    n, value=None, *, player=None, out=False, tiles=None, jokers=None, opened=True, could=None, knocked=False
):
    return SeatRecord(
        seat=n,
        player=player,
        went_out=out,
        tiles=tuple(parse_tiles(tiles)) if tiles is not None else None,
        rack_value=value,
        jokers=jokers,
        opened=opened,
        could_open=could,
        conduct_penalty=knocked,
    )


def blocked(*values, ruleset=WRC, end="blocked"):
    return score_game(ruleset, TableRecord(end, tuple(seat(i + 1, v) for i, v in enumerate(values))))


def scores(result):
    return [s.score for s in result.seats]


def D(*xs):
    return [Decimal(x).quantize(Decimal("0.01")) for x in xs]


def test_r6_hk_example_1():
    r = blocked(5, 10, 15, 20, ruleset=HK)
    assert scores(r) == D(30, -5, -10, -15)
    assert r.winners == [1]


def test_r6_hk_example_2_two_winners():
    r = blocked(1, 1, 10, 6, ruleset=HK)
    assert scores(r) == D(7, 7, -9, -5)
    assert r.winners == [1, 2]


def test_r6_uneven_share_leftover_hundredths_to_winners_in_seat_order():
    r = blocked(5, 5, 5, 6)  # pot 1 point for 3 winners
    assert scores(r) == D("0.34", "0.33", "0.33", -1)
    assert sum(scores(r)) == 0
    assert split_blocked([5, 5, 6]) == ([50, 50, -100], [True, True, False])


def test_r6_everyone_equal_is_everyone_wins_with_zero():
    r = blocked(7, 7, 7)
    assert scores(r) == D(0, 0, 0) and r.winners == [1, 2, 3]


def test_r4_time_scores_as_blocked_by_default():
    assert scores(blocked(5, 10, end="time")) == D(5, -5)


def test_r4_time_is_void_when_the_setting_is_off():
    r = blocked(5, 10, ruleset=WRC.with_changes(time_called_scores_as_blocked=False), end="time")
    assert r.void and scores(r) == D(0, 0) and r.winners == []
    assert [p.code for p in r.warnings] == ["time_game_void"]


# Seed 001 golden table: four went-out games, penalties derived from the published scores.
SEED_001 = [
    # (winner index, penalties of the others in seat order 루미 큐브 퍼니 알토)
    (0, [None, 5, 16, 3]),
    (2, [6, 11, None, 5]),
    (3, [32, 13, 2, None]),
    (0, [None, 14, 16, 19]),
]
NAMES = ["루미", "큐브", "퍼니", "알토"]


def _seed_001_games():
    games = []
    for winner, penalties in SEED_001:
        seats = tuple(
            seat(i + 1, player=NAMES[i], out=True) if i == winner else seat(i + 1, p, player=NAMES[i])
            for i, p in enumerate(penalties)
        )
        games.append(score_game(WRC, TableRecord("went_out", seats)))
    return games


def test_r6_seed_001_golden_table():
    games = _seed_001_games()
    assert [scores(g) for g in games] == [
        D(24, -5, -16, -3),
        D(-6, -11, 22, -5),
        D(-32, -13, -2, 47),
        D(49, -14, -16, -19),
    ]


def test_r6_seed_003_hk_sheet():
    seats = (
        seat(1, player="甲", tiles="R3 B4"),  # 7
        seat(2, player="乙", out=True),
        seat(3, player="丙", tiles="K13 J R10 Y8"),  # 31 + one joker at 30 (HK)
        seat(4, player="丁", value=50, jokers=0),
    )
    r = score_game(HK, TableRecord("went_out", seats, number=3, game=1))
    assert scores(r) == D(-7, 118, -61, -50)
    assert [s.win for s in r.seats] == [False, True, False, False]
    assert [s.penalty for s in r.seats] == [7, 0, 61, 50]


def test_r5_joker_penalty_depends_on_ruleset():
    seats = (seat(1, out=True), seat(2, tiles="R5 J"))
    assert score_game(WRC, TableRecord("went_out", seats)).by_seat(2).penalty == 55
    assert score_game(CASUAL, TableRecord("went_out", seats)).by_seat(2).penalty == 35
    counted = (seat(1, out=True), seat(2, 5, jokers=1))
    assert score_game(WRC, TableRecord("went_out", counted)).by_seat(2).penalty == 55


def test_r5_never_opened_100_or_200_from_the_tiles():
    cannot = "R1 R2 B5 B9 K11 Y3 Y4 R7 B12 K2 K6 Y10 R13 J"
    can = "K9 K10 J R1 R2 B5 B7 K2 K6 Y3 Y5 Y12 B13 R4"
    seats = (seat(1, out=True), seat(2, tiles=cannot, opened=False), seat(3, tiles=can, opened=False))
    r = score_game(WRC, TableRecord("went_out", seats))
    assert [s.penalty for s in r.seats] == [0, 100, 200]  # jokers add nothing (R5.1)
    assert [s.could_open for s in r.seats] == [None, False, True]
    assert scores(r) == D(300, -100, -200)


def test_r5_never_opened_referee_answer_when_only_counted():
    seats = (seat(1, out=True), seat(2, 80, opened=False, could=True), seat(3, 80, opened=False, could=False))
    assert [s.penalty for s in score_game(WRC, TableRecord("went_out", seats)).seats] == [0, 200, 100]
    # a counted rack too small to open cannot have opened, whatever the referee left blank
    tiny = (seat(1, out=True), seat(2, 20, opened=False))
    assert score_game(WRC, TableRecord("went_out", tiny)).by_seat(2).penalty == 100


def test_r5_knocked_rack_is_200_whatever_it_held():
    seats = (seat(1, 3), seat(2, tiles="R1", knocked=True), seat(3, opened=False, knocked=True))
    r = score_game(HK, TableRecord("blocked", seats))
    assert [s.penalty for s in r.seats] == [3, 200, 200]
    assert scores(r) == D(394, -197, -197)


def test_r5_knocked_rack_only_where_the_rules_have_it():
    seats = (seat(1, out=True), seat(2, 12, knocked=True))
    with pytest.raises(InvalidSheetError) as e:
        score_game(WRC, TableRecord("went_out", seats))
    assert [p.code for p in e.value.problems] == ["no_knocked_rack_rule"]
    cup = WRC.with_changes(slug="busan-cup", knocked_rack_penalty=150)
    assert [s.penalty for s in score_game(cup, TableRecord("went_out", seats)).seats] == [0, 150]


def test_scoring_refuses_a_sheet_with_errors():
    with pytest.raises(InvalidSheetError) as e:
        score_game(WRC, TableRecord("went_out", (seat(1, 5), seat(2, 6))))
    assert [p.code for p in e.value.problems] == ["no_one_went_out"]


# --- properties -----------------------------------------------------------------------------------
penalty_lists = st.lists(st.integers(0, 400), min_size=2, max_size=4)


@settings(max_examples=200, deadline=None)
@given(penalty_lists, st.booleans(), st.randoms(use_true_random=False))
def test_r6_scores_sum_to_zero_and_seat_listing_order_does_not_matter(values, went_out, rnd):
    if went_out:
        seats = [seat(1, out=True)] + [seat(i + 2, v) for i, v in enumerate(values[1:])]
        end = "went_out"
    else:
        seats = [seat(i + 1, v) for i, v in enumerate(values)]
        end = "blocked"
    r = score_game(WRC, TableRecord(end, tuple(seats)))
    assert sum(scores(r)) == 0
    assert all(s.score == s.score.quantize(Decimal("0.01")) for s in r.seats)
    shuffled = list(seats)
    rnd.shuffle(shuffled)
    assert score_game(WRC, TableRecord(end, tuple(shuffled))) == r


@settings(max_examples=200, deadline=None)
@given(penalty_lists, st.randoms(use_true_random=False))
def test_r6_seat_numbers_change_nothing_but_the_leftover_hundredths(values, rnd):
    numbers = list(range(1, len(values) + 1))
    r1 = blocked(*values)
    rnd.shuffle(numbers)
    r2 = score_game(
        WRC, TableRecord("blocked", tuple(seat(n, v) for n, v in zip(numbers, values, strict=True)))
    )
    for n, a in zip(
        numbers, r1.seats, strict=True
    ):  # player with penalty values[i] sat at seat i+1, then at numbers[i]
        b = r2.by_seat(n)
        assert (a.penalty, a.win) == (b.penalty, b.win)
        assert abs(a.score - b.score) <= Decimal("0.01")
        if not a.win:
            assert a.score == b.score
