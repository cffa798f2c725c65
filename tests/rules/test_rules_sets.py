"""R2: groups and runs with jokers."""

import pytest

from rules.sets import analyse_set, check_placed_set, is_group, is_run, is_valid_set, set_value
from rules.tiles import parse_tiles as P


@pytest.mark.parametrize(
    "text, value",
    [
        ("K9 B9 J", 27),  # R2 example: group of 9s
        ("R12 R13 J", 36),  # R2 example: run 11-12-13 (no wrap)
        ("R5 J J", 18),  # most valuable role: run 5-6-7
        ("R10 B10 K10", 30),
        ("K8 R8 Y8 B8", 32),
        ("B6 B7 B8 B9", 30),
        ("R1 R2 R3", 6),
        ("R13 J J", 39),  # group 13-13-13 beats run 11-12-13
        ("R1 J J", 6),
        ("R5 J R7", 18),  # joker fills the gap
        ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13", 91),
    ],
)
def test_r2_valid_sets_and_values(text, value):
    placed = analyse_set(P(text))
    assert placed is not None
    assert placed.value == value == set_value(P(text))
    assert check_placed_set(placed)


@pytest.mark.parametrize(
    "text",
    [
        "R12 R13 R1",  # R2: no wrap
        "R13 R1 R2",
        "B6 R7 Y8 K9",
        "R5 R5 B5",  # group colours must differ
        "R5 B5",
        "R5 B5 Y5 K5 J",  # group of 5
        "R5 R7 R9",
        "R5 R8 J",
        "J J",
        "R5 R5 R6",
        "",
    ],
)
def test_r2_invalid_sets(text):
    assert not is_valid_set(P(text, check_counts=False))
    with pytest.raises(ValueError):
        set_value(P(text, check_counts=False))


def test_r2_group_and_run_predicates():
    assert is_group(P("R5 B5 J")) and not is_run(P("R5 B5 J"))
    assert is_run(P("R5 R6 J")) and not is_group(P("R5 R6 J"))


def test_r2_joker_roles_are_recorded():
    placed = analyse_set(P("K9 B9 J"))
    assert placed.kind == "group"
    assert [str(t) for t in placed.represents] == ["R9", "B9", "K9"]
    placed = analyse_set(P("R12 R13 J"))
    assert [str(t) for t in placed.represents] == ["R11", "R12", "R13"]
    assert placed.to_dict() == {
        "kind": "run",
        "tiles": ["J", "R12", "R13"],
        "as": ["R11", "R12", "R13"],
        "value": 36,
    }
