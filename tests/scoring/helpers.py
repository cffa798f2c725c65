"""Building score-sheet entries for tests."""

import uuid

from scoring.games.classic import Entry, SeatEntry
from tournament.services import seating


def entry_for(stage, game, table_number, values, *, end="went_out", winner=0, overrides=None) -> Entry:
    """`values[i]` is seat i's counted rack value (the winner's is ignored)."""
    seats = seating.seats(seating.game_draw(stage, game), table=table_number)
    lines = []
    for index, seat in enumerate(seats):
        out = end == "went_out" and index == winner
        fields = {"position": seat.position, "registration_id": seat.registration_id, "went_out": out,
                  "rack_value": None if out else values[index], "jokers": None if out else 0}
        fields.update((overrides or {}).get(index, {}))
        lines.append(SeatEntry(**fields))
    return Entry(end=end, seats=tuple(lines))


def key() -> str:
    return uuid.uuid4().hex
