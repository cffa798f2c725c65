"""Live public pages: standings, a player's games, the hall display. No login, no JavaScript needed.

Each page has a full version and a "live" fragment that htmx polls (inside `data-poll`, so hidden tabs
skip it). Both answer with an ETag built from `scoring.live.event_version`; an unchanged page costs no
query (the event and its version come from the shared cache, tournament/public_cache.py) and a 304. Query counts do not grow with the number of players. What each page shows follows
the event's public switches, through tournament/visibility.py (the one rule for every public page).
"""

import hashlib
from dataclasses import dataclass

from django.http import Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import path
from django.utils.cache import patch_cache_control
from django.views.decorators.http import condition

from tournament.context_processors import CSRF_PLACEHOLDER
from tournament.middleware import public_lane
from tournament.models import Event, Registration, Stage
from tournament.public_cache import public_event
from tournament.public_names import number_or_name
from tournament.services import seating
from tournament.views.helpers import get_event
from tournament.visibility import visibility

from .. import rendered
from ..live import current_play, etag_for
from ..services.conduct import departures
from ..snapshot import event_snapshot
from ..standings_board import build_board, signed

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


def live(page: str, *, fragment: bool = False):
    """ETag / If-None-Match → 304, and tell browsers to revalidate every time (the data changes)."""
    def decorate(view):
        conditional = condition(etag_func=_etag(page))(_shared(view) if fragment else _shared_page(view))

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

@dataclass
class Game:
    stage: Stage | None
    game: int
    table: int
    score: str
    win: bool
    mates: list[Registration]
    rank: str = ""


def _registration(event: Event, number: int) -> Registration:
    if not 1 <= number <= MAX_NUMBER:
        raise Http404
    registration = (Registration.objects.filter(event=event, number=number).select_related("player").first())
    if registration is None:
        raise Http404
    return registration


def _player_context(request, festival, event, number):
    event = _event(request, festival, event)
    shown = visibility(event)
    registration = _registration(event, number)
    snapshot = event_snapshot(event)
    standings = snapshot.standings
    stages = {s.number: s for s in event.stages.all()}
    mine = [r for r in snapshot.results if r.player_id == registration.id]
    ranks = snapshot.running_ranks(registration.id) if shown.standings else {}
    games = []
    for result in mine if shown.games else ():
        mates = [standings.registrations[p] for p in snapshot.at_table[(result.stage, result.game, result.table)]
                 if p != registration.id and p in standings.registrations] if shown.draw else []
        games.append(Game(stages.get(result.stage), result.game, result.table if shown.draw else 0,
                          signed(result.score) if shown.scores else "", result.win and shown.scores,
                          sorted(mates, key=lambda r: r.number or 0), ranks.get((result.stage, result.game), "")))
    line = next((line for line in standings.lines if line.player == registration.id), None) if shown.standings else None
    played = {(r.stage, r.game) for r in mine}
    found = seating.next_table(event, registration, played) if shown.draw else None
    next_table = dict(vars(found)) if found else None
    if next_table and mine and event.format == Event.Format.HONG_KONG and mine[-1].stage == next_table["stage"].number:
        # R8.2: after every game the top two of each table move up a table (k → k+1, the last → 1), the rest stay.
        next_table["came_from"] = mine[-1].table
        next_table["moved"] = "stays" if next_table["table"] == mine[-1].table else "up"
    return {
        "festival": event.festival, "event": event, "shown": shown, "registration": registration, "games": games,
        "line": line,
        "rank": (f"{line.rank}=" if line.tied else str(line.rank)) if line and line.games else "",
        "total": signed(line.total) if line else "", "average": signed(line.average) if line else "",
        "points_average": standings.points == "average",
        "next": next_table,
        "leaving": departures(event).get(registration.id),
    }


@live("player")
def player_page(request, festival, event, number):
    """Every game of one player (by number), their running rank and their next table."""
    return render(request, "scoring/public/player.html", _player_context(request, festival, event, number))


@live("player-live", fragment=True)
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
    tables = seating.by_table(seating.seats(draw)) if draw is not None else []
    return {
        "festival": event.festival, "event": event, "play": play, "board": board, "draw": draw,
        "standing_slides": _chunks(board.rows, HALL_ROWS) if board else [],
        "table_slides": _chunks(tables, HALL_TABLES),
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
