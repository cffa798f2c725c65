"""Rummikub Word letter tiles and their notation (R10).

The set: 110 letter tiles with the distribution below, plus 2 jokers (112 tiles).

Notation: one character per tile — a letter ``A``-``Z`` (case-insensitive) or ``?`` for a joker
(``*`` is read as a joker too and printed as ``?``). Spaces and commas between tiles are ignored, so
``"DIS?"``, ``"d i s *"`` and ``"D, I, S, ?"`` are the same four tiles.

A *word* is written the same way without separators (``DISAPPEAR``, ``dis?ppear``); a ``?`` in a
word is a joker standing for a letter the sheet does not name. :func:`normalize_word` gives the
canonical spelling (upper case, jokers as ``?``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ..errors import NotationError

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
JOKER_CHAR = "?"
_JOKER_INPUT = {"?", "*"}

# R10 (seed 002): how many tiles of each letter the set holds.
LETTER_COUNTS: Mapping[str, int] = MappingProxyType(
    {
        "A": 10, "B": 2, "C": 4, "D": 4, "E": 10, "F": 2, "G": 3, "H": 3, "I": 7, "J": 1,
        "K": 2, "L": 7, "M": 3, "N": 6, "O": 8, "P": 4, "Q": 1, "R": 7, "S": 7, "T": 8,
        "U": 4, "V": 1, "W": 2, "X": 1, "Y": 2, "Z": 1,
    }
)  # fmt: skip
LETTER_TILES = sum(LETTER_COUNTS.values())  # 110
JOKERS_IN_SET = 2
SET_SIZE = LETTER_TILES + JOKERS_IN_SET  # 112
DEALT_TILES = 14  # each player starts with 14 tiles (R10)

_SEPARATORS = re.compile(r"[\s,]+")


@dataclass(frozen=True, slots=True)
class LetterTile:
    """One Rummikub Word tile: ``letter`` is ``A``-``Z``, or ``?`` for a joker."""

    letter: str

    def __post_init__(self):
        if self.letter != JOKER_CHAR and (len(self.letter) != 1 or self.letter not in LETTERS):
            raise NotationError(self.letter, "a letter tile is one letter A-Z, or ? for a joker")

    @property
    def is_joker(self) -> bool:
        return self.letter == JOKER_CHAR

    @property
    def sort_key(self) -> tuple[int, str]:
        """Alphabetical, jokers last."""
        return (1, "") if self.is_joker else (0, self.letter)

    def __str__(self) -> str:
        return self.letter

    def __repr__(self) -> str:
        return f"LetterTile({self.letter})"

    @classmethod
    def parse(cls, char: str) -> LetterTile:
        """Read one character (``a`` = ``A``; ``?`` or ``*`` = joker)."""
        if char in _JOKER_INPUT:
            return WORD_JOKER
        c = char.upper() if char.isascii() else ""
        if len(c) != 1 or c not in LETTERS:
            raise NotationError(char, "not a letter tile (write a letter A-Z, or ? or * for a joker)")
        return cls(c)


WORD_JOKER = LetterTile(JOKER_CHAR)


def parse_letters(text: str | Iterable[str], *, check_counts: bool = True) -> list[LetterTile]:
    """Parse ``"DIS?"`` / ``"d, i, s, *"`` (or a list of such strings) into tiles, keeping the order.

    With ``check_counts`` (default) more tiles of a letter than the set holds, or more than two jokers,
    raise :class:`~rules.errors.NotationError` naming the letter.
    """
    chunks = [text] if isinstance(text, str) else list(text)
    tiles: list[LetterTile] = []
    for chunk in chunks:
        if not isinstance(chunk, str):
            raise NotationError(repr(chunk), "letter tiles must be written as text, e.g. DIS?")
        tiles.extend(LetterTile.parse(c) for c in _SEPARATORS.sub("", chunk))
    if check_counts:
        check_letter_counts(tiles)
    return tiles


def format_letters(tiles: Iterable[LetterTile], *, sort: bool = False) -> str:
    """Tiles as one string, e.g. ``"DIS?"`` (``sort=True``: alphabetical, jokers last)."""
    tiles = list(tiles)
    if sort:
        tiles = sorted(tiles, key=lambda t: t.sort_key)
    return "".join(t.letter for t in tiles)


def full_letter_set() -> list[LetterTile]:
    """The 112 tiles of a Rummikub Word set: 110 letters (R10 distribution) and 2 jokers."""
    return [LetterTile(c) for c, n in LETTER_COUNTS.items() for _ in range(n)] + [WORD_JOKER] * JOKERS_IN_SET


def check_letter_counts(tiles: Iterable[LetterTile]) -> None:
    """Raise :class:`~rules.errors.NotationError` if a letter (or the joker) appears more often than the
    set holds it."""
    for tile, n in sorted(Counter(tiles).items(), key=lambda kv: kv[0].sort_key):
        if tile.is_joker:
            if n > JOKERS_IN_SET:
                raise NotationError(JOKER_CHAR, f"{n} jokers, but a set has only {JOKERS_IN_SET}")
        elif n > LETTER_COUNTS[tile.letter]:
            raise NotationError(
                tile.letter, f"{n} tiles, but a set has only {LETTER_COUNTS[tile.letter]} {tile.letter}"
            )


def normalize_word(text: str) -> str:
    """The canonical spelling of a word: upper case, jokers (``?`` or ``*``) as ``?``.

    Raises :class:`~rules.errors.NotationError` for an empty word or any character other than a letter
    A-Z or a joker (spaces, hyphens, apostrophes, accented letters: a tile word has none of them).
    """
    if not isinstance(text, str):
        raise NotationError(repr(text), "a word must be written as text")
    word = text.strip()
    if not word:
        raise NotationError(text, "empty word")
    out = []
    for c in word:
        if c in _JOKER_INPUT:
            out.append(JOKER_CHAR)
        elif c.isascii() and c.upper() in LETTERS:
            out.append(c.upper())
        else:
            raise NotationError(text, f"{c!r} is not a letter A-Z or a joker (? or *)")
    return "".join(out)


def letter_excess(words: str | Iterable[str]) -> dict[str, int]:
    """Per letter, how many more tiles the word(s) use than the set holds (only letters over the count).

    ``words`` is one word or several (their letters are counted together, e.g. every word a turn left
    on the table). Jokers written ``?`` are not letters and are not counted here.
    """
    counts: Counter[str] = Counter()
    for w in [words] if isinstance(words, str) else words:
        counts.update(c for c in normalize_word(w) if c != JOKER_CHAR)
    return {c: n - LETTER_COUNTS[c] for c, n in sorted(counts.items()) if n > LETTER_COUNTS[c]}


def jokers_needed(words: str | Iterable[str]) -> int:
    """Jokers the word(s) must use: those written ``?`` plus one for every letter beyond the set's count.

    ``JAZZ`` needs 1 (there is one Z), ``QQQ`` needs 2, ``DIS?PPEAR`` needs 1.
    """
    ws = [words] if isinstance(words, str) else list(words)
    written = sum(normalize_word(w).count(JOKER_CHAR) for w in ws)
    return written + sum(letter_excess(ws).values())


def letters_possible(words: str | Iterable[str]) -> bool:
    """Could the tile set hold these letters at once? False when they need more than the 2 jokers."""
    return jokers_needed(words) <= JOKERS_IN_SET
