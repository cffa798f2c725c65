"""Results as plain data, standings, shared ranks, cuts and recorded lots (R7).

- Rank by **wins**, then **points**: total points (Busan, R8.1) or average points per game (Hong Kong,
  R8.2). Players still tied share the rank ("1, 2, 2, 4").
- Where a tie decides who advances (a *cut*) the software does not guess: :func:`cut` reports the
  tied players and how many places they contest. The organiser resolves it by a recorded lot
  (:func:`draw_lot`, highest number wins, as the HK numbered cards) or a playoff game; either result
  comes back in as a ``tiebreak`` mapping (player → number, higher is better) to :func:`rank`.

The score-sheet issue only has to turn confirmed sheets into :class:`SeatResult` rows.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

TOTAL = "total"
AVERAGE = "average"
PRIZE_PLACES = 4  # R8.1: the final decides places 1–4; R8.2: four prize places
UNDER_AGE = 15  # R9


def is_under_age(event_year: int, birth_year: int | None) -> bool:
    """R9, from the birth year only: the age reached during the event's year is below 15."""
    return birth_year is not None and event_year - birth_year < UNDER_AGE


def id_key(player_id: Hashable) -> tuple:
    """Canonical sort key for player ids (ints before strings; each in natural order)."""
    if isinstance(player_id, bool):
        return (2, str(player_id))
    if isinstance(player_id, int):
        return (0, player_id)
    return (1, str(player_id))


@dataclass(frozen=True)
class SeatResult:
    """One player's result in one game at one table (a row of a confirmed score sheet, R6)."""

    player_id: Hashable
    table: int
    score: Decimal
    win: bool
    game: int = 1
    stage: int = 1  # the stage's number (Busan rounds, the final; a Hong Kong event has one)


@dataclass(frozen=True)
class Standing:
    player_id: Hashable
    wins: int = 0
    points: Decimal = Decimal(0)  # total points
    games: int = 0

    @property
    def average(self) -> Decimal:
        return self.points / self.games if self.games else Decimal(0)

    def ranking_points(self, points: str = TOTAL) -> Decimal:
        if points == TOTAL:
            return self.points
        if points == AVERAGE:
            return self.average
        raise ValueError(f"points must be {TOTAL!r} or {AVERAGE!r}, not {points!r}")


def standings(results: Iterable[SeatResult], players: Iterable[Hashable] = ()) -> dict[Hashable, Standing]:
    """Sum wins, points and games per player. ``players`` adds players with no result yet."""
    acc: dict[Hashable, list] = {p: [0, Decimal(0), 0] for p in players}
    for r in results:
        a = acc.setdefault(r.player_id, [0, Decimal(0), 0])
        a[0] += 1 if r.win else 0
        a[1] += Decimal(r.score)
        a[2] += 1
    return {p: Standing(p, w, pts, g) for p, (w, pts, g) in acc.items()}


@dataclass(frozen=True)
class Ranked:
    player_id: Hashable
    rank: int  # shared by tied players: 1, 2, 2, 4
    wins: int
    points: Decimal  # the ranking points: total or average
    games: int
    tied: bool  # shares its rank with another player


#: Tie-break criteria an event can list in order; each maps a standing to "higher is better".
#: "lot" and "playoff" read the ``tiebreak`` mapping (a recorded lot's numbers or a playoff's order).
CRITERIA = ("wins", "points", "average", "lot", "playoff")


def _criterion(name: str, s: Standing, tiebreak: Mapping[Hashable, object]):
    if name == "wins":
        return s.wins
    if name == "points":
        return s.points
    if name == "average":
        return s.average
    if name in ("lot", "playoff"):
        tb = tiebreak.get(s.player_id)
        return (1, tb) if tb is not None else (0, 0)
    raise ValueError(f"unknown tie-break {name!r}; known: {', '.join(CRITERIA)}")


def rank_by(
    entries: Iterable[Standing] | Mapping[Hashable, Standing],
    criteria: Sequence[str],
    tiebreak: Mapping[Hashable, object] | None = None,
    points: str = TOTAL,
) -> list[Ranked]:
    """Order by the ``criteria`` in turn (each higher first); still-tied players share a rank.

    ``points`` says which points :class:`Ranked` reports (total or average), whatever the criteria.
    """
    if isinstance(entries, Mapping):
        entries = entries.values()
    tiebreak = tiebreak or {}
    keyed = [(tuple(_criterion(c, s, tiebreak) for c in criteria), s) for s in entries]
    keyed.sort(key=lambda ks: id_key(ks[1].player_id))
    keyed.sort(key=lambda ks: ks[0], reverse=True)
    out: list[Ranked] = []
    for i, (k, s) in enumerate(keyed):
        r = out[-1].rank if i and keyed[i - 1][0] == k else i + 1
        tied = (i > 0 and keyed[i - 1][0] == k) or (i + 1 < len(keyed) and keyed[i + 1][0] == k)
        out.append(Ranked(s.player_id, r, s.wins, s.ranking_points(points), s.games, tied))
    return out


def rank(
    entries: Iterable[Standing] | Mapping[Hashable, Standing],
    points: str = TOTAL,
    tiebreak: Mapping[Hashable, object] | None = None,
) -> list[Ranked]:
    """Order by wins, then points (``"total"`` or ``"average"``), then ``tiebreak`` (higher first).

    ``tiebreak`` carries a resolved lot or playoff (e.g. :attr:`DrawnLot.numbers`); it only separates
    players who are otherwise tied. Still-tied players share a rank and are listed by id.
    """
    if points not in (TOTAL, AVERAGE):
        raise ValueError(f"points must be {TOTAL!r} or {AVERAGE!r}, not {points!r}")
    return rank_by(entries, ("wins", "points" if points == TOTAL else "average", "lot"), tiebreak, points)


def tie_groups(ranked: Sequence[Ranked]) -> list[tuple[Hashable, ...]]:
    """Groups (2 or more players) that share a rank, best first."""
    groups: dict[int, list[Hashable]] = {}
    for r in ranked:
        groups.setdefault(r.rank, []).append(r.player_id)
    return [tuple(g) for _, g in sorted(groups.items()) if len(g) > 1]


@dataclass(frozen=True)
class Cut:
    """Who is above a cut of ``k`` places, and the tie sitting on the cut, if any (R7)."""

    k: int
    advancing: tuple[Hashable, ...]  # surely through, best first
    tied_at_cut: tuple[Hashable, ...]  # need a lot or a playoff
    places_contested: int  # how many of ``tied_at_cut`` go through
    eliminated: tuple[Hashable, ...]  # surely out

    @property
    def resolved(self) -> bool:
        return not self.tied_at_cut


def cut(ranked: Sequence[Ranked], k: int) -> Cut:
    """Split a ranking (from :func:`rank`) at ``k`` places."""
    if k < 0:
        raise ValueError("k cannot be negative")
    ids = [r.player_id for r in ranked]
    if k >= len(ranked):
        return Cut(k, tuple(ids), (), 0, ())
    if k == 0:
        return Cut(k, (), (), 0, tuple(ids))
    boundary = ranked[k - 1].rank
    if ranked[k].rank != boundary:  # nobody straddles the cut
        return Cut(k, tuple(ids[:k]), (), 0, tuple(ids[k:]))
    above = [r.player_id for r in ranked if r.rank < boundary]
    tied = [r.player_id for r in ranked if r.rank == boundary]
    below = [r.player_id for r in ranked if r.rank > boundary]
    return Cut(k, tuple(above), tuple(tied), k - len(above), tuple(below))


@dataclass(frozen=True)
class DrawnLot:
    """A recorded lot (R7): each player draws a numbered card 1..n; the highest number wins."""

    players: tuple[Hashable, ...]  # canonical order (by id), the order the cards were dealt
    numbers: dict[Hashable, int] = field(hash=False)
    order: tuple[Hashable, ...]  # highest number first
    seed: int | str | None = None  # when drawn from a seed, the seed (so it can be re-drawn)

    def winners(self, places: int) -> tuple[Hashable, ...]:
        return self.order[:places]


def draw_lot(players: Iterable[Hashable], rng: random.Random | int | str) -> DrawnLot:
    """Draw a lot among ``players``: distinct numbers 1..n, highest wins.

    ``rng`` is a :class:`random.Random` or a seed. Players are put in canonical order first, so the
    same seed gives the same numbers whatever order the players are passed in.
    """
    seed = None
    if not isinstance(rng, random.Random):
        seed, rng = rng, random.Random(rng)
    ps = tuple(sorted(set(players), key=id_key))
    cards = rng.sample(range(1, len(ps) + 1), len(ps))
    numbers = dict(zip(ps, cards, strict=True))
    order = tuple(sorted(ps, key=lambda p: -numbers[p]))
    return DrawnLot(ps, numbers, order, seed)


def tiebreak_from_order(order: Sequence[Hashable]) -> dict[Hashable, int]:
    """A ``tiebreak`` mapping from an order (e.g. a playoff's ranking): first gets the highest value."""
    return {p: len(order) - i for i, p in enumerate(order)}
