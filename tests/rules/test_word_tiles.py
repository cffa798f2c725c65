"""R10: the Rummikub Word letter tiles, their notation and the letter-count checks."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import NotationError, RulesError
from rules.word import (
    JOKERS_IN_SET,
    LETTER_COUNTS,
    LETTER_TILES,
    SET_SIZE,
    WORD_JOKER,
    LetterTile,
    check_letter_counts,
    format_letters,
    full_letter_set,
    jokers_needed,
    letter_excess,
    letters_possible,
    normalize_word,
    parse_letters,
)

R10 = "A10 B2 C4 D4 E10 F2 G3 H3 I7 J1 K2 L7 M3 N6 O8 P4 Q1 R7 S7 T8 U4 V1 W2 X1 Y2 Z1"


def test_r10_distribution_110_letters_plus_2_jokers():
    assert dict(LETTER_COUNTS) == {tok[0]: int(tok[1:]) for tok in R10.split()}
    assert LETTER_TILES == sum(LETTER_COUNTS.values()) == 110
    tiles = full_letter_set()
    assert len(tiles) == SET_SIZE == 112
    assert sum(t.is_joker for t in tiles) == JOKERS_IN_SET == 2
    assert len(set(tiles)) == 27
    check_letter_counts(tiles)  # the full set is exactly at every count


def test_parse_is_case_insensitive_and_ignores_separators():
    assert parse_letters("dis?") == parse_letters("D, I, S, *") == parse_letters(["DI", "s ?"])
    assert format_letters(parse_letters("d i s *")) == "DIS?"
    assert parse_letters("") == [] and parse_letters(" , ") == []
    assert parse_letters("?")[0] is WORD_JOKER and WORD_JOKER.is_joker


def test_format_sort_and_round_trip():
    assert format_letters(parse_letters("?ZA?B"), sort=True) == "ABZ??"
    full = full_letter_set()
    assert parse_letters(format_letters(full)) == full


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("AB1", "1"),
        ("É", "É"),
        ("A-B", "-"),
        ("ı", "ı"),
        ("ſ", "ſ"),
    ],  # dotless i / long s upper-case to I / S
)
def test_bad_characters_raise_notation_error_with_the_character(text, token):
    with pytest.raises(NotationError) as e:
        parse_letters(text)
    assert e.value.token == token and isinstance(e.value, RulesError) and e.value.code == "bad_notation"


def test_counts_checked_unless_told_not_to():
    with pytest.raises(NotationError) as e:
        parse_letters("QQ")
    assert e.value.token == "Q" and "only 1 Q" in e.value.reason
    with pytest.raises(NotationError) as e:
        parse_letters("???")
    assert e.value.token == "?"
    assert len(parse_letters("QQ???", check_counts=False)) == 5
    with pytest.raises(NotationError):
        LetterTile("AB")


def test_normalize_word():
    assert normalize_word(" dis*ppear ") == "DIS?PPEAR"
    for bad in ["", "   ", "ICE CREAM", "DON'T", "CAFÉ", "A1"]:
        with pytest.raises(NotationError):
            normalize_word(bad)


def test_letters_possible_counting_jokers():
    assert letters_possible("DISAPPEAR") and jokers_needed("DISAPPEAR") == 0
    assert jokers_needed("JAZZ") == 1 and letter_excess("jazz") == {"Z": 1}
    assert jokers_needed("QQQ") == 2 and letters_possible("QQQ")  # Q1 + both jokers: possible
    assert not letters_possible("QQQQ") and letter_excess("QQQQ") == {"Q": 3}
    assert jokers_needed("JAZZ??") == 3 and not letters_possible("JAZZ??")
    assert jokers_needed("DIS?PPEAR") == 1
    # several words on the table at once are counted together
    assert letters_possible(["JAZZ", "ZOO"]) and not letters_possible(["JAZZ", "FIZZ"])


@settings(max_examples=50, deadline=None)
@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyz?*", min_size=1, max_size=20))
def test_normalize_is_idempotent_and_keeps_length(text):
    w = normalize_word(text)
    assert normalize_word(w) == w and len(w) == len(text) and w == w.upper()
    assert jokers_needed(w) >= w.count("?")
