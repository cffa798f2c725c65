"""The Rummikub Word sheet: seats, the turns in order, jokers left at the end (R10).

The referee keeps the sheet **turn by turn**: who played, the words formed that turn (or "drew"), and
whether the turn used every tile on the rack; at the end, the jokers left on each rack.

:func:`word_game_from_dict` checks *shape and types* (raising :class:`~rules.errors.RecordError`
with the path of the bad value); whether the sheet makes sense is :mod:`rules.word.validation`'s job
and never raises. JSON shape: ``rules/README.md`` ("Rummikub Word").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import NotationError, RecordError
from ..record import _get, _type_error
from .tiles import normalize_word

_SPLIT = re.compile(r"[\s,]+")

_TURN_INPUT_KEYS = {"seat", "words", "drew", "used_all_tiles"}
_TURN_OUTPUT_KEYS = {"number", "longest", "points", "doubled", "total"}
_SEAT_INPUT_KEYS = {"seat", "player", "jokers_left"}
_SEAT_OUTPUT_KEYS = {"turn_points", "joker_penalty", "total", "win"}
_GAME_INPUT_KEYS = {"number", "game", "seats", "turns"}
_GAME_OUTPUT_KEYS = {"ok", "winners", "problems", "dictionary"}


def _words_tuple(words: str | Iterable[str] | None) -> tuple[str, ...]:
    if words is None:
        return ()
    if isinstance(words, str):
        words = [w for w in _SPLIT.split(words.strip()) if w]
    return tuple(normalize_word(w) for w in words)


@dataclass(frozen=True)
class Turn:
    """One turn: the player's ``seat``, the ``words`` formed (canonical spelling; empty = drew) and
    whether the turn used every tile on the rack. ``words`` may be given as a list or as one string
    (``"LAP CHIP EAR"``); bad characters raise :class:`~rules.errors.NotationError`."""

    seat: int
    words: tuple[str, ...] = ()
    used_all_tiles: bool = False

    def __post_init__(self):
        object.__setattr__(self, "words", _words_tuple(self.words))

    @property
    def drew(self) -> bool:
        return not self.words

    @property
    def letters(self) -> int:
        """Letters in all the words formed (jokers included)."""
        return sum(len(w) for w in self.words)


@dataclass(frozen=True)
class WordSeat:
    seat: int
    player: str | None = None
    jokers_left: int = 0  # jokers on the rack when the game ended


@dataclass(frozen=True)
class WordGame:
    seats: tuple[WordSeat, ...]
    turns: tuple[Turn, ...] = field(default_factory=tuple)
    number: int | None = None  # table number
    game: int | None = None  # game number within the round

    def __post_init__(self):
        object.__setattr__(self, "seats", tuple(self.seats))
        object.__setattr__(self, "turns", tuple(self.turns))


def _check_keys(data: Any, path: str, allowed: set[str]) -> None:
    if not isinstance(data, dict):
        raise _type_error(path, "an object", data)
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise RecordError(f"{path}.{unknown[0]}", "unknown field")


def turn_from_dict(data: Any, path: str = "turn") -> Turn:
    _check_keys(data, path, _TURN_INPUT_KEYS | _TURN_OUTPUT_KEYS)
    raw = data.get("words")
    if raw is None:
        raw = []
    if not isinstance(raw, str | list) or (
        isinstance(raw, list) and not all(isinstance(w, str) for w in raw)
    ):
        raise _type_error(f"{path}.words", 'a list of words or text such as "LAP CHIP EAR"', raw)
    drew = _get(data, "drew", path, "bool", default=False, nullable=False)
    try:
        words = _words_tuple(raw)
    except NotationError as e:
        raise RecordError(f"{path}.words", f"bad word {e.token!r}: {e.reason}") from None
    if drew and words:
        raise RecordError(f"{path}.drew", "a turn that drew forms no words")
    return Turn(
        seat=_get(data, "seat", path, "int", nullable=False),
        words=words,
        used_all_tiles=_get(data, "used_all_tiles", path, "bool", default=False, nullable=False),
    )


def seat_from_dict(data: Any, path: str = "seat") -> WordSeat:
    _check_keys(data, path, _SEAT_INPUT_KEYS | _SEAT_OUTPUT_KEYS)
    return WordSeat(
        seat=_get(data, "seat", path, "int", nullable=False),
        player=_get(data, "player", path, "str"),
        jokers_left=_get(data, "jokers_left", path, "int", default=0, nullable=False),
    )


def word_game_from_dict(data: Any, path: str = "game") -> WordGame:
    _check_keys(data, path, _GAME_INPUT_KEYS | _GAME_OUTPUT_KEYS)
    seats = data.get("seats")
    if not isinstance(seats, list):
        raise _type_error(f"{path}.seats", "a list of seats", seats)
    turns = data.get("turns", [])
    if not isinstance(turns, list):
        raise _type_error(f"{path}.turns", "a list of turns", turns)
    return WordGame(
        seats=tuple(seat_from_dict(s, f"{path}.seats[{i}]") for i, s in enumerate(seats)),
        turns=tuple(turn_from_dict(t, f"{path}.turns[{i}]") for i, t in enumerate(turns)),
        number=_get(data, "number", path, "int"),
        game=_get(data, "game", path, "int"),
    )


def turn_to_dict(turn: Turn) -> dict[str, Any]:
    return {
        "seat": turn.seat,
        "words": list(turn.words),
        "drew": turn.drew,
        "used_all_tiles": turn.used_all_tiles,
    }


def word_game_to_dict(game: WordGame) -> dict[str, Any]:
    out: dict[str, Any] = {"number": game.number}
    if game.game is not None:
        out["game"] = game.game
    out["seats"] = [{"seat": s.seat, "player": s.player, "jokers_left": s.jokers_left} for s in game.seats]
    out["turns"] = [turn_to_dict(t) for t in game.turns]
    return out
