"""`stage_progress` and `current_stage` (scoring/services/progress.py): the one answer to "how far is this stage,
which game is being played, which stage is the event at" gives what each page and service computed on its
own before, at every point of a Busan (R8.1) and a Hong Kong (R8.2) event, in a constant number of queries.

The old computations are kept below as they were (the live board's, the stage page's, the results', the
closing check's, the round clock's, the public pages' `scoring.live` and the API's "current"), which
`stage_progress` replaced one for one."""

import random
from dataclasses import dataclass

import pytest
from django.db.models import Count
from django.utils.translation import gettext as _

from scoring.models import ScoreSheet
from scoring.results import event as results_event
from scoring.services import progress
from scoring.services.playoff import create_playoff
from scoring.services.progress import TABLES_NAMED
from scoring.simulation.play import simulate
from tests.factories import ready_event, released_stage
from tests.scoring.helpers import chief_of, confirm, hong_kong, play_game
from tournament.models import Draw, DrawTable, Event, Stage
from tournament.services import draws as draw_services
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.services.confirmation import Blocker
from tournament.services.seating import game_draw

pytestmark = pytest.mark.django_db

ORGANISER = Actor(label="organiser")


# --- the old computations, as they were ---------------------------------------------------------------------


# scoring/live.py, as it was: the public pages' "where does play stand".
@dataclass(frozen=True)
class Play:
    stage: Stage | None
    game: int | None  # the first game of the stage not yet fully confirmed; None when none is under way
    released: bool  # the stage's draw is released
    complete: bool  # every game of the stage has all its tables confirmed
    tables: int  # tables in the stage's seating
    confirmed: int  # confirmed sheets in `game`


def old_current_play(event: Event) -> Play:
    """The latest stage and the game being played in it (3 queries whatever the event's size)."""
    stage = event.stages.order_by("-number").first()
    return old_stage_play(event, stage) if stage is not None else Play(None, None, False, False, 0, 0)


def old_stage_play(event: Event, stage: Stage) -> Play:
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


# public/views/api.py's `_current`, as it was.
def old_api_current(event: Event) -> dict | None:
    stage = Stage.objects.filter(event=event).order_by("-number").first()
    if stage is None:
        return None
    draw = seating.public_draw(event)
    tables = draw.tables.count() if draw is not None and draw.stage_id == stage.pk else 0
    done = {row["game"]: row["n"] for row in ScoreSheet.objects.filter(
        stage=stage, status=ScoreSheet.Status.CONFIRMED).values("game").annotate(n=Count("id"))}
    playing = next((g for g in range(1, stage.games + 1) if not tables or done.get(g, 0) < tables), None)
    return {"stage": stage.number, "stage_name": stage.display_name, "games": stage.games,
            "game": playing, "closed": stage.closed_at is not None, "draw_released": tables > 0}


def old_released_draws(stage):
    released = {draw.game: draw for draw in stage.draws.filter(status=Draw.Status.RELEASED)}
    if stage.event.format == Event.Format.HONG_KONG:
        return {game: released[game] for game in range(1, stage.games + 1) if game in released}
    return {game: released[1] for game in range(1, stage.games + 1)} if 1 in released else {}


def old_game_progress(stage):
    """scoring/views/staff.py `game_progress`: the live board and the stage page."""
    draws = old_released_draws(stage)
    tables = dict(DrawTable.objects.filter(draw__in={d.pk for d in draws.values()})
                  .values("draw").annotate(n=Count("id")).values_list("draw", "n"))
    confirmed = dict(ScoreSheet.objects.filter(stage=stage, status=ScoreSheet.Status.CONFIRMED)
                     .values("game").annotate(n=Count("id")).values_list("game", "n"))
    games = []
    for game in range(1, stage.games + 1):
        draw = draws.get(game)
        expected = tables.get(draw.pk, 0) if draw else 0
        done = confirmed.get(game, 0)
        games.append({"game": game, "draw": draw, "tables": expected, "confirmed": done,
                      "complete": expected > 0 and done == expected})
    return games


def old_board_game(games):
    """scoring/views/board.py `_current_game`."""
    seated = [g for g in games if g["draw"] is not None]
    for g in seated:
        if not g["complete"]:
            return g["game"]
    return seated[-1]["game"] if seated else 1


def old_board_stage(stages):
    """scoring/views/board.py `_current_stage`: the first stage still open, else the last one."""
    open_stages = [stage for stage in stages if not stage.closed_at]
    return open_stages[0] if open_stages else (stages[-1] if stages else None)


def old_game_complete(stage, game):
    """scoring/services/progress.py `game_complete` (Hong Kong movement, the closing check)."""
    draw = game_draw(stage, game)
    expected = draw.tables.count() if draw else 0
    return expected > 0 and ScoreSheet.objects.filter(
        stage=stage, game=game, status=ScoreSheet.Status.CONFIRMED).count() == expected


def old_results_complete(event, stage, data):
    """scoring/results/event.py `_stage_complete` (is the final complete, is a playoff waiting)."""
    for game in range(1, stage.games + 1):
        draw_game = game if event.format == Event.Format.HONG_KONG else 1
        tables = data.tables.get((stage.id, draw_game), 0)
        if tables == 0 or data.confirmed.get((stage.id, game), 0) != tables:
            return False
    return True


def old_missing_sheets(stage):
    """scoring/services/progress.py `missing_sheets` (why a stage cannot be closed)."""
    draws = old_released_draws(stage)
    if not draws:
        return [Blocker("not_released", _("The draw of %(stage)s is not released yet.")
                        % {"stage": stage.display_name})]
    numbers = {}
    for draw_id, number in (DrawTable.objects.filter(draw__in={d.pk for d in draws.values()})
                            .order_by("number").values_list("draw", "number")):
        numbers.setdefault(draw_id, []).append(number)
    confirmed = set(ScoreSheet.objects.filter(stage=stage, status=ScoreSheet.Status.CONFIRMED)
                    .values_list("game", "table_number"))
    blockers = []
    for game in range(1, stage.games + 1):
        draw = draws.get(game)
        if draw is None:
            blockers.append(Blocker("unseated", _("Game %(game)s is not seated yet: it is seated when every table "
                                                  "of game %(before)s is confirmed.") % {"game": game, "before": game - 1},
                                    game=game - 1))
            continue
        missing = [n for n in numbers.get(draw.pk, []) if (game, n) not in confirmed]
        if len(missing) == 1:
            blockers.append(Blocker("incomplete", _("Table %(table)s, game %(game)s has no confirmed sheet.")
                                    % {"table": missing[0], "game": game}, game=game, table=missing[0]))
        elif missing:
            named = ", ".join(str(n) for n in missing[:TABLES_NAMED]) + (", …" if len(missing) > TABLES_NAMED else "")
            blockers.append(Blocker("incomplete", _("Game %(game)s: %(count)s tables have no confirmed sheet "
                                                    "(%(tables)s).") % {"game": game, "count": len(missing),
                                                                        "tables": named}, game=game))
    return blockers


# --- the comparison ----------------------------------------------------------------------------------------

def play_fields(play):
    return (play.stage, play.game, play.released, play.complete, play.tables, play.confirmed)


def assert_same_as_before(event):
    """Every stage of `event`, and the event's current stage, read the old ways and through `stage_progress`."""
    event = Event.objects.get(pk=event.pk)
    stages = list(event.stages.all())
    data = results_event._load([event.id], conduct=False)
    for stage in stages:
        state = progress.stage_progress(stage)
        assert play_fields(state) == play_fields(old_stage_play(event, stage)), stage
        old = old_game_progress(stage)
        assert [(g.game, g.draw, g.tables, g.confirmed, g.complete) for g in state.per_game] == [
            (g["game"], g["draw"], g["tables"], g["confirmed"], g["complete"]) for g in old]
        assert state.tables_per_game == tuple(g["tables"] for g in old)
        assert state.confirmed_per_game == tuple(g["confirmed"] for g in old)
        assert state.seated_game == old_board_game(old)
        assert [progress.game_complete(stage, g) for g in range(1, stage.games + 1)] == [
            old_game_complete(stage, g) for g in range(1, stage.games + 1)]
        assert state.complete == progress.stage_complete(stage) == all(
            old_game_complete(stage, g) for g in range(1, stage.games + 1))
        assert state.complete == results_event._stage_complete(event, stage, data) == old_results_complete(
            event, stage, data)
        assert progress.missing_sheets(stage) == old_missing_sheets(stage)
    current = progress.event_progress(event)
    assert play_fields(current) == play_fields(old_current_play(event))
    assert progress.current_stage(event) == (stages[-1] if stages else None)
    exported = old_api_current(event)  # the public API's "current" (the draw is public in these events)
    if current.stage is None:
        assert exported is None
    else:
        assert (exported["stage"], exported["game"], exported["draw_released"]) == (
            current.stage.number, current.game if current.released else 1, current.released)
    return current


def confirm_tables(stage, game, tables, chief):
    for table in tables:
        seats = len(seating.seats(game_draw(stage, game), table=table))
        confirm(stage, [0, *range(7, 7 + 4 * (seats - 1), 4)], chief=chief, game=game, table=table)


def test_a_busan_round_reads_the_same_at_every_point_r8_1():
    stage = released_stage(16)  # four tables, three games a round
    event, chief = stage.event, chief_of(stage.event)
    state = assert_same_as_before(event)
    assert (state.game, state.released, state.confirmed, state.tables) == (1, True, 0, 4)
    confirm_tables(stage, 1, [1, 3], chief)  # mid-game
    state = assert_same_as_before(event)
    assert (state.game, state.confirmed, state.complete) == (1, 2, False)
    confirm_tables(stage, 1, [2, 4], chief)  # game 1 complete: game 2 is played on the same seating
    state = assert_same_as_before(event)
    assert (state.game, state.confirmed, state.seated_game) == (2, 0, 2)
    assert state.of(1).complete and state.of(2).draw == state.of(1).draw
    rng = random.Random(5)
    play_game(stage, 2, chief, rng)
    play_game(stage, 3, chief, rng)  # stage complete
    state = assert_same_as_before(event)
    assert (state.game, state.complete, state.confirmed, state.seated_game) == (None, True, 4, 3)
    if not progress.advancement(stage).resolved:
        progress.draw_lots_at_cut(stage=stage, actor=chief, seed=1)
    following = progress.close_stage(stage=stage, actor=chief)  # the next round waits for its draw
    state = assert_same_as_before(event)
    assert (state.stage, state.game, state.released, state.complete) == (following, None, False, False)
    draw_services.draft_draw(stage=following, actor=ORGANISER, seed=2)  # a draft is not released
    assert not assert_same_as_before(event).released


def test_a_hong_kong_stage_reads_the_same_at_every_point_and_an_unseated_game_is_current_r8_2():
    stage = hong_kong(16, games=3)
    event, chief = stage.event, chief_of(stage.event)
    assert assert_same_as_before(event).game == 1
    confirm_tables(stage, 1, [1, 2, 3], chief)
    state = assert_same_as_before(event)
    assert (state.game, state.confirmed) == (1, 3)
    confirm_tables(stage, 1, [4], chief)  # game 1 complete: the movement seats game 2 (R8.2)
    state = assert_same_as_before(event)
    assert (state.game, state.confirmed, state.seated_game) == (2, 0, 2)
    assert state.of(2).draw.method == Draw.Method.MOVEMENT
    # Game 2 not seated (its movement taken back to a draft): it is still the game being played, after the
    # complete game 1; the live board stays on game 1, the last one seated.
    moved = state.of(2).draw
    Draw.objects.filter(pk=moved.pk).update(status=Draw.Status.DRAFT)
    state = assert_same_as_before(event)
    assert (state.game, state.confirmed, state.complete, state.seated_game) == (2, 0, False, 1)
    assert state.of(2).draw is None and state.tables_per_game == (4, 0, 0)
    Draw.objects.filter(pk=moved.pk).update(status=Draw.Status.RELEASED)
    confirm_tables(stage, 2, [2], chief)
    assert assert_same_as_before(event).confirmed == 1
    confirm_tables(stage, 2, [1, 3, 4], chief)
    state = assert_same_as_before(event)
    assert (state.game, state.confirmed) == (3, 0)
    play_game(stage, 3, chief, random.Random(6))
    state = assert_same_as_before(event)
    assert (state.game, state.complete, state.tables) == (None, True, 4)


def test_nothing_released_reads_the_same():
    for fields in ({}, {"format": Event.Format.HONG_KONG, "ruleset": Event.Ruleset.HK_2016}):
        event = ready_event(8, **fields)
        assert assert_same_as_before(event).stage is None  # not started: no stage
        stage = draw_services.start_event(event=event, actor=ORGANISER)
        draw_services.draft_draw(stage=stage, actor=ORGANISER, seed=3)
        state = assert_same_as_before(event)
        assert (state.stage, state.game, state.released, state.complete, state.tables) == (stage, None, False,
                                                                                           False, 0)
        assert state.seated_game == 1 and [g.tables for g in state.per_game] == [0] * stage.games


@pytest.mark.parametrize("fmt, players", [("busan", 24), ("hk", 12)])
def test_simulated_events_read_the_same_at_the_end(fmt, players):
    """The simulation plays every stage through the services: each reads the same, the last complete."""
    event = simulate(fmt, players, seed=players)
    state = assert_same_as_before(event)
    assert state.complete and state.game is None
    assert state.stage.is_final if fmt == "busan" else state.stage.number == 1


def test_the_board_opens_on_the_newest_stage_as_the_public_pages_do():
    """A playoff after a Hong Kong stage that was never closed: the board, like the hall and the clock, is at the
    playoff (before, the board alone stayed on the first stage still open)."""
    stage = hong_kong(4, games=1)
    chief = chief_of(stage.event)
    confirm(stage, [0, 5, 5, 9], chief=chief)  # two players tie for second place
    playoff = create_playoff(event=stage.event, place=2, actor=chief, seed=4)
    stages = list(stage.event.stages.all())
    assert progress.current_stage(stage.event) == playoff == old_current_play(stage.event).stage
    assert old_board_stage(stages) == stage  # what the board used to open on
    assert_same_as_before(stage.event)


# --- a constant number of queries ------------------------------------------------------------------------------

def _mid_game(players, **fields):
    stage = released_stage(players, capacity=players, **fields)
    confirm_tables(stage, 1, [1, 2], chief_of(stage.event))
    return Stage.objects.select_related("event").get(pk=stage.pk)


@pytest.mark.parametrize("fields", [{}, {"format": Event.Format.HONG_KONG, "ruleset": Event.Ruleset.HK_2016}],
                         ids=["busan", "hong-kong"])
def test_stage_progress_takes_two_queries_for_a_small_or_a_large_stage(fields, django_assert_num_queries):
    small, large = _mid_game(12, **fields), _mid_game(96, **fields)
    for stage, tables in ((small, 3), (large, 24)):
        with django_assert_num_queries(2):
            state = progress.stage_progress(stage)
        assert (state.game, state.tables, state.confirmed) == (1, tables, 2)
        event = Event.objects.get(pk=stage.event_id)
        with django_assert_num_queries(3):
            assert progress.event_progress(event).tables == tables
