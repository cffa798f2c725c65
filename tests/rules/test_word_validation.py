"""R10 referee checks and the Word sheet validator: stable codes, errors before warnings, never raises."""

import sys

import pytest

from rules.validation import Problem
from rules.word import (
    Turn,
    WordGame,
    WordList,
    WordProblem,
    WordSeat,
    check_turn,
    first_placement_long_enough,
    is_on_table,
    same_word,
    validate_word_game,
    word_long_enough,
)
from rules.word import dictionary as dictionary_module

WORDS = WordList.from_words(
    "planet strand disappear lap chip ear clap pear black air rat soft rack first jazz crane".split(), "test"
)


def game(*turns, jokers=None, seats=(1, 2)):
    jokers = jokers or {}
    return WordGame(seats=tuple(WordSeat(n, f"P{n}", jokers.get(n, 0)) for n in seats), turns=turns)


def codes(problems):
    return [(p.code, p.severity, p.seat, p.turn, p.word) for p in problems]


def test_single_checks():
    assert word_long_enough("EAR") and not word_long_enough("AT") and word_long_enough("A??")
    assert first_placement_long_enough(["BLACK", "A"]) and not first_placement_long_enough(["CRANE"])
    assert is_on_table("clap", ["PEAR", "CLAP"]) and not is_on_table("LAP", ["CLAP"])
    assert same_word("DIS?PPEAR", "disappear") and not same_word("DIS?PPEAR", "DISAPPEARS")


def test_a_clean_sheet_has_no_problems():
    g = game(
        Turn(1, ["BLACK", "AIR"]), Turn(2), Turn(1, ["DISAPPEAR"]), Turn(2, "PLANET"), Turn(1, "LAP CHIP EAR")
    )
    assert validate_word_game(g, dictionary=WORDS) == []


def test_first_placement_of_5_letters_is_refused():
    p = validate_word_game(game(Turn(1, ["CRANE"]), Turn(2, ["PLANET"])), dictionary=WORDS)
    assert codes(p) == [("first_placement_too_short", "error", 1, 1, None)]
    # 6 letters in total across words is enough; a 2-letter word there is only a warning (R10 states the total)
    p = validate_word_game(game(Turn(1, ["RACK", "AT"])), dictionary=None)
    assert codes(p) == [("short_word_in_first_placement", "warning", 1, 1, "AT")]


def test_later_words_need_3_letters():
    g = game(Turn(1, ["PLANET"]), Turn(1, ["AT", "EAR"]))
    assert codes(validate_word_game(g, dictionary=None)) == [("word_too_short", "error", 1, 2, "AT")]


def test_impossible_letter_counts():
    g = game(Turn(1, ["PLANET"]), Turn(1, ["QQQQ"]), Turn(1, ["QQQ"]), Turn(1, ["JAZZ", "FIZZ"]))
    p = validate_word_game(g, dictionary=None)
    assert codes(p) == [
        ("impossible_letters", "error", 1, 2, "QQQQ"),  # one Q + 2 jokers cannot make 4
        ("impossible_letters_in_turn", "error", 1, 4, None),  # 4 Z on the table at once, 1 Z + 2 jokers
        ("needs_jokers", "warning", 1, 3, "QQQ"),  # possible only with both jokers as Q
        ("needs_jokers", "warning", 1, 4, "JAZZ"),
        ("needs_jokers", "warning", 1, 4, "FIZZ"),
    ]
    assert p[0].message == "QQQQ needs 3 jokers (3 more Q); a set has only 2."


def test_word_already_on_table_and_repeated_in_one_turn():
    g = game(Turn(1, ["PLANET"]), Turn(2, ["planet", "CRANE"]), Turn(1, ["EAR", "EAR"]))
    p = validate_word_game(g, dictionary=WORDS)
    assert codes(p) == [
        ("duplicate_word_in_turn", "error", 1, 3, "EAR"),
        ("word_already_on_table", "warning", 2, 2, "PLANET"),
    ]


def test_not_in_dictionary_is_a_warning_and_jokers_are_read():
    g = game(Turn(1, ["PLANET", "XQZT"]), Turn(2, ["DIS?PPEAR"]))
    p = validate_word_game(g, dictionary=WORDS)
    assert codes(p) == [("not_in_dictionary", "warning", 1, 1, "XQZT")]
    assert "(test)" in p[0].message
    assert validate_word_game(g, dictionary=None) == []


def test_dictionary_unavailable_is_reported_once(monkeypatch):
    dictionary_module.default_dictionary.cache_clear()
    monkeypatch.setitem(sys.modules, "spellchecker", None)  # as if the package were not installed
    try:
        p = validate_word_game(game(Turn(1, ["PLANET", "XQZT"]), Turn(2, ["STRAND"])))
        assert codes(p) == [("dictionary_unavailable", "warning", None, None, None)]
    finally:
        monkeypatch.undo()
        dictionary_module.default_dictionary.cache_clear()


def test_seats_jokers_and_drew():
    g = WordGame(
        seats=(WordSeat(1, "A", 2), WordSeat(1, "A", 1), WordSeat(5, "B", 3)),
        turns=(Turn(3, ["PLANET"]), Turn(1, [], used_all_tiles=True)),
    )
    p = validate_word_game(g, dictionary=None)
    assert codes(p) == [
        ("duplicate_seat", "error", 1, None, None),
        ("duplicate_player", "error", None, None, None),
        ("bad_seat_number", "error", 5, None, None),
        ("too_many_jokers", "error", None, None, None),  # 2 + 1 on the racks (3 is out of range anyway)
        ("unknown_seat", "error", 3, 1, None),
        ("drew_used_all_tiles", "error", 1, 2, None),
        ("jokers_out_of_range", "error", 5, None, None),
    ]
    assert codes(validate_word_game(WordGame(seats=(WordSeat(1),)), dictionary=None)) == [
        ("too_few_players", "error", None, None, None),
        ("no_turns", "warning", None, None, None),
    ]
    five = WordGame(seats=tuple(WordSeat(n) for n in range(1, 6)), turns=(Turn(1),))
    assert [p.code for p in validate_word_game(five, dictionary=None)][:2] == [
        "too_many_players",
        "bad_seat_number",
    ]


def test_first_placement_that_used_all_tiles_needs_14_letters():
    p = validate_word_game(game(Turn(1, ["PLANET"], used_all_tiles=True)), dictionary=None)
    assert codes(p) == [("used_all_tiles_too_few_letters", "error", 1, 1, None)]
    ok = game(Turn(1, ["BLACK", "STRAND", "AIR"], used_all_tiles=True))  # 14 letters
    assert validate_word_game(ok, dictionary=None) == []


def test_problems_are_rules_problems_with_turn_and_word():
    (p,) = check_turn(["AT"], seat=2, turn=7, dictionary=None)
    assert isinstance(p, Problem) and isinstance(p, WordProblem)
    assert p.to_dict() == {
        "code": "word_too_short",
        "seat": 2,
        "message": "AT: words have at least 3 letters.",
        "severity": "error",
        "turn": 7,
        "word": "AT",
    }


@pytest.mark.parametrize("words", [[], ["PLANET"], ["??????"], ["A" * 20]])
def test_check_turn_never_raises_on_valid_notation(words):
    check_turn(words, first_placement=True, used_all_tiles=True, table_words=["PLANET"], dictionary=WORDS)
