"""The standings of an event or of one stage, as a page and as the fragment htmx polls (R7, R8). No login, no
JavaScript needed; what they show follows the event's public switches (tournament/visibility.py).

Once an event's results are final, its standings page answers "where did I finish" first: the final places,
as the results page, the player's pages and the API give them. The table of every game (wins, then points
over all of them) stays one tap away (`every_game`), and says what it is."""

from django.shortcuts import render

from tournament.formats import format_of
from tournament.visibility import visibility

from ..board import build_board
from ..live import event_of, live, stage_of
from ..snapshot import event_snapshot


def _standings_context(request, festival, event, stage, every_game):
    event = event_of(request, festival, event)
    shown = visibility(event)
    stage_obj = stage_of(event, stage) if stage is not None else None
    places = event_snapshot(event).final_places() if shown.results else {}
    final = bool(places)
    results = event_snapshot(event).event_results() if final else None
    context = {"festival": event.festival, "event": event, "stage": stage_obj, "every_game": every_game,
               "final": final, "stages": list(event.stages.all()), "published": shown.standings}
    if final and stage_obj is None and not every_game:
        context.update(results=results, show_stage=format_of(event).eliminates, link_players=True)
    elif shown.standings:
        context["board"] = build_board(event, stage_obj)
    return context


@live("standings")
def standings_page(request, festival, event, stage=None, every_game=False):
    """Standings of the whole event or of one stage; refreshes itself (htmx) and works without JS."""
    return render(request, "public/standings.html",
                  _standings_context(request, festival, event, stage, every_game))


@live("standings-live", fragment=True)
def standings_live(request, festival, event, stage=None, every_game=False):
    return render(request, "public/_standings.html",
                  _standings_context(request, festival, event, stage, every_game))
