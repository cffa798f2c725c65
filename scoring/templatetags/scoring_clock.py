"""`{% turn_timer %}`: the referee's turn timer (R9) on the table and game pages.

The pages' views stay as they are: the tag picks the game being played and its seats from what the page already
has (no queries) and the turn length from the event's ruleset (`turn_seconds`, R9).
"""

from django import template

from ..clock import turn_seconds
from ..models import ScoreSheet

register = template.Library()

STORAGE_PREFIX = "rk-turn"  # static/js/turn-timer.js keeps each game's timer under this prefix
# The table page's game states in which the game may still be on: nothing entered, or a sheet sent back.
PLAYING = ("to_enter", ScoreSheet.Status.RETURNED)


def _current_game(games) -> tuple[int, list]:
    """The table page's game being played: the first one still to enter with seats, else the last seated one."""
    seated = [row for row in games or [] if row.get("seats")]
    for row in seated:
        if row["state"] in PLAYING:
            return row["number"], row["seats"]
    if seated:
        return seated[-1]["number"], seated[-1]["seats"]
    return 1, []


@register.inclusion_tag("scoring/clock/_turn_timer.html")
def turn_timer(access, *, games=None, game=None, seats=None, compact=False):
    """`access`: the page's TableAccess; the table page passes `games`, a game page its `game` and `seats`."""
    if game is None:
        game, seats = _current_game(games)
    return {
        "turn_seconds": turn_seconds(access.stage.event.ruleset),
        # The table (not the link: no secret in localStorage) and the game: each game has its own counts.
        "storage_key": f"{STORAGE_PREFIX}|{access.draft_scope}|g{game}",
        "game": game,
        "seats": [{"position": seat.position, "name": seat.registration.player.name,
                   "number": seat.registration.number} for seat in seats or []],
        "compact": compact,
    }
