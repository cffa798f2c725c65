"""A player's standing on the personal page and "Where do I sit?": the event results' place, wins and points of
the stage reached, and whether the player is out — the same place as the results page, the standings' final
places and the API. Constant queries for any number of registrations (the results of all their events are
read together)."""

from dataclasses import dataclass
from decimal import Decimal

from scoring.results.event import results_for_events
from tournament.models import Registration, Stage


@dataclass(frozen=True)
class PlayerStanding:
    place: int  # the place as the results stand now (final once the deciding stage is complete)
    tied: bool
    wins: int  # in the stage reached, the ones the places use (R7)
    games: int
    points: Decimal  # total or average, as the event's rules rank
    stage: Stage | None  # the stage the player reached
    out: bool  # no longer playing: a later stage started without them, or they left the event (R9)
    left: str = ""  # how they left the event (a conduct record), if they did
    final: bool = False

    @property
    def rank(self) -> str:
        return f"{self.place}=" if self.tied else str(self.place)


def standings(registrations: list[Registration]) -> dict[int, PlayerStanding]:
    """Registration id → standing, for those that have one (a player number: they were entered)."""
    registrations = [r for r in registrations if r.number is not None]
    if not registrations:
        return {}
    events = {r.event_id: r.event for r in registrations}
    found: dict[int, PlayerStanding] = {}
    wanted = {r.pk for r in registrations}
    for results in results_for_events(list(events.values()), conduct=True).values():
        # The latest stage that has started (its players entered); a playoff only orders tied players (R7).
        reached = {row.stage.number for row in results.rows if row.stage is not None}
        started = [s.number for s in results.stages if s.advance != Stage.Advance.PLAYOFF and s.number in reached]
        for row in results.rows:
            if row.registration.pk not in wanted:
                continue
            out = bool(row.left) or (row.stage is not None and bool(started) and row.stage.number < max(started))
            found[row.registration.pk] = PlayerStanding(
                place=row.place, tied=row.tied, wins=row.wins, games=row.games, points=row.points,
                stage=row.stage, out=out, left=row.left, final=results.final)
    return found
