"""R10 scoring: the longest new word per turn, doubled for emptying the rack, -30 per joker left,
highest total wins, ties share the win; totals are exact ints and always the sum of the turns."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import InvalidSheetError
from rules.word import (
    JOKER_LEFT_PENALTY,
    Turn,
    WordGame,
    WordSeat,
    check_word_sheet,
    longest_word,
    score_word_game,
    turn_points,
)


def game(*turns, jokers=None, seats=(1, 2)):
    jokers = jokers or {}
    return WordGame(seats=tuple(WordSeat(n, f"P{n}", jokers.get(n, 0)) for n in seats), turns=turns)


def test_r10_dis_plus_appear_makes_disappear():
    # rack DIS, table APPEAR -> DISAPPEAR: 9 points, 18 when the turn used every tile on the rack
    assert turn_points(["DISAPPEAR"]) == 9
    assert turn_points(["disappear"], used_all_tiles=True) == 18


def test_r10_ih_with_clap_and_pear_makes_lap_chip_ear():
    assert longest_word(["LAP", "CHIP", "EAR"]) == "CHIP"
    assert turn_points(["LAP", "CHIP", "EAR"]) == 4
    assert turn_points(["LAP", "CHIP", "EAR"], used_all_tiles=True) == 8


def test_drew_scores_nothing_and_equal_longest_words_keep_the_first():
    assert turn_points([]) == 0 and longest_word([]) is None
    assert longest_word(["EAR", "LAP"]) == "EAR"
    assert turn_points(["DIS?PPEAR"]) == 9  # a joker is a letter


def test_whole_game_per_turn_points_running_totals_and_joker_penalty():
    g = game(
        Turn(1, ["BLACK", "AIR"]),  # first placement, 8 letters: 5
        Turn(2),  # drew
        Turn(1, ["DISAPPEAR"], used_all_tiles=True),  # 18
        Turn(2, ["FIRSTS"]),  # 6
        Turn(2, "LAP CHIP EAR"),  # 4
        jokers={2: 1},
    )
    s = score_word_game(g)
    assert [(t.number, t.seat, t.longest, t.points, t.doubled, t.total) for t in s.turns] == [
        (1, 1, "BLACK", 5, False, 5),
        (2, 2, None, 0, False, 0),
        (3, 1, "DISAPPEAR", 18, True, 23),
        (4, 2, "FIRSTS", 6, False, 6),
        (5, 2, "CHIP", 4, False, 10),
    ]
    assert s.running_totals()[-1] == {1: 23, 2: 10}
    assert s.running_totals()[1] == {1: 5, 2: 0}
    one, two = s.seats
    assert (one.turn_points, one.joker_penalty, one.total, one.win) == (23, 0, 23, True)
    assert (two.turn_points, two.joker_penalty, two.total, two.win) == (10, -30, -20, False)
    assert s.winners == [1] and s.totals == {1: 23, 2: -20}
    assert all(isinstance(v, int) for v in s.totals.values())
    assert one.to_dict() == {"turn_points": 23, "joker_penalty": 0, "total": 23, "win": True}


def test_minus_30_per_joker_left():
    g = game(Turn(1, ["PLANET"]), Turn(2, ["STRAND"]), jokers={1: 2})
    s = score_word_game(g)
    assert [x.joker_penalty for x in s.seats] == [-2 * JOKER_LEFT_PENALTY, 0] == [-60, 0]
    assert s.totals == {1: -54, 2: 6} and s.winners == [2]
    assert score_word_game(g, joker_penalty=50).totals == {1: -94, 2: 6}


def test_ties_share_the_win():
    g = game(Turn(1, ["PLANET"]), Turn(2, ["STRAND"]), Turn(3), seats=(1, 2, 3))
    s = score_word_game(g)
    assert s.winners == [1, 2] and [x.win for x in s.seats] == [True, True, False]


def test_score_refuses_a_sheet_with_errors_and_check_returns_problems():
    bad = game(Turn(1, ["CRANE"]), Turn(2, ["STRAND"]))  # first placement of 5 letters
    with pytest.raises(InvalidSheetError) as e:
        score_word_game(bad)
    assert [p.code for p in e.value.problems] == ["first_placement_too_short"]
    c = check_word_sheet(bad, dictionary=None)
    assert not c.ok and c.score is None and c.dictionary is None
    assert [(p.code, p.seat, p.turn) for p in c.problems] == [("first_placement_too_short", 1, 1)]


# -- property: totals always equal the sum of the turns ---------------------------------------------

# no J/Q/V/X/Z and at most a few of each letter, so the words of one turn always fit in the set
OPENERS = ["PLANET", "STRAND", "GARDEN", "BLACKS", "MOTHER", "SILENT"]
WORDS = ["CAT", "DOG", "EAR", "LAP", "CHIP", "PEAR", "STONE", "RIDE", "TRAIN", "HOUSE", "MOUNTAIN"]


@st.composite
def games(draw):
    seats = list(range(1, draw(st.integers(2, 4)) + 1))
    turns, placed = [], set()
    for _ in range(draw(st.integers(0, 25))):
        seat = draw(st.sampled_from(seats))
        if draw(st.booleans()):
            turns.append(Turn(seat))
            continue
        if seat not in placed:
            words = [draw(st.sampled_from(OPENERS))]
            used_all = False  # a first placement of 6 letters cannot empty a 14-tile rack
        else:
            words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True))
            used_all = draw(st.booleans())
        placed.add(seat)
        turns.append(Turn(seat, words, used_all))
    jokers = {}
    for _ in range(draw(st.integers(0, 2))):
        s = draw(st.sampled_from(seats))
        jokers[s] = jokers.get(s, 0) + 1
    return game(*turns, jokers=jokers, seats=tuple(seats))


@settings(max_examples=80, deadline=None)
@given(games())
def test_totals_always_equal_the_sum_of_the_turns(g):
    s = score_word_game(g)  # valid by construction: no errors
    for seat in s.seats:
        mine = [t for t in s.turns if t.seat == seat.seat]
        assert seat.turn_points == sum(t.points for t in mine)
        assert seat.total == seat.turn_points - JOKER_LEFT_PENALTY * seat.jokers_left
        running = 0
        for t in mine:
            running += t.points
            assert t.total == running
    for t, turn in zip(s.turns, g.turns, strict=True):
        longest = max((len(w) for w in turn.words), default=0)
        assert t.points == longest * (2 if turn.used_all_tiles and turn.words else 1)
    best = max(s.totals.values())
    assert s.winners == [x.seat for x in s.seats if x.total == best] and s.winners
