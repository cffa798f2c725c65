"""Hong Kong 2016 "move up a table" rotation (R8.2, seed 003).

- Game 1: table 1 = players 1–4, table 2 = players 5–8, … (:func:`initial_tables`), or a random draw
  (organiser's choice: use :func:`.draw.draw_tables`).
- After **every** game the top 2 of each table — by that game's result: the winner(s) first, then the
  highest score, i.e. the loser with the smallest penalty — move to the next table (k → k + 1, the last
  table's → table 1: :func:`next_table`); the others stay (:func:`movement`; one table alone:
  :func:`table_movement`). Tables of 3 also send 2 and receive 2, so all table sizes are kept. A tie on the move cut is settled by a recorded lot (R7, highest number moves):
  drawn by the software from ``lot_seed`` (recorded in :attr:`Movement.lots`, to be shown to the
  table's referee) or given as a ``tiebreak``.
- At every game each table's seat order / first player is drawn again: :func:`.draw.draw_seat_orders`.
- Final ranking (:func:`event_ranking`): total wins, then **average** points; ties for the prize places
  (default 4) are flagged → one-game playoff after the final (or a lot), fed back as ``tiebreak``.
- How many games (3; the conduct rules mention 4) is the event's setting: this module works one
  game at a time.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .draw import Entrant, draw_seat_orders
from .ranking import (
    AVERAGE,
    DrawnLot,
    Ranked,
    SeatResult,
    Standing,
    cut,
    draw_lot,
    rank,
    standings,
    tie_groups,
)
from .tables import table_sizes


def initial_tables(
    entrants: Iterable[Entrant], seat_seed: int | str | None = None
) -> tuple[tuple[Hashable, ...], ...]:
    """Game 1 by player number: 1–4 at table 1, 5–8 at table 2, … (tables of 3 last, R8.1 sizes).

    Numbers need not be contiguous (absent players leave gaps); they must be present and distinct.
    With ``seat_seed`` each table's seat order is drawn (R8.2), otherwise seats follow the numbers.
    """
    es = list(entrants)
    if any(e.number is None for e in es):
        raise ValueError("seating by number needs a player number for everyone")
    if len({e.number for e in es}) != len(es):
        raise ValueError("player numbers must be distinct")
    es.sort(key=lambda e: e.number)
    tables, i = [], 0
    for size in table_sizes(len(es)):
        tables.append(tuple(e.id for e in es[i : i + size]))
        i += size
    return draw_seat_orders(tables, seat_seed) if seat_seed is not None else tuple(tables)


def next_table(table: int, tables: int) -> int:
    """Where the top two of `table` play the next game (R8.2): table k → k + 1, and the last table's top two
    → table 1 (seed 003: 第16組成績最好的2位參加者會調往第1組). Table 1 keeps its bottom two and receives the
    last table's top two."""
    return table % tables + 1


@dataclass(frozen=True)
class MoveTie:
    table: int
    players: tuple[Hashable, ...]
    places: int  # how many of them move


@dataclass(frozen=True)
class TableMove:
    """One table after one game (R8.2): who moves up to table `to`, who stays, who is tied on the move cut."""

    table: int
    to: int  # next_table(table, …)
    movers: tuple[Hashable, ...]
    stayers: tuple[Hashable, ...]
    tie: MoveTie | None  # an unresolved tie on the move cut
    lot: DrawnLot | None  # the lot drawn to settle a tie (R7)
    ranking: tuple[Ranked, ...]  # the table's order in this game


def table_movement(
    table: int,
    players: Sequence[Hashable],
    results: Iterable[SeatResult],
    *,
    tables: int,
    movers: int = 2,
    tiebreak: Mapping[Hashable, object] | None = None,
    lot_seed: int | str | None = None,
) -> TableMove:
    """Who moves up from one table of `tables` after one game (R8.2), from that game's confirmed results.

    The one computation of the movement: :func:`movement` asks it table by table, and a page that shows where
    a confirmed table's players go before the other tables have finished asks it for that table alone.
    ``results`` must hold a result for each of ``players`` (others are ignored). A tie on the move cut is
    resolved by ``tiebreak`` if it covers the tied players, else by a lot drawn from
    ``random.Random(f"{lot_seed}/table {table}")`` when ``lot_seed`` is given, else left unresolved.
    """
    by_player = {r.player_id: r for r in results}
    missing = [p for p in players if p not in by_player]
    if missing:
        raise ValueError(f"no result yet for {missing}")
    tiebreak = dict(tiebreak or {})
    game = [Standing(p, 1 if by_player[p].win else 0, by_player[p].score, 1) for p in players]
    k = min(movers, len(players))
    ranked = rank(game, tiebreak=tiebreak)
    c = cut(ranked, k)
    lot = None
    if c.tied_at_cut and lot_seed is not None:
        lot = draw_lot(c.tied_at_cut, f"{lot_seed}/table {table}")
        ranked = rank(game, tiebreak={**tiebreak, **lot.numbers})
        c = cut(ranked, k)
    tie = MoveTie(table, c.tied_at_cut, c.places_contested) if c.tied_at_cut else None
    stayers = tuple(p for p in players if p not in c.advancing and p not in c.tied_at_cut)
    return TableMove(table, next_table(table, tables), c.advancing, stayers, tie, lot, tuple(ranked))


@dataclass(frozen=True)
class Movement:
    movers: tuple[tuple[Hashable, ...], ...]  # per table (index 0 = table 1): who moves up
    stayers: tuple[tuple[Hashable, ...], ...]
    #: next game's tables (stayers, then arrivals; draw the seat order with draw_seat_orders),
    #: or None while a tie is unresolved
    next_tables: tuple[tuple[Hashable, ...], ...] | None
    ties: tuple[MoveTie, ...]  # unresolved ties on the move cut
    lots: tuple[tuple[int, DrawnLot], ...]  # (table, lot) drawn to settle ties (R7)
    rankings: tuple[tuple[Ranked, ...], ...]  # each table's order in this game

    @property
    def resolved(self) -> bool:
        return not self.ties


def movement(
    tables: Sequence[Sequence[Hashable]],
    results: Iterable[SeatResult],
    *,
    movers: int = 2,
    tiebreak: Mapping[Hashable, object] | None = None,
    lot_seed: int | str | None = None,
) -> Movement:
    """Who moves after one game (R8.2), from that game's confirmed results: :func:`table_movement` for every
    table (numbered 1, 2, … in order), and the next game's tables.

    ``results`` holds one :class:`SeatResult` per seated player for this game.
    """
    by_player: dict[Hashable, SeatResult] = {}
    for r in results:
        if r.player_id in by_player:
            raise ValueError(f"two results for player {r.player_id!r} in one game")
        by_player[r.player_id] = r
    missing = [p for tb in tables for p in tb if p not in by_player]
    if missing:
        raise ValueError(f"no result yet for {missing}")
    n = len(tables)
    moves = [table_movement(t, table, [by_player[p] for p in table], tables=n, movers=movers, tiebreak=tiebreak,
                            lot_seed=lot_seed) for t, table in enumerate(tables, 1)]
    ties = tuple(m.tie for m in moves if m.tie is not None)
    nxt = None
    if not ties:
        arriving = {m.to: m.movers for m in moves}
        nxt = tuple(m.stayers + arriving[m.table] for m in moves)
    return Movement(tuple(m.movers for m in moves), tuple(m.stayers for m in moves), nxt, ties,
                    tuple((m.table, m.lot) for m in moves if m.lot is not None),
                    tuple(m.ranking for m in moves))


@dataclass(frozen=True)
class EventRanking:
    ranked: tuple[Ranked, ...]
    prize_ties: tuple[tuple[Hashable, ...], ...]  # tied groups within the prize places → playoff

    @property
    def resolved(self) -> bool:
        return not self.prize_ties


def event_ranking(
    results: Iterable[SeatResult],
    players: Iterable[Hashable] = (),
    *,
    prize_places: int = 4,
    tiebreak: Mapping[Hashable, object] | None = None,
    points: str = AVERAGE,
) -> EventRanking:
    """Final ranking (R8.2): total wins, then average points; prize-place ties flagged (R7)."""
    ranked = rank(standings(results, players), points, tiebreak)
    rank_of = {r.player_id: r.rank for r in ranked}
    prize = tuple(g for g in tie_groups(ranked) if rank_of[g[0]] <= prize_places)
    return EventRanking(tuple(ranked), prize)
