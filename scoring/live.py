"""Where an event's play stands: the stage and the game being played now, in a constant number of queries."""

from dataclasses import dataclass

from django.db.models import Count

from tournament.models import Draw, Event, Stage

from .models import ScoreSheet


@dataclass(frozen=True)
class Play:
    stage: Stage | None
    game: int | None  # the first game of the stage not yet fully confirmed; None when none is under way
    released: bool  # the stage's draw is released
    complete: bool  # every game of the stage has all its tables confirmed
    tables: int  # tables in the stage's seating
    confirmed: int  # confirmed sheets in `game`


def current_play(event: Event) -> Play:
    """The latest stage and the game being played in it (3 queries whatever the event's size)."""
    stage = event.stages.order_by("-number").first()
    return stage_play(event, stage) if stage is not None else Play(None, None, False, False, 0, 0)


def stage_play(event: Event, stage: Stage) -> Play:
    """Where `stage` stands: the first game not fully confirmed, or complete (2 queries)."""
    draws = list(
        Draw.objects.filter(stage=stage, status=Draw.Status.RELEASED)
        .annotate(table_count=Count("tables")).values_list("game", "table_count")
    )
    if not draws:
        return Play(stage, None, False, False, 0, 0)
    confirmed = dict(
        ScoreSheet.objects.filter(stage=stage, status=ScoreSheet.Status.CONFIRMED)
        .values_list("game").annotate(n=Count("id")).values_list("game", "n")
    )
    tables = max(count for _game, count in draws)
    released_games = {game for game, _count in draws}
    for game in range(1, stage.games + 1):
        if event.format == Event.Format.HONG_KONG and game not in released_games:
            # Hong Kong seats each game once the previous one is complete (R8.2).
            return Play(stage, game, True, False, tables, 0)
        if confirmed.get(game, 0) < tables:
            return Play(stage, game, True, False, tables, confirmed.get(game, 0))
    return Play(stage, None, True, True, tables, tables)
