"""Public pages (no login): the festivals and each festival's events. The event page is scoring's
(scoring/views/event.py): on the day it shows the play."""

from django.shortcuts import render

from tournament.models import Festival
from tournament.views.helpers import get_festival, with_counts


def home(request):
    festivals = Festival.objects.all()
    return render(request, "tournament/home.html", {"festivals": festivals})


def festival_page(request, festival):
    festival = get_festival(festival)
    events = with_counts(festival.events.all()).order_by("starts_at", "name")  # the day in time order
    return render(request, "tournament/festival.html", {"festival": festival, "events": events})
