"""R1: tiles and the compact notation."""

import pytest

from rules.errors import NotationError
from rules.tiles import JOKER, MAX_RACK_VALUE, Tile, format_tiles, full_set, parse_tiles


def test_r1_full_set_has_106_tiles():
    tiles = full_set()
    assert len(tiles) == 106
    assert sum(t.is_joker for t in tiles) == 2
    assert len(set(tiles)) == 53
    assert sum(t.number for t in tiles) == MAX_RACK_VALUE == 728


def test_r1_parse_case_insensitive_spaces_and_commas():
    assert parse_tiles("r5, B13  y1,K10 j") == [
        Tile("R", 5),
        Tile("B", 13),
        Tile("Y", 1),
        Tile("K", 10),
        JOKER,
    ]
    assert parse_tiles("") == []
    assert parse_tiles(" , ") == []
    assert parse_tiles(["R5", "J"]) == [Tile("R", 5), JOKER]


def test_r1_orange_is_yellow_and_prints_as_y():
    assert parse_tiles("O7 o8") == [Tile("Y", 7), Tile("Y", 8)]
    assert format_tiles(parse_tiles("O7")) == "Y7"


def test_r1_format_round_trip_and_sort():
    tiles = parse_tiles("J K1 R13 B2")
    assert format_tiles(tiles) == "J K1 R13 B2"
    assert format_tiles(tiles, sort=True) == "R13 B2 K1 J"
    assert parse_tiles(format_tiles(full_set())) == full_set()


@pytest.mark.parametrize(
    "text, token",
    [
        ("R14", "R14"),
        ("X3", "X3"),
        ("R0", "R0"),
        ("R5 5R", "5R"),
        ("R", "R"),
        ("J2", "J2"),
        ("R5 R-1", "R-1"),
        ("R123", "R123"),
        ("K9 K10 JJ", "JJ"),
    ],
)
def test_r1_bad_notation_names_the_token(text, token):
    with pytest.raises(NotationError) as e:
        parse_tiles(text)
    assert e.value.token == token
    assert token in str(e.value)


def test_r1_more_than_two_copies_or_jokers_is_an_error():
    with pytest.raises(NotationError) as e:
        parse_tiles("R5 r5 R5")
    assert e.value.token == "R5"
    with pytest.raises(NotationError) as e:
        parse_tiles("J J J")
    assert e.value.token == "J"
    assert len(parse_tiles("R5 R5 R5", check_counts=False)) == 3


def test_r1_tile_constructor_rejects_bad_values():
    with pytest.raises(NotationError):
        Tile("R", 14)
    with pytest.raises(NotationError):
        Tile("G", 3)
    with pytest.raises(NotationError):
        Tile("J", 3)


def test_r1_non_text_token_is_an_error():
    with pytest.raises(NotationError):
        parse_tiles(["R5", 7])
