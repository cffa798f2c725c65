"""The public event page: the event's facts, the day's timetable (R9), what is being played now, links to the
draw, standings and players. It belongs to scoring because on the event day it is the live status page."""

from django.shortcuts import render
from django.urls import path

from tournament.schedule import schedule
from tournament.services import seating
from tournament.views.helpers import get_event, with_counts
from tournament.visibility import visibility

from ..live import current_play


def event_page(request, festival, event):
    event = get_event(festival, event)
    event = with_counts(type(event).objects.filter(pk=event.pk)).select_related("festival").get()
    shown = visibility(event)
    has_draw = shown.draw and seating.has_released_draw(event)
    return render(request, "tournament/event.html", {
        "festival": event.festival, "event": event, "shown": shown, "has_draw": has_draw, "schedule": schedule(event),
        "play": current_play(event),
    })


urlpatterns = [
    path("f/<slug:festival>/<slug:event>/", event_page, name="event"),
]
