"""The standings of an event or of one stage, as a page and as the fragment htmx polls (R7, R8). No login, no
JavaScript needed; what they show follows the event's public switches (tournament/visibility.py)."""

from django.shortcuts import render

from tournament.visibility import visibility

from ..board import build_board
from ..live import event_of, live, stage_of


def _standings_context(request, festival, event, stage):
    event = event_of(request, festival, event)
    shown = visibility(event)
    stage_obj = stage_of(event, stage) if stage is not None else None
    context = {"festival": event.festival, "event": event, "stage": stage_obj,
               "stages": list(event.stages.all()), "published": shown.standings}
    if shown.standings:
        context["board"] = build_board(event, stage_obj)
    return context


@live("standings")
def standings_page(request, festival, event, stage=None):
    """Standings of the whole event or of one stage; refreshes itself (htmx) and works without JS."""
    return render(request, "scoring/public/standings.html", _standings_context(request, festival, event, stage))


@live("standings-live", fragment=True)
def standings_live(request, festival, event, stage=None):
    return render(request, "scoring/public/_standings.html", _standings_context(request, festival, event, stage))
