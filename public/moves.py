"""Where the players of a Hong Kong table go once its game is confirmed (R8.2), for the public pages: the draw,
a table's page, the hall and a player's page show it from the moment the chief referee confirms the table's
sheet, not only once every table has finished and the next game is seated.

It runs the one computation of the movement, `hongkong.table_movement` (the same function the seating of the
next game runs, through `hongkong.movement`), on what the seating of the next game will run it on
(scoring/services/progress.py, `apply_movement`): the game's confirmed results, and the table without the
players who left the event (R9). A tie on the move cut is left to the lot the software draws and records once
every table has finished (R7): until then the tied players are shown as such.
"""

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from scoring.services.progress import leavers, stage_results
from tournament.formats import format_of, hongkong
from tournament.models import Draw, Event, Seat, Stage

UP, STAYS, LOT = "up", "stays", "lot"


@dataclass(frozen=True)
class Move:
    """One player's way after a confirmed game (R8.2)."""

    table: int  # where they played the game
    to: int  # where the table's top two play the next game: the next table, the last table's table 1
    kind: str  # UP (one of the table's top two), STAYS, or LOT (tied on the move cut: a recorded lot decides, R7)

    @property
    def wraps(self) -> bool:
        """The move goes from the last table to table 1 (R8.2): the pages say so in one sentence there."""
        return self.kind != STAYS and self.to < self.table


Tables = Mapping[int, Sequence[int]]  # table number → registration ids in seat order


def moves_after(event: Event, stage: Stage, game: int, tables: Tables, *, count: int | None = None
                ) -> dict[int, Move]:
    """Registration id → their move, for the players of `tables` (game `game` of `stage`) whose table's sheet is
    confirmed; nothing when the format keeps a stage's tables (Busan) or no game of the stage follows. `count`:
    how many tables the game has, when `tables` holds only some of them (the last one's top two go to table 1).
    A constant number of queries."""
    if not format_of(event).each_game_anew or not 1 <= game < stage.games or not tables:
        return {}
    return game_moves(event, stage, game, tables, len(tables) if count is None else count)


def seat_moves(event: Event, draw: Draw | None, seats: Iterable[Seat], *, count: int | None = None
               ) -> dict[int, Move]:
    """`moves_after` for the game a released draw seats, given in seat order every seat of the tables wanted
    (a table's movement needs all its players: never pass the seats a search found)."""
    if draw is None:
        return {}
    tables: dict[int, list[int]] = {}
    for seat in seats:
        tables.setdefault(seat.table.number, []).append(seat.registration_id)
    return moves_after(event, draw.stage, draw.game, tables, count=count)


def mark_moves(event: Event, draw: Draw | None, seats: Sequence[Seat], *, count: int | None = None) -> int | None:
    """Each seat gets its `move` (None until its table's game is confirmed); returns the number of the table whose
    top two go to table 1 once that is shown, for the one sentence that says so (templates/tournament/draws/
    _wrap.html)."""
    moves = seat_moves(event, draw, seats, count=count)
    wraps_at = None
    for seat in seats:
        seat.move = moves.get(seat.registration_id)
        if seat.move is not None and seat.move.wraps:
            wraps_at = seat.move.table
    return wraps_at



def game_moves(event: Event, stage: Stage, game: int, tables: Tables, count: int, *,
               leaving: Collection[int] | None = None) -> dict[int, Move]:
    """Registration id → their move after `game`, for the players of `tables` whose table's sheet is confirmed.
    Two queries at most (one when the caller knows who left, `leaving`)."""
    results = {result.player_id: result for result in stage_results(stage, game)}
    if not results:
        return {}
    out = leavers(event) if leaving is None else leaving
    moves: dict[int, Move] = {}
    for number, seated in tables.items():
        players = [p for p in seated if p not in out]
        if not players or any(p not in results for p in players):
            continue  # not confirmed yet
        moved = hongkong.table_movement(number, players, [results[p] for p in players], tables=count)
        tied = moved.tie.players if moved.tie else ()
        for player in players:
            kind = UP if player in moved.movers else LOT if player in tied else STAYS
            # One table alone: its top two "move up" to the table they are at.
            moves[player] = Move(number, moved.to, kind if moved.to != number else STAYS)
    return moves
