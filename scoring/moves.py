"""Where a Hong Kong table's players go once its sheet is confirmed (R8.2): the public pages' answer to
tournament/moves.py, registered in scoring/apps.py.

It runs the one computation of the movement, `hongkong.table_movement`, on what the seating of the next game
will run it on (scoring/services/progress.py, `apply_movement`): the game's confirmed results, and the table
without the players who left the event (R9). A tie on the move cut is left to the lot the software draws and
records once every table has finished (R7): until then the tied players are shown as such.
"""

from collections.abc import Collection

from tournament.formats import hongkong
from tournament.models import Event, Stage
from tournament.moves import LOT, STAYS, UP, Move, Tables

from .services.progress import leavers, stage_results


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
