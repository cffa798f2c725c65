"""Rummikub Word checks for the referee (R10) and the Word sheet validator.

Like :mod:`rules.validation`: :func:`validate_word_game` never raises for a bad sheet and returns
every problem, errors first, then warnings, each in sheet order. Problems are
:class:`WordProblem` — a :class:`rules.validation.Problem` (stable ``code``, ``seat`` number,
plain-English ``message``, ``severity``) plus the 1-based ``turn`` number and the ``word`` concerned.

What the sheet cannot show is not checked: which tiles came from the rack, whether a rearranged word
is still on the table, whether the rack was topped up to 7.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ..validation import ERROR, WARNING, Problem
from .dictionary import DEFAULT_DICTIONARY, WordList, _Default, resolve_dictionary
from .record import WordGame
from .tiles import DEALT_TILES, JOKER_CHAR, JOKERS_IN_SET, jokers_needed, letter_excess, normalize_word

MIN_WORD_LETTERS = 3  # every word after the first placement (R10)
FIRST_PLACEMENT_LETTERS = 6  # the first placement's words together, all from the player's own tiles
MIN_PLAYERS, MAX_PLAYERS = 2, 4


@dataclass(frozen=True)
class WordProblem(Problem):
    turn: int | None = None  # 1-based turn number on the sheet; None for a seat- or table-wide problem
    word: str | None = None

    def to_dict(self) -> dict:
        return {**super().to_dict(), "turn": self.turn, "word": self.word}


# -- single checks, for the referee's screen --------------------------------------------------------


def word_long_enough(word: str) -> bool:
    """At least 3 letters (jokers count as letters) — the rule for every word after the first placement."""
    return len(normalize_word(word)) >= MIN_WORD_LETTERS


def first_placement_long_enough(words: Iterable[str]) -> bool:
    """The first placement's words total at least 6 letters."""
    return sum(len(normalize_word(w)) for w in words) >= FIRST_PLACEMENT_LETTERS


def same_word(a: str, b: str) -> bool:
    """Case-insensitive equality where a joker ``?`` matches any letter (``DIS?PPEAR`` ~ ``disappear``)."""
    a, b = normalize_word(a), normalize_word(b)
    if JOKER_CHAR not in a and JOKER_CHAR not in b:
        return a == b
    return len(a) == len(b) and all(x == y or JOKER_CHAR in (x, y) for x, y in zip(a, b, strict=True))


def is_on_table(word: str, table_words: Iterable[str]) -> bool:
    """Is ``word`` already on the table (case-insensitive; a joker matches any letter)?"""
    return any(same_word(word, t) for t in table_words)


def check_turn(
    words: Iterable[str],
    *,
    first_placement: bool = False,
    used_all_tiles: bool = False,
    table_words: Iterable[str] = (),
    dictionary: WordList | _Default | None = DEFAULT_DICTIONARY,
    seat: int | None = None,
    turn: int | None = None,
) -> list[WordProblem]:
    """Every problem with the words one player formed in one turn (unsorted, in word order).

    ``first_placement``: the player's first placement (6 letters in total; a word under 3 letters is
    only a warning there, R10 states just the total). ``table_words``: words already on the table
    (a repeat is a warning). ``dictionary``: a :class:`~rules.word.dictionary.WordList`, ``None`` to
    skip the dictionary check, or the default list (a missing package skips the check silently;
    :func:`validate_word_game` reports it once).
    """
    words = [normalize_word(w) for w in words]
    table = list(table_words)
    d = resolve_dictionary(dictionary)
    out: list[WordProblem] = []

    def add(code, message, severity=ERROR, word=None):
        out.append(WordProblem(code, seat, message, severity, turn=turn, word=word))

    if not words:
        if used_all_tiles:
            add("drew_used_all_tiles", "A turn that drew cannot have used every tile on the rack.")
        return out

    total = sum(len(w) for w in words)
    if first_placement:
        if total < FIRST_PLACEMENT_LETTERS:
            add(
                "first_placement_too_short",
                f"The first placement needs at least {FIRST_PLACEMENT_LETTERS} letters in total; "
                f"this one has {total}.",
            )
        if used_all_tiles and total < DEALT_TILES:
            add(
                "used_all_tiles_too_few_letters",
                f"Before the first placement a rack holds at least {DEALT_TILES} tiles, and the first "
                f"placement uses only the player's own tiles: {total} letters cannot have emptied it.",
            )

    any_impossible = False
    for w in words:
        if len(w) < MIN_WORD_LETTERS:
            if first_placement:
                add(
                    "short_word_in_first_placement",
                    f"{w} has fewer than {MIN_WORD_LETTERS} letters (R10 states only the 6-letter total "
                    "for the first placement).",
                    WARNING,
                    w,
                )
            else:
                add("word_too_short", f"{w}: words have at least {MIN_WORD_LETTERS} letters.", word=w)
        need = jokers_needed(w)
        if need > JOKERS_IN_SET:
            any_impossible = True
            over = ", ".join(f"{n} more {c}" for c, n in letter_excess(w).items())
            add(
                "impossible_letters",
                f"{w} needs {need} jokers ({over or 'jokers written'}); a set has only {JOKERS_IN_SET}.",
                word=w,
            )

    if not any_impossible and len(words) > 1:
        need = jokers_needed(words)
        if need > JOKERS_IN_SET:
            over = ", ".join(f"{n} more {c}" for c, n in letter_excess(words).items())
            add(
                "impossible_letters_in_turn",
                f"The words of this turn are on the table together and need {need} jokers "
                f"({over or 'jokers written'}); a set has only {JOKERS_IN_SET}.",
            )

    for w, n in Counter(words).items():
        if n > 1:
            add(
                "duplicate_word_in_turn",
                f"{w} is formed {n} times in one turn; a word cannot repeat.",
                word=w,
            )

    # warnings
    for w in words:
        need = jokers_needed(w)
        if need <= JOKERS_IN_SET and need > w.count(JOKER_CHAR):
            over = ", ".join(f"{n} more {c}" for c, n in letter_excess(w).items())
            add(
                "needs_jokers",
                f"{w} has {over} than the set holds: jokers must stand for them.",
                WARNING,
                w,
            )
        if table and is_on_table(w, table):
            add(
                "word_already_on_table",
                f"{w} was already formed earlier in this game (is it still on the table?).",
                WARNING,
                w,
            )
        if d is not None and not d.lookup(w):
            add(
                "not_in_dictionary",
                f"{w} is not in the dictionary ({d.name}); the referee may allow it.",
                WARNING,
                w,
            )
    return out


# -- the sheet --------------------------------------------------------------------------------------


def validate_word_game(
    game: WordGame, *, dictionary: WordList | _Default | None = DEFAULT_DICTIONARY
) -> list[WordProblem]:
    """Every problem of a Word sheet. Errors first, then warnings; within each, table-wide problems,
    then the turns in order, then the seats' jokers.

    ``dictionary``: the default word list (when the package is missing: one warning
    ``dictionary_unavailable`` and no dictionary checks), a :class:`WordList`, or ``None`` to skip.
    """
    out: list[WordProblem] = []

    def add(code, seat, message, severity=ERROR, **kw):
        out.append(WordProblem(code, seat, message, severity, **kw))

    seats = sorted(game.seats, key=lambda s: s.seat)
    if len(seats) < MIN_PLAYERS:
        add("too_few_players", None, f"A game needs at least {MIN_PLAYERS} players.")
    if len(seats) > MAX_PLAYERS:
        add("too_many_players", None, f"A game has at most {MAX_PLAYERS} players.")
    for number, n in sorted(Counter(s.seat for s in seats).items()):
        if n > 1:
            add("duplicate_seat", number, f"Seat {number} appears {n} times.")
    for name, n in sorted(Counter(s.player for s in seats if s.player).items()):
        if n > 1:
            add("duplicate_player", None, f"Player {name} appears {n} times.")
    for s in seats:
        if not 1 <= s.seat <= MAX_PLAYERS:
            add("bad_seat_number", s.seat, f"Seat numbers are 1 to {MAX_PLAYERS}.")
    in_range = [s.jokers_left for s in seats if 0 <= s.jokers_left <= JOKERS_IN_SET]
    if sum(in_range) > JOKERS_IN_SET:
        add(
            "too_many_jokers",
            None,
            f"{sum(in_range)} jokers left on the racks; a set has only {JOKERS_IN_SET}.",
        )
    if not game.turns:
        add("no_turns", None, "No turns are recorded.", WARNING)

    d = resolve_dictionary(dictionary)
    if dictionary is DEFAULT_DICTIONARY and d is None:
        add(
            "dictionary_unavailable",
            None,
            "Dictionary not available (install the word-list package): words were not looked up.",
            WARNING,
        )

    known = {s.seat for s in seats}
    placed: set[int] = set()  # seats that have made their first placement
    table: list[str] = []  # every word formed so far
    for i, t in enumerate(game.turns, start=1):
        if t.seat not in known:
            add(
                "unknown_seat",
                t.seat,
                f"Turn {i} is played by seat {t.seat}, which is not at this table.",
                turn=i,
            )
        first = bool(t.words) and t.seat not in placed
        out.extend(
            check_turn(
                t.words,
                first_placement=first,
                used_all_tiles=t.used_all_tiles,
                table_words=table,
                dictionary=d,
                seat=t.seat,
                turn=i,
            )
        )
        if t.words:
            placed.add(t.seat)
            table.extend(t.words)

    for s in seats:
        if not 0 <= s.jokers_left <= JOKERS_IN_SET:
            add("jokers_out_of_range", s.seat, f"A rack holds 0 to {JOKERS_IN_SET} jokers.")
    return [p for p in out if p.severity == ERROR] + [p for p in out if p.severity == WARNING]
