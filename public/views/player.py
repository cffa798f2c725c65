"""A player's public page (every game, the running rank, the next table) and the search that finds it."""

from django.http import Http404
from django.shortcuts import render

from tournament.models import Event, Registration
from tournament.public_names import number_or_name
from tournament.views.helpers import get_event, query_text

from ..card import player_book
from ..live import MAX_NUMBER, event_of, live
from ..version import content_etag

MAX_SEARCH = 20


def _card(request, festival, event, number):
    """The player's book and card (public/card.py), once per request; 404 when no such player."""
    found = getattr(request, "_public_card", None)
    if found is None:
        if not 1 <= number <= MAX_NUMBER:
            raise Http404
        book = player_book(event_of(request, festival, event))
        card = book.card(number)
        if card is None:
            raise Http404
        found = request._public_card = (book, card)
    return found


def _card_etag(request, festival, event, number):
    """The live fragment shows only the card: its ETag changes when the card does, not with every sheet."""
    _book, card = _card(request, festival, event, number)
    request._public_etag = content_etag(event_of(request, festival, event), request, "player-live", number,
                                        card.digest)
    return request._public_etag


def _player_context(request, festival, event, number):
    book, card = _card(request, festival, event, number)
    return {"festival": book.event.festival, "event": book.event, "shown": card.shown,
            "registration": book.registration(number), "card": card}


@live("player")
def player_page(request, festival, event, number):
    """Every game of one player (by number), their running rank and their next table."""
    return render(request, "public/player.html", _player_context(request, festival, event, number))


@live("player-live", fragment=True, etag=_card_etag)
def player_live(request, festival, event, number):
    return render(request, "public/_player.html", _player_context(request, festival, event, number))


def find_player(request, festival, event):
    """Find a player's page by name or number (GET, works without JS)."""
    event = get_event(festival, event)
    query = query_text(request)
    found = []
    # A name finds only players whose full name is public; a player number finds anyone (public_names.py).
    condition_ = number_or_name(event, query) if query else None
    if condition_ is not None:
        found = list(Registration.objects.filter(condition_, event=event, number__isnull=False)
                     .select_related("player").order_by("number")[: MAX_SEARCH + 1])
    return render(request, "public/find_player.html", {
        "festival": event.festival, "event": event, "query": query, "found": found[:MAX_SEARCH],
        "more": len(found) > MAX_SEARCH, "masked": event.public_names == Event.PublicNames.MASKED,
    })
