"""The hall display for the projector: large type, the draw and the standings in turn (static/js/hall.js)."""

from django.shortcuts import render

from scoring.services.progress import event_progress
from tournament.formats import format_of
from tournament.models import Stage
from tournament.services import seating
from tournament.visibility import visibility

from ..board import build_board
from ..live import event_of, live
from ..moves import mark_moves

HALL_ROWS = 12  # standings rows per hall screen
HALL_TABLES = 8  # tables per hall screen


def _chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _hall_context(request, festival, event):
    event = event_of(request, festival, event)
    play = event_progress(event)
    board = None
    if visibility(event).standings and play.stage:
        # Busan: the round being played (its cut decides who goes on); Hong Kong: the whole event, with its
        # prize places, also while a playoff table is played.
        per_stage = format_of(event).eliminates and play.stage.advance != Stage.Advance.PLAYOFF
        board = build_board(event, play.stage if per_stage else None, play)
    draw = seating.public_draw(event)
    seats = seating.seats(draw) if draw is not None else []
    wraps_at = mark_moves(event, draw, seats)  # R8.2: where a confirmed table's players go next
    return {
        "festival": event.festival, "event": event, "play": play, "board": board, "draw": draw,
        "standing_slides": _chunks(board.rows, HALL_ROWS) if board else [],
        "table_slides": _chunks(seating.by_table(seats), HALL_TABLES), "wraps_at": wraps_at,
    }


@live("hall")
def hall(request, festival, event):
    """For the projector: large type, cycles through the draw and the standings (static/js/hall.js)."""
    return render(request, "public/hall.html", _hall_context(request, festival, event))


@live("hall-live", fragment=True)
def hall_live(request, festival, event):
    return render(request, "public/_hall.html", _hall_context(request, festival, event))
