"""Public pages (no login): festivals, their events, registration."""

from django.db.models import Count, Q
from django.shortcuts import render
from django.urls import path

from scoring.live import current_play, schedule

from ..models import Festival, Registration
from ..services import seating
from .helpers import get_event, get_festival


def home(request):
    festivals = Festival.objects.all()
    return render(request, "tournament/home.html", {"festivals": festivals})


def _with_counts(events):
    return events.annotate(
        registered_count=Count("registrations", filter=Q(registrations__status=Registration.Status.REGISTERED)),
        waitlisted_count=Count("registrations", filter=Q(registrations__status=Registration.Status.WAITLISTED)),
    )


def festival_page(request, festival):
    festival = get_festival(festival)
    events = _with_counts(festival.events.all())
    return render(request, "tournament/festival.html", {"festival": festival, "events": events})


def event_page(request, festival, event):
    event = get_event(festival, event)
    event = _with_counts(type(event).objects.filter(pk=event.pk)).select_related("festival").get()
    has_draw = seating.has_released_draw(event)
    # Issue 6: the day's timetable (R9), what is being played now, links to standings and players.
    return render(request, "tournament/event.html", {
        "festival": event.festival, "event": event, "has_draw": has_draw, "schedule": schedule(event),
        "play": current_play(event),
    })


urlpatterns = [
    path("", home, name="home"),
    path("f/<slug:festival>/", festival_page, name="festival"),
    path("f/<slug:festival>/<slug:event>/", event_page, name="event"),
]
