"""Public seating pages (issue 4): the released draw, "where do I sit?", and each table's page."""

from django.db.models import Q
from django.http import Http404
from django.shortcuts import render
from django.urls import path

from ..models import Draw, Seat
from ..models.registration import name_key
from .draws import tables_of
from .helpers import get_event

MAX_RESULTS = 20


def released_draw(event):
    """The seating players need now: the newest released draw of the event's latest stage — if the
    organiser publishes the draw (issue 6)."""
    if not event.public_draw:
        return None
    return (
        Draw.objects.filter(stage__event=event, status=Draw.Status.RELEASED)
        .select_related("stage")
        .order_by("-stage__number", "-game")
        .first()
    )


def _seats(draw, **filters):
    return Seat.objects.filter(draw=draw, **filters).select_related("table", "registration__player").order_by(
        "table__number", "position"
    )


def public_draw(request, festival, event):
    event = get_event(festival, event)
    draw = released_draw(event)
    seats = list(_seats(draw)) if draw else []
    return render(request, "tournament/draws/public.html", {
        "festival": event.festival, "event": event, "draw": draw, "tables": tables_of(seats),
    })


def find_seat(request, festival, event):
    event = get_event(festival, event)
    draw = released_draw(event)
    query = request.GET.get("q", "").strip()[:100]
    results = []
    if draw and query:
        condition = Q(registration__player__name_key__contains=name_key(query))
        if query.isdigit() and len(query) <= 6:
            condition |= Q(registration__number=int(query))
        results = list(_seats(draw).filter(condition)[: MAX_RESULTS + 1])
    return render(request, "tournament/draws/find_seat.html", {
        "festival": event.festival, "event": event, "draw": draw, "query": query,
        "results": results[:MAX_RESULTS], "more": len(results) > MAX_RESULTS,
    })


def public_table(request, festival, event, number):
    event = get_event(festival, event)
    draw = released_draw(event)
    if number < 1 or number > 10_000:
        raise Http404
    seats = list(_seats(draw, table__number=number)) if draw else []
    return render(request, "tournament/draws/table.html", {
        "festival": event.festival, "event": event, "draw": draw, "number": number, "seats": seats,
    })


urlpatterns = [
    path("f/<slug:festival>/<slug:event>/draw/", public_draw, name="public-draw"),
    path("f/<slug:festival>/<slug:event>/seat/", find_seat, name="public-seat"),
    path("f/<slug:festival>/<slug:event>/table/<int:number>/", public_table, name="public-table"),
]
