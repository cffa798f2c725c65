"""Public seating pages: the released draw, "where do I sit?", and each table's page — when the organiser
shows the draw (tournament/visibility.py)."""

from django.http import Http404
from django.shortcuts import render

from tournament.models import Registration, Seat
from tournament.public_names import number_or_name, told_apart
from tournament.services import seating
from tournament.views.helpers import get_event, query_text
from tournament.visibility import visibility

from ..moves import mark_moves
from ..standing import standings

MAX_RESULTS = 20


def public_draw(request, festival, event):
    event = get_event(festival, event)
    draw = seating.public_draw(event)
    seats = seating.seats(draw) if draw else []
    wraps_at = mark_moves(event, draw, seats)
    return render(request, "tournament/draws/public.html", {
        "festival": event.festival, "event": event, "shown": visibility(event), "draw": draw,
        "tables": seating.by_table(seats), "wraps_at": wraps_at,
    })


def find_seat(request, festival, event):
    event = get_event(festival, event)
    draw = seating.public_draw(event)
    query = query_text(request)
    results = []
    # A name finds only players whose full name is public; a player number finds anyone (public_names.py).
    condition = number_or_name(event, query, player="registration__player__",
                               number="registration__number") if query else None
    if draw and condition is not None:
        results = list(Seat.objects.filter(condition, draw=draw).select_related("table", "registration__player")
                       .order_by(*seating.SEAT_ORDER)[: MAX_RESULTS + 1])
    unseated = _unseated(event, draw, query) if draw and condition is not None else []
    return render(request, "tournament/draws/find_seat.html", {
        "festival": event.festival, "event": event, "shown": visibility(event), "draw": draw, "query": query,
        "results": results[:MAX_RESULTS], "more": len(results) > MAX_RESULTS, "unseated": unseated,
        "masked": event.public_names == event.PublicNames.MASKED,
    })


def _unseated(event, draw, query: str) -> list[Registration]:
    """Players of the event the search finds who have no seat in the draw, each with why: withdrawn, or out
    (eliminated or left the event, with their place when the standings are public), or simply not seated."""
    condition = number_or_name(event, query, player="player__", number="number")
    found = list(Registration.objects.filter(condition, event=event).exclude(seats__draw=draw)
                 .select_related("player", "event__festival").order_by("number", "id")[:MAX_RESULTS])
    standing = standings(r for r in found if r.is_active)
    for registration in found:
        registration.standing = standing.get(registration.pk)
    return found


def public_table(request, festival, event, number):
    event = get_event(festival, event)
    draw = seating.public_draw(event)
    if number < 1 or number > 10_000:
        raise Http404
    seats = seating.seats(draw, table=number) if draw else []
    wraps_at = None
    if seats and seating.plays_each_game_anew(event):  # the last table's top two go to table 1: how many are there
        wraps_at = mark_moves(event, draw, seats, count=len(seating.table_numbers(draw)))
    for seat, name in zip(seats, told_apart(event, [seat.registration for seat in seats]), strict=True):
        seat.shown_name = name
    return render(request, "tournament/draws/table.html", {
        "festival": event.festival, "event": event, "shown": visibility(event), "draw": draw, "number": number,
        "seats": seats, "wraps_at": wraps_at,
    })
