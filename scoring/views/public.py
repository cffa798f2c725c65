"""Live public pages: standings, a player's games, the hall display. No login, no JavaScript needed.

Each page has a full version and a "live" fragment that htmx polls (inside `data-poll`, so hidden tabs
skip it). Both answer with an ETag built from `scoring.live.event_version`; an unchanged page costs no
query (the event and its version come from the shared cache, tournament/public_cache.py) and a 304. Query counts do not grow with the number of players. What each page shows follows
the event's public switches, through tournament/visibility.py (the one rule for every public page).
"""

import hashlib

from django.http import Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import path
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.views.decorators.http import condition

from tournament.context_processors import CSRF_PLACEHOLDER
from tournament.middleware import public_lane
from tournament.models import Event, Registration, Stage
from tournament.moves import mark_moves
from tournament.public_cache import public_event
from tournament.public_names import number_or_name
from tournament.services import seating
from tournament.views.helpers import get_event
from tournament.visibility import visibility

from .. import rendered
from ..live import content_etag, current_play, etag_for
from ..player_card import player_book
from ..standings_board import build_board

MAX_NUMBER = 100_000  # player and stage numbers above this cannot exist; answer 404 before the database
MAX_SEARCH = 20
HALL_ROWS = 12  # standings rows per hall screen
HALL_TABLES = 8  # tables per hall screen


# ---------------------------------------------------------------- helpers

def _event(request, festival: str, event: str) -> Event:
    """The event, fetched once per request (the ETag function and the view both need it)."""
    cached = getattr(request, "_public_event", None)
    if cached is None:
        cached = request._public_event = public_event(festival, event)
    else:  # fetched by a middleware above (tournament/middleware.py), whose zone the stack has reset since
        timezone.activate(cached.festival.tzinfo)
    return cached


def _etag(page: str):
    def etag(request, festival, event, **kwargs):
        request._public_etag = etag_for(_event(request, festival, event), request, page, sorted(kwargs.items()))
        return request._public_etag
    return etag


def _shared(view):
    """Polled fragments: render once per version (and language) per worker, not once per phone.

    The key is the ETag, which changes with everything the fragment shows; fragments carry no CSRF token
    or anything else personal, so one rendering serves every phone."""
    def cached(request, *args, **kwargs):
        key = f"public-fragment:{request._public_etag}"
        content = rendered.get(key)
        if content is not None:
            return HttpResponse(content)
        response = view(request, *args, **kwargs)
        if response.status_code == 200:
            rendered.put(key, response.content)
        return response
    return cached


def _shared_page(view):
    """Full pages for anonymous phones: rendered once per version, language and address, not once per phone.

    Only requests in the public lane (anonymous, no session: no messages, no name in the header) are served
    from here. A page holds one personal thing, the language form's CSRF token, so it is stored with a
    placeholder (tournament/context_processors.py) and each answer gets its own token."""
    def cached(request, *args, **kwargs):
        if not public_lane(request):
            return view(request, *args, **kwargs)
        digest = hashlib.blake2b(request.get_full_path().encode(), digest_size=8).hexdigest()
        key = f"public-page:{request._public_etag}:{digest}"
        content = rendered.get(key)
        if content is None:
            request.csrf_placeholder = True
            try:
                response = view(request, *args, **kwargs)
            finally:  # a 404 page is rendered after this, with the visitor's own token
                del request.csrf_placeholder
            if response.status_code != 200:
                return response
            content = response.content
            rendered.put(key, content)
        return HttpResponse(content.replace(CSRF_PLACEHOLDER.encode(), get_token(request).encode()))
    return cached


def live(page: str, *, fragment: bool = False, etag=None):
    """ETag / If-None-Match → 304, and tell browsers to revalidate every time (the data changes).

    The ETag is the event's version's (`_etag`) unless `etag` computes a finer one."""
    def decorate(view):
        conditional = condition(etag_func=etag or _etag(page))(_shared(view) if fragment else _shared_page(view))

        def wrapped(request, *args, **kwargs):
            response = conditional(request, *args, **kwargs)
            # An anonymous fragment is the same for every phone of that language (it is shared above), so a
            # shared cache may keep it (deploy/nginx.conf, 1 s); a page carries the visitor's CSRF token and
            # anything signed in is personal.
            shareable = fragment and public_lane(request)
            patch_cache_control(response, no_cache=True, **({} if shareable else {"private": True}))
            return response
        wrapped.__name__ = view.__name__
        wrapped.__doc__ = view.__doc__
        wrapped.public_direct = True  # anonymous requests skip URL resolution (tournament/middleware.py)
        if fragment:  # and an anonymous poll of an unchanged fragment gets its 304 before the stack
            wrapped.fragment_etag = etag or _etag(page)
        return wrapped
    return decorate


def _stage(event: Event, number: int) -> Stage:
    if not 1 <= number <= MAX_NUMBER:
        raise Http404
    stage = Stage.objects.filter(event=event, number=number).first()
    if stage is None:
        raise Http404
    return stage


def _standings_context(request, festival, event, stage):
    event = _event(request, festival, event)
    shown = visibility(event)
    stage_obj = _stage(event, stage) if stage is not None else None
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


# ---------------------------------------------------------------- a player's page

def _card(request, festival, event, number):
    """The player's book and card (scoring/player_card.py), once per request; 404 when no such player."""
    found = getattr(request, "_public_card", None)
    if found is None:
        if not 1 <= number <= MAX_NUMBER:
            raise Http404
        book = player_book(_event(request, festival, event))
        card = book.card(number)
        if card is None:
            raise Http404
        found = request._public_card = (book, card)
    return found


def _card_etag(request, festival, event, number):
    """The live fragment shows only the card: its ETag changes when the card does, not with every sheet."""
    _book, card = _card(request, festival, event, number)
    request._public_etag = content_etag(_event(request, festival, event), request, "player-live", number,
                                        card.digest)
    return request._public_etag


def _player_context(request, festival, event, number):
    book, card = _card(request, festival, event, number)
    return {"festival": book.event.festival, "event": book.event, "shown": card.shown,
            "registration": book.registration(number), "card": card}


@live("player")
def player_page(request, festival, event, number):
    """Every game of one player (by number), their running rank and their next table."""
    return render(request, "scoring/public/player.html", _player_context(request, festival, event, number))


@live("player-live", fragment=True, etag=_card_etag)
def player_live(request, festival, event, number):
    return render(request, "scoring/public/_player.html", _player_context(request, festival, event, number))


def find_player(request, festival, event):
    """Find a player's page by name or number (GET, works without JS)."""
    event = get_event(festival, event)
    query = request.GET.get("q", "").replace("\x00", "").strip()[:100]
    found = []
    # A name finds only players whose full name is public; a player number finds anyone (public_names.py).
    condition_ = number_or_name(event, query) if query else None
    if condition_ is not None:
        found = list(Registration.objects.filter(condition_, event=event, number__isnull=False)
                     .select_related("player").order_by("number")[: MAX_SEARCH + 1])
    return render(request, "scoring/public/find_player.html", {
        "festival": event.festival, "event": event, "query": query, "found": found[:MAX_SEARCH],
        "more": len(found) > MAX_SEARCH, "masked": event.public_names == Event.PublicNames.MASKED,
    })


# ---------------------------------------------------------------- hall display

def _chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _hall_context(request, festival, event):
    event = _event(request, festival, event)
    play = current_play(event)
    board = None
    if visibility(event).standings and play.stage:
        # Busan: the round being played (its cut decides who goes on); Hong Kong: the whole event, with its
        # prize places, also while a playoff table is played.
        per_stage = event.format == Event.Format.BUSAN and play.stage.advance != Stage.Advance.PLAYOFF
        board = build_board(event, play.stage if per_stage else None, play)
    draw = seating.public_draw(event)
    seats = seating.seats(draw) if draw is not None else []
    wraps_at = mark_moves(event, draw, seats)  # R8.2: where a confirmed table's players go next
    return {
        "festival": event.festival, "event": event, "play": play, "board": board, "draw": draw,
        "standing_slides": _chunks(board.rows, HALL_ROWS) if board else [],
        "table_slides": _chunks(seating.by_table(seats), HALL_TABLES), "wraps_at": wraps_at,
    }


@live("hall")
def hall(request, festival, event):
    """For the projector: large type, cycles through the draw and the standings (static/js/hall.js)."""
    return render(request, "scoring/public/hall.html", _hall_context(request, festival, event))


@live("hall-live", fragment=True)
def hall_live(request, festival, event):
    return render(request, "scoring/public/_hall.html", _hall_context(request, festival, event))


PREFIX = "f/<slug:festival>/<slug:event>/"
urlpatterns = [
    path(PREFIX + "standings/", standings_page, name="public-standings"),
    path(PREFIX + "standings/live/", standings_live, name="public-standings-live"),
    path(PREFIX + "standings/<int:stage>/", standings_page, name="public-standings-stage"),
    path(PREFIX + "standings/<int:stage>/live/", standings_live, name="public-standings-stage-live"),
    path(PREFIX + "player/", find_player, name="public-find-player"),
    path(PREFIX + "player/<int:number>/", player_page, name="public-player"),
    path(PREFIX + "player/<int:number>/live/", player_live, name="public-player-live"),
    path(PREFIX + "hall/", hall, name="public-hall"),
    path(PREFIX + "hall/live/", hall_live, name="public-hall-live"),
]
