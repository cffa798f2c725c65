"""What the public may see of an event: the one rule that every public page, public API answer and the hall
display follow (scoring's live pages, results and API; tournament's seating pages). Staff pages (the referee
board, results management, the exports) do not ask: they show everything to those allowed in.

The organiser has three switches per event (`Event.public_draw`, `public_standings`, `public_scores`):

- **draw** — who sits where: the released seating (the draw page, "where do I sit?", the table pages, the
  hall's draw slides, the API's `draw/`), a player's next table and tablemates, the table and tablemates of
  every game a player played (a past seating is still a seating) and the table column of a per-table round's
  standings.
- **standings** — who is ahead: ranks, wins and points (the standings pages, the hall's standings slides, a
  player's rank and rank after each game, the API's `standings/`), and so the final results, which are the
  end of the standings: places, podium, wins, points, ranking points, the under-15 note, the certificates
  and the event's lines on the season's ranking-points page. With the standings off the results page and
  the certificates say only that the results are not public — not even the podium: it is the top of the
  standings, and showing it would undo the switch. The organiser prints the certificates from the results
  management page and switches the standings on to publish the results (at the prize-giving, say).
- **scores** — each game's score and win (the standings' game columns, a player's page, the API).

A player's page (and its API answer) lists the player's games when at least one switch is on, each with what
the switches open; with all three off it says only that nothing is public. Who is entered (the player search)
and how far the play has got (stage, game, tables confirmed) are not behind a switch. A player's personal
page (their private link) is not a public page: it keeps showing the player their own seat.
"""

from dataclasses import dataclass

from .models import Event


@dataclass(frozen=True)
class Visibility:
    draw: bool
    standings: bool
    scores: bool

    @property
    def results(self) -> bool:
        """Final places, podium, ranking points and certificates."""
        return self.standings

    @property
    def games(self) -> bool:
        """A player's list of games played: something of each is public."""
        return self.draw or self.standings or self.scores


def visibility(event: Event) -> Visibility:
    """What the public may see of `event` now (no query: the switches are on the event row)."""
    return Visibility(draw=event.public_draw, standings=event.public_standings, scores=event.public_scores)
