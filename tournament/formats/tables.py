"""Table sizes (R8.1) and the merge proposal for tables left short after withdrawals.

Rule (R8.1): tables of 4, with tables of 3 where the count is not a multiple of 4; never a
table of 5; a table of 2 only when fewer than 3 players remain.

Decisions (documented here, tested in ``tests/formats/test_formats_tables.py``):

- N = 0 → no table.  N = 1 → one "table" of 1: a lone player has no one to play; the caller treats it
  as a walkover (the Busan plan goes straight to a one-player "final", see :mod:`.busan`).
- N = 2, 3, 4 → one table of N.
- N = 5 → 3 + 2: the only split without a 5 and without a 1 (after a table of 3, fewer than 3 remain).
- N ≥ 6 → ⌈N/4⌉ tables; ``4·⌈N/4⌉ − N`` (0–3) of them have 3 seats. Tables of 4 come first, so the
  tables of 3 are the highest-numbered ones (6 → 3+3, 7 → 4+3, 9 → 3+3+3, 117 → 27×4 + 3×3).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

MAX_TABLE = 4
MIN_TABLE = 3


def table_sizes(n: int) -> list[int]:
    """Seats per table for ``n`` players, tables of 4 first (R8.1)."""
    if n < 0:
        raise ValueError("number of players cannot be negative")
    if n == 0:
        return []
    if n <= MAX_TABLE:
        return [n]
    if n == 5:
        return [3, 2]
    tables = -(-n // MAX_TABLE)
    threes = MAX_TABLE * tables - n
    return [4] * (tables - threes) + [3] * threes


@dataclass(frozen=True)
class Move:
    player_id: Hashable
    from_table: int
    to_table: int


@dataclass(frozen=True)
class MergeProposal:
    """What the software proposes; the organiser decides ("the organiser's to merge")."""

    moves: tuple[Move, ...]
    closed_tables: tuple[int, ...]
    #: table number → players after the moves (kept seat order, arrivals appended at the end).
    tables: dict[int, tuple[Hashable, ...]]

    @property
    def needed(self) -> bool:
        return bool(self.moves)


def merge_proposal(tables: Mapping[int, Sequence[Hashable]] | Sequence[Sequence[Hashable]]) -> MergeProposal:
    """Propose moves so that the remaining players sit at tables sized like :func:`table_sizes`.

    ``tables`` maps table number → the players still active at that table (or is a list, numbered
    from 1). Nothing is proposed unless a table has fewer than 3 players while 3 or more players remain
    (or several tables remain for fewer than 3 players).

    Proposal: keep the ``len(table_sizes(N))`` fullest tables (lower number first among equals), close
    the others, give the target sizes (4s first) to the kept tables in order of how full they are, then
    move the players of closed tables, and the last-seated players of tables above their target, to the
    tables below their target, lowest table number first. This moves few players and never makes a 5.
    """
    if not isinstance(tables, Mapping):
        tables = {i + 1: list(players) for i, players in enumerate(tables)}
    current = {int(no): list(players) for no, players in sorted(tables.items())}
    n = sum(len(p) for p in current.values())
    nonempty = [no for no, p in current.items() if p]
    short = [no for no in nonempty if len(current[no]) < MIN_TABLE]
    unchanged = MergeProposal(
        (), tuple(no for no, p in current.items() if not p), {no: tuple(p) for no, p in current.items() if p}
    )
    if not short or (n < MIN_TABLE and len(nonempty) <= 1):
        return unchanged

    target_sizes = table_sizes(n)
    by_fullness = sorted(current, key=lambda no: (-len(current[no]), no))
    kept = by_fullness[: len(target_sizes)]
    closed = sorted(set(current) - set(kept))
    target = dict(zip(kept, sorted(target_sizes, reverse=True), strict=True))

    pool: list[tuple[Hashable, int]] = []
    for no in closed:
        pool.extend((p, no) for p in current[no])
    result = {no: list(current[no]) for no in kept}
    for no in sorted(kept):
        while len(result[no]) > target[no]:
            pool.append((result[no].pop(), no))
    moves = []
    for no in sorted(kept):
        while len(result[no]) < target[no]:
            player, from_table = pool.pop(0)
            result[no].append(player)
            moves.append(Move(player, from_table, no))
    assert not pool
    return MergeProposal(tuple(moves), tuple(closed), {no: tuple(result[no]) for no in sorted(kept)})
