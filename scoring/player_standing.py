"""What tournament's pages show of a player's standing (tournament/standing.py): the event results' place,
wins and points of the stage reached, and whether the player is out. Constant queries for any number of
registrations (the results of all their events are read together)."""

from tournament.models import Registration, Stage
from tournament.standing import PlayerStanding

from .results.event import results_for_events


def player_standings(registrations: list[Registration]) -> dict[int, PlayerStanding]:
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
