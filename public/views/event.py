"""The public event page: the event's facts, the day's timetable (R9), what is being played now, links to the
draw, standings and players. It belongs to scoring because on the event day it is the live status page: from
the first released draw the live status (round, game, time left, "Where do I sit?", standings) leads and the
registration details follow."""

from django.shortcuts import render
from django.utils import timezone

from scoring.clock import IDLE, PENDING, facts_for, round_clock
from scoring.services.progress import event_progress
from tournament.models import Draw
from tournament.schedule import schedule
from tournament.services import seating
from tournament.views.helpers import get_event, with_counts
from tournament.visibility import visibility


def event_page(request, festival, event):
    event = get_event(festival, event)
    event = with_counts(type(event).objects.filter(pk=event.pk)).select_related("festival").get()
    shown = visibility(event)
    has_draw = shown.draw and seating.has_released_draw(event)
    play = event_progress(event)
    clock = None
    if play.stage is not None and play.released:  # the round clock (R9) of the stage in play: one more query
        released_at = (Draw.objects.filter(stage=play.stage, status=Draw.Status.RELEASED, released_at__isnull=False)
                       .order_by("game").values_list("released_at", flat=True).first())
        clock = round_clock(facts_for(event, play.stage, released_at=released_at, finished=play.complete),
                            timezone.now())
    timed = clock is not None and clock.state not in (IDLE, PENDING)
    return render(request, "tournament/event.html", {
        "festival": event.festival, "event": event, "shown": shown, "has_draw": has_draw, "schedule": schedule(event),
        "play": play, "live": play.stage is not None and play.released, "clock": clock if timed else None,
        "minutes_left": -(-int(clock.remaining(timezone.now()).total_seconds()) // 60) if timed else None,
    })
