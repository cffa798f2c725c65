"""Final places and ranking points as pure functions: plain showings in, places out (the rules are in
the package's docstring)."""

from __future__ import annotations

import itertools
from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from tournament.formats.ranking import AVERAGE, PRIZE_PLACES, TOTAL, UNDER_AGE, id_key, is_under_age  # noqa: F401 (R9 here too)

PODIUM = 3
CENT = Decimal("0.01")
PLAYOFF = "playoff"
LOT = "lot"




@dataclass(frozen=True)
class Showing:
    """How far a player got and how they did there (over the games of the stage they reached)."""

    player: Hashable
    level: int = 1  # the stage reached: higher is better
    wins: int = 0
    total: Decimal = Decimal(0)
    games: int = 0

    @property
    def average(self) -> Decimal:
        return (self.total / self.games).quantize(CENT, ROUND_HALF_UP) if self.games else Decimal(0)

    def points(self, kind: str) -> Decimal:
        return self.average if kind == AVERAGE else self.total


@dataclass(frozen=True)
class Decider:
    """A recorded lot or a played playoff: orders `players` by `values` (higher first, equal = still tied)."""

    kind: str  # PLAYOFF or LOT
    players: frozenset
    values: dict = field(hash=False)


@dataclass(frozen=True)
class Place:
    showing: Showing
    place: int
    shared: int = 1  # how many players share this place
    decided_by: str = ""  # PLAYOFF or LOT when one separated this player's tie

    @property
    def player(self) -> Hashable:
        return self.showing.player

    @property
    def tied(self) -> bool:
        return self.shared > 1


@dataclass(frozen=True)
class Tie:
    place: int
    players: tuple
    prize: bool  # on a prize place: must be decided by lot or playoff (R7)


@dataclass(frozen=True)
class Placing:
    places: tuple[Place, ...]
    ties: tuple[Tie, ...]

    @property
    def prize_ties(self) -> tuple[Tie, ...]:
        return tuple(t for t in self.ties if t.prize)


def _split(members: list[Showing], deciders: Sequence[Decider], how: str = "") -> list[tuple[list[Showing], str]]:
    """Separate tied players by the newest decider that covers them all and tells some of them apart."""
    if len(members) < 2:
        return [(members, how)]
    ids = {s.player for s in members}
    for decider in reversed(deciders):
        if not ids <= decider.players or any(p not in decider.values for p in ids):
            continue
        if len({decider.values[p] for p in ids}) < 2:
            continue
        ordered = sorted(members, key=lambda s: -decider.values[s.player])
        out = []
        for _value, bucket in itertools.groupby(ordered, key=lambda s: decider.values[s.player]):
            out.extend(_split(list(bucket), deciders, how or decider.kind))
        return out
    return [(members, how)]


def order_places(showings: Iterable[Showing], *, points: str = TOTAL, deciders: Sequence[Decider] = (),
                 prize_places: int = PRIZE_PLACES) -> Placing:
    """Final places: stage reached, wins, points (total or average); deciders separate ties (R7, R8).

    `deciders` are in the order they were recorded (the newest one that separates a tie counts).
    """
    if points not in (TOTAL, AVERAGE):
        raise ValueError(f"points must be {TOTAL!r} or {AVERAGE!r}")

    def key(s: Showing):
        return (s.level, s.wins, s.points(points))

    ordered = sorted(showings, key=lambda s: id_key(s.player))
    ordered.sort(key=key, reverse=True)
    places, ties, before = [], [], 0
    for _key, group in itertools.groupby(ordered, key=key):
        for members, how in _split(list(group), deciders):
            place = before + 1
            places.extend(Place(s, place, len(members), how) for s in members)
            if len(members) > 1:
                ties.append(Tie(place, tuple(s.player for s in members), place <= prize_places))
            before += len(members)
    return Placing(tuple(places), tuple(ties))


def playoff_values(showings: Iterable[Showing]) -> dict:
    """A playoff's order as decider values: wins, then points in its game; level results stay level.

    (Not `tiebreak_from_order`, which would split a level playoff game by player id.)"""
    key = {s.player: (s.wins, s.total) for s in showings}
    distinct = sorted(set(key.values()))
    return {p: distinct.index(k) + 1 for p, k in key.items()}


def ranking_points(places: Iterable[Place], table: Sequence[int], no_points: Collection = ()) -> dict:
    """Points per player: shared places average the places they span; `no_points` players get 0 (R9)."""
    out = {}
    for p in places:
        if p.player in no_points:
            out[p.player] = Decimal(0)
            continue
        spanned = table[p.place - 1: p.place - 1 + p.shared]
        out[p.player] = (Decimal(sum(spanned)) / p.shared).quantize(CENT, ROUND_HALF_UP)
    return out
