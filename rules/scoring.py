"""Game scoring (R4-R6).

All arithmetic is in integer hundredths; scores are returned as ``Decimal`` quantized to 0.01 and a
table's scores always add up to exactly zero.

Decisions:

* :func:`score_game` validates first and **refuses** a sheet with errors by raising
  :class:`~rules.errors.InvalidSheetError` (its ``problems`` lists everything); warnings are returned
  on the result. Call :func:`rules.validation.validate` to show problems before scoring.
* End ``"time"`` (stopped by the round's time limit): scored exactly like ``"blocked"`` when
  ``ruleset.time_called_scores_as_blocked`` (the default, R4). When that setting is off the game is
  **void**: every penalty and score is 0, nobody wins, and the warning ``time_game_void`` is attached.
* Blocked: a share that does not divide evenly goes in hundredths to the winners in ascending
  **seat number** (not list position), so reordering the seats of a record changes nothing (R6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from .errors import InvalidSheetError
from .meld import can_open
from .record import SeatRecord, TableRecord
from .rulesets import Ruleset
from .validation import Problem, could_open_certainly_not, errors, validate, warnings

CENT = Decimal("0.01")


@dataclass(frozen=True)
class SeatScore:
    seat: int
    player: str | None
    penalty: int  # P of R5 (0 for the player who went out)
    score: Decimal  # R6, exact to 0.01
    win: bool
    could_open: bool | None = None  # for a never-opened player: computed from tiles, else as given

    def to_dict(self) -> dict:
        return {
            "penalty": self.penalty,
            "score": f"{self.score:.2f}",
            "win": self.win,
            "could_open": self.could_open,
        }


@dataclass(frozen=True)
class GameScore:
    end: str
    seats: tuple[SeatScore, ...]
    void: bool = False
    warnings: tuple[Problem, ...] = ()

    @property
    def winners(self) -> list[int]:
        return [s.seat for s in self.seats if s.win]

    def by_seat(self, seat: int) -> SeatScore:
        return next(s for s in self.seats if s.seat == seat)


def seat_penalty(ruleset: Ruleset, seat: SeatRecord) -> tuple[int, bool | None]:
    """(P, could_open) for a player who did not go out (R5). ``could_open`` is ``None`` for a player
    who had opened. Assumes the seat passed validation."""
    if seat.conduct_penalty:  # R5.3: whatever the rack held (validation refuses it under rules without it)
        return ruleset.knocked_rack_penalty, None
    if not seat.opened:  # R5.1: a fixed amount replaces the rack value; jokers add nothing
        if seat.tiles is not None:
            could = can_open(seat.tiles, ruleset.initial_meld_threshold)
        elif could_open_certainly_not(seat, ruleset.initial_meld_threshold):
            could = False
        else:
            could = bool(seat.could_open)
        penalty = ruleset.never_opened_could_penalty if could else ruleset.never_opened_could_not_penalty
        return penalty, could
    # R5.2: numbers plus a joker penalty per joker held
    return (seat.numbers or 0) + ruleset.joker_penalty * seat.joker_total, None


def split_blocked(penalties: Sequence[int]) -> tuple[list[int], list[bool]]:
    """R6 blocked scoring in hundredths, for penalties listed in seat order.

    Winners are all players with the lowest penalty; each loser scores -(P - Pmin); the winners share
    sum(P - Pmin) equally, leftover hundredths going one each to the first winners in seat order.
    """
    pmin = min(penalties)
    wins = [p == pmin for p in penalties]
    pot = sum(p - pmin for p in penalties) * 100
    n_winners = sum(wins)
    share, leftover = divmod(pot, n_winners)
    scores = []
    for p, w in zip(penalties, wins, strict=True):
        if w:
            scores.append(share + (1 if leftover > 0 else 0))
            leftover -= 1
        else:
            scores.append(-(p - pmin) * 100)
    return scores, wins


def score_game(ruleset: Ruleset, table: TableRecord) -> GameScore:
    """Penalties, scores and wins of one game (R4-R6). Raises :class:`InvalidSheetError` when
    :func:`~rules.validation.validate` finds errors."""
    problems = validate(ruleset, table)
    if errors(problems):
        raise InvalidSheetError(problems)
    seats = sorted(table.seats, key=lambda s: s.seat)
    void = table.end == "time" and not ruleset.time_called_scores_as_blocked
    results: list[tuple[int, bool | None]] = []
    for s in seats:
        if s.went_out and table.end == "went_out":
            results.append((0, None))
        else:
            results.append(seat_penalty(ruleset, s))
    penalties = [p for p, _ in results]
    if void:
        hundredths, wins = [0] * len(seats), [False] * len(seats)
        penalties = [0] * len(seats)
    elif table.end == "went_out":
        pot = sum(penalties)
        hundredths = [pot * 100 if s.went_out else -p * 100 for s, p in zip(seats, penalties, strict=True)]
        wins = [s.went_out for s in seats]
    else:
        hundredths, wins = split_blocked(penalties)
    assert sum(hundredths) == 0
    out = tuple(
        SeatScore(
            seat=s.seat,
            player=s.player,
            penalty=p,
            score=(Decimal(h) / 100).quantize(CENT),
            win=w,
            could_open=could,
        )
        for s, p, h, w, (_, could) in zip(seats, penalties, hundredths, wins, results, strict=True)
    )
    return GameScore(end=table.end, seats=out, void=void, warnings=tuple(warnings(problems)))

