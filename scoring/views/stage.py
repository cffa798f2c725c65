"""A stage (round) for the chief referee and the organiser: how complete its games are, who advances
(R8.1), Hong Kong movement between games (R8.2), lots for ties at the cut (R7), and closing it."""

from django.shortcuts import render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from tournament.formats import format_of
from tournament.models import Draw, Event, Lot, Registration, Stage
from tournament.services.audit import Actor
from tournament.views.confirm import Page, blocker_links, confirm_and_run
from tournament.views.helpers import run_service

from ..services import progress
from .staff import PREFIX, board_url, chief_view, get_stage, organiser_view, stage_url


def _names(ids) -> dict[int, str]:
    return dict(Registration.objects.filter(pk__in=list(ids)).values_list("pk", "player__name"))


def _lots(stage: Stage) -> list[dict]:
    lots = list(Lot.objects.filter(stage=stage).select_related("created_by").order_by("created_at", "id"))
    names = _names({int(p) for lot in lots for p in lot.players})
    return [{
        "lot": lot, "who": lot.created_by.get_username() if lot.created_by else _("the software"),
        "draws": sorted(((names.get(int(p), p), lot.tiebreak.get(int(p))) for p in lot.players),
                        key=lambda pair: -(pair[1] or 0)),
    } for lot in lots]


def _advancement(stage: Stage, result) -> dict | None:
    if result is None:
        return None
    advancing = set(result.advancing)
    tied = {p for tie in result.ties for p in tie.players}
    names = _names({r.player_id for ranking in result.rankings for r in ranking})
    per_table = stage.advance == Stage.Advance.PER_TABLE
    rankings = [{
        "table": index if per_table else None,
        "rows": [{"ranked": r, "name": names.get(r.player_id, r.player_id), "advances": r.player_id in advancing,
                  "tied": r.player_id in tied} for r in ranking],
    } for index, ranking in enumerate(result.rankings, start=1)]
    ties = [{"table": tie.table, "places": tie.places, "names": [names.get(p, p) for p in tie.players]}
            for tie in result.ties]
    return {"resolved": result.resolved, "advancing": len(result.advancing), "rankings": rankings, "ties": ties}


@require_safe
@never_cache
@chief_view
def stage_page(request, event, stage):
    stage = get_stage(event, stage)
    state = progress.stage_progress(stage)
    games, complete = state.per_game, state.complete
    fmt = format_of(event)
    movement = []
    if fmt.each_game_anew:  # each game after the first is seated from the one before (R8.2)
        for g in games[:-1]:
            moved = games[g.game].draw  # the next game's seating
            movement.append({"game": g.game, "moved": moved is not None and moved.method == Draw.Method.MOVEMENT,
                             "seated": moved is not None, "complete": g.complete})
    result = progress.advancement(stage) if complete and fmt.eliminates else None
    closing = []
    if request.is_organiser and not stage.closed_at:
        known = {"complete": True, "result": result} if complete else {}  # what the page has worked out already
        closing = blocker_links(progress.closing_blockers(stage, **known), _fix(event, stage))
    return render(request, "scoring/board/stage.html", {
        "festival": event.festival, "event": event, "stage": stage, "games": games, "complete": complete,
        "each_game_anew": fmt.each_game_anew, "movement": movement, "closing_blockers": closing,
        "advancement": _advancement(stage, result),
        "lots": _lots(stage), "is_organiser": request.is_organiser,
        "next_stage": event.stages.filter(number=stage.number + 1).first(),
    })


@require_POST
@organiser_view
def draw_lots(request, event, stage):
    """R7: the organiser has the software draw numbered cards for the players tied at the cut."""
    stage = get_stage(event, stage)
    return run_service(
        request, lambda: progress.draw_lots_at_cut(stage=stage, actor=Actor.of(request)),
        done=lambda lots: _("Lots drawn for %(count)s tie(s) at the cut; the numbers are recorded below.")
        % {"count": len(lots)},
        then=stage_url(event, stage),
    )


def _closed(stage: Stage, following: Stage | None) -> str:
    if following is None:
        return _("%(stage)s is closed.") % {"stage": stage.display_name}
    return _("%(stage)s is closed; %(next)s is ready to be drawn.") % {
        "stage": stage.display_name, "next": following.display_name}


def _fix(event: Event, stage: Stage):
    """Where each reason that keeps the stage open is fixed: the board of the game, the lots, the draw."""
    def fix(blocker):
        if blocker.code in ("incomplete", "unseated") and blocker.game:
            return board_url(event, stage=stage.number, game=blocker.game), _("Open the board")
        if blocker.code == "tie":
            return stage_url(event, stage) + "#ties", _("Draw lots")
        if blocker.code == "not_released":
            return reverse("manage-draws", kwargs={"festival": event.festival.slug, "event": event.slug}), _(
                "Table draw")
        return None
    return fix


@require_http_methods(["GET", "POST"])
@organiser_view
def close(request, event, stage):
    """End the stage: GET shows who advances and who is out; the POST confirms. When a next stage follows, go
    on to its draw."""
    stage = get_stage(event, stage)
    return confirm_and_run(
        request, preview=lambda: progress.closing_preview(stage),
        call=lambda expect: progress.close_stage(stage=stage, actor=Actor.of(request), expect=expect),
        page=Page(action=stage_url(event, stage, "board-close"), back=stage_url(event, stage),
                  back_label=stage.display_name,
                  button=_("Close the stage"), fix=_fix(event, stage), danger=True,
                  context={"festival": event.festival, "event": event}),
        done=lambda following: _closed(stage, following),
        then=lambda following: (reverse("manage-draws", kwargs={"festival": event.festival.slug, "event": event.slug})
                                if following is not None else stage_url(event, stage)),
    )


urlpatterns = [
    path(PREFIX + "stage/<int:stage>/", stage_page, name="board-stage"),
    path(PREFIX + "stage/<int:stage>/lots/", draw_lots, name="board-lots"),
    path(PREFIX + "stage/<int:stage>/close/", close, name="board-close"),
]
