"""Rummikub Word scoring (R10).

* A turn scores the length of the **longest** word formed that turn (one point per letter, a joker
  is a letter); a turn that used **every tile on the rack** scores double; a turn that drew scores 0.
  Equal longest words: the first one written is shown as ``longest`` (the points are the same).
* At the end, **-30 per joker** left on a rack.
* The **highest total wins**; players with equal highest totals all win.

All numbers are exact ``int``. Like :func:`rules.scoring.score_game`, :func:`score_word_game` refuses
a sheet with errors (:class:`~rules.errors.InvalidSheetError`); :func:`check_word_sheet` returns the
problems and, when there are no errors, the scores — what the referee's screen shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import InvalidSheetError
from ..validation import ERROR
from .dictionary import DEFAULT_DICTIONARY, WordList, _Default, resolve_dictionary
from .record import WordGame
from .tiles import normalize_word
from .validation import WordProblem, validate_word_game

JOKER_LEFT_PENALTY = 30  # points lost per joker left on a rack at the end (R10)


def longest_word(words: Iterable[str]) -> str | None:
    """The longest word (the first written among equals), or ``None`` for no words."""
    best = None
    for w in words:
        w = normalize_word(w)
        if best is None or len(w) > len(best):
            best = w
    return best


def turn_points(words: Iterable[str], used_all_tiles: bool = False) -> int:
    """Points for one turn: the longest word's length, doubled when the turn used the whole rack.
    ``turn_points(["DISAPPEAR"]) == 9``; ``turn_points(["LAP", "CHIP", "EAR"]) == 4``."""
    best = longest_word(words)
    if best is None:
        return 0
    return len(best) * (2 if used_all_tiles else 1)


@dataclass(frozen=True)
class TurnScore:
    number: int  # 1-based turn number on the sheet
    seat: int
    words: tuple[str, ...]
    longest: str | None  # None: the player drew
    points: int
    doubled: bool  # the turn used every tile on the rack (and formed words)
    total: int  # this seat's running total after this turn (turn points only, before joker penalties)

    def to_dict(self) -> dict:
        return {
            "number": self.number,
            "seat": self.seat,
            "words": list(self.words),
            "drew": not self.words,
            "longest": self.longest,
            "points": self.points,
            "doubled": self.doubled,
            "total": self.total,
        }


@dataclass(frozen=True)
class WordSeatScore:
    seat: int
    player: str | None
    turn_points: int  # sum of this seat's turn points
    jokers_left: int
    joker_penalty: int  # 0 or negative: -30 per joker left
    total: int  # turn_points + joker_penalty
    win: bool

    def to_dict(self) -> dict:
        return {
            "turn_points": self.turn_points,
            "joker_penalty": self.joker_penalty,
            "total": self.total,
            "win": self.win,
        }


@dataclass(frozen=True)
class WordGameScore:
    turns: tuple[TurnScore, ...]
    seats: tuple[WordSeatScore, ...]  # in the order of the sheet's seats
    warnings: tuple[WordProblem, ...] = ()

    @property
    def winners(self) -> list[int]:
        return [s.seat for s in self.seats if s.win]

    @property
    def totals(self) -> dict[int, int]:
        return {s.seat: s.total for s in self.seats}

    def running_totals(self) -> list[dict[int, int]]:
        """After each turn, every seat's total so far (turn points only): what the table sees."""
        current = {s.seat: 0 for s in self.seats}
        out = []
        for t in self.turns:
            current[t.seat] = t.total
            out.append(dict(current))
        return out


@dataclass(frozen=True)
class WordSheetCheck:
    """What :func:`check_word_sheet` found: every problem, and the scores when there is no error."""

    problems: tuple[WordProblem, ...]
    score: WordGameScore | None
    dictionary: str | None  # name of the word list used, None when none was

    @property
    def ok(self) -> bool:
        return self.score is not None


def _score(game: WordGame, joker_penalty: int, warnings: tuple[WordProblem, ...]) -> WordGameScore:
    running = {s.seat: 0 for s in game.seats}
    turns = []
    for i, t in enumerate(game.turns, start=1):
        points = turn_points(t.words, t.used_all_tiles)
        running[t.seat] = running.get(t.seat, 0) + points
        turns.append(
            TurnScore(
                number=i,
                seat=t.seat,
                words=t.words,
                longest=longest_word(t.words),
                points=points,
                doubled=bool(t.words) and t.used_all_tiles,
                total=running[t.seat],
            )
        )
    finals = {s.seat: running[s.seat] - joker_penalty * s.jokers_left for s in game.seats}
    top = max(finals.values(), default=0)
    seats = tuple(
        WordSeatScore(
            seat=s.seat,
            player=s.player,
            turn_points=running[s.seat],
            jokers_left=s.jokers_left,
            joker_penalty=-joker_penalty * s.jokers_left,
            total=finals[s.seat],
            win=finals[s.seat] == top,
        )
        for s in game.seats
    )
    return WordGameScore(turns=tuple(turns), seats=seats, warnings=warnings)


def score_word_game(
    game: WordGame,
    *,
    dictionary: WordList | _Default | None = None,
    joker_penalty: int = JOKER_LEFT_PENALTY,
) -> WordGameScore:
    """Score a Word sheet. Validates first (without the dictionary unless one is given) and raises
    :class:`~rules.errors.InvalidSheetError` when the sheet has errors; warnings are on the result."""
    problems = validate_word_game(game, dictionary=dictionary)
    if any(p.severity == ERROR for p in problems):
        raise InvalidSheetError(problems)
    return _score(game, joker_penalty, tuple(problems))


def check_word_sheet(
    game: WordGame,
    *,
    dictionary: WordList | _Default | None = DEFAULT_DICTIONARY,
    joker_penalty: int = JOKER_LEFT_PENALTY,
) -> WordSheetCheck:
    """Validate (with the default dictionary unless told otherwise) and score when there is no error."""
    d = resolve_dictionary(dictionary)
    problems = validate_word_game(game, dictionary=dictionary)
    has_errors = any(p.severity == ERROR for p in problems)
    score = None if has_errors else _score(game, joker_penalty, tuple(problems))
    return WordSheetCheck(problems=tuple(problems), score=score, dictionary=d.name if d else None)
