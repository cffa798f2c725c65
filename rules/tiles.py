"""Tiles and the compact notation (R1).

Notation: a colour letter and a number (``R5``, ``B13``, ``Y1``, ``K10``) or ``J`` for a joker;
case-insensitive; tokens separated by spaces and/or commas. ``O`` (orange, older Korean sets) is read
as ``Y`` — yellow and orange are the same colour (R1) — and always printed as ``Y``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import NotationError

COLOURS = ("R", "B", "Y", "K")  # red, blue, yellow (= orange), black (R1)
COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
NUMBERS = range(1, 14)
COPIES = 2  # two copies of each numbered tile (R1)
JOKERS_IN_SET = 2  # two jokers (R1)
MAX_RACK_VALUE = COPIES * len(COLOURS) * sum(NUMBERS)  # 728: every numbered tile on one rack

_TOKEN = re.compile(r"^([RBYKO])(\d{1,2})$")
_SPLIT = re.compile(r"[\s,]+")


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile. ``colour`` is ``R``/``B``/``Y``/``K``, or ``J`` for a joker (whose ``number`` is 0)."""

    colour: str
    number: int

    def __post_init__(self):
        if self.colour == "J":
            if self.number != 0:
                raise NotationError(f"J{self.number}", "a joker has no number")
        elif self.colour not in COLOUR_INDEX:
            raise NotationError(f"{self.colour}{self.number}", "colour must be R, B, Y or K")
        elif not isinstance(self.number, int) or isinstance(self.number, bool) or not 1 <= self.number <= 13:
            raise NotationError(f"{self.colour}{self.number}", "number must be 1 to 13")

    @property
    def is_joker(self) -> bool:
        return self.colour == "J"

    @property
    def sort_key(self) -> tuple[int, int]:
        """Colour order R, B, Y, K, then number; jokers last."""
        return (COLOUR_INDEX.get(self.colour, 4), self.number)

    def __str__(self) -> str:
        return "J" if self.is_joker else f"{self.colour}{self.number}"

    def __repr__(self) -> str:
        return f"Tile({str(self)})"

    @classmethod
    def parse(cls, token: str) -> Tile:
        """Read one token (``r5``, ``K13``, ``j``, ``O7`` = ``Y7``)."""
        raw = token
        t = token.strip().upper()
        if t == "J":
            return JOKER
        m = _TOKEN.match(t)
        if not m:
            if t[:1] and t[:1] not in "RBYKOJ":
                raise NotationError(raw, "unknown colour (use R, B, Y, K or J for a joker)")
            raise NotationError(raw, "not a tile (write a colour letter and a number 1-13, e.g. R5, or J)")
        colour, number = m.group(1), int(m.group(2))
        if not 1 <= number <= 13:
            raise NotationError(raw, "number must be 1 to 13")
        return cls("Y" if colour == "O" else colour, number)


JOKER = Tile("J", 0)


def parse_tiles(text: str | Iterable[str], *, check_counts: bool = True) -> list[Tile]:
    """Parse notation such as ``"R5 B13, y1 K10 J"`` into tiles, keeping the order written.

    ``text`` may also be a list of tokens. With ``check_counts`` (default) more than two copies of a
    tile or more than two jokers raise :class:`NotationError` naming the tile (R1).
    """
    if isinstance(text, str):
        tokens = [t for t in _SPLIT.split(text.strip()) if t]
    else:
        tokens = []
        for item in text:
            if not isinstance(item, str):
                raise NotationError(repr(item), "a tile must be written as text, e.g. R5")
            tokens.extend(t for t in _SPLIT.split(item.strip()) if t)
    tiles = [Tile.parse(t) for t in tokens]
    if check_counts:
        check_tile_counts(tiles)
    return tiles


def check_tile_counts(tiles: Iterable[Tile]) -> None:
    """Raise :class:`NotationError` if a tile appears more often than it exists in the set (R1)."""
    for tile, n in Counter(tiles).items():
        if tile.is_joker and n > JOKERS_IN_SET:
            raise NotationError("J", f"{n} jokers, but a set has only {JOKERS_IN_SET}")
        if not tile.is_joker and n > COPIES:
            raise NotationError(str(tile), f"{n} copies, but a set has only {COPIES} of each tile")


def format_tiles(tiles: Iterable[Tile], *, sort: bool = False) -> str:
    """Tiles in compact notation, space-separated (``sort=True``: colour order, then number)."""
    tiles = list(tiles)
    if sort:
        tiles = sorted(tiles, key=lambda t: t.sort_key)
    return " ".join(str(t) for t in tiles)


def full_set() -> list[Tile]:
    """The 106 tiles of a classic set (R1): 4 colours x 13 numbers x 2 copies, plus 2 jokers."""
    return [Tile(c, n) for c in COLOURS for n in NUMBERS for _ in range(COPIES)] + [JOKER] * JOKERS_IN_SET


def numbers_sum(tiles: Iterable[Tile]) -> int:
    """Sum of the numbers on the numbered tiles (jokers count 0)."""
    return sum(t.number for t in tiles)


def joker_count(tiles: Iterable[Tile]) -> int:
    return sum(1 for t in tiles if t.is_joker)
